package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.model.Outcome;
import org.junit.jupiter.api.Test;

/**
 * A page looping over EXECUTEs makes the server report a parse tree for every statement the loop runs. Reading each kept
 * the build busy long after the statement was stopped and held every report in memory (3,000,000 EXECUTEs: 100 s and
 * 1.33 GB). A statement's reports are read up to a budget ({@link ParseCapture#MAX_REPORTS}); past it they are let go,
 * and what they ran is unknown: a claim that rests on the trees fails at its line, as on an unreadable tree.
 */
class CodeReportsBudgetTest extends VerifierFixture {

    private static String loop(int times) {
        return "CREATE TABLE t (id int);\nDO $$ BEGIN FOR i IN 1.." + times + " LOOP EXECUTE 'INSERT INTO t VALUES (' || i || ')'; END LOOP; END $$;";
    }

    @Test
    void aLoopWithinTheBudgetIsReadAndTheClaimAfterItPasses() throws Exception {
        assertPassed(page().add("", loop(2_000)).add("", "SELECT count(*) AS n FROM t;", "  n\n------\n 2000\n").last());
    }

    @Test
    void aLoopPastTheBudgetLeavesTheNextClaimUncheckable() throws Exception {
        Outcome outcome = page().add("", loop(ParseCapture.MAX_REPORTS + 100))
                .add("", "SELECT count(*) AS n FROM t;", "   n\n-------\n 20100\n").last();
        // Red team helper-94: the message said the page read the server's other databases, which it does not.
        TestPage.assertRefused("this claim cannot be checked: the page reads something Kensho could not judge (a "
                + "statement whose parse tree Kensho could not read (larger than 4 MB together, malformed, or past the 20000 parse "
                + "trees or 32 MB Kensho reads for one statement), in the snippet at page.md:1:1; Kensho judges every statement a "
                + "page runs from the parse trees the server reports for it, so a statement whose trees it could not read may have "
                + "read anything; dynamic SQL run in a loop reports a tree on every run: keep such a loop under the limit, or claim "
                + "nothing after it)", "page.md:6:1", outcome);
    }
}
