package dev.kensho.sqlchecks.model;

/** A scenario block that cannot be read; {@link #line()} is 0-based within the block. */
public class ScenarioSyntaxException extends Exception {

    private final int line;

    public ScenarioSyntaxException(String message, int line) {
        super(message);
        this.line = line;
    }

    public int line() {
        return line;
    }
}
