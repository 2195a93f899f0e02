"""Short soak (scripts/soak.py): 32 threads of mixed, checked operations, then resident
memory over 10^6 operations. The long version is ``python scripts/soak.py``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SOAK = Path(__file__).resolve().parent.parent / "scripts" / "soak.py"


def test_soak_short() -> None:
    proc = subprocess.run(
        [sys.executable, str(SOAK), "--seconds", "15", "--threads", "32", "--rss-ops", "1000000"],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    assert "soak: passed" in proc.stdout
    # Every operation family ran at least once under contention.
    for name in ("sm2_sign_verify", "sm2_key_exchange", "sm2_verify_many", "sm3", "sm4", "zuc", "sm9"):
        assert name in proc.stdout, proc.stdout


def test_soak_detects_wrong_results() -> None:
    """The soak fails when an operation's check fails (the harness can fail)."""
    sys.path.insert(0, str(SOAK.parent))
    try:
        import soak
    finally:
        sys.path.pop(0)
    fx = soak.Fixtures()
    original = soak.operations

    def broken(fx: object, rng: object) -> list:
        ops = original(fx, rng)  # type: ignore[arg-type]

        def wrong() -> None:
            soak._check(False, "planted failure")

        return ops + [("planted", wrong)] * 50

    soak.operations = broken  # type: ignore[assignment]
    try:
        _, failures = soak.run_threads(fx, 2.0, 4, seed=3)
    finally:
        soak.operations = original  # type: ignore[assignment]
    assert any("planted failure" in f for f in failures)
