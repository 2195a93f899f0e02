"""The compiled core of guomi (PyO3 bindings of the Rust crate `guomi-core`): one
submodule per algorithm family. Use the documented `guomi.*` modules instead; this
module's layout may change between releases.
"""

from guomi._native import arrow as arrow
from guomi._native import cms as cms
from guomi._native import cpu as cpu
from guomi._native import envelope as envelope
from guomi._native import pkcs12 as pkcs12
from guomi._native import sm2 as sm2
from guomi._native import sm3 as sm3
from guomi._native import sm4 as sm4
from guomi._native import sm9 as sm9
from guomi._native import tls as tls
from guomi._native import x509 as x509
from guomi._native import zuc as zuc

__all__ = [
    "__version__",
    "_panic_selftest",
    "cpu",
    "sm3",
    "envelope",
    "sm4",
    "zuc",
    "sm2",
    "sm9",
    "x509",
    "cms",
    "pkcs12",
    "tls",
    "arrow",
]

__version__: str

def _panic_selftest() -> None: ...
