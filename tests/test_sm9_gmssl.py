"""SM9 encryption interop with GmSSL 3 (through the gmssl-pyx package), both ways.

GmSSL writes SM9 ciphertexts as DER SEQUENCE {EnType, C1, C3, C2} with
C3 = HMAC-SM3(K2, C2): guomi reads and writes that with format="der", mac="hmac-sm3".
"""

from __future__ import annotations

import pytest

import guomi.sm9 as sm9
from guomi.exceptions import DecryptionError

pyx = pytest.importorskip("gmssl_pyx")


def _shared_master() -> tuple[object, sm9.EncMasterKey]:
    """One master key in both libraries: GmSSL's DER is SEQUENCE {ke INTEGER, Ppub-e BIT STRING}."""
    master = pyx.SM9MasterKey.generate()
    der = master.to_der()
    assert der[0] == 0x30 and der[1] < 0x80 and der[2] == 0x02  # SEQUENCE { INTEGER ke, ...
    ke = int.from_bytes(der[4 : 4 + der[3]], "big")  # minimal DER: 31 to 33 bytes
    ours = sm9.EncMasterKey.from_bytes(ke.to_bytes(32, "big"))
    # Ppub-e = [ke]P1 agrees: GmSSL's BIT STRING ends with the 64-byte point x || y.
    assert ours.public_key().to_bytes()[-64:] == der[-64:]
    return master, ours


@pytest.mark.parametrize("message", [b"x", b"hello sm9", bytes(range(200))])
def test_gmssl_to_guomi(message: bytes) -> None:
    master, ours = _shared_master()
    ct = master.public_key().encrypt(b"bob@example.com", message)
    assert ours.extract(b"bob@example.com").decrypt(ct, format="der", mac="hmac-sm3") == message
    with pytest.raises(DecryptionError):
        ours.extract(b"mallory").decrypt(ct, format="der", mac="hmac-sm3")


@pytest.mark.parametrize("message", [b"x", b"from guomi", bytes(range(200))])
def test_guomi_to_gmssl(message: bytes) -> None:
    master, ours = _shared_master()
    ct = ours.public_key().encrypt(message, b"bob@example.com", format="der", mac="hmac-sm3")
    assert master.extract_key(b"bob@example.com").decrypt(b"bob@example.com", ct) == message
