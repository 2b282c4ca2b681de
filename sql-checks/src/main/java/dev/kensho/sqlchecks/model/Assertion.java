package dev.kensho.sqlchecks.model;

import java.util.Map;

/**
 * One claim a snippet made and whether the server bore it out; listed in the report and under the
 * snippet on the page.
 *
 * @param kind        what sort of claim it is ({@code runs}, {@code rows}, {@code uses-index}, …); the theme
 *                    words it in the page's language from the kind and the facts
 * @param facts       the claim's particulars and what was measured (index name, row count, buffers, …)
 * @param description the claim in English, for the report and the console
 * @param passed      whether it held
 */
public record Assertion(String kind, Map<String, String> facts, String description, boolean passed) {

    public Assertion {
        facts = Map.copyOf(facts);
    }

    public static Assertion held(String kind, Map<String, String> facts, String description) {
        return new Assertion(kind, facts, description, true);
    }
}
