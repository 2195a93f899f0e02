"""Benchmark operations: TLCP and TLS 1.3 handshakes and records, guomi on both ends in
memory (``wrap_bio``: no sockets, no threads), so a row is the CPU cost of both sides
together. Handshakes: TLCP ECC and ECDHE full, TLCP resumed by session ID, TLS 1.3 full
and resumed with a ticket (PSK with a curveSM2 key share). Records: 16 KiB of
application data sealed by one side and opened by the other. The loopback benchmark
against other TLS stacks is ``benches/tls.py``.
"""

from __future__ import annotations

import ssl
from collections.abc import Callable
from typing import Any, Optional

from guomi import sm2, tls, x509
from guomi.bench import Impl, Op, pattern

RECORD = 16 * 1024


def _pki() -> dict[str, Any]:
    ca_key = sm2.PrivateKey.generate()
    ca = x509.CertificateBuilder(subject="CN=bench CA").ca().valid_for_days(2).self_sign(ca_key)

    def leaf(cn: str, usage: list[str]) -> tuple[x509.Certificate, sm2.PrivateKey]:
        key = sm2.PrivateKey.generate()
        cert = (
            x509.CertificateBuilder(subject=f"CN={cn}", public_key=key.public_key())
            .with_key_usage(usage)
            .with_subject_alternative_names(["dns:bench.test"])
            .valid_for_days(2)
            .sign(ca, ca_key)
        )
        return cert, key

    return {
        "ca": ca,
        "server_sign": leaf("bench.test", ["digitalSignature"]),
        "server_enc": leaf("bench.test", ["keyEncipherment", "keyAgreement"]),
        "client_sign": leaf("client", ["digitalSignature"]),
        "client_enc": leaf("client", ["keyEncipherment", "keyAgreement"]),
    }


def _contexts(pki: dict[str, Any], protocol: str, suite: str, client_id: bool) -> tuple[Any, Any]:
    if protocol == "tlcp":
        server: Any = tls.TLCPContext(server_side=True)
        (sc, sk), (ec, ek) = pki["server_sign"], pki["server_enc"]
        server.load_cert_chain(sc, sk, enc_cert=ec, enc_key=ek)
        client: Any = tls.TLCPContext()
        if client_id:
            (cc, ck), (cec, cek) = pki["client_sign"], pki["client_enc"]
            client.load_cert_chain(cc, ck, enc_cert=cec, enc_key=cek)
            server.load_verify_locations(cadata=pki["ca"].to_pem())
    else:
        server = tls.TLS13Context(server_side=True)
        server.load_cert_chain(*pki["server_sign"])
        client = tls.TLS13Context()
    client.load_verify_locations(cadata=pki["ca"].to_pem())
    client.set_ciphers(suite)
    return client, server


class _Pair:
    """A client and a server object joined in memory."""

    def __init__(self, client_ctx: Any, server_ctx: Any, session: Optional[Any] = None) -> None:
        self.ci, self.co, self.si, self.so = (ssl.MemoryBIO() for _ in range(4))
        self.c = client_ctx.wrap_bio(self.ci, self.co, server_hostname="bench.test", session=session)
        self.s = server_ctx.wrap_bio(self.si, self.so)

    def handshake(self) -> _Pair:
        for _ in range(8):
            for obj in (self.c, self.s):
                try:
                    obj.do_handshake()
                except ssl.SSLWantReadError:
                    pass
            self.si.write(self.co.read())
            self.ci.write(self.so.read())
            if self.c.version() and self.s.version() and not self.co.pending and not self.so.pending:
                return self
        raise RuntimeError("the in-memory handshake did not complete")

    def record(self, data: bytes) -> bytes:
        """``data`` from client to server: sealed, carried, opened."""
        self.c.write(data)
        self.si.write(self.co.read())
        out: bytes = self.s.read(len(data))
        return out


def _full(client_ctx: Any, server_ctx: Any) -> Callable[[], bool]:
    def run() -> bool:
        return _Pair(client_ctx, server_ctx).handshake().c.cipher() is not None

    return run


def _resumed(client_ctx: Any, server_ctx: Any, protocol: str) -> Callable[[], bool]:
    first = _Pair(client_ctx, server_ctx).handshake()
    first.s.write(b"x")  # TLS 1.3: the tickets reach the client with data
    first.ci.write(first.so.read())
    first.c.read(1)
    session = first.c.session if protocol == "tlcp" else None

    def run() -> bool:
        p = _Pair(client_ctx, server_ctx, session).handshake()
        if protocol == "tls13":  # take the next ticket (each is used once)
            p.s.write(b"x")
            p.ci.write(p.so.read())
            p.c.read(1)
        return bool(p.c.session_reused)

    return run


def _carry(pair: _Pair, data: bytes) -> Callable[[], bytes]:
    return lambda: pair.record(data)


def ops(compare: bool) -> list[Op]:
    del compare  # no in-process peer speaks TLCP or TLS 1.3 with the SM suites
    pki = _pki()
    result: list[Op] = []
    for protocol, suite, client_id, label in (
        ("tlcp", "ECC_SM4_GCM_SM3", False, "TLCP ECC full handshake"),
        ("tlcp", "ECDHE_SM4_GCM_SM3", True, "TLCP ECDHE full handshake (client certificates)"),
        ("tls13", "TLS_SM4_GCM_SM3", False, "TLS 1.3 full handshake"),
    ):
        c, s = _contexts(pki, protocol, suite, client_id)
        result.append(Op("TLS", f"{label}, both sides", None, [Impl("guomi", _full(c, s), verify=bool)]))
    for protocol, suite, label in (
        ("tlcp", "ECC_SM4_GCM_SM3", "TLCP resumed handshake (session ID)"),
        ("tls13", "TLS_SM4_GCM_SM3", "TLS 1.3 resumed handshake (ticket, PSK-DHE)"),
    ):
        c, s = _contexts(pki, protocol, suite, False)
        result.append(
            Op("TLS", f"{label}, both sides", None, [Impl("guomi", _resumed(c, s, protocol), verify=bool)])
        )
    data = pattern(RECORD)
    for protocol, suite in (
        ("tlcp", "ECC_SM4_GCM_SM3"),
        ("tlcp", "ECC_SM4_CBC_SM3"),
        ("tls13", "TLS_SM4_GCM_SM3"),
        ("tls13", "TLS_SM4_CCM_SM3"),
    ):
        c, s = _contexts(pki, protocol, suite, False)
        pair = _Pair(c, s).handshake()
        result.append(
            Op(
                "TLS",
                f"{suite} record seal + open ({'TLCP' if protocol == 'tlcp' else 'TLS 1.3'})",
                RECORD,
                [Impl("guomi", _carry(pair, data), verify=lambda out: out == data)],
            )
        )
    return result
