"""The guomi envelope: encrypt data of any size, streaming, in constant memory.

An envelope is a header (magic ``GUOMIENV``, format version, key type, chunk size, a
random salt and the key-encapsulation data) followed by SM4-GCM chunks (64 KiB of
plaintext each by default). The content key is HKDF-SM3 of the encapsulated secret,
bound to the whole header; each chunk's nonce carries its index and a last-chunk flag, so
truncation, reordering, splicing and tampering are all detected, and only verified
plaintext is ever returned. The byte layout is specified in docs/envelope.md.

Recipients: a raw 16-byte SM4 ``key`` shared out of band, a ``password``
(PBKDF2-HMAC-SM3, ``iterations`` stored in the header: 1 to :data:`MAX_ITERATIONS`, also
when reading, so a hostile header cannot stall the opener), an SM2 public key
(``recipient=sm2_public_key``; opened with ``private_key=sm2_private_key``: SM2 KEM per
GB/T 32918.4) or an SM9 identity (``recipient=sm9_enc_master_public_key,
user_id=b"bob"``; opened with ``private_key=bob_sm9_enc_user_key``: SM9 KEM per GM/T 0044
Part 4). The KEM ciphertext goes in the header and its 32-byte key is the secret.

>>> import guomi.envelope as env
>>> sealed = env.seal(b"attack at dawn", key=bytes(16))
>>> env.open(sealed, key=bytes(16))
b'attack at dawn'
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional, Union

from guomi._fileio import PathLike, transform_file
from guomi._native import envelope as _env
from guomi.exceptions import AlreadyFinalized, InvalidArgument

if TYPE_CHECKING:
    from guomi import sm2, sm9

    Recipient = Union[sm2.PublicKey, sm9.EncMasterPublicKey]
    PrivateKey = Union[sm2.PrivateKey, sm9.EncUserKey]

__all__ = [
    "DEFAULT_CHUNK_SIZE",
    "DEFAULT_ITERATIONS",
    "MAGIC",
    "MAX_CHUNK_SIZE",
    "MAX_ITERATIONS",
    "MIN_CHUNK_SIZE",
    "Opener",
    "Sealer",
    "open",
    "open_file",
    "seal",
    "seal_file",
]

BytesLike = Union[bytes, bytearray, memoryview]

MAGIC: bytes = _env.MAGIC
#: Plaintext bytes per chunk unless told otherwise (a power of two, 1 KiB to 16 MiB).
DEFAULT_CHUNK_SIZE = 1 << 16
#: Smallest and largest chunk sizes (1 KiB and 16 MiB).
MIN_CHUNK_SIZE: int = 1 << _env.MIN_CHUNK_LOG2
MAX_CHUNK_SIZE: int = 1 << _env.MAX_CHUNK_LOG2
#: PBKDF2-HMAC-SM3 iterations for password envelopes unless told otherwise.
DEFAULT_ITERATIONS = 100_000
#: Largest PBKDF2 iteration count written or read (10 000 000; the bound shared with
#: encrypted PKCS#8 keys and :func:`guomi.sm3.pbkdf2_hmac`).
MAX_ITERATIONS: int = _env.MAX_ITERATIONS


def _chunk_log2(chunk_size: int) -> int:
    if not MIN_CHUNK_SIZE <= chunk_size <= MAX_CHUNK_SIZE or chunk_size & (chunk_size - 1):
        raise InvalidArgument("chunk_size must be a power of two (1 KiB to 16 MiB)")
    return chunk_size.bit_length() - 1


def _iterations(iterations: int) -> int:
    if not 1 <= iterations <= MAX_ITERATIONS:
        raise InvalidArgument(f"iterations must be 1 to {MAX_ITERATIONS}")
    return iterations


class Sealer:
    """Streaming encryption: ``update(data) -> bytes`` then ``finalize() -> bytes``.

    Give exactly one of ``key`` (16 bytes), ``password`` or ``recipient`` (an
    :class:`guomi.sm2.PublicKey`, or an :class:`guomi.sm9.EncMasterPublicKey` with
    ``user_id``). ``iterations`` (passwords): 1 to :data:`MAX_ITERATIONS`;
    ``chunk_size``: a power of two from :data:`MIN_CHUNK_SIZE` to :data:`MAX_CHUNK_SIZE`.
    Out-of-range values raise :class:`~guomi.exceptions.InvalidArgument`.
    """

    def __init__(
        self,
        *,
        key: Optional[BytesLike] = None,
        password: Optional[BytesLike] = None,
        recipient: Optional[Recipient] = None,
        user_id: Optional[BytesLike] = None,
        iterations: int = DEFAULT_ITERATIONS,
        chunk_size: int = DEFAULT_CHUNK_SIZE,
    ) -> None:
        log2 = _chunk_log2(chunk_size)
        if sum(x is not None for x in (key, password, recipient)) != 1:
            raise TypeError("give exactly one of key=, password= or recipient=")
        from guomi import sm2, sm9

        if isinstance(recipient, sm9.EncMasterPublicKey):
            if user_id is None:
                raise TypeError("an SM9 recipient needs user_id=")
            self._native = _env.Sealer.with_sm9(recipient, user_id, log2)
            user_id = None
        elif isinstance(recipient, sm2.PublicKey):
            self._native = _env.Sealer.with_sm2(recipient, log2)
        elif recipient is not None:
            raise TypeError("recipient must be a guomi.sm2.PublicKey or guomi.sm9.EncMasterPublicKey")
        elif key is not None:
            self._native = _env.Sealer.with_key(key, log2)
        else:
            assert password is not None
            self._native = _env.Sealer.with_password(password, _iterations(iterations), log2)
        if user_id is not None:
            raise TypeError("user_id= goes with an SM9 recipient only")
        self._done = False

    def update(self, data: BytesLike) -> bytes:
        """Encrypts ``data``; returns the envelope bytes that are ready."""
        if self._done:
            raise AlreadyFinalized("sealer already finalized")
        return self._native.update(data)

    def finalize(self) -> bytes:
        """Returns the rest of the envelope (the last chunk)."""
        if self._done:
            raise AlreadyFinalized("sealer already finalized")
        self._done = True
        return self._native.finalize()


class Opener:
    """Streaming decryption: ``update(data) -> bytes`` (verified plaintext only) then
    ``finalize() -> bytes``, which raises :class:`~guomi.exceptions.DecryptionError` if
    the envelope was truncated. Give exactly one of ``key``, ``password`` or
    ``private_key`` (an :class:`guomi.sm2.PrivateKey` or :class:`guomi.sm9.EncUserKey`).
    A header whose numbers are out of range (a chunk size outside 1 KiB to 16 MiB, a
    password iteration count outside 1 to :data:`MAX_ITERATIONS`) raises
    :class:`~guomi.exceptions.UnsupportedFormat` before any key derivation."""

    def __init__(
        self,
        *,
        key: Optional[BytesLike] = None,
        password: Optional[BytesLike] = None,
        private_key: Optional[PrivateKey] = None,
    ) -> None:
        if sum(x is not None for x in (key, password, private_key)) != 1:
            raise TypeError("give exactly one of key=, password= or private_key=")
        from guomi import sm2, sm9

        if isinstance(private_key, sm9.EncUserKey):
            self._native = _env.Opener.with_sm9(private_key)
        elif isinstance(private_key, sm2.PrivateKey):
            self._native = _env.Opener.with_sm2(private_key)
        elif private_key is not None:
            raise TypeError("private_key must be a guomi.sm2.PrivateKey or guomi.sm9.EncUserKey")
        elif key is not None:
            self._native = _env.Opener.with_key(key)
        else:
            assert password is not None
            self._native = _env.Opener.with_password(password)
        self._done = False

    def update(self, data: BytesLike) -> bytes:
        if self._done:
            raise AlreadyFinalized("opener already finalized")
        return self._native.update(data)

    def finalize(self) -> bytes:
        if self._done:
            raise AlreadyFinalized("opener already finalized")
        self._done = True
        return self._native.finalize()


def seal(
    data: BytesLike,
    *,
    key: Optional[BytesLike] = None,
    password: Optional[BytesLike] = None,
    recipient: Optional[Recipient] = None,
    user_id: Optional[BytesLike] = None,
    iterations: int = DEFAULT_ITERATIONS,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
) -> bytes:
    """The envelope of ``data`` in one call."""
    s = Sealer(
        key=key,
        password=password,
        recipient=recipient,
        user_id=user_id,
        iterations=iterations,
        chunk_size=chunk_size,
    )
    return s.update(data) + s.finalize()


def open(  # noqa: A001 - the natural name in this namespace
    envelope: BytesLike,
    *,
    key: Optional[BytesLike] = None,
    password: Optional[BytesLike] = None,
    private_key: Optional[PrivateKey] = None,
) -> bytes:
    """The plaintext of ``envelope``; raises ``DecryptionError`` on any tampering,
    truncation or wrong key, and returns nothing in that case."""
    o = Opener(key=key, password=password, private_key=private_key)
    return o.update(envelope) + o.finalize()


def seal_file(
    src: PathLike,
    dst: PathLike,
    *,
    key: Optional[BytesLike] = None,
    password: Optional[BytesLike] = None,
    recipient: Optional[Recipient] = None,
    user_id: Optional[BytesLike] = None,
    iterations: int = DEFAULT_ITERATIONS,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    force: bool = False,
) -> None:
    """Encrypts file ``src`` into ``dst`` in constant memory, atomically."""
    stream = Sealer(
        key=key,
        password=password,
        recipient=recipient,
        user_id=user_id,
        iterations=iterations,
        chunk_size=chunk_size,
    )
    transform_file(src, dst, stream, force=force)


def open_file(
    src: PathLike,
    dst: PathLike,
    *,
    key: Optional[BytesLike] = None,
    password: Optional[BytesLike] = None,
    private_key: Optional[PrivateKey] = None,
    force: bool = False,
) -> None:
    """Decrypts envelope file ``src`` into ``dst`` in constant memory, atomically: on any
    failure ``dst`` is not created (or left as it was)."""
    transform_file(src, dst, Opener(key=key, password=password, private_key=private_key), force=force)
