#!/usr/bin/env python3
"""Side-by-side benchmark of guomi and every other installed SM library, written into
docs/performance.md (between the `bench:begin` / `bench:end` markers).

    python benches/compare.py [--quick] [--select TEXT] [--no-write] [--json FILE]

Equivalent to `guomi bench --compare`, plus the rewrite of docs/performance.md. The
peers it knows (cryptography, hashlib/OpenSSL, gmssl, gmssl-pyx, gmssl-fast, tongsuopy,
gmalglib, snowland-smx) are used when importable; install them with pip to include them.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from guomi import bench

DOC = Path(__file__).resolve().parent.parent / "docs" / "performance.md"
BEGIN, END = "<!-- bench:begin -->", "<!-- bench:end -->"


def write_json(path: Path, results: list[bench.Result], env: dict[str, str], *, quick: bool) -> None:
    """The run as JSON: ``{"environment": {...}, "quick": bool, "results": [{"op", "group",
    "size", "median_s": {lib: s}, "worst_s": {lib: s}, "mismatch": [lib]}]}``, the same
    fields as ``guomi bench --json`` plus the group and the run length."""
    data = {
        "environment": env,
        "quick": quick,
        "results": [
            {
                "op": r.op.name,
                "group": r.op.group,
                "size": r.op.size,
                "median_s": r.median,
                "worst_s": r.worst,
                "mismatch": r.mismatch,
            }
            for r in results
        ],
    }
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true")
    p.add_argument("--select")
    p.add_argument("--no-write", action="store_true", help="print only; leave docs/performance.md alone")
    p.add_argument(
        "--json",
        metavar="FILE",
        help="also write the environment and every median / worst time (seconds) as JSON to FILE "
        "(what scripts/perf-chart.py draws)",
    )
    args = p.parse_args()
    repeats, target = (3, 0.02) if args.quick else (7, 0.05)
    env = bench.environment()
    print("guomi bench --compare: " + ", ".join(f"{k} {v}" for k, v in env.items()))
    results = bench.run(compare=True, select=args.select, repeats=repeats, target=target)
    table = bench.to_markdown(results, env)
    print()
    print(table)
    if args.json:
        write_json(Path(args.json), results, env, quick=args.quick)
        print(f"wrote {args.json}")
    if not args.no_write:
        text = DOC.read_text(encoding="utf-8")
        block = f"{BEGIN}\n{table}{END}"
        text, n = re.subn(re.escape(BEGIN) + r".*?" + re.escape(END), lambda _: block, text, flags=re.S)
        if n != 1:
            print(f"{DOC} has no {BEGIN} ... {END} block", file=sys.stderr)
            return 2
        DOC.write_text(text, encoding="utf-8")
        print(f"wrote {DOC}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
