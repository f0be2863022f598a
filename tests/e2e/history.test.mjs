// History: one operation on one board across runs and builds, with a
// change flagged only where it is larger than the runs' own spread.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { emulatedRun, serverAndBrowser, screenshots } from './harness.mjs';

let server;
let chromium;

serverAndBrowser((s, c) => {
  server = s;
  chromium = c;
});

const run = (variant) => emulatedRun(server, variant);

test('a history flags the build that changed the figure, not the repeat', async () => {
  // The emulated board repeats exactly; the RustCrypto build differs.
  const first = await run('opt-s');
  const repeat = await run('opt-s');
  const other = await run('opt-s-rustcrypto');

  const page = await chromium.browser.newPage({ viewport: { width: 1280, height: 800 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${server.base}/?runs=${other}`);
  await page.locator('#results tr[data-algorithm="ML-KEM-768"][data-operation="keygen"] button.history-link').click();
  await page.locator('#history tbody tr').nth(2).waitFor();

  const rows = await page.locator('#history tbody tr').evaluateAll((trs) =>
    trs.map((tr) => [Number(tr.dataset.runId), tr.dataset.changed]));
  assert.deepEqual(rows, [[first, 'false'], [repeat, 'false'], [other, 'true']], 'oldest first; only the new build is flagged');
  const points = await page.locator('#chart-history circle.point').evaluateAll((cs) =>
    cs.map((c) => [Number(c.getAttribute('data-value')), c.getAttribute('data-flagged')]));
  const stored = [];
  for (const id of [first, repeat, other]) {
    const keygen = (await server.api(`/api/runs/${id}/results`)).find((r) => r.operation === 'keygen');
    stored.push([keygen.ops_per_sec, id === other ? 'true' : 'false']);
  }
  assert.deepEqual(points, stored, 'the chart plots the stored ops/s');
  await page.locator('#history').screenshot({ path: join(screenshots, 'history.png') });

  // The history is part of the link.
  assert.match(page.url(), /history=ML-KEM-768,keygen,qemu-mps2-an386/);
  const fresh = await chromium.browser.newContext();
  const linked = await fresh.newPage();
  await linked.goto(page.url());
  await linked.locator('#history tbody tr').nth(2).waitFor();
  assert.equal(await linked.locator('#history tr[data-changed="true"]').count(), 1);
  await fresh.close();
  assert.deepEqual(errors, []);
});
