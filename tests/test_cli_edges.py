"""The command line at its edges, run as real subprocesses: decrypting to standard output
(nothing released before the whole envelope verifies), outputs that are devices, FIFOs or
symbolic links, outputs that are inputs, signals mid-write, one-line errors with exit
status 2, secrets from files, and hostile SM9 key files."""

from __future__ import annotations

import base64
import hashlib
import os
import signal
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from guomi import sm2, sm4, x509

HEADER = 30  # a raw-key envelope's header: magic .. kem_len, no kem data (docs/envelope.md)
KEY = bytes(range(1, 17))


def g(*args: str, cwd: Path, stdin: bytes = b"", timeout: float = 120) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "guomi", *args], input=stdin, capture_output=True, cwd=cwd, timeout=timeout
    )


def ok(*args: str, cwd: Path, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    r = g(*args, cwd=cwd, stdin=stdin)
    assert r.returncode == 0, (args, r.stdout, r.stderr)
    return r


def one_line_usage_error(r: subprocess.CompletedProcess[bytes]) -> None:
    """Exit status 2 with one line on standard error, never a traceback."""
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert b"Traceback" not in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr


@pytest.fixture()
def d(tmp_path: Path) -> Path:
    (tmp_path / "key").write_text(KEY.hex() + "\n")
    (tmp_path / "plain").write_bytes(os.urandom(5000))
    return tmp_path


# -- decrypt -o -: nothing released before the final chunk verifies ----------------------


def _cut_at_chunk_boundary(sealed: bytes, header: int, chunks: int) -> bytes:
    return sealed[: header + chunks * (1024 + 16)]


def test_sm4_decrypt_to_stdout_releases_nothing_from_a_truncated_envelope(d: Path) -> None:
    ok("sm4", "encrypt", "--key-file", "key", "--chunk-size", "1024", "-i", "plain", "-o", "sealed", cwd=d)
    sealed = (d / "sealed").read_bytes()
    # Sanity: the whole envelope decrypts to standard output.
    whole = ok("sm4", "decrypt", "--key-file", "key", "-i", "-", "-o", "-", cwd=d, stdin=sealed)
    assert whole.stdout == (d / "plain").read_bytes()
    for cut in (2, 4):  # 2,048 and 4,096 of 5,000 bytes of verified chunks
        r = g(
            "sm4",
            "decrypt",
            "--key-file",
            "key",
            "-i",
            "-",
            "-o",
            "-",
            cwd=d,
            stdin=sealed[: HEADER + cut * 1040],
        )
        assert r.returncode == 1
        assert r.stdout == b"", f"{len(r.stdout)} bytes of plaintext released"
        assert b"nothing was written" in r.stderr


def test_sm2_and_sm9_decrypt_to_stdout_release_nothing_when_truncated(d: Path) -> None:
    ok("sm2", "keygen", "-o", "k.pem", "--pubout", "p.pem", cwd=d)
    ok("sm2", "encrypt", "-p", "p.pem", "--chunk-size", "1024", "-i", "plain", "-o", "s2", cwd=d)
    sealed = (d / "s2").read_bytes()
    r = g(
        "sm2", "decrypt", "-k", "k.pem", "-i", "-", "-o", "-", cwd=d, stdin=sealed[: HEADER + 65 + 2 * 1040]
    )
    assert r.returncode == 1 and r.stdout == b""

    ok("sm9", "setup", "--type", "enc", "-o", "m.key", "--pub-out", "m.pub", cwd=d)
    ok("sm9", "extract", "--master", "m.key", "--id", "bob", "-o", "bob.key", cwd=d)
    ok("sm9", "encrypt", "--master-pub", "m.pub", "--id", "bob", "-i", "plain", "-o", "s9", cwd=d)
    sealed = (d / "s9").read_bytes()
    # Default chunks are 64 KiB: cut inside the only chunk (a tag is missing).
    r = g("sm9", "decrypt", "--key", "bob.key", "-i", "-", "-o", "-", cwd=d, stdin=sealed[:-1])
    assert r.returncode == 1 and r.stdout == b""
    ok9 = ok("sm9", "decrypt", "--key", "bob.key", "-i", "s9", "-o", "-", cwd=d)
    assert ok9.stdout == (d / "plain").read_bytes()


# -- outputs that are not regular files -----------------------------------------------------


def _read_fifo(path: Path, sink: list[bytes]) -> threading.Thread:
    def reader() -> None:
        with open(path, "rb") as f:
            sink.append(f.read())

    t = threading.Thread(target=reader, daemon=True)
    t.start()
    return t


@pytest.mark.parametrize("force", [True, False])
def test_output_to_a_fifo_is_written_through_not_replaced(d: Path, force: bool) -> None:
    fifo = d / "fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []
    t = _read_fifo(fifo, got)
    args = ["sm4", "encrypt", "--key-file", "key", "-i", "plain", "-o", "fifo"] + (["-f"] if force else [])
    r = g(*args, cwd=d)
    t.join(timeout=10)
    if t.is_alive() and stat.S_ISFIFO(os.lstat(fifo).st_mode):  # let a blocked reader go
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode), "the FIFO was replaced by a regular file"
    assert r.returncode == 0, r.stderr
    assert got and got[0][:8] == b"GUOMIENV"
    assert not [p for p in d.iterdir() if p.name.endswith(".tmp")]


def test_output_symlink_is_followed_never_replaced(d: Path) -> None:
    (d / "target").write_bytes(b"old")
    os.symlink("target", d / "link")
    ok("sm4", "encrypt", "--key-file", "key", "-i", "plain", "-o", "link", "-f", cwd=d)
    assert os.path.islink(d / "link") and os.readlink(d / "link") == "target"
    assert (d / "target").read_bytes()[:8] == b"GUOMIENV"
    # Without --force the existing target is kept.
    r = g("sm4", "encrypt", "--key-file", "key", "-i", "plain", "-o", "link", cwd=d)
    assert r.returncode == 2 and os.path.islink(d / "link")


def test_output_symlink_to_standard_output_writes_there(d: Path) -> None:
    if not os.path.exists("/proc/self/fd/1"):
        pytest.skip("needs /proc")
    os.symlink("/proc/self/fd/1", d / "out")
    r = g("sm4", "encrypt", "--key-file", "key", "-i", "plain", "-o", "out", "-f", cwd=d)
    assert r.returncode == 0, r.stderr
    assert r.stdout[:8] == b"GUOMIENV"
    assert os.path.islink(d / "out") and os.readlink(d / "out") == "/proc/self/fd/1"


def test_dangling_output_symlink_is_refused(d: Path) -> None:
    os.symlink("nowhere/../missing", d / "dangling")
    r = g("sm4", "encrypt", "--key-file", "key", "-i", "plain", "-o", "dangling", "-f", cwd=d)
    one_line_usage_error(r)
    assert os.path.islink(d / "dangling") and not (d / "missing").exists()


def test_full_device_is_one_line_exit_2(d: Path) -> None:
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    os.symlink("/dev/full", d / "full")
    r = g("sm4", "encrypt", "--key-file", "key", "-i", "plain", "-o", "full", "-f", cwd=d)
    one_line_usage_error(r)
    assert b"full: No space left on device" in r.stderr
    assert os.path.islink(d / "full") and stat.S_ISCHR(os.stat("/dev/full").st_mode)


# -- outputs that are inputs ------------------------------------------------------------------


def _pki(d: Path) -> None:
    key = sm2.PrivateKey.generate()
    (d / "k.pem").write_text(key.to_pem())
    (d / "p.pem").write_text(key.public_key().to_pem())
    (d / "c.pem").write_text(x509.CertificateBuilder(subject="CN=t").self_sign(key).to_pem())


SAME_FILE_CASES = {
    "sm2 sign": ["sm2", "sign", "-k", "k.pem", "-i", "plain", "-o", "{same}", "-f"],
    "sm2 sign (key)": ["sm2", "sign", "-k", "k.pem", "-i", "plain", "-o", "{k.pem}", "-f"],
    "sm9 sign": ["sm9", "sign", "--key", "u.key", "-i", "plain", "-o", "{same}", "-f"],
    "cms sign --detached": [
        "cms", "sign", "--detached", "-k", "k.pem", "-c", "c.pem", "-i", "plain", "-o", "{same}", "-f",
    ],
    "sm4 encrypt": ["sm4", "encrypt", "--key-file", "key", "-i", "plain", "-o", "{same}", "-f"],
    "sm4 encrypt (key file)": ["sm4", "encrypt", "--key-file", "key", "-i", "plain", "-o", "{key}", "-f"],
    "zuc eea3": [
        "zuc", "eea3", "--key-hex", KEY.hex(), "--count", "1", "--bearer", "1", "--direction", "0",
        "-i", "plain", "-o", "{same}", "-f",
    ],
    "x509 selfsign (key)": ["x509", "selfsign", "-k", "k.pem", "--subject", "CN=x", "-o", "{k.pem}", "-f"],
}  # fmt: skip


@pytest.mark.parametrize("how", ["path", "hardlink", "symlink"])
@pytest.mark.parametrize("case", sorted(SAME_FILE_CASES))
def test_an_input_is_never_overwritten(d: Path, case: str, how: str) -> None:
    _pki(d)
    if case.startswith("sm9"):
        ok("sm9", "setup", "--type", "sign", "-o", "m.key", cwd=d)
        ok("sm9", "extract", "--master", "m.key", "--id", "a", "-o", "u.key", cwd=d)
    args = SAME_FILE_CASES[case]
    victim = next(a[1:-1] for a in args if a.startswith("{"))
    victim = "plain" if victim == "same" else victim
    alias = {"path": victim, "hardlink": "alias", "symlink": "alias"}[how]
    if how == "hardlink":
        os.link(d / victim, d / alias)
    elif how == "symlink":
        os.symlink(victim, d / alias)
    before = (d / victim).read_bytes()
    r = g(*[alias if a.startswith("{") else a for a in args], cwd=d)
    one_line_usage_error(r)
    assert (d / victim).read_bytes() == before


@pytest.mark.parametrize(
    "args",
    [
        ["sm2", "keygen", "-o", "X", "--pubout", "X"],
        ["sm2", "keygen", "-o", "X", "--pubout", "./X", "-f"],
        ["sm9", "setup", "--type", "sign", "-o", "X", "--pub-out", "X"],
        ["sm9", "setup", "--type", "enc", "-o", "X", "--pub-out", "Y", "-f"],  # Y -> X below
    ],
)
def test_two_outputs_that_are_one_file_are_refused(d: Path, args: list[str]) -> None:
    if "Y" in args:
        (d / "X").write_bytes(b"x")
        os.symlink("X", d / "Y")
    r = g(*args, cwd=d)
    one_line_usage_error(r)
    assert not (d / "X").exists() or (d / "X").read_bytes() == b"x"


def test_password_file_is_an_input(d: Path) -> None:
    (d / "pw").write_text("pw\n")
    r = g("sm2", "keygen", "--password-file", "pw", "--iterations", "1000", "-o", "pw", "-f", cwd=d)
    one_line_usage_error(r)
    assert (d / "pw").read_text() == "pw\n"


def test_stdin_that_is_the_output_file_is_refused(d: Path) -> None:
    _pki(d)
    before = (d / "plain").read_bytes()
    with open(d / "plain", "rb") as f:
        r = subprocess.run(
            [sys.executable, "-m", "guomi", "sm2", "sign", "-k", "k.pem", "-i", "-", "-o", "plain", "-f"],
            stdin=f,
            capture_output=True,
            cwd=d,
            timeout=60,
        )
    one_line_usage_error(r)
    assert (d / "plain").read_bytes() == before


# -- signals -----------------------------------------------------------------------------------


@pytest.mark.parametrize("signo", [signal.SIGTERM, signal.SIGHUP])
def test_signal_mid_decrypt_leaves_no_temporary_file(d: Path, signo: int) -> None:
    big = os.urandom(3 << 20)
    (d / "big").write_bytes(big)
    ok("sm4", "encrypt", "--key-file", "key", "--chunk-size", "1024", "-i", "big", "-o", "sealed", cwd=d)
    sealed = (d / "sealed").read_bytes()
    proc = subprocess.Popen(
        [sys.executable, "-m", "guomi", "sm4", "decrypt", "--key-file", "key", "-i", "-", "-o", "out", "-q"],
        cwd=d,
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        # The command keeps a signal its caller ignores ignored (nohup); this test is about
        # a signal that would kill it, so the child starts with the default disposition even
        # when the test run itself inherited SIG_IGN (e.g. under nohup).
        preexec_fn=lambda: signal.signal(signo, signal.SIG_DFL),
    )
    assert proc.stdin is not None
    proc.stdin.write(sealed[: len(sealed) // 2])  # half of it: the command waits for more
    proc.stdin.flush()
    deadline = time.time() + 30
    while not list(d.glob(".out.*.tmp")) and time.time() < deadline:
        time.sleep(0.05)
    assert list(d.glob(".out.*.tmp")), "the temporary file beside the target exists while writing"
    time.sleep(0.3)  # let it write some plaintext into the temporary file
    proc.send_signal(signo)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 128 + signo, err
    assert b"Traceback" not in err
    assert not list(d.glob(".out.*")), "a temporary file with partial plaintext was left"
    assert not (d / "out").exists()


# -- exit codes and one-line messages --------------------------------------------------------


def test_missing_directory_and_directory_output(d: Path) -> None:
    one_line_usage_error(g("sm4", "encrypt", "--key-file", "key", "-i", "plain", "-o", "no/such/x", cwd=d))
    (d / "dir").mkdir()
    one_line_usage_error(g("sm4", "encrypt", "--key-file", "key", "-i", "plain", "-o", "dir", "-f", cwd=d))
    assert (d / "dir").is_dir()


def test_read_only_filesystem(d: Path) -> None:
    target = "/proc/guomi-test-output"
    if os.access("/proc", os.W_OK) and os.path.exists(target):
        pytest.skip("unexpected /proc")
    one_line_usage_error(g("sm4", "encrypt", "--key-file", "key", "-i", "plain", "-o", target, cwd=d))


@pytest.mark.parametrize("n", ["0", "-1", "10000001"])
def test_iterations_out_of_range(d: Path, n: str) -> None:
    (d / "pw").write_text("pw\n")
    r = g("sm4", "encrypt", "--password-file", "pw", "--iterations", n, "-i", "plain", "-o", "o", cwd=d)
    one_line_usage_error(r)
    assert b"iterations" in r.stderr and not (d / "o").exists()


def test_broken_pipe_is_one_line_exit_2(d: Path) -> None:
    (d / "big").write_bytes(os.urandom(8 << 20))
    proc = subprocess.Popen(
        [sys.executable, "-m", "guomi", "sm4", "encrypt", "--key-file", "key", "-i", "big", "-o", "-", "-q"],
        cwd=d,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.read(10)
    proc.stdout.close()
    err = proc.stderr.read()
    proc.wait(timeout=60)
    assert proc.returncode == 2, err
    assert b"Traceback" not in err and len(err.strip().splitlines()) == 1, err


# -- secrets from files -------------------------------------------------------------------------


def _legacy_pem(key: sm2.PrivateKey, password: bytes, *, header: str) -> str:
    """OpenSSL's traditional encrypted PEM (EVP_BytesToKey with MD5, one round; SM4-CBC)."""
    iv = os.urandom(16)
    k = hashlib.md5(password + iv[:8]).digest()
    body = sm4.encrypt(k, key.to_der(format="sec1"), mode="cbc", iv=iv)
    b64 = base64.encodebytes(body).decode()
    head = f"{header}\nDEK-Info: SM4-CBC,{iv.hex().upper()}\n\n"
    return f"-----BEGIN EC PRIVATE KEY-----\n{head}{b64}-----END EC PRIVATE KEY-----\n"


def test_legacy_pem_with_lower_case_proc_type(d: Path) -> None:
    key = sm2.PrivateKey.generate()
    (d / "pw").write_text("legacy\n")
    for header in ("Proc-Type: 4,ENCRYPTED", "proc-type: 4, ENCRYPTED"):
        (d / "k.pem").write_text(_legacy_pem(key, b"legacy", header=header))
        r = g("sm2", "pubkey", "-k", "k.pem", "--password-file", "pw", "-o", "-", cwd=d)
        assert r.returncode == 0, (header, r.stderr)
        assert sm2.PublicKey.from_pem(r.stdout) == key.public_key()


def test_password_file_uses_its_first_line(d: Path) -> None:
    (d / "pw2").write_text("pass word\nnot part of it\n")
    (d / "pw1").write_text("pass word")
    ok("sm4", "encrypt", "--password-file", "pw2", "--iterations", "1000", "-i", "plain", "-o", "s", cwd=d)
    r = ok("sm4", "decrypt", "--password-file", "pw1", "-i", "s", "-o", "-", cwd=d)
    assert r.stdout == (d / "plain").read_bytes()
    (d / "crlf").write_bytes(b"pass word\r\nrest")
    ok("sm4", "decrypt", "--password-file", "crlf", "-i", "s", "-o", "back", cwd=d)
    (d / "empty").write_bytes(b"\nsecond line")
    one_line_usage_error(g("sm4", "decrypt", "--password-file", "empty", "-i", "s", "-o", "x", cwd=d))


def test_raw_key_file_ending_in_a_newline_byte(d: Path) -> None:
    key = bytes(range(0x30, 0x3F)) + b"\n"  # 16 raw bytes, the last one 0x0A
    (d / "raw").write_bytes(key)
    ok("sm4", "encrypt", "--key-file", "raw", "-i", "plain", "-o", "s", cwd=d)
    r = ok("sm4", "decrypt", "--key-hex", key.hex(), "-i", "s", "-o", "-", cwd=d)
    assert r.stdout == (d / "plain").read_bytes()
    # 32 hex digits with a newline still work; other sizes are refused.
    (d / "hex").write_text(key.hex() + "\n")
    ok("sm4", "decrypt", "--key-file", "hex", "-i", "s", "-o", "b2", cwd=d)
    (d / "bad").write_bytes(key + b"\n")
    one_line_usage_error(g("sm4", "decrypt", "--key-file", "bad", "-i", "s", "-o", "b3", cwd=d))


def test_key_hex_help_warns_about_the_process_list(d: Path) -> None:
    for cmd in (["sm4", "encrypt"], ["zuc", "eea3"]):
        out = ok(*cmd, "--help", cwd=d).stdout.decode()
        assert "--key-file" in out and "process list" in " ".join(out.split())


def test_zuc_key_file(d: Path) -> None:
    common = ("--count", "7", "--bearer", "3", "--direction", "1", "-i", "plain")
    ok("zuc", "eea3", "--key-file", "key", *common, "-o", "a", cwd=d)
    ok("zuc", "eea3", "--key-hex", KEY.hex(), *common, "-o", "b", cwd=d)
    assert (d / "a").read_bytes() == (d / "b").read_bytes()


# -- SM9 key files ------------------------------------------------------------------------------


def test_sm9_key_file_parse_is_linear(d: Path) -> None:
    # Many BEGIN lines and no END: quadratic with a backtracking regex (tens of seconds).
    (d / "evil.pub").write_text("-----BEGIN GUOMI SM9 SIGN MASTER PUBLIC KEY-----\n" * 6000)
    (d / "sig").write_bytes(b"x")
    t = time.monotonic()
    r = g(
        "sm9", "verify", "--master-pub", "evil.pub", "--id", "a", "-i", "plain", "--sig", "sig",
        cwd=d, timeout=60,
    )  # fmt: skip
    one_line_usage_error(r)
    assert time.monotonic() - t < 15


def test_sm9_key_file_size_is_bounded(d: Path) -> None:
    ok("sm9", "setup", "--type", "sign", "-o", "m.key", "--pub-out", "m.pub", cwd=d)
    pem = (d / "m.pub").read_text()
    (d / "big.pub").write_text("#" * (1 << 20) + "\n" + pem)
    (d / "sig").write_bytes(b"x")
    r = g("sm9", "verify", "--master-pub", "big.pub", "--id", "a", "-i", "plain", "--sig", "sig", cwd=d)
    one_line_usage_error(r)
    # Corrupt base64 in the body is refused, not silently skipped.
    lines = pem.splitlines()
    lines[1] = "!!" + lines[1][2:]
    (d / "bad.pub").write_text("\n".join(lines) + "\n")
    r = g("sm9", "verify", "--master-pub", "bad.pub", "--id", "a", "-i", "plain", "--sig", "sig", cwd=d)
    one_line_usage_error(r)


# -- the convention behind the same-file checks ------------------------------------------------

NOT_FILES = {
    "at", "bearer", "ca", "check", "chunk_size", "cipher", "count", "crl_check_all", "crl_number",
    "days", "detached", "direction", "eku", "encrypt", "encryption", "force", "format", "help", "id",
    "iterations", "key_format", "key_hex", "key_oid", "key_usage", "length_bits", "name",
    "no_attributes", "oid_style", "outform", "path_len", "prf", "purpose", "quiet", "reason", "revoke",
    "san", "serial", "sig_format", "signature_algorithm", "subject", "to", "type", "uid", "uid_hex",
    "version",
    # guomi tls client|server (--capath is a directory of certificates, read only)
    "address", "brief", "capath", "ciphers", "echo", "host", "insecure", "max_connections",
    "no_check_hostname", "port", "protocol", "reconnect", "servername", "timeout", "verify",
}  # fmt: skip


def test_every_file_option_is_declared() -> None:
    """The command line finds its inputs and outputs by metavar FILE (outputs by name): a
    new option naming a file must say so, or the same-file checks would miss it."""
    import argparse

    from guomi.cli import build_parser
    from guomi.cli._io import OUTPUT_DESTS, file_dests

    def walk(p: argparse.ArgumentParser) -> set[tuple[str, object]]:
        out: set[tuple[str, object]] = set()
        for a in p._actions:
            if isinstance(a, argparse._SubParsersAction):
                for sp in a.choices.values():
                    out |= walk(sp)
            else:
                out.add((a.dest, a.metavar))
        return out

    parser = build_parser()
    files = file_dests(parser)
    assert OUTPUT_DESTS <= files
    undeclared = {dest for dest, metavar in walk(parser) if metavar != "FILE" and dest not in NOT_FILES}
    assert not undeclared, f"options neither FILE nor known non-file: {undeclared}"
    assert not files & NOT_FILES


def test_hmac_key_file_is_the_whole_file(d: Path) -> None:
    (d / "hk").write_bytes(b"k\n\x00")  # every byte counts, the newline included
    a = ok("hmac", "--key-file", "hk", "plain", cwd=d).stdout
    b = ok("hmac", "--key-hex", b"k\n\x00".hex(), "plain", cwd=d).stdout
    assert a == b
    assert g("hmac", "plain", cwd=d).returncode == 2
