"""GM/T 0009 SM2EnvelopedKey: a gmsm v0.44.0 vector, round trips, the key/public-key
match, and every bad input a typed error."""

from __future__ import annotations

from pathlib import Path

import pytest

from guomi import sm2
from guomi.exceptions import DecryptionError, InvalidKey, UnsupportedFormat

VEC = Path(__file__).resolve().parent.parent / "vectors" / "keys"


def test_reads_gmsm() -> None:
    recipient = sm2.PrivateKey.from_pem((VEC / "gmsm-v0.44.0-enveloped-recipient.pem").read_bytes())
    data = (VEC / "gmsm-v0.44.0-enveloped-key.der").read_bytes()
    key = sm2.PrivateKey.from_enveloped_key(data, recipient)
    assert key.to_hex() == (VEC / "gmsm-v0.44.0-key.d.hex").read_text().strip()
    with pytest.raises(DecryptionError):
        sm2.PrivateKey.from_enveloped_key(data, sm2.PrivateKey.generate())


def test_round_trip_and_layout() -> None:
    key, recipient = sm2.PrivateKey.generate(), sm2.PrivateKey.generate()
    data = key.to_enveloped_key(recipient.public_key())
    assert sm2.PrivateKey.from_enveloped_key(bytearray(data), recipient) == key
    # symAlgID {SM4-ECB 1.2.156.10197.1.104.1, NULL}, as gmsm writes it.
    assert data[3:17] == bytes.fromhex("300c06082a811ccf550168010500")
    assert key.public_key().to_bytes() in data
    assert data != key.to_enveloped_key(recipient.public_key())  # fresh SM4 key each time


def test_mismatched_public_key_is_invalid_key() -> None:
    key, recipient = sm2.PrivateKey.generate(), sm2.PrivateKey.generate()
    data = key.to_enveloped_key(recipient.public_key())
    swapped = data.replace(key.public_key().to_bytes(), sm2.PrivateKey.generate().public_key().to_bytes())
    with pytest.raises(InvalidKey):
        sm2.PrivateKey.from_enveloped_key(swapped, recipient)


def test_bad_input() -> None:
    key, recipient = sm2.PrivateKey.generate(), sm2.PrivateKey.generate()
    data = key.to_enveloped_key(recipient.public_key())
    for cut in range(len(data)):
        with pytest.raises((UnsupportedFormat, DecryptionError, InvalidKey)):
            sm2.PrivateKey.from_enveloped_key(data[:cut], recipient)
    with pytest.raises(UnsupportedFormat):
        sm2.PrivateKey.from_enveloped_key(b"\x30" * 1025, recipient)
    cbc = bytearray(data)
    cbc[14] = 2  # SM4-CBC instead of SM4-ECB
    with pytest.raises(UnsupportedFormat):
        sm2.PrivateKey.from_enveloped_key(bytes(cbc), recipient)
    flipped = bytearray(data)
    flipped[-1] ^= 1
    with pytest.raises((DecryptionError, InvalidKey)):
        sm2.PrivateKey.from_enveloped_key(bytes(flipped), recipient)
    with pytest.raises(TypeError):
        sm2.PrivateKey.from_enveloped_key(data, recipient.public_key())  # type: ignore[arg-type]
