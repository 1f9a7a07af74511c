#!/usr/bin/env bash
# The long differential run of Python host semantics (npm run fuzz:py -- --count 2000 [--seed 7]):
# generates COUNT random Python host programs with scripts/fuzz_py_gen.py into fixtures/pyhost_long/
# (git-ignored; with lists appended to in loops on run-time values, --rt-lists, and ranges with run-time
# bounds, matches on run-time values, hash and math errors, --rt-more), makes their goldens with the oracle (CPython in the oracle venv), and runs them through
# jaxts on both backends with the golden test. The checked-in fixtures/pyhost/ (seed 0, 200 programs)
# run in `npm test`.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SEED=1
COUNT=2000
while [[ $# -gt 0 ]]; do
  case "$1" in
    --seed) SEED="$2"; shift 2 ;;
    --count) COUNT="$2"; shift 2 ;;
    *) echo "usage: npm run fuzz:py -- [--count N] [--seed S]" >&2; exit 2 ;;
  esac
done
OUT="$ROOT/fixtures/pyhost_long"
rm -rf "$OUT"
PY="$ROOT/.venv/oracle/bin/python"
[[ -x "$PY" ]] || PY=python3
"$PY" "$ROOT/scripts/fuzz_py_gen.py" --seed "$SEED" --count "$COUNT" --per-batch 25 --rt-lists --rt-more --rt-builtins --out "$OUT"
bash "$ROOT/scripts/oracle.sh" "$OUT"/*.py
cd "$ROOT" && npm run build --silent && npx vitest run test/golden -t pyhost_long
