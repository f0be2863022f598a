// The other implementations a browser run measures beside pqbench's wasm:
// this browser's own WebCrypto, @noble/post-quantum and @oqs/liboqs-js,
// each loaded from this server (`./vendor/`, staged by `cargo xtask
// build`), one implementation per worker. Each algorithm is first checked
// against pqbench's own (our decapsulation of their ciphertext gives their
// shared secret and the reverse; each verifies the other's signature), then
// timed by the suite's own rule on the same clock, in our wasm
// (`measure_peer`), and returned as an Upload: one build of this browser.
//
// Message in: {implementation: "webcrypto" | "noble" | "liboqs", algorithms,
// min_iterations, min_time_ms, browser_run (as worker.js takes it)}. Messages out: {type: "progress", algorithm,
// operation, index, total}, then {type: "done", upload} or {type: "error",
// message}.
import init, * as ours from './pqbench_wasm_bench.js';

const ML_KEM = ['ML-KEM-512', 'ML-KEM-768', 'ML-KEM-1024'];
const ML_DSA = ['ML-DSA-44', 'ML-DSA-65', 'ML-DSA-87'];
const OPERATIONS = { kem: ['keygen', 'encaps', 'decaps'], dsa: ['keygen', 'sign', 'verify'] };

// Fixed inputs: every run of every implementation sees the same.
const fixed = (length, salt) => Uint8Array.from({ length }, (_, i) => (i * 131 + salt * 7 + 1) & 0xff);
const MESSAGE = fixed(32, 3);
// Calls in flight at once for a promise API's pipelined figure.
const IN_FLIGHT = 16;
// A pipelined figure is said when it differs from the awaited one by more.
const PIPELINED_DIFFERS = 0.1;
const equal = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);
const bytes = (buffer) => new Uint8Array(buffer);

// Thrown where an implementation lacks what a step needs: the operation is
// stored `skipped` with this reason, never timed.
class Missing extends Error {}
// The names of the errors by which a browser's WebCrypto says it lacks an
// algorithm or a key format (see `supported` below).
const ABSENT = new Set(['NotSupportedError', 'SyntaxError', 'TypeError']);
// Thrown where an implementation disagrees with ours: stored `failed`.
class Disagrees extends Error {}

// Each implementation: its build label, its packages, the form its timed
// calls are given keys in (`keyFormat`, pqbench_types::KeyFormat's names)
// and, per algorithm, an adapter. A KEM adapter: keygen() -> keys, publicKey(keys) -> ek bytes,
// encapsulate(ek bytes) -> {ciphertext, shared}, decapsulate(keys, ct) ->
// shared, and timed(keys, ciphertext) -> {keygen, encaps, decaps} calls. A
// DSA adapter: keygen, publicKey, sign(keys, message), verify(pk bytes,
// message, signature) -> bool, timed(keys, signature). Any of them may be
// async; timed calls that return a promise are awaited one by one.
const IMPLEMENTATIONS = {
  async webcrypto() {
    const subtle = globalThis.crypto?.subtle;
    const lacks = (what) => new Missing(`this browser's WebCrypto has no ${what}`);
    const need = (name, algorithm) => {
      if (!subtle) throw lacks('crypto.subtle here (WebCrypto needs a secure context: HTTPS or loopback)');
      if (typeof subtle[name] !== 'function') throw lacks(`${name} (for ${algorithm})`);
    };
    // How browsers say they lack an algorithm or a key format: the spec
    // and Chromium, NotSupportedError; Firefox, for an algorithm name it
    // has never heard of, SyntaxError ("An invalid or illegal string was
    // specified"); WebIDL, TypeError for a key format (an enum value) it
    // does not know. Each is absence, said with the browser's own words;
    // any other error is a failure.
    const supported = async (what, call) => {
      try {
        return await call();
      } catch (error) {
        if (ABSENT.has(error?.name)) throw lacks(`${what} (it says ${error.name}: ${error.message})`);
        throw error;
      }
    };
    const generate = (name, usages) => () =>
      supported(name, () => subtle.generateKey({ name }, true, usages));
    const exported = (name, key) =>
      supported(`${name} raw-public export`, async () => bytes(await subtle.exportKey('raw-public', key)));
    const imported = (name, ek, usages) =>
      supported(`${name} raw-public import`, () => subtle.importKey('raw-public', ek, { name }, true, usages));
    // Whether it has the algorithm at all, before any other step can fail
    // for that reason under another name.
    const kem = async (name) => {
      need('generateKey', name);
      const keygen = generate(name, ['encapsulateBits', 'decapsulateBits']);
      await keygen();
      need('encapsulateBits', name);
      need('decapsulateBits', name);
      return {
        keygen,
        publicKey: (keys) => exported(name, keys.publicKey),
        async encapsulate(ek) {
          const sent = await subtle.encapsulateBits({ name }, await imported(name, ek, ['encapsulateBits']));
          return { ciphertext: bytes(sent.ciphertext), shared: bytes(sent.sharedKey) };
        },
        decapsulate: async (keys, ct) => bytes(await subtle.decapsulateBits({ name }, keys.privateKey, ct)),
        timed: (keys, ct) => ({
          keygen,
          encaps: () => subtle.encapsulateBits({ name }, keys.publicKey),
          decaps: () => subtle.decapsulateBits({ name }, keys.privateKey, ct),
        }),
      };
    };
    const dsa = async (name) => {
      need('generateKey', name);
      const keygen = generate(name, ['sign', 'verify']);
      await keygen();
      return {
        keygen,
        publicKey: (keys) => exported(name, keys.publicKey),
        sign: async (keys, message) => bytes(await subtle.sign({ name }, keys.privateKey, message)),
        verify: async (pk, message, signature) =>
          subtle.verify({ name }, await imported(name, pk, ['verify']), signature, message),
        timed: (keys, signature) => ({
          keygen,
          sign: () => subtle.sign({ name }, keys.privateKey, MESSAGE),
          verify: () => subtle.verify({ name }, keys.publicKey, signature, MESSAGE),
        }),
      };
    };
    return {
      label: 'webcrypto',
      // What Chromium's WebCrypto has; another browser's lack of any of
      // them is said per algorithm (`supported`).
      offers: [...ML_KEM, ...ML_DSA],
      // CryptoKey: the browser does not say what it holds.
      keyFormat: 'opaque',
      packages: undefined,
      // Every call is a promise: say what its time holds.
      note: 'awaited one call at a time: each time includes the promise round trip',
      // And how many a page gets with several in flight, where that differs.
      inFlight: IN_FLIGHT,
      kem,
      dsa,
    };
  },

  async noble(versions) {
    const version = versions['@noble/post-quantum'];
    const kemModule = await import('./vendor/@noble/post-quantum/ml-kem.js');
    const dsaModule = await import('./vendor/@noble/post-quantum/ml-dsa.js');
    const hybridModule = await import('./vendor/@noble/post-quantum/hybrid.js');
    const slhModule = await import('./vendor/@noble/post-quantum/slh-dsa.js');
    const kems = {
      'ML-KEM-512': kemModule.ml_kem512,
      'ML-KEM-768': kemModule.ml_kem768,
      'ML-KEM-1024': kemModule.ml_kem1024,
      // noble's name for X-Wing (draft-connolly-cfrg-xwing-kem).
      'X-Wing': hybridModule.ml_kem768_x25519,
    };
    const dsas = {
      'ML-DSA-44': dsaModule.ml_dsa44,
      'ML-DSA-65': dsaModule.ml_dsa65,
      'ML-DSA-87': dsaModule.ml_dsa87,
      'SLH-DSA-SHA2-128f': slhModule.slh_dsa_sha2_128f,
      'SLH-DSA-SHAKE-128f': slhModule.slh_dsa_shake_128f,
      'SLH-DSA-SHA2-128s': slhModule.slh_dsa_sha2_128s,
      'SLH-DSA-SHAKE-128s': slhModule.slh_dsa_shake_128s,
    };
    // Its Falcon is not FN-DSA as the suite runs it (FIPS 206's draft), so
    // it is not compared; X25519MLKEM768 it does not offer.
    return {
      label: `noble-post-quantum@${version}`,
      offers: [...Object.keys(kems), ...Object.keys(dsas)],
      // Its keys are FIPS 203's and 204's byte strings, decoded by each call.
      keyFormat: 'encoded',
      packages: { '@noble/post-quantum': version },
      kem: (name) => {
        const k = kems[name];
        return {
          keygen: () => k.keygen(),
          publicKey: (keys) => keys.publicKey,
          encapsulate(ek) {
            const sent = k.encapsulate(ek);
            return { ciphertext: sent.cipherText, shared: sent.sharedSecret };
          },
          decapsulate: (keys, ct) => k.decapsulate(ct, keys.secretKey),
          timed: (keys, ct) => ({
            keygen: () => k.keygen(),
            encaps: () => k.encapsulate(keys.publicKey),
            decaps: () => k.decapsulate(ct, keys.secretKey),
          }),
        };
      },
      dsa: (name) => {
        const d = dsas[name];
        return {
          keygen: () => d.keygen(),
          publicKey: (keys) => keys.publicKey,
          // Hedged signing (fresh randomness per call), as the suite signs.
          sign: (keys, message) => d.sign(message, keys.secretKey),
          verify: (pk, message, signature) => d.verify(signature, message, pk),
          timed: (keys, signature) => ({
            keygen: () => d.keygen(),
            sign: () => d.sign(MESSAGE, keys.secretKey),
            verify: () => d.verify(signature, MESSAGE, keys.publicKey),
          }),
        };
      },
    };
  },

  async liboqs(versions) {
    const version = versions['@oqs/liboqs-js'];
    const factory = {
      'ML-KEM-512': ['kem/ml-kem/ml-kem-512.js', 'createMLKEM512'],
      'ML-KEM-768': ['kem/ml-kem/ml-kem-768.js', 'createMLKEM768'],
      'ML-KEM-1024': ['kem/ml-kem/ml-kem-1024.js', 'createMLKEM1024'],
      'ML-DSA-44': ['sig/ml-dsa/ml-dsa-44.js', 'createMLDSA44'],
      'ML-DSA-65': ['sig/ml-dsa/ml-dsa-65.js', 'createMLDSA65'],
      'ML-DSA-87': ['sig/ml-dsa/ml-dsa-87.js', 'createMLDSA87'],
      // liboqs's pure SLH-DSA (FIPS 205, empty context), as the suite's.
      'SLH-DSA-SHA2-128f': ['sig/slh-dsa/slh-dsa-sha2-128f.js', 'createSlhDsaSha2128f'],
      'SLH-DSA-SHAKE-128f': ['sig/slh-dsa/slh-dsa-shake-128f.js', 'createSlhDsaShake128f'],
      'SLH-DSA-SHA2-128s': ['sig/slh-dsa/slh-dsa-sha2-128s.js', 'createSlhDsaSha2128s'],
      'SLH-DSA-SHAKE-128s': ['sig/slh-dsa/slh-dsa-shake-128s.js', 'createSlhDsaShake128s'],
    };
    // Its Falcon is round 3 and its HQC the round 4 submission's, neither
    // the suite's (FN-DSA as FIPS 206 is to define it; HQC as the 2025
    // specification does it), so neither is compared.
    const create = async (name) => {
      const [path, make] = factory[name];
      return (await import(`./vendor/@oqs/liboqs-js/src/algorithms/${path}`))[make]();
    };
    return {
      label: `liboqs-js@${version}`,
      // The modules `cargo xtask build` stages of it.
      offers: Object.keys(factory),
      // liboqs's API takes and gives the standards' encoded bytes.
      keyFormat: 'encoded',
      packages: { '@oqs/liboqs-js': version },
      // liboqs-js takes no seed: its keys come from crypto.getRandomValues.
      kem: async (name) => {
        const k = await create(name);
        return {
          keygen: () => k.generateKeyPair(),
          publicKey: (keys) => keys.publicKey,
          encapsulate(ek) {
            const sent = k.encapsulate(ek);
            return { ciphertext: sent.ciphertext, shared: sent.sharedSecret };
          },
          decapsulate: (keys, ct) => k.decapsulate(ct, keys.secretKey),
          timed: (keys, ct) => ({
            keygen: () => k.generateKeyPair(),
            encaps: () => k.encapsulate(keys.publicKey),
            decaps: () => k.decapsulate(ct, keys.secretKey),
          }),
        };
      },
      dsa: async (name) => {
        const d = await create(name);
        return {
          keygen: () => d.generateKeyPair(),
          publicKey: (keys) => keys.publicKey,
          sign: (keys, message) => d.sign(message, keys.secretKey),
          verify: (pk, message, signature) => d.verify(message, signature, pk),
          timed: (keys, signature) => ({
            keygen: () => d.generateKeyPair(),
            sign: () => d.sign(MESSAGE, keys.secretKey),
            verify: () => d.verify(MESSAGE, signature, keys.publicKey),
          }),
        };
      },
    };
  },
};

// Checks a KEM against ours both ways; the keys and ciphertext to time with.
async function checkKem(name, peer, label) {
  const [keySeed, encapsulationSeed] = ours.ours_seed_bytes(name);
  const [ek, dk] = ours.ours_kem_key_pair(name, fixed(keySeed, 1));
  const sent = await peer.encapsulate(ek);
  const ourShared = ours.ours_kem_decapsulate(name, dk, bytes(sent.ciphertext));
  if (!ourShared || !equal(ourShared, bytes(sent.shared))) {
    throw new Disagrees(`pqbench's decapsulation of ${label}'s ciphertext gives another shared secret than ${label}'s`);
  }
  const keys = await peer.keygen();
  const theirKey = bytes(await peer.publicKey(keys));
  const ourSent = ours.ours_kem_encapsulate(name, theirKey, fixed(encapsulationSeed, 2));
  if (!ourSent) throw new Disagrees(`pqbench refuses ${label}'s encapsulation key (its size, or FIPS 203's check)`);
  const [ciphertext, shared] = ourSent;
  const theirShared = bytes(await peer.decapsulate(keys, ciphertext));
  if (!equal(theirShared, shared)) {
    throw new Disagrees(`${label}'s decapsulation of pqbench's ciphertext gives another shared secret than pqbench's`);
  }
  // Decapsulation is timed on this ciphertext, checked just now.
  return { keys, ciphertext };
}

// Checks a DSA against ours both ways; the keys and signature to time with.
async function checkDsa(name, peer, label) {
  const [keySeed] = ours.ours_seed_bytes(name);
  const [pk, sk] = ours.ours_dsa_key_pair(name, fixed(keySeed, 4));
  const ourSignature = ours.ours_dsa_sign(name, sk, MESSAGE);
  if (!(await peer.verify(pk, MESSAGE, ourSignature))) {
    throw new Disagrees(`${label} rejects pqbench's signature`);
  }
  const tampered = MESSAGE.slice();
  tampered[0] ^= 1;
  if (await peer.verify(pk, tampered, ourSignature)) {
    throw new Disagrees(`${label} accepts pqbench's signature on another message`);
  }
  const keys = await peer.keygen();
  const signature = bytes(await peer.sign(keys, MESSAGE));
  if (!ours.ours_dsa_verify(name, bytes(await peer.publicKey(keys)), MESSAGE, signature)) {
    throw new Disagrees(`pqbench rejects ${label}'s signature`);
  }
  return { keys, signature };
}

// The staged packages' versions; without them the packages are not staged.
async function staged() {
  const response = await fetch('./vendor/versions.json');
  if (!response.ok) throw new Error(`the JavaScript peers are not staged on this server (vendor/versions.json: ${response.status}); \`cargo xtask build\` stages them`);
  return response.json();
}

// A note as an upload takes it (Upload::check): one line of at most 400
// bytes. An error's message may hold line breaks or run long.
const NOTE_BYTES = 400;
function oneLine(text) {
  const size = (t) => new TextEncoder().encode(t).length;
  let line = String(text).replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').trim();
  if (size(line) <= NOTE_BYTES) return line;
  line = line.slice(0, NOTE_BYTES);
  while (size(`${line}…`) > NOTE_BYTES) line = line.slice(0, -1);
  return `${line}…`;
}

const untimed = (algorithm, operation, status, failure) => ({
  algorithm, operation, status, iterations: 0, total_ticks: 0, min_ticks: 0, median_ticks: 0, max_ticks: 0,
  heap_bytes: null, heap_allocs: null, stack_bytes: null, bytes_per_op: null, needed_bytes: null,
  ...(failure ? { failure } : {}),
});

// A test hook, never set by the dashboard: each timed call makes the
// operation `repeat` times, one after another, so a run is slower on
// purpose by real work (the regression tests' slower browser run). Every
// result it touched says so in its note: such a figure is never taken for
// the implementation's own.
function repeated(call, repeat) {
  if (repeat <= 1) return call;
  return async () => {
    for (let i = 1; i < repeat; i++) await call();
    return call();
  };
}
const repeatNote = (repeat) => `test hook: each timed call made the operation ${repeat} times`;

async function measureAll(request) {
  const { implementation, algorithms = [], min_iterations: minIterations = 10, min_time_ms: minTimeMs = 1000 } = request;
  const repeat = Number.isInteger(request.test_repeat_calls) && request.test_repeat_calls > 1 ? request.test_repeat_calls : 1;
  const make = IMPLEMENTATIONS[implementation];
  if (!make) throw new Error(`unknown implementation ${implementation}; choose from ${Object.keys(IMPLEMENTATIONS).join(', ')}`);
  await init();
  const versions = implementation === 'webcrypto' ? {} : await staged();
  const impl = await make(versions);
  // What both it and our checks have; the rest of the suite is not its.
  const chosen = algorithms.filter((a) => impl.offers.includes(a) && ours.ours_kind(a));
  const total = chosen.length * 3;
  const measurements = [];
  const notes = [];
  const store = (m, note) => {
    measurements.push(m);
    if (note) notes.push({ algorithm: m.algorithm, operation: m.operation, note: oneLine(note) });
  };
  let index = 0;
  for (const algorithm of chosen) {
    const kind = ours.ours_kind(algorithm);
    const operations = OPERATIONS[kind];
    let calls;
    try {
      const peer = await impl[kind](algorithm);
      const checked = kind === 'kem' ? await checkKem(algorithm, peer, impl.label) : await checkDsa(algorithm, peer, impl.label);
      const timed = peer.timed(checked.keys, kind === 'kem' ? checked.ciphertext : checked.signature);
      calls = operations.map((op) => repeated(timed[op], repeat));
    } catch (error) {
      for (const operation of operations) {
        self.postMessage({ type: 'progress', algorithm, operation, index: ++index, total });
        if (error instanceof Missing) store(untimed(algorithm, operation, 'skipped'), error.message);
        else if (error instanceof Disagrees) store(untimed(algorithm, operation, 'failed', 'known_answer'), error.message);
        else store(untimed(algorithm, operation, 'failed'), `${impl.label} failed before timing: ${error?.message ?? error}`);
      }
      continue;
    }
    for (const [n, operation] of operations.entries()) {
      self.postMessage({ type: 'progress', algorithm, operation, index: ++index, total });
      try {
        const m = JSON.parse(await ours.measure_peer(algorithm, operation, calls[n], minIterations, minTimeMs));
        if (m.status === 'ok') m.key_format = impl.keyFormat;
        let note = m.status === 'ok' ? impl.note : undefined;
        if (m.status === 'ok' && repeat > 1) note = [note, repeatNote(repeat)].filter(Boolean).join('; ');
        if (m.status === 'ok' && impl.inFlight) {
          const awaited = (m.iterations * 1e9) / m.total_ticks;
          const pipelined = await ours.measure_in_flight(calls[n], impl.inFlight, minTimeMs);
          const change = pipelined / awaited - 1;
          if (Math.abs(change) > PIPELINED_DIFFERS) {
            const percent = `${change > 0 ? '+' : ''}${Math.round(change * 100)}%`;
            note += `; with ${impl.inFlight} calls in flight: ${Math.round(pipelined)} ops/s (${percent})`;
          }
        }
        store(m, note);
      } catch (error) {
        store(untimed(algorithm, operation, 'failed'), String(error?.message ?? error));
      }
    }
  }
  const token = typeof request.browser_run === 'string' ? request.browser_run : undefined;
  return ours.peer_upload(impl.label, impl.packages, JSON.stringify(measurements), JSON.stringify(notes), token);
}

self.onmessage = async ({ data }) => {
  try {
    const upload = await measureAll(data ?? {});
    self.postMessage({ type: 'done', upload });
  } catch (error) {
    self.postMessage({ type: 'error', message: String(error?.message ?? error) });
  }
};
