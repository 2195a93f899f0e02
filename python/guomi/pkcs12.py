"""PKCS#12 files (RFC 7292; ``.p12`` / ``.pfx``): an SM2 private key, its certificate and
a chain, under one password.

>>> from guomi import pkcs12, sm2, x509
>>> key = sm2.PrivateKey.generate()
>>> cert = x509.CertificateBuilder(subject="CN=leaf").self_sign(key)
>>> data = pkcs12.dump(key, cert, (), "correct horse", iterations=1000)
>>> k, c, chain = pkcs12.load(data, "correct horse")
>>> (k == key, c == cert, chain)
(True, True, [])

Writes (:func:`dump`)
    ``encryption="sm"`` (default): PBES2 with PBKDF2-HMAC-SM3 and SM4-CBC for the key
    and the certificates, HMAC-SM3 MAC keyed by the PKCS#12 KDF over SM3: the layout of
    emmansun/go-pkcs12's ``ShangMi2024`` encoder. ``encryption="aes"``: PBKDF2-HMAC-SHA256
    and AES-256-CBC with an HMAC-SHA256 MAC, what ``openssl pkcs12 -export`` writes by
    default and what OpenSSL 3, BouncyCastle and Windows read. The key and its
    certificate carry ``localKeyId`` (and ``friendlyName`` when ``name`` is given).
Reads (:func:`load`)
    both of those; OpenSSL 3's ``-keypbe SM4-CBC -certpbe SM4-CBC -macalg sm3``
    (PBKDF2-HMAC-SHA256 + SM4-CBC, SM3 MAC); AES-128/192/256-CBC; the SM PBES OIDs of
    gmsm / GM/T 0091; plain key bags; a SHA-1 MAC (Java and BouncyCastle key stores);
    PBMAC1 (RFC 9579); BER as well as DER. The MAC is checked first, in constant time,
    before anything is decrypted. Legacy encryption (3DES, RC2, RC4, PBES1) raises
    :class:`~guomi.exceptions.UnsupportedFormat` naming the algorithm and how to
    re-export; so do files without a MAC.

Bounds: files of at most :data:`MAX_PFX_LEN` bytes, at most :data:`MAX_BAGS` bags,
iteration counts 1 to :data:`MAX_ITERATIONS` per key derivation and
:data:`MAX_TOTAL_ITERATIONS` for all the derivations of one :func:`load` together (checked
before the first one runs), at most one private key. Salts and IVs are random from the OS;
decrypted secrets are zeroized in Rust memory.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Optional, Union

from guomi import sm2, x509
from guomi._native import pkcs12 as _p12
from guomi._typing import BytesLike

__all__ = [
    "DEFAULT_ITERATIONS",
    "MAX_BAGS",
    "MAX_ITERATIONS",
    "MAX_PFX_LEN",
    "MAX_TOTAL_ITERATIONS",
    "Password",
    "dump",
    "info",
    "load",
]

#: A password: ``str`` or UTF-8 bytes-like, not empty (the PKCS#12 MAC uses it as a
#: BMPString, so characters outside the Basic Multilingual Plane are refused).
Password = Union[str, bytes, bytearray, memoryview]

#: Iterations written unless told otherwise (PBKDF2 and the MAC's KDF): 65536.
DEFAULT_ITERATIONS: int = _p12.DEFAULT_ITERATIONS
#: Largest iteration count written or read (10 000 000): a file asking for more raises
#: :class:`~guomi.exceptions.UnsupportedFormat` before any work.
MAX_ITERATIONS: int = _p12.MAX_ITERATIONS
#: Largest file read, in bytes (4 MiB).
MAX_PFX_LEN: int = _p12.MAX_PFX_LEN
#: Most bags in one file, all nesting levels together (64).
MAX_BAGS: int = _p12.MAX_BAGS
#: Most key-derivation iterations one :func:`load` runs, all derivations together (the
#: MAC key, every encrypted part, every shrouded key): 30 000 000, three derivations at
#: :data:`MAX_ITERATIONS` (what :func:`dump` writes at its maximum). The counts that can
#: be read without the password are summed before the first derivation runs; a file over
#: the budget raises :class:`~guomi.exceptions.UnsupportedFormat` at once.
MAX_TOTAL_ITERATIONS: int = _p12.MAX_TOTAL_ITERATIONS


def load(
    data: BytesLike, password: Password
) -> tuple[Optional[sm2.PrivateKey], Optional[x509.Certificate], list[x509.Certificate]]:
    """Reads a PKCS#12 file (DER).

    Args:
        data: the file, at most :data:`MAX_PFX_LEN` bytes.
        password: ``str`` or UTF-8 bytes, not empty.

    Returns:
        tuple: ``(key, certificate, chain)``: the private key (``None`` if the file has
        none), the key's certificate (the one whose ``localKeyId`` or public key matches
        the key; without a key, the first certificate; ``None`` if there is none) and the
        other certificates in file order.

    Raises:
        InvalidKey: wrong password or a changed file (one message).
        UnsupportedFormat: malformed, legacy (the algorithm is named) or out-of-bounds
            contents (key derivations of more than :data:`MAX_TOTAL_ITERATIONS`
            iterations in all among them), more than one private key, or no MAC.
        InvalidArgument: an empty or non-UTF-8 password.

    Example:
        >>> from guomi import pkcs12, sm2
        >>> key = sm2.PrivateKey.generate()
        >>> data = pkcs12.dump(key, None, (), "pw", iterations=1000)
        >>> pkcs12.load(data, "pw") == (key, None, [])
        True
    """
    key, cert, chain, _name, _info = _p12.load(data, password)
    return (
        key,
        None if cert is None else x509.Certificate.from_der(cert),
        [x509.Certificate.from_der(c) for c in chain],
    )


def info(data: BytesLike, password: Password) -> dict[str, object]:
    """How a PKCS#12 file is protected and what it holds (for display).

    Args:
        data: the file, at most :data:`MAX_PFX_LEN` bytes.
        password: ``str`` or UTF-8 bytes, not empty.

    Returns:
        dict: ``mac`` (``"sm3"``, ``"sha256"``, ``"sha1"`` or ``"PBMAC1 (...)"``),
        ``mac_iterations``,
        ``contents`` (one line per content or bag), ``friendly_name`` (or ``None``),
        ``has_key``, ``certificate`` (subject or ``None``) and ``chain`` (subjects).

    Raises:
        InvalidKey: wrong password or a changed file.
        UnsupportedFormat: see :func:`load`.

    Example:
        >>> from guomi import pkcs12, sm2
        >>> data = pkcs12.dump(sm2.PrivateKey.generate(), None, (), "pw", iterations=1000)
        >>> d = pkcs12.info(data, "pw")
        >>> d["mac"], d["contents"]
        ('sm3', ['data', 'shrouded key bag: PBES2, PBKDF2-HMAC-SM3, SM4-CBC, 1000 iterations'])
    """
    key, cert, chain, name, (mac, mac_iterations, contents) = _p12.load(data, password)
    return {
        "mac": mac,
        "mac_iterations": mac_iterations,
        "contents": list(contents),
        "friendly_name": name,
        "has_key": key is not None,
        "certificate": None if cert is None else x509.Certificate.from_der(cert).subject,
        "chain": [x509.Certificate.from_der(c).subject for c in chain],
    }


def dump(
    key: Optional[sm2.PrivateKey],
    certificate: Optional[x509.Certificate],
    chain: Optional[Iterable[x509.Certificate]],
    password: Password,
    *,
    encryption: str = "sm",
    iterations: int = DEFAULT_ITERATIONS,
    name: Optional[str] = None,
) -> bytes:
    """Writes a PKCS#12 file (DER).

    Args:
        key: the private key, or ``None``.
        certificate: the key's certificate (its public key must match ``key``), or
            ``None``.
        chain: further certificates (at most 62), or ``None`` / ``()``.
        password: ``str`` or UTF-8 bytes, not empty, characters of the BMP.
        encryption: ``"sm"`` (PBKDF2-HMAC-SM3 + SM4-CBC, SM3 MAC) or ``"aes"``
            (PBKDF2-HMAC-SHA256 + AES-256-CBC, SHA-256 MAC; OpenSSL 3 / Windows).
        iterations: PBKDF2 and MAC iterations, 1 to :data:`MAX_ITERATIONS` (default
            :data:`DEFAULT_ITERATIONS`).
        name: ``friendlyName`` of the key and its certificate (the alias Java and Windows
            show), or ``None``.

    Returns:
        bytes: the DER file.

    Raises:
        InvalidArgument: a bad option, iterations out of range, a key that does not
            match the certificate, nothing to write, an empty password.
        RandomnessError: the OS random generator failed.

    Example:
        >>> from guomi import pkcs12, sm2, x509
        >>> key = sm2.PrivateKey.generate()
        >>> cert = x509.CertificateBuilder(subject="CN=a").self_sign(key)
        >>> data = pkcs12.dump(key, cert, None, "pw", encryption="aes", iterations=1000)
        >>> pkcs12.info(data, "pw")["mac"]
        'sha256'
    """
    return _p12.dump(
        key,
        None if certificate is None else certificate.to_der(),
        [c.to_der() for c in (chain or ())],
        password,
        encryption,
        iterations,
        name,
    )
