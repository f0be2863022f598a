// Images to embed: the SVG the server serves for a shared report
// (`/reports/<id>.svg`) is, byte for byte, the chart the report's page
// offers to download, for a one-run report and for a matrix; and a badge is
// an SVG document a browser parses.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { emulatedRun, serverAndBrowser } from './harness.mjs';

let server;
let chromium;

serverAndBrowser((s, c) => {
  server = s;
  chromium = c;
});

const run = (variant) => emulatedRun(server, variant, ['ML-KEM-768', 'X25519']);

async function report(view) {
  const { id } = await server.api('/api/reports', {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ view }),
  });
  return id;
}

// The SVG the page's download link of chart `chart` holds.
async function downloaded(page, chart) {
  const link = page.locator(`#${chart} a.download`);
  await link.waitFor();
  const href = await link.getAttribute('href');
  const prefix = 'data:image/svg+xml;charset=utf-8,';
  assert.ok(href.startsWith(prefix), href.slice(0, 60));
  return decodeURIComponent(href.slice(prefix.length));
}

test("a report's SVG is the chart its page downloads, byte for byte", async () => {
  const libcrux = await run('opt-s');
  const rustcrypto = await run('opt-s-rustcrypto');
  const page = await chromium.browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));

  // One run, sorted by ops/s on a log scale, X25519 filtered out.
  const one = await report({
    runs: [libcrux], log_scale: true, sort: { column: 'ops_per_sec', descending: true },
    filter: { algorithms: ['ML-KEM-768'] },
  });
  await page.goto(`${server.base}/reports/${one}`);
  const served = await (await fetch(`${server.base}/reports/${one}.svg`)).text();
  assert.equal(await downloaded(page, 'chart-ops'), served);
  assert.match(served, /log scale/);

  // A matrix of both builds, charting X25519's agree in cycles.
  const matrix = await report({
    runs: [libcrux, rustcrypto],
    matrix: { figure: 'cycles_per_op', chart: { algorithm: 'X25519', operation: 'agree' } },
  });
  await page.goto(`${server.base}/reports/${matrix}`);
  const servedMatrix = await (await fetch(`${server.base}/reports/${matrix}.svg`)).text();
  assert.equal(await downloaded(page, 'chart-matrix'), servedMatrix);
  assert.match(servedMatrix, /X25519 key agreement: cycles/);

  // The badge parses as SVG in the browser.
  const parsed = await page.evaluate(async () => {
    const text = await (await fetch('/badge.svg?board=qemu-mps2-an386&algorithm=X25519&operation=agree')).text();
    const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
    return { error: doc.querySelector('parsererror')?.textContent ?? null, root: doc.documentElement.localName, texts: [...doc.querySelectorAll('text')].map((t) => t.textContent) };
  });
  assert.deepEqual([parsed.error, parsed.root], [null, 'svg']);
  assert.match(parsed.texts[1], /ops\/s/);
  assert.deepEqual(errors, []);
  await page.close();
});
