package dev.kensho.generator.markdown;

import java.util.List;
import java.util.Optional;

/** The components a theme can render, and the attributes each one requires. */
public interface ComponentCatalog {

    /** Required attribute names of the component, or empty when the theme has no such component. */
    Optional<List<String>> requiredAttributes(String component);

    /** Names of every component, for error messages. */
    List<String> names();

    /** Attributes of a component that take one of a few values (Aside's type), as its template declares them. */
    default java.util.Map<String, List<String>> allowedValues(String component) {
        return java.util.Map.of();
    }

    /** Front-matter keys the theme's templates read ({@code page.meta.reviewed}), beyond Starlight's own. */
    default java.util.Set<String> frontMatterKeys() {
        return java.util.Set.of();
    }
}
