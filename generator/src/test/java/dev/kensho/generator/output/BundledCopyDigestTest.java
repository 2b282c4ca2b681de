package dev.kensho.generator.output;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The up-to-date record takes the digest of a copy of a jar file from the jar only while nothing wrote to the copy since
 * the build did: a copy written to afterwards is read back and hashed as it is, so its digest is that of its bytes.
 */
class BundledCopyDigestTest {

    @TempDir
    Path temp;

    private static String sha256(String text) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void anUntouchedCopyTakesTheJarsDigestAndAChangedOneIsHashedAsItIs() throws Exception {
        Path jarFile = temp.resolve("jar/pglite.data"); // stands for a file of Kensho's jar
        Files.createDirectories(jarFile.getParent());
        Files.writeString(jarFile, "the jar's bytes");
        Path out = temp.resolve("site");
        Map<String, SiteOutput.BundledCopy> copies;
        try (SiteOutput output = SiteOutput.begin(out)) {
            output.copyBundled("assets/pglite/kept.data", jarFile);
            output.copyBundled("assets/pglite/changed.data", jarFile);
            output.write("index.html", "<p>page</p>");
            copies = output.bundledCopies();
            output.commit();
        }
        assertEquals(List.of("assets/pglite/changed.data", "assets/pglite/kept.data"), copies.keySet().stream().sorted().toList());
        // Written to after the build's copy (another size: another identity whatever the clock's tick).
        Files.writeString(out.resolve("assets/pglite/changed.data"), "a forged file of another size");

        List<List<Path>> asked = new ArrayList<>();
        Map<String, String[]> known = UpToDateSite.fromJar(UpToDateSite.outputIdentities(out), copies, sources -> {
            asked.add(sources);
            return Map.of(jarFile.toString(), "digest-of-the-jar-file");
        });
        Map<String, String> digests = UpToDateSite.outputDigests(out, known);

        assertEquals(Map.of("assets/pglite/kept.data", "digest-of-the-jar-file",
                "assets/pglite/changed.data", sha256("a forged file of another size"),
                "index.html", sha256("<p>page</p>")), digests);
        assertEquals(1, asked.size(), "the jar's digests are asked for once per record");
    }

    @Test
    void aCopyWhoseIdentityCouldNotBeReadOrWhoseJarDigestIsUnknownIsHashed() throws Exception {
        Path jarFile = temp.resolve("jar/a.js");
        Files.createDirectories(jarFile.getParent());
        Files.writeString(jarFile, "console.log(1)");
        Path out = temp.resolve("site");
        Files.createDirectories(out.resolve("assets"));
        Files.writeString(out.resolve("assets/a.js"), "console.log(1)");
        Files.writeString(out.resolve("assets/b.js"), "console.log(1)");
        String identityOfB = UpToDateSite.identity(out.resolve("assets/b.js"));
        Map<String, SiteOutput.BundledCopy> copies = Map.of(
                "assets/a.js", new SiteOutput.BundledCopy(jarFile, null),
                "assets/b.js", new SiteOutput.BundledCopy(temp.resolve("jar/unknown.js"), identityOfB));
        Map<String, String> digests = UpToDateSite.outputDigests(out,
                UpToDateSite.fromJar(UpToDateSite.outputIdentities(out), copies, sources -> Map.of(jarFile.toString(), "digest-of-the-jar-file")));
        assertEquals(Map.of("assets/a.js", sha256("console.log(1)"), "assets/b.js", sha256("console.log(1)")), digests);
    }
}
