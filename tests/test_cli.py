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


KEY_HEX = "0123456789abcdeffedcba9876543210"


def test_sm4_envelope_round_trip_and_failures(tmp_path: Path) -> None:
    data = bytes(range(256)) * 4099
    (tmp_path / "plain").write_bytes(data)
    enc = guomi_cli("sm4", "encrypt", "--key-hex", KEY_HEX, "--in", "plain", "--out", "sealed", cwd=tmp_path)
    assert enc.returncode == 0, enc.stderr
    sealed = (tmp_path / "sealed").read_bytes()
    assert sealed.startswith(b"GUOMIENV")
    dec = guomi_cli("sm4", "decrypt", "--key-hex", KEY_HEX, "-i", "sealed", "-o", "back", cwd=tmp_path)
    assert dec.returncode == 0 and (tmp_path / "back").read_bytes() == data
    # An existing output is never replaced without --force.
    again = guomi_cli("sm4", "decrypt", "--key-hex", KEY_HEX, "-i", "sealed", "-o", "back", cwd=tmp_path)
    assert again.returncode == 2 and b"exists" in again.stderr
    # Wrong key, truncation, tampering: exit 1 and nothing written.
    wrong = guomi_cli("sm4", "decrypt", "--key-hex", "00" * 16, "-i", "sealed", "-o", "x1", cwd=tmp_path)
    assert wrong.returncode == 1 and not (tmp_path / "x1").exists()
    (tmp_path / "cut").write_bytes(sealed[: len(sealed) - 100])
    cut = guomi_cli("sm4", "decrypt", "--key-hex", KEY_HEX, "-i", "cut", "-o", "x2", cwd=tmp_path)
    assert cut.returncode == 1 and not (tmp_path / "x2").exists()
    bad = bytearray(sealed)
    bad[len(bad) // 2] ^= 4
    (tmp_path / "bad").write_bytes(bytes(bad))
    r = guomi_cli("sm4", "decrypt", "--key-hex", KEY_HEX, "-i", "bad", "-o", "back", "--force", cwd=tmp_path)
    assert r.returncode == 1 and (tmp_path / "back").read_bytes() == data  # untouched
    assert sorted(p.name for p in tmp_path.iterdir()) == ["back", "bad", "cut", "plain", "sealed"]


def test_sm4_password_and_pipes(tmp_path: Path) -> None:
    (tmp_path / "pw").write_text("correct horse\n")
    enc = guomi_cli(
        "sm4", "encrypt", "--password-file", "pw", "--iterations", "1000", "-i", "-", "-o", "-",
        stdin=b"through a pipe", cwd=tmp_path,
    )  # fmt: skip
    assert enc.returncode == 0 and enc.stdout.startswith(b"GUOMIENV")
    dec = guomi_cli(
        "sm4", "decrypt", "--password-file", "pw", "-i", "-", "-o", "-", stdin=enc.stdout, cwd=tmp_path
    )
    assert dec.returncode == 0 and dec.stdout == b"through a pipe"
    (tmp_path / "pw2").write_text("wrong\n")
    bad = guomi_cli(
        "sm4", "decrypt", "--password-file", "pw2", "-i", "-", "-o", "-", stdin=enc.stdout, cwd=tmp_path
    )
    assert bad.returncode == 1 and bad.stdout == b""


def test_sm4_usage_errors(tmp_path: Path) -> None:
    (tmp_path / "f").write_bytes(b"x")
    for args in (
        ("sm4", "encrypt", "--key-hex", "abcd", "-i", "f", "-o", "g"),  # short key
        ("sm4", "encrypt", "--key-hex", "zz" * 16, "-i", "f", "-o", "g"),  # not hex
        ("sm4", "encrypt", "--key-hex", KEY_HEX, "-i", "missing", "-o", "g"),  # no input
        ("sm4", "encrypt", "--key-hex", KEY_HEX, "-i", "f", "-o", "f", "--force"),  # in == out
        ("sm4", "encrypt", "-i", "f", "-o", "g"),  # no key, no terminal for a prompt
        ("sm4", "encrypt", "--key-hex", KEY_HEX, "--chunk-size", "1000", "-i", "f", "-o", "g"),
    ):
        r = guomi_cli(*args, cwd=tmp_path)
        assert r.returncode == 2, args
    assert not (tmp_path / "g").exists()
    assert (tmp_path / "f").read_bytes() == b"x"
