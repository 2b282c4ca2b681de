package dev.kensho.generator;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Every lesson exercise, answered with the mistakes its page warns about. Each wrong query takes the model answer's place
 * in a page of its own holding what the reader's browser replays before the exercise (the page's setup and the sql
 * snippets above it, no scenario) and the exercise with its rows and cases; the check, on PostgreSQL 18.6, must stop it
 * on exactly the data set named here: the page's data, or the first case on which its result differs from the model
 * answer's, which is the case the browser names. The model answer, in the same page, passes every case. One check of
 * all these pages, so one server start; BrowserTest shows the browser gives the same verdicts.
 */
class LessonExerciseMistakesTest {

    private static final Path LESSONS = Path.of("../content/idempotency");
    /** The label of a difference on the page's own data (the model answer's ```rows), not on a case. */
    private static final String PAGE_DATA = "(page data)";
    private static final String ACCOUNT = "'6f1c2a4e-0000-4000-8000-000000000001'";

    private record Mistake(String query, String refusedBy) {
    }

    private static Mistake mistake(String query, String refusedBy) {
        return new Mistake(query, refusedBy);
    }

    /** Per page: the wrong queries a reader could write after reading it, and the data sets that tell each from the answer. */
    private static Map<String, List<Mistake>> mistakes() {
        Map<String, List<Mistake>> m = new LinkedHashMap<>();
        String permits = "SELECT permit_id, split_part(permit_id, ':', 2) AS order_ref, split_part(permit_id, ':', 3)::integer AS attempt_no"
                + " FROM call_permits ";
        m.put("at-most-once.md", List.of(
                // Every permit not known to have succeeded: the failed one (paid again as attempt 2) and the unused one too.
                mistake(permits + "WHERE state != 'succeeded' ORDER BY permit_id;", "失敗が確定した試行と、まだ消費していない許可"),
                mistake(permits + "WHERE state NOT IN ('succeeded', 'failed') ORDER BY permit_id;", "失敗が確定した試行と、まだ消費していない許可"),
                // Positions instead of the separator.
                mistake("SELECT permit_id, split_part(permit_id, ':', 2) AS order_ref, right(permit_id, 1)::integer AS attempt_no"
                        + " FROM call_permits WHERE state = 'consumed' ORDER BY permit_id;", "番号が 2 桁の試行と、長い注文番号"),
                mistake("SELECT permit_id, substr(permit_id, 8, 8) AS order_ref, split_part(permit_id, ':', 3)::integer AS attempt_no"
                        + " FROM call_permits WHERE state = 'consumed' ORDER BY permit_id;", "番号が 2 桁の試行と、長い注文番号")));
        String waiting = "SELECT attempt_id, timestamptz '2026-11-29 10:00:00+00' - unknown_since AS waiting_for FROM payment_attempts ";
        m.put("troubleshooting.md", List.of(
                mistake(waiting + "WHERE state = 'unknown' ORDER BY attempt_id;", "番号の大きい試行が、いちばん長く待っている"),
                mistake(waiting + "WHERE state = 'unknown' ORDER BY unknown_since DESC;", PAGE_DATA),
                // A time of becoming unknown stays when the outcome is settled later.
                mistake(waiting + "WHERE unknown_since IS NOT NULL ORDER BY waiting_for DESC;", "照会で結果が決まった試行")));
        return m;
    }

    private static final Pattern ERROR = Pattern.compile("^.*?content/([\\w-]+)\\.md:(\\d+):\\d+: error: (.*)$", Pattern.MULTILINE);
    /** Said of an exercise whose answer failed on some data set: its rows are then not a verified result either. */
    private static final String SECONDARY = "<Exercise> needs the model answer's rows";
    /** An exercise's cases: each ```sql case=NAME fence and the ```rows after it. */
    private static final Pattern CASES = Pattern.compile("```sql case=\"[^\"]*\"[^\\n]*\\n.*?^```\\n\\n```rows\\n.*?^```\\n\\n",
            Pattern.MULTILINE | Pattern.DOTALL);
    private static final Pattern CASE = Pattern.compile("^case \"([^\"]+)\"");
    private static final Pattern FENCE = Pattern.compile("^```sql([^\\n]*)\\n(.*?)^```$", Pattern.MULTILINE | Pattern.DOTALL);
    /** Directives that claim something of a snippet before the exercise; the exercise's verdict depends on none of them. */
    private static final Pattern CLAIM = Pattern.compile("\\s(title|uses-index|scan-in|no-seq-scan|index-cond-contains|max-buffers|max-rows-removed)"
            + "=(\"[^\"]*\"|\\S+)|\\s(result|explain|no-sort)(?=\\s|$)");

    @Test
    void eachLessonExerciseRefusesTheMistakesItsPageWarnsAboutOnTheDataThatShowsThem(@TempDir Path temp) throws IOException {
        TestSite site = new TestSite(temp);
        // Per page, the lines its exercise spans in the pages written below (the same in each).
        Map<String, int[]> spans = new LinkedHashMap<>();
        for (Map.Entry<String, List<Mistake>> entry : mistakes().entrySet()) {
            String page = entry.getKey();
            String text = read(LESSONS.resolve(page));
            int start = text.indexOf("<Exercise");
            int end = text.indexOf("</Exercise>", start) + "</Exercise>".length();
            String exercise = text.substring(start, end);
            // What the reader's browser replays before the exercise: every setup snippet, then every sql snippet above it
            // (no scenario: the browser has one session), each without its claims, which the site's own build checks.
            StringBuilder before = new StringBuilder("---\ntitle: " + page + "\n---\n\n");
            Matcher fence = FENCE.matcher(text);
            List<String> setup = new ArrayList<>();
            List<String> above = new ArrayList<>();
            while (fence.find()) {
                String info = CLAIM.matcher(fence.group(1)).replaceAll("");
                if (info.contains("ignore") || info.contains("case=")) {
                    continue;
                }
                String snippet = "```sql" + info + "\n" + fence.group(2) + "```\n\n";
                if (info.matches(".*\\bsetup\\b.*")) {
                    setup.add(snippet);
                } else if (fence.start() < start) {
                    above.add(snippet);
                }
            }
            setup.forEach(before::append);
            above.forEach(before::append);
            int first = lineOf(before.toString(), before.length());
            int answer = exercise.indexOf("```sql\n", exercise.indexOf("<Fragment slot=\"answer\">")) + "```sql\n".length();
            int answerEnd = exercise.indexOf("\n```", answer);
            String stem = page.replace(".md", "");
            List<Mistake> wrong = entry.getValue();
            for (int i = 0; i <= wrong.size(); i++) {
                String answered = i == 0 ? exercise
                        : exercise.substring(0, answer) + wrong.get(i - 1).query() + exercise.substring(answerEnd);
                // With its cases, and (for a mistake) without them: the browser judges the page's data first, the build the
                // cases first, and a page stops at its first failure.
                Map<String, String> copies = new LinkedHashMap<>();
                copies.put(stem + "-" + i, answered);
                if (i > 0) {
                    copies.put(stem + "-" + i + "-p", CASES.matcher(answered).replaceAll(""));
                }
                for (Map.Entry<String, String> copy : copies.entrySet()) {
                    spans.put(copy.getKey(), new int[] {first, first + lineOf(copy.getValue(), copy.getValue().length()) - 1});
                    site.page(copy.getKey() + ".md", before + copy.getValue() + "\n");
                }
            }
        }
        TestSite.Run run = site.check("--no-cache");
        // page copy -> the first data set its answer was refused on (a page stops at its first failure, as the browser's verdict
        // names the first data set that differs)
        Map<String, String> refused = new LinkedHashMap<>();
        List<String> elsewhere = new ArrayList<>();
        Matcher error = ERROR.matcher(run.err());
        while (error.find()) {
            String copy = error.group(1);
            int[] span = spans.get(copy);
            int line = Integer.parseInt(error.group(2));
            if (error.group(3).startsWith(SECONDARY) && !copy.endsWith("-0")) {
                continue;
            }
            if (span == null || line < span[0] || line > span[1] || refused.containsKey(copy)) {
                elsewhere.add(error.group());
                continue;
            }
            Matcher named = CASE.matcher(error.group(3));
            refused.put(copy, named.find() ? named.group(1) : PAGE_DATA);
        }
        assertEquals(List.of(), elsewhere, "each copy fails, if at all, once and inside its exercise\n" + run);
        StringBuilder expected = new StringBuilder();
        StringBuilder actual = new StringBuilder();
        mistakes().forEach((page, wrong) -> {
            String stem = page.replace(".md", "");
            expected.append(page).append(" the model answer\n  refused on: none\n");
            actual.append(page).append(" the model answer\n  refused on: ").append(refused.getOrDefault(stem + "-0", "none")).append('\n');
            for (int i = 0; i < wrong.size(); i++) {
                String head = page + " " + wrong.get(i).query() + "\n  refused on: ";
                expected.append(head).append(wrong.get(i).refusedBy()).append('\n');
                String copy = stem + "-" + (i + 1);
                actual.append(head).append(refused.containsKey(copy + "-p") ? refused.get(copy + "-p") : refused.getOrDefault(copy, "none"))
                        .append('\n');
            }
        });
        assertEquals(expected.toString(), actual.toString());
    }

    private static int lineOf(String text, int offset) {
        return (int) text.substring(0, offset).chars().filter(c -> c == '\n').count() + 1;
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
