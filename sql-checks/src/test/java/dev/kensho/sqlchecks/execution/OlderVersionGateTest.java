package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.postgres.EmbeddedPostgres;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;

/**
 * PostgreSQL 14 and 15 expand a view into a subquery that keeps neither the view's OID nor its kind (16 keeps both): a
 * view of the page's must still be judged where a later statement uses it, as on 16 and later. They also write
 * current_user and current_catalog as SQLValueFunctions, not as calls.
 */
class OlderVersionGateTest {

    @ParameterizedTest
    @ValueSource(ints = {14, 15})
    void anOidBehindAViewIsACounterOnOlderVersions(int major) throws Exception {
        try (Verifier verifier = Verifier.start(new EmbeddedPostgres(major), new VerifierSettings(Duration.ofSeconds(10)), major)) {
            TestPage.assertRefused("this claim cannot be checked: the page reads a counter the whole server shares (a value of type oid "
                            + "converted to a number or text as the server parsed it, in the snippet at page.md:6:1; its value moved with "
                            + "everything the build's server did before the page ran; a reader's server counts from elsewhere)", "page.md:6:1",
                    TestPage.on(verifier).add("", "CREATE TABLE t (id int);\n"
                                    + "CREATE VIEW v AS SELECT oid::bigint > 16383 AS late FROM pg_class WHERE relname = 't';")
                            .add("", "SELECT late FROM v;", " late\n------\n t\n").last());
            // The report after rewriting turned off by the page: no view of the page's is used unjudged.
            VerifierFixture.assertNotPassed(TestPage.on(verifier).add("", "CREATE TABLE t (id int);\nCREATE VIEW v AS SELECT oid::bigint "
                            + "> 16383 AS late FROM pg_class WHERE relname = 't';\nSET debug_print_rewritten = off;")
                    .add("", "SELECT late FROM v;", " late\n------\n t\n").last());
            // A view of the page's own rows still passes; so does a built-in view read for the page's own rows.
            VerifierFixture.assertPassed(TestPage.on(verifier).add("", "CREATE TABLE t (id int);\nINSERT INTO t VALUES (1);\n"
                            + "CREATE VIEW v AS SELECT id FROM t;")
                    .add("", "SELECT id FROM v;", " id\n----\n  1\n").run().outcomes().get(1));
            VerifierFixture.assertPassed(TestPage.on(verifier).add("", "CREATE TABLE t (id int);")
                    .add("", "SELECT tablename FROM pg_tables WHERE schemaname = 'public';", " tablename\n-----------\n t\n")
                    .run().outcomes().get(1));
            // 14 and 15 write current_user as an SQLValueFunction, not a call: the run's role name is judged there as well.
            TestPage.assertRefused("this claim cannot be checked: the page reads the connection and the server Kensho runs the page on "
                            + "(the name of the run's role or database (current_user) compared or computed with other than = to another "
                            + "such name or a catalog's column as the server parsed it, in the snippet at page.md:1:1; "
                            + ServerWideReaders.Shared.ENVIRONMENT.why + ")", "page.md:1:1",
                    TestPage.on(verifier).add("", "SELECT current_user = 'postgres' AS pg;", " pg\n----\n f\n").last());
            VerifierFixture.assertPassed(TestPage.on(verifier)
                    .add("", "SELECT count(*) AS n FROM pg_database WHERE datname = current_catalog;", " n\n---\n 1\n").last());
        }
    }
}
