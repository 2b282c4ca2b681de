package dev.kensho.generator.report;

import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Each text the gate prints is one line that starts no workflow command, whatever white space or line break it holds. */
class ConsoleGateTest {

    @Test
    void everyLineBreakIsEscapedAndNoLineStartsACommand() {
        assertEquals("a\\n::add-mask::x", ConsoleGate.line("a\n::add-mask::x"));
        assertEquals("a\\u000d::x\\u0085::y\\u2028::z\\u2029::w\\u000b\\u000c", ConsoleGate.line("a\r::x\u0085::y\u2028::z\u2029::w\u000b\u000c"));
        assertEquals("\\u003a:add-mask::x", ConsoleGate.line("::add-mask::x"));
        // GitHub's runner trims Unicode white space before it looks for "::".
        assertEquals("  \u00a0\u3000\\u003a:error::x", ConsoleGate.line("  \u00a0\u3000::error::x"));
        assertEquals("\\u0009::error::x", ConsoleGate.line("\t::error::x"), "a tab is escaped: the line starts with a backslash");
        assertEquals("x \\u0023#[add-mask]y ##\\u0023#[z", ConsoleGate.line("x ##[add-mask]y ####[z"));
    }

    @Test
    void underGitHubActionsOnlyKenshosAnnotationsRunWithCommandsOn() {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        try (ConsoleGate gate = ConsoleGate.open(new PrintWriter(out), new PrintWriter(err), Map.of("GITHUB_ACTIONS", "true"))) {
            gate.out("Kensho: start");
            gate.err("x\n::add-mask::y");
            gate.commands(List.of("::error title=Kensho::z"));
            gate.out("done");
        }
        List<String> lines = out.toString().lines().toList();
        assertEquals(7, lines.size(), out::toString);
        String first = lines.get(0).substring("::stop-commands::".length());
        String second = lines.get(4).substring("::stop-commands::".length());
        assertTrue(first.matches("kensho-[0-9a-f]{32}") && second.matches("kensho-[0-9a-f]{32}"), out::toString);
        assertEquals(List.of("::stop-commands::" + first, "Kensho: start", "::" + first + "::", "::error title=Kensho::z",
                "::stop-commands::" + second, "done", "::" + second + "::"), lines);
        assertEquals("x\\n::add-mask::y\n", err.toString().replace(System.lineSeparator(), "\n"));
    }
}
