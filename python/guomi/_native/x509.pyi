"""SM2 X.509 certificates, certification paths, PKCS#10 requests and protected
private keys (see `guomi.x509` and `guomi.keys`).
"""

from collections.abc import Sequence
from typing import Optional, Union, final

from guomi._typing import BytesLike

__all__ = [
    "NativeCertificate",
    "NativeCertificateRequest",
    "NativeCrl",
    "verify_chain",
    "build_certificate",
    "build_request",
    "build_crl",
    "DEFAULT_ITERATIONS",
    "MAX_ITERATIONS",
    "MAX_PATH_LEN",
    "MAX_CERTIFICATES",
    "MAX_SIGNATURE_CHECKS",
    "MAX_CANDIDATE_STEPS",
    "MAX_CRLS",
]

DEFAULT_ITERATIONS: int
MAX_ITERATIONS: int
MAX_PATH_LEN: int
MAX_CERTIFICATES: int
MAX_SIGNATURE_CHECKS: int
MAX_CANDIDATE_STEPS: int
MAX_CRLS: int

@final
class NativeCertificate:
    """An X.509 certificate as parsed by the core (immutable, compared by DER, hashable).
    `guomi.x509.Certificate` wraps it with `datetime` and dataclass views; use that.

    There is no constructor: use `from_der`, `from_pem` or `all_from_pem`.

    Example:
        >>> from guomi import sm2, x509
        >>> from guomi._native.x509 import NativeCertificate
        >>> key = sm2.PrivateKey.generate()
        >>> der = x509.CertificateBuilder(subject="CN=a").self_sign(key).to_der()
        >>> c = NativeCertificate.from_der(der)
        >>> c.subject
        'CN=a'
    """
    @staticmethod
    def from_der(der: BytesLike) -> NativeCertificate:
        """Parses a DER certificate (strict: trailing bytes or unknown outer fields are refused).

        Args:
            der: bytes-like DER.

        Returns:
            NativeCertificate: the certificate.

        Raises:
            UnsupportedFormat: malformed DER.

        Example:
            >>> from guomi import sm2, x509
            >>> from guomi._native.x509 import NativeCertificate
            >>> key = sm2.PrivateKey.generate()
            >>> der = x509.CertificateBuilder(subject="CN=a").self_sign(key).to_der()
            >>> c = NativeCertificate.from_der(der)
            >>> NativeCertificate.from_der(der) == c
            True
        """
    @staticmethod
    def from_pem(pem: Union[str, bytes]) -> NativeCertificate:
        """Parses the first `CERTIFICATE` (or `X509 CERTIFICATE`) block of PEM text.

        Args:
            pem: `str` or `bytes` (ASCII).

        Returns:
            NativeCertificate: the certificate.

        Raises:
            UnsupportedFormat: no certificate block, bad base64 or malformed DER.
            TypeError: `pem` is neither `str` nor bytes.

        Example:
            >>> from guomi import sm2, x509
            >>> from guomi._native.x509 import NativeCertificate
            >>> key = sm2.PrivateKey.generate()
            >>> der = x509.CertificateBuilder(subject="CN=a").self_sign(key).to_der()
            >>> c = NativeCertificate.from_der(der)
            >>> NativeCertificate.from_pem(c.to_pem()) == c
            True
        """
    @staticmethod
    def all_from_pem(pem: Union[str, bytes]) -> list[NativeCertificate]:
        """Parses every `CERTIFICATE` block of a PEM bundle, in order (other blocks are skipped).

        Args:
            pem: `str` or `bytes` (ASCII).

        Returns:
            list[NativeCertificate]: the certificates (empty when there are none).

        Raises:
            UnsupportedFormat: bad base64 or malformed DER in a certificate block.
            TypeError: `pem` is neither `str` nor bytes.

        Example:
            >>> from guomi import sm2, x509
            >>> from guomi._native.x509 import NativeCertificate
            >>> key = sm2.PrivateKey.generate()
            >>> der = x509.CertificateBuilder(subject="CN=a").self_sign(key).to_der()
            >>> c = NativeCertificate.from_der(der)
            >>> len(NativeCertificate.all_from_pem(c.to_pem() * 2))
            2
        """
    def to_der(self) -> bytes:
        """The DER encoding, exactly as parsed or built.

        Returns:
            bytes: the DER.

        Example:
            >>> from guomi import sm2, x509
            >>> from guomi._native.x509 import NativeCertificate
            >>> key = sm2.PrivateKey.generate()
            >>> der = x509.CertificateBuilder(subject="CN=a").self_sign(key).to_der()
            >>> c = NativeCertificate.from_der(der)
            >>> c.to_der() == der
            True
        """
    def to_pem(self) -> str:
        """The certificate as a PEM `CERTIFICATE` block.

        Returns:
            str: the PEM text.

        Example:
            >>> from guomi import sm2, x509
            >>> from guomi._native.x509 import NativeCertificate
            >>> key = sm2.PrivateKey.generate()
            >>> der = x509.CertificateBuilder(subject="CN=a").self_sign(key).to_der()
            >>> c = NativeCertificate.from_der(der)
            >>> c.to_pem().splitlines()[0]
            '-----BEGIN CERTIFICATE-----'
        """
    @property
    def version(self) -> int:
        """The X.509 version: 1, 2 or 3.

        Example:
            >>> from guomi import sm2, x509
            >>> from guomi._native.x509 import NativeCertificate
            >>> key = sm2.PrivateKey.generate()
            >>> der = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key).to_der()
            >>> c = NativeCertificate.from_der(der)
            >>> c.version
            3
        """
    @property
    def serial(self) -> bytes:
        r"""The serial number as its DER INTEGER content bytes (two's complement, big-endian).

        Example:
            >>> from guomi import sm2, x509
            >>> from guomi._native.x509 import NativeCertificate
            >>> key = sm2.PrivateKey.generate()
            >>> der = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key).to_der()
            >>> c = NativeCertificate.from_der(der)
            >>> c.serial
            b'\x05'
        """
    @property
    def subject(self) -> str:
        """The subject name as an RFC 4514 string, most specific first (`"CN=leaf,O=Example"`).

        Example:
            >>> from guomi import sm2, x509
            >>> from guomi._native.x509 import NativeCertificate
            >>> key = sm2.PrivateKey.generate()
            >>> der = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key).to_der()
            >>> c = NativeCertificate.from_der(der)
            >>> c.subject
            'CN=a'
        """
    @property
    def issuer(self) -> str:
        """The issuer name as an RFC 4514 string.

        Example:
            >>> from guomi import sm2, x509
            >>> from guomi._native.x509 import NativeCertificate
            >>> key = sm2.PrivateKey.generate()
            >>> der = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key).to_der()
            >>> c = NativeCertificate.from_der(der)
            >>> c.issuer
            'CN=a'
        """
    @property
    def subject_der(self) -> bytes:
        """The subject name as DER (the `Name` structure).

        Example:
            >>> from guomi import sm2, x509
            >>> from guomi._native.x509 import NativeCertificate
            >>> key = sm2.PrivateKey.generate()
            >>> der = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key).to_der()
            >>> c = NativeCertificate.from_der(der)
            >>> c.subject_der == c.issuer_der
            True
        """
    @property
    def issuer_der(self) -> bytes:
        """The issuer name as DER (the `Name` structure).

        Example:
            >>> from guomi import sm2, x509
            >>> from guomi._native.x509 import NativeCertificate
            >>> key = sm2.PrivateKey.generate()
            >>> der = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key).to_der()
            >>> c = NativeCertificate.from_der(der)
            >>> c.issuer_der[0]
            48
        """
    @property
    def not_before(self) -> int:
        """Start of the validity period, in Unix seconds (UTC).

        Example:
            >>> from guomi import sm2, x509
            >>> from guomi._native.x509 import NativeCertificate
            >>> key = sm2.PrivateKey.generate()
            >>> der = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key).to_der()
            >>> c = NativeCertificate.from_der(der)
            >>> c.not_before < c.not_after
            True
        """
    @property
    def not_after(self) -> int:
        """End of the validity period, in Unix seconds (UTC).

        Example:
            >>> from guomi import sm2, x509
            >>> from guomi._native.x509 import NativeCertificate
            >>> key = sm2.PrivateKey.generate()
            >>> der = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key).to_der()
            >>> c = NativeCertificate.from_der(der)
            >>> (c.not_after - c.not_before) // 86400
            365
        """
    @property
    def signature_algorithm(self) -> str:
        """The signature algorithm OID, dotted (`"1.2.156.10197.1.501"` for SM2-with-SM3).

        Example:
            >>> from guomi import sm2, x509
            >>> from guomi._native.x509 import NativeCertificate
            >>> key = sm2.PrivateKey.generate()
            >>> der = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key).to_der()
            >>> c = NativeCertificate.from_der(der)
            >>> c.signature_algorithm
            '1.2.156.10197.1.501'
        """
    @property
    def signature(self) -> bytes:
        """The signature value (DER `SEQUENCE { r, s }` for SM2).

        Example:
            >>> from guomi import sm2, x509
            >>> from guomi._native.x509 import NativeCertificate
            >>> key = sm2.PrivateKey.generate()
            >>> der = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key).to_der()
            >>> c = NativeCertificate.from_der(der)
            >>> key.public_key().verify(c.signature, c.tbs_der)
            True
        """
    @property
    def tbs_der(self) -> bytes:
        """The signed part of the certificate (TBSCertificate DER).

        Example:
            >>> from guomi import sm2, x509
            >>> from guomi._native.x509 import NativeCertificate
            >>> key = sm2.PrivateKey.generate()
            >>> der = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key).to_der()
            >>> c = NativeCertificate.from_der(der)
            >>> c.tbs_der[0]
            48
        """
    @property
    def is_self_issued(self) -> bool:
        """Whether the subject and issuer names are equal.

        Example:
            >>> from guomi import sm2, x509
            >>> from guomi._native.x509 import NativeCertificate
            >>> key = sm2.PrivateKey.generate()
            >>> der = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key).to_der()
            >>> c = NativeCertificate.from_der(der)
            >>> c.is_self_issued
            True
        """
    def public_key_bytes(self) -> bytes:
        """The subject's SM2 public key as 65 bytes `04 || x || y`.

        Returns:
            bytes: the point.

        Raises:
            UnsupportedFormat: the key is not an SM2 key.
            InvalidKey: the point is not on the curve.

        Example:
            >>> from guomi import sm2, x509
            >>> from guomi._native.x509 import NativeCertificate
            >>> key = sm2.PrivateKey.generate()
            >>> der = x509.CertificateBuilder(subject="CN=a").self_sign(key).to_der()
            >>> c = NativeCertificate.from_der(der)
            >>> c.public_key_bytes() == key.public_key().to_bytes()
            True
        """
    def fingerprint_sm3(self) -> bytes:
        """SM3 of the DER certificate.

        Returns:
            bytes: 32 bytes.

        Example:
            >>> from guomi import sm2, x509
            >>> from guomi._native.x509 import NativeCertificate
            >>> key = sm2.PrivateKey.generate()
            >>> der = x509.CertificateBuilder(subject="CN=a").self_sign(key).to_der()
            >>> c = NativeCertificate.from_der(der)
            >>> len(c.fingerprint_sm3())
            32
        """
    def extensions(self) -> list[tuple[str, bool, bytes]]:
        """Every extension, in order, undecoded.

        Returns:
            list[tuple[str, bool, bytes]]: `(oid, critical, value)` with the dotted OID and
            the extnValue DER.

        Example:
            >>> from guomi import sm2, x509
            >>> from guomi._native.x509 import NativeCertificate
            >>> key = sm2.PrivateKey.generate()
            >>> der = x509.CertificateBuilder(subject="CN=a").self_sign(key).to_der()
            >>> c = NativeCertificate.from_der(der)
            >>> '2.5.29.19' in [oid for oid, _, _ in c.extensions()]
            True
        """
    def basic_constraints(self) -> Optional[tuple[bool, Optional[int]]]:
        """The basicConstraints extension (RFC 5280 §4.2.1.9).

        Returns:
            tuple[bool, int | None] | None: `(ca, path_length)`, or `None` without the
            extension.

        Raises:
            UnsupportedFormat: the extension is malformed.

        Example:
            >>> from guomi import sm2, x509
            >>> from guomi._native.x509 import NativeCertificate
            >>> key = sm2.PrivateKey.generate()
            >>> der = x509.CertificateBuilder(subject="CN=a").self_sign(key).to_der()
            >>> c = NativeCertificate.from_der(der)
            >>> c.basic_constraints()
            (False, None)
        """
    def key_usage(self) -> Optional[list[str]]:
        """The keyUsage extension as bit names (`"digitalSignature"`, `"keyCertSign"`, ...).

        Returns:
            list[str] | None: the names of the bits set, or `None` without the extension.

        Raises:
            UnsupportedFormat: the extension is malformed.

        Example:
            >>> from guomi import sm2, x509
            >>> from guomi._native.x509 import NativeCertificate
            >>> key = sm2.PrivateKey.generate()
            >>> der = x509.CertificateBuilder(subject="CN=a").self_sign(key).to_der()
            >>> c = NativeCertificate.from_der(der)
            >>> c.key_usage()
            ['digitalSignature', 'keyEncipherment']
        """
    def extended_key_usage(self) -> Optional[list[str]]:
        """The extKeyUsage extension: short names (`"serverAuth"`, `"clientAuth"`,
        `"codeSigning"`, `"emailProtection"`, `"timeStamping"`, `"OCSPSigning"`,
        `"anyExtendedKeyUsage"`) or dotted OIDs for others.

        Returns:
            list[str] | None: the usages, or `None` without the extension.

        Raises:
            UnsupportedFormat: the extension is malformed.

        Example:
            >>> from guomi import sm2, x509
            >>> from guomi._native.x509 import NativeCertificate
            >>> key = sm2.PrivateKey.generate()
            >>> der = x509.CertificateBuilder(subject="CN=a").self_sign(key).to_der()
            >>> c = NativeCertificate.from_der(der)
            >>> c.extended_key_usage() is None
            True
        """
    def subject_alt_names(self) -> Optional[list[tuple[str, Union[str, bytes]]]]:
        """The subjectAltName extension.

        Returns:
            list[tuple[str, str | bytes]] | None: `(kind, value)` pairs, kind `"dns"`,
            `"email"`, `"uri"`, `"dirname"` or `"rid"` with a `str`, or `"ip"` (4 or 16
            bytes) or `"other"` (DER) with `bytes`; `None` without the extension.

        Raises:
            UnsupportedFormat: the extension is malformed.

        Example:
            >>> from guomi import sm2, x509
            >>> from guomi._native.x509 import NativeCertificate
            >>> key = sm2.PrivateKey.generate()
            >>> der = x509.CertificateBuilder(subject="CN=a").self_sign(key).to_der()
            >>> c = NativeCertificate.from_der(der)
            >>> c.subject_alt_names() is None
            True
        """
    def subject_key_id(self) -> Optional[bytes]:
        """The subjectKeyIdentifier extension.

        Returns:
            bytes | None: the key identifier, or `None` without the extension.

        Raises:
            UnsupportedFormat: the extension is malformed.

        Example:
            >>> from guomi import sm2, x509
            >>> from guomi._native.x509 import NativeCertificate
            >>> key = sm2.PrivateKey.generate()
            >>> der = x509.CertificateBuilder(subject="CN=a").self_sign(key).to_der()
            >>> c = NativeCertificate.from_der(der)
            >>> len(c.subject_key_id())
            20
        """
    def authority_key_id(self) -> Optional[bytes]:
        """The keyIdentifier of the authorityKeyIdentifier extension.

        Returns:
            bytes | None: the key identifier, or `None` without it.

        Raises:
            UnsupportedFormat: the extension is malformed.

        Example:
            >>> from guomi import sm2, x509
            >>> from guomi._native.x509 import NativeCertificate
            >>> key = sm2.PrivateKey.generate()
            >>> der = x509.CertificateBuilder(subject="CN=a").self_sign(key).to_der()
            >>> c = NativeCertificate.from_der(der)
            >>> c.authority_key_id() == c.subject_key_id()
            True
        """
    def verify_signature(self, issuer: NativeCertificate) -> None:
        """Checks that `issuer` signed this certificate (SM2-with-SM3, default signer ID).

        Args:
            issuer: the issuing `NativeCertificate`; its subject must equal this
                certificate's issuer.

        Raises:
            InvalidSignature: the names differ or the signature does not verify.
            UnsupportedFormat: an unsupported signature algorithm or issuer key.

        Example:
            >>> from guomi import sm2, x509
            >>> from guomi._native.x509 import NativeCertificate
            >>> key = sm2.PrivateKey.generate()
            >>> der = x509.CertificateBuilder(subject="CN=a").self_sign(key).to_der()
            >>> c = NativeCertificate.from_der(der)
            >>> c.verify_signature(c)
        """
    def verify_signature_with_key(self, key: BytesLike) -> None:
        """Checks this certificate's signature with a bare SM2 public key.

        Args:
            key: bytes-like point: 65 bytes `04 || x || y`, 64 bytes `x || y` or 33 bytes
                compressed.

        Raises:
            InvalidSignature: the signature does not verify.
            InvalidLength, UnsupportedFormat, InvalidKey: `key` is not a valid point.

        Example:
            >>> from guomi import sm2, x509
            >>> from guomi._native.x509 import NativeCertificate
            >>> key = sm2.PrivateKey.generate()
            >>> der = x509.CertificateBuilder(subject="CN=a").self_sign(key).to_der()
            >>> c = NativeCertificate.from_der(der)
            >>> c.verify_signature_with_key(key.public_key().to_bytes())
        """

@final
class NativeCrl:
    """A certificate revocation list as parsed by the core (immutable).
    `guomi.x509.CertificateRevocationList` wraps it; use that.

    There is no constructor: use `from_der`, `from_pem` or `all_from_pem`.

    Example:
        >>> from guomi import sm2, x509
        >>> from guomi._native.x509 import NativeCrl
        >>> key = sm2.PrivateKey.generate()
        >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
        >>> der = x509.CRLBuilder().sign(ca, key).to_der()
        >>> NativeCrl.from_der(der).issuer
        'CN=ca'
    """
    @staticmethod
    def from_der(der: BytesLike) -> NativeCrl:
        """Parses a DER CRL (v1 or v2).

        Args:
            der: bytes-like DER.

        Returns:
            NativeCrl: the CRL.

        Raises:
            UnsupportedFormat: malformed DER.

        Example:
            >>> from guomi._native.x509 import NativeCrl
            >>> NativeCrl.from_der(b"0")
            Traceback (most recent call last):
            ...
            guomi.exceptions.UnsupportedFormat: malformed DER
        """
    @staticmethod
    def from_pem(pem: Union[str, bytes]) -> NativeCrl:
        """Parses the first `X509 CRL` block of PEM text.

        Args:
            pem: `str` or `bytes` (ASCII).

        Returns:
            NativeCrl: the CRL.

        Raises:
            UnsupportedFormat: no CRL block, bad base64 or malformed DER.
            TypeError: `pem` is neither `str` nor bytes.

        Example:
            >>> from guomi import sm2, x509
            >>> from guomi._native.x509 import NativeCrl
            >>> key = sm2.PrivateKey.generate()
            >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
            >>> pem = x509.CRLBuilder().sign(ca, key).to_pem()
            >>> NativeCrl.from_pem(pem).version
            2
        """
    @staticmethod
    def all_from_pem(pem: Union[str, bytes]) -> list[NativeCrl]:
        """Every `X509 CRL` block of PEM text, in order.

        Args:
            pem: `str` or `bytes` (ASCII).

        Returns:
            list[NativeCrl]: the CRLs (empty when there is none).

        Raises:
            UnsupportedFormat: bad base64 or malformed DER in a CRL block.
            TypeError: `pem` is neither `str` nor bytes.

        Example:
            >>> from guomi._native.x509 import NativeCrl
            >>> NativeCrl.all_from_pem("")
            []
        """
    def to_der(self) -> bytes:
        """The DER encoding, exactly as parsed or built.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
            >>> x509.CRLBuilder().sign(ca, key)._n.to_der()[:1]
            b'0'
        """
    def to_pem(self) -> str:
        """PEM text (label `X509 CRL`).

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
            >>> x509.CRLBuilder().sign(ca, key)._n.to_pem().splitlines()[0]
            '-----BEGIN X509 CRL-----'
        """
    @property
    def version(self) -> int:
        """1 (no version field) or 2.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
            >>> n = x509.CRLBuilder(crl_number=3).revoke(9, reason="superseded").sign(ca, key)._n
            >>> n.version
            2
        """
    @property
    def issuer(self) -> str:
        """The issuer name, RFC 4514.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
            >>> n = x509.CRLBuilder(crl_number=3).revoke(9, reason="superseded").sign(ca, key)._n
            >>> n.issuer
            'CN=ca'
        """
    def issuer_der(self) -> bytes:
        """The issuer name as DER (the `Name` structure).

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
            >>> n = x509.CRLBuilder(crl_number=3).revoke(9, reason="superseded").sign(ca, key)._n
            >>> n.issuer_der() == ca.subject_der
            True
        """
    @property
    def this_update(self) -> int:
        """thisUpdate, Unix seconds.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
            >>> n = x509.CRLBuilder(crl_number=3).revoke(9, reason="superseded").sign(ca, key)._n
            >>> n.this_update > 0
            True
        """
    @property
    def next_update(self) -> Optional[int]:
        """nextUpdate, Unix seconds, or `None`.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
            >>> n = x509.CRLBuilder(crl_number=3).revoke(9, reason="superseded").sign(ca, key)._n
            >>> n.next_update - n.this_update
            604800
        """
    @property
    def signature_algorithm(self) -> str:
        """The signature algorithm OID, dotted.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
            >>> n = x509.CRLBuilder(crl_number=3).revoke(9, reason="superseded").sign(ca, key)._n
            >>> n.signature_algorithm
            '1.2.156.10197.1.501'
        """
    def signature(self) -> bytes:
        """The signature value (DER `SEQUENCE { r, s }`).

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
            >>> n = x509.CRLBuilder(crl_number=3).revoke(9, reason="superseded").sign(ca, key)._n
            >>> n.signature()[0]
            48
        """
    def tbs_der(self) -> bytes:
        """The signed part (TBSCertList) exactly as encoded.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
            >>> n = x509.CRLBuilder(crl_number=3).revoke(9, reason="superseded").sign(ca, key)._n
            >>> key.public_key().verify(n.signature(), n.tbs_der())
            True
        """
    def crl_number(self) -> Optional[bytes]:
        r"""cRLNumber as big-endian bytes, or `None`.

        Raises:
            UnsupportedFormat: a malformed or repeated extension.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
            >>> n = x509.CRLBuilder(crl_number=3).revoke(9, reason="superseded").sign(ca, key)._n
            >>> n.crl_number()
            b'\x03'
        """
    def authority_key_id(self) -> Optional[bytes]:
        """authorityKeyIdentifier keyIdentifier, or `None`.

        Raises:
            UnsupportedFormat: a malformed or repeated extension.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
            >>> n = x509.CRLBuilder(crl_number=3).revoke(9, reason="superseded").sign(ca, key)._n
            >>> n.authority_key_id() == ca.subject_key_identifier
            True
        """
    def extensions(self) -> list[tuple[str, bool, bytes]]:
        """Every CRL extension as `(oid, critical, value)`.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
            >>> n = x509.CRLBuilder(crl_number=3).revoke(9, reason="superseded").sign(ca, key)._n
            >>> [o for o, _, _ in n.extensions()]
            ['2.5.29.20', '2.5.29.35']
        """
    def revoked(self) -> list[tuple[bytes, int, Optional[str], Optional[int]]]:
        r"""The revoked entries as `(serial, revocation_date, reason, invalidity_date)`:
        serial as INTEGER content bytes, dates in Unix seconds, reason a name or `None`.

        Raises:
            UnsupportedFormat: a malformed or repeated entry extension.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
            >>> n = x509.CRLBuilder(crl_number=3).revoke(9, reason="superseded").sign(ca, key)._n
            >>> [(s, r) for s, _, r, _ in n.revoked()]
            [(b'\t', 'superseded')]
        """
    def verify_signature(self, issuer: NativeCertificate) -> None:
        """Checks the CRL's signature against the issuing CA certificate (name, cRLSign,
        SM2-with-SM3 signature).

        Raises:
            InvalidSignature: wrong issuer or the signature does not verify.
            InvalidArgument: the certificate's keyUsage lacks cRLSign.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
            >>> n = x509.CRLBuilder(crl_number=3).revoke(9, reason="superseded").sign(ca, key)._n
            >>> n.verify_signature(ca._n)
        """
    def verify_signature_with_key(self, key: BytesLike) -> None:
        """Checks the CRL's signature with a bare SM2 public key (65/64/33 bytes).

        Raises:
            InvalidSignature: the signature does not verify.
            InvalidLength, UnsupportedFormat, InvalidKey: `key` is not a valid point.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
            >>> n = x509.CRLBuilder(crl_number=3).revoke(9, reason="superseded").sign(ca, key)._n
            >>> n.verify_signature_with_key(key.public_key().to_bytes())
        """
    def __eq__(self, value: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class NativeCertificateRequest:
    """A PKCS#10 certification request as parsed by the core (immutable).
    `guomi.x509.CertificateSigningRequest` wraps it; use that.

    There is no constructor: use `from_der` or `from_pem`.

    Example:
        >>> from guomi import sm2, x509
        >>> from guomi._native.x509 import NativeCertificateRequest
        >>> key = sm2.PrivateKey.generate()
        >>> der = x509.CertificateSigningRequestBuilder(subject="CN=a").sign(key).to_der()
        >>> NativeCertificateRequest.from_der(der).subject
        'CN=a'
    """
    @staticmethod
    def from_der(der: BytesLike) -> NativeCertificateRequest:
        """Parses a DER request (strict).

        Args:
            der: bytes-like DER.

        Returns:
            NativeCertificateRequest: the request.

        Raises:
            UnsupportedFormat: malformed DER.

        Example:
            >>> from guomi import sm2, x509
            >>> from guomi._native.x509 import NativeCertificateRequest
            >>> key = sm2.PrivateKey.generate()
            >>> b = x509.CertificateSigningRequestBuilder("CN=a", ["dns:a"])
            >>> r = NativeCertificateRequest.from_der(b.sign(key).to_der())
            >>> r.subject
            'CN=a'
        """
    @staticmethod
    def from_pem(pem: Union[str, bytes]) -> NativeCertificateRequest:
        """Parses the first `CERTIFICATE REQUEST` block of PEM text.

        Args:
            pem: `str` or `bytes` (ASCII).

        Returns:
            NativeCertificateRequest: the request.

        Raises:
            UnsupportedFormat: no request block, bad base64 or malformed DER.
            TypeError: `pem` is neither `str` nor bytes.

        Example:
            >>> from guomi import sm2, x509
            >>> from guomi._native.x509 import NativeCertificateRequest
            >>> key = sm2.PrivateKey.generate()
            >>> b = x509.CertificateSigningRequestBuilder("CN=a", ["dns:a"])
            >>> r = NativeCertificateRequest.from_der(b.sign(key).to_der())
            >>> NativeCertificateRequest.from_pem(r.to_pem()).subject
            'CN=a'
        """
    def to_der(self) -> bytes:
        """The DER encoding.

        Returns:
            bytes: the DER.

        Example:
            >>> from guomi import sm2, x509
            >>> from guomi._native.x509 import NativeCertificateRequest
            >>> key = sm2.PrivateKey.generate()
            >>> b = x509.CertificateSigningRequestBuilder("CN=a", ["dns:a"])
            >>> r = NativeCertificateRequest.from_der(b.sign(key).to_der())
            >>> NativeCertificateRequest.from_der(r.to_der()).subject
            'CN=a'
        """
    def to_pem(self) -> str:
        """The request as a PEM `CERTIFICATE REQUEST` block.

        Returns:
            str: the PEM text.

        Example:
            >>> from guomi import sm2, x509
            >>> from guomi._native.x509 import NativeCertificateRequest
            >>> key = sm2.PrivateKey.generate()
            >>> b = x509.CertificateSigningRequestBuilder("CN=a", ["dns:a"])
            >>> r = NativeCertificateRequest.from_der(b.sign(key).to_der())
            >>> r.to_pem().splitlines()[0]
            '-----BEGIN CERTIFICATE REQUEST-----'
        """
    @property
    def subject(self) -> str:
        """The requested subject as an RFC 4514 string.

        Example:
            >>> from guomi import sm2, x509
            >>> from guomi._native.x509 import NativeCertificateRequest
            >>> key = sm2.PrivateKey.generate()
            >>> b = x509.CertificateSigningRequestBuilder("CN=a", ["dns:a"])
            >>> r = NativeCertificateRequest.from_der(b.sign(key).to_der())
            >>> r.subject
            'CN=a'
        """
    @property
    def signature_algorithm(self) -> str:
        """The signature algorithm OID, dotted.

        Example:
            >>> from guomi import sm2, x509
            >>> from guomi._native.x509 import NativeCertificateRequest
            >>> key = sm2.PrivateKey.generate()
            >>> b = x509.CertificateSigningRequestBuilder("CN=a", ["dns:a"])
            >>> r = NativeCertificateRequest.from_der(b.sign(key).to_der())
            >>> r.signature_algorithm
            '1.2.156.10197.1.501'
        """
    def public_key_bytes(self) -> bytes:
        """The requested SM2 public key as 65 bytes `04 || x || y`.

        Returns:
            bytes: the point.

        Raises:
            UnsupportedFormat: not an SM2 key.
            InvalidKey: the point is not on the curve.

        Example:
            >>> from guomi import sm2, x509
            >>> from guomi._native.x509 import NativeCertificateRequest
            >>> key = sm2.PrivateKey.generate()
            >>> b = x509.CertificateSigningRequestBuilder("CN=a", ["dns:a"])
            >>> r = NativeCertificateRequest.from_der(b.sign(key).to_der())
            >>> r.public_key_bytes() == key.public_key().to_bytes()
            True
        """
    def subject_alt_names(self) -> list[tuple[str, Union[str, bytes]]]:
        """The subject alternative names of the extensionRequest attribute.

        Returns:
            list[tuple[str, str | bytes]]: `(kind, value)` pairs as
            `NativeCertificate.subject_alt_names` (empty when none are requested).

        Raises:
            UnsupportedFormat: the attribute is malformed.

        Example:
            >>> from guomi import sm2, x509
            >>> from guomi._native.x509 import NativeCertificateRequest
            >>> key = sm2.PrivateKey.generate()
            >>> b = x509.CertificateSigningRequestBuilder("CN=a", ["dns:a"])
            >>> r = NativeCertificateRequest.from_der(b.sign(key).to_der())
            >>> r.subject_alt_names()
            [('dns', 'a')]
        """
    def verify(self) -> None:
        """Checks the request's self-signature.

        Raises:
            InvalidSignature: the signature does not verify.

        Example:
            >>> from guomi import sm2, x509
            >>> from guomi._native.x509 import NativeCertificateRequest
            >>> key = sm2.PrivateKey.generate()
            >>> b = x509.CertificateSigningRequestBuilder("CN=a", ["dns:a"])
            >>> r = NativeCertificateRequest.from_der(b.sign(key).to_der())
            >>> r.verify()
        """

def verify_chain(
    leaf: NativeCertificate,
    intermediates: Sequence[NativeCertificate],
    roots: Sequence[NativeCertificate],
    at: int,
    purpose: Optional[str] = None,
    crls: Optional[Sequence[NativeCrl]] = None,
    require_crls: bool = False,
) -> list[NativeCertificate]:
    """Validates a certification path from `leaf` to one of `roots` (RFC 5280 §6 subset) and
    returns it, leaf first, trust root last.

    Checked: each signature (SM2-with-SM3), issuer name = next subject, validity at `at`,
    no unknown critical extension; on issuers basicConstraints cA, pathLenConstraint and
    keyUsage keyCertSign; with `purpose`, the leaf's extKeyUsage (when present); with
    `crls`, revocation of every certificate below the root (base CRLs from its issuer on
    the path, which must verify, be current and allow cRLSign). The work is bounded: at
    most `MAX_PATH_LEN` (16) certificates on a path, `MAX_CERTIFICATES` (1024)
    intermediates and roots together, `MAX_CRLS` (256) CRLs, `MAX_SIGNATURE_CHECKS` (100)
    signature checks (CRLs included) and `MAX_CANDIDATE_STEPS` (4096) candidates per call.

    Args:
        leaf: the end-entity `NativeCertificate`.
        intermediates: candidate intermediate certificates, any order.
        roots: trusted certificates.
        at: the time to check validity at, Unix seconds.
        purpose: `None`, an extended key usage short name (`"serverAuth"`, ...) or a
            dotted OID.
        crls: `NativeCrl` objects to check revocation against, or `None`.
        require_crls: fail a certificate whose issuer has no CRL in `crls`.

    Returns:
        list[NativeCertificate]: the path.

    Raises:
        CertificateVerificationError: no valid path; `subject`, `reason` and `depth`
            (0 = leaf) name the failing certificate. Exceeding a bound gives this error
            for the leaf, with a reason that says so.
        InvalidArgument: an unknown `purpose`.

    Example:
        >>> import time
        >>> from guomi import sm2, x509
        >>> from guomi._native.x509 import NativeCertificate, verify_chain
        >>> key = sm2.PrivateKey.generate()
        >>> root = x509.CertificateBuilder(subject="CN=r").ca().self_sign(key).to_der()
        >>> r = NativeCertificate.from_der(root)
        >>> [c.subject for c in verify_chain(r, [], [r], int(time.time()))]
        ['CN=r']
    """

def build_certificate(
    *,
    subject: Optional[str],
    public_key: Optional[BytesLike],
    signing_key: BytesLike,
    issuer: Optional[NativeCertificate],
    serial: Optional[BytesLike],
    not_before: int,
    not_after: int,
    ca: bool,
    path_length: Optional[int],
    key_usage: list[str],
    extended_key_usage: list[str],
    subject_alt_names: list[tuple[str, object]],
    key_identifiers: bool,
    request: Optional[NativeCertificateRequest] = None,
) -> NativeCertificate:
    r"""Builds and signs an X.509 v3 certificate (used by `guomi.x509.CertificateBuilder`).

    Every argument is keyword-only and required except `request`.

    Args:
        subject: RFC 4514 (`"CN=a,O=b"`) or OpenSSL `"/O=b/CN=a"` name; `None` only with
            `request` (then the request's subject is used; a string overrides it).
        public_key: the subject's SM2 point (65/64/33 bytes), or `None` for the signing
            key's own public key; ignored with `request`.
        signing_key: the signer's d (32 bytes).
        issuer: the issuing CA certificate, or `None` to self-sign (the signing key must
            then belong to the subject's key).
        serial: serial number bytes (big-endian, positive), or `None` for a random
            127-bit one.
        not_before: start of validity, Unix seconds.
        not_after: end of validity, Unix seconds.
        ca: the basicConstraints cA flag.
        path_length: pathLenConstraint, 0 to 255, or `None`.
        key_usage: keyUsage bit names (empty omits the extension).
        extended_key_usage: short names or dotted OIDs (empty omits the extension).
        subject_alt_names: `(kind, value)` pairs, kind `"dns"`, `"email"`, `"uri"`,
            `"dirname"`, `"rid"` (str) or `"ip"` (4 or 16 bytes).
        key_identifiers: write subject and authority key identifiers.
        request: a `NativeCertificateRequest` giving the subject, key and (unless
            `subject_alt_names` is given) the names; its signature is checked.

    Returns:
        NativeCertificate: the signed certificate.

    Raises:
        InvalidArgument: a bad name, unknown usage or SAN kind, a validity ending before
            it starts, or a subject missing without a request.
        InvalidKey: `signing_key` or `public_key` is invalid, or the key does not match
            the issuer.
        InvalidSignature: the request's self-signature does not verify.
        OverflowError: `path_length` outside 0..255.

    Example:
        >>> from guomi import sm2
        >>> from guomi._native.x509 import build_certificate
        >>> key = sm2.PrivateKey.generate()
        >>> c = build_certificate(subject="CN=a", public_key=None, signing_key=key.to_bytes(),
        ...     issuer=None, serial=b"\x01", not_before=0, not_after=2**31, ca=False,
        ...     path_length=None, key_usage=[], extended_key_usage=[], subject_alt_names=[],
        ...     key_identifiers=False)
        >>> c.serial, c.subject
        (b'\x01', 'CN=a')
    """

def build_request(
    *, subject: str, signing_key: BytesLike, subject_alt_names: list[tuple[str, object]]
) -> NativeCertificateRequest:
    """Builds and signs a PKCS#10 request (used by
    `guomi.x509.CertificateSigningRequestBuilder`).

    Args:
        subject: RFC 4514 or OpenSSL `/`-separated name.
        signing_key: the requester's d (32 bytes); its public key is requested.
        subject_alt_names: `(kind, value)` pairs as in `build_certificate`.

    Returns:
        NativeCertificateRequest: the signed request.

    Raises:
        InvalidArgument: a bad name or SAN kind.
        InvalidKey: `signing_key` is invalid.

    Example:
        >>> from guomi import sm2
        >>> from guomi._native.x509 import build_request
        >>> key = sm2.PrivateKey.generate()
        >>> build_request(subject="CN=a", signing_key=key.to_bytes(), subject_alt_names=[]).subject
        'CN=a'
    """

def build_crl(
    *,
    issuer: NativeCertificate,
    signing_key: BytesLike,
    this_update: int,
    next_update: Optional[int],
    crl_number: BytesLike,
    revoked: Sequence[tuple[BytesLike, int, Optional[str]]],
) -> NativeCrl:
    r"""Builds and signs a v2 CRL (used by `guomi.x509.CRLBuilder`).

    Args:
        issuer: the issuing CA `NativeCertificate` (cRLSign when it has keyUsage).
        signing_key: the CA's d (32 bytes); it must match `issuer`.
        this_update: thisUpdate, Unix seconds.
        next_update: nextUpdate, Unix seconds, or `None`.
        crl_number: cRLNumber, big-endian bytes (at most 20; empty means 0).
        revoked: `(serial, date, reason)` triples: serial big-endian positive bytes (at
            most 20), date Unix seconds, reason a name (`"keyCompromise"`, ...) or `None`.

    Returns:
        NativeCrl: the signed CRL.

    Raises:
        InvalidArgument: an unknown reason, a bad serial or number, next before this
            update, more than 1048576 entries, or an issuer without cRLSign.
        InvalidKey: `signing_key` does not match `issuer`.

    Example:
        >>> from guomi import sm2, x509
        >>> from guomi._native.x509 import build_crl
        >>> key = sm2.PrivateKey.generate()
        >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
        >>> crl = build_crl(issuer=ca._n, signing_key=key.to_bytes(), this_update=0,
        ...     next_update=None, crl_number=b"\x05", revoked=[(b"\x07", 0, "superseded")])
        >>> crl.revoked()
        [(b'\x07', 0, 'superseded', None)]
    """
