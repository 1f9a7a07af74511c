"""Writes docs/API.md: every public name of the pinned JAX's modules, and whether jaxts supports it.

Run with the oracle's Python (real JAX), after `npm run build`:

    .venv/oracle/bin/python scripts/api_coverage.py

JAX's names come from `dir()` of each module (names without a leading underscore),
each classified by what it is in JAX (function, dtype, class, constant, submodule);
the coverage figure that counts is the functions'. A few functions are excluded from
it, each with its reason in EXCLUDED (behaviour that exists only for complex or float64
values, which jaxts does not have); they stay in the table, marked. jaxts's names come
from its own module tables (`apiSurface()` in src/lower/api_surface.ts,
read through dist/index.js). test/docs/api_doc.test.ts checks that the file
agrees with the tables. The edge-test columns come from the table of scripts/api_edge_gen.py (the
fixtures/api_edge/ batches compared with real JAX): how many supported functions have edge cases there,
and for each name its number of cases or the reason it has none.
"""
import importlib
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def jaxts_surface():
    index = os.environ.get("JAXTS_INDEX", "./dist/index.js")
    code = f"import('{index}').then((m) => console.log(JSON.stringify({{ modules: m.API_MODULES, names: m.apiSurface() }})))"
    out = subprocess.run(["node", "-e", code], cwd=ROOT, check=True, capture_output=True, text=True).stdout
    return json.loads(out)


# Functions whose every result is complex (or float64): not counted in the function figure.
EXCLUDED = {
    ("jax.numpy", "sort_complex"): "complex-only: the result is always a complex array",
    ("jax.numpy", "roots"): "complex-only: the roots are computed and returned as complex numbers (eigenvalues of the companion matrix)",
    ("jax.lax", "complex"): "complex-only: builds a complex array from its real and imaginary parts",
    ("jax.lax", "conj"): "complex-only: the result is complex even for a real operand",
    ("jax.lax", "real"): "complex-only: JAX accepts complex operands only",
    ("jax.lax", "imag"): "complex-only: JAX accepts complex operands only",
    ("jax.scipy.special", "wofz"): "complex-only: the Faddeeva function of a complex argument",
    ("jax.scipy.linalg", "dft"): "complex-only: the DFT matrix is complex",
    ("jax.scipy.linalg", "rsf2csf"): "complex-only: converts a real Schur form to the complex Schur form",
}


def kind_of(value):
    """What a public name is in JAX: a submodule, a dtype (scalar type), a class, a function or a constant."""
    import types

    import numpy as np

    if isinstance(value, types.ModuleType):
        return "submodule"
    if type(value).__name__ == "_ScalarMeta" or (isinstance(value, type) and issubclass(value, np.generic)):
        return "dtype"
    if isinstance(value, type):
        return "class"
    if callable(value):
        return "function"
    return "constant"


def jax_names(module):
    mod = importlib.import_module(module)
    return [(n, kind_of(getattr(mod, n))) for n in sorted(n for n in dir(mod) if not n.startswith("_"))]


def edge_table():
    """{module: {name: number of edge cases}} and {(module, name): why it has none} (NO_EDGE_TEST, or the reason its
    cases are excluded, EXCLUDED_CASES), from scripts/api_edge_gen.py."""
    sys.path.insert(0, os.path.join(ROOT, "scripts"))
    import api_edge_gen

    counts = {}
    for batch in api_edge_gen.cases().values():
        for module, name, _, _ in batch:
            m = counts.setdefault(module, {})
            m[name.split(".")[0]] = m.get(name.split(".")[0], 0) + 1
    no_edge = dict(api_edge_gen.NO_EDGE_TEST)
    for (module, name, suffix), reason in api_edge_gen.EXCLUDED_CASES.items():
        no_edge.setdefault((module, name.split(".")[0]), f"its cases are left out: {suffix}: {reason}")
    return counts, no_edge


def main():
    import jax

    surface = jaxts_surface()
    rows = []
    sections = []
    edge_counts, no_edge = edge_table()
    for module in surface["modules"]:
        names = jax_names(module)
        have = set(surface["names"][module])
        supported = [n for n, _ in names if n in have]
        fns = [n for n, k in names if k == "function" and (module, n) not in EXCLUDED]
        fns_yes = [n for n in fns if n in have]
        edge = edge_counts.get(module, {})
        fns_edge = [n for n in fns_yes if n in edge]
        edge_cases = sum(edge.get(n, 0) for n, _ in names if n in have)
        rows.append((module, len(fns_yes), len(fns), len(supported), len(names), len(fns_edge), edge_cases))
        lines = [f"## {module}", "", "| name | kind | jaxts | note |", "|---|---|---|---|"]
        for n, k in names:
            note = f"excluded ({EXCLUDED[(module, n)]})" if (module, n) in EXCLUDED else ""
            if n in have and n in edge:
                note = f"{note}; {edge[n]} edge cases" if note else f"{edge[n]} edge cases"
            elif n in have and (module, n) in no_edge:
                note = f"{note}; no edge test ({no_edge[(module, n)]})" if note else f"no edge test ({no_edge[(module, n)]})"
            lines.append(f"| `{n}` | {k} | {'yes' if n in have else 'no'} | {note} |")
        sections.append("\n".join(lines))
    head = [
        "# JAX API coverage",
        "",
        f"Generated by `scripts/api_coverage.py` from JAX {jax.__version__} and jaxts's own module tables",
        "(`src/lower/api_surface.ts`); do not edit by hand. A name is supported when a program can use it;",
        "names whose only behaviour is a `NotImplementedError` count as not supported.",
        "Each name is classified by what it is in JAX (function, dtype, class, constant, submodule); the",
        "function figure counts the functions, less those excluded because their only behaviour is complex or",
        "float64 (the reason is in the name's row); the next columns count every public name. The last two columns",
        "count the supported functions that have edge-case tests against real JAX (`scripts/api_edge_gen.py`,",
        "`fixtures/api_edge/`: empty, 0-d, broadcasting, negative axes, dtypes, NaN/inf, gradients; both backends)",
        "and the cases of the module's names; each row's note gives its number of cases, or why it has none.",
        "",
        "| module | functions supported | functions | function coverage | names supported | public names | coverage | supported functions with edge tests | edge cases |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    pct = lambda s, n: f"{100 * s / n:.0f}%" if n else "-"
    head += [f"| [{m}](#{m.replace('.', '')}) | {fs} | {fn} | {pct(fs, fn)} | {s} | {n} | {pct(s, n)} | {fe} ({pct(fe, fs)}) | {ec} |" for m, fs, fn, s, n, fe, ec in rows]
    text = "\n".join(head) + "\n\n" + "\n\n".join(sections) + "\n"
    os.makedirs(os.path.join(ROOT, "docs"), exist_ok=True)
    with open(os.path.join(ROOT, "docs", "API.md"), "w", encoding="utf-8") as f:
        f.write(text)
    for m, fs, fn, s, n, fe, ec in rows:
        print(f"{m}: functions {fs}/{fn}, names {s}/{n}, edge-tested functions {fe}/{fs} ({ec} cases)", file=sys.stderr)


if __name__ == "__main__":
    main()
