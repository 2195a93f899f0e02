"""Hardening of the formats: bounded numbers from outside (KDF lengths, PBKDF2 iterations,
envelope headers, chunk sizes), bounded certificate path building, strict DER for keys,
certificates and requests. Every bad input is a typed error, never a panic or a hang."""

from __future__ import annotations

import base64
import struct
import time
from datetime import datetime, timedelta, timezone

import pytest

import guomi.envelope as env
from guomi import keys, sm2, sm3, x509
from guomi.exceptions import (
    CertificateVerificationError,
    InvalidArgument,
    InvalidKey,
    InvalidLength,
    UnsupportedFormat,
)

KDF_MAX_LEN = (2**32 - 1) * 32 - 1  # GM/T 0003.4: klen < (2^32 - 1) * 256 bits
PBKDF2_MAX_LEN = (2**32 - 1) * 32  # RFC 8018: dkLen <= (2^32 - 1) * hLen
HKDF_MAX_LEN = 255 * 32  # RFC 5869
MAX_ITERATIONS = 10_000_000
HUGE = [2**50, 2**63, 2**64 - 1]


# --- KDF output lengths and PBKDF2 iterations ----------------------------------------------


@pytest.mark.parametrize("length", [KDF_MAX_LEN + 1, *HUGE])
def test_sm3_kdf_length_bound(length: int) -> None:
    with pytest.raises(InvalidLength):
        sm3.kdf(b"z", length)


@pytest.mark.parametrize("length", [PBKDF2_MAX_LEN + 1, *HUGE])
def test_pbkdf2_length_bound(length: int) -> None:
    with pytest.raises(InvalidLength):
        sm3.pbkdf2_hmac(b"pw", b"salt", 1, length)


@pytest.mark.parametrize("iterations", [MAX_ITERATIONS + 1, 2**32, *HUGE])
def test_pbkdf2_iterations_bound(iterations: int) -> None:
    t = time.perf_counter()
    with pytest.raises(InvalidArgument):
        sm3.pbkdf2_hmac(b"pw", b"salt", iterations, 32)
    assert time.perf_counter() - t < 1


def test_pbkdf2_iterations_at_the_bound_are_accepted() -> None:
    # A zero-length output needs no PRF call: the bound itself is accepted.
    assert sm3.pbkdf2_hmac(b"pw", b"salt", MAX_ITERATIONS, 0) == b""
    assert len(sm3.pbkdf2_hmac(b"pw", b"salt", 1, 33)) == 33


@pytest.mark.parametrize("length", [HKDF_MAX_LEN + 1, *HUGE])
def test_hkdf_length_bound(length: int) -> None:
    with pytest.raises(InvalidLength):
        sm3.hkdf(b"ikm", length)


def test_hkdf_at_the_bound() -> None:
    out = sm3.hkdf(b"ikm", HKDF_MAX_LEN, info=b"i")
    assert len(out) == HKDF_MAX_LEN and out[:40] == sm3.hkdf(b"ikm", 40, info=b"i")


# --- envelope headers -----------------------------------------------------------------------

FIXED_HEADER = 30  # magic 8 | version, kem, chunk_log2, flags | salt 16 | kem_len 2


def _password_envelope(iterations: int = 1) -> bytearray:
    sealed = bytearray(env.seal(b"attack at dawn", password=b"pw", iterations=iterations, chunk_size=1024))
    assert sealed[9] == 3 and sealed[28:30] == b"\x00\x04"
    assert struct.unpack(">I", sealed[FIXED_HEADER : FIXED_HEADER + 4])[0] == iterations
    return sealed


@pytest.mark.parametrize("iterations", [0, MAX_ITERATIONS + 1, 2**31, 2**32 - 1])
def test_hostile_envelope_iteration_count_is_refused_at_once(iterations: int) -> None:
    sealed = _password_envelope()
    sealed[FIXED_HEADER : FIXED_HEADER + 4] = struct.pack(">I", iterations)
    t = time.perf_counter()
    with pytest.raises(UnsupportedFormat, match="iteration count"):
        env.open(bytes(sealed), password=b"pw")
    # Streaming: the header alone is enough to refuse it.
    o = env.Opener(password=b"pw")
    with pytest.raises(UnsupportedFormat):
        o.update(bytes(sealed[: FIXED_HEADER + 4]))
    assert time.perf_counter() - t < 1


def test_password_kem_data_must_be_four_bytes() -> None:
    sealed = _password_envelope()
    # kem_len 5: the iteration count field is malformed.
    bad = sealed[:28] + b"\x00\x05" + sealed[FIXED_HEADER : FIXED_HEADER + 4] + b"\x00" + sealed[34:]
    with pytest.raises(UnsupportedFormat):
        env.open(bytes(bad), password=b"pw")


def test_envelope_iterations_within_the_bound_round_trip() -> None:
    sealed = _password_envelope(2)
    assert env.open(bytes(sealed), password=b"pw") == b"attack at dawn"
    assert env.MAX_ITERATIONS == MAX_ITERATIONS == keys.MAX_ITERATIONS


@pytest.mark.parametrize("iterations", [0, -1, MAX_ITERATIONS + 1, 2**32, *HUGE, 2**64])
def test_sealer_iterations_bound(iterations: int) -> None:
    with pytest.raises(InvalidArgument):
        env.seal(b"x", password=b"pw", iterations=iterations)


@pytest.mark.parametrize("size", [0, 512, 2**25, 2**50, 2**63, 2**64 - 1, 2**64, 2**300, 3000])
def test_chunk_size_bound(size: int) -> None:
    with pytest.raises(InvalidArgument):
        env.seal(b"x", key=bytes(16), chunk_size=size)


def test_chunk_size_at_the_bounds() -> None:
    for size in (env.MIN_CHUNK_SIZE, env.MAX_CHUNK_SIZE):
        sealed = env.seal(b"y" * 3000, key=bytes(16), chunk_size=size)
        assert env.open(sealed, key=bytes(16)) == b"y" * 3000
    assert (env.MIN_CHUNK_SIZE, env.MAX_CHUNK_SIZE) == (1024, 1 << 24)


@pytest.mark.parametrize("log2", [0, 9, 25, 64, 255])
def test_envelope_header_chunk_size_out_of_range(log2: int) -> None:
    sealed = bytearray(env.seal(b"z", key=bytes(16), chunk_size=1024))
    sealed[10] = log2
    with pytest.raises(UnsupportedFormat):
        env.open(bytes(sealed), key=bytes(16))


# --- protected keys: iteration bounds -------------------------------------------------------


@pytest.mark.parametrize("iterations", [0, MAX_ITERATIONS + 1, 2**32, *HUGE])
def test_key_dump_iterations_bound(iterations: int) -> None:
    key = sm2.PrivateKey.generate()
    with pytest.raises(InvalidArgument):
        keys.dump_pem_private_key(key, b"pw", iterations=iterations)
    with pytest.raises(InvalidArgument):
        keys.dump_der_private_key(key, b"pw", iterations=iterations)


# --- strict DER -----------------------------------------------------------------------------


def _tlv(tag: int, body: bytes) -> bytes:
    n = len(body)
    if n < 0x80:
        return bytes([tag, n]) + body
    size = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([tag, 0x80 | len(size)]) + size + body


def _children(der: bytes) -> tuple[int, list[bytes]]:
    """(tag, [child TLVs]) of a constructed TLV that is exactly ``der``."""
    tag, pos = der[0], 2
    n = der[1]
    if n & 0x80:
        k = n & 0x7F
        n, pos = int.from_bytes(der[2 : 2 + k], "big"), 2 + k
    assert pos + n == len(der)
    body, out = der[pos:], []
    while body:
        m, hdr = body[1], 2
        if m & 0x80:
            k = m & 0x7F
            m, hdr = int.from_bytes(body[2 : 2 + k], "big"), 2 + k
        out.append(body[: hdr + m])
        body = body[hdr + m :]
    return tag, out


def _value(tlv: bytes) -> bytes:
    n = tlv[1]
    if n & 0x80:
        return tlv[2 + (n & 0x7F) :]
    return tlv[2:]


def _inject(der: bytes, extra: bytes) -> bytes:
    """``der`` with ``extra`` appended inside its outer SEQUENCE."""
    tag, kids = _children(der)
    return _tlv(tag, b"".join(kids) + extra)


KEY = sm2.PrivateKey.from_bytes(
    bytes.fromhex("e47b16ca250d6d630435e439b44ba5c12563930ba5af26b1cfa24aa0de6c5b1a")
)


def test_pkcs8_trailing_data_is_rejected() -> None:
    der = KEY.to_der(format="pkcs8")
    assert sm2.PrivateKey.from_der(der) == KEY
    _, kids = _children(der)
    version, alg, octets = kids
    sec1 = _value(octets)
    bad = {
        "after the SEQUENCE": der + b"\x00",
        "a NULL after the key, inside the SEQUENCE": _inject(der, b"\x05\x00"),
        "an unknown [2] field inside the SEQUENCE": _inject(der, b"\x82\x01\x00"),
        "a byte after the SEC1 key inside the OCTET STRING": _tlv(
            0x30, version + alg + _tlv(0x04, sec1 + b"\x00")
        ),
        "a byte inside the SEC1 SEQUENCE": _tlv(0x30, version + alg + _tlv(0x04, _inject(sec1, b"\x05\x00"))),
    }
    for what, blob in bad.items():
        pem = "-----BEGIN PRIVATE KEY-----\n" + base64.b64encode(blob).decode() + "\n"
        pem += "-----END PRIVATE KEY-----\n"
        for load in (sm2.PrivateKey.from_der, keys.load_der_private_key):
            with pytest.raises(UnsupportedFormat):
                load(blob)
                pytest.fail(f"accepted: {what}")
        with pytest.raises(UnsupportedFormat):
            keys.load_pem_private_key(pem)
            pytest.fail(f"accepted as PEM: {what}")
    # RFC 5958 optional fields stay accepted: [0] attributes, [1] publicKey.
    assert sm2.PrivateKey.from_der(_inject(der, b"\xa0\x00")) == KEY
    assert sm2.PrivateKey.from_der(_inject(der, b"\xa0\x00\x81\x01\x00")) == KEY


def test_sec1_and_spki_trailing_data_is_rejected() -> None:
    sec1 = KEY.to_der(format="sec1")
    assert sm2.PrivateKey.from_der(sec1) == KEY
    for blob in (sec1 + b"\x00", _inject(sec1, b"\x05\x00")):
        with pytest.raises(UnsupportedFormat):
            sm2.PrivateKey.from_der(blob)
    spki = KEY.public_key().to_der()
    assert sm2.PublicKey.from_der(spki) == KEY.public_key()
    _, (alg, bits) = _children(spki)
    for blob in (
        spki + b"\x00",
        _inject(spki, b"\x05\x00"),
        _tlv(0x30, _inject(alg, b"\x05\x00") + bits),
        _tlv(0x30, alg + _tlv(0x03, _value(bits) + b"\x00")),
    ):
        with pytest.raises((UnsupportedFormat, InvalidLength, InvalidKey)):
            sm2.PublicKey.from_der(blob)


def test_encrypted_pkcs8_trailing_data_is_rejected() -> None:
    der = keys.dump_der_private_key(KEY, b"pw", iterations=10)
    assert keys.load_der_private_key(der, b"pw") == KEY
    _, (alg, data) = _children(der)
    _, (pbes2_oid, pbes2_params) = _children(alg)
    _, (kdf_alg, enc_alg) = _children(pbes2_params)
    _, (kdf_oid, kdf_params) = _children(kdf_alg)
    bad_kdf = _tlv(0x30, kdf_oid + _inject(kdf_params, b"\x05\x00"))
    structural = [
        der + b"\x00",
        _inject(der, b"\x05\x00"),
        _tlv(0x30, _inject(alg, b"\x05\x00") + data),
        _tlv(0x30, _tlv(0x30, pbes2_oid + _inject(pbes2_params, b"\x05\x00")) + data),
        _tlv(0x30, _tlv(0x30, pbes2_oid + _tlv(0x30, bad_kdf + enc_alg)) + data),
    ]
    for blob in structural:
        with pytest.raises(UnsupportedFormat):
            keys.load_der_private_key(blob, b"pw")
    # A byte more inside the encrypted data changes the ciphertext: the opaque error.
    with pytest.raises(InvalidKey):
        keys.load_der_private_key(_tlv(0x30, alg + _tlv(0x04, _value(data) + b"\x00")), b"pw")


def test_certificate_and_request_trailing_data_is_rejected() -> None:
    key = sm2.PrivateKey.generate()
    cert = x509.CertificateBuilder(subject="CN=strict").self_sign(key)
    der = cert.to_der()
    _, (tbs, sig_alg, sig) = _children(der)
    for blob in (
        der + b"\x00",
        _inject(der, b"\x05\x00"),
        _tlv(0x30, _inject(tbs, b"\x05\x00") + sig_alg + sig),
    ):
        with pytest.raises(UnsupportedFormat):
            x509.Certificate.from_der(blob)
    csr = x509.CertificateSigningRequestBuilder(subject="CN=strict").sign(key).to_der()
    for blob in (csr + b"\x00", _inject(csr, b"\x05\x00")):
        with pytest.raises(UnsupportedFormat):
            x509.CertificateSigningRequest.from_der(blob)


# --- certificate path building --------------------------------------------------------------

NOW = datetime(2025, 6, 15, tzinfo=timezone.utc)


def _ca_signed_by(name: str, key: sm2.PrivateKey, signer: sm2.PrivateKey) -> x509.Certificate:
    """A CA certificate for ``key`` named ``name``, issued under the same name by ``signer``."""
    validity = (NOW - timedelta(days=1), NOW + timedelta(days=3650))
    signer_cert = x509.CertificateBuilder(subject=name).ca().validity(*validity).self_sign(signer)
    b = x509.CertificateBuilder(subject=name, public_key=key.public_key()).ca().validity(*validity)
    return b.sign(signer_cert, signer)


def test_a_dozen_mutually_signed_same_name_same_key_cas_answer_quickly() -> None:
    key = sm2.PrivateKey.generate()
    cas = [_ca_signed_by("CN=Loop CA", key, key) for _ in range(12)]
    leaf_key = sm2.PrivateKey.generate()
    leaf = (
        x509.CertificateBuilder(subject="CN=leaf", public_key=leaf_key.public_key())
        .validity(NOW - timedelta(days=1), NOW + timedelta(days=30))
        .sign(cas[0], key)
    )
    unrelated = x509.CertificateBuilder(subject="CN=Elsewhere").ca().self_sign(sm2.PrivateKey.generate())
    t = time.perf_counter()
    with pytest.raises(CertificateVerificationError) as info:
        x509.verify_chain(leaf, cas, [unrelated], at=NOW)
    assert time.perf_counter() - t < 1
    assert "not among the trust roots" in info.value.reason
    # Trusting one of them: a path at once.
    assert x509.verify_chain(leaf, cas, [cas[7]], at=NOW)[-1] == cas[7]


def test_cross_signed_mesh_hits_the_work_cap_quickly() -> None:
    ks = [sm2.PrivateKey.generate() for _ in range(8)]
    mesh = [_ca_signed_by("CN=Mesh", a, b) for a in ks for b in ks if a is not b]
    leaf = (
        x509.CertificateBuilder(subject="CN=leaf", public_key=sm2.PrivateKey.generate().public_key())
        .validity(NOW - timedelta(days=1), NOW + timedelta(days=30))
        .sign(mesh[0], ks[0])
    )
    unrelated = x509.CertificateBuilder(subject="CN=Elsewhere").ca().self_sign(sm2.PrivateKey.generate())
    t = time.perf_counter()
    with pytest.raises(CertificateVerificationError) as info:
        x509.verify_chain(leaf, mesh, [unrelated], at=NOW)
    assert time.perf_counter() - t < 1
    assert info.value.reason.startswith("certification path building gave up"), info.value.reason
    assert info.value.depth == 0 and info.value.subject == "CN=leaf"


def test_too_many_certificates_is_refused() -> None:
    key = sm2.PrivateKey.generate()
    root = x509.CertificateBuilder(subject="CN=R").ca().self_sign(key)
    assert x509.MAX_CERTIFICATES == 1024
    with pytest.raises(CertificateVerificationError, match="too many certificates"):
        x509.verify_chain(root, [root] * x509.MAX_CERTIFICATES, [root])
    assert x509.verify_chain(root, [root] * (x509.MAX_CERTIFICATES - 1), [root]) == [root]


@pytest.mark.parametrize("days", [10**9, 2**63])
def test_validity_days_overflow_is_a_typed_error(days: int) -> None:
    with pytest.raises(InvalidArgument):
        x509.CertificateBuilder(subject="CN=x").valid_for_days(days).self_sign(sm2.PrivateKey.generate())


# --- PKCS#12: one budget on the derivation work of a load ----------------------------------


def _oid(hex_body: str) -> bytes:
    return _tlv(0x06, bytes.fromhex(hex_body))


def _int(v: int) -> bytes:
    return _tlv(0x02, v.to_bytes(v.bit_length() // 8 + 1, "big"))


def _encrypted_part(iterations: int) -> bytes:
    """An encryptedData ContentInfo whose PBES2 (PBKDF2-HMAC-SM3, SM4-CBC) claims
    ``iterations``; the ciphertext is never reached."""
    prf = _tlv(0x30, _oid("2a811ccf5501831102") + b"\x05\x00")  # HMAC-SM3
    kdf = _tlv(0x30, _oid("2a864886f70d01050c") + _tlv(0x30, _tlv(0x04, bytes(16)) + _int(iterations) + prf))
    enc = _tlv(0x30, _oid("2a811ccf55016802") + _tlv(0x04, bytes(16)))  # SM4-CBC
    alg = _tlv(0x30, _oid("2a864886f70d01050d") + _tlv(0x30, kdf + enc))  # PBES2
    eci = _tlv(0x30, _oid("2a864886f70d010701") + alg + _tlv(0x80, bytes(16)))
    ed = _tlv(0x30, _int(0) + eci)
    return _tlv(0x30, _oid("2a864886f70d010706") + _tlv(0xA0, ed))


def _pfx(parts: list[bytes], mac_iterations: int = 1) -> bytes:
    """A PFX around ``parts`` with an SM3 MAC that no password matches."""
    auth = _tlv(0x30, b"".join(parts))
    content = _tlv(0x30, _oid("2a864886f70d010701") + _tlv(0xA0, _tlv(0x04, auth)))
    digest = _tlv(0x30, _tlv(0x30, _oid("2a811ccf55018311") + b"\x05\x00") + _tlv(0x04, bytes(32)))
    mac = _tlv(0x30, digest + _tlv(0x04, bytes(16)) + _int(mac_iterations))
    return _tlv(0x30, _int(3) + content + mac)


def test_pkcs12_total_derivation_work_is_bounded_before_any_derivation() -> None:
    from guomi import pkcs12

    assert pkcs12.MAX_TOTAL_ITERATIONS == 3 * MAX_ITERATIONS
    # Within the budget the file gets as far as its MAC (which no password matches).
    with pytest.raises(InvalidKey):
        pkcs12.load(_pfx([_encrypted_part(MAX_ITERATIONS)] * 2), "pw")
    # Over it, the file is refused at once: no derivation (not even the MAC's) runs.
    for parts, mac in ((4, 1), (pkcs12.MAX_BAGS, 1), (3, MAX_ITERATIONS)):
        start = time.perf_counter()
        with pytest.raises(UnsupportedFormat, match="MAX_TOTAL_ITERATIONS"):
            pkcs12.load(_pfx([_encrypted_part(MAX_ITERATIONS)] * parts, mac), "pw")
        assert time.perf_counter() - start < 1.0
