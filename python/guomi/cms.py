"""CMS (RFC 5652) SignedData and EnvelopedData with SM2, SM3 and SM4 (GM/T 0010-2012).

Sign with SM3-with-SM2 and verify, attached or detached, one signer or several;
encrypt to SM2 recipient certificates (SM2 key transport of an SM4 key) and decrypt.
What guomi writes is DER (or PEM with ``format="pem"``); what it reads may be DER, BER
(indefinite lengths, chunked OCTET STRINGs, as BouncyCastle streams them) or PEM
(labels ``CMS``, ``PKCS7``).

>>> from guomi import cms, sm2, x509
>>> ca_key, key = sm2.PrivateKey.generate(), sm2.PrivateKey.generate()
>>> root = x509.CertificateBuilder(subject="CN=Root").ca().self_sign(ca_key)
>>> cert = x509.CertificateBuilder(subject="CN=Alice", public_key=key.public_key()).sign(root, ca_key)
>>> signed = cms.sign(b"report", key, cert)
>>> result = cms.verify(signed, trust_roots=[root])
>>> result.content, [c.subject for c in result.signers]
(b'report', ['CN=Alice'])
>>> cms.decrypt(cms.encrypt(b"secret", [cert]), key)
b'secret'

Every verification failure raises (there is no "valid" flag to forget): a bad signature or
messageDigest is :class:`~guomi.exceptions.InvalidSignature`, a signer that does not
chain to ``trust_roots`` :class:`~guomi.exceptions.CertificateVerificationError`, a
malformed structure :class:`~guomi.exceptions.UnsupportedFormat`. Every decryption
failure is the one :class:`~guomi.exceptions.DecryptionError`.

Bounds: inputs at most :data:`MAX_INPUT` bytes (256 MiB) nested at most
:data:`MAX_DEPTH` (32) levels; at most :data:`MAX_SIGNERS` signers,
:data:`MAX_RECIPIENTS` recipients, :data:`MAX_CERTIFICATES` certificates and
:data:`MAX_ATTRIBUTES` attributes per signer (64, 64, 256, 64).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from datetime import datetime, timezone
from typing import Optional, Union

from guomi import sm2
from guomi._native import cms as _cms
from guomi._typing import BytesLike
from guomi.x509 import Certificate

__all__ = [
    "MAX_ATTRIBUTES",
    "MAX_CERTIFICATES",
    "MAX_DEPTH",
    "MAX_INPUT",
    "MAX_RECIPIENTS",
    "MAX_SIGNERS",
    "SignedDataBuilder",
    "VerifiedData",
    "decrypt",
    "encrypt",
    "sign",
    "verify",
]

#: Largest CMS input read (bytes).
MAX_INPUT: int = _cms.MAX_INPUT
#: Deepest BER/DER nesting read.
MAX_DEPTH: int = _cms.MAX_DEPTH
#: Most signers in a SignedData (read or written).
MAX_SIGNERS: int = _cms.MAX_SIGNERS
#: Most recipients in an EnvelopedData (read or written).
MAX_RECIPIENTS: int = _cms.MAX_RECIPIENTS
#: Most certificates in a SignedData.
MAX_CERTIFICATES: int = _cms.MAX_CERTIFICATES
#: Most signed attributes (and values) per signer.
MAX_ATTRIBUTES: int = _cms.MAX_ATTRIBUTES

#: GM/T 0010's sm2encrypt: gmsm writes it, gmsm and OpenSSL 3 read it (BouncyCastle 1.87
#: cannot; it needs 1.2.156.10197.1.301.3.2.1 with the raw C1C3C2 key format).
_KEY_OID_GM = "1.2.156.10197.1.301.3"

CmsInput = Union[BytesLike, str]


def _input(data: CmsInput) -> BytesLike:
    if isinstance(data, str):
        return data.encode("ascii")
    return data


def _key_bytes(key: sm2.PrivateKey) -> bytes:
    if not isinstance(key, sm2.PrivateKey):
        raise TypeError(f"key must be a guomi.sm2.PrivateKey, got {type(key).__name__}")
    return key.to_bytes()


def _cert(c: Certificate, what: str = "certificate") -> Certificate:
    if not isinstance(c, Certificate):
        raise TypeError(f"{what} must be a guomi.x509.Certificate, got {type(c).__name__}")
    return c


@dataclasses.dataclass(frozen=True)
class VerifiedData:
    """The result of :func:`verify`: the signed content and who signed it. ``content`` is
    the signed content (the attached one, or the detached one given), ``signers`` each
    signer's certificate in SignerInfo order, ``oid_style`` ``"rfc"`` or ``"gm"`` (the
    content-type OIDs the SignedData used).

    Example:
        >>> from guomi import cms, sm2, x509
        >>> key = sm2.PrivateKey.generate()
        >>> cert = x509.CertificateBuilder(subject="CN=a").self_sign(key)
        >>> cms.verify(cms.sign(b"x", key, cert, oid_style="gm")).oid_style
        'gm'
    """

    content: bytes
    signers: tuple[Certificate, ...]
    oid_style: str


class SignedDataBuilder:
    """Builds a SignedData with several signers (each with its own options).

    The SignerInfos are a DER ``SET OF``, so they are written sorted by their encodings,
    not in the order the signers were added: :attr:`VerifiedData.signers` follows the
    encoded order.

    Args:
        content: the content to sign (bytes-like).
        detached: leave the content out of the SignedData (the verifier supplies it).
        oid_style: ``"rfc"`` (1.2.840.113549.1.7.x, default) or ``"gm"``
            (GM/T 0010: 1.2.156.10197.6.1.4.2.x).

    Example:
        >>> from guomi import cms, sm2, x509
        >>> k1, k2 = sm2.PrivateKey.generate(), sm2.PrivateKey.generate()
        >>> c1 = x509.CertificateBuilder(subject="CN=one").self_sign(k1)
        >>> c2 = x509.CertificateBuilder(subject="CN=two").self_sign(k2)
        >>> der = (cms.SignedDataBuilder(b"contract")
        ...        .add_signer(k1, c1)
        ...        .add_signer(k2, c2, signature_algorithm="sm2")
        ...        .build())
        >>> sorted(c.subject for c in cms.verify(der).signers)
        ['CN=one', 'CN=two']
    """

    def __init__(self, content: BytesLike, *, detached: bool = False, oid_style: str = "rfc") -> None:
        if isinstance(content, str):
            raise TypeError("content must be bytes-like, got str (encode it first)")
        self._content = bytes(content)
        self._detached = detached
        self._oid_style = oid_style
        self._signers: list[tuple[BytesLike, Certificate, bool, str, str]] = []
        self._certificates: list[Certificate] = []

    def add_signer(
        self,
        key: sm2.PrivateKey,
        certificate: Certificate,
        *,
        signed_attributes: bool = True,
        signature_algorithm: str = "sm2-with-sm3",
        identifier: str = "issuer_and_serial",
    ) -> SignedDataBuilder:
        """Adds a signer (at most :data:`MAX_SIGNERS`); see :func:`sign` for the options.

        Args:
            key: the signer's :class:`guomi.sm2.PrivateKey`.
            certificate: its :class:`~guomi.x509.Certificate` (checked against the key when
                the SignedData is built).
            signed_attributes: sign contentType, messageDigest and signingTime (default)
                rather than the content directly.
            signature_algorithm: ``"sm2-with-sm3"`` (1.2.156.10197.1.501, default) or
                ``"sm2"`` (1.2.156.10197.1.301.1).
            identifier: ``"issuer_and_serial"`` (default) or ``"subject_key_identifier"``.

        Returns:
            SignedDataBuilder: this builder.

        Example:
            >>> from guomi import cms, sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> cert = x509.CertificateBuilder(subject="CN=a").self_sign(key)
            >>> b = cms.SignedDataBuilder(b"x").add_signer(key, cert, signed_attributes=False)
            >>> cms.verify(b.build()).content
            b'x'
        """
        self._signers.append(
            (_key_bytes(key), _cert(certificate), signed_attributes, signature_algorithm, identifier)
        )
        return self

    def add_certificate(self, certificate: Certificate) -> SignedDataBuilder:
        """Adds a certificate (an intermediate, say) to the SignedData's certificates.

        Args:
            certificate: a :class:`~guomi.x509.Certificate`.

        Returns:
            SignedDataBuilder: this builder.

        Example:
            >>> from guomi import cms, sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> root = x509.CertificateBuilder(subject="CN=r").ca().self_sign(key)
            >>> der = cms.SignedDataBuilder(b"x").add_signer(key, root).add_certificate(root).build()
            >>> cms.verify(der, trust_roots=[root]).content
            b'x'
        """
        self._certificates.append(_cert(certificate))
        return self

    def build(self, *, format: str = "der") -> bytes:
        """Signs and encodes the SignedData.

        Args:
            format: ``"der"`` (default) or ``"pem"`` (ASCII bytes, label ``CMS``).

        Returns:
            bytes: the ContentInfo.

        Raises:
            InvalidArgument: no signer, too many signers or certificates, a bad option,
                ``"subject_key_identifier"`` for a certificate without that extension, or
                a certificate whose keyUsage allows neither digitalSignature nor
                nonRepudiation (it may not sign; no verifier would accept it).
            InvalidKey: a key that does not match its certificate.

        Example:
            >>> from guomi import cms, sm2, x509
            >>> key = sm2.PrivateKey.generate()
            >>> cert = x509.CertificateBuilder(subject="CN=a").self_sign(key)
            >>> cms.SignedDataBuilder(b"x").add_signer(key, cert).build(format="pem")[:15]
            b'-----BEGIN CMS-'
        """
        return _cms.sign(
            self._content,
            self._signers,
            self._certificates,
            self._detached,
            self._oid_style,
            int(time.time()),
            format,
        )


def sign(
    content: BytesLike,
    key: sm2.PrivateKey,
    certificate: Certificate,
    *,
    detached: bool = False,
    certificates: Sequence[Certificate] = (),
    signed_attributes: bool = True,
    oid_style: str = "rfc",
    format: str = "der",
    signature_algorithm: str = "sm2-with-sm3",
    identifier: str = "issuer_and_serial",
) -> bytes:
    """Signs ``content`` as a CMS SignedData with SM3-with-SM2 (signer ID ``1234567812345678``).

    With ``signed_attributes`` (default) the SM2 signature covers the attributes
    contentType, messageDigest (SM3 of the content) and signingTime (now), DER-encoded as
    a SET OF; without, it covers the content itself. The signer's certificate is always
    included, ``certificates`` too.

    Args:
        content: the content (bytes-like).
        key: the signer's :class:`guomi.sm2.PrivateKey`.
        certificate: its :class:`~guomi.x509.Certificate` (the key must match).
        detached: leave the content out (the verifier passes it to :func:`verify`).
        certificates: more certificates to include (intermediates), at most
            :data:`MAX_CERTIFICATES` in all.
        signed_attributes: sign attributes (default) or the content directly.
        oid_style: ``"rfc"`` (1.2.840.113549.1.7.x, default) or ``"gm"`` (GM/T 0010:
            1.2.156.10197.6.1.4.2.x).
        format: ``"der"`` (default) or ``"pem"`` (ASCII bytes, label ``CMS``).
        signature_algorithm: the SignerInfo's signature OID: ``"sm2-with-sm3"``
            (1.2.156.10197.1.501, default; BouncyCastle and OpenSSL need it) or ``"sm2"``
            (1.2.156.10197.1.301.1; gmsm's ``pkcs7`` needs it).
        identifier: how the SignerInfo names the certificate: ``"issuer_and_serial"``
            (default) or ``"subject_key_identifier"`` (the certificate needs the extension).

    Returns:
        bytes: the SignedData ContentInfo.

    Raises:
        InvalidArgument: a bad option, too many certificates, or a certificate whose
            keyUsage allows neither digitalSignature nor nonRepudiation.
        InvalidKey: the key does not match the certificate.
        TypeError: a wrong argument type.

    Example:
        >>> from guomi import cms, sm2, x509
        >>> key = sm2.PrivateKey.generate()
        >>> cert = x509.CertificateBuilder(subject="CN=a").self_sign(key)
        >>> sig = cms.sign(b"data", key, cert, detached=True)
        >>> cms.verify(sig, content=b"data").signers[0] == cert
        True
    """
    b = SignedDataBuilder(content, detached=detached, oid_style=oid_style)
    b.add_signer(
        key,
        certificate,
        signed_attributes=signed_attributes,
        signature_algorithm=signature_algorithm,
        identifier=identifier,
    )
    for c in certificates:
        b.add_certificate(c)
    return b.build(format=format)


def verify(
    data: CmsInput,
    *,
    content: Optional[BytesLike] = None,
    trust_roots: Sequence[Certificate] = (),
    intermediates: Sequence[Certificate] = (),
    at: Optional[datetime] = None,
    purpose: str = "smime",
) -> VerifiedData:
    """Verifies a CMS SignedData and returns its content and signers; raises on any failure.

    Reads both OID styles (RFC 5652 and GM/T 0010) and both SignerInfo signature OIDs
    (1.2.156.10197.1.501 and 1.2.156.10197.1.301.1); the digest algorithm must be SM3.
    Every SignerInfo must verify: its messageDigest attribute (compared in constant time)
    must equal SM3 of the content, its contentType attribute the content type, and its SM2
    signature (signer ID ``1234567812345678``) must verify over the DER SET OF the signed
    attributes (or the content when there are none). Signers are found by
    issuerAndSerialNumber or subjectKeyIdentifier among the SignedData's certificates,
    ``intermediates`` and ``trust_roots``.

    Without signed attributes the content type must be id-data (RFC 5652 §5.3: nothing
    else signs it).

    Every signer's certificate must allow ``purpose`` (checked with and without trust
    roots; OpenSSL's purposes for a leaf): its keyUsage, when present, must include
    digitalSignature or nonRepudiation, so the encryption certificate of a GM/T 0015
    dual pair (keyEncipherment, dataEncipherment) or a CA-only key never verifies; and
    ``"smime"`` (default, OpenSSL ``smimesign``): an extKeyUsage, when present, lists
    emailProtection (anyExtendedKeyUsage alone does not do); ``"any"``: extKeyUsage not
    checked; ``"codesign"``: keyUsage present with digitalSignature and without
    keyCertSign/cRLSign, extKeyUsage present with codeSigning; ``"timestamping"``
    (RFC 3161 §2.3): keyUsage at most digitalSignature and nonRepudiation, extKeyUsage
    critical and exactly timeStamping.

    With ``trust_roots``, every signer's certificate must also chain to one of them
    (:func:`guomi.x509.verify_chain`, through ``intermediates`` and the SignedData's
    certificates). Without, only the signatures are checked: that proves the content was
    signed by the key in the returned certificate, not who that is.

    Args:
        data: the SignedData: DER, BER or PEM (``str`` or bytes).
        content: the content of a detached SignedData (must be ``None`` when attached).
        trust_roots: trusted :class:`~guomi.x509.Certificate` objects.
        intermediates: more certificates for path building and signer lookup.
        at: time to check certificate validity at (default now; naive means UTC).
        purpose: what every signer's certificate must allow: ``"smime"`` (default),
            ``"any"``, ``"codesign"`` or ``"timestamping"`` (see above).

    Returns:
        VerifiedData: ``content``, ``signers`` (certificates) and ``oid_style``.

    Raises:
        InvalidSignature: a signature, messageDigest or contentType does not verify, no
            signer, or a content type other than data without signed attributes.
        ~guomi.exceptions.CertificateVerificationError: a signer's certificate is missing,
            does not allow ``purpose`` (its ``reason`` names the keyUsage or extKeyUsage
            rule) or does not chain.
        UnsupportedFormat: malformed, over a bound, or unsupported (a digest other than SM3).
        InvalidArgument: ``content`` missing for a detached SignedData, or given for an
            attached one; an unknown ``purpose``.

    Example:
        >>> from guomi import cms, sm2, x509
        >>> from guomi.exceptions import InvalidSignature
        >>> key = sm2.PrivateKey.generate()
        >>> cert = x509.CertificateBuilder(subject="CN=a").self_sign(key)
        >>> sig = cms.sign(b"data", key, cert, detached=True)
        >>> try:
        ...     cms.verify(sig, content=b"date")
        ... except InvalidSignature:
        ...     print("tampered")
        tampered
    """
    when = at if at is not None else datetime.now(timezone.utc)
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    body, signers, style = _cms.verify(
        _input(data),
        content,
        [_cert(c, "trust root") for c in trust_roots],
        [_cert(c, "intermediate") for c in intermediates],
        int(when.timestamp()),
        purpose,
    )
    return VerifiedData(body, tuple(signers), style)


def encrypt(
    content: BytesLike,
    recipients: Sequence[Certificate],
    *,
    cipher: str = "sm4-cbc",
    oid_style: str = "rfc",
    format: str = "der",
    key_format: str = "der",
    key_oid: str = _KEY_OID_GM,
    identifier: str = "issuer_and_serial",
) -> bytes:
    """Encrypts ``content`` to SM2 recipient certificates as a CMS EnvelopedData.

    A fresh SM4 key encrypts the content; it is SM2-encrypted to each recipient
    (KeyTransRecipientInfo). SM4-CBC is not authenticated (sign the content first, or use
    ``"sm4-gcm"``, when tampering matters).

    Args:
        content: the plaintext (bytes-like).
        recipients: 1 to :data:`MAX_RECIPIENTS` :class:`~guomi.x509.Certificate` objects
            with SM2 keys.
        cipher: ``"sm4-cbc"`` (1.2.156.10197.1.104.2, random 16-byte IV, PKCS #7 padding;
            default) or ``"sm4-gcm"`` (1.2.156.10197.1.104.8, 12-byte nonce, 16-byte tag).
        oid_style: ``"rfc"`` (default) or ``"gm"`` (GM/T 0010 content types).
        format: ``"der"`` (default) or ``"pem"`` (ASCII bytes, label ``CMS``).
        key_format: the SM2-encrypted key: ``"der"`` (GM/T 0009 SM2Cipher, default) or
            ``"c1c3c2"`` (raw ``04||C1||C3||C2``).
        key_oid: key-transport OID: ``"1.2.156.10197.1.301.3"`` (GM/T 0010's sm2encrypt,
            default) or ``"1.2.156.10197.1.301.3.2.1"``. For BouncyCastle 1.87 pass
            ``key_oid="1.2.156.10197.1.301.3.2.1", key_format="c1c3c2"`` (the only form it
            decrypts); gmsm reads every combination, OpenSSL 3 the DER key format.
        identifier: ``"issuer_and_serial"`` (default) or ``"subject_key_identifier"``.

    Returns:
        bytes: the EnvelopedData ContentInfo.

    A recipient certificate with a keyUsage must allow keyEncipherment (SM2 key transport,
    as OpenSSL's ``smimeencrypt`` purpose): of a GM/T 0015 dual pair, encrypt to the
    encryption certificate.

    Raises:
        InvalidArgument: a bad option, no or too many recipients, or a recipient
            certificate whose keyUsage lacks keyEncipherment.
        InvalidKey: a recipient certificate without a valid SM2 key.

    Example:
        >>> from guomi import cms, sm2, x509
        >>> key = sm2.PrivateKey.generate()
        >>> cert = x509.CertificateBuilder(subject="CN=a").self_sign(key)
        >>> cms.decrypt(cms.encrypt(b"hi", [cert], cipher="sm4-gcm"), key, cert)
        b'hi'
    """
    return _cms.encrypt(
        content,
        [_cert(c, "recipient") for c in recipients],
        cipher,
        oid_style,
        key_format,
        key_oid,
        identifier,
        format,
    )


def decrypt(data: CmsInput, key: sm2.PrivateKey, certificate: Optional[Certificate] = None) -> bytes:
    """Decrypts a CMS EnvelopedData with an SM2 private key.

    With ``certificate`` (the key's), only the recipient infos naming it are tried;
    without, every SM2 recipient info is. Reads both OID styles, both key-transport OIDs,
    the SM2-encrypted key as GM/T 0009 DER or raw C1C3C2, and SM4-CBC or SM4-GCM content.
    Fails closed: once the structure is parsed, every failure (wrong key, no recipient
    for this key, bad padding, bad tag) is the same :class:`~guomi.exceptions.DecryptionError`.

    Args:
        data: the EnvelopedData: DER, BER or PEM (``str`` or bytes).
        key: the recipient's :class:`guomi.sm2.PrivateKey`.
        certificate: the recipient's :class:`~guomi.x509.Certificate`, or ``None``.

    Returns:
        bytes: the content.

    Raises:
        DecryptionError: any decryption failure.
        UnsupportedFormat: malformed, over a bound or unsupported (another cipher).
        InvalidKey: ``certificate`` is not the key's.
        InvalidArgument: ``certificate`` has a keyUsage without keyEncipherment.

    Example:
        >>> from guomi import cms, sm2, x509
        >>> from guomi.exceptions import DecryptionError
        >>> key, other = sm2.PrivateKey.generate(), sm2.PrivateKey.generate()
        >>> cert = x509.CertificateBuilder(subject="CN=a").self_sign(key)
        >>> try:
        ...     cms.decrypt(cms.encrypt(b"hi", [cert]), other)
        ... except DecryptionError:
        ...     print("not for us")
        not for us
    """
    n = _cert(certificate) if certificate is not None else None
    return _cms.decrypt(_input(data), _key_bytes(key), n)
