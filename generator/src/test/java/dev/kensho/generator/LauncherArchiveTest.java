package dev.kensho.generator;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * bin/kensho starts from the class-data-sharing archive `mvn package` wrote beside the jar only while the jar is the one
 * it was made for: kensho.jsa.jar records the jar's real path, size and time. A jar copied over the rebuilt one with
 * {@code cp -p}, a record of the old form (the path alone), links, or an archive and record a checkout supplies are not
 * used: the launcher then makes its own archive in the user's cache. The JVM's options are read from a stand-in
 * {@code java} first on PATH, which writes its arguments down.
 */
class LauncherArchiveTest {

    private static final Path LAUNCHER = Path.of("../bin/kensho").toAbsolutePath().normalize();

    @TempDir
    Path temp;
    private Path jar;
    private Path archive;
    private Path record;
    private Path arguments;
    private Path fakeBin;

    /** When the jar was written: a whole second, a minute ago. */
    private static final Instant BUILT = Instant.now().minusSeconds(60).truncatedTo(java.time.temporal.ChronoUnit.SECONDS);

    @BeforeEach
    void packaged() throws IOException {
        fakeBin = Files.createDirectories(temp.resolve("fake-bin"));
        arguments = temp.resolve("java-arguments");
        Path java = fakeBin.resolve("java");
        Files.writeString(java, "#!/bin/sh\nprintf '%s\\n' \"$@\" > '" + arguments + "'\n");
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path folder = Files.createDirectories(temp.resolve("release"));
        jar = folder.resolve("kensho.jar");
        archive = folder.resolve("kensho.jsa");
        record = folder.resolve("kensho.jsa.jar");
        make(jar, archive, record);
    }

    /** A jar, its archive written after it and the record of the jar that `mvn package` writes. */
    private static void make(Path jar, Path archive, Path record) throws IOException {
        Files.writeString(jar, "the jar the archive was made for");
        Files.setLastModifiedTime(jar, FileTime.from(BUILT));
        Files.writeString(archive, "archive");
        Files.setLastModifiedTime(archive, FileTime.from(BUILT.plusSeconds(5)));
        Files.writeString(record, jar.toRealPath() + " " + stamp(jar));
    }

    /** The jar's size and time, as bin/kensho's stat gives them. */
    private static String stamp(Path jar) throws IOException {
        return Files.size(jar) + "-" + Files.getLastModifiedTime(jar).to(TimeUnit.SECONDS);
    }

    /** The arguments bin/kensho (at {@code launcher}) gave java for {@code kensho --version}. */
    private List<String> run(Path launcher, Map<String, String> environment) throws Exception {
        Files.deleteIfExists(arguments);
        ProcessBuilder builder = new ProcessBuilder("sh", launcher.toString(), "--version").redirectErrorStream(true);
        builder.environment().put("PATH", fakeBin + ":" + System.getenv("PATH"));
        builder.environment().put("HOME", temp.resolve("home").toString());
        builder.environment().put("XDG_CACHE_HOME", temp.resolve("cache").toString());
        builder.environment().put("KENSHO_JAVA_OPTS", "-Dfrom=test");
        builder.environment().remove("KENSHO_JAR");
        builder.environment().remove("KENSHO_CDS");
        builder.environment().putAll(environment);
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, process.exitValue(), output);
        return Files.readAllLines(arguments);
    }

    private List<String> run() throws Exception {
        return run(LAUNCHER, Map.of("KENSHO_JAR", jar.toString()));
    }

    private void assertPackagedArchive(List<String> java) {
        assertEquals(List.of("-XX:SharedArchiveFile=" + archive, "-Xshare:auto", "-Xlog:cds=off",
                "-Xlog:cds+dynamic=off", "-Dfrom=test", "-jar", jar.toString(), "--version"), java);
    }

    /** Not the packaged archive: the first run writes one of its own into the user's cache. */
    private void assertOwnArchive(List<String> java) throws IOException {
        assertFalse(java.stream().anyMatch(argument -> argument.contains("kensho.jsa")), java.toString());
        assertTrue(java.get(0).startsWith("-XX:ArchiveClassesAtExit=" + temp.resolve("cache/kensho/kensho-" + stamp(jar) + ".jsa.")),
                java.toString());
        assertEquals(List.of("-Xlog:cds=off", "-Dfrom=test", "-jar", jar.toString(), "--version"), java.subList(1, java.size()));
    }

    @Test
    void theArchiveMadeForTheJarIsUsed() throws Exception {
        assertPackagedArchive(run());
    }

    /** Without KENSHO_JAVA_OPTS the JVM gets bin/kensho's own options, a bounded heap among them (a hostile theme's value). */
    @Test
    void theDefaultOptionsBoundTheHeap() throws Exception {
        List<String> java = run(LAUNCHER, Map.of("KENSHO_JAR", jar.toString(), "KENSHO_JAVA_OPTS", "unset"));
        assertTrue(java.contains("unset"), java.toString());
        Files.deleteIfExists(arguments);
        ProcessBuilder builder = new ProcessBuilder("sh", LAUNCHER.toString(), "--version").redirectErrorStream(true);
        builder.environment().put("PATH", fakeBin + ":" + System.getenv("PATH"));
        builder.environment().put("HOME", temp.resolve("home").toString());
        builder.environment().put("XDG_CACHE_HOME", temp.resolve("cache").toString());
        builder.environment().put("KENSHO_JAR", jar.toString());
        builder.environment().remove("KENSHO_JAVA_OPTS");
        builder.environment().remove("KENSHO_CDS");
        Process process = builder.start();
        process.getInputStream().readAllBytes();
        assertTrue(process.waitFor(60, TimeUnit.SECONDS));
        assertEquals(List.of("-XX:SharedArchiveFile=" + archive, "-Xshare:auto", "-Xlog:cds=off", "-Xlog:cds+dynamic=off",
                "-XX:TieredStopAtLevel=1", "-XX:+UseParallelGC", "-XX:MinHeapFreeRatio=10", "-XX:MaxHeapFreeRatio=20", "-Xmx2g",
                "-jar", jar.toString(), "--version"), Files.readAllLines(arguments));
    }

    @Test
    void aJarCopiedOverTheRebuiltOneWithItsTimeIsRunWithoutIt() throws Exception {
        // cp -p of an older jar (another size, an earlier time) over the one the archive was made for.
        Path older = temp.resolve("older.jar");
        Files.writeString(older, "an older jar, of another size");
        Files.setLastModifiedTime(older, FileTime.from(BUILT.minusSeconds(3600)));
        Files.copy(older, jar, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.COPY_ATTRIBUTES);
        assertOwnArchive(run());
        // Of the same size, one second older: the time alone tells it apart.
        make(jar, archive, record);
        Files.setLastModifiedTime(jar, FileTime.from(BUILT.minusSeconds(1)));
        assertOwnArchive(run());
        // Of the same time, another size.
        make(jar, archive, record);
        Files.writeString(jar, "the jar the archive was made for, and more");
        Files.setLastModifiedTime(jar, FileTime.from(BUILT));
        assertOwnArchive(run());
    }

    @Test
    void aRecordOfTheOldFormOrOfAnotherPathIsNotEnough() throws Exception {
        Files.writeString(record, jar.toRealPath().toString());
        assertOwnArchive(run());
        Files.writeString(record, temp.resolve("elsewhere/kensho.jar") + " " + stamp(jar));
        assertOwnArchive(run());
        // An archive older than the jar was not made after it.
        make(jar, archive, record);
        Files.setLastModifiedTime(archive, FileTime.from(BUILT.minusSeconds(5)));
        assertOwnArchive(run());
    }

    @Test
    void linksNeverStandForTheArchiveOrTheRecord() throws Exception {
        Path elsewhere = Files.createDirectories(temp.resolve("elsewhere"));
        Files.move(archive, elsewhere.resolve("kensho.jsa"));
        Files.createSymbolicLink(archive, elsewhere.resolve("kensho.jsa"));
        assertOwnArchive(run());
        Files.delete(archive);
        make(jar, archive, record);
        Files.move(record, elsewhere.resolve("record"));
        Files.createSymbolicLink(record, elsewhere.resolve("record"));
        assertOwnArchive(run());
    }

    /**
     * A branch that commits generator/target/kensho.jsa and its record (git add -f) beside the jar a checkout builds: the
     * record cannot name the size and the time the build gives the jar, so the launcher does not use that archive.
     */
    @Test
    void aCheckoutsCommittedArchiveIsNotUsedForTheJarItBuilds() throws Exception {
        Path checkout = temp.resolve("checkout");
        Files.createDirectories(checkout.resolve("bin"));
        Path launcher = Files.copy(LAUNCHER, checkout.resolve("bin/kensho"));
        Path target = Files.createDirectories(checkout.resolve("generator/target"));
        jar = target.resolve("kensho.jar");
        archive = target.resolve("kensho.jsa");
        record = target.resolve("kensho.jsa.jar");
        // Checked out: the archive, and a record naming the jar's path and a guess at its size and time.
        Files.writeString(archive, "an archive of the branch's making");
        Files.writeString(record, checkout.toRealPath() + "/generator/target/kensho.jar 32-" + BUILT.getEpochSecond());
        // Then a jar is built, of that size, a second later than the guess.
        Files.writeString(jar, "x".repeat(32));
        Files.setLastModifiedTime(jar, FileTime.from(BUILT.plusSeconds(1)));
        Files.setLastModifiedTime(archive, FileTime.from(BUILT.plusSeconds(10)));
        assertOwnArchive(run(launcher, Map.of()));
        // The same launcher uses an archive its build made for that jar.
        Files.writeString(record, jar.toRealPath() + " " + stamp(jar));
        List<String> java = run(launcher, Map.of());
        assertEquals("-XX:SharedArchiveFile=" + archive, java.get(0));
    }

    /**
     * With the real JVM, where this checkout's `mvn package` made the archive (not with -DskipCds): the record it wrote
     * matches what bin/kensho reads, and Kensho's classes come from the archive.
     */
    @Test
    void theArchiveThePackageMadeIsUsedByTheJvm() throws Exception {
        Path built = Path.of("target/kensho.jar").toAbsolutePath();
        Path packagedArchive = Path.of("target/kensho.jsa").toAbsolutePath();
        Path packagedRecord = Path.of("target/kensho.jsa.jar").toAbsolutePath();
        Assumptions.assumeTrue(Files.isRegularFile(built) && Files.isRegularFile(packagedArchive) && Files.isRegularFile(packagedRecord),
                "no packaged archive (-DskipCds)");
        assertEquals(built.toRealPath() + " " + stamp(built), Files.readString(packagedRecord));
        ProcessBuilder builder = new ProcessBuilder("sh", LAUNCHER.toString(), "--version").redirectErrorStream(true);
        builder.environment().put("KENSHO_JAR", built.toString());
        builder.environment().put("XDG_CACHE_HOME", temp.resolve("cache").toString());
        builder.environment().put("KENSHO_JAVA_OPTS", "-Xlog:class+load=info");
        builder.environment().remove("KENSHO_CDS");
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(120, TimeUnit.SECONDS));
        assertEquals(0, process.exitValue(), output);
        assertTrue(output.contains("dev.kensho.generator.cli.KenshoCommand source: shared objects file"), output.lines()
                .filter(line -> line.contains("dev.kensho")).limit(5).toList().toString());
        assertFalse(Files.exists(temp.resolve("cache/kensho")), "no archive of its own was written");
    }
}
