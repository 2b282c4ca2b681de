package dev.kensho.sqlchecks;

/**
 * One claim a snippet made and whether the server bore it out; listed in the report and under the
 * snippet on the page.
 */
public record Assertion(String description, boolean passed) {
}
