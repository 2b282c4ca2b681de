import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.Properties;

/**
 * The server's share of a verified page (bench/page-floor.sh): PAGES times, what every page costs the server
 * whatever its SQL (a role, CREATE DATABASE from template1, one session that sets its settings and reads
 * pg_settings, DROP DATABASE, DROP ROLE), optionally with the bench corpus' ten snippets of three statements.
 * Prints the server's CPU per page (user and system, every process of the server tree, from /proc) and the
 * client's wall time per phase.
 * usage: java -cp kensho.jar PageFloor.java POSTMASTER_PID PORT FILE_COPY|WAL_LOG PAGES WITH_STATEMENTS(0|1)
 */
public class PageFloor {
    /** user and system ticks of the postmaster, its reaped children and its live children. */
    static long[] serverTicks(int postmaster) throws Exception {
        long user = 0, system = 0;
        String[] own = Files.readString(Path.of("/proc/" + postmaster + "/stat")).split("\\) ")[1].split(" ");
        user += Long.parseLong(own[11]) + Long.parseLong(own[13]);
        system += Long.parseLong(own[12]) + Long.parseLong(own[14]);
        for (String child : Files.readString(Path.of("/proc/" + postmaster + "/task/" + postmaster + "/children")).trim().split(" ")) {
            try {
                String[] stat = Files.readString(Path.of("/proc/" + child + "/stat")).split("\\) ")[1].split(" ");
                user += Long.parseLong(stat[11]);
                system += Long.parseLong(stat[12]);
            } catch (Exception gone) {
                // exited meanwhile: counted in the postmaster's reaped children
            }
        }
        return new long[] {user, system};
    }

    public static void main(String[] args) throws Exception {
        int postmaster = Integer.parseInt(args[0]);
        String url = "jdbc:postgresql://127.0.0.1:" + args[1] + "/";
        String strategy = args[2];
        int pages = Integer.parseInt(args[3]);
        boolean statements = args[4].equals("1");
        Properties admin = new Properties();
        admin.setProperty("user", "postgres");
        try (Connection connection = DriverManager.getConnection(url + "postgres", admin); Statement st = connection.createStatement()) {
            long[] before = serverTicks(postmaster);
            long create = 0, open = 0, run = 0, drop = 0;
            for (int i = 0; i < pages; i++) {
                String name = "floor_" + strategy.toLowerCase() + "_" + i;
                long t = System.nanoTime();
                st.execute("CREATE ROLE " + name + " LOGIN");
                st.execute("CREATE DATABASE " + name + " OWNER " + name + " TEMPLATE template1 STRATEGY " + strategy);
                create += System.nanoTime() - t;
                t = System.nanoTime();
                Properties page = new Properties();
                page.setProperty("user", name);
                page.setProperty("preferQueryMode", "simple");
                page.setProperty("assumeMinServerVersion", "9.0");
                try (Connection session = DriverManager.getConnection(url + name, page); Statement s = session.createStatement()) {
                    s.execute("SET TimeZone = 'UTC'; SET client_min_messages = log; SET debug_print_parse = on; SELECT name, boot_val"
                            + " FROM pg_catalog.pg_settings WHERE category LIKE 'Query Tuning%' AND setting IS DISTINCT FROM boot_val");
                    open += System.nanoTime() - t;
                    t = System.nanoTime();
                    for (int k = 0; statements && k < 10; k++) {
                        s.execute("CREATE TABLE t" + k + " (id int PRIMARY KEY, v text)");
                        s.execute("INSERT INTO t" + k + " SELECT g, 'v' || g FROM generate_series(1, 20) g");
                        s.executeQuery("SELECT count(*) FROM t" + k + " WHERE id > 10").close();
                    }
                    run += System.nanoTime() - t;
                }
                t = System.nanoTime();
                st.execute("DROP DATABASE " + name + " WITH (FORCE)");
                st.execute("DROP ROLE " + name);
                drop += System.nanoTime() - t;
            }
            Thread.sleep(500);
            long[] after = serverTicks(postmaster);
            System.out.printf("%s, %d pages, %s: server CPU per page %.1f ms user + %.1f ms system; client wall per page: create %.1f ms,"
                            + " session %.1f ms, statements %.1f ms, drop %.1f ms%n", strategy, pages,
                    statements ? "with the corpus' 30 statements" : "no statements", (after[0] - before[0]) * 10.0 / pages,
                    (after[1] - before[1]) * 10.0 / pages, create / 1e6 / pages, open / 1e6 / pages, run / 1e6 / pages, drop / 1e6 / pages);
        }
    }
}
