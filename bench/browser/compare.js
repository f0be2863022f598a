// The page of the browser comparison: one engine at a time, each in a
// fresh Web Worker, rounds interleaved (pqbench, noble, liboqs, pqbench,
// ...) so that a slow spell of the machine falls on every engine alike.
const ALGORITHMS = ['ML-KEM-768', 'ML-DSA-65'];
const log = (line) => {
  document.getElementById('log').textContent += `${line}\n`;
};

function inWorker(url, message) {
  return new Promise((resolve, reject) => {
    const worker = new Worker(url, { type: 'module' });
    worker.onerror = (event) => {
      worker.terminate();
      reject(new Error(`${url}: ${event.message ?? 'worker failed to load'}`));
    };
    worker.onmessage = ({ data }) => {
      if (data.type === 'progress') return;
      worker.terminate();
      if (data.type === 'error') reject(new Error(`${url}: ${data.message}`));
      else resolve(data);
    };
    worker.postMessage(message);
  });
}

const ENGINES = {
  async pqbench(settings) {
    const { upload } = await inWorker('/bench/worker.js', { algorithms: ALGORITHMS, ...settings });
    const parsed = JSON.parse(upload);
    return {
      build: parsed.build,
      measurements: parsed.measurements
        .filter((m) => m.status === 'ok')
        .map((m) => ({ algorithm: m.algorithm, operation: m.operation, iterations: m.iterations, total_ns: m.total_ticks })),
    };
  },
  async noble(settings) {
    return inWorker('./peers-worker.js', { engine: 'noble', ...settings });
  },
  async liboqs(settings) {
    return inWorker('./peers-worker.js', { engine: 'liboqs', ...settings });
  },
};

// engines: which of ENGINES to run; rounds: measured rounds per engine; a shorter warm-up round of each
// engine comes first and is not kept.
window.runComparison = async ({ rounds = 3, min_iterations = 10, min_time_ms = 1000, warmup_ms = 200, engines = Object.keys(ENGINES) } = {}) => {
  const started = performance.now();
  const chosen = engines.map((name) => {
    if (!ENGINES[name]) throw new Error(`unknown engine ${name}; choose from ${Object.keys(ENGINES).join(', ')}`);
    return [name, ENGINES[name]];
  });
  const result = { cross_origin_isolated: self.crossOriginIsolated, user_agent: navigator.userAgent, rounds: [] };
  for (const [name, run] of chosen) {
    log(`warm-up: ${name}`);
    await run({ min_iterations: 1, min_time_ms: warmup_ms });
  }
  for (let round = 0; round < rounds; round++) {
    for (const [name, run] of chosen) {
      const { measurements, build } = await run({ min_iterations, min_time_ms });
      if (build) result.pqbench_build = build;
      for (const m of measurements) {
        const opsPerSec = (m.iterations * 1e9) / m.total_ns;
        log(`round ${round + 1} ${name} ${m.algorithm} ${m.operation}: ${opsPerSec.toFixed(0)} ops/s`);
        result.rounds.push({ round, engine: name, ...m });
      }
    }
  }
  result.wall_s = (performance.now() - started) / 1000;
  return result;
};
log('ready');
