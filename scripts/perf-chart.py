#!/usr/bin/env python3
"""Draws the performance page's chart from a benchmark run's JSON.

    python benches/compare.py --quick --no-write --json docs/_static/perf.json
    python scripts/perf-chart.py [docs/_static/perf.json] [-o docs/_static/perf.png]

One row per operation that at least one peer library offers, one bar per peer: the
speed-up of guomi, peer median time / guomi median time (> 1: guomi is faster), on a log
scale. Peers whose output differed from guomi's are not timed, so they have no bar;
guomi's own variants ("guomi 1 thread", "guomi loop") are not peers and are left out.
Needs matplotlib (in docs/requirements.txt).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_JSON = ROOT / "docs" / "_static" / "perf.json"
DEFAULT_PNG = ROOT / "docs" / "_static" / "perf.png"


def speedups(data: dict[str, Any]) -> tuple[list[str], list[str], dict[tuple[str, str], float]]:
    """(operations, peers, {(operation, peer): peer median / guomi median})."""
    ops: list[str] = []
    peers: list[str] = []
    ratio: dict[tuple[str, str], float] = {}
    for r in data["results"]:
        median = r["median_s"]
        guomi = median.get("guomi")
        if not guomi:
            continue
        for lib, t in median.items():
            if lib.startswith("guomi"):
                continue
            ratio[(r["op"], lib)] = t / guomi
            if r["op"] not in ops:
                ops.append(r["op"])
            if lib not in peers:
                peers.append(lib)
    return ops, peers, ratio


def draw(data: dict[str, Any], out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ops, peers, ratio = speedups(data)
    if not ops:
        raise SystemExit("no operation with both guomi and a peer in the JSON")
    bars = sum(1 for op in ops for peer in peers if (op, peer) in ratio)
    fig, ax = plt.subplots(figsize=(9, 1.6 + 0.16 * bars + 0.12 * len(ops)), dpi=100)
    colors = {peer: plt.get_cmap("tab10")(j % 10) for j, peer in enumerate(peers)}
    labelled: set[str] = set()
    for i, op in enumerate(ops):
        present = [peer for peer in peers if (op, peer) in ratio]
        height = 0.84 / len(present)
        for j, peer in enumerate(present):
            y = i + (j - (len(present) - 1) / 2) * height
            x = ratio[(op, peer)]
            # Bars grow from 1 (equal speed): right when guomi is faster, left when slower.
            ax.barh(
                y,
                x - 1,
                left=1,
                height=height * 0.92,
                color=colors[peer],
                label=None if peer in labelled else peer,
            )
            labelled.add(peer)
            ax.text(
                x * (1.06 if x >= 1 else 0.94),
                y,
                f"{x:,.0f}x" if x >= 10 else f"{x:.2f}x",
                va="center",
                ha="left" if x >= 1 else "right",
                fontsize=6,
            )
    ax.set_xscale("log")
    ax.axvline(1.0, color="black", linewidth=1)
    ax.set_yticks(range(len(ops)))
    ax.set_yticklabels(ops, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("speed-up of guomi: peer median time / guomi median time (log scale; > 1 = guomi faster)")
    env = data.get("environment", {})
    title = "guomi vs other SM libraries, per operation"
    if env:
        title += f"\nguomi {env.get('guomi', '?')}, backend {env.get('backend', '?')}, {env.get('cpu', '')}"
    ax.set_title(title, fontsize=9)
    ax.grid(axis="x", which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    # No timestamp or software version in the file: the same JSON gives the same bytes.
    fig.savefig(out, metadata={"Software": None})
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("json", nargs="?", default=str(DEFAULT_JSON), help="benchmark JSON (default %(default)s)")
    p.add_argument("-o", "--out", default=str(DEFAULT_PNG), help="PNG to write (default %(default)s)")
    args = p.parse_args(argv)
    data = json.loads(Path(args.json).read_text(encoding="utf-8"))
    draw(data, Path(args.out))
    ops, peers, _ = speedups(data)
    print(f"wrote {args.out}: {len(ops)} operations, peers {', '.join(peers)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
