package dev.kensho.sqlchecks.postgres;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.ResultSet;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Builds after the first copy an initialised cluster instead of running initdb. */
class ClusterTemplateTest {

    @Test
    void aSecondServerStartsFromTheKeptClusterAndWorks() throws Exception {
        try (RunningPostgres first = new EmbeddedPostgres().start()) {
            assertTrue(first.description().contains("cluster "), first.description());
        }
        List<Path> templates;
        try (Stream<Path> entries = Files.list(EmbeddedPostgres.clusterRoot())) {
            templates = entries.filter(p -> p.getFileName().toString().startsWith("kensho-template-")
                    && !p.getFileName().toString().contains(".staging-")).toList();
        }
        // One per cluster layout and binaries; a machine that ran older Kensho versions keeps theirs too.
        assertTrue(!templates.isEmpty(), "no template was kept");
        for (Path template : templates) {
            assertTrue(Files.isRegularFile(template.resolve(".complete")));
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(template.resolve("password"))),
                    "the superuser password is the owner's alone");
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(template)));
        }

        try (RunningPostgres second = new EmbeddedPostgres().start();
             Connection admin = second.connectAdmin();
             ResultSet rs = admin.createStatement().executeQuery("SELECT current_setting('server_version')")) {
            rs.next();
            assertEquals("18.6", rs.getString(1));
        }
    }
}
