package dev.kensho.sqlchecks.model;

/** A fence's meta states something Kensho cannot check; the message says what would be accepted. */
public class InvalidDirectiveException extends Exception {

    private final String directive;

    public InvalidDirectiveException(String message) {
        this(message, null);
    }

    /** @param directive the directive the problem is with, as written on the fence, or null */
    public InvalidDirectiveException(String message, String directive) {
        super(message);
        this.directive = directive;
    }

    /** The directive the problem is with, as written on the fence (for the caret and a suggestion), or null. */
    public String directive() {
        return directive;
    }
}
