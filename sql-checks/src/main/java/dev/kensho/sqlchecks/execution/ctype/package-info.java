/**
 * Whether the characters a page holds are treated alike by the build's server and by the browser playground: case maps,
 * initcap, the regular expressions' character classes, {@code ~*} and {@code ILIKE}, per code point. The build's C library
 * and PGlite's differ on rare code points; a page holding one is not marked ({@link
 * dev.kensho.sqlchecks.execution.ctype.CharacterTypeCheck}).
 */
package dev.kensho.sqlchecks.execution.ctype;
