package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.execution.ctype.CharacterTypeCheck;
import dev.kensho.sqlchecks.model.Directives;
import dev.kensho.sqlchecks.model.ExpectedRows;
import dev.kensho.sqlchecks.model.Outcome;
import dev.kensho.sqlchecks.model.PageResult;
import dev.kensho.sqlchecks.model.Snippet;
import dev.kensho.sqlchecks.model.SourceLocation;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The build's server and the browser playground treat a page's characters alike, or the page is not marked
 * ({@link CharacterTypeCheck}).
 *
 * <p>These tests assume the build's C library is glibc 2.36 (Debian 12, as Kensho's image and CI): there 🥲 (Unicode 14) is
 * {@code [[:punct:]]}, where PGlite 0.5.16 does not count it so. Another C library may agree with PGlite on 🥲 and fail
 * them; bench/RESULTS.md has the table of what differs.
 */
class CharacterTypeCheckTest extends VerifierFixture {

    private static final String SERVER = "on this build's server (PostgreSQL " + "%s" + " and the C library it runs on)";

    private static String punct(String where) {
        return "the character U+1F972 '🥲'" + where + " is [[:punct:]] " + SERVER.formatted(verifier.serverVersion())
                + " but not in the browser playground (PGlite 0.5.16): a reader's run of this page could differ from the build's";
    }

    @Test
    void anEmojiThatIsPunctuationOnlyAtBuildFailsAtItsCharacter() throws Exception {
        Snippet snippet = Snippet.of(new SourceLocation("content/emoji.md", 11, 1), "SELECT 'ありがとう' AS said, '🥲' ~ '[[:punct:]]' AS p;")
                .with(Directives.NONE, ExpectedRows.parse(" said | p\n------+---\n ありがとう | t\n"));
        PageResult result = verifier.verifyPage("content/emoji.md", List.of(snippet));
        Outcome outcome = result.outcomes().get(0);
        assertEquals(Outcome.Status.FAILED, outcome.status());
        TestPage.assertRefused(punct(""), "content/emoji.md:11:26", outcome);
        assertEquals(CharacterTypeCheck.HINT, outcome.failure().hint());
    }

    @Test
    void aParameterValueIsSeenAndFailsAtTheSnippetsFirstCharacter() throws Exception {
        Outcome outcome = page().add("$1:text=\"🥲\"", "SELECT $1 ~ '[[:punct:]]' AS p;", " p\n---\n t\n").last();
        TestPage.assertRefused(punct(" (in the value of $1)"), "page.md:1:1", outcome);
    }

    @Test
    void aLaterSnippetThatPassedRanAndIsNotMarked() throws Exception {
        PageResult result = page()
                .add("", "SELECT 1 AS one;", " one\n-----\n   1\n")
                .add("", "SELECT regexp_replace('ok🥲', '[[:punct:]]', '', 'g') AS r;", " r\n----\n ok\n")
                .add("", "SELECT 2 AS two;", " two\n-----\n   2\n").run();
        assertEquals(List.of(Outcome.Status.PASSED, Outcome.Status.FAILED, Outcome.Status.SKIPPED),
                result.outcomes().stream().map(Outcome::status).toList());
        assertEquals("page.md:5:26", result.outcomes().get(1).failure().location().toString());
        assertEquals("not marked: it ran after the snippet at page.md:5:26, whose character U+1F972 '🥲' a reader's run in the "
                + "browser playground (PGlite 0.5.16) treats otherwise than this build's server", result.outcomes().get(2).failure().message());
    }

    @Test
    void aSetupSnippetRunsFirstAndFailsFirstWhereverItIsWritten() throws Exception {
        PageResult result = page()
                .add("", "SELECT 1 AS one;", " one\n-----\n   1\n")
                .add("setup", "CREATE TABLE t AS SELECT '🥲' AS e;").run();
        assertEquals(List.of(Outcome.Status.SKIPPED, Outcome.Status.FAILED), result.outcomes().stream().map(Outcome::status).toList());
        assertEquals("page.md:5:27", result.outcomes().get(1).failure().location().toString());
    }

    @Test
    void anExercisesCaseIsSeen() throws Exception {
        PageResult result = page()
                .add("setup", "CREATE TABLE w (s text);")
                .add("", "SELECT count(*) AS n FROM w WHERE s ~ '^[[:alpha:]]';", " n\n---\n 0\n")
                .add("case=emoji", "INSERT INTO w VALUES ('🥲');", " n\n---\n 0\n").run();
        assertEquals(List.of(Outcome.Status.PASSED, Outcome.Status.SKIPPED, Outcome.Status.FAILED),
                result.outcomes().stream().map(Outcome::status).toList(), () -> result.outcomes().toString());
        assertEquals("page.md:9:24", result.outcomes().get(2).failure().location().toString());
    }

    @Test
    void anAsciiOnlyPageAsksTheServerNothing() throws Exception {
        int before = verifier.characterTypeQueries();
        Outcome outcome = page().add("$1:text=\"abc\"", "SELECT upper($1) AS u; -- plain ASCII", " u\n-----\n ABC\n").last();
        assertEquals(Outcome.Status.PASSED, outcome.status());
        assertEquals(before, verifier.characterTypeQueries());
    }

    @Test
    void charactersBothSidesTreatAlikePassAndASecondPageAsksNothingNew() throws Exception {
        int before = verifier.characterTypeQueries();
        TestPage first = page().add("", "SELECT upper('é') AS e, 'あ' ~ '^[[:alpha:]]$' AS a, 'Ω' ~* 'ω' AS o;", " e | a | o\n---+---+---\n É | t | t\n");
        VerifierFixture.assertPassed(first.last());
        assertEquals(before + 1, verifier.characterTypeQueries());
        VerifierFixture.assertPassed(page().add("", "SELECT lower('Ω') AS o, 'éあ' AS s; -- é あ", " o | s\n---+----\n ω | éあ\n").last());
        assertEquals(before + 1, verifier.characterTypeQueries());
    }

    @Test
    void aCaseMapOrAClassOnlyThePlaygroundHasIsNamed() throws Exception {
        Outcome sharpS = page().add("", "SELECT upper('straße') AS u;", " u\n--------\n STRAßE\n").last();
        TestPage.assertRefused("the character U+00DF 'ß' becomes 'ß' under upper() " + SERVER.formatted(verifier.serverVersion())
                + " but 'ẞ' in the browser playground (PGlite 0.5.16): a reader's run of this page could differ from the build's",
                "page.md:1:19", sharpS);
        Outcome pinkHeart = page().add("", "SELECT '🩷' ~ '[[:print:]]' AS p;", " p\n---\n f\n").last();
        TestPage.assertRefused("the character U+1FA77 '🩷' is not [[:print:]] " + SERVER.formatted(verifier.serverVersion())
                + " but is in the browser playground (PGlite 0.5.16): a reader's run of this page could differ from the build's",
                "page.md:1:9", pinkHeart);
    }
}
