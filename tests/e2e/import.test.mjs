// Importing a published wolfCrypt log from the dashboard: the preview
// shows every row and every line left out (by number) before anything is
// stored; storing it shows the run; the same file again is refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { serverAndBrowser, screenshots } from './harness.mjs';

const sample = fileURLToPath(new URL('../samples/wolfcrypt-stm32u585-memory.txt', import.meta.url));

let server;
let chromium;

serverAndBrowser((s, c) => {
  server = s;
  chromium = c;
});

test('a wolfCrypt log is previewed, stored once, and shown beside the runs', async () => {
  const page = await chromium.browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${server.base}/import`);

  await page.locator('#import-format').selectOption('wolfcrypt');
  await page.locator('#import-file').setInputFiles(sample);
  await page.locator('#import-board').fill('b-u585i-iot02a');
  await page.locator('#import-clock').fill('160');
  assert.equal(await page.locator('#import-store').isDisabled(), true, 'nothing to store before a preview');
  await page.locator('#import-preview').click();
  await page.locator('#import-summary').waitFor();

  const summary = await page.locator('#import-summary').textContent();
  assert.match(summary, /62 results in 1 run for board b-u585i-iot02a at 160 MHz\. 0 lines not imported\./);
  assert.equal(await page.locator('.import-rows tbody tr').count(), 62);
  // No line is left out: the -no_AAD lines land as variants of their rows.
  // Any that were would be listed with the numbers an editor shows.
  const text = readFileSync(sample, 'utf8').split('\n');
  const unread = await page.locator('#import-unread tbody tr').evaluateAll((trs) =>
    trs.map((tr) => [Number(tr.dataset.line), tr.querySelector('code').textContent]));
  assert.deepEqual(unread.map(([line]) => line), []);
  for (const [line, shown] of unread) assert.equal(shown, text[line - 1]);
  assert.equal(await server.api('/api/runs').then((runs) => runs.length), 0, 'a preview stores nothing');
  await page.locator('#import').screenshot({ path: join(screenshots, 'import-preview.png') });

  // An edit voids the preview: what is stored is what was last shown.
  await page.locator('#import-board').fill('b-u585i-iot02a ');
  assert.equal(await page.locator('#import-summary').count(), 0);
  await page.locator('#import-board').fill('b-u585i-iot02a');
  await page.locator('#import-preview').click();
  await page.locator('#import-summary').waitFor();

  await page.locator('#import-store').click();
  // Stored, the run's page opens with the log's figures.
  await page.waitForURL(/\/runs\/\d+$/);
  const [run] = await server.api('/api/runs');
  assert.equal(run.source, 'import');
  assert.equal(run.board, 'b-u585i-iot02a');
  // The stored run opens with the log's figures.
  const keygen = page.locator('#results tr[data-algorithm="ML-KEM-768"][data-operation="keygen"]');
  await keygen.waitFor();
  assert.equal(await keygen.locator('td[data-field="ops_per_sec"]').getAttribute('data-value'), '176');
  assert.equal(await keygen.locator('td[data-field="stack_bytes"]').getAttribute('data-value'), '1096');
  const sha = page.locator('#results tr[data-algorithm="SHA-256"][data-operation="hash"] td[data-field="bytes_per_sec"]');
  assert.equal(Number(await sha.getAttribute('data-value')), 14.429 * 1024 * 1024);
  assert.match(page.url(), new RegExp(`/runs/${run.id}$`));
  await page.locator('header nav a[href="/runs"]').click();
  assert.match(await page.locator(`#runs tr[data-run-id="${run.id}"]`).textContent(), /import/);

  // The same file again, on a fresh Import page: the preview says so, and
  // Store stays off.
  await page.locator('header nav a[href="/import"]').click();
  await page.locator('#import-format').selectOption('wolfcrypt');
  await page.locator('#import-file').setInputFiles(sample);
  await page.locator('#import-board').fill('b-u585i-iot02a');
  await page.locator('#import-clock').fill('160');
  await page.locator('#import-preview').click();
  await page.locator('#import-duplicate').waitFor();
  assert.match(await page.locator('#import-duplicate').textContent(), new RegExp(`as run ${run.id}`));
  assert.equal(await page.locator('#import-store').isDisabled(), true);
  assert.equal((await server.api('/api/runs')).length, 1);
  assert.deepEqual(errors, []);
});
