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

Errors are the classes of :mod:`guomi.exceptions`: ``InvalidLength``, ``InvalidKey`` and
``UnsupportedFormat`` for bad encodings, ``InvalidArgument`` for unknown option names,
one opaque ``DecryptionError`` for every decryption failure, ``InvalidTag`` and
``AlreadyFinalized`` in the key exchange; ``verify`` returns ``False`` for any bad
signature. The classes are the compiled ones; their documentation is their own
docstring (``help(guomi.sm9.EncUserKey.decrypt)``).
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

# The compiled classes, documented in their own docstrings (crates/guomi-python/src/sm9.rs).
SignMasterKey = _sm9.SignMasterKey
SignMasterPublicKey = _sm9.SignMasterPublicKey
SignUserKey = _sm9.SignUserKey
EncMasterKey = _sm9.EncMasterKey
EncMasterPublicKey = _sm9.EncMasterPublicKey
EncUserKey = _sm9.EncUserKey
KeyExchange = _sm9.KeyExchange


def signature_to_der(signature: bytes) -> bytes:
    """Converts a raw SM9 signature ``h || S`` to GmSSL's DER
    ``SEQUENCE {h OCTET STRING, S BIT STRING}``.

    Args:
        signature: 97 bytes ``h || 04 || x || y`` (96 bytes ``h || x || y`` accepted).

    Returns:
        bytes: the DER encoding.

    Raises:
        InvalidLength: ``signature`` is not 97 or 96 bytes.
        UnsupportedFormat: a 97-byte signature whose S does not start with 04.
        TypeError: ``signature`` is not bytes-like.

    Example:
        >>> from guomi import sm9
        >>> kgc = sm9.SignMasterKey.generate()
        >>> der = sm9.signature_to_der(kgc.extract(b"alice").sign(b"msg"))
        >>> kgc.public_key().verify(der, b"msg", b"alice", format="der")
        True
    """
    return _sm9.signature_to_der(signature)


def signature_from_der(signature: bytes) -> bytes:
    """Converts GmSSL's DER SM9 signature to raw ``h || S``.

    Args:
        signature: DER ``SEQUENCE {h OCTET STRING, S BIT STRING}``; nothing may follow.

    Returns:
        bytes: 97 bytes ``h || 04 || x || y``.

    Raises:
        UnsupportedFormat: malformed DER, trailing bytes, h not 32 bytes or S not a
            65-byte uncompressed point.
        TypeError: ``signature`` is not bytes-like.

    Example:
        >>> from guomi import sm9
        >>> raw = sm9.SignMasterKey.generate().extract(b"alice").sign(b"msg")
        >>> sm9.signature_from_der(sm9.signature_to_der(raw)) == raw
        True
    """
    return _sm9.signature_from_der(signature)


def ciphertext_to_der(ciphertext: bytes, *, cipher: str = "kdf") -> bytes:
    """Converts a raw SM9 ciphertext ``C1 (x || y) || C3 || C2`` to GmSSL's DER
    ``SEQUENCE {EnType INTEGER, C1 BIT STRING, C3 OCTET STRING, CipherText OCTET STRING}``.

    Args:
        ciphertext: the raw ciphertext (at least 96 bytes; C1 as ``x || y`` or
            ``04 || x || y``).
        cipher: the data cipher it was made with, recorded as EnType: ``"kdf"`` (the
            default, EnType 0), ``"sm4-ecb"`` (1), ``"sm4-cbc"`` or ``"sm4"`` (2),
            ``"sm4-ofb"`` (4) or ``"sm4-cfb"`` (8).

    Returns:
        bytes: the DER encoding.

    Raises:
        UnsupportedFormat: ``ciphertext`` is shorter than 96 bytes.
        InvalidArgument: unknown ``cipher``.
        TypeError: ``ciphertext`` is not bytes-like.

    Example:
        >>> from guomi import sm9
        >>> kgc = sm9.EncMasterKey.generate()
        >>> raw = kgc.public_key().encrypt(b"hello", b"bob")
        >>> der = sm9.ciphertext_to_der(raw)
        >>> kgc.extract(b"bob").decrypt(der, format="der")
        b'hello'
    """
    return _sm9.ciphertext_to_der(ciphertext, cipher=cipher)


def ciphertext_from_der(ciphertext: bytes, *, c1_prefix: bool = False) -> bytes:
    """Converts GmSSL's DER SM9 ciphertext to raw ``C1 (x || y) || C3 || C2``.

    The EnType is dropped: decrypt the raw form with the matching ``cipher``.

    Args:
        ciphertext: the DER encoding; nothing may follow it.
        c1_prefix: write C1 as ``04 || x || y`` (65 bytes) instead of ``x || y`` (64
            bytes, the default). Decryption reads both forms.

    Returns:
        bytes: ``C1 (64 bytes, 65 with c1_prefix) || C3 (32) || C2``.

    Raises:
        UnsupportedFormat: malformed DER, an unknown EnType, or C1/C3 of the wrong shape.
        TypeError: ``ciphertext`` is not bytes-like.

    Example:
        >>> from guomi import sm9
        >>> kgc = sm9.EncMasterKey.generate()
        >>> der = kgc.public_key().encrypt(b"hello", b"bob", format="der")
        >>> kgc.extract(b"bob").decrypt(sm9.ciphertext_from_der(der))
        b'hello'
    """
    return _sm9.ciphertext_from_der(ciphertext, c1_prefix=c1_prefix)


def pairing(p: bytes, q: bytes) -> bytes:
    """The R-ate pairing e(P, Q) of GM/T 0044 (runs without the GIL).

    Args:
        p: a G1 point, 65 bytes ``04 || x || y`` (64 bytes ``x || y`` accepted).
        q: a G2 point, 129 bytes ``04 || x1 || x0 || y1 || y0`` (128 accepted).

    Returns:
        bytes: the GT element, 384 bytes in the standard's order.

    Raises:
        InvalidLength: a point of the wrong length.
        UnsupportedFormat: a full-length point that does not start with 04.
        InvalidKey: a coordinate not below p, or a point not on the curve (G2: not on the
            twist or not in the order-N subgroup).
        TypeError: an argument is not bytes-like.

    Example:
        >>> from guomi import sm9
        >>> kgc = sm9.SignMasterKey.generate()
        >>> # e(P1, Ppub-s) = e(P1, P2)^ks: the pairing is bilinear.
        >>> len(sm9.pairing(sm9.P1, kgc.public_key().to_bytes()))
        384
    """
    return _sm9.pairing(p, q)
