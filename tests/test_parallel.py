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
