package dev.kensho.generator.verify;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which versions' plans a page shows as one: the same plan but for what a run's background decides. */
class PlanGroupsTest {

    private static final String DEEP_PAGE = """
            Limit  (actual time=%s rows=2.00 loops=1)
              Buffers: shared hit=%s
              ->  Index Scan Backward using orders_account_cursor_idx on public.orders  (actual time=%s rows=2.00 loops=1)
                    Filter: ((orders.created_at < $2) OR ((orders.created_at = $2) AND (orders.order_id < $3)))
                    Rows Removed by Filter: 50001
                    Buffers: shared hit=%s
            Execution Time: %s ms""";

    private static VersionCoverage coverage(Map<Integer, String> plans) {
        return new VersionCoverage(List.of(14, 15, 18), List.of(14, 15, 18), Map.of(14, "14.19", 15, "15.14", 18, "18.6"),
                Map.of("keyset.md", List.of(List.of(14, 15, 18))), Map.of("keyset.md", List.of(plans)), Map.of());
    }

    @Test
    void plansThatDifferOnlyInTimingsAndBufferCountsAreOneShownWithTheNewestFigures() {
        // PostgreSQL 14 under load: autovacuum's VACUUM of the table the page had just filled dropped the cached B-tree
        // metapage, and the scan read it once more.
        String on14 = DEEP_PAGE.formatted("0.010..5.100", "1152", "0.009..5.090", "1152", "5.200");
        String on15 = DEEP_PAGE.formatted("0.011..4.900", "1151", "0.010..4.890", "1151", "5.000");
        String on18 = DEEP_PAGE.formatted("0.012..4.700", "1149 read=2", "0.011..4.690", "1149 read=2", "4.800");
        List<VersionCoverage.PlanGroup> groups = coverage(Map.of(14, on14, 15, on15, 18, on18)).planGroups("keyset.md", 0);
        assertEquals(List.of(new VersionCoverage.PlanGroup(List.of(14, 15, 18), "14, 15, 18", on18, "18.6")), groups);
    }

    /**
     * CI of 3d5eaa4, PostgreSQL 14: the page's VACUUM left the visibility map unset (autovacuum's timing on the build's
     * server), and the index-only scan fetched 50,003 heap tuples against 0 on 15–18: the same plan, shown once.
     */
    @Test
    void plansThatDifferOnlyInHeapFetchesAreOne() {
        String indexOnly = "Limit  (actual time=%s rows=2.00 loops=1)\n  ->  Index Only Scan using orders_account_cursor_idx on public.orders"
                + "  (actual time=%s rows=2.00 loops=1)\n        Rows Removed by Filter: 50001\n        Heap Fetches: %s\nExecution Time: %s ms";
        String on14 = indexOnly.formatted("13.641..13.643", "13.639..13.639", "50003", "13.649");
        String on15 = indexOnly.formatted("7.0..7.1", "7.0..7.0", "0", "7.2");
        String on18 = indexOnly.formatted("7.664..7.666", "7.662..7.663", "0", "7.670");
        List<VersionCoverage.PlanGroup> groups = coverage(Map.of(14, on14, 15, on15, 18, on18)).planGroups("keyset.md", 0);
        assertEquals(List.of(new VersionCoverage.PlanGroup(List.of(14, 15, 18), "14, 15, 18", on18, "18.6")), groups);
    }

    @Test
    void plansThatDifferInRowsRemovedOrShapeStayApart() {
        String on14 = DEEP_PAGE.formatted("0.010..5.100", "1151", "0.009..5.090", "1151", "5.200")
                .replace("Rows Removed by Filter: 50001", "Rows Removed by Filter: 50000");
        String on15 = DEEP_PAGE.formatted("0.011..4.900", "1151", "0.010..4.890", "1151", "5.000");
        String on18 = on15.replace("Index Scan Backward", "Index Scan");
        List<VersionCoverage.PlanGroup> groups = coverage(Map.of(14, on14, 15, on15, 18, on18)).planGroups("keyset.md", 0);
        assertEquals(List.of(List.of(14), List.of(15), List.of(18)), groups.stream().map(VersionCoverage.PlanGroup::versions).toList());
    }
}
