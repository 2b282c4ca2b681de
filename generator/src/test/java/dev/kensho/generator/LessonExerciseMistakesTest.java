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
        String constraints = "SELECT conrelid::regclass::text AS table_name, pg_get_constraintdef(oid) AS definition FROM pg_constraint ";
        m.put("concurrency.md", List.of(
                // Primary keys alone: a unique constraint is what would stop a second attempt of one operation.
                mistake(constraints + "WHERE contype = 'p' AND connamespace = 'public'::regnamespace ORDER BY table_name;",
                        "試行の表に、操作 ID の一意制約と外部キーを足した"),
                mistake(constraints + "WHERE contype IN ('p', 'u', 'f') AND connamespace = 'public'::regnamespace ORDER BY table_name;",
                        "試行の表に、操作 ID の一意制約と外部キーを足した"),
                // The system catalogs' own keys.
                mistake(constraints + "WHERE contype IN ('p', 'u') ORDER BY table_name;", PAGE_DATA),
                mistake(constraints + "WHERE contype IN ('p', 'u') AND conrelid::regclass::text NOT LIKE 'pg_%' ORDER BY table_name;",
                        "別のスキーマにも主キーのある表")));
        String body = "'{\"currency\": \"JPY\", \"item\": \"book-43\", \"quantity\": 1}'::jsonb";
        String decide = "WHEN canonical_request != " + body + " THEN 'mismatch' WHEN response_status IS NULL THEN 'in_progress' ELSE 'replay'";
        String record = "account_id = " + ACCOUNT + " AND operation = 'create_order' AND key = 'k-7f3a'";
        m.put("overview.md", List.of(
                // "In progress" before the body: a different body on an unfinished record must still be a mismatch.
                mistake("SELECT CASE WHEN response_status IS NULL THEN 'in_progress' WHEN canonical_request != " + body
                        + " THEN 'mismatch' ELSE 'replay' END AS decision, response_status FROM idempotency_records WHERE " + record + ";",
                        "処理中の記録に、別の本文の再送"),
                // The verdict of the page's data, hard-coded.
                mistake("SELECT 'mismatch' AS decision, response_status FROM idempotency_records WHERE " + record + ";",
                        "処理中の記録に、同じ本文の再送"),
                // The key alone, or without the operation: a key is the client's string, unique only per account and operation.
                mistake("SELECT CASE " + decide + " END AS decision, response_status FROM idempotency_records WHERE key = 'k-7f3a';",
                        "別のアカウントと別の操作も、同じキー k-7f3a を使っている"),
                mistake("SELECT CASE " + decide + " END AS decision, response_status FROM idempotency_records WHERE account_id = " + ACCOUNT
                        + " AND key = 'k-7f3a';", "別のアカウントと別の操作も、同じキー k-7f3a を使っている")));
        String orders = "SELECT order_id, amount_minor FROM orders WHERE account_id = " + ACCOUNT;
        String cursorTime = "timestamptz '2026-11-20 10:02:00+00'";
        String cursorId = "'00000000-0000-4000-8000-00000000000c'::uuid";
        String newest = " ORDER BY created_at DESC, order_id DESC LIMIT 3;";
        m.put("keyset.md", List.of(
                // OFFSET counts rows, so an order added above the first page shifts the second.
                mistake(orders + " ORDER BY created_at DESC, order_id DESC OFFSET 3 LIMIT 3;", "一覧の先頭に新しい注文が入った"),
                // The cursor without its tie-breaker skips the orders of C's own time.
                mistake(orders + " AND created_at < " + cursorTime + newest, "カーソルと同じ時刻の注文"),
                // Without the tie-breaker in ORDER BY: tied orders come in whatever order the plan reads them. With the
                // cursor index that is order_id DESC by luck; without it, the order they were stored in.
                mistake(orders + " AND (created_at, order_id) < (" + cursorTime + ", " + cursorId + ") ORDER BY created_at DESC LIMIT 3;",
                        "インデックスの無い表で、同じ時刻の注文がページをまたぐ"),
                mistake(orders + " AND created_at < " + cursorTime + " ORDER BY created_at DESC LIMIT 3;", "カーソルと同じ時刻の注文"),
                // Column by column instead of the row comparison.
                mistake(orders + " AND created_at <= " + cursorTime + " AND order_id < " + cursorId + newest, PAGE_DATA),
                mistake(orders + " AND (created_at, order_id) <= (" + cursorTime + ", " + cursorId + ")" + newest, PAGE_DATA),
                mistake("SELECT order_id, amount_minor FROM orders WHERE (created_at, order_id) < (" + cursorTime + ", " + cursorId + ")" + newest,
                        PAGE_DATA),
                // The OR form without its parentheses: AND binds first, so the time's tie reads every account's orders
                // (reader trial helper-93 found it called right).
                mistake(orders + " AND created_at < " + cursorTime + " OR (created_at = " + cursorTime + " AND order_id < " + cursorId + ")"
                        + newest, "C と同じ時刻の注文が後から入り、別のアカウントにも同じ時刻の注文がある"),
                // A tie-breaker that only leaves C out: orders of C's time that come before it are read again.
                mistake(orders + " AND created_at <= " + cursorTime + " AND order_id <> " + cursorId + newest,
                        "C と同じ時刻の注文が後から入り、別のアカウントにも同じ時刻の注文がある"),
                // The page's own answer, hard-coded.
                mistake("SELECT '00000000-0000-4000-8000-00000000000d'::uuid AS order_id, 4000::bigint AS amount_minor ORDER BY 1;",
                        "カーソルと同じ時刻の注文")));
        String bodies = " FROM arrived_bodies AS f, arrived_bodies AS r WHERE f.label = 'first' AND r.label = 'retry';";
        String hashes = "sha256(convert_to(f.body::jsonb::text, 'UTF8')) = sha256(convert_to(r.body::jsonb::text, 'UTF8')) AS hash_equal";
        m.put("fingerprint.md", List.of(
                // The page data's answer typed in, or read from the first body: the retry's own body is what must be read.
                mistake("SELECT '{\"quantity\": 1, \"item\": \"book-42\", \"quantity\": 2}'::jsonb::text AS duplicated_as_text,"
                        + " true AS jsonb_equal, true AS hash_equal;", "後ろの quantity が一度目と違う再送"),
                mistake("SELECT body::jsonb::text AS duplicated_as_text, true AS jsonb_equal, true AS hash_equal"
                        + " FROM arrived_bodies WHERE label = 'first';", "後ろの quantity が一度目と違う再送"),
                // The raw text hashed, the text compared: neither goes through jsonb.
                mistake("SELECT r.body::jsonb::text AS duplicated_as_text, f.body::jsonb = r.body::jsonb AS jsonb_equal,"
                        + " sha256(convert_to(f.body, 'UTF8')) = sha256(convert_to(r.body, 'UTF8')) AS hash_equal" + bodies, PAGE_DATA),
                mistake("SELECT r.body::jsonb::text AS duplicated_as_text, f.body = r.body AS jsonb_equal, " + hashes + bodies, PAGE_DATA),
                // Equal as jsonb taken for equal hashes: 2 and 2.0 are equal numbers and different text.
                mistake("SELECT r.body::jsonb::text AS duplicated_as_text, f.body::jsonb = r.body::jsonb AS jsonb_equal,"
                        + " f.body::jsonb = r.body::jsonb AS hash_equal" + bodies, "後ろの quantity を 2.0 と書いた再送")));
        String stored = "EXISTS (SELECT 1 FROM idempotency_records AS r WHERE r.account_id = " + ACCOUNT
                + " AND r.operation = 'create_order' AND r.key = k.key";
        String live = stored + " AND r.expires_at > now())";
        String tombstone = "EXISTS (SELECT 1 FROM idempotency_tombstones AS t WHERE t.account_id = " + ACCOUNT
                + " AND t.operation = 'create_order' AND t.key = k.key)";
        String keys = " ELSE 'none' END AS found_in FROM (VALUES ('K-late'), ('K-live'), ('K-new'), ('K-old')) AS k (key) ORDER BY k.key;";
        m.put("retention.md", List.of(
                // The tombstones alone: an expired record the job has not moved yet answers "none", and its key is taken again.
                mistake("SELECT k.key, CASE WHEN " + live + " THEN 'record' WHEN " + tombstone + " THEN 'tombstone'" + keys, PAGE_DATA),
                // Any record, live or not, as a record.
                mistake("SELECT k.key, CASE WHEN " + stored + ") THEN 'record' WHEN " + tombstone + " THEN 'tombstone'" + keys, PAGE_DATA),
                // Tombstones looked up before the live record.
                mistake("SELECT k.key, CASE WHEN " + tombstone + " OR " + stored + " AND r.order_id IS NOT NULL) THEN 'tombstone' WHEN "
                        + live + " THEN 'record'" + keys, "tombstone のあるキーが、期限内の記録として使われている"),
                // An expired record that never got its order is no promise to keep.
                mistake("SELECT k.key, CASE WHEN " + live + " THEN 'record' WHEN " + tombstone + " OR " + stored + ") THEN 'tombstone'" + keys,
                        "注文に結びつかないまま期限を過ぎた記録"),
                // The key without its account and operation.
                mistake("SELECT k.key, CASE WHEN EXISTS (SELECT 1 FROM idempotency_records AS r WHERE r.key = k.key AND r.expires_at > now())"
                        + " THEN 'record' WHEN EXISTS (SELECT 1 FROM idempotency_tombstones AS t WHERE t.key = k.key) OR EXISTS (SELECT 1"
                        + " FROM idempotency_records AS r WHERE r.key = k.key AND r.order_id IS NOT NULL) THEN 'tombstone'" + keys,
                        "別のアカウントと別の操作に、同じキー K-new がある")));
        String book = "'{\"api_version\": \"2026-09-01\", \"currency\": \"JPY\", \"item\": \"book-42\", \"quantity\": 1}'::jsonb";
        String verdict = "SELECT key, CASE WHEN canonical_request != " + book
                + " THEN 'mismatch' WHEN response_status IS NULL THEN 'in_progress' ELSE 'replay' END AS decision FROM idempotency_records ";
        m.put("records.md", List.of(
                // "In progress" before the body: K5's other body, still reserved, must be a mismatch.
                mistake("SELECT key, CASE WHEN response_status IS NULL THEN 'in_progress' WHEN canonical_request != " + book
                        + " THEN 'mismatch' ELSE 'replay' END AS decision FROM idempotency_records WHERE account_id = " + ACCOUNT
                        + " AND operation = 'create_order' ORDER BY key;", PAGE_DATA),
                // Without the account (another account's K1 is on the page), or without the operation.
                mistake(verdict + "WHERE operation = 'create_order' ORDER BY key;", PAGE_DATA),
                mistake(verdict + "WHERE account_id = " + ACCOUNT + " ORDER BY key;", "別の操作にも、同じキー K1 の処理中の記録がある"),
                // The body compared as text: jsonb prints its own order of properties.
                mistake("SELECT key, CASE WHEN canonical_request::text != '{\"api_version\": \"2026-09-01\", \"currency\": \"JPY\", \"item\":"
                        + " \"book-42\", \"quantity\": 1}' THEN 'mismatch' WHEN response_status IS NULL THEN 'in_progress' ELSE 'replay' END"
                        + " AS decision FROM idempotency_records WHERE account_id = " + ACCOUNT + " AND operation = 'create_order' ORDER BY key;",
                        PAGE_DATA)));
        String inquiry = "SELECT merchant_reference, amount_minor, currency, order_id FROM payment_attempts ";
        String joined = " FROM payment_attempts AS a JOIN orders AS o USING (order_id) ";
        m.put("payments.md", List.of(
                // Every attempt not known to have succeeded: a confirmed failure is settled, a pending one was never sent.
                mistake(inquiry + "WHERE state != 'succeeded' ORDER BY merchant_reference;", "失敗が確定した後の払い直しと、まだ送っていない試行"),
                mistake(inquiry + "WHERE state IN ('pending', 'unknown') ORDER BY merchant_reference;",
                        "失敗が確定した後の払い直しと、まだ送っていない試行"),
                mistake("SELECT a.merchant_reference, a.amount_minor, a.currency, a.order_id" + joined
                        + "WHERE o.state = 'awaiting_payment' AND a.state != 'succeeded' ORDER BY a.merchant_reference;",
                        "失敗が確定した後の払い直しと、まだ送っていない試行"),
                // The order's amount instead of what the attempt asked the provider for.
                mistake("SELECT a.merchant_reference, o.amount_minor, a.currency, a.order_id" + joined
                        + "WHERE a.state = 'unknown' ORDER BY a.merchant_reference;", "一部をポイントで払った注文")));
        return m;
    }

    private static final Pattern ERROR = Pattern.compile("^.*?content/([\\w-]+)\\.md:(\\d+):\\d+: error: (.*)$", Pattern.MULTILINE);
    /** Said of an exercise whose answer failed on some data set: its rows are then not a verified result either. */
    private static final String SECONDARY = "<Exercise> cannot check a reader: its model answer's rows were not verified";
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
                // A mistake is written twice: first without the cases, then with them. The browser judges the page's data
                // first; the build runs the cases first and skips what follows a failing case. So the first error of the
                // page is in the first copy if the page's data refuses the query, else it names the first case that does.
                // (The second copy leaves out the snippets of the task itself, such as fingerprint's CREATE TABLE: they ran once.)
                int slot = answered.indexOf("<Fragment slot=\"answer\">");
                String copy = i == 0 ? answered : CASES.matcher(answered).replaceAll("") + "\n\n"
                        + FENCE.matcher(answered.substring(0, slot)).replaceAll("") + answered.substring(slot);
                spans.put(stem + "-" + i, new int[] {first, first + lineOf(copy, copy.length()) - 1});
                site.page(stem + "-" + i + ".md", before + copy + "\n");
            }
        }
        TestSite.Run run = site.check("--no-cache");
        // page copy -> the first data set its answer was refused on (the browser's verdict names the first that differs)
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
            if (span == null || line < span[0] || line > span[1]) {
                elsewhere.add(error.group());
                continue;
            }
            if (refused.containsKey(copy)) {
                continue; // the copy with the cases, after the page's data refused the first copy; errors come in line order
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
                actual.append(head).append(refused.getOrDefault(copy, "none")).append('\n');
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
