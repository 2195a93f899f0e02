"""The envelope's SM2 recipient: Sealer(recipient=PublicKey) / Opener(private_key=...)."""

from __future__ import annotations

import pytest

import guomi.envelope as env
from guomi import sm2
from guomi.exceptions import DecryptionError

HEADER = 30  # fixed header bytes before kem_data


def test_round_trip_and_header_layout() -> None:
    key = sm2.PrivateKey.generate()
    data = bytes(range(256)) * 40
    sealed = env.seal(data, recipient=key.public_key(), chunk_size=1024)
    assert sealed[:8] == env.MAGIC and sealed[8] == 1 and sealed[9] == 1  # version 1, KEM SM2
    assert sealed[28:30] == (65).to_bytes(2, "big")
    c1 = sealed[HEADER : HEADER + 65]
    assert c1[0] == 4 and sm2.PublicKey.from_bytes(c1)  # C1 is a curve point
    # The content key is HKDF of the 32-byte SM2 KEM key K = KDF([d]C1).
    assert len(sm2.decapsulate(key, c1, 32)) == 32
    assert env.open(sealed, private_key=key) == data
    # Streaming in odd pieces.
    o = env.Opener(private_key=key)
    out = b"".join(o.update(sealed[i : i + 777]) for i in range(0, len(sealed), 777)) + o.finalize()
    assert out == data
    # Two seals of the same data differ (fresh k and salt).
    assert env.seal(data, recipient=key.public_key()) != env.seal(data, recipient=key.public_key())


def test_wrong_key_tamper_truncation_and_kem_mismatch() -> None:
    key = sm2.PrivateKey.generate()
    sealed = env.seal(b"x" * 5000, recipient=key.public_key(), chunk_size=1024)
    with pytest.raises(DecryptionError):
        env.open(sealed, private_key=sm2.PrivateKey.generate())
    for pos in (HEADER + 5, HEADER + 64, len(sealed) - 1, len(sealed) // 2):
        bad = bytearray(sealed)
        bad[pos] ^= 1
        with pytest.raises(DecryptionError):
            env.open(bytes(bad), private_key=key)
    with pytest.raises(DecryptionError):
        env.open(sealed[: HEADER + 65 + 1040], private_key=key)
    with pytest.raises(DecryptionError):
        env.open(env.seal(b"x", key=bytes(16)), private_key=key)
    with pytest.raises(DecryptionError):
        env.open(sealed, key=bytes(16))
    with pytest.raises(TypeError):
        env.Sealer(recipient=key.public_key(), key=bytes(16))
    with pytest.raises(TypeError):
        env.Opener()
