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
        TestPage.assertRefused("this claim cannot be checked: the page reads the server's other databases or sessions (a "
                + "statement whose parse tree Kensho could not read (larger than 4 MB together, malformed, or past the 20000 parse "
                + "trees or 32 MB Kensho reads for one statement), in the snippet at page.md:1:1; the build's server also holds "
                + "Kensho's own database and sessions and, with --jobs, other pages' databases and sessions; a reader's holds the "
                + "page's database only)", "page.md:6:1", outcome);
    }
}
