"""X.509 against BouncyCastle (bcpkix ContentVerifier, SM3withSM2) and gmsm smx509: guomi's
certificates and CSRs verified by the peers, and the peers' verified by guomi."""

from __future__ import annotations

import pytest

from guomi import sm2, x509

from .interop_peers import Peer, peer_param, rng


def _key(seed: str) -> sm2.PrivateKey:
    r = rng(seed)
    return sm2.PrivateKey.from_bytes(r.randbytes(32))


@pytest.fixture(scope="module")
def guomi_chain() -> tuple[x509.Certificate, x509.Certificate, x509.Certificate, sm2.PrivateKey]:
    """root -> intermediate -> leaf, all made by guomi; and the leaf's key."""
    root_key, inter_key, leaf_key = _key("x509-root"), _key("x509-inter"), _key("x509-leaf")
    root = (
        x509.CertificateBuilder(subject="CN=guomi interop root,O=guomi")
        .valid_for_days(30)
        .ca()
        .self_sign(root_key)
    )
    inter = (
        x509.CertificateBuilder(subject="CN=guomi interop intermediate,O=guomi")
        .with_public_key(inter_key.public_key())
        .valid_for_days(30)
        .ca(path_length=0)
        .sign(root, root_key)
    )
    leaf = (
        x509.CertificateBuilder(subject="CN=leaf.example.com,O=guomi")
        .with_public_key(leaf_key.public_key())
        .valid_for_days(30)
        .with_subject_alternative_names(["dns:leaf.example.com"])
        .with_extended_key_usage(["serverAuth"])
        .sign(inter, inter_key)
    )
    return root, inter, leaf, leaf_key


@peer_param("bc", "gmsm")
def test_guomi_certificates_verify_in_peer(peer: Peer, guomi_chain: tuple) -> None:  # type: ignore[type-arg]
    root, inter, leaf, _ = guomi_chain
    for cert, issuer in [(root, root), (inter, root), (leaf, inter)]:
        got = peer.call("x509_cert_verify", cert=cert.to_der(), issuer=issuer.to_der())
        assert got["valid"], got
        if peer.name == "bc":
            assert got["jca_error"] is None  # X509Certificate.verify(issuer key, "BC") too
            assert got["sig_alg"] == "1.2.156.10197.1.501"
    # and a wrong issuer is refused (the check is real)
    assert not peer.call("x509_cert_verify", cert=leaf.to_der(), issuer=root.to_der())["valid"]


def test_guomi_chain_verifies_in_bc_pkix(bc: Peer, guomi_chain: tuple) -> None:  # type: ignore[type-arg]
    """BouncyCastle's PKIX CertPathValidator accepts guomi's root -> intermediate -> leaf."""
    root, inter, leaf, _ = guomi_chain
    got = bc.call(
        "x509_chain_verify", cert=leaf.to_der(), intermediates=[inter.to_der()], roots=[root.to_der()]
    )
    assert got["valid"], got
    other = x509.CertificateBuilder(subject="CN=other root").ca().self_sign(_key("x509-other"))
    assert not bc.call(
        "x509_chain_verify", cert=leaf.to_der(), intermediates=[inter.to_der()], roots=[other.to_der()]
    )["valid"]


def test_guomi_chain_verifies_in_gmsm(gmsm: Peer, guomi_chain: tuple) -> None:  # type: ignore[type-arg]
    root, inter, leaf, _ = guomi_chain
    got = gmsm.call(
        "x509_chain_verify", cert=leaf.to_der(), intermediates=[inter.to_der()], roots=[root.to_der()]
    )
    assert got["valid"], got
    # PEM as guomi writes it goes through gmsm's ParseCertificatePEM
    got = gmsm.call("x509_cert_verify", cert=leaf.to_pem().encode(), issuer=inter.to_pem().encode())
    assert got["valid"], got
    assert not gmsm.call("x509_chain_verify", cert=leaf.to_der(), intermediates=[], roots=[root.to_der()])[
        "valid"
    ]


@peer_param("bc", "gmsm")
def test_guomi_csr_verifies_in_peer(peer: Peer) -> None:
    key = _key("x509-csr")
    csr = x509.CertificateSigningRequestBuilder(subject="CN=csr.example.com,O=guomi").sign(key)
    got = peer.call("x509_csr_verify", csr=csr.to_der())
    assert got["valid"], got
    assert "csr.example.com" in got["subject"]
    pub = bytes.fromhex(got["pub"])
    assert pub == key.public_key().to_bytes()


@peer_param("bc", "gmsm")
def test_peer_certificates_verify_in_guomi(peer: Peer) -> None:
    ca_key, leaf_key = _key(f"peer-ca-{peer.name}"), _key(f"peer-leaf-{peer.name}")
    root = x509.Certificate.from_der(
        peer.get(
            "x509_cert_create",
            "cert",
            pub=ca_key.public_key().to_bytes(),
            issuer_priv=ca_key.to_bytes(),
            subject_cn=f"{peer.name} interop root",
            ca=True,
            serial=1,
        )
    )
    leaf = x509.Certificate.from_der(
        peer.get(
            "x509_cert_create",
            "cert",
            pub=leaf_key.public_key().to_bytes(),
            issuer_priv=ca_key.to_bytes(),
            issuer_cert=root.to_der(),
            subject_cn=f"{peer.name} interop leaf",
            serial=2,
        )
    )
    assert root.signature_algorithm_oid == "1.2.156.10197.1.501"
    root.verify_signature(root)
    leaf.verify_signature(root)
    assert leaf.public_key() == leaf_key.public_key()
    path = x509.verify_chain(leaf, [], [root])
    assert [c.subject for c in path] == [leaf.subject, root.subject]
    with pytest.raises(x509.CertificateVerificationError):
        x509.verify_chain(root, [], [leaf])
    # and PEM round trip of the peer's certificate
    assert x509.Certificate.from_pem(leaf.to_pem()).to_der() == leaf.to_der()


@peer_param("bc", "gmsm")
def test_peer_csr_verifies_in_guomi(peer: Peer) -> None:
    key = _key(f"peer-csr-{peer.name}")
    der = peer.get("x509_csr_create", "csr", priv=key.to_bytes(), subject_cn=f"{peer.name} csr")
    csr = x509.CertificateSigningRequest.from_der(der)
    csr.verify()
    assert csr.is_signature_valid
    assert csr.public_key() == key.public_key()
    assert f"{peer.name} csr" in csr.subject
    # guomi issues a certificate from the peer's request, which the peer verifies
    ca_key = _key(f"peer-csr-ca-{peer.name}")
    ca = x509.CertificateBuilder(subject="CN=guomi CA for peer CSR").ca().self_sign(ca_key)
    cert = x509.CertificateBuilder.from_csr(csr).valid_for_days(1).sign(ca, ca_key)
    assert peer.call("x509_cert_verify", cert=cert.to_der(), issuer=ca.to_der())["valid"]
