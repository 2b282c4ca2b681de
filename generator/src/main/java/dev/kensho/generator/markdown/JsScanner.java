package dev.kensho.generator.markdown;

/**
 * Where JavaScript in an MDX page is code and where it is inside a string, read one character at a
 * time: the one reader of brackets and quotes for module statements ({@link MdxModule}) and for tags
 * and their {@code {…}} attribute values ({@link ComponentSyntax}). In a tag, outside braces, quotes
 * delimit plain attribute text (no escapes, no template strings), as in JSX; inside braces, and in a
 * module, JavaScript's strings, escapes and template strings apply. Linear in the text.
 */
final class JsScanner {

    private final boolean inTag;
    private int depth;
    private char quote;

    /** @param inTag whether the text is a component tag (JSX attributes) rather than module code */
    JsScanner(boolean inTag) {
        this.inTag = inTag;
    }

    /** Reads the character at {@code i}; returns the index of the last character read (the next one too after an escape). */
    int read(CharSequence text, int i) {
        char c = text.charAt(i);
        boolean code = !inTag || depth > 0;
        if (quote != 0) {
            if (c == '\\' && code) {
                return i + 1;
            }
            if (c == quote) {
                quote = 0;
            }
        } else if (c == '"' || c == '\'' || (c == '`' && code)) {
            quote = c;
        } else if (c == '{' || c == '[' || c == '(') {
            depth++;
        } else if (c == '}' || c == ']' || c == ')') {
            depth = Math.max(0, depth - 1);
        }
        return i;
    }

    /** Whether the last character read is code at the outermost level (not in a string or brackets). */
    boolean atTop() {
        return quote == 0 && depth == 0;
    }

    /** A line ends: single- and double-quoted strings end with it, a template string goes on. */
    void endLine() {
        if (quote != '`') {
            quote = 0;
        }
    }
}
