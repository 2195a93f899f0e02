"""guomi.arrow.KeyProvider: the per-process key cache (no cluster needed)."""

from __future__ import annotations

import functools
import pickle
import time

import pytest

from guomi.arrow import KeyProvider, SecretKey, resolve_key
from guomi.exceptions import InvalidArgument

CALLS: list[bytes] = []


def tenant_key(tenant: bytes) -> bytes:
    """Stands in for a KMS call; module-level so that it pickles."""
    CALLS.append(tenant)
    return tenant.ljust(16, b"\x00")


def test_same_name_different_fetch_gets_its_own_key() -> None:
    # Regression: the cache was keyed by (pid, name) only, so tenant B's rows were
    # encrypted under tenant A's key.
    a = KeyProvider("shared-name", functools.partial(tenant_key, b"tenant-a"))
    b = KeyProvider("shared-name", functools.partial(tenant_key, b"tenant-b"))
    assert a.reveal() == b"tenant-a".ljust(16, b"\x00")
    assert b.reveal() == b"tenant-b".ljust(16, b"\x00")
    assert a.reveal() != b.reveal()
    # Unpicklable fetch functions are told apart too.
    c = KeyProvider("shared-name", lambda: b"c" * 16)
    d = KeyProvider("shared-name", lambda: b"d" * 16)
    assert (c.reveal(), d.reveal()) == (b"c" * 16, b"d" * 16)


def test_fetched_once_per_process_also_after_pickling() -> None:
    CALLS.clear()
    p = KeyProvider("once", functools.partial(tenant_key, b"once"))
    q = pickle.loads(pickle.dumps(p))
    assert q is not p and q.name == "once"
    assert resolve_key(p) == resolve_key(q) == b"once".ljust(16, b"\x00")
    assert CALLS == [b"once"]
    assert repr(q) == "KeyProvider('once')"


def test_rotation_forget_and_ttl() -> None:
    CALLS.clear()
    p = KeyProvider("rot", functools.partial(tenant_key, b"rot"))
    p.reveal()
    p.reveal()
    p.forget()
    p.reveal()
    assert CALLS == [b"rot", b"rot"]
    CALLS.clear()
    t = KeyProvider("ttl", functools.partial(tenant_key, b"ttl"), ttl=0.05)
    assert pickle.loads(pickle.dumps(t)).ttl == 0.05
    t.reveal()
    t.reveal()
    assert CALLS == [b"ttl"]
    time.sleep(0.06)
    t.reveal()
    assert CALLS == [b"ttl", b"ttl"]


def test_bad_arguments() -> None:
    with pytest.raises(TypeError):
        KeyProvider(b"name", lambda: b"k")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        KeyProvider("n", b"not callable")  # type: ignore[arg-type]
    for bad in (0, -1, float("inf"), float("nan")):
        with pytest.raises(InvalidArgument):
            KeyProvider("n", lambda: b"k", ttl=bad)
    with pytest.raises(TypeError):
        KeyProvider("n", lambda: b"k", ttl="1")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="bytes"):
        KeyProvider("n-str", lambda: "text").reveal()  # type: ignore[arg-type,return-value]


@pytest.mark.parametrize("bad", [2**32, 16, [0] * 16, range(16), 1.5, None])
def test_keys_must_be_bytes_like(bad: object) -> None:
    # bytes(2**32) would have allocated 4 GiB before any length check (the dask sweep took
    # 20 s per call); a list of numbers is not a key either.
    with pytest.raises(TypeError, match="bytes-like"):
        resolve_key(bad)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="bytes-like"):
        SecretKey(bad)  # type: ignore[arg-type]


def test_bytes_like_keys_are_copied() -> None:
    buf = bytearray(range(16))
    for key in (bytes(buf), buf, memoryview(buf), SecretKey(buf)):
        assert resolve_key(key) == bytes(range(16))
    s = SecretKey(buf)
    buf[0] = 99
    assert s.reveal() == bytes(range(16))


def test_replacing_fetch_changes_the_key() -> None:
    p = KeyProvider("swap", functools.partial(tenant_key, b"first"))
    assert p.reveal() == b"first".ljust(16, b"\x00")
    p.fetch = functools.partial(tenant_key, b"second")
    assert p.reveal() == b"second".ljust(16, b"\x00")
