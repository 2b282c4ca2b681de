package dev.kensho.sqlchecks.execution;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/** What a replay's trees may differ in from the real run's ({@link RunTrace#digest}): the page's OIDs, and nothing else. */
class RunTraceTest {

    /** A SELECT of the page's table as PostgreSQL 18 prints it, with the table's OID, its row type and a LIMIT. */
    private static String select(long table, long rowType, long limit) {
        return "{QUERY :commandType 1 :querySource 0 :canSetTag true :utilityStmt <> :resultRelation 0 :rtable ({RANGETBLENTRY "
                + ":alias <> :eref {ALIAS :aliasname t :colnames (\"id\")} :rtekind 0 :relid " + table + " :inh true :relkind r "
                + ":rellockmode 1 :perminfoindex 1}) :rteperminfos ({RTEPERMISSIONINFO :relid " + table + " :inh true "
                + ":requiredPerms 2 :checkAsUser 0}) :targetList ({TARGETENTRY :expr {VAR :varno 1 :varattno 0 :vartype " + rowType
                + " :vartypmod -1 :varcollid 0 :varlevelsup 0 :location 7} :resno 1 :resname t :resorigtbl 0 :resjunk false}) "
                + ":limitCount {FUNCEXPR :funcid 481 :funcresulttype 20 :funcretset false :funcformat 2 :args ({CONST :consttype 23 "
                + ":consttypmod -1 :constcollid 0 :constlen 4 :constbyval true :constisnull false :location 30 :constvalue 4 [ "
                + (limit & 0xff) + " " + (limit >> 8 & 0xff) + " 0 0 0 0 0 0 ]}) :location -1} :setOperations <> :constraintDeps <> "
                + ":funccoltypes (o " + rowType + " 23)}";
    }

    /** EXPLAIN carries its statement raw: the LIMIT is a plain number there. */
    private static String explain(long limit) {
        return "{QUERY :commandType 6 :querySource 0 :canSetTag true :utilityStmt {EXPLAINSTMT :query {RAWSTMT :stmt {SELECTSTMT "
                + ":targetList ({RESTARGET :name <> :val {COLUMNREF :fields ({A_STAR}) :location 15}}) :fromClause ({RANGEVAR "
                + ":relname t :inh true :relpersistence p :alias <> :location 22}) :limitCount {A_CONST :val " + limit
                + " :location 30}} :stmt_location 8 :stmt_len 30} :options <>} :resultRelation 0}";
    }

    @Test
    void thePagesOwnOidsAreLeftOut() {
        assertEquals(RunTrace.digest(select(16390, 16392, 20000)), RunTrace.digest(select(24601, 24603, 20000)));
        // The server's log formatter may break a line between a field's name and its value.
        assertEquals(RunTrace.digest(select(16390, 16392, 20000)),
                RunTrace.digest(select(24601, 24603, 20000).replace(":relid 24601", ":relid\n24601")));
    }

    @Test
    void aNumberOfTheStatementsOwnTellsStatementsApart() {
        assertNotEquals(RunTrace.digest(explain(20000)), RunTrace.digest(explain(30000)));
        assertNotEquals(RunTrace.digest(select(16390, 16392, 20000)), RunTrace.digest(select(16390, 16392, 30000)));
        // The server's own OIDs (below 16384) are the same on every run: another one is another statement.
        assertNotEquals(RunTrace.digest(select(16390, 16392, 20000).replace(":funcid 481", ":funcid 480")),
                RunTrace.digest(select(16390, 16392, 20000)));
    }

    /**
     * A cached statement's tree (a function's static SQL, an inlined SQL function, the statement itself) is parsed again when
     * an invalidation reaches its plan, at a moment no page controls: it counts as present or absent. Dynamic SQL parses
     * once per EXECUTE: counted, so that a branch running one more EXECUTE on one run is seen (red team helper-85's trigger
     * made on random() in a DO block is a tree present on one run only, either way).
     */
    @Test
    void cachedTreesCountAsPresentAndDynamicOnesAreCounted() {
        String trigger = "PL/pgSQL function refuse() line 3 at IF";
        String dynamic = "SQL statement \"INSERT INTO t VALUES (1)\"\nPL/pgSQL function inline_code_block line 1 at EXECUTE";
        assertEquals("once:", RunTrace.parsedOnce(null));
        assertEquals("once:", RunTrace.parsedOnce("SQL statement \"SELECT 1\"\n" + trigger));
        assertEquals("once:", RunTrace.parsedOnce("SQL function \"f\" during inlining"));
        assertEquals("", RunTrace.parsedOnce(dynamic));
        assertEquals("", RunTrace.parsedOnce("PL/pgSQL function f() line 2 at FOR over EXECUTE statement"));
        assertEquals("", RunTrace.parsedOnce("PL/pgSQL function f() line 2 at RETURN QUERY"));
        RunTrace once = new RunTrace();
        RunTrace twice = new RunTrace();
        once.recordDigests(0, java.util.List.of("once:a", "b"));
        twice.recordDigests(0, java.util.List.of("once:a", "once:a", "b"));
        assertEquals(once.of(0), twice.of(0), "a cached statement parsed again after an invalidation");
        twice.recordDigests(1, java.util.List.of("b", "b"));
        once.recordDigests(1, java.util.List.of("b"));
        assertNotEquals(once.of(1), twice.of(1), "one EXECUTE more on one run");
        // Parsed again in a later snippet on one run only (an invalidation reached its plan there): where it was first
        // parsed is what counts.
        once.recordDigests(3, java.util.List.of("b"));
        twice.recordDigests(3, java.util.List.of("once:a", "b"));
        assertEquals(once.of(3), twice.of(3), "a cached statement parsed again in a later snippet");
        // After the session's plans were discarded (Kensho's DISCARD PLANS after a hidden snippet), a cached statement's
        // next parse happens at the same point on every run: it counts where it happens (red team helper-86: a function's
        // static INSERT run again only when random() said so).
        once.plansDiscarded();
        twice.plansDiscarded();
        once.recordDigests(4, java.util.List.of());
        twice.recordDigests(4, java.util.List.of("once:a"));
        assertNotEquals(once.of(4), twice.of(4), "parsed again after the discard on one run only");
        once.recordDigests(2, java.util.List.of());
        twice.recordDigests(2, java.util.List.of("once:create trigger"));
        assertNotEquals(once.of(2), twice.of(2), "a statement parsed on one run only");
    }
}
