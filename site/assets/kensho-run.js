// Run it yourself: a verified snippet, or a query exercise, run in the reader's browser on PGlite (PostgreSQL
// 18.6 in WebAssembly). Loaded by kensho.js on the first click of a run control, never before; PGlite itself
// loads in a Web Worker (kensho-run-worker.js) on that click. The page's run plan (PAGE.run.json, written by
// the build) says how the build ran every snippet; the rows the build got for a snippet are in a file of their
// own (PAGE.run.N.json, named by the plan), fetched when that snippet is opened and no other. Results compare
// under the build's rules.
// Everything the reader's SQL returns is put on the page as text, never as HTML.

const body = document.body;
/** The worker the reader's runs go to: its engine is the one their runs change. */
let worker = null;
/** What the page knows of that worker's engine after its last run: {plan, at, clean} (the worker says it). */
let liveState = null;
/**
 * The worker beside it, a thread of its own, bringing its one engine to the state before one snippet while the
 * reader reads or types, so that an edited run there starts at once (on two cores or more without slowing the
 * engine the reader runs on): {worker, plan, target, ready: true, false, or null while at work}. At most one.
 */
let spare = null;
let requests = 0;
const pending = new Map();
const plans = new Map();
const recorded = new Map();
let engineVersion = null;
/** The snippet the reader ran last: {plan, target}. */
/** The engine started in the background before any click on this page (see warm), or null. */
let warming = null;

function startWorker() {
  const started = new Worker(new URL(body.dataset.runWorker, location.href), { type: 'module' });
  started.onmessage = (event) => {
    const { id, ok, result, error, progress } = event.data;
    const waiting = pending.get(id);
    if (progress) {
      if (waiting && waiting.onProgress) waiting.onProgress(progress);
      return;
    }
    pending.delete(id);
    if (ok) waiting.resolve(result); else waiting.reject(new Error(error));
  };
  started.onerror = (event) => {
    for (const [id, waiting] of pending) {
      if (waiting.worker !== started) continue;
      waiting.reject(new Error(event.message || 'the worker stopped'));
      pending.delete(id);
    }
    if (worker === started) { worker = null; liveState = null; }
    if (spare && spare.worker === started) spare = null;
  };
  return started;
}

function send(to, request, onProgress) {
  const id = ++requests;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject, onProgress, worker: to });
    to.postMessage({ id, request: { ...request, engine: new URL(body.dataset.engine, location.href).href } });
  });
}

function ask(request, onProgress) {
  if (!worker) {
    worker = startWorker();
    liveState = null;
  }
  return send(worker, request, onProgress);
}

/**
 * Once the engine runs on this page, the worker beside it prepares the state before run `target` (the reader opened,
 * focused or changed that snippet's editor, or ran their own text there). The engine it had before is closed first.
 */
function prepareFor(plan, target) {
  if (!worker || (spare && spare.plan === plan && spare.target === target)) return;
  const asked = { worker: spare ? spare.worker : startWorker(), plan, target, ready: null };
  // A new worker gets the engine's files from the one runs go to (compiled already): it starts without fetching them.
  const files = spare ? Promise.resolve(null) : send(worker, { type: 'files' }).catch(() => null);
  spare = asked;
  files.then((given) => send(asked.worker, { type: 'prepare', plan, target, files: given }))
    .then((ready) => { asked.ready = ready; }, () => { asked.ready = false; });
}

/**
 * The reader left the snippet the worker beside was preparing (they ran another): the worker ends, engine and all,
 * at once, even in the middle of a start, so that it takes no memory and no time from the runs that follow (a lease
 * of 3 seconds one snippet takes must still hold when the next one checks it). The next preparation starts another,
 * handed the compiled files.
 */
function leaveSpare(plan, target) {
  if (!spare || (spare.plan === plan && spare.target === target)) return;
  const left = spare.worker;
  if (spare.ready !== null) {
    // Idle: its engine is closed, and the worker (its compiled code) stays for the next preparation.
    spare = { worker: left, plan: null, target: null, ready: false };
    send(left, { type: 'retire' }).catch(() => {});
    return;
  }
  spare = null;
  left.terminate();
  for (const [id, waiting] of pending) {
    if (waiting.worker !== left) continue;
    waiting.reject(new Error('left'));
    pending.delete(id);
  }
}

/**
 * A run, on the worker whose engine can answer it soonest: the one beside when it prepared (or is preparing) the
 * state before this snippet and the engine runs go to is not there already; the two then change places, and the
 * other prepares the same state again for the reader's next edit. Which one ran is said in the outcome's `how`.
 */
function runRequest(plan, request, onProgress) {
  const { target } = request;
  clearTimeout(staying);
  leaveSpare(plan, target);
  // Whether the engine runs go to is at the state before the snippet, or can reach it by replaying what lies between.
  const reachable = liveState && (liveState.plan === plan || liveState.plan === null) && liveState.clean && liveState.at <= target;
  const there = reachable && liveState.at === target;
  const beside = spare && spare.plan === plan && spare.target === target;
  let swapped = false;
  if (beside && (spare.ready === true ? !there : spare.ready === null && !reachable)) {
    const before = worker;
    worker = spare.worker;
    liveState = null;
    // (None when the reader stopped the last run: the next preparation starts a worker.)
    spare = before ? { worker: before, plan: null, target: null, ready: false } : null;
    swapped = true;
  }
  const to = worker;
  const outcome = ask({ type: 'run', plan, ...request }, onProgress).then((result) => {
    if (to === worker && result.after) liveState = { plan, ...result.after };
    return result;
  });
  // After the reader's own text the next run is most often the same snippet, edited again.
  if (swapped || request.exercise || request.text !== plan.runs[target].sql) prepareFor(plan, target);
  return outcome;
}

/** How long the reader stays at an answer with the cursor in its editor before the state before it is prepared (ms). */
const STAY_MS = 1500;
/** The timer of that wait (one for the page: any run asked ends it). */
let staying = null;

/**
 * The answer of a run of snippet `target` came: if the reader stays there STAY_MS with the cursor in its editor (a
 * keyboard and a fine pointer put it there when the panel opened, or they came back to it), the worker beside starts
 * to prepare the state before the snippet, the one their edit will need, so that the edit finds it ready. Where the
 * cursor is not there (a touch screen puts focus on Run, not the editor, so as not to raise the on-screen keyboard)
 * nothing starts until they come back to the editor or type, as before: a second engine costs a phone about 200 MB
 * and a PostgreSQL start. A reader who runs the next snippet within STAY_MS starts nothing.
 */
function stayAtAnswer(plan, target, area, parts) {
  clearTimeout(staying);
  const generation = parts.generation;
  staying = setTimeout(() => {
    staying = null;
    if (parts.generation === generation && !parts.running && document.activeElement === area) prepareFor(plan, target);
  }, STAY_MS);
}

/**
 * For a reader who ran a snippet before in this browser (they chose it with a click; kensho.js asks only then): the
 * engine starts while the page is idle, so that their first click finds it started. Fetches what their first run
 * fetched, from the browser's cache.
 */
export function warm() {
  if (!warming && !worker) warming = askVersion().catch(() => null);
}

/**
 * The engine's version, asked of the worker runs go to; it starts that worker's engine at the page's start, the
 * initialised cluster, the state before any page's first snippet (plan null: it fits every plan).
 */
function askVersion(onProgress) {
  return ask({ type: 'version' }, onProgress).then((version) => {
    if (!liveState) liveState = { plan: null, at: 0, clean: true };
    return version;
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

/** The rows the build recorded of one snippet of the plan at `url` (and of an exercise's cases): its own file, next to the plan. */
function loadRows(url, snippet) {
  const absolute = new URL(snippet.rows, new URL(url, location.href)).href;
  if (!recorded.has(absolute)) {
    recorded.set(absolute, fetch(absolute).then((response) => {
      if (!response.ok) throw new Error(absolute + ': HTTP ' + response.status);
      return response.json();
    }));
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
// psql's ucs_wcwidth (src/common/wchar.c) with PostgreSQL 18.6's own tables, as PsqlCharWidth in sql-checks: 0 for a
// non-spacing code point, 2 for an East Asian wide or full-width one, else 1 (controls are escaped before).
// BEGIN generated by bench/pg-suites/psql_widths.py from PostgreSQL 18.6
const NONSPACING = [
  0x00AD, 0x00AD, 0x0300, 0x036F, 0x0483, 0x0489, 0x0591, 0x05BD, 0x05BF, 0x05BF, 0x05C1, 0x05C2, 0x05C4, 0x05C5,
  0x05C7, 0x05C7, 0x0600, 0x0605, 0x0610, 0x061A, 0x061C, 0x061C, 0x064B, 0x065F, 0x0670, 0x0670, 0x06D6, 0x06DD,
  0x06DF, 0x06E4, 0x06E7, 0x06E8, 0x06EA, 0x06ED, 0x070F, 0x070F, 0x0711, 0x0711, 0x0730, 0x074A, 0x07A6, 0x07B0,
  0x07EB, 0x07F3, 0x07FD, 0x07FD, 0x0816, 0x0819, 0x081B, 0x0823, 0x0825, 0x0827, 0x0829, 0x082D, 0x0859, 0x085B,
  0x0890, 0x089F, 0x08CA, 0x0902, 0x093A, 0x093A, 0x093C, 0x093C, 0x0941, 0x0948, 0x094D, 0x094D, 0x0951, 0x0957,
  0x0962, 0x0963, 0x0981, 0x0981, 0x09BC, 0x09BC, 0x09C1, 0x09C4, 0x09CD, 0x09CD, 0x09E2, 0x09E3, 0x09FE, 0x0A02,
  0x0A3C, 0x0A3C, 0x0A41, 0x0A51, 0x0A70, 0x0A71, 0x0A75, 0x0A75, 0x0A81, 0x0A82, 0x0ABC, 0x0ABC, 0x0AC1, 0x0AC8,
  0x0ACD, 0x0ACD, 0x0AE2, 0x0AE3, 0x0AFA, 0x0B01, 0x0B3C, 0x0B3C, 0x0B3F, 0x0B3F, 0x0B41, 0x0B44, 0x0B4D, 0x0B56,
  0x0B62, 0x0B63, 0x0B82, 0x0B82, 0x0BC0, 0x0BC0, 0x0BCD, 0x0BCD, 0x0C00, 0x0C00, 0x0C04, 0x0C04, 0x0C3C, 0x0C3C,
  0x0C3E, 0x0C40, 0x0C46, 0x0C56, 0x0C62, 0x0C63, 0x0C81, 0x0C81, 0x0CBC, 0x0CBC, 0x0CBF, 0x0CBF, 0x0CC6, 0x0CC6,
  0x0CCC, 0x0CCD, 0x0CE2, 0x0CE3, 0x0D00, 0x0D01, 0x0D3B, 0x0D3C, 0x0D41, 0x0D44, 0x0D4D, 0x0D4D, 0x0D62, 0x0D63,
  0x0D81, 0x0D81, 0x0DCA, 0x0DCA, 0x0DD2, 0x0DD6, 0x0E31, 0x0E31, 0x0E34, 0x0E3A, 0x0E47, 0x0E4E, 0x0EB1, 0x0EB1,
  0x0EB4, 0x0EBC, 0x0EC8, 0x0ECE, 0x0F18, 0x0F19, 0x0F35, 0x0F35, 0x0F37, 0x0F37, 0x0F39, 0x0F39, 0x0F71, 0x0F7E,
  0x0F80, 0x0F84, 0x0F86, 0x0F87, 0x0F8D, 0x0FBC, 0x0FC6, 0x0FC6, 0x102D, 0x1030, 0x1032, 0x1037, 0x1039, 0x103A,
  0x103D, 0x103E, 0x1058, 0x1059, 0x105E, 0x1060, 0x1071, 0x1074, 0x1082, 0x1082, 0x1085, 0x1086, 0x108D, 0x108D,
  0x109D, 0x109D, 0x135D, 0x135F, 0x1712, 0x1714, 0x1732, 0x1733, 0x1752, 0x1753, 0x1772, 0x1773, 0x17B4, 0x17B5,
  0x17B7, 0x17BD, 0x17C6, 0x17C6, 0x17C9, 0x17D3, 0x17DD, 0x17DD, 0x180B, 0x180F, 0x1885, 0x1886, 0x18A9, 0x18A9,
  0x1920, 0x1922, 0x1927, 0x1928, 0x1932, 0x1932, 0x1939, 0x193B, 0x1A17, 0x1A18, 0x1A1B, 0x1A1B, 0x1A56, 0x1A56,
  0x1A58, 0x1A60, 0x1A62, 0x1A62, 0x1A65, 0x1A6C, 0x1A73, 0x1A7F, 0x1AB0, 0x1B03, 0x1B34, 0x1B34, 0x1B36, 0x1B3A,
  0x1B3C, 0x1B3C, 0x1B42, 0x1B42, 0x1B6B, 0x1B73, 0x1B80, 0x1B81, 0x1BA2, 0x1BA5, 0x1BA8, 0x1BA9, 0x1BAB, 0x1BAD,
  0x1BE6, 0x1BE6, 0x1BE8, 0x1BE9, 0x1BED, 0x1BED, 0x1BEF, 0x1BF1, 0x1C2C, 0x1C33, 0x1C36, 0x1C37, 0x1CD0, 0x1CD2,
  0x1CD4, 0x1CE0, 0x1CE2, 0x1CE8, 0x1CED, 0x1CED, 0x1CF4, 0x1CF4, 0x1CF8, 0x1CF9, 0x1DC0, 0x1DFF, 0x200B, 0x200F,
  0x202A, 0x202E, 0x2060, 0x206F, 0x20D0, 0x20F0, 0x2CEF, 0x2CF1, 0x2D7F, 0x2D7F, 0x2DE0, 0x2DFF, 0x302A, 0x302D,
  0x3099, 0x309A, 0xA66F, 0xA672, 0xA674, 0xA67D, 0xA69E, 0xA69F, 0xA6F0, 0xA6F1, 0xA802, 0xA802, 0xA806, 0xA806,
  0xA80B, 0xA80B, 0xA825, 0xA826, 0xA82C, 0xA82C, 0xA8C4, 0xA8C5, 0xA8E0, 0xA8F1, 0xA8FF, 0xA8FF, 0xA926, 0xA92D,
  0xA947, 0xA951, 0xA980, 0xA982, 0xA9B3, 0xA9B3, 0xA9B6, 0xA9B9, 0xA9BC, 0xA9BD, 0xA9E5, 0xA9E5, 0xAA29, 0xAA2E,
  0xAA31, 0xAA32, 0xAA35, 0xAA36, 0xAA43, 0xAA43, 0xAA4C, 0xAA4C, 0xAA7C, 0xAA7C, 0xAAB0, 0xAAB0, 0xAAB2, 0xAAB4,
  0xAAB7, 0xAAB8, 0xAABE, 0xAABF, 0xAAC1, 0xAAC1, 0xAAEC, 0xAAED, 0xAAF6, 0xAAF6, 0xABE5, 0xABE5, 0xABE8, 0xABE8,
  0xABED, 0xABED, 0xFB1E, 0xFB1E, 0xFE00, 0xFE0F, 0xFE20, 0xFE2F, 0xFEFF, 0xFEFF, 0xFFF9, 0xFFFB, 0x101FD, 0x101FD,
  0x102E0, 0x102E0, 0x10376, 0x1037A, 0x10A01, 0x10A0F, 0x10A38, 0x10A3F, 0x10AE5, 0x10AE6, 0x10D24, 0x10D27,
  0x10D69, 0x10D6D, 0x10EAB, 0x10EAC, 0x10EFC, 0x10EFF, 0x10F46, 0x10F50, 0x10F82, 0x10F85, 0x11001, 0x11001,
  0x11038, 0x11046, 0x11070, 0x11070, 0x11073, 0x11074, 0x1107F, 0x11081, 0x110B3, 0x110B6, 0x110B9, 0x110BA,
  0x110BD, 0x110BD, 0x110C2, 0x110CD, 0x11100, 0x11102, 0x11127, 0x1112B, 0x1112D, 0x11134, 0x11173, 0x11173,
  0x11180, 0x11181, 0x111B6, 0x111BE, 0x111C9, 0x111CC, 0x111CF, 0x111CF, 0x1122F, 0x11231, 0x11234, 0x11234,
  0x11236, 0x11237, 0x1123E, 0x1123E, 0x11241, 0x11241, 0x112DF, 0x112DF, 0x112E3, 0x112EA, 0x11300, 0x11301,
  0x1133B, 0x1133C, 0x11340, 0x11340, 0x11366, 0x11374, 0x113BB, 0x113C0, 0x113CE, 0x113CE, 0x113D0, 0x113D0,
  0x113D2, 0x113D2, 0x113E1, 0x113E2, 0x11438, 0x1143F, 0x11442, 0x11444, 0x11446, 0x11446, 0x1145E, 0x1145E,
  0x114B3, 0x114B8, 0x114BA, 0x114BA, 0x114BF, 0x114C0, 0x114C2, 0x114C3, 0x115B2, 0x115B5, 0x115BC, 0x115BD,
  0x115BF, 0x115C0, 0x115DC, 0x115DD, 0x11633, 0x1163A, 0x1163D, 0x1163D, 0x1163F, 0x11640, 0x116AB, 0x116AB,
  0x116AD, 0x116AD, 0x116B0, 0x116B5, 0x116B7, 0x116B7, 0x1171D, 0x1171D, 0x1171F, 0x1171F, 0x11722, 0x11725,
  0x11727, 0x1172B, 0x1182F, 0x11837, 0x11839, 0x1183A, 0x1193B, 0x1193C, 0x1193E, 0x1193E, 0x11943, 0x11943,
  0x119D4, 0x119DB, 0x119E0, 0x119E0, 0x11A01, 0x11A0A, 0x11A33, 0x11A38, 0x11A3B, 0x11A3E, 0x11A47, 0x11A47,
  0x11A51, 0x11A56, 0x11A59, 0x11A5B, 0x11A8A, 0x11A96, 0x11A98, 0x11A99, 0x11C30, 0x11C3D, 0x11C3F, 0x11C3F,
  0x11C92, 0x11CA7, 0x11CAA, 0x11CB0, 0x11CB2, 0x11CB3, 0x11CB5, 0x11CB6, 0x11D31, 0x11D45, 0x11D47, 0x11D47,
  0x11D90, 0x11D91, 0x11D95, 0x11D95, 0x11D97, 0x11D97, 0x11EF3, 0x11EF4, 0x11F00, 0x11F01, 0x11F36, 0x11F3A,
  0x11F40, 0x11F40, 0x11F42, 0x11F42, 0x11F5A, 0x11F5A, 0x13430, 0x13440, 0x13447, 0x13455, 0x1611E, 0x16129,
  0x1612D, 0x1612F, 0x16AF0, 0x16AF4, 0x16B30, 0x16B36, 0x16F4F, 0x16F4F, 0x16F8F, 0x16F92, 0x16FE4, 0x16FE4,
  0x1BC9D, 0x1BC9E, 0x1BCA0, 0x1BCA3, 0x1CF00, 0x1CF46, 0x1D167, 0x1D169, 0x1D173, 0x1D182, 0x1D185, 0x1D18B,
  0x1D1AA, 0x1D1AD, 0x1D242, 0x1D244, 0x1DA00, 0x1DA36, 0x1DA3B, 0x1DA6C, 0x1DA75, 0x1DA75, 0x1DA84, 0x1DA84,
  0x1DA9B, 0x1DAAF, 0x1E000, 0x1E02A, 0x1E08F, 0x1E08F, 0x1E130, 0x1E136, 0x1E2AE, 0x1E2AE, 0x1E2EC, 0x1E2EF,
  0x1E4EC, 0x1E4EF, 0x1E5EE, 0x1E5EF, 0x1E8D0, 0x1E8D6, 0x1E944, 0x1E94A, 0xE0001, 0xE01EF
];
const EAST_ASIAN_FW = [
  0x1100, 0x115F, 0x231A, 0x231B, 0x2329, 0x232A, 0x23E9, 0x23EC, 0x23F0, 0x23F0, 0x23F3, 0x23F3, 0x25FD, 0x25FE,
  0x2614, 0x2615, 0x2630, 0x2637, 0x2648, 0x2653, 0x267F, 0x267F, 0x268A, 0x268F, 0x2693, 0x2693, 0x26A1, 0x26A1,
  0x26AA, 0x26AB, 0x26BD, 0x26BE, 0x26C4, 0x26C5, 0x26CE, 0x26CE, 0x26D4, 0x26D4, 0x26EA, 0x26EA, 0x26F2, 0x26F3,
  0x26F5, 0x26F5, 0x26FA, 0x26FA, 0x26FD, 0x26FD, 0x2705, 0x2705, 0x270A, 0x270B, 0x2728, 0x2728, 0x274C, 0x274C,
  0x274E, 0x274E, 0x2753, 0x2755, 0x2757, 0x2757, 0x2795, 0x2797, 0x27B0, 0x27B0, 0x27BF, 0x27BF, 0x2B1B, 0x2B1C,
  0x2B50, 0x2B50, 0x2B55, 0x2B55, 0x2E80, 0x2E99, 0x2E9B, 0x2EF3, 0x2F00, 0x2FD5, 0x2FF0, 0x303E, 0x3041, 0x3096,
  0x3099, 0x30FF, 0x3105, 0x312F, 0x3131, 0x318E, 0x3190, 0x31E5, 0x31EF, 0x321E, 0x3220, 0x3247, 0x3250, 0xA48C,
  0xA490, 0xA4C6, 0xA960, 0xA97C, 0xAC00, 0xD7A3, 0xF900, 0xFAFF, 0xFE10, 0xFE19, 0xFE30, 0xFE52, 0xFE54, 0xFE66,
  0xFE68, 0xFE6B, 0xFF01, 0xFF60, 0xFFE0, 0xFFE6, 0x16FE0, 0x16FE4, 0x16FF0, 0x16FF1, 0x17000, 0x187F7,
  0x18800, 0x18CD5, 0x18CFF, 0x18D08, 0x1AFF0, 0x1AFF3, 0x1AFF5, 0x1AFFB, 0x1AFFD, 0x1AFFE, 0x1B000, 0x1B122,
  0x1B132, 0x1B132, 0x1B150, 0x1B152, 0x1B155, 0x1B155, 0x1B164, 0x1B167, 0x1B170, 0x1B2FB, 0x1D300, 0x1D356,
  0x1D360, 0x1D376, 0x1F004, 0x1F004, 0x1F0CF, 0x1F0CF, 0x1F18E, 0x1F18E, 0x1F191, 0x1F19A, 0x1F200, 0x1F202,
  0x1F210, 0x1F23B, 0x1F240, 0x1F248, 0x1F250, 0x1F251, 0x1F260, 0x1F265, 0x1F300, 0x1F320, 0x1F32D, 0x1F335,
  0x1F337, 0x1F37C, 0x1F37E, 0x1F393, 0x1F3A0, 0x1F3CA, 0x1F3CF, 0x1F3D3, 0x1F3E0, 0x1F3F0, 0x1F3F4, 0x1F3F4,
  0x1F3F8, 0x1F43E, 0x1F440, 0x1F440, 0x1F442, 0x1F4FC, 0x1F4FF, 0x1F53D, 0x1F54B, 0x1F54E, 0x1F550, 0x1F567,
  0x1F57A, 0x1F57A, 0x1F595, 0x1F596, 0x1F5A4, 0x1F5A4, 0x1F5FB, 0x1F64F, 0x1F680, 0x1F6C5, 0x1F6CC, 0x1F6CC,
  0x1F6D0, 0x1F6D2, 0x1F6D5, 0x1F6D7, 0x1F6DC, 0x1F6DF, 0x1F6EB, 0x1F6EC, 0x1F6F4, 0x1F6FC, 0x1F7E0, 0x1F7EB,
  0x1F7F0, 0x1F7F0, 0x1F90C, 0x1F93A, 0x1F93C, 0x1F945, 0x1F947, 0x1F9FF, 0x1FA70, 0x1FA7C, 0x1FA80, 0x1FA89,
  0x1FA8F, 0x1FAC6, 0x1FACE, 0x1FADC, 0x1FADF, 0x1FAE9, 0x1FAF0, 0x1FAF8, 0x20000, 0x2FFFD, 0x30000, 0x3FFFD
];
// END generated

function inTable(table, cp) {
  if (cp < table[0] || cp > table[table.length - 1]) return false;
  let low = 0;
  let high = table.length / 2 - 1;
  while (low <= high) {
    const mid = (low + high) >>> 1;
    if (cp > table[2 * mid + 1]) low = mid + 1;
    else if (cp < table[2 * mid]) high = mid - 1;
    else return true;
  }
  return false;
}

function charWidth(cp) {
  if (inTable(NONSPACING, cp)) return 0;
  return inTable(EAST_ASIAN_FW, cp) ? 2 : 1;
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

/**
 * A table in psql's aligned format as pieces of text, each tagged with the data row (and the cell) it prints, so
 * that the page can mark rows and cells without changing a character of the text. A table of which only the first
 * rows came back (`total` more than its rows) ends in `cutNote` and psql's footer for all of its rows.
 */
function formatPieces(table, cutNote) {
  const pieces = [];
  const put = (text, row = -1, cell = -1) => { if (text) pieces.push({ text, row, cell }); };
  const total = typeof table.total === 'number' && table.total > table.rows.length ? table.total : table.rows.length;
  const footer = () => {
    if (total > table.rows.length && cutNote) put(cutNote + '\n');
    put(rowCount(total));
  };
  const n = table.columns.length;
  if (n === 0) {
    put('--\n');
    footer();
    return pieces;
  }
  const widths = new Array(n).fill(0);
  const header = table.columns.map((c) => valueLines(c));
  header.forEach((lines, c) => lines.forEach((l) => { widths[c] = Math.max(widths[c], textWidth(l)); }));
  const cells = table.rows.map((row) => table.columns.map((_, c) => {
    const value = c < row.length ? row[c] : null;
    const lines = value === null || value === undefined ? ['(null)'] : valueLines(value);
    lines.forEach((l) => { widths[c] = Math.max(widths[c], textWidth(l)); });
    return lines;
  }));
  const appendRow = (rowCells, row) => {
    const isHeader = row < 0;
    const height = Math.max(1, ...rowCells.map((cell) => cell.length));
    for (let l = 0; l < height; l++) {
      // The line as psql prints it (trailing blanks cut), then its pieces up to that length.
      const line = [];
      for (let c = 0; c < n; c++) {
        const cell = rowCells[c];
        const text = l < cell.length ? cell[l] : '';
        const pad = widths[c] - textWidth(text);
        const right = !isHeader && NUMERIC.has(table.types[c]);
        const left = isHeader ? Math.floor(pad / 2) : right ? pad : 0;
        line.push({ text: (c === 0 ? ' ' : '| ') + ' '.repeat(left), cell: -1 }, { text, cell: c },
          { text: ' '.repeat(pad - left) + (l + 1 < cell.length ? '+' : ' '), cell: -1 });
      }
      let keep = line.map((p) => p.text).join('').replace(/\s+$/, '').length;
      for (const piece of line) {
        const text = piece.text.slice(0, Math.max(0, keep));
        keep -= piece.text.length;
        put(text, row, piece.cell);
      }
      put('\n', row);
    }
  };
  appendRow(header, -1);
  put(widths.map((w, c) => (c === 0 ? '' : '+') + '-'.repeat(w + 2)).join('') + '\n');
  cells.forEach((row, r) => appendRow(row, r));
  footer();
  return pieces;
}

function formatTable(table, cutNote) {
  return formatPieces(table, cutNote).map((p) => p.text).join('');
}

/** A run's results as psql prints them, each as pieces (see formatPieces), and the error after them. */
function outcomePieces(plan, outcome) {
  const parts = outcome.tables.map((table) => formatPieces(table, words(plan, 'rowsCut', table.rows.length, table.total)));
  if (outcome.error) parts.push([{ text: 'ERROR:  ' + outcome.error.message + '\nSQLSTATE: ' + outcome.error.sqlstate, row: -1, cell: -1 }]);
  return parts;
}

function printOutcome(plan, outcome) {
  return outcomePieces(plan, outcome).map((pieces) => pieces.map((p) => p.text).join('')).join('\n\n');
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
  const extraAt = [];
  actual.forEach((row, i) => {
    const key = rowKey(row);
    if (counts.get(key) > 0) counts.set(key, counts.get(key) - 1); else { extra.push(row); extraAt.push(i); }
  });
  const missing = [];
  for (const row of expected) {
    const key = rowKey(row);
    if (counts.get(key) > 0) { missing.push(row); counts.set(key, counts.get(key) - 1); }
  }
  return { missing, extra, extraAt };
}

// Which rows tie under a sort: each key's rule, as the build ships it (TieRules: the column, the sort's equality operator
// `eq`, whether identical text is sure to be equal for the column's type), read as sql-checks' KeyEquality reads the
// printed values (keep the two alike): identical text ties where the type's output is exact; different text ties only
// where that operator makes the values equal and the text reads back exactly (numeric 1.0 = 1.00, float -0 = 0,
// interval 1 day = 24:00:00). Anything else is "not shown to tie": such rows must come in the server's order.
const FLOAT4_EQ = 620;
const FLOAT8_EQ = 670;
const INTERVAL_EQ = 1330;
const NUMERIC_EQ = 1752;

/** A numeric's printed value in one form per value (leading and trailing zeros dropped), or null (NaN, Infinity). */
function decimalForm(text) {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(text);
  if (!m || (m[2] === '' && (m[3] || '') === '')) return null;
  const whole = m[2].replace(/^0+/, '');
  const fraction = (m[3] || '').replace(/0+$/, '');
  return !whole && !fraction ? '0' : (m[1] === '-' ? '-' : '') + whole + '.' + fraction;
}

const INTERVAL_TEXT = /^(?:(-?\d+) years? ?)?(?:(-?\d+) mons? ?)?(?:(-?\d+) days? ?)?(?:([+-]?)(\d+):(\d{2}):(\d{2})(?:\.(\d{1,6}))?)?$/;

/** interval_cmp_value of an interval in the postgres style: (months * 30 + days) days plus the time, in µs; or null. */
function intervalSpan(text) {
  const m = INTERVAL_TEXT.exec(text);
  if (!text || !m) return null;
  const n = (digits) => BigInt(digits || 0);
  const days = (n(m[1]) * 12n + n(m[2])) * 30n + n(m[3]);
  let time = 0n;
  if (m[5] !== undefined) {
    time = ((n(m[5]) * 60n + n(m[6])) * 60n + n(m[7])) * 1000000n + BigInt(((m[8] || '') + '000000').slice(0, 6));
    if (m[4] === '-') time = -time;
  }
  return days * 86400000000n + time;
}

/** Whether two printed values tie under one key's rule (NULLs tie with each other, as the sort puts them together). */
function keyTies(rule, a, b) {
  if (a === null || a === undefined || b === null || b === undefined) return (a === null || a === undefined) && (b === null || b === undefined);
  if (a === b) return rule.exact === true;
  if (rule.eq === NUMERIC_EQ) {
    const x = decimalForm(a);
    return x !== null && x === decimalForm(b);
  }
  if (rule.eq === FLOAT8_EQ || rule.eq === FLOAT4_EQ) {
    const x = Number(a);
    const y = Number(b);
    return a.trim() !== '' && b.trim() !== '' && !Number.isNaN(x) && x === y;
  }
  if (rule.eq === INTERVAL_EQ) {
    const x = intervalSpan(a);
    return x !== null && x === intervalSpan(b);
  }
  return false;
}

/** Whether two rows tie on every key of `ties`; without rules (ties not known), only a row identical in text. */
function rowsTie(ties, x, y) {
  return Array.isArray(ties) && ties.length ? ties.every((rule) => keyTies(rule, x[rule.column], y[rule.column])) : rowKey(x) === rowKey(y);
}

/**
 * Whether two printed values may tie under the reader's sort key with equality operator `eq`: unless their text proves
 * them different. It does for the integer, boolean, date, uuid and OID equalities (one text per value); numeric, float
 * and interval are read as values; any other (text under a collation that may ignore case, a type of the page's own)
 * may tie whatever its text.
 */
const DISTINCT_BY_TEXT = new Set([15, 91, 94, 96, 410, 416, 532, 533, 607, 1093, 2972]);
function mayTie(eq, a, b) {
  const none = (v) => v === null || v === undefined;
  if (none(a) || none(b)) return none(a) && none(b);
  if (a === b) return true;
  if (eq === NUMERIC_EQ || eq === FLOAT8_EQ || eq === FLOAT4_EQ || eq === INTERVAL_EQ) {
    return keyTies({ eq, exact: true }, a, b) || (eq === INTERVAL_EQ && intervalSpan(a) === null);
  }
  return !DISTINCT_BY_TEXT.has(eq);
}

/**
 * Whether `actual` has the rows of `expected` in its order, rows that tie coming in any order among themselves: the
 * runs of adjacent actual rows that tie (sorted rows: equal keys are adjacent) must hold the same rows as the same
 * positions of `expected` (RowComparison.sameOrder).
 */
function sameInOrder(expected, actual, ties) {
  if (expected.length !== actual.length) return false;
  if (!Array.isArray(ties) || !ties.length) return expected.every((row, i) => rowKey(row) === rowKey(actual[i]));
  for (let start = 0; start < actual.length;) {
    let end = start + 1;
    while (end < actual.length && rowsTie(ties, actual[end - 1], actual[end])) end++;
    if (multisetDifference(expected.slice(start, end), actual.slice(start, end)).missing.length) return false;
    start = end;
  }
  return true;
}

/**
 * Whether the reader's query guarantees the order its rows came in, as far as the verified order asks: true; false
 * when it sorts nothing; else the words key of why it is not known. The reader's sort keys (from the server's parse,
 * see the worker's sorts) must be such that rows that may tie under them also tie under the verified order
 * (`verifiedTies`, the rules the build shipped; none: the whole row), or rows the verified order tells apart could come
 * in either order (`ORDER BY dept` where the build's was `ORDER BY dept, name`; `ORDER BY n` where 1.0 and 1.00 tie).
 */
function orderGuarantee(outcome, verifiedTies) {
  if (outcome.sorted === false) return false;
  if (outcome.sorted !== true) return outcome.orderWhy || 'orderWhyUnread';
  // Sorted by the verified query's own keys (some not shown), then perhaps more: the verified order, refined.
  if (outcome.orderRefines) return true;
  const last = outcome.tables[outcome.tables.length - 1];
  if (!last || last.total > last.rows.length || !Array.isArray(outcome.sortKeys)) return 'orderWhyUnread';
  // The reader's rows come sorted by their keys, so rows that may tie under them are adjacent. Two adjacent rows may tie
  // unless their text proves them different under the reader's sort (mayTie); such a pair must tie under the verified order.
  const keys = outcome.sortKeys;
  const operators = Array.isArray(outcome.sortEq) ? outcome.sortEq : [];
  for (let i = 1; i < last.rows.length; i++) {
    const a = last.rows[i - 1];
    const b = last.rows[i];
    if (keys.every((column, k) => mayTie(operators[k], a[column], b[column])) && !rowsTie(verifiedTies, a, b)) return 'orderWhyTies';
  }
  return true;
}

/** The first OID of an object a database creates (FirstNormalObjectId): below it, the same built-in type on every server. */
const FIRST_NORMAL_OID = 16384;

/**
 * Whether a column's type is the one the build recorded. Both name a type as the server reports it for the result
 * column (its OID's pg_type.typname); a type the build could name only by its OID (it reads no catalog in the page's
 * session) is compared by OID where built in, and where the page created it (an enum, a composite: another OID on
 * another server) as a type the page created, which is all either side knows of it without asking the catalogs.
 */
function sameType(recorded, name, oid) {
  if (recorded === name) return true;
  if (!/^[0-9]+$/.test(recorded) || typeof oid !== 'number') return false;
  const number = Number(recorded);
  return number < FIRST_NORMAL_OID ? number === oid : oid >= FIRST_NORMAL_OID;
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
  if (verified.types && got.types && (verified.types.length !== got.types.length
      || verified.types.some((type, c) => !sameType(type, got.types[c], got.oids ? got.oids[c] : null)))) {
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
    return sentences(plan, ...parts);
  }
  if (order && order.ordered && !sameInOrder(verified.rows, got.rows, order.ties)) {
    return say('orderDiffers');
  }
  return null;
}

/**
 * Where a table differs from the build's, for the page to mark in the one table it shows: rows only in this run (by
 * index), the build's rows missing from it, rows out of the verified order, and, where a row differs from a missing
 * one in some values only, those cells. Null when there is nothing to mark (the same rows, or other columns).
 */
function rowMarks(verified, got, order) {
  if (!got || JSON.stringify(verified.columns) !== JSON.stringify(got.columns) || got.total > got.rows.length) return null;
  const { missing, extra, extraAt } = multisetDifference(verified.rows, got.rows);
  const marks = { extra: new Set(extraAt), missing, order: new Set(), cells: new Map() };
  if (missing.length || extra.length) {
    if (missing.length === extra.length) {
      extra.forEach((row, k) => {
        const differ = row.map((value, c) => (value !== missing[k][c] ? c : -1)).filter((c) => c >= 0);
        if (differ.length < row.length) marks.cells.set(extraAt[k], new Set(differ));
      });
    }
    return marks;
  }
  if (order && order.ordered && !sameInOrder(verified.rows, got.rows, order.ties)) {
    got.rows.forEach((row, i) => { if (!verified.rows[i] || !rowsTie(order.ties, row, verified.rows[i])) marks.order.add(i); });
    return marks;
  }
  return null;
}

/**
 * The verdict on a run of a snippet's own position: {kind, text} (same, different, plan) and, where a table differs,
 * `table` (its index in the run's results) and `marks` (rowMarks) for the page to show where.
 */
function verdict(plan, snippet, outcome) {
  const expect = snippet.expect || {};
  if (expect.error) {
    if (!outcome.error) return { kind: 'different', text: sentences(plan, words(plan, 'different'), words(plan, 'noErrorInstead', expect.error)) };
    if (outcome.error.sqlstate !== expect.error) {
      return { kind: 'different', text: sentences(plan, words(plan, 'different'), words(plan, 'otherError', expect.error, outcome.error.sqlstate)) };
    }
    // The results before the error count too (the build recorded them).
    const before = compareTables(plan, snippet, outcome);
    if (before.kind === 'different' || before.kind === 'not-compared') return before;
    return { kind: 'same', text: words(plan, 'sameError', expect.error) };
  }
  if (outcome.error) return { kind: 'different', text: sentences(plan, words(plan, 'different'), words(plan, 'errorInstead')) };
  return compareTables(plan, snippet, outcome);
}

/** The result tables of a run against the build's, each under the build's rules for it. */
function compareTables(plan, snippet, outcome) {
  const expect = snippet.expect || {};
  const verified = snippet.results || [];
  if (verified.length !== outcome.tables.length) {
    return { kind: 'different', text: sentences(plan, words(plan, 'different'), words(plan, 'tablesDiffer', verified.length, outcome.tables.length)) };
  }
  let planDiffers = false;
  for (let i = 0; i < verified.length; i++) {
    const last = i === verified.length - 1;
    // An EXPLAIN prints its lines in order; another plan (other statistics, other costs) is told apart from other rows.
    // The build's decision where it compared the rows; elsewhere the build's reading of the server's parse of the
    // verified statement (the rows file's `sorted` and `ties`): sorted rows in order, a multiset where it does not sort.
    const order = verified[i].explain ? { ordered: true, ties: null }
      : last && expect.rows ? { ordered: expect.ordered, ties: expect.ties }
      : verified[i].sorted === true ? { ordered: true, ties: verified[i].ties || null } : null;
    const difference = tableDifference(plan, verified[i], outcome.tables[i], order);
    if (difference && verified[i].explain && JSON.stringify(verified[i].columns) === JSON.stringify(outcome.tables[i].columns)) {
      planDiffers = true;
    } else if (difference) {
      return { kind: 'different', text: sentences(plan, words(plan, 'different'), difference), table: i,
        marks: rowMarks(verified[i], outcome.tables[i], order) };
    }
  }
  if (planDiffers) return { kind: 'plan', text: words(plan, 'planDiffers') };
  const lastOrdered = expect.rows && expect.ordered;
  // Without a rows claim the build compared nothing: the result is the build's run, not a verified one.
  const head = verified.length === 0 ? words(plan, 'ranClean')
    : !expect.rows ? words(plan, 'sameAsBuild')
    : words(plan, lastOrdered ? 'same' : 'sameUnordered');
  return { kind: 'same', text: head };
}

/** Whether a result is EXPLAIN's text: one column, QUERY PLAN. */
function isPlan(table) {
  return !!table && table.columns.length === 1 && table.columns[0] === 'QUERY PLAN';
}

/**
 * The build's plan claims on the plan a run printed (EXPLAIN's text): each holds, does not, or cannot be told from
 * this plan. Only the statement's own plan is printed, without the work it did (buffers, rows removed), so those
 * claims and whatever needs more than the printed nodes are said not to be checked here, never to hold.
 */
function planCheck(checks, table) {
  const lines = table.rows.map((row) => String(row[0] === null ? '' : row[0]));
  // EXPLAIN's text format: a node on a line of its own (under -> but the top one), its properties as "Name: value".
  const text = lines.length > 0 && !/^\s*[[{<-]/.test(lines[0]);
  const nodes = [];
  for (const line of lines) {
    if (!/^\s*->/.test(line) && /^\s*[A-Za-z][A-Za-z /-]*: /.test(line)) continue;
    const node = line.replace(/^\s*(?:->\s+)?/, '').replace(/\s{2,}\(.*$/, '').trim();
    let m;
    if ((m = /^(Index Scan|Index Only Scan)(?: Backward)? using (\S+) on (\S+)/.exec(node))) nodes.push({ type: m[1], index: m[2], table: m[3] });
    else if ((m = /^(Bitmap Index Scan) on (\S+)/.exec(node))) nodes.push({ type: m[1], index: m[2], table: '' });
    else if ((m = /^(.+?) on (\S+)/.exec(node))) nodes.push({ type: m[1].replace(/^Parallel /, ''), index: '', table: m[2] });
    else nodes.push({ type: node.replace(/^Parallel /, ''), index: '', table: '' });
  }
  const relation = (name) => name.replace(/^.*\./, '');
  const tokens = (text) => text.replace(/\s+/g, ' ').trim();
  return checks.map((check) => {
    let holds = null;
    if (!text) {
      holds = null; // another format than text: not read here
    } else if (check.claim === 'uses-index') {
      holds = nodes.some((n) => n.index !== '' && relation(n.index) === check.value);
    } else if (check.claim === 'scan-in') {
      const allowed = check.value.split(',');
      holds = nodes.filter((n) => n.type.endsWith('Scan') && n.type !== 'Bitmap Heap Scan').every((n) => allowed.includes(n.type));
    } else if (check.claim === 'no-sort') {
      // An aggregate may sort its input itself, which no node shows: the build reads its arguments; the page cannot.
      holds = nodes.some((n) => /Aggregate$/.test(n.type)) ? null : !nodes.some((n) => /^(Incremental )?Sort$/.test(n.type));
    } else if (check.claim === 'no-seq-scan') {
      holds = !nodes.some((n) => n.type === 'Seq Scan' && relation(n.table) === check.value);
    } else if (check.claim === 'index-cond-contains') {
      holds = lines.some((line) => /^\s*Index Cond: /.test(line) && tokens(line).includes(tokens(check.value)));
    }
    return { ...check, holds };
  });
}

async function engineLine(plan, onProgress) {
  if (!engineVersion && warming) engineVersion = await warming;
  if (!engineVersion) engineVersion = await askVersion(onProgress);
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

/**
 * Where focus goes when a panel opens: the editor where there is a keyboard and a fine pointer (on a touch screen
 * focus would raise the on-screen keyboard), else the panel's first control. Never left on the page's body.
 */
function focusEditor(area, control) {
  if (matchMedia('(pointer: fine)').matches || !control) {
    area.focus({ preventScroll: true });
    area.setSelectionRange(0, 0);
    area.scrollLeft = 0;
  } else {
    control.focus({ preventScroll: true });
  }
}

// ---- The reader's edits: kept in this browser, and carried by a share link ----

/** Characters of SQL kept for a snippet or carried by a share link; a longer text is neither kept nor read. */
const KEPT_CHARACTERS = 20000;
const KEPT_PREFIX = 'kensho-edit:';

/** A short digest of the verified text (cyrb53): a kept edit belongs to the text it was made from. */
function digest(text) {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (h2 >>> 0).toString(16).padStart(8, '0') + (h1 >>> 0).toString(16).padStart(8, '0');
}

/**
 * Where an editor's kept text is keyed: a snippet by its index (N), an exercise by its model answer's, marked (xN), so
 * that what the reader wrote for the exercise never opens in the answer's own editor.
 */
function keptPrefix(index) {
  return KEPT_PREFIX + location.pathname + '#' + index + ':';
}

/**
 * The reader's kept edit of a snippet, or null. An edit kept for another verified text (the page changed since) is
 * dropped: it was made from SQL the page no longer shows. Where storage is off, edits last as long as the page.
 * `start` is what the editor opens with when nothing is kept: the verified text, or an exercise's empty editor.
 */
function keptEdit(index, verifiedSql, start = verifiedSql) {
  try {
    const key = keptPrefix(index) + digest(verifiedSql);
    for (let i = localStorage.length - 1; i >= 0; i--) {
      const other = localStorage.key(i);
      if (other && other.startsWith(keptPrefix(index)) && other !== key) localStorage.removeItem(other);
    }
    const text = localStorage.getItem(key);
    return typeof text === 'string' && text.length <= KEPT_CHARACTERS && text !== start ? text : null;
  } catch (error) {
    return null;
  }
}

function keepEdit(index, verifiedSql, text, start = verifiedSql) {
  try {
    const key = keptPrefix(index) + digest(verifiedSql);
    if (text === start || text.length > KEPT_CHARACTERS) localStorage.removeItem(key);
    else localStorage.setItem(key, text);
  } catch (error) {
    // storage full or off: the edit stays in the editor only
  }
}

/** A link to this page that opens snippet `index` with `text` (in the fragment: no server sees it), or null when too long. */
function shareLink(index, text) {
  if (text.length > KEPT_CHARACTERS) return null;
  return location.href.replace(/#.*$/, '') + '#run=' + index + ':' + encodeURIComponent(text);
}

/** A share link's SQL that kensho.js read from the fragment for this control (as text, bounded), or null. */
function sharedText(button) {
  return typeof button.kenshoShared === 'string' && button.kenshoShared.length <= KEPT_CHARACTERS ? button.kenshoShared : null;
}

/**
 * The line that says whose SQL an editor holds whenever it is not `start` (the verified text, or an exercise's empty
 * editor): the reader's kept edit, or a share link's SQL, never the verified one; with the way back to `start`.
 * `said` names the theme's words: {edited, shared, back}.
 */
function originLine(plan, area, start, shared, host, said) {
  const origin = element('p', { class: 'run-edited', hidden: '' });
  const originWords = element('span', { class: 'run-edited-words' });
  const back = element('button', { type: 'button', class: 'run-reset run-back' }, words(plan, said.back));
  origin.append(element('strong', { class: 'run-edited-badge' }), ' ', originWords, ' ', back);
  let fromLink = shared;
  const show = () => {
    const edited = area.value !== start;
    origin.hidden = !edited;
    host.toggleAttribute('data-kensho-edited', edited);
    if (!edited) fromLink = false;
    origin.firstChild.textContent = words(plan, fromLink ? 'sharedBadge' : 'editedBadge');
    originWords.textContent = words(plan, fromLink ? said.shared : said.edited);
  };
  return { origin, back, show, fromLink: () => fromLink };
}

/** The Share control's click: the link to the clipboard, else (no clipboard) into the address bar; said in `status`. */
async function shareSql(plan, status, index, text) {
  const link = shareLink(index, text);
  if (!link) {
    status.textContent = words(plan, 'shareTooLong', KEPT_CHARACTERS);
    return;
  }
  try {
    await navigator.clipboard.writeText(link);
    status.textContent = words(plan, 'shareCopied');
  } catch (error) {
    // No clipboard (an insecure origin, a refused permission): the link goes in the address bar to copy from there.
    history.replaceState(null, '', link);
    status.textContent = words(plan, 'shareInAddress');
  }
}

function panelParts(plan) {
  const status = element('p', { class: 'run-status', role: 'status', 'aria-live': 'polite' });
  // Seconds since the run began, beside the status: not announced every second (the status says each stage).
  const elapsed = element('span', { class: 'run-elapsed', 'aria-hidden': 'true' });
  const output = element('pre', { class: 'run-output', 'data-kensho-run-output': '', tabindex: '0' });
  const verdictLine = element('p', { class: 'run-verdict', role: 'status', 'aria-live': 'polite' });
  const missing = element('div', { class: 'run-missing' });
  const checks = element('div', { class: 'run-checks' });
  // A query that runs too long is stopped by ending the worker: PGlite has no other way to cancel a statement.
  const stop = element('button', { type: 'button', class: 'run-reset run-stop', hidden: '' }, words(plan, 'stop'));
  stop.addEventListener('click', () => stopWorker(words(plan, 'stopped')));
  const parts = { status, elapsed, output, verdictLine, missing, checks, stop, generation: 0, controls: [], running: false };
  // While a run goes on, its controls wait (a second click would only queue behind it) and Stop is offered. They are
  // marked, not disabled: a disabled button loses focus to the page's body, and the reader's place with it.
  parts.busy = (on) => {
    parts.running = on;
    const stopHadFocus = document.activeElement === stop;
    stop.hidden = !on;
    parts.controls.forEach((control) => { if (on) control.setAttribute('aria-disabled', 'true'); else control.removeAttribute('aria-disabled'); });
    if (stopHadFocus && !on && parts.controls.length) parts.controls[0].focus({ preventScroll: true });
  };
  parts.clear = () => {
    verdictLine.textContent = '';
    verdictLine.removeAttribute('data-kensho-verdict');
    output.textContent = '';
    missing.replaceChildren();
    checks.replaceChildren();
  };
  return parts;
}

/** Ends the worker (and the database in it); what was waiting for it fails with `reason`. The next run starts anew. */
function stopWorker(reason) {
  if (!worker) return;
  const stopped = worker;
  stopped.terminate();
  worker = null;
  liveState = null;
  for (const [id, waiting] of pending) {
    if (waiting.worker !== stopped) continue;
    waiting.reject(new Error(reason));
    pending.delete(id);
  }
  // The worker beside stays: the state it prepares is the build's, untouched by what was stopped.
}

/** Seconds a statement of the reader's may run before the page stops it (the engine starts again for the next run). */
const RUN_SECONDS = 30;

/** A run's text as psql prints it, in `pre`, with the rows and cells `marks` names marked (the text itself unchanged). */
function appendPieces(plan, pre, pieces, marks) {
  let firstLineOf = -1;
  for (const piece of pieces) {
    const row = piece.row;
    const kind = !marks || row < 0 ? null : marks.extra.has(row) ? 'extra' : marks.order.has(row) ? 'order' : null;
    if (!kind || piece.text === '\n') {
      pre.append(piece.text);
      continue;
    }
    let last = pre.lastChild;
    if (!(last && last.nodeType === 1 && last.dataset.runRow === String(row))) {
      last = element('span', { class: 'run-row-' + kind, 'data-run-row': String(row) });
      if (firstLineOf !== row) {
        // Said beside the row, not only in colour; CSS writes it after the line, outside the text that is copied.
        last.dataset.runNote = words(plan, kind === 'extra' ? 'extraRowNote' : 'orderRowNote');
        firstLineOf = row;
      }
      pre.append(last);
    }
    const cells = marks.cells.get(row);
    if (cells && piece.cell >= 0 && cells.has(piece.cell)) last.append(element('mark', { class: 'run-cell-differs' }, piece.text));
    else last.append(piece.text);
  }
}

/** The run's results in one table as psql prints them, where they differ from the build's marked, and the verdict. */
function showOutcome(plan, parts, outcome, judged) {
  const tables = outcomePieces(plan, outcome);
  parts.output.replaceChildren();
  if (!tables.length) parts.output.textContent = words(plan, 'noRows');
  tables.forEach((pieces, t) => {
    if (t > 0) parts.output.append('\n\n');
    appendPieces(plan, parts.output, pieces, judged.table === t ? judged.marks : null);
  });
  const marks = judged.marks;
  if (marks && marks.missing.length) {
    const table = outcome.tables[judged.table];
    parts.missing.append(element('p', { class: 'run-caption' }, words(plan, 'missingCaption', marks.missing.length)),
      element('pre', { class: 'run-missing-rows', tabindex: '0' }, formatTable({ columns: table.columns, types: table.types, rows: marks.missing })));
  }
  if (judged.checks) {
    const list = element('ul', { class: 'run-check-list' });
    for (const check of judged.checks) {
      const state = check.holds === true ? 'holds' : check.holds === false ? 'fails' : 'unknown';
      const item = element('li', { class: 'run-check-' + state });
      item.append(element('span', { class: 'run-check-mark', 'aria-hidden': 'true' }, state === 'holds' ? '✓' : state === 'fails' ? '✗' : '–'),
        ' ' + words(plan, 'check.' + check.claim, check.value) + words(plan, 'checkSeparator') + words(plan, 'check' + state[0].toUpperCase() + state.slice(1)));
      list.append(item);
    }
    parts.checks.append(element('p', { class: 'run-caption' }, words(plan, 'checksCaption')), list);
  }
  parts.verdictLine.textContent = judged.text;
  parts.verdictLine.dataset.kenshoVerdict = judged.kind;
}

/**
 * Runs a request in the worker and shows it: status while it loads and replays (with the seconds it has taken), the
 * output as psql prints it, and the verdict `judge(outcome)` gives ({kind, text, table, marks, checks}); a replay that
 * ended otherwise than the build's is said instead. The reader's statement is stopped after RUN_SECONDS.
 */
async function runAndShow(plan, parts, engine, request, judge) {
  const generation = ++parts.generation;
  const current = () => generation === parts.generation;
  parts.clear();
  const started = Date.now();
  let stage = 'loading';
  let limit = null;
  // PGlite's files as they come ({loaded, total} bytes, total null when the host does not say it), while it loads.
  let bytes = null;
  const megabytes = (n) => (n / 1000000).toFixed(1);
  const say = () => {
    if (!current()) return;
    parts.status.textContent = stage === 'running' || stage === 'cases'
      ? sentences(plan, words(plan, stage), words(plan, 'runLimit', RUN_SECONDS))
      : stage === 'loading' && bytes ? (bytes.total === null ? words(plan, 'loadingSoFar', megabytes(bytes.loaded))
        : words(plan, 'loadingBytes', megabytes(bytes.loaded), megabytes(bytes.total)))
        : words(plan, stage);
    parts.status.append(parts.elapsed);
  };
  const onProgress = (progress) => {
    if (!current()) return;
    if (typeof progress === 'object') bytes = progress;
    else stage = progress;
    if ((progress === 'running' || progress === 'cases') && !limit) {
      limit = setTimeout(() => stopWorker(words(plan, 'timedOut', RUN_SECONDS)), RUN_SECONDS * 1000);
    }
    say();
  };
  const tick = () => { if (current()) parts.elapsed.textContent = words(plan, 'elapsed', Math.round((Date.now() - started) / 1000)); };
  tick();
  say();
  const clock = setInterval(tick, 1000);
  parts.busy(true);
  try {
    engine.textContent = await engineLine(plan, onProgress);
    // Downloaded now, and kept by the browser: what it costs need not be said again on this page.
    document.querySelectorAll('.run-cost').forEach((note) => note.remove());
    let outcome;
    const asked = Date.now();
    try {
      outcome = await runRequest(plan, request, onProgress);
    } finally {
      clearTimeout(limit);
      parts.busy(false);
    }
    if (!current()) return; // reset, or run again, while this one ran: its result belongs to nothing on the page now
    // The page's part of the time, for the benchmark: from the click to the request, to its answer, to the verdict shown.
    const page = { asked: asked - started, answered: Date.now() - started };
    parts.status.textContent = '';
    if (outcome.diverged) {
      const d = outcome.diverged;
      const what = d.error ? words(plan, 'divergedError', d.error.sqlstate, d.error.message) : words(plan, 'divergedNoError', d.expected);
      parts.verdictLine.textContent = words(plan, 'diverged', d.line, what);
      parts.verdictLine.dataset.kenshoVerdict = 'diverged';
    } else {
      showOutcome(plan, parts, outcome, judge(outcome));
    }
    // How the engine reached the state before the snippet (running, prepared while the reader read, started from
    // a snapshot), for the benchmark and the browser tests.
    if (outcome.how) {
      parts.verdictLine.dataset.kenshoEngine = outcome.how.engine + ' ' + outcome.how.from;
      parts.verdictLine.dataset.kenshoTimings = JSON.stringify({ ...(outcome.how.ms || {}), ...page, shown: Date.now() - started });
    }
  } catch (error) {
    if (current()) {
      const said = error.message === words(plan, 'stopped') || error.message === words(plan, 'timedOut', RUN_SECONDS);
      parts.status.textContent = said ? error.message : words(plan, 'failed', error.message);
    }
  } finally {
    clearInterval(clock);
    if (current()) parts.elapsed.remove();
  }
}

/** The verdict on the reader's run of a snippet (or of its verified text), under the build's rules for the snippet. */
function judgeSnippet(plan, snippet, text, outcome) {
  const last = outcome.tables[outcome.tables.length - 1];
  if (text !== snippet.sql && snippet.planChecks && snippet.planChecks.length && !outcome.error && isPlan(last)) {
    // The reader asked for the plan: which of the build's plan claims the plan here shows to hold.
    const checks = planCheck(snippet.planChecks, last);
    return { kind: 'plan', text: words(plan, 'planChecked', checks.filter((c) => c.holds === true).length, checks.length), checks };
  }
  // A snippet with parameters runs the reader's text as the build ran its own: one PREPARE with the build's parameter
  // types, bound to its values. Where the server refused the PREPARE for that (several statements, or a statement such
  // as SET that PREPARE does not take), the verdict says so plainly: the server's "syntax error at or near "SET""
  // (shown under it) blames text that is no mistake anywhere else.
  if (text !== snippet.sql && snippet.binding && outcome.boundRefused) {
    return { kind: 'different', text: words(plan, outcome.boundRefused === 'several' ? 'boundSeveral' : 'boundNotQuery') };
  }
  const judged = verdict(plan, snippet, outcome);
  // Rows that came in the verified order although nothing sorts them any more: right today, not guaranteed. Where the
  // server could not say whether the reader's text sorts them (several statements, say), the order was not checked:
  // never "the same".
  if (text !== snippet.sql && judged.kind === 'same' && snippet.expect && snippet.expect.ordered) {
    const order = orderGuarantee(outcome, snippet.expect.ties);
    if (order !== true) {
      return { kind: 'caution', text: order === false ? words(plan, 'sameButUnordered') : words(plan, 'sameOrderUnknown', words(plan, order)) };
    }
  }
  return judged;
}

function runSnippet(snippet, plan, target, text, parts, engine) {
  return runAndShow(plan, parts, engine, { target, text }, (outcome) => judgeSnippet(plan, snippet, text, outcome));
}

async function openSnippet(button) {
  const figure = button.closest('[data-kensho-snippet]');
  if (figure.querySelector('.run-panel')) {
    focusEditor(figure.querySelector('.run-editor'), figure.querySelector('.run-go'));
    return;
  }
  const plan = await loadPlan(button.dataset.kenshoRun);
  const index = Number(figure.dataset.kenshoSnippet);
  const target = plan.runs.findIndex((r) => r.snippet === index);
  // The plan's entry with the build's rows, which only the page uses (the worker replays from the plan alone).
  const snippet = { ...plan.runs[target], results: (await loadRows(button.dataset.kenshoRun, plan.runs[target])).results };
  // A share link's SQL (read by kensho.js from the fragment, as text), else the reader's kept edit, else the verified SQL.
  const shared = sharedText(button);
  const kept = keptEdit(index, snippet.sql);
  const start = shared !== null ? shared : kept !== null ? kept : snippet.sql;
  const panel = element('div', { class: 'run-panel', role: 'group', 'aria-label': words(plan, 'panelLabel') });
  const parts = panelParts(plan);
  const { wrap, area } = editor(plan, start, words(plan, 'editorLabel'));
  // Whose SQL the editor holds, said whenever it is not the verified text; the build's mark stays with that text.
  const { origin, back, show: showOrigin, fromLink } = originLine(plan, area, snippet.sql, shared !== null, figure,
    { edited: 'editedNote', shared: 'sharedNote', back: 'backToVerified' });
  const code = figure.querySelector(':scope > pre');
  code.hidden = true;
  const actions = element('div', { class: 'run-actions' });
  const go = element('button', { type: 'button', class: 'run-go' }, words(plan, 'run'));
  const share = element('button', { type: 'button', class: 'run-reset run-share' }, words(plan, 'share'));
  const engine = element('span', { class: 'run-engine' });
  actions.append(go, parts.stop);
  let explain = null;
  if (snippet.planChecks && snippet.planChecks.length) {
    // The build's plan claims, on the plan this browser makes: EXPLAIN of the editor's SQL, its claims listed under it.
    explain = element('button', { type: 'button', class: 'run-reset run-explain' }, words(plan, 'explain'));
    actions.append(explain);
  }
  actions.append(share, engine);
  parts.controls.push(go);
  if (explain) parts.controls.push(explain);
  const results = element('div', { class: 'run-results' });
  const verifiedFold = element('details', { class: 'run-verified-fold' });
  const verified = element('pre', { class: 'run-verified', 'data-kensho-verified-rows': '', tabindex: '0' });
  // The build's result as psql prints it: printed here from the rows, as the build printed them (one copy of the rows).
  const expected = snippet.expect || {};
  verified.textContent = printOutcome(plan, { tables: snippet.results,
    error: expected.error ? { sqlstate: expected.error, message: expected.message } : null }) || words(plan, 'noRows');
  verifiedFold.append(element('summary', {}, words(plan, 'verifiedCaption')), verified);
  results.append(parts.verdictLine, ...restoredNote(plan, target), element('p', { class: 'run-caption' }, words(plan, 'outputCaption')),
    parts.output, parts.missing, parts.checks, verifiedFold);
  panel.append(wrap, origin);
  if (snippet.binding) {
    // The values the build bound to $1 … $n, which the reader's run binds too.
    const bound = snippet.binding.parameters.map((p) => '$' + p.position + ' = ' + p.value + ' (' + p.type + ')').join(', ');
    panel.append(element('p', { class: 'run-parameters' }, words(plan, 'parameters', bound)));
  }
  panel.append(actions, parts.status, results, ...earlyStartChoice(plan));
  code.after(panel);
  const hadFocus = document.activeElement === button;
  button.closest('.run-bar').hidden = true;
  showOrigin();
  // The worker beside prepares the state before this snippet once the reader shows they mean to change it: they stay at
  // its answer with the cursor in its editor (stayAtAnswer), come back to its editor after a run, or type; not after
  // every answer: a second engine costs a phone about 200 MB and a PostgreSQL start, which a reader who only reads
  // down the page on a touch screen should not pay.
  const run = (text) => {
    if (parts.running) return;
    runSnippet(snippet, plan, target, text, parts, engine).then(() => stayAtAnswer(plan, target, area, parts));
  };
  go.addEventListener('click', (e) => { if (e.isTrusted) run(area.value); });
  if (explain) {
    explain.addEventListener('click', (e) => {
      if (!e.isTrusted) return;
      const text = area.value.trim();
      run(/^explain\b/i.test(text) ? text : 'EXPLAIN (COSTS OFF) ' + text);
    });
  }
  const backToVerified = () => {
    parts.generation++; // a run still going on shows nothing when it ends
    area.value = snippet.sql;
    keepEdit(index, snippet.sql, area.value);
    showOrigin();
    parts.clear();
    parts.status.textContent = words(plan, 'resetDone');
  };
  back.addEventListener('click', () => { backToVerified(); area.focus({ preventScroll: true }); });
  share.addEventListener('click', () => shareSql(plan, parts.status, index, area.value));
  area.addEventListener('input', () => {
    keepEdit(index, snippet.sql, area.value);
    showOrigin();
    // Once the engine runs on this page, the state before this snippet is prepared beside it while the reader types.
    prepareFor(plan, target);
  });
  // And when the reader comes back to its editor after running another snippet.
  area.addEventListener('focus', () => { if (parts.generation > 0 && !parts.running) prepareFor(plan, target); });
  area.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey) && e.isTrusted) { e.preventDefault(); run(area.value); }
  });
  if (hadFocus || document.activeElement === document.body || !document.activeElement) focusEditor(area, go);
  // A share link's SQL is someone else's: it waits for the reader to read it and press Run.
  if (fromLink()) parts.status.textContent = words(plan, 'sharedWaits');
  else run(area.value);
}

/** Where the reader's choice to have PostgreSQL started early on later pages is kept, '1' or '0' (kensho.js reads it). */
const EARLY_KEY = 'kensho-run-early';
/** Set in this tab (sessionStorage) once the reader runs something: later pages then start PostgreSQL early unless they chose not to. */
const RAN_KEY = 'kensho-run-ran';

/** Marks this tab as one where the reader ran SQL (kensho.js starts the engine early on its later pages). */
function markRan() {
  try {
    sessionStorage.setItem(RAN_KEY, '1');
  } catch (error) {
    // storage off: later pages start on a click, as for any reader
  }
}

/**
 * The reader's choice, with what it costs, to have PostgreSQL started while a later page with run controls is idle
 * (from the browser's cache), so that their first click there finds it started. Until they choose, it follows whether
 * they ran SQL in this tab (a panel shows after a run: on); ticking or unticking keeps '1' or '0' in this browser.
 * Nothing where storage is off.
 */
function earlyStartChoice(plan) {
  const box = element('input', { type: 'checkbox', class: 'run-early-box' });
  try {
    const chosen = localStorage.getItem(EARLY_KEY);
    box.checked = chosen === '1' || (chosen !== '0' && sessionStorage.getItem(RAN_KEY) === '1');
  } catch (error) {
    return [];
  }
  box.addEventListener('change', () => {
    try {
      localStorage.setItem(EARLY_KEY, box.checked ? '1' : '0');
    } catch (error) {
      box.checked = false;
    }
  });
  const label = element('label', { class: 'run-early' });
  label.append(box, ' ' + words(plan, 'startEarly'));
  return [label];
}

/**
 * The run's note when a scenario comes before run `target`: the browser cannot run its sessions and restores, in its
 * place, the rows and sequence positions the build recorded after it (a restore the build proved on the snippets after it).
 */
function restoredNote(plan, target) {
  return plan.runs.slice(0, target).some((r) => r.restored) ? [element('p', { class: 'run-restored' }, words(plan, 'restored'))] : [];
}

/** Whether a query has anything but blanks and comments (an empty check must not start the engine). */
function hasStatement(text) {
  return text.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/--[^\n]*/g, ' ').trim().replace(/;/g, '').trim() !== '';
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
  const recordedRows = await loadRows(answerButton.dataset.kenshoRun, plan.runs[target]);
  // The model answer's rows on the page's data, and on each case the build ran it on (with how each is ordered).
  const model = { ...plan.runs[target], results: recordedRows.results, cases: recordedRows.cases || [] };
  const parts = panelParts(plan);
  // Kept apart from the answer's own snippet (key xN): a share link's query, else the reader's kept one, else empty.
  const key = 'x' + index;
  const shared = sharedText(button);
  const kept = keptEdit(key, model.sql, '');
  const { wrap, area } = editor(plan, shared !== null ? shared : kept !== null ? kept : '', words(plan, 'exerciseEditor'), 6);
  area.placeholder = 'SELECT …';
  const { origin, back, show: showOrigin, fromLink } = originLine(plan, area, '', shared !== null, exercise,
    { edited: 'exerciseKeptNote', shared: 'exerciseSharedNote', back: 'exerciseClear' });
  const actions = element('div', { class: 'run-actions' });
  const check = element('button', { type: 'button', class: 'run-go' }, words(plan, 'exerciseCheck'));
  const shareButton = element('button', { type: 'button', class: 'run-reset run-share' }, words(plan, 'share'));
  const engine = element('span', { class: 'run-engine' });
  actions.append(check, parts.stop, shareButton, engine);
  parts.controls.push(check);
  const panel = element('div', { class: 'run-panel', role: 'group', 'aria-label': words(plan, 'exerciseLabel') });
  panel.append(wrap, origin, actions, parts.status, parts.verdictLine, ...restoredNote(plan, target),
    element('p', { class: 'run-caption' }, words(plan, 'outputCaption')), parts.output, ...earlyStartChoice(plan));
  place.replaceChildren(panel);
  button.hidden = true;
  const expect = model.expect || {};
  const judge = () => {
    if (parts.running) return;
    // Nothing to check: said at once, without starting PostgreSQL (and downloading it) for an empty editor.
    if (!hasStatement(area.value)) {
      parts.clear();
      parts.status.textContent = words(plan, 'exerciseEmpty');
      return;
    }
    return judgeQuery();
  };
  const judgeQuery = () => runAndShow(plan, parts, engine, { target, text: area.value, exercise: true }, (outcome) => {
    const wrong = (text) => ({ kind: 'different', text: sentences(plan, words(plan, 'exerciseWrong'), text) });
    // A case whose transaction the reader's text ended is said first: nothing after it ran on the page's state.
    const ended = (outcome.cases || []).find((c) => c.ended);
    if (ended) return wrong(words(plan, 'exerciseCaseEnded', ended.name));
    const expected = model.results[model.results.length - 1];
    let difference = outcome.error ? words(plan, 'answerErrorInstead')
      : !outcome.tables.length ? words(plan, 'exerciseNoRows')
      : tableDifference(plan, expected, outcome.tables[outcome.tables.length - 1], { ordered: expect.ordered, ties: expect.ties }, 'answer');
    // Rows in the model answer's order by chance are not sorted rows: the task asks for the order.
    // An order not guaranteed (or not checked) is said after the cases: a case the query fails on says more.
    let orderDoubt = null;
    if (!difference && expect.ordered) {
      const order = orderGuarantee(outcome, expect.ties);
      // No ORDER BY at all is said at once (the fix is plain); an ORDER BY of constants only, or an order not checked,
      // after the cases, which the build names for such answers (a hard-coded row sorted by a constant).
      if (order === false && outcome.orderWhy !== 'orderByConstants') difference = words(plan, 'answerNotSorted');
      else if (order !== true) orderDoubt = order === false ? words(plan, 'answerNotSorted') : words(plan, 'answerOrderUnknown', words(plan, order));
    }
    if (difference) return wrong(difference);
    // Then each case the build ran the model answer on, under the same rules; a failing one is named, its rows not shown.
    const cases = model.cases || [];
    for (let i = 0; i < cases.length; i++) {
      const verified = cases[i];
      const got = (outcome.cases || [])[i];
      if (!got || got.name !== verified.name) return wrong(words(plan, 'exerciseCaseWrong', verified.name));
      if (got.error) return wrong(words(plan, 'exerciseCaseError', verified.name, got.error.sqlstate));
      const order = verified.expect || {};
      const differs = !got.tables.length || tableDifference(plan, verified.results[verified.results.length - 1],
        got.tables[got.tables.length - 1], { ordered: order.ordered, ties: order.ties }, 'answer');
      if (differs) {
        return wrong(words(plan, differs === words(plan, 'answerOrderDiffers') ? 'exerciseCaseOrder' : 'exerciseCaseWrong', verified.name));
      }
    }
    if (orderDoubt) return wrong(orderDoubt);
    return { kind: 'same', text: cases.length ? words(plan, 'exerciseRightCases', cases.length) : words(plan, 'exerciseRight') };
  });
  check.addEventListener('click', (e) => { if (e.isTrusted) judge(); });
  area.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey) && e.isTrusted) { e.preventDefault(); judge(); }
  });
  area.addEventListener('input', () => {
    keepEdit(key, model.sql, area.value, '');
    showOrigin();
  });
  back.addEventListener('click', () => {
    parts.generation++; // a check still going on shows nothing when it ends
    area.value = '';
    keepEdit(key, model.sql, area.value, '');
    showOrigin();
    parts.clear();
    area.focus({ preventScroll: true });
  });
  shareButton.addEventListener('click', () => shareSql(plan, parts.status, key, area.value));
  showOrigin();
  focusEditor(area, check);
  // Never judged before the reader presses Check: a kept or shared query waits, a shared one said to be someone else's.
  if (fromLink()) parts.status.textContent = words(plan, 'exerciseSharedWaits');
}

// For the browser tests: the printing and the comparison, which must agree with sql-checks' PsqlFormat and RowComparison.
export { formatTable, tableDifference, planCheck, shareLink, digest };

/** Called by kensho.js with the run control the reader clicked. */
export function open(button) {
  if (button.hasAttribute('data-kensho-exercise-start')) return openExercise(button);
  markRan(); // a snippet's control runs it at once (an exercise's opens an empty editor: no run yet)
  return openSnippet(button);
}
