"""The `guomi` command line, run as a real subprocess."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import guomi.sm3


def guomi_cli(*args: str, stdin: bytes = b"", cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "guomi", *args], input=stdin, capture_output=True, cwd=cwd, timeout=120
    )


def test_sm3_like_sha256sum(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_bytes(b"abc")
    (tmp_path / "b.bin").write_bytes(bytes(range(256)) * 5000)
    r = guomi_cli("sm3", "a.txt", "b.bin", cwd=tmp_path)
    assert r.returncode == 0
    lines = r.stdout.decode().splitlines()
    assert lines[0] == f"{guomi.sm3.hash(b'abc').hex()}  a.txt"
    assert lines[1] == f"{guomi.sm3.hash((tmp_path / 'b.bin').read_bytes()).hex()}  b.bin"
    # standard input
    r = guomi_cli("sm3", stdin=b"abc")
    assert r.stdout.decode() == f"{guomi.sm3.hash(b'abc').hex()}  -\n"


def test_sm3_check(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_bytes(b"abc")
    sums = guomi_cli("sm3", "a.txt", cwd=tmp_path).stdout
    (tmp_path / "SUMS").write_bytes(sums)
    ok = guomi_cli("sm3", "--check", "SUMS", cwd=tmp_path)
    assert ok.returncode == 0 and ok.stdout == b"a.txt: OK\n"
    (tmp_path / "a.txt").write_bytes(b"abd")
    bad = guomi_cli("sm3", "-c", "SUMS", cwd=tmp_path)
    assert bad.returncode == 1 and b"a.txt: FAILED" in bad.stdout
    (tmp_path / "a.txt").unlink()
    missing = guomi_cli("sm3", "-c", "SUMS", cwd=tmp_path)
    assert missing.returncode == 2


def test_sm3_missing_file_is_usage_error(tmp_path: Path) -> None:
    r = guomi_cli("sm3", "nope", cwd=tmp_path)
    assert r.returncode == 2 and b"nope" in r.stderr


def test_hmac(tmp_path: Path) -> None:
    (tmp_path / "m").write_bytes(b"message")
    r = guomi_cli("hmac", "--key-hex", "00ff", "m", cwd=tmp_path)
    assert r.returncode == 0
    assert r.stdout.decode() == f"{guomi.sm3.hmac(bytes.fromhex('00ff'), b'message').hex()}  m\n"
    assert guomi_cli("hmac", "--key-hex", "zz", "m", cwd=tmp_path).returncode == 2


def test_help_and_usage_errors() -> None:
    assert guomi_cli("--help").returncode == 0
    assert guomi_cli("sm3", "--help").returncode == 0
    assert guomi_cli().returncode == 2
    assert guomi_cli("no-such-command").returncode == 2


def test_bench_runs() -> None:
    r = guomi_cli("bench", "--select", "SM3 32 B", "--repeats", "1", "--target", "0.001")
    assert r.returncode == 0, r.stderr
    assert b"SM3 32 B" in r.stdout and b"backend" in r.stdout
