"""SM2 X.509 certificates, certification paths and PKCS#10 requests.

Signatures are SM2-with-SM3 (OID 1.2.156.10197.1.501) with the default signer ID
``1234567812345678`` (GM/T 0009-2012 §10), as GmSSL and OpenSSL with
``-sigopt distid:1234567812345678`` make them.

>>> from datetime import datetime, timedelta, timezone
>>> from guomi import sm2, x509
>>> ca_key, leaf_key = sm2.PrivateKey.generate(), sm2.PrivateKey.generate()
>>> root = x509.CertificateBuilder(subject="CN=Root CA").ca().valid_for_days(3650).self_sign(ca_key)
>>> csr = x509.CertificateSigningRequestBuilder(subject="CN=leaf,O=Example",
...     subject_alternative_names=["dns:leaf.example"]).sign(leaf_key)
>>> leaf = x509.CertificateBuilder.from_csr(csr).valid_for_days(365).sign(root, ca_key)
>>> [c.subject for c in x509.verify_chain(leaf, [], [root])]
['CN=leaf,O=Example', 'CN=Root CA']
>>> leaf.subject_alternative_names
[('dns', 'leaf.example')]

Names are RFC 4514 strings (``"CN=leaf,O=Example"``: the first attribute written is the
most specific, as OpenSSL's ``-nameopt RFC2253`` prints them); OpenSSL's ``-subj`` form
``"/O=Example/CN=leaf"`` is accepted when building.

Parsing is strict DER: a certificate or request with bytes after it, or an unknown field
inside its outer structure, raises :class:`~guomi.exceptions.UnsupportedFormat`.
"""

from __future__ import annotations

import dataclasses
import ipaddress
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta, timezone
from typing import Optional, Union

from guomi import sm2
from guomi._native import x509 as _x509
from guomi._typing import BytesLike
from guomi.exceptions import CertificateVerificationError, InvalidArgument, InvalidSignature

__all__ = [
    "BasicConstraints",
    "CRLBuilder",
    "Certificate",
    "CertificateBuilder",
    "CertificateRevocationList",
    "CertificateSigningRequest",
    "CertificateSigningRequestBuilder",
    "CertificateVerificationError",
    "Extension",
    "MAX_CANDIDATE_STEPS",
    "MAX_CERTIFICATES",
    "MAX_CRLS",
    "MAX_PATH_LEN",
    "MAX_SIGNATURE_CHECKS",
    "REVOCATION_REASONS",
    "RevokedCertificate",
    "SIGNATURE_ALGORITHM_OID",
    "load_pem_certificates",
    "load_pem_crls",
    "verify_chain",
]

#: A subject alternative name: ``"kind:value"`` or ``(kind, value)``.
SanInput = Union[str, tuple[str, object]]

#: SM2-with-SM3.
SIGNATURE_ALGORITHM_OID = "1.2.156.10197.1.501"

#: :func:`verify_chain` work bounds: at most this many certificates on a path (leaf and
#: trust root included; 16), in ``intermediates`` and ``trust_roots`` together (1024),
#: signature verifications (100) and candidate issuers examined (4096) per call.
MAX_PATH_LEN: int = _x509.MAX_PATH_LEN
MAX_CERTIFICATES: int = _x509.MAX_CERTIFICATES
MAX_SIGNATURE_CHECKS: int = _x509.MAX_SIGNATURE_CHECKS
MAX_CANDIDATE_STEPS: int = _x509.MAX_CANDIDATE_STEPS


@dataclasses.dataclass(frozen=True)
class BasicConstraints:
    """The basicConstraints extension (RFC 5280 §4.2.1.9): ``ca`` (the cA flag) and
    ``path_length`` (pathLenConstraint, or ``None`` for no limit).

    Example:
        >>> from guomi import sm2, x509
        >>> b = x509.CertificateBuilder(subject="CN=r").ca(path_length=0)
        >>> root = b.self_sign(sm2.PrivateKey.generate())
        >>> root.basic_constraints
        BasicConstraints(ca=True, path_length=0)
    """

    ca: bool
    path_length: Optional[int]


@dataclasses.dataclass(frozen=True)
class Extension:
    """A raw extension: ``oid`` (dotted), ``critical`` and ``value`` (the extnValue DER).

    Example:
        >>> from guomi import sm2, x509
        >>> key = sm2.PrivateKey.generate()
        >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
        >>> [e.oid for e in cert.extensions][0]
        '2.5.29.19'
    """

    oid: str
    critical: bool
    value: bytes


def _dt(secs: int) -> datetime:
    return datetime.fromtimestamp(secs, tz=timezone.utc)


def _secs(t: datetime) -> int:
    if t.tzinfo is None:
        t = t.replace(tzinfo=timezone.utc)
    return int(t.timestamp())


def _san_out(items: Iterable[tuple[str, object]]) -> list[tuple[str, str]]:
    out = []
    for kind, value in items:
        if kind == "ip" and isinstance(value, bytes):
            out.append((kind, str(ipaddress.ip_address(value))))
        elif isinstance(value, bytes):
            out.append((kind, value.hex()))
        else:
            out.append((kind, str(value)))
    return out


_SAN_KINDS = {"dns", "email", "uri", "ip", "dirname", "rid"}


def _san_in(items: Iterable[SanInput]) -> list[tuple[str, object]]:
    """``"dns:example.com"`` / ``("ip", "127.0.0.1")`` forms to native tuples."""
    out: list[tuple[str, object]] = []
    for it in items:
        value: object
        if isinstance(it, str):
            kind, sep, value = it.partition(":")
            if not sep:
                raise ValueError(f"subject alternative name {it!r}: write KIND:VALUE, e.g. dns:example.com")
        else:
            kind, value = it[0], it[1]
        kind = kind.strip().lower()
        if kind == "email":
            pass
        elif kind in ("rfc822", "mail"):
            kind = "email"
        elif kind == "dirname":
            pass
        elif kind not in _SAN_KINDS:
            raise ValueError(f"subject alternative name kind {kind!r}: use one of {sorted(_SAN_KINDS)}")
        if kind == "ip":
            try:
                text = value.strip() if isinstance(value, str) else value
                value = ipaddress.ip_address(text).packed  # type: ignore[arg-type]
            except ValueError:
                raise ValueError(f"not an IP address: {value!r}") from None
        out.append((kind, value))
    return out


class Certificate:
    """An SM2 X.509 certificate (immutable, compared by its DER, hashable).

    Read one with :meth:`from_pem`, :meth:`from_der` or :func:`load_pem_certificates`; make
    one with :class:`CertificateBuilder`. The constructor wraps a native certificate and is
    not for direct use.

    Example:
        >>> from guomi import sm2, x509
        >>> key = sm2.PrivateKey.generate()
        >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
        >>> cert.subject, cert.serial_number, cert.version
        ('CN=a', 5, 3)
        >>> x509.Certificate.from_pem(cert.to_pem()) == cert
        True
    """

    __slots__ = ("_n",)

    def __init__(self, native: _x509.NativeCertificate) -> None:
        self._n = native

    @classmethod
    def from_pem(cls, data: Union[str, bytes]) -> Certificate:
        """Reads the first ``CERTIFICATE`` block of PEM text.

        Args:
            data: PEM, ``str`` or ``bytes`` (other blocks before it are skipped).

        Returns:
            Certificate: the certificate.

        Raises:
            UnsupportedFormat: no certificate block, bad base64 or malformed DER (strict).
            TypeError: ``data`` is neither ``str`` nor bytes.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
            >>> x509.Certificate.from_pem(cert.to_pem()) == cert
            True
        """
        return cls(_x509.NativeCertificate.from_pem(data))

    @classmethod
    def from_der(cls, data: BytesLike) -> Certificate:
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
        return cls(_x509.NativeCertificate.from_der(data))

    def to_pem(self) -> str:
        """The certificate as a PEM ``CERTIFICATE`` block.

        Returns:
            str: the PEM text.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
            >>> cert.to_pem().splitlines()[0]
            '-----BEGIN CERTIFICATE-----'
        """
        return self._n.to_pem()

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
        return self._n.to_der()

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
        return self._n.version

    @property
    def serial_number(self) -> int:
        """The serial number (an ``int``; negative only in non-conforming certificates).
        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
            >>> cert.serial_number
            5
        """
        return int.from_bytes(self._n.serial, "big", signed=True)

    @property
    def subject(self) -> str:
        """The subject name as an RFC 4514 string, most specific first (``"CN=leaf,O=Example"``).
        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
            >>> cert.subject
            'CN=a'
        """
        return self._n.subject

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
        return self._n.issuer

    @property
    def subject_der(self) -> bytes:
        """The subject name as DER (the ``Name`` structure), for exact comparison.
        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
            >>> cert.subject_der[0]
            48
        """
        return self._n.subject_der

    @property
    def issuer_der(self) -> bytes:
        """The issuer name as DER (the ``Name`` structure).
        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
            >>> cert.issuer_der == cert.subject_der
            True
        """
        return self._n.issuer_der

    @property
    def not_valid_before(self) -> datetime:
        """Start of the validity period, an aware UTC ``datetime``.
        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
            >>> cert.not_valid_before.tzinfo
            datetime.timezone.utc
        """
        return _dt(self._n.not_before)

    @property
    def not_valid_after(self) -> datetime:
        """End of the validity period, an aware UTC ``datetime``.
        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
            >>> (cert.not_valid_after - cert.not_valid_before).days
            365
        """
        return _dt(self._n.not_after)

    @property
    def signature_algorithm_oid(self) -> str:
        """The signature algorithm OID, dotted (:data:`SIGNATURE_ALGORITHM_OID` for SM2-with-SM3).
        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
            >>> cert.signature_algorithm_oid
            '1.2.156.10197.1.501'
        """
        return self._n.signature_algorithm

    @property
    def signature(self) -> bytes:
        """The signature value (DER ``SEQUENCE { r, s }`` for SM2).
        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
            >>> cert.signature[0]
            48
        """
        return self._n.signature

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
        return self._n.tbs_der

    def public_key(self) -> sm2.PublicKey:
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
        return sm2.PublicKey.from_bytes(self._n.public_key_bytes())

    def fingerprint(self, algorithm: str = "sm3") -> bytes:
        """A digest of the DER certificate.

        Args:
            algorithm: ``"sm3"`` (default), or any :mod:`hashlib` name (``"sha256"``, ``"sha1"``).

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
        if algorithm.lower() == "sm3":
            return self._n.fingerprint_sm3()
        import hashlib

        return hashlib.new(algorithm, self.to_der()).digest()

    @property
    def extensions(self) -> list[Extension]:
        """Every extension, in order, undecoded (a list of :class:`Extension`).
        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
            >>> [e.critical for e in cert.extensions][:1]
            [True]
        """
        return [Extension(o, c, v) for (o, c, v) in self._n.extensions()]

    @property
    def basic_constraints(self) -> Optional[BasicConstraints]:
        """The basicConstraints extension, or ``None`` without it.

        Raises:
            UnsupportedFormat: the extension is malformed.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
            >>> cert.basic_constraints
            BasicConstraints(ca=False, path_length=None)
        """
        bc = self._n.basic_constraints()
        return None if bc is None else BasicConstraints(bc[0], bc[1])

    @property
    def key_usage(self) -> Optional[frozenset[str]]:
        """keyUsage bit names (``"digitalSignature"``, ``"keyCertSign"``, ...) or ``None`` without
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
        ku = self._n.key_usage()
        return None if ku is None else frozenset(ku)

    @property
    def extended_key_usage(self) -> Optional[list[str]]:
        """extKeyUsage as short names (``"serverAuth"``, ``"clientAuth"``, ...) or dotted OIDs,
        or ``None`` without the extension.

        Raises:
            UnsupportedFormat: the extension is malformed.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> b = x509.CertificateBuilder(subject='CN=s').with_extended_key_usage(['serverAuth'])
            >>> c = b.self_sign(key)
            >>> c.extended_key_usage
            ['serverAuth']
        """
        return self._n.extended_key_usage()

    @property
    def subject_alternative_names(self) -> Optional[list[tuple[str, str]]]:
        """The subjectAltName entries as ``(kind, value)`` strings, or ``None`` without the
        extension. Kinds: ``dns``, ``email``, ``uri``, ``ip`` (printed address), ``dirname``,
        ``rid`` and ``other`` (hex of the DER).

        Raises:
            UnsupportedFormat: the extension is malformed.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> b = x509.CertificateBuilder(subject='CN=s').with_subject_alternative_names(['ip:127.0.0.1'])
            >>> c = b.self_sign(key)
            >>> c.subject_alternative_names
            [('ip', '127.0.0.1')]
        """
        sans = self._n.subject_alt_names()
        return None if sans is None else _san_out(sans)

    @property
    def subject_key_identifier(self) -> Optional[bytes]:
        """The subjectKeyIdentifier, or ``None`` without it (guomi writes the first 20 bytes of
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
        return self._n.subject_key_id()

    @property
    def authority_key_identifier(self) -> Optional[bytes]:
        """The keyIdentifier of the authorityKeyIdentifier, or ``None`` without it.

        Raises:
            UnsupportedFormat: the extension is malformed.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
            >>> cert.authority_key_identifier == cert.subject_key_identifier
            True
        """
        return self._n.authority_key_id()

    @property
    def is_self_issued(self) -> bool:
        """Whether the subject and issuer names are equal (a root, or a self-issued CA certificate).
        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
            >>> cert.is_self_issued
            True
        """
        return self._n.is_self_issued

    def verify_signature(self, issuer: Union[Certificate, sm2.PublicKey]) -> None:
        """Checks that ``issuer`` signed this certificate (SM2-with-SM3, default signer ID).

        Args:
            issuer: the issuing :class:`Certificate` (its subject must equal this
                certificate's issuer), or a bare :class:`guomi.sm2.PublicKey`.

        Raises:
            InvalidSignature: the signature does not verify (or the names differ).
            TypeError: ``issuer`` is neither a certificate nor an SM2 public key.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
            >>> cert.verify_signature(cert)
            >>> cert.verify_signature(key.public_key())
        """
        if isinstance(issuer, Certificate):
            self._n.verify_signature(issuer._n)
        elif isinstance(issuer, sm2.PublicKey):
            self._n.verify_signature_with_key(issuer.to_bytes())
        else:
            raise TypeError("issuer must be a Certificate or an sm2.PublicKey")

    def is_valid_at(self, when: Optional[datetime] = None) -> bool:
        """Whether ``when`` lies in the validity period (bounds included).

        Args:
            when: a ``datetime`` (naive means UTC), or ``None`` for now.

        Returns:
            bool: ``not_valid_before <= when <= not_valid_after``.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
            >>> cert.is_valid_at()
            True
        """
        t = _secs(when or datetime.now(timezone.utc))
        return self._n.not_before <= t <= self._n.not_after

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Certificate) and self._n == other._n

    def __hash__(self) -> int:
        return hash(self._n)

    def __repr__(self) -> str:
        return f"<guomi.x509.Certificate subject={self.subject!r} serial={self.serial_number:#x}>"


def load_pem_certificates(data: Union[str, bytes]) -> list[Certificate]:
    """Every ``CERTIFICATE`` block of a PEM bundle, in order (other blocks are skipped).

    Args:
        data: PEM, ``str`` or ``bytes``.

    Returns:
        list[Certificate]: the certificates (empty when there are none).

    Raises:
        UnsupportedFormat: bad base64 or malformed DER in a certificate block.

    Example:
        >>> from guomi import sm2, x509
        >>> key = sm2.PrivateKey.generate()
        >>> cert = x509.CertificateBuilder(subject="CN=a", serial_number=5).self_sign(key)
        >>> len(x509.load_pem_certificates(cert.to_pem() + cert.to_pem()))
        2
    """
    return [Certificate(n) for n in _x509.NativeCertificate.all_from_pem(data)]


def verify_chain(
    leaf: Certificate,
    intermediates: Sequence[Certificate],
    trust_roots: Sequence[Certificate],
    *,
    at: Optional[datetime] = None,
    purpose: Optional[str] = None,
    crls: Sequence[CertificateRevocationList] = (),
    require_crls: bool = False,
) -> list[Certificate]:
    """Validates ``leaf`` up to one of ``trust_roots`` (RFC 5280 §6 subset) and returns the
    path, leaf first.

    Checked on every certificate: SM2-with-SM3 signature by the next one, issuer name =
    next subject, validity at ``at`` (default now), no unknown critical extension; on
    every issuer: basicConstraints cA=TRUE, pathLenConstraint, keyUsage keyCertSign. With
    ``purpose`` (``"serverAuth"``, ``"clientAuth"``, ``"codeSigning"``, ... or a dotted
    OID) the leaf's extKeyUsage, when present, must allow it. Raises
    :class:`~guomi.exceptions.CertificateVerificationError` whose ``subject``, ``reason``
    and ``depth`` name the failing certificate.

    Revocation (RFC 5280 §6.3, base CRLs): with ``crls``, every certificate below the
    trust root is looked up in the CRLs whose issuer is its issuer on the path. Such a
    CRL must verify with that issuer's key, the issuer must allow cRLSign (when it has
    keyUsage), the CRL must be current at ``at`` (last update ≤ ``at`` ≤ next update)
    and carry no critical extension guomi does not implement (delta, partitioned,
    indirect CRLs); otherwise the path fails, closed. A listed certificate fails with the
    reason "revoked on <date> (CRL of ..., reason ...)". A certificate whose issuer has no
    CRL among ``crls`` is not checked, unless ``require_crls`` is true (then it fails).
    OCSP is not implemented.

    The work is bounded whatever the input: the cheap checks run before any signature,
    each (certificate, issuer key) signature is checked once, loops (a repeated subject
    name and key) are cut, and a path has at most :data:`MAX_PATH_LEN` certificates. More
    than :data:`MAX_CERTIFICATES` intermediates and roots, or a search needing more than
    :data:`MAX_SIGNATURE_CHECKS` signature checks or :data:`MAX_CANDIDATE_STEPS`
    candidates, raises ``CertificateVerificationError`` (for the leaf, depth 0) whose
    reason says so ("too many certificates given", "certification path building gave
    up: ...").

    Args:
        leaf: the end-entity :class:`Certificate`.
        intermediates: candidate intermediate certificates, in any order.
        trust_roots: the trusted certificates.
        at: the time to check validity at (``datetime``, naive means UTC); default now.
        purpose: ``None``, an extended key usage short name or a dotted OID.
        crls: :class:`CertificateRevocationList` objects to check revocation against (at
            most :data:`MAX_CRLS`; their signature checks count against
            :data:`MAX_SIGNATURE_CHECKS`).
        require_crls: fail a certificate whose issuer has no CRL in ``crls``.

    Returns:
        list[Certificate]: the path, leaf first, trust root last.

    Raises:
        CertificateVerificationError: no valid path, or a work bound was exceeded.
        InvalidArgument: an unknown ``purpose``.

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
    when = _secs(at) if at is not None else _secs(datetime.now(timezone.utc))
    path = _x509.verify_chain(
        leaf._n,
        [c._n for c in intermediates],
        [c._n for c in trust_roots],
        when,
        purpose,
        [c._n for c in crls],
        require_crls,
    )
    return [Certificate(n) for n in path]


class CertificateSigningRequest:
    """A PKCS#10 certification request (immutable). Read one with :meth:`from_pem` or
    :meth:`from_der`; make one with :class:`CertificateSigningRequestBuilder`.

    Example:
        >>> from guomi import sm2, x509
        >>> key = sm2.PrivateKey.generate()
        >>> csr = x509.CertificateSigningRequestBuilder(
        ...     subject="CN=a", subject_alternative_names=["dns:a.example"]).sign(key)
        >>> csr.subject, csr.is_signature_valid
        ('CN=a', True)
    """

    __slots__ = ("_n",)

    def __init__(self, native: _x509.NativeCertificateRequest) -> None:
        self._n = native

    @classmethod
    def from_pem(cls, data: Union[str, bytes]) -> CertificateSigningRequest:
        """Reads the first ``CERTIFICATE REQUEST`` block of PEM text.

        Args:
            data: PEM, ``str`` or ``bytes``.

        Returns:
            CertificateSigningRequest: the request (its signature is not checked here).

        Raises:
            UnsupportedFormat: no request block, bad base64 or malformed DER.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> csr = x509.CertificateSigningRequestBuilder(
            ...     subject="CN=a", subject_alternative_names=["dns:a.example"]).sign(key)
            >>> x509.CertificateSigningRequest.from_pem(csr.to_pem()).subject
            'CN=a'
        """
        return cls(_x509.NativeCertificateRequest.from_pem(data))

    @classmethod
    def from_der(cls, data: BytesLike) -> CertificateSigningRequest:
        """Reads a DER request (strict).

        Args:
            data: bytes-like DER.

        Returns:
            CertificateSigningRequest: the request.

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
        return cls(_x509.NativeCertificateRequest.from_der(data))

    def to_pem(self) -> str:
        """The request as a PEM ``CERTIFICATE REQUEST`` block.
        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> csr = x509.CertificateSigningRequestBuilder(
            ...     subject="CN=a", subject_alternative_names=["dns:a.example"]).sign(key)
            >>> csr.to_pem().splitlines()[0]
            '-----BEGIN CERTIFICATE REQUEST-----'
        """
        return self._n.to_pem()

    def to_der(self) -> bytes:
        """The request as DER.
        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> csr = x509.CertificateSigningRequestBuilder(
            ...     subject="CN=a", subject_alternative_names=["dns:a.example"]).sign(key)
            >>> csr.to_der()[0]
            48
        """
        return self._n.to_der()

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
        return self._n.subject

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
        return self._n.signature_algorithm

    @property
    def subject_alternative_names(self) -> list[tuple[str, str]]:
        """Names requested in an extensionRequest attribute, as ``(kind, value)`` strings (empty
        when none).

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
        return _san_out(self._n.subject_alt_names())

    def public_key(self) -> sm2.PublicKey:
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
        return sm2.PublicKey.from_bytes(self._n.public_key_bytes())

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
        self._n.verify()

    @property
    def is_signature_valid(self) -> bool:
        """Whether the request's self-signature verifies (:meth:`verify` as a bool).
        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> csr = x509.CertificateSigningRequestBuilder(
            ...     subject="CN=a", subject_alternative_names=["dns:a.example"]).sign(key)
            >>> csr.is_signature_valid
            True
        """
        try:
            self._n.verify()
        except InvalidSignature:
            return False
        return True

    def __repr__(self) -> str:
        return f"<guomi.x509.CertificateSigningRequest subject={self.subject!r}>"


@dataclasses.dataclass(frozen=True)
class CertificateSigningRequestBuilder:
    """Builds a PKCS#10 request.

    Args:
        subject: RFC 4514 (``"CN=x,O=y"``) or OpenSSL ``"/O=y/CN=x"`` name.
        subject_alternative_names: ``"kind:value"`` strings or ``(kind, value)`` tuples,
            kind ``dns``, ``email``, ``uri``, ``ip``, ``dirname`` or ``rid``.

    Example:
        >>> from guomi import sm2, x509
        >>> key = sm2.PrivateKey.generate()
        >>> b = x509.CertificateSigningRequestBuilder(subject='CN=x', subject_alternative_names=['dns:x'])
        >>> b.sign(key).subject_alternative_names
        [('dns', 'x')]
    """

    subject: str
    subject_alternative_names: Sequence[SanInput] = ()

    def sign(self, private_key: sm2.PrivateKey) -> CertificateSigningRequest:
        """Signs the request with ``private_key``, whose public key it requests.

        Args:
            private_key: the requester's :class:`guomi.sm2.PrivateKey`.

        Returns:
            CertificateSigningRequest: the signed request.

        Raises:
            InvalidArgument: a malformed subject name.
            ValueError: a malformed subject alternative name.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> x509.CertificateSigningRequestBuilder(subject='CN=x').sign(key).subject
            'CN=x'
        """
        return CertificateSigningRequest(
            _x509.build_request(
                subject=self.subject,
                signing_key=private_key.to_bytes(),
                subject_alt_names=_san_in(self.subject_alternative_names),
            )
        )


_CA_KEY_USAGE = ("digitalSignature", "keyCertSign", "cRLSign")
_LEAF_KEY_USAGE = ("digitalSignature", "keyEncipherment")


@dataclasses.dataclass(frozen=True)
class CertificateBuilder:
    """Builds certificates. Each method returns a new builder; finish with
    :meth:`self_sign` (a root) or :meth:`sign` (issued by a CA certificate and key).

    Defaults: a random positive 127-bit serial, valid from one minute ago for 365 days,
    basicConstraints cA=FALSE, keyUsage digitalSignature + keyEncipherment (a CA:
    digitalSignature + keyCertSign + cRLSign), subject and authority key identifiers
    (first 20 bytes of SM3 of the public key).

    Every field can be given to the constructor or set by the method of the same purpose:
    ``subject`` (RFC 4514 or OpenSSL ``/``-form), ``public_key`` (the key to certify;
    default the signer's own), ``serial_number`` (positive ``int``), ``not_valid_before``
    / ``not_valid_after`` (``datetime``, naive means UTC), ``days`` (validity length when
    ``not_valid_after`` is not set), ``is_ca`` and ``path_length`` (0 to 255),
    ``key_usage``, ``extended_key_usage``, ``subject_alternative_names``,
    ``key_identifiers`` (write subject/authority key identifiers) and ``csr``.

    Example:
        >>> from guomi import sm2, x509
        >>> ca_key = sm2.PrivateKey.generate()
        >>> root = x509.CertificateBuilder(subject="CN=Root").ca().self_sign(ca_key)
        >>> leaf_key = sm2.PrivateKey.generate()
        >>> b = x509.CertificateBuilder(subject="CN=leaf", public_key=leaf_key.public_key())
        >>> leaf = b.with_extended_key_usage(["serverAuth"]).sign(root, ca_key)
        >>> [c.subject for c in x509.verify_chain(leaf, [], [root], purpose="serverAuth")]
        ['CN=leaf', 'CN=Root']
    """

    subject: Optional[str] = None
    public_key: Optional[sm2.PublicKey] = None
    serial_number: Optional[int] = None
    not_valid_before: Optional[datetime] = None
    not_valid_after: Optional[datetime] = None
    days: int = 365
    is_ca: bool = False
    path_length: Optional[int] = None
    key_usage: Optional[Sequence[str]] = None
    extended_key_usage: Sequence[str] = ()
    subject_alternative_names: Sequence[SanInput] = ()
    key_identifiers: bool = True
    csr: Optional[CertificateSigningRequest] = None

    @classmethod
    def from_csr(cls, csr: CertificateSigningRequest) -> CertificateBuilder:
        """A builder for the subject, public key and requested subject alternative names of
        ``csr`` (its signature is checked when signing; the subject and names may still be
        overridden).

        Args:
            csr: the :class:`CertificateSigningRequest`.

        Returns:
            CertificateBuilder: the builder.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> ca = x509.CertificateBuilder(subject='CN=ca').ca().self_sign(key)
            >>> csr = x509.CertificateSigningRequestBuilder(subject='CN=x').sign(sm2.PrivateKey.generate())
            >>> x509.CertificateBuilder.from_csr(csr).sign(ca, key).subject
            'CN=x'
        """
        return cls(csr=csr)

    def _with(self, **kw: object) -> CertificateBuilder:
        return dataclasses.replace(self, **kw)  # type: ignore[arg-type]

    def subject_name(self, subject: str) -> CertificateBuilder:
        """A copy with subject ``subject`` (RFC 4514 or OpenSSL ``/``-form).
        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> x509.CertificateBuilder().subject_name('CN=x').self_sign(key).subject
            'CN=x'
        """
        return self._with(subject=subject)

    def with_public_key(self, key: sm2.PublicKey) -> CertificateBuilder:
        """A copy certifying ``key`` (an :class:`guomi.sm2.PublicKey`) instead of the signer's own key.
        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> other = sm2.PrivateKey.generate().public_key()
            >>> ca = x509.CertificateBuilder(subject='CN=ca').ca().self_sign(key)
            >>> c = x509.CertificateBuilder(subject='CN=x').with_public_key(other).sign(ca, key)
            >>> c.public_key() == other
            True
        """
        return self._with(public_key=key)

    def serial(self, number: int) -> CertificateBuilder:
        """A copy with serial number ``number`` (a positive ``int``; else ``ValueError`` when signing).
        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> x509.CertificateBuilder(subject='CN=x').serial(7).self_sign(key).serial_number
            7
        """
        return self._with(serial_number=number)

    def validity(self, not_before: datetime, not_after: datetime) -> CertificateBuilder:
        """A copy valid from ``not_before`` to ``not_after`` (``datetime``; naive means UTC).
        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> from datetime import datetime
            >>> b = x509.CertificateBuilder(subject='CN=x')
            >>> b.validity(datetime(2030, 1, 1), datetime(2031, 1, 1)).self_sign(key).not_valid_after.year
            2031
        """
        return self._with(not_valid_before=not_before, not_valid_after=not_after)

    def valid_for_days(self, days: int) -> CertificateBuilder:
        """A copy valid for ``days`` days from its start (the default start is one minute ago).
        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> c = x509.CertificateBuilder(subject='CN=x').valid_for_days(30).self_sign(key)
            >>> (c.not_valid_after - c.not_valid_before).days
            30
        """
        return self._with(days=days, not_valid_after=None)

    def ca(self, path_length: Optional[int] = None) -> CertificateBuilder:
        """A copy for a CA certificate: basicConstraints cA=TRUE with ``path_length`` (0 to 255,
        or ``None`` for no limit), and by default keyUsage digitalSignature, keyCertSign and
        cRLSign.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> x509.CertificateBuilder(subject='CN=ca').ca(1).self_sign(key).basic_constraints
            BasicConstraints(ca=True, path_length=1)
        """
        return self._with(is_ca=True, path_length=path_length)

    def with_key_usage(self, usages: Sequence[str]) -> CertificateBuilder:
        """A copy with keyUsage ``usages`` (``"digitalSignature"``, ``"nonRepudiation"`` or
        ``"contentCommitment"``, ``"keyEncipherment"``, ``"dataEncipherment"``,
        ``"keyAgreement"``, ``"keyCertSign"``, ``"cRLSign"``, ``"encipherOnly"``,
        ``"decipherOnly"``); an empty list omits the extension. Unknown names raise
        :class:`~guomi.exceptions.InvalidArgument` when signing.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> x509.CertificateBuilder(subject='CN=x').with_key_usage([]).self_sign(key).key_usage is None
            True
        """
        return self._with(key_usage=tuple(usages))

    def with_extended_key_usage(self, usages: Sequence[str]) -> CertificateBuilder:
        """A copy with extKeyUsage ``usages``: short names (``"serverAuth"``, ``"clientAuth"``,
        ``"codeSigning"``, ``"emailProtection"``, ``"timeStamping"``, ``"OCSPSigning"``,
        ``"anyExtendedKeyUsage"``) or dotted OIDs; others raise
        :class:`~guomi.exceptions.InvalidArgument` when signing.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> b = x509.CertificateBuilder(subject='CN=x')
            >>> b.with_extended_key_usage(['clientAuth']).self_sign(key).extended_key_usage
            ['clientAuth']
        """
        return self._with(extended_key_usage=tuple(usages))

    def with_subject_alternative_names(self, names: Sequence[SanInput]) -> CertificateBuilder:
        """A copy with subjectAltName ``names``: ``"kind:value"`` strings or ``(kind, value)``
        tuples, kind ``dns``, ``email``, ``uri``, ``ip`` (an IPv4 or IPv6 address), ``dirname``
        or ``rid``. A malformed entry raises ``ValueError`` when signing.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> b = x509.CertificateBuilder(subject='CN=x').with_subject_alternative_names(['dns:x.example'])
            >>> b.self_sign(key).subject_alternative_names
            [('dns', 'x.example')]
        """
        return self._with(subject_alternative_names=tuple(names))

    def _build(self, signing_key: sm2.PrivateKey, issuer: Optional[Certificate]) -> Certificate:
        if self.serial_number is not None and self.serial_number <= 0:
            raise ValueError("serial_number must be positive")
        if self.path_length is not None and not 0 <= self.path_length <= 255:
            raise ValueError("path_length must be 0 to 255")
        start = self.not_valid_before or (datetime.now(timezone.utc) - timedelta(minutes=1))
        try:
            end = self.not_valid_after or (start + timedelta(days=self.days))
        except OverflowError:
            raise InvalidArgument("days: the validity must end by the year 9999") from None
        if self.key_usage is None:
            ku = list(_CA_KEY_USAGE if self.is_ca else _LEAF_KEY_USAGE)
        else:
            ku = list(self.key_usage)
        serial = None
        if self.serial_number is not None:
            serial = self.serial_number.to_bytes((self.serial_number.bit_length() + 7) // 8, "big")
        if self.csr is None and self.subject is None:
            raise ValueError("a subject is needed (subject=... or from_csr)")
        native = _x509.build_certificate(
            subject=self.subject,
            public_key=None if self.public_key is None else self.public_key.to_bytes(),
            signing_key=signing_key.to_bytes(),
            issuer=None if issuer is None else issuer._n,
            serial=serial,
            not_before=_secs(start),
            not_after=_secs(end),
            ca=self.is_ca,
            path_length=self.path_length,
            key_usage=ku,
            extended_key_usage=list(self.extended_key_usage),
            subject_alt_names=_san_in(self.subject_alternative_names),
            key_identifiers=self.key_identifiers,
            request=None if self.csr is None else self.csr._n,
        )
        return Certificate(native)

    def self_sign(self, private_key: sm2.PrivateKey) -> Certificate:
        """A self-signed certificate for ``private_key``'s public key (unless ``public_key`` was
        set, which must then be that key).

        Args:
            private_key: the subject's :class:`guomi.sm2.PrivateKey`.

        Returns:
            Certificate: the certificate.

        Raises:
            ValueError: no subject, a builder made from a CSR, a serial number that is not
                positive, or a path length outside 0..255.
            InvalidArgument: a malformed name or usage, or a validity ending after 9999.
            InvalidKey: ``public_key`` was set to another key.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> x509.CertificateBuilder(subject='CN=x').self_sign(key).is_self_issued
            True
        """
        if self.csr is not None:
            raise ValueError("a certificate from a CSR is signed by a CA: use sign()")
        return self._build(private_key, None)

    def sign(self, issuer: Certificate, issuer_key: sm2.PrivateKey) -> Certificate:
        """A certificate issued by the CA ``issuer`` with its private key ``issuer_key``.

        Args:
            issuer: the CA :class:`Certificate` (cA=TRUE, keyCertSign).
            issuer_key: the CA's :class:`guomi.sm2.PrivateKey`; it must match ``issuer``.

        Returns:
            Certificate: the certificate, signed by ``issuer``.

        Raises:
            ValueError: no public key and no CSR, a serial number that is not positive, or a
                path length outside 0..255.
            InvalidArgument: the issuer is not a CA, a malformed name or usage.
            InvalidKey: ``issuer_key`` does not match ``issuer``.
            InvalidSignature: the CSR's signature does not verify.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> ca = x509.CertificateBuilder(subject='CN=ca').ca().self_sign(key)
            >>> leaf_key = sm2.PrivateKey.generate()
            >>> leaf = x509.CertificateBuilder(subject='CN=x', public_key=leaf_key.public_key()).sign(ca, key)
            >>> leaf.issuer
            'CN=ca'
        """
        if self.csr is None and self.public_key is None:
            raise ValueError("a public key is needed (public_key=... or from_csr)")
        return self._build(issuer_key, issuer)


#: The revocation reasons of RFC 5280 §5.3.1, by name.
REVOCATION_REASONS: tuple[str, ...] = (
    "unspecified",
    "keyCompromise",
    "cACompromise",
    "affiliationChanged",
    "superseded",
    "cessationOfOperation",
    "certificateHold",
    "removeFromCRL",
    "privilegeWithdrawn",
    "aACompromise",
)

#: :func:`verify_chain` takes at most this many CRLs (256).
MAX_CRLS: int = _x509.MAX_CRLS


@dataclasses.dataclass(frozen=True)
class RevokedCertificate:
    """One entry of a :class:`CertificateRevocationList`: ``serial_number`` (the revoked
    certificate's), ``revocation_date`` (aware ``datetime``, UTC), ``reason`` (the
    reasonCode name, one of :data:`REVOCATION_REASONS`, or ``None``) and
    ``invalidity_date`` (aware ``datetime``, UTC, or ``None``).

    Example:
        >>> from guomi import sm2, x509
        >>> key = sm2.PrivateKey.generate()
        >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
        >>> crl = x509.CRLBuilder().revoke(42, reason="keyCompromise").sign(ca, key)
        >>> entry = crl.revoked_certificates[0]
        >>> entry.serial_number, entry.reason
        (42, 'keyCompromise')
    """

    serial_number: int
    revocation_date: datetime
    reason: Optional[str] = None
    invalidity_date: Optional[datetime] = None


class CertificateRevocationList:
    """An X.509 CRL (RFC 5280 §5; immutable, compared by its DER, hashable).

    Read one with :meth:`from_pem`, :meth:`from_der` or :func:`load_pem_crls`; issue one
    with :class:`CRLBuilder`; give them to :func:`verify_chain` (``crls=``) to reject
    revoked certificates. v1 and v2 CRLs are read; delta, partitioned and indirect CRLs
    parse but :func:`verify_chain` refuses to rely on them (a critical extension it does
    not implement fails the path, closed).

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

    __slots__ = ("_n",)

    def __init__(self, native: _x509.NativeCrl) -> None:
        self._n = native

    @classmethod
    def from_pem(cls, data: Union[str, bytes]) -> CertificateRevocationList:
        """Reads the first ``X509 CRL`` block of PEM text.

        Args:
            data: PEM, ``str`` or ``bytes`` (other blocks before it are skipped).

        Returns:
            CertificateRevocationList: the CRL.

        Raises:
            UnsupportedFormat: no CRL block, bad base64 or malformed DER.
            TypeError: ``data`` is neither ``str`` nor bytes.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
            >>> pem = x509.CRLBuilder().sign(ca, key).to_pem()
            >>> x509.CertificateRevocationList.from_pem(pem).issuer
            'CN=ca'
        """
        return cls(_x509.NativeCrl.from_pem(data))

    @classmethod
    def from_der(cls, data: BytesLike) -> CertificateRevocationList:
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
        return cls(_x509.NativeCrl.from_der(data))

    def to_pem(self) -> str:
        """The CRL as a PEM ``X509 CRL`` block.

        Returns:
            str: the PEM text.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
            >>> x509.CRLBuilder().sign(ca, key).to_pem().splitlines()[0]
            '-----BEGIN X509 CRL-----'
        """
        return self._n.to_pem()

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
        return self._n.to_der()

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
        return self._n.version

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
        return self._n.issuer

    @property
    def issuer_der(self) -> bytes:
        """The issuer name as DER (the ``Name`` structure).

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
            >>> crl = x509.CRLBuilder(crl_number=3).revoke(9, reason="superseded").sign(ca, key)
            >>> crl.issuer_der == ca.subject_der
            True
        """
        return self._n.issuer_der()

    @property
    def last_update(self) -> datetime:
        """thisUpdate (aware ``datetime``, UTC).

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
            >>> crl = x509.CRLBuilder(crl_number=3).revoke(9, reason="superseded").sign(ca, key)
            >>> crl.last_update.tzinfo is not None
            True
        """
        return _dt(self._n.this_update)

    @property
    def next_update(self) -> Optional[datetime]:
        """nextUpdate (aware ``datetime``, UTC), or ``None`` when absent.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
            >>> crl = x509.CRLBuilder(crl_number=3).revoke(9, reason="superseded").sign(ca, key)
            >>> (crl.next_update - crl.last_update).days
            7
        """
        n = self._n.next_update
        return None if n is None else _dt(n)

    @property
    def crl_number(self) -> Optional[int]:
        """The cRLNumber extension, or ``None`` when absent.

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
        n = self._n.crl_number()
        return None if n is None else int.from_bytes(n, "big")

    @property
    def authority_key_identifier(self) -> Optional[bytes]:
        """The authorityKeyIdentifier's keyIdentifier, or ``None``.

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
        return self._n.authority_key_id()

    @property
    def signature_algorithm_oid(self) -> str:
        """The signature algorithm OID, dotted (SM2-with-SM3: ``1.2.156.10197.1.501``).

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
            >>> crl = x509.CRLBuilder(crl_number=3).revoke(9, reason="superseded").sign(ca, key)
            >>> crl.signature_algorithm_oid
            '1.2.156.10197.1.501'
        """
        return self._n.signature_algorithm

    @property
    def signature(self) -> bytes:
        """The signature value (DER ``SEQUENCE { r, s }``).

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
            >>> crl = x509.CRLBuilder(crl_number=3).revoke(9, reason="superseded").sign(ca, key)
            >>> crl.signature[0]
            48
        """
        return self._n.signature()

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
        return self._n.tbs_der()

    @property
    def extensions(self) -> list[Extension]:
        """Every CRL extension, in order.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
            >>> crl = x509.CRLBuilder(crl_number=3).revoke(9, reason="superseded").sign(ca, key)
            >>> [e.oid for e in crl.extensions]
            ['2.5.29.20', '2.5.29.35']
        """
        return [Extension(o, c, v) for o, c, v in self._n.extensions()]

    @property
    def revoked_certificates(self) -> list[RevokedCertificate]:
        """Every entry, in order.

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
        return [
            RevokedCertificate(
                int.from_bytes(serial, "big", signed=True),
                _dt(date),
                reason,
                None if invalid is None else _dt(invalid),
            )
            for serial, date, reason, invalid in self._n.revoked()
        ]

    def get_revoked(self, certificate: Union[Certificate, int]) -> Optional[RevokedCertificate]:
        """The entry for a certificate (or a serial number), or ``None`` when not listed.

        The serial number alone identifies the entry: check the CRL's issuer and signature
        (or use :func:`verify_chain` with ``crls=``) before relying on the answer.

        Args:
            certificate: a :class:`Certificate` or a serial number.

        Returns:
            RevokedCertificate | None: the entry.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
            >>> crl = x509.CRLBuilder().revoke(5).sign(ca, key)
            >>> crl.get_revoked(5).serial_number, crl.get_revoked(6)
            (5, None)
        """
        serial = certificate.serial_number if isinstance(certificate, Certificate) else certificate
        for entry in self.revoked_certificates:
            if entry.serial_number == serial:
                return entry
        return None

    def verify_signature(self, issuer: Union[Certificate, sm2.PublicKey]) -> None:
        """Checks that ``issuer`` signed this CRL (SM2-with-SM3, default signer ID).

        Args:
            issuer: the issuing CA :class:`Certificate` (its subject must equal the CRL's
                issuer; with a keyUsage extension it must allow cRLSign), or a bare
                :class:`guomi.sm2.PublicKey`.

        Raises:
            InvalidSignature: the signature does not verify (or the names differ).
            InvalidArgument: the certificate's keyUsage lacks cRLSign.
            TypeError: ``issuer`` is neither a certificate nor an SM2 public key.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
            >>> x509.CRLBuilder().sign(ca, key).verify_signature(ca)
        """
        if isinstance(issuer, Certificate):
            self._n.verify_signature(issuer._n)
        elif isinstance(issuer, sm2.PublicKey):
            self._n.verify_signature_with_key(issuer.to_bytes())
        else:
            raise TypeError("issuer must be a Certificate or an sm2.PublicKey")

    def is_signature_valid(self, issuer: Union[Certificate, sm2.PublicKey]) -> bool:
        """Whether ``issuer`` signed this CRL (:meth:`verify_signature` as a bool).

        Args:
            issuer: the issuing CA :class:`Certificate` or a :class:`guomi.sm2.PublicKey`.

        Returns:
            bool: ``True`` when the signature verifies.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
            >>> crl = x509.CRLBuilder().sign(ca, key)
            >>> crl.is_signature_valid(ca), crl.is_signature_valid(sm2.PrivateKey.generate().public_key())
            (True, False)
        """
        try:
            self.verify_signature(issuer)
        except (InvalidSignature, InvalidArgument):
            return False
        return True

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CertificateRevocationList) and self._n == other._n

    def __hash__(self) -> int:
        return hash(self._n)

    def __repr__(self) -> str:
        return (
            f"<guomi.x509.CertificateRevocationList issuer={self.issuer!r} entries={len(self._n.revoked())}>"
        )


def load_pem_crls(data: Union[str, bytes]) -> list[CertificateRevocationList]:
    """Every ``X509 CRL`` block of PEM text, in order (other blocks are skipped).

    Args:
        data: PEM, ``str`` or ``bytes``.

    Returns:
        list[CertificateRevocationList]: the CRLs (empty when there is none).

    Raises:
        UnsupportedFormat: bad base64 or malformed DER in a CRL block.

    Example:
        >>> from guomi import sm2, x509
        >>> key = sm2.PrivateKey.generate()
        >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
        >>> pem = x509.CRLBuilder().sign(ca, key).to_pem() + ca.to_pem()
        >>> len(x509.load_pem_crls(pem))
        1
    """
    return [CertificateRevocationList(n) for n in _x509.NativeCrl.all_from_pem(data)]


def _serial_bytes(serial: int) -> bytes:
    if serial <= 0:
        raise ValueError("serial numbers must be positive")
    return serial.to_bytes((serial.bit_length() + 7) // 8, "big")


@dataclasses.dataclass(frozen=True)
class CRLBuilder:
    """Builds v2 CRLs. Each method returns a new builder; finish with :meth:`sign`.

    Defaults: ``last_update`` now, ``next_update`` seven days later, ``crl_number`` the
    ``last_update`` time in Unix seconds (so later CRLs get larger numbers; set it when
    your CA keeps its own counter). Each CRL carries cRLNumber and authorityKeyIdentifier;
    entries carry reasonCode when a reason is given.

    Fields (constructor keywords, or the methods): ``last_update`` / ``next_update``
    (``datetime``, naive means UTC; ``next_update=None`` with ``days=None`` omits it),
    ``days`` (the gap to ``next_update`` when that is not set), ``crl_number``
    (non-negative ``int`` below 2**160), ``revoked`` (``(serial, date, reason)`` tuples;
    use :meth:`revoke`).

    Example:
        >>> from guomi import sm2, x509
        >>> ca_key = sm2.PrivateKey.generate()
        >>> ca = x509.CertificateBuilder(subject="CN=CA").ca().self_sign(ca_key)
        >>> leaf = x509.CertificateBuilder(subject="CN=leaf",
        ...     public_key=sm2.PrivateKey.generate().public_key()).sign(ca, ca_key)
        >>> crl = x509.CRLBuilder().revoke(leaf, reason="keyCompromise").sign(ca, ca_key)
        >>> try:
        ...     x509.verify_chain(leaf, [], [ca], crls=[crl])
        ... except x509.CertificateVerificationError as e:
        ...     print(e.subject, e.reason.split(" on ")[0])
        CN=leaf revoked
    """

    last_update: Optional[datetime] = None
    next_update: Optional[datetime] = None
    days: Optional[int] = 7
    crl_number: Optional[int] = None
    revoked: tuple[tuple[int, Optional[datetime], Optional[str]], ...] = ()

    def revoke(
        self,
        certificate: Union[Certificate, int],
        *,
        when: Optional[datetime] = None,
        reason: Optional[str] = None,
    ) -> CRLBuilder:
        """A copy that also lists ``certificate`` (or a serial number) as revoked.

        Args:
            certificate: a :class:`Certificate` issued by the CA that will sign, or its
                serial number (a positive ``int``).
            when: the revocation date (``datetime``, naive means UTC); default the CRL's
                ``last_update``.
            reason: one of :data:`REVOCATION_REASONS`, or ``None`` to omit reasonCode.

        Returns:
            CRLBuilder: the builder.

        Example:
            >>> from guomi import x509
            >>> len(x509.CRLBuilder().revoke(1).revoke(2, reason="superseded").revoked)
            2
        """
        serial = certificate.serial_number if isinstance(certificate, Certificate) else certificate
        return dataclasses.replace(self, revoked=(*self.revoked, (serial, when, reason)))

    def sign(self, issuer: Certificate, issuer_key: sm2.PrivateKey) -> CertificateRevocationList:
        """The CRL, signed by the CA ``issuer`` with its private key ``issuer_key``.

        Args:
            issuer: the CA :class:`Certificate` (with keyUsage, it must allow cRLSign).
            issuer_key: the CA's :class:`guomi.sm2.PrivateKey`; it must match ``issuer``.

        Returns:
            CertificateRevocationList: the signed CRL.

        Raises:
            ValueError: a serial number that is not positive, or a negative CRL number.
            InvalidArgument: an unknown reason, a serial or CRL number over 20 bytes,
                ``next_update`` before ``last_update``, more than 1048576 entries, or an
                issuer whose keyUsage lacks cRLSign.
            InvalidKey: ``issuer_key`` does not match ``issuer``.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> ca = x509.CertificateBuilder(subject="CN=ca").ca().self_sign(key)
            >>> x509.CRLBuilder(crl_number=1).sign(ca, key).crl_number
            1
        """
        start = self.last_update or datetime.now(timezone.utc)
        end = self.next_update
        if end is None and self.days is not None:
            try:
                end = start + timedelta(days=self.days)
            except OverflowError:
                raise InvalidArgument("days: next_update must be by the year 9999") from None
        number = self.crl_number if self.crl_number is not None else _secs(start)
        if number < 0:
            raise ValueError("crl_number must not be negative")
        if number.bit_length() > 160:
            raise InvalidArgument("crl_number must be below 2**160 (at most 20 bytes)")
        revoked = [
            (_serial_bytes(serial), _secs(when or start), reason) for serial, when, reason in self.revoked
        ]
        native = _x509.build_crl(
            issuer=issuer._n,
            signing_key=issuer_key.to_bytes(),
            this_update=_secs(start),
            next_update=None if end is None else _secs(end),
            crl_number=number.to_bytes((number.bit_length() + 7) // 8, "big"),
            revoked=revoked,
        )
        return CertificateRevocationList(native)
