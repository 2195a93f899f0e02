"""Batch APIs on several threads: same results as serial, and safe after fork()."""

from __future__ import annotations

import os
import signal
import sys
import time

import pytest

import guomi.sm2 as sm2
import guomi.sm3 as sm3
import guomi.zuc as zuc

MSGS = [bytes([i % 251]) * 2048 for i in range(200)]  # 400 KiB: large enough to go parallel


def _batch_results() -> tuple[list[bytes], list[bytes], list[bool]]:
    items = [(bytes(16), i, 1, 0, m) for i, m in enumerate(MSGS[:64])]
    key = sm2.PrivateKey.from_bytes(bytes(31) + b"\x07")
    sig = key.sign(b"m")
    return (
        sm3.hash_many(MSGS, threads=0),
        zuc.eea3_many(items, threads=0),
        sm2.verify_many([(key.public_key(), sig, b"m")] * 16, threads=0),
    )


@pytest.mark.parametrize("threads", [None, 0, 1, 2, 3])
def test_thread_counts_agree(threads: int | None) -> None:
    assert sm3.hash_many(MSGS, threads=threads) == [sm3.hash(m) for m in MSGS]
    items = [(bytes(16), i, 1, 0, m) for i, m in enumerate(MSGS[:64])]
    assert zuc.eea3_many(items, threads=threads) == [zuc.eea3(*it) for it in items]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork() on this platform")
def test_batch_apis_work_in_a_forked_child() -> None:
    expected = _batch_results()  # starts the worker pool in this process
    pid = os.fork()
    if pid == 0:  # child: a pool inherited from the parent would hang here
        try:
            ok = _batch_results() == expected
        except BaseException:  # noqa: BLE001 - any failure is reported via the exit code
            ok = False
        sys.stdout.flush()
        os._exit(0 if ok else 1)
    deadline = time.monotonic() + 60
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:  # a hang is the failure this test exists for
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            pytest.fail("batch API hung in a forked child")
        time.sleep(0.05)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0


# --- every item count against every thread count (the work splitter) ----------------------

MAX_N = 300
THREADS = [None, *range(0, 65)]
# One buffer sliced for every message: ~64 KiB per call, so the threaded path is taken.
_BLOB = bytes(i * 31 % 256 for i in range(80_000))


def _msgs(n: int) -> list[bytes]:
    size = 65_536 // n + 1 if n else 0
    return [_BLOB[i % 5 : i % 5 + size] for i in range(n)]


def test_hash_many_every_n_and_thread_count() -> None:
    for n in range(MAX_N + 1):
        msgs = _msgs(n)
        want = sm3.hash_many(msgs)
        assert len(want) == n and (n == 0 or want[-1] == sm3.hash(msgs[-1]))
        for t in THREADS:
            assert sm3.hash_many(msgs, threads=t) == want, (n, t)


def test_zuc_many_every_n_and_thread_count() -> None:
    key = bytes(range(16))
    for n in range(MAX_N + 1):
        items = [(key, i, i % 32, i % 2, m) for i, m in enumerate(_msgs(n))]
        enc, mac = zuc.eea3_many(items), zuc.eia3_many(items)
        assert len(enc) == len(mac) == n
        if n:
            assert enc[-1] == zuc.eea3(*items[-1]) and mac[-1] == zuc.eia3(*items[-1])
        for t in THREADS:
            assert zuc.eea3_many(items, threads=t) == enc, (n, t)
            assert zuc.eia3_many(items, threads=t) == mac, (n, t)


def test_sm2_verify_many_every_thread_count() -> None:
    # verify_many(11 items, threads=5) used to raise PanicException (an inverted range).
    key = sm2.PrivateKey.from_bytes(bytes(31) + b"\x2a")
    good = key.sign(b"m")
    malformed = b"\x30\x03\x02\x01\x01"  # cheap: rejected before any curve arithmetic
    pool = [(key.public_key(), good if i % 7 == 0 else malformed, b"m") for i in range(MAX_N)]
    # SM2 verification costs ~60 us: every n up to 40, then a stride.
    for n in [*range(41), *range(41, MAX_N + 1, 13), MAX_N]:
        want = [i % 7 == 0 for i in range(n)]
        assert sm2.verify_many(pool[:n]) == want
        for t in THREADS:
            assert sm2.verify_many(pool[:n], threads=t) == want, (n, t)


def test_thread_counts_beyond_the_cores_are_clamped() -> None:
    msgs = _msgs(64)
    want = sm3.hash_many(msgs)
    items = [(bytes(16), i, 1, 0, m) for i, m in enumerate(msgs)]
    enc = zuc.eea3_many(items)
    key = sm2.PrivateKey.from_bytes(bytes(31) + b"\x2a")
    sigs = [(key.public_key(), key.sign(b"m"), b"m")] * 11
    for t in [65, 1024, 2**31, 2**63 - 1, 2**64 - 1]:
        assert sm3.hash_many(msgs, threads=t) == want
        assert zuc.eea3_many(items, threads=t) == enc
        assert sm2.verify_many(sigs, threads=t) == [True] * 11
    for t in [2**64, 2**100]:  # not even a machine word: a typed error, never a panic
        for call in (
            lambda t=t: sm3.hash_many(msgs, threads=t),
            lambda t=t: zuc.eea3_many(items, threads=t),
            lambda t=t: sm2.verify_many(sigs, threads=t),
        ):
            with pytest.raises((OverflowError, ValueError)):
                call()
