// `cargo xtask bench-browser`'s browser part: the product's own "Run in
// this browser", pressed on the dashboard of the real `pqbench serve` in
// headless Chromium, on ML-KEM-768 and ML-DSA-65 with every implementation
// (pqbench's wasm, WebCrypto, @noble/post-quantum, @oqs/liboqs-js), N
// times; prints every stored figure as JSON on stdout. No harness of its
// own: the figures are the runs the dashboard stored, read back by the API.
//
// Usage: PQBENCH_BIN=... PQBENCH_DIST=... node run.mjs [--rounds N] [--min-time-ms 1000|200]
import { launchBrowser, startServer } from '../../tests/e2e/harness.mjs';

// The dashboard's choices of time per operation (web/src/context.rs).
const TIMES = [1000, 200];
const IMPLEMENTATIONS = ['wasm', 'webcrypto', 'noble', 'liboqs'];
// The engine names BENCHMARKS.md's table reads, by build.
const engineOf = (run) => {
  const implementation = run.build.extra.implementation ?? 'pqbench';
  return implementation.replace(/^noble-post-quantum@.*/, 'noble').replace(/^liboqs-js@.*/, 'liboqs');
};

function option(name, fallback) {
  const at = process.argv.indexOf(name);
  if (at < 0) return fallback;
  const value = Number(process.argv[at + 1]);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} takes a whole number, not ${process.argv[at + 1]}`);
  return value;
}
const rounds = option('--rounds', 3);
const minTimeMs = option('--min-time-ms', 1000);
if (!TIMES.includes(minTimeMs)) throw new Error(`--min-time-ms is one of the dashboard's choices: ${TIMES.join(', ')}`);

// One press of the button; the runs it stored, oldest first.
async function press(page, server, timeMs) {
  const before = new Set((await server.api('/api/runs')).map((r) => r.id));
  await page.locator('#browser-suite').selectOption('common');
  await page.locator('#browser-time').selectOption(String(timeMs));
  for (const key of IMPLEMENTATIONS) await page.locator(`#browser-impl-${key}`).check();
  await page.locator('#browser-run').click();
  // Done, the dashboard opens the first stored run's page; Boards still
  // says how the press ended.
  await page.waitForFunction(
    () => /^\/runs\/\d+$/.test(location.pathname) || /^(Done|Failed|Cancelled)/.test(document.querySelector('#browser-progress')?.textContent ?? ''),
    null,
    { timeout: 30 * 60_000 },
  );
  if (!(await page.locator('#browser-progress').count())) await page.locator('header nav a[href="/boards"]').click();
  const status = await page.locator('#browser-progress').innerText();
  if (!status.startsWith('Done')) throw new Error(`the browser run did not finish: ${status}`);
  return (await server.api('/api/runs')).filter((r) => !before.has(r.id)).reverse();
}

const server = await startServer();
const { browser, close } = await launchBrowser();
try {
  const page = await browser.newPage();
  page.on('pageerror', (error) => console.error(`page error: ${error.message}`));
  await page.goto(`${server.base}/boards`);
  // A warm-up press, not kept: the first compiles every worker's code.
  await press(page, server, 200);
  const result = { rounds: [] };
  for (let round = 0; round < rounds; round++) {
    for (const run of await press(page, server, minTimeMs)) {
      const engine = engineOf(run);
      if (engine === 'pqbench') result.pqbench_build = run.build;
      result.cross_origin_isolated = run.build.extra.cross_origin_isolated === 'true';
      result.user_agent = run.build.extra.user_agent;
      for (const r of await server.api(`/api/runs/${run.id}/results`)) {
        if (r.status !== 'ok') throw new Error(`${engine} ${r.algorithm} ${r.operation}: ${r.status} (${r.note})`);
        console.error(`round ${round + 1} ${engine} ${r.algorithm} ${r.operation}: ${r.ops_per_sec.toFixed(0)} ops/s`);
        result.rounds.push({ round, engine, run: run.id, algorithm: r.algorithm, operation: r.operation, iterations: r.iterations, ops_per_sec: r.ops_per_sec });
      }
      if (run.build.crates) Object.assign((result.versions ??= {}), engine === 'pqbench' ? {} : run.build.crates);
    }
  }
  result.browser_version = browser.version();
  result.settings = { rounds, min_iterations: 10, min_time_ms: minTimeMs, implementations: IMPLEMENTATIONS };
  process.stdout.write(`${JSON.stringify(result)}\n`);
} finally {
  await close();
  await server.stop();
}
