package dev.kensho.sqlchecks.model;

/** A place in an author's file; line and column count from 1, as compilers print them. */
public record SourceLocation(String file, int line, int column) {

    @Override
    public String toString() {
        return file + ":" + line + ":" + column;
    }
}
