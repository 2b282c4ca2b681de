package dev.kensho.sqlchecks.assertion;

import dev.kensho.sqlchecks.model.CapturedPlans;
import dev.kensho.sqlchecks.model.Directives.PlanExpectations;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** Work claims read off captured plans: exact where EXPLAIN is exact, undecided where its rounding hides the total. */
class PlanCheckTest {

    /** A nested loop whose inner index scan ran 20 times and removed 8 rows in all: EXPLAIN prints 0 per loop. */
    private static final String LOOPS = """
            {"Query Text": "SELECT 1", "Plan": {"Node Type": "Nested Loop", "Actual Loops": 1, "Shared Hit Blocks": 50,
              "Plans": [{"Node Type": "Seq Scan", "Relation Name": "a", "Schema": "public", "Actual Loops": 1,
                         "Rows Removed by Filter": 3},
                        {"Node Type": "Index Scan", "Index Name": "b_pkey", "Relation Name": "b", "Schema": "public",
                         "Actual Loops": 20, "Rows Removed by Filter": 0}]}, "Settings": {}}""";

    /** A database with no index keys to tell and no out-of-line values. */
    private static final PlanCheck.Catalog NO_OBJECTS = new PlanCheck.Catalog() {
        @Override
        public List<String> indexKeys(String schema, String index) {
            return null;
        }

        @Override
        public long toastBytes(String schema, String table) {
            return 0;
        }
    };

    private static PlanCheck check(String... json) {
        return PlanCheck.of(CapturedPlans.of(List.of(json).stream().map(j -> new CapturedPlans.Plan(j, 1.0)).toList(), "SELECT 1", false));
    }

    private static PlanExpectations removedAtMost(long limit) {
        return new PlanExpectations(null, Set.of(), false, null, null, null, limit);
    }

    @Test
    void rowsRemovedOverManyLoopsAreARangeNotARoundedGuess() {
        assertArrayEquals(new long[]{3, 13}, check(LOOPS).rowsRemoved());
    }

    @Test
    void aBoundTheExactCountMightExceedDoesNotPass() throws Exception {
        PlanCheck.Result result = check(LOOPS).checkWork(removedAtMost(5), NO_OBJECTS).get(0);
        assertEquals("the exact count cannot be known: EXPLAIN reports rows removed as a rounded average per loop, and over the "
                + "loops the total lies between 3 and 13, which straddles the bound 5; raise the bound to 13 or claim it on a "
                + "statement that loops less", result.problem());
    }

    @Test
    void aBoundTheWholeRangeMeetsPassesAndOneBelowItFails() throws Exception {
        assertNull(check(LOOPS).checkWork(removedAtMost(13), NO_OBJECTS).get(0).problem());
        assertEquals("its nodes read and then discarded 3–13 rows (Rows Removed by Filter, Join Filter and Index Recheck, times "
                + "loops, in every plan of the execution), more than 2", check(LOOPS).checkWork(removedAtMost(2), NO_OBJECTS).get(0).problem());
    }

    @Test
    void buffersCountEveryPlanOfTheExecution() {
        String nested = """
                {"Query Text": "SELECT 1 FROM ONLY \\"public\\".\\"orders\\" x", "Plan": {"Node Type": "LockRows", "Shared Hit Blocks": 300,
                 "Shared Read Blocks": 4}, "Settings": {}}""";
        assertEquals(354, check(nested, LOOPS).sharedBuffers());
    }
}
