"""SM2 public-key cryptography (GB/T 32918 / GM/T 0003) on the curve sm2p256v1.

>>> from guomi import sm2
>>> key = sm2.PrivateKey.generate()
>>> sig = key.sign(b"message")                      # DER, default ID "1234567812345678"
>>> key.public_key().verify(sig, b"message")
True
>>> ct = key.public_key().encrypt(b"secret")        # C1C3C2, C1 with the 04 prefix
>>> key.decrypt(ct)
b'secret'

Keys
    :class:`PrivateKey` (``generate``, ``from_bytes``/``to_bytes``, ``from_hex``/``to_hex``,
    ``from_pem``/``to_pem``, ``from_der``/``to_der`` in PKCS#8 or SEC1) and
    :class:`PublicKey` (``from_bytes`` accepting ``04||x||y``, ``x||y`` and ``02/03||x``,
    ``to_bytes(format="uncompressed"|"raw"|"compressed")``, SPKI PEM/DER). Keys are
    immutable and validated; private keys never print their secret and are zeroized when
    freed. ``PublicKey.prepare()`` builds a per-key table (about 88 KiB) that speeds up
    repeated ``verify``/``encrypt`` with that key.

Signatures (GB/T 32918.2)
    ``PrivateKey.sign(msg, *, uid=DEFAULT_UID, format="der"|"raw")``,
    ``PublicKey.verify(signature, msg, *, uid=DEFAULT_UID, format=None) -> bool`` (format
    detected when ``None``; any malformed signature is ``False``), ``sign_digest`` /
    ``verify_digest`` on e = SM3(Z_A || M), :func:`compute_z`, :class:`Signer` /
    :class:`Verifier` for streaming, :func:`verify_many` for batches on several cores,
    :func:`signature_der_to_raw` / :func:`signature_raw_to_der`.

Encryption (GB/T 32918.4)
    ``PublicKey.encrypt(msg, *, format="c1c3c2"|"c1c2c3"|"der", c1_prefix=True,
    c1_format="uncompressed"|"compressed")`` and
    ``PrivateKey.decrypt(ct, *, format=None|"c1c3c2"|"c1c2c3"|"der")``: DER is detected,
    raw C1 may be ``04||x||y``, bare ``x||y``, compressed ``02/03||x`` or hybrid
    ``06/07||x||y`` (told apart by which reading is a curve point). Every decryption failure raises the one
    opaque :class:`~guomi.exceptions.DecryptionError`. Converters:
    :func:`convert_ciphertext`, :func:`ciphertext_der_to_raw`,
    :func:`ciphertext_raw_to_der`, :func:`ciphertext_reorder`. KEM: :func:`encapsulate`,
    :func:`decapsulate`.

Key exchange (GB/T 32918.3)
    :class:`KeyExchangeInitiator` and :class:`KeyExchangeResponder` (IDs, key lengths 1
    to :data:`MAX_KEY_LENGTH`, optional confirmation S_B/S_A; each object is single use);
    plain :func:`ecdh` is a separate function.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Optional, Union

from guomi._native import sm2 as _sm2
from guomi._typing import BytesLike
from guomi.exceptions import InvalidArgument, InvalidLength

__all__ = [
    "DEFAULT_UID",
    "MAX_KEY_LENGTH",
    "KeyExchangeInitiator",
    "KeyExchangeResponder",
    "PrivateKey",
    "PublicKey",
    "Signer",
    "Verifier",
    "ciphertext_der_to_raw",
    "ciphertext_raw_to_der",
    "ciphertext_reorder",
    "compute_z",
    "convert_ciphertext",
    "decapsulate",
    "ecdh",
    "encapsulate",
    "signature_der_to_raw",
    "signature_raw_to_der",
    "verify_many",
]

#: The default user ID of GM/T 0009-2012 §10 / GB/T 35276: ``b"1234567812345678"``.
DEFAULT_UID: bytes = _sm2.DEFAULT_UID

#: Longest key of the KEM (:func:`encapsulate` / :func:`decapsulate`) and of the key
#: exchange, in bytes (65536); the shortest is 1. Other lengths raise
#: :class:`~guomi.exceptions.InvalidLength` before anything is allocated.
MAX_KEY_LENGTH: int = _sm2.MAX_KEY_LENGTH

# The classes and the two signature converters are the native ones; their documentation
# is their docstring, written once in crates/guomi-python/src/sm2.rs (``help(PrivateKey)``).
PrivateKey = _sm2.PrivateKey
PublicKey = _sm2.PublicKey
Signer = _sm2.Signer
Verifier = _sm2.Verifier
KeyExchangeInitiator = _sm2.KeyExchangeInitiator
KeyExchangeResponder = _sm2.KeyExchangeResponder
signature_der_to_raw = _sm2.signature_der_to_raw
signature_raw_to_der = _sm2.signature_raw_to_der


def compute_z(public_key: PublicKey, uid: BytesLike = DEFAULT_UID) -> bytes:
    """Z_A = SM3(ENTL || ID || a || b || x_G || y_G || x_A || y_A) (GB/T 32918.2 §5.5).

    Args:
        public_key: the signer's :class:`PublicKey`.
        uid: the signer's ID, bytes-like, 0 to 8191 bytes (default :data:`DEFAULT_UID`).

    Returns:
        bytes: Z_A (32 bytes), hashed before the message when signing.

    Raises:
        InvalidArgument: ``uid`` is longer than 8191 bytes.

    Example:
        >>> from guomi import sm2
        >>> pk = sm2.PrivateKey.generate().public_key()
        >>> sm2.compute_z(pk) == pk.compute_z(sm2.DEFAULT_UID)
        True
    """
    return public_key.compute_z(uid)


def convert_ciphertext(
    ciphertext: BytesLike,
    *,
    to: str,
    from_format: Optional[str] = None,
    c1_prefix: bool = True,
    c1_format: str = "uncompressed",
) -> bytes:
    """Re-encodes an SM2 ciphertext between C1C3C2, C1C2C3 and GM/T 0009 DER. No key is
    needed and nothing is decrypted.

    Args:
        ciphertext: bytes-like; raw C1 may be ``04||x||y``, bare ``x||y``, compressed
            ``02/03||x`` or hybrid ``06/07||x||y``.
        to: ``"c1c3c2"``, ``"c1c2c3"`` or ``"der"``.
        from_format: the same names, or ``None`` (default: DER is detected, anything
            else is read as C1C3C2).
        c1_prefix: write ``04`` before C1 in raw output (default ``True``).
        c1_format: ``"uncompressed"`` (default) or ``"compressed"``: C1 as the 33-byte
            ``02/03||x`` in raw output (not with ``c1_prefix=False`` or ``to="der"``).

    Returns:
        bytes: the ciphertext in the ``to`` form.

    Raises:
        UnsupportedFormat: ``ciphertext`` is malformed for ``from_format``, or
            ``c1_format="compressed"`` and C1 is not a point on the curve.
        InvalidArgument: an unknown format name or ``c1_format``, or a compressed C1
            asked for with ``to="der"`` or ``c1_prefix=False``.

    Example:
        >>> from guomi import sm2
        >>> key = sm2.PrivateKey.generate()
        >>> der = sm2.convert_ciphertext(key.public_key().encrypt(b"x"), to="der")
        >>> key.decrypt(der)
        b'x'
        >>> short = sm2.convert_ciphertext(der, to="c1c3c2", c1_format="compressed")
        >>> len(short), key.decrypt(short)
        (66, b'x')
    """
    return _sm2.convert_ciphertext(ciphertext, from_format, to, c1_prefix=c1_prefix, c1_format=c1_format)


def ciphertext_der_to_raw(
    ciphertext: BytesLike, *, order: str = "c1c3c2", c1_prefix: bool = True, c1_format: str = "uncompressed"
) -> bytes:
    """Converts a GM/T 0009 DER ciphertext to the raw form.

    Args:
        ciphertext: bytes-like DER.
        order: ``"c1c3c2"`` (default) or ``"c1c2c3"``.
        c1_prefix: start C1 with ``04`` (default ``True``).
        c1_format: ``"uncompressed"`` (default) or ``"compressed"`` (C1 as ``02/03||x``;
            not with ``c1_prefix=False``).

    Returns:
        bytes: the raw ciphertext.

    Raises:
        UnsupportedFormat: malformed DER, or ``c1_format="compressed"`` and C1 is not a
            point on the curve.
        InvalidArgument: an unknown ``order`` or ``c1_format``.

    Example:
        >>> from guomi import sm2
        >>> key = sm2.PrivateKey.generate()
        >>> raw = sm2.ciphertext_der_to_raw(key.public_key().encrypt(b"x", format="der"))
        >>> key.decrypt(raw)
        b'x'
    """
    return _sm2.convert_ciphertext(ciphertext, "der", order, c1_prefix=c1_prefix, c1_format=c1_format)


def ciphertext_raw_to_der(ciphertext: BytesLike, *, order: str = "c1c3c2") -> bytes:
    """Converts a raw ciphertext (C1 with or without ``04``) to GM/T 0009 DER.

    Args:
        ciphertext: bytes-like raw ciphertext.
        order: its layout, ``"c1c3c2"`` (default) or ``"c1c2c3"``.

    Returns:
        bytes: the DER ciphertext.

    Raises:
        UnsupportedFormat: ``ciphertext`` is too short or C1 is malformed.
        InvalidArgument: an unknown ``order``.

    Example:
        >>> from guomi import sm2
        >>> key = sm2.PrivateKey.generate()
        >>> der = sm2.ciphertext_raw_to_der(key.public_key().encrypt(b"x"))
        >>> der[0], key.decrypt(der)
        (48, b'x')
    """
    return _sm2.convert_ciphertext(ciphertext, order, "der", c1_prefix=True)


def ciphertext_reorder(
    ciphertext: BytesLike,
    *,
    from_order: str,
    to_order: str,
    c1_prefix: bool = True,
    c1_format: str = "uncompressed",
) -> bytes:
    """Converts a raw ciphertext between C1C3C2 and C1C2C3.

    Args:
        ciphertext: bytes-like raw ciphertext (C1 as ``04||x||y``, ``x||y``,
            ``02/03||x`` or ``06/07||x||y``).
        from_order: ``"c1c3c2"`` or ``"c1c2c3"``.
        to_order: ``"c1c3c2"`` or ``"c1c2c3"``.
        c1_prefix: start C1 with ``04`` in the output (default ``True``).
        c1_format: ``"uncompressed"`` (default) or ``"compressed"`` (C1 written as
            ``02/03||x``; not with ``c1_prefix=False``).

    Returns:
        bytes: the reordered ciphertext.

    Raises:
        UnsupportedFormat: ``ciphertext`` is too short or C1 is malformed, or
            ``c1_format="compressed"`` and C1 is not a point on the curve.
        InvalidArgument: an unknown order name or ``c1_format``.

    Example:
        >>> from guomi import sm2
        >>> key = sm2.PrivateKey.generate()
        >>> ct = key.public_key().encrypt(b"x", format="c1c2c3")
        >>> key.decrypt(sm2.ciphertext_reorder(ct, from_order="c1c2c3", to_order="c1c3c2"))
        b'x'
    """
    return _sm2.convert_ciphertext(ciphertext, from_order, to_order, c1_prefix=c1_prefix, c1_format=c1_format)


def _check_key_length(key_length: int) -> None:
    # The bindings take an unsigned integer: a negative one would be an OverflowError,
    # outside the GuomiError family, so the whole range is checked here.
    if not 1 <= key_length <= MAX_KEY_LENGTH:
        raise InvalidLength(f"key_length must be 1 to {MAX_KEY_LENGTH}, got {key_length}")


def encapsulate(public_key: PublicKey, key_length: int) -> tuple[bytes, bytes]:
    """SM2 key encapsulation: a fresh random key and the C1 to send with it.

    C1 = [k]G (65 bytes, ``04||x||y``) and key = KDF(x2 || y2, key_length) with
    (x2, y2) = [k]P. Send C1; keep the key.

    Args:
        public_key: the recipient's :class:`PublicKey`.
        key_length: bytes of key, 1 to :data:`MAX_KEY_LENGTH` (65536).

    Returns:
        tuple[bytes, bytes]: ``(key, c1)``.

    Raises:
        InvalidLength: ``key_length`` is outside 1..65536, negative included (checked
            before any work; also a ``ValueError``).
        RandomnessError: the OS random generator failed.

    Example:
        >>> from guomi import sm2
        >>> key = sm2.PrivateKey.generate()
        >>> k, c1 = sm2.encapsulate(key.public_key(), 16)
        >>> sm2.decapsulate(key, c1, 16) == k
        True
    """
    _check_key_length(key_length)
    return public_key.encapsulate(key_length)


def decapsulate(private_key: PrivateKey, c1: BytesLike, key_length: int) -> bytes:
    """The key of SM2 key encapsulation, from the sender's C1 (inverse of
    :func:`encapsulate`).

    Args:
        private_key: the recipient's :class:`PrivateKey`.
        c1: bytes-like point (any encoding :meth:`PublicKey.from_bytes` reads).
        key_length: bytes of key, 1 to :data:`MAX_KEY_LENGTH`; must match the sender's.

    Returns:
        bytes: the key.

    Raises:
        DecryptionError: C1 is not a valid point (or the key would be all zero).
        InvalidLength: ``key_length`` is outside 1..65536, negative included.

    Example:
        >>> from guomi import sm2
        >>> key = sm2.PrivateKey.generate()
        >>> k, c1 = sm2.encapsulate(key.public_key(), 32)
        >>> sm2.decapsulate(key, c1, 32) == k
        True
    """
    _check_key_length(key_length)
    return private_key.decapsulate(c1, key_length)


def ecdh(private_key: PrivateKey, peer_public_key: PublicKey) -> bytes:
    """Plain ECDH over sm2p256v1: the x coordinate of d·P (32 bytes).

    This is what RFC 8998 TLS 1.3 uses with curveSM2; it is not the GB/T 32918.3 key
    exchange (:class:`KeyExchangeInitiator`). Hash the result before using it as a key.

    Args:
        private_key: our :class:`PrivateKey`.
        peer_public_key: the peer's :class:`PublicKey`.

    Returns:
        bytes: 32 bytes.

    Raises:
        InvalidKey: the result is the point at infinity (impossible for valid keys).

    Example:
        >>> from guomi import sm2
        >>> a, b = sm2.PrivateKey.generate(), sm2.PrivateKey.generate()
        >>> sm2.ecdh(a, b.public_key()) == sm2.ecdh(b, a.public_key())
        True
    """
    return private_key.ecdh(peer_public_key)


VerifyItem = Union[
    tuple[PublicKey, BytesLike, BytesLike],
    tuple[PublicKey, BytesLike, BytesLike, BytesLike],
]


def verify_many(items: Iterable[VerifyItem], threads: Optional[int] = None) -> list[bool]:
    """Verifies many SM2 signatures at once, without the GIL, optionally on several cores.

    Args:
        items: ``(public_key, signature, message)`` or ``(public_key, signature, message,
            uid)`` tuples: a :class:`PublicKey`, a DER or raw signature, the message and
            the signer's ID (default :data:`DEFAULT_UID`), all bytes-like.
        threads: ``None`` or ``1`` (default: the calling thread), ``0`` (every core) or
            ``n`` (at most ``n`` threads, capped at the number of cores): the convention
            of every batch API in guomi.

    Returns:
        list[bool]: one result per item, in order; a malformed signature is ``False``.

    Raises:
        InvalidArgument: ``threads`` is negative (also a ``ValueError``).
        TypeError: an item is not a 3- or 4-tuple of the types above.

    Example:
        >>> from guomi import sm2
        >>> key = sm2.PrivateKey.generate()
        >>> pk = key.public_key()
        >>> sm2.verify_many([(pk, key.sign(b"a"), b"a"), (pk, key.sign(b"a"), b"b")], threads=0)
        [True, False]
    """
    if threads is not None and threads < 0:
        raise InvalidArgument("threads must be >= 0")
    norm: list[tuple[PublicKey, BytesLike, BytesLike, BytesLike]] = []
    for it in items:
        if len(it) == 3:
            norm.append((it[0], it[1], it[2], DEFAULT_UID))
        elif len(it) == 4:
            norm.append((it[0], it[1], it[2], it[3]))
        else:
            raise TypeError("each item must be (public_key, signature, message[, uid])")
    return _sm2.verify_many(norm, threads)
