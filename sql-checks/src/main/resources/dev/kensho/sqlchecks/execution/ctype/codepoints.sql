-- One row per code point (surrogates left out): what the character type decides. Case maps and initcap as dot-joined
-- code points, so that both sides print them alike. Run on a database of the page locale (LC_CTYPE C.UTF-8).
-- The code points come as a set of integers in place of the upper-case word in cps below: Kensho asks the build's server with unnest(?::int[]) (ServerCharacterTypes), the bench
-- PGlite with generate_series (bench/ctype/pglite.mjs). The one text both sides run; PGlite's rows ship in
-- pglite-0.5.16.ctype.gz beside it (bench/ctype/encode.py), so a change here needs that file made again.
WITH cps AS (SELECT cp FROM CODEPOINTS cp WHERE cp NOT BETWEEN 55296 AND 57343),
ch AS (SELECT cp, chr(cp) c FROM cps)
SELECT cp, upper(c) <> c AS u, lower(c) <> c AS l,
  (SELECT string_agg(ascii(x)::text, '.') FROM regexp_split_to_table(upper(c), '') x) AS uc,
  (SELECT string_agg(ascii(x)::text, '.') FROM regexp_split_to_table(lower(c), '') x) AS lc,
  (SELECT string_agg(ascii(x)::text, '.') FROM regexp_split_to_table(initcap(c), '') x) AS ic,
  c ~ '[[:alpha:]]' AS al, c ~ '[[:digit:]]' AS dg, c ~ '[[:space:]]' AS sp, c ~ '[[:upper:]]' AS up,
  c ~ '[[:lower:]]' AS lo, c ~ '[[:punct:]]' AS pu, c ~ '[[:alnum:]]' AS an, c ~ '\w' AS w,
  CASE WHEN cp > 127 THEN upper(c) ~* c ELSE true END AS ci,
  CASE WHEN cp > 127 THEN c ILIKE upper(c) ELSE true END AS il,
  c ~ '[[:print:]]' AS pr, c ~ '[[:graph:]]' AS gr
FROM ch
ORDER BY cp
