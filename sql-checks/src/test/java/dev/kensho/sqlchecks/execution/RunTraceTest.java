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
}
