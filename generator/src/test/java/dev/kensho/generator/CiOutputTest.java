package dev.kensho.generator;

import dev.kensho.generator.cli.KenshoCommand;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Under GitHub Actions no text a contributor or the server wrote becomes a workflow command: a RAISE message,
 * DETAIL or HINT and a file name holding line breaks and commands print as escaped text inside one line, and
 * Kensho's output runs inside a stop-commands token of its own, switched on again only for its annotations.
 */
@org.junit.jupiter.api.extension.ExtendWith(NoServerOutlivesATest.class)
class CiOutputTest {

    @TempDir
    Path temp;

    private static final Pattern STOP = Pattern.compile("::stop-commands::(kensho-[0-9a-f]{32})");

    private TestSite.Run check(TestSite site, Map<String, String> environment) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int status = KenshoCommand.execute(new PrintWriter(out, true), new PrintWriter(err, true), environment, "check",
                "--content", site.content.toString(), "--report", site.report.toString(), "--postgres", "embedded", "--no-cache");
        return new TestSite.Run(status, out.toString(), err.toString());
    }

    /** Lines as GitHub's runner splits them (LF, CR and CRLF all end a line). */
    private static List<String> runnerLines(String text) {
        return List.of(text.split("\r\n|\r|\n", -1));
    }

    @Test
    void raisedTextAndFileNamesStartNoCommandAndKenshosOwnOutputRunsUnderItsStopToken() throws Exception {
        TestSite site = new TestSite(temp).page("raise.md", TestSite.source("Raise", """

                ```sql
                DO $$ BEGIN RAISE EXCEPTION 'boom%', E'\\n::add-mask::x ##[add-mask]w'
                  USING DETAIL = E'd\\n::stop-commands::T', HINT = E'h\\r::add-mask::y'; END $$;
                ```
                """));
        site.page("b\n::add-mask::z.md", TestSite.source("B", "\nSee [gone](gone.md).\n"));
        TestSite.Run run = check(site, Map.of("GITHUB_ACTIONS", "true"));
        assertEquals(1, run.status(), run::toString);

        String raise = site.display("raise.md");
        String named = site.display("b\\n::add-mask::z.md");
        List<String> err = runnerLines(run.err());
        int at = err.indexOf(raise + ":6:1: error: boom\\n::add-mask::x \\u0023#[add-mask]w [P0001]");
        assertTrue(at >= 0, run::toString);
        assertEquals(List.of(
                raise + ":6:1: error: boom\\n::add-mask::x \\u0023#[add-mask]w [P0001]",
                " 6 | DO $$ BEGIN RAISE EXCEPTION 'boom%', E'\\n::add-mask::x \\u0023#[add-mask]w'",
                "   | ^",
                "  = detail: d",
                "    \\u003a:stop-commands::T",
                "  = hint: h\\u000d::add-mask::y",
                ""), err.subList(at, at + 7), run::toString);
        assertTrue(err.contains(named + ":1:1: error: not read: its name holds U+000A; file names in content/ become URLs, so they "
                + "may hold only letters, digits, '-', '_' and '.'"), run::toString);

        List<String> out = runnerLines(run.out());
        Matcher first = STOP.matcher(out.get(0));
        assertTrue(first.matches(), run::toString);
        String token = first.group(1);
        int resumed = out.indexOf("::" + token + "::");
        assertTrue(resumed > 0, run::toString);
        List<String> annotations = new ArrayList<>();
        int i = resumed + 1;
        while (out.get(i).startsWith("::error ")) {
            annotations.add(out.get(i++));
        }
        assertEquals(2, annotations.size(), run::toString);
        Matcher again = STOP.matcher(out.get(i));
        assertTrue(again.matches(), "commands are off again after the annotations: " + run);
        assertFalse(again.group(1).equals(token), "a fresh token each time");
        assertEquals("::" + again.group(1) + "::", out.get(out.size() - 2), "switched on again at the end: " + run);
        assertEquals("", out.get(out.size() - 1));

        // Whatever else was printed, on either stream, no line starts a command and none holds the old syntax.
        assertEquals("::error file=" + raise + ",line=6,col=1,title=Kensho::boom%0A::add-mask::x ##[add-mask]w [P0001]",
                annotations.get(1));
        List<String> own = List.of(out.get(0), "::" + token + "::", out.get(i), out.get(out.size() - 2));
        for (String line : concat(out, err)) {
            // The older syntax is read anywhere in a line, except in a line already read as a command (an annotation).
            assertFalse(line.contains("##[") && !annotations.contains(line), line);
            if (line.stripLeading().startsWith("::")) {
                assertTrue(own.contains(line) || annotations.contains(line), "a line that is not Kensho's starts a command: " + line);
            }
        }
        for (String annotation : annotations) {
            assertFalse(annotation.contains("\n") || annotation.contains("\r"), annotation);
        }
    }

    /** Red team helper-101: annotations carried raw U+2028, U+0085 and U+202E from a file name the console showed escaped. */
    @Test
    void anAnnotationEscapesWhatTheConsoleEscapes() throws Exception {
        TestSite site = new TestSite(temp).page("a\u2028b\u0085c\u202ed.md", TestSite.source("A", "\nText.\n"));
        TestSite.Run run = check(site, Map.of("GITHUB_ACTIONS", "true"));
        assertEquals(1, run.status(), run::toString);
        List<String> annotations = runnerLines(run.out()).stream().filter(line -> line.startsWith("::error ")).toList();
        assertEquals(1, annotations.size(), run::toString);
        String annotation = annotations.get(0);
        assertTrue(annotation.contains("a\\u2028b\\u0085c\\u202ed.md,line=1,col=1,title=Kensho::not read: its name holds U+2028"), annotation);
        assertFalse(annotation.chars().anyMatch(c -> c == 0x2028 || c == 0x85 || c == 0x202e), annotation);
    }

    @Test
    void outsideGitHubActionsNoCommandIsPrintedButTextIsStillOneLine() throws Exception {
        TestSite site = new TestSite(temp).page("raise.md", TestSite.source("Raise", """

                ```sql
                DO $$ BEGIN RAISE EXCEPTION E'boom\\n::add-mask::x'; END $$;
                ```
                """));
        TestSite.Run run = check(site, Map.of());
        assertEquals(1, run.status(), run::toString);
        assertTrue(runnerLines(run.err()).contains(site.display("raise.md") + ":6:1: error: boom\\n::add-mask::x [P0001]"), run::toString);
        assertFalse(run.out().contains("::"), run::toString);
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> both = new ArrayList<>(a);
        both.addAll(b);
        return both;
    }
}
