// The dashboard in headless Chromium against the real server: a run from
// the emulated board is listed with its figures, and the browser's own run
// lands in the same table.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startServer, launchBrowser, waitForRun, screenshots } from './harness.mjs';

let server;
let chromium;

before(async () => {
  server = await startServer();
  chromium = await launchBrowser();
});

after(async () => {
  await chromium?.close();
  await server?.stop();
});

test('board results are listed, and a browser run is stored and listed beside them', async () => {
  const { id: boardRun } = await server.api('/api/runs', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ board: 'qemu-mps2-an386', algorithms: ['ML-KEM-768'], min_iterations: 3, min_time_ms: 0 }),
  });
  assert.equal((await waitForRun(server, boardRun)).status, 'complete');
  const boardResults = await server.api(`/api/runs/${boardRun}/results`);

  const page = await chromium.browser.newPage({ viewport: { width: 1280, height: 800 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(server.base);

  await page.locator(`#runs tr[data-run-id="${boardRun}"]`).click();
  for (const expected of boardResults) {
    const row = page.locator(
      `#results tr[data-algorithm="${expected.algorithm}"][data-operation="${expected.operation}"]`,
    );
    await row.waitFor();
    const stack = await row.locator('[data-field="stack_bytes"]').innerText();
    assert.notEqual(stack.trim(), '—', `stack of ${expected.operation} is shown`);
  }
  await page.screenshot({ path: join(screenshots, 'dashboard-board-run.png') });

  await page.locator('#browser-run').click();
  await page.locator('#browser-progress').waitFor();
  const deadline = Date.now() + 180_000;
  let browserRun;
  while (!browserRun) {
    const runs = await server.api('/api/runs');
    browserRun = runs.find((r) => r.source === 'browser');
    if (Date.now() > deadline) throw new Error('no browser run was stored');
    if (!browserRun) await new Promise((r) => setTimeout(r, 500));
  }
  assert.match(browserRun.board, /^browser:[0-9a-f]{8}$/);
  assert.equal(browserRun.status, 'complete');
  assert.match(browserRun.build.extra.user_agent ?? '', /Chrome/);

  const browserResults = await server.api(`/api/runs/${browserRun.id}/results`);
  assert.deepEqual(
    browserResults.map((r) => [r.algorithm, r.operation, r.status]),
    [['ML-KEM-768', 'keygen', 'ok'], ['ML-KEM-768', 'encaps', 'ok'], ['ML-KEM-768', 'decaps', 'ok']],
  );
  for (const r of browserResults) {
    assert.equal(r.tick_unit, 'ns');
    assert.ok(r.ops_per_sec > 0 && r.iterations >= 1);
    assert.ok(r.heap_bytes !== null && r.heap_allocs !== null, 'heap is measured in wasm too');
  }

  const row = page.locator(`#runs tr[data-run-id="${browserRun.id}"]`);
  await row.waitFor();
  await row.click();
  await page.locator('#results tr[data-algorithm="ML-KEM-768"][data-operation="decaps"]').waitFor();
  await page.screenshot({ path: join(screenshots, 'dashboard-browser-run.png') });
  assert.deepEqual(errors, []);
});

test('the browser runs the whole suite and names its rows as a board does', async () => {
  const { id } = await server.api('/api/runs', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ board: 'qemu-mps2-an386', min_iterations: 1, min_time_ms: 0 }),
  });
  assert.equal((await waitForRun(server, id)).status, 'complete');
  const boardRows = (await server.api(`/api/runs/${id}/results`)).map((r) => `${r.algorithm} ${r.operation}`);

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
  assert.deepEqual(browserRows, boardRows);
  assert.ok(upload.measurements.every((m) => m.status === 'ok'));

  const { id: stored } = await server.api('/api/uploads', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(upload),
  });
  const storedRows = (await server.api(`/api/runs/${stored}/results`)).map((r) => `${r.algorithm} ${r.operation}`);
  assert.deepEqual(storedRows, boardRows);
  await page.close();
});
