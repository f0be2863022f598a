#!/usr/bin/env bash
# The README's first command on a fresh clone, timed: `cargo xtask dev` from
# an empty target folder, cargo home and npm cache, until the dashboard
# answers, then a run of ML-KEM-768 on the emulated board from the API, to
# its end. Prints the seconds of each step (BENCHMARKS.md, "The first page
# on a fresh clone"). Debian packages already installed stay installed: their
# time is not in these figures.
#
#   bench/first-page.sh [PORT]
set -euo pipefail

repo=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
port=${1:-18080}
base="http://127.0.0.1:$port"
work=$(mktemp -d /var/tmp/pqbench-first-page.XXXXXX)
git -C "$repo" worktree add --detach "$work/clone" HEAD >/dev/null

# rustup's proxies alone from ~/.cargo/bin, so that what cargo installed
# there before (wasm-bindgen) is not found and is installed afresh.
mkdir "$work/bin"
for tool in cargo rustc rustdoc rustup; do
  ln -s "$(command -v "$tool")" "$work/bin/$tool"
done
PATH="$work/bin:$(printf '%s' "$PATH" | tr ':' '\n' | grep -vx "$HOME/.cargo/bin" | paste -sd:)"
export PATH CARGO_HOME="$work/cargo-home" npm_config_cache="$work/npm-cache"
unset CARGO_TARGET_DIR

dev_pid=
cleanup() {
  [ -n "$dev_pid" ] && kill -- "-$dev_pid" 2>/dev/null || true
  sleep 1
  git -C "$repo" worktree remove --force "$work/clone" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

start=$(date +%s)
since() { echo "$(( $(date +%s) - start ))"; }
# A process group of its own, so that the cleanup stops all of it.
(cd "$work/clone" && exec setsid cargo xtask dev --listen "127.0.0.1:$port") >"$work/dev.log" 2>&1 &
dev_pid=$!

until curl -sf "$base/" -o /dev/null; do
  kill -0 "$dev_pid" 2>/dev/null || { tail -30 "$work/dev.log"; echo "cargo xtask dev stopped" >&2; exit 1; }
  sleep 1
done
page=$(since)
run=$(curl -sf -X POST -H 'content-type: application/json' \
  -d '{"board": "qemu-mps2-an386", "algorithms": ["ML-KEM-768"]}' "$base/api/runs" |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])')
while :; do
  status=$(curl -sf "$base/api/runs/$run" | python3 -c 'import json, sys; print(json.load(sys.stdin)["status"])')
  case $status in queued | running) sleep 1 ;; *) break ;; esac
done
ran=$(since)

echo "steps, seconds after the command was typed (as cargo xtask dev printed them):"
grep -E "after \`dev\` started" "$work/dev.log" | sed 's/^ */  /'
echo "  first page answered after $page s"
echo "  ML-KEM-768 run on the emulated board ended $status after $ran s"
