"""The peer ops prepared for formats guomi does not have yet (CMS/PKCS#7, PKCS#12, SM4
CMAC and CBC-MAC variants, CRLs): each op is exercised here, with guomi-made keys and
certificates and across the two peers where they agree, so that guomi-side tests can be
written against them (tests/interop/README.md documents their fields). Where the peers
disagree with each other, the test pins down how (see the README's "Peer quirks")."""

from __future__ import annotations

import pytest

from guomi import sm2, x509

from .interop_peers import Peer, PeerError, messages, peer_pkcs7_decrypts, peer_valid, rng

SM2_SIGN_OID_GMT0010 = "1.2.156.10197.1.301.1"


@pytest.fixture(scope="module")
def pki() -> tuple[x509.Certificate, sm2.PrivateKey, x509.Certificate, sm2.PrivateKey]:
    r = rng("peer-ops-pki")
    ca_key = sm2.PrivateKey.from_bytes(r.randbytes(32))
    ee_key = sm2.PrivateKey.from_bytes(r.randbytes(32))
    ca = x509.CertificateBuilder(subject="CN=peer ops CA").valid_for_days(30).ca().self_sign(ca_key)
    ee = (
        x509.CertificateBuilder(subject="CN=peer ops end entity")
        .with_public_key(ee_key.public_key())
        .with_key_usage(["digitalSignature", "keyEncipherment", "dataEncipherment"])
        .valid_for_days(30)
        .sign(ca, ca_key)
    )
    return ca, ca_key, ee, ee_key


@pytest.mark.parametrize("detached", [False, True])
def test_bc_cms_signed_data(bc: Peer, gmsm: Peer, pki: tuple, detached: bool) -> None:  # type: ignore[type-arg]
    _, _, ee, ee_key = pki
    data = b"cms content"
    der = bc.get("cms_sign", "der", cert=ee.to_der(), priv=ee_key.to_bytes(), data=data, detached=detached)
    got = bc.call("cms_verify", der=der, data=data if detached else None)
    assert got["valid"] and got["sig_algs"] == ["1.2.156.10197.1.501"]
    assert bytes.fromhex(got["content"]) == data
    assert not bc.call("cms_verify", der=der, data=b"other")["valid"]
    # gmsm's pkcs7 knows only GM/T 0010's signature OID, not 1.2.156.10197.1.501
    assert (
        "unsupported algorithm"
        in gmsm.call("pkcs7_verify", der=der, data=data if detached else None)["error"]
    )
    # with BouncyCastle writing the GM/T 0010 OID, gmsm verifies it (BouncyCastle itself cannot)
    der = bc.get(
        "cms_sign", "der", cert=ee.to_der(), priv=ee_key.to_bytes(), data=data, sig_oid=SM2_SIGN_OID_GMT0010
    )
    assert gmsm.call("pkcs7_verify", der=der)["valid"]
    with pytest.raises(PeerError, match="Unknown signature type"):
        bc.call("cms_verify", der=der)


@pytest.mark.parametrize("flavour", ["sm", "std"])
def test_gmsm_pkcs7_signed_data(gmsm: Peer, pki: tuple, flavour: str) -> None:  # type: ignore[type-arg]
    ca, _, ee, ee_key = pki
    data = b"pkcs7 content"
    der = gmsm.get("pkcs7_sign", "der", cert=ee.to_der(), priv=ee_key.to_bytes(), data=data, flavour=flavour)
    assert gmsm.call("pkcs7_verify", der=der)["valid"]
    assert gmsm.call("pkcs7_verify", der=der, roots=[ca.to_der()])["valid"]
    der = gmsm.get("pkcs7_sign", "der", cert=ee.to_der(), priv=ee_key.to_bytes(), data=data, detached=True)
    assert gmsm.call("pkcs7_verify", der=der, data=data)["valid"]
    assert not gmsm.call("pkcs7_verify", der=der, data=data + b"!")["valid"]


@pytest.mark.parametrize(
    "cipher, oid", [("sm4-cbc", "1.2.156.10197.1.104.2"), ("sm4-gcm", "1.2.156.10197.1.104.8")]
)
def test_bc_cms_enveloped_data(bc: Peer, pki: tuple, cipher: str, oid: str) -> None:  # type: ignore[type-arg]
    _, _, ee, ee_key = pki
    for m in messages(f"cms-env-{cipher}", [1, 16, 1000]):
        der = bc.get("cms_envelope", "der", certs=[ee.to_der()], data=m, cipher=cipher)
        got = bc.call("cms_decrypt", der=der, priv=ee_key.to_bytes())
        assert bytes.fromhex(got["data"]) == m
        assert (got["key_alg"], got["content_alg"]) == ("1.2.156.10197.1.301.3", oid)


@pytest.mark.parametrize("flavour", ["sm", "std", "cfca", "cfca_asn1"])
@pytest.mark.parametrize("cipher", ["sm4-cbc", "sm4-gcm", "sm4-ecb"])
def test_gmsm_pkcs7_enveloped_data(gmsm: Peer, pki: tuple, flavour: str, cipher: str) -> None:  # type: ignore[type-arg]
    _, _, ee, ee_key = pki
    m = b"enveloped content"
    cfca = "cfca" if flavour == "cfca" else None
    # An envelope that gmsm itself cannot open is drawn again (see `peer_valid`).
    der = peer_valid(
        lambda: gmsm.get(
            "pkcs7_envelope", "der", certs=[ee.to_der()], data=m, cipher=cipher, flavour=flavour
        ),
        lambda d: peer_pkcs7_decrypts(gmsm, d, ee.to_der(), ee_key.to_bytes(), cfca),
    )
    got = gmsm.get(
        "pkcs7_decrypt",
        "data",
        der=der,
        cert=ee.to_der(),
        priv=ee_key.to_bytes(),
        flavour=cfca,
    )
    assert got == m


def test_bc_pkcs12(bc: Peer, pki: tuple) -> None:  # type: ignore[type-arg]
    _, _, ee, ee_key = pki
    der = bc.get(
        "pkcs12_create",
        "der",
        cert=ee.to_der(),
        priv=ee_key.to_bytes(),
        password="pw",
        name="ee",
        prf="hmac-sha256",
        cipher="aes-256-cbc",
        mac="sha256",
    )
    got = bc.call("pkcs12_read", der=der, password="pw")
    assert bytes.fromhex(got["priv"]) == ee_key.to_bytes()
    assert bytes.fromhex(got["cert"]) == ee.to_der()
    # BouncyCastle 1.87 has no HMAC-SM3 PBKDF2 PRF and no SM3 PKCS#12 MAC
    with pytest.raises(PeerError, match="no prf for algorithm"):
        bc.call(
            "pkcs12_create",
            cert=ee.to_der(),
            priv=ee_key.to_bytes(),
            password="pw",
            name="ee",
            prf="hmac-sm3",
            cipher="sm4-cbc",
            mac="sha256",
        )
    with pytest.raises(PeerError, match="MAC calculator"):
        bc.call(
            "pkcs12_create",
            cert=ee.to_der(),
            priv=ee_key.to_bytes(),
            password="pw",
            name="ee",
            prf="hmac-sha256",
            cipher="aes-256-cbc",
            mac="sm3",
        )


def test_sm4_cmac_and_cbcmac_agree(bc: Peer, gmsm: Peer) -> None:
    """SM4-CMAC (BC CMac(SM4Engine), gmsm cbcmac.NewCMAC) and CBC-MAC with ISO 9797-1
    padding method 2 (BC CBCBlockCipherMac + ISO7816d4Padding = gmsm cbcmac.NewCBCMAC)."""
    r = rng("cmac")
    for m in messages("cmac", [0, 1, 15, 16, 17, 32, 1000]):
        key = r.randbytes(16)
        for size in (16, 8, 4):
            cmac = bc.get("sm4_mac", "mac", variant="cmac", key=key, data=m, size=size)
            assert gmsm.get("cbcmac", "mac", variant="cmac", key=key, data=m, size=size) == cmac, (
                len(m),
                size,
            )
        cbc = bc.get("sm4_mac", "mac", variant="cbcmac_iso7816", key=key, data=m)
        assert gmsm.get("cbcmac", "mac", variant="cbcmac", key=key, data=m) == cbc, len(m)


def test_sm4_mac_other_variants_run(bc: Peer, gmsm: Peer) -> None:
    """The remaining variants answer with a MAC of the requested size (no peer to compare)."""
    key, key2 = bytes(range(16)), bytes(range(16, 32))
    for v in ("emac", "ansi_retail", "macdes", "lmac", "trcbcmac", "cbcrmac"):
        assert len(gmsm.get("cbcmac", "mac", variant=v, key=key, key2=key2, data=b"abc", size=16)) == 16, v
    assert len(bc.get("sm4_mac", "mac", variant="cbcmac", key=key, data=b"abc", size=8)) == 8
    assert len(bc.get("sm4_mac", "mac", variant="gmac", key=key, nonce=bytes(12), data=b"abc")) == 16


def test_crls_cross_verify(bc: Peer, gmsm: Peer, pki: tuple) -> None:  # type: ignore[type-arg]
    """CRLs issued by each peer for a guomi-made CA verify in both peers."""
    ca, ca_key, ee, _ = pki
    serials = [ee.serial_number.to_bytes(16, "big").lstrip(b"\0"), b"\x05"]
    for maker in (bc, gmsm):
        crl = maker.get(
            "x509_crl_create", "crl", issuer_cert=ca.to_der(), issuer_priv=ca_key.to_bytes(), serials=serials
        )
        for checker in (bc, gmsm):
            got = checker.call("x509_crl_verify", crl=crl, issuer=ca.to_der())
            assert got["valid"], (maker.name, checker.name, got)
            assert sorted(int(s, 16) for s in got["serials"]) == sorted(
                int.from_bytes(s, "big") for s in serials
            )
        assert not gmsm.call("x509_crl_verify", crl=crl, issuer=ee.to_der())["valid"]
