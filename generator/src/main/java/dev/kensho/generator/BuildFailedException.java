package dev.kensho.generator;

import java.util.List;

/** The build found problems in the sources; each is a {@link Diagnostic} the author can act on. */
public class BuildFailedException extends Exception {

    private final List<Diagnostic> diagnostics;

    public BuildFailedException(List<Diagnostic> diagnostics) {
        super(diagnostics.size() + " problem(s) in the sources");
        this.diagnostics = List.copyOf(diagnostics);
    }

    public List<Diagnostic> diagnostics() {
        return diagnostics;
    }
}
