#!/usr/bin/env bash
# Oracle for jaxts goldens: runs fixture programs under real JAX (CPU) and writes each one's stdout to FILE.out.
#
#   bash scripts/oracle.sh                      # every fixtures/**/*.py (fixtures/errors/ skipped)
#   bash scripts/oracle.sh fixtures/x/y.py ...  # just these
#
# Creates/refreshes the git-ignored venv .venv/oracle from scripts/oracle-requirements.txt when it is
# missing or the requirements changed (stamp: .venv/oracle/.requirements.sha256).
# Goldens (.out) are only ever produced by this script; never hand-edit them.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv/oracle"
REQS="$ROOT/scripts/oracle-requirements.txt"
STAMP="$VENV/.requirements.sha256"
RUNNER="$ROOT/scripts/oracle_run.py"
PY="${PYTHON:-python3}"

want="$(sha256sum "$REQS" | cut -d' ' -f1)"
have="$(cat "$STAMP" 2>/dev/null || true)"
if [[ ! -x "$VENV/bin/python" || "$want" != "$have" ]]; then
  echo "oracle: (re)creating $VENV from $(basename "$REQS")" >&2
  rm -rf "$VENV"
  "$PY" -m venv "$VENV"
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -r "$REQS" >&2
  echo "$want" > "$STAMP"
fi

# Collect fixtures.
declare -a files=()
if [[ $# -gt 0 ]]; then
  files=("$@")
else
  while IFS= read -r -d '' f; do files+=("$f"); done \
    < <(find "$ROOT/fixtures" -name '*.py' -not -path '*/errors/*' -print0 | sort -z)
fi
if [[ ${#files[@]} -eq 0 ]]; then
  echo "oracle: no fixtures found" >&2
  exit 0
fi

export JAX_PLATFORMS=cpu
# Default only: a program that assigns os.environ["XLA_FLAGS"] before using JAX overrides this.
export XLA_FLAGS="${ORACLE_XLA_FLAGS:---xla_force_host_platform_device_count=4}"
export PYTHONHASHSEED=0
export PYTHONIOENCODING=utf-8
export PYTHONDONTWRITEBYTECODE=1
export TF_CPP_MIN_LOG_LEVEL="${TF_CPP_MIN_LOG_LEVEL:-1}"
unset JAX_ENABLE_X64 PYTHONPATH PYTHONSTARTUP || true

fail=0
n=0
for f in "${files[@]}"; do
  abs="$(cd "$(dirname "$f")" && pwd)/$(basename "$f")"
  rel="${abs#"$ROOT"/}"
  if [[ ! -f "$abs" || "$abs" != *.py ]]; then
    echo "oracle: not a .py file: $f" >&2
    fail=1
    continue
  fi
  # Error fixtures (fixtures/errors/, or anything with a NAME.expected.json) have no golden stdout.
  if [[ "$abs" == */fixtures/errors/* || -f "${abs%.py}.expected.json" ]]; then
    echo "oracle: skip error fixture $rel" >&2
    continue
  fi
  out="${abs%.py}.out"
  tmp="$(mktemp "${out}.XXXXXX")"
  if "$VENV/bin/python" "$RUNNER" "$abs" > "$tmp"; then
    chmod 0644 "$tmp"
    mv "$tmp" "$out"
    n=$((n + 1))
  else
    rc=$?
    rm -f "$tmp"
    echo "oracle: FAILED ($rc) $rel — previous .out kept" >&2
    fail=1
  fi
done

echo "oracle: wrote $n golden(s)" >&2
exit "$fail"
