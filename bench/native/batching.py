#!/usr/bin/env python3
"""Native figures of the quickest operations from two `pqbench` binaries,
one that times each call on its own and one that batches calls shorter than
about 100 clock readings (BENCHMARKS.md, "Native timing overhead").

    bench/native/batching.py BEFORE_BINARY AFTER_BINARY [ROUNDS]

Each round runs `pqbench bench --native` with each binary in turn (so a
busy moment of the machine falls on both), reads the run back with
`pqbench export --format json`, and keeps each operation's median time per
call. Prints a Markdown table of the medians over the rounds, the spread
(max/min - 1) of each, and the batch each after-figure was timed in.
"""

import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ALGORITHMS = "AES-128-GCM,AES-256-GCM,ChaCha20-Poly1305,SHA-256,SHA3-256"


def run(binary: str, db: Path) -> dict:
    bench = [binary, "bench", "--native", "--algorithms", ALGORITHMS,
             "--min-iterations", "10", "--min-time-ms", "1000", "--db", str(db)]
    run_id = subprocess.run(bench, check=True, capture_output=True, text=True).stdout.strip()
    export = [binary, "export", "--run", run_id, "--format", "json", "--db", str(db)]
    out = json.loads(subprocess.run(export, check=True, capture_output=True, text=True).stdout)
    rows = {}
    for r in out["results"]:
        if r["status"] != "ok":
            sys.exit(f"{binary}: {r['algorithm']} {r['operation']} is {r['status']}")
        rows[(r["algorithm"], r["operation"])] = (r["median_ms"] * 1e3, r.get("note"))
    return rows


def main() -> None:
    before, after = sys.argv[1], sys.argv[2]
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    figures = {"before": [], "after": []}
    with tempfile.TemporaryDirectory() as tmp:
        for n in range(rounds):
            for name, binary in (("before", before), ("after", after)):
                figures[name].append(run(binary, Path(tmp) / f"{name}.db"))
            print(f"round {n + 1} of {rounds} done", file=sys.stderr)
    print("| algorithm | operation | median µs, each call timed | median µs, batched | change | spread before / after | batched in |")
    print("|---|---|--:|--:|--:|--:|---|")
    for key in figures["after"][0]:
        b = [r[key][0] for r in figures["before"]]
        a = [r[key][0] for r in figures["after"]]
        sizes = sorted({int(n.split("means of ")[1].split("-call")[0])
                        for n in (r[key][1] for r in figures["after"]) if n and "means of" in n})
        batched = sum(1 for r in figures["after"] if r[key][1] and "means of" in r[key][1])
        note = (f"{batched} of {rounds} rounds, {'/'.join(map(str, sizes))} calls"
                if batched else "never: each call timed")
        mb, ma = statistics.median(b), statistics.median(a)
        spread = lambda xs: max(xs) / min(xs) - 1
        print(f"| {key[0]} | {key[1]} | {mb:.3f} | {ma:.3f} | {ma / mb - 1:+.1%} | "
              f"{spread(b):.0%} / {spread(a):.0%} | {note} |")


if __name__ == "__main__":
    main()
