"""Benchmark helper for scripts/bench.mjs (not a test): one fixture's step function under real JAX.

Usage: python scripts/bench-jax-step.py FIXTURE.py STEP_NAME [REPS] [ROUNDS]

Like scripts/bench_jax_step.py, but wraps jax.pmap as well as jax.jit (the pmap trainers of the
seed lessons), so that the first call of the function named STEP_NAME records its arguments. The
fixture runs once (output discarded, its wall time recorded); then the step is lowered and compiled
for those arguments, and its steady-state time is measured by replaying it: ROUNDS rounds of REPS
back-to-back calls ended by one block_until_ready. Prints one JSON line:
  kind (jit|pmap), fusions (fusion instructions in XLA's compiled HLO, multi-output ones included:
  for pmap, the per-device program), entry_ops (instructions of the ENTRY computation other than parameter, constant, tuple,
  get-tuple-element and bitcast: what XLA's CPU runtime executes per step), collectives, step_s
  (median seconds per step), step_min_s, step_max_s, script_s (the fixture's own run).
"""
import contextlib
import io
import json
import os
import re
import runpy
import sys
import time


def main() -> int:
    path, name = os.path.abspath(sys.argv[1]), sys.argv[2]
    reps = int(sys.argv[3]) if len(sys.argv) > 3 else 20
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 7
    os.chdir(os.path.dirname(path))
    sys.argv = [path]
    sys.path.insert(0, os.path.dirname(path))
    import jax

    if not hasattr(jax, "tree_map"):
        jax.tree_map = jax.tree.map  # type: ignore[attr-defined]
    seen = {}

    def wrap(real, kind):
        def transform(fn=None, *a, **kw):
            if fn is None:
                return lambda f: transform(f, *a, **kw)
            compiled = real(fn, *a, **kw)
            if getattr(fn, "__name__", "") != name:
                return compiled

            def call(*args, **kwargs):
                seen.setdefault("call", (kind, compiled, args, kwargs))
                return compiled(*args, **kwargs)

            return call

        return transform

    jax.jit = wrap(jax.jit, "jit")
    jax.pmap = wrap(jax.pmap, "pmap")
    t0 = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        runpy.run_path(path, run_name="__main__")
    script_s = time.perf_counter() - t0
    if "call" not in seen:
        print(json.dumps({"error": f"no jax.jit/jax.pmap call of a function named {name}"}))
        return 1
    kind, compiled, args, kwargs = seen["call"]
    hlo = compiled.lower(*args, **kwargs).compile().as_text()
    ops = ["all-reduce", "all-gather", "reduce-scatter", "all-to-all", "collective-permute"]
    collectives = {op: len(re.findall(rf"= [^=]*? {op}(?:-start)?\(", hlo)) for op in ops}
    # an instruction: `[ROOT ]%name = TYPE op(` where TYPE may be a tuple `(f32[], f32[2]{0})`
    instr = re.compile(r"^\s*(?:ROOT )?%?\S+ = (?:\([^=]*?\)|\S+) ([a-z][a-z0-9\-]*)\(")
    fusions = sum(1 for line in hlo.splitlines() if (m := instr.match(line)) and m.group(1) == "fusion")
    entry = re.search(r"^ENTRY .*?\{\n(.*?)^\}", hlo, re.M | re.S)
    trivial = ("parameter", "constant", "tuple", "get-tuple-element", "bitcast")
    entry_ops = 0
    if entry:
        for line in entry.group(1).splitlines():
            m = instr.match(line)
            if m and m.group(1) not in trivial:
                entry_ops += 1
    jax.block_until_ready(compiled(*args, **kwargs))
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(reps):
            out = compiled(*args, **kwargs)
        jax.block_until_ready(out)
        times.append((time.perf_counter() - t0) / reps)
    times.sort()
    print(json.dumps({
        "kind": kind,
        "fusions": fusions,
        "entry_ops": entry_ops,
        "collectives": {k: v for k, v in collectives.items() if v},
        "step_s": times[len(times) // 2],
        "step_min_s": times[0],
        "step_max_s": times[-1],
        "script_s": script_s,
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
