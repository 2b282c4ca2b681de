#!/usr/bin/env python3
"""PostgreSQL's own regression tests as Kensho pages, and what Kensho says of them.

Every statement of src/test/regress/sql/TEST.sql becomes a snippet of content/TEST.md. What the statement
printed in expected/TEST.out (pg_regress runs psql -X -a -q, so the file is the input echoed with each
statement's output after its last line) becomes its claim:
  - a table                      -> a ```rows fence (psql's own table, NULL shown as (null); see below)
  - ERROR:  message              -> expect-error=SQLSTATE error-matches="^message$"
  - nothing                      -> no claim (the snippet must still run without an error)
The expected file does not say which empty cell is NULL nor which SQLSTATE an error has, so each test is
replayed first with psql on PostgreSQL 18.6 (`replay`: the same hidden setup, pg_regress's session settings,
`\\pset null '(null)'` and `VERBOSITY verbose`). A claim is written only when the replay printed what the
expected file shows (cell for cell, an empty cell there being NULL or '' here; the same error message): the
expected file is the ground truth, the replay only supplies what it leaves out. Statements whose replay
differs from the expected file (an object another test of the schedule made, say) get no claim and are
counted as "not reproduced".

Not converted (counted per test): psql meta-commands (\\d, \\set, ...), statements using psql variables,
statements ending in \\g... commands, and output shown in another format (\\x, \\pset).
All pages share one hidden setup (setup.sql, made from test_setup.sql with the data files as INSERTs and the
onek/tenk indexes of create_index.sql), run as the page's first snippet.

Usage:
  regress.py convert OUT_SITE TEST...     write OUT_SITE/content/TEST.md (replays first; needs --pg)
  regress.py tally OUT_SITE REPORT.json   claims passed/failed per page from `kensho check --report`
Options: --src DIR (default /work/pgsrc/postgresql-18.6/src/test/regress),
         --pg "host=/tmp/regress-pg port=54329 user=postgres" (a PostgreSQL 18.6 server for the replay;
         the replay runs as a non-superuser role it creates, in a database per test, dropped after)
"""
import argparse
import json
import os
import re
import subprocess
import sys

DEFAULT_SRC = "/work/pgsrc/postgresql-18.6/src/test/regress"
REGRESS_SRC = [DEFAULT_SRC]  # the replay's PG_ABS_SRCDIR (its COPY reads the data files, as pg_regress's does)

# ---------------------------------------------------------------------------------------------- splitting


# Lines that start inside a quote, a dollar quote or a comment (psql echoes those even when empty); filled by
# split_statements for the script it last split.
QUOTED_LINES = set()


def split_statements(lines):
    """psql's splitting of a script: returns items (kind, first_line, last_line, text).

    kind is 'sql' for a statement ended by ';' (or a \\g-family command: 'sqlmeta'), 'meta' for a backslash
    command. Quotes ('', E'', "", $tag$), comments (--, nested /* */) and parentheses are honoured as psql's
    lexer does; a backslash outside them starts a meta-command that runs to the end of the line.
    """
    QUOTED_LINES.clear()
    words = []
    begin_depth = 0
    items = []
    buf = []
    start = None
    depth = 0
    state = None  # None, "'", "e'", '"', '/*', '$tag$'
    comment_depth = 0
    for ln, line in enumerate(lines):
        if state is not None:
            QUOTED_LINES.add(ln)
        i = 0
        n = len(line)
        if start is None and line.strip() == "":
            continue
        while i < n:
            c = line[i]
            if state is None:
                if c == '-' and line.startswith('--', i):
                    if start is not None:
                        buf.append(line[i:])
                    break
                if start is None and not c.isspace():
                    start = ln
                if c == '/' and line.startswith('/*', i):
                    state = '/*'
                    comment_depth = 1
                    buf.append('/*')
                    i += 2
                    continue
                if c == "'":
                    prev = line[i - 1] if i > 0 else ''
                    state = "e'" if prev in 'eE' and (i < 2 or not (line[i - 2].isalnum() or line[i - 2] == '_')) else "'"
                    buf.append(c)
                    i += 1
                    continue
                if c == '"':
                    state = '"'
                    buf.append(c)
                    i += 1
                    continue
                if c == '$':
                    m = re.match(r'\$([A-Za-z_][A-Za-z0-9_]*)?\$', line[i:])
                    prev = line[i - 1] if i > 0 else ''
                    if m and not (prev.isalnum() or prev == '_'):
                        state = m.group(0)
                        buf.append(state)
                        i += len(state)
                        continue
                if (c.isalpha() or c == '_') and not (i > 0 and (line[i - 1].isalnum() or line[i - 1] in '_$')):
                    # Words, for psql's BEGIN ATOMIC heuristic: in CREATE [OR REPLACE] FUNCTION|PROCEDURE, BEGIN and
                    # CASE open a block that END closes, and a ';' inside it does not end the statement.
                    word = re.match(r'[A-Za-z_][A-Za-z0-9_$]*', line[i:]).group(0)
                    upper = word.upper()
                    if len(words) < 4:
                        words.append(upper)
                    creates_routine = words[:1] == ['CREATE'] and any(w in ('FUNCTION', 'PROCEDURE') for w in words[1:4])
                    if creates_routine:
                        if upper == 'BEGIN' or (upper == 'CASE' and begin_depth > 0):
                            begin_depth += 1
                        elif upper == 'END' and begin_depth > 0:
                            begin_depth -= 1
                    buf.append(word)
                    i += len(word)
                    continue
                if c == '(':
                    depth += 1
                elif c == ')':
                    depth = max(0, depth - 1)
                elif c == ';' and depth == 0 and begin_depth == 0:
                    buf.append(';')
                    items.append(('sql', start, ln, ''.join(buf).strip()))
                    buf = []
                    words = []
                    start = None
                    i += 1
                    continue
                elif c == '\\':
                    meta = line[i:].strip()
                    text = ''.join(buf).strip()
                    if text:
                        items.append(('sqlmeta', start, ln, text + ' ' + meta))
                    else:
                        items.append(('meta', ln, ln, meta))
                    buf = []
                    words = []
                    start = None
                    depth = 0
                    begin_depth = 0
                    break
                buf.append(c)
                i += 1
            elif state == '/*':
                if line.startswith('*/', i):
                    comment_depth -= 1
                    buf.append('*/')
                    i += 2
                    if comment_depth == 0:
                        state = None
                    continue
                if line.startswith('/*', i):
                    comment_depth += 1
                    buf.append('/*')
                    i += 2
                    continue
                buf.append(c)
                i += 1
            elif state in ("'", "e'"):
                if state == "e'" and c == '\\' and i + 1 < n:
                    buf.append(line[i:i + 2])
                    i += 2
                    continue
                if c == "'":
                    if i + 1 < n and line[i + 1] == "'":
                        buf.append("''")
                        i += 2
                        continue
                    state = None
                buf.append(c)
                i += 1
            elif state == '"':
                if c == '"':
                    state = None
                buf.append(c)
                i += 1
            else:  # dollar quote
                if line.startswith(state, i):
                    buf.append(state)
                    i += len(state)
                    state = None
                    continue
                buf.append(c)
                i += 1
        if start is not None:
            buf.append('\n')
    if ''.join(buf).strip():
        items.append(('sql', start, len(lines) - 1, ''.join(buf).strip()))
    return items


# ---------------------------------------------------------------------------------------------- alignment


def align_outputs(sql_lines, out_lines, ending_lines):
    """For each input line index, the output lines psql printed after echoing it (psql -a echoes every line
    but an empty one outside quotes: MainLoop skips those before echoing)."""
    echoed = [(i, line) for i, line in enumerate(sql_lines) if line != '' or i in QUOTED_LINES]
    texts = [line for _, line in echoed]
    outputs = {}
    e = 0
    for j, (i, line) in enumerate(echoed):
        # Output stands between the previous line's echo and this one's: the first place where the next few
        # input lines are echoed in order.
        look = []
        for i2, line2 in echoed[j:j + 6]:
            look.append(line2)
            if i2 in ending_lines:
                break
        k = e
        while k < len(out_lines):
            if out_lines[k:k + len(look)] == look:
                break
            k += 1
        if k >= len(out_lines):
            raise ValueError(f"input line {i + 1} is not echoed in the expected output")
        if j > 0:
            outputs[echoed[j - 1][0]] = out_lines[e:k]
        e = k + 1
    if echoed and e < len(out_lines):
        outputs[echoed[-1][0]] = out_lines[e:]
    return outputs


MESSAGE = re.compile(r'^(ERROR|WARNING|NOTICE|INFO|DETAIL|HINT|CONTEXT|LINE \d+|QUERY|LOCATION|STATEMENT):  ?')
DASHES = re.compile(r'^-+(\+-+)*$')
FOOTER = re.compile(r'^\((\d+) rows?\)$')


def parse_block(block):
    """A statement's output: ('empty',), ('table', lines), ('error', message, sqlstate or None), ('other', lines)."""
    lines = list(block)
    # Messages (notices before a result, an error) and the lines that continue them.
    rest = []
    error = None
    sqlstate = None
    i = 0
    while i < len(lines):
        line = lines[i]
        m = MESSAGE.match(line)
        if m:
            kind = m.group(1)
            if kind == 'ERROR':
                msg = line[m.end():]
                sm = re.match(r'^([0-9A-Z]{5}): (.*)$', msg)
                if sm:
                    sqlstate, msg = sm.group(1), sm.group(2)
                if error is None:
                    error = msg
            i += 1
            # A caret line under LINE n:, and continuation lines of a message, belong to it.
            while i < len(lines) and not MESSAGE.match(lines[i]) and not (i + 1 < len(lines) and DASHES.match(lines[i + 1])) \
                    and lines[i] != '' and not FOOTER.match(lines[i]) and not DASHES.match(lines[i]) and (kind != 'ERROR' or lines[i].startswith(' ')):
                i += 1
            continue
        rest.append(line)
        i += 1
    if error is not None:
        return ('error', error, sqlstate) if not any(r.strip() for r in rest) else ('other', lines)
    while rest and rest[-1] == '':
        rest.pop()
    if not rest:
        return ('empty',)
    if (len(rest) >= 3 and DASHES.match(rest[1]) and FOOTER.match(rest[-1])) or (rest[0] == '--' and FOOTER.match(rest[-1])):
        if sum(1 for r in rest if FOOTER.match(r)) == 1:
            return ('table', rest)
    return ('other', rest)


def table_cells(table):
    """Cells of a psql table, split by the dashes line's '+' positions (display widths ignored: used to compare
    the expected file's table with the replay's, which differ only where NULL is shown)."""
    if table[0] == '--':
        return ([], [[] for _ in range(int(FOOTER.match(table[-1]).group(1)))])
    header = [h.strip() for h in table[0].split('|')]
    rows = []
    for line in table[2:-1]:
        rows.append(line)
    return header, rows


def same_modulo_null(expected, replay):
    """The replay's table shows what the expected one does, NULL written (null) there and empty here."""
    if len(expected) != len(replay):
        return False
    if expected[0].rstrip() != replay[0].rstrip() and '(null)' not in ''.join(replay):
        return False
    if expected[-1] != replay[-1]:
        return False
    for e, r in zip(expected[2:-1], replay[2:-1]):
        ec = [c.strip() for c in re.split(r'\s[|+]\s?|\s[|+]$', e)]
        rc = [c.strip() for c in re.split(r'\s[|+]\s?|\s[|+]$', r)]
        rc = ['' if c == '(null)' else c for c in rc]
        if ec != rc and e.replace(' ', '') != r.replace('(null)', '').replace(' ', ''):
            return False
    # Headers: the same names once padding is gone.
    return [h.strip() for h in expected[0].split('|')] == [h.strip() for h in replay[0].split('|')]


# ---------------------------------------------------------------------------------------------- setup

SETUP_SKIP = re.compile(r'^\s*(SET synchronous_commit|GRANT ALL ON SCHEMA public|SET allow_in_place_tablespaces|CREATE TABLESPACE|'
                        r'CREATE FUNCTION binary_coercible|CREATE OPERATOR CLASS|COPY )', re.I)


COPY_STDIN = re.compile(r'^\s*COPY\s.*\bFROM\s+stdin\b.*;\s*$', re.I)
COPY_STATEMENT = re.compile(r"^COPY\s+(\w+)\s*(\(([^)]*)\))?\s+FROM\s+(stdin|:'filename')\s*(NULL\s+'([^']*)')?\s*;$", re.I)


def unescape_copy(field):
    return re.sub(r'\\(.)', lambda m: {'t': '\t', 'n': '\n', 'r': '\r', 'b': '\b', 'f': '\f', 'v': '\v'}.get(m.group(1), m.group(1)), field)


def copy_as_insert(statement, data_lines):
    """A COPY (text format, from a data file or from stdin) as one INSERT over one string constant: pages cannot
    read the build machine's files nor send COPY data, and one constant keeps the statement small (Kensho reads
    its parse tree). The fields become a row by the columns' own input functions, as COPY's do: a record literal
    cast to the table's row type, or, for a column list, json_populate_record. None when the form is not handled."""
    m = COPY_STATEMENT.match(statement.strip())
    if not m:
        return None
    table, columns, null = m.group(1), m.group(3), m.group(6) if m.group(6) is not None else '\\N'
    records = []
    for line in data_lines:
        if line == '\\.':
            break
        fields = [None if f == null else unescape_copy(f) for f in line.split('\t')]
        if columns:
            records.append(json.dumps(fields, ensure_ascii=False))
        else:
            # Record literal: every value quoted (an empty one is '' then, not NULL), NULL left empty.
            records.append('(' + ','.join('' if f is None else '"' + f.replace('\\', '\\\\').replace('"', '\\"') + '"'
                                          for f in fields) + ')')
    data = '\n'.join(records)
    if '$data$' in data or '\n' in ''.join(records):
        return None
    if columns:
        names = [c.strip() for c in columns.split(',')]
        return (f"INSERT INTO {table} ({', '.join(names)}) SELECT r.* FROM regexp_split_to_table($data${data}$data$, E'\\n') AS l,\n"
                f"  LATERAL json_populate_record(NULL::{table}, json_object('{{{','.join(names)}}}'::text[], "
                f"ARRAY(SELECT json_array_elements_text(l::json)))) AS r0, LATERAL (SELECT {', '.join('r0.' + n for n in names)}) AS r;")
    return (f"INSERT INTO {table} SELECT r.* FROM regexp_split_to_table($data${data}$data$, E'\\n') AS l,\n"
            f"  LATERAL unnest(ARRAY[l::{table}]) AS r;")


def copy_file_as_insert(table, path):
    lines = open(path, encoding='utf-8').read().split('\n')
    if lines and lines[-1] == '':
        lines.pop()
    return copy_as_insert(f"COPY {table} FROM :'filename';", lines)


def build_setup(src):
    lines = open(os.path.join(src, 'sql/test_setup.sql'), encoding='utf-8').read().split('\n')
    out = []
    filename = None
    for kind, first, last, text in split_statements(lines):
        if kind == 'meta':
            m = re.match(r"\\set filename :abs_srcdir '/data/(\w+\.data)'", text)
            if m:
                filename = m.group(1)
            continue
        if kind != 'sql':
            continue
        m = re.match(r"COPY (\w+) FROM :'filename';", text)
        if m:
            out.append(copy_file_as_insert(m.group(1), os.path.join(src, 'data', filename)))
            continue
        if SETUP_SKIP.match(text):
            continue
        # LEAKPROOF needs a superuser; it only lets the planner push the function below security barriers.
        out.append(re.sub(r'\s+leakproof\b', '', text) if text.startswith('create function fipshash') else text)
    # The indexes of create_index.sql that most later tests' plans rely on (pg_regress runs it before them).
    ci = open(os.path.join(src, 'sql/create_index.sql'), encoding='utf-8').read().split('\n')
    for kind, first, last, text in split_statements(ci):
        if kind == 'sql' and re.match(r'CREATE INDEX (onek|tenk[12]|onek2)_\w+ ON (onek|tenk[12]|onek2) ', text):
            out.append(text)
    return '\n'.join(out) + '\n'


# pg_regress's session: PGTZ, PGDATESTYLE, PGOPTIONS (intervalstyle) and its ALTER DATABASE settings.
REGRESS_SETTINGS = ["SET TimeZone = 'America/Los_Angeles';", "SET IntervalStyle = 'postgres_verbose';",
                    "SET timezone_abbreviations = 'Default';", "SET bytea_output = 'hex';",
                    "SET lc_monetary = 'C';", "SET lc_numeric = 'C';", "SET lc_time = 'C';"]

# ---------------------------------------------------------------------------------------------- replay


def psql(conninfo, db, stdin, extra=()):
    args = ['psql', '-X', '-q', f'{conninfo} dbname={db}'] + list(extra)
    env = dict(os.environ, PGTZ='America/Los_Angeles', PGDATESTYLE='Postgres, MDY',
               PGOPTIONS='-c intervalstyle=postgres_verbose', LC_MESSAGES='C', PGAPPNAME='pg_regress',
               PG_ABS_SRCDIR=REGRESS_SRC[0])
    # As pg_regress runs it: errors (stderr) land among the results, where psql printed them.
    return subprocess.run(args, input=stdin, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
                          timeout=600).stdout


def replay(conninfo, test, sql_text, setup_sql):
    db = 'kensho_replay_' + test
    role = 'kensho_replay'
    admin = f'{conninfo} dbname=postgres'
    subprocess.run(['psql', '-X', '-q', admin, '-c', f'DROP DATABASE IF EXISTS {db}'], capture_output=True)
    subprocess.run(['psql', '-X', '-q', admin, '-c', f"DO $$BEGIN CREATE ROLE {role} LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END$$"],
                   capture_output=True)
    subprocess.run(['psql', '-X', '-q', admin, '-c', f'GRANT pg_read_server_files TO {role}'], check=True, capture_output=True)
    subprocess.run(['psql', '-X', '-q', admin, '-c', f'CREATE DATABASE {db} OWNER {role}'], check=True, capture_output=True)
    for s in ["lc_messages TO 'C'", "lc_monetary TO 'C'", "lc_numeric TO 'C'", "lc_time TO 'C'", "bytea_output TO 'hex'",
              "timezone_abbreviations TO 'Default'"]:
        subprocess.run(['psql', '-X', '-q', admin, '-c', f'ALTER DATABASE {db} SET {s}'], check=True, capture_output=True)
    user_conn = re.sub(r'user=\S+', f'user={role}', conninfo)
    setup_out = psql(user_conn, db, setup_sql, ['-v', 'ON_ERROR_STOP=1'])
    out = psql(user_conn, db, sql_text, ['-a', '-v', 'VERBOSITY=verbose', '-P', 'null=(null)',
                                         '-v', 'HIDE_TABLEAM=on', '-v', 'HIDE_TOAST_COMPRESSION=on'])
    subprocess.run(['psql', '-X', '-q', admin, '-c', f'DROP DATABASE IF EXISTS {db} WITH (FORCE)'], capture_output=True)
    return out, setup_out


# ---------------------------------------------------------------------------------------------- convert

def exact_message(message):
    """error-matches for exactly this message, as a fence value: regex metacharacters escaped for Java's regex, and
    the quote as \\" (the only escape Kensho's fence meta undoes)."""
    regex = '^' + re.sub(r'([\\.^$|?*+()\[\]{}])', r'\\\1', message) + '$'
    return '"' + regex.replace('"', '\\"') + '"'


def convert(args):
    src = args.src
    REGRESS_SRC[0] = src
    setup_sql = build_setup(src)
    content = os.path.join(args.out, 'content')
    os.makedirs(content, exist_ok=True)
    with open(os.path.join(args.out, 'setup.sql'), 'w', encoding='utf-8') as f:
        f.write(setup_sql)
    summary = {}
    for test in args.tests:
        sql_text = open(os.path.join(src, 'sql', test + '.sql'), encoding='utf-8').read()
        expected = open(os.path.join(src, 'expected', test + '.out'), encoding='utf-8').read()
        sql_lines = sql_text.split('\n')
        if sql_lines and sql_lines[-1] == '':
            sql_lines.pop()
        # COPY ... FROM stdin: its data lines are not echoed (psql sends them as data); set them aside.
        copy_data = {}
        i = 0
        while i < len(sql_lines):
            if COPY_STDIN.match(sql_lines[i]):
                j = i + 1
                data = []
                while j < len(sql_lines) and sql_lines[j] != '\\.':
                    data.append(sql_lines[j])
                    sql_lines[j] = ''
                    j += 1
                if j < len(sql_lines):
                    sql_lines[j] = ''
                copy_data[i] = data
                i = j
            i += 1
        items = split_statements(sql_lines)
        ending_lines = {item[2] for item in items}
        try:
            exp_outputs = align_outputs(sql_lines, expected.rstrip('\n').split('\n'), ending_lines)
        except ValueError as err:
            print(f'{test}: not converted: the expected file cannot be aligned with the input: {err}', flush=True)
            continue
        rep_text, setup_out = replay(args.pg, test, sql_text, '\n'.join(REGRESS_SETTINGS) + '\n' + setup_sql)
        if 'ERROR' in setup_out:
            sys.exit(f'setup failed in the replay: {setup_out[:2000]}')
        try:
            rep_outputs = align_outputs(sql_lines, rep_text.rstrip('\n').split('\n'), ending_lines)
        except ValueError as err:
            print(f'{test}: not converted: the replay cannot be aligned with the input: {err}', flush=True)
            continue
        ends = {}
        for item in items:
            ends.setdefault(item[2], []).append(item)
        stats = dict(statements=0, rows=0, errors=0, plain=0, not_reproduced=0, meta=0, psql_variables=0,
                     several_on_a_line=0, other_format=0, copy=0, combined_queries=0)
        data_file = None
        body = ['---', f'title: "regress: {test}"', '---', '',
                f'PostgreSQL 18.6 `src/test/regress/sql/{test}.sql`, with its `expected/{test}.out` as claims.', '',
                '```sql setup hidden', '\n'.join(REGRESS_SETTINGS), setup_sql.rstrip('\n'), '```', '']
        formatted = False
        for item in items:
            kind, first, last, text = item
            if kind == 'meta':
                m = re.match(r"\\set filename :abs_srcdir '/data/(\w+\.data)'", text)
                if m:
                    data_file = os.path.join(src, 'data', m.group(1))
                stats['meta'] += 1
                if re.match(r'\\(x|pset|a\b|t\b|H\b|C\b|f\b)', text):
                    formatted = True
                continue
            copy = None
            if COPY_STATEMENT.match(text) and last in copy_data:
                copy = copy_as_insert(text, copy_data[last])
            elif COPY_STATEMENT.match(text) and ":'filename'" in text and data_file:
                copy = copy_as_insert(text, open(data_file, encoding='utf-8').read().split('\n')[:-1])
            if copy:
                stats['statements'] += 1
                stats['copy'] += 1
                body += [f'<!-- {test}.sql:{first + 1}: {text} (its data as one INSERT) -->', '```sql', copy, '```', '']
                continue
            if kind == 'sqlmeta' and '\\;' in text:
                # psql's \; sends the statements as one query string (one implicit transaction); a snippet cannot.
                stats['combined_queries'] += 1
                body += [f'<!-- {test}.sql:{first + 1}: not converted (psql \\; query string): {text[:200]} -->', '']
                continue
            if kind == 'sqlmeta' or re.search(r"(?<![:\w]):'?[A-Za-z_]\w*'?", re.sub(r"'[^']*'|::\w+", '', text)):
                stats['psql_variables' if kind == 'sql' else 'meta'] += 1
                continue
            stats['statements'] += 1
            exp = parse_block(exp_outputs.get(last, []))
            rep = parse_block(rep_outputs.get(last, []))
            if len(ends[last]) > 1 and exp[0] != 'empty':
                stats['several_on_a_line'] += 1
                # Each still runs; none carries the line's output as its claim.
                exp = ('none',)
            meta = ''
            rows = None
            if exp[0] == 'empty' or exp[0] == 'none':
                stats['plain'] += 1
                if exp[0] == 'empty' and rep[0] == 'error':
                    stats['not_reproduced'] += 1
                    stats['plain'] -= 1
                    body += [f'<!-- line {first + 1}: not reproduced by the replay: {rep[1][:200]} -->', '']
                    continue
            elif exp[0] == 'error':
                if rep[0] == 'error' and rep[1] == exp[1] and rep[2]:
                    meta = f' expect-error={rep[2]} error-matches={exact_message(exp[1])}'
                    stats['errors'] += 1
                else:
                    stats['not_reproduced'] += 1
                    body += [f'<!-- line {first + 1}: not reproduced by the replay -->', '']
                    continue
            elif exp[0] == 'table':
                if formatted:
                    stats['other_format'] += 1
                    continue
                if rep[0] == 'table' and (rep[1] == exp[1] or same_modulo_null(exp[1], rep[1])):
                    rows = rep[1]
                    stats['rows'] += 1
                else:
                    stats['not_reproduced'] += 1
                    body += [f'<!-- line {first + 1}: not reproduced by the replay -->', '']
                    continue
            else:
                stats['other_format'] += 1
                continue
            body += [f'<!-- {test}.sql:{first + 1} -->', '```sql' + meta, text, '```']
            if rows is not None:
                body += ['', '```rows'] + rows + ['```']
            body.append('')
        with open(os.path.join(content, test + '.md'), 'w', encoding='utf-8') as f:
            f.write('\n'.join(body))
        summary[test] = stats
        print(test, json.dumps(stats), flush=True)
    with open(os.path.join(args.out, 'conversion.json'), 'w') as f:
        json.dump(summary, f, indent=1)


# ---------------------------------------------------------------------------------------------- tally

def classify(message):
    """A failure's class, from Kensho's message (first match wins)."""
    rules = [('DateStyle (Kensho needs ISO; pg_regress uses Postgres)', r'DateStyle to begin with ISO'),
             ('skipped after an earlier failure', r'^$'),
             ('error message differs', r'the error message'),
             ('SQLSTATE differs / no error', r'expected .*SQLSTATE|expected to fail|fails with|succeeded'),
             ('rows differ', r'rows differ|columns differ|row count|expected rows'),
             ('rows fence refused', r'psql-style|cell\(s\)|dashed line'),
             ('plan/conditions', r'plan|planner|conditions'),
             ('unexpected error', r'.')]
    for name, pattern in rules:
        if re.search(pattern, message or ''):
            return name
    return 'other'


def tally(args):
    """Claims per page: a claim is a rows fence or an expect-error; passed, failed, or not run (skipped)."""
    report = json.load(open(args.report, encoding='utf-8'))
    pages = {}
    classes = {}
    for s in report['snippets']:
        if s['kind'] != 'sql':
            continue
        page = os.path.basename(s['file'])[:-3]
        names = [a['assertion'] for a in (s.get('assertions') or [])]
        lines = _page_lines(args.out, s['file'])
        fence = s['line'] - 1  # the report gives the statement's line (an error's position): find its fence
        while fence > 0 and not lines[fence].startswith('```sql'):
            fence -= 1
        is_claim = 'expect-error=' in lines[fence] or _rows_follows(args.out, s['file'], fence + 1)
        p = pages.setdefault(page, dict(claims=0, passed=0, failed=0, skipped=0, statements_failed=0))
        if not is_claim:
            if s['status'] == 'failed':
                p['statements_failed'] += 1
                key = classify(s.get('message'))
                classes.setdefault(key, []).append(f"{s['file']}:{s['line']}: {(s.get('message') or '')[:160]}")
            continue
        p['claims'] += 1
        p[s['status'] if s['status'] in ('passed', 'failed') else 'skipped'] += 1
        if s['status'] == 'failed':
            key = classify(s.get('message'))
            if key == 'rows differ' and POSTGRES_DATES.search('\n'.join(_rows_fence(lines, fence))):
                # The page cannot set pg_regress's DateStyle = 'Postgres, MDY' (Kensho needs ISO): dates print otherwise.
                key = 'DateStyle (Kensho needs ISO; pg_regress uses Postgres)'
            classes.setdefault(key, []).append(f"{s['file']}:{s['line']}: {(s.get('message') or '')[:160]}")
    total = dict(claims=0, passed=0, failed=0, skipped=0, statements_failed=0)
    print('| page | claims | passed | failed | not run | claimless statements failed |')
    print('|---|---|---|---|---|---|')
    for page, p in sorted(pages.items()):
        print(f"| {page} | {p['claims']} | {p['passed']} | {p['failed']} | {p['skipped']} | {p['statements_failed']} |")
        for k in total:
            total[k] += p[k]
    print(f"| **total** | {total['claims']} | {total['passed']} | {total['failed']} | {total['skipped']} | {total['statements_failed']} |")
    print()
    for name, items in sorted(classes.items(), key=lambda kv: -len(kv[1])):
        print(f'{name}: {len(items)}')
        for item in items[:args.examples]:
            print('   ', item)


_LINES = {}
POSTGRES_DATES = re.compile(r'\b(Mon|Tue|Wed|Thu|Fri|Sat|Sun) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d\d|\b\d\d-\d\d-\d{4}\b')


def _rows_fence(lines, fence):
    """The rows fence after the sql fence opening at index `fence`."""
    i = fence + 1
    while i < len(lines) and lines[i] != '```':
        i += 1
    i += 1
    while i < len(lines) and lines[i] == '':
        i += 1
    if i >= len(lines) or lines[i] != '```rows':
        return []
    j = lines.index('```', i + 1)
    return lines[i + 1:j]


def _page_lines(out, file):
    if file not in _LINES:
        _LINES[file] = open(os.path.join(out, file), encoding='utf-8').read().split('\n')
    return _LINES[file]


def _rows_follows(out, file, line):
    """Whether the fence opening at `line` is followed, after its closing fence, by a rows fence."""
    lines = _page_lines(out, file)
    i = line
    while i < len(lines) and lines[i] != '```':
        i += 1
    i += 1
    while i < len(lines) and lines[i] == '':
        i += 1
    return i < len(lines) and lines[i] == '```rows'


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--src', default=DEFAULT_SRC)
    p.add_argument('--pg', default='host=/tmp/regress-pg port=54329 user=postgres')
    sub = p.add_subparsers(dest='cmd', required=True)
    c = sub.add_parser('convert')
    c.add_argument('out')
    c.add_argument('tests', nargs='+')
    t = sub.add_parser('tally')
    t.add_argument('out')
    t.add_argument('report')
    t.add_argument('--examples', type=int, default=3)
    args = p.parse_args()
    {'convert': convert, 'tally': tally}[args.cmd](args)


if __name__ == '__main__':
    main()
