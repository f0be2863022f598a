// The matrix, the home page: operations as rows, every board and build as
// columns. Against runs on the emulated board in two builds, a browser run
// and an imported wolfCrypt log, every cell is the stored figure, sorting
// and filters hold, a pair's ratios and the post-quantum cost sentences are
// the stored figures' ratios, an emulated time set against a real one says
// so, and a shared link (and a report) opens the same matrix.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { serverAndBrowser, waitForRun, screenshots } from './harness.mjs';

const sample = fileURLToPath(new URL('../samples/wolfcrypt-stm32u585-memory.txt', import.meta.url));
// The suite's post-quantum algorithms a browser run of `with-classical` measures.
const PQC = new Set([
  'ML-KEM-512', 'ML-KEM-768', 'ML-KEM-1024', 'ML-DSA-44', 'ML-DSA-65', 'ML-DSA-87',
  'X25519MLKEM768', 'X-Wing', 'SLH-DSA-SHA2-128f', 'FN-DSA-512', 'FN-DSA-1024', 'HQC-128', 'HQC-192', 'HQC-256',
  'HSS-SHA256-L1-H5-W4',
]);
const ALGORITHMS = ['ML-KEM-768', 'ML-DSA-44', 'X25519', 'Ed25519', 'SHA-256'];

let server;
let chromium;
// Run id -> its stored results; and the ids by what they are.
const stored = new Map();
const runs = {};

async function boardRun(variant) {
  const { id } = await server.api('/api/runs', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ board: 'qemu-mps2-an386', variant, algorithms: ALGORITHMS, min_iterations: 2, min_time_ms: 0 }),
  });
  assert.equal((await waitForRun(server, id)).status, 'complete');
  return id;
}

serverAndBrowser(async (s, c) => {
  server = s;
  chromium = c;
  runs.libcrux = await boardRun('opt-s');
  runs.rustcrypto = await boardRun('opt-s-rustcrypto');
  const imported = await server.api('/api/imports', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ format: 'wolfcrypt', text: readFileSync(sample, 'utf8'), board: 'b-u585i-iot02a', clock_hz: 160_000_000 }),
  });
  [runs.wolfcrypt] = imported.runs;

  // The browser's run, by the product's own button: our wasm alone.
  const page = await chromium.browser.newPage();
  await page.goto(`${server.base}/boards`);
  await page.locator('#browser-suite').selectOption('with-classical');
  await page.locator('#browser-time').selectOption('200');
  for (const peer of ['webcrypto', 'noble', 'liboqs']) await page.locator(`#browser-impl-${peer}`).uncheck();
  await page.locator('#browser-run').click();
  await page.waitForURL(/\/runs\/\d+$/, { timeout: 300_000 });
  runs.browser = Number(new URL(page.url()).pathname.split('/').pop());
  await page.close();
  for (const id of Object.values(runs)) stored.set(id, await server.api(`/api/runs/${id}/results`));
});

const rowKey = (r) => `${r.algorithm} ${r.operation}`;

// The figure a cell of `field` shows for a stored result: the column's own,
// or for work per operation, cycles where a chip counted them, else an
// emulator's instructions (ticks of N instructions each) or emulated ticks;
// none for a clock of time (a browser's).
function figure(r, field) {
  if (field !== 'cycles_per_op') return r[field];
  if (r.cycles_per_op !== null) return r.cycles_per_op;
  const perTick = /^qemu-instructions\/(\d+)$/.exec(r.tick_unit ?? '');
  if (perTick) return r.ticks_per_op * Number(perTick[1]);
  return r.tick_unit === 'qemu-ticks' ? r.ticks_per_op : null;
}

// The matrix as the page shows it: column run ids, and per row its cells'
// values by run id.
async function shownMatrix(page, section = '#matrix') {
  await page.locator(`${section} table.matrix-table tbody tr`).first().waitFor();
  return page.locator(`${section} table.matrix-table`).evaluate((table) => ({
    columns: [...table.querySelectorAll('thead th[data-run]')].map((th) => Number(th.dataset.run)),
    rows: [...table.querySelectorAll('tbody tr')].map((tr) => ({
      key: `${tr.dataset.algorithm} ${tr.dataset.operation}`,
      cells: Object.fromEntries([...tr.querySelectorAll('td[data-run]')].map((td) => [
        td.dataset.run, td.dataset.value === undefined ? null : Number(td.dataset.value),
      ])),
      ratio: (() => {
        const cell = tr.querySelector('td.ratio');
        return cell ? { value: cell.dataset.value === undefined ? null : Number(cell.dataset.value), text: cell.textContent } : undefined;
      })(),
    })),
  }));
}

function assertCellsAreStored(matrix, field) {
  for (const row of matrix.rows) {
    for (const id of matrix.columns) {
      const result = stored.get(id).find((r) => rowKey(r) === row.key);
      const expected = result ? figure(result, field) : null;
      assert.equal(row.cells[id], expected ?? null, `${row.key} in run ${id}: ${field}`);
    }
  }
}

test('every cell of the matrix is the stored figure, for every column and figure', async () => {
  const page = await chromium.browser.newPage({ viewport: { width: 1280, height: 800 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(server.base);
  let matrix = await shownMatrix(page);
  assert.deepEqual(new Set(matrix.columns), new Set(Object.values(runs)), 'one column per board and build');
  // Every operation any column measured is a row.
  const keys = new Set([...stored.values()].flat().map(rowKey));
  assert.deepEqual(new Set(matrix.rows.map((r) => r.key)), keys);
  assertCellsAreStored(matrix, 'ops_per_sec');
  await page.screenshot({ path: join(screenshots, 'matrix.png'), fullPage: true });

  for (const field of ['cycles_per_op', 'median_ms', 'heap_bytes', 'stack_bytes', 'code_bytes']) {
    await page.locator('#matrix-figure').selectOption(field);
    await page.waitForFunction((f) => document.querySelector('#matrix td[data-run]')?.dataset.field === f, field);
    matrix = await shownMatrix(page);
    assertCellsAreStored(matrix, field);
  }
  // Emulated columns say so, and their work is instructions, never cycles.
  const emulated = page.locator(`#matrix th[data-run="${runs.libcrux}"] .kind.emulated`);
  assert.equal(await emulated.count(), 1);
  await page.locator('#matrix-figure').selectOption('cycles_per_op');
  const keygen = page.locator(`#matrix tr[data-algorithm="ML-KEM-768"][data-operation="keygen"] td[data-run="${runs.libcrux}"]`);
  assert.match(await keygen.innerText(), /instructions$/);
  assert.doesNotMatch(await keygen.innerText(), /cycles/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('the matrix sorts by any column and filters by family, board, source and build', async () => {
  const page = await chromium.browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(server.base);
  await shownMatrix(page);
  for (const id of [runs.browser, runs.wolfcrypt]) {
    const button = page.locator(`#matrix button.sort[data-sort-column="${id}"]`);
    for (const [descending, aria] of [[true, 'descending'], [false, 'ascending']]) {
      await button.click();
      await page.locator(`#matrix th[data-run="${id}"][aria-sort="${aria}"]`).waitFor();
      const matrix = await shownMatrix(page);
      const values = matrix.rows.map((r) => r.cells[id]);
      const present = values.filter((v) => v !== null);
      const sorted = [...present].sort((a, b) => (descending ? b - a : a - b));
      assert.deepEqual(present, sorted, `run ${id} ${aria}`);
      // Rows with no figure in that column go last, in either direction.
      assert.deepEqual(values.slice(present.length), values.slice(present.length).map(() => null));
      assert.match(page.url(), /order=/);
    }
  }

  // Post-quantum's kinds narrow it: KEMs alone (ML-KEM and HQC, not the
  // hybrids), then signatures alone.
  await page.locator('#filter-family').selectOption('kem');
  await page.waitForFunction(() => [...document.querySelectorAll('#matrix tbody tr')].every((tr) => /^(ML-KEM|HQC)-/.test(tr.dataset.algorithm)));
  assert.ok((await shownMatrix(page)).rows.length > 0);
  await page.locator('#filter-family').selectOption('signature');
  // Lattice signatures: ML-DSA and FN-DSA, never the hash-based SLH-DSA.
  await page.waitForFunction(() => [...document.querySelectorAll('#matrix tbody tr')].every((tr) => /^(ML|FN)-DSA-/.test(tr.dataset.algorithm)));
  assert.ok((await shownMatrix(page)).rows.length > 0);
  assert.match(page.url(), /family=signature/);
  // Hash-based signatures: SLH-DSA and HSS, both measured in the browser run.
  await page.locator('#filter-family').selectOption('hash-based-signature');
  await page.waitForFunction(() => [...document.querySelectorAll('#matrix tbody tr')].every((tr) => /^(SLH-DSA|HSS)-/.test(tr.dataset.algorithm)));
  const hashBased = (await shownMatrix(page)).rows.map((r) => r.key.split(' ')[0]);
  assert.ok(hashBased.includes('SLH-DSA-SHA2-128f') && hashBased.includes('HSS-SHA256-L1-H5-W4'), hashBased.join());
  await page.locator('#filter-family').selectOption('pqc');
  await page.waitForFunction((pqc) => [...document.querySelectorAll('#matrix tbody tr')].every((tr) => pqc.includes(tr.dataset.algorithm)), [...PQC]);
  let matrix = await shownMatrix(page);
  assert.ok(matrix.rows.length > 0 && matrix.rows.every((r) => PQC.has(r.key.split(' ')[0])));
  assert.ok(matrix.rows.some((r) => r.key.startsWith('ML-KEM-')) && matrix.rows.some((r) => r.key.startsWith('ML-DSA-')));

  await page.locator('#matrix-source').selectOption('import');
  await page.waitForFunction(() => document.querySelectorAll('#matrix thead th[data-run]').length === 1);
  assert.deepEqual((await shownMatrix(page)).columns, [runs.wolfcrypt]);
  await page.locator('#matrix-source').selectOption('');
  await page.waitForFunction(() => document.querySelectorAll('#matrix thead th[data-run]').length === 4);
  await page.locator('#matrix-board').selectOption('qemu-mps2-an386');
  await page.waitForFunction(() => document.querySelectorAll('#matrix thead th[data-run]').length === 2);
  matrix = await shownMatrix(page);
  assert.deepEqual(new Set(matrix.columns), new Set([runs.libcrux, runs.rustcrypto]));
  const label = await page.locator(`#matrix th[data-run="${runs.rustcrypto}"] .column-build`).innerText();
  await page.locator('#matrix-build').selectOption(label);
  await page.waitForFunction(() => document.querySelectorAll('#matrix thead th[data-run]').length === 1);
  assert.deepEqual((await shownMatrix(page)).columns, [runs.rustcrypto]);
  assertCellsAreStored(await shownMatrix(page), 'ops_per_sec');

  // The link holds the view: a fresh browser opens the same matrix.
  const link = page.url();
  assert.match(link, /family=pqc/);
  const shown = await shownMatrix(page);
  const fresh = await chromium.browser.newContext({ viewport: { width: 1280, height: 800 } });
  const other = await fresh.newPage();
  await other.goto(link);
  await other.locator('#matrix th[data-run]').first().waitFor();
  assert.deepEqual(await shownMatrix(other), shown);
  assert.equal(await other.locator('#matrix-board').inputValue(), 'qemu-mps2-an386');
  await fresh.close();
  await page.close();
});

test('a pair sets its ratios and the cost sentences from stored figures, and an emulated time says so', async () => {
  const page = await chromium.browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(server.base);
  await shownMatrix(page);
  // The emulated board against the browser.
  await page.locator('#pair-first').selectOption(String(runs.libcrux));
  await page.locator('#pair-second').selectOption(String(runs.browser));
  await page.locator('#matrix td.ratio').first().waitFor();
  const matrix = await shownMatrix(page);
  const board = stored.get(runs.libcrux);
  const browser = stored.get(runs.browser);
  let ratios = 0;
  for (const row of matrix.rows) {
    const a = board.find((r) => rowKey(r) === row.key);
    const b = browser.find((r) => rowKey(r) === row.key);
    if (!a || !b || a.ops_per_sec === null || b.ops_per_sec === null) {
      assert.equal(row.ratio.value, null, `${row.key}: no ratio without both figures`);
      continue;
    }
    const expected = b.ops_per_sec / a.ops_per_sec;
    assert.ok(Math.abs(row.ratio.value - expected) <= 1e-12 * expected, `${row.key}: ${row.ratio.value} vs ${expected}`);
    assert.match(row.ratio.text, new RegExp(`^${expected.toFixed(3).replace('.', '\\.')}×`));
    // Emulated time against a browser's is never shown as if alike.
    assert.match(row.ratio.text, /unlike: emulated time against real time/);
    ratios++;
  }
  assert.ok(ratios >= 8, `ratios shown: ${ratios}`);
  // The pair figure by figure: ops/s, work per op, heap and stack of both,
  // each the stored figure, each ratio the stored figures' ratio.
  const pair = await page.locator('#pair tbody tr').evaluateAll((trs) => trs.map((tr) => ({
    key: `${tr.dataset.algorithm} ${tr.dataset.operation}`,
    cells: [...tr.querySelectorAll('td[data-run]')].map((td) => [Number(td.dataset.run), td.dataset.field, td.dataset.value === undefined ? null : Number(td.dataset.value)]),
    ratios: [...tr.querySelectorAll('td[data-ratio-field]')].map((td) => [td.dataset.ratioField, td.dataset.value === undefined ? null : Number(td.dataset.value), td.textContent]),
  })));
  assert.equal(pair.length, matrix.rows.length);
  for (const row of pair) {
    for (const [run, field, value] of row.cells) {
      const result = stored.get(run).find((r) => rowKey(r) === row.key);
      assert.equal(value, result ? figure(result, field) ?? null : null, `${row.key} run ${run} ${field}`);
    }
    const a = board.find((r) => rowKey(r) === row.key);
    const b = browser.find((r) => rowKey(r) === row.key);
    for (const [field, value, text] of row.ratios) {
      const [x, y] = [a && figure(a, field), b && figure(b, field)];
      if (x == null || y == null || x === 0) {
        assert.equal(value, null, `${row.key} ${field}`);
        continue;
      }
      assert.ok(Math.abs(value - y / x) <= 1e-12 * Math.abs(y / x), `${row.key} ${field}: ${value} vs ${y / x}`);
      // Times of an emulator against a browser's are unlike; bytes alike.
      if (field === 'ops_per_sec') assert.match(text, /unlike/);
      if (field === 'stack_bytes') assert.doesNotMatch(text, /unlike/);
    }
  }
  await page.locator('#matrix .emulated-note').waitFor();
  assert.match(await page.locator('#matrix .emulated-note').innerText(), /qemu-mps2-an386 is an emulated board/);

  // What post-quantum costs against classical, on each of the pair.
  const sentences = await page.locator('#costs li').evaluateAll((items) =>
    items.map((li) => ({ run: Number(li.dataset.run), pqc: li.dataset.pqc, baseline: li.dataset.baseline, value: Number(li.dataset.value), text: li.textContent })));
  assert.ok(sentences.length >= 4, JSON.stringify(sentences));
  for (const s of sentences) {
    const results = stored.get(s.run);
    const find = (named) => results.find((r) => `${r.algorithm},${r.operation}` === named);
    const expected = find(s.pqc).avg_ms / find(s.baseline).avg_ms;
    assert.ok(Math.abs(s.value - expected) <= 1e-12 * expected, `${s.pqc} / ${s.baseline}: ${s.value} vs ${expected}`);
    const board = s.run === runs.libcrux ? 'qemu-mps2-an386' : (await server.api(`/api/runs/${s.run}`)).board;
    assert.ok(s.text.startsWith(`On ${board}`), s.text);
  }
  const encaps = sentences.find((s) => s.run === runs.libcrux && s.pqc === 'ML-KEM-768,encaps');
  assert.equal(encaps.baseline, 'X25519,agree');
  const times = encaps.value;
  const shown = times >= 100 ? Math.round(times).toLocaleString('en-US') : times.toFixed(times >= 10 ? 1 : 2);
  assert.equal(
    encaps.text,
    `On qemu-mps2-an386 (emulated: times are QEMU's, not a chip's), ML-KEM-768 encapsulation takes ${shown} times as long as X25519 key agreement.`,
  );
  await page.screenshot({ path: join(screenshots, 'matrix-pair.png'), fullPage: true });

  // Shared, the pair's matrix opens as a report: the same columns and
  // cells, read-only, with nothing to run or store.
  const before = await shownMatrix(page);
  await page.locator('#share').click();
  const shared = await page.locator('#share-link').getAttribute('href');
  const reader = await chromium.browser.newContext({ viewport: { width: 1280, height: 800 } });
  const report = await reader.newPage();
  const errors = [];
  report.on('pageerror', (e) => errors.push(e.message));
  await report.goto(shared);
  await report.locator('#report-title').waitFor();
  assert.deepEqual(await shownMatrix(report), before);
  assert.match(await report.locator('#report-describes').innerText(), /^The matrix of runs /);
  for (const control of ['#browser-run', 'button[data-board]', '#import-store', '#import-preview', '#share', '#board-run']) {
    assert.equal(await report.locator(control).count(), 0, `a report has no ${control}`);
  }
  assert.ok(await report.locator('#matrix-figure').isDisabled(), 'a report is read-only');
  assert.ok(await report.locator('#matrix button.sort').first().isDisabled());
  const open = await report.locator('#report-open').getAttribute('href');
  assert.match(open, /^\/compare\?runs=/);
  await report.screenshot({ path: join(screenshots, 'report-matrix.png'), fullPage: true });
  assert.deepEqual(errors, []);
  await reader.close();
  await page.close();
});
