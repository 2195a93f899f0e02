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
* :func:`cbc_mac` / :class:`CBCMAC` and :func:`cmac` / :class:`CMAC`: the GB/T
  15852.1-2020 (ISO/IEC 9797-1:2011) block-cipher MACs and CMAC (NIST SP 800-38B) with
  SM4, one shot or streaming (``update``, then ``finalize`` or a constant-time
  ``verify``).

Keys, IVs, nonces and data are any bytes-like objects; a ``str`` raises ``TypeError``.
Errors are the classes of :mod:`guomi.exceptions`. The classes are the compiled ones;
their documentation is their own docstring (``help(guomi.sm4.SM4GCM.decrypt)``).
"""

from __future__ import annotations

from guomi._native import sm4 as _sm4
from guomi._typing import BytesLike

__all__ = [
    "BLOCK_SIZE",
    "KEY_SIZE",
    "CBCMAC",
    "CMAC",
    "SM4",
    "SM4CCM",
    "SM4GCM",
    "SM4XTS",
    "Decryptor",
    "Encryptor",
    "GCMDecryptor",
    "GCMEncryptor",
    "cbc_mac",
    "cmac",
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


# The compiled classes, documented in their own docstrings (crates/guomi-python/src/sm4.rs).
SM4 = _sm4.SM4
SM4GCM = _sm4.SM4GCM
SM4CCM = _sm4.SM4CCM
SM4XTS = _sm4.SM4XTS
# The streaming objects returned by encryptor() / decryptor().
Encryptor = _sm4.Encryptor
Decryptor = _sm4.Decryptor
GCMEncryptor = _sm4.GCMEncryptor
GCMDecryptor = _sm4.GCMDecryptor
# The streaming MACs.
CBCMAC = _sm4.CBCMAC
CMAC = _sm4.CMAC


def generate_key() -> bytes:
    """A new random 16-byte SM4 key from the operating system's CSPRNG.

    Returns:
        bytes: 16 random bytes, for :class:`SM4`, :class:`SM4GCM` or :class:`SM4CCM`.

    Raises:
        RandomnessError: the OS random number generator failed (guomi never falls back).

    Example:
        >>> from guomi import sm4
        >>> key = sm4.generate_key()
        >>> len(key), key != sm4.generate_key()
        (16, True)
    """
    return _sm4.SM4.generate_key()


def encrypt(
    key: BytesLike,
    data: BytesLike,
    *,
    mode: str,
    iv: BytesLike | None = None,
    padding: str | None = None,
) -> bytes:
    """Encrypts ``data`` with a 16-byte ``key`` in one call.

    For many calls with one key, :class:`SM4` avoids re-running the key schedule. For
    authenticated encryption use :class:`SM4GCM` or :class:`SM4CCM`.

    Args:
        key: the 16-byte key.
        data: the plaintext. With ``padding="none"``, ECB and CBC need a whole number
            of 16-byte blocks; the other modes take any length.
        mode: ``"ecb"``, ``"cbc"``, ``"ctr"`` (128-bit big-endian counter), ``"cfb"``
            (CFB128; ``"cfb128"`` too) or ``"ofb"``, any case.
        iv: 16 bytes for CBC/CTR/CFB/OFB (the initial counter block for CTR); none for
            ECB.
        padding: ``"pkcs7"`` (the default for ECB/CBC), ``"none"`` (the default, and the
            only choice, for CTR/CFB/OFB), ``"iso7816"`` (0x80 then zeros) or ``"zero"``
            (zeros up to the block boundary; decryption strips every trailing zero byte,
            so data ending in 0x00 does not round-trip); ``None`` = the mode's default.

    Returns:
        bytes: the ciphertext (padded modes: the next multiple of 16 bytes; PKCS #7 and
        ISO 7816 always add at least one byte).

    Raises:
        InvalidLength: ``key`` or ``iv`` is not 16 bytes, or ECB/CBC data is not whole
            blocks with ``padding="none"``.
        InvalidArgument: unknown ``mode`` or ``padding``; padding other than ``"none"``
            for a stream mode; an ``iv`` for ECB or none for the other modes.
        TypeError: an argument has the wrong type (a ``str`` for bytes included).

    Example:
        >>> from guomi import sm4
        >>> key = bytes.fromhex("0123456789abcdeffedcba9876543210")
        >>> sm4.encrypt(key, key, mode="ecb", padding="none").hex()
        '681edf34d206965e86b3e94f536e4246'
        >>> len(sm4.encrypt(key, b"hello", mode="cbc", iv=bytes(16)))
        16
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
    """Decrypts ``data`` in one call; the inverse of :func:`encrypt` with the same options.

    Args:
        key: the 16-byte key.
        data: the ciphertext (ECB/CBC: a whole number of 16-byte blocks).
        mode: ``"ecb"``, ``"cbc"``, ``"ctr"`` (128-bit big-endian counter), ``"cfb"``
            (CFB128; ``"cfb128"`` too) or ``"ofb"``, any case.
        iv: 16 bytes for CBC/CTR/CFB/OFB (the initial counter block for CTR); none for
            ECB.
        padding: ``"pkcs7"`` (the default for ECB/CBC), ``"none"`` (the default, and the
            only choice, for CTR/CFB/OFB), ``"iso7816"`` (0x80 then zeros) or ``"zero"``
            (zeros up to the block boundary; decryption strips every trailing zero byte,
            so data ending in 0x00 does not round-trip); ``None`` = the mode's default.

    Returns:
        bytes: the plaintext, padding removed.

    Raises:
        InvalidPadding: the padding is malformed; no partial output is returned.
        InvalidLength: ``key`` or ``iv`` is not 16 bytes, or ECB/CBC ciphertext is not a
            whole number of blocks.
        InvalidArgument: unknown ``mode`` or ``padding``; padding other than ``"none"``
            for a stream mode; an ``iv`` for ECB or none for the other modes.
        TypeError: an argument has the wrong type.

    Example:
        >>> from guomi import sm4
        >>> key, iv = bytes(16), bytes(16)
        >>> sm4.decrypt(key, sm4.encrypt(key, b"hello", mode="cbc", iv=iv), mode="cbc", iv=iv)
        b'hello'
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

    Chunking never changes the result: the concatenated outputs equal :func:`encrypt`'s.

    Args:
        key: the 16-byte key.
        mode: ``"ecb"``, ``"cbc"``, ``"ctr"``, ``"cfb"``, ``"ofb"`` (as in
            :func:`encrypt`) or ``"gcm"``.
        iv: 16 bytes for CBC/CTR/CFB/OFB, none for ECB; for GCM the nonce (required, at
            least 1 byte, 12 recommended, unique per message under the key).
        padding: as in :func:`encrypt`; GCM takes none (``None`` or ``"none"``).
        aad: GCM only: the associated data, authenticated but not encrypted.

    Returns:
        Encryptor | GCMEncryptor: the streaming object. For GCM, ``finalize()`` returns
        ``b""`` and the 16-byte tag is then in its ``tag`` attribute.

    Raises:
        InvalidLength: ``key`` or ``iv`` has the wrong length (GCM: an empty nonce).
        InvalidArgument: unknown ``mode`` or ``padding``, a bad ``iv``/``padding``
            combination, GCM with padding or without a nonce, or ``aad`` for a mode
            other than GCM.
        TypeError: an argument has the wrong type.

    Example:
        >>> from guomi import sm4
        >>> key, nonce = bytes(16), bytes(12)
        >>> e = sm4.encryptor(key, mode="gcm", iv=nonce, aad=b"header")
        >>> ct = e.update(b"part one, ") + e.update(b"part two") + e.finalize()
        >>> ct + e.tag == sm4.SM4GCM(key).encrypt(nonce, b"part one, part two", b"header")
        True
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
    """A streaming decryptor: ``update(data) -> bytes`` any number of times, then
    ``finalize() -> bytes``; later calls raise :class:`~guomi.exceptions.AlreadyFinalized`.

    With padding, the last block is held back until ``finalize()``, which checks it
    (raising :class:`~guomi.exceptions.InvalidPadding`); output returned earlier by
    ``update`` has already been released.

    ``mode="gcm"``: ``iv`` is the nonce; the ``tag`` can be given here or to
    ``finalize(tag)``. The tag must be exactly ``tag_length`` bytes: the length is fixed
    here, never taken from the tag, and a tag of any other length raises
    :class:`~guomi.exceptions.InvalidTag`. By default (``buffered=True``) ``update``
    returns ``b""`` and ``finalize`` returns the whole plaintext only after the tag
    verified, so no unauthenticated plaintext escapes (memory grows with the message).
    With ``buffered=False``, ``update`` returns plaintext at once and ``finalize``
    verifies: the caller must then discard everything if it raises
    :class:`~guomi.exceptions.InvalidTag`.

    Args:
        key: the 16-byte key.
        mode: ``"ecb"``, ``"cbc"``, ``"ctr"``, ``"cfb"``, ``"ofb"`` (as in
            :func:`decrypt`) or ``"gcm"``.
        iv: 16 bytes for CBC/CTR/CFB/OFB, none for ECB; for GCM the nonce (required).
        padding: as in :func:`decrypt`; GCM takes none (``None`` or ``"none"``).
        aad: GCM only: the associated data.
        tag: GCM only: the tag, or ``None`` to give it to ``finalize(tag)``.
        buffered: GCM only: hold the plaintext until the tag verified (default).
        tag_length: GCM only: 16 (the default), or 15, 14, 13, 12, 8 or 4 for truncated
            tags (NIST SP 800-38D §5.2.1.2).

    Returns:
        Decryptor | GCMDecryptor: the streaming object.

    Raises:
        InvalidLength: ``key`` or ``iv`` has the wrong length, or an unsupported
            ``tag_length``.
        InvalidTag: GCM with a ``tag`` that is not ``tag_length`` bytes.
        InvalidArgument: unknown ``mode`` or ``padding``, a bad ``iv``/``padding``
            combination, GCM with padding or without a nonce, or ``aad``, ``tag`` or a
            ``tag_length`` other than 16 for a mode other than GCM.
        TypeError: an argument has the wrong type.

    Example:
        >>> from guomi import sm4
        >>> key, nonce = bytes(16), bytes(12)
        >>> sealed = sm4.SM4GCM(key).encrypt(nonce, b"attack at dawn")
        >>> d = sm4.decryptor(key, mode="gcm", iv=nonce)
        >>> d.update(sealed[:-16]), d.finalize(sealed[-16:])
        (b'', b'attack at dawn')
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
    """SM4-XTS encryption of one data unit (storage encryption with ciphertext stealing).

    XTS is not authenticated. :class:`SM4XTS` keeps the key schedule across calls.

    Args:
        key: 32 bytes, key1 (data) || key2 (tweak); the halves must differ.
        tweak: 16 bytes (e.g. the sector number), unique per data unit.
        data: at least 16 bytes.
        standard: ``"gb"`` (GB/T 17964-2021, OpenSSL's SM4-XTS; the default) or
            ``"ieee"`` (IEEE Std 1619), any case.

    Returns:
        bytes: the ciphertext, ``len(data)`` bytes.

    Raises:
        InvalidLength: ``key`` is not 32 bytes, ``tweak`` not 16, or ``data`` shorter
            than 16.
        InvalidKey: the two key halves are equal (refused as FIPS 140-3 IG C.I requires).
        InvalidArgument: unknown ``standard``.
        TypeError: an argument has the wrong type.

    Example:
        >>> from guomi import sm4
        >>> key = bytes(range(32))
        >>> ct = sm4.xts_encrypt(key, bytes(16), b"one sector of data")
        >>> len(ct), sm4.xts_decrypt(key, bytes(16), ct)
        (18, b'one sector of data')
    """
    return _sm4.xts_encrypt(key, tweak, data, standard)


def xts_decrypt(key: BytesLike, tweak: BytesLike, data: BytesLike, standard: str = "gb") -> bytes:
    """SM4-XTS decryption of one data unit; the inverse of :func:`xts_encrypt`.

    Args:
        key: 32 bytes, key1 || key2; the halves must differ.
        tweak: the 16-byte tweak used for encryption.
        data: the ciphertext, at least 16 bytes.
        standard: ``"gb"`` (GB/T 17964-2021, OpenSSL's SM4-XTS; the default) or
            ``"ieee"`` (IEEE Std 1619), any case.

    Returns:
        bytes: the plaintext, ``len(data)`` bytes.

    Raises:
        InvalidLength: ``key`` is not 32 bytes, ``tweak`` not 16, or ``data`` shorter
            than 16.
        InvalidKey: the two key halves are equal.
        InvalidArgument: unknown ``standard``.
        TypeError: an argument has the wrong type.

    Example:
        >>> from guomi import sm4
        >>> key = bytes(range(32))
        >>> ct = sm4.xts_encrypt(key, bytes(16), bytes(32), standard="ieee")
        >>> sm4.xts_decrypt(key, bytes(16), ct, standard="ieee") == bytes(32)
        True
    """
    return _sm4.xts_decrypt(key, tweak, data, standard)


def cbc_mac(
    key: BytesLike,
    data: BytesLike,
    *,
    variant: str = "cbc-mac",
    padding: str | None = None,
    tag_length: int = 16,
) -> bytes:
    """A GB/T 15852.1-2020 (ISO/IEC 9797-1:2011) block-cipher MAC with SM4, one shot.

    :class:`CBCMAC` is the streaming form. The GIL is released from 2 KiB of data on.

    Args:
        key: 16 bytes; 32 bytes (K || K', two independent keys) for ``emac``,
            ``ansi-retail`` and ``mac-des``.
        data: the message, any bytes-like object, any length.
        variant: ``"cbc-mac"`` (MAC algorithm 1, the default), ``"emac"`` (2),
            ``"ansi-retail"`` (3), ``"mac-des"`` (4), ``"lmac"`` (6), ``"tr-cbc-mac"``
            (7), ``"cbcr-mac"`` (8), or ``"cmac"`` (5, as :func:`cmac`); any case.
        padding: ``"iso9797-m1"`` (zeros; an empty message becomes one zero block),
            ``"iso9797-m2"`` (0x80 then zeros; the default) or ``"iso9797-m3"`` (a
            length block first, then zeros). Must be ``None`` for ``tr-cbc-mac``,
            ``cbcr-mac`` and ``cmac``, whose padding is fixed.
        tag_length: the tag length in bytes, 8 to 16 (default 16). ``tr-cbc-mac``
            truncates as TrCBC does (the rightmost bytes when the message was padded);
            the others keep the leftmost bytes.

    Returns:
        bytes: the ``tag_length``-byte tag.

    Raises:
        InvalidLength: ``key`` has the wrong length for ``variant``.
        InvalidArgument: unknown ``variant`` or ``padding``, a ``padding`` for a
            fixed-padding variant, or ``tag_length`` outside 8..16.
        OverflowError: ``tag_length`` is negative.
        TypeError: ``key`` or ``data`` is not bytes-like.

    Example:
        >>> from guomi import sm4
        >>> key = bytes.fromhex("0123456789abcdeffedcba9876543210")
        >>> sm4.cbc_mac(key, b"This is the test message for mac").hex()
        '4b6553af3c4e27448412315ac7849535'
        >>> len(sm4.cbc_mac(key + bytes(16), b"data", variant="emac", tag_length=8))
        8
    """
    return _sm4.mac(key, data, variant, padding, tag_length)


def cmac(key: BytesLike, data: BytesLike, *, tag_length: int = 16) -> bytes:
    """CMAC (NIST SP 800-38B; GB/T 15852.1-2020 MAC algorithm 5) with SM4, one shot.

    :class:`CMAC` is the streaming form. The GIL is released from 2 KiB of data on.

    Args:
        key: the 16-byte key.
        data: the message, any bytes-like object, any length.
        tag_length: the tag length in bytes, 8 to 16 (default 16; the leftmost bytes).

    Returns:
        bytes: the ``tag_length``-byte tag.

    Raises:
        InvalidLength: ``key`` is not 16 bytes.
        InvalidArgument: ``tag_length`` is outside 8..16.
        OverflowError: ``tag_length`` is negative.
        TypeError: ``key`` or ``data`` is not bytes-like.

    Example:
        >>> from guomi import sm4
        >>> key = bytes.fromhex("0123456789abcdeffedcba9876543210")
        >>> sm4.cmac(key, b"This is the test message for mac").hex()
        '692c437100f3b5ee2b8abcef373d990c'
    """
    return _sm4.mac(key, data, "cmac", None, tag_length)


def _invalid_argument(msg: str) -> Exception:
    from guomi.exceptions import InvalidArgument

    return InvalidArgument(msg)
