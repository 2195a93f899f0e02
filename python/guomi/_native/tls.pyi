"""TLCP (GB/T 38636) and TLS 1.3 with the RFC 8998 suites as sans-I/O connections
(see `guomi.tls`)."""

from typing import Optional, final

from guomi._native.sm2 import PrivateKey
from guomi._native.x509 import Certificate, CertificateRevocationList
from guomi._typing import BytesLike

__all__ = [
    "TlcpClientConfig",
    "TlcpServerConfig",
    "Tls13ClientConfig",
    "Tls13ServerConfig",
    "Session",
    "Connection",
    "MAX_SESSION_CACHE",
]

MAX_SESSION_CACHE: int

_TlcpIdentity = tuple[list[Certificate], PrivateKey, Certificate, PrivateKey]
_Tls13Identity = tuple[list[Certificate], PrivateKey]

@final
class TlcpClientConfig:
    """A TLCP client configuration (immutable; shared by the connections made from it)."""
    def __new__(
        cls,
        *,
        roots: list[Certificate],
        crls: list[CertificateRevocationList],
        require_crls: bool,
        verify: bool,
        check_hostname: bool,
        suites: list[int],
        identity: Optional[_TlcpIdentity],
        ecc_client_double_certificate: bool,
    ) -> TlcpClientConfig: ...

@final
class TlcpServerConfig:
    """A TLCP server configuration with its session cache."""
    def __new__(
        cls,
        *,
        identity: _TlcpIdentity,
        suites: list[int],
        client_auth: int,
        client_roots: list[Certificate],
        crls: list[CertificateRevocationList],
        require_crls: bool,
        session_cache_size: int,
    ) -> TlcpServerConfig: ...

@final
class Tls13ClientConfig:
    """A TLS 1.3 client configuration (with its session cache for resumption)."""
    def __new__(
        cls,
        *,
        roots: list[Certificate],
        crls: list[CertificateRevocationList],
        require_crls: bool,
        verify: bool,
        check_hostname: bool,
        suites: list[int],
        identity: Optional[_Tls13Identity],
        session_cache_size: int,
    ) -> Tls13ClientConfig: ...

@final
class Tls13ServerConfig:
    """A TLS 1.3 server configuration (with its ticket keys and session cache)."""
    def __new__(
        cls,
        *,
        identity: _Tls13Identity,
        suites: list[int],
        client_auth: int,
        client_roots: list[Certificate],
        crls: list[CertificateRevocationList],
        require_crls: bool,
        session_cache_size: int,
    ) -> Tls13ServerConfig: ...

@final
class Session:
    """A TLCP session to resume (opaque; from `Connection.session()`)."""
    @property
    def id(self) -> bytes:
        """The session ID."""
    @property
    def suite(self) -> int:
        """The suite's code point."""

@final
class Connection:
    """One connection of either protocol, driven by bytes: `read_tls`, `process`,
    `write_tls`, `send`, `recv`. Thread-safe (calls are serialised).
    """
    @staticmethod
    def tlcp_client(
        config: TlcpClientConfig, server_name: Optional[str], session: Optional[Session] = None
    ) -> Connection:
        """A TLCP client, resuming `session` when given."""
    @staticmethod
    def tlcp_server(config: TlcpServerConfig) -> Connection:
        """A TLCP server."""
    @staticmethod
    def tls13_client(
        config: Tls13ClientConfig, server_name: Optional[str], drop_ccs: bool = False
    ) -> Connection:
        """A TLS 1.3 client; `drop_ccs` leaves out the middlebox-compatibility
        change_cipher_spec records (for GmSSL 3.1.1).
        """
    @staticmethod
    def tls13_server(config: Tls13ServerConfig, drop_ccs: bool = False) -> Connection:
        """A TLS 1.3 server; `drop_ccs` as for `tls13_client`."""
    def read_tls(self, data: BytesLike) -> int:
        """Buffers bytes from the network; returns how many were taken."""
    def process(self) -> None:
        """Runs the protocol over the buffered bytes (the GIL released: the handshake's SM2
        operations run here).
        """
    def write_tls(self) -> bytes:
        """The bytes to send to the peer (empty when there are none)."""
    def send(self, data: BytesLike) -> None:
        """Queues application data (at most 1 MiB per call)."""
    def recv(self) -> bytes:
        """The application data received so far (empty when there is none)."""
    def close(self) -> None:
        """Queues close_notify."""
    @property
    def is_handshaking(self) -> bool:
        """Whether the handshake is still running."""
    @property
    def wants_write(self) -> bool:
        """Whether `write_tls` has bytes."""
    @property
    def peer_closed(self) -> bool:
        """Whether the peer sent close_notify."""
    @property
    def failed(self) -> bool:
        """Whether the connection has failed."""
    @property
    def suite(self) -> Optional[int]:
        """The negotiated suite's code point."""
    @property
    def version(self) -> Optional[int]:
        """The protocol version (0x0101 TLCP, 0x0304 TLS 1.3)."""
    @property
    def resumed(self) -> bool:
        """Whether the handshake resumed a session."""
    @property
    def server_name(self) -> Optional[str]:
        """The server name the client sent (TLS 1.3 server side)."""
    def peer_certificates(self) -> list[Certificate]:
        """The peer's certificates as sent (TLCP: signing, encryption, chain; TLS 1.3:
        leaf, chain).
        """
    def session(self) -> Optional[Session]:
        """The TLCP session to resume later (`None` for TLS 1.3, whose client configuration
        keeps its own tickets, or before the handshake completes).
        """
