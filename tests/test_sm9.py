"""SM9 (GM/T 0044-2016): the standard's worked examples, round trips, encodings, bad
input, and a cross-check with the pure-Python gmalg package where installed."""

from __future__ import annotations

import os
from typing import Any

import pytest

from conftest import load_vectors
from guomi import sm9
from guomi.exceptions import (
    DecryptionError,
    InvalidArgument,
    InvalidKey,
    InvalidLength,
    InvalidTag,
    UnsupportedFormat,
)

VECTORS = load_vectors("sm9")
P = 0xB640000002A3A6F1D603AB4FF58EC74521F2934B1A7AEEDBE56F9B27E351457D
N = 0xB640000002A3A6F1D603AB4FF58EC74449F2934B18EA8BEEE56EE19CD69ECF25


def by_op(op: str) -> list[dict]:
    vs = [v for v in VECTORS if v["operation"] == op]
    assert vs, op
    return vs


def h(v: dict, k: str) -> bytes:
    return bytes.fromhex(v[k])


# ----------------------------------------------------------------- known answers


@pytest.mark.parametrize("v", by_op("sign"), ids=lambda v: v["name"])
def test_sign_example(v: dict) -> None:
    uid = v["user_id"].encode()
    msg = h(v, "message")
    mk = sm9.SignMasterKey.from_bytes(h(v, "master_private_key_ks"))
    assert mk.to_bytes() == h(v, "master_private_key_ks")
    uk = mk.extract(uid)
    assert uk.to_bytes() == b"\x04" + h(v, "user_private_key_ds_A")
    assert uk.user_id == uid
    pk = mk.public_key()
    sig = h(v, "h") + h(v, "S")
    assert pk.verify(sig, msg, uid)
    # Reproducing the signature from the standard's fixed r is a Rust-only known-answer
    # test (crates/guomi-core/tests/sm9_kat.rs): no fixed-r hook ships in the module.
    # DER form.
    der = sm9.signature_to_der(sig)
    assert der[0] == 0x30
    assert sm9.signature_from_der(der) == sig
    assert pk.verify(der, msg, uid, format="der")
    assert not pk.verify(sig, msg + b"x", uid)
    assert not pk.verify(sig, msg, b"Bob")
    # The user key reloads from the vector's x || y form.
    uk2 = sm9.SignUserKey.from_bytes(h(v, "user_private_key_ds_A"), uid, pk)
    assert pk.verify(uk2.sign(msg), msg, uid)


@pytest.mark.parametrize("v", by_op("encrypt"), ids=lambda v: v["name"])
def test_encrypt_example(v: dict) -> None:
    uid = v["user_id"].encode()
    msg = h(v, "message")
    mk = sm9.EncMasterKey.from_bytes(h(v, "master_private_key_ke"))
    pk = mk.public_key()
    assert pk.to_bytes() == b"\x04" + h(v, "master_public_key_Ppub_e")
    uk = mk.extract(uid)
    assert uk.hid == sm9.HID_ENCRYPT
    assert uk.to_bytes() == b"\x04" + h(v, "user_private_key_de_B")
    ct = h(v, "ciphertext_C1C3C2")
    assert ct == h(v, "C1") + h(v, "C3") + h(v, "C2")
    assert uk.decrypt(ct) == msg
    # Encryption with the standard's fixed r: Rust-only KAT (crates/guomi-core/tests/sm9_kat.rs).
    assert uk.decrypt(pk.encrypt(msg, uid)) == msg
    der = sm9.ciphertext_to_der(ct)
    assert sm9.ciphertext_from_der(der) == ct
    assert uk.decrypt(der, format="der") == msg
    uk2 = sm9.EncUserKey.from_bytes(
        h(v, "user_private_key_de_B"), uid, sm9.EncMasterPublicKey.from_bytes(pk.to_bytes())
    )
    assert uk2.decrypt(ct) == msg


@pytest.mark.parametrize("v", by_op("key_exchange"), ids=lambda v: v["name"])
def test_key_exchange_example(v: dict) -> None:
    ida, idb = v["id_A"].encode(), v["id_B"].encode()
    mk = sm9.EncMasterKey.from_bytes(h(v, "master_private_key_ke"))
    assert mk.public_key().to_bytes() == b"\x04" + h(v, "master_public_key_Ppub_e")
    ka = mk.extract(ida, hid=sm9.HID_EXCHANGE)
    kb = mk.extract(idb, hid=sm9.HID_EXCHANGE)
    assert ka.to_bytes() == b"\x04" + h(v, "user_private_key_de_A")
    assert kb.to_bytes() == b"\x04" + h(v, "user_private_key_de_B")
    # The exchange with the standard's fixed r_A, r_B (R_A, SK, S_B, S_A) is a Rust-only
    # known-answer test (crates/guomi-core/tests/sm9_kat.rs); here the vector's keys and IDs
    # run a full exchange with fresh ephemerals.
    a = sm9.KeyExchange(ka, idb, initiator=True)
    b = sm9.KeyExchange(kb, ida, initiator=False)
    assert a.initiator and not b.initiator
    klen = v["klen_bytes"]
    sk_b, s_b = b.respond(a.ephemeral, klen)
    sk_a, s_a = a.finish(b.ephemeral, klen, s_b)
    assert sk_a == sk_b and len(sk_a) == klen
    b.confirm(s_a)


# ----------------------------------------------------------------- pairing


def test_pairing_bilinear_nondegenerate() -> None:
    e = sm9.pairing(sm9.P1, sm9.P2)
    assert len(e) == 384
    assert e != (b"\x00" * 383 + b"\x01")  # e(P1, P2) != 1 in GT
    k = os.urandom(31).rjust(32, b"\x01")
    # e(P1, [k]P2) == e([k]P1, P2): Ppub-s = [k]P2 and Ppub-e = [k]P1 for the same k.
    spk = sm9.SignMasterKey.from_bytes(k).public_key().to_bytes()
    epk = sm9.EncMasterKey.from_bytes(k).public_key().to_bytes()
    assert sm9.pairing(sm9.P1, spk) == sm9.pairing(epk, sm9.P2)
    assert sm9.pairing(sm9.P1, spk) != e
    with pytest.raises(InvalidKey):
        sm9.pairing(sm9.P1[:-1] + bytes([sm9.P1[-1] ^ 1]), sm9.P2)
    with pytest.raises(InvalidLength):
        sm9.pairing(sm9.P2, sm9.P1)


# ----------------------------------------------------------------- round trips


@pytest.fixture(scope="module")
def sign_kgc() -> sm9.SignMasterKey:
    return sm9.SignMasterKey.generate()


@pytest.fixture(scope="module")
def enc_kgc() -> sm9.EncMasterKey:
    return sm9.EncMasterKey.generate()


@pytest.mark.parametrize("n", range(4))
def test_sign_round_trip(sign_kgc: sm9.SignMasterKey, n: int) -> None:
    uid = os.urandom(1 + n * 7)
    msg = os.urandom(n * 33)
    uk = sign_kgc.extract(uid)
    pk = sign_kgc.public_key()
    for fmt in ("raw", "der"):
        sig = uk.sign(msg, format=fmt)
        assert pk.verify(sig, msg, uid, format=fmt)
        assert not pk.verify(sig, msg + b"\x00", uid, format=fmt)
        assert not pk.verify(sig, msg, uid + b"\x00", format=fmt)
    raw = uk.sign(msg)
    assert len(raw) == 97 and raw[32] == 4
    assert uk.sign(msg) != raw  # randomized
    # bytes-like inputs
    assert pk.verify(bytearray(raw), memoryview(msg), bytearray(uid))


def test_sign_keys_serialize(sign_kgc: sm9.SignMasterKey) -> None:
    mk2 = sm9.SignMasterKey.from_bytes(sign_kgc.to_bytes())
    assert mk2.public_key() == sign_kgc.public_key()
    pkb = sign_kgc.public_key().to_bytes()
    assert len(pkb) == 129 and pkb[0] == 4
    pk2 = sm9.SignMasterPublicKey.from_bytes(pkb)
    assert pk2 == sign_kgc.public_key()
    assert sm9.SignMasterPublicKey.from_bytes(pkb[1:]) == pk2
    uk = sign_kgc.extract(b"carol")
    uk2 = sm9.SignUserKey.from_bytes(uk.to_bytes(), b"carol", pk2)
    assert pk2.verify(uk2.sign(b"m"), b"m", b"carol")
    assert uk2.master_public_key() == pk2
    with pytest.raises(InvalidKey):
        sm9.SignUserKey.from_bytes(uk.to_bytes(), b"dave", pk2)
    with pytest.raises(InvalidKey):
        sm9.SignUserKey.from_bytes(uk.to_bytes(), b"carol", sm9.SignMasterKey.generate().public_key())


@pytest.mark.parametrize("n", [0, 1, 32, 1000])
def test_encrypt_round_trip(enc_kgc: sm9.EncMasterKey, n: int) -> None:
    uid = os.urandom(9)
    msg = os.urandom(n)
    pk = enc_kgc.public_key()
    uk = enc_kgc.extract(uid)
    ct = pk.encrypt(msg, uid)
    assert len(ct) == 96 + n
    assert uk.decrypt(ct) == msg
    der = pk.encrypt(msg, uid, format="der")
    assert der[0] == 0x30
    assert uk.decrypt(der, format="der") == msg
    assert pk.encrypt(msg, uid, cipher="kdf") != ct
    with pytest.raises(DecryptionError):
        enc_kgc.extract(uid + b"x").decrypt(ct)


def test_gmssl_hmac_mac(enc_kgc: sm9.EncMasterKey) -> None:
    pk = enc_kgc.public_key()
    uk = enc_kgc.extract(b"bob")
    ct = pk.encrypt(b"gmssl style", b"bob", mac="hmac-sm3", format="der")
    assert uk.decrypt(ct, mac="hmac-sm3", format="der") == b"gmssl style"
    with pytest.raises(DecryptionError):
        uk.decrypt(ct, format="der")
    with pytest.raises(DecryptionError):
        uk.decrypt(pk.encrypt(b"standard", b"bob"), mac="hmac-sm3")
    with pytest.raises(InvalidArgument):
        pk.encrypt(b"x", b"bob", mac="md5")


def test_kem_round_trip(enc_kgc: sm9.EncMasterKey) -> None:
    pk = enc_kgc.public_key()
    uk = enc_kgc.extract(b"bob")
    for klen in (1, 16, 32, 100):
        key, c = pk.encapsulate(b"bob", klen)
        assert len(key) == klen and len(c) == 65 and c[0] == 4
        assert uk.decapsulate(c, klen) == key
        assert uk.decapsulate(c[1:], klen) == key
    key, c = pk.encapsulate(b"bob", 32)
    assert enc_kgc.extract(b"eve").decapsulate(c, 32) != key
    with pytest.raises(InvalidLength):
        pk.encapsulate(b"bob", 0)
    bad = bytearray(c)
    bad[10] ^= 1
    with pytest.raises(DecryptionError):
        uk.decapsulate(bytes(bad), 32)


def test_enc_keys_serialize(enc_kgc: sm9.EncMasterKey) -> None:
    mk2 = sm9.EncMasterKey.from_bytes(enc_kgc.to_bytes())
    assert mk2.public_key() == enc_kgc.public_key()
    pkb = enc_kgc.public_key().to_bytes()
    assert len(pkb) == 65
    pk2 = sm9.EncMasterPublicKey.from_bytes(pkb)
    uk = enc_kgc.extract(b"erin")
    assert len(uk.to_bytes()) == 129
    uk2 = sm9.EncUserKey.from_bytes(uk.to_bytes(), b"erin", pk2)
    assert uk2.decrypt(pk2.encrypt(b"hi", b"erin")) == b"hi"
    with pytest.raises(InvalidKey):
        sm9.EncUserKey.from_bytes(uk.to_bytes(), b"frank", pk2)
    with pytest.raises(InvalidKey):
        sm9.EncUserKey.from_bytes(uk.to_bytes(), b"erin", pk2, hid=sm9.HID_EXCHANGE)
    kx = enc_kgc.extract(b"erin", hid=sm9.HID_EXCHANGE)
    assert kx.hid == 2
    assert sm9.EncUserKey.from_bytes(kx.to_bytes(), b"erin", pk2, hid=2).hid == 2


@pytest.mark.parametrize("confirm", [True, False])
def test_key_exchange_round_trip(enc_kgc: sm9.EncMasterKey, confirm: bool) -> None:
    ka = enc_kgc.extract(b"alice", hid=sm9.HID_EXCHANGE)
    kb = enc_kgc.extract(b"bob", hid=sm9.HID_EXCHANGE)
    a = sm9.KeyExchange(ka, b"bob", initiator=True)
    b = sm9.KeyExchange(kb, b"alice", initiator=False)
    assert len(a.ephemeral) == 65
    sk_b, s_b = b.respond(a.ephemeral, 48)
    sk_a, s_a = a.finish(b.ephemeral, 48, s_b if confirm else None)
    assert sk_a == sk_b and len(sk_a) == 48
    b.confirm(s_a)
    with pytest.raises(InvalidTag):
        b.confirm(bytes(32))


# ----------------------------------------------------------------- bad input


def test_master_key_scalar_range() -> None:
    for bad in (bytes(32), N.to_bytes(32, "big"), (N + 1).to_bytes(32, "big"), b"\xff" * 32):
        with pytest.raises(InvalidKey):
            sm9.SignMasterKey.from_bytes(bad)
        with pytest.raises(InvalidKey):
            sm9.EncMasterKey.from_bytes(bad)
    with pytest.raises(InvalidLength):
        sm9.SignMasterKey.from_bytes(bytes(31))
    with pytest.raises(InvalidLength):
        sm9.EncMasterKey.from_bytes(bytes(33))
    sm9.SignMasterKey.from_bytes((N - 1).to_bytes(32, "big"))
    sm9.EncMasterKey.from_bytes((1).to_bytes(32, "big"))


def test_str_is_type_error(sign_kgc: sm9.SignMasterKey, enc_kgc: sm9.EncMasterKey) -> None:
    with pytest.raises(TypeError):
        sign_kgc.extract("alice")  # type: ignore[arg-type]
    uk = sign_kgc.extract(b"alice")
    with pytest.raises(TypeError):
        uk.sign("msg")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        sign_kgc.public_key().verify(uk.sign(b"m"), b"m", "alice")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        enc_kgc.public_key().encrypt(b"m", "bob")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        sm9.SignMasterKey.from_bytes("00" * 32)  # type: ignore[arg-type]


def test_verify_malformed_is_false(sign_kgc: sm9.SignMasterKey) -> None:
    pk = sign_kgc.public_key()
    uk = sign_kgc.extract(b"alice")
    sig = uk.sign(b"m")
    assert pk.verify(sig, b"m", b"alice")
    for i in (0, 31, 32, 40, 96):
        bad = bytearray(sig)
        bad[i] ^= 0x01
        assert not pk.verify(bytes(bad), b"m", b"alice")
    assert not pk.verify(sig[:-1], b"m", b"alice")
    assert not pk.verify(sig + b"\x00", b"m", b"alice")
    assert not pk.verify(b"", b"m", b"alice")
    # h = 0 and h = N are outside [1, N-1].
    assert not pk.verify(bytes(32) + sig[32:], b"m", b"alice")
    assert not pk.verify(N.to_bytes(32, "big") + sig[32:], b"m", b"alice")
    # S off the curve.
    assert not pk.verify(sig[:33] + bytes(64), b"m", b"alice")
    # DER given where raw is expected and the reverse.
    der = uk.sign(b"m", format="der")
    assert not pk.verify(der, b"m", b"alice")
    assert not pk.verify(sig, b"m", b"alice", format="der")
    assert not pk.verify(der + b"\x00", b"m", b"alice", format="der")
    with pytest.raises(InvalidArgument):
        pk.verify(sig, b"m", b"alice", format="pem")
    with pytest.raises(InvalidArgument):
        uk.sign(b"m", format="xml")


def test_decrypt_tampered(enc_kgc: sm9.EncMasterKey) -> None:
    pk = enc_kgc.public_key()
    uk = enc_kgc.extract(b"bob")
    ct = pk.encrypt(b"attack at dawn", b"bob")
    for i in (0, 63, 64, 95, 96, len(ct) - 1):
        bad = bytearray(ct)
        bad[i] ^= 0x80
        with pytest.raises(DecryptionError):
            uk.decrypt(bytes(bad))
    for short in (b"", ct[:95]):
        with pytest.raises(DecryptionError):
            uk.decrypt(short)
    with pytest.raises(DecryptionError):
        uk.decrypt(ct + b"\x00")
    with pytest.raises(DecryptionError):
        uk.decrypt(ct, format="der")
    der = pk.encrypt(b"x", b"bob", format="der")
    with pytest.raises(DecryptionError):
        uk.decrypt(der[:-1], format="der")
    with pytest.raises(InvalidArgument):
        pk.encrypt(b"x", b"bob", cipher="aes-cbc")
    with pytest.raises(InvalidArgument):
        uk.decrypt(ct, cipher="aes")


def _fp2_sqrt(a0: int, a1: int) -> tuple[int, int] | None:
    """A square root in Fp2 = Fp[u]/(u^2 + 2), or None (test helper, not constant time)."""

    def fp_sqrt(x: int) -> int | None:
        x %= P
        if x == 0:
            return 0
        if pow(x, (P - 1) // 2, P) != 1:
            return None
        q, s = P - 1, 0
        while q % 2 == 0:
            q //= 2
            s += 1
        z = 2
        while pow(z, (P - 1) // 2, P) != P - 1:
            z += 1
        m, c, t, r = s, pow(z, q, P), pow(x, q, P), pow(x, (q + 1) // 2, P)
        while t != 1:
            i, t2 = 0, t
            while t2 != 1:
                t2 = t2 * t2 % P
                i += 1
            b = pow(c, 1 << (m - i - 1), P)
            m, c, t, r = i, b * b % P, t * b * b % P, r * b % P
        return r

    norm = (a0 * a0 + 2 * a1 * a1) % P
    n = fp_sqrt(norm)
    if n is None:
        return None
    inv2 = pow(2, -1, P)
    for cand in (n, P - n):
        x0 = fp_sqrt((a0 + cand) * inv2)
        if x0 is None or x0 == 0:
            continue
        x1 = a1 * pow(2 * x0, -1, P) % P
        if (x0 * x0 - 2 * x1 * x1 - a0) % P == 0 and (2 * x0 * x1 - a1) % P == 0:
            return x0, x1
    return None


def _twist_point_outside_g2() -> bytes:
    """A point on the twist y^2 = x^3 + 5u that is not in G2 (the cofactor is 2p - N)."""
    for x0 in range(1, 200):
        x = (x0, 1)
        # x^3 in Fp2 with u^2 = -2
        sq = ((x[0] * x[0] - 2 * x[1] * x[1]) % P, (2 * x[0] * x[1]) % P)
        cu = ((sq[0] * x[0] - 2 * sq[1] * x[1]) % P, (sq[0] * x[1] + sq[1] * x[0]) % P)
        rhs = (cu[0], (cu[1] + 5) % P)
        y = _fp2_sqrt(*rhs)
        if y is not None:
            be = lambda v: v.to_bytes(32, "big")  # noqa: E731
            return b"\x04" + be(x[1]) + be(x[0]) + be(y[1]) + be(y[0])
    raise AssertionError("no twist point found")


def test_points_rejected(sign_kgc: sm9.SignMasterKey, enc_kgc: sm9.EncMasterKey) -> None:
    g2 = sign_kgc.public_key().to_bytes()
    # off the twist
    bad = bytearray(g2)
    bad[-1] ^= 1
    with pytest.raises(InvalidKey):
        sm9.SignMasterPublicKey.from_bytes(bytes(bad))
    # on the twist, outside G2
    with pytest.raises(InvalidKey, match="subgroup"):
        sm9.SignMasterPublicKey.from_bytes(_twist_point_outside_g2())
    # coordinate >= p
    with pytest.raises(InvalidKey):
        sm9.SignMasterPublicKey.from_bytes(b"\x04" + b"\xff" * 128)
    with pytest.raises(InvalidLength):
        sm9.SignMasterPublicKey.from_bytes(g2[:100])
    with pytest.raises(UnsupportedFormat):
        sm9.SignMasterPublicKey.from_bytes(b"\x02" + g2[1:])
    g1 = enc_kgc.public_key().to_bytes()
    bad = bytearray(g1)
    bad[-1] ^= 1
    with pytest.raises(InvalidKey):
        sm9.EncMasterPublicKey.from_bytes(bytes(bad))
    with pytest.raises(InvalidLength):
        sm9.EncMasterPublicKey.from_bytes(g1[:10])
    # user keys off their curves
    uk = sign_kgc.extract(b"a").to_bytes()
    with pytest.raises(InvalidKey):
        sm9.SignUserKey.from_bytes(uk[:-1] + bytes([uk[-1] ^ 1]), b"a", sign_kgc.public_key())
    # key exchange: peer point off the curve, wrong key type, wrong role
    ka = enc_kgc.extract(b"a", hid=sm9.HID_EXCHANGE)
    kx = sm9.KeyExchange(ka, b"b", initiator=True)
    with pytest.raises(InvalidKey):
        kx.finish(g1[:-1] + bytes([g1[-1] ^ 1]), 16)
    with pytest.raises(InvalidArgument):
        kx.respond(g1, 16)
    with pytest.raises(InvalidKey):
        sm9.KeyExchange(enc_kgc.extract(b"a"), b"b", initiator=True)


def test_key_exchange_wrong_confirmation(enc_kgc: sm9.EncMasterKey) -> None:
    ka = enc_kgc.extract(b"alice", hid=sm9.HID_EXCHANGE)
    kb = enc_kgc.extract(b"bob", hid=sm9.HID_EXCHANGE)
    a = sm9.KeyExchange(ka, b"bob", initiator=True)
    b = sm9.KeyExchange(kb, b"alice", initiator=False)
    _, s_b = b.respond(a.ephemeral, 16)
    with pytest.raises(InvalidTag):
        a.finish(b.ephemeral, 16, bytes(32))
    # a peer with the wrong identity derives a different key
    c = sm9.KeyExchange(kb, b"mallory", initiator=False)
    a2 = sm9.KeyExchange(ka, b"bob", initiator=True)
    k_c, s_c = c.respond(a2.ephemeral, 16)
    with pytest.raises(InvalidTag):
        a2.finish(c.ephemeral, 16, s_c)


def test_keys_immutable_and_repr(sign_kgc: sm9.SignMasterKey, enc_kgc: sm9.EncMasterKey) -> None:
    secret = sign_kgc.to_bytes().hex()
    for obj in (
        sign_kgc,
        sign_kgc.extract(b"a"),
        enc_kgc,
        enc_kgc.extract(b"a"),
        sign_kgc.public_key(),
    ):
        assert secret not in repr(obj)
        assert "secret" in repr(obj) or "Public" in repr(obj)
        with pytest.raises((AttributeError, TypeError)):
            obj.x = 1  # type: ignore[attr-defined]


# C1 / C written with or without the 04 prefix (BouncyCastle's KEM writes x || y).


def test_kem_without_prefix_is_64_bytes_and_both_forms_decapsulate(enc_kgc: sm9.EncMasterKey) -> None:
    kgc = enc_kgc
    user = kgc.extract(b"bob")
    pk = kgc.public_key()
    key, c = pk.encapsulate(b"bob", 32, c1_prefix=False)
    assert len(c) == 64
    assert user.decapsulate(c, 32) == key
    assert user.decapsulate(b"\x04" + c, 32) == key
    key, c = pk.encapsulate(b"bob", 16)
    assert len(c) == 65 and c[0] == 4
    assert user.decapsulate(c[1:], 16) == key


def test_encrypt_raw_with_prefixed_c1_decrypts(enc_kgc: sm9.EncMasterKey) -> None:
    kgc = enc_kgc
    user = kgc.extract(b"bob")
    pk = kgc.public_key()
    for cipher in ("kdf", "sm4-cbc"):
        ct = pk.encrypt(b"hello", b"bob", cipher=cipher, c1_prefix=True)
        assert ct[0] == 4
        assert user.decrypt(ct, cipher=cipher) == b"hello"
        der = sm9.ciphertext_to_der(ct, cipher=cipher)
        assert user.decrypt(der, format="der") == b"hello"
        bare = sm9.ciphertext_from_der(der)
        assert bare == ct[1:]
        assert sm9.ciphertext_from_der(der, c1_prefix=True) == ct
        assert user.decrypt(bare, cipher=cipher) == b"hello"
    # c1_prefix does not change DER (its C1 always holds 04 || x || y).
    der = pk.encrypt(b"m", b"bob", format="der", c1_prefix=True)
    assert user.decrypt(der, format="der") == b"m"


def test_bare_c1_starting_with_04_is_not_misread(enc_kgc: sm9.EncMasterKey) -> None:
    kgc = enc_kgc
    user = kgc.extract(b"bob")
    pk = kgc.public_key()
    for i in range(4000):
        msg = i.to_bytes(2, "big")
        ct = pk.encrypt(msg, b"bob")
        if ct[0] == 4:
            assert len(ct) == 96 + len(msg)
            assert user.decrypt(ct) == msg
            assert sm9.ciphertext_from_der(sm9.ciphertext_to_der(ct)) == ct
            break
    else:  # pragma: no cover - probability (255/256)^4000
        pytest.fail("no ciphertext with x1 starting 04")


def test_prefixed_c1_bad_inputs(enc_kgc: sm9.EncMasterKey) -> None:
    kgc = enc_kgc
    user = kgc.extract(b"bob")
    ct = kgc.public_key().encrypt(b"hello", b"bob", c1_prefix=True)
    # 04 followed by 64 bytes that are not a G1 point: read as a bare C1, which is
    # not a point either: the one opaque error.
    bad = b"\x04" + bytes(64) + ct[65:]
    with pytest.raises(DecryptionError):
        user.decrypt(bad)
    with pytest.raises(DecryptionError):
        user.decrypt(ct[:96])


def test_bouncycastle_kem_encapsulation_decapsulates() -> None:
    # BouncyCastle 1.87's SM9KEMGenerator writes C as 64-byte x || y (and its extractor
    # refuses 04 || x || y): vectors/sm9_kem_bc.json.
    for v in load_vectors("sm9_kem_bc"):
        mk = sm9.EncMasterKey.from_bytes(bytes.fromhex(v["master_key"]))
        assert mk.public_key().to_bytes().hex() == v["master_public_key"]
        user = mk.extract(bytes.fromhex(v["user_id"]))
        c, key = bytes.fromhex(v["c"]), bytes.fromhex(v["key"])
        assert len(c) == 64
        assert user.decapsulate(c, v["key_length"]) == key
        assert user.decapsulate(b"\x04" + c, v["key_length"]) == key


# ----------------------------------------------------------------- gmalg cross-check


def _gmalg() -> Any:
    """gmalg, or skip the calling test (not the whole module) when it is missing."""
    return pytest.importorskip("gmalg", reason="gmalg not installed")


def test_cross_gmalg_sign() -> None:
    gmalg = _gmalg()
    mk = sm9.SignMasterKey.generate()
    uid = b"alice@gmalg"
    kgc = gmalg.SM9KGC(hid_s=b"\x01", msk_s=mk.to_bytes())
    mpk = kgc.generate_mpk_sign(mk.to_bytes())
    assert mpk == mk.public_key().to_bytes()
    sk = kgc.generate_sk_sign(uid)
    assert sk == mk.extract(uid).to_bytes()
    theirs = gmalg.SM9(hid_s=b"\x01", mpk_s=mpk, sk_s=sk, uid=uid)
    hh, s = theirs.sign(b"cross check")
    assert mk.public_key().verify(hh.rjust(32, b"\0") + s, b"cross check", uid)
    ours = mk.extract(uid).sign(b"from guomi")
    assert theirs.verify(b"from guomi", ours[:32], ours[32:])
    assert not theirs.verify(b"tampered", ours[:32], ours[32:])


def test_cross_gmalg_encrypt() -> None:
    gmalg = _gmalg()
    mk = sm9.EncMasterKey.generate()
    uid = b"bob@gmalg"
    kgc = gmalg.SM9KGC(hid_e=b"\x03", msk_e=mk.to_bytes())
    mpk = kgc.generate_mpk_encrypt(mk.to_bytes())
    assert mpk == mk.public_key().to_bytes()
    sk = kgc.generate_sk_encrypt(uid)
    assert sk == mk.extract(uid).to_bytes()
    theirs = gmalg.SM9(hid_e=b"\x03", mpk_e=mpk, sk_e=sk, uid=uid)
    ct = theirs.encrypt(b"to guomi", uid)
    assert ct[0] == 4
    assert mk.extract(uid).decrypt(ct[1:]) == b"to guomi"
    ours = mk.public_key().encrypt(b"to gmalg", uid)
    assert theirs.decrypt(b"\x04" + ours) == b"to gmalg"


SM4_CIPHERS = {"sm4-ecb": 1, "sm4-cbc": 2, "sm4-ofb": 4, "sm4-cfb": 8}


@pytest.mark.parametrize("cipher", sorted(SM4_CIPHERS))
@pytest.mark.parametrize("size", [0, 1, 15, 16, 17, 100])
def test_sm4_block_cipher_variant(cipher: str, size: int) -> None:
    """GM/T 0044 Part 4 A6 with the block cipher: K1 is a 16-byte SM4 key."""
    master = sm9.EncMasterKey.generate()
    pk, uk = master.public_key(), master.extract(b"bob")
    msg = bytes(range(size))
    raw = pk.encrypt(msg, b"bob", cipher=cipher)
    body = len(raw) - 96  # C1 (64) || C3 (32) || C2
    padded = cipher in ("sm4-ecb", "sm4-cbc")
    iv = 0 if cipher == "sm4-ecb" else 16
    assert body == iv + ((size // 16 + 1) * 16 if padded else size)
    assert uk.decrypt(raw, cipher=cipher) == msg
    # Read as the KDF stream cipher: C3 fails, except when C2 is exactly 16 bytes (then K1
    # has the same length in both readings and GM/T 0044's MAC cannot tell them apart).
    if body != 16:
        with pytest.raises(DecryptionError):
            uk.decrypt(raw)
    else:
        assert uk.decrypt(raw) != msg
    der = pk.encrypt(msg, b"bob", cipher=cipher, format="der", mac="hmac-sm3")
    start = 2 + (der[1] & 0x7F if der[1] & 0x80 else 0)  # after the SEQUENCE header
    assert der[start : start + 3] == bytes([0x02, 0x01, SM4_CIPHERS[cipher]])  # EnType
    assert uk.decrypt(der, format="der", mac="hmac-sm3") == msg
    assert uk.decrypt(der, format="der", mac="hmac-sm3", cipher=cipher) == msg
    with pytest.raises(DecryptionError):
        uk.decrypt(der, format="der", mac="hmac-sm3", cipher="kdf")
    bad = bytearray(raw)
    bad[-1] ^= 1
    with pytest.raises(DecryptionError):
        uk.decrypt(bytes(bad), cipher=cipher)
    assert sm9.ciphertext_from_der(sm9.ciphertext_to_der(raw, cipher=cipher)) == raw
