"""CMS SignedData and EnvelopedData (RFC 5652, GM/T 0010) (see `guomi.cms`)."""

from collections.abc import Sequence
from typing import Optional

from guomi._native.x509 import NativeCertificate
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
    signers: Sequence[tuple[BytesLike, NativeCertificate, bool, str, str]],
    certificates: Sequence[NativeCertificate],
    detached: bool,
    oid_style: str,
    signing_time: Optional[int],
    format: str,
) -> bytes:
    """"""

def verify(
    data: BytesLike,
    content: Optional[BytesLike],
    trust_roots: Sequence[NativeCertificate],
    intermediates: Sequence[NativeCertificate],
    at: int,
) -> tuple[bytes, list[NativeCertificate], str]:
    """"""

def encrypt(
    content: BytesLike,
    recipients: Sequence[NativeCertificate],
    cipher: str,
    oid_style: str,
    key_format: str,
    key_oid: str,
    identifier: str,
    format: str,
) -> bytes:
    """"""

def decrypt(data: BytesLike, key: BytesLike, certificate: Optional[NativeCertificate]) -> bytes:
    """"""
