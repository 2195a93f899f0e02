"""guomi reads what real peers wrote with the recipes of docs/interop.md.

``interop_vectors.json`` holds output captured from BouncyCastle, sm-crypto-v2, gmsm and
the OpenSSL command line (keys, signatures with the default and the empty signer ID,
ciphertexts in each order with and without the 04 prefix and in DER, SM4 in each mode,
SM3 and HMAC-SM3, self-signed and issued certificates), so the page's peer-to-guomi
direction stays checked without the peers installed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from guomi import sm2, sm3, sm4, x509

DATA = json.loads((Path(__file__).resolve().parent / "interop_vectors.json").read_text(encoding="utf-8"))
MSG = DATA["message"].encode()
KEY = bytes.fromhex(DATA["sm4_key"])
IV = bytes.fromhex(DATA["iv"])
NONCE = bytes.fromhex(DATA["nonce"])
PEERS = DATA["peers"]
IDS = [p["peer"].split()[0] for p in PEERS]


def keys(peer: dict[str, Any]) -> tuple[sm2.PrivateKey, sm2.PublicKey]:
    if "private_key_pem" in peer:
        return sm2.PrivateKey.from_pem(peer["private_key_pem"]), sm2.PublicKey.from_pem(
            peer["public_key_pem"]
        )
    priv = sm2.PrivateKey.from_hex(peer["private_key_hex"])
    return priv, sm2.PublicKey.from_bytes(bytes.fromhex(peer["public_key_hex"]))


def test_every_peer_is_there() -> None:
    assert IDS == ["BouncyCastle", "sm-crypto-v2", "github.com/emmansun/gmsm", "OpenSSL"]


@pytest.mark.parametrize("peer", PEERS, ids=IDS)
def test_keys_match(peer: dict[str, Any]) -> None:
    priv, pub = keys(peer)
    assert priv.public_key() == pub


@pytest.mark.parametrize("peer", PEERS, ids=IDS)
def test_signatures(peer: dict[str, Any]) -> None:
    _, pub = keys(peer)
    assert peer["signatures"]
    for sig in peer["signatures"]:
        raw = bytes.fromhex(sig["hex"])
        uid = sig["uid"].encode()
        assert pub.verify(raw, MSG, uid=uid, format=sig["format"])
        assert pub.verify(raw, MSG, uid=uid)  # detected
        assert not pub.verify(raw, MSG + b"!", uid=uid)
        other = b"" if uid else sm2.DEFAULT_UID
        assert not pub.verify(raw, MSG, uid=other)  # the signer ID matters


@pytest.mark.parametrize("peer", PEERS, ids=IDS)
def test_ciphertexts(peer: dict[str, Any]) -> None:
    priv, _ = keys(peer)
    assert peer["ciphertexts"]
    for ct in peer["ciphertexts"]:
        data = bytes.fromhex(ct["hex"])
        assert priv.decrypt(data, format=ct["format"]) == MSG, ct["file"]
        if ct["format"] in ("c1c3c2", "der"):
            assert priv.decrypt(data) == MSG, ct["file"]  # the default reading


@pytest.mark.parametrize("peer", PEERS, ids=IDS)
def test_sm4_sm3_hmac(peer: dict[str, Any]) -> None:
    out = {m: bytes.fromhex(h) for m, h in peer["sm4"].items()}
    assert out
    if "cbc" in out:
        assert sm4.decrypt(KEY, out["cbc"], mode="cbc", iv=IV) == MSG
    if "ecb" in out:
        assert sm4.decrypt(KEY, out["ecb"], mode="ecb") == MSG
    if "ctr" in out:
        assert sm4.decrypt(KEY, out["ctr"], mode="ctr", iv=IV) == MSG
    if "gcm" in out:
        assert sm4.SM4GCM(KEY).decrypt(NONCE, out["gcm"], DATA["aad"].encode()) == MSG
    assert peer["sm3"] == sm3.hash(MSG).hex()
    assert peer["hmac_sm3"] == sm3.hmac(KEY, MSG).hex()


@pytest.mark.parametrize(
    "peer", [p for p in PEERS if "certificate_pem" in p], ids=lambda p: p["peer"].split()[0]
)
def test_certificates(peer: dict[str, Any]) -> None:
    _, pub = keys(peer)
    root = x509.Certificate.from_pem(peer["certificate_pem"])
    assert root.public_key() == pub
    root.verify_signature(root)
    if "leaf_certificate_pem" in peer:
        leaf = x509.Certificate.from_pem(peer["leaf_certificate_pem"])
        leaf.verify_signature(root)
        x509.verify_chain(
            leaf, [], [root], at=leaf.not_valid_before + (leaf.not_valid_after - leaf.not_valid_before) / 2
        )
