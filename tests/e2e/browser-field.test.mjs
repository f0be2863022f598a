// "Run in this browser" measures the browser's whole field: pqbench's wasm,
// the browser's own WebCrypto, @noble/post-quantum and @oqs/liboqs-js, each
// stored as its own build of the same browser board, each checked against
// ours before it is timed, all from this server's own origin under its CSP.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { launchBrowser, screenshots, serverAndBrowser } from './harness.mjs';

let server;
let chromium;

// The insecure-context test reaches this server by a name of its own, as a
// lab reaches a server by name: the server must be told to answer to it.
serverAndBrowser(
  (s, c) => {
    server = s;
    chromium = c;
  },
  { args: ['--allow-host', 'pqbench-field.test'] },
);

const IMPLEMENTATIONS = ['wasm', 'webcrypto', 'noble', 'liboqs'];

// A page that records policy violations (workers' too, which Chromium
// logs to the console), page errors and every request to another origin.
async function watchedPage(browser, base) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const problems = [];
  const foreign = [];
  context.on('request', (request) => {
    if (!request.url().startsWith(`${base}/`) && !request.url().startsWith('data:')) foreign.push(request.url());
  });
  const page = await context.newPage();
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy/i.test(m.text())) problems.push(`console: ${m.text()}`);
  });
  await page.goto(`${base}/boards`);
  return { context, page, problems, foreign };
}

// Opens run `id`'s page the way a person does: the Runs page, then its row.
async function openRun(page, id) {
  await page.locator('header nav a[href="/runs"]').click();
  await page.locator(`#runs tr[data-run-id="${id}"]`).click();
  await page.locator('#results h2', { hasText: `run ${id}` }).waitFor();
}

// Runs the chosen implementations on a suite in the page; the browser runs
// stored since `before` (ids), newest last.
async function runInBrowser(
  page,
  { suite = 'common', implementations = IMPLEMENTATIONS, api = server.api, timeout = 300_000 } = {},
) {
  const before = new Set((await api('/api/runs')).map((r) => r.id));
  await page.locator('#browser-suite').selectOption(suite);
  await page.locator('#browser-time').selectOption('200');
  for (const key of IMPLEMENTATIONS) {
    await page.locator(`#browser-impl-${key}`).setChecked(implementations.includes(key));
  }
  const seen = new Set();
  const watch = setInterval(async () => {
    const text = await page.locator('#browser-progress').innerText().catch(() => '');
    if (text) seen.add(text);
  }, 100);
  await page.locator('#browser-run').click();
  // Done, a run that stored something opens its first run's page; the
  // Boards page still says how it ended.
  const ended = /^(Done|Failed|Cancelled)/;
  await page.waitForFunction(
    (ended) => /^\/runs\/\d+$/.test(location.pathname) || new RegExp(ended).test(document.querySelector('#browser-progress')?.textContent ?? ''),
    ended.source,
    { timeout },
  );
  clearInterval(watch);
  if (!(await page.locator('#browser-progress').count())) await page.locator('header nav a[href="/boards"]').click();
  const status = await page.locator('#browser-progress').innerText();
  assert.match(status, ended);
  const runs = (await api('/api/runs')).filter((r) => !before.has(r.id)).reverse();
  return { runs, progress: [...seen], status };
}

const implementationOf = (run) => run.build.extra.implementation ?? 'wasm';

test('ML-KEM-768 and ML-DSA-65: four builds of one browser board, every operation ok, each figure as the page showed it', async () => {
  const { context, page, problems, foreign } = await watchedPage(chromium.browser, server.base);
  const { runs, progress, status } = await runInBrowser(page);
  assert.match(status, /^Done: runs \d+, \d+, \d+, \d+$/, status);
  // Progress per implementation, each named.
  for (const label of ["pqbench (wasm)", "this browser's WebCrypto", '@noble/post-quantum', '@oqs/liboqs-js']) {
    assert.ok(progress.some((t) => t.startsWith(`${label}: `) && / \(\d+ of 6\)/.test(t)), `${label} in ${JSON.stringify(progress)}`);
  }

  assert.equal(runs.length, 4, JSON.stringify(runs.map((r) => r.build.extra)));
  assert.deepEqual(runs.map(implementationOf), ['wasm', 'webcrypto', 'noble-post-quantum@0.7.1', 'liboqs-js@0.15.1']);
  assert.equal(new Set(runs.map((r) => r.board)).size, 1, 'one browser board');
  for (const run of runs) {
    assert.equal(run.source, 'browser');
    assert.equal(run.status, 'complete');
    assert.match(run.build.extra.browser ?? '', /Chrome \d+/);
    assert.equal(run.build.extra.cross_origin_isolated, 'true');
  }
  assert.deepEqual(runs[2].build.crates, { '@noble/post-quantum': '0.7.1' });
  assert.deepEqual(runs[3].build.crates, { '@oqs/liboqs-js': '0.15.1' });

  for (const run of runs) {
    const which = implementationOf(run);
    const results = await server.api(`/api/runs/${run.id}/results`);
    assert.deepEqual(
      results.map((r) => `${r.algorithm} ${r.operation}`),
      ['ML-KEM-768 keygen', 'ML-KEM-768 encaps', 'ML-KEM-768 decaps', 'ML-DSA-65 keygen', 'ML-DSA-65 sign', 'ML-DSA-65 verify'],
      which,
    );
    for (const r of results) {
      const what = `${which} ${r.algorithm} ${r.operation}`;
      assert.equal(r.status, 'ok', `${what}: ${r.note}`);
      assert.ok(r.iterations >= 10 && r.ops_per_sec > 0, what);
      assert.ok(r.min_ms <= r.median_ms && r.median_ms <= r.max_ms, what);
      assert.equal(r.tick_unit, 'ns', what);
      // The form of key each was timed with: libcrux (our wasm), noble and
      // liboqs take the standards' encoded bytes; WebCrypto a CryptoKey.
      assert.equal(r.key_format, which === 'webcrypto' ? 'opaque' : 'encoded', what);
      // Percentiles, said where samples were enough (p90 from 10), in
      // order between min and max.
      const ranked = [r.min_ms, r.p10_ms, r.median_ms, r.p90_ms, r.p99_ms, r.max_ms].filter((v) => v !== null);
      assert.ok(ranked.every((v, i) => i === 0 || ranked[i - 1] <= v), `${what}: ${ranked}`);
      assert.equal(r.p90_ms !== null, r.samples >= 10, `${what}: ${r.samples} samples, p90 ${r.p90_ms}`);
      assert.equal(r.p99_ms !== null, r.samples >= 100, `${what}: ${r.samples} samples, p99 ${r.p99_ms}`);
      if (which === 'wasm') continue;
      // Not measurable outside our wasm: null, never 0.
      assert.equal(r.heap_bytes, null, what);
      assert.equal(r.heap_allocs, null, what);
      assert.equal(r.stack_bytes, null, what);
      if (which === 'webcrypto') {
        // After the server's batch note, if any: what the time includes,
        // and a pipelined figure only where it differs by over 10%.
        const said = (r.note ?? '').match(
          /^(?:min, median and max are means of \d+-call batches \(coarse timer\); )?awaited one call at a time: each time includes the promise round trip(?:; with 16 calls in flight: (\d+) ops\/s \(([+-]\d+)%\))?$/,
        );
        assert.ok(said, `${what}: ${r.note}`);
        if (said[1]) {
          const change = Number(said[1]) / r.ops_per_sec - 1;
          assert.ok(Math.abs(change) > 0.09 && Math.sign(change) === Math.sign(Number(said[2])), r.note);
        }
      }
    }

    // The page shows the very figures stored.
    await openRun(page, run.id);
    for (const r of results) {
      const row = page.locator(`#results tr[data-algorithm="${r.algorithm}"][data-operation="${r.operation}"]`);
      await row.waitFor();
      assert.equal(await row.getAttribute('data-status'), 'ok');
      assert.equal(await row.locator('[data-field="key_format"]').getAttribute('data-value'), r.key_format);
      for (const field of ['ops_per_sec', 'avg_ms', 'min_ms', 'p10_ms', 'median_ms', 'p90_ms', 'p99_ms', 'max_ms', 'heap_bytes', 'stack_bytes']) {
        const cell = row.locator(`[data-field="${field}"]`);
        // A column none of the run's rows has a figure in is not drawn.
        if ((await cell.count()) === 0) {
          assert.ok(results.every((other) => other[field] === null), `${which} ${field}: not drawn, yet stored`);
          continue;
        }
        const shown = await cell.getAttribute('data-value');
        assert.equal(shown === null ? null : Number(shown), r[field], `${which} ${r.algorithm} ${r.operation} ${field}`);
        if (r[field] !== null) assert.notEqual((await cell.innerText()).trim(), '—');
      }
    }
  }
  // Any of the four runs, opened, sets the four side by side per
  // operation: each one's stored ops/s and its share of the fastest.
  await openRun(page, runs[1].id);
  await page.locator('#field tbody tr').first().waitFor();
  const labels = await page.locator('#field thead th').allInnerTexts();
  assert.deepEqual(labels.slice(2), [runs[0].build.extra.browser, 'webcrypto', 'noble-post-quantum@0.7.1', 'liboqs-js@0.15.1']);
  const stored = await Promise.all(runs.map((r) => server.api(`/api/runs/${r.id}/results`)));
  assert.equal(await page.locator('#field tbody tr').count(), 6);
  for (const r of stored[0]) {
    const row = page.locator(`#field tr[data-algorithm="${r.algorithm}"][data-operation="${r.operation}"]`);
    const cells = row.locator('td[data-build]');
    assert.equal(await cells.count(), 4);
    const expected = stored.map((results) => results.find((x) => x.operation === r.operation && x.algorithm === r.algorithm).ops_per_sec);
    const fastest = Math.max(...expected);
    for (const [n, ops] of expected.entries()) {
      assert.equal(Number(await cells.nth(n).getAttribute('data-value')), ops, `${r.algorithm} ${r.operation} column ${n}`);
      assert.equal(Number(await cells.nth(n).getAttribute('data-of-fastest')), ops / fastest);
    }
  }
  // Compare sets any of them against any other run, as it does boards'.
  await page.locator('header nav a[href="/runs"]').click();
  await page.locator(`input.compare[data-run-id="${runs[1].id}"]`).check();
  await page.locator(`input.compare[data-run-id="${runs[3].id}"]`).check();
  await page.locator('#compare-link').click();
  await page.locator('#compare .matrix-table tbody tr').nth(5).waitFor();
  assert.equal(await page.locator('#compare .matrix-table tbody tr').count(), 6);
  assert.deepEqual(
    await page.locator('#compare thead th[data-run]').evaluateAll((ths) => ths.map((th) => Number(th.dataset.run))),
    [runs[1].id, runs[3].id],
  );
  await page.screenshot({ path: join(screenshots, 'browser-field.png'), fullPage: true });
  assert.deepEqual(problems, []);
  assert.deepEqual(foreign, [], 'nothing is fetched from another origin');
  await context.close();
});

test('without a secure context WebCrypto is stored skipped with the reason, and the others still run', async () => {
  // The same server under a name that is not loopback: plain HTTP there is
  // not a secure context, so the page and its workers have no crypto.subtle.
  const port = new URL(server.base).port;
  const base = `http://pqbench-field.test:${port}`;
  const insecure = await launchBrowser({ args: ['--host-resolver-rules=MAP pqbench-field.test 127.0.0.1'] });
  try {
    const { context, page, problems } = await watchedPage(insecure.browser, base);
    assert.equal(await page.evaluate(() => isSecureContext), false);
    const { runs, status } = await runInBrowser(page, { implementations: ['webcrypto', 'noble'] });
    assert.match(status, /^Done: runs \d+, \d+$/, status);
    assert.deepEqual(runs.map(implementationOf), ['webcrypto', 'noble-post-quantum@0.7.1']);
    const [webcrypto, noble] = await Promise.all(runs.map((r) => server.api(`/api/runs/${r.id}/results`)));
    assert.equal(webcrypto.length, 6);
    for (const r of webcrypto) {
      assert.equal(r.status, 'skipped', `${r.algorithm} ${r.operation}`);
      assert.equal(r.iterations, null);
      assert.equal(r.ops_per_sec, null);
      assert.match(r.note, /^this browser's WebCrypto has no crypto\.subtle here \(WebCrypto needs a secure context/);
    }
    assert.deepEqual(noble.map((r) => r.status), Array(6).fill('ok'));
    // The reason is on the page too.
    await openRun(page, runs[0].id);
    const row = page.locator('#results tr[data-algorithm="ML-KEM-768"][data-operation="encaps"]');
    assert.equal(await row.getAttribute('data-status'), 'skipped');
    assert.match(await row.locator('.note').innerText(), /has no crypto\.subtle/);
    assert.deepEqual(problems, []);
    await context.close();
  } finally {
    await insecure.close();
  }
});

test('a peer that returns a wrong shared secret is stored failed with the reason, never timed', async () => {
  const { context, page, problems } = await watchedPage(chromium.browser, server.base);
  // A shim in place of noble's ML-KEM module: its ML-KEM-768 encapsulation
  // says a shared secret with one bit flipped; all else is noble's own.
  let served = 0;
  await context.route('**/bench/vendor/@noble/post-quantum/ml-kem.js', async (route) => {
    const response = await route.fetch();
    const original = await response.text();
    assert.match(original, /export const ml_kem768 =/);
    const body = `${original.replace('export const ml_kem768 =', 'const honest768 =')}
export const ml_kem768 = { ...honest768, encapsulate(publicKey, m) {
  const sent = honest768.encapsulate(publicKey, m);
  sent.sharedSecret[0] ^= 1;
  return sent;
} };
`;
    served += 1;
    await route.fulfill({ response, body });
  });
  const { runs, status } = await runInBrowser(page, { implementations: ['noble'] });
  assert.equal(served, 1, 'the shim was served in place of noble ML-KEM');
  assert.match(status, /^Done: run \d+$/, status);
  assert.equal(runs.length, 1);
  const results = await server.api(`/api/runs/${runs[0].id}/results`);
  const kem = results.filter((r) => r.algorithm === 'ML-KEM-768');
  assert.deepEqual(kem.map((r) => r.operation), ['keygen', 'encaps', 'decaps']);
  for (const r of kem) {
    assert.equal(r.status, 'failed', r.operation);
    for (const figure of ['iterations', 'ops_per_sec', 'median_ms', 'total_seconds']) assert.equal(r[figure], null);
    assert.match(r.note, /known answer/);
    assert.match(r.note, /pqbench's decapsulation of noble-post-quantum@0\.7\.1's ciphertext gives another shared secret/);
  }
  // Its ML-DSA is untouched, and still measured.
  assert.deepEqual(results.filter((r) => r.algorithm === 'ML-DSA-65').map((r) => r.status), ['ok', 'ok', 'ok']);
  await openRun(page, runs[0].id);
  const row = page.locator('#results tr[data-algorithm="ML-KEM-768"][data-operation="decaps"]');
  assert.equal(await row.getAttribute('data-status'), 'failed');
  assert.match(await row.locator('.note').innerText(), /another shared secret/);
  assert.deepEqual(problems, []);
  await context.close();
});

// Every result ok, timed over at least 10 calls, from the standards' encoded keys.
function assertTimedFromEncodedKeys(results) {
  for (const r of results) {
    const what = `${r.algorithm} ${r.operation}`;
    assert.equal(r.status, 'ok', `${what}: ${r.note}`);
    assert.ok(r.iterations >= 10 && r.ops_per_sec > 0, what);
    assert.equal(r.key_format, 'encoded', what);
  }
}

test("noble's X-Wing and SLH-DSA-SHA2-128f are checked against ours both ways and measured beside its ML-KEM and ML-DSA; what it lacks is not its row", async () => {
  const { context, page, problems } = await watchedPage(chromium.browser, server.base);
  const { runs, status } = await runInBrowser(page, { suite: 'with-classical', implementations: ['noble'] });
  assert.match(status, /^Done: run \d+$/, status);
  const results = await server.api(`/api/runs/${runs[0].id}/results`);
  // The suite's order; X25519MLKEM768, FN-DSA (noble's Falcon is round 3)
  // and the classical baselines are not noble's rows.
  const algorithms = [...new Set(results.map((r) => r.algorithm))];
  assert.deepEqual(algorithms, [
    'ML-KEM-512', 'ML-KEM-768', 'ML-KEM-1024', 'ML-DSA-44', 'ML-DSA-65', 'ML-DSA-87', 'X-Wing', 'SLH-DSA-SHA2-128f',
  ]);
  assertTimedFromEncodedKeys(results);
  assert.deepEqual(results.filter((r) => r.algorithm === 'X-Wing').map((r) => r.operation), ['keygen', 'encaps', 'decaps']);
  assert.deepEqual(results.filter((r) => r.algorithm === 'SLH-DSA-SHA2-128f').map((r) => r.operation), ['keygen', 'sign', 'verify']);
  assert.deepEqual(problems, []);
  await context.close();
});

test("liboqs-js's SLH-DSA-SHA2-128f is checked against ours both ways and measured beside its ML-KEM and ML-DSA; its round 3 Falcon and round 4 HQC are not its rows", async () => {
  const { context, page, problems } = await watchedPage(chromium.browser, server.base);
  const { runs, status } = await runInBrowser(page, { suite: 'with-classical', implementations: ['liboqs'] });
  assert.match(status, /^Done: run \d+$/, status);
  assert.deepEqual(runs.map(implementationOf), ['liboqs-js@0.15.1']);
  const results = await server.api(`/api/runs/${runs[0].id}/results`);
  const algorithms = [...new Set(results.map((r) => r.algorithm))];
  assert.deepEqual(algorithms, [
    'ML-KEM-512', 'ML-KEM-768', 'ML-KEM-1024', 'ML-DSA-44', 'ML-DSA-65', 'ML-DSA-87', 'SLH-DSA-SHA2-128f',
  ]);
  assertTimedFromEncodedKeys(results);
  assert.deepEqual(results.filter((r) => r.algorithm === 'SLH-DSA-SHA2-128f').map((r) => r.operation), ['keygen', 'sign', 'verify']);
  assert.deepEqual(problems, []);
  await context.close();
});

test("SLH-DSA's four 128-bit sets: our wasm, noble and liboqs-js, each peer checked against ours both ways, every operation measured", async () => {
  const { context, page, problems } = await watchedPage(chromium.browser, server.base);
  // noble's SHAKE-128s signs in seconds a call: ten calls of it and its
  // checks take most of two minutes, so the run is given ten.
  const { runs, status } = await runInBrowser(page, {
    suite: 'slh-dsa',
    implementations: ['wasm', 'noble', 'liboqs'],
    timeout: 600_000,
  });
  assert.match(status, /^Done: runs \d+, \d+, \d+$/, status);
  assert.deepEqual(runs.map(implementationOf), ['wasm', 'noble-post-quantum@0.7.1', 'liboqs-js@0.15.1']);
  const sets = ['SLH-DSA-SHA2-128f', 'SLH-DSA-SHAKE-128f', 'SLH-DSA-SHA2-128s', 'SLH-DSA-SHAKE-128s'];
  for (const run of runs) {
    const results = await server.api(`/api/runs/${run.id}/results`);
    const rows = results.map((r) => `${r.algorithm} ${r.operation}`);
    assert.deepEqual(rows, sets.flatMap((a) => [`${a} keygen`, `${a} sign`, `${a} verify`]), implementationOf(run));
    if (implementationOf(run) === 'wasm') {
      assert.ok(results.every((r) => r.status === 'ok' && r.iterations >= 10 && r.ops_per_sec > 0));
    } else {
      assertTimedFromEncodedKeys(results);
    }
  }
  assert.deepEqual(problems, []);
  await context.close();
});

test("a noble SLH-DSA whose signatures we reject is stored failed, never timed", async () => {
  const { context, page, problems } = await watchedPage(chromium.browser, server.base);
  // A shim in place of noble's SLH-DSA module: SHA2-128f's signatures have
  // their last byte flipped; all else is noble's own.
  let served = 0;
  await context.route('**/bench/vendor/@noble/post-quantum/slh-dsa.js', async (route) => {
    const response = await route.fetch();
    const original = await response.text();
    assert.match(original, /export const slh_dsa_sha2_128f =/);
    const body = `${original.replace('export const slh_dsa_sha2_128f =', 'const honest128f =')}
export const slh_dsa_sha2_128f = { ...honest128f, sign(message, secretKey, opts) {
  const signature = honest128f.sign(message, secretKey, opts);
  signature[signature.length - 1] ^= 1;
  return signature;
} };
`;
    served += 1;
    await route.fulfill({ response, body });
  });
  const { runs, status } = await runInBrowser(page, { suite: 'with-classical', implementations: ['noble'] });
  assert.equal(served, 1, 'the shim was served in place of noble SLH-DSA');
  assert.match(status, /^Done: run \d+$/, status);
  const results = await server.api(`/api/runs/${runs[0].id}/results`);
  const slh = results.filter((r) => r.algorithm === 'SLH-DSA-SHA2-128f');
  assert.equal(slh.length, 3);
  for (const r of slh) {
    assert.equal(r.status, 'failed', r.operation);
    assert.equal(r.iterations, null);
    assert.match(r.note, /pqbench rejects noble-post-quantum@0\.7\.1's signature/);
  }
  assert.ok(results.filter((r) => r.algorithm === 'X-Wing').every((r) => r.status === 'ok'));
  assert.deepEqual(problems, []);
  await context.close();
});

test('a WebCrypto that refuses an algorithm as Firefox does is stored skipped, in its own words, never failed', async () => {
  const { context, page, problems } = await watchedPage(chromium.browser, server.base);
  // The peers worker as served, behind a shim that makes this Chromium's
  // WebCrypto answer as Firefox's does (checked there, ENVIRONMENT.md): a
  // SyntaxError for ML-KEM, which it has never heard of, and a
  // NotSupportedError for ML-DSA.
  let served = 0;
  await context.route('**/bench/peers.js', async (route) => {
    const response = await route.fetch();
    const shim = `{
  const subtle = globalThis.crypto.subtle;
  const generateKey = subtle.generateKey.bind(subtle);
  subtle.generateKey = (algorithm, ...rest) => {
    const name = String(algorithm?.name ?? algorithm);
    if (name.startsWith('ML-KEM')) return Promise.reject(new DOMException('An invalid or illegal string was specified', 'SyntaxError'));
    if (name.startsWith('ML-DSA')) return Promise.reject(new DOMException('Algorithm: Unrecognized name', 'NotSupportedError'));
    return generateKey(algorithm, ...rest);
  };
}
`;
    served += 1;
    await route.fulfill({ response, body: shim + (await response.text()) });
  });
  const { runs, status } = await runInBrowser(page, { implementations: ['webcrypto'] });
  assert.equal(served, 1, 'the shimmed worker was served');
  assert.match(status, /^Done: run \d+$/, status);
  const results = await server.api(`/api/runs/${runs[0].id}/results`);
  assert.equal(results.length, 6);
  for (const r of results) {
    assert.equal(r.status, 'skipped', `${r.algorithm} ${r.operation}: ${r.note}`);
    assert.equal(r.iterations, null);
    const said = r.algorithm.startsWith('ML-KEM')
      ? 'SyntaxError: An invalid or illegal string was specified'
      : 'NotSupportedError: Algorithm: Unrecognized name';
    assert.ok(r.note.startsWith(`this browser's WebCrypto has no ${r.algorithm} (it says ${said})`), r.note);
  }
  assert.deepEqual(problems, []);
  await context.close();
});
