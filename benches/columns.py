"""Benchmark of guomi.arrow (results in docs/performance.md, "Columns").

    python benches/columns.py                 # 10^6 x 100 B and 10^5 x 4 KiB, all parts
    python benches/columns.py --quick         # 10x fewer rows
    python benches/columns.py --no-spark      # skip (d)
    python benches/columns.py --no-spark --no-rss --ops sm4_gcm,sm4_gcm_decrypt

Rows per second, medians of alternating runs, after checking that the two sides agree:
(a) a Python loop calling guomi per row (column to Python objects, loop, back to Arrow);
(b) guomi.arrow on one thread; (c) on every core; (d) Spark local[2] end to end through
guomi.spark vs per-row Python UDFs (guomi, and cryptography's AESGCM for the AEAD).
Peak RSS of (b) is measured in a fresh process with the input built straight into Arrow
buffers, as the growth of the peak over the RSS with the input loaded.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import pyarrow as pa

from guomi import arrow as ga
from guomi import sm3, sm4

KEY = bytes(range(16))


def column(rows: int, size: int) -> pa.Array:
    data = os.urandom(rows * size)
    offsets = pa.array(range(0, rows * size + 1, size), pa.int32())
    return pa.Array.from_buffers(pa.binary(), rows, [None, offsets.buffers()[1], pa.py_buffer(data)])


def loop_sm3(col: pa.Array) -> pa.Array:
    return pa.array([None if v is None else sm3.hash(v) for v in col.to_pylist()], pa.binary(32))


def loop_hmac(col: pa.Array) -> pa.Array:
    return pa.array(
        [None if v is None else sm3.HMAC(b"k", v).digest() for v in col.to_pylist()], pa.binary(32)
    )


def loop_gcm(col: pa.Array) -> pa.Array:
    g = sm4.SM4GCM(KEY)
    out = []
    for v in col.to_pylist():
        if v is None:
            out.append(None)
            continue
        n = os.urandom(12)
        out.append(n + g.encrypt(n, v))
    return pa.array(out, pa.binary())


def loop_gcm_decrypt(col: pa.Array) -> pa.Array:
    g = sm4.SM4GCM(KEY)
    return pa.array([None if v is None else g.decrypt(v[:12], v[12:]) for v in col.to_pylist()], pa.binary())


OPS: dict[str, tuple[Callable[[pa.Array], pa.Array], Callable[[pa.Array, Any], pa.Array]]] = {
    "sm3": (loop_sm3, lambda c, t: ga.sm3(c, threads=t)),
    "hmac_sm3": (loop_hmac, lambda c, t: ga.hmac_sm3(b"k", c, threads=t)),
    "sm4_gcm": (loop_gcm, lambda c, t: ga.sm4_gcm_encrypt(KEY, c, threads=t)),
    "sm4_gcm_decrypt": (loop_gcm_decrypt, lambda c, t: ga.sm4_gcm_decrypt(KEY, c, threads=t)),
}
# The input an operation takes, made from the plain column (decryption: its ciphertext).
PREP: dict[str, Callable[[pa.Array], pa.Array]] = {"sm4_gcm_decrypt": lambda c: ga.sm4_gcm_encrypt(KEY, c)}


def prep(name: str, col: pa.Array) -> pa.Array:
    return PREP[name](col) if name in PREP else col


def timed(f: Callable[[], Any]) -> float:
    t = time.perf_counter()
    f()
    return time.perf_counter() - t


def check(name: str, col: pa.Array) -> None:
    loop, fast = OPS[name]
    inp = prep(name, col.slice(0, 1000))
    a, b = loop(inp), fast(inp, 0)
    if name == "sm4_gcm_decrypt":
        assert a.equals(col.slice(0, 1000)) and b.equals(col.slice(0, 1000))
    elif name == "sm4_gcm":
        assert ga.sm4_gcm_decrypt(KEY, a).equals(col.slice(0, 1000))
        assert ga.sm4_gcm_decrypt(KEY, b).equals(col.slice(0, 1000))
    else:
        assert a.equals(b), name


def bench_columns(rows: int, size: int, repeat: int, ops: list[str]) -> list[dict[str, Any]]:
    col = column(rows, size)
    results = []
    for name in ops:
        loop, fast = OPS[name]
        check(name, col)
        inp = prep(name, col)
        ta, tb, tc = [], [], []
        for _ in range(repeat):  # alternate a, b, c
            ta.append(timed(lambda loop=loop, inp=inp: loop(inp)))  # type: ignore[misc]
            tb.append(timed(lambda fast=fast, inp=inp: fast(inp, None)))  # type: ignore[misc]
            tc.append(timed(lambda fast=fast, inp=inp: fast(inp, 0)))  # type: ignore[misc]
        a, b, c = (rows / statistics.median(t) for t in (ta, tb, tc))
        results.append(
            {"op": name, "rows": rows, "size": size, "a": a, "b": b, "c": c, "b/a": b / a, "c/a": c / a}
        )
        print(
            f"{name:15s} {rows:>8d} x {size:>4d} B  (a) {a:12,.0f}  (b) {b:12,.0f} ({b / a:5.1f}x)"
            f"  (c) {c:12,.0f} ({c / a:5.1f}x) rows/s",
            flush=True,
        )
    return results


RSS_CHILD = r"""
import json, os, sys
sys.path.insert(0, os.path.dirname(sys.argv[1]))
from columns import column, prep, OPS
def rss(field):
    for line in open("/proc/self/status"):
        if line.startswith(field):
            return int(line.split()[1]) * 1024
rows, size, name = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
col = prep(name, column(rows, size))
base = rss("VmRSS:")
with open("/proc/self/clear_refs", "w") as f:  # reset the peak (VmHWM) to the current RSS
    f.write("5")
out = OPS[name][1](col, None)
peak = rss("VmHWM:")
print(json.dumps({"op": name, "input": col.nbytes, "output": out.nbytes, "base": base, "peak": peak}))
"""


def bench_rss(rows: int, size: int, ops: list[str]) -> list[dict[str, Any]]:
    res = []
    for name in ops:
        p = subprocess.run(
            [sys.executable, "-c", RSS_CHILD, os.path.abspath(__file__), str(rows), str(size), name],
            capture_output=True,
            text=True,
            check=True,
        )
        r = json.loads(p.stdout)
        r["growth/input"] = (r["peak"] - r["base"]) / r["input"]
        print(
            f"RSS {name:15s} input {r['input'] / 2**20:7.1f} MiB  output {r['output'] / 2**20:7.1f} MiB"
            f"  peak growth {(r['peak'] - r['base']) / 2**20:7.1f} MiB ({r['growth/input']:.2f}x input)",
            flush=True,
        )
        res.append(r)
    return res


def bench_spark(rows: int, size: int, repeat: int) -> list[dict[str, Any]]:
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F
    from pyspark.sql.types import BinaryType

    import guomi.spark as gs

    spark = (
        SparkSession.builder.master("local[2]")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.memory", "4g")
        .getOrCreate()
    )
    df = spark.range(rows, numPartitions=2).select(
        F.expr(f"unhex(repeat(lpad(hex(id), 8, '0'), {size // 4}))").alias("v")
    )
    df = df.cache()
    df.count()

    def udf_sm3(v: bytes) -> bytes:
        from guomi import sm3 as s

        return s.hash(v)

    def udf_hmac(v: bytes) -> bytes:
        from guomi import sm3 as s

        return s.HMAC(b"k", v).digest()

    def udf_gcm(v: bytes) -> bytes:
        import os as o

        from guomi import sm4 as s

        n = o.urandom(12)
        return n + s.SM4GCM(bytes(range(16))).encrypt(n, v)

    def udf_aesgcm(v: bytes) -> bytes:
        import os as o

        from cryptography.hazmat.primitives.ciphers.aead import AESGCM

        n = o.urandom(12)
        return n + AESGCM(bytes(range(16))).encrypt(n, v, None)

    def run(frame: Any) -> None:
        frame.write.format("noop").mode("overwrite").save()

    cases = {
        "sm3": (
            lambda: gs.hash_column(df, "v", output="o"),
            lambda: df.select(F.udf(udf_sm3, BinaryType())("v").alias("o")),
        ),
        "hmac_sm3": (
            lambda: gs.hmac_column(df, "v", key=b"k", output="o"),
            lambda: df.select(F.udf(udf_hmac, BinaryType())("v").alias("o")),
        ),
        "sm4_gcm": (
            lambda: gs.encrypt_column(df, "v", key=KEY, output="o"),
            lambda: df.select(F.udf(udf_gcm, BinaryType())("v").alias("o")),
        ),
    }
    res = []
    # Spark's own ceiling for a column returned through Python: an Arrow UDF that hands back
    # its input (what any Python-side column function costs at least, end to end).
    identity = None
    if hasattr(F, "arrow_udf"):
        from pyspark.sql.pandas.functions import ArrowUDFType

        identity = F.arrow_udf(lambda v: v, BinaryType(), ArrowUDFType.SCALAR)
    if identity is not None:
        run(df.select(identity("v").alias("o")))
        ti = [timed(lambda: run(df.select(identity("v").alias("o")))) for _ in range(repeat)]
        ceiling = rows / statistics.median(ti)
        print(f"spark ceiling (identity Arrow UDF) {ceiling:10,.0f} rows/s", flush=True)
        res.append({"op": "identity", "rows": rows, "size": size, "arrow_udf": ceiling})
    for name, (fast, slow) in cases.items():
        run(fast())  # warm-up: Python workers started, code paths loaded
        run(slow())
        tf, ts, tx = [], [], []
        for _ in range(repeat):
            tf.append(timed(lambda fast=fast: run(fast())))  # type: ignore[misc]
            ts.append(timed(lambda slow=slow: run(slow())))  # type: ignore[misc]
            if name == "sm4_gcm":
                tx.append(timed(lambda: run(df.select(F.udf(udf_aesgcm, BinaryType())("v").alias("o")))))
        f, s = rows / statistics.median(tf), rows / statistics.median(ts)
        r = {"op": name, "rows": rows, "size": size, "guomi.spark": f, "udf": s, "ratio": f / s}
        line = f"spark {name:9s} guomi.spark {f:10,.0f}  per-row udf {s:10,.0f} ({f / s:4.1f}x)"
        if tx:
            x = rows / statistics.median(tx)
            r["aesgcm_udf"] = x
            line += f"  AESGCM udf {x:10,.0f} ({f / x:4.1f}x)"
        print(line + " rows/s", flush=True)
        res.append(r)
    spark.stop()
    return res


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--no-spark", action="store_true")
    ap.add_argument("--only-spark", action="store_true")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--ops", default=",".join(OPS), help="comma-separated subset of " + ", ".join(OPS))
    ap.add_argument("--no-rss", action="store_true")
    ap.add_argument("--json")
    args = ap.parse_args()
    div = 10 if args.quick else 1
    print(f"cpus: {os.cpu_count()}", flush=True)
    ops = args.ops.split(",")
    if unknown := set(ops) - set(OPS):
        ap.error(f"unknown --ops: {', '.join(sorted(unknown))}")
    out: dict[str, Any] = {"columns": [], "rss": [], "spark": []}
    if not args.only_spark:
        out["columns"] += bench_columns(1_000_000 // div, 100, args.repeat, ops)
        out["columns"] += bench_columns(100_000 // div, 4096, args.repeat, ops)
        if not args.no_rss:
            out["rss"] = bench_rss(1_000_000 // div, 100, ops)
    if not args.no_spark:
        out["spark"] = bench_spark(1_000_000 // div, 100, args.repeat)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
