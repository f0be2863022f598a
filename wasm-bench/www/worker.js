// Runs the benchmark suite off the page's thread: the suite blocks its
// thread for the whole run. Message in: {algorithms, min_iterations,
// min_time_ms, browser_run (optional: the page's token for this press of
// its button, shared by every implementation it measures)}. Messages out: {type: "progress", algorithm, operation,
// index, total}, then {type: "done", upload} (the Upload as a JSON string)
// or {type: "error", message}.
import init, { run_suite } from './pqbench_wasm_bench.js';

let ready;

const count = (value, fallback, name) => {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 0 || value > 0xffffffff) {
    throw new Error(`${name} must be a whole number from 0 to 4294967295, not ${value}`);
  }
  return value;
};

const token = (value) => {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/^[0-9a-z-]{1,64}$/.test(value)) {
    throw new Error(`browser_run must be 1 to 64 lower-case letters, digits or dashes, not ${value}`);
  }
  return value;
};

self.onmessage = async ({ data }) => {
  try {
    const request = data ?? {};
    const algorithms = request.algorithms ?? [];
    if (!Array.isArray(algorithms) || !algorithms.every((a) => typeof a === 'string')) {
      throw new Error('algorithms must be a list of names');
    }
    const minIterations = count(request.min_iterations, 10, 'min_iterations');
    const minTimeMs = count(request.min_time_ms, 1000, 'min_time_ms');
    const browserRun = token(request.browser_run);
    await (ready ??= init());
    const upload = run_suite(
      algorithms,
      minIterations,
      minTimeMs,
      (progress) => self.postMessage({ type: 'progress', ...progress }),
      browserRun,
    );
    self.postMessage({ type: 'done', upload });
  } catch (error) {
    self.postMessage({ type: 'error', message: String(error?.message ?? error) });
  }
};
