// The Boards page of a server started while firmware images are still being
// built (as `cargo xtask dev` starts it): a board whose image is still to come
// shows how far the build is and cannot be run, then can be, without a
// reload, once its image lands.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchBrowser, screenshots, startServer } from './harness.mjs';

const built = join(process.env.PQBENCH_DIST, 'firmware');
let dir;
let firmware;
let server;
let chromium;

// The progress file `cargo xtask dev`'s builder keeps (pqbench_boards::
// image_builds); this test's own process stands for the builder.
function progress(states) {
  const lines = [`pid ${process.pid}`, ...states.map(([state, file]) => `${state} ${file}`)];
  writeFileSync(join(firmware, 'building.txt'), `${lines.join('\n')}\n`);
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'pqbench-building-'));
  const dist = join(dir, 'dist');
  firmware = join(dist, 'firmware');
  mkdirSync(firmware, { recursive: true });
  for (const entry of readdirSync(process.env.PQBENCH_DIST)) {
    if (entry !== 'firmware') symlinkSync(join(process.env.PQBENCH_DIST, entry), join(dist, entry));
  }
  copyFileSync(join(built, 'mps2-an386.elf'), join(firmware, 'mps2-an386.elf'));
  progress([['building', 'netduinoplus2.elf'], ['waiting', 'mps2-an386-opt-3.elf']]);
  server = await startServer({ dist });
  chromium = await launchBrowser();
});

after(async () => {
  await chromium?.close();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('a board whose image is being built shows the build, then runs once it lands', async () => {
  const page = await chromium.browser.newPage({ viewport: { width: 1280, height: 800 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${server.base}/boards`);
  await page.evaluate(() => { window.notReloaded = true; });

  const netduino = page.locator('li', { has: page.locator('button[data-board="qemu-netduinoplus2"]') });
  await netduino.locator('.board-building progress').waitFor();
  assert.equal(await netduino.locator('.board-building progress').getAttribute('max'), '2');
  assert.equal(await netduino.locator('.board-building progress').getAttribute('value'), '0');
  assert.match(await netduino.locator('.board-building').innerText(), /0 of 2 firmware images built; still to come here: netduinoplus2\.elf/);
  assert.match(await netduino.locator('.board-note').innerText(), /firmware being built: 0 of 2 images done; now netduinoplus2\.elf/);
  assert.ok(await page.locator('button[data-board="qemu-netduinoplus2"]').isDisabled());
  // The board that is built runs, and says what of it is still to come.
  const an386 = page.locator('li', { has: page.locator('button[data-board="qemu-mps2-an386"]') });
  assert.ok(await page.locator('button[data-board="qemu-mps2-an386"]').isEnabled());
  assert.match(await an386.locator('.board-building').innerText(), /still to come here: mps2-an386-opt-3\.elf/);
  await page.screenshot({ path: join(screenshots, 'boards-building.png'), fullPage: true });

  // The image lands whole, as the builder moves it into place.
  copyFileSync(join(built, 'netduinoplus2.elf'), join(firmware, 'netduinoplus2.elf.part'));
  renameSync(join(firmware, 'netduinoplus2.elf.part'), join(firmware, 'netduinoplus2.elf'));
  progress([['built', 'netduinoplus2.elf'], ['building', 'mps2-an386-opt-3.elf']]);
  await page.waitForFunction(
    () => !document.querySelector('button[data-board="qemu-netduinoplus2"]')?.disabled,
    null,
    { timeout: 5_000 },
  );
  assert.equal(await netduino.locator('.board-building').count(), 0);
  assert.match(await an386.locator('.board-building').innerText(), /1 of 2 firmware images built/);
  assert.ok(await page.evaluate(() => window.notReloaded), 'the page was not reloaded');
  assert.deepEqual(errors, []);
});
