/** psql's rules for text: the one SQL lexer and statement splitter, and psql's aligned result format. */
package dev.kensho.sqlchecks.script;
