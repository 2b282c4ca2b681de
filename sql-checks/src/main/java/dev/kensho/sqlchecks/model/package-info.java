/**
 * What a page claims and what happened: snippets with their directives, expected rows and scenarios
 * (parsed from the author's text), and the outcomes, failures, checked assertions, result tables and
 * captured plans a run produced. Plain values; nothing here talks to a server.
 */
package dev.kensho.sqlchecks.model;
