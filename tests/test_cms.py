"""guomi.cms: CMS SignedData and EnvelopedData (RFC 5652 + GM/T 0010).

Round trips over every option, every bad-input path, and the files BouncyCastle 1.87
and gmsm v0.44.0 wrote (vectors/cms/, see its README).
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from guomi import cms, sm2, sm3, x509
from guomi.exceptions import (
    CertificateVerificationError,
    DecryptionError,
    InvalidArgument,
    InvalidKey,
    InvalidSignature,
    UnsupportedFormat,
)

VEC = Path(__file__).resolve().parent.parent / "vectors" / "cms"
CONTENT = (VEC / "content.txt").read_bytes()

# OIDs as DER contents, to find and patch them in encodings.
OID_SM3 = bytes.fromhex("2a811ccf55018311")  # 1.2.156.10197.1.401
OID_SM2_WITH_SM3 = bytes.fromhex("2a811ccf55018375")  # 1.2.156.10197.1.501
OID_SM2_SIGN = bytes.fromhex("2a811ccf5501822d01")  # 1.2.156.10197.1.301.1
OID_SIGNED_DATA = bytes.fromhex("2a864886f70d010702")
OID_GM_SIGNED_DATA = bytes.fromhex("2a811ccf550601040202")
OID_MESSAGE_DIGEST = bytes.fromhex("2a864886f70d010904")


@pytest.fixture(scope="module")
def pki() -> dict[str, object]:
    ca_key = sm2.PrivateKey.generate()
    root = x509.CertificateBuilder(subject="CN=Test Root").ca().valid_for_days(30).self_sign(ca_key)
    key = sm2.PrivateKey.generate()
    cert = (
        x509.CertificateBuilder(subject="CN=Alice", public_key=key.public_key())
        .valid_for_days(30)
        .sign(root, ca_key)
    )
    key2 = sm2.PrivateKey.generate()
    cert2 = (
        x509.CertificateBuilder(subject="CN=Bob", public_key=key2.public_key())
        .valid_for_days(30)
        .sign(root, ca_key)
    )
    other_key = sm2.PrivateKey.generate()
    other_root = x509.CertificateBuilder(subject="CN=Test Root").ca().self_sign(other_key)
    return {
        "root": root,
        "ca_key": ca_key,
        "key": key,
        "cert": cert,
        "key2": key2,
        "cert2": cert2,
        "other_root": other_root,
    }


def peer() -> dict[str, object]:
    return {
        "root": x509.Certificate.from_pem((VEC / "root.pem").read_text()),
        "cert": x509.Certificate.from_pem((VEC / "signer.pem").read_text()),
        "key": sm2.PrivateKey.from_pem((VEC / "signer.key").read_text()),
        "cert2": x509.Certificate.from_pem((VEC / "second.pem").read_text()),
        "key2": sm2.PrivateKey.from_pem((VEC / "second.key").read_text()),
    }


def find(data: bytes, needle: bytes, start: int = 0) -> int:
    i = data.find(needle, start)
    assert i >= 0, needle.hex()
    return i


def flip(data: bytes, at: int) -> bytes:
    b = bytearray(data)
    b[at] ^= 0x01
    return bytes(b)


# ---------------------------------------------------------------- SignedData


@pytest.mark.parametrize("oid_style", ["rfc", "gm"])
@pytest.mark.parametrize("detached", [False, True])
@pytest.mark.parametrize("signed_attributes", [True, False])
@pytest.mark.parametrize("signature_algorithm", ["sm2-with-sm3", "sm2"])
def test_sign_verify_round_trip(
    pki: dict, oid_style: str, detached: bool, signed_attributes: bool, signature_algorithm: str
) -> None:
    der = cms.sign(
        b"hello cms",
        pki["key"],
        pki["cert"],
        detached=detached,
        signed_attributes=signed_attributes,
        oid_style=oid_style,
        signature_algorithm=signature_algorithm,
    )
    assert (OID_SIGNED_DATA if oid_style == "rfc" else OID_GM_SIGNED_DATA) in der[:40]
    assert (OID_SM2_WITH_SM3 if signature_algorithm == "sm2-with-sm3" else OID_SM2_SIGN) in der
    assert (b"hello cms" in der) is not detached
    r = cms.verify(der, content=b"hello cms" if detached else None, trust_roots=[pki["root"]])
    assert r.content == b"hello cms"
    assert r.signers == (pki["cert"],)
    assert r.oid_style == oid_style
    assert (OID_MESSAGE_DIGEST in der) is signed_attributes
    if signed_attributes:
        assert sm3.hash(b"hello cms") in der


def test_defaults_and_signing_time(pki: dict) -> None:
    der = cms.sign(b"x", pki["key"], pki["cert"])
    assert der[:2] == b"\x30\x82" or der[0] == 0x30
    assert OID_SIGNED_DATA in der[:20] and OID_SM2_WITH_SM3 in der and OID_SM3 in der
    assert bytes.fromhex("2a864886f70d010905") in der  # signingTime by default
    # the signer's certificate is included, and the default identifier is issuerAndSerial
    assert pki["cert"].to_der() in der
    assert cms.verify(der).content == b"x"


def test_pem_in_and_out(pki: dict) -> None:
    pem = cms.sign(b"x", pki["key"], pki["cert"], format="pem")
    assert pem.startswith(b"-----BEGIN CMS-----\n")
    assert cms.verify(pem).content == b"x"
    assert cms.verify(pem.decode()).content == b"x"
    pkcs7 = pem.replace(b"BEGIN CMS", b"BEGIN PKCS7").replace(b"END CMS", b"END PKCS7")
    assert cms.verify(pkcs7).content == b"x"
    with pytest.raises(UnsupportedFormat):
        cms.verify(pem.replace(b"CMS", b"CERTIFICATE"))


def test_subject_key_identifier(pki: dict) -> None:
    key = sm2.PrivateKey.generate()
    cert = x509.CertificateBuilder(subject="CN=ski").self_sign(key)
    der = cms.sign(b"x", key, cert, identifier="subject_key_identifier")
    assert cms.verify(der, trust_roots=[cert]).signers == (cert,)
    # a certificate without the extension cannot be named that way
    bare = x509.CertificateBuilder(subject="CN=bare", key_identifiers=False).self_sign(key)
    with pytest.raises(InvalidArgument):
        cms.sign(b"x", key, bare, identifier="subject_key_identifier")


def test_builder_several_signers(pki: dict) -> None:
    der = (
        cms.SignedDataBuilder(b"contract", oid_style="gm")
        .add_signer(pki["key"], pki["cert"])
        .add_signer(pki["key2"], pki["cert2"], signed_attributes=False, signature_algorithm="sm2")
        .build()
    )
    r = cms.verify(der, trust_roots=[pki["root"]])
    assert set(r.signers) == {pki["cert"], pki["cert2"]}
    # one bad signer fails the whole SignedData: corrupt the last signature only
    with pytest.raises(InvalidSignature):
        cms.verify(flip(der, len(der) - 3))


def test_extra_certificates_and_intermediates(pki: dict) -> None:
    ca_key = sm2.PrivateKey.generate()
    root = x509.CertificateBuilder(subject="CN=R").ca().self_sign(ca_key)
    int_key = sm2.PrivateKey.generate()
    inter = x509.CertificateBuilder(subject="CN=I", public_key=int_key.public_key()).ca().sign(root, ca_key)
    key = sm2.PrivateKey.generate()
    leaf = x509.CertificateBuilder(subject="CN=L", public_key=key.public_key()).sign(inter, int_key)
    with_inter = cms.sign(b"x", key, leaf, certificates=[inter])
    assert inter.to_der() in with_inter
    assert cms.verify(with_inter, trust_roots=[root]).signers == (leaf,)
    without = cms.sign(b"x", key, leaf)
    with pytest.raises(CertificateVerificationError):
        cms.verify(without, trust_roots=[root])
    assert cms.verify(without, trust_roots=[root], intermediates=[inter]).content == b"x"


def test_signer_certificate_missing(pki: dict) -> None:
    der = _strip_certificates(cms.sign(b"x", pki["key"], pki["cert"]))
    assert pki["cert"].to_der() not in der
    with pytest.raises(CertificateVerificationError, match="signer certificate not found"):
        cms.verify(der)
    # found when given as an intermediate (or a trust root)
    assert cms.verify(der, intermediates=[pki["cert"]]).signers == (pki["cert"],)
    # another certificate with the same issuer does not match the identifier
    with pytest.raises(CertificateVerificationError):
        cms.verify(der, intermediates=[pki["cert2"]])


def _len(n: int) -> bytes:
    if n < 0x80:
        return bytes([n])
    b = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([0x80 | len(b)]) + b


def _tlv(tag: int, content: bytes) -> bytes:
    return bytes([tag]) + _len(len(content)) + content


def _parse(data: bytes) -> list[tuple[int, bytes, bytes]]:
    """The elements (tag, content, raw) of a DER content."""
    out = []
    i = 0
    while i < len(data):
        tag = data[i]
        first = data[i + 1]
        if first < 0x80:
            n, hl = first, 2
        else:
            k = first & 0x7F
            n, hl = int.from_bytes(data[i + 2 : i + 2 + k], "big"), 2 + k
        out.append((tag, data[i + hl : i + hl + n], data[i : i + hl + n]))
        i += hl + n
    return out


def _signed_data(der: bytes) -> tuple[bytes, list[tuple[int, bytes, bytes]]]:
    (ci,) = _parse(der)
    oid, wrapped = _parse(ci[1])
    (sd,) = _parse(wrapped[1])
    return oid[2], _parse(sd[1])


def _rebuild(oid_raw: bytes, fields: list[bytes]) -> bytes:
    sd = _tlv(0x30, b"".join(fields))
    return _tlv(0x30, oid_raw + _tlv(0xA0, sd))


def _strip_certificates(der: bytes) -> bytes:
    oid, fields = _signed_data(der)
    return _rebuild(oid, [raw for tag, _, raw in fields if tag != 0xA0])


def test_untrusted_chain(pki: dict) -> None:
    der = cms.sign(b"x", pki["key"], pki["cert"])
    with pytest.raises(CertificateVerificationError):
        cms.verify(der, trust_roots=[pki["other_root"]])
    # expired at the given time
    with pytest.raises(CertificateVerificationError):
        cms.verify(der, trust_roots=[pki["root"]], at=datetime.now(timezone.utc) + timedelta(days=400))


def test_tampered_content(pki: dict) -> None:
    der = cms.sign(b"hello cms", pki["key"], pki["cert"])
    with pytest.raises(InvalidSignature):
        cms.verify(flip(der, find(der, b"hello cms")))
    direct = cms.sign(b"hello cms", pki["key"], pki["cert"], signed_attributes=False)
    with pytest.raises(InvalidSignature):
        cms.verify(flip(direct, find(direct, b"hello cms")))
    detached = cms.sign(b"hello cms", pki["key"], pki["cert"], detached=True)
    with pytest.raises(InvalidSignature):
        cms.verify(detached, content=b"hello cmt")


def test_tampered_attributes(pki: dict) -> None:
    der = cms.sign(b"hello cms", pki["key"], pki["cert"])
    # the messageDigest value itself
    md = find(der, sm3.hash(b"hello cms"))
    with pytest.raises(InvalidSignature):
        cms.verify(flip(der, md))
    # the signingTime (a signed attribute that is not checked by value)
    st = find(der, bytes.fromhex("2a864886f70d010905"))
    with pytest.raises(InvalidSignature):
        cms.verify(flip(der, st + 14))
    # the signature
    with pytest.raises(InvalidSignature):
        cms.verify(flip(der, len(der) - 2))


def test_wrong_digest_algorithm(pki: dict) -> None:
    der = cms.sign(b"x", pki["key"], pki["cert"])
    sha256 = bytes.fromhex("608648016503040201")  # 2.16.840.1.101.3.4.2.1, 9 bytes
    # replace both SM3 AlgorithmIdentifiers (8-byte OID) by SHA-256 (re-encoding lengths)
    oid, fields = _signed_data(der)
    fields_raw = [raw for _, _, raw in fields]
    fields_raw[1] = _tlv(0x31, _tlv(0x30, _tlv(0x06, sha256)))
    with pytest.raises(UnsupportedFormat, match="SM3"):
        cms.verify(_rebuild(oid, fields_raw))


def test_content_arguments(pki: dict) -> None:
    attached = cms.sign(b"x", pki["key"], pki["cert"])
    with pytest.raises(InvalidArgument):
        cms.verify(attached, content=b"x")
    detached = cms.sign(b"x", pki["key"], pki["cert"], detached=True)
    with pytest.raises(InvalidArgument):
        cms.verify(detached)


def test_sign_bad_arguments(pki: dict) -> None:
    with pytest.raises(InvalidKey):
        cms.sign(b"x", pki["key2"], pki["cert"])
    with pytest.raises(InvalidArgument):
        cms.sign(b"x", pki["key"], pki["cert"], oid_style="x")
    with pytest.raises(InvalidArgument):
        cms.sign(b"x", pki["key"], pki["cert"], format="txt")
    with pytest.raises(InvalidArgument):
        cms.sign(b"x", pki["key"], pki["cert"], signature_algorithm="rsa")
    with pytest.raises(InvalidArgument):
        cms.SignedDataBuilder(b"x").build()
    with pytest.raises(TypeError):
        cms.sign("text", pki["key"], pki["cert"])  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        cms.sign(b"x", pki["key"].to_bytes(), pki["cert"])  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        cms.sign(b"x", pki["key"], pki["cert"].to_der())  # type: ignore[arg-type]
    b = cms.SignedDataBuilder(b"x")
    for _ in range(cms.MAX_SIGNERS + 1):
        b.add_signer(pki["key"], pki["cert"])
    with pytest.raises(InvalidArgument):
        b.build()


def test_not_signed_data(pki: dict) -> None:
    env = cms.encrypt(b"x", [pki["cert"]])
    with pytest.raises(UnsupportedFormat):
        cms.verify(env)
    signed = cms.sign(b"x", pki["key"], pki["cert"])
    with pytest.raises(UnsupportedFormat):
        cms.decrypt(signed, pki["key"])
    # no signerInfos
    oid, fields = _signed_data(signed)
    raw = [r for _, _, r in fields]
    raw[-1] = _tlv(0x31, b"")
    with pytest.raises(InvalidSignature):
        cms.verify(_rebuild(oid, raw))


@pytest.mark.parametrize("cut", [1, 2, 10, 100, -1, -50])
def test_truncated(pki: dict, cut: int) -> None:
    der = cms.sign(b"x" * 50, pki["key"], pki["cert"])
    with pytest.raises(UnsupportedFormat):
        cms.verify(der[:cut])
    env = cms.encrypt(b"x" * 50, [pki["cert"]])
    with pytest.raises(UnsupportedFormat):
        cms.decrypt(env[:cut], pki["key"])


@pytest.mark.parametrize(
    "garbage",
    [b"", b"\x00", b"\x30\x80", b"\x30\x00", b"\x04\x01x", b"hello", b"\x30\x03\x06\x01\x00", b"\xff" * 40],
)
def test_garbage(pki: dict, garbage: bytes) -> None:
    with pytest.raises(UnsupportedFormat):
        cms.verify(garbage)
    with pytest.raises(UnsupportedFormat):
        cms.decrypt(garbage, pki["key"])


def test_trailing_bytes(pki: dict) -> None:
    der = cms.sign(b"x", pki["key"], pki["cert"])
    with pytest.raises(UnsupportedFormat):
        cms.verify(der + b"\x00")


def test_depth_bomb(pki: dict) -> None:
    bomb = b"\x30\x80" * 100_000 + b"\x00\x00" * 100_000
    with pytest.raises(UnsupportedFormat, match="deep"):
        cms.verify(bomb)
    definite = b""
    for _ in range(200):
        definite = _tlv(0x30, definite)
    with pytest.raises(UnsupportedFormat, match="deep"):
        cms.decrypt(definite, pki["key"])


def test_size_bound(pki: dict) -> None:
    with pytest.raises(UnsupportedFormat, match="256 MiB"):
        cms.verify(bytes(cms.MAX_INPUT + 1))
    assert (cms.MAX_INPUT, cms.MAX_DEPTH, cms.MAX_SIGNERS) == (256 << 20, 32, 64)
    assert (cms.MAX_RECIPIENTS, cms.MAX_CERTIFICATES, cms.MAX_ATTRIBUTES) == (64, 256, 64)


def test_ber_input_is_normalised(pki: dict) -> None:
    """The same SignedData, re-encoded as BER with indefinite lengths and a chunked
    OCTET STRING, verifies."""
    der = cms.sign(b"abcdefgh" * 10, pki["key"], pki["cert"])
    oid, fields = _signed_data(der)
    raw = [r for _, _, r in fields]
    encap = _parse(fields[2][1])
    octets = _parse(encap[1][1])[0][1]
    chunks = b"".join(_tlv(0x04, octets[i : i + 7]) for i in range(0, len(octets), 7))
    ber_octets = b"\x24\x80" + chunks + b"\x00\x00"
    raw[2] = b"\x30\x80" + encap[0][2] + b"\xa0\x80" + ber_octets + b"\x00\x00" + b"\x00\x00"
    sd = b"\x30\x80" + b"".join(raw) + b"\x00\x00"
    ber = b"\x30\x80" + oid + b"\xa0\x80" + sd + b"\x00\x00\x00\x00"
    assert cms.verify(ber).content == b"abcdefgh" * 10


# ---------------------------------------------------------------- EnvelopedData


@pytest.mark.parametrize("cipher", ["sm4-cbc", "sm4-gcm"])
@pytest.mark.parametrize("oid_style", ["rfc", "gm"])
@pytest.mark.parametrize("key_format", ["der", "c1c3c2"])
@pytest.mark.parametrize("key_oid", ["1.2.156.10197.1.301.3", "1.2.156.10197.1.301.3.2.1"])
def test_encrypt_decrypt_round_trip(
    pki: dict, cipher: str, oid_style: str, key_format: str, key_oid: str
) -> None:
    for content in (b"", b"a", b"x" * 16, b"y" * 1000):
        env = cms.encrypt(
            content, [pki["cert"]], cipher=cipher, oid_style=oid_style, key_format=key_format, key_oid=key_oid
        )
        assert cms.decrypt(env, pki["key"]) == content
        assert cms.decrypt(env, pki["key"], pki["cert"]) == content


def test_encrypt_defaults(pki: dict) -> None:
    env = cms.encrypt(b"secret", [pki["cert"]])
    assert bytes.fromhex("2a864886f70d010703") in env[:20]  # envelopedData (RFC)
    assert bytes.fromhex("2a811ccf55016802") in env  # SM4-CBC
    assert bytes.fromhex("06092a811ccf5501822d03") in env  # key transport 1.2.156.10197.1.301.3
    assert bytes.fromhex("2a811ccf5501822d030201") not in env
    # the encrypted key is the GM/T 0009 SM2Cipher SEQUENCE
    i = env.index(bytes.fromhex("06092a811ccf5501822d03"))
    assert env[i + 11] == 0x04 and env[i + 13] == 0x30
    assert b"secret" not in env
    pem = cms.encrypt(b"secret", [pki["cert"]], format="pem")
    assert pem.startswith(b"-----BEGIN CMS-----")
    assert cms.decrypt(pem.decode(), pki["key"]) == b"secret"


def test_several_recipients_and_ski(pki: dict) -> None:
    env = cms.encrypt(b"to both", [pki["cert"], pki["cert2"]])
    assert cms.decrypt(env, pki["key"]) == b"to both"
    assert cms.decrypt(env, pki["key2"]) == b"to both"
    assert cms.decrypt(env, pki["key2"], pki["cert2"]) == b"to both"
    key = sm2.PrivateKey.generate()
    cert = x509.CertificateBuilder(subject="CN=ski").self_sign(key)
    env = cms.encrypt(b"ski", [cert], identifier="subject_key_identifier")
    assert cms.decrypt(env, key, cert) == b"ski"
    assert cms.decrypt(env, key) == b"ski"


def test_wrong_recipient_key(pki: dict) -> None:
    env = cms.encrypt(b"secret", [pki["cert"]])
    with pytest.raises(DecryptionError):
        cms.decrypt(env, pki["key2"])
    # the certificate names no recipient info
    with pytest.raises(DecryptionError):
        cms.decrypt(env, pki["key2"], pki["cert2"])
    # a certificate that is not the key's
    with pytest.raises(InvalidKey):
        cms.decrypt(env, pki["key"], pki["cert2"])


@pytest.mark.parametrize("cipher", ["sm4-cbc", "sm4-gcm"])
def test_tampered_ciphertext(pki: dict, cipher: str) -> None:
    env = cms.encrypt(b"z" * 40, [pki["cert"]], cipher=cipher)
    for pos in (len(env) - 1, len(env) - 17, len(env) - 30):
        t = flip(env, pos)
        if cipher == "sm4-gcm":
            with pytest.raises(DecryptionError):
                cms.decrypt(t, pki["key"])
        else:
            # CBC is not authenticated: tampering gives garbage or a padding failure,
            # never the original, and a padding failure is the same DecryptionError.
            try:
                assert cms.decrypt(t, pki["key"]) != b"z" * 40
            except DecryptionError:
                pass
    # the last block decides the padding: flipping its last byte through the previous
    # block breaks the padding; the error is DecryptionError, not InvalidPadding
    with pytest.raises(DecryptionError):
        cms.decrypt(flip(env, len(env) - 17), pki["key"]) if cipher == "sm4-cbc" else cms.decrypt(
            flip(env, len(env) - 1), pki["key"]
        )


def test_tampered_encrypted_key(pki: dict) -> None:
    env = cms.encrypt(b"secret", [pki["cert"]])
    i = find(env, bytes.fromhex("2a811ccf5501822d03"))  # key-transport OID, then the key
    with pytest.raises(DecryptionError):
        cms.decrypt(flip(env, i + 40), pki["key"])


def test_encrypt_bad_arguments(pki: dict) -> None:
    with pytest.raises(InvalidArgument):
        cms.encrypt(b"x", [])
    with pytest.raises(InvalidArgument):
        cms.encrypt(b"x", [pki["cert"]] * (cms.MAX_RECIPIENTS + 1))
    with pytest.raises(InvalidArgument):
        cms.encrypt(b"x", [pki["cert"]], cipher="sm4-ecb")
    with pytest.raises(InvalidArgument):
        cms.encrypt(b"x", [pki["cert"]], key_oid="1.2.3")
    with pytest.raises(InvalidArgument):
        cms.encrypt(b"x", [pki["cert"]], key_format="c1c2c3")
    bare = x509.CertificateBuilder(subject="CN=bare", key_identifiers=False).self_sign(pki["key"])
    with pytest.raises(InvalidArgument):
        cms.encrypt(b"x", [bare], identifier="subject_key_identifier")
    with pytest.raises(TypeError):
        cms.encrypt(b"x", [pki["cert"].to_der()])  # type: ignore[list-item]
    with pytest.raises(TypeError):
        cms.decrypt(b"x", pki["key"].public_key())  # type: ignore[arg-type]


def test_unsupported_content_cipher(pki: dict) -> None:
    env = cms.encrypt(b"x", [pki["cert"]])
    cbc = bytes.fromhex("2a811ccf55016802")
    i = find(env, cbc)
    patched = env[:i] + bytes.fromhex("2a811ccf55016801") + env[i + len(cbc) :]  # SM4-ECB
    with pytest.raises(UnsupportedFormat):
        cms.decrypt(patched, pki["key"])


# ---------------------------------------------------------------- peer-written files


def test_vectors_readme_lists_every_file() -> None:
    readme = (VEC / "README.md").read_text()
    for f in VEC.iterdir():
        if f.suffix in (".p7s", ".p7m"):
            assert f.name in readme, f.name


@pytest.mark.parametrize(
    "name",
    [
        "bc-signed-attached.p7s",
        "bc-signed-ber.p7s",
        "bc-signed-noattrs.p7s",
        "gmsm-signed-rfc-attached.p7s",
        "gmsm-signed-rfc-noattrs.p7s",
        "gmsm-signed-gm-attached.p7s",
        "gmsm-signed-gm-noattrs.p7s",
    ],
)
def test_peer_signed_attached(name: str) -> None:
    p = peer()
    r = cms.verify((VEC / name).read_bytes(), trust_roots=[p["root"]])
    assert r.content == CONTENT
    assert r.signers == (p["cert"],)
    assert r.oid_style == ("gm" if "-gm-" in name else "rfc")


@pytest.mark.parametrize(
    "name", ["bc-signed-detached.p7s", "gmsm-signed-rfc-detached.p7s", "gmsm-signed-gm-detached.p7s"]
)
def test_peer_signed_detached(name: str) -> None:
    p = peer()
    data = (VEC / name).read_bytes()
    assert cms.verify(data, content=CONTENT, trust_roots=[p["root"]]).signers == (p["cert"],)
    with pytest.raises(InvalidSignature):
        cms.verify(data, content=CONTENT + b"!", trust_roots=[p["root"]])


def test_peer_ber_is_ber() -> None:
    data = (VEC / "bc-signed-ber.p7s").read_bytes()
    assert data[1] == 0x80  # indefinite length: the BER path is exercised
    assert (VEC / "bc-enveloped-ber.p7m").read_bytes()[1] == 0x80


@pytest.mark.parametrize(
    "name",
    [
        "bc-enveloped-cbc.p7m",
        "bc-enveloped-gcm.p7m",
        "bc-enveloped-ber.p7m",
        "gmsm-enveloped-rfc-cbc.p7m",
        "gmsm-enveloped-rfc-gcm.p7m",
        "gmsm-enveloped-gm-cbc.p7m",
        "gmsm-enveloped-gm-gcm.p7m",
        "gmsm-enveloped-gm-ski-cbc.p7m",
        "gmsm-enveloped-gm-ski-gcm.p7m",
    ],
)
def test_peer_enveloped(name: str) -> None:
    p = peer()
    data = (VEC / name).read_bytes()
    assert cms.decrypt(data, p["key"]) == CONTENT
    assert cms.decrypt(data, p["key"], p["cert"]) == CONTENT
    with pytest.raises(DecryptionError):
        cms.decrypt(data, p["key2"])


def test_other_recipient_kinds_are_skipped(pki: dict) -> None:
    """A recipient info for another algorithm (RSA here) is not ours: it is skipped, not an
    error, so the SM2 recipient next to it still decrypts."""
    env = cms.encrypt(b"mixed", [pki["cert"], pki["cert2"]])
    sm2_kt = bytes.fromhex("2a811ccf5501822d03")
    rsa = bytes.fromhex("2a864886f70d010101")  # rsaEncryption, the same length
    first = find(env, sm2_kt)
    second = find(env, sm2_kt, first + 1)
    for at in (first, second):
        patched = env[:at] + rsa + env[at + len(rsa) :]
        got = []
        for key in (pki["key"], pki["key2"]):
            try:
                got.append(cms.decrypt(patched, key))
            except DecryptionError:
                got.append(None)
        assert sorted(got, key=lambda x: x is None) == [b"mixed", None]


def test_bouncycastle_key_transport_form(pki: dict) -> None:
    """The only SM2 key transport BouncyCastle 1.87 decrypts: OID 1.2.156.10197.1.301.3.2.1
    and the raw 04||C1||C3||C2 key (65 + 32 + 16 = 113 bytes for a 16-byte SM4 key)."""
    env = cms.encrypt(b"x", [pki["cert"]], key_oid="1.2.156.10197.1.301.3.2.1", key_format="c1c3c2")
    oid = bytes.fromhex("060b2a811ccf5501822d030201")
    i = find(env, oid) + len(oid)
    assert env[i : i + 3] == b"\x04\x71\x04"  # OCTET STRING of 113 bytes, starting 04
    assert cms.decrypt(env, pki["key"]) == b"x"


def _resign_attributes(der: bytes, key: sm2.PrivateKey, edit: object) -> bytes:
    """Rebuilds a one-signer SignedData whose signed attributes went through ``edit`` (a
    function on the list of encoded attributes), with a valid signature over the result."""
    oid, fields = _signed_data(der)
    raw = [r for _, _, r in fields]
    (si,) = _parse(fields[-1][1])
    parts = _parse(si[1])
    idx = next(i for i, p in enumerate(parts) if p[0] == 0xA0)
    attrs = [a[2] for a in _parse(parts[idx][1])]
    attrs = edit(attrs)  # type: ignore[operator]
    body = b"".join(attrs)
    sig = key.sign(_tlv(0x31, body))
    new = [p[2] for p in parts]
    new[idx] = _tlv(0xA0, body)
    new[-1] = _tlv(0x04, sig)
    raw[-1] = _tlv(0x31, _tlv(0x30, b"".join(new)))
    return _rebuild(oid, raw)


def test_signed_attribute_checks_with_valid_signatures(pki: dict) -> None:
    der = cms.sign(b"attrs", pki["key"], pki["cert"])
    # a re-signed, unchanged set verifies (the helper itself is sound) ...
    assert cms.verify(_resign_attributes(der, pki["key"], lambda a: a)).content == b"attrs"
    # ... also when the signer did not sort the SET OF: its written order is accepted
    assert cms.verify(_resign_attributes(der, pki["key"], lambda a: a[::-1])).content == b"attrs"
    ct = bytes.fromhex("2a864886f70d010903")
    md = bytes.fromhex("2a864886f70d010904")
    data_oid = bytes.fromhex("2a864886f70d010701")
    # contentType says signedData although the content is data
    wrong_type = lambda a: [x.replace(data_oid, OID_SIGNED_DATA) if ct in x else x for x in a]  # noqa: E731
    # messageDigest of other content
    wrong_md = lambda a: [x.replace(sm3.hash(b"attrs"), sm3.hash(b"other")) for x in a]  # noqa: E731
    no_ct = lambda a: [x for x in a if ct not in x]  # noqa: E731
    no_md = lambda a: [x for x in a if md not in x]  # noqa: E731
    twice = lambda a: a + [x for x in a if md in x]  # noqa: E731
    for edit in (wrong_type, wrong_md, no_ct, no_md, twice):
        with pytest.raises(InvalidSignature):
            cms.verify(_resign_attributes(der, pki["key"], edit))


# --- certificate purposes (keyUsage / extKeyUsage of signers and recipients) ---------


def _issued(
    pki: dict, key: sm2.PrivateKey, usage: list[str], eku: tuple[str, ...] = (), serial: int = 77
) -> x509.Certificate:
    ca_key = pki["ca_key"]
    return (
        x509.CertificateBuilder(subject="CN=Dual", public_key=key.public_key())
        .serial(serial)
        .with_key_usage(usage)
        .with_extended_key_usage(eku)
        .valid_for_days(30)
        .sign(pki["root"], ca_key)
    )


def _signed_as(pki: dict, usage: list[str], eku: tuple[str, ...] = ()) -> tuple[bytes, x509.Certificate]:
    """A SignedData whose SignerInfo names a certificate with ``usage``/``eku``: signed
    through a permissive twin (same key, issuer and serial), which is then stripped, so
    that the signer is found only as the given certificate."""
    key = sm2.PrivateKey.generate()
    twin = _issued(pki, key, ["digitalSignature"])
    restricted = _issued(pki, key, usage, eku)
    der = _strip_certificates(cms.sign(b"dual", key, twin))
    return der, restricted


def test_signer_key_usage_must_allow_signing(pki: dict) -> None:
    # A GM/T 0015 dual pair: the signing certificate (digitalSignature only) verifies ...
    der, sign_cert = _signed_as(pki, ["digitalSignature"])
    assert cms.verify(der, trust_roots=[pki["root"]], intermediates=[sign_cert]).content == b"dual"
    der, nr_cert = _signed_as(pki, ["nonRepudiation"])
    assert cms.verify(der, intermediates=[nr_cert]).content == b"dual"
    # ... the encryption certificate, a CA-only key or a key-agreement key never do,
    # with or without trust roots, whatever the purpose.
    for usage in (["keyEncipherment", "dataEncipherment"], ["keyCertSign", "cRLSign"], ["keyAgreement"]):
        der, cert = _signed_as(pki, usage)
        for purpose in ("smime", "any"):
            with pytest.raises(CertificateVerificationError) as e:
                cms.verify(der, trust_roots=[pki["root"]], intermediates=[cert], purpose=purpose)
            assert e.value.subject == "CN=Dual" and "keyUsage" in e.value.reason
            with pytest.raises(CertificateVerificationError):
                cms.verify(der, intermediates=[cert], purpose=purpose)
    # signing with such a certificate is refused at once
    key = sm2.PrivateKey.generate()
    enc = _issued(pki, key, ["keyEncipherment", "dataEncipherment"])
    with pytest.raises(InvalidArgument, match="keyUsage"):
        cms.sign(b"x", key, enc)


def test_signer_extended_key_usage_purpose(pki: dict) -> None:
    der, email = _signed_as(pki, ["digitalSignature"], ("emailProtection",))
    assert cms.verify(der, intermediates=[email]).content == b"dual"
    der, server = _signed_as(pki, ["digitalSignature"], ("serverAuth",))
    with pytest.raises(CertificateVerificationError, match="emailProtection"):
        cms.verify(der, trust_roots=[pki["root"]], intermediates=[server])
    assert cms.verify(der, intermediates=[server], purpose="any").content == b"dual"
    # anyExtendedKeyUsage alone is not S/MIME (as OpenSSL's smimesign purpose)
    der, anyeku = _signed_as(pki, ["digitalSignature"], ("anyExtendedKeyUsage",))
    with pytest.raises(CertificateVerificationError):
        cms.verify(der, intermediates=[anyeku])
    der, code = _signed_as(pki, ["digitalSignature"], ("codeSigning",))
    assert cms.verify(der, intermediates=[code], purpose="codesign").content == b"dual"
    with pytest.raises(CertificateVerificationError):
        cms.verify(der, intermediates=[code])
    # the builder writes extKeyUsage non-critical: not a time-stamping certificate
    der, ts = _signed_as(pki, ["digitalSignature"], ("timeStamping",))
    with pytest.raises(CertificateVerificationError, match="critical"):
        cms.verify(der, intermediates=[ts], purpose="timestamping")
    with pytest.raises(InvalidArgument, match="purpose"):
        cms.verify(der, intermediates=[ts], purpose="sslserver")


def test_recipient_key_usage(pki: dict) -> None:
    key = sm2.PrivateKey.generate()
    sign_cert = _issued(pki, key, ["digitalSignature"], serial=78)
    enc_cert = _issued(pki, key, ["keyEncipherment", "dataEncipherment", "keyAgreement"], serial=79)
    with pytest.raises(InvalidArgument, match="keyEncipherment"):
        cms.encrypt(b"m", [enc_cert, sign_cert])
    env = cms.encrypt(b"m", [enc_cert])
    assert cms.decrypt(env, key, enc_cert) == b"m"
    assert cms.decrypt(env, key) == b"m"
    with pytest.raises(InvalidArgument, match="keyEncipherment"):
        cms.decrypt(env, key, sign_cert)


def test_content_type_without_signed_attributes(pki: dict) -> None:
    # RFC 5652 §5.3: without signed attributes the eContentType is not signed, so only
    # id-data is accepted; a changed type is refused (with attributes: the contentType
    # attribute no longer matches).
    data_oid = bytes.fromhex("2a864886f70d010701")
    digested_oid = bytes.fromhex("2a864886f70d010705")
    for attrs in (False, True):
        der = cms.sign(b"typed", pki["key"], pki["cert"], signed_attributes=attrs)
        assert der.count(data_oid) == (2 if attrs else 1)
        i = der.index(data_oid)
        swapped = der[:i] + digested_oid + der[i + len(data_oid) :]
        with pytest.raises(InvalidSignature):
            cms.verify(swapped)
    # GM/T 0010's data type without signed attributes is still id-data
    gm = cms.sign(b"typed", pki["key"], pki["cert"], signed_attributes=False, oid_style="gm")
    assert cms.verify(gm).content == b"typed"
