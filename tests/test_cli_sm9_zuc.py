"""`guomi sm9` and `guomi zuc` run as real subprocesses."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from test_cli import guomi_cli

import guomi.zuc as zuc


def test_sm9_sign_and_verify(tmp_path: Path) -> None:
    run = lambda *a: guomi_cli(*a, cwd=tmp_path)  # noqa: E731
    assert (
        run("sm9", "setup", "--type", "sign", "-o", "master.key", "--pub-out", "master.pub").returncode == 0
    )
    assert stat.S_IMODE(os.stat(tmp_path / "master.key").st_mode) == 0o600
    assert run("sm9", "extract", "--master", "master.key", "--id", "alice", "-o", "alice.key").returncode == 0
    (tmp_path / "msg").write_bytes(b"contract text")
    for fmt in ("raw", "der"):
        assert (
            run(
                "sm9", "sign", "--key", "alice.key", "-i", "msg", "-o", f"sig.{fmt}", "--format", fmt
            ).returncode
            == 0
        )
        verify = ("sm9", "verify", "--master-pub", "master.pub", "-i", "msg", "--sig", f"sig.{fmt}")
        assert run(*verify, "--id", "alice", "--format", fmt).returncode == 0
        assert run(*verify, "--id", "bob", "--format", fmt).returncode == 1
    # Wrong key file types are usage errors.
    assert run("sm9", "sign", "--key", "master.pub", "-i", "msg", "-o", "x").returncode == 2
    assert run("sm9", "extract", "--master", "msg", "--id", "a", "-o", "y").returncode == 2


def test_sm9_file_encryption(tmp_path: Path) -> None:
    run = lambda *a: guomi_cli(*a, cwd=tmp_path)  # noqa: E731
    assert run("sm9", "setup", "--type", "enc", "-o", "m.key", "--pub-out", "m.pub").returncode == 0
    assert (
        run("sm9", "extract", "--master", "m.key", "--id", "bob@example.com", "-o", "bob.key").returncode == 0
    )
    assert run("sm9", "extract", "--master", "m.key", "--id", "eve", "-o", "eve.key").returncode == 0
    data = os.urandom(300_000)
    (tmp_path / "plain").write_bytes(data)
    enc = run(
        "sm9", "encrypt", "--master-pub", "m.pub", "--id", "bob@example.com", "-i", "plain", "-o", "sealed"
    )
    assert enc.returncode == 0 and (tmp_path / "sealed").read_bytes()[:8] == b"GUOMIENV"
    assert run("sm9", "decrypt", "--key", "bob.key", "-i", "sealed", "-o", "back").returncode == 0
    assert (tmp_path / "back").read_bytes() == data
    wrong = run("sm9", "decrypt", "--key", "eve.key", "-i", "sealed", "-o", "nope")
    assert wrong.returncode == 1 and not (tmp_path / "nope").exists()


def test_zuc_eea3_and_eia3(tmp_path: Path) -> None:
    key = bytes(range(16))
    data = bytes(range(200))
    (tmp_path / "pkt").write_bytes(data)
    common = ("--key-hex", key.hex(), "--count", "0x12345678", "--bearer", "5", "--direction", "1")
    r = guomi_cli("zuc", "eea3", *common, "-i", "pkt", "-o", "ct", cwd=tmp_path)
    assert r.returncode == 0
    assert (tmp_path / "ct").read_bytes() == zuc.eea3(key, 0x12345678, 5, 1, data)
    mac = zuc.eia3(key, 0x12345678, 5, 1, data).hex()
    r = guomi_cli("zuc", "eia3", *common, "-i", "pkt", cwd=tmp_path)
    assert r.returncode == 0 and r.stdout.decode().strip() == mac
    assert guomi_cli("zuc", "eia3", *common, "-i", "pkt", "--check", mac, cwd=tmp_path).returncode == 0
    assert guomi_cli("zuc", "eia3", *common, "-i", "pkt", "--check", "00000000", cwd=tmp_path).returncode == 1
    bad = ("--key-hex", key.hex(), "--count", "1", "--bearer", "32", "--direction", "1")
    assert guomi_cli("zuc", "eea3", *bad, "-i", "pkt", "-o", "x", cwd=tmp_path).returncode == 2
    assert guomi_cli("zuc", "eea3", "--key-hex", "zz", "--count", "1", "--bearer", "1", "--direction", "0",
                     "-i", "pkt", "-o", "x", cwd=tmp_path).returncode == 2  # fmt: skip
