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
    "InternalError",
]


class GuomiError(Exception):
    """Base class of every guomi error."""


class InvalidLength(GuomiError, ValueError):
    """A key, IV, nonce, tag or other input has the wrong length; the message says which
    lengths are accepted."""


class InvalidArgument(GuomiError, ValueError):
    """An argument has a value outside its domain (an unknown mode, bearer > 31, ...)."""


class InvalidPadding(GuomiError, ValueError):
    """Block-cipher padding is malformed. No plaintext is returned."""


class InvalidTag(GuomiError):
    """An AEAD tag or MAC does not verify. No plaintext is returned."""


class DecryptionError(GuomiError):
    """Public-key decryption failed. Deliberately opaque: every cause gives this error."""


InvalidCiphertext = DecryptionError


class InvalidKey(GuomiError, ValueError):
    """A key or point is invalid (not on the curve, out of range, wrong password...)."""


class InvalidSignature(GuomiError):
    """A signature does not verify (raised only by APIs that do not return a bool)."""


class UnsupportedFormat(GuomiError, ValueError):
    """An encoding (DER, PEM, point or ciphertext format) is malformed or unsupported."""


class KeystreamReuse(GuomiError):
    """A stream-cipher key and IV would be used a second time."""


class AlreadyFinalized(GuomiError):
    """A streaming object was used after ``finalize()``."""


class RandomnessError(GuomiError, OSError):
    """The operating system's random number generator failed. guomi never falls back."""


class UnsupportedBackend(GuomiError, RuntimeError):
    """A backend was requested that this CPU does not support."""


class CertificateVerificationError(GuomiError):
    """A certificate or certification path does not validate. ``subject`` names the
    certificate at fault, ``reason`` says why, ``depth`` is its position on the path
    (0 = the leaf)."""

    subject: str = ""
    reason: str = ""
    depth: int = 0


class InternalError(GuomiError, RuntimeError):
    """A bug in guomi: a Rust panic caught at the boundary with Python. No input should
    cause it; please report it with the message. The operation did not complete and
    returned nothing."""
