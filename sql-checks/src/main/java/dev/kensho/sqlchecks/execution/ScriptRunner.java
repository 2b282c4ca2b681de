package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.model.Assertion;
import dev.kensho.sqlchecks.model.Directives;
import dev.kensho.sqlchecks.model.ExpectedRows;
import dev.kensho.sqlchecks.model.Failure;
import dev.kensho.sqlchecks.model.Outcome;
import dev.kensho.sqlchecks.model.ResultTable;
import dev.kensho.sqlchecks.model.Snippet;
import dev.kensho.sqlchecks.model.SourceLocation;
import dev.kensho.sqlchecks.model.StateAfter;

import dev.kensho.sqlchecks.assertion.BoundedMatch;
import dev.kensho.sqlchecks.model.CapturedPlans;
import dev.kensho.sqlchecks.assertion.PlanText;
import dev.kensho.sqlchecks.model.RowOrder;
import dev.kensho.sqlchecks.model.RunOrder;
import dev.kensho.sqlchecks.model.Binding;
import dev.kensho.sqlchecks.assertion.PlanCheck;
import dev.kensho.sqlchecks.assertion.RowComparison;
import dev.kensho.sqlchecks.script.SqlLexer;
import dev.kensho.sqlchecks.script.SqlSplitter;
import dev.kensho.sqlchecks.script.SqlStatement;
import org.postgresql.core.BaseConnection;
import org.postgresql.core.TransactionState;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.LinkedHashMap;
import java.util.concurrent.Semaphore;

/**
 * Runs a page's snippets on one connection, like psql running a script: setup snippets first, then
 * the rest in document order. Each snippet's directives are checked against what the server did.
 */
final class ScriptRunner {

    /** Below this many rows the planner rightly prefers reading the whole table. */
    private static final long SMALL_TABLE_ROWS = 1000;
    private static final String UNDEFINED_PARAMETER = "42P02";
    private static final String OUT_OF_MEMORY = "53200";

    private final Connection connection;
    /** The reader's scenario sessions (as the page's role): the only other connections of the real run. */
    private final ScenarioRunner.SessionFactory sessions;
    private final ScenarioRunner scenarios;
    /** Only on a capture run asking a sequence question: the runner, with its look, for the question's scenario alone. */
    private ScenarioRunner asker;
    private final StatementGuard guard;
    /** Only on a capture run ({@link #capturing}): the real run is made without one, see {@link KenshoConnections}. */
    private PlanCatalog catalog;
    /** Snippets in the order they ran, to say where a setting was changed. */
    private final List<Snippet> ran = new ArrayList<>();
    private final RunConditions conditions;
    private final PlannerInputs plannerInputs;
    private int preparedCounter;
    /** Whether the last snippet's failure leaves the page's database other than the lesson meant. */
    private boolean stoppedPage;

    private final Duration pageTimeout;

    private final Semaphore scenarioSlots;

    /**
     * Only on a capture run ({@link CaptureRun}): the scenarios (indexes) after which their end state is read, and the
     * connection that reads it (PageDatabase.openStateReader). Empty on the real run, which reads nothing of the sort.
     */
    private java.util.Set<Integer> captureAfter = java.util.Set.of();
    private KenshoConnections kensho;
    /**
     * Only on a capture run asking one of the real run's questions ({@link #asking}): the question, and its answer once
     * asked. Null on the real run and on a run reading states.
     */
    private CaptureRun.Question question;
    private PlanVerdict verdict;
    private PlanVerdict ownVerdict;
    private boolean foundSequence;
    private boolean hidesTables;
    /** Each snippet's (index, in run order) first draw from chance, and where ({@link SecondDraw#drawnIn}). */
    private final Map<Integer, String> draws = new java.util.LinkedHashMap<>();
    /** Whether a snippet of this run read the clock ({@link SecondDraw#readsClock}). */
    private boolean readsClock;
    /** What the server parsed in each snippet of this run: the real run's evidence of its DDL, a replay's of its own. */
    private final RunTrace trace = new RunTrace();
    /** Plan claims of this run that wait for the catalog (judged on a capture run), by snippet index. */
    private final Map<Integer, PlanVerdict.Pending> pendingPlans = new java.util.LinkedHashMap<>();
    /** Scenarios (indexes) of this run whose simultaneous releases asked whether the database holds a sequence: how often. */
    private final Map<Integer, Integer> sequenceQuestions = new java.util.LinkedHashMap<>();
    /** The scenarios (indexes) that passed and left the page's session outside a transaction: only their end state may be read. */
    private final java.util.Set<Integer> endedOutsideTransaction = new java.util.HashSet<>();

    /** What the server's parse trees said about the session's cursors and prepared statements. */
    private final SessionOrders orders = new SessionOrders();
    /** pg_catalog's relations and functions by OID, read once per server ({@link TreeReads.Catalog}). */
    private final TreeReads.Catalog treeCatalog;
    /** Every name the page's snippets run so far spell ({@link KenshoSettingsReaders#scan}). */
    private final java.util.Set<String> spelled = new java.util.HashSet<>();
    /** The snippets (indexes) whose exercise cases wait for a replay of their own ({@link CaptureRun#questions}). */
    private final java.util.Set<Integer> caseAnswers = new java.util.LinkedHashSet<>();
    /** A read's offset when the server's parse trees showed it rather than the text ({@link TreeReads}). */
    private static final int RUN_TIME = -1;
    /** Whether the page stopped being checkable because a statement's parse tree was not reported. */
    private boolean untold;
    /** Whether the server's parse reports are known to be on as the page's session goes ({@link ParseReports}). */
    private final ParseReports reports = new ParseReports();
    /**
     * The last hidden or setup snippet that may change a setting (a SET, RESET, set_config(), a function's SET clause),
     * so that plans it cached (prepared statements, functions' queries) under settings a reader cannot see may serve a
     * later plan claim; null when none did, or the page's own DISCARD PLANS or ALL has dropped them since.
     */
    private Snippet cachedPlansOf;

    /**
     * Statements that take no snapshot (PostgreSQL's {@code PlannedStmtRequiresSnapshot}): transaction
     * control, LOCK, SET, SHOW, FETCH, LISTEN/NOTIFY, CHECKPOINT. They have no plan, so a plan claim on
     * one fails saying so, before it runs. The first keyword names the statement in PostgreSQL's grammar.
     */
    private static final java.util.Set<String> TAKE_NO_SNAPSHOT = java.util.Set.of("begin", "start", "commit", "end", "rollback",
            "abort", "savepoint", "release", "lock", "set", "reset", "show", "fetch", "move", "listen", "notify", "unlisten",
            "checkpoint");

    ScriptRunner(Connection connection, ScenarioRunner.SessionFactory sessions, StatementGuard guard, Duration pageTimeout,
                 Semaphore scenarioSlots, TreeReads.Catalog treeCatalog) {
        this.treeCatalog = treeCatalog;
        this.scenarioSlots = scenarioSlots;
        this.connection = connection;
        this.pageTimeout = pageTimeout;
        this.sessions = sessions;
        // No connections of Kensho's: this runner's outcomes are the page's evidence until capturing() says otherwise.
        this.scenarios = new ScenarioRunner(connection, sessions, null, 0, guard);
        this.guard = guard;
        this.conditions = new RunConditions(connection, guard);
        this.plannerInputs = new PlannerInputs(conditions, ran);
    }

    /**
     * Makes this a capture run ({@link CaptureRun}) that reads, after each of {@code scenarios} that passed outside a
     * transaction, its end state, on a connection of Kensho's own to its (fresh) database; it asks nothing else, and stops
     * after the last of them (nothing later is wanted), leaving the later outcomes null.
     */
    ScriptRunner readingStates(java.util.Set<Integer> scenarios, KenshoConnections kensho) {
        this.captureAfter = java.util.Set.copyOf(scenarios);
        this.stopAfter = java.util.Set.copyOf(scenarios);
        this.kensho = kensho;
        return this;
    }

    /**
     * Makes this a capture run ({@link CaptureRun}) for one question of the real run: it runs the page as the real run did,
     * with nothing of Kensho's beside it (no connection, no look-up, no statement), up to the question's point, asks it
     * there (a plan claim's catalog right after its snippet; a sequence look at the scenario's release; an exercise's cases
     * before its answer), and stops after
     * that snippet. Nothing a page can observe before its question tells this run from the real one but the page's own
     * nondeterminism, which {@link CaptureRun#answered} sees in the outcomes.
     */
    ScriptRunner asking(CaptureRun.Question question, KenshoConnections kensho) {
        this.question = question;
        this.stopAfter = java.util.Set.of(question.snippet());
        this.kensho = kensho;
        if (question.plan() != null) {
            this.catalog = new PlanCatalog(kensho, connection);
        } else if (!question.cases()) {
            this.asker = new ScenarioRunner(connection, sessions, kensho, question.release(), guard);
        }
        return this;
    }

    /**
     * Makes this the restore's proof ({@link RestoreProof}): it runs every exercise's cases where they stand, as a reader's
     * browser does from a restored scenario state, so that their outcomes are compared with their replays' too.
     */
    ScriptRunner runningEveryCase() {
        this.allCases = true;
        return this;
    }

    /** Only on the restore's proof: every exercise's cases run where they stand ({@link #runningEveryCase}). */
    private boolean allCases;

    /** Snippets (indexes) a capture run must reach; it stops after the last of them. */
    private java.util.Set<Integer> stopAfter = java.util.Set.of();

    /** After {@link #run}: the plan claims that wait for the catalog, by snippet index (their outcome passed for now). */
    Map<Integer, PlanVerdict.Pending> pendingPlans() {
        return java.util.Collections.unmodifiableMap(pendingPlans);
    }

    /**
     * After {@link #run}: whether a statement of the page dropped a table (or what a role
     * owned), so that the statistics read at the end no longer show what autovacuum did to it ({@link AutovacuumActivity}).
     */
    boolean hidesTables() {
        return hidesTables;
    }

    /** After {@link #run}: the snippets (indexes) whose exercise cases wait for a replay of their own. */
    java.util.Set<Integer> caseAnswers() {
        return java.util.Collections.unmodifiableSet(caseAnswers);
    }

    /** After {@link #run}: the scenarios whose simultaneous releases asked whether the database holds a sequence, and how often. */
    Map<Integer, Integer> sequenceQuestions() {
        return java.util.Collections.unmodifiableMap(sequenceQuestions);
    }

    /** After a run {@link #asking} a plan question: the claim's verdict on this database's catalog; null when not reached. */
    PlanVerdict verdict() {
        return verdict;
    }

    /**
     * After a run {@link #asking} a plan question: the claim judged on this replay's own plan of the snippet (not the real
     * run's) and this database's catalog; null when not reached.
     */
    PlanVerdict ownVerdict() {
        return ownVerdict;
    }

    /** After a run {@link #asking} a sequence question: whether the look found a sequence. */
    boolean foundSequence() {
        return foundSequence;
    }

    /** After {@link #run}: each snippet's first draw from chance, and where, in run order; empty when none ({@link SecondDraw}). */
    Map<Integer, String> draws() {
        return draws;
    }

    /** After {@link #run}: whether a snippet read the clock ({@link SecondDraw#readsClock}). */
    boolean readsClock() {
        return readsClock;
    }

    /** After {@link #run}: what the server parsed in each snippet ({@link RunTrace}), compared by {@link CaptureRun#answered}. */
    RunTrace trace() {
        return trace;
    }

    /** After {@link #run}: the scenarios that passed and left the page's session outside a transaction. */
    java.util.Set<Integer> scenariosEndedOutsideTransaction() {
        return java.util.Collections.unmodifiableSet(endedOutsideTransaction);
    }

    /**
     * Returns one outcome per snippet, in the order given (document order). A claim that fails on a
     * statement that ran as written does not stop the page (the database is as a reader's would be);
     * an unexpected error, or a limit of Kensho's, stops every later snippet, which builds on it.
     */
    List<Outcome> run(List<Snippet> snippets) {
        try {
            return runInOrder(snippets);
        } finally {
            if (catalog != null) {
                catalog.close();
            }
        }
    }

    /**
     * Whether a page's sessions must report plans (a snippet claims or shows one): decided before the
     * page's database and role are made, so that nothing switches capture on the reader's connection.
     */
    static boolean claimsPlans(List<Snippet> snippets) {
        return snippets.stream().anyMatch(s -> s.directives().plan() != null || s.directives().showPlan());
    }

    /** Whether a snippet states something beyond running: rows, an error, a plan, a scenario's steps. */
    /** Whether the page shows something of the snippet's run as the build's evidence: a claim, or a result or plan it shows. */
    private static boolean claims(Snippet snippet) {
        return snippet.expectedRows() != null || snippet.directives().expectError() != null || snippet.directives().plan() != null
                || snippet.scenario() != null || snippet.directives().showResult() || snippet.directives().showPlan();
    }

    private List<Outcome> runInOrder(List<Snippet> snippets) {
        List<Integer> order = RunOrder.of(snippets);
        if (snippets.stream().anyMatch(s -> s.directives().hidden() || s.directives().setup())) {
            try {
                conditions.start();
            } catch (SQLException e) {
                // Without a starting state nothing can be attributed; plan claims then treat every setting as unseen.
            }
        }
        Outcome[] outcomes = new Outcome[snippets.size()];
        Outcome failed = null;
        Snippet transactionOpenedBy = null;
        Snippet readsKenshosSettings = null;
        KenshoSettingsReaders.Read read = null;
        boolean claimsPlans = claimsPlans(snippets);
        long deadline = System.nanoTime() + pageTimeout.toNanos();
        int lastCaptured = order.stream().filter(stopAfter::contains).reduce((first, second) -> second).orElse(-1);
        for (int index : order) {
            Snippet snippet = snippets.get(index);
            if (snippet.directives().caseName() != null && outcomes[index] != null) {
                continue; // run with the answer before it (below), its outcome already kept
            }
            if (failed == null && System.nanoTime() > deadline) {
                Failure reason = new Failure("Kensho stopped the page before this snippet: its snippets ran longer than "
                        + StatementGuard.seconds(pageTimeout) + " together (its limit per page, --page-timeout); a limit of "
                        + "Kensho's never satisfies a claim", null, snippet.location(), snippet.lineAt(0), null, null);
                failed = new Outcome(snippet, Outcome.Status.FAILED, reason, List.of(), List.of(), null, null, Duration.ZERO);
                outcomes[index] = failed;
                continue;
            }
            if (failed != null) {
                Failure reason = new Failure("not run: the snippet at " + failed.snippet().location()
                        + " failed and this one builds on it", null, snippet.location(), snippet.lineAt(0), null, null);
                outcomes[index] = new Outcome(snippet, Outcome.Status.SKIPPED, reason, List.of(), List.of(), null, null, Duration.ZERO);
                continue;
            }
            if (snippet.directives().caseName() != null) {
                // Not run with an answer: the first snippet of the page, or after a scenario.
                outcomes[index] = caseFailure(snippet, "is a data set for the snippet right before it, which compares no rows: "
                        + "put the case after the model answer's ```sql fence and its ```rows");
                failed = outcomes[index];
                continue;
            }
            // The cases written after this snippet. A reader's run never runs a case before the snippets after it, so neither
            // does this run: each case runs only on a replay of its own that stops after the answer (CaptureRun.questions),
            // from the state before the answer, as the reader's browser runs it. Here they are only read for what is wrong
            // with them as written.
            Outcome caseFailed = null;
            boolean runsCases = allCases || question != null && question.cases() && question.snippet() == index;
            java.util.Set<String> caseNames = new java.util.HashSet<>();
            for (int c = index + 1; c < snippets.size() && snippets.get(c).directives().caseName() != null && caseFailed == null; c++) {
                Snippet dataSet = snippets.get(c);
                Outcome written = !caseNames.add(dataSet.directives().caseName())
                        ? caseFailure(dataSet, "is named twice; give each case of an answer its own name (the reader is told it by name)")
                        : caseAsWritten(dataSet, snippet);
                if (written != null) {
                    outcomes[c] = written;
                } else if (runsCases) {
                    reports.ranElsewhere(dataSet.sql());
                    outcomes[c] = runCase(dataSet, snippet, claimsPlans);
                } else {
                    outcomes[c] = CaptureRun.caseWaiting(dataSet);
                    caseAnswers.add(index);
                }
                caseFailed = outcomes[c].status() == Outcome.Status.FAILED ? outcomes[c] : null;
            }
            if (caseFailed != null && caseAnswers.remove(index)) {
                // Nothing of this answer runs: the cases written before the failing one are not asked on a replay either.
                for (int c = index + 1; snippets.get(c) != caseFailed.snippet(); c++) {
                    outcomes[c] = CaptureRun.caseNotRun(snippets.get(c), "not run: the case at " + caseFailed.snippet().location()
                            + " failed");
                }
            }
            if (caseFailed != null) {
                failed = caseFailed;
                outcomes[index] = new Outcome(snippet, Outcome.Status.SKIPPED, new Failure("not run: its case at "
                        + caseFailed.snippet().location() + " failed", null, snippet.location(), snippet.lineAt(0), null, null),
                        List.of(), List.of(), null, null, Duration.ZERO);
                continue;
            }
            ran.add(snippet);
            conditions.before(snippet);
            boolean inTransaction = inTransaction();
            Outcome outcome;
            SnippetRun run = null;
            // What the server parsed for the page's statements here: the snippet's, or every session's of the scenario.
            List<ParseCapture> parsedHere;
            if (snippet.scenario() != null) {
                reports.ranElsewhere(snippet.sql());
                scenarioSlots.acquireUninterruptibly();
                try {
                    // Every other scenario runs as on the real run, looking at nothing: only the question's own looks, once.
                    ScenarioRunner runner = asker != null && question.snippet() == index ? asker : scenarios;
                    outcome = runner.run(snippet);
                    parsedHere = runner.parsed();
                    trace.record(index, parsedHere);
                    if (runner.sequenceQuestions() > 0) {
                        sequenceQuestions.put(index, runner.sequenceQuestions());
                    }
                    if (runner == asker) {
                        foundSequence = runner.foundSequence();
                    }
                } finally {
                    scenarioSlots.release();
                    // The scenario's setup and teardown ran on this session without this runner seeing their parse.
                    orders.forget();
                }
                stoppedPage = !outcome.passed();
                // Inside a transaction the page's own changes are not yet anyone else's to read: nothing is recorded.
                if (outcome.passed() && outcome.transcript() != null && !inTransaction()) {
                    endedOutsideTransaction.add(index);
                    if (captureAfter.contains(index)) {
                        // A capture run's own database: what it left, for the browser to restore in its place (CaptureRun).
                        StateAfter after = StateCapture.read(kensho);
                        if (after != null) {
                            outcome = new Outcome(snippet, outcome.status(), outcome.failure(), outcome.results(), outcome.assertions(),
                                    outcome.plan(), outcome.transcript().withAfter(after), outcome.duration());
                        }
                    }
                }
            } else {
                run = new SnippetRun(index, snippet, conditions.standing(), inTransaction ? transactionOpenedBy : null);
                outcome = run.run();
                parsedHere = run.parsed;
                trace.record(index, run.parsed);
                if (SqlSplitter.split(snippet.sql(), standardConformingStrings()).stream()
                        .anyMatch(statement -> SqlLexer.firstWord(statement.text(), standardConformingStrings()).equals("discard"))) {
                    trace.plansDiscarded(); // the page's own DISCARD PLANS or ALL (RunTrace)
                    if (!snippet.directives().hidden() && !snippet.directives().setup()) {
                        cachedPlansOf = null; // dropped by a statement a reader sees
                    }
                }
                if (question != null && question.snippet() == index && question.plan() != null) {
                    // A capture run: the real run's claim, judged on this database at the same point (CaptureRun.answered).
                    verdict = question.plan().judge(catalog);
                    // This replay's own plan of the claim, judged alike: another draw of a page that draws (SecondDraw).
                    PlanVerdict.Pending own = pendingPlans.get(index);
                    ownVerdict = own == null ? null : own.judge(catalog);
                    catalog.close();
                }
                stoppedPage = !outcome.passed() && !run.ranAsWritten;
            }
            boolean clockHere = SecondDraw.readsClock(snippet, parsedHere, treeCatalog);
            readsClock |= clockHere;
            String drawnHere = SecondDraw.drawnIn(snippet, parsedHere, treeCatalog);
            if (drawnHere == null && clockHere) {
                // now()'s microseconds are a coin too (red team helper-92): a page reading the clock runs twice as well
                drawnHere = "the clock at " + snippet.location();
            }
            if (drawnHere != null) {
                draws.put(index, drawnHere);
            }
            KenshoSettingsReaders.Scan scanned = KenshoSettingsReaders.scan(snippet.sql(), claimsPlans);
            // Any DROP may take a table along (CASCADE through a type, a function, a collation), so every one counts.
            if (parsedHere.stream().anyMatch(p -> p.mayDrop(AutovacuumActivity.HIDES_TABLES))) {
                // Dropped: the statistics no longer show what autovacuum did to it (AutovacuumActivity).
                hidesTables = true;
            }
            List<TreeReads.Seen> seen = parsedHere.stream().map(ParseCapture::seen).toList();
            // What a snippet of plain SELECTs only showed: this snippet's claim cannot rest on it, and no later one reads it.
            // Only outside a transaction block: inside one, a statement that fails for a reader (a division by what the
            // build's server counted) would abort the block, and every later statement of it would differ.
            // Not a statement that failed while it ran: a reader's run of it may not fail at all, and keep what it read.
            // One that failed before the server reported any tree of it failed in parse analysis, on the statement's text
            // and the page's catalog alone (MERGE … WHEN MATCHED AND t.xmin = …): it read nothing, and fails for a reader too.
            // So did one the rewriter refused (DELETE FROM a view that cannot take it): it read the catalog and its tree only.
            boolean ranNothing = run != null && seen.size() == 1 && (run.failedBeforeAnalysed && seen.get(0).trees.isEmpty()
                    && seen.get(0).rewritten.isEmpty() || run.failedInRewrite);
            boolean shows = TreeReads.onlyShow(seen, treeCatalog);
            boolean onlyShows = !inTransaction && !inTransaction() && (shows || ranNothing);
            KenshoSettingsReaders.Read shownHere = null;
            KenshoSettingsReaders.Read textRead = readsKenshosSettings == null ? scanned.read() : null;
            if (textRead != null && onlyShows && (shows || !resolvedByName(textRead.shared()))) {
                // Found by the text gate as by the tree gate (Found#shownOnly): what such a statement shows, nothing keeps,
                // whatever it read (a counter, a list of the whole server's, a setting of Kensho's).
                shownHere = textRead;
            } else if (textRead != null) {
                readsKenshosSettings = snippet;
                read = textRead;
            }
            java.util.Set<String> spelledHere = scanned.spelled();
            spelled.addAll(spelledHere);
            if (readsKenshosSettings == null) {
                // The backstop: what the server's own parse trees show read that the text never names (TreeReads).
                KenshoSettingsReaders.Read built = TreeReads.unspelled(seen, treeCatalog, spelled, claimsPlans);
                // The judge of what the text gate let pass: restrictions, Kensho's own objects, derived counters (ParseTreeGate).
                ParseTreeGate.Found judged = built == null ? TreeReads.judged(seen, treeCatalog, !(ranNothing && onlyShows)) : null;
                if (built != null) {
                    readsKenshosSettings = snippet;
                    read = new KenshoSettingsReaders.Read(built.what() + ", read by a statement the page built at run time, in the "
                            + "snippet at " + snippet.location(), RUN_TIME, built.shared());
                } else if (judged != null && (judged.shownOnly() || ranNothing && !resolvedByName(judged.shared())) && onlyShows) {
                    shownHere = shownHere != null ? shownHere : new KenshoSettingsReaders.Read(judged.what() + ", in the snippet at " + snippet.location(), RUN_TIME,
                            judged.shared());
                } else if (judged != null) {
                    readsKenshosSettings = snippet;
                    read = new KenshoSettingsReaders.Read(judged.what() + ", in the snippet at " + snippet.location(), RUN_TIME,
                            judged.shared());
                } else if (run != null && run.failedUnreported) {
                    // It failed unreported after the page turned the reports off: it may have run, and failed on what it read.
                    readsKenshosSettings = snippet;
                    read = new KenshoSettingsReaders.Read("the statement that failed in the snippet at " + snippet.location()
                            + " was not reported: " + ParseCapture.SILENCED, RUN_TIME, null);
                    untold = true;
                } else if (parsedHere.stream().anyMatch(ParseCapture::blind)) {
                    // Without its tree nothing tells what the statement read or stored (a counter, a setting of Kensho's): no
                    // claim from here on rests on it, whatever names the page spells.
                    readsKenshosSettings = snippet;
                    SourceLocation at = run != null && run.treeless != null ? snippet.locate(run.treeless.offset()) : snippet.location();
                    read = new KenshoSettingsReaders.Read("the statement at " + at + " ran unreported: " + ParseCapture.SILENCED,
                            RUN_TIME, null);
                    untold = true;
                }
            }
            Snippet readBy = readsKenshosSettings != null ? readsKenshosSettings : shownHere != null ? snippet : null;
            KenshoSettingsReaders.Read why = readsKenshosSettings != null ? read : shownHere;
            if (readBy != null && outcome.passed() && claims(snippet)) {
                // What the page reads of Kensho's session settings, or of the server beyond the page's own database and
                // session, is Kensho's doing (or another page's): a reader's session shows other values.
                // The reading snippet fails at the read; a later claim may rest on what it stored, and fails at its own line.
                boolean runTime = why.offset() == RUN_TIME;
                SourceLocation at = runTime ? readBy.location() : readBy.locate(why.offset());
                String where = runTime ? "" : ", at " + at;
                int offset = runTime ? 0 : why.offset();
                boolean reader = readBy == snippet;
                String message = cannotBeChecked(why, where, untold, claimsPlans);
                Failure reason = new Failure(message, null, reader ? at : snippet.location(),
                        reader ? snippet.lineAt(offset) : snippet.lineAt(0), null, null);
                outcome = new Outcome(snippet, Outcome.Status.FAILED, reason, outcome.results(), outcome.assertions(), outcome.plan(),
                        outcome.transcript(), outcome.duration());
            }
            String counter = snippet.expectedRows() != null ? ServerWideReaders.counterColumn(outcome.results()) : null;
            if (counter != null) {
                // A value the server's shared counters gave (a new object's OID, a transaction ID): the text may not name it.
                // Whether or not the rows matched here, they cannot be checked, and that is what the author needs to know.
                Failure reason = new Failure("this claim cannot be checked: the page reads " + ServerWideReaders.Shared.COUNTERS.what
                        + " (" + counter + ", at " + snippet.location() + "; " + ServerWideReaders.Shared.COUNTERS.why + ")", null,
                        snippet.location(), snippet.lineAt(0), null, null);
                outcome = new Outcome(snippet, Outcome.Status.FAILED, reason, outcome.results(), outcome.assertions(), outcome.plan(),
                        outcome.transcript(), outcome.duration());
            }
            outcomes[index] = outcome;
            boolean stillInTransaction = inTransaction();
            transactionOpenedBy = !stillInTransaction ? null : inTransaction ? transactionOpenedBy : snippet;
            conditions.ran(snippet);
            noteHiddenSettings(snippet);
            if (stoppedPage) {
                failed = outcome;
            }
            if (index == lastCaptured) {
                break; // a capture run wants nothing after its last scenario or its question
            }
        }
        return Arrays.asList(outcomes);
    }

    /** Why a claim resting on {@code why} cannot be checked; {@code where} is ", at LOCATION" or empty. */
    private static String cannotBeChecked(KenshoSettingsReaders.Read why, String where, boolean untold, boolean claimsPlans) {
        return untold
                ? "this claim cannot be checked: the server did not report what a statement of the page read at run time ("
                        + why.what() + ")"
                : why.shared() == null
                ? "this claim cannot be checked: the page reads a setting Kensho gives its session and a reader's session "
                        + "does not have (" + why.what() + where + "; Kensho sets " + KenshoSettingsReaders.described(claimsPlans) + ")"
                : "this claim cannot be checked: the page reads " + why.shared().what + " (" + why.what() + where + "; "
                        + why.shared().why + ")";
    }

    /**
     * What a case's verdict would rest on that the reader's run would not give, as a failure at the case, or null. The same
     * gates as a snippet's claim: the data set's text (a setting of Kensho's, a counter, a list of the whole server's), the
     * trees the server reported for the data set and the answer run on it, a statement that ran unreported, a counter's
     * column in the rows compared. Stricter than a snippet's: nothing a data set reads is "only shown", since it may be
     * stored for the answer to return.
     */
    private Failure caseReads(Snippet dataSet, List<ParseCapture> parsed, boolean ranUnreported, List<ResultTable> compared,
                              boolean claimsPlans) {
        String label = "case \"" + dataSet.directives().caseName() + "\": ";
        KenshoSettingsReaders.Scan scanned = KenshoSettingsReaders.scan(dataSet.sql(), claimsPlans);
        if (scanned.read() != null) {
            KenshoSettingsReaders.Read read = scanned.read();
            SourceLocation at = dataSet.locate(read.offset());
            return new Failure(label + cannotBeChecked(read, ", at " + at, false, claimsPlans), null, at, dataSet.lineAt(read.offset()),
                    null, null);
        }
        List<TreeReads.Seen> seen = parsed.stream().map(ParseCapture::seen).toList();
        java.util.Set<String> names = new java.util.HashSet<>(spelled);
        names.addAll(scanned.spelled());
        String where = ", in the case at " + dataSet.location();
        KenshoSettingsReaders.Read read = null;
        boolean untold = false;
        KenshoSettingsReaders.Read built = TreeReads.unspelled(seen, treeCatalog, names, claimsPlans);
        ParseTreeGate.Found judged = built == null ? TreeReads.judged(seen, treeCatalog, true) : null;
        if (built != null) {
            read = new KenshoSettingsReaders.Read(built.what() + ", read by a statement the page built at run time" + where, RUN_TIME,
                    built.shared());
        } else if (judged != null) {
            read = new KenshoSettingsReaders.Read(judged.what() + where, RUN_TIME, judged.shared());
        } else if (ranUnreported || parsed.stream().anyMatch(ParseCapture::blind)) {
            read = new KenshoSettingsReaders.Read("a statement of the case at " + dataSet.location() + " ran unreported: "
                    + ParseCapture.SILENCED, RUN_TIME, null);
            untold = true;
        }
        if (read != null) {
            return new Failure(label + cannotBeChecked(read, "", untold, claimsPlans), null, dataSet.location(), dataSet.lineAt(0),
                    null, null);
        }
        String counter = ServerWideReaders.counterColumn(compared);
        if (counter != null) {
            return new Failure(label + "this claim cannot be checked: the page reads " + ServerWideReaders.Shared.COUNTERS.what + " ("
                    + counter + where + "; " + ServerWideReaders.Shared.COUNTERS.why + ")", null, dataSet.location(),
                    dataSet.lineAt(0), null, null);
        }
        return null;
    }

    /**
     * Whether what a gate found is resolved by name while a statement is parsed, analysed and rewritten: a role (a literal's
     * regrole input, a GRANT's grantee), Kensho's own objects, the environment, a setting of Kensho's session. A statement
     * that failed there (ScriptRunner's ranNothing) may have failed on it, and a reader's run of it succeed and keep what it
     * did; whereas a counter, a list of the server's or a statistic is read only by a statement that runs.
     */
    private static boolean resolvedByName(ServerWideReaders.Shared shared) {
        return shared == null || shared == ServerWideReaders.Shared.ROLES || shared == ServerWideReaders.Shared.GUARD
                || shared == ServerWideReaders.Shared.ENVIRONMENT;
    }

    /** A parallel plan's node in an EXPLAIN's text, as the text and JSON, YAML or XML formats show it. */
    private static final java.util.regex.Pattern PARALLEL = java.util.regex.Pattern.compile(
            "Gather Merge|Gather|Workers Planned|Parallel (?:Seq|Index|Bitmap|Hash|Append)[A-Za-z ]*|\"?Parallel.Aware\"?[:>]\\s*\"?true");

    /** The first parallel node an EXPLAIN's rows show (a Gather, a parallel scan), or null. */
    private static String parallelNode(ResultTable explained) {
        for (List<String> row : explained.rows()) {
            for (String cell : row) {
                java.util.regex.Matcher m = cell == null ? null : PARALLEL.matcher(cell);
                if (m != null && m.find()) {
                    return m.group().trim();
                }
            }
        }
        return null;
    }

    /** Transaction control a data set may not hold: it runs inside the transaction Kensho rolls back. */
    private static final java.util.Set<String> TRANSACTION_CONTROL = java.util.Set.of("begin", "start", "commit", "end", "rollback",
            "abort", "savepoint", "release", "prepare");

    private static Outcome caseFailure(Snippet dataSet, String problem) {
        return new Outcome(dataSet, Outcome.Status.FAILED, new Failure("case \"" + dataSet.directives().caseName() + "\" " + problem,
                null, dataSet.location(), dataSet.lineAt(0), null, null), List.of(), List.of(), null, null, Duration.ZERO);
    }

    /**
     * What is wrong with a case as written, where it stands, as a failure at it, or null: told before anything runs, on every
     * run of the page, so that the real run stops at it as the replay that would run it does.
     */
    private Outcome caseAsWritten(Snippet dataSet, Snippet answer) {
        if (answer.expectedRows() == null || answer.directives().caseName() != null) {
            return caseFailure(dataSet, "is a data set for the snippet right before it, which compares no rows: put the case after "
                    + "the model answer's ```sql fence and its ```rows");
        }
        if (dataSet.expectedRows() == null) {
            return caseFailure(dataSet, "needs the rows the model answer returns on its data: write a ```rows fence right after it");
        }
        if (!answer.directives().parameters().isEmpty()) {
            // The browser runs a reader's answer as written, on the page's data and on each case: bound here, the model answer
            // would be checked as no reader's answer runs (red team helper-96: a case's rows named kensho_case_p1).
            return caseFailure(dataSet, "is a data set for a model answer with $n parameters, and a reader's answer runs as "
                    + "written, without them: write the values into the model answer");
        }
        for (SqlStatement statement : SqlSplitter.split(dataSet.sql(), standardConformingStrings())) {
            String first = SqlLexer.firstWord(statement.text(), standardConformingStrings());
            if (TRANSACTION_CONTROL.contains(first)) {
                return new Outcome(dataSet, Outcome.Status.FAILED, new Failure("case \"" + dataSet.directives().caseName() + "\": its "
                        + "data set runs inside a transaction Kensho rolls back, so it may not control transactions ("
                        + first.toUpperCase(java.util.Locale.ROOT) + ")", null, dataSet.locate(statement.offset()),
                        dataSet.lineAt(statement.offset()), null, null), List.of(), List.of(), null, null, Duration.ZERO);
            }
        }
        if (inTransaction()) {
            return caseFailure(dataSet, "runs in a transaction Kensho opens and rolls back, and the page has a transaction open "
                    + "here; end it before the model answer");
        }
        return null;
    }

    /**
     * Runs the model answer on one named data set, on a replay of the page that stops after the answer ({@link
     * CaptureRun#questions}): in a transaction of Kensho's, the data set's statements, then the answer's, its last result
     * compared with the case's own rows; then the transaction is rolled back. The cases of one answer run one after the
     * other, then the answer itself, as a reader's browser runs them; what a case leaves that a rollback does not undo (a
     * sequence's value, a prepared statement, a cursor's position) is judged by the answer's own claim after them
     * ({@link CaptureRun#answered}), and never reaches the real run, which runs no case.
     */
    private Outcome runCase(Snippet dataSet, Snippet answer, boolean claimsPlans) {
        String name = dataSet.directives().caseName();
        long started = System.nanoTime();
        List<String> before;
        try {
            before = sessionState();
            if (!before.get(2).isEmpty()) {
                return caseFailure(dataSet, "runs while the page holds the cursor(s) " + before.get(2) + " open; a case may move "
                        + "one, and neither Kensho's rollback nor anything Kensho can read tells, so the reader's query, which the "
                        + "browser runs after the cases in the same session, could fetch otherwise: close it before the exercise");
            }
            executeOwn("BEGIN");
        } catch (SQLException e) {
            return caseFailure(dataSet, "could not be started: " + e.getMessage());
        }
        SnippetRun dataRun = new SnippetRun(-1, dataSet.with(Directives.NONE, null), List.of(), null);
        SnippetRun answerRun = new SnippetRun(-1, answer.with(answer.directives().rowsOnly(), dataSet.expectedRows()), List.of(), null);
        Outcome data;
        Outcome run;
        try {
            data = dataRun.run();
            run = data.passed() ? answerRun.run() : null;
        } finally {
            try {
                executeOwn("ROLLBACK");
            } catch (SQLException ignored) {
                // A broken connection fails the page with the next statement.
            }
            orders.forget();
        }
        if (!data.passed()) {
            Failure f = data.failure();
            return new Outcome(dataSet, Outcome.Status.FAILED, new Failure("case \"" + name + "\": its data set fails: " + f.message(),
                    f.sqlState(), f.location(), f.sourceLine(), f.detail(), f.hint()), data.results(), data.assertions(), null, null, data.duration());
        }
        if (!run.passed()) {
            Failure f = run.failure();
            // A server error points into the answer; a comparison points at the case, whose rows it compared.
            boolean server = f.sqlState() != null;
            return new Outcome(dataSet, Outcome.Status.FAILED, new Failure("case \"" + name + "\": the model answer " + (server
                    ? "fails on its data: " : "does not return its rows: ") + f.message(), f.sqlState(),
                    server ? f.location() : dataSet.location(), server ? f.sourceLine() : dataSet.lineAt(0), f.detail(), f.hint()),
                    run.results(), run.assertions(), null, null, run.duration());
        }
        ResultTable last = run.results().get(run.results().size() - 1);
        if (last.totalRows() == 0) {
            return caseFailure(dataSet, "gives the model answer no rows, so a query that returns nothing would pass it; give it "
                    + "data the answer finds");
        }
        try {
            List<String> after = sessionState();
            for (int i = 0; i < before.size(); i++) {
                if (!before.get(i).equals(after.get(i))) {
                    return caseFailure(dataSet, "leaves the session changed after Kensho's rollback (" + SESSION_STATE_NAMES.get(i)
                            + " before: [" + before.get(i) + "], after: [" + after.get(i) + "]), and the browser runs the reader's "
                            + "query after the cases in the same session, where a right query could be judged wrong and a wrong one "
                            + "right; " + (i == 0 ? "give explicit values instead of a sequence's" : "a case may leave nothing a "
                            + "rollback does not undo"));
                }
            }
        } catch (SQLException e) {
            return caseFailure(dataSet, "could not be checked: " + e.getMessage());
        }
        List<ParseCapture> caseParsed = new ArrayList<>(dataRun.parsed);
        caseParsed.addAll(answerRun.parsed);
        String effect = sessionEffect(dataSet.sql(), caseParsed);
        if (effect != null) {
            return caseFailure(dataSet, "calls " + effect + "(), whose effect on the session (a sequence's value, currval, the "
                    + "seed of random(), a session's advisory lock) outlives Kensho's rollback, and the browser runs the reader's "
                    + "query after the cases in the same session; give explicit values");
        }
        Failure unchecked = caseReads(dataSet, caseParsed, dataRun.failedUnreported || answerRun.failedUnreported, run.results(),
                claimsPlans);
        if (unchecked != null) {
            return new Outcome(dataSet, Outcome.Status.FAILED, unchecked, run.results(), run.assertions(), null, null, run.duration());
        }
        return new Outcome(dataSet, Outcome.Status.PASSED, null, run.results(), run.assertions(), null, null,
                Duration.ofNanos(System.nanoTime() - started));
    }

    private static final List<String> SESSION_STATE_NAMES = List.of("sequences", "prepared statements", "cursors", "advisory locks");

    /**
     * Functions whose effect outlives a rollback in the session (red team helper-84, helper-85): a sequence's value and the
     * session's currval and lastval, the seed of random(), session-level advisory locks. The browser runs a reader's query
     * after the cases in the same session, so what a case left would reach it (a serial column's default on a case's
     * INSERT made a wrong query right: helper-85).
     */
    private static final java.util.Set<String> SESSION_EFFECTS = java.util.Set.of("nextval", "setval", "setseed", "random",
            "random_normal", "pg_advisory_lock", "pg_advisory_lock_shared", "pg_try_advisory_lock", "pg_try_advisory_lock_shared",
            "pg_advisory_unlock", "pg_advisory_unlock_shared", "pg_advisory_unlock_all");

    /**
     * The first function of {@link #SESSION_EFFECTS} the case's statements call, as the server's trees show it (the text's
     * own calls, a function's body run, SQL built at run time, a column's default on INSERT), or its text calls in a body it
     * defines and does not run; null when none.
     */
    private String sessionEffect(String text, List<ParseCapture> parsed) {
        for (ParseCapture capture : parsed) {
            for (long function : capture.seen().allFunctions()) {
                String name = treeCatalog.functions().get(function);
                if (name != null && SESSION_EFFECTS.contains(name)) {
                    return name;
                }
            }
        }
        for (SqlLexer.Token token : SqlLexer.tokens(text, standardConformingStrings())) {
            String word = token.text().toLowerCase(java.util.Locale.ROOT);
            if (SESSION_EFFECTS.contains(word)) {
                return word;
            }
        }
        return null;
    }

    /**
     * What a rollback leaves as it was: sequences' values, prepared statements, open cursors, session-level advisory locks.
     * Sequences are read by Kensho's superuser where the run has one (a case's replay): pg_sequences shows a NULL
     * last_value to a role without SELECT or USAGE on the sequence (red team helper-86: a REVOKE hid an identity column's
     * draw), and the value is the database's, not the session's.
     */
    private List<String> sessionState() throws SQLException {
        String asSuperuser = null;
        if (kensho != null) {
            try (Connection reader = kensho.stateReader(); java.sql.Statement statement = reader.createStatement();
                 java.sql.ResultSet rs = statement.executeQuery(SEQUENCES_STATE)) {
                asSuperuser = rs.next() ? String.valueOf(rs.getString(1)) : "";
            }
        }
        List<String> state = new ArrayList<>(sessionStateOnThePagesSession());
        if (asSuperuser != null) {
            state.set(0, asSuperuser);
        }
        return state;
    }

    /** Every sequence's last value, as one text: what a case's draw changes. */
    static final String SEQUENCES_STATE = "SELECT pg_catalog.string_agg(pg_catalog.format('%I.%I=%s', schemaname, sequencename, "
            + "last_value), ', ' ORDER BY schemaname, sequencename) FROM pg_catalog.pg_sequences";

    /**
     * What a rollback leaves, read on the page's session (prepared statements, cursors and advisory locks are its own):
     * names are pg_catalog's ({@link CatalogSql}), so that none of the page's functions runs in the read.
     */
    static final String PAGE_SESSION_STATE = "SELECT (" + SEQUENCES_STATE + "),"
            + " (SELECT pg_catalog.string_agg(pg_catalog.format('%s: %s %s', name, statement, parameter_types), ', ' ORDER BY name)"
            + " FROM pg_catalog.pg_prepared_statements),"
            + " (SELECT pg_catalog.string_agg(name, ', ' ORDER BY name) FROM pg_catalog.pg_cursors),"
            + " (SELECT pg_catalog.string_agg(pg_catalog.format('%s/%s/%s %s', classid, objid, objsubid, mode), ', '"
            + " ORDER BY classid, objid, objsubid, mode) FROM pg_catalog.pg_locks WHERE locktype" + CatalogSql.EQ + "'advisory'"
            + " AND pid" + CatalogSql.EQ + "pg_catalog.pg_backend_pid())";

    private List<String> sessionStateOnThePagesSession() throws SQLException {
        ResultTable table = executeOwn(PAGE_SESSION_STATE);
        List<String> row = table.rows().get(0);
        return row.stream().map(v -> v == null ? "" : v).toList();
    }

    /**
     * A hidden or setup snippet may leave plans cached under settings it then reset (a prepared statement, a function's
     * queries), and a plan claim served by one would hold for a reason a reader cannot see. Kensho does not discard them:
     * a reader's run replays the hidden snippets too and keeps what they cached, and a DISCARD PLANS of Kensho's would
     * change what the page's statements do (red team helper-94: a prepared statement's query, parsed again after it,
     * picked an overload of a function made since; a reader's keeps the one it was prepared with). Plan claims after such
     * a snippet fail instead ({@link SnippetRun#checkPlan}), unless the page drops the plans itself.
     */
    private void noteHiddenSettings(Snippet snippet) {
        if ((snippet.directives().hidden() || snippet.directives().setup()) && changesSettings(snippet.sql(), 0)) {
            cachedPlansOf = snippet;
        }
    }

    /**
     * The settings a plan can depend on, by name: the planner's method switches and costs, its memory, its search limits,
     * parallel query's sizes, the statistics target ANALYZE takes, how a prepared statement is planned; {@code all} for
     * RESET ALL. Named positively, so that a hidden snippet's data ('Reset password', an UPDATE of a column called
     * session) does not count (red team helper-97).
     */
    private static final java.util.regex.Pattern PLANNER_SETTING = java.util.regex.Pattern.compile("enable_.*|.*_cost|work_mem"
            + "|hash_mem_multiplier|effective_cache_size|effective_io_concurrency|default_statistics_target|geqo.*"
            + "|from_collapse_limit|join_collapse_limit|constraint_exclusion|cursor_tuple_fraction|plan_cache_mode|parallel_.*"
            + "|max_parallel_workers_per_gather|min_parallel_.*|force_parallel_mode|debug_parallel_query|recursive_worktree_factor"
            + "|all");

    /**
     * Whether SQL may change a setting a plan can depend on: a SET or RESET statement, set_config(), a function's or
     * procedure's SET clause ({@code SET work_mem = '1MB'}, {@code SET x TO …}, {@code SET x FROM CURRENT}); strings and
     * function bodies are read as SQL in their turn. An UPDATE's or an ON CONFLICT's SET is not one, nor a setting no plan
     * depends on ({@link #PLANNER_SETTING}).
     */
    static boolean changesSettings(String sql, int depth) {
        List<SqlLexer.Token> tokens = SqlLexer.tokens(sql).stream().filter(SqlLexer.Token::significant).toList();
        for (int i = 0; i < tokens.size(); i++) {
            SqlLexer.Token token = tokens.get(i);
            String word = token.word();
            boolean statementStart = i == 0 || tokens.get(i - 1).kind() == SqlLexer.Kind.SEMICOLON;
            if (word.equals("set_config")) {
                boolean literal = i + 2 < tokens.size() && tokens.get(i + 1).kind() == SqlLexer.Kind.OPEN_PAREN
                        && tokens.get(i + 2).kind() == SqlLexer.Kind.STRING;
                if (!literal || plannerInput(SqlLexer.value(tokens, i + 2))) {
                    return true;
                }
            } else if (word.equals("set") && i + 2 < tokens.size()
                    && (tokens.get(i + 1).word().equals("local") || tokens.get(i + 1).word().equals("session"))) {
                // SET LOCAL / SET SESSION wherever it stands: a PL/pgSQL body's BEGIN SET LOCAL …, THEN SET LOCAL …
                // (red team helper-96); SET SESSION AUTHORIZATION and CHARACTERISTICS shape no plan.
                if (plannerInput(SqlLexer.value(tokens, i + 2))) {
                    return true;
                }
            } else if (statementStart && (word.equals("set") || word.equals("reset"))) {
                int name = i + 1 < tokens.size() && (tokens.get(i + 1).word().equals("local") || tokens.get(i + 1).word().equals("session"))
                        && word.equals("set") ? i + 2 : i + 1;
                if (name >= tokens.size() || plannerInput(SqlLexer.value(tokens, name))) {
                    return true;
                }
            } else if (word.equals("set") && i + 2 < tokens.size() && tokens.get(i + 1).kind() == SqlLexer.Kind.WORD
                    && (tokens.get(i + 2).text().equals("=") || tokens.get(i + 2).word().equals("to") || tokens.get(i + 2).word().equals("from"))) {
                boolean update = false;
                for (int back = Math.max(0, i - 6); back < i; back++) {
                    update |= tokens.get(back).word().equals("update");
                }
                if (!update && plannerInput(tokens.get(i + 1).word())) {
                    return true;
                }
            }
            if ((token.kind() == SqlLexer.Kind.STRING || token.kind() == SqlLexer.Kind.DOLLAR_STRING) && depth < 3
                    && changesSettings(SqlLexer.value(tokens, i), depth + 1)) {
                return true;
            }
        }
        return false;
    }

    private static boolean plannerInput(String setting) {
        return PLANNER_SETTING.matcher(setting.toLowerCase(java.util.Locale.ROOT)).matches();
    }

    /** Whether the page's transaction has failed, as the driver last saw it (nothing is asked of the server). */
    private boolean aborted() {
        try {
            return connection.unwrap(BaseConnection.class).getTransactionState() == TransactionState.FAILED;
        } catch (SQLException e) {
            return true;
        }
    }

    private boolean inTransaction() {
        try {
            return connection.unwrap(BaseConnection.class).getTransactionState() != TransactionState.IDLE;
        } catch (SQLException e) {
            return false;
        }
    }

    /** The state of one snippet while it runs. */
    private final class SnippetRun {
        /** The snippet's index on the page (-1 for a case's runs, which claim no plan). */
        private final int index;
        private final Snippet snippet;
        private final Directives directives;
        private final List<RunConditions.Condition> standing;
        private final Snippet transactionOpenedBy;
        private final List<ResultTable> results = new ArrayList<>();
        private final List<Assertion> assertions = new ArrayList<>();
        private final long started = System.nanoTime();
        private String plan;
        private Outcome finished;
        /** Every statement ran as written, without an error the author did not expect: later snippets may go on. */
        boolean ranAsWritten;
        /** The parse captures of the page's own statements as sent (Kensho's own statements get none), in order. */
        final List<ParseCapture> parsed = new ArrayList<>();
        /**
         * The statement that failed did so in parsing or parse analysis: the server reported no tree of it while its
         * reports were known to be on ({@link ParseReports}), and the error is not a cancel (a timeout, a signal). It ran
         * nothing, on the statement's text and the page's catalog alone.
         */
        boolean failedBeforeAnalysed;
        /**
         * The statement that failed did so in rewriting: the server reported its parse tree and no tree after rewriting while
         * those reports were known to be on, the error raised by the rewriter (rewriteHandler.c) for the statement itself (no
         * CONTEXT). It ran nothing: rewriting reads the catalog and the statement's tree, never a row or a function's result.
         */
        boolean failedInRewrite;
        /**
         * The statement that failed did so with no tree of it reported while the reports may have been off: it may have run
         * and failed on what it read, and nothing tells what. A syntax error (raised by the scanner or grammar) is not.
         */
        boolean failedUnreported;
        /** The first of them that ran to its end without the server reporting its parse tree, or null. */
        SqlStatement treeless;

        /**
         * @param standing            conditions in effect when the snippet starts
         * @param transactionOpenedBy the snippet that opened the transaction this one starts in, or null
         */
        SnippetRun(int index, Snippet snippet, List<RunConditions.Condition> standing, Snippet transactionOpenedBy) {
            this.index = index;
            this.snippet = snippet;
            this.directives = snippet.directives();
            this.standing = standing;
            this.transactionOpenedBy = transactionOpenedBy;
        }

        Outcome run() {
            boolean conforming = standardConformingStrings();
            List<SqlStatement> statements = new ArrayList<>(SqlSplitter.split(snippet.sql(), conforming));
            if (statements.isEmpty()) {
                return fail("the snippet holds no SQL statement", null, null);
            }
            if (!directives.parameters().isEmpty() && statements.size() != 1) {
                return fail("parameters ($1 … $n) bind to one statement, and this snippet has " + statements.size(), null, null);
            }
            if (directives.expectError() != null && snippet.expectedRows() != null) {
                return fail("expected rows cannot be compared under expect-error: the failing statement returns no rows", null, null);
            }
            stateConditions();
            Target target = directives.parameters().isEmpty() ? null : prepare(statements.get(0));
            if (target == null && !directives.parameters().isEmpty()) {
                return finished;
            }
            boolean capture = directives.plan() != null || directives.showPlan();
            CapturedPlans captured = null;
            String captureProblem = null;
            SqlStatement last = null;
            ParseCapture lastParse = null;
            try {
                for (int i = 0; i < statements.size(); i++) {
                    SqlStatement statement = statements.get(i);
                    boolean isLast = i == statements.size() - 1;
                    String sent = isLast && target != null ? target.sql : statement.sent();
                    PlanCapture plans = isLast && capture ? new PlanCapture() : null;
                    if (plans != null) {
                        captureProblem = planless(statement);
                        if (captureProblem != null) {
                            plans = null;
                        }
                    }
                    ParseCapture parses = new ParseCapture(sent);
                    parsed.add(parses);
                    if (isLast) {
                        lastParse = parses;
                    }
                    boolean parseOn = reports.parseOn();
                    boolean rewrittenOn = reports.rewrittenOn();
                    boolean inBlock = inTransaction();
                    try {
                        // Only the rows a claim compares are kept whole; the others are shown, so their first ones are enough.
                        ResultTable table = execute(sent, plans, parses, isLast && snippet.expectedRows() != null);
                        if (table != null) {
                            results.add(isLast ? table.withStatement(statement.text()) : table);
                        }
                    } catch (SQLException e) {
                        failedAt(sent, parses, e, parseOn, rewrittenOn, inBlock);
                        return failedStatement(e, statement, isLast && target != null ? target.shift : 0, isLast);
                    } finally {
                        if (plans != null) {
                            try {
                                captured = plans.result(sent);
                            } catch (IllegalStateException unreadable) {
                                captureProblem = "the plans the server reported could not be read (" + unreadable.getMessage() + ")";
                            }
                        }
                    }
                    reports.ran(sent, parses, true, inBlock, inTransaction());
                    if (isLast) {
                        last = statement;
                    }
                    if (treeless == null && !parses.reported()) {
                        treeless = statement;
                    }
                    // psql reads standard_conforming_strings after every statement: it decides how the rest is split.
                    boolean now = standardConformingStrings();
                    if (now != conforming && !isLast) {
                        conforming = now;
                        int from = statement.offset() + statement.text().length();
                        List<SqlStatement> rest = new ArrayList<>();
                        for (SqlStatement later : SqlSplitter.split(snippet.sql().substring(from), conforming)) {
                            rest.add(new SqlStatement(later.text(), later.offset() + from, later.sent()));
                        }
                        statements = new ArrayList<>(statements.subList(0, i + 1));
                        statements.addAll(rest);
                    }
                }
                ranAsWritten = true;
                if (directives.expectError() != null) {
                    return fail("expected the snippet to fail with SQLSTATE " + directives.expectError()
                            + ", but every statement succeeded", null, null);
                }
                assertions.add(Assertion.held("runs", Map.of("statements", Integer.toString(statements.size())),
                        "runs without error"));
                String sentLast = target != null ? target.sql : last.text();
                Outcome rows = checkRows(last, lastParse);
                if (rows != null) {
                    return rows;
                }
                Outcome planOutcome = checkPlan(captured, captureProblem, lastParse);
                if (planOutcome != null) {
                    return planOutcome;
                }
                return outcome(Outcome.Status.PASSED, null);
            } finally {
                if (target != null) {
                    target.release();
                }
            }
        }

        /**
         * Rows of an EXPLAIN are a plan claim written as a table: they fail as plan claims do when a
         * planner input was changed where the reader cannot see it.
         */
        private Outcome checkExplainedPlan(SqlStatement last) {
            boolean explain = SqlLexer.firstWord(last.text(), standardConformingStrings()).equals("explain");
            if (!explain) {
                return null;
            }
            String parallel = parallelNode(results.get(results.size() - 1));
            if (parallel != null) {
                assertions.add(new Assertion("parallel-plan", Map.of("node", parallel), "a plan without parallel workers", false));
                return fail("the rows are an EXPLAIN, a plan claim, and a reader's run cannot give it: the plan has " + parallel
                        + ", and the browser's PostgreSQL (PGlite) starts no worker processes, so its plans have none. Claim the plan "
                        + "a reader gets: SET max_parallel_workers_per_gather = 0 in a visible snippet before it", null, null);
            }
            List<String> unseen = plannerInputs.hidden(standing);
            if (unseen.isEmpty()) {
                return null;
            }
            assertions.add(new Assertion("planner-defaults", Map.of("settings", String.join(", ", unseen)),
                    "plan taken with the planner's default inputs", false));
            return fail("the rows are an EXPLAIN, a plan claim, and it cannot be checked: the plan was made with "
                    + String.join(", ", unseen) + "; a plan forced by planner inputs the reader cannot see says nothing about "
                    + "what PostgreSQL chooses. Remove the change (RESET it before this snippet) or make it in a visible snippet",
                    null, null);
        }

        /**
         * The conditions of this run a reader of the visible SQL would not assume, stated under the mark:
         * in English for reports, and as facts (the condition in SQL's words, the line of the snippet that
         * made it, whether readers see that snippet) for the theme to word in the page's language.
         */
        private void stateConditions() {
            List<String> stated = new ArrayList<>(RunConditions.describeAll(standing));
            List<String> items = new ArrayList<>(standing.stream().map(RunConditions.Condition::fact).toList());
            Snippet unread = conditions.unread();
            if (unread != null) {
                stated.add("the session's state after the snippet at " + unread.location() + " could not be read (Kensho reads "
                        + "nothing inside the page's open transaction), so what it changed is not known");
                items.add("?\t" + unread.location().line() + "\t" + (unread.directives().hidden() || unread.directives().setup()
                        ? "hidden" : "visible") + "\tunknown");
            }
            Map<String, String> facts = new LinkedHashMap<>();
            facts.put("items", String.join("\n", items));
            facts.put("transaction", "");
            facts.put("transactionHidden", "false");
            if (transactionOpenedBy != null) {
                boolean hidden = transactionOpenedBy.directives().hidden() || transactionOpenedBy.directives().setup();
                stated.add(0, "runs inside the transaction opened by the " + (hidden ? "hidden " : "") + "snippet at "
                        + transactionOpenedBy.location() + " (not committed yet)");
                facts.put("transaction", Integer.toString(transactionOpenedBy.location().line()));
                facts.put("transactionHidden", Boolean.toString(hidden));
            }
            if (!stated.isEmpty()) {
                assertions.add(Assertion.held("conditions", facts,
                        "runs under conditions a stock session does not have: " + String.join("; ", stated)));
            }
        }

        /**
         * Why the statement can carry no plan claim, told from its text (nothing is sent: every statement of a
         * page with plan claims is measured, see {@link PlanCapture}), or null when it can.
         */
        private String planless(SqlStatement statement) {
            String first = SqlLexer.firstWord(statement.text(), standardConformingStrings());
            if (TAKE_NO_SNAPSHOT.contains(first) || (first.equals("prepare") && SqlLexer.tokens(statement.text()).stream()
                    .filter(SqlLexer.Token::significant).skip(1).findFirst().map(t -> t.word().equals("transaction")).orElse(false))) {
                return "the statement has no plan (" + first.toUpperCase(java.util.Locale.ROOT) + " is run without one); claim the "
                        + "plan of a query or of INSERT, UPDATE, DELETE or MERGE";
            }
            return null;
        }

        /** PREPAREs a parameterised statement; on failure records the outcome and returns null. */
        private Target prepare(SqlStatement statement) {
            // Named by the snippet's place on the page, as the browser names it (BrowserRuns): the name is the reader's to
            // see (pg_prepared_statements, current_query()), so both runs must give the same (red team helper-94). A case's
            // run has no place on the page and a name of its own.
            Binding binding = Binding.of(index >= 0 ? "kensho_p" + index : "kensho_case_p" + (++preparedCounter),
                    directives.parameters(), statement.text());
            ParseCapture parses = new ParseCapture(binding.prepare());
            parsed.add(parses);
            boolean parseOn = reports.parseOn();
            boolean rewrittenOn = reports.rewrittenOn();
            boolean inBlock = inTransaction();
            try {
                execute(binding.prepare(), null, parses, true);
            } catch (SQLException e) {
                failedAt(binding.prepare(), parses, e, parseOn, rewrittenOn, inBlock);
                finished = failedStatement(e, statement, -binding.shift(), true);
                return null;
            }
            reports.ran(binding.prepare(), parses, true, inBlock, inTransaction());
            return new Target(binding, -binding.shift());
        }

        /** Reads where the statement {@code sent} failed ({@link #failedBeforeAnalysed} and the like), then takes it as run. */
        private void failedAt(String sent, ParseCapture parses, SQLException e, boolean parseOn, boolean rewrittenOn, boolean inBlock) {
            ServerErrorMessage server = e instanceof PSQLException psql ? psql.getServerErrorMessage() : null;
            String file = server == null || server.getFile() == null ? "" : server.getFile();
            boolean noTree = !parses.ownReported();
            boolean syntax = file.equals("scan.l") || file.equals("gram.y");
            failedBeforeAnalysed = noTree && parseOn && server != null && !file.equals("postgres.c");
            failedInRewrite = !noTree && !parses.ownRewrittenReported() && rewrittenOn && server != null && server.getWhere() == null
                    && file.equals("rewriteHandler.c");
            failedUnreported = noTree && !parseOn && !syntax;
            reports.ran(sent, parses, false, inBlock, inTransaction());
        }

        private Outcome failedStatement(SQLException e, SqlStatement statement, int shift, boolean isLast) {
            Failure failure = describe(e, snippet, statement, shift);
            String expected = directives.expectError();
            rollbackIfAborted(expected == null || !isLast);
            if (expected == null) {
                return new Outcome(snippet, Outcome.Status.FAILED, failure, results, assertions, null, null, elapsed());
            }
            if (KenshoLimits.ownLimit(e) != null) {
                return fail(KenshoLimits.ownLimit(e) + "; only an error the server reports for the lesson's own SQL satisfies "
                        + "expect-error", failure, null);
            }
            String sqlState = failure.sqlState();
            if (!expected.equals(sqlState)) {
                return fail("expected SQLSTATE " + expected + ", but the server reported " + sqlState + ": " + failure.message(),
                        failure, sqlState);
            }
            if (!isLast) {
                return fail("the expected error came from a statement before the last one, so the statements after it never ran; "
                        + "end the snippet with the failing statement", failure, sqlState);
            }
            // From here the statement failed as the author expected: the page's state is the reader's.
            ranAsWritten = true;
            if (directives.errorPattern() != null) {
                try {
                    if (!BoundedMatch.find(directives.errorPattern(), failure.message())) {
                        return fail("the error message \"" + failure.message() + "\" does not match /" + directives.errorPattern().pattern() + "/",
                                failure, sqlState);
                    }
                } catch (BoundedMatch.TooSlow slow) {
                    return fail(slow.getMessage(), failure, sqlState);
                }
            }
            // The failed transaction is left as it is: the lesson's next snippet may ROLLBACK TO SAVEPOINT.
            String pattern = directives.errorPattern() == null ? "" : directives.errorPattern().pattern();
            assertions.add(Assertion.held("fails-with", Map.of("sqlstate", expected, "pattern", pattern, "message", failure.message()),
                    "fails with SQLSTATE " + expected + (pattern.isEmpty() ? "" : " and a message matching /" + pattern + "/")));
            return outcome(Outcome.Status.PASSED, null);
        }

        private Outcome checkRows(SqlStatement last, ParseCapture parsed) {
            ExpectedRows expected = snippet.expectedRows();
            if (expected == null) {
                return null;
            }
            if (results.isEmpty() || !results.get(results.size() - 1).statement().equals(last.text())) {
                return fail("expected rows are written under the snippet, but its last statement returned no rows; "
                        + "only a query or a statement with RETURNING can be compared", null, null);
            }
            ResultTable actual = results.get(results.size() - 1);
            Outcome explained = checkExplainedPlan(last);
            if (explained != null) {
                return explained;
            }
            RowOrder order = orders.of(parsed, actual.columns().size());
            String difference = RowComparison.compare(expected, actual, order);
            String ties = !order.ordered() ? "" : order.tiesKnown() ? " (rows that tie on every ORDER BY key in any order)"
                    : !order.known() ? " (as the server returned them: the order the statement promises cannot be known)"
                    : order.keyColumns() == null && order.basis().startsWith("EXPLAIN") ? ""
                    : " (an ORDER BY key is not a result column, so rows that tie on the shown ones keep the server's order)";
            String description = "returns the " + expected.rows().size() + " expected row(s)" + (order.ordered() ? " in order" + ties : " (in any order)");
            Assertion claim = new Assertion("rows", Map.of("count", Integer.toString(expected.rows().size()),
                    "ordered", Boolean.toString(order.ordered()), "ties", order.ordered() ? Boolean.toString(order.tiesKnown()) : "",
                    // The browser ties rows on identical text: given keys only where identical text is sure to be a tie.
                    "keys", RowComparison.tiesByText(order, actual.types())
                            ? order.keyColumns().stream().map(String::valueOf).collect(Collectors.joining(",")) : "",
                    "basis", order.basis(),
                    // The whole order as decided, so that a cached outcome is judged again exactly as now (RecordedOutcome).
                    "known", Boolean.toString(order.known()),
                    "sortKeys", order.keyColumns() == null ? "hidden"
                            : order.keyColumns().stream().map(String::valueOf).collect(Collectors.joining(",")),
                    "keyEquality", order.keyEquality().stream().map(String::valueOf).collect(Collectors.joining(","))),
                    description, difference == null);
            assertions.add(claim);
            if (difference != null) {
                int newline = difference.indexOf('\n');
                return fail(difference.substring(0, newline < 0 ? difference.length() : newline), null, null,
                        newline < 0 ? null : difference.substring(newline + 1));
            }
            return null;
        }

        private Outcome checkPlan(CapturedPlans captured, String captureProblem, ParseCapture parsed) {
            Directives.PlanExpectations expected = directives.plan();
            if (expected == null && !directives.showPlan()) {
                return null;
            }
            if (captureProblem != null) {
                return fail("plan claims cannot be checked: " + captureProblem, null, null);
            }
            if (captured == null || captured.isEmpty()) {
                return fail("plan claims cannot be checked: the server reported no plan for this execution of the statement ("
                        + noPlanReason(parsed) + ")", null, null);
            }
            if (captured.plans().stream().noneMatch(CapturedPlans.ParsedPlan::ownPlan)) {
                return fail("plan claims cannot be checked: the statement has no plan of its own (a utility statement such as "
                        + "CALL, DO, COMMIT or CREATE INDEX, whose work auto_explain cannot see whole); claim the plan of a query "
                        + "or of INSERT, UPDATE, DELETE or MERGE", null, null);
            }
            if (directives.showPlan()) {
                plan = PlanText.render(captured);
            }
            PlanCheck shape = PlanCheck.of(captured);
            if (expected != null) {
                Outcome altered = checkPlannerInputs(shape); // the setting itself, where it still stands, said first
                if (altered != null) {
                    return altered;
                }
            }
            if (cachedPlansOf != null) {
                return fail("plan claims cannot be checked: the " + (cachedPlansOf.directives().setup() ? "setup" : "hidden")
                        + " snippet at " + cachedPlansOf.location() + " may change settings, and plans it cached under them "
                        + "(prepared statements, functions' queries) may serve this statement for a reason a reader cannot see. "
                        + "Make the snippet visible, or DISCARD PLANS in a visible snippet before the claim", null, null);
            }
            if (expected == null) {
                return null;
            }
            PlanVerdict.Pending pending = new PlanVerdict.Pending(expected, shape, smallTableAdvice(shape, captured));
            PlanVerdict verdict = pending.withoutCatalog();
            if (verdict == null) {
                // Judged on the capture run (CaptureRun.answered): this run opens no connection of Kensho's for the catalog.
                pendingPlans.put(index, pending);
                return null;
            }
            assertions.addAll(verdict.assertions());
            return verdict.problem() == null ? null : fail(verdict.problem(), null, verdict.sqlState(), verdict.detail());
        }

        /** Fails the plan claims when a planner input was changed where readers cannot see it ({@link PlannerInputs}). */
        private Outcome checkPlannerInputs(PlanCheck shape) {
            PlannerInputs.Verdict inputs = plannerInputs.of(shape, standing);
            if (!inputs.unseen().isEmpty()) {
                String settings = String.join(", ", inputs.unseen());
                assertions.add(new Assertion("planner-defaults", Map.of("settings", settings),
                        "plan taken with the planner's default inputs", false));
                return fail("plan claims cannot be checked: the plan was made with " + settings + "; a plan forced by planner "
                        + "inputs the reader cannot see says nothing about what PostgreSQL chooses. Remove the change (RESET it "
                        + "before this snippet) or make it in a visible snippet", null, null);
            }
            if (inputs.shown().isEmpty()) {
                assertions.add(Assertion.held("planner-defaults", Map.of(), "plan taken with the planner's default settings"));
            } else {
                assertions.add(Assertion.held("planner-settings", Map.of("settings", String.join(", ", inputs.shown())),
                        "plan taken with " + String.join(", ", inputs.shown())));
            }
            return null;
        }

        /**
         * Told from what the statement's own execution sent, never by asking the reader's session: the
         * server reports every statement's parse tree (at log level) and, on this page, its plan (as a
         * notice). When neither came, the page kept the session from sending Kensho its messages.
         */
        private String noPlanReason(ParseCapture parsed) {
            if (parsed != null && !parsed.reported()) {
                return "the server sent not even the statement's parse tree, which Kensho's session asks for at log level: the "
                        + "page raised client_min_messages above notice or turned debug_print_parse off, and plans reach Kensho "
                        + "as notices; leave both as Kensho sets them (log, on)";
            }
            return "a utility statement such as CREATE INDEX or VACUUM has no plan; claim the plan of a query or of INSERT, "
                    + "UPDATE, DELETE or MERGE";
        }

        /**
         * Read from the plan's own Seq Scan nodes (rows returned plus rows its filter removed, every loop):
         * counting the table with a query of Kensho's would run on the reader's session, inside its
         * transaction, through the table's row-level security policies.
         */
        private String smallTableAdvice(PlanCheck check, CapturedPlans captured) {
            if (!check.hasSeqScan()) {
                return null;
            }
            Map<String, Long> scanned = new LinkedHashMap<>();
            for (CapturedPlans.ParsedPlan plan : captured.plans()) {
                seqScans(plan.root(), scanned);
            }
            List<String> small = new ArrayList<>();
            scanned.forEach((relation, rows) -> {
                if (rows < SMALL_TABLE_ROWS) {
                    small.add("the Seq Scan on " + relation + " read " + rows + " row(s)");
                }
            });
            return small.isEmpty() ? null : "hint: " + String.join(", ", small) + "; on a table that small the planner rightly "
                    + "prefers a Seq Scan. Seed realistic data first (INSERT … SELECT … FROM generate_series(1, 10000)) and ANALYZE";
        }

        private static void seqScans(com.fasterxml.jackson.databind.JsonNode node, Map<String, Long> scanned) {
            if (node == null) {
                return;
            }
            if (node.isArray()) {
                node.forEach(child -> seqScans(child, scanned));
                return;
            }
            if (!node.isObject()) {
                return;
            }
            if ("Seq Scan".equals(node.path("Node Type").asText()) && node.hasNonNull("Relation Name")) {
                String schema = node.path("Schema").asText("");
                String relation = (schema.isEmpty() ? "" : schema + ".") + node.path("Relation Name").asText();
                long rows = Math.round((node.path("Actual Rows").asDouble(0) + node.path("Rows Removed by Filter").asDouble(0))
                        * Math.max(1, node.path("Actual Loops").asDouble(1)));
                scanned.merge(relation, rows, Math::max);
            }
            node.forEach(child -> seqScans(child, scanned));
        }

        private Outcome fail(String message, Failure cause, String sqlState) {
            return fail(message, cause, sqlState, cause == null ? null : cause.detail());
        }

        private Outcome fail(String message, Failure cause, String sqlState, String detail) {
            SourceLocation location = cause == null ? snippet.location() : cause.location();
            String line = cause == null ? snippet.lineAt(0) : cause.sourceLine();
            Failure failure = new Failure(message, sqlState, location, line, detail == null || detail.isBlank() ? null : detail,
                    cause == null ? null : cause.hint());
            return outcome(Outcome.Status.FAILED, failure);
        }

        /** Results are compared in full above; the outcome keeps a bounded number of rows for display and the cache. */
        private Outcome outcome(Outcome.Status status, Failure failure) {
            List<ResultTable> kept = results.stream().map(t -> t.truncated(SqlExecution.ROWS_KEPT, SqlExecution.CHARS_KEPT)).toList();
            return new Outcome(snippet, status, failure, kept, assertions, status == Outcome.Status.PASSED ? plan : null, null, elapsed());
        }

        private Duration elapsed() {
            return Duration.ofNanos(System.nanoTime() - started);
        }
    }

    /**
     * The statement assertions look at: the snippet's last statement, or the EXECUTE of its prepared
     * form when parameters are bound.
     *
     * @param shift added to the server's error position to land in the author's text
     */
    private final class Target {
        final String sql;
        final int shift;
        private final Binding binding;

        Target(Binding binding, int shift) {
            this.sql = binding.execute();
            this.shift = shift;
            this.binding = binding;
        }

        void release() {
            try {
                execute(binding.deallocate(), null);
            } catch (SQLException ignored) {
                // Inside a failed transaction DEALLOCATE fails too; the session ends with the page anyway.
            }
        }
    }

    private ResultTable execute(String sql, PlanCapture plans) throws SQLException {
        return execute(sql, plans, new ParseCapture(sql), true);
    }

    /**
     * A statement of Kensho's own on the page's session (the capture switch's SETs, DISCARD PLANS between the page's transactions): it
     * opens, closes and prepares nothing, so the session's cursors and prepared statements stay known.
     */
    private ResultTable executeOwn(String sql) throws SQLException {
        return SqlExecution.execute(connection, sql, guard, null, null, true);
    }

    /**
     * Every statement of the page (as written, or bound) goes through here, so that what it did to cursors and prepared statements is known.
     *
     * @param whole every row is kept (a claim compares them), else only the first ones, within SqlExecution's bounds
     */
    private ResultTable execute(String sql, PlanCapture plans, ParseCapture parses, boolean whole) throws SQLException {
        boolean succeeded = false;
        try {
            ResultTable table = SqlExecution.execute(connection, sql, guard, plans, parses, whole);
            succeeded = true;
            // The order its parse promises, decided before the statement changes what cursors and prepared statements
            // are known: the browser compares a reader's run of it so, without asking the reader's session.
            return table == null ? null : table.withOrder(orders.of(parses, table.columns().size()));
        } finally {
            orders.ran(parses, succeeded);
        }
    }

    private boolean standardConformingStrings() {
        try {
            return connection.unwrap(BaseConnection.class).getStandardConformingStrings();
        } catch (SQLException e) {
            return true;
        }
    }

    private Failure describe(SQLException e, Snippet snippet, SqlStatement statement, int shift) {
        ServerErrorMessage server = e instanceof PSQLException psql ? psql.getServerErrorMessage() : null;
        if (server == null || e instanceof KenshoLimitException) {
            int at = statement.offset();
            return new Failure(e.getMessage(), null, snippet.locate(at), snippet.lineAt(at), null, null);
        }
        // The server counts characters (code points); Java strings count UTF-16 units.
        String sent = shift < 0 ? " ".repeat(-shift) + statement.text() : statement.text();
        int position = 0;
        if (server.getPosition() > 0) {
            int codePoints = Math.min(server.getPosition() - 1, sent.codePointCount(0, sent.length()));
            position = Math.max(0, sent.offsetByCodePoints(0, codePoints) + shift);
        }
        int at = statement.offset() + position;
        String hint = server.getHint();
        if (UNDEFINED_PARAMETER.equals(server.getSQLState()) && snippet.directives().parameters().isEmpty()) {
            hint = "bind a value to it in the fence's meta: $1:TYPE=VALUE";
        } else if (OUT_OF_MEMORY.equals(server.getSQLState())) {
            hint = "Kensho bounds the memory of each PostgreSQL process so that a snippet cannot take the build machine's; "
                    + "use less (a smaller work_mem, fewer rows at once)";
        }
        return new Failure(MessageScrubber.scrub(server.getMessage()), server.getSQLState(), snippet.locate(at), snippet.lineAt(at),
                MessageScrubber.scrub(server.getDetail()), MessageScrubber.scrub(hint));
    }

    /** Leaves no failed transaction behind, so that later pages' teardown is not held up. */
    private void rollbackIfAborted(boolean wanted) {
        if (!wanted) {
            return;
        }
        try {
            if (connection.unwrap(BaseConnection.class).getTransactionState() == TransactionState.FAILED) {
                execute("ROLLBACK", null);
            }
        } catch (SQLException ignored) {
            // A broken connection is dropped with the database.
        }
    }
}
