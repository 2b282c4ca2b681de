package dev.kensho.generator.markdown;

import org.junit.jupiter.api.Test;

import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** JavaScript regex markers mean in Java what they mean in a browser. */
class JsRegexTest {

    private static boolean finds(String js, String text) {
        return Pattern.compile(JsRegex.toJava(js)).matcher(text).find();
    }

    @Test
    void aBraceThatStartsNoQuantifierIsALiteral() {
        assertEquals("\\{ extend: .+ \\}", JsRegex.toJava("{ extend: .+ }"));
        assertTrue(finds("{ extend: .+ }", "const a = { extend: base };"));
        assertTrue(finds("a{2}", "caab"), "a real quantifier stays one");
        assertFalse(finds("a{2}", "cab"));
        assertTrue(finds("x{,3}", "x{,3}"), "{,3} is no quantifier in JavaScript");
    }

    @Test
    void classesReadAsJavaScriptReadsThem() {
        assertTrue(finds("[[]", "a[b"), "'[' inside a class is a literal");
        assertTrue(finds("[a&&b]", "&"), "'&&' is no intersection in JavaScript");
        assertTrue(finds("a[^]b", "a\nb"), "[^] matches any character, newlines too");
        assertFalse(finds("a[]b", "ab"), "[] matches nothing");
        assertTrue(finds("\\{\\d+\\}", "{12}"), "escapes are kept");
    }
}
