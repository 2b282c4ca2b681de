package dev.kensho.sqlchecks.model;

/** A fence's meta states something Kensho cannot check; the message says what would be accepted. */
public class InvalidDirectiveException extends Exception {

    public InvalidDirectiveException(String message) {
        super(message);
    }
}
