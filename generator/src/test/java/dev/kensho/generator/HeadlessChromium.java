package dev.kensho.generator;

import org.openqa.selenium.WebDriverException;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Debian's Chromium, headless, as every browser test starts it: one set of flags for all of them. */
final class HeadlessChromium {

    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");

    private HeadlessChromium() {
    }

    /** Skips the calling class, saying why, where chromium or chromedriver is not installed (.ci/run installs both). */
    static void assumeInstalled() {
        if (!Files.isExecutable(CHROMIUM) || !Files.isExecutable(CHROMEDRIVER)) {
            String reason = "Debian's chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)";
            System.out.println("SKIPPED browser tests: " + reason);
            assumeTrue(false, reason);
        }
    }

    /**
     * A browser with a fresh profile in {@code profiles}, 1280 × 900. Shared memory goes to /tmp, not /dev/shm: a CI
     * container's /dev/shm can be small, and the cluster templates of the SQL tests live there; a renderer that
     * cannot map more shared memory dies as "tab crashed".
     */
    static ChromeDriver start(Path profiles, String... extraArguments) throws IOException {
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        List<String> arguments = new ArrayList<>(List.of("--headless=new", "--no-sandbox", "--disable-gpu",
                "--disable-dev-shm-usage", "--no-first-run", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--user-data-dir=" + Files.createTempDirectory(profiles, "kensho-chrome-"),
                "--window-size=1280,900"));
        arguments.addAll(List.of(extraArguments));
        options.addArguments(arguments);
        return new ChromeDriver(new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile()).build(), options);
    }

    /** False when the driver's tab is gone (the renderer crashed): every later command would fail the same way. */
    static boolean alive(ChromeDriver driver) {
        try {
            driver.getWindowHandle();
            driver.getCurrentUrl();
            return true;
        } catch (WebDriverException e) {
            return false;
        }
    }
}
