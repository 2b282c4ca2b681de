package dev.kensho.generator.verify;

import dev.kensho.sqlchecks.assertion.PlanText;
import dev.kensho.sqlchecks.model.Assertion;
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
 * @param plans    per page, per snippet in page order, the plan each version's run showed (version → plan text), for
 *                 a snippet that held and shows its plan ({@code explain}); an empty map for every other snippet
 * @param claims   per page, per snippet in page order, what each version's run checked, for a snippet that held
 */
public record VersionCoverage(List<Integer> checked, List<Integer> named, Map<Integer, String> exact,
                              Map<String, List<List<Integer>>> snippets, Map<String, List<Map<Integer, String>>> plans,
                              Map<String, List<Map<Integer, List<Assertion>>>> claims) {

    public VersionCoverage {
        checked = List.copyOf(checked);
        named = List.copyOf(named);
        exact = Collections.unmodifiableMap(new LinkedHashMap<>(exact));
        snippets = Collections.unmodifiableMap(new LinkedHashMap<>(snippets));
        plans = Collections.unmodifiableMap(new LinkedHashMap<>(plans));
        claims = Collections.unmodifiableMap(new LinkedHashMap<>(claims));
    }

    public VersionCoverage(List<Integer> checked, List<Integer> named, Map<Integer, String> exact,
                           Map<String, List<List<Integer>>> snippets) {
        this(checked, named, exact, snippets, Map.of(), Map.of());
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
     * What a snippet's evidence says of the versions it comes from: the exact version whose rows (and plan, where
     * every version showed the same) it shows, the newest it ran on ({@link VersionedVerification} keeps that one for
     * a snippet that held everywhere), not the run's newest when its versions= leaves that out; and its plans by
     * version ({@link #planGroups}).
     */
    public Evidence evidence(String page, int index) {
        List<Integer> versions = of(page, index);
        int shown = versions.isEmpty() ? newest() : versions.get(versions.size() - 1);
        return new Evidence(exact.getOrDefault(shown, Integer.toString(shown)), planGroups(page, index), claimGroups(page, index));
    }

    /**
     * What snippet {@code index} of {@code page} was checked for on each version, one group per distinct list of claims
     * (as the page words them), oldest versions first; empty when every version checked the same. The same claim can
     * be checked differently on two versions (rows compared in order on one, in any order on another, when what the
     * server reported of the query differs): the page then says what held on which, not the newest's as if it were all.
     */
    public List<ClaimGroup> claimGroups(String page, int index) {
        List<Map<Integer, List<Assertion>>> perSnippet = claims.get(page);
        Map<Integer, List<Assertion>> byVersion = perSnippet == null || index >= perSnippet.size() ? Map.of() : perSnippet.get(index);
        Map<List<String>, List<Integer>> versionsByClaims = new LinkedHashMap<>();
        Map<List<String>, List<Assertion>> shown = new LinkedHashMap<>();
        byVersion.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(entry -> {
            List<String> words = entry.getValue().stream().map(Assertion::description).toList();
            versionsByClaims.computeIfAbsent(words, w -> new java.util.ArrayList<>()).add(entry.getKey());
            shown.put(words, entry.getValue());
        });
        if (versionsByClaims.size() < 2) {
            return List.of();
        }
        return versionsByClaims.entrySet().stream().map(entry -> new ClaimGroup(PostgresReleases.describe(entry.getValue()),
                shown.get(entry.getKey()))).toList();
    }

    /** @param described the versions that checked these claims ("14–16"); @param assertions what they checked */
    public record ClaimGroup(String described, List<Assertion> assertions) {
    }

    /**
     * @param from  the exact version whose rows (and plan, unless {@code plans} has several) the evidence shows
     * @param plans  the snippet's distinct plans by version; empty when it shows none or ran on one version
     * @param claims what it was checked for on each version, when that differed; else empty
     */
    public record Evidence(String from, List<PlanGroup> plans, List<ClaimGroup> claims) {

        /** Whether the plan changed between versions, so that the page shows each version's. */
        public boolean plansDiffer() {
            return plans.size() > 1;
        }
    }

    /**
     * The plans snippet {@code index} of {@code page} showed, one per distinct plan, oldest versions first: versions
     * whose plans differ only in timings and buffer counts share one (shown with the newest of them's figures), so that a plan that
     * changed between versions is shown for each, and one that did not is shown once naming every version it is.
     * Empty when the snippet shows no plan or ran on one version.
     */
    public List<PlanGroup> planGroups(String page, int index) {
        List<Map<Integer, String>> perSnippet = plans.get(page);
        Map<Integer, String> byVersion = perSnippet == null || index >= perSnippet.size() ? Map.of() : perSnippet.get(index);
        if (byVersion.size() < 2) {
            return List.of();
        }
        Map<String, List<Integer>> versionsByShape = new LinkedHashMap<>();
        Map<String, String> shownByShape = new LinkedHashMap<>();
        byVersion.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(entry -> {
            String shape = PlanText.withoutRunFigures(entry.getValue());
            versionsByShape.computeIfAbsent(shape, s -> new java.util.ArrayList<>()).add(entry.getKey());
            shownByShape.put(shape, entry.getValue()); // the newest version's text of this shape, timings included
        });
        return versionsByShape.entrySet().stream().map(entry -> new PlanGroup(entry.getValue(),
                PostgresReleases.describe(entry.getValue()), shownByShape.get(entry.getKey()),
                exact.getOrDefault(entry.getValue().get(entry.getValue().size() - 1),
                        Integer.toString(entry.getValue().get(entry.getValue().size() - 1))))).toList();
    }

    /**
     * One plan as several versions showed it.
     *
     * @param versions  the versions whose plans were this one but for timings and buffer counts, oldest first
     * @param described those versions as a mark writes them ("14–16")
     * @param plan      the text shown: the newest of these versions' plan
     * @param timingsOf the exact version whose timings and buffer counts {@code plan} carries ("16.10")
     */
    public record PlanGroup(List<Integer> versions, String described, String plan, String timingsOf) {
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
