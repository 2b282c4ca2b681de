package dev.kensho.sqlchecks.postgres;


import java.io.IOException;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.StandardOpenOption;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.net.InetAddress;

/**
 * PostgreSQL from the binaries Maven ships (io.zonky.test.postgres), in a fresh cluster under the
 * temp directory that is removed on close.
 *
 * <p>PostgreSQL refuses to run as root. When Kensho runs as root (as CI does), initdb and the server
 * run as an unprivileged account ({@code nobody} unless {@code KENSHO_PG_ACCOUNT} names another)
 * through {@code runuser}.
 *
 * <p>The server is started under a small shell that waits for its standard input to close and then
 * asks the server for a fast shutdown. The JVM holds the other end of that pipe, so the server goes
 * away when Kensho closes it, when a shutdown hook runs (Ctrl-C), and even when the JVM is killed
 * outright, since the kernel closes the pipe then too.
 */
public final class EmbeddedPostgres implements PostgresProvider {

    private static final String SUPERUSER = "postgres";
    private static final String LOCK_FILE = "kensho.lock";
    /**
     * The clusters this JVM runs, whose lock files the sweep must never open: locks are the process's, and closing
     * any channel on a locked file releases them (FileChannel's documentation), so a sweep that merely looked at a
     * sibling server's lock file (a server per PostgreSQL version, started at once) freed it, and another build's
     * sweep then deleted that running cluster under it ("could not open file global/2964").
     */
    private static final java.util.Set<Path> RUNNING_HERE = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private static final Duration START_DEADLINE = Duration.ofSeconds(60);
    /**
     * Address space each server process may use (RLIMIT_AS, inherited by every backend): a snippet
     * that allocates without bound (SET work_mem = '2000GB', a runaway array) gets an out-of-memory
     * error instead of taking the machine's memory. Never a claim's error (see KenshoLimits).
     */
    static final long BACKEND_MEMORY_BYTES = 1024L << 20;
    /**
     * Runs the server and stops it (immediate shutdown: the cluster is thrown away) when the JVM's
     * pipe closes, however the JVM ended. It ignores INT, TERM and HUP, and runs in a session of its
     * own (setsid), so that Ctrl-C or a SIGTERM to the build's process group (a CI cancel, timeout)
     * reaches the JVM, whose exit closes the pipe, and never leaves the server on a slow smart shutdown.
     */
    private static final String STDIN_WATCHDOG = "trap '' INT TERM HUP; ulimit -v " + (BACKEND_MEMORY_BYTES >> 10) + " 2>/dev/null; "
            + "\"$@\" </dev/null & server=$!; cat >/dev/null; kill -QUIT $server 2>/dev/null; wait $server";
    /**
     * The only setting the embedded server starts with that initdb did not write. {@code fsync = off} only
     * skips asking the kernel to put files on disk (a thrown-away cluster on /dev/shm does not need them
     * there): every write still happens, the WAL's flush position still advances, so hint bits, the
     * visibility map, plans and buffer counts are a stock server's (StockServerTest shows it). Settings
     * that would change them went: synchronous_commit = off left commits unflushed, so VACUUM could set
     * no hint bit and marked no page all-visible, and the planner gave up Index Only Scans;
     * full_page_writes, wal_level and max_wal_senders change the WAL a statement writes (EXPLAIN's WAL
     * counts); shared_buffers and max_connections change buffer hits and reads and the lock table's size.
     * Measured on this project's pages, CREATE DATABASE per page costs 65-72 ms with it against 90-109 ms without.
     */
    static final List<String> SERVER_SETTINGS = List.of("fsync=off");
    /** Bumped when what initdb makes changes, so that kept templates of an older layout are not reused. */
    private static final String CLUSTER_LAYOUT = "auth-scram-2,ctype-c.utf-8";

    private final int major;

    /** PostgreSQL 18, whose binaries are on the class path. */
    public EmbeddedPostgres() {
        this(PostgresReleases.BUNDLED_MAJOR);
    }

    /** PostgreSQL {@code major} (one of {@link PostgresReleases#SUPPORTED}); binaries other than 18's are fetched on first start. */
    public EmbeddedPostgres(int major) {
        this.major = major;
    }

    @Override
    public String name() {
        return "embedded";
    }

    @Override
    public String identity() {
        return "embedded:" + PostgresBinaries.archiveIdentity(major) + ":" + String.join(",", SERVER_SETTINGS) + ":"
                + CLibrary.VERSION;
    }

    /**
     * The C library the embedded binaries run on: its character tables decide upper(), [[:alpha:]] and the like in the
     * page databases' C.UTF-8 (CharacterTypeCheck compares them with the playground's), so a verification cached under
     * one C library is not taken for another's (an upgraded glibc on the same machine).
     */
    private static final class CLibrary {
        static final String VERSION = read();

        private static String read() {
            String system = System.getProperty("os.name") + " " + System.getProperty("os.version");
            try {
                Process getconf = new ProcessBuilder("getconf", "GNU_LIBC_VERSION").redirectErrorStream(true).start();
                String out = new String(getconf.getInputStream().readNBytes(200), java.nio.charset.StandardCharsets.UTF_8).strip();
                return getconf.waitFor() == 0 && !out.isEmpty() ? out : system;
            } catch (java.io.IOException e) {
                return system; // not glibc (macOS): the system's own C library goes with its version
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return system;
            }
        }
    }

    @Override
    public RunningPostgres start() throws PostgresUnavailableException {
        Path binaries = PostgresBinaries.install(major);
        Path workDir = null;
        try {
            FileChannel lockChannel;
            FileLock ownership;
            // One JVM starts several servers at once (a server per PostgreSQL version): the sweep of abandoned clusters
            // must never see a new cluster's lock file before its lock is taken, or it would delete the cluster.
            synchronized (EmbeddedPostgres.class) {
                removeAbandonedClusters();
                workDir = Files.createTempDirectory(clusterRoot(), "kensho-pg-");
                RUNNING_HERE.add(workDir);
                lockChannel = FileChannel.open(workDir.resolve(LOCK_FILE), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
                ownership = lockChannel.lock();
                // Written once the lock is held: an empty lock file is one another process has made but not yet locked.
                lockChannel.write(java.nio.ByteBuffer.wrap(new byte[] {'1'}));
            }
            try {
                Server server = boot(binaries, workDir);
                server.ownership = ownership;
                return server;
            } catch (IOException | PostgresUnavailableException | RuntimeException e) {
                lockChannel.close();
                throw e;
            }
        } catch (IOException e) {
            forget(workDir);
            throw new PostgresUnavailableException("could not prepare the embedded server: " + e.getMessage(), e);
        } catch (PostgresUnavailableException | RuntimeException e) {
            forget(workDir);
            throw e;
        }
    }

    /** Deletes a cluster this JVM made, and only then lets the sweep look at its folder's name again. */
    private static void forget(Path workDir) {
        PostgresBinaries.deleteTree(workDir);
        if (workDir != null) {
            RUNNING_HERE.remove(workDir);
        }
    }

    private Server boot(Path binaries, Path workDir) throws IOException, PostgresUnavailableException {
        String account = serverAccount();
        String password = HexFormat.of().formatHex(new SecureRandom().generateSeed(16));
        Path passwordFile = workDir.resolve("pwfile");
        Files.writeString(passwordFile, password + "\n");
        Path dataDir = workDir.resolve("data");
        if (account != null) {
            handOver(workDir, account);
            handOver(passwordFile, account);
        }
        Files.setPosixFilePermissions(workDir, PosixFilePermissions.fromString("rwx------"));

        long t0 = System.nanoTime();
        ClusterTemplate template = new ClusterTemplate(clusterRoot(), PostgresBinaries.archiveIdentity(major) + ":" + CLUSTER_LAYOUT, account);
        String templatePassword = template.copyTo(dataDir);
        if (templatePassword != null) {
            password = templatePassword;
            Files.deleteIfExists(passwordFile);
        } else {
            List<String> initdb = asServerAccount(account, new ArrayList<>(List.of(
                    binaries.resolve("bin/initdb").toString(), "-D", dataDir.toString(), "-U", SUPERUSER,
                    "--pwfile=" + passwordFile, "--auth-local=scram-sha-256", "--auth-host=scram-sha-256",
                    "-E", DatabaseLocale.PAGE.encoding(), "--locale=" + DatabaseLocale.PAGE.collate(),
                    "--lc-ctype=" + DatabaseLocale.PAGE.ctype(),
                    "--no-sync", "--no-instructions")));
            if (major >= 15) { // before 15 libc was initdb's only locale provider, and had no option
                initdb.add(initdb.size() - 2, "--locale-provider=" + DatabaseLocale.PAGE.provider());
            }
            runToCompletion(initdb, workDir.resolve("initdb.log"), "initdb");
            Files.deleteIfExists(passwordFile);
            template.keep(dataDir, password);
        }
        Duration initdbTime = Duration.ofNanos(System.nanoTime() - t0);

        // A free port is only free until the server binds it: versions start in parallel, and another program may take
        // it meanwhile. A server that could not bind it exits at once (its log says so) and is started on another.
        for (int attempt = 1; ; attempt++) {
            try {
                return startOn(freePort(), binaries, dataDir, workDir, account, password, initdbTime);
            } catch (PortTaken taken) {
                if (attempt == 3) {
                    throw new PostgresUnavailableException("the embedded server could not bind a free port three times: " + taken.getMessage());
                }
            }
        }
    }

    /** The server could not bind the port it was given (another process took it after {@link #freePort} found it free). */
    private static final class PortTaken extends Exception {
        PortTaken(String log) {
            super(log);
        }
    }

    private static Server startOn(int port, Path binaries, Path dataDir, Path workDir, String account, String password,
                                  Duration initdbTime) throws IOException, PostgresUnavailableException, PortTaken {
        List<String> postgres = new ArrayList<>(List.of("sh", "-c", STDIN_WATCHDOG, "kensho-postgres",
                binaries.resolve("bin/postgres").toString(), "-D", dataDir.toString(), "-p", Integer.toString(port),
                "-k", workDir.toString(), "-c", "listen_addresses=127.0.0.1"));
        SERVER_SETTINGS.forEach(setting -> postgres.addAll(List.of("-c", setting)));
        Path log = workDir.resolve("postgres.log");
        long t1 = System.nanoTime();
        ProcessBuilder builder = new ProcessBuilder(inOwnSession(asServerAccount(account, postgres)))
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.PIPE);
        minimalEnvironment(builder);
        Process server = builder.start();
        ServerLog serverLog = ServerLog.start(server.getInputStream(), log, ServerLog.KEPT_BYTES);
        Server running = new Server(server, workDir, port, password, log, account);
        running.serverLog = serverLog;
        Thread hook = new Thread(running::close, "kensho-postgres-shutdown");
        running.shutdownHook = hook;
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            running.awaitReady();
        } catch (PortTaken e) {
            // The cluster stays for the next attempt: only this server process (long exited, or about to) goes.
            running.stopProcess();
            Runtime.getRuntime().removeShutdownHook(hook);
            throw e;
        } catch (PostgresUnavailableException | RuntimeException e) {
            running.close();
            throw e;
        }
        running.initdbTime = initdbTime;
        running.startTime = Duration.ofNanos(System.nanoTime() - t1);
        return running;
    }

    /**
     * Deletes clusters left by builds that were killed outright (SIGKILL leaves no chance to clean
     * up; the server itself still stops, see the class comment). Each build holds a lock on its
     * cluster's lock file while it runs; a cluster whose lock can be taken has no owner left.
     */
    private static void removeAbandonedClusters() {
        try (var dirs = Files.newDirectoryStream(clusterRoot(), "kensho-pg-*")) {
            for (Path dir : dirs) {
                if (ownerIsGone(dir)) {
                    PostgresBinaries.deleteTree(dir);
                }
            }
        } catch (IOException ignored) {
            // Housekeeping only; a leftover folder harms nothing.
        }
    }

    private static boolean ownerIsGone(Path dir) {
        if (RUNNING_HERE.contains(dir)) {
            return false; // This JVM's own: opening its lock file would release the lock (see RUNNING_HERE).
        }
        Path lockFile = dir.resolve(LOCK_FILE);
        try {
            if (!Files.exists(lockFile) || Files.size(lockFile) == 0
                    && Files.getLastModifiedTime(lockFile).toMillis() > System.currentTimeMillis() - 60_000) {
                return false; // Not ours, or still being set up: another build made it and has not locked it yet.
            }
        } catch (IOException e) {
            return false;
        }
        try (FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.WRITE);
             FileLock lock = channel.tryLock()) {
            return lock != null;
        } catch (OverlappingFileLockException heldByThisJvm) {
            return false;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Where clusters live: memory-backed /dev/shm where there is one (CREATE DATABASE per page is
     * I/O bound: 20 ms there against 250-300 ms on this project's CI disk), else the temp directory.
     * {@code KENSHO_PG_CLUSTER_ROOT} overrides both.
     */
    static Path clusterRoot() {
        String configured = System.getenv("KENSHO_PG_CLUSTER_ROOT");
        if (configured != null && !configured.isBlank()) {
            return Path.of(configured);
        }
        Path shm = Path.of("/dev/shm");
        return Files.isDirectory(shm) && Files.isWritable(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir"));
    }

    /** The account to run the server as, or null to run it as ourselves. */
    private static String serverAccount() {
        if (!isRoot()) {
            return null;
        }
        String configured = System.getenv("KENSHO_PG_ACCOUNT");
        return configured == null || configured.isBlank() ? "nobody" : configured;
    }

    static boolean isRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    /** The server sees none of the build's environment (CI secrets): any process of its account could read it from /proc. */
    private static void minimalEnvironment(ProcessBuilder builder) {
        builder.environment().clear();
        builder.environment().put("PATH", "/usr/sbin:/usr/bin:/sbin:/bin");
        builder.environment().put("LC_ALL", "C");
    }

    private static List<String> inOwnSession(List<String> command) {
        if (!Files.isExecutable(Path.of("/usr/bin/setsid"))) {
            return command; // macOS has no setsid; the watchdog's traps still hold there
        }
        List<String> wrapped = new ArrayList<>(List.of("/usr/bin/setsid"));
        wrapped.addAll(command);
        return wrapped;
    }

    private static List<String> asServerAccount(String account, List<String> command) {
        if (account == null) {
            return command;
        }
        List<String> wrapped = new ArrayList<>(List.of("runuser", "-u", account, "--"));
        wrapped.addAll(command);
        return wrapped;
    }

    private static void handOver(Path path, String account) throws IOException, PostgresUnavailableException {
        UserPrincipal owner;
        try {
            owner = path.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName(account);
        } catch (IOException e) {
            throw new PostgresUnavailableException("PostgreSQL cannot run as root and the account '" + account
                    + "' to run it as does not exist; set KENSHO_PG_ACCOUNT to an unprivileged account", e);
        }
        Files.setOwner(path, owner);
    }

    private static void runToCompletion(List<String> command, Path log, String what)
            throws IOException, PostgresUnavailableException {
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        minimalEnvironment(builder);
        Process process = builder.start();
        try {
            if (!process.waitFor(START_DEADLINE.toSeconds(), TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new PostgresUnavailableException(what + " did not finish within " + START_DEADLINE.toSeconds() + " s");
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new PostgresUnavailableException(what + " was interrupted", e);
        }
        if (process.exitValue() != 0) {
            throw new PostgresUnavailableException(what + " failed (exit " + process.exitValue() + "): "
                    + Files.readString(log, StandardCharsets.UTF_8).strip());
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    /** A started cluster; {@link #close()} is idempotent and safe from any thread. */
    static final class Server implements RunningPostgres {
        private final Process process;
        private final Path workDir;
        private final int port;
        private final String password;
        private final Path log;
        private final String account;
        private Thread shutdownHook;
        private ServerLog serverLog;
        private FileLock ownership;
        private boolean closed;
        Duration initdbTime = Duration.ZERO;
        Duration startTime = Duration.ZERO;

        Server(Process process, Path workDir, int port, String password, Path log, String account) {
            this.process = process;
            this.workDir = workDir;
            this.port = port;
            this.password = password;
            this.log = log;
            this.account = account;
        }

        void awaitReady() throws PostgresUnavailableException, PortTaken {
            long deadline = System.nanoTime() + START_DEADLINE.toNanos();
            SQLException last = null;
            while (System.nanoTime() < deadline) {
                if (!process.isAlive()) {
                    throw new PostgresUnavailableException("the embedded server exited during start-up: " + tail());
                }
                String tail = last == null ? "" : tail();
                if (tail.contains("could not create any TCP/IP sockets") || tail.contains("could not bind IPv4 address")) {
                    throw new PortTaken(tail);
                }
                try (Connection ignored = DriverManager.getConnection(jdbcUrl(), adminCredentials())) {
                    return;
                } catch (SQLException e) {
                    last = e;
                }
                try {
                    Thread.sleep(15);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new PostgresUnavailableException("interrupted while the embedded server started", e);
                }
            }
            throw new PostgresUnavailableException("the embedded server did not accept connections within "
                    + START_DEADLINE.toSeconds() + " s: " + (last == null ? "" : last.getMessage()) + "; " + tail());
        }

        private String tail() {
            try {
                List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
                return String.join("\n", lines.subList(Math.max(0, lines.size() - 10), lines.size()));
            } catch (IOException e) {
                return "(no server log)";
            }
        }

        @Override
        public String jdbcUrl() {
            return urlFor("postgres");
        }

        @Override
        public String urlFor(String database) {
            return "jdbc:postgresql://127.0.0.1:" + port + "/" + database;
        }

        @Override
        public Properties adminCredentials() {
            Properties properties = new Properties();
            properties.setProperty("user", SUPERUSER);
            properties.setProperty("password", password);
            return properties;
        }

        @Override
        public String pageTemplate() {
            // initdb made template1 with DatabaseLocale.PAGE, and it is the one whose pages are kept warm.
            return "template1";
        }

        @Override
        public String description() {
            return "embedded binaries on 127.0.0.1:" + port + " (cluster " + initdbTime.toMillis() + " ms, server start "
                    + startTime.toMillis() + " ms" + (account == null ? "" : "; runs as '" + account + "' because Kensho runs as root") + ")";
        }

        /** Ends the server process (the watchdog sees its stdin close), forcibly after 15 s; the cluster stays. */
        void stopProcess() {
            try {
                OutputStream stdin = process.getOutputStream();
                stdin.close();
            } catch (IOException ignored) {
                // The watchdog shell sees end-of-file either way.
            }
            try {
                if (!process.waitFor(15, TimeUnit.SECONDS)) {
                    process.descendants().forEach(ProcessHandle::destroyForcibly);
                    process.destroyForcibly();
                    process.waitFor(5, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public synchronized void close() {
            if (closed) {
                return;
            }
            closed = true;
            stopProcess();
            if (serverLog != null) {
                serverLog.awaitEnd(2_000); // the server's last lines, then nothing of Kensho's is left running
            }
            if (ownership != null) {
                try {
                    ownership.channel().close();
                } catch (IOException ignored) {
                    // Released with the process anyway.
                }
            }
            forget(workDir);
            if (shutdownHook != null && Thread.currentThread() != shutdownHook) {
                try {
                    Runtime.getRuntime().removeShutdownHook(shutdownHook);
                } catch (IllegalStateException alreadyShuttingDown) {
                    // The hook is running or has run; nothing to remove.
                }
            }
        }
    }
}
