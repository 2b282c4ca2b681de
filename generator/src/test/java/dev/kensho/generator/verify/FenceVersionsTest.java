package dev.kensho.generator.verify;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** What a fence's versions= selects, and what a mark then says; no server needed. */
class FenceVersionsTest {

    @Test
    void boundsRangesAndListsSelectSupportedVersions() throws Exception {
        assertEquals(List.of(17, 18), FenceVersions.parse(">=17"));
        assertEquals(List.of(18), FenceVersions.parse(">17"));
        assertEquals(List.of(14, 15, 16), FenceVersions.parse("<=16"));
        assertEquals(List.of(14), FenceVersions.parse("<15"));
        assertEquals(List.of(15, 16, 17), FenceVersions.parse("15-17"));
        assertEquals(List.of(15, 16), FenceVersions.parse("16, 15"));
        assertEquals(List.of(18), FenceVersions.parse("18"));
    }

    @Test
    void anythingElseIsRefusedSayingWhatToWrite() {
        String usage = ": write versions=\">=17\", \"<=16\", \"15-17\" or \"15,16\" (PostgreSQL 14–18)";
        assertEquals("versions=\"15-\"" + usage, assertThrows(FenceVersions.Invalid.class, () -> FenceVersions.parse("15-")).getMessage());
        assertEquals("versions=\"17-15\"" + usage, assertThrows(FenceVersions.Invalid.class, () -> FenceVersions.parse("17-15")).getMessage());
        assertEquals("versions=\">=13\": PostgreSQL 13 is not one Kensho checks on (14–18)",
                assertThrows(FenceVersions.Invalid.class, () -> FenceVersions.parse(">=13")).getMessage());
        assertEquals("versions=\"12-16\": PostgreSQL 12 is not one Kensho checks on (14–18)",
                assertThrows(FenceVersions.Invalid.class, () -> FenceVersions.parse("12-16")).getMessage());
        assertEquals("versions=\">18\" selects no version Kensho checks on (14–18)",
                assertThrows(FenceVersions.Invalid.class, () -> FenceVersions.parse(">18")).getMessage());
    }

    @Test
    void aMarkNamesTheVersionsASnippetHeldOn() {
        List<Integer> all = List.of(14, 15, 16, 17, 18);
        VersionCoverage several = new VersionCoverage(all, all, Map.of(14, "14.19", 18, "18.6"),
                Map.of("a.md", List.of(all, List.of(17, 18), List.of(18))));
        assertEquals(new VersionCoverage.Mark("14–18", false), several.mark("a.md", 0));
        assertEquals(new VersionCoverage.Mark("17, 18", true), several.mark("a.md", 1));
        assertEquals(new VersionCoverage.Mark("18", true), several.mark("a.md", 2));
        // One version checked (the default site, or --postgres-version): its exact release, never "only".
        VersionCoverage one = new VersionCoverage(List.of(15), all, Map.of(15, "15.14"), Map.of("a.md", List.of(List.of(15))));
        assertEquals(new VersionCoverage.Mark("15.14", false), one.mark("a.md", 0));
    }
}
