"""Benchmark helper (not a test): the jitted step of one fixture under real JAX.

Usage: python scripts/bench_jax_step.py FIXTURE.py STEP_NAME
Runs the fixture (its output discarded) with jax.jit wrapped so that the first call of the function
named STEP_NAME records its arguments; then prints one JSON line: the collectives in XLA's compiled
HLO for that step (all-reduce, all-gather, reduce-scatter, all-to-all, collective-permute), the
number of fusions, and the median steady-state time of one step call (block_until_ready), in seconds.
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
    os.chdir(os.path.dirname(path))
    sys.argv = [path]
    import jax

    if not hasattr(jax, "tree_map"):
        jax.tree_map = jax.tree.map  # type: ignore[attr-defined]
    seen = {}
    real_jit = jax.jit

    def jit(fn=None, **kw):
        if fn is None:
            return lambda f: jit(f, **kw)
        jitted = real_jit(fn, **kw)
        if getattr(fn, "__name__", "") != name:
            return jitted

        def call(*args, **kwargs):
            seen.setdefault("call", (jitted, args, kwargs))
            return jitted(*args, **kwargs)

        return call

    jax.jit = jit
    with contextlib.redirect_stdout(io.StringIO()):
        runpy.run_path(path, run_name="__main__")
    jitted, args, kwargs = seen["call"]
    hlo = jitted.lower(*args, **kwargs).compile().as_text()
    # a tuple type prints /*index=5*/ comments, whose "=" the pattern below must not see
    hlo = re.sub(r"/\*.*?\*/", "", hlo)
    ops = ["all-reduce", "all-gather", "reduce-scatter", "all-to-all", "collective-permute"]
    collectives = {op: len(re.findall(rf"= [^=]*? {op}(?:-start)?\(", hlo)) for op in ops}
    fusions = len(re.findall(r"^\s*\S+ = \S+ fusion\(", hlo, re.M))
    jax.block_until_ready(jitted(*args, **kwargs))
    times = []
    for _ in range(7):
        t0 = time.perf_counter()
        for _ in range(20):
            out = jitted(*args, **kwargs)
        jax.block_until_ready(out)
        times.append((time.perf_counter() - t0) / 20)
    times.sort()
    print(json.dumps({"collectives": {k: v for k, v in collectives.items() if v}, "fusions": fusions, "step_s": times[len(times) // 2]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
