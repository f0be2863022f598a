// Every page as a person sees it: at 1280 x 800 no table scrolls sideways
// (a run's fourteen columns included), and at 390 px (a phone) every page
// reads without the page itself scrolling sideways; a screenshot of each
// page at both sizes is kept for a person to look at.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { serverAndBrowser, waitForRun, screenshots } from './harness.mjs';

const samples = fileURLToPath(new URL('../samples/', import.meta.url));

let server;
let chromium;
const pages = [];

serverAndBrowser(async (s, c) => {
  server = s;
  chromium = c;
  // A run that fills every column: cycles (instructions), heap, stack and
  // throughput; an import with code sizes; one with a board's log.
  const { id: board } = await server.api('/api/runs', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      board: 'qemu-mps2-an386',
      algorithms: ['ML-KEM-1024', 'ML-DSA-87', 'RSA-2048', 'X25519', 'AES-128-GCM', 'SHA-256'],
      min_iterations: 1,
      min_time_ms: 0,
    }),
  });
  assert.equal((await waitForRun(server, board)).status, 'complete');
  const imported = async (format, file, extra) => (await server.api('/api/imports', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ format, text: readFileSync(join(samples, file), 'utf8'), ...extra }),
  })).runs;
  const [wolfcrypt] = await imported('wolfcrypt', 'wolfcrypt-stm32u585-memory.txt', { board: 'b-u585i-iot02a', clock_hz: 160_000_000 });
  const pqm4 = await imported('pqm4', 'pqm4-2025-excerpt.md', {});
  const { id: report } = await server.api('/api/reports', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ view: { runs: [board, wolfcrypt, pqm4[0]], matrix: {}, title: 'ML-KEM on a board, in a log and in pqm4' } }),
  });
  pages.push(
    ['matrix', '/'],
    ['boards', '/boards'],
    ['runs', '/runs'],
    ['run', `/runs/${board}`],
    ['run-imported', `/runs/${pqm4[0]}`],
    ['compare', `/compare?runs=${board},${wolfcrypt}`],
    ['import', '/import'],
    ['report', `/reports/${report}`],
  );
});

// Waits for a page's content: its tables, or its one section.
async function settle(page) {
  await page.locator('main section').first().waitFor();
  await page.waitForFunction(() => !document.body.textContent.includes('Loading'));
}

test('at 1280 x 800 no table of any page scrolls sideways', async () => {
  const context = await chromium.browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  for (const [name, path] of pages) {
    await page.goto(`${server.base}${path}`);
    await settle(page);
    const tables = await page.locator('.scroll').evaluateAll((boxes) =>
      boxes.map((box) => ({ id: box.closest('section')?.id, scroll: box.scrollWidth, client: box.clientWidth })));
    assert.ok(tables.length > 0 || ['boards', 'import'].includes(name), `${name} has its table`);
    for (const t of tables) assert.ok(t.scroll <= t.client, `${name}: the table in #${t.id} is ${t.scroll} px wide in ${t.client} px`);
    await page.screenshot({ path: join(screenshots, `page-${name}-1280.png`), fullPage: true });
  }
  assert.deepEqual(errors, []);
  await context.close();
});

test('at 390 px every page reads without scrolling sideways', async () => {
  const context = await chromium.browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  for (const [name, path] of pages) {
    await page.goto(`${server.base}${path}`);
    await settle(page);
    // A wide table scrolls inside its own box; the page itself does not.
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= 390, `${name} is ${width} px wide`);
    // Text is not shrunk below a readable size.
    const smallest = await page.evaluate(() =>
      Math.min(...[...document.querySelectorAll('main *')].filter((e) => e.childNodes.length && [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim()))
        .map((e) => parseFloat(getComputedStyle(e).fontSize))));
    assert.ok(smallest >= 10, `${name}: text as small as ${smallest} px`);
    await page.screenshot({ path: join(screenshots, `page-${name}-390.png`), fullPage: true });
  }
  assert.deepEqual(errors, []);
  await context.close();
});
