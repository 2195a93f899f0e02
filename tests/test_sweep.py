"""Bad-input sweep over the whole public Python API (see tests/sweep_worker.py).

Each module is swept in its own interpreter, so that an abort or a segfault is seen as a
failed test naming the call that caused it, instead of killing pytest.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

WORKER = Path(__file__).with_name("sweep_worker.py")
MODULES = [
    "guomi",
    "guomi.sm2",
    "guomi.sm3",
    "guomi.sm4",
    "guomi.sm9",
    "guomi.zuc",
    "guomi.x509",
    "guomi.envelope",
    "guomi.keys",
    "guomi.tls",
    "guomi.arrow",
    "guomi.dask",
    "guomi.spark",
]
# The column modules' optional dependencies (the sweep is skipped without them).
NEEDS = {
    "guomi.arrow": ["pyarrow"],
    "guomi.dask": ["pyarrow", "dask.dataframe"],
    "guomi.spark": ["pyarrow", "pyspark"],
}


@pytest.mark.parametrize("module", MODULES)
def test_sweep(module: str, tmp_path: Path) -> None:
    for dep in NEEDS.get(module, []):
        pytest.importorskip(dep, reason=f"{module} needs {dep}")
    report = tmp_path / "report.json"
    proc = subprocess.run(
        [sys.executable, str(WORKER), module, str(report)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    current = Path(str(report) + ".current")
    last = current.read_text() if current.exists() else "(none)"
    assert proc.returncode == 0, f"worker died ({proc.returncode}) during {last}\n{proc.stderr[-3000:]}"
    result = json.loads(report.read_text())
    assert result["calls"] > 30
    assert not result["unswept"], f"callables without a signature: {result['unswept']}"
    failures = "\n".join(f"{f['call']}: {f['error']}" for f in result["failures"][:40])
    assert not result["failures"], f"{len(result['failures'])} bad outcomes:\n{failures}"


def test_sweep_catches_a_panic(tmp_path: Path) -> None:
    """The sweep itself works: a BaseException that is not an Exception is reported."""
    sys.path.insert(0, str(WORKER.parent))
    try:
        import sweep_worker
    finally:
        sys.path.pop(0)

    class FakePanic(BaseException):
        pass

    def boom(data: bytes) -> None:
        if data is None:
            raise FakePanic("planted")

    s = sweep_worker.Sweep(str(tmp_path / "r.json"), 0)
    s.sweep_callable("planted.boom", boom)
    s.write()
    assert any("FakePanic" in f["error"] for f in s.failures)
