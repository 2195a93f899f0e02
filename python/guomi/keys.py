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

A wrong password raises :class:`~guomi.exceptions.InvalidKey` with no detail (the same
error for a wrong password, bad padding or a corrupted key), never garbage key material.
Giving a password for a plain key, or none for an encrypted key, raises ``TypeError``.
"""

from __future__ import annotations

from typing import Optional, Union

from guomi import sm2
from guomi._native import x509 as _x509
from guomi.exceptions import InvalidArgument

__all__ = [
    "DEFAULT_ITERATIONS",
    "dump_der_private_key",
    "dump_pem_private_key",
    "is_encrypted_pem",
    "load_der_private_key",
    "load_pem_private_key",
]

BytesLike = Union[bytes, bytearray, memoryview]
Password = Union[str, bytes, bytearray, memoryview]

#: PBKDF2 iterations written unless told otherwise (as GmSSL 3).
DEFAULT_ITERATIONS: int = _x509.DEFAULT_ITERATIONS
_PRFS = ("hmac-sm3", "hmac-sha256")


def _pw(password: Optional[Password]) -> Optional[bytes]:
    if password is None:
        return None
    if isinstance(password, str):
        return password.encode("utf-8")
    return bytes(password)


def is_encrypted_pem(data: Union[str, bytes]) -> bool:
    """Whether ``data`` holds a password-protected private key (PKCS#8 or legacy)."""
    text = data.decode("ascii", "replace") if isinstance(data, (bytes, bytearray)) else data
    return "-----BEGIN ENCRYPTED PRIVATE KEY-----" in text or "Proc-Type: 4,ENCRYPTED" in text


def load_pem_private_key(data: Union[str, bytes], password: Optional[Password] = None) -> sm2.PrivateKey:
    """Loads a PEM private key; ``password`` (str is UTF-8 encoded) for encrypted keys."""
    try:
        d = _x509.load_private_key_pem(data, _pw(password))
    except InvalidArgument as e:
        raise TypeError(str(e)) from None
    return sm2.PrivateKey.from_bytes(d)


def load_der_private_key(data: BytesLike, password: Optional[Password] = None) -> sm2.PrivateKey:
    """Loads a DER private key: PKCS#8, SEC1, or (with ``password``)
    EncryptedPrivateKeyInfo."""
    try:
        d = _x509.load_private_key_der(data, _pw(password))
    except InvalidArgument as e:
        raise TypeError(str(e)) from None
    return sm2.PrivateKey.from_bytes(d)


def _check(prf: str, iterations: int) -> None:
    if prf not in _PRFS:
        raise ValueError('prf must be "hmac-sm3" or "hmac-sha256"')
    if not 1 <= iterations <= 10_000_000:
        raise ValueError("iterations must be 1 to 10000000")


def dump_pem_private_key(
    key: sm2.PrivateKey,
    password: Optional[Password] = None,
    *,
    prf: str = "hmac-sm3",
    iterations: int = DEFAULT_ITERATIONS,
    format: str = "pkcs8",
) -> str:
    """PEM text of ``key``: plain (``format="pkcs8"`` or ``"sec1"``) without a password,
    else PKCS#8 ``ENCRYPTED PRIVATE KEY`` (PBES2, PBKDF2-``prf``, SM4-CBC)."""
    if password is None:
        return key.to_pem(format=format)
    if format != "pkcs8":
        raise ValueError("encrypted keys are always PKCS#8")
    _check(prf, iterations)
    pw = _pw(password)
    if not pw:
        raise ValueError("empty password")
    pem: str = _x509.encrypt_private_key(key.to_bytes(), pw, prf, iterations, True)
    return pem


def dump_der_private_key(
    key: sm2.PrivateKey,
    password: Optional[Password] = None,
    *,
    prf: str = "hmac-sm3",
    iterations: int = DEFAULT_ITERATIONS,
    format: str = "pkcs8",
) -> bytes:
    """DER of ``key``; with a password, an EncryptedPrivateKeyInfo."""
    if password is None:
        return key.to_der(format=format)
    if format != "pkcs8":
        raise ValueError("encrypted keys are always PKCS#8")
    _check(prf, iterations)
    pw = _pw(password)
    if not pw:
        raise ValueError("empty password")
    der: bytes = _x509.encrypt_private_key(key.to_bytes(), pw, prf, iterations, False)
    return der
