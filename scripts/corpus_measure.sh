#!/usr/bin/env bash
# Measures a corpus of programs (a folder of .py files, e.g. from scripts/tutorial_corpus.py):
# runs each under real JAX once (cached in DIR/.oracle/) and under `jaxts run`, compares stdout,
# and prints one line per program plus the count that match. Not a test: a figure for notes.
#
#   bash scripts/corpus_measure.sh DIR [NAME.py ...]     # JAXTS_TIMEOUT=120 (seconds per program)
#
# A program "matches" when jaxts's stdout equals JAX's and both exit 0, or both exit non-zero with
# the same stdout (a page that ends at an error JAX raises too). FAIL lines show the first line
# that differs (or the last stderr line of jaxts).
#
# The oracle venv has no matplotlib, so a page that plots stops there under JAX (and jaxts, which
# draws nothing, goes on): to measure such pages past their plots, give the oracle a matplotlib of
# its own, e.g. `.venv/oracle/bin/python -m pip install --target DIR --no-deps matplotlib contourpy
# cycler fonttools kiwisolver packaging pillow pyparsing python-dateutil six` (not numpy: the venv's) and then
# `PYTHONPATH=DIR MPLBACKEND=Agg bash scripts/corpus_measure.sh ...` (a fresh corpus folder: the
# oracle's outputs are cached).
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIR="$(cd "${1:?usage: corpus_measure.sh DIR [NAME.py ...]}" && pwd)"
shift
TIMEOUT="${JAXTS_TIMEOUT:-120}"
mkdir -p "$DIR/.oracle" "$DIR/.jaxts"
bash "$ROOT/scripts/oracle.sh" /dev/null 2>/dev/null || true   # creates the oracle venv if missing

declare -a files=()
if [[ $# -gt 0 ]]; then
  for f in "$@"; do files+=("$DIR/$(basename "$f")"); done
else
  while IFS= read -r -d '' f; do files+=("$f"); done < <(find "$DIR" -maxdepth 1 -name '*.py' -print0 | sort -z)
fi

pass=0
n=0
for f in "${files[@]}"; do
  name="$(basename "$f" .py)"
  o="$DIR/.oracle/$name"
  if [[ ! -f "$o.rc" || "$o.rc" -ot "$f" ]]; then
    (
      cd "$DIR" || exit 1
      JAX_PLATFORMS=cpu XLA_FLAGS=--xla_force_host_platform_device_count=4 PYTHONHASHSEED=0 \
        TF_CPP_MIN_LOG_LEVEL=1 timeout 600 "$ROOT/.venv/oracle/bin/python" "$ROOT/scripts/oracle_run.py" "$f" \
        > "$o.out" 2> "$o.err"
      echo $? > "$o.rc"
    )
  fi
  j="$DIR/.jaxts/$name"
  start=$(date +%s)
  (cd "$DIR" && timeout "$TIMEOUT" node "$ROOT/bin/jaxts.js" run "$f" > "$j.out" 2> "$j.err"; echo $? > "$j.rc")
  secs=$(( $(date +%s) - start ))
  orc=$(cat "$o.rc")
  jrc=$(cat "$j.rc")
  n=$((n + 1))
  if cmp -s "$o.out" "$j.out" && { [[ "$orc" == 0 && "$jrc" == 0 ]] || [[ "$orc" != 0 && "$jrc" != 0 ]]; }; then
    pass=$((pass + 1))
    printf 'PASS %-40s %4ss\n' "$name" "$secs"
  else
    why="$(diff <(cat "$o.out") <(cat "$j.out") | grep -m1 '^[<>]' | cut -c1-110)"
    [[ "$jrc" == 124 ]] && why="timeout after ${TIMEOUT}s"
    [[ -z "$why" || "$jrc" != 0 ]] && [[ "$jrc" != 124 ]] && why="rc $jrc: $(grep -m1 'error' "$j.err" | cut -c1-110)"
    printf 'FAIL %-40s %4ss  jax rc %s  %s\n' "$name" "$secs" "$orc" "$why"
  fi
done
echo "corpus $(basename "$DIR"): $pass of $n match"
