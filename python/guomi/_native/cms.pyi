"""CMS SignedData and EnvelopedData (RFC 5652, GM/T 0010) (see `guomi.cms`)."""

from collections.abc import Sequence
from typing import Optional

from guomi._native.x509 import Certificate
from guomi._typing import BytesLike

__all__ = [
    "sign",
    "verify",
    "encrypt",
    "decrypt",
    "MAX_INPUT",
    "MAX_DEPTH",
    "MAX_SIGNERS",
    "MAX_RECIPIENTS",
    "MAX_CERTIFICATES",
    "MAX_ATTRIBUTES",
]

MAX_INPUT: int
MAX_DEPTH: int
MAX_SIGNERS: int
MAX_RECIPIENTS: int
MAX_CERTIFICATES: int
MAX_ATTRIBUTES: int

def sign(
    content: BytesLike,
    signers: Sequence[tuple[BytesLike, Certificate, bool, str, str]],
    certificates: Sequence[Certificate],
    detached: bool,
    oid_style: str,
    signing_time: Optional[int],
    format: str,
) -> bytes:
    """Builds a SignedData (used by `guomi.cms.sign` and `guomi.cms.SignedDataBuilder`).

    Args:
        content: the content to sign.
        signers: `(d, certificate, signed_attributes, signature_algorithm, identifier)`
            tuples, 1 to 64: the private key (32 bytes), its `Certificate`, whether
            to sign attributes (contentType, messageDigest, signingTime), `"sm2-with-sm3"`
            or `"sm2"`, `"issuer_and_serial"` or `"subject_key_identifier"`.
        certificates: extra certificates to include (at most 256 in all).
        detached: leave the content out.
        oid_style: `"rfc"` or `"gm"`.
        signing_time: Unix seconds for the signingTime attribute, or `None` for none.
        format: `"der"` or `"pem"` (ASCII bytes, label `CMS`).

    Returns:
        bytes: the ContentInfo.

    Raises:
        InvalidArgument: a bad option, no signer, too many signers or certificates, a
            certificate without subjectKeyIdentifier when that identifier is asked for,
            or a signer certificate whose keyUsage allows neither digitalSignature nor
            nonRepudiation.
        InvalidKey: a key that is invalid or does not match its certificate.

    Example:
        >>> from guomi import sm2, x509
        >>> from guomi._native.cms import sign
        >>> key = sm2.PrivateKey.generate()
        >>> cert = x509.CertificateBuilder(subject="CN=a").self_sign(key)
        >>> der = sign(b"hi", [(key.to_bytes(), cert, True, "sm2-with-sm3",
        ...     "issuer_and_serial")], [], False, "rfc", None, "der")
        >>> der[:1]
        b'0'
    """

def verify(
    data: BytesLike,
    content: Optional[BytesLike],
    trust_roots: Sequence[Certificate],
    intermediates: Sequence[Certificate],
    at: int,
    purpose: str = "smime",
) -> tuple[bytes, list[Certificate], str]:
    """Verifies a SignedData (DER, BER or PEM; used by `guomi.cms.verify`).

    Args:
        data: the SignedData.
        content: the detached content, or `None` when it is attached.
        trust_roots: `Certificate`s; when not empty every signer must chain to one.
        intermediates: `Certificate`s to build paths (and find signers) with.
        at: Unix time to check certificate validity at.
        purpose: what every signer certificate must allow: `"smime"` (default),
            `"any"`, `"codesign"` or `"timestamping"` (see `guomi.cms.verify`).

    Returns:
        tuple[bytes, list[Certificate], str]: content, signer certificates, OID
        style (`"rfc"` or `"gm"`).

    Raises:
        InvalidSignature: a signature, messageDigest or contentType attribute does not
            verify, there is no signer, or a content type other than data is not
            covered by signed attributes.
        UnsupportedFormat: malformed or unsupported structure (digest not SM3, ...).
        InvalidArgument: content given for an attached SignedData or missing for a
            detached one, or an unknown purpose.
        CertificateVerificationError: a signer certificate is missing, does not allow
            the purpose (keyUsage, extKeyUsage) or does not chain.

    Example:
        >>> from guomi import sm2, x509
        >>> from guomi._native.cms import sign, verify
        >>> key = sm2.PrivateKey.generate()
        >>> cert = x509.CertificateBuilder(subject="CN=a").self_sign(key)
        >>> der = sign(b"hi", [(key.to_bytes(), cert, True, "sm2-with-sm3",
        ...     "issuer_and_serial")], [], False, "rfc", None, "der")
        >>> verify(der, None, [], [], 0)[0]
        b'hi'
    """

def encrypt(
    content: BytesLike,
    recipients: Sequence[Certificate],
    cipher: str,
    oid_style: str,
    key_format: str,
    key_oid: str,
    identifier: str,
    format: str,
) -> bytes:
    """Encrypts to SM2 recipient certificates (used by `guomi.cms.encrypt`).

    Args:
        content: the plaintext.
        recipients: 1 to 64 `Certificate`s.
        cipher: `"sm4-cbc"` or `"sm4-gcm"`.
        oid_style: `"rfc"` or `"gm"`.
        key_format: `"der"` (GM/T 0009 SM2Cipher) or `"c1c3c2"` (raw, BouncyCastle's).
        key_oid: the key-transport OID, `"1.2.156.10197.1.301.3"` or
            `"1.2.156.10197.1.301.3.2.1"`.
        identifier: `"issuer_and_serial"` or `"subject_key_identifier"`.
        format: `"der"` or `"pem"`.

    Returns:
        bytes: the EnvelopedData ContentInfo.

    Raises:
        InvalidArgument: a bad option, no or too many recipients, or a recipient
            certificate whose keyUsage lacks keyEncipherment.
        InvalidKey: a recipient certificate without a valid SM2 key.

    Example:
        >>> from guomi import sm2, x509
        >>> from guomi._native.cms import encrypt, decrypt
        >>> key = sm2.PrivateKey.generate()
        >>> cert = x509.CertificateBuilder(subject="CN=a").self_sign(key)
        >>> der = encrypt(b"hi", [cert], "sm4-cbc", "rfc", "der",
        ...     "1.2.156.10197.1.301.3.2.1", "issuer_and_serial", "der")
        >>> decrypt(der, key.to_bytes(), None)
        b'hi'
    """

def decrypt(data: BytesLike, key: BytesLike, certificate: Optional[Certificate]) -> bytes:
    """Decrypts an EnvelopedData (DER, BER or PEM; used by `guomi.cms.decrypt`).

    Args:
        data: the EnvelopedData.
        key: the recipient's private key d (32 bytes).
        certificate: the recipient's `Certificate` (selects its recipient info), or
            `None` to try every SM2 recipient info.

    Returns:
        bytes: the content.

    Raises:
        DecryptionError: any failure once the structure is parsed (wrong key, no
            matching recipient, bad padding or tag, tampered ciphertext).
        UnsupportedFormat: malformed or unsupported structure.
        InvalidKey: an invalid key, or a certificate that is not the key's.
        InvalidArgument: a certificate whose keyUsage lacks keyEncipherment.

    Example:
        >>> from guomi import sm2, x509
        >>> from guomi._native.cms import encrypt, decrypt
        >>> key = sm2.PrivateKey.generate()
        >>> cert = x509.CertificateBuilder(subject="CN=a").self_sign(key)
        >>> der = encrypt(b"hi", [cert], "sm4-gcm", "gm", "der",
        ...     "1.2.156.10197.1.301.3", "issuer_and_serial", "pem")
        >>> decrypt(der, key.to_bytes(), cert)
        b'hi'
    """
