"""X.509 CRLs against BouncyCastle (X509v2CRLBuilder / X509CRLHolder.isSignatureValid) and
gmsm (smx509 CreateRevocationList / CheckSignatureFrom): CRLs guomi issues are verified by
the peers, with the right entries; CRLs the peers issue are read and verified by guomi and
revoke in verify_chain."""

from __future__ import annotations

import pytest

from guomi import sm2, x509

from .interop_peers import Peer, peer_param, rng


def _key(seed: str) -> sm2.PrivateKey:
    return sm2.PrivateKey.from_bytes(rng(seed).randbytes(32))


@pytest.fixture(scope="module")
def ca() -> tuple[x509.Certificate, sm2.PrivateKey, x509.Certificate]:
    """A guomi CA and a leaf it issued (serial 0x0102)."""
    key = _key("crl-ca")
    root = x509.CertificateBuilder(subject="CN=guomi CRL CA,O=guomi").valid_for_days(30).ca().self_sign(key)
    leaf = (
        x509.CertificateBuilder(subject="CN=revoked leaf,O=guomi", serial_number=0x0102)
        .with_public_key(_key("crl-leaf").public_key())
        .valid_for_days(30)
        .sign(root, key)
    )
    return root, key, leaf


@peer_param("bc", "gmsm")
def test_guomi_crl_verifies_in_peer(peer: Peer, ca: tuple) -> None:  # type: ignore[type-arg]
    root, key, leaf = ca
    crl = (
        x509.CRLBuilder(crl_number=17)
        .revoke(leaf, reason="keyCompromise")
        .revoke(0xABCDEF, reason="superseded")
        .revoke(3)
        .sign(root, key)
    )
    got = peer.call("x509_crl_verify", crl=crl.to_der(), issuer=root.to_der())
    assert got["valid"], got
    assert sorted(int(s, 16) for s in got["serials"]) == [3, 0x0102, 0xABCDEF]
    # A CRL with one entry changed does not verify there either.
    der = bytearray(crl.to_der())
    at = der.index(bytes([2, 4, 0, 0xAB, 0xCD, 0xEF]))  # INTEGER 0x00abcdef
    der[at + 5] ^= 1
    assert not peer.call("x509_crl_verify", crl=bytes(der), issuer=root.to_der())["valid"]
    # Nor with another CA's key.
    other_key = _key("crl-other")
    other = x509.CertificateBuilder(subject="CN=guomi CRL CA,O=guomi").ca().self_sign(other_key)
    assert not peer.call("x509_crl_verify", crl=crl.to_der(), issuer=other.to_der())["valid"]


@peer_param("bc", "gmsm")
def test_peer_crl_read_and_enforced_by_guomi(peer: Peer, ca: tuple) -> None:  # type: ignore[type-arg]
    root, key, leaf = ca
    der = peer.get(
        "x509_crl_create",
        "crl",
        issuer_cert=root.to_der(),
        issuer_priv=key.to_bytes(),
        serials=[(0x0102).to_bytes(2, "big"), (0x77).to_bytes(1, "big")],
        number=5,
    )
    crl = x509.CertificateRevocationList.from_der(der)
    crl.verify_signature(root)
    assert crl.issuer == root.subject
    assert crl.crl_number == 5
    assert sorted(e.serial_number for e in crl.revoked_certificates) == [0x77, 0x0102]
    if peer.name == "bc":
        assert all(e.reason == "keyCompromise" for e in crl.revoked_certificates)
    with pytest.raises(x509.CertificateVerificationError) as e:
        x509.verify_chain(leaf, [], [root], crls=[crl])
    assert e.value.subject == "CN=revoked leaf,O=guomi" and e.value.reason.startswith("revoked on ")
    # The peer's CRL with a flipped entry is refused by guomi too (fail closed).
    bad = bytearray(der)
    bad[bad.index(bytes([2, 1, 0x77])) + 2] = 0x78
    forged = x509.CertificateRevocationList.from_der(bytes(bad))
    assert not forged.is_signature_valid(root)
    with pytest.raises(x509.CertificateVerificationError, match="signature does not verify"):
        x509.verify_chain(leaf, [], [root], crls=[forged])
