// What "run it yourself" costs a reader (issues 24 and 33), in headless Chromium on the built lesson site. Each
// round is a reader's first visit (a fresh browser profile): what a page loads before any click; the first click on
// a run control (bytes, files, time to the verdict: "cold"); a later snippet on the same page ("warm"); that snippet
// edited and run again, twice, each edit undoing the previous one's text ("edit": the second run must not see the
// first's effects, which the browser tests assert; here only the time), each typed, then READ_MS (default 1000) of
// the reader reading it over before Run; then a further page in the same browser, its first click ("next page").
// OPEN_MS (default 5000): the reader reads the answer for that long before each edit, after the snippet's run and after
// the first edit's result, as a reader does: reads, then changes the snippet (the page prepares the state before the
// snippet once the reader stays at its answer with the cursor in its editor, or types). Until h-edit the defaults were
// OPEN_MS 0 and READ_MS 3000 (the reader typed at once, then read 3 s): set them to compare with figures before it.
// EARLY=1: the reader ticks "start PostgreSQL early on the next pages" in the panel; NEXT_WAIT_MS (default 0): they
// read the next page that long before its first click. Each run's own split of its time (the worker's start: PGlite
// imported, its files fetched and read, compiled, the engine started; then bringing the state forward and the run)
// is printed from the verdict's data-kensho-timings where the engine says it (not main's), and where the page says
// it, its own measure of each from the click to the verdict shown (page_measured: the wall figures add the
// benchmark's own round trips to the browser, about 100-150 ms a click on this machine).
// usage: bench/playground.sh (installs playwright-core into /tmp and serves target/site); needs Node and chromium.
import { chromium } from 'playwright-core';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const [base, page, nextPage, rounds = '3'] = process.argv.slice(2);
const readMs = Number(process.env.READ_MS ?? 1000);
const openMs = Number(process.env.OPEN_MS ?? 5000);
const early = process.env.EARLY === '1';
const nextWaitMs = Number(process.env.NEXT_WAIT_MS || 0);
const results = [];
for (let round = 0; round < Number(rounds); round++) {
  const profile = mkdtempSync(join(tmpdir(), 'kensho-bench-profile-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu'] });
  const tab = context.pages()[0] || await context.newPage();
  // Requests of the page and of its Web Worker (where PGlite fetches its files) alike.
  let bytes = 0;
  const files = new Map();
  const counted = [];
  context.on('requestfinished', (request) => counted.push(request.sizes().then((s) => {
    files.set(request.url(), true);
    bytes += s.responseBodySize + s.responseHeadersSize;
  }).catch(() => {})));
  const settle = async () => { await tab.waitForTimeout(500); await Promise.all(counted); };
  await tab.goto(base + page, { waitUntil: 'networkidle' });
  await settle();
  const beforeBytes = bytes;
  const beforeFiles = files.size;
  const figures = tab.locator('figure[data-kensho-snippet]:has([data-kensho-run])');
  const count = await figures.count();
  const verdictOf = async (figure, started) => {
    await figure.locator('.run-verdict[data-kensho-verdict]').waitFor({ timeout: 180000 });
    return Date.now() - started;
  };
  const open = async (figure) => {
    await figure.evaluate((f) => { const d = f.closest('details'); if (d) d.open = true; f.scrollIntoView({ block: 'center' }); });
    const started = Date.now();
    await figure.locator('[data-kensho-run]').click();
    return verdictOf(figure, started);
  };
  const coldMs = await open(figures.nth(0));
  const coldSplit = await figures.nth(0).locator('.run-verdict').getAttribute('data-kensho-timings');
  await settle();
  const clickBytes = bytes - beforeBytes;
  const clickFiles = files.size - beforeFiles;
  // A snippet two thirds down the page: the engine has to bring the state forward across the snippets between.
  const later = figures.nth(Math.floor(count * 2 / 3));
  const warmMs = await open(later);
  const editMs = [];
  const editHow = [];
  const editSplit = [];
  for (const edit of ['\n-- the reader\'s first edit', '\n-- the reader\'s second edit']) {
    // The reader types (the first input asks the engine to prepare the state before the snippet), then reads it over.
    const area = later.locator('.run-editor');
    const original = await area.inputValue();
    if (openMs) await tab.waitForTimeout(openMs);
    await area.fill(original.replace(/\n-- the reader's (first|second) edit$/, '') + edit);
    await tab.waitForTimeout(readMs);
    await later.locator('.run-verdict[data-kensho-verdict]').evaluate((v) => v.removeAttribute('data-kensho-verdict'));
    const started = Date.now();
    await later.locator('.run-go').click();
    editMs.push(await verdictOf(later, started));
    editHow.push(await later.locator('.run-verdict').getAttribute('data-kensho-engine'));
    editSplit.push(await later.locator('.run-verdict').getAttribute('data-kensho-timings'));
  }
  // (main's engine has no such box: nothing to tick there.)
  if (early && await later.locator('.run-early-box').count()) await later.locator('.run-early-box').check();
  let nextMs = null;
  let nextHow = null;
  let nextSplit = null;
  if (nextPage) {
    await tab.goto(base + nextPage, { waitUntil: 'networkidle' });
    if (nextWaitMs) await tab.waitForTimeout(nextWaitMs);
    const first = tab.locator('figure[data-kensho-snippet]:has([data-kensho-run])').nth(0);
    nextMs = await open(first);
    nextHow = await first.locator('.run-verdict').getAttribute('data-kensho-engine');
    nextSplit = await first.locator('.run-verdict').getAttribute('data-kensho-timings');
  }
  // The page's own measure (click to verdict shown, on the page's clock: `shown` in the timings, where the engine says
  // it), without the benchmark's round trips to the browser for the click and the wait.
  const shown = (split) => { try { const s = JSON.parse(split || '{}').shown; return s === undefined ? null : s; } catch (e) { return null; } };
  results.push({ beforeBytes, beforeFiles, clickBytes, clickFiles, coldMs, warmMs, editMs: editMs[1], firstEditMs: editMs[0], nextMs, editHow, nextHow, nextSplit, coldSplit, editSplit,
    coldShown: shown(coldSplit), editShown: shown(editSplit[1]), firstEditShown: shown(editSplit[0]), nextShown: shown(nextSplit) });
  await context.close();
  rmSync(profile, { recursive: true, force: true });
}
const median = (key) => {
  const values = results.map((r) => r[key]).filter((v) => v !== null).sort((a, b) => a - b);
  return values.length ? values[Math.floor(values.length / 2)] : null;
};
console.log(JSON.stringify({ page, next_page: nextPage || null, runs: results.length, page_load_bytes: median('beforeBytes'),
  page_load_files: median('beforeFiles'), first_click_bytes: median('clickBytes'), first_click_files: median('clickFiles'),
  cold_first_result_ms: median('coldMs'), warm_later_snippet_ms: median('warmMs'), first_edit_ms: median('firstEditMs'),
  second_edit_ms: median('editMs'), next_page_first_result_ms: median('nextMs'),
  page_measured: { cold: median('coldShown'), first_edit: median('firstEditShown'), second_edit: median('editShown'), next_page: median('nextShown') },
  // Which engine served each edit (the worker's own mark, whatever the load): "prepared N" is the engine made ready beside.
  edits_served: results.flatMap((r) => r.editHow),
  read_ms: readMs, open_ms: openMs, early, next_wait_ms: nextWaitMs,
  all: results.map((r) => [r.coldMs, r.warmMs, r.firstEditMs, r.editMs, r.nextMs, ...r.editHow, r.nextHow, r.coldSplit, r.nextSplit, ...r.editSplit]) }));
