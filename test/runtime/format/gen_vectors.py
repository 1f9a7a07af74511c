#!/usr/bin/env python3
"""Generate test/runtime/format/vectors.json for the runtime/format suite.

Run under Python 3.11+ with numpy==2.4.6 (keep the venv outside the repo):

    python3 -m venv /tmp/fmtvenv && /tmp/fmtvenv/bin/pip install numpy==2.4.6
    /tmp/fmtvenv/bin/python test/runtime/format/gen_vectors.py

Every expected string comes from the running NumPy / CPython. JAX is not
installed here, so the JAX repr is produced by `jax_repr` below, which is a
line-for-line transcription of ArrayImpl.__repr__ from JAX 0.10.2
(jax/_src/array.py): it calls np.array2string exactly as JAX does and applies
JAX's own rule for placing 'dtype=...' (including its quirk of joining with
six spaces rather than a newline when the last line is long). JAX's str is
str(np.asarray(x)), i.e. the NumPy str, and format(x, spec) forwards to NumPy
(0-d: the NumPy scalar's __format__, which formats the Python float/int/bool).

Inputs are exact: float32 values as 8-hex-digit IEEE bits, float64 as
16-hex-digit bits, int64/uint64 as decimal strings, other ints as numbers,
bools as 0/1. Large arrays use a formula ("gen") that the TS test evaluates
with the same float64 arithmetic.
"""
import json
import math
import os
import struct
import sys

import numpy as np

assert np.__version__ == "2.4.6", np.__version__

rng = np.random.default_rng(20240607)
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "vectors.json")


# ----------------------------------------------------------------- encoding
def f32_hex(x):
    return struct.pack(">f", float(x)).hex()


def f64_hex(x):
    return struct.pack(">d", float(x)).hex()


def encode_data(a):
    flat = a.reshape(-1)
    dt = a.dtype.name
    if dt == "float32":
        return [f32_hex(v) for v in flat]
    if dt == "float64":
        return [f64_hex(v) for v in flat]
    if dt in ("int64", "uint64"):
        return [str(int(v)) for v in flat]
    if dt == "bool":
        return [1 if v else 0 for v in flat]
    return [int(v) for v in flat]


# -------------------------------------------------------------- JAX's repr
def jax_repr(value, weak_type=False):
    """ArrayImpl.__repr__ of JAX 0.10.2 for a fully addressable array."""
    prefix = "Array("
    if weak_type:
        dtype_str = f"dtype={value.dtype.name}, weak_type=True"
    else:
        dtype_str = f"dtype={value.dtype.name}"
    line_width = np.get_printoptions()["linewidth"]
    if value.size == 0:
        s = f"[], shape={value.shape}"
    else:
        s = np.array2string(value, prefix=prefix, suffix=",",
                            separator=", ", max_line_width=line_width)
    last_line_len = len(s) - s.rfind("\n") + 1
    sep = " "
    if last_line_len + len(dtype_str) + 2 > line_width:
        sep = " " * len(prefix)
    return f"{prefix}{s},{sep}{dtype_str})"


cases = []


def add_array(a, note, gen=None, options=None, weak=False, specs=()):
    a = np.asarray(a)
    case = {"kind": "array", "note": note, "dtype": a.dtype.name, "shape": list(a.shape)}
    if gen is not None:
        case["gen"] = gen
    else:
        case["data"] = encode_data(a)
    if options:
        case["options"] = options
        with np.printoptions(**options):
            case["str"] = str(a)
            case["repr"] = repr(a)
            case["jax_repr"] = jax_repr(a, weak)
    else:
        case["str"] = str(a)
        case["repr"] = repr(a)
        case["jax_repr"] = jax_repr(a, weak)
    if weak:
        case["weak_type"] = True
    fmts = []
    for spec in specs:
        fmts.append([spec] + run_format(lambda: format(a, spec)))
    if fmts:
        case["format"] = fmts
    cases.append(case)


def run_format(fn):
    try:
        return [fn()]
    except Exception as e:  # noqa: BLE001 - recording Python's error
        return [None, type(e).__name__, str(e)]


def gen_arange(n, dtype, scale=1.0, offset=0.0, shape=None):
    """values = (i * scale + offset) in float64, then cast to dtype."""
    v = np.arange(n, dtype=np.float64) * scale + offset
    a = v.astype(dtype)
    if shape is not None:
        a = a.reshape(shape)
    return a, {"fn": "arange", "scale": f64_hex(scale), "offset": f64_hex(offset)}


# ------------------------------------------------------------ float arrays
SHAPES = [(), (1,), (2,), (5,), (3, 4), (2, 3, 4), (2, 2, 2, 2), (1, 1, 5), (10,), (7, 13),
          (4, 1, 3), (6,), (2, 5), (3, 2, 2), (1, 2, 1, 2, 1)]
for dtype in ("float32", "float64"):
    for shape in SHAPES:
        a = rng.standard_normal(shape).astype(dtype)
        add_array(a, f"normal {shape}")
    for scale in (1e-12, 1e-6, 3e-5, 1e-4, 1e-3, 0.1, 10.0, 1e3, 1e5, 9e5, 1e6, 3e7, 1e8, 1e9, 1e20, 1e-30):
        for shape in ((4,), (2, 3)):
            a = (rng.standard_normal(shape) * scale).astype(dtype)
            add_array(a, f"normal*{scale} {shape}")
    # mixed magnitudes
    for shape in ((6,), (3, 3), (12,)):
        a = (rng.standard_normal(shape) * 10.0 ** rng.uniform(-8, 8, shape)).astype(dtype)
        add_array(a, f"mixed magnitudes {shape}")
        a = (rng.standard_normal(shape) * 10.0 ** rng.uniform(-2, 2, shape)).astype(dtype)
        add_array(a, f"mixed moderate {shape}")
    # integral floats
    add_array(np.arange(6, dtype=dtype), "arange")
    add_array(np.arange(12, dtype=dtype).reshape(3, 4) - 5, "arange 2d negative")
    add_array(np.round(rng.standard_normal((3, 5)) * 100).astype(dtype), "integral")
    add_array(np.array([0.0, 1.5], dtype=dtype), "[0, 1.5]")
    add_array(np.array([1.5, 2.0], dtype=dtype), "[1.5, 2]")
    add_array(np.array([11.0, 20.0, 29.0, 56.0, 65.0, 74.0], dtype=dtype).reshape(2, 3), "doc example")
    add_array(np.array([-0.0, 0.0, 1.0], dtype=dtype), "negative zero")
    add_array(np.array([-0.0], dtype=dtype), "only -0")
    add_array(np.zeros((2, 2), dtype=dtype), "zeros")
    add_array(np.array(-0.0, dtype=dtype), "0-d -0")
    # nan / inf
    add_array(np.array([np.nan, 1.0, np.inf], dtype=dtype), "nan inf")
    add_array(np.array([np.nan, -np.inf], dtype=dtype), "nan -inf only")
    add_array(np.array([np.nan], dtype=dtype), "only nan")
    add_array(np.array([np.inf, -np.inf, 0.0], dtype=dtype), "infs and zero")
    add_array(np.array([[np.nan, 1e-10], [-np.inf, 2.5]], dtype=dtype), "nan with exp")
    add_array(np.array([1.23456789, np.nan, -np.inf, 1e3], dtype=dtype), "nan padding")
    add_array(np.array(np.nan, dtype=dtype), "0-d nan")
    add_array(np.array(-np.inf, dtype=dtype), "0-d -inf")
    # thresholds
    add_array(np.array([1e-4, 2e-4], dtype=dtype), "1e-4 boundary")
    add_array(np.array([9.999e-5, 1.0e-4], dtype=dtype), "below 1e-4")
    add_array(np.array([1.0, 1000.0], dtype=dtype), "ratio exactly 1000")
    add_array(np.array([1.0, 1000.0001], dtype=dtype), "ratio just above 1000")
    add_array(np.array([1.0, 1000.00006], dtype=dtype), "float32 ratio rounding")
    add_array(np.array([999999.0, 1.0], dtype=dtype), "below 1e6")
    add_array(np.array([1e6, 1.0], dtype=dtype), "1e6")
    add_array(np.array([99999999.0, 1e7], dtype=dtype), "below 1e8")
    add_array(np.array([1e8, 1e7], dtype=dtype), "1e8")
    add_array(np.array([1e16, 1.0], dtype=dtype), "1e16")
    add_array(np.array([0.1, 0.2, 0.3], dtype=dtype), "tenths")
    add_array(np.array([1 / 3, 2 / 3, 1.0], dtype=dtype), "thirds")
    add_array(np.array([0.5, 0.25, 0.125, 0.0625, 0.03125], dtype=dtype), "powers of two")
    add_array(np.array([1e-9, 5e-9, 1.0], dtype=dtype), "tiny with one")
    add_array(np.array([123456.789, 0.001], dtype=dtype), "wide fixed")
    add_array(np.array([0.99999999, 1.00000001, 0.999999999], dtype=dtype), "rounding up")
    add_array(np.array([9.9999999e-5, 9.99999999e7], dtype=dtype), "carry in sci")
    add_array(np.float32(np.pi).astype(dtype) * np.ones(3, dtype=dtype), "pi")
    # scalars (0-d)
    for v in (-0.028304616, 0.1, 3.0, 1e-5, 1e10, 123456.7, 1e20, 0.5, -2.25, 1e-4, 7.0e-5):
        add_array(np.array(v, dtype=dtype), f"0-d {v}",
                  specs=("", ".4f", ".2e", "8.3f", "g", "+.1%", ">12", "d"))
    # wide rows that wrap
    for n in (20, 26, 30, 75, 100):
        a = rng.standard_normal(n).astype(dtype)
        add_array(a, f"wrap {n}")
    add_array(rng.standard_normal((5, 30)).astype(dtype), "wrap 2d")
    add_array(rng.standard_normal((2, 2, 25)).astype(dtype), "wrap 3d")
    add_array((rng.standard_normal(40) * 1e-7).astype(dtype), "wrap exp")
    add_array(np.arange(30, dtype=dtype) / 7, "wrap sevenths")
    # empty
    for shape in ((0,), (0, 3), (3, 0), (2, 0, 2), (1, 0)):
        add_array(np.zeros(shape, dtype=dtype), f"empty {shape}")
    # summarization (> 1000 elements)
    a, g = gen_arange(1001, dtype, 1.0)
    add_array(a, "arange 1001", gen=g)
    a, g = gen_arange(2000, dtype, 0.5, -3.0)
    add_array(a, "arange 2000 halves", gen=g)
    a, g = gen_arange(1600, dtype, 1.0, 0.0, (40, 40))
    add_array(a, "40x40", gen=g)
    a, g = gen_arange(1331, dtype, 0.1, 0.0, (11, 11, 11))
    add_array(a, "11x11x11 tenths", gen=g)
    a, g = gen_arange(1500, dtype, 1e-3, 0.0, (3, 500))
    add_array(a, "3x500", gen=g)
    a, g = gen_arange(1200, dtype, 1e5, 1.0, (2, 600))
    add_array(a, "2x600 big", gen=g)
    a, g = gen_arange(1008, dtype, 1.0 / 3.0, 0.0, (2, 7, 72))
    add_array(a, "2x7x72", gen=g)
    a, g = gen_arange(1010, dtype, 1.0, 0.0, (1010, 1))
    add_array(a, "column", gen=g)
    add_array(rng.standard_normal(1002).astype(dtype), "random 1002")
    add_array(rng.standard_normal((3, 7, 50)).astype(dtype), "random 3x7x50")

# extremes
add_array(np.array([np.finfo(np.float32).max, np.finfo(np.float32).tiny, 1e-45], dtype=np.float32), "f32 extremes")
add_array(np.array([np.finfo(np.float64).max, 5e-324, 2.2250738585072014e-308]), "f64 extremes")
add_array(np.array([1e-40, 3e-39], dtype=np.float32), "f32 subnormals")
add_array(np.array([1e300, 1e-300]), "f64 e+300")
add_array(np.array([1e100, 1.0]), "exp size 3")

# print options variations
opt_sets = [
    {"precision": 3}, {"precision": 4, "suppress": True}, {"floatmode": "fixed"},
    {"floatmode": "unique"}, {"floatmode": "maxprec_equal"}, {"sign": "+"}, {"sign": " "},
    {"linewidth": 40}, {"threshold": 10, "edgeitems": 2}, {"floatmode": "fixed", "precision": 2},
]
for opts in opt_sets:
    for dtype in ("float32", "float64"):
        add_array((rng.standard_normal((3, 4)) * 10.0 ** rng.uniform(-3, 3, (3, 4))).astype(dtype), f"opts {opts}", options=opts)
        add_array(np.array([0.5, -1.25, 3.0, np.nan], dtype=dtype), f"opts {opts} small", options=opts)
    add_array(np.arange(-5, 20, dtype=np.int64), f"opts {opts} ints", options=opts)

# ------------------------------------------------------------- int arrays
for dtype, lo, hi in (("int32", -2**31, 2**31), ("int64", -2**62, 2**62), ("uint32", 0, 2**32),
                      ("int8", -128, 128), ("uint8", 0, 256), ("int16", -2**15, 2**15)):
    for shape in ((), (5,), (3, 4), (2, 3, 4), (12,)):
        small = rng.integers(-10, 10, shape) if lo < 0 else rng.integers(0, 20, shape)
        add_array(small.astype(dtype), f"small ints {shape}")
        add_array(rng.integers(lo, hi, shape, dtype=np.int64).astype(dtype), f"full-range ints {shape}")
    add_array(np.arange(40, dtype=dtype), "wrap ints")
    add_array(np.zeros((0, 2), dtype=dtype), "empty ints")
    add_array(np.zeros((0,), dtype=dtype), "empty ints 1d")
for dtype in ("int32", "int64", "uint32"):
    a, g = gen_arange(2000, dtype, 1.0)
    add_array(a, "int arange 2000", gen=g)
    a, g = gen_arange(1024, dtype, 7.0, 0.0, (32, 32))
    add_array(a, "int 32x32", gen=g)
    a, g = gen_arange(3000, dtype, 1.0, 0.0, (10, 10, 30))
    add_array(a, "int 10x10x30", gen=g)
    add_array(np.array(3, dtype=dtype), "0-d int", specs=("", "d", "5d", "+d", "x", ".2f", ",", "e"))
add_array(np.array([2**63 - 1, -2**63], dtype=np.int64), "int64 extremes")
add_array(np.array([2**32 - 1, 0], dtype=np.uint32), "uint32 extremes")
add_array(np.array([2**64 - 1, 0], dtype=np.uint64), "uint64 extremes")
add_array(np.arange(6, dtype=np.int32).reshape(2, 3), "int32 2x3", specs=("", "d"))
add_array(np.arange(6).reshape(2, 3), "int64 2x3", specs=("", ".2f"))

# ------------------------------------------------------------ bool arrays
for shape in ((), (2,), (5,), (3, 4), (2, 2, 3), (30,)):
    add_array(rng.integers(0, 2, shape).astype(bool), f"bool {shape}")
add_array(np.array([True, False]), "[True, False]")
add_array(np.array([True, True]), "all true")
add_array(np.array([False]), "[False]")
add_array(np.array(True), "0-d True", specs=("", "d", ">6", "s"))
add_array(np.array(False), "0-d False")
add_array(np.zeros((0,), dtype=bool), "empty bool")
add_array(np.zeros((1001,), dtype=bool), "bool 1001", gen={"fn": "arange", "scale": f64_hex(0.0), "offset": f64_hex(0.0)})

# weak type
add_array(np.array(2.0, dtype=np.float32), "weak 0-d", weak=True)
add_array(np.arange(3, dtype=np.int32), "weak int", weak=True)
add_array(rng.standard_normal(16).astype(np.float32), "weak wraps", weak=True)

# ---------------------------------------------------------- numpy scalars
def add_npscalar(dtype, v):
    s = np.dtype(dtype).type(v)
    case = {"kind": "npscalar", "dtype": dtype, "data": encode_data(np.array([s]))[0],
            "str": str(s), "repr": repr(s)}
    cases.append(case)


for v in (0.60576403, 0.1, 1e-5, 1e-4, 1e10, 123456789.0, 1e16, 1e6, 999999.94, 1.0, -0.0, 0.0,
          float("nan"), float("inf"), float("-inf"), 3.4028235e38, 1e-45, 1.17549435e-38, 16777217.0, 0.3,
          2.0 / 3.0, -0.028304616, 100.0, 1234.5678, 9.999999e-5, 5e-5):
    add_npscalar("float32", v)
    add_npscalar("float64", v)
for v in (0, 3, -7, 2**31 - 1, -2**31):
    add_npscalar("int32", v)
for v in (0, 3, -7, 2**63 - 1, -2**63):
    add_npscalar("int64", v)
for v in (0, 3, 2**32 - 1):
    add_npscalar("uint32", v)
add_npscalar("bool", True)
add_npscalar("bool", False)
# random float32 bit patterns (all exponents) and float64 values
for bits in rng.integers(0, 2**32, 300, dtype=np.uint64):
    x = np.array([int(bits)], dtype=np.uint32).view(np.float32)[0]
    if np.isfinite(x):
        add_npscalar("float32", x)
for bits in rng.integers(0, 2**63, 120, dtype=np.uint64):
    x = np.array([int(bits)], dtype=np.uint64).view(np.float64)[0]
    if np.isfinite(x):
        add_npscalar("float64", x)
for x in rng.standard_normal(100).astype(np.float32):
    add_npscalar("float32", x)

# --------------------------------------------------------- python floats
def add_pyfloat(x):
    cases.append({"kind": "pyfloat", "data": f64_hex(x), "repr": repr(x), "str": str(x)})


for x in (0.1, 1e-05, 1e16, 1.0, -0.0, 0.0, float("inf"), float("-inf"), float("nan"), 123456789012345.0,
          1.2345678901234567e16, 1e22, 1e23, 5e-324, 1.7976931348623157e308, 0.0001, 0.00011, 9999999999999998.0,
          1e15, 123.456, -2.5, 2**53, 2**53 + 2, 1 / 3, 100.0, 1e-4 * 3, 0.30000000000000004):
    add_pyfloat(float(x))
for bits in rng.integers(0, 2**63, 150, dtype=np.uint64):
    x = float(np.array([int(bits)], dtype=np.uint64).view(np.float64)[0])
    if math.isfinite(x):
        add_pyfloat(x)
for x in rng.standard_normal(60) * 10.0 ** rng.integers(-8, 20, 60):
    add_pyfloat(float(x))
for x in np.arange(1, 40, dtype=np.float64) / 8:
    add_pyfloat(float(x))

# ----------------------------------------------------------- format specs
def add_format(vtype, value, spec):
    if vtype == "float":
        res = run_format(lambda: format(float(value), spec))
        enc = f64_hex(value)
    elif vtype == "int":
        res = run_format(lambda: format(int(value), spec))
        enc = str(int(value))
    elif vtype == "bool":
        res = run_format(lambda: format(bool(value), spec))
        enc = bool(value)
    elif vtype == "str":
        res = run_format(lambda: format(str(value), spec))
        enc = value
    elif vtype == "none":
        res = run_format(lambda: format(None, spec))
        enc = None
    else:
        raise ValueError(vtype)
    case = {"kind": "format", "vtype": vtype, "value": enc, "spec": spec}
    if res[0] is not None:
        case["out"] = res[0]
    else:
        case["error"] = [res[1], res[2]]
    cases.append(case)


FLOAT_SPECS = ["", ".4f", ".2f", ".0f", "f", ".1f", "10.4f", "<10.2f", "^10.2f", "=+10.2f", "*^12.3f", "+.2e", ".3e",
               "e", "E", "g", "G", ".3g", ".10g", "#g", "#.3g", ",", ",.2f", "_.3f", "012,.1f", "08.3f", "%", ".1%",
               ".0%", "n", ".3", ".1", "#.0f", "#.0e", " .3f", "z.1f", "z.0f", "+", "10", "-^9.1f", "x", "d",
               ".30g", ".20f", "F", ".2F", "E", ".25e", "015.2e", ",g", "a>8", "0=8.2f", ".5n", "#", "#.3", ".0",
               ".2", ".17", "3.", "_", ",e"]
FLOATS = [0.0, -0.0, 1.0, -1.0, 0.5, 1.5, 2.5, 0.125, 0.375, 3.14159265358979, -2.718281828, 1234567.891, 1e16, 1e-5,
          0.1, 1e22, 1e-300, 1.7976931348623157e308, 5e-324, 123456789.0, 0.000123456, 9.9999, 99.995, 0.045,
          float("inf"), float("-inf"), float("nan"), 1e100, 2.675, 1.005, -0.00001, 12.0, 100.0, 1e15, 123.0]
for spec in FLOAT_SPECS:
    for x in FLOATS:
        add_format("float", x, spec)
INT_SPECS = ["", "d", "3d", "5d", "<5d", "^7d", "=+8d", "+d", " d", "05d", "010,", ",", "_", "_x", "#_b", "b", "#b",
             "o", "#o", "x", "#x", "X", "#X", "#010x", "c", ">5c", ".2f", "e", "g", "%", ",.2f", ".2d", "z", "s",
             "n", ",x", ",c", "+c", "#c", "abc", "_,", "*<8", "0>6", "08_d", "12_b", ",d", "10.3e", "G"]
INTS = [0, 1, -1, 7, 42, -42, 255, 1000, 1234567, -1234567, 65, 2**31 - 1, -2**31, 2**63, 10**20, 0x10FFFF, 0x110000,
        10**400]
for spec in INT_SPECS:
    for v in INTS:
        add_format("int", v, spec)
BOOL_SPECS = ["", "d", ">5", "^6", ".2f", "s", "x", "05", "+d", "c"]
for spec in BOOL_SPECS:
    for v in (True, False):
        add_format("bool", v, spec)
STR_SPECS = ["", "s", ">10", "<10", "^9s", "^10", "*^9", ".2", ".2s", "10.3", "05", "=5", "+", "d", ",", "#", "z",
             "x<7", "€>6", ">1", "^8.1"]
for spec in STR_SPECS:
    for v in ("abc", "", "hello world", "héllo", "日本語", "a\u0301b"):
        add_format("str", v, spec)
for spec in ("", ">4", "s"):
    add_format("none", None, spec)

# ------------------------------------------------------------ str reprs
STRINGS = ["abc", "", "it's", 'say "hi"', "both ' and \"", "tab\there", "new\nline", "cr\r", "back\\slash",
           "\x00\x01\x1f\x7f", "\x80\x9f\xa0\xad\xff", "é日本", "\u2028\u2029\u200b\ufeff", "\U0001F600 emoji",
           "\U000E0001", "\udc80", "\ue000 private", "\u0378 unassigned", "\u3000 ideographic space", "a\u0301",
           "\U0010FFFF", "\x1b[0m", "\u00a0nbsp", "plain ascii ~!@#$%^&*()_+{}|:<>?"]
for s in STRINGS:
    cases.append({"kind": "strrepr", "value": s, "repr": repr(s)})

meta = {
    "numpy": np.__version__,
    "python": sys.version.split()[0],
    "note": "Generated by gen_vectors.py; JAX repr emulated from JAX 0.10.2 ArrayImpl.__repr__ source.",
}
with open(OUT, "w", encoding="utf-8") as fh:
    json.dump({"meta": meta, "cases": cases}, fh, ensure_ascii=True, separators=(",", ":"))
    fh.write("\n")
print(f"wrote {len(cases)} cases, {os.path.getsize(OUT)} bytes to {OUT}")
