"""``guomi bench``: how fast guomi is here, side by side with the other SM libraries that
happen to be installed.

Method (see docs/performance.md): for every operation, each library's output is first
checked byte for byte against guomi's (or cross-verified, for randomized operations);
a library whose output differs is marked and left out of the ratios. Then the libraries
are timed *alternately* in one process: each repeat runs every library's calibrated loop
once, so machine drift hits all of them alike. Reported: the median time per call over
the repeats, MB/s for bulk data, and speed-up ratios (peer time / guomi time).
"""

from __future__ import annotations

import argparse
import importlib
import json
import platform
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Optional

import guomi

__all__ = ["Impl", "Op", "build_parser", "main", "pattern", "run", "size_name", "try_import"]


@dataclass
class Impl:
    """One library's way of doing an operation."""

    lib: str
    call: Callable[[], Any]
    #: Turns the call's result into bytes comparable with guomi's (None: compare as is).
    normalize: Optional[Callable[[Any], Any]] = None
    #: For randomized outputs: checks the result some other way (True = agrees).
    verify: Optional[Callable[[Any], bool]] = None


@dataclass
class Op:
    """An operation timed across libraries; ``size`` in bytes for bulk data."""

    group: str
    name: str
    size: Optional[int]
    impls: list[Impl] = field(default_factory=list)


@dataclass
class Result:
    op: Op
    median: dict[str, float]
    worst: dict[str, float]
    mismatch: list[str]


# -- operation registry ------------------------------------------------------------------


def pattern(n: int) -> bytes:
    """Deterministic input: byte i = i & 0xff."""
    return bytes(i & 0xFF for i in range(n))


def size_name(n: int) -> str:
    if n >= 1 << 20 and n % (1 << 20) == 0:
        return f"{n >> 20} MiB"
    if n >= 1024 and n % 1024 == 0:
        return f"{n >> 10} KiB"
    return f"{n} B"


def try_import(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except Exception:  # noqa: BLE001 - any failure means "not available"
        return None


#: Operation sets, one module per algorithm family (guomi/bench/<name>.py), each with
#: ``ops(compare: bool) -> list[Op]``. A family whose module is missing is skipped.
FAMILIES = ("sm3", "sm4", "zuc", "sm2", "sm9", "tls")


def collect_ops(compare: bool) -> list[Op]:
    ops: list[Op] = []
    for family in FAMILIES:
        mod = try_import(f"guomi.bench.{family}")
        if mod is not None:
            ops.extend(mod.ops(compare))
    return ops


# -- measurement -------------------------------------------------------------------------


def _calibrate(call: Callable[[], Any], target: float) -> int:
    """Loop count so that one timed loop lasts about ``target`` seconds."""
    n = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(n):
            call()
        dt = time.perf_counter() - t0
        if dt >= target / 4 or n >= 1 << 24:
            return max(1, int(n * target / max(dt, 1e-9)))
        n *= 4


def _agrees(reference: Any, impl: Impl, out: Any) -> bool:
    if impl.verify is not None:
        return impl.verify(out)
    if impl.normalize is not None:
        out = impl.normalize(out)
    return bool(out == reference)


def measure(op: Op, repeats: int, target: float) -> Result:
    """Checks outputs against guomi's, then times every agreeing library alternately."""
    reference = op.impls[0].call()
    usable: list[Impl] = [op.impls[0]]
    mismatch: list[str] = []
    first_call: dict[str, float] = {}
    for impl in op.impls[1:]:
        t0 = time.perf_counter()
        try:
            out = impl.call()
        except Exception:  # noqa: BLE001 - a peer that fails is reported, not fatal
            mismatch.append(impl.lib)
            continue
        first_call[impl.lib] = time.perf_counter() - t0
        if _agrees(reference, impl, out):
            usable.append(impl)
        else:
            mismatch.append(impl.lib)
    # A library slower than a few loops' worth per call (pure Python on big inputs) is
    # timed one call at a time, and at most 3 times.
    slow = {lib for lib, t in first_call.items() if t > 2 * target}
    loops = {impl.lib: 1 if impl.lib in slow else _calibrate(impl.call, target) for impl in usable}
    samples: dict[str, list[float]] = {impl.lib: [] for impl in usable}
    for r in range(repeats):
        for impl in usable:
            if impl.lib in slow and r >= 3:
                continue
            n = loops[impl.lib]
            call = impl.call
            t0 = time.perf_counter()
            for _ in range(n):
                call()
            samples[impl.lib].append((time.perf_counter() - t0) / n)
    median = {lib: statistics.median(s) for lib, s in samples.items()}
    worst = {lib: max(s) for lib, s in samples.items()}
    return Result(op, median, worst, mismatch)


# -- reporting ---------------------------------------------------------------------------


def _fmt_time(t: float) -> str:
    if t < 1e-6:
        return f"{t * 1e9:.0f} ns"
    if t < 1e-3:
        return f"{t * 1e6:.2f} µs"
    if t < 1:
        return f"{t * 1e3:.2f} ms"
    return f"{t:.2f} s"


def _fmt_cell(t: float, size: Optional[int]) -> str:
    cell = _fmt_time(t)
    if size is not None and size >= 1024:
        rate = size / t / 1e6
        cell += f" ({rate:,.0f} MB/s)" if rate >= 10 else f" ({rate:.2f} MB/s)"
    return cell


def environment() -> dict[str, str]:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {
        "guomi": guomi.__version__,
        "backend": guomi.active_backend(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpu": cpu,
    }


def to_markdown(results: list[Result], env: dict[str, str]) -> str:
    libs: list[str] = []
    for r in results:
        for lib in [*r.median, *r.mismatch]:
            if lib not in libs:
                libs.append(lib)
    lines = [
        "| operation | " + " | ".join(libs) + " |",
        "|---|" + "---|" * len(libs),
    ]
    for r in results:
        cells = []
        for lib in libs:
            if lib in r.median:
                cells.append(_fmt_cell(r.median[lib], r.op.size))
            elif lib in r.mismatch:
                cells.append("✗ differs")
            else:
                cells.append("—")
        lines.append(f"| {r.op.name} | " + " | ".join(cells) + " |")
    ratio_libs = [lib for lib in libs if lib != "guomi"]
    if ratio_libs:
        lines += [
            "",
            "Speed-up of guomi (peer median / guomi median; > 1 means guomi is faster):",
            "",
            "| operation | " + " | ".join(ratio_libs) + " |",
            "|---|" + "---|" * len(ratio_libs),
        ]
        for r in results:
            g = r.median["guomi"]
            cells = [f"{r.median[lib] / g:,.2f}x" if lib in r.median else "—" for lib in ratio_libs]
            lines.append(f"| {r.op.name} | " + " | ".join(cells) + " |")
    env_line = ", ".join(f"{k} {v}" for k, v in env.items())
    return "\n".join(lines) + f"\n\nEnvironment: {env_line}.\n"


def run(
    *,
    compare: bool = False,
    select: Optional[str] = None,
    repeats: int = 7,
    target: float = 0.05,
    out: Callable[[str], None] = print,
) -> list[Result]:
    """Runs the benchmark and returns the results (printing one line per operation)."""
    results = []
    for op in collect_ops(compare):
        if select and select.lower() not in op.name.lower():
            continue
        r = measure(op, repeats, target)
        cells = "  ".join(f"{lib}: {_fmt_cell(t, op.size)}" for lib, t in r.median.items())
        note = f"  (output differs: {', '.join(r.mismatch)})" if r.mismatch else ""
        out(f"{op.name:<34} {cells}{note}")
        results.append(r)
    return results


def build_parser() -> argparse.ArgumentParser:
    """The ``guomi bench`` argument parser (also rendered in the CLI reference)."""
    p = argparse.ArgumentParser(prog="guomi bench", description=__doc__.split("\n\n")[0])
    p.add_argument("--compare", action="store_true", help="also time the other installed SM libraries")
    p.add_argument("--select", metavar="TEXT", help="only operations whose name contains TEXT")
    p.add_argument("--repeats", type=int, default=7, help="timed repeats per library (default 7)")
    p.add_argument("--target", type=float, default=0.05, help="seconds per timed loop (default 0.05)")
    p.add_argument("--quick", action="store_true", help="3 repeats of 0.02 s (a fast look)")
    p.add_argument("--backend", help="force a backend (portable, avx2, avx512)")
    p.add_argument("--markdown", metavar="FILE", help="write the table as Markdown to FILE")
    p.add_argument("--json", metavar="FILE", help="write raw medians as JSON to FILE")
    return p


def main(argv: Optional[list[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    if args.backend:
        guomi.force_backend(args.backend)
    if args.quick:
        args.repeats, args.target = 3, 0.02
    env = environment()
    print("guomi bench: " + ", ".join(f"{k} {v}" for k, v in env.items()))
    results = run(compare=args.compare, select=args.select, repeats=args.repeats, target=args.target)
    table = to_markdown(results, env)
    print()
    print(table)
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as f:
            f.write(table)
    if args.json:
        data = [
            {
                "op": r.op.name,
                "size": r.op.size,
                "median_s": r.median,
                "worst_s": r.worst,
                "mismatch": r.mismatch,
            }
            for r in results
        ]
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"environment": env, "results": data}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
