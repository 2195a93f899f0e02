"""guomi.compat.gmssl against the real gmssl package (3.2.x), over random inputs from a
fixed seed: byte-identical results for deterministic operations, cross-decryption and
cross-verification both ways for randomized ones, and every bad-input path.
"""

from __future__ import annotations

import random
import warnings
from collections.abc import Callable
from typing import Any

import pytest

pytest.importorskip("gmssl.sm2", reason="the gmssl package (the test oracle) is not installed")

import gmssl.func as g_func  # noqa: E402
import gmssl.sm2 as g_sm2  # noqa: E402
import gmssl.sm3 as g_sm3  # noqa: E402
import gmssl.sm4 as g_sm4  # noqa: E402

import guomi.sm2  # noqa: E402
from guomi.compat.gmssl import (  # noqa: E402
    InsecureParameterWarning,
    LengthError,
    PaddingError,
    SM2DecryptionError,
    func,
    sm2,
    sm3,
    sm4,
)
from guomi.exceptions import (  # noqa: E402
    DecryptionError,
    GuomiError,
    InvalidArgument,
    InvalidKey,
    InvalidLength,
    InvalidPadding,
)

SEED = 20260117
N = int(sm2.default_ecc_table["n"], 16)

# GB/T 32918.5 Appendix A key: its x coordinate starts with 09, so gmssl's
# public_key.lstrip("04") turns "04" + x || y into garbage.
D = "3945208f7b2144b13f36e38ac6d39f95889393692860b51a42fb81ef4df7c5b8"
P = (
    "09f9df311e5421a150dd7d161e4bc5c672179fad1833fc076bb08ff356f35020"
    "ccea490ce26775a52dc6ea718cc1aa600aed05fbf35e084a6632f6072da9ad13"
)


def rng(salt: int = 0) -> random.Random:
    return random.Random(SEED + salt)


def rbytes(r: random.Random, n: int) -> bytes:
    return bytes(r.getrandbits(8) for _ in range(n))


def outcome(f: Callable[[], Any]) -> tuple[str, Any]:
    """("ok", result) or ("raise", exception type)."""
    try:
        return ("ok", f())
    except Exception as exc:  # noqa: BLE001 - the oracle's accidental exceptions are data here
        return ("raise", type(exc))


def keypairs() -> list[tuple[str, str]]:
    """(d hex, x||y hex) pairs: the standard key and random ones (fixed by the seed)."""
    r = rng(1)
    pairs = [(D, P)]
    for _ in range(3):
        d = r.randrange(1, N - 1)
        key = guomi.sm2.PrivateKey.from_bytes(d.to_bytes(32, "big"))
        pairs.append((key.to_hex(), key.public_key().to_hex(format="raw")))
    return pairs


PAIRS = keypairs()


# -- API surface -------------------------------------------------------------------------

IMPORTED = {
    # names gmssl's modules import from elsewhere (not part of its API)
    "func": {"choice"},
    "sm2": {"binascii", "choice", "sm3", "func", "DerSequence", "DerInteger", "unhexlify"},
    "sm3": {"binascii", "ceil", "rotl", "bytes_to_list"},
    "sm4": {
        "copy",
        "xor",
        "rotl",
        "get_uint32_be",
        "put_uint32_be",
        "bytes_to_list",
        "list_to_bytes",
        "pkcs7_padding",
        "pkcs7_unpadding",
        "zero_padding",
        "zero_unpadding",
    },
}
# gmssl's algorithm internals, deliberately not provided (see the module docstrings).
OMITTED = {
    "func": set(),
    "sm2": set(),
    "sm3": {"IV", "T_j", "sm3_cf", "sm3_ff_j", "sm3_gg_j", "sm3_p_0", "sm3_p_1"},
    "sm4": {"SM4_BOXES_TABLE", "SM4_FK", "SM4_CK"},
}


@pytest.mark.parametrize("name", ["func", "sm2", "sm3", "sm4"])
def test_module_names(name: str) -> None:
    theirs = {n for n in dir(globals()[f"g_{name}"]) if not n.startswith("_")} - IMPORTED[name]
    ours = {n for n in dir(globals()[name]) if not n.startswith("_")}
    assert theirs - OMITTED[name] <= ours
    assert theirs & OMITTED[name] == OMITTED[name]  # the omission list is not stale


def test_class_methods() -> None:
    def public(cls: type) -> set[str]:
        return {n for n in vars(cls) if not n.startswith("_")}

    assert public(g_sm2.CryptSM2) <= public(sm2.CryptSM2)
    assert public(g_sm4.CryptSM4) - {"one_round"} <= public(sm4.CryptSM4)
    assert sm4.SM4_ENCRYPT == g_sm4.SM4_ENCRYPT == 0 and sm4.SM4_DECRYPT == g_sm4.SM4_DECRYPT == 1
    assert sm4.PKCS7 == g_sm4.PKCS7 == 0 and sm4.ZERO == g_sm4.ZERO == 1
    assert sm2.default_ecc_table == g_sm2.default_ecc_table


def test_one_line_import() -> None:
    from guomi.compat.gmssl import func as f2
    from guomi.compat.gmssl import sm2 as s2

    assert f2 is func and s2 is sm2
    assert issubclass(InsecureParameterWarning, UserWarning)
    for exc, bases in [
        (LengthError, (InvalidLength, IndexError)),
        (PaddingError, (InvalidPadding, IndexError, TypeError)),
        (SM2DecryptionError, (DecryptionError, ValueError)),
    ]:
        assert all(issubclass(exc, b) for b in bases) and issubclass(exc, GuomiError)


# -- SM3 ---------------------------------------------------------------------------------

SM3_LENGTHS = [0, 1, 3, 55, 56, 57, 63, 64, 65, 119, 120, 128, 200, 1000]


def test_sm3_hash_identical() -> None:
    r = rng(2)
    lengths = SM3_LENGTHS + [r.randrange(0, 300) for _ in range(20)]
    for n in lengths:
        msg = list(rbytes(r, n))
        expected = g_sm3.sm3_hash(list(msg))
        assert sm3.sm3_hash(msg) == expected
        assert sm3.sm3_hash(bytes(msg)) == expected
        assert sm3.sm3_hash(bytearray(msg)) == expected
        assert sm3.sm3_hash(memoryview(bytes(msg))) == expected
        assert sm3.sm3_hash(tuple(msg)) == expected
    assert sm3.sm3_hash(list(b"abc")) == "66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0"


def test_sm3_hash_does_not_mutate() -> None:
    msg = list(b"abc")
    first = sm3.sm3_hash(msg)
    assert msg == list(b"abc") and sm3.sm3_hash(msg) == first
    # gmssl appends its padding to the caller's list: a second call hashes something else.
    theirs = list(b"abc")
    assert g_sm3.sm3_hash(theirs) == first
    assert len(theirs) == 64 and g_sm3.sm3_hash(theirs) != first


def test_sm3_hash_bad_input() -> None:
    with pytest.raises(TypeError):
        sm3.sm3_hash("abc")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        sm3.sm3_hash(5)  # type: ignore[arg-type]  # bytes(5) would be five zeros
    with pytest.raises(ValueError):
        sm3.sm3_hash([1, 256])
    with pytest.raises(TypeError):
        sm3.sm3_hash([1, "a"])  # type: ignore[list-item]
    assert outcome(lambda: g_sm3.sm3_hash(b"abc"))[0] == "raise"  # gmssl needs a list


def test_sm3_kdf_identical() -> None:
    r = rng(3)
    for _ in range(40):
        z = rbytes(r, r.choice([1, 16, 32, 64, 65, 100])).hex().encode()
        klen = r.choice([0, 1, 16, 31, 32, 33, 64, 100, r.randrange(0, 300)])
        assert sm3.sm3_kdf(z, klen) == g_sm3.sm3_kdf(z, klen)
        assert sm3.sm3_kdf(z.decode(), klen) == g_sm3.sm3_kdf(z, klen)
    z = b"0123456789abcdef" * 4
    assert sm3.sm3_kdf(z, 5.9) == g_sm3.sm3_kdf(z, 5.9)  # float: truncated, as gmssl
    assert sm3.sm3_kdf(z.upper(), 40) == g_sm3.sm3_kdf(z.upper(), 40)


def test_sm3_kdf_bad_input() -> None:
    assert g_sm3.sm3_kdf(b"abcd", -3) == ""  # gmssl: silently empty
    with pytest.raises(InvalidArgument):
        sm3.sm3_kdf(b"abcd", -3)
    with pytest.raises(InvalidArgument):
        sm3.sm3_kdf(b"abcd", float("inf"))
    with pytest.raises(InvalidLength):
        sm3.sm3_kdf(b"abcd", (1 << 30) + 1)
    for bad in (b"abc", b"zz", b"ab cd!"):
        assert outcome(lambda bad=bad: g_sm3.sm3_kdf(bad, 4)) == ("raise", ValueError)
        with pytest.raises(ValueError):
            sm3.sm3_kdf(bad, 4)
    with pytest.raises(ValueError):
        sm3.sm3_kdf(b"zz", 0)  # the secret is parsed even for klen 0, as gmssl
    with pytest.raises(TypeError):
        sm3.sm3_kdf(1234, 4)  # type: ignore[arg-type]


# -- func --------------------------------------------------------------------------------


def test_func_identical() -> None:
    r = rng(4)
    for _ in range(50):
        a = list(rbytes(r, r.randrange(0, 40)))
        b = list(rbytes(r, r.randrange(0, 40)))
        w = r.getrandbits(32)
        n = r.randrange(1, 32)
        block = r.choice([8, 16])
        assert func.xor(a, b) == g_func.xor(a, b)
        assert func.rotl(w, n) == g_func.rotl(w, n)
        assert func.put_uint32_be(w) == g_func.put_uint32_be(w)
        if len(a) >= 4:
            assert func.get_uint32_be(a) == g_func.get_uint32_be(a)
        assert func.pkcs7_padding(a) == g_func.pkcs7_padding(a)
        assert func.pkcs7_padding(a, block) == g_func.pkcs7_padding(a, block)
        assert func.zero_padding(a) == g_func.zero_padding(a)
        assert func.zero_padding(a, block) == g_func.zero_padding(a, block)
        assert func.list_to_bytes(a) == g_func.list_to_bytes(a)
        assert func.bytes_to_list(bytes(a)) == g_func.bytes_to_list(bytes(a))
        assert outcome(lambda a=a: func.pkcs7_unpadding(a)) == outcome(lambda a=a: g_func.pkcs7_unpadding(a))
        assert outcome(lambda a=a: func.zero_unpadding(a)) == outcome(lambda a=a: g_func.zero_unpadding(a))
        for tail in ([0], [0, 0], [5], [16] * 16):
            c = a + tail
            assert func.pkcs7_unpadding(c) == g_func.pkcs7_unpadding(c)
            assert func.zero_unpadding(c) == g_func.zero_unpadding(c)
            assert func.zero_unpadding(c, 2) == g_func.zero_unpadding(c, 2)
    assert func.zero_unpadding([1, 2]) == g_func.zero_unpadding([1, 2]) == 2  # gmssl's quirk, kept
    assert outcome(lambda: func.get_uint32_be([1, 2])) == outcome(lambda: g_func.get_uint32_be([1, 2]))


def test_random_hex_uses_the_os_rng() -> None:
    for n in (0, 1, 2, 31, 64, 65):
        h = func.random_hex(n)
        assert len(h) == n == len(g_func.random_hex(n))
        assert set(h) <= set("0123456789abcdef")
    assert func.random_hex(-5) == "" == g_func.random_hex(-5)
    # gmssl's output is a function of the `random` module's state; ours is not.
    random.seed(7)
    theirs1, ours1 = g_func.random_hex(64), func.random_hex(64)
    random.seed(7)
    theirs2, ours2 = g_func.random_hex(64), func.random_hex(64)
    assert theirs1 == theirs2
    assert ours1 != ours2


# -- SM4 ---------------------------------------------------------------------------------


def pair(key: bytes, mode: int, padding_mode: int) -> tuple[Any, Any]:
    ours, theirs = sm4.CryptSM4(padding_mode=padding_mode), g_sm4.CryptSM4(padding_mode=padding_mode)
    ours.set_key(key, mode)
    theirs.set_key(key, mode)
    return ours, theirs


@pytest.mark.parametrize("padding_mode", [sm4.PKCS7, sm4.ZERO, -1])
def test_sm4_ecb_identical(padding_mode: int) -> None:
    r = rng(5 + padding_mode)
    for _ in range(25):
        key = rbytes(r, 16)
        n = r.randrange(0, 100)
        if padding_mode == -1:
            n -= n % 16
        data = rbytes(r, n)
        enc, g_enc = pair(key, sm4.SM4_ENCRYPT, padding_mode)
        ct = enc.crypt_ecb(data)
        assert ct == g_enc.crypt_ecb(data)
        assert enc.crypt_ecb(list(data)) == ct
        dec, g_dec = pair(key, sm4.SM4_DECRYPT, padding_mode)
        assert dec.crypt_ecb(ct) == g_dec.crypt_ecb(ct)
        # Random ciphertexts (garbage padding): the same result, or the same kind of failure.
        junk = rbytes(r, 16 * r.randrange(1, 5))
        ours = outcome(lambda: dec.crypt_ecb(junk))  # noqa: B023 - called at once
        theirs = outcome(lambda: g_dec.crypt_ecb(junk))  # noqa: B023 - called at once
        if theirs[0] == "ok":
            assert ours == theirs
        else:
            assert ours[0] == "raise" and issubclass(ours[1], theirs[1]) and issubclass(ours[1], PaddingError)


def test_sm4_ecb_known_answer() -> None:
    key = bytes.fromhex("0123456789abcdeffedcba9876543210")
    enc = sm4.CryptSM4(padding_mode=-1)
    enc.set_key(key, sm4.SM4_ENCRYPT)
    assert enc.crypt_ecb(key).hex() == "681edf34d206965e86b3e94f536e4246"  # GB/T 32907 A.1


def test_sm4_cbc_identical() -> None:
    r = rng(9)
    for i in range(40):
        key, iv = rbytes(r, 16), rbytes(r, 16)
        data = rbytes(r, r.randrange(0, 100))
        # crypt_cbc always pads with PKCS7, whatever padding_mode says.
        enc, g_enc = pair(key, sm4.SM4_ENCRYPT, [sm4.PKCS7, sm4.ZERO, -1][i % 3])
        ct = enc.crypt_cbc(iv, data)
        assert ct == g_enc.crypt_cbc(iv, data)
        assert enc.crypt_cbc(list(iv), bytearray(data)) == ct
        dec, g_dec = pair(key, sm4.SM4_DECRYPT, sm4.PKCS7)
        assert dec.crypt_cbc(iv, ct) == g_dec.crypt_cbc(iv, ct) == data
        junk = rbytes(r, 16 * r.randrange(1, 5))
        # Unchecked PKCS7 unpadding, exactly as gmssl: same bytes for any last byte.
        assert dec.crypt_cbc(iv, junk) == g_dec.crypt_cbc(iv, junk)


def test_sm4_bad_padding_mirrors_gmssl() -> None:
    key, iv = bytes(range(16)), bytes(16)
    enc, _ = pair(key, sm4.SM4_ENCRYPT, -1)
    # Plaintext blocks whose last byte is 0 (PKCS7 gives b""), 17 (> 16) and 200 (> length).
    for last in (0, 17, 200, 5):
        block = bytes(15) + bytes([last])
        dec, g_dec = pair(key, sm4.SM4_DECRYPT, sm4.PKCS7)
        ct = enc.crypt_ecb(block)
        assert dec.crypt_ecb(ct) == g_dec.crypt_ecb(ct) == block[: -block[-1]]
    # ZERO: one trailing zero byte is removed; a non-zero last byte fails (gmssl: TypeError).
    dec, g_dec = pair(key, sm4.SM4_DECRYPT, sm4.ZERO)
    ct = enc.crypt_ecb(b"abc" + bytes(13))
    assert dec.crypt_ecb(ct) == g_dec.crypt_ecb(ct) == b"abc" + bytes(12)
    ct = enc.crypt_ecb(bytes(15) + b"\x01")
    assert outcome(lambda: g_dec.crypt_ecb(ct)) == ("raise", TypeError)
    with pytest.raises(PaddingError) as info:
        dec.crypt_ecb(ct)
    assert isinstance(info.value, TypeError) and isinstance(info.value, InvalidPadding)
    # Empty input with padding: nothing to unpad (gmssl: IndexError).
    for pm in (sm4.PKCS7, sm4.ZERO):
        dec, g_dec = pair(key, sm4.SM4_DECRYPT, pm)
        assert outcome(lambda g_dec=g_dec: g_dec.crypt_ecb(b"")) == ("raise", IndexError)
        with pytest.raises(PaddingError):
            dec.crypt_ecb(b"")
    dec, g_dec = pair(key, sm4.SM4_DECRYPT, sm4.PKCS7)
    assert outcome(lambda: g_dec.crypt_cbc(iv, b"")) == ("raise", IndexError)
    with pytest.raises(PaddingError):
        dec.crypt_cbc(iv, b"")
    # No padding: empty in, empty out (as gmssl).
    dec, g_dec = pair(key, sm4.SM4_DECRYPT, -1)
    assert dec.crypt_ecb(b"") == g_dec.crypt_ecb(b"") == b""


def test_sm4_lengths() -> None:
    ours = sm4.CryptSM4()
    for n in (0, 15, 17, 32):
        with pytest.raises(LengthError):
            ours.set_key(bytes(n), sm4.SM4_ENCRYPT)
    assert outcome(lambda: g_sm4.CryptSM4().set_key(bytes(15), 0)) == ("raise", IndexError)
    g_long = g_sm4.CryptSM4()
    g_long.set_key(bytes(range(17)), 0)  # gmssl silently drops the 17th byte
    ours.set_key(bytes(range(16)), sm4.SM4_ENCRYPT)
    assert g_long.crypt_ecb(b"x") == ours.crypt_ecb(b"x")
    for n in (0, 15, 17):
        with pytest.raises(LengthError):
            ours.crypt_cbc(bytes(n), b"data")
    assert outcome(lambda: g_long.crypt_cbc(bytes(15), b"data")) == ("raise", IndexError)
    dec = sm4.CryptSM4()
    dec.set_key(bytes(16), sm4.SM4_DECRYPT)
    with pytest.raises(LengthError):
        dec.crypt_cbc(bytes(15), bytes(16))  # gmssl returned b"" here
    for n in (1, 15, 17, 31):
        with pytest.raises(LengthError):
            dec.crypt_ecb(bytes(n))
        with pytest.raises(LengthError):
            dec.crypt_cbc(bytes(16), bytes(n))
    nopad = sm4.CryptSM4(padding_mode=-1)
    nopad.set_key(bytes(16), sm4.SM4_ENCRYPT)
    with pytest.raises(LengthError):
        nopad.crypt_ecb(bytes(15))
    g_nopad = g_sm4.CryptSM4(padding_mode=-1)
    g_nopad.set_key(bytes(16), 0)
    assert outcome(lambda: g_nopad.crypt_ecb(bytes(15))) == ("raise", IndexError)


def test_sm4_state_and_types() -> None:
    fresh = sm4.CryptSM4()
    with pytest.raises(InvalidKey):
        fresh.crypt_ecb(bytes(16))  # gmssl encrypts with all-zero round keys here
    with pytest.raises(InvalidKey):
        fresh.crypt_cbc(bytes(16), bytes(16))
    with pytest.raises(InvalidArgument):
        fresh.set_key(bytes(16), 2)
    c = sm4.CryptSM4()
    c.set_key(bytes(16), sm4.SM4_ENCRYPT)
    c.mode = sm4.SM4_DECRYPT  # round keys are for encryption: refuse
    with pytest.raises(InvalidArgument):
        c.crypt_ecb(bytes(16))
    c.set_key(bytes(16), sm4.SM4_DECRYPT)
    assert c.crypt_ecb(bytes(32)) is not None
    for bad in ("0123456789abcdef", 12345, None):
        with pytest.raises(TypeError):
            c.crypt_ecb(bad)  # type: ignore[arg-type]
        with pytest.raises(TypeError):
            c.set_key(bad, sm4.SM4_ENCRYPT)  # type: ignore[arg-type]
    assert "key set" in repr(c) and "no key" in repr(fresh)


# -- SM2 ---------------------------------------------------------------------------------


def gm(d: str, p: str, mode: int = 0, asn1: bool = False) -> Any:
    return g_sm2.CryptSM2(private_key=d, public_key=p, mode=mode, asn1=asn1)


def test_defaults() -> None:
    c = sm2.CryptSM2(D, P)
    assert c.mode == 0 == gm(D, P).mode and c.asn1 is False
    assert c.para_len == 64 and c.ecc_a3 == gm(D, P).ecc_a3
    assert c.private_key == D and c.public_key == P
    assert D not in repr(c)
    ct = c.encrypt(b"m")
    assert len(ct) == 64 + 1 + 32
    # mode 0 = C1C2C3 (gmssl's real default): C3 = SM3(x2 || M || y2) is last.
    key = guomi.sm2.PrivateKey.from_hex(D)
    assert key.decrypt(b"\x04" + ct, format="c1c2c3") == b"m"


@pytest.mark.parametrize("mode", [0, 1])
def test_encrypt_cross(mode: int) -> None:
    r = rng(10 + mode)
    for i, (d, p) in enumerate(PAIRS):
        ours = sm2.CryptSM2(d, "04" + p if i % 2 else p, mode=mode)
        theirs = gm(d, p, mode=mode)
        for n in (1, 32, r.randrange(2, 200)):
            msg = rbytes(r, n)
            assert ours.decrypt(theirs.encrypt(msg)) == msg
            ct = ours.encrypt(msg)
            assert len(ct) == 96 + n
            guomi.sm2.PublicKey.from_bytes(ct[:64])  # C1 is x || y, no 04 prefix
            assert theirs.decrypt(ct) == msg


@pytest.mark.parametrize("asn1", [False, True])
def test_sign_with_sm3_cross(asn1: bool) -> None:
    r = rng(12 + asn1)
    for i, (d, p) in enumerate(PAIRS):
        ours = sm2.CryptSM2(d, "04" + p if i % 2 else p, asn1=asn1)
        theirs = gm(d, p, asn1=asn1)
        msg = rbytes(r, r.randrange(0, 100))
        sig = theirs.sign_with_sm3(msg)
        assert ours.verify_with_sm3(sig, msg) is True
        assert ours.verify_with_sm3(sig, msg + b"x") is False
        sig = ours.sign_with_sm3(msg)
        assert isinstance(sig, str)
        if not asn1:
            assert len(sig) == 128
        else:
            assert sig.startswith("30")
        assert theirs.verify_with_sm3(sig, msg) is True
        assert ours.verify_with_sm3(sig, msg) is True
        assert ours._sm3_z(msg) == theirs._sm3_z(msg)


@pytest.mark.parametrize("asn1", [False, True])
def test_sign_digest_cross(asn1: bool) -> None:
    r = rng(14 + asn1)
    for d, p in PAIRS:
        ours, theirs = sm2.CryptSM2(d, p, asn1=asn1), gm(d, p, asn1=asn1)
        # e of 32 bytes, of other lengths (gmssl takes int(e) and works mod n), and e >= n.
        for e in (rbytes(r, 32), rbytes(r, 20), rbytes(r, 40), b"\xff" * 32, b"\x01"):
            sig = theirs.sign(e, g_func.random_hex(64))
            assert ours.verify(sig, e) is True
            with pytest.warns(InsecureParameterWarning):
                sig = ours.sign(e, g_func.random_hex(64))
            assert theirs.verify(sig, e) is True
            assert ours.verify(sig, bytes([e[0] ^ 1]) + e[1:]) is False


def test_public_key_from_private_only() -> None:
    ours = sm2.CryptSM2(D, None)
    assert ours.public_key == P
    assert sm2.CryptSM2(D, "").public_key == P
    sig = ours.sign_with_sm3(b"msg")
    assert gm(D, P).verify_with_sm3(sig, b"msg")
    with pytest.raises(InvalidKey):
        sm2.CryptSM2(None, None)
    # Public-key-only object: encrypt and verify work; the private operations raise.
    pub_only = sm2.CryptSM2(None, P)
    ct = pub_only.encrypt(b"x")
    assert gm(D, P).decrypt(ct) == b"x"
    for f in (lambda: pub_only.decrypt(ct), lambda: pub_only.sign_with_sm3(b"x")):
        with pytest.raises(InvalidKey):
            f()


def test_04_prefix_trap_fixed() -> None:
    # gmssl's lstrip("04") eats "04" and the "09" that follows: signing breaks.
    assert gm(D, "04" + P).public_key != P
    assert outcome(lambda: gm(D, "04" + P).sign_with_sm3(b"msg"))[0] == "raise"
    ours = sm2.CryptSM2(D, "04" + P)
    assert ours.public_key == P
    assert gm(D, P).verify_with_sm3(ours.sign_with_sm3(b"msg"), b"msg")
    # A key whose x itself starts with 04: gmssl breaks it even without the prefix.
    r = rng(16)
    while True:
        key = guomi.sm2.PrivateKey.from_bytes(rbytes(r, 32))
        p = key.public_key().to_hex(format="raw")
        if p.startswith("04"):
            break
    d = key.to_hex()
    assert gm(d, p).public_key != p
    for given in (p, "04" + p):
        ours = sm2.CryptSM2(d, given)
        assert ours.public_key == p
        sig = ours.sign_with_sm3(b"msg")
        assert key.public_key().verify(bytes.fromhex(sig), b"msg", format="raw")
        assert ours.decrypt(ours.encrypt(b"msg")) == b"msg"


def test_mismatched_public_key_follows_gmssl() -> None:
    # gmssl computes Z from public_key even when it is not d's key; so does the shim.
    other = PAIRS[1][1]
    ours, theirs = sm2.CryptSM2(D, other), gm(D, other)
    sig = ours.sign_with_sm3(b"msg")
    e = bytes.fromhex(theirs._sm3_z(b"msg"))
    assert sm2.CryptSM2(D, P).verify(sig, e) is True
    assert gm(D, P).verify(theirs.sign_with_sm3(b"msg"), e) is True


def test_key_formats() -> None:
    short = "0" * 60 + "abcd"  # d with leading zeros written short
    full = sm2.CryptSM2(short, None)
    for text in ("abcd", "0xabcd", "  abcd\n", "00" + short, short.upper(), b"abcd"):
        c = sm2.CryptSM2(text, None)
        assert c.public_key == full.public_key
        assert gm(short, full.public_key).verify_with_sm3(c.sign_with_sm3(b"m"), b"m")
    assert sm2.CryptSM2(D, P.upper()).verify_with_sm3(gm(D, P).sign_with_sm3(b"m"), b"m")


@pytest.mark.parametrize(
    "d",
    [
        "zz" * 32,  # not hex
        "1" + D,  # 65 digits, not a leading zero
        "0" * 64,  # d = 0
        format(N - 1, "064x"),  # d = n-1: 1 + d has no inverse
        format(N, "064x"),
        "f" * 64,
        "12 34",
        "-1",
        "0x",
    ],
)
def test_bad_private_keys(d: str) -> None:
    c = sm2.CryptSM2(d, P)
    for f in (lambda: c.sign_with_sm3(b"m"), lambda: c.sign(b"e" * 32), lambda: c.decrypt(bytes(100))):
        with pytest.raises(InvalidKey):
            f()
    with pytest.raises(InvalidKey):
        sm2.CryptSM2(d, None)


@pytest.mark.parametrize(
    "p",
    [
        P[:-2],  # 126 digits
        P + "00",  # 130 digits without the 04 prefix
        "04" + P[:-2],
        "zz" + P[2:],
        P[:64] + format((int(P[64:], 16) + 1) % (1 << 256), "064x"),  # not on the curve
        "0" * 128,  # the point (0, 0)
    ],
)
def test_bad_public_keys(p: str) -> None:
    c = sm2.CryptSM2(D, p)
    sig = gm(D, P).sign_with_sm3(b"m")
    for f in (lambda: c.encrypt(b"m"), lambda: c.verify_with_sm3(sig, b"m"), lambda: c.sign_with_sm3(b"m")):
        with pytest.raises(InvalidKey):
            f()


def test_reassigned_key_attributes_are_used() -> None:
    c = sm2.CryptSM2(D, P)
    c.encrypt(b"warm")
    d2, p2 = PAIRS[2]
    c.public_key = p2
    ct = c.encrypt(b"to key 2")
    assert gm(d2, p2).decrypt(ct) == b"to key 2"
    c.private_key = d2
    assert c.decrypt(ct) == b"to key 2"
    c.mode = 1
    assert gm(d2, p2, mode=1).decrypt(c.encrypt(b"m1")) == b"m1"
    c.mode = 5
    with pytest.raises(InvalidArgument):
        c.encrypt(b"m")


def test_constructor_arguments() -> None:
    for mode in (2, -1, "1"):
        with pytest.raises(InvalidArgument):
            sm2.CryptSM2(D, P, mode=mode)  # type: ignore[arg-type]
    assert outcome(lambda: gm(D, P, mode=2)) == ("raise", AssertionError)
    other = dict(sm2.default_ecc_table, n="FF" * 32)
    with pytest.raises(InvalidArgument):
        sm2.CryptSM2(D, P, ecc_table=other)
    with pytest.raises(InvalidArgument):
        sm2.CryptSM2(D, P, ecc_table={})
    lower = {k: v.lower() for k, v in sm2.default_ecc_table.items()}
    assert sm2.CryptSM2(D, P, lower).verify_with_sm3(gm(D, P).sign_with_sm3(b"m"), b"m")
    with pytest.raises(TypeError):
        sm2.CryptSM2(D, 1234)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        sm2.CryptSM2(int(D, 16), P)  # type: ignore[arg-type]


@pytest.mark.parametrize("mode", [0, 1])
def test_tampered_ciphertexts(mode: int) -> None:
    ours, theirs = sm2.CryptSM2(D, P, mode=mode), gm(D, P, mode=mode)
    msg = b"attack at dawn"
    ct = ours.encrypt(msg)
    c3_at = 64 if mode else len(ct) - 32
    c2_at = 96 if mode else 64
    for pos in (0, 40, c2_at, c2_at + len(msg) - 1, c3_at, c3_at + 31):
        bad = bytearray(ct)
        bad[pos] ^= 0x01
        with pytest.raises(SM2DecryptionError):
            ours.decrypt(bytes(bad))
    # gmssl never checks C3: a tampered C3 still "decrypts", a tampered C2 gives flipped bits.
    bad = bytearray(ct)
    bad[c3_at] ^= 1
    assert theirs.decrypt(bytes(bad)) == msg
    bad = bytearray(ct)
    bad[c2_at] ^= 1
    assert theirs.decrypt(bytes(bad)) == bytes([msg[0] ^ 1]) + msg[1:]
    # Truncated and malformed ciphertexts: one opaque error.
    for bad_ct in (b"", ct[:63], ct[:64], ct[:95], ct[:96], ct[:-1], b"\x04" + ct, bytes(len(ct))):
        with pytest.raises(SM2DecryptionError):
            ours.decrypt(bad_ct)
    assert outcome(lambda: theirs.decrypt(ct[:96])) == ("raise", ValueError)
    # C1 off the curve.
    off = bytearray(ct)
    off[63] ^= 1
    with pytest.raises(SM2DecryptionError):
        ours.decrypt(bytes(off))
    # The wrong key.
    with pytest.raises(SM2DecryptionError):
        sm2.CryptSM2(PAIRS[1][0], PAIRS[1][1], mode=mode).decrypt(ct)
    # The other order.
    with pytest.raises(SM2DecryptionError):
        sm2.CryptSM2(D, P, mode=1 - mode).decrypt(ct)
    with pytest.raises(TypeError):
        ours.decrypt(ct.hex())  # type: ignore[arg-type]


def test_encrypt_bad_input() -> None:
    ours = sm2.CryptSM2(D, P)
    assert outcome(lambda: gm(D, P).encrypt(b"")) == ("raise", ValueError)
    with pytest.raises(InvalidLength):
        ours.encrypt(b"")
    for bad in ("text", None, [1, 2]):
        with pytest.raises(TypeError):
            ours.encrypt(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("asn1", [False, True])
def test_malformed_signatures_are_false(asn1: bool) -> None:
    ours = sm2.CryptSM2(D, P, asn1=asn1)
    msg, e = b"message", b"\x11" * 32
    good = ours.sign_with_sm3(msg)
    good_e = ours.sign(e)
    assert ours.verify_with_sm3(good, msg) and ours.verify(good_e, e)
    assert ours.verify_with_sm3(" " + good + "\n", msg) is True
    assert ours.verify_with_sm3(good.encode(), msg) is True
    assert ours.verify_with_sm3(good.upper(), msg) is True
    bad = [
        "",
        "zz" * 64,
        good[:-2],
        good + "00",
        good[:-1],
        "00" * 64,
        "ff" * 64,
        good[:10] + format(int(good[10], 16) ^ 1, "x") + good[11:],
        b"\xff" * 64,
        None,
        12345,
        "30" + "06" + "020100" + "020100",  # DER r = s = 0
    ]
    for sig in bad:
        assert ours.verify_with_sm3(sig, msg) is False  # type: ignore[arg-type]
        assert ours.verify(sig, e) is False  # type: ignore[arg-type]
    # gmssl raised on some of these (bad hex) and read only 128 digits of others.
    assert outcome(lambda: gm(D, P).verify("zz" * 64, e)) == ("raise", ValueError)
    if not asn1:
        assert gm(D, P).verify(good_e + "00", e) is True
        assert ours.verify(good_e + "00", e) is False
    # A signature in the other encoding is not accepted.
    other = sm2.CryptSM2(D, P, asn1=not asn1)
    assert ours.verify_with_sm3(other.sign_with_sm3(msg), msg) is False


def test_digest_argument() -> None:
    ours = sm2.CryptSM2(D, P)
    assert outcome(lambda: gm(D, P).sign(b"", "11")) == ("raise", ValueError)
    with pytest.raises(InvalidLength):
        ours.sign(b"")
    with pytest.raises(InvalidLength):
        ours.verify("00" * 64, b"")
    for bad in ("e" * 32, None, [1] * 32):
        with pytest.raises(TypeError):
            ours.sign(bad)  # type: ignore[arg-type]
        with pytest.raises(TypeError):
            ours.verify("00" * 64, bad)  # type: ignore[arg-type]
        with pytest.raises(TypeError):
            ours.sign_with_sm3(bad)  # type: ignore[arg-type]


def test_nonce_argument_warns_and_is_ignored() -> None:
    ours, theirs = sm2.CryptSM2(D, P), gm(D, P)
    e = b"\x42" * 32
    k = "1" * 64
    # gmssl: the same K gives the same signature (and a known K reveals d).
    assert theirs.sign(e, k) == theirs.sign(e, k)
    with pytest.warns(InsecureParameterWarning, match="ignored"):
        s1 = ours.sign(e, k)
    with pytest.warns(InsecureParameterWarning):
        s2 = ours.sign(e, k)
    assert s1 != s2 and theirs.sign(e, k) not in (s1, s2)
    assert theirs.verify(s1, e) and theirs.verify(s2, e)
    with pytest.warns(InsecureParameterWarning, match="random_hex_str"):
        s3 = ours.sign_with_sm3(b"m", k)
    with pytest.warns(InsecureParameterWarning):
        s4 = ours.sign_with_sm3(b"m", random_hex_str=k)
    assert s3 != s4 and theirs.sign_with_sm3(b"m", k) not in (s3, s4)
    assert theirs.verify_with_sm3(s3, b"m") and theirs.verify_with_sm3(s4, b"m")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning without K
        ours.sign(e)
        ours.sign_with_sm3(b"m")
    with pytest.warns(InsecureParameterWarning) as record:
        ours.sign(e, k)
    assert record[0].filename == __file__  # points at the caller's line
