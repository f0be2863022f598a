// The server's security headers, and a dashboard that lives within them:
// every response carries the Content-Security-Policy and cross-origin
// isolation, and a session touching every kind of thing the dashboard
// loads or draws (its wasm, the benchmark worker's wasm, live events,
// inline SVG charts, data: downloads, an import, a shared report) meets
// no violation of the policy and no page error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { serverAndBrowser } from './harness.mjs';

const sample = fileURLToPath(new URL('../samples/wolfcrypt-stm32u585-memory.txt', import.meta.url));

// As server/src/security.rs sends it.
const CSP =
  "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self' data:; " +
  "connect-src 'self'; worker-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; " +
  "frame-ancestors 'none'";

let server;
let chromium;

serverAndBrowser((s, c) => {
  server = s;
  chromium = c;
});

// A page that records every policy violation (before any of its own
// script runs) and every uncaught error.
async function watchedPage(context) {
  const page = await context.newPage();
  await page.addInitScript(() => {
    window.cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) => {
      window.cspViolations.push(`${e.effectiveDirective} blocked ${e.blockedURI || 'inline'} (${e.sourceFile}:${e.lineNumber})`);
    });
  });
  const problems = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  // Chromium also logs each violation, workers' included, to the console.
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy/i.test(m.text())) problems.push(`console: ${m.text()}`);
  });
  // Everything comes from this server: a request elsewhere is a problem.
  context.on('request', (r) => {
    if (!r.url().startsWith(`${server.base}/`) && !r.url().startsWith('data:')) problems.push(`fetched ${r.url()}`);
  });
  const violations = async () => [...problems, ...(await page.evaluate(() => window.cspViolations))];
  return { page, violations };
}

test('every response carries the policy, cross-origin isolation and nosniff', async () => {
  const paths = [
    ['/', 'text/html'],
    ['/main.js', 'text/javascript'],
    ['/style.css', 'text/css'],
    ['/pkg/pqbench_web.js', 'text/javascript'],
    ['/pkg/pqbench_web_bg.wasm', 'application/wasm'],
    ['/bench/worker.js', 'text/javascript'],
    ['/reports/AAAAAAAAAAAAAAAA', 'text/html'],
    ['/api/health', 'application/json'],
    ['/api/runs', 'application/json'],
    ['/api/nowhere', 'application/json'],
  ];
  for (const [path, type] of paths) {
    const response = await fetch(`${server.base}${path}`);
    await response.arrayBuffer();
    const header = (name) => response.headers.get(name);
    assert.equal(header('content-security-policy'), CSP, path);
    assert.equal(header('cross-origin-opener-policy'), 'same-origin', path);
    assert.equal(header('cross-origin-embedder-policy'), 'require-corp', path);
    assert.equal(header('x-content-type-options'), 'nosniff', path);
    // nosniff makes the browser hold a script or stylesheet to its type.
    assert.ok(header('content-type')?.startsWith(type), `${path}: ${header('content-type')}`);
  }
});

test('the dashboard, a browser run, live events, charts, an import and a report break no rule', async () => {
  const context = await chromium.browser.newContext({ viewport: { width: 1280, height: 900 } });
  const { page, violations } = await watchedPage(context);
  await page.goto(`${server.base}/boards`);
  assert.equal(await page.evaluate(() => crossOriginIsolated), true, 'the page is cross-origin isolated');

  // A board run, followed by the server's events (EventSource).
  await page.locator('#board-suite').selectOption('quick');
  await page.locator('#board-iterations').fill('2');
  await page.locator('#board-iterations').dispatchEvent('change');
  await page.locator('button[data-board="qemu-mps2-an386"]').click();
  await page.locator('#board-run').waitFor({ state: 'visible' });
  await page.locator('#board-run').waitFor({ state: 'detached', timeout: 120_000 });
  const [boardRun] = await server.api('/api/runs');
  assert.equal(boardRun.status, 'complete');
  await page.waitForURL(new RegExp(`/runs/${boardRun.id}$`));
  await page.locator('header nav a[href="/boards"]').click();

  // The browser run: a module worker compiling the suite's wasm, then the
  // peers' worker with WebCrypto, noble's modules and liboqs-js's
  // Emscripten wasm, each loaded from this server.
  await page.locator('#browser-suite').selectOption('post-quantum');
  await page.locator('#browser-time').selectOption('200');
  await page.locator('#browser-run').click();
  const bar = page.locator('#browser-progress-bar');
  await bar.waitFor({ state: 'visible' });
  await page.waitForURL(/\/runs\/\d+$/, { timeout: 300_000 });
  const browserRuns = (await server.api('/api/runs')).filter((r) => r.source === 'browser');
  assert.deepEqual(
    browserRuns.map((r) => r.build.extra.implementation ?? 'wasm').reverse(),
    ['wasm', 'webcrypto', 'noble-post-quantum@0.7.1', 'liboqs-js@0.15.1'],
  );
  const browserRun = browserRuns.find((r) => !r.build.extra.implementation);
  assert.ok(browserRun, 'a browser run was stored');
  assert.equal(browserRun.build.extra.cross_origin_isolated, 'true');

  // Its results as a table and inline SVG charts, linear and logarithmic,
  // with their data: downloads; one operation's history as a line.
  await page.locator('header nav a[href="/runs"]').click();
  await page.locator(`#runs tr[data-run-id="${browserRun.id}"]`).click();
  await page.locator('#results tr[data-algorithm="ML-KEM-768"][data-operation="keygen"]').waitFor();
  await page.locator('#chart-ops svg').waitFor();
  await page.locator('#chart-memory svg').waitFor();
  await page.locator('#chart-log').check();
  await page.waitForFunction(() => location.search.includes('scale=log'));
  assert.match(await page.locator('#chart-ops a.download').getAttribute('href'), /^data:image\/svg\+xml/);
  assert.match(await page.locator('#export-csv').getAttribute('href'), /^data:text\/csv/);
  await page.locator('#results tr[data-algorithm="ML-KEM-768"][data-operation="keygen"] button.history-link').click();
  await page.locator('#chart-history svg').waitFor();
  // Shared: its link is opened last.
  await page.locator('#share').click();
  const shared = await page.locator('#share-link').getAttribute('href');

  // Two runs compared, and the matrix with its chart.
  await page.locator('header nav a[href="/runs"]').click();
  await page.locator(`input.compare[data-run-id="${boardRun.id}"]`).check();
  await page.locator(`input.compare[data-run-id="${browserRun.id}"]`).check();
  await page.locator('#compare-link').click();
  await page.locator('#compare .matrix-table tbody tr').first().waitFor();
  await page.locator('header nav a[href="/"]').click();
  await page.locator('#matrix tbody tr').first().waitFor();
  await page.locator('#chart-matrix svg').waitFor();

  // An import's preview.
  await page.locator('header nav a[href="/import"]').click();
  await page.locator('#import-format').selectOption('wolfcrypt');
  await page.locator('#import-file').setInputFiles(sample);
  await page.locator('#import-board').fill('b-u585i-iot02a');
  await page.locator('#import-clock').fill('160');
  await page.locator('#import-preview').click();
  await page.locator('#import-summary').waitFor();

  // The shared report, opened from its link.
  await page.goto(new URL(shared, server.base).href);
  await page.locator('#report-banner').waitFor();
  await page.locator('#results tbody tr').first().waitFor();
  await page.locator('#chart-ops svg').waitFor();

  assert.deepEqual(await violations(), []);
  assert.equal(await page.locator('#error').count(), 0);

  // The recorder works and the policy holds: an inline style is refused
  // and reported.
  await page.evaluate(() => {
    const style = document.createElement('style');
    style.textContent = 'body { background: red; }';
    document.head.append(style);
  });
  await page.waitForFunction(() => window.cspViolations.length > 0);
  assert.match((await violations()).join('\n'), /style-src-elem blocked inline/);
  await context.close();
});
