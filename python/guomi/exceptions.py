"""Every exception guomi raises. The Rust core's errors map to these classes, once."""

from __future__ import annotations

__all__ = [
    "GuomiError",
    "InvalidLength",
    "InvalidArgument",
    "InvalidPadding",
    "InvalidTag",
    "DecryptionError",
    "InvalidCiphertext",
    "InvalidKey",
    "InvalidSignature",
    "UnsupportedFormat",
    "KeystreamReuse",
    "AlreadyFinalized",
    "RandomnessError",
    "UnsupportedBackend",
    "CertificateVerificationError",
    "TLSError",
    "TLSAlert",
    "TLSCertificateError",
    "TLSConnectionClosed",
    "TLSEOFError",
    "HandshakeTimeout",
    "InternalError",
]


class GuomiError(Exception):
    """Base class of every guomi error: ``except GuomiError`` catches them all.

    Example:
        >>> from guomi import exceptions, sm2
        >>> try:
        ...     sm2.PublicKey.from_bytes(bytes(64))
        ... except exceptions.GuomiError as e:
        ...     print(type(e).__name__)
        InvalidKey
    """


class InvalidLength(GuomiError, ValueError):
    """A key, IV, nonce, tag or other input has the wrong length; the message says which
    lengths are accepted. Also a ``ValueError``.

    Example:
        >>> from guomi import exceptions, sm2
        >>> try:
        ...     sm2.PrivateKey.from_bytes(bytes(31))
        ... except exceptions.InvalidLength as e:
        ...     print(e)
        SM2 private key must be 32 bytes, got 31 bytes
    """


class InvalidArgument(GuomiError, ValueError):
    """An argument has a value outside its domain (an unknown mode or format name, bearer >
    31, iterations out of range, ...). Also a ``ValueError``.

    Example:
        >>> from guomi import exceptions, sm2
        >>> try:
        ...     sm2.PrivateKey.generate().sign(b"m", format="pem")
        ... except exceptions.InvalidArgument as e:
        ...     print(e)
        signature format must be 'der' or 'raw'
    """


class InvalidPadding(GuomiError, ValueError):
    """Block-cipher padding is malformed (SM4 ECB/CBC with PKCS#7). No plaintext is returned.
    Also a ``ValueError``.

    Example:
        >>> from guomi import exceptions
        >>> issubclass(exceptions.InvalidPadding, ValueError)
        True
    """


class InvalidTag(GuomiError):
    """An AEAD tag or MAC does not verify (SM4-GCM/CCM, a key-exchange confirmation). No
    plaintext is returned.

    Example:
        >>> from guomi import exceptions, sm2
        >>> a, b = sm2.PrivateKey.generate(), sm2.PrivateKey.generate()
        >>> resp = sm2.KeyExchangeResponder(b, a.public_key())
        >>> _ = resp.respond(sm2.KeyExchangeInitiator(a, b.public_key()).ephemeral_public_key, 16)
        >>> try:
        ...     resp.confirm(bytes(32))
        ... except exceptions.InvalidTag:
        ...     print("rejected")
        rejected
    """


class DecryptionError(GuomiError):
    """Public-key or envelope decryption failed. Deliberately opaque: every cause (malformed
    input, wrong key, changed bytes) gives this error with the same message.
    ``InvalidCiphertext`` is another name for it.

    Example:
        >>> from guomi import exceptions, sm2
        >>> try:
        ...     sm2.PrivateKey.generate().decrypt(b"garbage")
        ... except exceptions.DecryptionError as e:
        ...     print(e)
        decryption failed
    """


InvalidCiphertext = DecryptionError


class InvalidKey(GuomiError, ValueError):
    """A key or point is invalid: not on the curve, out of range, or a wrong password for an
    encrypted private key. Also a ``ValueError``.

    Example:
        >>> from guomi import exceptions, sm2
        >>> try:
        ...     sm2.PrivateKey.from_bytes(bytes(32))
        ... except exceptions.InvalidKey as e:
        ...     print(e)
        SM2 private key must be in [1, n-2]
    """


class InvalidSignature(GuomiError):
    """A signature does not verify. Raised only by APIs that do not return a bool
    (certificates and certification requests); ``verify`` methods return ``False``.

    Example:
        >>> from guomi import exceptions, sm2, x509
        >>> cert = x509.CertificateBuilder(subject="CN=a").self_sign(sm2.PrivateKey.generate())
        >>> try:
        ...     cert.verify_signature(sm2.PrivateKey.generate().public_key())
        ... except exceptions.InvalidSignature:
        ...     print("not signed by that key")
        not signed by that key
    """


class UnsupportedFormat(GuomiError, ValueError):
    """An encoding (DER, PEM, hex, point or ciphertext format) is malformed or unsupported.
    Also a ``ValueError``.

    Example:
        >>> from guomi import exceptions, sm2
        >>> try:
        ...     sm2.PublicKey.from_pem("not pem")
        ... except exceptions.UnsupportedFormat:
        ...     print("malformed")
        malformed
    """


class KeystreamReuse(GuomiError):
    """A stream-cipher key and IV would be used a second time (ZUC EEA3 refuses to repeat a
    COUNT/BEARER/DIRECTION under one key unless told to allow it).

    Example:
        >>> from guomi import exceptions
        >>> issubclass(exceptions.KeystreamReuse, exceptions.GuomiError)
        True
    """


class AlreadyFinalized(GuomiError):
    """A streaming or single-use object was used after ``finalize()`` (or its one use).

    Example:
        >>> from guomi import exceptions, sm2
        >>> s = sm2.Signer(sm2.PrivateKey.generate())
        >>> _ = s.sign()
        >>> try:
        ...     s.update(b"more")
        ... except exceptions.AlreadyFinalized:
        ...     print("finalized")
        finalized
    """


class RandomnessError(GuomiError, OSError):
    """The operating system's random number generator failed. guomi never falls back to a
    weaker source. Also an ``OSError``.

    Example:
        >>> from guomi import exceptions
        >>> issubclass(exceptions.RandomnessError, OSError)
        True
    """


class UnsupportedBackend(GuomiError, RuntimeError):
    """A backend was requested that this CPU does not support (``force_backend`` or the
    ``GUOMI_BACKEND`` environment variable). Also a ``RuntimeError``.

    Example:
        >>> import guomi
        >>> from guomi import exceptions
        >>> try:
        ...     guomi.force_backend("no-such-backend")
        ... except (exceptions.UnsupportedBackend, exceptions.InvalidArgument):
        ...     print("refused")
        refused
    """


class CertificateVerificationError(GuomiError):
    """A certificate or certification path does not validate. ``subject`` names the
    certificate at fault, ``reason`` says why, ``depth`` is its position on the path
    (0 = the leaf).

    Example:
        >>> from guomi import exceptions, sm2, x509
        >>> key = sm2.PrivateKey.generate()
        >>> a = x509.CertificateBuilder(subject="CN=a").self_sign(key)
        >>> try:
        ...     x509.verify_chain(a, [], [])
        ... except exceptions.CertificateVerificationError as e:
        ...     print(e.subject, e.depth)
        CN=a 0
    """

    subject: str = ""
    reason: str = ""
    depth: int = 0


# Alert names by code: RFC 8446 §6 (with RFC 5246's), and GM/T 0024 / GB/T 38636's
# TLCP additions (200-205).
_ALERT_NAMES = {
    0: "close_notify",
    10: "unexpected_message",
    20: "bad_record_mac",
    21: "decryption_failed",
    22: "record_overflow",
    30: "decompression_failure",
    40: "handshake_failure",
    41: "no_certificate",
    42: "bad_certificate",
    43: "unsupported_certificate",
    44: "certificate_revoked",
    45: "certificate_expired",
    46: "certificate_unknown",
    47: "illegal_parameter",
    48: "unknown_ca",
    49: "access_denied",
    50: "decode_error",
    51: "decrypt_error",
    60: "export_restriction",
    70: "protocol_version",
    71: "insufficient_security",
    80: "internal_error",
    86: "inappropriate_fallback",
    90: "user_canceled",
    100: "no_renegotiation",
    109: "missing_extension",
    110: "unsupported_extension",
    112: "unrecognized_name",
    113: "bad_certificate_status_response",
    115: "unknown_psk_identity",
    116: "certificate_required",
    120: "no_application_protocol",
    200: "unsupported_site2site",
    201: "no_area",
    202: "unsupported_areatype",
    203: "bad_ibcparam",
    204: "unsupported_ibcparam",
    205: "identity_need",
}


class TLSError(GuomiError, OSError):
    """A TLCP or TLS 1.3 connection failed (``guomi.tls``). Subclasses say how; this class
    itself covers misuse and local failures. Also an ``OSError``, as ``ssl.SSLError`` is.

    Example:
        >>> from guomi import exceptions
        >>> issubclass(exceptions.TLSAlert, exceptions.TLSError)
        True
    """


class TLSAlert(TLSError):
    """The handshake or connection ended with a fatal alert. ``alert`` is its name
    (``"bad_record_mac"``), ``alert_code`` its number, and ``received`` says whether the
    peer sent it (``True``) or this side sent it because of what the peer did
    (``False``).

    Example:
        >>> from guomi import exceptions
        >>> e = exceptions.TLSAlert("peer said no", 40, True)
        >>> e.alert, e.alert_code, e.received
        ('handshake_failure', 40, True)
    """

    alert: str
    alert_code: int
    received: bool

    def __init__(self, message: str, alert_code: int = 80, received: bool = False) -> None:
        super().__init__(message)
        self.alert_code = alert_code
        self.alert = _ALERT_NAMES.get(alert_code, f"alert_{alert_code}")
        self.received = received

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else self.alert

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (type(self), (str(self), self.alert_code, self.received))


class TLSCertificateError(TLSAlert, CertificateVerificationError):
    """The peer's certificates were refused (path, key usage, host name, revocation);
    ``alert`` is the alert sent (``"unknown_ca"``, ``"certificate_expired"``, ...). Both a
    ``TLSAlert`` and a ``CertificateVerificationError``.

    Example:
        >>> from guomi import exceptions
        >>> issubclass(exceptions.TLSCertificateError, exceptions.CertificateVerificationError)
        True
    """

    def __init__(self, message: str, alert_code: int = 42, received: bool = False) -> None:
        super().__init__(message, alert_code, received)
        self.reason = message


class TLSConnectionClosed(TLSError, ConnectionError):
    """The connection was closed (close_notify sent or received) and cannot carry more
    data. Also a ``ConnectionError``.

    Example:
        >>> from guomi import exceptions
        >>> issubclass(exceptions.TLSConnectionClosed, ConnectionError)
        True
    """


class TLSEOFError(TLSError, ConnectionError):
    """The transport ended without close_notify: the data may have been truncated by an
    attacker (``ssl``'s ``suppress_ragged_eofs=False``). Also a ``ConnectionError``.

    Example:
        >>> from guomi import exceptions
        >>> issubclass(exceptions.TLSEOFError, exceptions.TLSError)
        True
    """


class HandshakeTimeout(TLSError, TimeoutError):
    """The handshake did not complete within the time allowed. Also a ``TimeoutError``.

    Example:
        >>> from guomi import exceptions
        >>> issubclass(exceptions.HandshakeTimeout, TimeoutError)
        True
    """


class InternalError(GuomiError, RuntimeError):
    """A bug in guomi: a Rust panic caught at the boundary with Python. No input should cause
    it; please report it with the message. The operation did not complete and returned
    nothing. Also a ``RuntimeError``.

    Example:
        >>> from guomi import exceptions
        >>> issubclass(exceptions.InternalError, RuntimeError)
        True
    """
