"""What every connection object reports (``TLSObject``, ``TLSSocket``, the asyncio
transport): the peer's certificates, suite, version and session, as ``ssl`` reports them;
and the one loop that moves bytes between the network and the engine."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional, Union

from .. import x509
from ._context import TLCP_SUITES, TLS13_SUITES

if TYPE_CHECKING:
    from ._context import Session, _Context

#: Plaintext handed to the engine per call (records are at most 16 KiB each).
SEND_CHUNK = 64 * 1024
#: Bytes read from the network per call.
RECV_CHUNK = 64 * 1024

_VERSIONS = {0x0101: "TLCPv1.1", 0x0304: "TLSv1.3"}


def _name_tuple(dn: str) -> tuple[tuple[tuple[str, str], ...], ...]:
    """``CN=a, O=b`` as ``ssl``'s ``((('commonName', 'a'),), (('organizationName', 'b'),))``."""
    long = {
        "CN": "commonName",
        "O": "organizationName",
        "OU": "organizationalUnitName",
        "C": "countryName",
        "ST": "stateOrProvinceName",
        "L": "localityName",
        "E": "emailAddress",
        "emailAddress": "emailAddress",
        "SN": "surname",
        "serialNumber": "serialNumber",
        "DC": "domainComponent",
    }
    out = []
    for part in (p.strip() for p in dn.split(",")):
        if "=" in part:
            k, v = part.split("=", 1)
            out.append(((long.get(k.strip(), k.strip()), v.strip()),))
    return tuple(out)


def cert_dict(cert: x509.Certificate) -> dict[str, Any]:
    """A certificate as ``ssl.SSLSocket.getpeercert()`` shows one."""
    d: dict[str, Any] = {
        "subject": _name_tuple(cert.subject),
        "issuer": _name_tuple(cert.issuer),
        "version": cert.version,
        "serialNumber": format(cert.serial_number, "X"),
        "notBefore": cert.not_valid_before.strftime("%b %d %H:%M:%S %Y GMT"),
        "notAfter": cert.not_valid_after.strftime("%b %d %H:%M:%S %Y GMT"),
    }
    san = cert.subject_alternative_names
    if san:
        kinds = {"dns": "DNS", "ip": "IP Address", "email": "email", "uri": "URI"}
        d["subjectAltName"] = tuple((kinds.get(k, k), v) for k, v in san)
    return d


class ConnectionInfo:
    """The reporting half of a connection; needs ``_conn``, ``_context`` and
    ``_handshake_done``."""

    _conn: Any
    _context: _Context
    _handshake_done: bool

    @property
    def context(self) -> _Context:
        """The context this connection was made from."""
        return self._context

    @property
    def server_side(self) -> bool:
        """Whether this is the server end."""
        return self._context.server_side

    def getpeercerts(self) -> list[x509.Certificate]:
        """The peer's certificates as sent. TLCP: the signing certificate, the encryption
        certificate, then the chain; TLS 1.3: the leaf, then the chain. Empty before the
        handshake and when the peer sent none."""
        return list(self._conn.peer_certificates()) if self._handshake_done else []

    def getpeercert(self, binary_form: bool = False) -> Union[dict[str, Any], bytes, None]:
        """The peer's (signing) certificate, as ``ssl``: a dict, or its DER with
        ``binary_form``. ``None`` when the peer sent none; before the handshake, a
        ``ValueError`` as ``ssl`` raises."""
        if not self._handshake_done:
            raise ValueError("handshake not done yet")
        certs = self._conn.peer_certificates()
        if not certs:
            return None
        return certs[0].to_der() if binary_form else cert_dict(certs[0])

    def cipher(self) -> Optional[tuple[str, str, int]]:
        """``(suite name, protocol version, secret bits)``, or ``None`` before the
        handshake."""
        code = self._conn.suite
        if code is None or not self._handshake_done:
            return None
        names = TLCP_SUITES.get(code) or TLS13_SUITES.get(code) or (f"0x{code:04X}",)
        return (names[0], self.version() or "", 128)

    def version(self) -> Optional[str]:
        """``"TLCPv1.1"`` or ``"TLSv1.3"`` once the handshake is done, else ``None``."""
        v = self._conn.version
        return _VERSIONS.get(v) if self._handshake_done and v is not None else None

    def shared_ciphers(self) -> Optional[list[tuple[str, str, int]]]:
        """As ``ssl``: the negotiated suite only."""
        c = self.cipher()
        return [c] if c else None

    def compression(self) -> None:
        """Always ``None``: TLCP and TLS 1.3 carry no compression."""
        return None

    def selected_alpn_protocol(self) -> None:
        """Always ``None``: ALPN is not negotiated."""
        return None

    @property
    def session(self) -> Optional[Session]:
        """The TLCP session to pass to a later ``wrap_socket(..., session=)`` (``None``
        for TLS 1.3, whose client context resumes by itself, and before the handshake)."""
        return self._conn.session() if self._handshake_done else None

    @property
    def session_reused(self) -> bool:
        """Whether the handshake resumed a session."""
        return bool(self._handshake_done and self._conn.resumed)


#: Network bytes handed to the engine per call: one largest protected record (2^14 + 2048
#: bytes and its 5-byte header). rustls takes about one record at a time before its
#: plaintext must be drained, so offering more would only copy bytes it refuses.
FEED_CHUNK = 16384 + 2048 + 5


def feed(conn: Any, pending: bytearray, plain: bytearray) -> None:
    """Hands buffered network bytes to the engine, runs it and moves the plaintext it
    produced to ``plain``, until the engine has taken every byte (it refuses input while
    its own buffers are full, so the plaintext is drained between calls). Raises the
    engine's error (the caller flushes the alert first); the bytes taken before the error
    are gone from ``pending`` either way."""
    off = 0
    view = memoryview(pending)
    try:
        while True:
            taken = conn.read_tls(view[off : off + FEED_CHUNK]) if off < len(view) else 0
            off += taken
            conn.process()
            plain += conn.recv()
            if off >= len(view) or taken == 0:
                return
    finally:
        view.release()
        del pending[:off]
