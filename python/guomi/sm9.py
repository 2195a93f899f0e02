"""SM9 identity-based cryptography (GM/T 0044-2016 / GB/T 38635).

A key generation centre (KGC) holds a *master key*; anyone holding the matching *master
public key* can verify signatures of, and encrypt to, any user *identity* (a byte
string); the KGC *extracts* each user's private key from the master key and the ID.

>>> from guomi import sm9
>>> kgc = sm9.SignMasterKey.generate()
>>> alice = kgc.extract(b"alice@example.com")
>>> sig = alice.sign(b"message")
>>> kgc.public_key().verify(sig, b"message", b"alice@example.com")
True
>>> ekgc = sm9.EncMasterKey.generate()
>>> ct = ekgc.public_key().encrypt(b"secret", b"bob")
>>> ekgc.extract(b"bob").decrypt(ct)
b'secret'

Classes (all immutable except :class:`KeyExchange`; secrets are wiped when freed and
never appear in ``repr``):

* :class:`SignMasterKey` (ks), :class:`SignMasterPublicKey` (Ppub-s in G2),
  :class:`SignUserKey` (ds_A in G1, extracted with hid 0x01);
* :class:`EncMasterKey` (ke), :class:`EncMasterPublicKey` (Ppub-e in G1),
  :class:`EncUserKey` (de_B in G2, extracted with hid 0x03 for encryption/KEM or
  hid 0x02 for key exchange);
* :class:`KeyExchange`: GM/T 0044 Part 3, both roles, optional key confirmation.

Encodings (byte orders of the standard's examples; Fp2 coordinates high coefficient
first): master keys 32-byte big-endian scalars; G1 points ``04 || x || y`` (65 bytes),
G2 points ``04 || x1 || x0 || y1 || y0`` (129 bytes; the forms without ``04`` are
accepted on input); signatures ``h || S`` (97 bytes) or GmSSL DER
``SEQUENCE {h OCTET STRING, S BIT STRING}``; ciphertexts ``C1 (x || y) || C3 || C2`` or
GmSSL DER ``SEQUENCE {EnType INTEGER, C1 BIT STRING, C3 OCTET STRING, C2 OCTET STRING}``.

Every pairing and scalar multiplication releases the GIL. Public keys cache
``e(P1, Ppub-s)`` / ``e(Ppub-e, P2)`` and fixed-base tables on first use (or call
``precompute()``); user keys cache their own tables.
"""

from __future__ import annotations

from guomi._native import sm9 as _sm9

__all__ = [
    "HID_ENCRYPT",
    "HID_EXCHANGE",
    "HID_SIGN",
    "MAX_KEY_LENGTH",
    "EncMasterKey",
    "EncMasterPublicKey",
    "EncUserKey",
    "KeyExchange",
    "P1",
    "P2",
    "SignMasterKey",
    "SignMasterPublicKey",
    "SignUserKey",
    "ciphertext_from_der",
    "pairing",
    "ciphertext_to_der",
    "signature_from_der",
    "signature_to_der",
]

#: hid of signature user keys (GM/T 0044 Part 2).
HID_SIGN: int = _sm9.HID_SIGN
#: hid of key-exchange user keys (Part 3).
HID_EXCHANGE: int = _sm9.HID_EXCHANGE
#: hid of encryption / KEM user keys (Part 4).
HID_ENCRYPT: int = _sm9.HID_ENCRYPT

#: Longest KEM / key-exchange key, in bytes (65536); the shortest is 1. Other lengths
#: raise :class:`~guomi.exceptions.InvalidLength` before anything is allocated.
MAX_KEY_LENGTH: int = _sm9.MAX_KEY_LENGTH

#: The generator P1 of G1 (``04 || x || y``).
P1: bytes = _sm9.P1
#: The generator P2 of G2 (``04 || x1 || x0 || y1 || y0``).
P2: bytes = _sm9.P2

#: The signature master key ks. ``generate()``, ``from_bytes(data)`` (exactly 32 bytes,
#: else :class:`~guomi.exceptions.InvalidLength`),
#: ``to_bytes()``, ``public_key()``, ``extract(user_id) -> SignUserKey``. Extraction
#: raises :class:`~guomi.exceptions.InvalidKey` in the (negligible) case
#: H1(ID || 0x01) + ks = 0 mod N; the KGC must then generate a new master key.
SignMasterKey = _sm9.SignMasterKey

#: The signature master public key Ppub-s. ``from_bytes`` (checks the point is on the
#: twist and in G2), ``to_bytes()``,
#: ``verify(signature, message, user_id, *, format="raw" | "der") -> bool`` (any
#: malformed input gives ``False``), ``precompute()``.
SignMasterPublicKey = _sm9.SignMasterPublicKey

#: A user's signature key ds_A. ``sign(message, *, format="raw" | "der") -> bytes``
#: (the random r is hedged: an HMAC-SM3 DRBG over ds_A, SM3(message) and 32 fresh
#: OS-random bytes, RFC 6979 §3.6 style),
#: ``to_bytes()``, ``from_bytes(data, user_id, master_public_key)`` (checks the key
#: belongs to the ID and master key), ``user_id``, ``master_public_key()``.
SignUserKey = _sm9.SignUserKey

#: The encryption (and key-exchange) master key ke. ``generate()``, ``from_bytes`` (exactly
#: 32 bytes),
#: ``to_bytes()``, ``public_key()``, ``extract(user_id, *, hid=HID_ENCRYPT)``.
EncMasterKey = _sm9.EncMasterKey

#: The encryption master public key Ppub-e.
#: ``encrypt(message, user_id, *, cipher="kdf", format="raw" | "der", mac="sm3") -> bytes``;
#: ``encapsulate(user_id, key_length) -> (key, c)`` with c = ``04 || x || y`` and
#: ``key_length`` 1 to :data:`MAX_KEY_LENGTH`;
#: ``from_bytes``, ``to_bytes()``, ``precompute()``. ``cipher``: ``"kdf"`` (default) is
#: the KDF stream cipher of GM/T 0044 Part 4 (C2 = M xor K1); ``"sm4-cbc"`` (alias
#: ``"sm4"``), ``"sm4-ecb"``, ``"sm4-cfb"`` and ``"sm4-ofb"`` use the block cipher variant
#: (C2 = SM4(K1, M) with a 16-byte K1; ECB/CBC with PKCS#7; CBC/CFB/OFB put a random IV
#: before the ciphertext; DER EnType 1, 2, 8, 4 as in emmansun/gmsm).
#: ``mac="sm3"`` computes C3 = SM3(C2 || K2) as the standard does; ``mac="hmac-sm3"``
#: computes C3 = HMAC-SM3(K2, C2) as GmSSL 3.x does (use it, with ``format="der"``, to
#: exchange ciphertexts with GmSSL).
EncMasterPublicKey = _sm9.EncMasterPublicKey

#: A user's encryption key de_B (knows its ID and hid).
#: ``decrypt(ciphertext, *, cipher=None, format="raw" | "der", mac="sm3") -> bytes`` (every
#: failure raises the one opaque :class:`~guomi.exceptions.DecryptionError`; a raw
#: ciphertext needs the ``cipher`` it was made with, default ``"kdf"``; DER carries it);
#: ``decapsulate(c, key_length) -> bytes`` (``key_length`` 1 to :data:`MAX_KEY_LENGTH`);
#: ``to_bytes()``;
#: ``from_bytes(data, user_id, master_public_key, *, hid=HID_ENCRYPT)``.
EncUserKey = _sm9.EncUserKey

#: One party of an SM9 key exchange (GM/T 0044 Part 3):
#: ``KeyExchange(user_key, peer_id, *, initiator)`` with a user key extracted with
#: ``hid=HID_EXCHANGE``. Send ``ephemeral`` (R, 65 bytes) to the peer. The responder
#: calls ``respond(peer_ephemeral, key_length) -> (key, S_B)`` and later
#: ``confirm(S_A)``; the initiator calls
#: ``finish(peer_ephemeral, key_length, confirmation=S_B) -> (key, S_A)``.
#: A confirmation value that does not match raises
#: :class:`~guomi.exceptions.InvalidTag`. ``key_length``: 1 to :data:`MAX_KEY_LENGTH`.
#: Single use: the first ``respond``/``finish`` consumes and wipes r whatever happens
#: (success, wrong S_B, bad peer point, bad ``key_length``); any later call raises
#: :class:`~guomi.exceptions.AlreadyFinalized`.
KeyExchange = _sm9.KeyExchange


def signature_to_der(signature: bytes) -> bytes:
    """Raw ``h || S`` (97 bytes) to GmSSL's DER ``SEQUENCE {h OCTET STRING, S BIT STRING}``."""
    return _sm9.signature_to_der(signature)


def signature_from_der(signature: bytes) -> bytes:
    """GmSSL's DER SM9 signature to raw ``h || S`` (97 bytes)."""
    return _sm9.signature_from_der(signature)


def ciphertext_to_der(ciphertext: bytes, *, cipher: str = "kdf") -> bytes:
    """Raw ``C1 || C3 || C2`` (made with ``cipher``) to GmSSL's DER
    ``SEQUENCE {EnType INTEGER, C1 BIT STRING, C3 OCTET STRING, CipherText OCTET STRING}``."""
    return _sm9.ciphertext_to_der(ciphertext, cipher=cipher)


def ciphertext_from_der(ciphertext: bytes) -> bytes:
    """A DER SM9 ciphertext to raw ``C1 || C3 || C2`` (the EnType is dropped: decrypt the
    raw form with the matching ``cipher``)."""
    return _sm9.ciphertext_from_der(ciphertext)


def pairing(p: bytes, q: bytes) -> bytes:
    """The R-ate pairing e(P, Q) of GM/T 0044 for P in G1 (65 bytes) and Q in G2 (129
    bytes), both validated; the GT element as 384 bytes in the standard's order."""
    return _sm9.pairing(p, q)
