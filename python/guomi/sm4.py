"""SM4 block cipher (GB/T 32907-2016) and its modes of operation.

>>> import guomi.sm4 as sm4
>>> key = bytes.fromhex("0123456789abcdeffedcba9876543210")
>>> sm4.encrypt(key, key, mode="ecb", padding="none").hex()
'681edf34d206965e86b3e94f536e4246'

* :func:`encrypt` / :func:`decrypt`: ECB, CBC, CTR (128-bit big-endian counter), CFB
  (CFB128) and OFB; ``padding`` ``"pkcs7"`` (default for ECB/CBC), ``"none"`` (default for
  the stream modes), ``"iso7816"`` or ``"zero"``. Bad padding raises
  :class:`~guomi.exceptions.InvalidPadding` and returns nothing.
* :class:`SM4`: a key object (key schedule once) with the same ``encrypt``/``decrypt``,
  ``encrypt_block``/``decrypt_block`` and ``encryptor``/``decryptor``.
* :class:`SM4GCM` and :class:`SM4CCM`: AEAD in the style of ``cryptography``'s ``AESGCM``:
  ``encrypt(nonce, data, aad=None) -> ciphertext || tag``; ``decrypt`` raises
  :class:`~guomi.exceptions.InvalidTag` and releases no plaintext.
* :func:`xts_encrypt` / :func:`xts_decrypt` and :class:`SM4XTS`: storage encryption with
  ciphertext stealing, ``standard="gb"`` (GB/T 17964-2021) or ``"ieee"`` (IEEE 1619).
* :func:`encryptor` / :func:`decryptor`: streaming objects (``update`` then ``finalize``)
  for every mode, including ``mode="gcm"``.
"""

from __future__ import annotations

from guomi._native import sm4 as _sm4
from guomi._typing import BytesLike

__all__ = [
    "BLOCK_SIZE",
    "KEY_SIZE",
    "SM4",
    "SM4CCM",
    "SM4GCM",
    "SM4XTS",
    "Decryptor",
    "Encryptor",
    "GCMDecryptor",
    "GCMEncryptor",
    "decrypt",
    "decryptor",
    "encrypt",
    "encryptor",
    "generate_key",
    "xts_decrypt",
    "xts_encrypt",
]

BLOCK_SIZE = 16
KEY_SIZE = 16


#: An SM4 key object: ``SM4(key)`` schedules the 16-byte key once. Methods:
#: ``encrypt(data, *, mode, iv=None, padding=None)``, ``decrypt(...)``,
#: ``encrypt_block(block)``, ``decrypt_block(block)``, ``encryptor(*, mode, iv=None,
#: padding=None)``, ``decryptor(...)``; ``backend`` names the implementation in use.
SM4 = _sm4.SM4
#: SM4-GCM (NIST SP 800-38D, RFC 8998): ``SM4GCM(key)``, ``encrypt(nonce, data, aad=None)``
#: returns ciphertext || 16-byte tag; ``decrypt(nonce, data, aad=None, *, tag_length=16)``
#: raises :class:`~guomi.exceptions.InvalidTag`. Nonces: any length >= 1 byte, 12 is the
#: recommended (and fastest) length; never reuse a nonce with the same key.
#: ``decryptor(nonce, tag=None, aad=None, *, buffered=True, tag_length=16)`` streams.
#: The tag length is always fixed by the caller (``tag_length``: 16 by default; 15, 14,
#: 13, 12, 8 or 4 for truncated tags, NIST SP 800-38D §5.2.1.2), never taken from the tag
#: being checked: a tag of another length raises ``InvalidTag``; an unsupported
#: ``tag_length`` raises :class:`~guomi.exceptions.InvalidLength`.
SM4GCM = _sm4.SM4GCM
#: SM4-CCM (NIST SP 800-38C, RFC 3610): ``SM4CCM(key, tag_length=16)`` (tag 4..16, even);
#: nonces of 7 to 13 bytes. ``decrypt`` checks exactly ``tag_length`` bytes, the length
#: fixed when the key object was made.
SM4CCM = _sm4.SM4CCM
#: SM4-XTS key object: ``SM4XTS(key32, *, standard="gb")`` with ``encrypt(tweak, data)`` and
#: ``decrypt(tweak, data)``.
SM4XTS = _sm4.SM4XTS
#: Streaming objects returned by :func:`encryptor` / :func:`decryptor`.
Encryptor = _sm4.Encryptor
Decryptor = _sm4.Decryptor
GCMEncryptor = _sm4.GCMEncryptor
GCMDecryptor = _sm4.GCMDecryptor


def generate_key() -> bytes:
    """A new random 16-byte SM4 key from the operating system's CSPRNG."""
    return _sm4.SM4.generate_key()


def encrypt(
    key: BytesLike,
    data: BytesLike,
    *,
    mode: str,
    iv: BytesLike | None = None,
    padding: str | None = None,
) -> bytes:
    """Encrypts ``data`` with a 16-byte ``key``.

    ``mode``: ``"ecb"``, ``"cbc"``, ``"ctr"``, ``"cfb"`` or ``"ofb"``; ``iv``: 16 bytes
    (none for ECB); ``padding``: ``"pkcs7"`` (default for ECB/CBC), ``"none"`` (default,
    and the only choice, for the stream modes), ``"iso7816"`` or ``"zero"``.
    For many calls with one key, :class:`SM4` avoids re-running the key schedule.
    """
    return _sm4.encrypt(key, data, mode, iv, padding)


def decrypt(
    key: BytesLike,
    data: BytesLike,
    *,
    mode: str,
    iv: BytesLike | None = None,
    padding: str | None = None,
) -> bytes:
    """Decrypts ``data``; the inverse of :func:`encrypt` with the same options.

    Raises :class:`~guomi.exceptions.InvalidPadding` (no partial output) on bad padding
    and :class:`~guomi.exceptions.InvalidLength` if ECB/CBC ciphertext is not a whole
    number of blocks.
    """
    return _sm4.decrypt(key, data, mode, iv, padding)


def encryptor(
    key: BytesLike,
    *,
    mode: str,
    iv: BytesLike | None = None,
    padding: str | None = None,
    aad: BytesLike | None = None,
) -> Encryptor | GCMEncryptor:
    """A streaming encryptor: ``update(data) -> bytes`` any number of times, then
    ``finalize() -> bytes``; later calls raise :class:`~guomi.exceptions.AlreadyFinalized`.

    ``mode="gcm"``: ``iv`` is the nonce, ``aad`` the associated data; after ``finalize()``
    the 16-byte tag is in the ``tag`` attribute.
    """
    if isinstance(mode, str) and mode.lower() == "gcm":
        if padding not in (None, "none"):
            raise _invalid_argument("gcm takes no padding")
        if iv is None:
            raise _invalid_argument("gcm requires a nonce (iv)")
        return _sm4.SM4GCM(key).encryptor(iv, aad)
    if aad is not None:
        raise _invalid_argument("aad applies only to mode='gcm'")
    return _sm4.SM4(key).encryptor(mode=mode, iv=iv, padding=padding)


def decryptor(
    key: BytesLike,
    *,
    mode: str,
    iv: BytesLike | None = None,
    padding: str | None = None,
    aad: BytesLike | None = None,
    tag: BytesLike | None = None,
    buffered: bool = True,
    tag_length: int = 16,
) -> Decryptor | GCMDecryptor:
    """A streaming decryptor (``update`` then ``finalize``).

    With padding, the last block is held back until ``finalize()``, which checks it
    (raising :class:`~guomi.exceptions.InvalidPadding`); output returned earlier by
    ``update`` has already been released.

    ``mode="gcm"``: ``iv`` is the nonce; the ``tag`` can be given here or to
    ``finalize(tag)``. The tag must be exactly ``tag_length`` bytes (16 by default; 15,
    14, 13, 12, 8 or 4 for truncated tags, NIST SP 800-38D §5.2.1.2): the length is fixed
    here, never taken from the tag, and a tag of any other length raises
    :class:`~guomi.exceptions.InvalidTag`. By default (``buffered=True``) ``update`` returns ``b""`` and
    ``finalize`` returns the whole plaintext only after the tag verified, so no
    unauthenticated plaintext escapes (memory grows with the message). With
    ``buffered=False``, ``update`` returns plaintext at once and ``finalize`` verifies:
    the caller must then discard everything if it raises
    :class:`~guomi.exceptions.InvalidTag`.
    """
    if isinstance(mode, str) and mode.lower() == "gcm":
        if padding not in (None, "none"):
            raise _invalid_argument("gcm takes no padding")
        if iv is None:
            raise _invalid_argument("gcm requires a nonce (iv)")
        return _sm4.SM4GCM(key).decryptor(iv, tag, aad, buffered=buffered, tag_length=tag_length)
    if aad is not None or tag is not None or tag_length != 16:
        raise _invalid_argument("aad, tag and tag_length apply only to mode='gcm'")
    return _sm4.SM4(key).decryptor(mode=mode, iv=iv, padding=padding)


def xts_encrypt(key: BytesLike, tweak: BytesLike, data: BytesLike, standard: str = "gb") -> bytes:
    """SM4-XTS encryption of one data unit (>= 16 bytes) with a 32-byte key
    (key1 || key2) and a 16-byte tweak; ``standard`` ``"gb"`` (GB/T 17964-2021) or
    ``"ieee"`` (IEEE 1619)."""
    return _sm4.xts_encrypt(key, tweak, data, standard)


def xts_decrypt(key: BytesLike, tweak: BytesLike, data: BytesLike, standard: str = "gb") -> bytes:
    """SM4-XTS decryption of one data unit; see :func:`xts_encrypt`."""
    return _sm4.xts_decrypt(key, tweak, data, standard)


def _invalid_argument(msg: str) -> Exception:
    from guomi.exceptions import InvalidArgument

    return InvalidArgument(msg)
