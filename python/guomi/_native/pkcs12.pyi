"""PKCS#12 files (RFC 7292) with SM or AES protection (see `guomi.pkcs12`)."""

from collections.abc import Sequence
from typing import Optional, Union

from guomi._native.sm2 import PrivateKey
from guomi._typing import BytesLike

__all__ = [
    "load",
    "dump",
    "DEFAULT_ITERATIONS",
    "MAX_ITERATIONS",
    "MAX_PFX_LEN",
    "MAX_BAGS",
    "MAX_TOTAL_ITERATIONS",
]

DEFAULT_ITERATIONS: int
MAX_ITERATIONS: int
MAX_PFX_LEN: int
MAX_BAGS: int
MAX_TOTAL_ITERATIONS: int

def load(
    data: BytesLike, password: Union[str, BytesLike]
) -> tuple[
    Optional[PrivateKey],
    Optional[bytes],
    list[bytes],
    Optional[str],
    tuple[str, int, list[str]],
]:
    """Reads a PKCS#12 file (DER). The MAC is checked first (constant time), then the bags
    are decrypted.

    Args:
        data: bytes-like DER, at most 4 MiB.
        password: `str` or UTF-8 bytes, not empty.

    Returns:
        tuple: (PrivateKey or None, certificate DER or None, list of chain DER, friendly
        name or None, (MAC algorithm, MAC iterations, list of content descriptions)).

    Raises:
        InvalidKey: wrong password or a changed file.
        UnsupportedFormat: malformed, legacy (named) or out-of-bounds contents.
        InvalidArgument: an empty or non-UTF-8 password.

    Example:
        >>> from guomi import sm2
        >>> from guomi._native import pkcs12 as native
        >>> key = sm2.PrivateKey.generate()
        >>> data = native.dump(key, None, [], "pw", "sm", 1000, None)
        >>> native.load(data, "pw")[0] == key
        True
    """

def dump(
    key: Optional[PrivateKey],
    certificate: Optional[BytesLike],
    chain: Sequence[BytesLike],
    password: Union[str, BytesLike],
    encryption: str,
    iterations: int,
    name: Optional[str],
) -> bytes:
    """Writes a PKCS#12 file (DER).

    Args:
        key: `PrivateKey` or None.
        certificate: DER of the key's certificate, or None.
        chain: DER of further certificates (at most 62).
        password: `str` or UTF-8 bytes, not empty, characters of the BMP.
        encryption: "sm" (PBKDF2-HMAC-SM3 + SM4-CBC, SM3 MAC) or "aes" (PBKDF2-HMAC-SHA256 +
            AES-256-CBC, SHA-256 MAC).
        iterations: PBKDF2 and MAC iterations, 1 to 10 000 000.
        name: the friendlyName of the key and its certificate, or None.

    Returns:
        bytes: the DER file.

    Raises:
        InvalidArgument: a bad option, a key that does not match the certificate, nothing
            to write.
        UnsupportedFormat: a certificate that does not parse.

    Example:
        >>> from guomi import sm2
        >>> from guomi._native import pkcs12 as native
        >>> data = native.dump(sm2.PrivateKey.generate(), None, [], "pw", "aes", 1000, None)
        >>> data[:1]
        b'0'
    """
