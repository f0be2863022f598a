// Compare: a board run and a browser run side by side; each ratio shown is
// the ratio of the two stored figures.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { serverAndBrowser, waitForRun, screenshots } from './harness.mjs';

let server;
let chromium;

serverAndBrowser((s, c) => {
  server = s;
  chromium = c;
});

test('a board run and a browser run compare with the stored ratios', async () => {
  const { id: boardRun } = await server.api('/api/runs', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ board: 'qemu-mps2-an386', algorithms: ['ML-KEM-512', 'ML-KEM-768', 'ML-KEM-1024', 'ML-DSA-44', 'ML-DSA-65', 'ML-DSA-87'], min_iterations: 2, min_time_ms: 0 }),
  });
  assert.equal((await waitForRun(server, boardRun)).status, 'complete');

  const page = await chromium.browser.newPage({ viewport: { width: 1280, height: 800 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${server.base}/boards`);
  await page.locator('#browser-suite').selectOption('post-quantum');
  await page.locator('#browser-time').selectOption('200');
  // Our wasm alone: a browser run's other implementations are
  // browser-field.test.mjs's.
  for (const peer of ['webcrypto', 'noble', 'liboqs']) await page.locator(`#browser-impl-${peer}`).uncheck();
  await page.locator('#browser-run').click();
  await page.locator('#browser-progress-bar').waitFor({ state: 'visible' });
  await page.waitForURL(/\/runs\/\d+$/, { timeout: 120_000 });
  const browserRun = (await server.api('/api/runs')).find((r) => r.source === 'browser');
  assert.ok(browserRun, 'the browser run is stored');

  // On the Runs page, tick the board run first, the baseline of the
  // ratios, then the browser's; their comparison is a link.
  await page.locator('header nav a[href="/runs"]').click();
  await page.locator(`input.compare[data-run-id="${boardRun}"]`).check();
  await page.locator(`input.compare[data-run-id="${browserRun.id}"]`).check();
  assert.match(page.url(), new RegExp(`runs=${boardRun},${browserRun.id}(&|$)`));
  await page.locator('#compare-link').click();
  await page.locator('#compare .matrix-table tbody tr').first().waitFor();
  assert.match(page.url(), new RegExp(`/compare\\?runs=${boardRun},${browserRun.id}(&|$)`));

  const board = await server.api(`/api/runs/${boardRun}/results`);
  const browser = await server.api(`/api/runs/${browserRun.id}/results`);
  const rows = page.locator('#compare .matrix-table tbody tr');
  assert.equal(await rows.count(), board.length, 'one line per operation');
  let compared = 0;
  for (const b of board) {
    const w = browser.find((r) => r.algorithm === b.algorithm && r.operation === b.operation);
    const line = page.locator(`#compare .matrix-table tr[data-algorithm="${b.algorithm}"][data-operation="${b.operation}"]`);
    const cell = line.locator(`[data-ratio-run="${browserRun.id}"]`);
    const shown = await cell.getAttribute('data-value');
    if (b.ops_per_sec === null || !w || w.ops_per_sec === null) {
      assert.equal(shown, null, `${b.algorithm} ${b.operation}: no ratio without both figures`);
      continue;
    }
    const expected = w.ops_per_sec / b.ops_per_sec;
    assert.ok(Math.abs(Number(shown) - expected) <= 1e-12 * expected, `${b.algorithm} ${b.operation}: ${shown} vs ${expected}`);
    // The emulated board's time is QEMU's: the ratio says it is unlike.
    assert.match((await cell.innerText()).trim(), new RegExp(`^${expected.toFixed(3).replace('.', '\\.')}×\\s*unlike: emulated time against real time$`));
    const boardCell = line.locator(`[data-run="${boardRun}"][data-field="ops_per_sec"]`);
    assert.equal(Number(await boardCell.getAttribute('data-value')), b.ops_per_sec);
    compared++;
  }
  assert.equal(compared, board.length, 'every operation has both figures');

  // Filters narrow the comparison too.
  await page.locator('#filter-operation').selectOption('keygen');
  await page.waitForFunction(() => document.querySelectorAll('#compare .matrix-table tbody tr').length === 6);
  await page.screenshot({ path: join(screenshots, 'compare.png'), fullPage: true });
  assert.deepEqual(errors, []);
});
