// Run it yourself: a verified snippet, or a query exercise, run in the reader's browser on PGlite (PostgreSQL
// 18.6 in WebAssembly). Loaded by kensho.js on the first click of a run control, never before; PGlite itself
// loads in a Web Worker (kensho-run-worker.js) on that click. The page's run plan (PAGE.run.json, written by
// the build) says how the build ran every snippet; the rows the build got for a snippet are in a file of their
// own (PAGE.run.N.json, named by the plan), fetched when that snippet is opened and no other. Results compare
// under the build's rules.
// Everything the reader's SQL returns is put on the page as text, never as HTML.

const body = document.body;
let worker = null;
let requests = 0;
const pending = new Map();
const plans = new Map();
const recorded = new Map();
let engineVersion = null;

function ask(request, onProgress) {
  if (!worker) {
    worker = new Worker(new URL(body.dataset.runWorker, location.href), { type: 'module' });
    worker.onmessage = (event) => {
      const { id, ok, result, error, progress } = event.data;
      const waiting = pending.get(id);
      if (progress) {
        if (waiting && waiting.onProgress) waiting.onProgress(progress);
        return;
      }
      pending.delete(id);
      if (ok) waiting.resolve(result); else waiting.reject(new Error(error));
    };
    worker.onerror = (event) => {
      for (const waiting of pending.values()) waiting.reject(new Error(event.message || 'the worker stopped'));
      pending.clear();
      worker = null;
    };
  }
  const id = ++requests;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject, onProgress });
    worker.postMessage({ id, request: { ...request, engine: new URL(body.dataset.engine, location.href).href } });
  });
}

function loadPlan(url) {
  const absolute = new URL(url, location.href).href;
  if (!plans.has(absolute)) {
    plans.set(absolute, fetch(absolute).then((response) => {
      if (!response.ok) throw new Error(absolute + ': HTTP ' + response.status);
      return response.json();
    }));
  }
  return plans.get(absolute);
}

/** The rows the build recorded of one snippet of the plan at `url`: its own file, next to the plan. */
function loadRows(url, snippet) {
  const absolute = new URL(snippet.rows, new URL(url, location.href)).href;
  if (!recorded.has(absolute)) {
    recorded.set(absolute, fetch(absolute).then((response) => {
      if (!response.ok) throw new Error(absolute + ': HTTP ' + response.status);
      return response.json();
    }).then((file) => file.results));
  }
  return recorded.get(absolute);
}

function words(plan, key, ...values) {
  let text = (plan.ui && plan.ui[key]) || key;
  values.forEach((value, i) => { text = text.split('{' + i + '}').join(String(value)); });
  return text;
}

/** Sentences joined as the page's language writes them (no space after 。). */
function sentences(plan, ...parts) {
  const separator = plan.ui && typeof plan.ui.sentenceSeparator === 'string' ? plan.ui.sentenceSeparator : ' ';
  return parts.filter(Boolean).join(separator);
}

function element(tag, attributes = {}, text) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

// psql's aligned format, as the build prints verified results (sql-checks' PsqlFormat): a newline continues on
// the next line with + at the cell's edge, a tab moves to the next multiple of 8, control characters are
// escaped as psql escapes them (C0 and DEL as \xHH, C1 as \uHHHH, each as wide as its escape), East Asian wide
// characters take two columns, numbers are right-aligned, NULL is (null); a result without columns is -- and the footer.
const NUMERIC = new Set(['int2', 'int4', 'int8', 'float4', 'float8', 'numeric', 'oid', 'xid', 'xid8', 'cid', 'money',
  'serial', 'bigserial', 'smallserial']);
const ZERO_WIDTH = /^[\p{Mn}\p{Me}\p{Cf}\u200B]$/u;

function charWidth(cp) {
  if (ZERO_WIDTH.test(String.fromCodePoint(cp))) return 0;
  const wide = (cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0x303E) || (cp >= 0x3041 && cp <= 0x33FF)
    || (cp >= 0x3400 && cp <= 0x4DBF) || (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0xA000 && cp <= 0xA4CF)
    || (cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0xFE30 && cp <= 0xFE4F)
    || (cp >= 0xFF00 && cp <= 0xFF60) || (cp >= 0xFFE0 && cp <= 0xFFE6) || (cp >= 0x1F300 && cp <= 0x1F64F)
    || (cp >= 0x1F900 && cp <= 0x1F9FF) || (cp >= 0x20000 && cp <= 0x3FFFD);
  return wide ? 2 : 1;
}

function textWidth(text) {
  let width = 0;
  for (const ch of text) width += charWidth(ch.codePointAt(0));
  return width;
}

function valueLines(value) {
  const lines = [];
  let line = '';
  let width = 0;
  for (const ch of value) {
    const cp = ch.codePointAt(0);
    if (cp === 10) {
      lines.push(line); line = ''; width = 0;
    } else if (cp === 13) {
      line += '\\r'; width += 2;
    } else if (cp === 9) {
      do { line += ' '; width++; } while (width % 8 !== 0);
    } else if (cp < 0x20 || cp === 0x7f) {
      const escaped = '\\x' + cp.toString(16).toUpperCase().padStart(2, '0');
      line += escaped; width += escaped.length;
    } else if (cp >= 0x80 && cp < 0xa0) {
      const escaped = '\\u' + cp.toString(16).toUpperCase().padStart(4, '0');
      line += escaped; width += escaped.length;
    } else {
      line += ch; width += charWidth(cp);
    }
  }
  lines.push(line);
  return lines;
}

function rowCount(n) {
  return '(' + n + (n === 1 ? ' row)' : ' rows)');
}

function formatTable(table) {
  const n = table.columns.length;
  if (n === 0) return '--\n' + rowCount(table.rows.length);
  const widths = new Array(n).fill(0);
  const header = table.columns.map((c) => valueLines(c));
  header.forEach((lines, c) => lines.forEach((l) => { widths[c] = Math.max(widths[c], textWidth(l)); }));
  const cells = table.rows.map((row) => table.columns.map((_, c) => {
    const value = c < row.length ? row[c] : null;
    const lines = value === null || value === undefined ? ['(null)'] : valueLines(value);
    lines.forEach((l) => { widths[c] = Math.max(widths[c], textWidth(l)); });
    return lines;
  }));
  let out = '';
  const appendRow = (rowCells, isHeader) => {
    const height = Math.max(1, ...rowCells.map((cell) => cell.length));
    for (let l = 0; l < height; l++) {
      let line = '';
      for (let c = 0; c < n; c++) {
        const cell = rowCells[c];
        const text = l < cell.length ? cell[l] : '';
        const pad = widths[c] - textWidth(text);
        const right = !isHeader && NUMERIC.has(table.types[c]);
        const left = isHeader ? Math.floor(pad / 2) : right ? pad : 0;
        line += (c === 0 ? ' ' : '| ') + ' '.repeat(left) + text + ' '.repeat(pad - left) + (l + 1 < cell.length ? '+' : ' ');
      }
      out += line.replace(/\s+$/, '') + '\n';
    }
  };
  appendRow(header, true);
  out += widths.map((w, c) => (c === 0 ? '' : '+') + '-'.repeat(w + 2)).join('') + '\n';
  cells.forEach((row) => appendRow(row, false));
  out += rowCount(table.rows.length);
  return out;
}

function printOutcome(plan, outcome) {
  const parts = outcome.tables.map((table) => formatTable(table)
    + (table.total > table.rows.length ? '\n' + words(plan, 'rowsCut', table.rows.length, table.total) : ''));
  if (outcome.error) parts.push('ERROR:  ' + outcome.error.message + '\nSQLSTATE: ' + outcome.error.sqlstate);
  return parts.join('\n\n');
}

// The build's comparison rules (sql-checks' RowComparison): rows are a multiset unless the statement sorts them;
// sorted rows keep their order, and rows that tie on every sort key may come in any order among themselves.
function rowKey(row) {
  return JSON.stringify(row.map((v) => (v === undefined ? null : v)));
}

function multisetDifference(expected, actual) {
  const counts = new Map();
  for (const row of expected) counts.set(rowKey(row), (counts.get(rowKey(row)) || 0) + 1);
  const extra = [];
  for (const row of actual) {
    const key = rowKey(row);
    if (counts.get(key) > 0) counts.set(key, counts.get(key) - 1); else extra.push(row);
  }
  const missing = [];
  for (const row of expected) {
    const key = rowKey(row);
    if (counts.get(key) > 0) { missing.push(row); counts.set(key, counts.get(key) - 1); }
  }
  return { missing, extra };
}

function groups(rows, keys) {
  const out = [];
  for (const row of rows) {
    const key = JSON.stringify(keys.map((k) => row[k]));
    if (out.length && out[out.length - 1].key === key) out[out.length - 1].rows.push(row);
    else out.push({ key, rows: [row] });
  }
  return out;
}

function sameInOrder(expected, actual, keys) {
  if (expected.length !== actual.length) return false;
  if (!keys) return expected.every((row, i) => rowKey(row) === rowKey(actual[i]));
  const a = groups(expected, keys);
  const b = groups(actual, keys);
  if (a.length !== b.length) return false;
  return a.every((group, i) => group.key === b[i].key && group.rows.length === b[i].rows.length
    && multisetDifference(group.rows, b[i].rows).missing.length === 0);
}

/**
 * Compares one table with the build's; returns null when the same, else the words that say how they differ
 * (`against` names what it was compared with: '' for the verified result, 'answer' for an exercise's model answer).
 */
function tableDifference(plan, verified, got, order, against = '') {
  const say = (key, ...values) => words(plan, against ? against + key[0].toUpperCase() + key.slice(1) : key, ...values);
  if (got.total > got.rows.length) {
    // Only the first rows came back from the worker; a verified result is never that long (the build keeps it whole).
    return say('rowCount', verified.rows.length, got.total);
  }
  if (JSON.stringify(verified.columns) !== JSON.stringify(got.columns)) {
    return say('columnsDiffer', verified.columns.join(', '), got.columns.join(', '));
  }
  if (verified.types && got.types && JSON.stringify(verified.types) !== JSON.stringify(got.types)) {
    // The same text of another type ('4000' as text, 4000 as integer) is not the same result.
    const named = (table) => table.columns.map((c, i) => c + ' ' + table.types[i]).join(', ');
    return say('typesDiffer', named(verified), named(got));
  }
  const { missing, extra } = multisetDifference(verified.rows, got.rows);
  if (missing.length || extra.length) {
    const shown = (rows) => rows.slice(0, 3).map((r) => '(' + r.map((v) => (v === null ? '(null)' : v)).join(', ') + ')').join(' ')
      + (rows.length > 3 ? ' …' : '');
    const parts = [];
    if (missing.length) parts.push(say('missingRows', missing.length, shown(missing)));
    if (extra.length) parts.push(say('extraRows', extra.length, shown(extra)));
    return parts.join(' ');
  }
  if (order && order.ordered && !sameInOrder(verified.rows, got.rows, order.keys)) {
    return say('orderDiffers');
  }
  return null;
}

/** The verdict on a run of a snippet's own position: same as the build's run, or how it differs. */
function verdict(plan, snippet, outcome) {
  const expect = snippet.expect || {};
  if (expect.error) {
    if (!outcome.error) return { kind: 'different', text: words(plan, 'noErrorInstead', expect.error) };
    if (outcome.error.sqlstate !== expect.error) {
      return { kind: 'different', text: words(plan, 'otherError', expect.error, outcome.error.sqlstate) };
    }
    // The results before the error count too (the build recorded them).
    const before = compareTables(plan, snippet, outcome);
    if (before.kind === 'different' || before.kind === 'not-compared') return before;
    return { kind: 'same', text: words(plan, 'sameError', expect.error) };
  }
  if (outcome.error) return { kind: 'different', text: words(plan, 'errorInstead') };
  return compareTables(plan, snippet, outcome);
}

/** The result tables of a run against the build's, each under the build's rules for it. */
function compareTables(plan, snippet, outcome) {
  const expect = snippet.expect || {};
  const verified = snippet.results || [];
  if (verified.length !== outcome.tables.length) {
    return { kind: 'different', text: words(plan, 'tablesDiffer', verified.length, outcome.tables.length) };
  }
  let planDiffers = false;
  for (let i = 0; i < verified.length; i++) {
    const last = i === verified.length - 1;
    // An EXPLAIN prints its lines in order; another plan (other statistics, other costs) is told apart from other rows.
    // The build's decision where it compared the rows; elsewhere the server's parse of the verified statement
    // (sorted rows in order, ties unknown: the whole order counts); a multiset only where it does not sort.
    const sortedThere = outcome.verifiedSorts && verified[i].statement >= 0 && outcome.verifiedSorts[verified[i].statement] === true;
    const order = verified[i].explain ? { ordered: true, keys: null }
      : last && expect.rows ? { ordered: expect.ordered, keys: expect.keys }
      : sortedThere ? { ordered: true, keys: null } : null;
    const difference = tableDifference(plan, verified[i], outcome.tables[i], order);
    if (difference && verified[i].explain && JSON.stringify(verified[i].columns) === JSON.stringify(outcome.tables[i].columns)) {
      planDiffers = true;
    } else if (difference) {
      return { kind: 'different', text: sentences(plan, words(plan, 'different'), difference) };
    }
  }
  const claims = snippet.planClaims ? words(plan, 'planClaimsNotChecked') : '';
  if (planDiffers) return { kind: 'plan', text: sentences(plan, words(plan, 'planDiffers'), claims) };
  const lastOrdered = expect.rows && expect.ordered;
  const head = verified.length === 0 ? words(plan, 'ranClean')
    : words(plan, lastOrdered || !expect.rows ? 'same' : 'sameUnordered');
  return { kind: 'same', text: sentences(plan, head, claims) };
}

async function engineLine(plan) {
  if (!engineVersion) engineVersion = await ask({ type: 'version' });
  const match = /^PostgreSQL (\S+) \((PGlite [^)]+)\)/.exec(engineVersion);
  const name = match ? 'PostgreSQL ' + match[1] + ' (' + match[2] + ')' : engineVersion;
  let line = words(plan, 'engine', name);
  if (plan.versions) {
    // The build checked several versions; the browser runs one (PGlite's), and compares with that version's run.
    line += ' ' + words(plan, 'severalVersions', plan.versions, match ? match[1] : engineVersion, plan.server);
  } else if (match && plan.server && match[1] !== plan.server) line += ' ' + words(plan, 'versionsDiffer', plan.server, match[1]);
  return line;
}

function editor(plan, text, label, minimumRows = 3) {
  const id = 'run-editor-' + (++requests);
  const wrap = element('div', { class: 'run-editor-wrap' });
  const caption = element('label', { for: id, class: 'run-label' }, label);
  // The keyboard shortcut is worth saying only where there is a keyboard (CSS hides it on touch screens).
  caption.append(element('span', { class: 'run-key-hint' }, words(plan, 'keyHint')));
  wrap.append(caption);
  const area = element('textarea', { id, class: 'run-editor', spellcheck: 'false', autocapitalize: 'off',
    autocomplete: 'off', wrap: 'off', rows: String(Math.min(24, Math.max(minimumRows, text.split('\n').length + 1))) });
  area.value = text;
  wrap.append(area);
  return { wrap, area };
}

/** Puts the caret at the start of the SQL, with a keyboard only: on a touch screen focus would raise the on-screen keyboard. */
function focusEditor(area) {
  if (!matchMedia('(pointer: fine)').matches) return;
  area.focus({ preventScroll: true });
  area.setSelectionRange(0, 0);
  area.scrollLeft = 0;
}

function panelParts(plan) {
  const status = element('p', { class: 'run-status', role: 'status', 'aria-live': 'polite' });
  const output = element('pre', { class: 'run-output', 'data-kensho-run-output': '', tabindex: '0' });
  const verdictLine = element('p', { class: 'run-verdict', role: 'status', 'aria-live': 'polite' });
  // A query that runs too long is stopped by ending the worker: PGlite has no other way to cancel a statement.
  const stop = element('button', { type: 'button', class: 'run-reset run-stop', hidden: '' }, words(plan, 'stop'));
  stop.addEventListener('click', () => stopWorker(words(plan, 'stopped')));
  const parts = { status, output, verdictLine, stop, generation: 0, controls: [] };
  // While a run goes on, its controls wait (a second click would only queue behind it) and Stop is offered.
  parts.busy = (on) => {
    stop.hidden = !on;
    parts.controls.forEach((control) => { control.disabled = on; });
  };
  return parts;
}

/** Ends the worker (and the database in it); what was waiting for it fails with `reason`. The next run starts anew. */
function stopWorker(reason) {
  if (!worker) return;
  worker.terminate();
  worker = null;
  for (const waiting of pending.values()) waiting.reject(new Error(reason));
  pending.clear();
}

/**
 * Runs a request in the worker and shows it: status while it loads and replays, the output as psql prints it,
 * and the verdict `judge(outcome)` gives ({kind, text}); a replay that ended otherwise than the build's is said instead.
 */
async function runAndShow(plan, parts, engine, request, judge) {
  const generation = ++parts.generation;
  const current = () => generation === parts.generation;
  parts.verdictLine.textContent = '';
  parts.verdictLine.removeAttribute('data-kensho-verdict');
  parts.output.textContent = '';
  parts.status.textContent = words(plan, 'loading');
  parts.busy(true);
  try {
    engine.textContent = await engineLine(plan);
    let outcome;
    try {
      outcome = await ask({ type: 'run', plan, ...request }, (progress) => {
        if (current()) parts.status.textContent = words(plan, progress);
      });
    } finally {
      parts.busy(false);
    }
    if (!current()) return; // reset, or run again, while this one ran: its result belongs to nothing on the page now
    parts.status.textContent = '';
    let judged;
    if (outcome.diverged) {
      const d = outcome.diverged;
      const what = d.error ? words(plan, 'divergedError', d.error.sqlstate, d.error.message) : words(plan, 'divergedNoError', d.expected);
      judged = { kind: 'diverged', text: words(plan, 'diverged', d.line, what) };
    } else {
      parts.output.textContent = printOutcome(plan, outcome) || words(plan, 'noRows');
      judged = judge(outcome);
    }
    parts.verdictLine.textContent = judged.text;
    parts.verdictLine.dataset.kenshoVerdict = judged.kind;
  } catch (error) {
    if (current()) parts.status.textContent = error.message === words(plan, 'stopped') ? error.message : words(plan, 'failed', error.message);
  }
}

function runSnippet(snippet, plan, target, area, parts, engine) {
  const text = area.value;
  return runAndShow(plan, parts, engine, { target, text }, (outcome) => {
    const judged = verdict(plan, snippet, outcome);
    if (text === snippet.sql) return judged;
    // The reader's own SQL: how it was sent, and an order the verified query had and this one no longer has.
    const unsorted = judged.kind === 'same' && outcome.sorted === false && snippet.expect && snippet.expect.ordered
      ? words(plan, 'orderNotGuaranteed') : '';
    return { kind: judged.kind, text: sentences(plan, judged.text, unsorted, words(plan, 'editedNote')) };
  });
}

async function openSnippet(button) {
  const figure = button.closest('[data-kensho-snippet]');
  if (figure.querySelector('.run-panel')) {
    focusEditor(figure.querySelector('.run-editor'));
    return;
  }
  const plan = await loadPlan(button.dataset.kenshoRun);
  const index = Number(figure.dataset.kenshoSnippet);
  const target = plan.runs.findIndex((r) => r.snippet === index);
  // The plan's entry with the build's rows, which only the page uses (the worker replays from the plan alone).
  const snippet = { ...plan.runs[target], results: await loadRows(button.dataset.kenshoRun, plan.runs[target]) };
  const panel = element('div', { class: 'run-panel', role: 'group', 'aria-label': words(plan, 'panelLabel') });
  const parts = panelParts(plan);
  const { wrap, area } = editor(plan, snippet.sql, words(plan, 'editorLabel'));
  const code = figure.querySelector(':scope > pre');
  code.hidden = true;
  const actions = element('div', { class: 'run-actions' });
  const go = element('button', { type: 'button', class: 'run-go' }, words(plan, 'run'));
  const reset = element('button', { type: 'button', class: 'run-reset' }, words(plan, 'reset'));
  const engine = element('span', { class: 'run-engine' });
  actions.append(go, parts.stop, reset, engine);
  parts.controls.push(go);
  const results = element('div', { class: 'run-results' });
  const verifiedCaption = element('p', { class: 'run-caption' }, words(plan, 'verifiedCaption'));
  const verified = element('pre', { class: 'run-verified', 'data-kensho-verified-rows': '', tabindex: '0' });
  // The build's result as psql prints it: printed here from the rows, as the build printed them (one copy of the rows).
  const expected = snippet.expect || {};
  verified.textContent = printOutcome(plan, { tables: snippet.results,
    error: expected.error ? { sqlstate: expected.error, message: expected.message } : null }) || words(plan, 'noRows');
  results.append(verifiedCaption, verified, element('p', { class: 'run-caption' }, words(plan, 'outputCaption')), parts.output);
  panel.append(wrap);
  if (snippet.binding) {
    // The values the build bound to $1 … $n, which the reader's run binds too.
    const bound = snippet.binding.parameters.map((p) => '$' + p.position + ' = ' + p.value + ' (' + p.type + ')').join(', ');
    panel.append(element('p', { class: 'run-parameters' }, words(plan, 'parameters', bound)));
  }
  panel.append(actions, parts.status, results, parts.verdictLine);
  code.after(panel);
  button.closest('.run-bar').hidden = true;
  go.addEventListener('click', (e) => { if (e.isTrusted) runSnippet(snippet, plan, target, area, parts, engine); });
  reset.addEventListener('click', () => {
    parts.generation++; // a run still going on shows nothing when it ends
    area.value = snippet.sql;
    parts.output.textContent = '';
    parts.verdictLine.textContent = '';
    parts.verdictLine.removeAttribute('data-kensho-verdict');
    parts.status.textContent = words(plan, 'resetDone');
  });
  area.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey) && e.isTrusted && !go.disabled) { e.preventDefault(); runSnippet(snippet, plan, target, area, parts, engine); }
  });
  focusEditor(area);
  runSnippet(snippet, plan, target, area, parts, engine);
}

async function openExercise(button) {
  const exercise = button.closest('[data-kensho-exercise]');
  // The model answer is the snippet in the answer's own folder; the task or a hint may show other snippets.
  const answer = [...exercise.querySelectorAll('.exercise-answer figure[data-kensho-snippet]')]
    .find((figure) => figure.closest('[data-kensho-exercise]') === exercise);
  const answerButton = answer && answer.querySelector('[data-kensho-run]');
  const place = exercise.querySelector('.exercise-try');
  const plan = await loadPlan(answerButton.dataset.kenshoRun);
  const index = Number(answer.dataset.kenshoSnippet);
  const target = plan.runs.findIndex((r) => r.snippet === index);
  const model = { ...plan.runs[target], results: await loadRows(answerButton.dataset.kenshoRun, plan.runs[target]) };
  const parts = panelParts(plan);
  const { wrap, area } = editor(plan, '', words(plan, 'exerciseEditor'), 6);
  area.placeholder = 'SELECT …';
  const actions = element('div', { class: 'run-actions' });
  const check = element('button', { type: 'button', class: 'run-go' }, words(plan, 'exerciseCheck'));
  const engine = element('span', { class: 'run-engine' });
  actions.append(check, parts.stop, engine);
  parts.controls.push(check);
  const panel = element('div', { class: 'run-panel', role: 'group', 'aria-label': words(plan, 'exerciseLabel') });
  panel.append(wrap, actions, parts.status, element('p', { class: 'run-caption' }, words(plan, 'outputCaption')), parts.output, parts.verdictLine);
  place.replaceChildren(panel);
  button.hidden = true;
  const expect = model.expect || {};
  const judge = () => runAndShow(plan, parts, engine, { target, text: area.value, exercise: true }, (outcome) => {
    const expected = model.results[model.results.length - 1];
    let difference = outcome.error ? words(plan, 'answerErrorInstead')
      : !outcome.tables.length ? words(plan, 'exerciseNoRows')
      : tableDifference(plan, expected, outcome.tables[outcome.tables.length - 1], { ordered: expect.ordered, keys: expect.keys }, 'answer');
    // Rows in the model answer's order by chance are not sorted rows: the task asks for the order.
    if (!difference && expect.ordered && outcome.sorted !== true) difference = words(plan, 'answerNotSorted');
    return difference ? { kind: 'different', text: sentences(plan, words(plan, 'exerciseWrong'), difference) }
      : { kind: 'same', text: words(plan, 'exerciseRight') };
  });
  check.addEventListener('click', (e) => { if (e.isTrusted) judge(); });
  area.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey) && e.isTrusted && !check.disabled) { e.preventDefault(); judge(); }
  });
  focusEditor(area);
}

// For the browser tests: the printing and the comparison, which must agree with sql-checks' PsqlFormat and RowComparison.
export { formatTable, tableDifference };

/** Called by kensho.js with the run control the reader clicked. */
export function open(button) {
  if (button.hasAttribute('data-kensho-exercise-start')) return openExercise(button);
  return openSnippet(button);
}
