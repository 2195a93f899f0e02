"""Hardening of the public-key side (SM2, SM9): no fixed-randomness hooks in the shipped
module, single-use key-exchange objects, bounded key lengths, strict key parsing, hedged
signing nonces."""

from __future__ import annotations

import importlib
import os
import pkgutil
import re

import pytest

import guomi
from guomi import _native, sm2, sm9
from guomi.exceptions import (
    AlreadyFinalized,
    InvalidArgument,
    InvalidKey,
    InvalidLength,
    InvalidTag,
)

N = int("FFFFFFFEFFFFFFFFFFFFFFFFFFFFFFFF7203DF6B21C6052B53BBF40939D54123", 16)
MAX = 65536

# ----------------------------------------------------------------- 1. no nonce hooks

# Names that would let a caller fix the randomness of a signature, an encryption or a
# key exchange (the old `_sign_with_r` / `_encrypt_with_r` / `_with_r`, the core's
# `*_with_fixed_*_for_testing`, hazmat modules, ...).
_HOOK_PATTERN = re.compile(
    r"(^|_)(with|fixed)_(r|k)(_|$)"  # _sign_with_r, _encrypt_with_r, _with_r, with_k, fixed_k
    r"|with_fixed|fixed_(randomness|nonce|ephemeral)|for_testing|hazmat"
    r"|set_(nonce|ephemeral|random)"
)


def _walk(obj: object, path: str, seen: set[int], out: list[str]) -> None:
    if id(obj) in seen:
        return
    seen.add(id(obj))
    for name in dir(obj):
        if name.startswith("__"):
            continue
        full = f"{path}.{name}"
        out.append(full)
        try:
            child = getattr(obj, name)
        except Exception:  # pragma: no cover - properties needing an instance
            continue
        if isinstance(child, type):
            if str(getattr(child, "__module__", "")).startswith("guomi"):
                _walk(child, full, seen, out)
        elif type(child).__name__ == "module":
            # guomi._native's submodules are named "sm2", "sm9", ... (not "guomi.*").
            if str(getattr(child, "__name__", "")).startswith("guomi") or obj is _native:
                _walk(child, full, seen, out)


def _all_names(seen: set[int] | None = None) -> list[str]:
    out: list[str] = []
    seen = set() if seen is None else seen
    _walk(_native, "guomi._native", seen, out)
    _walk(guomi, "guomi", seen, out)
    for info in pkgutil.walk_packages(guomi.__path__, "guomi."):
        if info.name.endswith("__main__"):  # importing it runs the CLI
            continue
        _walk(importlib.import_module(info.name), info.name, seen, out)
    return out


def test_no_fixed_randomness_hooks_are_reachable() -> None:
    seen: set[int] = set()
    names = _all_names(seen)
    # The walk really covers the public-key classes and their methods.
    assert "guomi._native.sm9.SignUserKey.sign" in names
    assert "guomi._native.sm9.KeyExchange.finish" in names
    assert "guomi._native.sm2.KeyExchangeInitiator.finish" in names
    assert "guomi._native.sm9.EncMasterPublicKey.encrypt" in names
    import sys

    for mod in ("guomi.sm2", "guomi.sm9", "guomi.keys", "guomi.cli.sm2", "guomi.cli.sm9"):
        assert id(sys.modules[mod]) in seen, mod
    # The pattern catches the old hooks (checked on their names) but not look-alikes.
    for hook in ("_sign_with_r", "_encrypt_with_r", "_with_r", "sign_digest_with_fixed_k_for_testing"):
        assert _HOOK_PATTERN.search(hook)
    for ok in ("with_key", "with_key_usage", "ephemeral_public_key", "encrypt_with"):
        assert not _HOOK_PATTERN.search(ok)
    bad = [n for n in names if _HOOK_PATTERN.search(n.rsplit(".", 1)[-1].lower())]
    assert bad == []


def test_sm9_objects_have_no_private_r_methods() -> None:
    uk = sm9.SignMasterKey.generate().extract(b"a")
    epk = sm9.EncMasterKey.generate().public_key()
    for obj in (uk, epk, sm9.KeyExchange):
        assert not [n for n in dir(obj) if "with_r" in n]


# ----------------------------------------------------------------- 2. single use


def _sm2_pair() -> tuple[sm2.PrivateKey, sm2.PrivateKey]:
    return sm2.PrivateKey.generate(), sm2.PrivateKey.generate()


def test_sm2_initiator_single_use_after_success() -> None:
    a, b = _sm2_pair()
    init = sm2.KeyExchangeInitiator(a, b.public_key())
    resp = sm2.KeyExchangeResponder(b, a.public_key())
    rb, kb, sb = resp.respond(init.ephemeral_public_key, 16)
    ka, _ = init.finish(rb, 16, peer_confirmation=sb)
    assert ka == kb
    # Another responder's R_B must not be combined with the same r_A.
    resp2 = sm2.KeyExchangeResponder(b, a.public_key())
    rb2, _, _ = resp2.respond(init.ephemeral_public_key, 16)
    with pytest.raises(AlreadyFinalized):
        init.finish(rb2, 16)
    with pytest.raises(AlreadyFinalized):
        init.finish(rb, 16, peer_confirmation=sb)
    assert init.ephemeral_public_key[0] == 4  # R_A stays readable


def test_sm2_initiator_single_use_after_bad_confirmation() -> None:
    a, b = _sm2_pair()
    init = sm2.KeyExchangeInitiator(a, b.public_key())
    resp = sm2.KeyExchangeResponder(b, a.public_key())
    rb, _, sb = resp.respond(init.ephemeral_public_key, 16)
    with pytest.raises(InvalidTag):
        init.finish(rb, 16, peer_confirmation=bytes(32))
    with pytest.raises(AlreadyFinalized):
        init.finish(rb, 16, peer_confirmation=sb)
    with pytest.raises(AlreadyFinalized):
        init.finish(rb, 16)


def test_sm2_initiator_single_use_after_bad_peer_point() -> None:
    a, b = _sm2_pair()
    init = sm2.KeyExchangeInitiator(a, b.public_key())
    resp = sm2.KeyExchangeResponder(b, a.public_key())
    rb, _, _ = resp.respond(init.ephemeral_public_key, 16)
    bad = bytearray(rb)
    bad[20] ^= 1
    with pytest.raises(InvalidKey):
        init.finish(bytes(bad), 16)
    with pytest.raises(AlreadyFinalized):
        init.finish(rb, 16)


def test_sm2_initiator_single_use_after_bad_key_length() -> None:
    a, b = _sm2_pair()
    init = sm2.KeyExchangeInitiator(a, b.public_key())
    resp = sm2.KeyExchangeResponder(b, a.public_key())
    rb, _, _ = resp.respond(init.ephemeral_public_key, 16)
    with pytest.raises(InvalidLength):
        init.finish(rb, 0)
    with pytest.raises(AlreadyFinalized):
        init.finish(rb, 16)


def test_sm2_responder_single_use() -> None:
    a, b = _sm2_pair()
    # After success.
    init = sm2.KeyExchangeInitiator(a, b.public_key())
    resp = sm2.KeyExchangeResponder(b, a.public_key())
    rb, kb, sb = resp.respond(init.ephemeral_public_key, 16)
    with pytest.raises(AlreadyFinalized):
        resp.respond(sm2.KeyExchangeInitiator(a, b.public_key()).ephemeral_public_key, 16)
    ka, sa = init.finish(rb, 16, peer_confirmation=sb)
    resp.confirm(sa)  # the first respond()'s state is intact
    assert ka == kb
    # After a bad peer point.
    resp = sm2.KeyExchangeResponder(b, a.public_key())
    bad = bytearray(init.ephemeral_public_key)
    bad[33] ^= 1
    with pytest.raises(InvalidKey):
        resp.respond(bytes(bad), 16)
    with pytest.raises(AlreadyFinalized):
        resp.respond(init.ephemeral_public_key, 16)
    with pytest.raises(InvalidArgument):
        resp.confirm(sa)
    # After a bad key length.
    resp = sm2.KeyExchangeResponder(b, a.public_key())
    with pytest.raises(InvalidLength):
        resp.respond(init.ephemeral_public_key, MAX + 1)
    with pytest.raises(AlreadyFinalized):
        resp.respond(init.ephemeral_public_key, 16)


def _sm9_pair() -> tuple[sm9.KeyExchange, sm9.KeyExchange]:
    kgc = _SM9_KGC
    ka = kgc.extract(b"alice", hid=sm9.HID_EXCHANGE)
    kb = kgc.extract(b"bob", hid=sm9.HID_EXCHANGE)
    return sm9.KeyExchange(ka, b"bob", initiator=True), sm9.KeyExchange(kb, b"alice", initiator=False)


_SM9_KGC = sm9.EncMasterKey.generate()


def test_sm9_key_exchange_single_use_after_success() -> None:
    a, b = _sm9_pair()
    k_b, s_b = b.respond(a.ephemeral, 16)
    k_a, s_a = a.finish(b.ephemeral, 16, s_b)
    assert k_a == k_b
    a2, b2 = _sm9_pair()
    with pytest.raises(AlreadyFinalized):
        a.finish(b2.ephemeral, 16)
    with pytest.raises(AlreadyFinalized):
        b.respond(a2.ephemeral, 16)
    b.confirm(s_a)


def test_sm9_key_exchange_single_use_after_bad_confirmation() -> None:
    a, b = _sm9_pair()
    _, s_b = b.respond(a.ephemeral, 16)
    with pytest.raises(InvalidTag):
        a.finish(b.ephemeral, 16, bytes(32))
    # Retrying with the right S_B (or another R_B) must not reuse r_A.
    with pytest.raises(AlreadyFinalized):
        a.finish(b.ephemeral, 16, s_b)


def test_sm9_key_exchange_single_use_after_bad_peer_point() -> None:
    a, b = _sm9_pair()
    bad = bytearray(b.ephemeral)
    bad[-1] ^= 1
    with pytest.raises(InvalidKey):
        a.finish(bytes(bad), 16)
    with pytest.raises(AlreadyFinalized):
        a.finish(b.ephemeral, 16)
    bad = bytearray(a.ephemeral)
    bad[-1] ^= 1
    with pytest.raises(InvalidKey):
        b.respond(bytes(bad), 16)
    with pytest.raises(AlreadyFinalized):
        b.respond(a.ephemeral, 16)


def test_sm9_key_exchange_wrong_role_does_not_consume() -> None:
    a, b = _sm9_pair()
    with pytest.raises(InvalidArgument):
        a.respond(b.ephemeral, 16)
    with pytest.raises(InvalidArgument):
        b.finish(a.ephemeral, 16)
    k_b, s_b = b.respond(a.ephemeral, 16)
    k_a, _ = a.finish(b.ephemeral, 16, s_b)
    assert k_a == k_b


# ----------------------------------------------------------------- 3. bounded lengths

_BAD_LENGTHS = [0, MAX + 1, 2**50, 2**63, 2**64 - 1]


def test_max_key_length_constants() -> None:
    assert sm2.MAX_KEY_LENGTH == MAX == sm9.MAX_KEY_LENGTH


@pytest.mark.parametrize("n", _BAD_LENGTHS)
def test_sm2_kem_key_length_bounds(n: int) -> None:
    key = sm2.PrivateKey.generate()
    _, c1 = sm2.encapsulate(key.public_key(), 16)
    with pytest.raises(InvalidLength):
        key.public_key().encapsulate(n)
    with pytest.raises(InvalidLength):
        sm2.encapsulate(key.public_key(), n)
    with pytest.raises(InvalidLength):
        key.decapsulate(c1, n)
    with pytest.raises(InvalidLength):
        sm2.decapsulate(key, c1, n)


@pytest.mark.parametrize("n", _BAD_LENGTHS)
def test_sm2_key_exchange_key_length_bounds(n: int) -> None:
    a, b = _sm2_pair()
    init = sm2.KeyExchangeInitiator(a, b.public_key())
    with pytest.raises(InvalidLength):
        sm2.KeyExchangeResponder(b, a.public_key()).respond(init.ephemeral_public_key, n)
    rb, _, _ = sm2.KeyExchangeResponder(b, a.public_key()).respond(init.ephemeral_public_key, 16)
    with pytest.raises(InvalidLength):
        init.finish(rb, n)


@pytest.mark.parametrize("n", _BAD_LENGTHS)
def test_sm9_key_length_bounds(n: int) -> None:
    pk = _SM9_KGC.public_key()
    uk = _SM9_KGC.extract(b"bob")
    _, c = pk.encapsulate(b"bob", 16)
    with pytest.raises(InvalidLength):
        pk.encapsulate(b"bob", n)
    with pytest.raises(InvalidLength):
        uk.decapsulate(c, n)
    a, b = _sm9_pair()
    with pytest.raises(InvalidLength):
        b.respond(a.ephemeral, n)
    with pytest.raises(InvalidLength):
        a.finish(b.ephemeral, n)


@pytest.mark.parametrize("n", [1, MAX])
def test_key_lengths_at_the_bounds_work(n: int) -> None:
    key = sm2.PrivateKey.generate()
    k, c1 = sm2.encapsulate(key.public_key(), n)
    assert len(k) == n and sm2.decapsulate(key, c1, n) == k
    a, b = _sm2_pair()
    init = sm2.KeyExchangeInitiator(a, b.public_key())
    rb, kb, sb = sm2.KeyExchangeResponder(b, a.public_key()).respond(init.ephemeral_public_key, n)
    ka, _ = init.finish(rb, n, peer_confirmation=sb)
    assert ka == kb and len(ka) == n
    pk = _SM9_KGC.public_key()
    k, c = pk.encapsulate(b"bob", n)
    assert len(k) == n and _SM9_KGC.extract(b"bob").decapsulate(c, n) == k
    x, y = _sm9_pair()
    k_y, s_y = y.respond(x.ephemeral, n)
    k_x, _ = x.finish(y.ephemeral, n, s_y)
    assert k_x == k_y and len(k_x) == n


@pytest.mark.parametrize("n", [2**64, 2**70, -1])
def test_key_lengths_beyond_u64_are_overflow_errors(n: int) -> None:
    key = sm2.PrivateKey.generate()
    with pytest.raises(OverflowError):
        key.public_key().encapsulate(n)
    with pytest.raises(OverflowError):
        _SM9_KGC.public_key().encapsulate(b"bob", n)


# ----------------------------------------------------------------- 5. strict parsing


@pytest.mark.parametrize("n", [0, 1, 16, 31, 33, 34, 64])
def test_sm2_private_key_from_bytes_is_exactly_32(n: int) -> None:
    d = sm2.PrivateKey.generate().to_bytes()
    data = d[-n:] if n <= 32 else bytes(n - 32) + d
    if n == 0:
        data = b""
    with pytest.raises(InvalidLength):
        sm2.PrivateKey.from_bytes(data)
    with pytest.raises(InvalidLength):
        sm2.PrivateKey.from_hex(data.hex())


def test_sm2_private_key_from_integer_bytes_is_the_lenient_path() -> None:
    for _ in range(5):
        d = b"\x00" + os.urandom(31)
        key = sm2.PrivateKey.from_bytes(d)
        assert sm2.PrivateKey.from_integer_bytes(d[1:]) == key
        assert sm2.PrivateKey.from_integer_bytes(b"\x00" + d) == key
        assert sm2.PrivateKey.from_integer_bytes(d) == key
    assert sm2.PrivateKey.from_integer_bytes(b"\x01").to_bytes() == bytes(31) + b"\x01"
    with pytest.raises(InvalidLength):
        sm2.PrivateKey.from_integer_bytes(b"")
    with pytest.raises(InvalidLength):
        sm2.PrivateKey.from_integer_bytes(b"\x01" + bytes(32))
    with pytest.raises(InvalidKey):
        sm2.PrivateKey.from_integer_bytes(N.to_bytes(32, "big"))
    with pytest.raises(InvalidKey):
        sm2.PrivateKey.from_integer_bytes(b"\x00")


@pytest.mark.parametrize("n", [0, 1, 31, 33, 64])
def test_sm9_master_keys_from_bytes_are_exactly_32(n: int) -> None:
    for cls in (sm9.SignMasterKey, sm9.EncMasterKey):
        d = cls.generate().to_bytes()
        data = d[-n:] if 0 < n <= 32 else bytes(n - 32) + d if n > 32 else b""
        with pytest.raises(InvalidLength):
            cls.from_bytes(data)


def test_sm9_user_keys_from_bytes_are_strict() -> None:
    mk = sm9.SignMasterKey.generate()
    uk = mk.extract(b"u").to_bytes()
    for data in (uk[:33], uk[:63], uk + b"\x00"):
        with pytest.raises(InvalidLength):
            sm9.SignUserKey.from_bytes(data, b"u", mk.public_key())
    ek = _SM9_KGC.extract(b"u").to_bytes()
    for data in (ek[:65], ek[:127], ek + b"\x00"):
        with pytest.raises(InvalidLength):
            sm9.EncUserKey.from_bytes(data, b"u", _SM9_KGC.public_key())


# ----------------------------------------------------------------- 6. hedged nonces


def test_sm2_signatures_of_one_message_differ_and_verify() -> None:
    key = sm2.PrivateKey.generate()
    sigs = {key.sign(b"same message", format="raw") for _ in range(8)}
    assert len(sigs) == 8
    assert all(key.public_key().verify(s, b"same message") for s in sigs)
    e = sm2.compute_z(key.public_key())
    digs = {key.sign_digest(e, format="raw") for _ in range(4)}
    assert len(digs) == 4
    assert all(key.public_key().verify_digest(s, e) for s in digs)


def test_sm9_signatures_of_one_message_differ_and_verify() -> None:
    mk = sm9.SignMasterKey.generate()
    uk = mk.extract(b"alice")
    sigs = {uk.sign(b"same message") for _ in range(4)}
    assert len(sigs) == 4
    assert all(mk.public_key().verify(s, b"same message", b"alice") for s in sigs)
