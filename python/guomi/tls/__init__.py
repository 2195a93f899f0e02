"""TLCP (GB/T 38636-2020) and TLS 1.3 with the SM suites (RFC 8998), in ``ssl``'s idioms.

* ``TLCPContext`` / ``TLS13Context``: settings, as ``ssl.SSLContext``
  (``load_cert_chain``, ``load_verify_locations``, ``verify_mode``, ``check_hostname``,
  ``set_ciphers``, ``crls``, ``session_cache_size``);
* ``context.wrap_socket(sock, server_hostname=...)``: a blocking ``TLSSocket``, as
  ``ssl.SSLSocket``;
* ``context.wrap_bio(incoming, outgoing)``: a sans-I/O ``TLSObject``, as ``ssl.SSLObject``;
* ``open_connection`` / ``start_server``: asyncio streams;
* ``guomi.tls.httpx``: ``httpx`` transports (HTTPS over TLCP or TLS 1.3).

Errors are ``guomi.exceptions.TLSError`` and its subclasses: ``TLSAlert`` (with the alert's
name), ``TLSCertificateError`` (also a ``CertificateVerificationError``),
``TLSEOFError`` (truncation), ``TLSConnectionClosed`` and ``HandshakeTimeout``.

TLCP is guomi's own engine (crate ``guomi-tlcp``); TLS 1.3 is rustls with guomi's
cryptography (crate ``guomi-rustls``). See the documentation's TLS chapter for the
protocol choices and the interoperability matrix.

Example:
    >>> import socket, threading
    >>> from guomi import sm2, tls, x509
    >>> ca_key, key = sm2.PrivateKey.generate(), sm2.PrivateKey.generate()
    >>> ca = x509.CertificateBuilder(subject="CN=Demo CA").ca().self_sign(ca_key)
    >>> cert = (x509.CertificateBuilder(subject="CN=demo", public_key=key.public_key())
    ...         .with_subject_alternative_names(["dns:localhost"]).sign(ca, ca_key))
    >>> server = tls.TLS13Context(server_side=True)
    >>> server.load_cert_chain(cert, key)
    >>> client = tls.TLS13Context()
    >>> client.load_verify_locations(cadata=ca.to_pem())
    >>> a, b = socket.socketpair()
    >>> t = threading.Thread(target=lambda: server.wrap_socket(b).sendall(b"hello"))
    >>> t.start()
    >>> s = client.wrap_socket(a, server_hostname="localhost")
    >>> s.recv(5), s.version(), s.cipher()[0]
    (b'hello', 'TLSv1.3', 'TLS_SM4_GCM_SM3')
    >>> t.join(); s.close()
"""

from __future__ import annotations

from ssl import MemoryBIO

from ..exceptions import (
    HandshakeTimeout,
    TLSAlert,
    TLSCertificateError,
    TLSConnectionClosed,
    TLSEOFError,
    TLSError,
)
from ._asyncio import open_connection, start_server
from ._bio import TLSObject
from ._context import (
    CERT_NONE,
    CERT_OPTIONAL,
    CERT_REQUIRED,
    MAX_SESSION_CACHE,
    TLCP_SUITES,
    TLS13_SUITES,
    Session,
    TLCPContext,
    TLS13Context,
)
from ._socket import TLSSocket

__all__ = [
    "TLCPContext",
    "TLS13Context",
    "TLSSocket",
    "TLSObject",
    "MemoryBIO",
    "Session",
    "open_connection",
    "start_server",
    "CERT_NONE",
    "CERT_OPTIONAL",
    "CERT_REQUIRED",
    "MAX_SESSION_CACHE",
    "TLCP_SUITES",
    "TLS13_SUITES",
    "TLSError",
    "TLSAlert",
    "TLSCertificateError",
    "TLSConnectionClosed",
    "TLSEOFError",
    "HandshakeTimeout",
]
