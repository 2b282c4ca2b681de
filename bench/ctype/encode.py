#!/usr/bin/env python3
"""Turns pglite.mjs's table (every code point, codepoints.sql's columns) into the resource sql-checks ships:
PGlite 0.5.16's character type, run-length coded and gzipped, read by PlaygroundCharacterTypes.

usage: python3 bench/ctype/encode.py pglite.txt [OUT]
OUT defaults to sql-checks/src/main/resources/dev/kensho/sqlchecks/execution/ctype/pglite-0.5.16.ctype.gz

Format (UTF-8 text, gzipped): a first line naming the columns, then one line per run of consecutive code points whose
rows are alike once each case map is written relative to its code point:
    GAP LENGTH FLAGS UC LC IC
GAP    code points left out before the run (surrogates), counted from the end of the run before (from 0 for the first)
LENGTH code points in the run
FLAGS  the boolean columns u l al dg sp up lo pu an w ci il pr gr as bits, u the lowest, in hexadecimal
UC/LC/IC  upper, lower, initcap of the character: '=' the character itself, '+N'/'-N' one code point N after or
       before it, else the code points themselves, dot-joined, as the query prints them
"""
import gzip
import sys

COLUMNS = 'cp u l uc lc ic al dg sp up lo pu an w ci il pr gr'.split()
FLAGS = [c for c in COLUMNS[1:] if c not in ('uc', 'lc', 'ic')]
DEFAULT_OUT = 'sql-checks/src/main/resources/dev/kensho/sqlchecks/execution/ctype/pglite-0.5.16.ctype.gz'


def relative(cp, mapped):
    points = mapped.split('.')
    if len(points) == 1:
        delta = int(points[0]) - cp
        return '=' if delta == 0 else f'{delta:+d}'
    return mapped


def key(fields):
    cp = int(fields[0])
    flags = 0
    for bit, name in enumerate(FLAGS):
        value = fields[COLUMNS.index(name)]
        if value not in ('t', 'f'):
            raise ValueError(f'code point {cp}: column {name} is {value!r}')
        flags |= (value == 't') << bit
    return f'{flags:x} ' + ' '.join(relative(cp, fields[COLUMNS.index(c)]) for c in ('uc', 'lc', 'ic'))


def main():
    source = sys.argv[1]
    out = sys.argv[2] if len(sys.argv) > 2 else DEFAULT_OUT
    runs = []  # [start, length, key]
    count = 0
    with open(source, encoding='utf-8') as f:
        for line in f:
            if not line.strip():
                continue
            fields = line.rstrip('\n').split('|')
            if len(fields) != len(COLUMNS):
                raise ValueError(f'{len(fields)} columns, not {len(COLUMNS)}: {line!r}')
            cp, k = int(fields[0]), key(fields)
            count += 1
            if runs and runs[-1][0] + runs[-1][1] == cp and runs[-1][2] == k:
                runs[-1][1] += 1
            else:
                if runs and cp < runs[-1][0] + runs[-1][1]:
                    raise ValueError(f'code point {cp} out of order')
                runs.append([cp, 1, k])
    lines = ['#' + ' '.join(['gap', 'length', 'flags:' + ','.join(FLAGS), 'uc', 'lc', 'ic'])]
    end = 0
    for start, length, k in runs:
        lines.append(f'{start - end} {length} {k}')
        end = start + length
    data = ('\n'.join(lines) + '\n').encode('utf-8')
    # mtime 0: the same table gives the same bytes.
    with open(out, 'wb') as f:
        f.write(gzip.compress(data, compresslevel=9, mtime=0))
    print(f'{count} code points, {len(runs)} runs, {len(data)} bytes, {len(gzip.compress(data, 9, mtime=0))} gzipped: {out}')


if __name__ == '__main__':
    main()
