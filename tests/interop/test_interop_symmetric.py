"""SM3, HMAC-SM3, SM4 (every mode a peer has) and ZUC against the live peers, byte-exact
both ways: the peer must produce guomi's bytes, decrypt guomi's output, and guomi must
decrypt the peer's output."""

from __future__ import annotations

import random

import pytest

from guomi import sm3, sm4, zuc

from .interop_peers import VERSIONS, Peer, messages, peer_param, rng


@peer_param("bc", "gmsm", "smjs")
def test_sm3(peer: Peer) -> None:
    for m in messages("sm3", [0, 1, 15, 16, 17, 55, 56, 63, 64, 65, 1000, 4096]):
        assert peer.get("sm3", "digest", data=m) == sm3.hash(m), len(m)


@peer_param("bc", "gmsm", "smjs")
def test_hmac_sm3(peer: Peer) -> None:
    r = rng("hmac")
    for klen in (1, 16, 32, 64, 65, 100):
        key = r.randbytes(klen)
        for m in messages(f"hmac{klen}", [0, 1, 17, 1000]):
            assert peer.get("hmac_sm3", "mac", key=key, data=m) == sm3.hmac(key, m), (klen, len(m))


def test_sm3_kdf_and_hkdf_smjs(smjs: Peer) -> None:
    r = rng("kdf")
    for n in (1, 16, 32, 33, 100):
        z = r.randbytes(64)
        assert smjs.get("sm3_kdf", "key", data=z, length=n) == sm3.kdf(z, n)
    for n in (16, 32, 64):
        ikm, salt, info = r.randbytes(32), r.randbytes(16), r.randbytes(10)
        assert smjs.get("sm3_hkdf", "key", ikm=ikm, salt=salt, info=info, length=n) == sm3.hkdf(
            ikm, n, salt=salt, info=info
        )


SM4_MODES = {
    "bc": ["ecb", "cbc", "ctr", "cfb", "ofb"],
    "gmsm": ["ecb", "cbc", "ctr", "cfb", "ofb"],
    "smjs": ["ecb", "cbc"],
}


def _sm4_cases(peers: dict[str, list[str]]) -> list[object]:
    return [pytest.param(p, m, id=f"{p}-{VERSIONS[p]}-{m}") for p, ms in peers.items() for m in ms]


@pytest.mark.parametrize("peer, mode", _sm4_cases(SM4_MODES), indirect=["peer"])
def test_sm4_modes(peer: Peer, mode: str) -> None:
    r = rng(f"sm4-{mode}")
    key = r.randbytes(16)
    iv = None if mode == "ecb" else r.randbytes(16)
    for m in messages(f"sm4-{mode}"):
        ours = sm4.encrypt(key, m, mode=mode, iv=iv)
        theirs = peer.get("sm4", "data", mode=mode, encrypt=True, key=key, iv=iv, data=m)
        assert theirs == ours, len(m)
        assert peer.get("sm4", "data", mode=mode, encrypt=False, key=key, iv=iv, data=ours) == m
        assert sm4.decrypt(key, theirs, mode=mode, iv=iv) == m


@pytest.mark.parametrize(
    "peer, mode",
    _sm4_cases({"bc": ["ecb", "cbc"], "gmsm": ["ecb", "cbc"], "smjs": ["ecb", "cbc"]}),
    indirect=["peer"],
)
def test_sm4_no_padding(peer: Peer, mode: str) -> None:
    r = rng(f"sm4-nopad-{mode}")
    key, iv = r.randbytes(16), (None if mode == "ecb" else r.randbytes(16))
    for n in (0, 16, 32, 1008):
        m = r.randbytes(n)
        ours = sm4.encrypt(key, m, mode=mode, iv=iv, padding="none")
        assert (
            peer.get("sm4", "data", mode=mode, encrypt=True, key=key, iv=iv, data=m, padding="none") == ours
        )
        assert (
            peer.get("sm4", "data", mode=mode, encrypt=False, key=key, iv=iv, data=ours, padding="none") == m
        )


@peer_param("bc", "gmsm", "smjs")
def test_sm4_gcm(peer: Peer) -> None:
    r = rng("gcm")
    key = r.randbytes(16)
    gcm = sm4.SM4GCM(key)
    for i, m in enumerate(messages("gcm")):
        nonce = r.randbytes(12)
        aad = r.randbytes([0, 1, 13, 16, 40][i % 5])
        ours = gcm.encrypt(nonce, m, aad)
        theirs = peer.get("sm4", "data", mode="gcm", encrypt=True, key=key, nonce=nonce, aad=aad, data=m)
        assert theirs == ours, len(m)
        assert (
            peer.get("sm4", "data", mode="gcm", encrypt=False, key=key, nonce=nonce, aad=aad, data=ours) == m
        )
        assert gcm.decrypt(nonce, theirs, aad) == m


@peer_param("bc", "gmsm")
def test_sm4_gcm_other_nonce_lengths(peer: Peer) -> None:
    r = rng("gcm-nonce")
    key = r.randbytes(16)
    gcm = sm4.SM4GCM(key)
    for n in (8, 16, 60):
        nonce, m, aad = r.randbytes(n), r.randbytes(33), r.randbytes(7)
        ours = gcm.encrypt(nonce, m, aad)
        assert (
            peer.get("sm4", "data", mode="gcm", encrypt=True, key=key, nonce=nonce, aad=aad, data=m) == ours
        ), n


@peer_param("bc", "gmsm")
def test_sm4_ccm(peer: Peer) -> None:
    r = rng("ccm")
    key = r.randbytes(16)
    for nonce_len, tag_len in [(12, 16), (7, 4), (13, 8), (11, 10), (8, 14)]:
        ccm = sm4.SM4CCM(key, tag_length=tag_len)
        for m in messages(f"ccm{nonce_len}", [0, 1, 16, 17, 1000]):
            nonce, aad = r.randbytes(nonce_len), r.randbytes(len(m) % 23)
            ours = ccm.encrypt(nonce, m, aad)
            fields = dict(mode="ccm", key=key, nonce=nonce, aad=aad, tag_len=tag_len)
            theirs = peer.get("sm4", "data", encrypt=True, data=m, **fields)
            assert theirs == ours, (nonce_len, tag_len, len(m))
            assert peer.get("sm4", "data", encrypt=False, data=ours, **fields) == m
            assert ccm.decrypt(nonce, theirs, aad) == m


@pytest.mark.parametrize("standard", ["gb", "ieee"])
def test_sm4_xts_gmsm(gmsm: Peer, standard: str) -> None:
    r = rng(f"xts-{standard}")
    key = r.randbytes(32)
    xts = sm4.SM4XTS(key, standard=standard)
    for n in (16, 17, 31, 32, 33, 100, 1000):
        tweak, m = r.randbytes(16), r.randbytes(n)
        ours = xts.encrypt(tweak, m)
        fields = dict(mode="xts", key=key, tweak=tweak, standard=standard)
        theirs = gmsm.get("sm4", "data", encrypt=True, data=m, **fields)
        assert theirs == ours, n
        assert gmsm.get("sm4", "data", encrypt=False, data=ours, **fields) == m
        assert xts.decrypt(tweak, theirs) == m


def _eea3_iv(count: int, bearer: int, direction: int) -> bytes:
    head = count.to_bytes(4, "big") + bytes([(bearer << 3) | (direction << 2), 0, 0, 0])
    return head + head


def _eia3_iv(count: int, bearer: int, direction: int) -> bytes:
    c = count.to_bytes(4, "big")
    return (
        c
        + bytes([bearer << 3, 0, 0, 0])
        + bytes([c[0] ^ (direction << 7)])
        + c[1:]
        + bytes([bearer << 3, 0, direction << 7, 0])
    )


def _zuc_params(seed: str) -> list[tuple[bytes, int, int, int, bytes]]:
    r = rng(seed)
    return [
        (r.randbytes(16), r.getrandbits(32), r.randrange(32), r.randrange(2), m)
        for m in messages(seed, [0, 1, 4, 15, 16, 17, 100, 1000])
    ]


def test_zuc_eea3_gmsm(gmsm: Peer) -> None:
    for key, count, bearer, direction, m in _zuc_params("eea3"):
        ours = zuc.eea3(key, count, bearer, direction, m)
        f = dict(key=key, count=count, bearer=bearer, direction=direction)
        assert gmsm.get("zuc_eea3", "data", data=m, **f) == ours, len(m)
        assert gmsm.get("zuc_eea3", "data", data=ours, **f) == m


def test_zuc_eea3_bc(bc: Peer) -> None:
    for key, count, bearer, direction, m in _zuc_params("eea3-bc"):
        ours = zuc.eea3(key, count, bearer, direction, m)
        iv = _eea3_iv(count, bearer, direction)
        assert bc.get("zuc128_xor", "data", key=key, iv=iv, data=m) == ours, len(m)
        assert bc.get("zuc128_xor", "data", key=key, iv=iv, data=ours) == m


def test_zuc_eia3_gmsm(gmsm: Peer) -> None:
    for key, count, bearer, direction, m in _zuc_params("eia3"):
        f = dict(key=key, count=count, bearer=bearer, direction=direction)
        assert gmsm.get("zuc_eia3", "mac", data=m, **f) == zuc.eia3(key, count, bearer, direction, m), len(m)
        if m:  # a bit length that is not a whole number of bytes
            bits = 8 * len(m) - 3
            assert gmsm.get("zuc_eia3", "mac", data=m, length_bits=bits, **f) == zuc.eia3(
                key, count, bearer, direction, m, length_bits=bits
            )


def test_zuc_eia3_bc(bc: Peer) -> None:
    for key, count, bearer, direction, m in _zuc_params("eia3-bc"):
        iv = _eia3_iv(count, bearer, direction)
        assert bc.get("zuc128_mac", "mac", key=key, iv=iv, data=m) == zuc.eia3(
            key, count, bearer, direction, m
        )


def test_zuc128_keystream_bc(bc: Peer) -> None:
    r = rng("zuc128")
    for words in (1, 2, 16, 100):
        key, iv = r.randbytes(16), r.randbytes(16)
        assert bc.get("zuc128_keystream", "keystream", key=key, iv=iv, words=words) == zuc.keystream(
            key, iv, words
        )


def _zuc256_iv(r: random.Random) -> tuple[bytes, bytes]:
    """A 25-byte ZUC-256 IV (IV17..IV24 are 6-bit values) and its packed 23-byte form."""
    head, tail = r.randbytes(17), [r.randrange(64) for _ in range(8)]
    packed = 0
    for v in tail:
        packed = (packed << 6) | v
    return head + bytes(tail), head + packed.to_bytes(6, "big")


@peer_param("bc", "gmsm")
def test_zuc256_keystream(peer: Peer) -> None:
    r = rng("zuc256")
    for words in (1, 2, 16, 100):
        key = r.randbytes(32)
        iv25, iv23 = _zuc256_iv(r)
        ours = zuc.zuc256_keystream(key, iv25, words)
        assert zuc.zuc256_keystream(key, iv23, words) == ours
        iv = iv25 if peer.name == "bc" else iv23
        assert peer.get("zuc256_keystream", "keystream", key=key, iv=iv, words=words) == ours, words


def _zuc256_mac_check(peer: Peer, seed: str, tag_bits: int, lengths: list[int]) -> None:
    r = rng(seed)
    for m in messages(seed, lengths):
        key = r.randbytes(32)
        iv25, iv23 = _zuc256_iv(r)
        ours = zuc.zuc256_mac(key, iv25, m, tag_bits=tag_bits)
        assert zuc.zuc256_mac(key, iv23, m, tag_bits=tag_bits) == ours
        iv = iv25 if peer.name == "bc" else iv23
        assert peer.get("zuc256_mac", "mac", key=key, iv=iv, data=m, tag_bits=tag_bits) == ours, (
            tag_bits,
            len(m),
        )


@pytest.mark.parametrize("tag_bits", [32, 64, 128])
def test_zuc256_mac_bc(bc: Peer, tag_bits: int) -> None:
    _zuc256_mac_check(bc, f"zuc256mac{tag_bits}", tag_bits, [0, 1, 4, 5, 8, 15, 16, 17, 21, 100, 1000])


@pytest.mark.parametrize("tag_bits", [32, 64, 128])
def test_zuc256_mac_gmsm(gmsm: Peer, tag_bits: int) -> None:
    # Lengths whose remainder mod 16 is 0..4: see the xfail below for the others.
    _zuc256_mac_check(gmsm, f"zuc256mac{tag_bits}", tag_bits, [0, 1, 4, 16, 17, 20, 32, 100, 1008, 1012])


def test_zuc256_mac_gmsm_32bit_any_length(gmsm: Peer) -> None:
    _zuc256_mac_check(gmsm, "zuc256mac32-all", 32, [5, 8, 15, 21, 1000])


@pytest.mark.xfail(
    strict=True,
    reason="gmsm v0.44.0 zuc.NewHash256 with a 64-bit (128-bit) tag gives a different MAC than guomi "
    "and BouncyCastle 1.87 (which agree) when len(message) mod 16 is 5..8 (5..15): a gmsm bug, "
    "not covered by the specification's vectors (50 and 500 bytes)",
)
@pytest.mark.parametrize("tag_bits, length", [(64, 5), (64, 8), (64, 1000), (128, 5), (128, 15), (128, 1004)])
def test_zuc256_mac_gmsm_tail_disagreement(gmsm: Peer, tag_bits: int, length: int) -> None:
    _zuc256_mac_check(gmsm, f"zuc256mac-tail-{tag_bits}-{length}", tag_bits, [length])
