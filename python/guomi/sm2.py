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
    ``PublicKey.encrypt(msg, *, format="c1c3c2"|"c1c2c3"|"der", c1_prefix=True)`` and
    ``PrivateKey.decrypt(ct, *, format=None|"c1c3c2"|"c1c2c3"|"der")``: DER is detected,
    raw C1 may come with or without ``04``. Every decryption failure raises the one
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
from typing import Union

from guomi._native import sm2 as _sm2

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

BytesLike = Union[bytes, bytearray, memoryview]

#: The default user ID of GM/T 0009-2012 §10 / GB/T 35276: ``b"1234567812345678"``.
DEFAULT_UID: bytes = _sm2.DEFAULT_UID

#: Longest key of the KEM (:func:`encapsulate` / :func:`decapsulate`) and of the key
#: exchange, in bytes (65536); the shortest is 1. Other lengths raise
#: :class:`~guomi.exceptions.InvalidLength` before anything is allocated.
MAX_KEY_LENGTH: int = _sm2.MAX_KEY_LENGTH

#: An SM2 private key d in [1, n-2] with its public key (immutable).
#: ``from_bytes(data)`` takes exactly 32 big-endian bytes (``to_bytes()`` writes 32;
#: any other length raises :class:`~guomi.exceptions.InvalidLength`, so a truncated
#: buffer never becomes a weak key); ``from_hex`` likewise takes 64 hex digits.
#: ``from_integer_bytes(data)`` is the explicit lenient reader for integers written
#: without fixed width (1 to 32 bytes, left-padded, or 33 with a leading ``00`` as Java's
#: ``BigInteger.toByteArray`` writes). Signing nonces are hedged (RFC 6979 §3.6 style:
#: HMAC-SM3 DRBG over d, the digest and 32 fresh OS-random bytes). Keys at rest:
#: ``from_pem(data, *, password=None)`` / ``from_der(...)`` read PKCS#8, SEC1 and, with a
#: password, PKCS#8 PBES2 (PBKDF2 HMAC-SM3 or HMAC-SHA256 + SM4-CBC) and legacy
#: ``DEK-Info: SM4-CBC`` PEM; ``to_pem(*, format="pkcs8", password=None, prf="hmac-sm3",
#: iterations=65536)`` / ``to_der(...)`` write them. A wrong password raises
#: :class:`~guomi.exceptions.InvalidKey` with no detail.
PrivateKey = _sm2.PrivateKey
#: An SM2 public key (immutable, hashable, compared by value).
PublicKey = _sm2.PublicKey
#: Streaming signer: ``Signer(private_key, *, uid=DEFAULT_UID)``, ``update(data)``,
#: ``sign(*, format="der")``.
Signer = _sm2.Signer
#: Streaming verifier: ``Verifier(public_key, *, uid=DEFAULT_UID)``, ``update(data)``,
#: ``verify(signature, *, format=None) -> bool``.
Verifier = _sm2.Verifier
#: GB/T 32918.3 initiator (A): ``KeyExchangeInitiator(private_key, peer_public_key, *,
#: uid=DEFAULT_UID, peer_uid=DEFAULT_UID)``; send ``ephemeral_public_key`` (R_A) to B;
#: ``finish(R_B, key_length, *, peer_confirmation=S_B) -> (K, S_A)`` (a wrong S_B raises
#: :class:`~guomi.exceptions.InvalidTag`). Single use: the first ``finish`` consumes and
#: wipes r_A whatever happens (success, wrong S_B, bad R_B, bad ``key_length``); any later
#: call raises :class:`~guomi.exceptions.AlreadyFinalized`. ``key_length``: 1 to
#: :data:`MAX_KEY_LENGTH`.
KeyExchangeInitiator = _sm2.KeyExchangeInitiator
#: GB/T 32918.3 responder (B): ``KeyExchangeResponder(private_key, peer_public_key, *,
#: uid=DEFAULT_UID, peer_uid=DEFAULT_UID)``; ``respond(R_A, key_length) -> (R_B, K, S_B)``;
#: ``confirm(S_A)`` raises :class:`~guomi.exceptions.InvalidTag` when S_A is wrong.
#: Single use: ``respond`` runs once (r_B exists only inside it); a second call, even
#: after a failed one, raises :class:`~guomi.exceptions.AlreadyFinalized`.
#: ``key_length``: 1 to :data:`MAX_KEY_LENGTH`.
KeyExchangeResponder = _sm2.KeyExchangeResponder

_FORMATS = ("c1c3c2", "c1c2c3", "der")


def compute_z(public_key: PublicKey, uid: BytesLike = DEFAULT_UID) -> bytes:
    """Z_A = SM3(ENTL || ID || a || b || x_G || y_G || x_A || y_A) (GB/T 32918.2 §5.5).

    ``uid`` may be empty and must be at most 8191 bytes.
    """
    return public_key.compute_z(uid)


def signature_der_to_raw(signature: BytesLike) -> bytes:
    """DER ``SEQUENCE { r, s }`` to the 64-byte ``r || s`` form."""
    return _sm2.signature_der_to_raw(signature)


def signature_raw_to_der(signature: BytesLike) -> bytes:
    """64-byte ``r || s`` to DER (minimal integers)."""
    return _sm2.signature_raw_to_der(signature)


def convert_ciphertext(
    ciphertext: BytesLike,
    *,
    to: str,
    from_format: str | None = None,
    c1_prefix: bool = True,
) -> bytes:
    """Re-encodes a ciphertext: ``to`` and ``from_format`` are ``"c1c3c2"``,
    ``"c1c2c3"`` or ``"der"``; ``from_format=None`` detects DER, else reads C1C3C2.
    ``c1_prefix`` puts ``04`` before C1 in raw output. No key is needed."""
    return _sm2.convert_ciphertext(ciphertext, from_format, to, c1_prefix=c1_prefix)


def ciphertext_der_to_raw(ciphertext: BytesLike, *, order: str = "c1c3c2", c1_prefix: bool = True) -> bytes:
    """GM/T 0009 DER to raw ``order`` (``"c1c3c2"`` or ``"c1c2c3"``)."""
    return _sm2.convert_ciphertext(ciphertext, "der", order, c1_prefix=c1_prefix)


def ciphertext_raw_to_der(ciphertext: BytesLike, *, order: str = "c1c3c2") -> bytes:
    """Raw ``order`` (C1 with or without ``04``) to GM/T 0009 DER."""
    return _sm2.convert_ciphertext(ciphertext, order, "der", c1_prefix=True)


def ciphertext_reorder(
    ciphertext: BytesLike, *, from_order: str, to_order: str, c1_prefix: bool = True
) -> bytes:
    """Raw C1C3C2 <-> C1C2C3."""
    return _sm2.convert_ciphertext(ciphertext, from_order, to_order, c1_prefix=c1_prefix)


def encapsulate(public_key: PublicKey, key_length: int) -> tuple[bytes, bytes]:
    """SM2 KEM: returns ``(key, c1)`` with C1 = [k]G (65 bytes, ``04||x||y``) and
    key = KDF(x2 || y2, key_length), (x2, y2) = [k]P. Send C1; keep the key.

    ``key_length`` is 1 to :data:`MAX_KEY_LENGTH` (65536) bytes; anything else raises
    :class:`~guomi.exceptions.InvalidLength` (a negative or >= 2**64 value raises
    ``OverflowError``)."""
    return public_key.encapsulate(key_length)


def decapsulate(private_key: PrivateKey, c1: BytesLike, key_length: int) -> bytes:
    """Inverse of :func:`encapsulate`; raises :class:`~guomi.exceptions.DecryptionError`
    when C1 is invalid and :class:`~guomi.exceptions.InvalidLength` when ``key_length`` is
    not 1 to :data:`MAX_KEY_LENGTH`."""
    return private_key.decapsulate(c1, key_length)


def ecdh(private_key: PrivateKey, peer_public_key: PublicKey) -> bytes:
    """Plain ECDH over sm2p256v1: the x coordinate of d·P (32 bytes). This is what
    RFC 8998 TLS 1.3 uses with curveSM2; it is not the GB/T 32918.3 key exchange."""
    return private_key.ecdh(peer_public_key)


VerifyItem = Union[
    tuple[PublicKey, BytesLike, BytesLike],
    tuple[PublicKey, BytesLike, BytesLike, BytesLike],
]


def verify_many(items: Iterable[VerifyItem], threads: int | None = None) -> list[bool]:
    """Verifies many signatures at once without the GIL.

    ``items``: ``(public_key, signature, message)`` or ``(public_key, signature, message,
    uid)`` tuples (signature DER or raw). ``threads``: ``None`` or ``1`` = the calling
    thread, ``0`` = every core, ``n`` = at most ``n`` threads (the convention of every
    batch API in guomi). Returns one bool per item.
    """
    if threads is not None and threads < 0:
        raise ValueError("threads must be >= 0")
    norm: list[tuple[PublicKey, BytesLike, BytesLike, BytesLike]] = []
    for it in items:
        if len(it) == 3:
            norm.append((it[0], it[1], it[2], DEFAULT_UID))
        elif len(it) == 4:
            norm.append((it[0], it[1], it[2], it[3]))
        else:
            raise TypeError("each item must be (public_key, signature, message[, uid])")
    return _sm2.verify_many(norm, threads)
