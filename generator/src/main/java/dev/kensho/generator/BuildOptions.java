package dev.kensho.generator;

import dev.kensho.generator.verify.CacheSecret;
import dev.kensho.generator.verify.Shard;
import dev.kensho.sqlchecks.execution.VerifierSettings;

import java.nio.file.Path;

/**
 * What to build and how; immutable.
 *
 * @param content  lesson sources
 * @param theme    a theme folder over the built-in theme, file by file, or null for the built-in theme alone
 * @param out      the site folder, replaced only by a successful build
 * @param postgres "auto", "embedded", "container" or a JDBC URL
 * @param image    container image for the container provider
 * @param report   where the JSON report goes
 * @param render   false for {@code check}: verify only, write no site
 * @param limits   statement and lock timeouts for snippets
 * @param shard    which share of the pages to verify ({@link Shard#ALL} for every page)
 * @param junitXml folder for a JUnit XML report, or null for none
 * @param cache    folder of the verification cache, or null to run every page
 * @param jobs     pages verified and rendered at once
 * @param cacheSecret the key that signs the cache's entries ({@link CacheSecret})
 * @param freshTimeDependent whether pages whose SQL reads the clock or chance run whatever the cache holds (in CI,
 *                    so that the build that publishes a site checks its clock claims that day and draws again)
 * @param postgresVersion the one PostgreSQL major version to check on ({@code --postgres-version}), or 0 for every one site.yml names
 */
public record BuildOptions(Path content, Path theme, Path out, String postgres, String image, Path report,
                           boolean render, VerifierSettings limits, Shard shard, Path junitXml, Path cache, int jobs,
                           CacheSecret cacheSecret, boolean freshTimeDependent, int postgresVersion) {

    /** Options under which a clock- or chance-reading page's cached outcome is reused as site.yml allows, on every version named. */
    public BuildOptions(Path content, Path theme, Path out, String postgres, String image, Path report,
                        boolean render, VerifierSettings limits, Shard shard, Path junitXml, Path cache, int jobs,
                        CacheSecret cacheSecret) {
        this(content, theme, out, postgres, image, report, render, limits, shard, junitXml, cache, jobs, cacheSecret, false, 0);
    }

    /** The same options, checking on PostgreSQL {@code major} alone. */
    public BuildOptions onVersion(int major) {
        return new BuildOptions(content, theme, out, postgres, image, report, render, limits, shard, junitXml, cache, jobs, cacheSecret,
                freshTimeDependent, major);
    }

    /** Options whose cache entries are signed with the secret this process's environment names. */
    public BuildOptions(Path content, Path theme, Path out, String postgres, String image, Path report,
                        boolean render, VerifierSettings limits, Shard shard, Path junitXml, Path cache, int jobs) {
        this(content, theme, out, postgres, image, report, render, limits, shard, junitXml, cache, jobs, CacheSecret.of(System.getenv()));
    }
}
