// The first run's cost of "run it yourself" (issue 24), in headless Chromium on the built lesson site: what a
// page loads before any click, then what the first click on a run control fetches (bytes on the wire, files) and
// how long until the verdict line shows, then a second snippet on the same page (PGlite already running).
// usage: bench/playground.sh (installs playwright-core into /tmp and serves target/site); needs Node and chromium.
import { chromium } from 'playwright-core';

const [base, page] = process.argv.slice(2);
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
const results = [];
for (let round = 0; round < 3; round++) {
  const context = await browser.newContext(); // a fresh cache each round: a reader's first visit
  const tab = await context.newPage();
  // Requests of the page and of its Web Worker (where PGlite fetches its files) alike.
  let bytes = 0;
  const files = new Map();
  const counted = [];
  context.on('requestfinished', (request) => counted.push(request.sizes().then((s) => {
    files.set(request.url(), true);
    bytes += s.responseBodySize + s.responseHeadersSize;
  })));
  const settle = async () => { await tab.waitForTimeout(500); await Promise.all(counted); };
  await tab.goto(base + page, { waitUntil: 'networkidle' });
  await settle();
  const beforeBytes = bytes;
  const beforeFiles = files.size;
  const figures = tab.locator('figure[data-kensho-snippet]');
  const first = figures.nth(0);
  await first.evaluate((f) => { const d = f.closest('details'); if (d) d.open = true; });
  const started = Date.now();
  await first.locator('[data-kensho-run]').click();
  await first.locator('.run-verdict[data-kensho-verdict]').waitFor({ timeout: 120000 });
  const firstMs = Date.now() - started;
  await settle();
  const clickBytes = bytes - beforeBytes;
  const clickFiles = files.size - beforeFiles;
  const second = figures.nth(3);
  await second.evaluate((f) => { const d = f.closest('details'); if (d) d.open = true; });
  const again = Date.now();
  await second.locator('[data-kensho-run]').click();
  await second.locator('.run-verdict[data-kensho-verdict]').waitFor({ timeout: 120000 });
  const secondMs = Date.now() - again;
  results.push({ beforeBytes, beforeFiles, clickBytes, clickFiles, firstMs, secondMs });
  await context.close();
}
await browser.close();
const median = (key) => results.map((r) => r[key]).sort((a, b) => a - b)[1];
console.log(JSON.stringify({ page, runs: results.length, page_load_bytes: median('beforeBytes'), page_load_files: median('beforeFiles'),
  first_click_bytes: median('clickBytes'), first_click_files: median('clickFiles'), first_result_ms: median('firstMs'),
  next_snippet_ms: median('secondMs') }));
