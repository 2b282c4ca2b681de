package dev.kensho.generator.report;

/**
 * What a report may carry of text that a page or the server wrote: a message, detail, hint, row value
 * or transcript is cut to {@link #MAX_CHARS} characters (a {@code RAISE} of 200 MB once made a 400 MB
 * JSON report and JUnit file), and XML gets only characters XML 1.0 can hold.
 */
final class ReportText {

    /** Characters kept of one field; enough for any real message, its detail and a few rows. */
    static final int MAX_CHARS = 4096;

    private ReportText() {
    }

    /** The text, or its first {@value #MAX_CHARS} characters and how many more were cut; null stays null. */
    static String cut(String text) {
        if (text == null || text.length() <= MAX_CHARS) {
            return text;
        }
        int end = Character.isHighSurrogate(text.charAt(MAX_CHARS - 1)) ? MAX_CHARS - 1 : MAX_CHARS;
        return text.substring(0, end) + "… (" + (text.length() - end) + " more characters cut)";
    }

    /**
     * The text with every character XML 1.0 cannot hold, even escaped (control characters other than
     * tab and line breaks, U+FFFE, U+FFFF, unpaired surrogates), replaced by U+FFFD.
     */
    static String forXml(String text) {
        StringBuilder out = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                out.append(c).append(text.charAt(++i));
            } else if (c == '\t' || c == '\n' || c == '\r' || c >= 0x20 && c <= 0xD7FF || c >= 0xE000 && c <= 0xFFFD) {
                out.append(c);
            } else {
                out.append('\uFFFD');
            }
        }
        return out.toString();
    }
}
