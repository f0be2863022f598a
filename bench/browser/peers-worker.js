// The JavaScript peers of the browser benchmark, each in this Web Worker
// (as pqbench's wasm runs in /bench/worker.js): the same operations on
// fixed inputs, timed with the same performance.now() and the same rule
// (at least min_iterations calls and min_time_ms per operation).
//
// Message in: {engine: "noble" | "liboqs", min_iterations, min_time_ms}.
// Message out: {type: "done", measurements: [{algorithm, operation,
// iterations, total_ns}]} or {type: "error", message}.
import { ml_kem768 } from './vendor/@noble/post-quantum/ml-kem.js';
import { ml_dsa65 } from './vendor/@noble/post-quantum/ml-dsa.js';
import { createMLKEM768 } from './vendor/@oqs/liboqs-js/src/algorithms/kem/ml-kem/ml-kem-768.js';
import { createMLDSA65 } from './vendor/@oqs/liboqs-js/src/algorithms/sig/ml-dsa/ml-dsa-65.js';

// Fixed bytes: the inputs every run of every engine sees.
const fixed = (length, salt) => Uint8Array.from({ length }, (_, i) => (i * 131 + salt * 7 + 1) & 0xff);
const MESSAGE = fixed(32, 3);

function equal(a, b) {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function check(condition, what) {
  if (!condition) throw new Error(`self-test failed: ${what}`);
}

// The operations of one engine: [algorithm, operation, call], inputs made
// (and self-tested) before any timing.
async function operations(engine) {
  if (engine === 'noble') {
    const kem = ml_kem768.keygen(fixed(64, 1));
    const sent = ml_kem768.encapsulate(kem.publicKey, fixed(32, 2));
    check(equal(ml_kem768.decapsulate(sent.cipherText, kem.secretKey), sent.sharedSecret), 'noble ML-KEM-768');
    const dsa = ml_dsa65.keygen(fixed(32, 4));
    const signature = ml_dsa65.sign(MESSAGE, dsa.secretKey);
    check(ml_dsa65.verify(signature, MESSAGE, dsa.publicKey), 'noble ML-DSA-65');
    const keySeed = fixed(64, 5);
    const dsaSeed = fixed(32, 6);
    return [
      ['ML-KEM-768', 'keygen', () => ml_kem768.keygen(keySeed)],
      ['ML-KEM-768', 'encaps', () => ml_kem768.encapsulate(kem.publicKey)],
      ['ML-KEM-768', 'decaps', () => ml_kem768.decapsulate(sent.cipherText, kem.secretKey)],
      ['ML-DSA-65', 'keygen', () => ml_dsa65.keygen(dsaSeed)],
      // Hedged signing (fresh randomness per call), as pqbench's suite signs.
      ['ML-DSA-65', 'sign', () => ml_dsa65.sign(MESSAGE, dsa.secretKey)],
      ['ML-DSA-65', 'verify', () => ml_dsa65.verify(signature, MESSAGE, dsa.publicKey)],
    ];
  }
  if (engine === 'liboqs') {
    const mlkem = await createMLKEM768();
    const mldsa = await createMLDSA65();
    const kem = mlkem.generateKeyPair();
    const sent = mlkem.encapsulate(kem.publicKey);
    check(equal(mlkem.decapsulate(sent.ciphertext, kem.secretKey), sent.sharedSecret), 'liboqs ML-KEM-768');
    const dsa = mldsa.generateKeyPair();
    const signature = mldsa.sign(MESSAGE, dsa.secretKey);
    check(mldsa.verify(MESSAGE, signature, dsa.publicKey), 'liboqs ML-DSA-65');
    // liboqs-js offers no seeded key generation: its keys come from
    // crypto.getRandomValues, as its signing randomness does.
    return [
      ['ML-KEM-768', 'keygen', () => mlkem.generateKeyPair()],
      ['ML-KEM-768', 'encaps', () => mlkem.encapsulate(kem.publicKey)],
      ['ML-KEM-768', 'decaps', () => mlkem.decapsulate(sent.ciphertext, kem.secretKey)],
      ['ML-DSA-65', 'keygen', () => mldsa.generateKeyPair()],
      ['ML-DSA-65', 'sign', () => mldsa.sign(MESSAGE, dsa.secretKey)],
      ['ML-DSA-65', 'verify', () => mldsa.verify(MESSAGE, signature, dsa.publicKey)],
    ];
  }
  throw new Error(`unknown engine ${engine}`);
}

// Calls back to back until both bounds are met; the time they took.
function measure(call, minIterations, minTimeMs) {
  let sink = 0;
  let iterations = 0;
  const start = performance.now();
  let now = start;
  while (iterations < minIterations || now - start < minTimeMs) {
    const out = call();
    sink ^= out === true ? 1 : 0;
    iterations += 1;
    now = performance.now();
  }
  return { iterations, total_ns: Math.round((now - start) * 1e6), sink };
}

self.onmessage = async ({ data }) => {
  try {
    const { engine, min_iterations: minIterations = 10, min_time_ms: minTimeMs = 1000 } = data ?? {};
    const measurements = [];
    for (const [algorithm, operation, call] of await operations(engine)) {
      const { iterations, total_ns } = measure(call, minIterations, minTimeMs);
      measurements.push({ algorithm, operation, iterations, total_ns });
    }
    self.postMessage({ type: 'done', measurements });
  } catch (error) {
    self.postMessage({ type: 'error', message: String(error?.stack ?? error?.message ?? error) });
  }
};
