package dev.kensho.sqlchecks.execution;

import org.junit.jupiter.api.Test;

/**
 * A reader's PGlite session is the superuser postgres; the build runs the page as a role that is not, and owns only what
 * the page made. What only a superuser's session would do otherwise cannot be claimed: a permission error, a privilege
 * test, row security forced on the table's owner (which a superuser bypasses). Red team (helper-71, helper-72): each
 * passed as 検証済み before.
 */
class SuperuserReaderTest extends VerifierFixture {

    @Test
    void aPermissionErrorCannotBeClaimed() throws Exception {
        TestPage.assertRefused("this claim cannot be checked: the error is about the privileges of the role Kensho runs the page as "
                        + "(not a superuser, owner of what the page made); a reader's session (PGlite: the superuser postgres) holds "
                        + "every privilege, so the statement runs there: permission denied for table pg_statistic", "page.md:1:1",
                page().add("expect-error=42501", "SELECT count(*) FROM pg_statistic;").last());
    }

    @Test
    void aPrivilegeTestCannotBeClaimed() throws Exception {
        TestPage.assertRefused("this claim cannot be checked: the page reads the connection and the server Kensho runs the page on "
                        + "(has_schema_privilege, at page.md:1:8; " + ServerWideReaders.Shared.ENVIRONMENT.why + ")", "page.md:1:8",
                page().add("", "SELECT has_schema_privilege('pg_catalog', 'CREATE') AS can;", " can\n-----\n f\n").last());
    }

    @Test
    void rowSecurityForcedOnTheOwnerCannotBeClaimed() throws Exception {
        TestPage.assertRefused("this claim cannot be checked: the page reads the connection and the server Kensho runs the page on "
                        + "(FORCE ROW LEVEL SECURITY, at page.md:4:19; " + ServerWideReaders.Shared.ENVIRONMENT.why + ")", "page.md:9:1",
                page().add("", "CREATE TABLE notes (id int);\nINSERT INTO notes VALUES (1), (2);\nALTER TABLE notes ENABLE ROW LEVEL SECURITY;\n"
                                + "ALTER TABLE notes FORCE ROW LEVEL SECURITY;\nCREATE POLICY only_one ON notes USING (id = 1);")
                        .add("", "SELECT count(*) AS n FROM notes;", " n\n---\n 1\n").last());
        // Row security the owner is not forced under reads the same for the owner and the superuser.
        assertPassed(page().add("", "CREATE TABLE notes (id int);\nINSERT INTO notes VALUES (1), (2);\n"
                        + "ALTER TABLE notes ENABLE ROW LEVEL SECURITY;\nCREATE POLICY only_one ON notes USING (id = 1);")
                .add("", "SELECT count(*) AS n FROM notes;", " n\n---\n 2\n").last());
    }
}
