// Boards on an agent host, as the dashboard shows them: each with the host
// it is on and whether that host is connected, a run on one started from
// the page like any other, and the host going away shown without a reload.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { recordProgressTexts, serverAndBrowser, screenshots, startAgent, waitForRun } from './harness.mjs';

const TOKEN = 'e2e-agents-may-connect';
const BOARD = 'lab-e2e/qemu-mps2-an386';

let server;
let chromium;

serverAndBrowser(
  (s, c) => {
    server = s;
    chromium = c;
  },
  { args: ['--agent-token', TOKEN] },
);

test("an agent's board shows its host, runs from the page, and shows the host gone", async () => {
  const agent = startAgent(server, 'lab-e2e', TOKEN);
  try {
    const page = await chromium.browser.newPage({ viewport: { width: 1280, height: 800 } });
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${server.base}/boards`);
    await page.evaluate(() => { window.notReloaded = true; });

    // The page reads the boards again every few seconds: the agent's
    // board appears once the agent has connected.
    const button = page.locator(`button[data-board="${BOARD}"]`);
    await button.waitFor({ timeout: 30_000 });
    const host = page.locator('ul.boards li', { has: button }).locator('.host');
    assert.equal(await host.textContent(), 'on lab-e2e (connected)');
    assert.equal(await host.getAttribute('data-connected'), 'true');
    // The server's own emulated board is listed beside it, with no host.
    const own = page.locator('ul.boards li', { has: page.locator('button[data-board="qemu-mps2-an386"]') });
    assert.equal(await own.locator('.host').count(), 0);

    await page.locator('#board-suite').selectOption('post-quantum');
    await page.locator('#board-iterations').fill('2');
    await page.locator('#board-iterations').dispatchEvent('change');
    await recordProgressTexts(page);
    await button.click();
    await page.locator('#board-run').waitFor({ state: 'visible' });
    await page.locator('#board-run').waitFor({ state: 'detached', timeout: 180_000 });
    // The agent's progress reached the page through the central server.
    const texts = await page.evaluate(() => window.progressTexts);
    assert.ok(texts.some((t) => /of 18 operations done/.test(t)), `progress shown: ${JSON.stringify(texts)}`);
    const [run] = await server.api('/api/runs?limit=1');
    assert.equal((await waitForRun(server, run.id)).status, 'complete');
    assert.equal(run.host, 'lab-e2e');
    assert.equal(run.board, 'qemu-mps2-an386');
    await page.waitForURL(new RegExp(`/runs/${run.id}$`));
    await page.waitForFunction(() => document.querySelectorAll('#results tbody tr').length === 18);
    // The runs list says where the run was made.
    await page.locator('header nav a[href="/runs"]').click();
    assert.equal(await page.locator(`#runs tr[data-run-id="${run.id}"] .run-host`).textContent(), 'on lab-e2e');
    await page.screenshot({ path: join(screenshots, 'agents-connected.png'), fullPage: true });

    await page.locator('header nav a[href="/boards"]').click();
    await button.waitFor();
    await agent.kill();
    await page.locator('ul.boards li', { has: button }).locator('.host[data-connected="false"]').waitFor({ timeout: 30_000 });
    assert.equal(await host.textContent(), 'on lab-e2e (not connected)');
    assert.ok(await button.isDisabled(), "a gone host's board cannot be run");
    assert.match(await page.locator('ul.boards li', { has: button }).locator('.board-note').textContent(), /lab-e2e is not connected/);
    assert.ok(await page.evaluate(() => window.notReloaded), 'the page was not reloaded');
    assert.equal(await page.locator('#error').count(), 0);
    await page.screenshot({ path: join(screenshots, 'agents-disconnected.png'), fullPage: true });
    assert.deepEqual(errors, []);
  } finally {
    await agent.kill();
  }
});
