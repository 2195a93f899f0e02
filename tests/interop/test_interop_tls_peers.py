"""The TLS interop peers talk to each other (issue 31): GmSSL 3.1.1's TLCP, TLS 1.3 and
TLS 1.2 tools, tjfoc/gmsm v1.4.1's gmtls and Tongsuo (BabaSSL 8.3.2 inside tongsuopy), on
loopback, each exchange carrying data, with double-certificate sets made by GmSSL's tools
and by guomi's builders; captured sessions are decrypted with guomi's primitives to pin
down the key schedule and record layout. These are the peers guomi's TLCP engine and
rustls provider are to be tested against; this module proves the peers and the
certificates first. See README.md ("TLS peers").

A missing toolchain (cmake + a C compiler, go, the tongsuopy wheel) or a failed fetch
skips, or fails with GUOMI_INTEROP_REQUIRED=1, like the other peers. Combinations that do
not interoperate are strict xfails carrying the reason.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from guomi import x509

from . import tls_peers as tp

AUTH = pytest.mark.parametrize("client_auth", [False, True], ids=["server-auth", "client-auth"])


GMSSL_TLS_NEEDS_CACERT = (
    "GmSSL 3.1.1's tls13_client and tls12_client verify the server's chain even without "
    "-cacert, against an empty CA list (x509_certs_verify finds no root: "
    "x509_certs_get_cert_by_subject), so they refuse every server, whoever made its certificates"
)


GMSSL_NO_EXTENSIONS = (
    "GmSSL 3.1.1's tlcp_server answers any ClientHello extension with unexpected_message "
    "(tlcp_do_accept); Tongsuo 8.3.2's NTLS client always sends some"
)


TONGSUO_CLIENT_AUTH = (
    "Tongsuo 8.3.2's NTLS server with client verification wants the client's double "
    "certificate even for ECC suites ('peer did not return a certificate' when the Certificate "
    "message holds one); GmSSL's and gmtls' clients send the signing certificate alone"
)


def _expect_echo(res: tp.ClientResult, message: str) -> None:
    assert res.established, res.err[-3000:]
    # GmSSL's clients print the echo (plus the echoes of the empty lines that pumped it).
    assert message + "\n" in res.reply, res


def test_versions(gmssl: Path, gmtls: Path) -> None:
    assert subprocess.run([str(gmssl), "version"], capture_output=True, text=True).stdout.startswith(
        f"GmSSL {tp.GMSSL_VERSION}"
    )
    out = subprocess.run([str(gmtls), "version"], capture_output=True, text=True).stdout
    assert f'"version":"{tp.GMTLS_VERSION}"' in out


def test_cert_sets(certs: tp.CertSet) -> None:
    """Both makers give the usages TLCP needs, and guomi verifies both sets' chains."""
    ca = x509.Certificate.from_pem(certs.ca.read_text())
    sign = x509.Certificate.from_pem(certs.sign_cert.read_text())
    enc = x509.Certificate.from_pem(certs.enc_cert.read_text())
    client = x509.Certificate.from_pem(certs.client_cert.read_text())
    assert ca.basic_constraints is not None and ca.basic_constraints.ca
    assert sign.key_usage is not None and "digitalSignature" in sign.key_usage
    assert enc.key_usage is not None and "keyEncipherment" in enc.key_usage
    assert "digitalSignature" not in enc.key_usage
    for leaf in (sign, enc, client):
        assert [c.subject for c in x509.verify_chain(leaf, [], [ca])][-1] == ca.subject


# ----------------------------------------------------------------------------- TLCP


@AUTH
def test_tlcp_gmssl_client_gmtls_server(
    gmssl: Path, gmtls: Path, certs: tp.CertSet, client_auth: bool
) -> None:
    msg = f"gmssl tlcp_client to gmtls, {certs.maker} certs"
    with tp.gmtls_server(gmtls, certs, client_auth="verify" if client_auth else "none") as srv:
        res = tp.gmssl_client(gmssl, "tlcp", srv.port, msg, certs, client_cert=client_auth)
    _expect_echo(res, msg)
    hs = [e for e in srv.events() if e["event"] == "handshake"]
    assert hs and hs[0]["suite"] == "0xe013" and hs[0]["version"] == "0x0101", srv.proc.text()
    assert hs[0]["peer_certs"] == (1 if client_auth else 0)


@AUTH
def test_tlcp_gmtls_client_gmssl_server(
    gmssl: Path, gmtls: Path, certs: tp.CertSet, client_auth: bool
) -> None:
    msg = f"gmtls client to gmssl tlcp_server, {certs.maker} certs"
    with tp.gmssl_tlcp_server(gmssl, certs, client_auth=client_auth) as srv:
        res = tp.gmtls_client(gmtls, srv.port, msg, certs, client_cert=client_auth)
    assert res.reply == msg, (res.out, res.err, srv.proc.text())
    hs = res.event("handshake")
    assert hs["suite"] == "0xe013" and hs["version"] == "0x0101"
    assert hs["peer_certs"] == 2  # signing + encryption certificate


@AUTH
def test_tlcp_gmssl_both_sides(gmssl: Path, certs: tp.CertSet, client_auth: bool) -> None:
    msg = f"gmssl tlcp both sides, {certs.maker} certs"
    with tp.gmssl_tlcp_server(gmssl, certs, client_auth=client_auth) as srv:
        res = tp.gmssl_client(gmssl, "tlcp", srv.port, msg, certs, client_cert=client_auth)
    _expect_echo(res, msg)


@AUTH
def test_tlcp_gmtls_both_sides(gmtls: Path, certs: tp.CertSet, client_auth: bool) -> None:
    msg = f"gmtls both sides, {certs.maker} certs"
    with tp.gmtls_server(gmtls, certs, client_auth="verify" if client_auth else "none") as srv:
        res = tp.gmtls_client(gmtls, srv.port, msg, certs, client_cert=client_auth)
    assert res.reply == msg, (res.out, res.err, srv.proc.text())
    assert res.event("handshake")["suite"] == "0xe013"


def test_tlcp_no_shared_suite(gmssl: Path, gmtls: Path, certs: tp.CertSet) -> None:
    """A gmtls client offering only ECDHE_SM4_CBC_SM3 finds no suite at GmSSL's server
    (which has ECC_SM4_CBC_SM3 only): the handshake fails, no data flows."""
    with tp.gmssl_tlcp_server(gmssl, certs) as srv:
        res = tp.gmtls_client(gmtls, srv.port, "x", certs, suites=[tp.ECDHE_SM4_CBC_SM3])
    assert not res.established and res.reply == ""


def test_tlcp_wire_facts(gmssl: Path, gmtls: Path, certs: tp.CertSet) -> None:
    """The records of a GmSSL client <-> gmtls server session, read off a relay: version
    0x0101 on every record, a ClientHello without extensions, ECC_SM4_CBC_SM3 chosen,
    a Certificate message of exactly two certificates (signing first, encryption second),
    CBC records with an explicit IV, gmtls' 1/n-1 split of application data, and GmSSL's
    close_notify sent as a plaintext fatal alert."""
    from guomi import sm2

    msg = "wire facts"
    with tp.gmtls_server(gmtls, certs) as srv, tp.recording_relay(srv.port) as (port, log):
        res = tp.gmssl_client(gmssl, "tlcp", port, msg, certs)
    _expect_echo(res, msg)
    c2s, s2c = tp.records(log, "c>s"), tp.records(log, "s>c")
    assert all(v == 0x0101 for _, v, _ in c2s + s2c)
    ch = c2s[0][2]
    assert ch[0] == 1  # ClientHello
    body = ch[4:]
    assert body[:2] == b"\x01\x01"
    sid_len = body[34]
    p = 35 + sid_len
    n_suites = int.from_bytes(body[p : p + 2], "big")
    suites = [int.from_bytes(body[p + 2 + i : p + 4 + i], "big") for i in range(0, n_suites, 2)]
    assert suites == [tp.ECC_SM4_CBC_SM3]
    p += 2 + n_suites
    assert body[p : p + 2] == b"\x01\x00" and len(body) == p + 2  # null compression, no extensions
    # The server's first flight: ServerHello, Certificate, ServerKeyExchange, ServerHelloDone
    # (gmtls writes one handshake message per record).
    sh, cert_msg, ske, shd = (r[2] for r in s2c[:4])
    assert sh[0] == 2 and int.from_bytes(sh[4 + 2 + 32 + 1 + sh[4 + 34] :][:2], "big") == tp.ECC_SM4_CBC_SM3
    assert cert_msg[0] == 11 and ske[0] == 12 and shd[0] == 14
    certs_der, q = [], 4 + 3
    while q < len(cert_msg):
        n = int.from_bytes(cert_msg[q : q + 3], "big")
        certs_der.append(cert_msg[q + 3 : q + 3 + n])
        q += 3 + n
    sign = x509.Certificate.from_pem(certs.sign_cert.read_text())
    enc = x509.Certificate.from_pem(certs.enc_cert.read_text())
    assert certs_der == [sign.to_der(), enc.to_der()]
    # ServerKeyExchange: a uint16-length DER SM2 signature over
    # client_random || server_random || uint24(len(enc cert)) || enc cert, default ID.
    sig = ske[4 + 2 :]
    assert int.from_bytes(ske[4:6], "big") == len(sig)
    tbs = ch[6:38] + sh[6:38] + len(enc.to_der()).to_bytes(3, "big") + enc.to_der()
    assert sign.public_key().verify(sig, tbs)
    # ClientKeyExchange: uint16 length + SM2 ciphertext in DER (GM/T 0009 SM2Cipher).
    cke = c2s[1][2]
    assert cke[0] == 16 and int.from_bytes(cke[4:6], "big") == len(cke) - 6 and cke[6] == 0x30
    enc_key = sm2.PrivateKey.from_pem(certs.enc_key_p8.read_text())
    assert len(enc_key.decrypt(cke[6:], format="der")) == 48  # the pre-master secret
    # After ChangeCipherSpec: CBC records = IV (16) || CBC(data || HMAC-SM3 (32) || padding).
    app_s2c = [r for r in s2c if r[0] == 23]
    assert len(app_s2c) >= 2 and all((len(f) - 16) % 16 == 0 and len(f) >= 16 + 48 for _, _, f in app_s2c)
    assert len(app_s2c[0][2]) == 16 + 48  # 1 byte + MAC + 15 padding: the 1/n-1 split
    # GmSSL's close_notify: a plaintext 2-byte alert (level 2 fatal, 0), not encrypted.
    assert c2s[-1][:2] == (21, 0x0101) and c2s[-1][2] == b"\x02\x00"


# ----------------------------------------------------------------------------- Tongsuo (NTLS)

TONGSUO_NTLS = {
    tp.ECC_SM4_CBC_SM3: "ECC-SM2-SM4-CBC-SM3",
    tp.ECC_SM4_GCM_SM3: "ECC-SM2-SM4-GCM-SM3",
    tp.ECDHE_SM4_CBC_SM3: "ECDHE-SM2-SM4-CBC-SM3",
    tp.ECDHE_SM4_GCM_SM3: "ECDHE-SM2-SM4-GCM-SM3",
}
ALL_NTLS = ["-ciphers", ":".join(TONGSUO_NTLS.values())]


@pytest.mark.parametrize("client", ["gmtls", "gmssl"])
@AUTH
def test_tlcp_tongsuo_server(
    request: pytest.FixtureRequest,
    gmssl: Path,
    gmtls: Path,
    tongsuo: list[str],
    certs: tp.CertSet,
    client: str,
    client_auth: bool,
) -> None:
    """gmtls and GmSSL clients against Tongsuo's NTLS server (all four suites enabled):
    they offer and get ECC_SM4_CBC_SM3."""
    if client_auth:
        request.applymarker(pytest.mark.xfail(strict=True, reason=TONGSUO_CLIENT_AUTH))
    msg = f"{client} client to tongsuo, {certs.maker} certs"
    auth = "verify" if client_auth else "none"
    with tp.gmtls_server(tongsuo, certs, client_auth=auth, extra=ALL_NTLS) as srv:
        if client == "gmtls":
            res = tp.gmtls_client(gmtls, srv.port, msg, certs, client_cert=client_auth)
            assert res.reply == msg, (res.out, res.err, srv.proc.text())
        else:
            res = tp.gmssl_client(gmssl, "tlcp", srv.port, msg, certs, client_cert=client_auth)
            _expect_echo(res, msg)
    hs = [e for e in srv.events() if e["event"] == "handshake"]
    assert hs and hs[0]["suite"] == "0xe013" and hs[0]["version"] == "NTLSv1.1", srv.proc.text()
    assert hs[0]["peer_cert"] == client_auth


@pytest.mark.parametrize("server", ["gmtls", "gmssl"])
@AUTH
def test_tlcp_tongsuo_client(
    request: pytest.FixtureRequest,
    gmssl: Path,
    gmtls: Path,
    tongsuo: list[str],
    certs: tp.CertSet,
    server: str,
    client_auth: bool,
) -> None:
    """Tongsuo's NTLS client (ECC_SM4_CBC_SM3) against the gmtls and GmSSL servers; for
    client authentication it is given a double certificate (it sends none with a signing
    certificate alone)."""
    if server == "gmssl":
        request.applymarker(pytest.mark.xfail(strict=True, reason=GMSSL_NO_EXTENSIONS))
    msg = f"tongsuo client to {server}, {certs.maker} certs"
    if server == "gmtls":
        ctx = tp.gmtls_server(gmtls, certs, client_auth="verify" if client_auth else "none")
    else:
        ctx = tp.gmssl_tlcp_server(gmssl, certs, client_auth=client_auth)
    enc = ["-enc-cert", str(certs.enc_cert), "-enc-key", str(certs.enc_key_p8)] if client_auth else []
    with ctx as srv:
        res = tp.gmtls_client(tongsuo, srv.port, msg, certs, client_cert=client_auth, extra=enc)
    assert res.reply == msg, (res.out, res.err, srv.proc.text())
    hs = res.event("handshake")
    assert hs["suite"] == "0xe013" and hs["version"] == "NTLSv1.1" and hs["peer_cert"]


@pytest.mark.parametrize("suite", list(TONGSUO_NTLS), ids=list(TONGSUO_NTLS.values()))
def test_tlcp_tongsuo_both_sides(tongsuo: list[str], tmp_path: Path, suite: int) -> None:
    """Tongsuo to itself in each of its four NTLS suites, guomi-made certificates. ECDHE
    (SM2 key exchange) needs the client's double certificate too: the client's encryption
    certificate here is the guomi-made one with keyEncipherment + keyAgreement (OpenSSL's
    SSL-client purpose check refuses an encryption certificate with keyEncipherment only,
    as GmSSL's reqsign -key_usage keyEncipherment makes it)."""
    certs = tp.make_guomi_certs(tmp_path)
    msg = f"tongsuo both sides {TONGSUO_NTLS[suite]}"
    client_certs = ["-enc-cert", str(certs.enc_cert), "-enc-key", str(certs.enc_key_p8)]
    ecdhe = suite in (tp.ECDHE_SM4_CBC_SM3, tp.ECDHE_SM4_GCM_SM3)
    with tp.gmtls_server(tongsuo, certs, client_auth="verify" if ecdhe else "none", extra=ALL_NTLS) as srv:
        res = tp.gmtls_client(
            tongsuo,
            srv.port,
            msg,
            certs,
            client_cert=ecdhe,
            extra=["-ciphers", TONGSUO_NTLS[suite], *(client_certs if ecdhe else [])],
        )
    assert res.reply == msg, (res.out, res.err, srv.proc.text())
    assert res.event("handshake")["suite"] == f"0x{suite:04x}"


def test_tls13_tongsuo_both_sides(tongsuo: list[str], certs: tp.CertSet) -> None:
    """Tongsuo's TLS 1.3 with TLS_SM4_GCM_SM3, group SM2, sm2sig_sm3, client verifying."""
    msg = f"tongsuo tls13, {certs.maker} certs"
    with tp.gmtls_server(tongsuo, certs, extra=["-tls13"]) as srv:
        res = tp.gmtls_client(tongsuo, srv.port, msg, certs, extra=["-tls13"])
    assert res.reply == msg, (res.out, res.err, srv.proc.text())
    hs = res.event("handshake")
    assert hs["suite"] == "0x00c6" and hs["version"] == "TLSv1.3"


@pytest.mark.xfail(
    strict=True,
    reason="Tongsuo 8.3.2's TLS 1.3 server sends the middlebox-compatibility ChangeCipherSpec "
    "after ServerHello (RFC 8446 D.4); GmSSL 3.1.1's tls13_client tries to decrypt it as its "
    "first encrypted record (tls13_gcm_decrypt fails) and sends bad_record_mac",
)
def test_tls13_gmssl_client_tongsuo_server(gmssl: Path, tongsuo: list[str], tmp_path: Path) -> None:
    certs = tp.make_gmssl_certs(gmssl, tmp_path)
    with tp.gmtls_server(tongsuo, certs, extra=["-tls13"]) as srv:
        res = tp.gmssl_client(gmssl, "tls13", srv.port, "gmssl tls13 to tongsuo", certs)
    _expect_echo(res, "gmssl tls13 to tongsuo")


@pytest.mark.xfail(
    strict=True,
    reason="Tongsuo 8.3.2's TLS 1.3 client sends a legacy_session_id (middlebox compatibility "
    "mode) and GmSSL 3.1.1's tls13_server does not echo it in its ServerHello; Tongsuo refuses "
    "that (tls_process_server_hello: invalid session id)",
)
def test_tls13_tongsuo_client_gmssl_server(gmssl: Path, tongsuo: list[str], tmp_path: Path) -> None:
    certs = tp.make_gmssl_certs(gmssl, tmp_path)
    with tp.gmssl_tls_server(gmssl, certs, "13") as srv:
        res = tp.gmtls_client(tongsuo, srv.port, "tongsuo tls13 to gmssl", certs, extra=["-tls13"])
    assert res.reply == "tongsuo tls13 to gmssl", (res.out, res.err)


# ----------------------------------------------------------------------------- TLS 1.3 / 1.2


@AUTH
def test_tls13_gmssl(gmssl: Path, certs: tp.CertSet, client_auth: bool) -> None:
    """GmSSL tls13_client <-> tls13_server: TLS_SM4_GCM_SM3, curveSM2, sm2sig_sm3."""
    msg = f"gmssl tls13, {certs.maker} certs"
    with tp.gmssl_tls_server(gmssl, certs, "13", client_auth=client_auth) as srv:
        res = tp.gmssl_client(gmssl, "tls13", srv.port, msg, certs, client_cert=client_auth)
    _expect_echo(res, msg)


def test_tls13_wire_facts(gmssl: Path, certs: tp.CertSet) -> None:
    """GmSSL's TLS 1.3 ClientHello: TLS_SM4_GCM_SM3 only, supported_groups curveSM2 (41),
    signature_algorithms sm2sig_sm3 (0x0708), one key share on curveSM2 (65-byte point),
    supported_versions TLS 1.3."""
    msg = "tls13 wire"
    with tp.gmssl_tls_server(gmssl, certs, "13") as srv, tp.recording_relay(srv.port) as (port, log):
        res = tp.gmssl_client(gmssl, "tls13", port, msg, certs)
    _expect_echo(res, msg)
    ch = tp.records(log, "c>s")[0][2]
    assert ch[0] == 1
    body = ch[4:]
    p = 35 + body[34]
    n = int.from_bytes(body[p : p + 2], "big")
    assert [int.from_bytes(body[p + 2 + i : p + 4 + i], "big") for i in range(0, n, 2)] == [
        tp.TLS_SM4_GCM_SM3
    ]
    p += 2 + n
    p += 1 + body[p]
    exts = {}
    end = p + 2 + int.from_bytes(body[p : p + 2], "big")
    p += 2
    while p < end:
        t, ln = int.from_bytes(body[p : p + 2], "big"), int.from_bytes(body[p + 2 : p + 4], "big")
        exts[t] = body[p + 4 : p + 4 + ln]
        p += 4 + ln
    assert exts[10] == b"\x00\x02\x00\x29"  # supported_groups: curveSM2
    assert exts[13] == b"\x00\x02\x07\x08"  # signature_algorithms: sm2sig_sm3
    assert exts[43] == b"\x02\x03\x04"  # supported_versions: TLS 1.3
    ks = exts[51]
    assert ks[2:4] == b"\x00\x29" and int.from_bytes(ks[4:6], "big") == 65 and ks[6] == 4


@AUTH
def test_tls12_gmssl(gmssl: Path, certs: tp.CertSet, client_auth: bool) -> None:
    """GmSSL tls12_client <-> tls12_server: ECDHE_SM4_CBC_SM3 (0xe011) over TLS 1.2."""
    msg = f"gmssl tls12, {certs.maker} certs"
    with tp.gmssl_tls_server(gmssl, certs, "12", client_auth=client_auth) as srv:
        res = tp.gmssl_client(gmssl, "tls12", srv.port, msg, certs, client_cert=client_auth)
    _expect_echo(res, msg)


@pytest.mark.parametrize("kind", ["tlcp-gmtls-server", "tlcp", "tls13", "tls12"])
def test_guomi_certs_gmssl_not_verifying(
    request: pytest.FixtureRequest, gmssl: Path, gmtls: Path, tmp_path: Path, kind: str
) -> None:
    """guomi-made double certificates in every GmSSL exchange where GmSSL does not verify
    the chain (client without -cacert, no client authentication): the handshakes and the
    data go through, so the keys, usages and the certificates' encoding serve TLCP (the
    verifying runs: test_tls13_gmssl, test_tls12_gmssl, test_tlcp_gmssl_both_sides).
    GmSSL's tls13_client and tls12_client cannot run unverified at all: strict xfails."""
    if kind in ("tls13", "tls12"):
        request.applymarker(pytest.mark.xfail(strict=True, reason=GMSSL_TLS_NEEDS_CACERT))
    certs = tp.make_guomi_certs(tmp_path)
    msg = f"guomi certs, {kind}, GmSSL not verifying"
    if kind == "tlcp-gmtls-server":
        with tp.gmtls_server(gmtls, certs) as srv:
            res = tp.gmssl_client(gmssl, "tlcp", srv.port, msg, certs, verify=False)
    elif kind == "tlcp":
        with tp.gmssl_tlcp_server(gmssl, certs) as srv:
            res = tp.gmssl_client(gmssl, "tlcp", srv.port, msg, certs, verify=False)
    else:
        with tp.gmssl_tls_server(gmssl, certs, kind[3:]) as srv:
            res = tp.gmssl_client(gmssl, kind, srv.port, msg, certs, verify=False)
    _expect_echo(res, msg)


# ----------------------------------------------------------------------------- key files


def test_gmssl_reads_guomi_encrypted_key(gmssl: Path, tmp_path: Path) -> None:
    """guomi's encrypted PKCS#8 (PBKDF2-HMAC-SM3, SM4-CBC: the PRF AlgorithmIdentifier
    without parameters, the ECPrivateKey with [0] sm2p256v1 and [1] publicKey, the only
    form GmSSL 3.1.1 reads) signs in GmSSL; guomi verifies."""
    from guomi import keys, sm2

    key = sm2.PrivateKey.generate()
    (tmp_path / "key.pem").write_text(keys.dump_pem_private_key(key, tp.PASSWORD))
    (tmp_path / "msg").write_bytes(b"signed by gmssl with a guomi key file")
    out = subprocess.run(
        [str(gmssl), "sm2sign", "-key", "key.pem", "-pass", tp.PASSWORD, "-in", "msg", "-out", "sig"],
        cwd=tmp_path,
        capture_output=True,
    )
    assert out.returncode == 0, out.stderr.decode(errors="replace")[-1500:]
    assert key.public_key().verify((tmp_path / "sig").read_bytes(), (tmp_path / "msg").read_bytes())


# ----------------------------------------------------------------------------- key schedule


def _prf(secret: bytes, label: bytes, seed: bytes, n: int) -> bytes:
    """The TLS 1.2 PRF with HMAC-SM3 (GM/T 0024 §6.5 / GB/T 38636)."""
    from guomi import sm3

    out, a = b"", label + seed
    while len(out) < n:
        a = sm3.hmac(secret, a)
        out += sm3.hmac(secret, a + label + seed)
    return out[:n]


def _decode_tlcp(log: list[tuple[str, bytes]], enc_key_pem: str, suite: int) -> dict[str, Any]:
    """Decrypts one captured TLCP session (ECC key exchange, no client auth) with the
    server's encryption key and guomi's primitives, checking every MAC/tag and both
    Finished messages; returns the application data of each direction and the layout."""
    from guomi import sm2, sm3, sm4

    c2s, s2c = tp.records(log, "c>s"), tp.records(log, "s>c")
    ccs_c = next(i for i, r in enumerate(c2s) if r[0] == 20)
    ccs_s = next(i for i, r in enumerate(s2c) if r[0] == 20)

    def messages(recs: list[tuple[int, int, bytes]]) -> list[bytes]:
        """The handshake messages of plaintext records (several may share a record)."""
        buf = b"".join(r[2] for r in recs if r[0] == 22)
        out = []
        while buf:
            n = 4 + int.from_bytes(buf[1:4], "big")
            out.append(buf[:n])
            buf = buf[n:]
        return out

    c_msgs, s_msgs = messages(c2s[:ccs_c]), messages(s2c[:ccs_s])
    done = next(i for i, m in enumerate(s_msgs) if m[0] == 14)  # ServerHelloDone
    transcript = c_msgs[:1] + s_msgs[: done + 1] + c_msgs[1:]
    after_done = s_msgs[done + 1 :]  # NewSessionTicket (Tongsuo), before the server's CCS
    ch, sh = c_msgs[0], s_msgs[0]
    cr, sr = ch[6:38], sh[6:38]
    cke = next(m for m in transcript if m[0] == 16)
    pms = sm2.PrivateKey.from_pem(enc_key_pem).decrypt(cke[6:], format="der")
    assert len(pms) == 48 and pms[:2] == b"\x01\x01"  # the pre-master secret starts with 0x0101
    master = _prf(pms, b"master secret", cr + sr, 48)
    gcm = suite in (tp.ECC_SM4_GCM_SM3, tp.ECDHE_SM4_GCM_SM3)
    if gcm:  # no MAC keys; 4-byte implicit IVs (salts)
        kb = _prf(master, b"key expansion", sr + cr, 40)
        keys = {"c>s": (b"", kb[0:16], kb[32:36]), "s>c": (b"", kb[16:32], kb[36:40])}
    else:  # MAC keys 32, SM4 keys 16 (IVs follow in the key block, unused: explicit IVs)
        kb = _prf(master, b"key expansion", sr + cr, 128)
        keys = {"c>s": (kb[0:32], kb[64:80], b""), "s>c": (kb[32:64], kb[80:96], b"")}
    data: dict[str, bytes] = {"c>s": b"", "s>c": b""}
    finished: dict[str, bytes] = {}
    empty = {"c>s": 0, "s>c": 0}
    for tag, recs, ccs in (("c>s", c2s, ccs_c), ("s>c", s2c, ccs_s)):
        mac_key, key, salt = keys[tag]
        for seq, (typ, ver, frag) in enumerate(recs[ccs + 1 :]):
            hdr = seq.to_bytes(8, "big") + bytes([typ]) + ver.to_bytes(2, "big")
            if typ == 21 and len(frag) == 2:  # GmSSL's plaintext close_notify
                continue
            if gcm:
                nonce, body = salt + frag[:8], frag[8:]
                aad = hdr + (len(body) - 16).to_bytes(2, "big")
                plain = sm4.SM4GCM(key).decrypt(nonce, body, aad)
            else:
                padded = sm4.decrypt(key, frag[16:], mode="cbc", iv=frag[:16], padding="none")
                plain = padded[: len(padded) - padded[-1] - 1]
                pad = padded[len(plain) :]
                assert pad == bytes([pad[-1]]) * len(pad)
                plain, mac = plain[:-32], plain[-32:]
                assert sm3.hmac(mac_key, hdr + len(plain).to_bytes(2, "big") + plain) == mac
            if typ == 22:
                finished[tag] = plain
            elif typ == 23:
                empty[tag] += not plain
                data[tag] += plain
    h_client = sm3.hash(b"".join(transcript))
    assert finished["c>s"] == b"\x14\x00\x00\x0c" + _prf(master, b"client finished", h_client, 12)
    h_server = sm3.hash(b"".join(transcript) + finished["c>s"] + b"".join(after_done))
    assert finished["s>c"] == b"\x14\x00\x00\x0c" + _prf(master, b"server finished", h_server, 12)
    return {"data": data, "empty_records": empty}


def test_tlcp_key_schedule_cbc(gmssl: Path, gmtls: Path, tmp_path: Path) -> None:
    """A GmSSL client <-> gmtls server session (ECC_SM4_CBC_SM3) decrypted from the wire
    with guomi's SM2, SM3 and SM4: the PRF, key block, explicit-IV CBC records, HMAC-SM3
    record MACs and both Finished messages are as README.md describes."""
    certs = tp.make_gmssl_certs(gmssl, tmp_path)
    msg = "key schedule, CBC"
    with tp.gmtls_server(gmtls, certs) as srv, tp.recording_relay(srv.port) as (port, log):
        res = tp.gmssl_client(gmssl, "tlcp", port, msg, certs)
    _expect_echo(res, msg)
    got = _decode_tlcp(log, certs.enc_key_p8.read_text(), tp.ECC_SM4_CBC_SM3)
    assert got["data"]["c>s"].startswith(msg.encode() + b"\n")
    assert got["data"]["s>c"].startswith(msg.encode() + b"\n")


@pytest.mark.parametrize("suite", [tp.ECC_SM4_CBC_SM3, tp.ECC_SM4_GCM_SM3], ids=["cbc", "gcm"])
def test_tlcp_key_schedule_tongsuo(tongsuo: list[str], tmp_path: Path, suite: int) -> None:
    """A Tongsuo <-> Tongsuo session decrypted from the wire: for ECC_SM4_GCM_SM3 the key
    block is client key, server key, client salt (4), server salt (4); each record is an
    explicit 8-byte nonce || ciphertext || 16-byte tag, nonce = salt || explicit, AAD =
    seq || type || version || plaintext length (RFC 5288 layout); the explicit nonces start
    at a random value and count up by one per record (not the sequence number). The server
    sends a NewSessionTicket before its ChangeCipherSpec (it counts in the server Finished
    hash)."""
    certs = tp.make_guomi_certs(tmp_path)
    msg = f"key schedule, Tongsuo {suite:#06x}"
    name = TONGSUO_NTLS[suite]
    with tp.gmtls_server(tongsuo, certs, extra=["-ciphers", name]) as srv:
        with tp.recording_relay(srv.port) as (port, log):
            res = tp.gmtls_client(tongsuo, port, msg, certs, extra=["-ciphers", name])
    assert res.reply == msg, (res.out, res.err, srv.proc.text())
    got = _decode_tlcp(log, certs.enc_key_p8.read_text(), suite)
    assert got["data"]["c>s"] == got["data"]["s>c"] == msg.encode() + b"\n"
    # Tongsuo writes an empty application-data record ahead of the data (CBC and GCM alike).
    assert got["empty_records"] == {"c>s": 1, "s>c": 1}
    if suite == tp.ECC_SM4_GCM_SM3:
        c2s = tp.records(log, "c>s")
        ccs = next(i for i, r in enumerate(c2s) if r[0] == 20)
        explicit = [r[2][:8] for r in c2s[ccs + 1 :] if r[0] in (22, 23)]
        # not the sequence number: a random 8-byte start, incremented by one per record
        n0 = int.from_bytes(explicit[0], "big")
        assert explicit == [(n0 + i).to_bytes(8, "big") for i in range(len(explicit))]


VECTORS = sorted(tp.DATA_DIR.glob("tlcp-*.json"))


@pytest.mark.parametrize("path", VECTORS, ids=[p.stem for p in VECTORS])
def test_tlcp_vectors(path: Path) -> None:
    """The saved sessions in tests/interop/data/ (``python tests/interop/tls_peers.py
    --vectors`` writes them) decrypt offline, no peer needed: test vectors for the TLCP
    engine's key schedule and record layer."""
    import json

    vec = json.loads(path.read_text())
    log = [("c>s", bytes.fromhex(vec["client_to_server"])), ("s>c", bytes.fromhex(vec["server_to_client"]))]
    got = _decode_tlcp(log, vec["server_enc_key_pem"], int(vec["suite"], 16))
    assert got["data"]["c>s"].startswith(vec["message"].encode())
    assert got["data"]["s>c"].startswith(vec["message"].encode())


def test_tlcp_ecdhe_wire_facts(tongsuo: list[str], tmp_path: Path) -> None:
    """Tongsuo's ECDHE_SM4_GCM_SM3 handshake on the wire: ServerKeyExchange = ECParameters
    (named_curve 3, curveSM2 41) || uint8 65 || ephemeral point || uint16 length || DER SM2
    signature (default ID) over client_random || server_random || those ECParameters and
    point; CertificateRequest before ServerHelloDone; the client sends its double
    certificate; ClientKeyExchange = ECParameters (3, 41) || uint8 65 || its ephemeral
    point; CertificateVerify = uint16 length || DER signature (as GmSSL's and gmtls')."""
    certs = tp.make_guomi_certs(tmp_path)
    name = TONGSUO_NTLS[tp.ECDHE_SM4_GCM_SM3]
    enc = ["-enc-cert", str(certs.enc_cert), "-enc-key", str(certs.enc_key_p8)]
    with tp.gmtls_server(tongsuo, certs, client_auth="verify", extra=["-ciphers", name]) as srv:
        with tp.recording_relay(srv.port) as (port, log):
            res = tp.gmtls_client(
                tongsuo, port, "ecdhe", certs, client_cert=True, extra=["-ciphers", name, *enc]
            )
    assert res.reply == "ecdhe", (res.out, res.err, srv.proc.text())
    c2s, s2c = tp.records(log, "c>s"), tp.records(log, "s>c")
    server_types = [r[2][0] for r in s2c if r[0] == 22][:5]
    assert server_types == [2, 11, 12, 13, 14]  # SH, Certificate, SKE, CertificateRequest, SHD
    client_types = [r[2][0] for r in c2s if r[0] == 22][:4]
    assert client_types == [1, 11, 16, 15]  # CH, Certificate, CKE, CertificateVerify
    ske = next(r[2] for r in s2c if r[0] == 22 and r[2][0] == 12)[4:]
    assert ske[:4] == b"\x03\x00\x29\x41" and ske[4] == 4
    params, sig = ske[: 4 + 65], ske[4 + 65 :]
    assert int.from_bytes(sig[:2], "big") == len(sig) - 2
    cr, sr = c2s[0][2][6:38], s2c[0][2][6:38]
    sign = x509.Certificate.from_pem(certs.sign_cert.read_text())
    assert sign.public_key().verify(sig[2:], cr + sr + params)
    client_cert_msg = next(r[2] for r in c2s if r[0] == 22 and r[2][0] == 11)
    n1 = int.from_bytes(client_cert_msg[7:10], "big")
    first = client_cert_msg[10 : 10 + n1]
    assert first == x509.Certificate.from_pem(certs.client_cert.read_text()).to_der()  # signing first
    cke = next(r[2] for r in c2s if r[0] == 22 and r[2][0] == 16)[4:]
    assert cke[:4] == b"\x03\x00\x29\x41" and cke[4] == 4 and len(cke) == 4 + 65
    cv = next(r[2] for r in c2s if r[0] == 22 and r[2][0] == 15)[4:]
    assert int.from_bytes(cv[:2], "big") == len(cv) - 2 and cv[2] == 0x30
