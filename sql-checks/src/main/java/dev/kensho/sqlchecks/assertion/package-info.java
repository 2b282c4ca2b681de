/**
 * Judging claims against what happened: rows compared in psql's terms and in the order the server
 * decided, plan and work claims read off the captured plans of one execution, bounded regular
 * expressions. Reads the model; never runs SQL.
 */
package dev.kensho.sqlchecks.assertion;
