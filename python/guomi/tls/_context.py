"""Contexts: ``TLCPContext`` and ``TLS13Context``, in the shape of ``ssl.SSLContext``."""

from __future__ import annotations

import os
import re
import ssl
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional, Union

from .. import keys, sm2, x509
from .._native import tls as _tls
from ..exceptions import InvalidArgument

if TYPE_CHECKING:
    import socket

    from ._bio import TLSObject
    from ._socket import TLSSocket

__all__ = ["TLCPContext", "TLS13Context", "CERT_NONE", "CERT_OPTIONAL", "CERT_REQUIRED", "Session"]

CERT_NONE = ssl.CERT_NONE
CERT_OPTIONAL = ssl.CERT_OPTIONAL
CERT_REQUIRED = ssl.CERT_REQUIRED

#: A TLCP session to resume (``TLSSocket.session``); opaque.
Session = _tls.Session

StrPath = Union[str, "os.PathLike[str]"]
CertSource = Union[StrPath, bytes, x509.Certificate, Sequence[x509.Certificate]]
KeySource = Union[StrPath, bytes, sm2.PrivateKey]
Password = Union[str, bytes, bytearray]

#: The most sessions a session cache may hold.
MAX_SESSION_CACHE: int = _tls.MAX_SESSION_CACHE

# Suites: code point -> (name, other accepted names). The first name is the one
# ``cipher()`` reports (GB/T 38636 and RFC 8998 spell them so); the others are Tongsuo's
# and GmSSL's spellings, accepted by ``set_ciphers``.
TLCP_SUITES: dict[int, tuple[str, ...]] = {
    0xE053: ("ECC_SM4_GCM_SM3", "ECC-SM2-SM4-GCM-SM3", "ECC-SM2-WITH-SM4-GCM-SM3"),
    0xE013: ("ECC_SM4_CBC_SM3", "ECC-SM2-SM4-CBC-SM3", "ECC-SM2-WITH-SM4-SM3", "ECC_SM4_SM3"),
    0xE051: ("ECDHE_SM4_GCM_SM3", "ECDHE-SM2-SM4-GCM-SM3", "ECDHE-SM2-WITH-SM4-GCM-SM3"),
    0xE011: ("ECDHE_SM4_CBC_SM3", "ECDHE-SM2-SM4-CBC-SM3", "ECDHE-SM2-WITH-SM4-SM3", "ECDHE_SM4_SM3"),
}
TLS13_SUITES: dict[int, tuple[str, ...]] = {
    0x00C6: ("TLS_SM4_GCM_SM3", "TLS13-SM4-GCM-SM3"),
    0x00C7: ("TLS_SM4_CCM_SM3", "TLS13-SM4-CCM-SM3"),
}


def _read(source: StrPath) -> bytes:
    return Path(os.fspath(source)).read_bytes()


def _is_pem(data: bytes) -> bool:
    return b"-----BEGIN" in data


def _certificates(source: CertSource) -> list[x509.Certificate]:
    """Certificates from a path, PEM text, DER bytes, a Certificate or a list of them."""
    if isinstance(source, x509.Certificate):
        return [source]
    if isinstance(source, (list, tuple)):
        if not all(isinstance(c, x509.Certificate) for c in source):
            raise TypeError("expected guomi.x509.Certificate objects")
        return list(source)
    if isinstance(source, str) and source.lstrip().startswith("-----BEGIN"):
        data = source.encode()
    elif isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
    elif isinstance(source, (str, os.PathLike)):
        data = _read(source)
    else:
        raise TypeError(f"expected a path, PEM, DER or Certificate, not {type(source).__name__}")
    certs = x509.load_pem_certificates(data) if _is_pem(data) else [x509.Certificate.from_der(data)]
    if not certs:
        raise InvalidArgument("no certificate found")
    return certs


def _private_key(source: KeySource, password: Optional[Password]) -> sm2.PrivateKey:
    if isinstance(source, sm2.PrivateKey):
        return source
    if isinstance(source, str) and source.lstrip().startswith("-----BEGIN"):
        data = source.encode()
    elif isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
    elif isinstance(source, (str, os.PathLike)):
        data = _read(source)
    else:
        raise TypeError(f"expected a path, PEM, DER or sm2.PrivateKey, not {type(source).__name__}")
    if _is_pem(data):
        # A certificate file may carry its key too (ssl's keyfile=None): take the key block.
        text = data.decode("ascii", "replace")
        m = re.search(r"-----BEGIN ([A-Z0-9 ]*PRIVATE KEY)-----.*?-----END \1-----", text, re.S)
        if m is None:
            raise InvalidArgument("no private key found")
        return keys.load_pem_private_key(m.group(0), password)
    return keys.load_der_private_key(data, password)


def _key_source(certfile: CertSource, keyfile: Optional[KeySource]) -> KeySource:
    """The key's source: ``keyfile``, or the certificate file itself (ssl's keyfile=None)."""
    if keyfile is not None:
        return keyfile
    if isinstance(certfile, (x509.Certificate, list, tuple)):
        raise InvalidArgument("keyfile is needed when the certificate is not a file or PEM text")
    return certfile  # type: ignore[return-value]


def _crls(
    source: Union[StrPath, bytes, x509.CertificateRevocationList],
) -> list[x509.CertificateRevocationList]:
    if isinstance(source, x509.CertificateRevocationList):
        return [source]
    data = bytes(source) if isinstance(source, (bytes, bytearray, memoryview)) else _read(source)
    return x509.load_pem_crls(data) if _is_pem(data) else [x509.CertificateRevocationList.from_der(data)]


class _Context:
    """What both contexts share; see ``TLCPContext`` and ``TLS13Context``."""

    protocol: str = ""
    _SUITES: dict[int, tuple[str, ...]] = {}

    def __init__(self, server_side: bool = False) -> None:
        if not isinstance(server_side, bool):
            raise TypeError("server_side must be a bool")
        self.server_side = server_side
        self._check_hostname = not server_side
        self._verify_mode = CERT_NONE if server_side else CERT_REQUIRED
        self._roots: list[x509.Certificate] = []
        self._crls: list[x509.CertificateRevocationList] = []
        self._require_crls = False
        self._suites = list(self._SUITES)
        self._session_cache_size = 256
        self._native: Any = None
        self._identity: Any = None  # the protocol's identity tuple, once loaded
        self._handshake_timeout: Optional[float] = 60.0

    # ---- settings (each change rebuilds the native configuration on next use) ----

    @property
    def handshake_timeout(self) -> Optional[float]:
        """Seconds a handshake may take (default 60): in ``start_server`` and
        ``open_connection``, and in ``wrap_socket`` on a socket without a timeout of its
        own; ``None``: no limit. At most one day."""
        return self._handshake_timeout

    @handshake_timeout.setter
    def handshake_timeout(self, value: Optional[float]) -> None:
        if value is not None:
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise TypeError("handshake_timeout must be a number of seconds or None")
            if not 0 < value <= 86400:
                raise InvalidArgument("handshake_timeout must be in (0, 86400] seconds")
            value = float(value)
        self._handshake_timeout = value

    def _changed(self) -> None:
        self._native = None

    @property
    def verify_mode(self) -> ssl.VerifyMode:
        """``CERT_REQUIRED`` (clients' default), ``CERT_OPTIONAL`` or ``CERT_NONE``. On a
        server: whether client certificates are asked for and required."""
        return self._verify_mode

    @verify_mode.setter
    def verify_mode(self, value: ssl.VerifyMode) -> None:
        value = ssl.VerifyMode(value)
        if value == CERT_NONE and self._check_hostname:
            raise InvalidArgument("cannot set verify_mode to CERT_NONE when check_hostname is enabled")
        self._verify_mode = value
        self._changed()

    @property
    def check_hostname(self) -> bool:
        """Match the server name against the server's signing certificate (subjectAltName
        only); on by default for clients. Turning it on sets ``verify_mode`` to
        ``CERT_REQUIRED`` if it was ``CERT_NONE``, as ``ssl`` does."""
        return self._check_hostname

    @check_hostname.setter
    def check_hostname(self, value: bool) -> None:
        self._check_hostname = bool(value)
        if self._check_hostname and self._verify_mode == CERT_NONE:
            self._verify_mode = CERT_REQUIRED
        self._changed()

    @property
    def crls(self) -> list[x509.CertificateRevocationList]:
        """CRLs checked for every certificate below the trust anchor (a copy; assign a
        list or use ``load_crls`` to change them)."""
        return list(self._crls)

    @crls.setter
    def crls(self, value: Sequence[x509.CertificateRevocationList]) -> None:
        items = list(value)
        if not all(isinstance(c, x509.CertificateRevocationList) for c in items):
            raise TypeError("crls must be guomi.x509.CertificateRevocationList objects")
        self._crls = items
        self._changed()

    @property
    def require_crls(self) -> bool:
        """Fail a certificate whose issuer has no CRL among ``crls`` (off by default)."""
        return self._require_crls

    @require_crls.setter
    def require_crls(self, value: bool) -> None:
        self._require_crls = bool(value)
        self._changed()

    @property
    def session_cache_size(self) -> int:
        """Sessions kept for resumption (server: the session cache or tickets; TLS 1.3
        client: tickets by server name); 0 turns resumption off. At most
        ``MAX_SESSION_CACHE``; 256 by default."""
        return self._session_cache_size

    @session_cache_size.setter
    def session_cache_size(self, value: int) -> None:
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError("session_cache_size must be an int")
        if not 0 <= value <= MAX_SESSION_CACHE:
            raise InvalidArgument(f"session_cache_size must be in [0, {MAX_SESSION_CACHE}]")
        self._session_cache_size = value
        self._changed()

    def load_verify_locations(
        self,
        cafile: Optional[StrPath] = None,
        capath: Optional[StrPath] = None,
        cadata: Optional[Union[str, bytes]] = None,
    ) -> None:
        """Adds trust anchors: ``cafile`` (PEM, one or more certificates, or one DER),
        ``capath`` (every ``.pem``/``.crt``/``.cer`` file in a directory), ``cadata`` (PEM
        text, or DER bytes of one certificate)."""
        if cafile is None and capath is None and cadata is None:
            raise TypeError("cafile, capath and cadata cannot be all omitted")
        found: list[x509.Certificate] = []
        if cafile is not None:
            found += _certificates(Path(os.fspath(cafile)))
        if capath is not None:
            for p in sorted(Path(os.fspath(capath)).iterdir()):
                if p.suffix.lower() in (".pem", ".crt", ".cer") and p.is_file():
                    found += _certificates(p)
        if cadata is not None:
            if isinstance(cadata, str):
                found += x509.load_pem_certificates(cadata)
            elif isinstance(cadata, (bytes, bytearray, memoryview)):
                found += _certificates(bytes(cadata))
            else:
                raise TypeError(f"cadata must be PEM text or DER bytes, not {type(cadata).__name__}")
        self._roots += found
        self._changed()

    def load_crls(self, source: Union[StrPath, bytes, x509.CertificateRevocationList]) -> None:
        """Adds CRLs from a path (PEM or DER), bytes, or a CRL object."""
        self._crls += _crls(source)
        self._changed()

    def get_ca_certs(self) -> list[x509.Certificate]:
        """The trust anchors loaded."""
        return list(self._roots)

    def set_ciphers(self, spec: str) -> None:
        """Allows only the suites named in ``spec`` (``:``- or ``,``-separated), in that
        order of preference. Names are GB/T 38636's and RFC 8998's (``ECC_SM4_GCM_SM3``,
        ``TLS_SM4_GCM_SM3``) or Tongsuo's (``ECC-SM2-SM4-GCM-SM3``)."""
        if not isinstance(spec, str):
            raise TypeError("spec must be a str")
        chosen: list[int] = []
        for word in (w.strip() for w in spec.replace(",", ":").split(":")):
            if not word:
                continue
            code = next((c for c, names in self._SUITES.items() if word.upper() in names), None)
            if code is None:
                raise InvalidArgument(
                    f"unknown {self.protocol} cipher suite {word!r}; known: "
                    + ", ".join(n[0] for n in self._SUITES.values())
                )
            if code not in chosen:
                chosen.append(code)
        if not chosen:
            raise InvalidArgument("no cipher suite selected")
        self._suites = chosen
        self._changed()

    def get_ciphers(self) -> list[dict[str, Any]]:
        """The allowed suites, in order, as ``ssl.SSLContext.get_ciphers`` lists them."""
        return [
            {
                "id": c,
                "name": self._SUITES[c][0],
                "protocol": self.protocol,
                "symmetric": "sm4-"
                + ("gcm" if "GCM" in self._SUITES[c][0] else "ccm" if "CCM" in self._SUITES[c][0] else "cbc"),
                "digest": "sm3",
                "strength_bits": 128,
                "alg_bits": 128,
            }
            for c in self._suites
        ]

    # ---- connections ----

    def _side(self, server_side: Optional[bool]) -> bool:
        side = self.server_side if server_side is None else server_side
        if side != self.server_side:
            raise InvalidArgument("this context was made for the other side")
        return side

    def _server_hostname(self, server_hostname: Optional[str]) -> Optional[str]:
        if self.server_side:
            if server_hostname is not None:
                raise InvalidArgument("server_hostname is for clients only")
            return None
        if server_hostname is not None and not isinstance(server_hostname, str):
            raise TypeError("server_hostname must be a str")
        if self._check_hostname and not server_hostname:
            raise InvalidArgument("check_hostname requires server_hostname")
        return server_hostname

    def _client_auth(self) -> int:
        return {CERT_NONE: 0, CERT_OPTIONAL: 1, CERT_REQUIRED: 2}[self._verify_mode]

    #: The native configuration classes of the protocol.
    _SERVER_CONFIG: Any = None
    _CLIENT_CONFIG: Any = None

    def _client_options(self) -> dict[str, Any]:
        """The client configuration's protocol-specific options."""
        return {}

    def _config(self) -> Any:
        """The native configuration for the current settings (built on first use after a
        change; a server's session cache lives in it)."""
        if self._native is None:
            if self.server_side:
                if self._identity is None:
                    raise InvalidArgument(f"a {self.protocol} server needs load_cert_chain(...)")
                self._native = self._SERVER_CONFIG(
                    identity=self._identity,
                    suites=self._suites,
                    client_auth=self._client_auth(),
                    client_roots=self._roots,
                    crls=self._crls,
                    require_crls=self._require_crls,
                    session_cache_size=self._session_cache_size,
                )
            else:
                self._native = self._CLIENT_CONFIG(
                    roots=self._roots,
                    crls=self._crls,
                    require_crls=self._require_crls,
                    verify=self._verify_mode != CERT_NONE,
                    check_hostname=self._check_hostname,
                    suites=self._suites,
                    identity=self._identity,
                    **self._client_options(),
                )
        return self._native

    def _connection(self, server_hostname: Optional[str], session: Any) -> Any:
        raise NotImplementedError

    def wrap_socket(
        self,
        sock: socket.socket,
        server_side: Optional[bool] = None,
        do_handshake_on_connect: bool = True,
        suppress_ragged_eofs: bool = False,
        server_hostname: Optional[str] = None,
        session: Optional[Session] = None,
    ) -> TLSSocket:
        """Wraps a connected stream socket; returns a ``TLSSocket`` that behaves like
        ``ssl.SSLSocket``. The handshake runs now unless ``do_handshake_on_connect`` is
        false. A stream that ends without close_notify raises ``TLSEOFError`` unless
        ``suppress_ragged_eofs``."""
        from ._socket import TLSSocket

        self._side(server_side)
        name = self._server_hostname(server_hostname)
        conn = self._connection(name, session)
        return TLSSocket(self, sock, conn, name, do_handshake_on_connect, suppress_ragged_eofs)

    def wrap_bio(
        self,
        incoming: ssl.MemoryBIO,
        outgoing: ssl.MemoryBIO,
        server_side: Optional[bool] = None,
        server_hostname: Optional[str] = None,
        session: Optional[Session] = None,
    ) -> TLSObject:
        """A sans-I/O ``TLSObject`` (like ``ssl.SSLObject``) that reads TLS bytes from
        ``incoming`` and writes them to ``outgoing``."""
        from ._bio import TLSObject

        self._side(server_side)
        name = self._server_hostname(server_hostname)
        return TLSObject(self, self._connection(name, session), incoming, outgoing, name)

    def __repr__(self) -> str:
        side = "server" if self.server_side else "client"
        return f"<guomi.tls.{type(self).__name__} {side}>"


class TLCPContext(_Context):
    """TLCP 1.1 (GB/T 38636-2020) settings for clients or servers, as ``ssl.SSLContext``.

    Suites: ``ECC_SM4_GCM_SM3``, ``ECC_SM4_CBC_SM3``, ``ECDHE_SM4_GCM_SM3``,
    ``ECDHE_SM4_CBC_SM3`` (all allowed by default; a client without its own certificates
    offers only the ECC ones). A TLCP identity is a pair of certificates: the signing one
    (with its chain) and the encryption one, each with its key.

    Example:
        >>> from guomi import tls
        >>> ctx = tls.TLCPContext()
        >>> ctx.verify_mode == tls.CERT_REQUIRED, ctx.check_hostname
        (True, True)
        >>> [c["name"] for c in ctx.get_ciphers()][:2]
        ['ECC_SM4_GCM_SM3', 'ECC_SM4_CBC_SM3']
    """

    protocol = "TLCPv1.1"
    _SUITES = TLCP_SUITES
    _SERVER_CONFIG = _tls.TlcpServerConfig
    _CLIENT_CONFIG = _tls.TlcpClientConfig

    def __init__(self, server_side: bool = False) -> None:
        super().__init__(server_side)
        self._double = False

    def _client_options(self) -> dict[str, Any]:
        return {"ecc_client_double_certificate": self._double}

    @property
    def ecc_client_double_certificate(self) -> bool:
        """With ECC suites, a client asked for certificates sends its encryption
        certificate after the signing one (Tongsuo's server wants it; GmSSL 3.1.1's refuses
        it). Off by default; ECDHE suites always send both."""
        return self._double

    @ecc_client_double_certificate.setter
    def ecc_client_double_certificate(self, value: bool) -> None:
        self._double = bool(value)
        self._changed()

    def load_cert_chain(
        self,
        certfile: CertSource,
        keyfile: Optional[KeySource] = None,
        password: Optional[Password] = None,
        *,
        enc_cert: CertSource,
        enc_key: KeySource,
        enc_password: Optional[Password] = None,
    ) -> None:
        """Sets this side's double certificates: ``certfile`` is the signing certificate
        (then its intermediates), ``keyfile`` its key (read from ``certfile`` when
        omitted); ``enc_cert``/``enc_key`` the encryption certificate and key. Each source
        is a path, PEM, DER bytes or a guomi object; ``password`` decrypts an encrypted
        key (``enc_password`` the encryption key, ``password`` when omitted)."""
        chain = _certificates(certfile)
        sign_key = _private_key(_key_source(certfile, keyfile), password)
        enc = _certificates(enc_cert)
        if enc_password is not None:
            ekey = _private_key(enc_key, enc_password)
        else:  # the signing key's password, if the encryption key is encrypted too
            try:
                ekey = _private_key(enc_key, password)
            except TypeError:
                if password is None:
                    raise
                ekey = _private_key(enc_key, None)
        identity = (chain, sign_key, enc[0], ekey)
        # Checked now (key matches certificate), not at the first connection.
        _tls.TlcpServerConfig(
            identity=identity,
            suites=list(TLCP_SUITES),
            client_auth=0,
            client_roots=[],
            crls=[],
            require_crls=False,
            session_cache_size=0,
        )
        self._identity = identity
        self._changed()

    def _connection(self, server_hostname: Optional[str], session: Any) -> Any:
        config = self._config()
        if self.server_side:
            if session is not None:
                raise InvalidArgument("session is for clients only")
            return _tls.Connection.tlcp_server(config)
        if session is not None and not isinstance(session, _tls.Session):
            raise TypeError("session must come from a TLCP socket's .session")
        return _tls.Connection.tlcp_client(config, server_hostname, session)


class TLS13Context(_Context):
    """TLS 1.3 with RFC 8998's SM suites (``TLS_SM4_GCM_SM3``, ``TLS_SM4_CCM_SM3``),
    the curveSM2 key share and sm2sig_sm3 signatures, as ``ssl.SSLContext``. A client
    context remembers session tickets by server name and resumes with them (PSK).

    Example:
        >>> from guomi import tls
        >>> ctx = tls.TLS13Context(server_side=True)
        >>> ctx.verify_mode == tls.CERT_NONE, ctx.check_hostname
        (True, False)
        >>> [c["name"] for c in ctx.get_ciphers()]
        ['TLS_SM4_GCM_SM3', 'TLS_SM4_CCM_SM3']
    """

    protocol = "TLSv1.3"
    _SUITES = TLS13_SUITES
    _SERVER_CONFIG = _tls.Tls13ServerConfig
    _CLIENT_CONFIG = _tls.Tls13ClientConfig

    def __init__(self, server_side: bool = False) -> None:
        super().__init__(server_side)
        #: Send the change_cipher_spec records of RFC 8446's middlebox compatibility mode
        #: (rustls always does; every conforming peer ignores them). Set to ``False`` for
        #: peers that abort on them instead: GmSSL 3.1.1's ``tls13_client`` and
        #: ``tls13_server``.
        self.middlebox_compat = True

    def _client_options(self) -> dict[str, Any]:
        return {"session_cache_size": self._session_cache_size}

    def load_cert_chain(
        self,
        certfile: CertSource,
        keyfile: Optional[KeySource] = None,
        password: Optional[Password] = None,
    ) -> None:
        """Sets this side's SM2 certificate (then its intermediates) and key, as
        ``ssl.SSLContext.load_cert_chain``; sources as in ``TLCPContext.load_cert_chain``."""
        chain = _certificates(certfile)
        key = _private_key(_key_source(certfile, keyfile), password)
        _tls.Tls13ServerConfig(
            identity=(chain, key),
            suites=list(TLS13_SUITES),
            client_auth=0,
            client_roots=[],
            crls=[],
            require_crls=False,
            session_cache_size=0,
        )
        self._identity = (chain, key)
        self._changed()

    def _connection(self, server_hostname: Optional[str], session: Any) -> Any:
        if session is not None:
            raise InvalidArgument("TLS 1.3 contexts resume by themselves (session tickets); pass no session")
        config = self._config()
        if self.server_side:
            return _tls.Connection.tls13_server(config, not self.middlebox_compat)
        return _tls.Connection.tls13_client(config, server_hostname, not self.middlebox_compat)
