// A board on a serial port, plugged in and out while the dashboard is
// open: QEMU behind a pseudo-terminal stands in for a NUCLEO's ST-LINK
// virtual COM port, and a link named as udev names it, in a folder the
// server watches, for /dev/serial/by-id/. The board list follows without a
// reload, within 3 s each way.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, symlinkSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serverAndBrowser, screenshots } from './harness.mjs';

const dist = process.env.PQBENCH_DIST;
const folder = mkdtempSync(join(tmpdir(), 'pqbench-serial-e2e-'));
const byId = join(folder, 'by-id');
mkdirSync(byId);
const serial = 'PQB0E2E00000000000000D04';
const link = join(byId, `usb-STMicroelectronics_STM32_STLink_${serial}-if02`);
const boardId = `serial:${serial}`;

let server;
let chromium;
let qemu;

serverAndBrowser((s, c) => {
  server = s;
  chromium = c;
}, { args: ['--serial-by-id', byId, '--no-system-ports'] });

after(() => {
  qemu?.kill('SIGKILL');
  rmSync(folder, { recursive: true, force: true });
});

// The emulated Cortex-M4 with its console UART on a pseudo-terminal; resolves
// to the terminal's path once QEMU names it.
function startBoard() {
  qemu = spawn('qemu-system-arm', [
    '-machine', 'mps2-an386', '-cpu', 'cortex-m4', '-nographic', '-icount', 'shift=0',
    '-monitor', 'none', '-serial', 'pty', '-kernel', join(dist, 'firmware', 'mps2-an386.elf'),
  ], { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let said = '';
    const read = (chunk) => {
      said += chunk;
      const named = said.match(/char device redirected to (\/dev\/pts\/\d+)/);
      if (named) resolve(named[1]);
    };
    qemu.stdout.on('data', read);
    qemu.stderr.on('data', read);
    qemu.once('exit', (code) => reject(new Error(`qemu exited (${code}): ${said}`)));
  });
}

test('a board plugged in shows up, unplugged goes, plugged back returns, all without a reload', async () => {
  const pty = await startBoard();
  const page = await chromium.browser.newPage({ viewport: { width: 1280, height: 800 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${server.base}/boards`);
  await page.evaluate(() => { window.notReloaded = true; });
  await page.locator('button[data-board="qemu-mps2-an386"]').waitFor();
  const button = page.locator(`button[data-board="${boardId}"]`);
  assert.equal(await button.count(), 0, 'nothing plugged in yet');

  symlinkSync(pty, link);
  let since = Date.now();
  // Listed at once, then enabled once its firmware has answered `hello`.
  await button.waitFor({ state: 'visible', timeout: 3_000 });
  await page.waitForFunction((id) => !document.querySelector(`button[data-board="${id}"]`)?.disabled, boardId, { timeout: 5_000 });
  const shown = Date.now() - since;
  const item = page.locator('li', { has: button });
  assert.match(await item.textContent(), /mps2-an386/);
  assert.match(await item.textContent(), new RegExp(link.replaceAll('/', '\\/')));
  await page.screenshot({ path: join(screenshots, 'serial-plugged.png') });

  unlinkSync(link);
  since = Date.now();
  await button.waitFor({ state: 'detached', timeout: 3_000 });
  const gone = Date.now() - since;

  symlinkSync(pty, link);
  since = Date.now();
  await button.waitFor({ state: 'visible', timeout: 3_000 });
  const back = Date.now() - since;
  console.log(`serial board: shown (answering) after ${shown} ms, gone after ${gone} ms, back after ${back} ms`);
  assert.ok(await page.evaluate(() => window.notReloaded), 'the page was not reloaded');
  assert.deepEqual(errors, []);
  await page.close();
});
