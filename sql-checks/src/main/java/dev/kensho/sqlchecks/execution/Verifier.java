package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.model.Outcome;
import dev.kensho.sqlchecks.model.PageResult;
import dev.kensho.sqlchecks.model.Snippet;
import dev.kensho.sqlchecks.execution.ctype.CharacterTypeCheck;
import dev.kensho.sqlchecks.execution.ctype.PlaygroundCharacterTypes;
import dev.kensho.sqlchecks.execution.ctype.ServerCharacterTypes;

import dev.kensho.sqlchecks.postgres.PostgresProvider;
import dev.kensho.sqlchecks.postgres.PostgresReleases;
import dev.kensho.sqlchecks.postgres.PostgresUnavailableException;
import dev.kensho.sqlchecks.postgres.RunningPostgres;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.ArrayList;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.Semaphore;
import dev.kensho.sqlchecks.model.ScenarioParser;

/**
 * Entry point of sql-checks: one server per build, one throw-away database per page.
 *
 * <pre>{@code
 * try (Verifier verifier = Verifier.start(new EmbeddedPostgres(), VerifierSettings.DEFAULTS)) {
 *     PageResult result = verifier.verifyPage("content/keys.md", snippets);
 * }
 * }</pre>
 *
 * <p>Each page's snippets run in document order on one connection, as a role that owns the page's
 * database and nothing else: no superuser, no CREATEDB, no CREATEROLE, no membership in the roles
 * that may read server files or run programs.
 */
public final class Verifier implements AutoCloseable {


    private final RunningPostgres server;
    private final Connection admin;
    private final DatabaseDropper dropper;
    private final StatementGuard guard;
    private final VerifierSettings settings;
    private final String serverVersion;
    /** What the server's configuration changes from initdb's defaults ({@link ServerConfiguration}); stated with the server. */
    private final List<String> serverConfiguration;
    private final String namePrefix;
    private final AtomicInteger pageCounter = new AtomicInteger();
    /** The build's server's character type, asked on Kensho's own database ({@code <prefix>_ctype}), once per code point. */
    private final ServerCharacterTypes characterTypes;
    /** The guarded database page databases are copied from ({@link #makeGuardedTemplate}); set once by {@link #start}. */
    private String pageTemplate;
    /**
     * Scenarios running at once across the build. Each opens up to {@link ScenarioParser#MAX_SESSIONS}
     * server processes besides its page's own; with one at a time the server runs at most jobs + 8
     * page processes, each bounded in memory by its provider, whatever the pages ask for.
     */
    private final Semaphore scenarioSlots = new Semaphore(1, true);
    /** pg_catalog's relations and functions by OID, for the backstop of the text gates ({@link TreeReads}). */
    private TreeReads.Catalog treeCatalog = TreeReads.Catalog.NONE;
    private final java.util.concurrent.atomic.AtomicInteger secondDraws = new java.util.concurrent.atomic.AtomicInteger();
    private final java.util.concurrent.atomic.AtomicInteger autovacuumReruns = new java.util.concurrent.atomic.AtomicInteger();
    /** The last read of the server's autovacuum workers ({@link AutovacuumActivity#workers}), or null before the first. */
    private final java.util.concurrent.atomic.AtomicReference<AutovacuumActivity.Workers> lastWorkers =
            new java.util.concurrent.atomic.AtomicReference<>();
    /** Page databases in use, watched for size (the embedded cluster lives in memory on /dev/shm). */
    private final Set<String> activeDatabases = ConcurrentHashMap.newKeySet();
    private final ScheduledExecutorService diskWatch = Executors
            .newSingleThreadScheduledExecutor(r -> {
                Thread thread = new Thread(r, "kensho-disk-watch");
                thread.setDaemon(true);
                return thread;
            });

    private Verifier(RunningPostgres server, Connection admin, DatabaseDropper dropper, VerifierSettings settings, String serverVersion,
                     List<String> serverConfiguration) {
        this.serverConfiguration = List.copyOf(serverConfiguration);
        this.server = server;
        this.admin = admin;
        this.dropper = dropper;
        this.settings = settings;
        this.guard = new StatementGuard(settings.statementTimeout(), new AdminControl(admin));
        diskWatch.scheduleWithFixedDelay(this::watchDisk, 500, 500, TimeUnit.MILLISECONDS);
        this.serverVersion = serverVersion;
        this.namePrefix = "kensho_" + ProcessHandle.current().pid() + "_" + Long.toHexString(System.nanoTime() & 0xffffff);
        this.characterTypes = new ServerCharacterTypes(server, admin, namePrefix);
    }

    /**
     * Starts a server from the provider and checks that it is PostgreSQL 18.
     *
     * @throws PostgresUnavailableException when no server could be had or it is another major version
     */
    public static Verifier start(PostgresProvider provider, VerifierSettings settings) throws PostgresUnavailableException {
        return start(provider, settings, PostgresReleases.BUNDLED_MAJOR);
    }

    /**
     * Starts a server from the provider and checks that it is PostgreSQL {@code major}: a container or a
     * server the author runs says which version it is, and one of another version is refused.
     */
    public static Verifier start(PostgresProvider provider, VerifierSettings settings, int major) throws PostgresUnavailableException {
        RunningPostgres server = provider.start();
        Connection admin = null;
        try {
            admin = server.connectAdmin();
            String version = checkVersion(server, admin, major);
            if (PageDatabase.guardedTemplate(server)) {
                // Every page database is copied from template1: guard it once. A server Kensho does not
                // own gets a guarded template of Kensho's instead (makeGuardedTemplate).
                try (Connection template = DriverManager.getConnection(server.urlFor("template1"), server.adminCredentials())) {
                    ExtensionGuard.install(template, settings.extensions());
                }
                warmTemplateCache(server);
            }
            List<String> configuration = ServerConfiguration.read(admin);
            Verifier verifier = new Verifier(server, admin, new DatabaseDropper(server), settings, version, configuration);
            verifier.treeCatalog = TreeReads.Catalog.read(admin);
            if (PageDatabase.guardedTemplate(server)) {
                verifier.pageTemplate = "template1";
            } else {
                try {
                    verifier.makeGuardedTemplate(major);
                } catch (SQLException e) {
                    verifier.close();
                    throw new PostgresUnavailableException("cannot prepare the page template: " + e.getMessage(), e);
                }
            }
            try (Connection template = DriverManager.getConnection(server.urlFor(verifier.pageTemplate), server.adminCredentials())) {
                // The guard's own OIDs are above FIRST_NORMAL_OID like the page's: ParseTreeGate must not take them for the page's.
                // The allowed extensions' functions too, by name: SecondDraw finds gen_random_bytes() called however spelled.
                verifier.treeCatalog = verifier.treeCatalog.withTemplate(template);
            } catch (SQLException e) {
                verifier.close();
                throw new PostgresUnavailableException("cannot read Kensho's guard in the page template: " + e.getMessage(), e);
            }
            return verifier;
        } catch (SQLException e) {
            closeQuietly(admin);
            server.close();
            throw new PostgresUnavailableException("cannot connect to the server: " + e.getMessage(), e);
        } catch (PostgresUnavailableException | RuntimeException e) {
            closeQuietly(admin);
            server.close();
            throw e;
        }
    }

    /**
     * A connection to template1 makes the server write that database's relation-cache file
     * (pg_internal.init), which CREATE DATABASE … STRATEGY FILE_COPY then copies into every page's
     * database: a page's first connection reads the cache instead of building it from the catalogs
     * (7.9 → 3.8 ms of server CPU per page measured here). The server removes these files when it
     * starts, so this is done once per start.
     */
    /**
     * On a server Kensho does not own (a container, an existing server), the database every page database is copied from:
     * made from template0 in the page locale and guarded once ({@link ExtensionGuard}), dropped when the verifier closes.
     * Guarding each page's database instead took a superuser session in it before the page's own, which the page could
     * read (one session and its transactions more in pg_stat_database, a backend more while it was ending).
     */
    private void makeGuardedTemplate(int major) throws SQLException {
        String template = namePrefix + "_template";
        synchronized (admin) {
            try (Statement statement = admin.createStatement()) {
                statement.execute("CREATE DATABASE " + template + " TEMPLATE template0 " + server.databaseLocale().createOptions(major));
            }
        }
        pageTemplate = template;
        try (Connection guarded = DriverManager.getConnection(server.urlFor(template), server.adminCredentials())) {
            ExtensionGuard.install(guarded, settings.extensions());
        }
    }

    private static void warmTemplateCache(RunningPostgres server) {
        try (Connection template = DriverManager.getConnection(server.urlFor("template1"), server.adminCredentials());
             Statement statement = template.createStatement()) {
            statement.execute("SELECT 1");
        } catch (SQLException e) {
            // Only a saving: pages then build the cache on their first connection, as before.
        }
    }

    private static void closeQuietly(Connection connection) {
        if (connection != null) {
            try {
                connection.close();
            } catch (SQLException ignored) {
                // Going away with the server.
            }
        }
    }

    private static String checkVersion(RunningPostgres server, Connection admin, int major) throws PostgresUnavailableException {
        try (Statement statement = admin.createStatement();
             ResultSet rs = statement.executeQuery("SELECT current_setting('server_version_num')::int, current_setting('server_version')")) {
            rs.next();
            int versionNum = rs.getInt(1);
            String version = rs.getString(2);
            if (versionNum / 10000 != major) {
                throw new PostgresUnavailableException("the server at " + server.description() + " runs PostgreSQL "
                        + version.split(" ")[0] + ", not " + major + ": this check runs on PostgreSQL " + major
                        + " (a site names its versions in site.yml postgres.versions)");
            }
            return version.split(" ")[0];
        } catch (SQLException e) {
            throw new PostgresUnavailableException("cannot query the server's version: " + e.getMessage(), e);
        }
    }

    /** The server's major version (14 for "14.19"). */
    private int major() {
        return Integer.parseInt(serverVersion.replaceFirst("^(\\d+).*$", "$1"));
    }

    /** The exact server version, such as "18.6". */
    public String serverVersion() {
        return serverVersion;
    }

    /** Where the server runs and, when its configuration differs from initdb's defaults, how (see {@link ServerConfiguration}). */
    public String serverDescription() {
        return server.description() + (serverConfiguration.isEmpty() ? "; configured as initdb made it"
                : "; its configuration differs from initdb's: " + String.join(", ", serverConfiguration));
    }

    /** The settings {@link #serverDescription()} states, one per item ({@code fsync = off (command line)}). */
    public List<String> serverConfiguration() {
        return serverConfiguration;
    }

    /**
     * Runs a page's snippets in order in a fresh database. After the first failure the remaining
     * snippets are reported as skipped: they build on the state the failed one should have made.
     * Then, only when a scenario's end state is wanted, the capture run ({@link CaptureRun}) and the
     * restore's proof ({@link RestoreProof}), each on a fresh database of its own.
     */
    public PageResult verifyPage(String page, List<Snippet> snippets) {
        return verifyPage(page, snippets, settings.browserStates());
    }

    /**
     * {@link #verifyPage(String, List)}, reading and proving scenario states only when {@code browserStates} (see
     * {@link VerifierSettings#browserStates()}): asked per page, since a long-lived server serves builds whose settings differ.
     */
    public PageResult verifyPage(String page, List<Snippet> snippets, boolean browserStates) {
        String name = namePrefix + "_" + pageCounter.incrementAndGet();
        Run run = verifyPageAs(page, name, snippets, browserStates, false);
        List<Outcome> outcomes = run.outcomes();
        if (run.autovacuum() != null) {
            // Autovacuum worked on the page's tables while it ran: the page once more, with autovacuum off for them, as a
            // reader's browser runs it (AutovacuumActivity).
            autovacuumReruns.incrementAndGet();
            Run without = verifyPageAs(page, name, snippets, false, true);
            outcomes = AutovacuumActivity.judged(outcomes, without.outcomes(), run.autovacuum(),
                    without.outcomes() == null ? "(" + without.autovacuum() + ")" : without.autovacuum());
        }
        // Last: whether a reader's run in the browser treats the page's characters as this server did (CharacterTypeCheck).
        return new PageResult(page, characterTypeCheck().checked(outcomes), run.setup());
    }

    /**
     * A page's runs and what they decided, before the character check.
     *
     * @param autovacuum what autovacuum did to the page's tables during the real run ({@link AutovacuumActivity#read}), or
     *                   null; with no outcomes, why the run could not be made
     */
    private record Run(List<Outcome> outcomes, Duration setup, String autovacuum) {
    }

    /**
     * The real run and every replay it needs, on databases named {@code name}.
     *
     * @param autovacuumOff a run with autovacuum off for the page's tables ({@link AutovacuumActivity#turnOff}), made after a
     *                      real run that autovacuum reached: its databases replace the real run's, under the same name
     */
    private Run verifyPageAs(String page, String name, List<Snippet> snippets, boolean browserStates, boolean autovacuumOff) {
        long t0 = System.nanoTime();
        if (autovacuumOff) {
            dropper.awaitDropped(name);
        }
        activeDatabases.add(name);
        Duration setup;
        List<Outcome> outcomes;
        Set<Integer> endedOutsideTransaction;
        java.util.Map<Integer, PlanVerdict.Pending> pendingPlans;
        java.util.Map<Integer, Integer> sequenceQuestions;
        Set<Integer> caseAnswers;
        RunTrace realTrace;
        java.util.Map<Integer, String> draws;
        boolean readsClock;
        String autovacuum = null;
        int major = major();
        // Read before the page's database exists, when no worker can have visited it yet: the last read of any page serves
        // (an earlier one only makes a worker's visit elsewhere count too), so that a page costs one read, after its run.
        AutovacuumActivity.Workers afterRealRun = null;
        AutovacuumActivity.Workers workersBefore = lastWorkers.get();
        if (workersBefore == null) {
            workersBefore = AutovacuumActivity.workers(admin, major);
        }
        try (PageDatabase database = PageDatabase.create(server, admin, dropper, name, pageTemplate, settings, ScriptRunner.claimsPlans(snippets), true)) {
            if (autovacuumOff) {
                AutovacuumActivity.turnOff(database, major);
            }
            setup = Duration.ofNanos(System.nanoTime() - t0);
            // The real run: its database hands out no connection of Kensho's, so nothing but the reader's statements reaches
            // it (KenshoConnections); what Kensho needs to ask its catalog is asked on the capture run below.
            ScriptRunner real = runner(database);
            outcomes = real.run(snippets);
            endedOutsideTransaction = real.scenariosEndedOutsideTransaction();
            pendingPlans = real.pendingPlans();
            sequenceQuestions = real.sequenceQuestions();
            caseAnswers = real.caseAnswers();
            realTrace = real.trace();
            draws = real.draws();
            readsClock = real.readsClock();
            // From 16 on, every page whose workers-were-about test says so is read, whatever it shows or drops (a word list
            // missed extended statistics: red team helper-105); before 16, which cannot tell, pages whose words could show it.
            boolean readAll = major >= 16;
            afterRealRun = AutovacuumActivity.workers(admin, major);
            if (afterRealRun != null) {
                lastWorkers.set(afterRealRun);
            }
            if (outcomes.stream().anyMatch(o -> o != null && o.passed()) && (readAll || AutovacuumActivity.couldShow(snippets))
                    && AutovacuumActivity.workedBetween(workersBefore, afterRealRun)) {
                // Read once the page's statements have all run, so that nothing of the page sees it.
                autovacuum = AutovacuumActivity.read(database, major == 14);
                if (autovacuum == null && real.hidesTables() && !autovacuumOff) {
                    autovacuum = AutovacuumActivity.HIDDEN;
                }
            }
        } catch (SQLException e) {
            if (autovacuumOff) {
                return new Run(null, null, "a database with autovacuum off could not be made: " + e.getMessage());
            }
            throw new IllegalStateException("could not prepare a database for " + page + ": " + e.getMessage(), e);
        } finally {
            activeDatabases.remove(name);
        }
        Set<Integer> wanted = browserStates ? CaptureRun.wanted(outcomes, endedOutsideTransaction) : Set.of();
        List<Outcome> real = outcomes;
        boolean replayed = !wanted.isEmpty();
        if (!wanted.isEmpty()) {
            outcomes = CaptureRun.recorded(real, wanted, onFreshDatabase(name, snippets, autovacuumOff,
                    database -> runner(database).readingStates(wanted, database.kenshoConnections())));
        }
        List<CaptureRun.Question> questions = CaptureRun.questions(real, pendingPlans, sequenceQuestions, caseAnswers);
        replayed |= !questions.isEmpty();
        if (!questions.isEmpty()) {
            // One replay per question, stopping right after it (CaptureRun.questions says why not one for all).
            // The replays together get the page's limit (CaptureRun.unasked says why): each runs under what is left of it.
            List<CaptureRun.Answer> answers = new ArrayList<>();
            java.util.Map<Integer, PlanVerdict> replayPlans = new java.util.HashMap<>();
            long replaysEnd = System.nanoTime() + settings.pageTimeout().toNanos();
            for (CaptureRun.Question question : questions) {
                Duration left = Duration.ofNanos(replaysEnd - System.nanoTime());
                if (question.cases() && !real.get(question.snippet()).passed()) {
                    answers.add(new CaptureRun.Answer(question, null, null, null, false)); // its cases are not run (CaptureRun)
                    continue;
                }
                if (left.isNegative() || left.isZero()) {
                    answers.add(CaptureRun.unasked(question, settings.pageTimeout()));
                    continue;
                }
                ScriptRunner[] asking = new ScriptRunner[1];
                List<Outcome> replay = onFreshDatabase(name, snippets, autovacuumOff, database -> asking[0] = new ScriptRunner(database.connection(),
                        database::openSession, guard, left, scenarioSlots, treeCatalog).asking(question, database.kenshoConnections()));
                boolean reached = replay != null && (question.cases() ? replay.get(question.snippet()) != null
                        : asking[0].verdict() != null || asking[0].foundSequence());
                if (question.plan() != null && replay != null && asking[0].ownVerdict() != null) {
                    replayPlans.put(question.snippet(), asking[0].ownVerdict());
                }
                answers.add(System.nanoTime() > replaysEnd && !reached
                        ? CaptureRun.unasked(question, settings.pageTimeout())
                        : new CaptureRun.Answer(question, replay, replay == null ? null : asking[0].trace(),
                                replay == null ? null : asking[0].verdict(), replay != null && asking[0].foundSequence()));
            }
            outcomes = CaptureRun.answered(real, realTrace, outcomes, answers);
            // A page that draws: each replay's own plan is a second draw of the plan claims the second run leaves pending.
            outcomes = SecondDraw.plansJudged(outcomes, replayPlans, draws);
        }
        if (!draws.isEmpty() && real.stream().anyMatch(Outcome::passed)) {
            // The page drew from chance: a second draw, to its end, on a database of its own (SecondDraw says why).
            if (!autovacuumOff) {
                secondDraws.incrementAndGet(); // counted once a page: a run without autovacuum draws again as part of itself
            }
            replayed = true;
            outcomes = SecondDraw.judged(real, outcomes, onFreshDatabase(name, snippets, autovacuumOff, this::runner), draws, readsClock);
        }
        if (browserStates && RestoreProof.applies(outcomes)) {
            replayed = true;
            outcomes = proveRestores(outcomes);
        }
        if (autovacuum == null && !autovacuumOff && major >= 16 && real.stream().anyMatch(o -> o != null && o.passed())) {
            // Whatever the page's tables show: a worker at work on the server while the page or any of its replays ran (a
            // replay decides exercise cases and plans, red team helper-106) may have done what no statistic tells (a
            // cancelled VACUUM's visibility map, a BRIN range summarized), so the page runs once more without autovacuum.
            AutovacuumActivity.Workers spanEnd = replayed ? AutovacuumActivity.workers(admin, major) : afterRealRun;
            if (replayed && spanEnd != null) {
                lastWorkers.set(spanEnd);
            }
            if (AutovacuumActivity.workedBetween(workersBefore, spanEnd)) {
                autovacuum = AutovacuumActivity.WORKERS_ABOUT;
            }
        }
        return new Run(outcomes, setup, autovacuum);
    }

    private CharacterTypeCheck characterTypeCheck() {
        return new CharacterTypeCheck(PlaygroundCharacterTypes.load(), characterTypes, serverVersion);
    }

    /** How many times this verifier asked its server how it treats characters ({@link ServerCharacterTypes}): for tests. */
    int characterTypeQueries() {
        return characterTypes.queries();
    }

    /** How many pages this verifier ran a second time because they drew from chance ({@link SecondDraw}): for tests. */
    int secondDraws() {
        return secondDraws.get();
    }

    /** For tests: the page's outcomes on a run with autovacuum off for its tables, as a rerun makes it. */
    List<Outcome> autovacuumOffRun(List<Snippet> snippets) {
        return verifyPageAs("page.md", namePrefix + "_" + pageCounter.incrementAndGet(), snippets, false, true).outcomes();
    }

    /** How many pages this verifier ran again with autovacuum off because it had worked on their tables: for tests. */
    int autovacuumReruns() {
        return autovacuumReruns.get();
    }

    private ScriptRunner runner(PageDatabase database) {
        return new ScriptRunner(database.connection(), database::openSession, guard, settings.pageTimeout(), scenarioSlots, treeCatalog);
    }

    /**
     * Runs the page again on a fresh database with each recorded scenario replaced by its restore, as the reader's browser
     * runs it, and records with each scenario how many snippets after it ended as in the real run ({@link RestoreProof}).
     */
    private List<Outcome> proveRestores(List<Outcome> outcomes) {
        // Null when it could not run: unproven, nothing after a scenario runs in the browser.
        String name = namePrefix + "_" + pageCounter.incrementAndGet();
        return RestoreProof.judged(outcomes, onFreshDatabase(name, RestoreProof.restoredPage(outcomes), false,
                database -> runner(database).runningEveryCase()));
    }

    /**
     * A run of the page's snippets, other than the real one, on a database of its own, dropped afterwards; null when the
     * database could not be made. It runs under the page's limits, as the real run does. A replay of the page is given the
     * real run's {@code name} (its database's and its role's): the real run's database is dropped first, so that
     * current_database(), current_user, pg_database and pg_roles show a replay's snippets what they showed the real run's.
     */
    private List<Outcome> onFreshDatabase(String name, List<Snippet> snippets, boolean autovacuumOff,
                                          java.util.function.Function<PageDatabase, ScriptRunner> runner) {
        dropper.awaitDropped(name);
        activeDatabases.add(name);
        // Not the page's evidence: this database hands out connections of Kensho's (a capture run uses them).
        try (PageDatabase database = PageDatabase.create(server, admin, dropper, name, pageTemplate, settings, ScriptRunner.claimsPlans(snippets), false)) {
            if (autovacuumOff) {
                AutovacuumActivity.turnOff(database, major());
            }
            return runner.apply(database).run(snippets);
        } catch (SQLException e) {
            return null;
        } finally {
            activeDatabases.remove(name);
        }
    }

    /**
     * The bytes the server's NOTIFY queue holds: one queue for the whole server, kept on disk (pg_notify) from the oldest
     * notification a listening session has not read. A session that LISTENs and keeps a transaction open reads none, so
     * a page's notifications pile up there, past any database's size. The queue's limit is max_notify_queue_pages (from
     * PostgreSQL 17, 1,048,576 pages by default) or, before it, half of the SLRU's 2^21 pages: 8 GB either way at 8 kB.
     */
    private static final String NOTIFY_QUEUE_BYTES = "SELECT pg_catalog.pg_notification_queue_usage() * COALESCE("
            + "(SELECT setting::float8 FROM pg_catalog.pg_settings WHERE name = 'max_notify_queue_pages'), 1048576)"
            + " * pg_catalog.current_setting('block_size')::float8";

    /**
     * Stops every session of a page whose database, with the server's NOTIFY queue, grew past Kensho's disk limit. The
     * queue is the whole server's and counts against every page then running: a session that LISTENs with a transaction
     * open reads none, and stopping that listener is what frees it. The two are summed, not bounded apart, so that a page
     * cannot fill each to just under the limit (red team helper-84: a 929 MB table beside 880 MB of notifications). A page
     * stopped so fails, with the reason, and is checked again on the next build.
     */
    private void watchDisk() {
        if (activeDatabases.isEmpty()) {
            return;
        }
        double queued = 0;
        try {
            synchronized (admin) {
                try (Statement statement = admin.createStatement(); ResultSet rs = statement.executeQuery(NOTIFY_QUEUE_BYTES)) {
                    queued = rs.next() ? rs.getDouble(1) : 0;
                }
            }
        } catch (SQLException | RuntimeException ignored) {
            // Counted as empty this round; the next round looks again.
        }
        long limit = settings.databaseBytes();
        for (String name : activeDatabases) {
            try {
                long size = 0;
                List<Integer> pids = new ArrayList<>();
                synchronized (admin) {
                    try (var statement = admin.prepareStatement("SELECT pg_catalog.pg_database_size(d.oid), a.pid"
                            + " FROM pg_catalog.pg_database d LEFT JOIN pg_catalog.pg_stat_activity a ON a.datid = d.oid"
                            + " WHERE d.datname = ?")) {
                        statement.setString(1, name);
                        try (ResultSet rs = statement.executeQuery()) {
                            while (rs.next()) {
                                size = rs.getLong(1);
                                if (rs.getObject(2) != null) {
                                    pids.add(rs.getInt(2));
                                }
                            }
                        }
                    }
                }
                if (size + queued <= limit) {
                    continue;
                }
                String reason = queued > limit ? "Kensho stopped the page: the server's queue of NOTIFY messages grew past "
                        + (limit >> 20) + " MiB while it ran (its limit on disk per page); " + LISTENER
                        : size > limit ? "Kensho stopped the page: its database grew past " + (limit >> 20) + " MiB (its limit on disk per page)"
                        : "Kensho stopped the page: its database (" + (size >> 20) + " MiB) and the server's queue of NOTIFY messages ("
                        + ((long) queued >> 20) + " MiB) together grew past " + (limit >> 20) + " MiB (its limit on disk per page); "
                        + LISTENER;
                for (int pid : pids) {
                    guard.stop(pid, reason);
                }
            } catch (SQLException | RuntimeException ignored) {
                // The database may be gone already; the next round looks again.
            }
        }
    }

    private static final String LISTENER = "a session that LISTENs with a transaction open reads none, and every notification "
            + "after it stays queued";

    @Override
    public void close() {
        diskWatch.shutdownNow();
        dropper.close();
        characterTypes.close();
        if (pageTemplate != null && !pageTemplate.equals("template1")) {
            synchronized (admin) {
                try (Statement statement = admin.createStatement()) {
                    statement.execute("DROP DATABASE IF EXISTS " + pageTemplate + " WITH (FORCE)");
                } catch (SQLException e) {
                    // A server that went away takes its databases with it; one that stays keeps a template named as Kensho's.
                }
            }
        }
        closeQuietly(admin);
        server.close();
    }
}
