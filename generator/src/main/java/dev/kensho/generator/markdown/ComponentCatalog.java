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

    /**
     * The attributes the component takes (what its template, and a parent's template through {@code child.attrs}, reads),
     * or empty when that cannot be told (a template that reads its attributes other than by name): an attribute nothing
     * reads would be dropped in silence ({@code <Aside typ="tip">}).
     */
    default Optional<java.util.Set<String>> attributesTaken(String component) {
        return Optional.empty();
    }

    /** Attributes any component may carry for another's sake: {@code slot}, and what a parent reads of its children. */
    default java.util.Set<String> attributesReadElsewhere() {
        return java.util.Set.of("slot");
    }

    /** Front-matter keys the theme's templates read ({@code page.meta.reviewed}), beyond Starlight's own. */
    default java.util.Set<String> frontMatterKeys() {
        return java.util.Set.of();
    }
}
