#!/usr/bin/env python3
"""Counts the code points whose case maps or character classes differ between two tables of codepoints.sql.

usage: python3 bench/ctype/compare.py BUILD_TABLE PGLITE_TABLE
The build's table: psql -At -F '|' -v ON_ERROR_STOP=1 -f <(sed 's/CODEPOINTS/generate_series(1, 1114111)/'
sql-checks/src/main/resources/dev/kensho/sqlchecks/execution/ctype/codepoints.sql)
on a database created LC_COLLATE 'C' LC_CTYPE 'C.UTF-8' (or another ctype, to compare it)."""
import sys
from collections import Counter

NAMES = 'cp u l uc lc ic al dg sp up lo pu an w ci il pr gr'.split()
RANGES = [(0x80, 0x24F, 'Latin 0x80-0x24F'), (0x3000, 0x30FF, 'kana, CJK punctuation'),
          (0x4E00, 0x9FFF, 'CJK 0x4E00-0x9FFF'), (0xFF00, 0xFFEF, 'full-width'), (0x1F000, 0x1FAFF, 'emoji')]


def table(path):
    with open(path, encoding='utf-8') as f:
        return {int(fields[0]): fields for fields in (line.rstrip('\n').split('|') for line in f if line.strip())}


build, pglite = table(sys.argv[1]), table(sys.argv[2])


def compare(columns, title):
    by_column, differing, case = Counter(), set(), set()
    for cp, b in build.items():
        p = pglite.get(cp)
        if p is None:
            continue
        for i in range(1, len(NAMES)):
            if NAMES[i] in columns and b[i] != p[i]:
                by_column[NAMES[i]] += 1
                differing.add(cp)
                if NAMES[i] in ('uc', 'lc', 'ic', 'ci', 'il'):
                    case.add(cp)
    print(f'{title}: code points compared {len(build)}; differing in any column {len(differing)}; in case mapping or '
          f'case-insensitive match {len(case)}')
    print('  by column: ' + ', '.join(f'{k} {v}' for k, v in by_column.most_common()))
    print('  ' + '; '.join(f'{name} {sum(1 for cp in differing if first <= cp <= last)}' for first, last, name in RANGES))


compare(set(NAMES[1:]) - {'pr', 'gr'}, 'without [[:print:]] and [[:graph:]] (PGlite counts unassigned code points as both)')
compare(set(NAMES[1:]), 'every column')
