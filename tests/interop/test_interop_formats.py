"""The formats above the primitives against the peers, both directions: CMS SignedData and
EnvelopedData (BouncyCastle bcpkix, gmsm pkcs7), PKCS#12 (BouncyCastle), the SM4 MACs
(gmsm cbcmac, BouncyCastle CMac / CBCBlockCipherMac), compressed-C1 SM2 ciphertexts
(gmsm) and the 64-byte SM9 KEM encapsulation (BouncyCastle)."""

from __future__ import annotations

import pytest

from guomi import cms, pkcs12, sm2, sm4, x509
from guomi.exceptions import DecryptionError, GuomiError

from .interop_peers import Peer, PeerError, messages, peer_param, peer_pkcs7_decrypts, peer_valid, rng


def _key(seed: str) -> sm2.PrivateKey:
    return sm2.PrivateKey.from_bytes(rng(seed).randbytes(32))


@pytest.fixture(scope="module")
def pki() -> tuple[x509.Certificate, sm2.PrivateKey, x509.Certificate, sm2.PrivateKey]:
    """A root and a signer/recipient certificate it issued, with their keys."""
    root_key, leaf_key = _key("formats-root"), _key("formats-leaf")
    root = (
        x509.CertificateBuilder(subject="CN=guomi formats root,O=guomi")
        .valid_for_days(30)
        .ca()
        .self_sign(root_key)
    )
    leaf = (
        x509.CertificateBuilder(subject="CN=guomi formats signer,O=guomi")
        .with_public_key(leaf_key.public_key())
        .valid_for_days(30)
        .with_key_usage(["digitalSignature", "nonRepudiation", "keyEncipherment"])
        .sign(root, root_key)
    )
    return root, root_key, leaf, leaf_key


# --- CMS SignedData ------------------------------------------------------------------

# What each peer verifies of what guomi signs (docs/cms.md): BouncyCastle the
# SM3withSM2 signature OID, gmsm the SM2 one.
SIG_ALG = {"bc": "sm2-with-sm3", "gmsm": "sm2"}


@peer_param("bc", "gmsm")
@pytest.mark.parametrize("detached", [False, True])
@pytest.mark.parametrize("oid_style", ["rfc", "gm"])
def test_cms_guomi_signs_peer_verifies(peer: Peer, pki: tuple, detached: bool, oid_style: str) -> None:  # type: ignore[type-arg]
    root, _, leaf, leaf_key = pki
    for m in messages(f"cms-sign-{detached}-{oid_style}", [0, 1, 1000]):
        der = cms.sign(
            m, leaf_key, leaf, detached=detached, oid_style=oid_style, signature_algorithm=SIG_ALG[peer.name]
        )
        if peer.name == "bc":
            got = peer.call("cms_verify", der=der, data=m if detached else None, cert=leaf.to_der())
            assert got["valid"], got
            if not detached:
                assert bytes.fromhex(got["content"]) == m
        else:
            got = peer.call("pkcs7_verify", der=der, data=m if detached else None, roots=[root.to_der()])
            assert got["valid"], got
        # and a changed message does not verify there
        if detached:
            bad = m + b"!"
            if peer.name == "bc":
                assert not peer.call("cms_verify", der=der, data=bad, cert=leaf.to_der())["valid"]
            else:
                assert not peer.call("pkcs7_verify", der=der, data=bad, roots=[root.to_der()])["valid"]


@pytest.mark.parametrize("sig_oid", [None, "1.2.156.10197.1.301.1"])
@pytest.mark.parametrize("detached", [False, True])
def test_cms_bc_signs_guomi_verifies(bc: Peer, pki: tuple, sig_oid: str | None, detached: bool) -> None:  # type: ignore[type-arg]
    root, _, leaf, leaf_key = pki
    for m in messages(f"bc-cms-{sig_oid}-{detached}", [0, 17, 1000]):
        der = bc.get(
            "cms_sign",
            "der",
            cert=leaf.to_der(),
            priv=leaf_key.to_bytes(),
            data=m,
            detached=detached,
            sig_oid=sig_oid,
        )
        result = cms.verify(der, content=m if detached else None, trust_roots=[root])
        assert result.content == m
        assert list(result.signers) == [leaf]
        if detached:
            with pytest.raises(GuomiError):
                cms.verify(der, content=m + b"!", trust_roots=[root])


@pytest.mark.parametrize("flavour", ["sm", "std"])
def test_cms_gmsm_signs_guomi_verifies(gmsm: Peer, pki: tuple, flavour: str) -> None:  # type: ignore[type-arg]
    root, _, leaf, leaf_key = pki
    for detached in (False, True):
        m = rng(f"gmsm-p7-{flavour}-{detached}").randbytes(300)
        der = gmsm.get(
            "pkcs7_sign",
            "der",
            cert=leaf.to_der(),
            priv=leaf_key.to_bytes(),
            data=m,
            detached=detached,
            flavour=flavour,
        )
        result = cms.verify(der, content=m if detached else None, trust_roots=[root])
        assert result.content == m and list(result.signers) == [leaf]
        assert result.oid_style == ("gm" if flavour == "sm" else "rfc")


# --- CMS EnvelopedData ----------------------------------------------------------------

# The options BouncyCastle 1.87 decrypts (docs/cms.md); gmsm decrypts every combination.
BC_KEY = dict(key_oid="1.2.156.10197.1.301.3.2.1", key_format="c1c3c2")


@peer_param("bc", "gmsm")
@pytest.mark.parametrize("cipher", ["sm4-cbc", "sm4-gcm"])
@pytest.mark.parametrize("oid_style", ["rfc", "gm"])
def test_cms_guomi_encrypts_peer_decrypts(peer: Peer, pki: tuple, cipher: str, oid_style: str) -> None:  # type: ignore[type-arg]
    _, _, leaf, leaf_key = pki
    options = BC_KEY if peer.name == "bc" else {}
    for m in messages(f"cms-env-{cipher}-{oid_style}", [0, 1, 16, 1000]):
        der = cms.encrypt(m, [leaf], cipher=cipher, oid_style=oid_style, **options)  # type: ignore[arg-type]
        if peer.name == "bc":
            got = peer.get("cms_decrypt", "data", der=der, priv=leaf_key.to_bytes())
        else:
            got = peer.get("pkcs7_decrypt", "data", der=der, cert=leaf.to_der(), priv=leaf_key.to_bytes())
        assert got == m


@pytest.mark.parametrize("cipher", ["sm4-cbc", "sm4-gcm"])
def test_cms_bc_encrypts_guomi_decrypts(bc: Peer, pki: tuple, cipher: str) -> None:  # type: ignore[type-arg]
    _, _, leaf, leaf_key = pki
    other = _key("formats-other")
    for m in messages(f"bc-env-{cipher}", [0, 15, 1000]):
        der = bc.get("cms_envelope", "der", certs=[leaf.to_der()], data=m, cipher=cipher)
        assert cms.decrypt(der, leaf_key) == m
        assert cms.decrypt(der, leaf_key, leaf) == m
        with pytest.raises(DecryptionError):
            cms.decrypt(der, other)


@pytest.mark.parametrize(
    "flavour, cipher", [("sm", "sm4-cbc"), ("std", "sm4-cbc"), ("sm", "sm4-gcm"), ("std", "sm4-gcm")]
)
def test_cms_gmsm_encrypts_guomi_decrypts(gmsm: Peer, pki: tuple, flavour: str, cipher: str) -> None:  # type: ignore[type-arg]
    _, _, leaf, leaf_key = pki
    for m in messages(f"gmsm-env-{flavour}-{cipher}", [1, 16, 1000]):
        # Every envelope gmsm itself opens (see `peer_valid`).
        der = peer_valid(
            lambda m=m: gmsm.get(
                "pkcs7_envelope", "der", certs=[leaf.to_der()], data=m, cipher=cipher, flavour=flavour
            ),
            lambda d: peer_pkcs7_decrypts(gmsm, d, leaf.to_der(), leaf_key.to_bytes()),
        )
        assert cms.decrypt(der, leaf_key) == m


# --- PKCS#12 -------------------------------------------------------------------------


def test_pkcs12_guomi_writes_bc_reads(bc: Peer, pki: tuple) -> None:  # type: ignore[type-arg]
    root, _, leaf, leaf_key = pki
    pfx = pkcs12.dump(leaf_key, leaf, [root], "pass word", encryption="aes", iterations=2048, name="signer")
    got = bc.call("pkcs12_read", der=pfx, password="pass word")
    assert bytes.fromhex(got["priv"]) == leaf_key.to_bytes()
    assert bytes.fromhex(got["cert"]) == leaf.to_der()
    # a wrong password fails there too
    with pytest.raises(PeerError):
        bc.call("pkcs12_read", der=pfx, password="wrong")


# (BouncyCastle 1.87's JCE PKCS#12 MAC calculator has no SM3; its Bc builder does: that
# file is in vectors/pkcs12/ and read by tests/test_pkcs12.py.)
@pytest.mark.parametrize("mac", ["sha256"])
def test_pkcs12_bc_writes_guomi_reads(bc: Peer, pki: tuple, mac: str) -> None:  # type: ignore[type-arg]
    root, _, leaf, leaf_key = pki
    pfx = bc.get(
        "pkcs12_create",
        "der",
        cert=leaf.to_der(),
        priv=leaf_key.to_bytes(),
        password="pw 12",
        name="signer",
        prf="hmac-sha256",
        cipher="aes-256-cbc",
        iterations=2048,
        mac=mac,
    )
    key, cert, chain = pkcs12.load(pfx, "pw 12")
    assert key == leaf_key and cert == leaf and chain == []
    with pytest.raises(GuomiError):
        pkcs12.load(pfx, "pw 13")


# --- SM4 MACs ------------------------------------------------------------------------

# gmsm cbcmac constructor -> (guomi variant, padding); gmsm pads with ISO 9797-1 method 2.
GMSM_MAC = {
    "cbcmac": ("cbc-mac", "iso9797-m2"),
    "emac": ("emac", "iso9797-m2"),
    "ansi_retail": ("ansi-retail", "iso9797-m2"),
    "macdes": ("mac-des", "iso9797-m2"),
    "lmac": ("lmac", "iso9797-m2"),
    "trcbcmac": ("tr-cbc-mac", None),
    "cbcrmac": ("cbcr-mac", None),
}
TWO_KEY = {"emac", "ansi_retail", "macdes"}


@pytest.mark.parametrize("variant", sorted(GMSM_MAC))
def test_sm4_mac_gmsm(gmsm: Peer, variant: str) -> None:
    r = rng(f"mac-{variant}")
    k1, k2 = r.randbytes(16), r.randbytes(16)
    ours, padding = GMSM_MAC[variant]
    key = k1 + k2 if variant in TWO_KEY else k1
    for m in messages(f"mac-{variant}", [1, 15, 16, 17, 32, 1000]):
        for size in (16, 8):
            theirs = gmsm.get(
                "cbcmac",
                "mac",
                variant=variant,
                key=k1,
                key2=k2 if variant in TWO_KEY else None,
                data=m,
                size=size,
            )
            if variant == "lmac":
                # gmsm v0.44.0's NewLMAC ignores its size argument and returns 16 bytes; the
                # tag is the leftmost bytes, as guomi truncates.
                assert len(theirs) == 16
                theirs = theirs[:size]
            assert sm4.cbc_mac(key, m, variant=ours, padding=padding, tag_length=size) == theirs


def test_sm4_cmac_both_peers(gmsm: Peer, bc: Peer) -> None:
    r = rng("cmac")
    key = r.randbytes(16)
    for m in messages("cmac", [0, 1, 15, 16, 17, 1000]):
        ours = sm4.cmac(key, m)
        assert gmsm.get("cbcmac", "mac", variant="cmac", key=key, data=m, size=16) == ours
        assert bc.get("sm4_mac", "mac", variant="cmac", key=key, data=m) == ours
        assert bc.get("sm4_mac", "mac", variant="cmac", key=key, data=m, size=8) == sm4.cmac(
            key, m, tag_length=8
        )


def test_sm4_cbc_mac_bc(bc: Peer) -> None:
    key = rng("bc-cbcmac").randbytes(16)
    for m in messages("bc-cbcmac", [1, 15, 16, 17, 1000]):
        # CBCBlockCipherMac with zero padding = method 1; with ISO7816d4Padding = method 2.
        assert bc.get("sm4_mac", "mac", variant="cbcmac", key=key, data=m) == sm4.cbc_mac(
            key, m, variant="cbc-mac", padding="iso9797-m1"
        )
        assert bc.get("sm4_mac", "mac", variant="cbcmac_iso7816", key=key, data=m) == sm4.cbc_mac(
            key, m, variant="cbc-mac", padding="iso9797-m2"
        )


# --- SM2 compressed C1 and SM9 64-byte encapsulation -----------------------------------


def test_sm2_compressed_c1_read_by_gmsm(gmsm: Peer) -> None:
    key = _key("compressed-c1")
    for fmt in ("c1c3c2", "c1c2c3"):
        for m in messages(f"compressed-{fmt}", [1, 32, 1000]):
            ct = key.public_key().encrypt(m, format=fmt, c1_format="compressed")
            assert ct[0] in (2, 3) and len(ct) == 33 + 32 + len(m)
            assert gmsm.get("sm2_decrypt", "data", priv=key.to_bytes(), ct=ct, format=fmt) == m


def test_sm9_kem_64_byte_encapsulation_bc(bc: Peer) -> None:
    from guomi import sm9

    master = sm9.EncMasterKey.from_bytes(bytes(31) + b"\x2a")
    mpk = master.public_key()
    bob = master.extract(b"bob")
    for klen in (16, 32):
        key, c = mpk.encapsulate(b"bob", klen, c1_prefix=False)
        assert len(c) == 64
        got = bc.get("sm9_kem_decapsulate", "key", master_pub=mpk.to_bytes(), uid=b"bob", key_length=klen,
                     user_key=bob.to_bytes(), c=c)  # fmt: skip
        assert got == key
