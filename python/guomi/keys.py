"""SM2 private keys at rest: plain and password-protected PEM/DER.

>>> from guomi import keys, sm2
>>> key = sm2.PrivateKey.generate()
>>> pem = keys.dump_pem_private_key(key, password=b"correct horse", iterations=1000)
>>> pem.splitlines()[0]
'-----BEGIN ENCRYPTED PRIVATE KEY-----'
>>> keys.load_pem_private_key(pem, password=b"correct horse") == key
True

Reads
    ``PRIVATE KEY`` (PKCS#8), ``EC PRIVATE KEY`` / ``SM2 PRIVATE KEY`` (SEC1),
    ``ENCRYPTED PRIVATE KEY`` (PKCS#8 PBES2: PBKDF2 with HMAC-SM3 as GmSSL 3 writes it,
    or HMAC-SHA256 as OpenSSL 3 writes it, and SM4-CBC) and legacy OpenSSL PEM with
    ``Proc-Type: 4,ENCRYPTED`` / ``DEK-Info: SM4-CBC,<iv>``; DER in the same forms.
Writes
    plain PKCS#8/SEC1, or PBES2 with ``prf="hmac-sm3"`` (default; GmSSL 3 reads it) or
    ``prf="hmac-sha256"`` (OpenSSL 3 reads it: ``openssl pkey -in k.pem -passin ...``).

Parsing is strict DER: trailing bytes after a structure or inside it (after the SEC1 key
in its OCTET STRING, an unknown field after a PKCS#8 key, ...) raise
:class:`~guomi.exceptions.UnsupportedFormat` (for an encrypted key, a changed ciphertext
is the opaque ``InvalidKey``).

A wrong password raises :class:`~guomi.exceptions.InvalidKey` with no detail (the same
error for a wrong password, bad padding or a corrupted key), never garbage key material.
Giving a password for a plain key, or none for an encrypted key, raises ``TypeError``.
The same options exist on the key itself: ``sm2.PrivateKey.from_pem(data, password=...)``,
``key.to_pem(password=...)`` (these raise ``InvalidArgument`` for those two mistakes).
"""

from __future__ import annotations

from typing import Optional, Union

from guomi import sm2
from guomi._native import x509 as _x509
from guomi._typing import BytesLike
from guomi.exceptions import InvalidArgument

__all__ = [
    "DEFAULT_ITERATIONS",
    "MAX_ITERATIONS",
    "dump_der_private_key",
    "dump_pem_private_key",
    "is_encrypted_pem",
    "load_der_private_key",
    "load_pem_private_key",
]

#: A password: ``str`` (encoded as UTF-8) or bytes-like.
Password = Union[str, bytes, bytearray, memoryview]

#: PBKDF2 iterations written unless told otherwise (as GmSSL 3).
DEFAULT_ITERATIONS: int = _x509.DEFAULT_ITERATIONS
#: Largest PBKDF2 iteration count written or read (10 000 000): a key file asking for
#: more is refused with :class:`~guomi.exceptions.UnsupportedFormat` before any work.
MAX_ITERATIONS: int = _x509.MAX_ITERATIONS


def _iterations(iterations: int, password: Optional[Password]) -> int:
    if password is not None and not 1 <= iterations <= MAX_ITERATIONS:
        raise InvalidArgument(f"iterations must be 1 to {MAX_ITERATIONS}")
    return iterations


def is_encrypted_pem(data: Union[str, bytes]) -> bool:
    """Whether PEM ``data`` holds a password-protected private key (PKCS#8
    ``ENCRYPTED PRIVATE KEY`` or legacy ``Proc-Type: 4,ENCRYPTED``, the header name in
    any case and spaces in its value ignored, as the loaders read it). Only the PEM
    markers are looked at; nothing is decoded.

    Args:
        data: PEM text, ``str`` or ``bytes``.

    Returns:
        bool: ``True`` for an encrypted key.

    Example:
        >>> from guomi import keys, sm2
        >>> keys.is_encrypted_pem(sm2.PrivateKey.generate().to_pem())
        False
        >>> keys.is_encrypted_pem("-----BEGIN EC PRIVATE KEY-----\\nproc-type: 4, ENCRYPTED\\n")
        True
    """
    text = data.decode("ascii", "replace") if isinstance(data, (bytes, bytearray)) else data
    if "-----BEGIN ENCRYPTED PRIVATE KEY-----" in text:
        return True
    # RFC 1421 headers as the loader reads them: the name in any case, spaces ignored in
    # the value ("proc-type: 4, ENCRYPTED" is the same header).
    for line in text.splitlines():
        name, sep, value = line.partition(":")
        if sep and name.strip().lower() == "proc-type" and value.replace(" ", "").strip() == "4,ENCRYPTED":
            return True
    return False


def load_pem_private_key(data: Union[str, bytes], password: Optional[Password] = None) -> sm2.PrivateKey:
    """Loads a PEM private key: PKCS#8, SEC1, PKCS#8 PBES2 or legacy ``DEK-Info: SM4-CBC``.

    Args:
        data: PEM text, ``str`` or ``bytes``.
        password: for encrypted keys only: ``str`` (encoded as UTF-8) or bytes-like.

    Returns:
        sm2.PrivateKey: the key.

    Raises:
        InvalidKey: wrong password or corrupted key (one opaque error).
        TypeError: a password for a plain key, none for an encrypted key, or an empty
            password.
        UnsupportedFormat: malformed PEM or DER, an unknown algorithm, or PBKDF2
            iterations above :data:`MAX_ITERATIONS`.

    Example:
        >>> from guomi import keys, sm2
        >>> key = sm2.PrivateKey.generate()
        >>> keys.load_pem_private_key(key.to_pem()) == key
        True
    """
    try:
        return sm2.PrivateKey.from_pem(data, password=password)
    except InvalidArgument as e:
        raise TypeError(str(e)) from None


def load_der_private_key(data: BytesLike, password: Optional[Password] = None) -> sm2.PrivateKey:
    """Loads a DER private key: PKCS#8, SEC1, or (with ``password``) a PKCS#8
    EncryptedPrivateKeyInfo.

    Args:
        data: bytes-like DER (strict: trailing bytes are refused).
        password: for encrypted keys only: ``str`` (UTF-8) or bytes-like.

    Returns:
        sm2.PrivateKey: the key.

    Raises:
        InvalidKey, TypeError, UnsupportedFormat: as :func:`load_pem_private_key`.

    Example:
        >>> from guomi import keys, sm2
        >>> key = sm2.PrivateKey.generate()
        >>> keys.load_der_private_key(key.to_der(format="sec1")) == key
        True
    """
    try:
        return sm2.PrivateKey.from_der(data, password=password)
    except InvalidArgument as e:
        raise TypeError(str(e)) from None


def dump_pem_private_key(
    key: sm2.PrivateKey,
    password: Optional[Password] = None,
    *,
    prf: str = "hmac-sm3",
    iterations: int = DEFAULT_ITERATIONS,
    format: str = "pkcs8",
) -> str:
    """PEM text of ``key``: plain without a password, else PKCS#8 ``ENCRYPTED PRIVATE
    KEY`` (PBES2: PBKDF2 with ``prf``, SM4-CBC, random salt and IV).

    Args:
        key: the :class:`guomi.sm2.PrivateKey`.
        password: ``None`` (plain) or ``str`` (UTF-8) / bytes-like, not empty.
        prf: ``"hmac-sm3"`` (default; GmSSL 3 reads it) or ``"hmac-sha256"`` (OpenSSL 3
            reads it).
        iterations: PBKDF2 iterations, 1 to :data:`MAX_ITERATIONS` (default
            :data:`DEFAULT_ITERATIONS`); used only with a password.
        format: ``"pkcs8"`` (default) or ``"sec1"`` (plain keys only).

    Returns:
        str: the PEM text.

    Raises:
        InvalidArgument: ``iterations`` out of range, an unknown ``prf`` or ``format``,
            ``format="sec1"`` with a password, or an empty password.

    Example:
        >>> from guomi import keys, sm2
        >>> pem = keys.dump_pem_private_key(sm2.PrivateKey.generate(), b"pw", iterations=1000)
        >>> keys.is_encrypted_pem(pem)
        True
    """
    return key.to_pem(format=format, password=password, prf=prf, iterations=_iterations(iterations, password))


def dump_der_private_key(
    key: sm2.PrivateKey,
    password: Optional[Password] = None,
    *,
    prf: str = "hmac-sm3",
    iterations: int = DEFAULT_ITERATIONS,
    format: str = "pkcs8",
) -> bytes:
    """DER of ``key``: PKCS#8 or SEC1, or with a password a PKCS#8
    EncryptedPrivateKeyInfo.

    Args:
        key, password, prf, iterations, format: as :func:`dump_pem_private_key`.

    Returns:
        bytes: the DER.

    Raises:
        InvalidArgument: as :func:`dump_pem_private_key`.

    Example:
        >>> from guomi import keys, sm2
        >>> key = sm2.PrivateKey.generate()
        >>> der = keys.dump_der_private_key(key, "pw", iterations=1000)
        >>> keys.load_der_private_key(der, "pw") == key
        True
    """
    return key.to_der(format=format, password=password, prf=prf, iterations=_iterations(iterations, password))
