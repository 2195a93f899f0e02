"""Column operations over Apache Arrow arrays through the Arrow C data interface
(see `guomi.arrow`).
"""

# Stubs of guomi._native.arrow (crates/guomi-python/src/arrow.rs). Each function returns the
# (schema, array) PyCapsules of an Arrow array; guomi.arrow turns them into pyarrow arrays.
from typing import Any, Optional

from guomi._native import sm2 as _sm2
from guomi._typing import BytesLike as _Bytes

_Capsules = tuple[object, object]

__all__ = [
    "sm3",
    "hmac_sm3",
    "sm4_gcm_encrypt",
    "sm4_gcm_decrypt",
    "sm4_encrypt",
    "sm4_decrypt",
    "sm2_sign",
    "sm2_verify",
    "zuc_eea3",
    "GCM_NONCE_SIZE",
    "GCM_OVERHEAD",
]

GCM_NONCE_SIZE: int
GCM_OVERHEAD: int

def sm3(column: Any, threads: Optional[int] = None) -> _Capsules:
    """sm3(column, threads=None) -> (schema, array): SM3 of every row, fixed_size_binary(32)."""

def hmac_sm3(key: _Bytes, column: Any, threads: Optional[int] = None) -> _Capsules:
    """hmac_sm3(key, column, threads=None): HMAC-SM3 of every row, fixed_size_binary(32)."""

def sm4_gcm_encrypt(key: _Bytes, column: Any, aad: Any = None, threads: Optional[int] = None) -> _Capsules:
    """sm4_gcm_encrypt(key, column, aad=None, threads=None): nonce || ciphertext || tag."""

def sm4_gcm_decrypt(
    key: _Bytes, column: Any, aad: Any = None, on_error: str = "raise", threads: Optional[int] = None
) -> _Capsules:
    """sm4_gcm_decrypt(key, column, aad=None, on_error="raise", threads=None)."""

def sm4_encrypt(
    key: _Bytes,
    column: Any,
    mode: str,
    iv: Any = None,
    padding: Optional[str] = None,
    threads: Optional[int] = None,
) -> _Capsules:
    """sm4_encrypt(key, column, mode, iv=None, padding=None, threads=None)."""

def sm4_decrypt(
    key: _Bytes,
    column: Any,
    mode: str,
    iv: Any = None,
    padding: Optional[str] = None,
    on_error: str = "raise",
    threads: Optional[int] = None,
) -> _Capsules:
    """sm4_decrypt(key, column, mode, iv=None, padding=None, on_error="raise", threads=None)."""

def sm2_sign(
    private_key: _sm2.PrivateKey,
    column: Any,
    uid: Optional[_Bytes] = None,
    format: str = "raw",
    threads: Optional[int] = None,
) -> _Capsules:
    """sm2_sign(private_key, column, uid=None, format="raw", threads=None)."""

def sm2_verify(
    public_key: Any,
    signatures: Any,
    messages: Any,
    uid: Optional[_Bytes] = None,
    threads: Optional[int] = None,
) -> _Capsules:
    """sm2_verify(public_key, signatures, messages, uid=None, threads=None) -> bool column.
    `public_key`: a PublicKey, encoded key bytes, or a column of encoded keys.
    """

def zuc_eea3(
    key: Any,
    count: Any,
    bearer: Any,
    direction: Any,
    data: Any,
    length_bits: Any = None,
    threads: Optional[int] = None,
) -> _Capsules:
    """zuc_eea3(key, count, bearer, direction, data, length_bits=None, threads=None)."""
