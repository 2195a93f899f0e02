"""SM3 hash (GB/T 32905), HMAC-SM3 and the SM3-based KDFs (see `guomi.sm3`)."""

from collections.abc import Sequence
from typing import Optional, final

from guomi._typing import BytesLike

__all__ = [
    "hash",
    "hash_many",
    "hash_path",
    "hmac",
    "kdf",
    "pbkdf2_hmac",
    "hkdf",
    "SM3",
    "HMAC",
]

@final
class SM3:
    """A streaming SM3 hash object with the :mod:`hashlib` interface.

    ``update`` any number of times, then ``digest``/``hexdigest`` (which may be called
    repeatedly, with more ``update`` after them, as in hashlib); ``copy`` forks the state.
    ``name == "sm3"``, ``digest_size == 32``, ``block_size == 64``, so it works as
    ``digestmod`` for Python's :mod:`hmac`: ``hmac.new(key, msg, digestmod=guomi.sm3.new)``.

    Args:
        data: optional first bytes-like input (same as a first ``update(data)``).

    Raises:
        TypeError: ``data`` is not bytes-like (a ``str`` included).

    Example:
        >>> from guomi import sm3
        >>> h = sm3.SM3(b"a")
        >>> h.update(b"bc")
        >>> h.hexdigest()
        '66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0'
        >>> import hmac
        >>> hmac.new(b"key", b"abc", digestmod=sm3.new).digest() == sm3.hmac(b"key", b"abc")
        True
    """
    def __new__(cls, data: Optional[BytesLike] = None) -> SM3: ...
    def update(self, data: BytesLike) -> None:
        """Feeds ``data`` to the hash (the GIL is released from 2 KiB on).

        Args:
            data: any bytes-like object.

        Returns:
            None.

        Raises:
            TypeError: ``data`` is not bytes-like (a ``str`` included).

        Example:
            >>> from guomi import sm3
            >>> h = sm3.new()
            >>> h.update(b"abc")
            >>> h.digest() == sm3.hash(b"abc")
            True
        """
    def digest(self) -> bytes:
        """The digest of everything fed so far; the object stays usable.

        Returns:
            bytes: 32 bytes.

        Example:
            >>> from guomi import sm3
            >>> sm3.new(b"abc").digest().hex()[:16]
            '66c7f0f462eeedd9'
        """
    def hexdigest(self) -> str:
        """The digest of everything fed so far, as 64 lowercase hex digits.

        Returns:
            str: the hex digest.

        Example:
            >>> from guomi import sm3
            >>> sm3.new(b"abc").hexdigest()[:16]
            '66c7f0f462eeedd9'
        """
    def copy(self) -> SM3:
        """An independent copy of the current state (to hash a common prefix once).

        Returns:
            SM3: the copy; updating one does not affect the other.

        Example:
            >>> from guomi import sm3
            >>> a = sm3.new(b"a")
            >>> b = a.copy()
            >>> b.update(b"bc")
            >>> b.digest() == sm3.hash(b"abc"), a.digest() == sm3.hash(b"a")
            (True, True)
        """
    @property
    def name(self) -> str:
        """The algorithm name, ``"sm3"`` (as :mod:`hashlib` objects report it).

        Example:
            >>> from guomi import sm3
            >>> sm3.new().name
            'sm3'
        """
    @property
    def digest_size(self) -> int:
        """The digest size in bytes, 32.

        Example:
            >>> from guomi import sm3
            >>> sm3.new().digest_size
            32
        """
    @property
    def block_size(self) -> int:
        """The internal block size in bytes, 64 (what :mod:`hmac` pads the key to).

        Example:
            >>> from guomi import sm3
            >>> sm3.new().block_size
            64
        """

@final
class HMAC:
    """Streaming HMAC-SM3 (RFC 2104) with the interface of Python's ``hmac.HMAC``.

    ``update`` any number of times, then ``digest``/``hexdigest`` (repeatable) or
    ``verify(tag)``, a constant-time check; ``copy`` forks the state. ``name`` is
    ``"hmac-sm3"``, ``digest_size`` 32, ``block_size`` 64. Key states are wiped when
    the object is freed.

    Args:
        key: the key, any bytes-like object of any length.
        data: optional first bytes-like input (same as a first ``update(data)``).

    Raises:
        TypeError: ``key`` or ``data`` is not bytes-like (a ``str`` included).

    Example:
        >>> from guomi import sm3
        >>> m = sm3.HMAC(b"key")
        >>> m.update(b"message")
        >>> m.digest() == sm3.hmac(b"key", b"message")
        True
    """
    def __new__(cls, key: BytesLike, data: Optional[BytesLike] = None) -> HMAC: ...
    def update(self, data: BytesLike) -> None:
        """Feeds ``data`` to the MAC (the GIL is released from 2 KiB on).

        Args:
            data: any bytes-like object.

        Returns:
            None.

        Raises:
            TypeError: ``data`` is not bytes-like (a ``str`` included).

        Example:
            >>> from guomi import sm3
            >>> m = sm3.HMAC(b"key", b"mess")
            >>> m.update(b"age")
            >>> m.digest() == sm3.hmac(b"key", b"message")
            True
        """
    def digest(self) -> bytes:
        """The tag of everything fed so far; the object stays usable.

        Returns:
            bytes: the 32-byte tag.

        Example:
            >>> from guomi import sm3
            >>> len(sm3.HMAC(b"key", b"message").digest())
            32
        """
    def hexdigest(self) -> str:
        """The tag of everything fed so far, as 64 lowercase hex digits.

        Returns:
            str: the hex tag.

        Example:
            >>> from guomi import sm3
            >>> m = sm3.HMAC(b"key", b"message")
            >>> m.hexdigest() == m.digest().hex()
            True
        """
    def verify(self, tag: BytesLike, *, tag_length: Optional[int] = None) -> bool:
        """Whether ``tag`` is the HMAC-SM3 tag of everything fed so far, compared in
        constant time.

        The tag length is fixed by the caller, never taken from ``tag``: by default the
        full 32 bytes, so a shorter tag (even a correct prefix) is ``False``.

        Args:
            tag: the tag to check, any bytes-like object.
            tag_length: for protocols that truncate: the length in bytes, 4 to 32 (4 is
                the 32-bit floor of NIST SP 800-107 Rev. 1 §5.3.3; RFC 2104 §5
                recommends at least 16). ``tag`` must then be exactly that long and is
                compared with the first ``tag_length`` bytes of the tag.

        Returns:
            bool: ``True`` if the tag matches; ``False`` otherwise, including a ``tag``
            of any other length.

        Raises:
            InvalidArgument: ``tag_length`` is outside 4..32.
            TypeError: ``tag`` is not bytes-like.

        Example:
            >>> from guomi import sm3
            >>> m = sm3.HMAC(b"key", b"message")
            >>> tag = m.digest()
            >>> m.verify(tag), m.verify(tag[:16]), m.verify(tag[:16], tag_length=16)
            (True, False, True)
        """
    def copy(self) -> HMAC:
        """An independent copy of the current state (to MAC a common prefix once).

        Returns:
            HMAC: the copy; updating one does not affect the other.

        Example:
            >>> from guomi import sm3
            >>> a = sm3.HMAC(b"key", b"mess")
            >>> b = a.copy()
            >>> b.update(b"age")
            >>> b.digest() == sm3.hmac(b"key", b"message")
            True
        """
    @property
    def name(self) -> str:
        """The algorithm name, ``"hmac-sm3"``.

        Example:
            >>> from guomi import sm3
            >>> sm3.HMAC(b"key").name
            'hmac-sm3'
        """
    @property
    def digest_size(self) -> int:
        """The tag size in bytes, 32.

        Example:
            >>> from guomi import sm3
            >>> sm3.HMAC(b"key").digest_size
            32
        """
    @property
    def block_size(self) -> int:
        """SM3's block size in bytes, 64.

        Example:
            >>> from guomi import sm3
            >>> sm3.HMAC(b"key").block_size
            64
        """

def hash(data: BytesLike) -> bytes:
    """SM3 digest (GB/T 32905-2016) of ``data``, in one call.

    Args:
        data: the message; any bytes-like object (``bytes``, ``bytearray``,
            ``memoryview``, any buffer). The GIL is released from 2 KiB on.

    Returns:
        bytes: the 32-byte digest.

    Raises:
        TypeError: ``data`` is not bytes-like (a ``str`` included: encode it first).

    Example:
        >>> from guomi import sm3
        >>> sm3.hash(b"abc").hex()
        '66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0'
    """

def hash_many(messages: Sequence[BytesLike], threads: Optional[int] = None) -> list[bytes]:
    """SM3 digests of many messages in one call (the binding behind
    ``guomi.sm3.hash_many``, which also accepts any sequence and checks ``threads``).

    Args:
        messages: a list of bytes-like messages.
        threads: ``None`` or ``1`` = the calling thread only, ``0`` = every core,
            ``n`` = at most ``n`` threads; clamped to the number of CPUs. Batches under
            64 KiB run on the calling thread whatever the value.

    Returns:
        list[bytes]: the 32-byte digests, in the order of ``messages``.

    Raises:
        TypeError: ``messages`` is not a list of bytes-like objects.
        OverflowError: ``threads`` is negative.

    Example:
        >>> from guomi._native import sm3
        >>> [d.hex()[:8] for d in sm3.hash_many([b"abc", b""], None)]
        ['66c7f0f4', '1ab21d83']
    """

def hash_path(path: str) -> bytes:
    """SM3 digest of the file at ``path``, read in 1 MiB chunks without the GIL (the
    binding behind ``guomi.sm3.hash_file`` for paths).

    Args:
        path: a file-system path (``str`` or ``os.PathLike``).

    Returns:
        bytes: the 32-byte digest of the file's contents; memory use is constant.

    Raises:
        OSError: the file cannot be opened or read (``FileNotFoundError``,
            ``PermissionError``, ...).

    Example:
        >>> import os, tempfile
        >>> from guomi._native import sm3
        >>> fd, name = tempfile.mkstemp()
        >>> os.write(fd, b"abc"); os.close(fd)
        3
        >>> sm3.hash_path(name).hex()[:16]
        '66c7f0f462eeedd9'
        >>> os.remove(name)
    """

def hmac(key: BytesLike, data: BytesLike) -> bytes:
    """HMAC-SM3 (RFC 2104) tag of ``data`` under ``key``, in one call.

    Args:
        key: the key, any bytes-like object of any length (keys longer than 64 bytes
            are hashed first, as RFC 2104 says).
        data: the message, any bytes-like object.

    Returns:
        bytes: the 32-byte tag. To check a tag, use ``HMAC(key, data).verify(tag)``
        (constant time), not ``==``.

    Raises:
        TypeError: ``key`` or ``data`` is not bytes-like (a ``str`` included).

    Example:
        >>> from guomi import sm3
        >>> tag = sm3.hmac(b"key", b"message")
        >>> len(tag), sm3.HMAC(b"key", b"message").verify(tag)
        (32, True)
    """

def kdf(z: BytesLike, length: int) -> bytes:
    """The GM/T 0003 KDF (the binding behind ``guomi.sm3.kdf``):
    ``SM3(z || 1) || SM3(z || 2) || ...`` (32-bit big-endian counter from 1) truncated to
    ``length`` bytes.

    Args:
        z: the shared secret input, any bytes-like object.
        length: output length in bytes, 0 to 2**30 (1 GiB) per call, checked before
            anything is allocated.

    Returns:
        bytes: ``length`` bytes.

    Raises:
        InvalidLength: ``length`` is over 2**30.
        OverflowError: ``length`` is negative.
        TypeError: ``z`` is not bytes-like.

    Example:
        >>> from guomi._native import sm3
        >>> sm3.kdf(b"z", 40)[:32] == sm3.hash(b"z" + bytes([0, 0, 0, 1]))
        True
    """

def pbkdf2_hmac(password: BytesLike, salt: BytesLike, iterations: int, length: int) -> bytes:
    """PBKDF2 (RFC 8018 §5.2) with HMAC-SM3 (the binding behind
    ``guomi.sm3.pbkdf2_hmac``). Always runs without the GIL.

    Args:
        password: the password, any bytes-like object.
        salt: the salt, any bytes-like object.
        iterations: 1 to 10,000,000, checked before any work.
        length: output length in bytes, 0 to 2**20 (1 MiB), checked before allocating.

    Returns:
        bytes: the ``length``-byte derived key.

    Raises:
        InvalidArgument: ``iterations`` is 0 or over 10,000,000.
        InvalidLength: ``length`` is over 2**20.
        OverflowError: ``iterations`` or ``length`` is negative.
        TypeError: ``password`` or ``salt`` is not bytes-like.

    Example:
        >>> from guomi._native import sm3
        >>> len(sm3.pbkdf2_hmac(b"password", b"salt", 1000, 32))
        32
    """

def hkdf(ikm: BytesLike, length: int, salt: BytesLike, info: BytesLike) -> bytes:
    """HKDF (RFC 5869) with HMAC-SM3, extract then expand (the binding behind
    ``guomi.sm3.hkdf``, which makes ``salt`` and ``info`` keyword arguments).

    Args:
        ikm: the input keying material, any bytes-like object.
        length: output length in bytes, 0 to 8160 (255 * 32, RFC 5869 §2.3).
        salt: the salt (``b""`` means 32 zero bytes, as RFC 5869 says).
        info: context information, any bytes-like object (may be empty).

    Returns:
        bytes: ``length`` bytes of output keying material.

    Raises:
        InvalidLength: ``length`` is over 8160.
        OverflowError: ``length`` is negative.
        TypeError: an argument is not bytes-like.

    Example:
        >>> from guomi._native import sm3
        >>> okm = sm3.hkdf(b"ikm", 42, b"salt", b"info")
        >>> len(okm), okm == sm3.hkdf(b"ikm", 64, b"salt", b"info")[:42]
        (42, True)
    """
