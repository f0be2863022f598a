// The results table against a real run: every numeric column sorts both
// ways exactly as the stored numbers order, rows without a figure go last,
// filters narrow the rows and the charts alike, the address bar carries the
// view, and a shared report opened in a fresh browser shows the same rows
// in the same order, read-only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { serverAndBrowser, waitForRun, screenshots } from './harness.mjs';

const COLUMNS = [
  'ops_per_sec', 'avg_ms', 'cycles_per_op', 'model_cycles_per_op', 'min_ms', 'median_ms', 'max_ms',
  'heap_bytes', 'heap_allocs', 'stack_bytes',
];

/// A column's figure as the API has it: the timing model's estimate is in
/// the result's `model`.
function figure(r, column) {
  if (column === 'model_cycles_per_op') return r.model ? r.model.cycles_per_op : null;
  return r[column];
}
const PQC = new Set(['ML-KEM-512', 'ML-KEM-768', 'ML-KEM-1024', 'ML-DSA-44', 'ML-DSA-65', 'ML-DSA-87']);

let server;
let chromium;
let run;
let stored;

// One hook: node runs a file's top-level `before` hooks concurrently, so
// the run is started only once the server is up.
serverAndBrowser(async (s, c) => {
  server = s;
  chromium = c;
  // The F446 layout: ML-DSA's key generation and signing do not fit, so
  // the table has rows without figures to place.
  const { id } = await server.api('/api/runs', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      board: 'qemu-netduinoplus2',
      algorithms: ['ML-KEM-512', 'ML-DSA-44', 'X25519', 'AES-128-GCM', 'SHA-256'],
      min_iterations: 3,
      min_time_ms: 0,
    }),
  });
  run = id;
  assert.equal((await waitForRun(server, run)).status, 'complete');
  stored = await server.api(`/api/runs/${run}/results`);
});

const key = (r) => `${r.algorithm} ${r.operation}`;

/// The order the stored numbers give: stable, figureless rows last.
function expectedOrder(rows, column, descending) {
  const indexed = rows.map((r, i) => ({ r, i }));
  indexed.sort((a, b) => {
    const x = figure(a.r, column);
    const y = figure(b.r, column);
    if (x === null && y === null) return a.i - b.i;
    if (x === null) return 1;
    if (y === null) return -1;
    return (descending ? y - x : x - y) || a.i - b.i;
  });
  return indexed.map(({ r }) => key(r));
}

/// The chart's rows, top to bottom, and how many have a bar.
async function chartRows(page, id) {
  return page.locator(`#${id} g.row`).evaluateAll((rows) =>
    rows.map((g) => ({ label: g.dataset.label, bars: g.querySelectorAll('rect.bar').length })));
}

async function shownOrder(page) {
  const rows = page.locator('#results tbody tr');
  const count = await rows.count();
  const order = [];
  for (let i = 0; i < count; i++) {
    const row = rows.nth(i);
    order.push(`${await row.getAttribute('data-algorithm')} ${await row.getAttribute('data-operation')}`);
  }
  return order;
}

test('each numeric column sorts both ways as the stored numbers do', async () => {
  assert.ok(stored.some((r) => r.status === 'does_not_fit'), 'the run has rows without figures');
  const page = await chromium.browser.newPage({ viewport: { width: 1280, height: 800 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${server.base}/?runs=${run}`);
  await page.locator('#results tbody tr').first().waitFor();
  assert.deepEqual(await shownOrder(page), stored.map(key), 'unsorted, the suite order');

  for (const column of COLUMNS) {
    const header = page.locator(`#results button[data-sort="${column}"]`);
    for (const [descending, aria] of [[true, 'descending'], [false, 'ascending']]) {
      await header.click();
      await page.locator(`#results th[aria-sort="${aria}"] button[data-sort="${column}"]`).waitFor();
      assert.deepEqual(await shownOrder(page), expectedOrder(stored, column, descending), `${column} ${aria}`);
      assert.match(page.url(), new RegExp(`sort=${column}&dir=${descending ? 'desc' : 'asc'}`));
    }
  }

  // The emulated board's estimate is labelled as one, in its own unit,
  // and never as the counted cycles beside it.
  const header = await page.locator('#results button[data-sort="model_cycles_per_op"]').innerText();
  assert.match(header, /estimated \(M4 model\)/);
  const ok = page.locator('#results tr[data-status="ok"]').first();
  assert.match(await ok.locator('td[data-field="model_cycles_per_op"]').innerText(), /^[\d,]+\s+m4-model-cycles$/);
  assert.match(await ok.locator('td[data-field="model_cycles_per_op"]').getAttribute('title'), /^estimated \(M4 model/);
  assert.doesNotMatch(await ok.locator('td[data-field="cycles_per_op"]').innerText(), /cycles/);

  // Rows that did not fit say so, and show no figure rather than 0.
  const notFit = page.locator('#results tr[data-status="does_not_fit"]');
  assert.ok((await notFit.count()) >= 2);
  assert.equal((await notFit.first().locator('[data-field="ops_per_sec"]').innerText()).trim(), '—');
  assert.match(await notFit.first().locator('[data-field="status"]').innerText(), /does not fit/);
  await page.screenshot({ path: join(screenshots, 'results-sorted.png'), fullPage: true });
  assert.deepEqual(errors, []);
});

test('filters narrow table and charts; the link and a shared report reopen the same view', async () => {
  const page = await chromium.browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(`${server.base}/?runs=${run}`);
  await page.locator('#results tbody tr').first().waitFor();

  await page.locator('#filter-family').selectOption('pqc');
  const pqc = stored.filter((r) => PQC.has(r.algorithm)).map(key);
  await page.waitForFunction((n) => document.querySelectorAll('#results tbody tr').length === n, pqc.length);
  assert.deepEqual(await shownOrder(page), pqc);

  // The charts follow the table: the same rows in the same order, a bar
  // only where there is a figure.
  const charted = await chartRows(page, 'chart-ops');
  assert.deepEqual(charted.map((r) => r.label), pqc);
  const withFigure = stored.filter((r) => PQC.has(r.algorithm));
  assert.deepEqual(charted.map((r) => r.bars), withFigure.map((r) => (r.ops_per_sec === null ? 0 : 1)));
  assert.deepEqual((await chartRows(page, 'chart-memory')).map((r) => r.label), pqc);

  await page.locator('#filter-operation').selectOption('keygen');
  const keygen = stored.filter((r) => PQC.has(r.algorithm) && r.operation === 'keygen').map(key);
  await page.waitForFunction((n) => document.querySelectorAll('#results tbody tr').length === n, keygen.length);
  assert.deepEqual(await shownOrder(page), keygen);

  assert.deepEqual((await chartRows(page, 'chart-ops')).map((r) => r.label), keygen);

  // The log scale redraws the bars, and the link says so.
  const widths = () => page.locator('#chart-ops rect.bar').evaluateAll((bars) => bars.map((b) => Number(b.getAttribute('width'))));
  const linear = await widths();
  await page.locator('#chart-log').check();
  await page.waitForFunction(() => location.search.includes('scale=log'));
  assert.notDeepEqual(await widths(), linear);
  const svg = await page.locator('#chart-ops a.download').getAttribute('href');
  assert.ok(svg.startsWith('data:image/svg+xml'), 'the chart downloads as SVG');
  assert.match(decodeURIComponent(svg), /<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);

  await page.locator('#results button[data-sort="stack_bytes"]').click();
  await page.locator('#results th[aria-sort="descending"] button[data-sort="stack_bytes"]').waitFor();
  const shown = await shownOrder(page);

  // The view exports as CSV and JSON: the same rows, in the same order,
  // with the stored figures.
  const download = async (id) => decodeURIComponent((await page.locator(id).getAttribute('href')).split(',').slice(1).join(','));
  const csv = (await download('#export-csv')).trim().split('\n');
  assert.equal(csv[0].split(',')[0], 'algorithm');
  assert.deepEqual(csv.slice(1).map((line) => line.split(',').slice(0, 2).join(' ')), shown);
  const opsColumn = csv[0].split(',').indexOf('ops_per_sec');
  for (const line of csv.slice(1)) {
    const [algorithm, operation] = line.split(',');
    const storedRow = stored.find((r) => r.algorithm === algorithm && r.operation === operation);
    const cell = line.split(',')[opsColumn];
    assert.equal(cell === '' ? null : Number(cell), storedRow.ops_per_sec, `${algorithm} ${operation}`);
  }
  const json = JSON.parse(await download('#export-json'));
  assert.deepEqual(json.results.map(key), shown);
  assert.deepEqual(json.view.filter.families, ['pqc']);
  const link = page.url();
  assert.match(link, /family=pqc/);
  assert.match(link, /operation=keygen/);

  // A fresh context: no state but the link.
  const fresh = await chromium.browser.newContext({ viewport: { width: 390, height: 844 } });
  const other = await fresh.newPage();
  await other.goto(link);
  await other.locator('#results tbody tr').first().waitFor();
  assert.deepEqual(await shownOrder(other), shown);
  assert.equal(await other.locator('#filter-family').inputValue(), 'pqc');
  assert.ok(await other.locator('#chart-log').isChecked());
  assert.deepEqual((await chartRows(other, 'chart-ops')).map((r) => r.label), shown);
  await other.screenshot({ path: join(screenshots, 'results-filtered-phone.png'), fullPage: true });
  await fresh.close();

  // Share: a report with a short, unguessable link, opened in a fresh
  // context, shows the same rows in the same order, and cannot be changed.
  await page.locator('#share').click();
  const shared = await page.locator('#share-link').getAttribute('href');
  assert.match(shared, /\/reports\/[0-9A-Za-z]{16}$/);
  const reader = await chromium.browser.newContext({ viewport: { width: 1280, height: 800 } });
  const report = await reader.newPage();
  const reportErrors = [];
  report.on('pageerror', (e) => reportErrors.push(e.message));
  await report.goto(shared);
  await report.locator('#report-banner').waitFor();
  await report.locator('#results tbody tr').first().waitFor();
  assert.deepEqual(await shownOrder(report), shown);
  assert.deepEqual((await chartRows(report, 'chart-ops')).map((r) => r.label), shown);
  assert.ok(await report.locator('#filter-family').isDisabled(), 'a report is read-only');
  assert.ok(await report.locator('#results button[data-sort="ops_per_sec"]').isDisabled());
  await report.screenshot({ path: join(screenshots, 'report.png'), fullPage: true });
  assert.deepEqual(reportErrors, []);
  await reader.close();

  // A link naming something unknown says so instead of showing everything.
  await page.goto(`${server.base}/?runs=${run}&algorithm=Kyber768`);
  await page.locator('#error', { hasText: 'Kyber768' }).waitFor();
});
