// The dashboard in headless Chromium against the real server: a run from
// the emulated board is listed with its figures, and the browser's own run
// lands in the same table.
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

test('board results are listed, and a browser run is stored and listed beside them', async () => {
  const { id: boardRun } = await server.api('/api/runs', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ board: 'qemu-mps2-an386', algorithms: ['ML-KEM-768'], min_iterations: 3, min_time_ms: 0 }),
  });
  assert.equal((await waitForRun(server, boardRun)).status, 'complete');
  const boardResults = await server.api(`/api/runs/${boardRun}/results`);
  const { id: hashRun } = await server.api('/api/runs', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ board: 'qemu-mps2-an386', algorithms: ['SHA-256'], min_iterations: 3, min_time_ms: 0 }),
  });
  assert.equal((await waitForRun(server, hashRun)).status, 'complete');

  const page = await chromium.browser.newPage({ viewport: { width: 1280, height: 800 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${server.base}/runs`);

  await page.locator(`#runs tr[data-run-id="${boardRun}"]`).click();
  await page.waitForURL(new RegExp(`/runs/${boardRun}$`));
  for (const expected of boardResults) {
    const row = page.locator(
      `#results tr[data-algorithm="${expected.algorithm}"][data-operation="${expected.operation}"]`,
    );
    await row.waitFor();
    const stack = await row.locator('[data-field="stack_bytes"]').innerText();
    assert.notEqual(stack.trim(), '—', `stack of ${expected.operation} is shown`);
  }
  await page.screenshot({ path: join(screenshots, 'dashboard-board-run.png') });

  // The browser run: every ML-KEM and ML-DSA level and the classical
  // baselines, in a worker, with progress as it goes; the suite's wasm
  // alone (browser-field.test.mjs runs the other implementations).
  await page.locator('header nav a[href="/boards"]').click();
  await page.locator('#browser-suite').selectOption('with-classical');
  await page.locator('#browser-time').selectOption('200');
  for (const peer of ['webcrypto', 'noble', 'liboqs']) await page.locator(`#browser-impl-${peer}`).uncheck();
  await page.locator('#browser-run').click();
  const bar = page.locator('#browser-progress-bar');
  await bar.waitFor({ state: 'visible' });
  const seen = new Set();
  const watch = setInterval(async () => {
    const text = await page.locator('#browser-progress').innerText().catch(() => '');
    if (text) seen.add(text);
  }, 100);

  // The page stays responsive while the worker runs: another page opens,
  // picking another run shows its results, and back on Boards the browser
  // run is still going, its progress shown again.
  const responded = Date.now();
  await page.locator('header nav a[href="/runs"]').click();
  await page.locator(`#runs tr[data-run-id="${hashRun}"]`).click();
  await page.locator('#results h2', { hasText: `run ${hashRun}` }).waitFor({ timeout: 5_000 });
  await page.locator('#results tr[data-algorithm="SHA-256"][data-operation="hash"]').waitFor({ timeout: 5_000 });
  const respondedMs = Date.now() - responded;
  assert.ok(respondedMs < 5_000, `the page answered in ${respondedMs} ms`);
  await page.locator('header nav a[href="/boards"]').click();
  assert.ok(await bar.isVisible(), 'the browser run was still going while another page was read');

  // Done, it is stored, and its run's page opens (the user is still on
  // Boards).
  const deadline = Date.now() + 300_000;
  let stored;
  while (!(stored = (await server.api('/api/runs')).find((r) => r.source === 'browser'))) {
    assert.ok(Date.now() < deadline, 'a browser run was stored within 5 minutes');
    await new Promise((r) => setTimeout(r, 250));
  }
  await page.waitForURL(new RegExp(`/runs/${stored.id}$`));
  clearInterval(watch);
  const progressTexts = [...seen].filter((t) => / \(\d+ of \d+\)/.test(t));
  assert.ok(progressTexts.length >= 5, `progress updates appeared: ${JSON.stringify([...seen])}`);
  assert.ok(progressTexts.some((t) => /s left$/.test(t)), 'a time left is estimated');

  const runs = await server.api('/api/runs');
  const browserRun = runs.find((r) => r.source === 'browser');
  assert.ok(browserRun, 'a browser run was stored');
  assert.match(browserRun.board, /^browser:[0-9a-f]{8}$/);
  assert.equal(browserRun.status, 'complete');
  const extra = browserRun.build.extra;
  assert.match(extra.user_agent ?? '', /Chrome/);
  assert.match(extra.browser ?? '', /Chrome \d+/);
  assert.equal(extra.os, 'Linux');
  assert.ok(Number(extra.hardware_concurrency) >= 1);
  assert.ok(Number(extra.timer_resolution_ns) > 0, 'the timer resolution is recorded');
  assert.equal(extra.cross_origin_isolated, 'true');
  assert.ok(typeof extra.wasm_features === 'string');
  assert.ok(browserRun.build.opt_level && browserRun.build.crates['libcrux-ml-dsa'], 'the wasm build says what it is');

  const browserResults = await server.api(`/api/runs/${browserRun.id}/results`);
  const algorithms = [...new Set(browserResults.map((r) => r.algorithm))];
  assert.deepEqual(algorithms, [
    'ML-KEM-512', 'ML-KEM-768', 'ML-KEM-1024', 'ML-DSA-44', 'ML-DSA-65', 'ML-DSA-87',
    'X25519MLKEM768', 'X-Wing', 'SLH-DSA-SHA2-128f', 'FN-DSA-512', 'FN-DSA-1024',
    'HQC-128', 'HQC-192', 'HQC-256', 'HSS-SHA256-L1-H5-W4', 'RSA-2048', 'ECDSA-P256', 'ECDH-P256', 'X25519', 'Ed25519', 'AES-128-GCM', 'SHA-256',
  ]);
  for (const r of browserResults) {
    assert.equal(r.status, 'ok', `${r.algorithm} ${r.operation}`);
    assert.equal(r.tick_unit, 'ns');
    assert.ok(r.ops_per_sec > 0 && r.iterations >= 1);
    assert.ok(r.heap_bytes !== null && r.heap_allocs !== null, 'heap is measured in wasm too');
    assert.ok(r.stack_bytes !== null, 'stack is measured in wasm too');
  }

  assert.match(page.url(), new RegExp(`/runs/${browserRun.id}$`));
  for (const r of browserResults) {
    const shown = page.locator(`#results tr[data-algorithm="${r.algorithm}"][data-operation="${r.operation}"]`);
    await shown.waitFor();
    for (const field of ['heap_bytes', 'stack_bytes']) {
      const cell = await shown.locator(`[data-field="${field}"]`).innerText();
      assert.notEqual(cell.trim(), '—', `${field} of ${r.algorithm} ${r.operation} is shown`);
    }
  }
  await page.screenshot({ path: join(screenshots, 'dashboard-browser-run.png'), fullPage: true });
  assert.deepEqual(errors, []);
});

test('a browser run can be cancelled, and nothing of it is stored', async () => {
  const page = await chromium.browser.newPage();
  await page.goto(`${server.base}/boards`);
  const before = (await server.api('/api/runs')).length;
  await page.locator('#browser-suite').selectOption('whole');
  await page.locator('#browser-run').click();
  await page.locator('#browser-progress-bar').waitFor({ state: 'visible' });
  await page.locator('#browser-cancel').click();
  await page.locator('#browser-progress', { hasText: 'Cancelled' }).waitFor({ timeout: 5_000 });
  assert.ok(await page.locator('#browser-run').isEnabled(), 'a new run can start');
  assert.ok(await page.locator('#browser-progress-bar').isHidden());
  await new Promise((r) => setTimeout(r, 1_000));
  assert.equal((await server.api('/api/runs')).length, before, 'no run was stored');
  await page.close();
});

// The SLH-DSA sets whose signatures take billions of instructions: minutes
// on the emulated board, where the server's tests time them
// (server/tests/it/wide_clock.rs); a second or so each in the browser.
const LONG_ON_THE_EMULATOR = ['SLH-DSA-SHAKE-128f', 'SLH-DSA-SHA2-128s', 'SLH-DSA-SHAKE-128s'];

test('the browser runs the whole suite and names its rows as a board does', async () => {
  const page = await chromium.browser.newPage();
  await page.goto(server.base);
  const upload = await page.evaluate(
    () =>
      new Promise((resolve, reject) => {
        const worker = new Worker('/bench/worker.js', { type: 'module' });
        worker.onmessage = ({ data }) => {
          if (data.type === 'done') resolve(JSON.parse(data.upload));
          if (data.type === 'error') reject(new Error(data.message));
        };
        worker.onerror = (e) => reject(new Error(e.message));
        worker.postMessage({ algorithms: [], min_iterations: 1, min_time_ms: 0 });
      }),
  );
  const browserRows = upload.measurements.map((m) => `${m.algorithm} ${m.operation}`);
  assert.ok(upload.measurements.every((m) => m.status === 'ok'));
  for (const algorithm of LONG_ON_THE_EMULATOR) {
    const operations = upload.measurements.filter((m) => m.algorithm === algorithm).map((m) => m.operation);
    assert.deepEqual(operations, ['keygen', 'sign', 'verify'], algorithm);
  }

  // The board, on every other algorithm of the browser's whole suite.
  const algorithms = [...new Set(upload.measurements.map((m) => m.algorithm))].filter(
    (a) => !LONG_ON_THE_EMULATOR.includes(a),
  );
  const { id } = await server.api('/api/runs', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ board: 'qemu-mps2-an386', algorithms, min_iterations: 1, min_time_ms: 0 }),
  });
  assert.equal((await waitForRun(server, id)).status, 'complete');
  const boardRows = (await server.api(`/api/runs/${id}/results`)).map((r) => `${r.algorithm} ${r.operation}`);
  const long = (row) => LONG_ON_THE_EMULATOR.some((a) => row.startsWith(`${a} `));
  assert.deepEqual(browserRows.filter((row) => !long(row)), boardRows);

  const { id: stored } = await server.api('/api/uploads', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(upload),
  });
  const storedRows = (await server.api(`/api/runs/${stored}/results`)).map((r) => `${r.algorithm} ${r.operation}`);
  assert.deepEqual(storedRows, browserRows);
  await page.close();
});
