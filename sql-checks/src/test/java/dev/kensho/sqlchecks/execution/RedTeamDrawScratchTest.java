package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.model.Outcome;
import dev.kensho.sqlchecks.model.PageResult;
import org.junit.jupiter.api.Test;

import java.util.concurrent.Callable;

class RedTeamDrawScratchTest extends VerifierFixture {

    static final String HEADS = " heads \n-------\n t\n(1 row)\n";

    static void probe(String label, int tries, Callable<TestPage> page) throws Exception {
        for (int i = 0; i < tries; i++) {
            int before = verifier.secondDraws();
            PageResult r = page.call().run();
            StringBuilder sb = new StringBuilder("PROBE " + label + " try " + i + " second=" + (verifier.secondDraws() - before));
            for (Outcome o : r.outcomes()) {
                sb.append("\n   ").append(o.status());
                if (o.failure() != null) {
                    String m = o.failure().location() + " " + o.failure().message() + " || " + o.failure().detail();
                    sb.append(" ").append(m.length() > 600 ? m.substring(0, 600) : m);
                }
                if (o.snippet().directives().showResult()) {
                    sb.append(" SHOWN=").append(o.results().stream().map(t -> t.rows().toString()).toList());
                }
            }
            System.out.println(sb);
        }
    }

    @Test
    void k_usesIndexMany() throws Exception {
        String setup = "CREATE TABLE t (x int);\nINSERT INTO t SELECT g FROM generate_series(1, CASE WHEN random() < 0.5 THEN 10 ELSE 100000 END) g;\nCREATE INDEX t_x ON t (x);\nANALYZE t;";
        probe("usesIndexMany", 24, () -> page().add("", setup).add("uses-index=t_x", "SELECT x FROM t WHERE x = 5;"));
    }

    @Test
    void l_misc() throws Exception {
        probe("plpgsqlTrigger", 4, () -> page()
                .add("", "CREATE TABLE coin (heads boolean);\nDO $$ BEGIN EXECUTE format('CREATE FUNCTION flip() RETURNS trigger LANGUAGE plpgsql AS %L', 'BEGIN NEW.heads := ' || 'ran' || 'dom' || '() < 0.5; RETURN NEW; END'); END $$;\nCREATE TRIGGER flip BEFORE INSERT ON coin FOR EACH ROW EXECUTE FUNCTION flip();")
                .add("", "INSERT INTO coin VALUES (NULL);")
                .add("", "SELECT heads FROM coin;", HEADS));
        probe("prepared", 1, () -> page().add("", "SELECT random() BETWEEN 0 AND 1 AS heads;", HEADS)
                .add("", "BEGIN;\nCREATE TABLE p (x int);\nPREPARE TRANSACTION 'redteam';"));
        probe("orderRandom", 3, () -> page().add("result", "SELECT g FROM generate_series(1, 3) g ORDER BY random();"));
        probe("blame", 2, () -> page().add("", "SELECT random() BETWEEN 0 AND 1 AS heads;", HEADS)
                .add("result", "SELECT pg_export_snapshot() AS s;"));
        probe("blameParallel", 3, () -> page().add("", "SELECT random() BETWEEN 0 AND 1 AS heads;\nCREATE TABLE big AS SELECT g FROM generate_series(1, 2000000) g;\nANALYZE big;", HEADS)
                .add("result", "SELECT string_agg(g::text, ',') AS s FROM big WHERE g % 250000 = 0;"));
    }

    @Test
    void m_extensions() throws Exception {
        try (Verifier ext = Verifier.start(new dev.kensho.sqlchecks.postgres.EmbeddedPostgres(),
                new VerifierSettings(java.time.Duration.ofSeconds(10), java.time.Duration.ofSeconds(60), 1L << 30, java.util.List.of("pgcrypto", "uuid-ossp")))) {
            Verifier saved = verifier;
            verifier = ext;
            try {
                probe("pgcryptoDyn", 6, () -> page()
                        .add("", "DO $$ BEGIN EXECUTE 'CREATE TABLE coin AS SELECT get_byte(gen_' || 'random_bytes(1), 0) < 128 AS heads'; END $$;")
                        .add("", "SELECT heads FROM coin;", HEADS));
                probe("uuidOsspDyn", 6, () -> page()
                        .add("", "DO $$ BEGIN EXECUTE 'CREATE TABLE coin AS SELECT get_byte(uuid_send(uuid_generate_' || 'v4()), 0) < 128 AS heads'; END $$;")
                        .add("", "SELECT heads FROM coin;", HEADS));
                probe("pgpEncrypt", 6, () -> page()
                        .add("", "SELECT get_byte(e, length(e) - 1) < 128 AS heads FROM (SELECT pgp_sym_encrypt('x', 'k') AS e) s;", HEADS));
            } finally {
                verifier = saved;
            }
        }
    }
}
