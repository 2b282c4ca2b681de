package dev.kensho.generator.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.kensho.generator.verify.VersionVerdict;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * One report from the JSON reports of a CI matrix of PostgreSQL versions × shards ({@code check --postgres-version V
 * --shard I/N} per job): each snippet once, holding where it held on every version it ran on and failing otherwise
 * in a build's own words ({@link VersionVerdict}), and refused unless every version the site names reported every
 * shard, so that a job left out of the matrix, or one that died before writing its report, cannot pass for success.
 */
public final class ReportMerge {

    /** A report larger than this is not one Kensho wrote for a site a CI job can check. */
    private static final long MAX_REPORT_BYTES = 256L << 20;
    /** How deep below a folder given on the command line reports are looked for (artifact folders, one per job). */
    private static final int MAX_DEPTH = 4;

    private ReportMerge() {
    }

    /** Reports that cannot be merged into an account of the whole site, with why. */
    public static final class Refused extends Exception {
        Refused(String message) {
            super(message);
        }
    }

    /**
     * The merged report and its counts.
     *
     * @param failures each failed snippet and problem as {@code file:line:col: error: message}
     */
    public record Merged(Map<String, Object> report, List<Integer> versions, int sources, int shards, long passed, long failed,
                         long skipped, List<String> failures) {
    }

    /** The report files named, each folder searched (not through links) for files named {@code *.json}. */
    public static List<Path> find(List<Path> given) throws Refused {
        List<Path> files = new ArrayList<>();
        for (Path path : given) {
            if (Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) {
                try (Stream<Path> walk = Files.walk(path, MAX_DEPTH)) {
                    walk.filter(p -> Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS) && p.getFileName().toString().endsWith(".json"))
                            .sorted().forEach(files::add);
                } catch (IOException e) {
                    throw new Refused(path + ": cannot be read: " + e.getMessage());
                }
            } else if (Files.isRegularFile(path, LinkOption.NOFOLLOW_LINKS)) {
                files.add(path);
            } else {
                throw new Refused(path + ": no such report or folder (or a link, which is not followed)");
            }
        }
        if (files.isEmpty()) {
            throw new Refused("no report found in " + String.join(", ", given.stream().map(Path::toString).toList()));
        }
        return files;
    }

    /**
     * @param required the PostgreSQL versions the site's own site.yml names: every one must have reported every shard,
     *                 and no report may speak for another list (a report is a file like any other, and the reports' own
     *                 word on what the site names would let a forged one name none)
     */
    public static Merged merge(List<Path> files, List<Integer> required) throws Refused {
        ObjectMapper json = new ObjectMapper();
        List<Integer> requiredSorted = required.stream().sorted().distinct().toList();
        List<Integer> named = null;
        Integer shards = null;
        String namedFrom = null;
        Map<String, Path> seen = new TreeMap<>();
        Map<Where, List<Entry>> snippets = new LinkedHashMap<>();
        Set<String> problems = new LinkedHashSet<>();
        List<Map<String, Object>> problemEntries = new ArrayList<>();
        String kensho = null;
        for (Path file : files) {
            JsonNode report;
            try {
                if (Files.size(file) > MAX_REPORT_BYTES) {
                    throw new Refused(file + ": larger than " + (MAX_REPORT_BYTES >> 20) + " MiB; not a report Kensho wrote");
                }
                report = json.readTree(file.toFile());
            } catch (IOException e) {
                throw new Refused(file + ": not a JSON report: " + firstLine(e.getMessage()));
            }
            List<Integer> checked = versions(report.get("postgresVersions"));
            List<Integer> names = versions(report.get("postgresNamed"));
            String shard = report.path("shard").asText("");
            if (report.has("kensho") && report.path("postgresVersions").isNull()) {
                throw new Refused(file + ": its job verified nothing (no PostgreSQL server answered, or the run stopped before it;"
                        + " that job's log says why)");
            }
            // Each entry an object and problems a list: a report is read field by field below, and any other shape would
            // end the merge with a stack trace instead of naming the file.
            boolean entriesAreObjects = report.path("snippets").isArray() && (report.path("problems").isMissingNode()
                    || report.path("problems").isArray()) && java.util.stream.StreamSupport.stream(report.path("snippets").spliterator(), false)
                    .allMatch(JsonNode::isObject) && java.util.stream.StreamSupport.stream(report.path("problems").spliterator(), false)
                    .allMatch(JsonNode::isObject);
            if (checked == null || names == null || !shard.matches("[1-9][0-9]{0,3}/[1-9][0-9]{0,3}") || !entriesAreObjects) {
                throw new Refused(file + ": not a report of kensho check (it names no postgresVersions, postgresNamed or shard, or its snippets and problems are not lists of objects);"
                        + " each job of the matrix writes one with --report");
            }
            if (checked.isEmpty() || !requiredSorted.containsAll(checked)) {
                throw new Refused(file + ": it reports PostgreSQL " + checked + " checked, while site.yml names "
                        + requiredSorted + "; a job of the matrix checks one or more of the site's versions");
            }
            if (!names.stream().sorted().distinct().toList().equals(requiredSorted)) {
                throw new Refused(file + ": its site names PostgreSQL " + names + ", while site.yml here names " + requiredSorted
                        + "; the report is of another site or commit");
            }
            if (named == null) {
                named = names;
                namedFrom = file.toString();
                kensho = report.path("kensho").asText(null);
            } else if (!named.equals(names)) {
                throw new Refused(file + ": its site names PostgreSQL " + names + ", " + namedFrom + "'s " + named
                        + "; the reports are of different sites or commits");
            }
            int index = Integer.parseInt(shard.substring(0, shard.indexOf('/')));
            int count = Integer.parseInt(shard.substring(shard.indexOf('/') + 1));
            if (shards == null) {
                shards = count;
            } else if (shards != count) {
                throw new Refused(file + ": shard " + shard + ", while other reports are of " + shards
                        + " shards; every job of the matrix must split the pages the same way");
            }
            for (int version : checked) {
                Path before = seen.put(key(version, index, count), file);
                if (before != null) {
                    throw new Refused(file + ": PostgreSQL " + version + ", shard " + shard + " again (also " + before
                            + "); each version and shard must report once");
                }
            }
            Set<String> snippetErrors = new java.util.HashSet<>();
            for (JsonNode snippet : report.get("snippets")) {
                List<Integer> ranOn = versions(snippet.get("versions"));
                if (ranOn != null && !checked.containsAll(ranOn)) {
                    throw new Refused(file + ": " + snippet.path("file").asText() + ":" + snippet.path("line").asInt()
                            + " ran on PostgreSQL " + ranOn + ", which its job did not check (" + checked + ")");
                }
                Where where = new Where(snippet.path("file").asText(), snippet.path("line").asInt(), snippet.path("column").asInt());
                snippets.computeIfAbsent(where, w -> new ArrayList<>()).add(new Entry(snippet, versions(snippet.get("versions"))));
                if (snippet.has("errorLine")) {
                    snippetErrors.add(snippet.path("file").asText() + ":" + snippet.path("errorLine").asInt() + ":" + snippet.path("errorColumn").asInt());
                }
            }
            for (JsonNode problem : report.path("problems")) {
                if (snippetErrors.contains(problem.path("file").asText() + ":" + problem.path("line").asInt() + ":" + problem.path("column").asInt())) {
                    continue; // a snippet's failure, which the merged snippet reports with every version's outcome
                }
                String line = problem.path("file").asText() + ":" + problem.path("line").asInt() + ":" + problem.path("column").asInt()
                        + ": error: " + problem.path("message").asText()
                        + (problem.path("code").isTextual() ? " [" + problem.path("code").asText() + "]" : "");
                // Every version's job of a shard reports the same broken link: the merge lists it once.
                if (problems.add(line)) {
                    problemEntries.add(json.convertValue(problem, Map.class));
                }
            }
        }
        List<String> missing = new ArrayList<>();
        for (int version : requiredSorted) {
            for (int index = 1; index <= shards; index++) {
                if (!seen.containsKey(key(version, index, shards))) {
                    missing.add("PostgreSQL " + version + " shard " + index + "/" + shards);
                }
            }
        }
        if (!missing.isEmpty()) {
            throw new Refused("no report for " + String.join(", ", missing) + " (the site names PostgreSQL "
                    + String.join(", ", requiredSorted.stream().map(String::valueOf).toList()) + "): every version × shard job of the matrix"
                    + " must upload its report; a missing one did not run, or failed before writing it");
        }
        List<Map<String, Object>> merged = new ArrayList<>();
        List<String> failures = new ArrayList<>();
        long passed = 0;
        long failed = 0;
        long skipped = 0;
        List<Where> order = new ArrayList<>(snippets.keySet());
        order.sort(Comparator.comparing(Where::file).thenComparingInt(Where::line).thenComparingInt(Where::column));
        for (Where where : order) {
            Map<String, Object> entry = combine(json, snippets.get(where));
            switch (String.valueOf(entry.get("status"))) {
                case "passed" -> passed++;
                case "failed" -> {
                    failed++;
                    // As a build prints it: at the error's line and column, with its SQLSTATE.
                    failures.add(entry.get("file") + ":" + entry.getOrDefault("errorLine", entry.get("line")) + ":"
                            + entry.getOrDefault("errorColumn", entry.get("column")) + ": error: " + entry.get("message")
                            + (entry.get("sqlstate") == null ? "" : " [" + entry.get("sqlstate") + "]"));
                }
                default -> skipped++;
            }
            merged.add(entry);
        }
        problems.forEach(failures::add);
        Map<String, Object> report = new LinkedHashMap<>();
        report.put("kensho", kensho);
        report.put("postgresVersions", named);
        report.put("shards", shards);
        report.put("merged", seen.keySet().stream().toList());
        report.put("snippets", merged);
        report.put("problems", problemEntries);
        Map<String, Object> totals = new LinkedHashMap<>();
        totals.put("snippets", merged.size());
        totals.put("passed", passed);
        totals.put("failed", failed);
        totals.put("skipped", skipped);
        totals.put("problems", problemEntries.size());
        report.put("totals", totals);
        return new Merged(report, named, files.size(), shards, passed, failed, skipped, failures);
    }

    public static void write(Path file, Merged merged) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        Files.createDirectories(parent);
        try (java.io.OutputStream out = dev.kensho.generator.output.LinkFreePaths.create(file)) {
            new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(out, merged.report());
        }
    }

    /**
     * Where a snippet is, as fields: a file name is the contributor's and may hold any character, ':' included, so
     * it is never parsed back out of a joined {@code file:line:col}.
     */
    private record Where(String file, int line, int column) {
    }

    /** One snippet's entry in one job's report, with the versions it ran on there (none: its versions= left it out). */
    private record Entry(JsonNode snippet, List<Integer> versions) {
        String status() {
            return snippet.path("status").asText();
        }
    }

    /**
     * A snippet from its entries in every job: held where it ran and held everywhere; failed naming where it held and
     * where not (a build's own wording); skipped when it ran nowhere, or an earlier snippet's failure stopped it.
     */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> combine(ObjectMapper json, List<Entry> entries) {
        Set<Integer> ran = new TreeSet<>();
        List<Integer> held = new ArrayList<>();
        Map<String, List<Integer>> failedBy = new LinkedHashMap<>();
        Entry firstFailure = null;
        Entry firstSkip = null;
        Entry newestHeld = null;
        entries.sort(Comparator.comparingInt(e -> e.versions() == null || e.versions().isEmpty() ? 0 : e.versions().get(0)));
        for (Entry entry : entries) {
            // An entry that ran on no version (its versions= left the job's version out) says nothing of the snippet's
            // passing; a failure says something whatever its versions (a versions= naming none of the site's fails
            // before it runs anywhere: red team helper-103).
            if ((entry.versions() == null || entry.versions().isEmpty()) && !entry.status().equals("failed")) {
                continue;
            }
            if (entry.versions() == null || entry.versions().isEmpty()) {
                firstFailure = firstFailure == null ? entry : firstFailure;
                continue;
            }
            ran.addAll(entry.versions());
            switch (entry.status()) {
                case "passed" -> {
                    held.addAll(entry.versions());
                    newestHeld = entry;
                }
                case "failed" -> {
                    String message = entry.snippet().path("message").asText();
                    // A job's message already names versions when it checked several; one version's is that version's.
                    failedBy.computeIfAbsent(message, m -> new ArrayList<>()).addAll(entry.versions());
                    firstFailure = firstFailure == null ? entry : firstFailure;
                }
                default -> {
                    if (!entry.versions().isEmpty()) {
                        firstSkip = firstSkip == null ? entry : firstSkip; // stopped by an earlier failure
                    }
                }
            }
        }
        Entry shown = firstFailure != null ? firstFailure : firstSkip != null ? firstSkip
                : newestHeld != null ? newestHeld : entries.get(entries.size() - 1);
        Map<String, Object> entry = json.convertValue(shown.snippet(), LinkedHashMap.class);
        entry.put("versions", List.copyOf(ran));
        entry.remove("cached");
        if (firstFailure != null) {
            entry.put("status", "failed");
            held.sort(Integer::compare);
            if (ran.size() > 1) {
                entry.put("message", VersionVerdict.failure(held, failedBy));
            }
        } else if (firstSkip != null) {
            entry.put("status", "skipped");
        } else if (newestHeld != null) {
            entry.put("status", "passed");
        } else {
            entry.put("status", "skipped"); // it ran on no version in any job
            entry.remove("message");
        }
        return entry;
    }

    private static String key(int version, int index, int count) {
        return "PostgreSQL " + version + ", shard " + index + "/" + count;
    }

    private static List<Integer> versions(JsonNode node) {
        if (node == null || !node.isArray()) {
            return null;
        }
        List<Integer> versions = new ArrayList<>();
        for (JsonNode version : node) {
            if (!version.canConvertToInt()) {
                return null;
            }
            versions.add(version.asInt());
        }
        return versions;
    }

    private static String firstLine(String message) {
        return message == null ? "" : message.lines().findFirst().orElse("");
    }
}
