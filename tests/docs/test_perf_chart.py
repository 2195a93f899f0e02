"""The performance chart: benches/compare.py --json output and scripts/perf-chart.py."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

from guomi import bench

ROOT = Path(__file__).resolve().parent.parent.parent


def _load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


chart = _load("perf_chart", ROOT / "scripts" / "perf-chart.py")
compare = _load("bench_compare", ROOT / "benches" / "compare.py")

DATA = {
    "environment": {"guomi": "0.1.0", "backend": "avx2", "cpu": "test"},
    "results": [
        {"op": "SM3 32 B", "median_s": {"guomi": 1e-6, "hashlib": 3e-6, "gmssl": 1e-3}},
        {"op": "SM4-CBC 1 KiB", "median_s": {"guomi": 4e-6, "gmssl-pyx": 1e-6}},
        {"op": "verify_many", "median_s": {"guomi": 1e-3, "guomi 1 thread": 2e-3, "guomi loop": 3e-3}},
        {"op": "SM9 pairing", "median_s": {"guomi": 1e-3}},
    ],
}


def test_speedups_are_peer_over_guomi_and_skip_guomi_variants() -> None:
    ops, peers, ratio = chart.speedups(DATA)
    assert ops == ["SM3 32 B", "SM4-CBC 1 KiB"]  # no peer: not drawn
    assert peers == ["hashlib", "gmssl", "gmssl-pyx"]
    assert ratio[("SM3 32 B", "hashlib")] == pytest.approx(3.0)
    assert ratio[("SM3 32 B", "gmssl")] == pytest.approx(1000.0)
    assert ratio[("SM4-CBC 1 KiB", "gmssl-pyx")] == pytest.approx(0.25)  # guomi slower: < 1
    assert not any(peer.startswith("guomi") for _, peer in ratio)


def test_chart_is_a_png_and_reproducible(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    a, b = tmp_path / "a.png", tmp_path / "b.png"
    chart.draw(DATA, a)
    chart.draw(DATA, b)
    assert a.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert a.read_bytes() == b.read_bytes()


def test_no_peer_at_all_is_an_error(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    with pytest.raises(SystemExit):
        chart.draw({"results": [DATA["results"][3]]}, tmp_path / "x.png")


def test_compare_json_feeds_the_chart(tmp_path: Path) -> None:
    op = bench.Op("SM3", "SM3 1 KiB", 1024)
    result = bench.Result(op, {"guomi": 2e-6, "hashlib": 5e-6}, {"guomi": 3e-6, "hashlib": 6e-6}, ["gmssl"])
    path = tmp_path / "run.json"
    compare.write_json(path, [result], {"guomi": "0.1.0"}, quick=True)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["quick"] is True and data["environment"] == {"guomi": "0.1.0"}
    assert data["results"] == [
        {
            "op": "SM3 1 KiB",
            "group": "SM3",
            "size": 1024,
            "median_s": {"guomi": 2e-6, "hashlib": 5e-6},
            "worst_s": {"guomi": 3e-6, "hashlib": 6e-6},
            "mismatch": ["gmssl"],
        }
    ]
    _, _, ratio = chart.speedups(data)
    assert ratio == {("SM3 1 KiB", "hashlib"): pytest.approx(2.5)}


def test_committed_chart_data_is_a_compare_run() -> None:
    data = json.loads((ROOT / "docs" / "_static" / "perf.json").read_text(encoding="utf-8"))
    ops, peers, _ = chart.speedups(data)
    assert data["environment"]["guomi"] and ops and peers
    assert (ROOT / "docs" / "_static" / "perf.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
