# Stubs of guomi._native.arrow (crates/guomi-python/src/arrow.rs). Each function returns the
# (schema, array) PyCapsules of an Arrow array; guomi.arrow turns them into pyarrow arrays.
from typing import Any, Optional, Union

from guomi._native import sm2 as _sm2

_Bytes = Union[bytes, bytearray, memoryview]
_Capsules = tuple[object, object]

GCM_NONCE_SIZE: int
GCM_OVERHEAD: int

def sm3(column: Any, threads: Optional[int] = None) -> _Capsules: ...
def hmac_sm3(key: _Bytes, column: Any, threads: Optional[int] = None) -> _Capsules: ...
def sm4_gcm_encrypt(
    key: _Bytes, column: Any, aad: Any = None, threads: Optional[int] = None
) -> _Capsules: ...
def sm4_gcm_decrypt(
    key: _Bytes, column: Any, aad: Any = None, on_error: str = "raise", threads: Optional[int] = None
) -> _Capsules: ...
def sm4_encrypt(
    key: _Bytes,
    column: Any,
    mode: str,
    iv: Any = None,
    padding: Optional[str] = None,
    threads: Optional[int] = None,
) -> _Capsules: ...
def sm4_decrypt(
    key: _Bytes,
    column: Any,
    mode: str,
    iv: Any = None,
    padding: Optional[str] = None,
    on_error: str = "raise",
    threads: Optional[int] = None,
) -> _Capsules: ...
def sm2_sign(
    private_key: _sm2.PrivateKey,
    column: Any,
    uid: Optional[_Bytes] = None,
    format: str = "raw",
    threads: Optional[int] = None,
) -> _Capsules: ...
def sm2_verify(
    public_key: Any,
    signatures: Any,
    messages: Any,
    uid: Optional[_Bytes] = None,
    threads: Optional[int] = None,
) -> _Capsules: ...
def zuc_eea3(
    key: Any,
    count: Any,
    bearer: Any,
    direction: Any,
    data: Any,
    length_bits: Any = None,
    threads: Optional[int] = None,
) -> _Capsules: ...
