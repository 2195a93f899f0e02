#!/usr/bin/env python3
"""Soak test of guomi.tls over loopback: concurrent clients against one
``guomi.tls.start_server``, each looping over full handshakes, resumed handshakes and
echo round trips, plus clients that stall in the middle of a handshake.

    python scripts/tls-soak.py                       # 100 clients, 120 s, TLCP and TLS 1.3
    python scripts/tls-soak.py --clients 20 --seconds 10 --protocol tls13

Passes (exit 0) when there were no errors, every stalled client was dropped by the
server's handshake timeout while the others kept going, the server process's resident
memory stayed flat (the second half's growth under --max-rss-growth MiB) and no file
descriptor leaked (the count after the run equals the count before). Prints one JSON
line of figures.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from guomi import sm2, tls, x509


def rss_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def fd_count() -> int:
    return len(os.listdir("/proc/self/fd"))


def contexts(protocol: str) -> tuple[Any, Any]:
    ca_key = sm2.PrivateKey.generate()
    ca = x509.CertificateBuilder(subject="CN=soak CA").ca().valid_for_days(2).self_sign(ca_key)

    def leaf(usage: list[str]) -> tuple[x509.Certificate, sm2.PrivateKey]:
        key = sm2.PrivateKey.generate()
        b = x509.CertificateBuilder(subject="CN=localhost", public_key=key.public_key())
        b = b.with_key_usage(usage).with_subject_alternative_names(["dns:localhost"]).valid_for_days(2)
        return b.sign(ca, ca_key), key

    sign, enc = leaf(["digitalSignature"]), leaf(["keyEncipherment", "keyAgreement"])
    server: Any
    client: Any
    if protocol == "tlcp":
        server, client = tls.TLCPContext(server_side=True), tls.TLCPContext()
        server.load_cert_chain(sign[0], sign[1], enc_cert=enc[0], enc_key=enc[1])
    else:
        server, client = tls.TLS13Context(server_side=True), tls.TLS13Context()
        server.load_cert_chain(*sign)
    client.load_verify_locations(cadata=ca.to_pem())
    return server, client


async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while line := await reader.readline():
            writer.write(line)
            await writer.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        writer.close()


class Stats:
    def __init__(self) -> None:
        self.full = self.resumed = self.echoes = self.stalled_dropped = 0
        self.errors: list[str] = []


async def client_loop(i: int, port: int, ctx: Any, protocol: str, deadline: float, st: Stats) -> None:
    session = None
    n = 0
    while time.monotonic() < deadline:
        try:
            r, w = await tls.open_connection(
                "127.0.0.1", port, context=ctx, server_hostname="localhost", session=session
            )
            info = w.get_extra_info("tls_object")
            if info.session_reused:
                st.resumed += 1
            else:
                st.full += 1
            for k in range(3):
                msg = b"client %d round %d line %d\n" % (i, n, k)
                w.write(msg)
                await w.drain()
                if await r.readline() != msg:
                    st.errors.append(f"client {i}: echo mismatch")
                st.echoes += 1
            if protocol == "tlcp":
                # Every other connection starts afresh; the others resume.
                session = info.session if n % 2 == 0 else None
            w.close()
            await w.wait_closed()
        except Exception as e:  # noqa: BLE001 - every failure is counted
            st.errors.append(f"client {i}: {type(e).__name__}: {e}")
        n += 1


async def staller(port: int, protocol: str, hold: float, st: Stats) -> None:
    """Connects, sends the start of a ClientHello record, and waits: the server must drop
    it when its handshake timeout expires."""
    r, w = await asyncio.open_connection("127.0.0.1", port)
    version = b"\x01\x01" if protocol == "tlcp" else b"\x03\x01"
    w.write(b"\x16" + version + b"\x00\x40\x01\x00\x00")
    await w.drain()
    try:
        got = await asyncio.wait_for(r.read(), hold)
        if got == b"" or got.startswith(b"\x15"):  # closed, possibly after an alert
            st.stalled_dropped += 1
    except asyncio.TimeoutError:
        st.errors.append("a stalled client was not dropped by the handshake timeout")
    w.close()


async def soak(protocol: str, clients: int, seconds: float, stallers: int, timeout: float) -> dict[str, Any]:
    server_ctx, client_ctx = contexts(protocol)
    server_ctx.handshake_timeout = timeout
    fds_before = fd_count()
    srv = await tls.start_server(handle, "127.0.0.1", 0, context=server_ctx, backlog=1024)
    port = srv.sockets[0].getsockname()[1]
    st = Stats()
    start = time.monotonic()
    deadline = start + seconds
    rss_samples: list[tuple[float, int]] = []

    async def sample() -> None:
        while time.monotonic() < deadline:
            rss_samples.append((time.monotonic() - start, rss_kib()))
            await asyncio.sleep(0.5)

    tasks = [client_loop(i, port, client_ctx, protocol, deadline, st) for i in range(clients)]
    tasks += [staller(port, protocol, timeout * 3 + 5, st) for _ in range(stallers)]
    await asyncio.gather(sample(), *tasks)
    srv.close()
    await srv.wait_closed()
    await asyncio.sleep(0.2)
    half = [kib for t, kib in rss_samples if t >= seconds / 2]
    growth = (max(half) - min(half)) / 1024 if half else 0.0
    return {
        "protocol": protocol,
        "clients": clients,
        "seconds": seconds,
        "full_handshakes": st.full,
        "resumed_handshakes": st.resumed,
        "echo_round_trips": st.echoes,
        "handshakes_per_s": round((st.full + st.resumed) / seconds, 1),
        "stalled_clients_dropped": st.stalled_dropped,
        "stallers": stallers,
        "errors": len(st.errors),
        "first_errors": st.errors[:5],
        "rss_mib_start": round(rss_samples[0][1] / 1024, 1) if rss_samples else 0,
        "rss_mib_end": round(rss_samples[-1][1] / 1024, 1) if rss_samples else 0,
        "rss_growth_second_half_mib": round(growth, 1),
        "fds_leaked": fd_count() - fds_before,
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--clients", type=int, default=100)
    p.add_argument("--seconds", type=float, default=120.0)
    p.add_argument("--stallers", type=int, default=5)
    p.add_argument("--handshake-timeout", type=float, default=2.0)
    p.add_argument("--protocol", choices=["tlcp", "tls13", "both"], default="both")
    p.add_argument("--max-rss-growth", type=float, default=16.0, help="MiB (default 16)")
    a = p.parse_args()
    if not 1 <= a.clients <= 10_000 or not 0 < a.seconds <= 86_400 or not 0 <= a.stallers <= 1000:
        p.error("--clients in [1, 10000], --seconds in (0, 86400], --stallers in [0, 1000]")
    ok = True
    for protocol in ("tlcp", "tls13") if a.protocol == "both" else (a.protocol,):
        r = asyncio.run(soak(protocol, a.clients, a.seconds, a.stallers, a.handshake_timeout))
        print(json.dumps(r), flush=True)
        if (
            r["errors"]
            or r["fds_leaked"] > 0
            or r["stalled_clients_dropped"] != a.stallers
            or r["rss_growth_second_half_mib"] > a.max_rss_growth
            or r["full_handshakes"] == 0
            or (r["resumed_handshakes"] == 0)
        ):
            ok = False
    print("tls-soak:", "passed" if ok else "FAILED", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
