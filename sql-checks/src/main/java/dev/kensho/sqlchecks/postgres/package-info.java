/** Where PostgreSQL 18 comes from: embedded binaries, a Testcontainers container or an existing server, chosen at run time. */
package dev.kensho.sqlchecks.postgres;
