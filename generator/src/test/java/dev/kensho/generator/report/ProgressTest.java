package dev.kensho.generator.report;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ProgressTest {

    @Test
    void aTerminalGetsARewrittenLineAfterASecondAndItIsClearedAtTheEnd() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (Progress progress = Progress.to(new PrintStream(bytes, true, StandardCharsets.UTF_8), true)) {
            progress.expect(3, 5);
            progress.pagesVerified.set(2);
            progress.snippetsVerified.set(20);
            Thread.sleep(1400);
        }
        String text = bytes.toString(StandardCharsets.UTF_8);
        assertTrue(text.startsWith("\r[kensho] 2/3 pages verified, 20 snippets, 0/5 pages rendered, 1."), text);
        assertTrue(text.endsWith("\r\033[K"), "the line is cleared at the end");
    }

    @Test
    void aLogGetsPlainLinesOnlyForStagesPastASecond() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (Progress progress = Progress.to(new PrintStream(bytes, true, StandardCharsets.UTF_8), false)) {
            progress.stageDone("quick stage");
            Thread.sleep(1100);
            progress.stageDone("verified 3 page(s)");
        }
        String text = bytes.toString(StandardCharsets.UTF_8);
        assertTrue(text.matches("Kensho: verified 3 page\\(s\\) after 1\\.\\d s\\n"), text);
        assertEquals(-1, text.indexOf('\r'));
    }
}
