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
from guomi.exceptions import CertificateVerificationError, InvalidArgument, InvalidSignature

__all__ = [
    "BasicConstraints",
    "Certificate",
    "CertificateBuilder",
    "CertificateSigningRequest",
    "CertificateSigningRequestBuilder",
    "CertificateVerificationError",
    "Extension",
    "MAX_CANDIDATE_STEPS",
    "MAX_CERTIFICATES",
    "MAX_PATH_LEN",
    "MAX_SIGNATURE_CHECKS",
    "SIGNATURE_ALGORITHM_OID",
    "load_pem_certificates",
    "verify_chain",
]

BytesLike = Union[bytes, bytearray, memoryview]
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
    """basicConstraints (RFC 5280 §4.2.1.9)."""

    ca: bool
    path_length: Optional[int]


@dataclasses.dataclass(frozen=True)
class Extension:
    """A raw extension: ``oid`` (dotted), ``critical``, ``value`` (extnValue DER)."""

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
    """An X.509 certificate (immutable, compared by DER)."""

    __slots__ = ("_n",)

    def __init__(self, native: _x509.NativeCertificate) -> None:
        self._n = native

    @classmethod
    def from_pem(cls, data: Union[str, bytes]) -> Certificate:
        """The first ``CERTIFICATE`` block of ``data``."""
        return cls(_x509.NativeCertificate.from_pem(data))

    @classmethod
    def from_der(cls, data: BytesLike) -> Certificate:
        return cls(_x509.NativeCertificate.from_der(data))

    def to_pem(self) -> str:
        return self._n.to_pem()

    def to_der(self) -> bytes:
        return self._n.to_der()

    @property
    def version(self) -> int:
        """1, 2 or 3."""
        return self._n.version

    @property
    def serial_number(self) -> int:
        return int.from_bytes(self._n.serial, "big", signed=True)

    @property
    def subject(self) -> str:
        """RFC 4514 string, e.g. ``"CN=leaf,O=Example"``."""
        return self._n.subject

    @property
    def issuer(self) -> str:
        return self._n.issuer

    @property
    def subject_der(self) -> bytes:
        return self._n.subject_der

    @property
    def issuer_der(self) -> bytes:
        return self._n.issuer_der

    @property
    def not_valid_before(self) -> datetime:
        """Start of validity (aware UTC datetime)."""
        return _dt(self._n.not_before)

    @property
    def not_valid_after(self) -> datetime:
        return _dt(self._n.not_after)

    @property
    def signature_algorithm_oid(self) -> str:
        return self._n.signature_algorithm

    @property
    def signature(self) -> bytes:
        """The signature value (DER ``SEQUENCE { r, s }`` for SM2)."""
        return self._n.signature

    @property
    def tbs_certificate_bytes(self) -> bytes:
        """The signed part (TBSCertificate DER)."""
        return self._n.tbs_der

    def public_key(self) -> sm2.PublicKey:
        """The subject's SM2 public key."""
        return sm2.PublicKey.from_bytes(self._n.public_key_bytes())

    def fingerprint(self, algorithm: str = "sm3") -> bytes:
        """Digest of the DER certificate: ``"sm3"`` (guomi), or any :mod:`hashlib` name
        (``"sha256"``, ``"sha1"``)."""
        if algorithm.lower() == "sm3":
            return self._n.fingerprint_sm3()
        import hashlib

        return hashlib.new(algorithm, self.to_der()).digest()

    @property
    def extensions(self) -> list[Extension]:
        return [Extension(o, c, v) for (o, c, v) in self._n.extensions()]

    @property
    def basic_constraints(self) -> Optional[BasicConstraints]:
        bc = self._n.basic_constraints()
        return None if bc is None else BasicConstraints(bc[0], bc[1])

    @property
    def key_usage(self) -> Optional[frozenset[str]]:
        """keyUsage names (``"digitalSignature"``, ``"keyCertSign"``, ...) or ``None``."""
        ku = self._n.key_usage()
        return None if ku is None else frozenset(ku)

    @property
    def extended_key_usage(self) -> Optional[list[str]]:
        """extKeyUsage as short names (``"serverAuth"``) or dotted OIDs, or ``None``."""
        return self._n.extended_key_usage()

    @property
    def subject_alternative_names(self) -> Optional[list[tuple[str, str]]]:
        """``[(kind, value)]`` with kind dns, email, uri, ip, dirname, rid or other."""
        sans = self._n.subject_alt_names()
        return None if sans is None else _san_out(sans)

    @property
    def subject_key_identifier(self) -> Optional[bytes]:
        return self._n.subject_key_id()

    @property
    def authority_key_identifier(self) -> Optional[bytes]:
        return self._n.authority_key_id()

    @property
    def is_self_issued(self) -> bool:
        return self._n.is_self_issued

    def verify_signature(self, issuer: Union[Certificate, sm2.PublicKey]) -> None:
        """Checks that ``issuer`` (a certificate, or a bare SM2 public key) signed this
        certificate; raises :class:`~guomi.exceptions.InvalidSignature` otherwise (a
        certificate issuer's subject must also equal this certificate's issuer)."""
        if isinstance(issuer, Certificate):
            self._n.verify_signature(issuer._n)
        elif isinstance(issuer, sm2.PublicKey):
            self._n.verify_signature_with_key(issuer.to_bytes())
        else:
            raise TypeError("issuer must be a Certificate or an sm2.PublicKey")

    def is_valid_at(self, when: Optional[datetime] = None) -> bool:
        t = _secs(when or datetime.now(timezone.utc))
        return self._n.not_before <= t <= self._n.not_after

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Certificate) and self._n == other._n

    def __hash__(self) -> int:
        return hash(self._n)

    def __repr__(self) -> str:
        return f"<guomi.x509.Certificate subject={self.subject!r} serial={self.serial_number:#x}>"


def load_pem_certificates(data: Union[str, bytes]) -> list[Certificate]:
    """Every ``CERTIFICATE`` block in ``data`` (a bundle), in order."""
    return [Certificate(n) for n in _x509.NativeCertificate.all_from_pem(data)]


def verify_chain(
    leaf: Certificate,
    intermediates: Sequence[Certificate],
    trust_roots: Sequence[Certificate],
    *,
    at: Optional[datetime] = None,
    purpose: Optional[str] = None,
) -> list[Certificate]:
    """Validates ``leaf`` up to one of ``trust_roots`` (RFC 5280 §6 subset) and returns the
    path, leaf first.

    Checked on every certificate: SM2-with-SM3 signature by the next one, issuer name =
    next subject, validity at ``at`` (default now), no unknown critical extension; on
    every issuer: basicConstraints cA=TRUE, pathLenConstraint, keyUsage keyCertSign. With
    ``purpose`` (``"serverAuth"``, ``"clientAuth"``, ``"codeSigning"``, ... or a dotted
    OID) the leaf's extKeyUsage, when present, must allow it. Raises
    :class:`~guomi.exceptions.CertificateVerificationError` whose ``subject``, ``reason``
    and ``depth`` name the failing certificate. Revocation is not checked.

    The work is bounded whatever the input: the cheap checks run before any signature,
    each (certificate, issuer key) signature is checked once, loops (a repeated subject
    name and key) are cut, and a path has at most :data:`MAX_PATH_LEN` certificates. More
    than :data:`MAX_CERTIFICATES` intermediates and roots, or a search needing more than
    :data:`MAX_SIGNATURE_CHECKS` signature checks or :data:`MAX_CANDIDATE_STEPS`
    candidates, raises ``CertificateVerificationError`` (for the leaf, depth 0) whose
    reason says so ("too many certificates given", "certification path building gave
    up: ...").
    """
    when = _secs(at) if at is not None else _secs(datetime.now(timezone.utc))
    path = _x509.verify_chain(
        leaf._n, [c._n for c in intermediates], [c._n for c in trust_roots], when, purpose
    )
    return [Certificate(n) for n in path]


class CertificateSigningRequest:
    """A PKCS#10 certification request (immutable)."""

    __slots__ = ("_n",)

    def __init__(self, native: _x509.NativeCertificateRequest) -> None:
        self._n = native

    @classmethod
    def from_pem(cls, data: Union[str, bytes]) -> CertificateSigningRequest:
        return cls(_x509.NativeCertificateRequest.from_pem(data))

    @classmethod
    def from_der(cls, data: BytesLike) -> CertificateSigningRequest:
        return cls(_x509.NativeCertificateRequest.from_der(data))

    def to_pem(self) -> str:
        return self._n.to_pem()

    def to_der(self) -> bytes:
        return self._n.to_der()

    @property
    def subject(self) -> str:
        return self._n.subject

    @property
    def signature_algorithm_oid(self) -> str:
        return self._n.signature_algorithm

    @property
    def subject_alternative_names(self) -> list[tuple[str, str]]:
        """Names requested in an extensionRequest attribute."""
        return _san_out(self._n.subject_alt_names())

    def public_key(self) -> sm2.PublicKey:
        return sm2.PublicKey.from_bytes(self._n.public_key_bytes())

    def verify(self) -> None:
        """Raises :class:`~guomi.exceptions.InvalidSignature` unless the request's
        self-signature verifies."""
        self._n.verify()

    @property
    def is_signature_valid(self) -> bool:
        try:
            self._n.verify()
        except InvalidSignature:
            return False
        return True

    def __repr__(self) -> str:
        return f"<guomi.x509.CertificateSigningRequest subject={self.subject!r}>"


@dataclasses.dataclass(frozen=True)
class CertificateSigningRequestBuilder:
    """Builds a PKCS#10 request: ``CertificateSigningRequestBuilder(subject="CN=x",
    subject_alternative_names=["dns:x.example"]).sign(private_key)``."""

    subject: str
    subject_alternative_names: Sequence[SanInput] = ()

    def sign(self, private_key: sm2.PrivateKey) -> CertificateSigningRequest:
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
        """Subject, public key and requested subject alternative names from a request
        (its signature is checked when signing)."""
        return cls(csr=csr)

    def _with(self, **kw: object) -> CertificateBuilder:
        return dataclasses.replace(self, **kw)  # type: ignore[arg-type]

    def subject_name(self, subject: str) -> CertificateBuilder:
        return self._with(subject=subject)

    def with_public_key(self, key: sm2.PublicKey) -> CertificateBuilder:
        return self._with(public_key=key)

    def serial(self, number: int) -> CertificateBuilder:
        return self._with(serial_number=number)

    def validity(self, not_before: datetime, not_after: datetime) -> CertificateBuilder:
        return self._with(not_valid_before=not_before, not_valid_after=not_after)

    def valid_for_days(self, days: int) -> CertificateBuilder:
        return self._with(days=days, not_valid_after=None)

    def ca(self, path_length: Optional[int] = None) -> CertificateBuilder:
        return self._with(is_ca=True, path_length=path_length)

    def with_key_usage(self, usages: Sequence[str]) -> CertificateBuilder:
        """keyUsage names; an empty list omits the extension."""
        return self._with(key_usage=tuple(usages))

    def with_extended_key_usage(self, usages: Sequence[str]) -> CertificateBuilder:
        return self._with(extended_key_usage=tuple(usages))

    def with_subject_alternative_names(self, names: Sequence[SanInput]) -> CertificateBuilder:
        """``["dns:example.com", "ip:127.0.0.1", "email:a@example.com", "uri:..."]``."""
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
        """A self-signed certificate for ``private_key``'s public key (the default)."""
        if self.csr is not None:
            raise ValueError("a certificate from a CSR is signed by a CA: use sign()")
        return self._build(private_key, None)

    def sign(self, issuer: Certificate, issuer_key: sm2.PrivateKey) -> Certificate:
        """A certificate issued by the CA ``issuer`` with its private key ``issuer_key``.
        The issuer must be a CA (cA=TRUE, keyCertSign) and the key must match it."""
        if self.csr is None and self.public_key is None:
            raise ValueError("a public key is needed (public_key=... or from_csr)")
        return self._build(issuer_key, issuer)
