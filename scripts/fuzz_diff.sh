#!/usr/bin/env bash
# The long differential run (npm run fuzz:diff -- SEED BATCHES): generates BATCHES batches of 100 random
# programs with scripts/fuzz_gen.py into fixtures/differential_long/ (git-ignored), makes their goldens
# with the oracle (real JAX; the generator itself runs each candidate under JAX, in the oracle's venv, which
# `bash scripts/oracle.sh` creates), and runs them through jaxts on both backends with the golden test.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SEED="${1:-1}"
BATCHES="${2:-50}"
OUT="$ROOT/fixtures/differential_long"
rm -rf "$OUT"
"$ROOT/.venv/oracle/bin/python" "$ROOT/scripts/fuzz_gen.py" --seed "$SEED" --batches "$BATCHES" --per-batch 100 --out "$OUT"
bash "$ROOT/scripts/oracle.sh" "$OUT"/*.py
cd "$ROOT" && npm run build --silent && npx vitest run test/golden -t differential_long
