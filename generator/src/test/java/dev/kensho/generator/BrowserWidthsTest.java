package dev.kensho.generator;

import dev.kensho.sqlchecks.script.PsqlCharWidth;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The browser's printer (kensho-run.js) measures characters with the same tables as the build's
 * ({@link PsqlCharWidth}, psql's ucs_wcwidth): a result the build printed as psql does is printed alike in the
 * reader's browser. BrowserTest compares whole tables in Chromium; this compares every code point.
 */
class BrowserWidthsTest {

    @Test
    void theBrowsersWidthTablesGiveEveryCodePointTheBuildsWidth() throws IOException {
        String js;
        try (InputStream in = BrowserWidthsTest.class.getResourceAsStream("/kensho-theme/assets/kensho-run.js")) {
            js = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        int[] nonspacing = table(js, "NONSPACING");
        int[] wide = table(js, "EAST_ASIAN_FW");
        assertTrue(nonspacing.length > 600 && wide.length > 200, "the port holds PostgreSQL's tables");
        List<String> differing = new ArrayList<>();
        for (int cp = 0xa0; cp <= 0x10ffff; cp++) {
            int browser = contains(nonspacing, cp) ? 0 : contains(wide, cp) ? 2 : 1;
            if (browser != PsqlCharWidth.of(cp) && differing.size() < 10) {
                differing.add(Integer.toHexString(cp) + ": browser " + browser + ", build " + PsqlCharWidth.of(cp));
            }
        }
        assertEquals(List.of(), differing);
    }

    private static int[] table(String js, String name) {
        Matcher m = Pattern.compile("const " + name + " = \\[(.*?)\\];", Pattern.DOTALL).matcher(js);
        assertTrue(m.find(), name + " in kensho-run.js");
        return Pattern.compile("0x([0-9A-F]+)").matcher(m.group(1)).results()
                .mapToInt(r -> Integer.parseInt(r.group(1), 16)).toArray();
    }

    private static boolean contains(int[] table, int cp) {
        for (int i = 0; i < table.length; i += 2) {
            if (cp >= table[i] && cp <= table[i + 1]) {
                return true;
            }
        }
        return false;
    }
}
