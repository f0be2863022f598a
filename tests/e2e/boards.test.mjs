// The Boards section against the real server and the emulated board: a run
// started there shows the server's live progress and then its results,
// without a reload; a run can be cancelled from there too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { recordProgressTexts, serverAndBrowser, screenshots } from './harness.mjs';

let server;
let chromium;

serverAndBrowser((s, c) => {
  server = s;
  chromium = c;
});

test('a board run shows live progress, then its results, without a reload', async () => {
  const page = await chromium.browser.newPage({ viewport: { width: 1280, height: 800 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${server.base}/boards`);
  await page.evaluate(() => { window.notReloaded = true; });

  await page.locator('#board-suite').selectOption('post-quantum');
  await page.locator('#board-iterations').fill('2');
  await page.locator('#board-iterations').dispatchEvent('change');
  await recordProgressTexts(page);
  await page.locator('button[data-board="qemu-mps2-an386"]').click();
  await page.locator('#board-run').waitFor({ state: 'visible' });
  await page.locator('#board-run').waitFor({ state: 'detached', timeout: 120_000 });

  // Progress from the server's events: an operation, a count, time left,
  // counting up to the whole.
  const texts = await page.evaluate(() => window.progressTexts);
  const counted = texts
    .map((t) => t.match(/^ML-(?:KEM|DSA)-\d+ \w+: (\d+) of 18 operations done(, about .+ left)?$/))
    .filter(Boolean);
  assert.ok(counted.length >= 3, `progress shown: ${JSON.stringify(texts)}`);
  assert.ok(counted.some((m) => m[2]), 'an estimate of time left is shown');
  const done = counted.map((m) => Number(m[1]));
  assert.deepEqual(done, [...done].sort((a, b) => a - b), 'the count only goes up');

  const runs = await server.api('/api/runs');
  assert.equal(runs.length, 1);
  assert.equal(runs[0].status, 'complete');
  // The finished run's page opens, then the Runs page lists it.
  await page.waitForURL(new RegExp(`/runs/${runs[0].id}$`));
  const rows = page.locator('#results tbody tr');
  await page.waitForFunction(() => document.querySelectorAll('#results tbody tr').length === 18);
  assert.equal(await rows.count(), 18);
  await page.locator('header nav a[href="/runs"]').click();
  await page.locator(`#runs tr[data-run-id="${runs[0].id}"][data-status="complete"]`).waitFor();
  assert.ok(await page.evaluate(() => window.notReloaded), 'the page was not reloaded');
  assert.equal(await page.locator('#error').count(), 0);
  await page.screenshot({ path: join(screenshots, 'boards-done.png'), fullPage: true });
  assert.deepEqual(errors, []);
});

test('a board run can be cancelled from the page, and keeps what it measured', async () => {
  const page = await chromium.browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(`${server.base}/boards`);
  await page.locator('#board-suite').selectOption('whole');
  await page.locator('#board-iterations').fill('3');
  await page.locator('#board-iterations').dispatchEvent('change');
  await page.locator('button[data-board="qemu-mps2-an386"]').click();
  const progress = page.locator('#board-progress', { hasText: /[1-9]\d* of \d+ operations done/ });
  await progress.waitFor({ timeout: 60_000 });
  // The whole suite: as many operations as the board's catalogue holds.
  const total = Number((await progress.textContent()).match(/of (\d+) operations done/)[1]);
  assert.ok(total > 40, `${total} operations in the whole suite`);
  await page.screenshot({ path: join(screenshots, 'boards-progress.png'), fullPage: true });
  await page.locator('#board-cancel').click();
  await page.locator('#board-run').waitFor({ state: 'detached', timeout: 30_000 });

  const [run] = await server.api('/api/runs?limit=1');
  assert.equal(run.status, 'interrupted');
  const results = await server.api(`/api/runs/${run.id}/results`);
  assert.ok(results.length >= 1 && results.length < total, `${results.length} of ${total} results kept`);
  assert.equal(await page.locator('#error').count(), 0, 'a cancel is not an error');
  await page.waitForURL(new RegExp(`/runs/${run.id}$`));
  await page.locator('header nav a[href="/runs"]').click();
  await page.locator(`#runs tr[data-run-id="${run.id}"][data-status="interrupted"]`).waitFor();
  // The board is free again.
  await page.locator('header nav a[href="/boards"]').click();
  assert.ok(await page.locator('button[data-board="qemu-mps2-an386"]').isEnabled());
});
