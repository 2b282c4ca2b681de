package dev.kensho.generator.verify;

import dev.kensho.sqlchecks.postgres.PostgresReleases;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Which PostgreSQL versions a run checked, and on which of them each snippet ran: what a snippet's mark,
 * the JSON report and the JUnit cases name.
 *
 * @param checked  the major versions this run checked, oldest first
 * @param named    the major versions the site names (site.yml postgres.versions); {@code checked} unless
 *                 {@code --postgres-version} narrowed the run
 * @param exact    the exact server version of each major checked ("18.6"), where a server ran or the cache answered
 * @param snippets per page (below content/), per snippet in page order, the versions it ran on
 */
public record VersionCoverage(List<Integer> checked, List<Integer> named, Map<Integer, String> exact,
                              Map<String, List<List<Integer>>> snippets) {

    public VersionCoverage {
        checked = List.copyOf(checked);
        named = List.copyOf(named);
        exact = Collections.unmodifiableMap(new LinkedHashMap<>(exact));
        snippets = Collections.unmodifiableMap(new LinkedHashMap<>(snippets));
    }

    /** The versions snippet {@code index} of {@code page} ran on; every checked version when unknown. */
    public List<Integer> of(String page, int index) {
        List<List<Integer>> perSnippet = snippets.get(page);
        return perSnippet == null || index >= perSnippet.size() ? checked : perSnippet.get(index);
    }

    /**
     * What a mark says of the snippet: "18.6" when the run checked one version, "14–18" when several, and
     * whether it held only on some of them (its versions= named fewer than this run checks; a run that
     * --postgres-version narrowed to one version marks what it checked, that version, as a one-version run does).
     */
    public Mark mark(String page, int index) {
        List<Integer> versions = of(page, index);
        boolean only = !versions.equals(checked);
        if (versions.size() == 1 && exact.containsKey(versions.get(0)) && !only) {
            return new Mark(exact.get(versions.get(0)), false);
        }
        return new Mark(PostgresReleases.describe(versions), only);
    }

    /**
     * The exact version whose outcome a snippet's evidence shows: the newest it ran on ({@link VersionedVerification}
     * keeps that one for a snippet that held everywhere), not the run's newest when its versions= leaves that out.
     */
    public String evidenceFrom(String page, int index) {
        List<Integer> versions = of(page, index);
        int shown = versions.isEmpty() ? newest() : versions.get(versions.size() - 1);
        return exact.getOrDefault(shown, Integer.toString(shown));
    }

    /** Whether snippet {@code index} of {@code page} ran on the newest version checked, the one the browser compares with. */
    public boolean ranOnNewest(String page, int index) {
        return of(page, index).contains(newest());
    }

    /** @param versions the versions, as the mark writes them; @param only whether they are fewer than the site names */
    public record Mark(String versions, boolean only) {
    }

    /** The newest version checked, whose outcome stands for a snippet that held everywhere (and which the browser's PGlite runs). */
    public int newest() {
        return checked.get(checked.size() - 1);
    }
}
