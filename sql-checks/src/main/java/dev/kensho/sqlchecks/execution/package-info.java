/**
 * How a page is run: {@link dev.kensho.sqlchecks.execution.Verifier} (the entry point) gives each page
 * a throw-away database and role, runs its snippets and scenarios on real PostgreSQL under Kensho's
 * limits, captures each claimed statement's plans with auto_explain, tracks the conditions hidden
 * setup left behind, and asks the server how rows are ordered. Uses model and assertion.
 */
package dev.kensho.sqlchecks.execution;
