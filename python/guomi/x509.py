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
from guomi.exceptions import CertificateVerificationError, InvalidArgument

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
        >>> [e.oid for e in cert.extensions][0]  # keyUsage (an end entity has no basicConstraints)
        '2.5.29.15'
    """

    oid: str
    critical: bool
    value: bytes


def _secs(t: datetime) -> int:
    if t.tzinfo is None:
        t = t.replace(tzinfo=timezone.utc)
    return int(t.timestamp())


_SAN_KINDS = {"dns", "email", "uri", "ip", "dirname", "rid"}


def _san_in(items: Iterable[SanInput]) -> list[tuple[str, object]]:
    """``"dns:example.com"`` / ``("ip", "127.0.0.1")`` forms to native tuples."""
    out: list[tuple[str, object]] = []
    for it in items:
        value: object
        if isinstance(it, str):
            kind, sep, value = it.partition(":")
            if not sep:
                raise InvalidArgument(
                    f"subject alternative name {it!r}: write KIND:VALUE, e.g. dns:example.com"
                )
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
            raise InvalidArgument(f"subject alternative name kind {kind!r}: use one of {sorted(_SAN_KINDS)}")
        if kind == "ip":
            try:
                text = value.strip() if isinstance(value, str) else value
                value = ipaddress.ip_address(text).packed  # type: ignore[arg-type]
            except ValueError:
                raise InvalidArgument(f"not an IP address: {value!r}") from None
        out.append((kind, value))
    return out


# The certificate, CRL and request classes, the PEM loaders and verify_chain are the native
# ones (documented once, in crates/guomi-python/src/x509.rs); the getters build the
# dataclasses above.
Certificate = _x509.Certificate
CertificateRevocationList = _x509.CertificateRevocationList
CertificateSigningRequest = _x509.CertificateSigningRequest
load_pem_certificates = _x509.load_pem_certificates
load_pem_crls = _x509.load_pem_crls
verify_chain = _x509.verify_chain


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
            InvalidArgument: a malformed subject alternative name.

        Example:
            >>> from guomi import sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> x509.CertificateSigningRequestBuilder(subject='CN=x').sign(key).subject
            'CN=x'
        """
        return _x509.build_request(
            subject=self.subject,
            signing_key=private_key.to_bytes(),
            subject_alt_names=_san_in(self.subject_alternative_names),
        )


_CA_KEY_USAGE = ("digitalSignature", "keyCertSign", "cRLSign")
#: RFC 5280 §4.1.2.2: a serial number is a positive INTEGER of at most 20 octets as encoded.
_SERIAL_LIMIT = 2**159


def _check_serial(number: Optional[int]) -> None:
    if number is None:
        return
    if isinstance(number, bool) or not isinstance(number, int):
        raise TypeError(f"serial_number must be an int, got {type(number).__name__}")
    if not 0 < number < _SERIAL_LIMIT:
        raise InvalidArgument(
            "serial_number must be a positive integer of at most 20 octets encoded "
            "(below 2**159; RFC 5280 section 4.1.2.2)"
        )


_LEAF_KEY_USAGE = ("digitalSignature", "keyEncipherment")


@dataclasses.dataclass(frozen=True)
class CertificateBuilder:
    """Builds certificates. Each method returns a new builder; finish with
    :meth:`self_sign` (a root) or :meth:`sign` (issued by a CA certificate and key).

    Defaults: a random positive 127-bit serial, valid from one minute ago for 365 days,
    no basicConstraints for an end entity (RFC 5280 §4.2.1.9 lets it be left out; GmSSL
    3.1.1 refuses the empty SEQUENCE that is the DER of cA=FALSE; a CA gets cA=TRUE),
    keyUsage digitalSignature + keyEncipherment (a CA: digitalSignature + keyCertSign +
    cRLSign), subject and authority key identifiers (first 20 bytes of SM3 of the public
    key).

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

    def __post_init__(self) -> None:
        # RFC 5280 §4.1.2.2: checked where it is given, not when signing.
        _check_serial(self.serial_number)

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
        """A copy with serial number ``number``: a positive ``int`` of at most 20 octets encoded
        (RFC 5280 §4.1.2.2, so below ``2**159``); else :class:`~guomi.exceptions.InvalidArgument`
        at once.
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
        or ``rid``. A malformed entry raises ``InvalidArgument`` when signing.

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
            raise InvalidArgument("serial_number must be positive")
        if self.path_length is not None and not 0 <= self.path_length <= 255:
            raise InvalidArgument("path_length must be 0 to 255")
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
            raise InvalidArgument("a subject is needed (subject=... or from_csr)")
        return _x509.build_certificate(
            subject=self.subject,
            public_key=None if self.public_key is None else self.public_key.to_bytes(),
            signing_key=signing_key.to_bytes(),
            issuer=issuer,
            serial=serial,
            not_before=_secs(start),
            not_after=_secs(end),
            ca=self.is_ca,
            path_length=self.path_length,
            key_usage=ku,
            extended_key_usage=list(self.extended_key_usage),
            subject_alt_names=_san_in(self.subject_alternative_names),
            key_identifiers=self.key_identifiers,
            request=self.csr,
        )

    def self_sign(self, private_key: sm2.PrivateKey) -> Certificate:
        """A self-signed certificate for ``private_key``'s public key (unless ``public_key`` was
        set, which must then be that key).

        Args:
            private_key: the subject's :class:`guomi.sm2.PrivateKey`.

        Returns:
            Certificate: the certificate.

        Raises:
            InvalidArgument: no subject, a builder made from a CSR, a serial number that is not
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
            raise InvalidArgument("a certificate from a CSR is signed by a CA: use sign()")
        return self._build(private_key, None)

    def sign(self, issuer: Certificate, issuer_key: sm2.PrivateKey) -> Certificate:
        """A certificate issued by the CA ``issuer`` with its private key ``issuer_key``.

        Args:
            issuer: the CA :class:`Certificate` (cA=TRUE, keyCertSign).
            issuer_key: the CA's :class:`guomi.sm2.PrivateKey`; it must match ``issuer``.

        Returns:
            Certificate: the certificate, signed by ``issuer``.

        Raises:
            InvalidArgument: no public key and no CSR, a serial number that is not positive, or a
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
            raise InvalidArgument("a public key is needed (public_key=... or from_csr)")
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


def _serial_bytes(serial: int) -> bytes:
    if serial <= 0:
        raise InvalidArgument("serial numbers must be positive")
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
            InvalidArgument: a serial number that is not positive, or a negative CRL number.
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
            raise InvalidArgument("crl_number must not be negative")
        if number.bit_length() > 160:
            raise InvalidArgument("crl_number must be below 2**160 (at most 20 bytes)")
        revoked = [
            (_serial_bytes(serial), _secs(when or start), reason) for serial, when, reason in self.revoked
        ]
        return _x509.build_crl(
            issuer=issuer,
            signing_key=issuer_key.to_bytes(),
            this_update=_secs(start),
            next_update=None if end is None else _secs(end),
            crl_number=number.to_bytes((number.bit_length() + 7) // 8, "big"),
            revoked=revoked,
        )
