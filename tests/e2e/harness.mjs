// Starts the real pqbench server and Debian's headless Chromium for a test.
import { before, after } from 'node:test';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const bin = process.env.PQBENCH_BIN;
const dist = process.env.PQBENCH_DIST;
if (!bin || !dist) {
  throw new Error('PQBENCH_BIN and PQBENCH_DIST are not set: run the tests with `cargo xtask test`');
}
// What every browser test needs, named before any test starts rather than
// met as a launch or a 404 deep inside one.
const chromiumPath = process.env.CHROMIUM ?? '/usr/bin/chromium';
for (const [path, what, how] of [
  [bin, 'the pqbench server', '`cargo xtask test` builds it'],
  [join(dist, 'index.html'), 'the built dashboard', '`cargo xtask build-dashboard` builds it'],
  [chromiumPath, 'Chromium', '`cargo xtask setup --tests` installs Debian\'s chromium (or set CHROMIUM)'],
]) {
  if (!existsSync(path)) {
    throw new Error(`the browser tests need ${what} (${path}), which is missing: ${how}`);
  }
}

export const screenshots = join(process.env.PQBENCH_ARTIFACTS ?? join(dist, '..', 'e2e-screenshots'));
mkdirSync(screenshots, { recursive: true });

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
    probe.on('error', reject);
  });
}

// `args`: more of `pqbench serve`'s options; `dist`: another folder of
// built dashboard and images than the test run's.
export async function startServer({ args = [], dist: served = dist } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'pqbench-e2e-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const child = spawn(bin, ['serve', '--listen', `127.0.0.1:${port}`, '--db', join(dir, 'pqbench.db'), '--dist', served, ...args], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      if ((await fetch(`${base}/api/health`)).ok) break;
    } catch {}
    if (Date.now() > deadline) throw new Error('the server did not come up');
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    base,
    async api(path, init) {
      const response = await fetch(`${base}${path}`, init);
      const body = await response.json();
      if (!response.ok) throw new Error(`${path}: ${response.status} ${JSON.stringify(body)}`);
      return body;
    },
    async stop() {
      child.kill();
      await new Promise((r) => child.once('exit', r));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

// The flags keep Chromium off the network this machine does not have.
// Playwright gives each launch a fresh, temporary profile.
// A test file's server and browser: started before its first test, stopped
// after its last; `ready` receives them for the file's tests to use, and
// may prepare what they share (it is awaited before the first test).
export function serverAndBrowser(ready, options) {
  let server;
  let chromium;
  before(async () => {
    server = await startServer(options);
    chromium = await launchBrowser();
    await ready(server, chromium);
  });
  after(async () => {
    await chromium?.close();
    await server?.stop();
  });
}

// `args`: more of Chromium's flags.
export async function launchBrowser({ args = [] } = {}) {
  const browser = await chromium.launch({
    executablePath: chromiumPath,
    args: [
      '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
      ...args,
    ],
  });
  return {
    browser,
    async close() {
      await browser.close();
    },
  };
}

// Records every text the page's run progress shows, however briefly (a
// board can finish an operation between two polls of a locator), into
// `window.progressTexts`.
export async function recordProgressTexts(page) {
  await page.evaluate(() => {
    window.progressTexts = [];
    new MutationObserver(() => {
      const shown = document.querySelector('#board-progress')?.textContent;
      if (shown && window.progressTexts.at(-1) !== shown) window.progressTexts.push(shown);
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
}

// `pqbench agent` serving this machine's boards to `server` as `host`.
export function startAgent(server, host, token) {
  const child = spawn(bin, ['agent', '--server', server.base, '--token', token, '--host', host, '--dist', dist], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return {
    child,
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
    },
  };
}

export async function waitForRun(server, id, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const run = await server.api(`/api/runs/${id}`);
    if (!['queued', 'running'].includes(run.status)) return run;
    if (Date.now() > deadline) throw new Error(`run ${id} still ${run.status}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

// A complete run of the emulated board's `variant` on `algorithms`,
// started through the API; its id.
export async function emulatedRun(server, variant, algorithms = ['ML-KEM-768']) {
  const { id } = await server.api('/api/runs', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ board: 'qemu-mps2-an386', variant, algorithms, min_iterations: 3, min_time_ms: 0 }),
  });
  const run = await waitForRun(server, id);
  if (run.status !== 'complete') throw new Error(`run ${id} ${run.status}: ${run.error}`);
  return id;
}
