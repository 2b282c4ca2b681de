#!/usr/bin/env python3
"""Converts PostgreSQL's isolation tests (src/test/isolation: specs/*.spec with expected/*.out) into
Kensho pages, one page per spec, one ```scenario fence per permutation of the expected output, whose
claims are what that output shows: for every step issued, whether it waits (<waiting ...>), the step
whose line its <... completed> follows, each result table, the error message, and the notices.

Usage:
  bench/pg-suites/isolation.py convert SRC OUT        # SRC = .../src/test/isolation; writes OUT/content
  bench/pg-suites/isolation.py score OUT REPORT.json  # claims passed/refused/failed per spec and class
  bench/pg-suites/isolation.py mutate OUT MUT         # false claims: one mutated claim per scenario

Then: bin/kensho build --content OUT/content --out OUT/site --report OUT/report.json --no-cache \
        --page-timeout 900s --statement-timeout 20s
"""
import json
import os
import random
import re
import sys
import unicodedata

# ---------------------------------------------------------------- specs

# Specs a page cannot run: it runs in a fresh database as a role that is not a superuser, on a stock
# server (no prepared transactions, no extra modules), and one page's sessions see only that page.
SKIPPED = {}  # by name, when the words below do not show it (filled from measured runs)

SUPERUSER_WORDS = [
    (re.compile(r'\bPREPARE\s+TRANSACTION\b', re.I), 'PREPARE TRANSACTION: max_prepared_transactions is 0 on a stock server'),
    (re.compile(r'\bCREATE\s+(ROLE|USER)\b', re.I), 'CREATE ROLE: the page role may not create roles'),
    (re.compile(r'\bSET\s+(SESSION\s+)?ROLE\b|\bSESSION\s+AUTHORIZATION\b', re.I), 'SET ROLE / SESSION AUTHORIZATION: needs other roles'),
    (re.compile(r'\bALTER\s+SYSTEM\b', re.I), 'ALTER SYSTEM: superuser only'),
    (re.compile(r'\bCREATE\s+(DATABASE|SUBSCRIPTION|PUBLICATION|TABLESPACE)\b|\bALTER\s+DATABASE\b', re.I), 'database-level objects: the page role may not create them'),
    (re.compile(r'\bpg_create_logical_replication_slot|pg_logical_slot|pg_replication_slot', re.I), 'replication slots: superuser or REPLICATION role only'),
    (re.compile(r'\bpg_terminate_backend\b', re.I), 'pg_terminate_backend of another session'),
    (re.compile(r'\binjection_points?\b', re.I), 'injection points: a test module, not on a stock server'),
    (re.compile(r'\bpg_stat_reset|pg_stat_force_next_flush|pg_stat_clear_snapshot|stats_fetch_consistency', re.I), 'cumulative statistics resets: superuser only'),
    (re.compile(r'\bsession_replication_role\b|\ballow_system_table_mods\b', re.I), 'superuser-only settings'),
    (re.compile(r'\bpg_class\b.*\bUPDATE\b|\bUPDATE\s+pg_', re.I), 'writes system catalogs'),
    (re.compile(r'\bCREATE\s+EXTENSION\b', re.I), 'CREATE EXTENSION of an untrusted module'),
    (re.compile(r'\bLOAD\s+\'', re.I), 'LOAD of a module'),
    (re.compile(r'\bVACUUM\b[^;]*\bpg_(class|database|authid|proc|attribute)\b|\bpg_database\b.*\bVACUUM\b', re.I), 'VACUUM of a shared or system catalog: only its owner (the superuser) may'),
    (re.compile(r'\bdblink\b', re.I), 'dblink: an extension a page cannot create'),
    (re.compile(r'\bLANGUAGE\s+internal\b', re.I), 'a function in LANGUAGE internal: superuser only'),
    (re.compile(r'\bFROM\s+pg_class\b[^;]*\bFOR\s+(KEY\s+SHARE|SHARE|UPDATE|NO\s+KEY\s+UPDATE)\b', re.I), 'row locks on pg_class: a non-superuser may not'),
]


def tokens(text):
    """The tester's scanner (specscanner.l): keywords, identifiers, { SQL } blocks, punctuation, numbers."""
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in ' \t\r\f\n':
            i += 1
        elif c == '#':
            while i < n and text[i] != '\n':
                i += 1
        elif c == '{':
            j = text.index('}', i)
            sql = text[i + 1:j]
            sql = sql.lstrip(' \t\r\f').rstrip(' \t\r\f')
            yield ('sql', sql)
            i = j + 1
        elif c == '"':
            j = i + 1
            buf = ''
            while True:
                if text[j] == '"' and j + 1 < n and text[j + 1] == '"':
                    buf += '"'
                    j += 2
                elif text[j] == '"':
                    break
                else:
                    buf += text[j]
                    j += 1
            yield ('id', buf)
            i = j + 1
        elif c.isdigit():
            j = i
            while j < n and text[j].isdigit():
                j += 1
            yield ('int', text[i:j])
            i = j
        elif c.isalpha() or c == '_' or ord(c) >= 128:
            j = i
            while j < n and (text[j].isalnum() or text[j] in '_$' or ord(text[j]) >= 128):
                j += 1
            word = text[i:j]
            yield ('kw' if word in ('notices', 'permutation', 'session', 'setup', 'step', 'teardown') else 'id', word)
            i = j
        else:
            yield ('punct', c)
            i += 1


def parse_spec(text):
    toks = list(tokens(text))
    spec = {'setup': [], 'teardown': None, 'sessions': [], 'permutations': []}
    k = 0

    def take(kind=None):
        nonlocal k
        t = toks[k]
        if kind and t[0] != kind:
            raise ValueError('expected %s at %r' % (kind, t))
        k += 1
        return t[1]

    while k < len(toks):
        t = toks[k]
        if t == ('kw', 'setup'):
            k += 1
            spec['setup'].append(take('sql'))
        elif t == ('kw', 'teardown'):
            k += 1
            spec['teardown'] = take('sql')
        elif t == ('kw', 'session'):
            k += 1
            session = {'name': take(), 'setup': None, 'teardown': None, 'steps': []}
            spec['sessions'].append(session)
            while k < len(toks) and toks[k] in (('kw', 'setup'), ('kw', 'teardown'), ('kw', 'step')):
                word = take()
                if word == 'step':
                    session['steps'].append({'name': take(), 'sql': take('sql'), 'session': session['name']})
                else:
                    session[word] = take('sql')
        elif t == ('kw', 'permutation'):
            k += 1
            entries = []
            while k < len(toks) and toks[k][0] == 'id':
                name = take()
                markers = []
                if k < len(toks) and toks[k] == ('punct', '('):
                    k += 1
                    while True:
                        if toks[k] == ('punct', '*'):
                            markers.append('*')
                            k += 1
                        else:
                            other = take('id')
                            if k < len(toks) and toks[k] == ('kw', 'notices'):
                                k += 1
                                markers.append('%s notices %s' % (other, take('int')))
                            else:
                                markers.append(other)
                        if toks[k] == ('punct', ','):
                            k += 1
                            continue
                        take('punct')
                        break
                entries.append((name, markers))
            spec['permutations'].append(entries)
        else:
            raise ValueError('unexpected %r' % (t,))
    return spec


# ---------------------------------------------------------------- expected output

NOTICE = re.compile(r'^([A-Za-z0-9_]+): (NOTICE|WARNING|INFO|DEBUG\d?|LOG):  (.*)$')


def parse_table(lines, k):
    """A PQprint table at lines[k] (header, dashes, rows, '(N rows)'); returns (table or None, next k)."""
    header, dashes = lines[k], lines[k + 1]
    m = re.match(r'^-[-+]*$', dashes.rstrip())
    if not m:
        return None, k
    end = k + 2
    while end < len(lines) and not re.match(r'^\(\d+ rows?\)$', lines[end]):
        end += 1
    if end == len(lines):
        return None, k
    count = int(re.match(r'^\((\d+)', lines[end]).group(1))
    body = lines[k + 2:end]
    cuts = [i for i, ch in enumerate(dashes) if ch == '+']
    bounds = list(zip([-1] + cuts, cuts + [None]))

    def cells(line):
        return [line[(a + 1):b] if b is not None else line[(a + 1):] for a, b in bounds]

    table = {'columns': [c.strip() for c in cells(header)], 'raw': [cells(r) for r in body],
             'count': count, 'multiline': len(body) != count}
    if header.strip() == '' and len(cuts) == 0 and dashes.strip() == '--':
        table['columns'] = []
    return table, end + 1


def parse_output(text, spec):
    """Permutations of an expected output: each a list of events in the order printed."""
    steps = {s['name']: s for ses in spec['sessions'] for s in ses['steps']}
    lines = text.split('\n')
    perms = []
    cur = None
    k = 0
    while k < len(lines):
        line = lines[k]
        if line.startswith('starting permutation:'):
            cur = {'order': line[len('starting permutation:'):].split(), 'events': [], 'preamble': []}
            perms.append(cur)
            k += 1
            continue
        if cur is None:
            k += 1
            continue
        m = re.match(r'^step ([^:]+): ', line)
        if m and m.group(1) in steps:
            name = m.group(1)
            rest = '\n'.join(lines[k:])[len(m.group(0)):]
            if rest.startswith('<... completed>\n') or rest == '<... completed>':
                cur['events'].append({'kind': 'completed', 'step': name})
                k += 1
                continue
            sql = steps[name]['sql']
            if not rest.startswith(sql):
                raise ValueError('step %s: its SQL as printed differs from the spec' % name)
            after = rest[len(sql):]
            nlines = sql.count('\n') + 1
            waiting = after.startswith(' <waiting ...>')
            cur['events'].append({'kind': 'issued', 'step': name, 'waiting': waiting})
            k += nlines
            continue
        m = NOTICE.match(line)
        if m:
            cur['events'].append({'kind': 'notice', 'session': m.group(1), 'text': '%s:  %s' % (m.group(2), m.group(3))})
            k += 1
            # DETAIL/HINT/CONTEXT lines of the same message
            while k < len(lines) and re.match(r'^(DETAIL|HINT|CONTEXT|QUERY|LINE \d+):  ', lines[k]):
                cur['events'][-1]['detail'] = True
                k += 1
            continue
        m = re.match(r'^(ERROR|FATAL):  (.*)$', line)
        if m:
            cur['events'].append({'kind': 'error', 'text': m.group(2)})
            k += 1
            while k < len(lines) and re.match(r'^(DETAIL|HINT|CONTEXT|QUERY|LINE \d+):  ', lines[k]):
                k += 1
            continue
        if k + 1 < len(lines) and re.match(r'^-[-+]*$', lines[k + 1].rstrip()) and lines[k].strip() != '':
            table, nk = parse_table(lines, k)
            if table is not None:
                cur['events'].append({'kind': 'table', 'table': table})
                k = nk
                continue
        if line.strip() == '':
            k += 1
            continue
        cur['events'].append({'kind': 'other', 'text': line})
        k += 1
    return perms


# ---------------------------------------------------------------- psql tables

def width(s):
    return sum(2 if unicodedata.east_asian_width(ch) in 'WF' else 0 if unicodedata.combining(ch) else 1 for ch in s)


NUMERIC = re.compile(r'^-?(\d+(\.\d+)?|\.\d+)([eE][-+]?\d+)?$|^-?(Infinity|NaN)$')


# (PGDATESTYLE 'Postgres, MDY' too, which Kensho refuses: the JDBC driver reads results only with DateStyle ISO.)
REGRESS_SETTINGS = "SET timezone = 'America/Los_Angeles';"
VOID_FUNCTIONS = {'pg_advisory_lock', 'pg_advisory_lock_shared', 'pg_advisory_xact_lock', 'pg_advisory_xact_lock_shared',
                  'pg_advisory_unlock_all', 'pg_sleep', 'pg_notify', 'pg_stat_force_next_flush', 'pg_stat_clear_snapshot'}


def psql_table(table, void_functions):
    """The table for a rows block. The tester's PQprint output carries no types, so:
    - every cell is written left-aligned (Kensho compares values, and a value's own leading spaces count:
      PQprint pads a column only on the left when all its values look numeric, so those are stripped);
    - an empty cell is NULL (PQprint prints NULL as nothing), unless its column is named after a function
      returning void, whose value psql prints as an empty string."""
    cols = table['columns']
    if not cols:
        n = table['count']
        return '--\n(%d %s)' % (n, 'row' if n == 1 else 'rows')
    raw = [[c.rstrip() for c in r] for r in table['raw']]
    # PQprint (fe-print.c) right-aligns a column when every value is made of digits, signs, '.', 'e' and 'E' only
    numeric = [all(re.match(r'^[0-9+\-.eE]+$', r[i].strip()) for r in raw if r[i].strip()) for i in range(len(cols))]
    rows = []
    for r in raw:
        row = []
        for i, v in enumerate(r):
            v = v.strip() if numeric[i] else v
            # pg_regress's DateStyle 'Postgres, MDY' prints a date as 12-23-2008; Kensho's sessions read results
            # in ISO (the JDBC driver requires it), so the same date is stated as 2008-12-23.
            v = re.sub(r'^(\d\d)-(\d\d)-(\d{4})$', r'\3-\1-\2', v)
            if v.strip() == '' and cols[i] not in void_functions:
                v = '(null)'
            row.append(v)
        rows.append(row)
    widths = [max([width(c)] + [width(r[i]) for r in rows]) for i, c in enumerate(cols)]
    out = []
    head = []
    for i, c in enumerate(cols):
        pad = widths[i] - width(c)
        head.append(' ' * (pad // 2) + c + ' ' * (pad - pad // 2))
    out.append((' ' + ' | '.join(head)).rstrip())
    out.append('+'.join('-' * (w + 2) for w in widths))
    for r in rows:
        out.append((' ' + ' | '.join(v + ' ' * (widths[i] - width(v)) for i, v in enumerate(r))).rstrip())
    n = len(rows)
    out.append('(%d %s)' % (n, 'row' if n == 1 else 'rows'))
    return '\n'.join(out)


# ---------------------------------------------------------------- scenarios

def attribute(perm, spec):
    """Per issued step occurrence: waiting, completes-after, tables, error, notices."""
    session_of = {s['name']: ses['name'] for ses in spec['sessions'] for s in ses['steps']}
    occ = []            # occurrences in issue order
    active = {}         # session -> occurrence not yet reported complete
    last_reported = None  # occurrence the next tables/error lines belong to
    last_issued = None
    pending = {}        # session -> notices waiting for that session's next step line
    unplaced = []
    for ev in perm['events']:
        if ev['kind'] == 'issued':
            o = {'step': ev['step'], 'session': session_of[ev['step']], 'waiting': ev['waiting'], 'tables': [],
                 'error': None, 'notices': pending.pop(session_of[ev['step']], []), 'after': None,
                 'completed': not ev['waiting'], 'detail': False, 'other': []}
            occ.append(o)
            last_issued = o
            if ev['waiting']:
                active[o['session']] = o
            last_reported = o
        elif ev['kind'] == 'completed':
            o = active.pop(session_of[ev['step']], None)
            if o is None or o['step'] != ev['step']:
                raise ValueError('completion of %s that was not waiting' % ev['step'])
            o['completed'] = True
            o['after'] = last_issued['step'] if last_issued is not o else None
            o['notices'] += pending.pop(o['session'], [])
            last_reported = o
        elif ev['kind'] == 'table':
            if last_reported is None:
                continue  # a setup's result
            last_reported['tables'].append(ev['table'])
        elif ev['kind'] == 'error':
            if last_reported is None:
                raise ValueError('an error before any step (setup failed?)')
            last_reported['error'] = ev['text']
        elif ev['kind'] == 'notice':
            if ev.get('detail'):
                # recorded for the step it lands on
                pass
            s = ev['session']
            if s in active:
                active[s]['notices'].append(ev['text'])
                active[s]['detail'] |= bool(ev.get('detail'))
            else:
                pending.setdefault(s, []).append(ev['text'])
        else:
            (last_reported['other'] if last_reported else unplaced).append(ev['text'])
    # Tables printed after the last step line by the teardown blocks (sessions' then the scenario's) are theirs.
    teardown_results = sum(len([st for st in re.split(r';\s*', sql or '') if re.match(r'\s*select\b', st, re.I)])
                           for sql in [ses['teardown'] for ses in spec['sessions']] + [spec['teardown']])
    if teardown_results and last_reported is not None:
        steps_seen = [i for i, ev in enumerate(perm['events']) if ev['kind'] in ('issued', 'completed')]
        trailing = sum(1 for ev in perm['events'][steps_seen[-1] + 1:] if ev['kind'] == 'table') if steps_seen else 0
        cut = min(teardown_results, trailing)
        if cut:
            del last_reported['tables'][len(last_reported['tables']) - cut:]
    # notices after a session's last step line: that step's if it was the last reported, else teardown's
    for s, texts in pending.items():
        mine = [o for o in occ if o['session'] == s]
        if mine and mine[-1] is last_reported:
            mine[-1]['notices'] += texts
    return occ


def block(sql):
    sql = sql.strip()
    if '\n' not in sql:
        return '{ %s }' % sql
    return '{\n%s\n}' % sql


def kname(name):
    return name if re.match(r'^[A-Za-z_][A-Za-z0-9_]*$', name) else '"%s"' % name


def scenario(spec, perm, entries, with_notices, void_functions):
    """One scenario fence for one permutation; returns (text, claims, notes)."""
    occ = attribute(perm, spec)
    claims = []
    notes = []
    counts = {}
    names = []
    for o in occ:
        counts[o['step']] = counts.get(o['step'], 0) + 1
        o['kname'] = o['step'] if counts[o['step']] == 1 else '%s__%d' % (o['step'], counts[o['step']])
        names.append(o['kname'])
    # markers from the spec's permutation line, by position
    markers = [m for _, m in entries] if entries else [[] for _ in occ]
    kn = {}
    for o in occ:
        kn.setdefault(o['step'], []).append(o['kname'])
    lines = []
    if spec['setup']:
        # the tester's setup connection has PGTZ too: a timestamptz literal of the setup is read in that zone
        lines.append('setup ' + block(REGRESS_SETTINGS))
        for s in spec['setup']:
            lines.append('setup ' + block(s))
    if spec['teardown']:
        lines.append('teardown ' + block(spec['teardown']))
    for ses in spec['sessions']:
        mine = [o for o in occ if o['session'] == ses['name']]
        lines.append('')
        lines.append('session %s' % kname(ses['name']))
        # pg_regress runs the tester with PGTZ set: each session starts with it.
        lines.append('setup ' + block(REGRESS_SETTINGS + ('\n' + ses['setup'] if ses['setup'] else '')))
        if ses['teardown']:
            lines.append('teardown ' + block(ses['teardown']))
        if not mine:
            # a session with no step in this permutation still connects and runs its setup, as in the tester
            lines.append('step %s { SELECT 1; }' % kname('kensho_idle_' + ses['name']))
            names_note = True
        for o in mine:
            sql = [s for s in spec['sessions'] if s['name'] == ses['name']][0]
            sql = [s for s in sql['steps'] if s['name'] == o['step']][0]['sql']
            opts = []
            claims.append(('wait', o['kname']))
            if o['waiting']:
                opts.append('waits-for=*')
                if o['after'] is not None and o['completed']:
                    opts.append('completes-after=' + kn_after(o, occ))
                    claims.append(('completes-after', o['kname']))
                elif o['completed']:
                    # its <... completed> follows its own line: no other step was issued in between
                    opts.append('completes-after=' + o['kname'])
                    claims.append(('completes-after', o['kname']))
            if o['error'] is not None and o['tables']:
                notes.append('%s: results before its error are not expressible' % o['kname'])
            lines.append('step %s %s%s' % (kname(o['kname']), ' '.join(opts) + (' ' if opts else ''), block(sql)))
            if o['error'] is not None:
                lines.append('error { ERROR:  %s }' % o['error'])
                claims.append(('error', o['kname']))
            else:
                for t in o['tables']:
                    if t['multiline']:
                        notes.append('%s: a multi-line value in a result (PQprint prints it unmarked)' % o['kname'])
                        break
                else:
                    for t in o['tables']:
                        lines.append('rows {')
                        lines.append(psql_table(t, void_functions))
                        lines.append('}')
                        claims.append(('rows', o['kname']))
            if with_notices:
                if o['detail']:
                    notes.append('%s: a notice with DETAIL lines' % o['kname'])
                else:
                    lines.append('notices {' + ('' if o['notices'] else ' }'))
                    if o['notices']:
                        lines.extend('%s: %s' % (o['session'], n) for n in o['notices'])
                        lines.append('}')
                    claims.append(('notices', o['kname']))
            for other in o['other']:
                notes.append('%s: unrecognised output line %r' % (o['kname'], other))
    perm_line = []
    idle = ['kensho_idle_' + ses['name'] for ses in spec['sessions'] if not any(o['session'] == ses['name'] for o in occ)]
    perm_line.extend(kname(i) for i in idle)
    for i, o in enumerate(occ):
        ms = []
        for m in markers[i] if i < len(markers) else []:
            if m == '*' or ' notices ' in m:
                ms.append(m)
            else:
                # a marker names a step; the occurrence active is the latest one issued before this one
                ms.append(kname(latest_before(occ, i, m)))
        perm_line.append(kname(o['kname']) + ('(%s)' % ', '.join(ms) if ms else ''))
    lines.append('')
    lines.append('permutation ' + ' '.join(perm_line))
    return '\n'.join(lines), claims, notes


def latest_before(occ, i, step):
    for j in range(len(occ) - 1, -1, -1):
        if occ[j]['step'] == step and j != i:
            if j < i:
                return occ[j]['kname']
    for o in occ:
        if o['step'] == step:
            return o['kname']
    return step


def kn_after(o, occ):
    # the occurrence of the last issued step before this completion: the latest of that name issued
    target = o['after']
    idx = occ.index(o)
    cands = [x for x in occ if x['step'] == target]
    later = [x for x in cands if occ.index(x) > idx]
    return (later[-1] if later else cands[-1])['kname']


def convert(src, out, split=()):
    """split: specs written one page per permutation (a failed scenario stops the rest of its page)."""
    content = os.path.join(out, 'content')
    os.makedirs(content, exist_ok=True)
    with open(os.path.join(content, 'site.yml'), 'w') as f:
        f.write('title: PostgreSQL isolation tests\ndescription: converted by bench/pg-suites/isolation.py\nlang: en\n'
                'url: https://example.invalid/\n')
    manifest = {}
    for fn in sorted(os.listdir(os.path.join(src, 'specs'))):
        if not fn.endswith('.spec'):
            continue
        name = fn[:-5]
        text = open(os.path.join(src, 'specs', fn), encoding='utf-8').read()
        entry = {'claims': {}, 'notes': [], 'skipped': None}
        manifest[name] = entry
        if name in SKIPPED:
            entry['skipped'] = SKIPPED[name]
            continue
        expected = os.path.join(src, 'expected', name + '.out')
        if not os.path.exists(expected):
            entry['skipped'] = 'no expected output'
            continue
        try:
            spec = parse_spec(text)
            perms = parse_output(open(expected, encoding='utf-8').read(), spec)
        except (ValueError, IndexError) as e:
            entry['skipped'] = 'converter cannot read it: %s' % e
            continue
        # What a page cannot do: in a setup or teardown the spec is skipped; in a step, the permutations issuing it.
        def needs(sql):
            for pattern, why in SUPERUSER_WORDS:
                if pattern.search(sql or ''):
                    return why
            return None
        fixed = spec['setup'] + [spec['teardown']] + [ses[k] for ses in spec['sessions'] for k in ('setup', 'teardown')]
        why = next((needs(sql) for sql in fixed if needs(sql)), None)
        if why:
            entry['skipped'] = why
            continue
        unrunnable = {st['name']: needs(st['sql']) for ses in spec['sessions'] for st in ses['steps'] if needs(st['sql'])}
        alternatives = sorted(f for f in os.listdir(os.path.join(src, 'expected')) if re.match(re.escape(name) + r'_\d+\.out$', f))
        if alternatives:
            entry['notes'].append('alternative expected outputs: ' + ', '.join(alternatives))
        void_functions = VOID_FUNCTIONS | {m.lower() for m in re.findall(
            r'FUNCTION\s+(\w+)\s*\([^)]*\)\s*RETURNS\s+void', text, re.I)}
        with_notices = any(e['kind'] == 'notice' for p in perms for e in p['events'])
        head = ['---', 'title: "%s"' % name, '---', '', 'PostgreSQL 18.6 isolation test `%s` (src/test/isolation).' % name, '']
        page = list(head)
        pages = {}
        spec_perms = [[n for n, _ in p] for p in spec['permutations']]
        for index, perm in enumerate(perms):
            entries = None
            bad = [n for n in perm['order'] if n in unrunnable]
            if bad:
                entry['notes'].append('permutation %d skipped: step %s: %s' % (index + 1, bad[0], unrunnable[bad[0]]))
                entry.setdefault('skipped_permutations', []).append(index + 1)
                continue
            if perm['order'] in spec_perms:
                entries = spec['permutations'][spec_perms.index(perm['order'])]
            try:
                text_, claims, notes = scenario(spec, perm, entries, with_notices, void_functions)
            except (ValueError, IndexError) as e:
                entry['notes'].append('permutation %d not converted: %s' % (index + 1, e))
                continue
            title = 'p%d' % (index + 1)
            entry['claims'][title] = claims
            entry['notes'].extend('%s: %s' % (title, n) for n in notes)
            fence = ['```scenario title="%s"' % title, text_, '```', '']
            if name in split or 'all' in split:
                pages['%s--%s' % (name, title)] = head + fence
            else:
                page.extend(fence)
        if len(page) > len(head):
            pages[name] = page
        for file, lines in pages.items():
            with open(os.path.join(content, file + '.md'), 'w', encoding='utf-8') as f:
                f.write('\n'.join(lines))
    with open(os.path.join(out, 'manifest.json'), 'w') as f:
        json.dump(manifest, f, indent=1)
    conv = [n for n, e in manifest.items() if not e['skipped']]
    total = sum(len(c) for e in manifest.values() for c in e['claims'].values())
    print('%d specs, %d converted (%d permutations, %d claims), %d skipped' % (
        len(manifest), len(conv), sum(len(manifest[n]['claims']) for n in conv), total, len(manifest) - len(conv)))


# ---------------------------------------------------------------- scoring

# Kensho's answer to a true claim: refused (it says the claim cannot be checked, or the syntax is not
# supported) or failed (it says the claim is false). Classes by the failure message.
CLASSES = [
    ('refused', 'not run: an earlier scenario of its page failed', r'^not run:'),
    ('refused', "reads the session settings Kensho gives", r'reads a setting Kensho gives'),
    ('refused', 'release of several waiters', r'at once \(each waited for'),
    ('refused', 'notices N marker', r'notices [0-9]+.* is not supported'),
    ('refused', 'scenario syntax', r'^(expected |step options|a marker|the marker|waits-for|completes-after|unknown step option|session|a scenario|step \S+ is in no|step \S+\'s marker|step \S+ is marked|step \S+ states completes-after|rows:|expected rows|.*block)'),
    ('failed', 'converter: NULL or empty string (the tester prints both empty)', r'(missing|extra): .*(\(null\)|\| *$)'),
    ('failed', 'DateStyle (JDBC reads ISO only)', r'\d\d-\d\d-\d{4}'),
    ('failed', 'permission (non-superuser page)', r'permission denied|must be (superuser|owner)|must have privileges|only superuser'),
    ('failed', 'completion position', r'completed after \S+, not after'),
    ('failed', 'not waiting as claimed', r'finished without waiting|never showed it waiting'),
    ('failed', 'waits, not claimed', r'but the scenario does not say so'),
    ('failed', 'still waiting at the end', r'still waiting|cannot be issued'),
    ('failed', 'error message', r'failed( with SQLSTATE \S+ as stated, but)? with the message'),
    ('failed', 'error expected, succeeded', r'was to fail with .* but it succeeded'),
    ('failed', 'notices', r'raised .*, not '),
    ('failed', 'rows', r'(row|column|results|returned|header|values?)\b'),
    ('failed', 'unexpected error', r'^step \S+: '),
    ('failed', 'Kensho limit', r'Kensho stopped|deadline|limit'),
    ('failed', 'setup', r'setup failed'),
]


def classify(message):
    for verdict, name, pattern in CLASSES:
        if re.search(pattern, message or '', re.M):
            return verdict, name
    return 'failed', 'other'


def fences(md):
    """Line (1-based) of each scenario fence of a page, with its title."""
    out = {}
    for i, line in enumerate(open(md, encoding='utf-8').read().split('\n')):
        m = re.match(r'^```scenario title="([^"]+)"', line)
        if m:
            out[i + 1] = m.group(1)
    return out


def score(pairs, verbose=False):
    """pairs: (OUT, REPORT) in order; a later run's outcome for a scenario replaces an earlier one's."""
    manifest = json.load(open(os.path.join(pairs[0][0], 'manifest.json')))
    outcome = {}
    for out, report_path in pairs:
        report = json.load(open(report_path))
        lines_of = {}
        for sn in report['snippets']:
            file = os.path.basename(sn['file'])[:-3]
            if file not in lines_of:
                lines_of[file] = fences(os.path.join(out, 'content', file + '.md'))
            lines = lines_of[file]
            start = max([l for l in lines if l <= sn['line']], default=None)
            if start is not None:
                outcome[(file.split('--')[0], lines[start])] = sn
    results = {}
    for (name, title), sn in outcome.items():
        results.setdefault(name, []).append((title, sn))
    totals = {'accepted': 0, 'refused': 0, 'failed': 0}
    by_class = {}
    rows = []
    for name, entry in sorted(manifest.items()):
        if entry['skipped']:
            continue
        spec = {'accepted': 0, 'refused': 0, 'failed': 0}
        seen = set()
        for title, sn in results.get(name, []):
            seen.add(title)
            n = len(entry['claims'].get(title, []))
            if sn['status'] == 'passed':
                spec['accepted'] += n
            else:
                verdict, cls = classify((sn.get('message') or '') + '\n' + (sn.get('detail') or ''))
                spec[verdict] += n
                by_class.setdefault((verdict, cls), [0, 0, []])
                by_class[(verdict, cls)][0] += 1
                by_class[(verdict, cls)][1] += n
                by_class[(verdict, cls)][2].append('%s/%s: %s' % (name, title, (sn.get('message') or '')[:160]))
        missing = [t for t in entry['claims'] if t not in seen]
        for t in missing:
            n = len(entry['claims'][t])
            spec['refused'] += n
            by_class.setdefault(('refused', 'not run (page stopped)'), [0, 0, []])
            by_class[('refused', 'not run (page stopped)')][0] += 1
            by_class[('refused', 'not run (page stopped)')][1] += n
            by_class[('refused', 'not run (page stopped)')][2].append('%s/%s' % (name, t))
        for k in totals:
            totals[k] += spec[k]
        rows.append((name, spec))
    print('%-45s %8s %8s %8s' % ('spec', 'accepted', 'refused', 'failed'))
    for name, spec in rows:
        if spec['refused'] or spec['failed'] or verbose:
            print('%-45s %8d %8d %8d' % (name, spec['accepted'], spec['refused'], spec['failed']))
    total = sum(totals.values())
    print('TOTAL claims %d: accepted %d, refused %d, failed %d' % (total, totals['accepted'], totals['refused'], totals['failed']))
    print('scenarios: %d passed of %d' % (sum(1 for sn in outcome.values() if sn['status'] == 'passed'), len(outcome)))
    for (verdict, cls), (scen, claims, examples) in sorted(by_class.items(), key=lambda kv: -kv[1][1]):
        print('%-8s %-40s %4d scenarios %6d claims' % (verdict, cls, scen, claims))
        for e in examples[:4 if verbose else 2]:
            print('           ' + e)


# ---------------------------------------------------------------- false claims

def mutate(out, mut, every=1, seed=31):
    """Pages each holding one scenario with one false claim made from a true one (the expected output,
    mutated): a waiting step claimed not to wait or the reverse, a completion moved, a row's value
    changed, an error message changed, a notice changed. One page per scenario, since a failed scenario
    stops the rest of its page; every N-th scenario of the suite only, when N > 1."""
    rnd = random.Random(seed)
    content = os.path.join(mut, 'content')
    os.makedirs(content, exist_ok=True)
    open(os.path.join(content, 'site.yml'), 'w').write(open(os.path.join(out, 'content', 'site.yml')).read())
    made = {}
    index = 0
    for fn in sorted(os.listdir(os.path.join(out, 'content'))):
        if not fn.endswith('.md'):
            continue
        text = open(os.path.join(out, 'content', fn), encoding='utf-8').read()
        head = text[:text.index('```scenario')] if '```scenario' in text else text
        for fence in re.findall(r'```scenario title="[^"]+"\n.*?\n```\n', text, flags=re.S):
            index += 1
            if index % every:
                continue
            title = re.match(r'```scenario title="([^"]+)"', fence).group(1)
            fence, kind = mutate_one(fence, rnd)
            if not kind:
                continue
            made[kind] = made.get(kind, 0) + 1
            with open(os.path.join(content, '%s--%s.md' % (fn[:-3].split('--')[0], title)), 'w', encoding='utf-8') as f:
                f.write(head + fence)
    json.dump(made, open(os.path.join(mut, 'mutations.json'), 'w'))
    print('mutations:', made, 'total', sum(made.values()))


def mutate_one(fence, rnd):
    lines = fence.split('\n')
    options = []
    perm_line = [l for l in lines if l.startswith('permutation ')][0]
    starred = set(re.findall(r'(\S+)\([^)]*\*', perm_line))
    marked = set(re.findall(r'(\S+)\(', perm_line))
    in_rows = False
    after_dashes = False
    for i, line in enumerate(lines):
        if line == 'rows {':
            in_rows, after_dashes = True, False
            continue
        if in_rows:
            if line == '}':
                in_rows = False
            elif re.match(r'^-[-+]*$', line):
                after_dashes = True
            elif after_dashes and not re.match(r'^\(\d+ rows?\)$', line):
                options.append(('row value changed', i))
            continue
        if line.startswith('step ') and 'waits-for=*' in line:
            # a step a marker holds back is reported waiting whether or not it waits: no wait claim to remove
            if line.split()[1] not in marked:
                options.append(('wait removed', i))
            if 'completes-after=' in line:
                options.append(('completion moved', i))
        elif line.startswith('step ') and 'waits-for' not in line and not line.split()[1].startswith('kensho_idle') \
                and line.split()[1] not in marked:
            options.append(('wait added', i))
        elif line.startswith('error { ERROR:  '):
            options.append(('error message changed', i))
        elif re.match(r'^[A-Za-z0-9_]+: NOTICE:  ', line):
            options.append(('notice changed', i))
    if not options:
        return fence, None
    # each kind of mutation as likely as another, whatever the number of places it could go
    kind = rnd.choice(sorted({k for k, _ in options}))
    i = rnd.choice([j for k, j in options if k == kind])
    line = lines[i]
    if kind == 'wait removed':
        lines[i] = re.sub(r' completes-after=\S+', '', line.replace('waits-for=* ', ''))
    elif kind == 'completion moved':
        # to a step issued before the waiting one, or one never issued after it: name the waiting step's own session's other step
        steps = [re.match(r'^step (\S+)', l).group(1) for l in lines if l.startswith('step ')]
        current = re.search(r'completes-after=(\S+)', line).group(1)
        perm = lines[[j for j, l in enumerate(lines) if l.startswith('permutation ')][0]].split()[1:]
        perm = [re.sub(r'\(.*', '', p) for p in perm]
        me = re.match(r'^step (\S+)', line).group(1)
        later = perm[perm.index(me) + 1:] if me in perm else []
        session_of = {}
        sess = None
        for l in lines:
            if l.startswith('session '):
                sess = l.split()[1]
            elif l.startswith('step '):
                session_of[l.split()[1]] = sess
        choices = [p for p in later if p != current and session_of.get(p) != session_of.get(me)]
        if not choices:
            return fence, None
        lines[i] = line.replace('completes-after=' + current, 'completes-after=' + rnd.choice(choices))
    elif kind == 'wait added':
        lines[i] = line.replace(' {', ' waits-for=* {', 1)
    elif kind == 'error message changed':
        lines[i] = line.replace('ERROR:  ', 'ERROR:  not ', 1)
    elif kind == 'row value changed':
        cells = line.split('|')
        j = rnd.randrange(len(cells))
        v = cells[j].rstrip()
        cells[j] = (v + 'x') if v.strip() else ' x'
        lines[i] = '|'.join(cells)
    elif kind == 'notice changed':
        lines[i] = line + ' (changed)'
    return '\n'.join(lines), kind


def mutate_one_fallback(lines, i):
    lines[i] = lines[i].replace('waits-for=* ', '')
    lines[i] = re.sub(r' completes-after=\S+', '', lines[i])
    return '\n'.join(lines), 'wait removed'


def split_pages(out, out2, specs):
    """OUT's pages of the given specs, one page per scenario, into OUT2 (a failed scenario stops the rest of its page)."""
    content = os.path.join(out2, 'content')
    os.makedirs(content, exist_ok=True)
    open(os.path.join(content, 'site.yml'), 'w').write(open(os.path.join(out, 'content', 'site.yml')).read())
    for name in specs:
        path = os.path.join(out, 'content', name + '.md')
        if not os.path.exists(path):
            continue
        text = open(path, encoding='utf-8').read()
        head = text[:text.index('```scenario')]
        for fence in re.findall(r'```scenario title="[^"]+"\n.*?\n```\n', text, flags=re.S):
            title = re.match(r'```scenario title="([^"]+)"', fence).group(1)
            open(os.path.join(content, '%s--%s.md' % (name, title)), 'w', encoding='utf-8').write(head + fence)


def score_false(mut, report_path):
    report = json.load(open(report_path))
    kinds = {}
    accepted = []
    for sn in report['snippets']:
        fence = open(sn['file'], encoding='utf-8').read()
        kind = 'unknown'
        verdict = 'accepted' if sn['status'] == 'passed' else classify((sn.get('message') or '') + '\n' + (sn.get('detail') or ''))[0]
        kinds.setdefault(verdict, 0)
        kinds[verdict] += 1
        if sn['status'] == 'passed':
            accepted.append(sn['file'])
    print('false claims: %d scenarios each with one false claim: %s' % (len(report['snippets']), kinds))
    for f in accepted[:20]:
        print('  ACCEPTED', f)


if __name__ == '__main__':
    if sys.argv[1] == 'convert':
        convert(sys.argv[2], sys.argv[3], sys.argv[4].split(',') if len(sys.argv) > 4 else ())
    elif sys.argv[1] == 'failed-specs':
        # the specs of a run with a scenario that did not pass: to run again one page per permutation
        report = json.load(open(sys.argv[2]))
        print(','.join(sorted({os.path.basename(sn['file'])[:-3].split('--')[0] for sn in report['snippets']
                               if sn['status'] != 'passed'} | set(sys.argv[3:]))))
    elif sys.argv[1] == 'score':
        args = [a for a in sys.argv[2:] if a != '-v']
        score(list(zip(args[0::2], args[1::2])), '-v' in sys.argv)
    elif sys.argv[1] == 'mutate':
        mutate(sys.argv[2], sys.argv[3], int(sys.argv[4]) if len(sys.argv) > 4 else 1)
    elif sys.argv[1] == 'split':
        split_pages(sys.argv[2], sys.argv[3], sys.argv[4].split(','))
    elif sys.argv[1] == 'score-false':
        score_false(sys.argv[2], sys.argv[3])
