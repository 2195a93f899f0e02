"""SM2 X.509 certificates, certification paths, PKCS#10 requests and protected
private keys (see `guomi.x509` and `guomi.keys`).
"""

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Optional, Union, final

from guomi._native.sm2 import PublicKey
from guomi._typing import BytesLike
from guomi.x509 import BasicConstraints, Extension, RevokedCertificate

__all__ = [
    "Certificate",
    "CertificateRevocationList",
    "CertificateSigningRequest",
    "load_pem_certificates",
    "load_pem_crls",
    "pem_blocks",
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
class Certificate:
    """An SM2 X.509 certificate (immutable, compared by its DER, hashable).

    There is no constructor: read one with `from_pem`, `from_der` or
    `load_pem_certificates`; make one with `CertificateBuilder`.

    Example:
        >>> from guomi import sm2, x509
        >>> key = sm2.PrivateKey.generate()
        >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
        >>> cert.subject, cert.serial_number, cert.version
        ('CN=a', 5, 3)
        >>> x509.Certificate.from_pem(cert.to_pem()) == cert
        True
    """
    @staticmethod
    def from_der(data: BytesLike) -> Certificate:
        """Reads a DER certificate (strict: trailing bytes or unknown outer fields are refused).

        Args:
            data: bytes-like DER.

        Returns:
            Certificate: the certificate.

        Raises:
            UnsupportedFormat: malformed DER.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
            >>> x509.Certificate.from_der(cert.to_der()) == cert
            True
        """
    @staticmethod
    def from_pem(data: Union[str, bytes]) -> Certificate:
        """Reads the first `CERTIFICATE` (or `X509 CERTIFICATE`) block of PEM text.

        Args:
            data: PEM, `str` or `bytes` (other blocks before it are skipped).

        Returns:
            Certificate: the certificate.

        Raises:
            UnsupportedFormat: no certificate block, bad base64 or malformed DER (strict).
            TypeError: `data` is neither `str` nor bytes.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
            >>> x509.Certificate.from_pem(cert.to_pem()) == cert
            True
        """
    def to_der(self) -> bytes:
        """The DER encoding, exactly as read or built.

        Returns:
            bytes: the DER.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
            >>> cert.to_der()[0]
            48
        """
    def to_pem(self) -> str:
        """The certificate as a PEM `CERTIFICATE` block.

        Returns:
            str: the PEM text.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
            >>> cert.to_pem().splitlines()[0]
            '-----BEGIN CERTIFICATE-----'
        """
    @property
    def version(self) -> int:
        """The X.509 version: 1, 2 or 3 (certificates guomi builds are 3).

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
            >>> cert.version
            3
        """
    @property
    def serial_number(self) -> int:
        """The serial number (an `int`; negative only in non-conforming certificates).

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
            >>> cert.serial_number
            5
        """
    @property
    def subject(self) -> str:
        """The subject name as an RFC 4514 string, most specific first (`"CN=leaf,O=Example"`).

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
            >>> cert.subject
            'CN=a'
        """
    @property
    def issuer(self) -> str:
        """The issuer name as an RFC 4514 string.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
            >>> cert.issuer
            'CN=a'
        """
    @property
    def subject_der(self) -> bytes:
        """The subject name as DER (the `Name` structure), for exact comparison.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
            >>> cert.subject_der[0]
            48
        """
    @property
    def issuer_der(self) -> bytes:
        """The issuer name as DER (the `Name` structure).

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
            >>> cert.issuer_der == cert.subject_der
            True
        """
    @property
    def not_valid_before(self) -> datetime:
        """Start of the validity period, an aware UTC `datetime`.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
            >>> cert.not_valid_before.tzinfo
            datetime.timezone.utc
        """
    @property
    def not_valid_after(self) -> datetime:
        """End of the validity period, an aware UTC `datetime`.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
            >>> (cert.not_valid_after - cert.not_valid_before).days
            365
        """
    @property
    def signature_algorithm_oid(self) -> str:
        """The signature algorithm OID, dotted (`SIGNATURE_ALGORITHM_OID` for SM2-with-SM3).

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
            >>> cert.signature_algorithm_oid
            '1.2.156.10197.1.501'
        """
    @property
    def signature(self) -> bytes:
        """The signature value (DER `SEQUENCE { r, s }` for SM2).

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
            >>> cert.signature[0]
            48
        """
    @property
    def tbs_certificate_bytes(self) -> bytes:
        """The signed part (TBSCertificate DER).

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
            >>> key.public_key().verify(cert.signature, cert.tbs_certificate_bytes)
            True
        """
    def public_key(self) -> PublicKey:
        """The subject's SM2 public key.

        Returns:
            sm2.PublicKey: the key.

        Raises:
            UnsupportedFormat: the certificate holds a key of another algorithm.
            InvalidKey: the point is not on the curve.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
            >>> cert.public_key() == key.public_key()
            True
        """
    def fingerprint(self, algorithm: str = "sm3") -> bytes:
        """A digest of the DER certificate.

        Args:
            algorithm: `"sm3"` (default), or any `hashlib` name (`"sha256"`, `"sha1"`).

        Returns:
            bytes: the digest.

        Raises:
            ValueError: an unknown hashlib algorithm.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
            >>> len(cert.fingerprint()), len(cert.fingerprint('sha1'))
            (32, 20)
        """
    @property
    def extensions(self) -> list[Extension]:
        """Every extension, in order, undecoded (a list of `Extension`).

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
            >>> [e.critical for e in cert.extensions][:1]
            [True]
        """
    @property
    def basic_constraints(self) -> Optional[BasicConstraints]:
        """The basicConstraints extension, or `None` without it.

        Raises:
            UnsupportedFormat: the extension is malformed.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).ca(0).self_sign(key)
            >>> cert.basic_constraints
            BasicConstraints(ca=True, path_length=0)
            >>> x509.CertificateBuilder(subject="CN=b").self_sign(key).basic_constraints is None
            True
        """
    @property
    def key_usage(self) -> Optional[frozenset[str]]:
        """keyUsage bit names (`"digitalSignature"`, `"keyCertSign"`, ...) or `None` without
        the extension.

        Raises:
            UnsupportedFormat: the extension is malformed.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
            >>> sorted(cert.key_usage)
            ['digitalSignature', 'keyEncipherment']
        """
    @property
    def extended_key_usage(self) -> Optional[list[str]]:
        """extKeyUsage as short names (`"serverAuth"`, `"clientAuth"`, `"codeSigning"`,
        `"emailProtection"`, `"timeStamping"`, `"OCSPSigning"`, `"anyExtendedKeyUsage"`) or
        dotted OIDs for others, or `None` without the extension.

        Raises:
            UnsupportedFormat: the extension is malformed.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> b = x509.CertificateBuilder(subject='CN=s').with_extended_key_usage(['serverAuth'])
            >>> b.self_sign(key).extended_key_usage
            ['serverAuth']
        """
    @property
    def subject_alternative_names(self) -> Optional[list[tuple[str, str]]]:
        """The subjectAltName entries as `(kind, value)` strings, or `None` without the
        extension. Kinds: `dns`, `email`, `uri`, `ip` (printed address), `dirname`, `rid`
        and `other` (hex of the DER).

        Raises:
            UnsupportedFormat: the extension is malformed.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> b = x509.CertificateBuilder(subject='CN=s').with_subject_alternative_names(['ip:127.0.0.1'])
            >>> b.self_sign(key).subject_alternative_names
            [('ip', '127.0.0.1')]
        """
    @property
    def subject_key_identifier(self) -> Optional[bytes]:
        """The subjectKeyIdentifier, or `None` without it (guomi writes the first 20 bytes of
        SM3 of the public key).

        Raises:
            UnsupportedFormat: the extension is malformed.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
            >>> len(cert.subject_key_identifier)
            20
        """
    @property
    def authority_key_identifier(self) -> Optional[bytes]:
        """The keyIdentifier of the authorityKeyIdentifier, or `None` without it.

        Raises:
            UnsupportedFormat: the extension is malformed.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
            >>> cert.authority_key_identifier == cert.subject_key_identifier
            True
        """
    @property
    def is_self_issued(self) -> bool:
        """Whether the subject and issuer names are equal (a root, or a self-issued CA
        certificate).

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
            >>> cert.is_self_issued
            True
        """
    def verify_signature(self, issuer: Union[Certificate, PublicKey]) -> None:
        """Checks that `issuer` signed this certificate (SM2-with-SM3, default signer ID).

        Args:
            issuer: the issuing `Certificate` (its subject must equal this certificate's
                issuer), or a bare `guomi.sm2.PublicKey`.

        Raises:
            InvalidSignature: the signature does not verify (or the names differ).
            UnsupportedFormat: an unsupported signature algorithm or issuer key.
            TypeError: `issuer` is neither a certificate nor an SM2 public key.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
            >>> cert.verify_signature(cert)
            >>> cert.verify_signature(key.public_key())
        """
    def is_valid_at(self, when: Optional[datetime] = None) -> bool:
        """Whether `when` lies in the validity period (bounds included).

        Args:
            when: a `datetime` (naive means UTC), or `None` for now.

        Returns:
            bool: `not_valid_before <= when <= not_valid_after`.

        Raises:
            TypeError: `when` is not a `datetime`.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
            >>> cert.is_valid_at()
            True
        """
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...
    def __reduce__(self) -> tuple[Callable[[bytes], Certificate], tuple[bytes]]: ...

@final
class CertificateRevocationList:
    """An X.509 CRL (RFC 5280 §5; immutable, compared by its DER, hashable).

    There is no constructor: read one with `from_pem`, `from_der` or `load_pem_crls`;
    issue one with `CRLBuilder`; give them to `verify_chain` (`crls=`) to reject revoked
    certificates. v1 and v2 CRLs are read; delta, partitioned and indirect CRLs parse but
    `verify_chain` refuses to rely on them (a critical extension it does not implement
    fails the path, closed).

    Example:
        >>> from guomi import sm2, x509
        >>> key = sm2.PrivateKey.generate()
        >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
        >>> crl = x509.CRLBuilder(crl_number=7).revoke(5).sign(ca, key)
        >>> crl.issuer, crl.crl_number, crl.get_revoked(5) is not None
        ('CN=ca', 7, True)
        >>> x509.CertificateRevocationList.from_pem(crl.to_pem()) == crl
        True
    """
    @staticmethod
    def from_der(data: BytesLike) -> CertificateRevocationList:
        """Reads a DER CRL (strict DER).

        Args:
            data: bytes-like DER.

        Returns:
            CertificateRevocationList: the CRL.

        Raises:
            UnsupportedFormat: malformed DER, or a version other than v1/v2.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
            >>> der = x509.CRLBuilder().sign(ca, key).to_der()
            >>> x509.CertificateRevocationList.from_der(der).version
            2
        """
    @staticmethod
    def from_pem(data: Union[str, bytes]) -> CertificateRevocationList:
        """Reads the first `X509 CRL` block of PEM text.

        Args:
            data: PEM, `str` or `bytes` (other blocks before it are skipped).

        Returns:
            CertificateRevocationList: the CRL.

        Raises:
            UnsupportedFormat: no CRL block, bad base64 or malformed DER.
            TypeError: `data` is neither `str` nor bytes.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
            >>> pem = x509.CRLBuilder().sign(ca, key).to_pem()
            >>> x509.CertificateRevocationList.from_pem(pem).issuer
            'CN=ca'
        """
    def to_der(self) -> bytes:
        """The DER encoding, exactly as read or built.

        Returns:
            bytes: the DER.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
            >>> x509.CRLBuilder().sign(ca, key).to_der()[0]
            48
        """
    def to_pem(self) -> str:
        """The CRL as a PEM `X509 CRL` block.

        Returns:
            str: the PEM text.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
            >>> x509.CRLBuilder().sign(ca, key).to_pem().splitlines()[0]
            '-----BEGIN X509 CRL-----'
        """
    @property
    def version(self) -> int:
        """1 (no version field) or 2 (CRLs guomi issues are v2).

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
            >>> crl = x509.CRLBuilder(crl_number=3).revoke(9, reason="superseded").sign(ca, key)
            >>> crl.version
            2
        """
    @property
    def issuer(self) -> str:
        """The issuer name, RFC 4514.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
            >>> crl = x509.CRLBuilder(crl_number=3).revoke(9, reason="superseded").sign(ca, key)
            >>> crl.issuer
            'CN=ca'
        """
    @property
    def issuer_der(self) -> bytes:
        """The issuer name as DER (the `Name` structure).

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
            >>> crl = x509.CRLBuilder(crl_number=3).revoke(9, reason="superseded").sign(ca, key)
            >>> crl.issuer_der == ca.subject_der
            True
        """
    @property
    def last_update(self) -> datetime:
        """thisUpdate (aware `datetime`, UTC).

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
            >>> crl = x509.CRLBuilder(crl_number=3).revoke(9, reason="superseded").sign(ca, key)
            >>> crl.last_update.tzinfo is not None
            True
        """
    @property
    def next_update(self) -> Optional[datetime]:
        """nextUpdate (aware `datetime`, UTC), or `None` when absent.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
            >>> crl = x509.CRLBuilder(crl_number=3).revoke(9, reason="superseded").sign(ca, key)
            >>> (crl.next_update - crl.last_update).days
            7
        """
    @property
    def crl_number(self) -> Optional[int]:
        """The cRLNumber extension, or `None` when absent.

        Raises:
            UnsupportedFormat: a malformed or repeated extension.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
            >>> crl = x509.CRLBuilder(crl_number=3).revoke(9, reason="superseded").sign(ca, key)
            >>> crl.crl_number
            3
        """
    @property
    def authority_key_identifier(self) -> Optional[bytes]:
        """The authorityKeyIdentifier's keyIdentifier, or `None`.

        Raises:
            UnsupportedFormat: a malformed or repeated extension.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
            >>> crl = x509.CRLBuilder(crl_number=3).revoke(9, reason="superseded").sign(ca, key)
            >>> crl.authority_key_identifier == ca.subject_key_identifier
            True
        """
    @property
    def signature_algorithm_oid(self) -> str:
        """The signature algorithm OID, dotted (SM2-with-SM3: `1.2.156.10197.1.501`).

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
            >>> crl = x509.CRLBuilder(crl_number=3).revoke(9, reason="superseded").sign(ca, key)
            >>> crl.signature_algorithm_oid
            '1.2.156.10197.1.501'
        """
    @property
    def signature(self) -> bytes:
        """The signature value (DER `SEQUENCE { r, s }`).

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
            >>> crl = x509.CRLBuilder(crl_number=3).revoke(9, reason="superseded").sign(ca, key)
            >>> crl.signature[0]
            48
        """
    @property
    def tbs_certlist_bytes(self) -> bytes:
        """The signed part (TBSCertList), exactly as encoded.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
            >>> crl = x509.CRLBuilder(crl_number=3).revoke(9, reason="superseded").sign(ca, key)
            >>> key.public_key().verify(crl.signature, crl.tbs_certlist_bytes)
            True
        """
    @property
    def extensions(self) -> list[Extension]:
        """Every CRL extension, in order (a list of `Extension`).

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
            >>> crl = x509.CRLBuilder(crl_number=3).revoke(9, reason="superseded").sign(ca, key)
            >>> [e.oid for e in crl.extensions]
            ['2.5.29.20', '2.5.29.35']
        """
    @property
    def revoked_certificates(self) -> list[RevokedCertificate]:
        """Every entry, in order (a list of `RevokedCertificate`).

        Raises:
            UnsupportedFormat: a malformed or repeated entry extension.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
            >>> crl = x509.CRLBuilder(crl_number=3).revoke(9, reason="superseded").sign(ca, key)
            >>> [(e.serial_number, e.reason) for e in crl.revoked_certificates]
            [(9, 'superseded')]
        """
    def get_revoked(self, certificate: Union[Certificate, int]) -> Optional[RevokedCertificate]:
        """The entry for a certificate (or a serial number), or `None` when not listed.

        The serial number alone identifies the entry: check the CRL's issuer and signature
        (or use `verify_chain` with `crls=`) before relying on the answer.

        Args:
            certificate: a `Certificate` or a serial number.

        Returns:
            RevokedCertificate | None: the entry.

        Raises:
            UnsupportedFormat: a malformed or repeated entry extension.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
            >>> crl = x509.CRLBuilder().revoke(5).sign(ca, key)
            >>> crl.get_revoked(5).serial_number, crl.get_revoked(6)
            (5, None)
        """
    def verify_signature(self, issuer: Union[Certificate, PublicKey]) -> None:
        """Checks that `issuer` signed this CRL (SM2-with-SM3, default signer ID).

        Args:
            issuer: the issuing CA `Certificate` (its subject must equal the CRL's issuer;
                with a keyUsage extension it must allow cRLSign), or a bare
                `guomi.sm2.PublicKey`.

        Raises:
            InvalidSignature: the signature does not verify (or the names differ).
            InvalidArgument: the certificate's keyUsage lacks cRLSign.
            TypeError: `issuer` is neither a certificate nor an SM2 public key.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
            >>> x509.CRLBuilder().sign(ca, key).verify_signature(ca)
        """
    def is_signature_valid(self, issuer: Union[Certificate, PublicKey]) -> bool:
        """Whether `issuer` signed this CRL (`verify_signature` as a bool).

        Args:
            issuer: the issuing CA `Certificate` or a `guomi.sm2.PublicKey`.

        Returns:
            bool: `True` when the signature verifies.

        Raises:
            TypeError: `issuer` is neither a certificate nor an SM2 public key.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
            >>> crl = x509.CRLBuilder().sign(ca, key)
            >>> crl.is_signature_valid(ca), crl.is_signature_valid(sm2.PrivateKey.generate().public_key())
            (True, False)
        """
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...
    def __reduce__(self) -> tuple[Callable[[bytes], CertificateRevocationList], tuple[bytes]]: ...

@final
class CertificateSigningRequest:
    """A PKCS#10 certification request (immutable).

    There is no constructor: read one with `from_pem` or `from_der`; make one with
    `CertificateSigningRequestBuilder`.

    Example:
        >>> from guomi import sm2, x509
        >>> key = sm2.PrivateKey.generate()
        >>> csr = x509.CertificateSigningRequestBuilder(
        ...     subject="CN=a", subject_alternative_names=["dns:a.example"]).sign(key)
        >>> csr.subject, csr.is_signature_valid
        ('CN=a', True)
    """
    @staticmethod
    def from_der(data: BytesLike) -> CertificateSigningRequest:
        """Reads a DER request (strict).

        Args:
            data: bytes-like DER.

        Returns:
            CertificateSigningRequest: the request (its signature is not checked here).

        Raises:
            UnsupportedFormat: malformed DER.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> csr = x509.CertificateSigningRequestBuilder(
            ...     subject="CN=a", subject_alternative_names=["dns:a.example"]).sign(key)
            >>> x509.CertificateSigningRequest.from_der(csr.to_der()).subject
            'CN=a'
        """
    @staticmethod
    def from_pem(data: Union[str, bytes]) -> CertificateSigningRequest:
        """Reads the first `CERTIFICATE REQUEST` block of PEM text.

        Args:
            data: PEM, `str` or `bytes`.

        Returns:
            CertificateSigningRequest: the request (its signature is not checked here).

        Raises:
            UnsupportedFormat: no request block, bad base64 or malformed DER.
            TypeError: `data` is neither `str` nor bytes.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> csr = x509.CertificateSigningRequestBuilder(
            ...     subject="CN=a", subject_alternative_names=["dns:a.example"]).sign(key)
            >>> x509.CertificateSigningRequest.from_pem(csr.to_pem()).subject
            'CN=a'
        """
    def to_der(self) -> bytes:
        """The request as DER.

        Returns:
            bytes: the DER.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> csr = x509.CertificateSigningRequestBuilder(
            ...     subject="CN=a", subject_alternative_names=["dns:a.example"]).sign(key)
            >>> csr.to_der()[0]
            48
        """
    def to_pem(self) -> str:
        """The request as a PEM `CERTIFICATE REQUEST` block.

        Returns:
            str: the PEM text.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> csr = x509.CertificateSigningRequestBuilder(
            ...     subject="CN=a", subject_alternative_names=["dns:a.example"]).sign(key)
            >>> csr.to_pem().splitlines()[0]
            '-----BEGIN CERTIFICATE REQUEST-----'
        """
    @property
    def subject(self) -> str:
        """The requested subject as an RFC 4514 string.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> csr = x509.CertificateSigningRequestBuilder(
            ...     subject="CN=a", subject_alternative_names=["dns:a.example"]).sign(key)
            >>> csr.subject
            'CN=a'
        """
    @property
    def signature_algorithm_oid(self) -> str:
        """The signature algorithm OID, dotted.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> csr = x509.CertificateSigningRequestBuilder(
            ...     subject="CN=a", subject_alternative_names=["dns:a.example"]).sign(key)
            >>> csr.signature_algorithm_oid
            '1.2.156.10197.1.501'
        """
    @property
    def subject_alternative_names(self) -> list[tuple[str, str]]:
        """Names requested in an extensionRequest attribute, as `(kind, value)` strings (as
        `Certificate.subject_alternative_names`; empty when none).

        Raises:
            UnsupportedFormat: the attribute is malformed.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> csr = x509.CertificateSigningRequestBuilder(
            ...     subject="CN=a", subject_alternative_names=["dns:a.example"]).sign(key)
            >>> csr.subject_alternative_names
            [('dns', 'a.example')]
        """
    def public_key(self) -> PublicKey:
        """The requested SM2 public key.

        Returns:
            sm2.PublicKey: the key.

        Raises:
            UnsupportedFormat: not an SM2 key.
            InvalidKey: the point is not on the curve.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> csr = x509.CertificateSigningRequestBuilder(
            ...     subject="CN=a", subject_alternative_names=["dns:a.example"]).sign(key)
            >>> csr.public_key() == key.public_key()
            True
        """
    def verify(self) -> None:
        """Checks the request's self-signature.

        Raises:
            InvalidSignature: the signature does not verify.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> csr = x509.CertificateSigningRequestBuilder(
            ...     subject="CN=a", subject_alternative_names=["dns:a.example"]).sign(key)
            >>> csr.verify()
        """
    @property
    def is_signature_valid(self) -> bool:
        """Whether the request's self-signature verifies (`verify` as a bool).

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> csr = x509.CertificateSigningRequestBuilder(
            ...     subject="CN=a", subject_alternative_names=["dns:a.example"]).sign(key)
            >>> csr.is_signature_valid
            True
        """
    def __reduce__(self) -> tuple[Callable[[bytes], CertificateSigningRequest], tuple[bytes]]: ...

def load_pem_certificates(data: Union[str, bytes]) -> list[Certificate]:
    """Every `CERTIFICATE` block of a PEM bundle, in order (other blocks are skipped).

    Args:
        data: PEM, `str` or `bytes`.

    Returns:
        list[Certificate]: the certificates (empty when there are none).

    Raises:
        UnsupportedFormat: bad base64 or malformed DER in a certificate block.
        TypeError: `data` is neither `str` nor bytes.

    Example:
        >>> from guomi import sm2, x509
        >>> key = sm2.PrivateKey.generate()
        >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
        >>> len(x509.load_pem_certificates(cert.to_pem() + cert.to_pem()))
        2
    """

def load_pem_crls(data: Union[str, bytes]) -> list[CertificateRevocationList]:
    """Every `X509 CRL` block of PEM text, in order (other blocks are skipped).

    Args:
        data: PEM, `str` or `bytes`.

    Returns:
        list[CertificateRevocationList]: the CRLs (empty when there is none).

    Raises:
        UnsupportedFormat: bad base64 or malformed DER in a CRL block.
        TypeError: `data` is neither `str` nor bytes.

    Example:
        >>> from guomi import sm2, x509
        >>> key = sm2.PrivateKey.generate()
        >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
        >>> pem = x509.CRLBuilder().sign(ca, key).to_pem() + ca.to_pem()
        >>> len(x509.load_pem_crls(pem))
        1
    """

def pem_blocks(data: Union[str, bytes]) -> list[tuple[str, bytes]]:
    r"""Every PEM block of `data`, in order, as `(label, contents)`: the reader behind the key,
    certificate and CRL loaders (one linear pass; strict base64 wrapped at any width; text
    between blocks ignored). RFC 1421 headers (`Proc-Type: ...`) are not returned: a
    caller for whom they matter reads keys with `guomi.keys`.

    Args:
        data: PEM, `str` or `bytes`.

    Returns:
        list[tuple[str, bytes]]: the label and the decoded contents of each block.

    Raises:
        UnsupportedFormat: a BEGIN line without its END line, or bad base64.
        TypeError: `data` is neither `str` nor bytes.

    Example:
        >>> from guomi._native.x509 import pem_blocks
        >>> pem_blocks("-----BEGIN X-----\nAAE=\n-----END X-----\n")
        [('X', b'\x00\x01')]
    """

def verify_chain(
    leaf: Certificate,
    intermediates: Sequence[Certificate],
    trust_roots: Sequence[Certificate],
    *,
    at: Optional[datetime] = None,
    purpose: Optional[str] = None,
    crls: Optional[Sequence[CertificateRevocationList]] = None,
    require_crls: bool = False,
) -> list[Certificate]:
    """Validates `leaf` up to one of `trust_roots` (RFC 5280 §6 subset) and returns the
    path, leaf first.

    Checked on every certificate: SM2-with-SM3 signature by the next one, issuer name =
    next subject, validity at `at` (default now), no unknown critical extension; on
    every issuer: basicConstraints cA=TRUE, pathLenConstraint, keyUsage keyCertSign. With
    `purpose` (`"serverAuth"`, `"clientAuth"`, `"codeSigning"`, ... or a dotted
    OID) the leaf's extKeyUsage, when present, must allow it. Raises
    `CertificateVerificationError` whose `subject`, `reason`
    and `depth` name the failing certificate.

    Revocation (RFC 5280 §6.3, base CRLs): with `crls`, every certificate below the
    trust root is looked up in the CRLs whose issuer is its issuer on the path. Such a
    CRL must verify with that issuer's key, the issuer must allow cRLSign (when it has
    keyUsage), the CRL must be current at `at` (last update ≤ `at` ≤ next update)
    and carry no critical extension guomi does not implement (delta, partitioned,
    indirect CRLs); otherwise the path fails, closed. A listed certificate fails with the
    reason "revoked on <date> (CRL of ..., reason ...)". A certificate whose issuer has no
    CRL among `crls` is not checked, unless `require_crls` is true (then it fails).
    OCSP is not implemented.

    The work is bounded whatever the input: the cheap checks run before any signature,
    each (certificate, issuer key) signature is checked once, loops (a repeated subject
    name and key) are cut, and a path has at most `MAX_PATH_LEN` certificates. More
    than `MAX_CERTIFICATES` intermediates and roots, or a search needing more than
    `MAX_SIGNATURE_CHECKS` signature checks or `MAX_CANDIDATE_STEPS`
    candidates, raises `CertificateVerificationError` (for the leaf, depth 0) whose
    reason says so ("too many certificates given", "certification path building gave
    up: ...").

    Args:
        leaf: the end-entity `Certificate`.
        intermediates: candidate intermediate certificates, in any order.
        trust_roots: the trusted certificates.
        at: the time to check validity at (`datetime`, naive means UTC); default now.
        purpose: `None`, an extended key usage short name or a dotted OID.
        crls: `CertificateRevocationList` objects to check revocation against (at
            most `MAX_CRLS`; their signature checks count against
            `MAX_SIGNATURE_CHECKS`).
        require_crls: fail a certificate whose issuer has no CRL in `crls`.

    Returns:
        list[Certificate]: the path, leaf first, trust root last.

    Raises:
        CertificateVerificationError: no valid path, or a work bound was exceeded.
        InvalidArgument: an unknown `purpose`.

    Example:
        >>> from guomi import sm2, x509
        >>> key = sm2.PrivateKey.generate()
        >>> root = x509.CertificateBuilder(subject="CN=Root").ca().self_sign(key)
        >>> other = x509.CertificateBuilder(subject="CN=Other").ca().self_sign(key)
        >>> try:
        ...     x509.verify_chain(root, [], [other])
        ... except x509.CertificateVerificationError as e:
        ...     print(e.depth, e.subject)
        0 CN=Root
    """

def build_certificate(
    *,
    subject: Optional[str],
    public_key: Optional[BytesLike],
    signing_key: BytesLike,
    issuer: Optional[Certificate],
    serial: Optional[BytesLike],
    not_before: int,
    not_after: int,
    ca: bool,
    path_length: Optional[int],
    key_usage: list[str],
    extended_key_usage: list[str],
    subject_alt_names: list[tuple[str, object]],
    key_identifiers: bool,
    request: Optional[CertificateSigningRequest] = None,
) -> Certificate:
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
        ca: the basicConstraints cA flag; `False` leaves the extension out (an end
            entity; GmSSL 3.1.1 refuses the empty SEQUENCE of cA=FALSE).
        path_length: pathLenConstraint, 0 to 255, or `None`.
        key_usage: keyUsage bit names (empty omits the extension).
        extended_key_usage: short names or dotted OIDs (empty omits the extension).
        subject_alt_names: `(kind, value)` pairs, kind `"dns"`, `"email"`, `"uri"`,
            `"dirname"`, `"rid"` (str) or `"ip"` (4 or 16 bytes).
        key_identifiers: write subject and authority key identifiers.
        request: a `CertificateSigningRequest` giving the subject, key and (unless
            `subject_alt_names` is given) the names; its signature is checked.

    Returns:
        Certificate: the signed certificate.

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
        >>> c.serial_number, c.subject
        (1, 'CN=a')
    """

def build_request(
    *, subject: str, signing_key: BytesLike, subject_alt_names: list[tuple[str, object]]
) -> CertificateSigningRequest:
    """Builds and signs a PKCS#10 request (used by
    `guomi.x509.CertificateSigningRequestBuilder`).

    Args:
        subject: RFC 4514 or OpenSSL `/`-separated name.
        signing_key: the requester's d (32 bytes); its public key is requested.
        subject_alt_names: `(kind, value)` pairs as in `build_certificate`.

    Returns:
        CertificateSigningRequest: the signed request.

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
    issuer: Certificate,
    signing_key: BytesLike,
    this_update: int,
    next_update: Optional[int],
    crl_number: BytesLike,
    revoked: Sequence[tuple[BytesLike, int, Optional[str]]],
) -> CertificateRevocationList:
    r"""Builds and signs a v2 CRL (used by `guomi.x509.CRLBuilder`).

    Args:
        issuer: the issuing CA `Certificate` (cRLSign when it has keyUsage).
        signing_key: the CA's d (32 bytes); it must match `issuer`.
        this_update: thisUpdate, Unix seconds.
        next_update: nextUpdate, Unix seconds, or `None`.
        crl_number: cRLNumber, big-endian bytes (at most 20; empty means 0).
        revoked: `(serial, date, reason)` triples: serial big-endian positive bytes (at
            most 20), date Unix seconds, reason a name (`"keyCompromise"`, ...) or `None`.

    Returns:
        CertificateRevocationList: the signed CRL.

    Raises:
        InvalidArgument: an unknown reason, a bad serial or number, next before this
            update, more than 1048576 entries, or an issuer without cRLSign.
        InvalidKey: `signing_key` does not match `issuer`.

    Example:
        >>> from guomi import sm2, x509
        >>> from guomi._native.x509 import build_crl
        >>> key = sm2.PrivateKey.generate()
        >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
        >>> crl = build_crl(issuer=ca, signing_key=key.to_bytes(), this_update=0,
        ...     next_update=None, crl_number=b"\x05", revoked=[(b"\x07", 0, "superseded")])
        >>> [(e.serial_number, e.reason) for e in crl.revoked_certificates]
        [(7, 'superseded')]
    """
