// Runs the browser comparison: stages this folder's page and the npm
// peers into <dist>/bench/compare/, starts the real `pqbench serve` (it
// serves /bench/ cross-origin isolated, so performance.now() is fine
// grained), opens the page in one headless Chromium page and prints the
// measurements as JSON on stdout. `cargo xtask bench-browser` runs it.
//
// Usage: PQBENCH_BIN=... PQBENCH_DIST=... node run.mjs [--rounds N] [--min-time-ms MS]
//   [--engines pqbench,noble,liboqs]
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchBrowser, startServer } from '../../tests/e2e/harness.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const modules = join(here, '../../tests/e2e/node_modules');
const dist = process.env.PQBENCH_DIST;

function option(name, fallback) {
  const at = process.argv.indexOf(name);
  if (at < 0) return fallback;
  const value = Number(process.argv[at + 1]);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} takes a whole number, not ${process.argv[at + 1]}`);
  return value;
}
const rounds = option('--rounds', 3);
const minTimeMs = option('--min-time-ms', 1000);
const enginesAt = process.argv.indexOf('--engines');
const engines = enginesAt < 0 ? ['pqbench', 'noble', 'liboqs'] : process.argv[enginesAt + 1].split(',');

// Copies the files of a package that `keep` accepts, rewriting noble's bare
// `@noble/...` imports to relative paths: a module worker has no import map.
function vendor(pkg, out, keep) {
  const from = join(modules, pkg);
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      const rel = relative(from, path);
      if (statSync(path).isDirectory()) {
        if (name !== 'node_modules') walk(path);
        continue;
      }
      if (!keep(rel)) continue;
      const target = join(out, pkg, rel);
      mkdirSync(dirname(target), { recursive: true });
      if (!pkg.startsWith('@noble/')) {
        cpSync(path, target);
        continue;
      }
      let up = relative(dirname(target), join(out, '@noble')) || '.';
      if (!up.startsWith('.')) up = `./${up}`;
      writeFileSync(target, readFileSync(path, 'utf8').replace(/(['"])@noble\//g, `$1${up}/`));
    }
  };
  walk(from);
}

function stage() {
  const out = join(dist, 'bench', 'compare');
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  cpSync(join(here, 'compare.html'), join(out, 'index.html'));
  cpSync(join(here, 'compare.js'), join(out, 'compare.js'));
  cpSync(join(here, 'peers-worker.js'), join(out, 'peers-worker.js'));
  const vendorDir = join(out, 'vendor');
  const js = (rel) => rel.endsWith('.js') && !rel.startsWith('src/') && !rel.startsWith('test');
  for (const pkg of ['@noble/post-quantum', '@noble/hashes', '@noble/curves', '@noble/ciphers']) {
    vendor(pkg, vendorDir, js);
  }
  const oqs = new Set(['dist/ml-kem-768.min.js', 'dist/ml-dsa-65.min.js']);
  vendor('@oqs/liboqs-js', vendorDir, (rel) => (rel.startsWith('src/') && rel.endsWith('.js')) || oqs.has(rel));
  for (const pkg of ['@noble/post-quantum', '@oqs/liboqs-js']) {
    const { version } = JSON.parse(readFileSync(join(modules, pkg, 'package.json'), 'utf8'));
    versions[pkg] = version;
  }
}

const versions = {};
stage();
const server = await startServer();
const { browser, close } = await launchBrowser();
try {
  const page = await browser.newPage();
  page.on('console', (message) => {
    if (message.type() === 'error') console.error(`page: ${message.text()}`);
  });
  page.on('pageerror', (error) => console.error(`page error: ${error.message}`));
  await page.goto(`${server.base}/bench/compare/index.html`);
  await page.waitForFunction(() => typeof window.runComparison === 'function');
  const result = await page.evaluate(
    (settings) => window.runComparison(settings),
    { rounds, min_iterations: 10, min_time_ms: minTimeMs, engines },
  );
  result.browser_version = browser.version();
  result.versions = versions;
  result.settings = { rounds, min_iterations: 10, min_time_ms: minTimeMs, engines };
  process.stdout.write(`${JSON.stringify(result)}\n`);
} finally {
  await close();
  await server.stop();
}
