"""SM2 X.509: parse, inspect, verify, build, chains, CSRs; OpenSSL 3 interop both ways."""

from __future__ import annotations

import shutil
import subprocess
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from guomi import sm2, sm3, x509
from guomi.exceptions import (
    CertificateVerificationError,
    InvalidArgument,
    InvalidKey,
    InvalidSignature,
    UnsupportedFormat,
)

OPENSSL = shutil.which("openssl")
needs_openssl = pytest.mark.skipif(OPENSSL is None, reason="openssl CLI not installed")
DISTID = "distid:1234567812345678"
NOW = datetime(2025, 6, 15, tzinfo=timezone.utc)


def openssl(*args: str, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    assert OPENSSL is not None
    return subprocess.run([OPENSSL, *args], cwd=cwd, capture_output=True, timeout=60)


def make_ca(name: str, key: sm2.PrivateKey, path_length: int | None = None) -> x509.Certificate:
    return (
        x509.CertificateBuilder(subject=name)
        .ca(path_length)
        .validity(NOW - timedelta(days=1), NOW + timedelta(days=3650))
        .self_sign(key)
    )


def issue(
    name: str, key: sm2.PrivateKey, issuer: x509.Certificate, issuer_key: sm2.PrivateKey, **kw: object
) -> x509.Certificate:
    b = x509.CertificateBuilder(subject=name, public_key=key.public_key()).validity(
        NOW - timedelta(days=1), NOW + timedelta(days=365)
    )
    if kw.get("ca"):
        b = b.ca(kw.get("path_length"))  # type: ignore[arg-type]
    if "eku" in kw:
        b = b.with_extended_key_usage(kw["eku"])  # type: ignore[arg-type]
    return b.sign(issuer, issuer_key)


@pytest.fixture(scope="module")
def pki() -> dict[str, object]:
    rk, ik, lk = (sm2.PrivateKey.generate() for _ in range(3))
    root = make_ca("CN=Root CA,O=Example,C=CN", rk, path_length=1)
    inter = issue("CN=Intermediate CA,O=Example", ik, root, rk, ca=True, path_length=0)
    leaf = issue("CN=leaf.example,O=Example", lk, inter, ik, eku=["serverAuth"])
    return {"rk": rk, "ik": ik, "lk": lk, "root": root, "inter": inter, "leaf": leaf}


def test_inspect_built_certificate() -> None:
    key = sm2.PrivateKey.generate()
    cert = (
        x509.CertificateBuilder(subject="CN=host,O=Org,C=CN")
        .serial(0x1234)
        .validity(NOW, NOW + timedelta(days=30))
        .with_subject_alternative_names(
            ["dns:host.example", "ip:192.0.2.7", "email:ops@example.com", ("uri", "https://host.example/")]
        )
        .with_extended_key_usage(["serverAuth", "clientAuth"])
        .self_sign(key)
    )
    assert cert.version == 3
    assert cert.serial_number == 0x1234
    assert cert.subject == cert.issuer == "CN=host,O=Org,C=CN"
    assert cert.not_valid_before == NOW and cert.not_valid_after == NOW + timedelta(days=30)
    assert cert.signature_algorithm_oid == x509.SIGNATURE_ALGORITHM_OID == "1.2.156.10197.1.501"
    assert cert.public_key() == key.public_key()
    # End entities carry no basicConstraints (GmSSL 3.1.1 refuses the empty SEQUENCE of
    # cA=FALSE; RFC 5280 §4.2.1.9 lets them leave it out).
    assert cert.basic_constraints is None
    assert bytes.fromhex("0603551d13") not in cert.to_der()
    assert cert.key_usage == {"digitalSignature", "keyEncipherment"}
    assert cert.extended_key_usage == ["serverAuth", "clientAuth"]
    assert cert.subject_alternative_names == [
        ("dns", "host.example"),
        ("ip", "192.0.2.7"),
        ("email", "ops@example.com"),
        ("uri", "https://host.example/"),
    ]
    ski = cert.subject_key_identifier
    assert ski == sm3.hash(key.public_key().to_bytes())[:20]
    assert cert.authority_key_identifier == ski
    assert cert.fingerprint() == sm3.hash(cert.to_der())
    assert len(cert.fingerprint("sha256")) == 32
    assert {e.oid for e in cert.extensions} >= {"2.5.29.15", "2.5.29.37", "2.5.29.17"}
    # The signature verifies over the exact TBS with the default ID.
    assert key.public_key().verify(cert.signature, cert.tbs_certificate_bytes)
    cert.verify_signature(cert)
    cert.verify_signature(key.public_key())
    assert x509.Certificate.from_pem(cert.to_pem()) == cert
    assert x509.Certificate.from_der(cert.to_der()) == cert
    assert hash(x509.Certificate.from_der(cert.to_der())) == hash(cert)
    assert "CN=host" in repr(cert)


def test_openssl_subj_form_and_bundle() -> None:
    key = sm2.PrivateKey.generate()
    a = x509.CertificateBuilder(subject="/C=CN/O=Org/CN=a").self_sign(key)
    assert a.subject == "CN=a,O=Org,C=CN"
    b = x509.CertificateBuilder(subject="CN=b").self_sign(key)
    bundle = "junk before\n" + a.to_pem() + "text between\n" + b.to_pem()
    assert x509.load_pem_certificates(bundle) == [a, b]
    assert x509.Certificate.from_pem(bundle) == a


def test_builder_checks_the_serial_where_it_is_given() -> None:
    # RFC 5280 §4.1.2.2: positive, at most 20 octets encoded (so below 2**159).
    key = sm2.PrivateKey.generate()
    b = x509.CertificateBuilder(subject="CN=x")
    assert b.serial(2**159 - 1).self_sign(key).serial_number == 2**159 - 1
    for bad in (2**159, 2**160, 0, -1):
        with pytest.raises(InvalidArgument, match="20 octets"):
            b.serial(bad)
        with pytest.raises(InvalidArgument, match="20 octets"):
            x509.CertificateBuilder(subject="CN=x", serial_number=bad)
    with pytest.raises(TypeError):
        b.serial("7")  # type: ignore[arg-type]


def test_builder_rejects_bad_input() -> None:
    key, other = sm2.PrivateKey.generate(), sm2.PrivateKey.generate()
    with pytest.raises(ValueError):
        x509.CertificateBuilder(subject="not a dn").self_sign(key)
    with pytest.raises(ValueError):
        x509.CertificateBuilder(subject="CN=x").serial(0).self_sign(key)
    with pytest.raises(ValueError):
        x509.CertificateBuilder(subject="CN=x").with_subject_alternative_names(["ip:300.1.1.1"]).self_sign(
            key
        )
    with pytest.raises(ValueError):
        x509.CertificateBuilder(subject="CN=x").with_key_usage(["signEverything"]).self_sign(key)
    with pytest.raises(ValueError):
        x509.CertificateBuilder(subject="CN=x").with_extended_key_usage(["bogus"]).self_sign(key)
    with pytest.raises(InvalidKey):
        x509.CertificateBuilder(subject="CN=x", public_key=other.public_key()).self_sign(key)
    root = make_ca("CN=R", key)
    leaf = issue("CN=l", other, root, key)
    # A CA key that does not match the CA certificate; a non-CA issuer.
    with pytest.raises(InvalidKey):
        x509.CertificateBuilder(subject="CN=y", public_key=other.public_key()).sign(root, other)
    with pytest.raises(ValueError, match="not a CA"):
        x509.CertificateBuilder(subject="CN=y", public_key=key.public_key()).sign(leaf, other)


def test_chain_valid(pki: dict) -> None:
    path = x509.verify_chain(pki["leaf"], [pki["inter"]], [pki["root"]], at=NOW, purpose="serverAuth")
    assert [c.subject for c in path] == [
        "CN=leaf.example,O=Example",
        "CN=Intermediate CA,O=Example",
        "CN=Root CA,O=Example,C=CN",
    ]
    # Unordered extras and a trust store with unrelated roots are fine.
    other = make_ca("CN=Other", sm2.PrivateKey.generate())
    assert len(x509.verify_chain(pki["leaf"], [other, pki["inter"]], [other, pki["root"]], at=NOW)) == 3
    # The intermediate itself as a trust anchor.
    assert len(x509.verify_chain(pki["leaf"], [], [pki["inter"]], at=NOW)) == 2


def _fails(leaf, ints, roots, *, at=NOW, purpose=None) -> CertificateVerificationError:
    with pytest.raises(CertificateVerificationError) as e:
        x509.verify_chain(leaf, ints, roots, at=at, purpose=purpose)
    assert e.value.subject in str(e.value) and e.value.reason in str(e.value)
    return e.value


def test_chain_expired_and_not_yet_valid(pki: dict) -> None:
    e = _fails(pki["leaf"], [pki["inter"]], [pki["root"]], at=NOW + timedelta(days=400))
    assert e.subject == "CN=leaf.example,O=Example" and e.reason.startswith("expired") and e.depth == 0
    e = _fails(pki["leaf"], [pki["inter"]], [pki["root"]], at=NOW - timedelta(days=2))
    assert e.reason.startswith("not yet valid")
    # An expired intermediate.
    rk, ik, lk = pki["rk"], sm2.PrivateKey.generate(), sm2.PrivateKey.generate()
    old = (
        x509.CertificateBuilder(subject="CN=Old CA", public_key=ik.public_key())
        .ca()
        .validity(NOW - timedelta(days=30), NOW - timedelta(days=1))
        .sign(pki["root"], rk)
    )
    leaf = (
        x509.CertificateBuilder(subject="CN=l", public_key=lk.public_key())
        .validity(NOW - timedelta(days=2), NOW + timedelta(days=2))
        .sign(old, ik)
    )
    e = _fails(leaf, [old], [pki["root"]])
    assert e.subject == "CN=Old CA" and e.reason.startswith("expired") and e.depth == 1


def test_chain_wrong_issuer_and_untrusted(pki: dict) -> None:
    e = _fails(pki["leaf"], [], [pki["root"]])
    assert e.subject == "CN=leaf.example,O=Example" and "not found" in e.reason
    impostor = make_ca("CN=Root CA,O=Example,C=CN", sm2.PrivateKey.generate(), path_length=1)
    e = _fails(pki["leaf"], [pki["inter"]], [impostor])
    assert e.subject == "CN=Intermediate CA,O=Example" and "signature does not verify" in e.reason
    e = _fails(pki["leaf"], [pki["inter"], pki["root"]], [make_ca("CN=Else", sm2.PrivateKey.generate())])
    assert e.subject == "CN=Root CA,O=Example,C=CN" and "not among the trust roots" in e.reason
    with pytest.raises(InvalidSignature):
        pki["leaf"].verify_signature(pki["root"])


def test_chain_non_ca_issuer(pki: dict) -> None:
    # A certificate "issued" by the leaf key under the leaf's name, with the leaf (no
    # basicConstraints, so not a CA) as the only candidate issuer.
    lk = pki["lk"]
    fake_ca = (
        x509.CertificateBuilder(subject="CN=leaf.example,O=Example", public_key=lk.public_key())
        .ca()
        .validity(NOW - timedelta(days=1), NOW + timedelta(days=1))
        .sign(pki["inter"], pki["ik"])
    )
    sub = issue("CN=sub", sm2.PrivateKey.generate(), fake_ca, lk)
    e = _fails(sub, [pki["leaf"], pki["inter"]], [pki["root"]])
    assert e.subject == "CN=leaf.example,O=Example" and "not a CA" in e.reason and e.depth == 1


def test_chain_path_length_exceeded(pki: dict) -> None:
    i2k = sm2.PrivateKey.generate()
    inter2 = issue("CN=Second CA", i2k, pki["inter"], pki["ik"], ca=True)
    leaf = issue("CN=deep", sm2.PrivateKey.generate(), inter2, i2k)
    e = _fails(leaf, [pki["inter"], inter2], [pki["root"]])
    assert e.subject == "CN=Intermediate CA,O=Example" and "path length" in e.reason


def test_chain_key_cert_sign_required(pki: dict) -> None:
    # Signed by hand-made CA whose keyUsage lacks keyCertSign: build it with the right
    # bits first (the builder refuses such an issuer), then swap in a twin without them.
    ck = sm2.PrivateKey.generate()
    base = (
        x509.CertificateBuilder(subject="CN=Weak CA", public_key=ck.public_key())
        .ca()
        .validity(NOW - timedelta(days=1), NOW + timedelta(days=10))
    )
    good = base.sign(pki["root"], pki["rk"])
    weak = base.with_key_usage(["digitalSignature"]).sign(pki["root"], pki["rk"])
    leaf = issue("CN=w", sm2.PrivateKey.generate(), good, ck)
    assert len(x509.verify_chain(leaf, [good], [pki["root"]], at=NOW)) == 3
    e = _fails(leaf, [weak], [pki["root"]])
    assert e.subject == "CN=Weak CA" and "keyCertSign" in e.reason


def test_chain_purpose(pki: dict) -> None:
    e = _fails(pki["leaf"], [pki["inter"]], [pki["root"]], purpose="codeSigning")
    assert "codeSigning" in e.reason
    assert x509.verify_chain(pki["leaf"], [pki["inter"]], [pki["root"]], at=NOW, purpose="1.3.6.1.5.5.7.3.1")
    with pytest.raises(ValueError):
        x509.verify_chain(pki["leaf"], [pki["inter"]], [pki["root"]], at=NOW, purpose="nonsense")


def test_tampered_signature_and_corrupt_input(pki: dict) -> None:
    der = bytearray(pki["leaf"].to_der())
    der[-3] ^= 0x01  # inside s
    bad = x509.Certificate.from_der(bytes(der))
    with pytest.raises(InvalidSignature):
        bad.verify_signature(pki["inter"])
    e = _fails(bad, [pki["inter"]], [pki["root"]])
    assert e.subject == "CN=leaf.example,O=Example" and "signature" in e.reason
    tbs = bytearray(pki["leaf"].to_der())
    i = tbs.index(b"leaf.example")
    tbs[i] = ord("x")  # subject changed after signing
    with pytest.raises(InvalidSignature):
        x509.Certificate.from_der(bytes(tbs)).verify_signature(pki["inter"])
    with pytest.raises(UnsupportedFormat):
        x509.Certificate.from_der(pki["leaf"].to_der()[:-5])
    with pytest.raises(UnsupportedFormat):
        x509.Certificate.from_der(b"\x30\x03\x02\x01\x01")
    with pytest.raises(UnsupportedFormat):
        x509.Certificate.from_pem("-----BEGIN CERTIFICATE-----\nAAAA*\n-----END CERTIFICATE-----\n")
    with pytest.raises(UnsupportedFormat):
        x509.Certificate.from_pem(pki["leaf"].public_key().to_pem())


def test_csr_build_parse_verify_issue(pki: dict) -> None:
    k = sm2.PrivateKey.generate()
    csr = x509.CertificateSigningRequestBuilder(
        subject="CN=svc,O=Example", subject_alternative_names=["dns:svc.example", "ip:::1"]
    ).sign(k)
    again = x509.CertificateSigningRequest.from_pem(csr.to_pem())
    assert again.subject == "CN=svc,O=Example"
    assert again.public_key() == k.public_key()
    assert again.subject_alternative_names == [("dns", "svc.example"), ("ip", "::1")]
    assert again.signature_algorithm_oid == "1.2.156.10197.1.501"
    again.verify()
    assert again.is_signature_valid
    cert = (
        x509.CertificateBuilder.from_csr(again)
        .validity(NOW, NOW + timedelta(days=1))
        .sign(pki["inter"], pki["ik"])
    )
    assert cert.subject == "CN=svc,O=Example" and cert.public_key() == k.public_key()
    assert cert.subject_alternative_names == [("dns", "svc.example"), ("ip", "::1")]
    assert cert.authority_key_identifier == pki["inter"].subject_key_identifier
    der = bytearray(csr.to_der())
    der[-2] ^= 1
    tampered = x509.CertificateSigningRequest.from_der(bytes(der))
    assert not tampered.is_signature_valid
    with pytest.raises(InvalidSignature):
        tampered.verify()
    with pytest.raises(InvalidSignature):
        x509.CertificateBuilder.from_csr(tampered).sign(pki["inter"], pki["ik"])


# --- OpenSSL 3 interop ---------------------------------------------------------------


@needs_openssl
def test_openssl_certificates_and_csr_verify_in_guomi(tmp_path: Path) -> None:
    def ok(*args: str) -> None:
        r = openssl(*args, cwd=tmp_path)
        assert r.returncode == 0, r.stderr.decode()

    ok("genpkey", "-algorithm", "SM2", "-out", "ca.key")
    ok("genpkey", "-algorithm", "SM2", "-out", "leaf.key")
    ok(
        "req", "-x509", "-key", "ca.key", "-sm3", "-sigopt", DISTID,
        "-subj", "/C=CN/O=OpenSSL/CN=OpenSSL Root", "-days", "30",
        "-addext", "basicConstraints=critical,CA:TRUE,pathlen:0",
        "-addext", "keyUsage=critical,keyCertSign,cRLSign", "-out", "ca.pem",
    )  # fmt: skip
    ok(
        "req", "-new", "-key", "leaf.key", "-sm3", "-sigopt", DISTID, "-subj", "/O=OpenSSL/CN=leaf",
        "-addext", "subjectAltName=DNS:leaf.example,IP:10.1.2.3", "-out", "leaf.csr",
    )  # fmt: skip
    ok(
        "x509", "-req", "-in", "leaf.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-sm3", "-sigopt", DISTID,
        "-vfyopt", DISTID, "-days", "10", "-copy_extensions", "copy", "-out", "leaf.pem",
    )  # fmt: skip
    ca = x509.Certificate.from_pem((tmp_path / "ca.pem").read_text())
    leaf = x509.Certificate.from_pem((tmp_path / "leaf.pem").read_text())
    csr = x509.CertificateSigningRequest.from_pem((tmp_path / "leaf.csr").read_text())
    assert ca.subject == "CN=OpenSSL Root,O=OpenSSL,C=CN"
    assert ca.basic_constraints == x509.BasicConstraints(True, 0)
    assert ca.key_usage == {"keyCertSign", "cRLSign"}
    assert leaf.subject_alternative_names == [("dns", "leaf.example"), ("ip", "10.1.2.3")]
    assert leaf.public_key() == sm2.PrivateKey.from_pem((tmp_path / "leaf.key").read_text()).public_key()
    ca.verify_signature(ca)
    leaf.verify_signature(ca)
    csr.verify()
    assert csr.subject_alternative_names == [("dns", "leaf.example"), ("ip", "10.1.2.3")]
    assert [c.subject for c in x509.verify_chain(leaf, [], [ca])] == ["CN=leaf,O=OpenSSL", ca.subject]
    # Signed without the distinguishing ID (OpenSSL's empty default): guomi refuses.
    ok("req", "-x509", "-key", "ca.key", "-sm3", "-subj", "/CN=no id", "-days", "1", "-out", "noid.pem")
    noid = x509.Certificate.from_pem((tmp_path / "noid.pem").read_text())
    with pytest.raises(InvalidSignature):
        noid.verify_signature(noid)


@needs_openssl
def test_guomi_certificates_and_csr_verify_in_openssl(tmp_path: Path, pki: dict) -> None:
    rk, lk = sm2.PrivateKey.generate(), sm2.PrivateKey.generate()
    root = (
        x509.CertificateBuilder(subject="CN=Guomi Root,O=Guomi,C=CN").ca(1).valid_for_days(3650).self_sign(rk)
    )
    ik = sm2.PrivateKey.generate()
    inter = (
        x509.CertificateBuilder(subject="CN=Guomi Sub,O=Guomi", public_key=ik.public_key())
        .ca(0)
        .sign(root, rk)
    )
    leaf = (
        x509.CertificateBuilder(subject="CN=leaf,O=Guomi", public_key=lk.public_key())
        .with_subject_alternative_names(["dns:leaf.guomi.example"])
        .with_extended_key_usage(["serverAuth"])
        .sign(inter, ik)
    )
    (tmp_path / "root.pem").write_text(root.to_pem())
    (tmp_path / "inter.pem").write_text(inter.to_pem())
    (tmp_path / "leaf.pem").write_text(leaf.to_pem())
    text = openssl("x509", "-in", "leaf.pem", "-noout", "-text", cwd=tmp_path)
    assert text.returncode == 0
    out = text.stdout.decode()
    assert (
        "SM2-with-SM3" in out and "DNS:leaf.guomi.example" in out and "TLS Web Server Authentication" in out
    )
    # OpenSSL 3.0 applies -vfyopt distid only to the first signature it checks (it cannot
    # verify even its own 3-level SM2 chains), so each link is checked on its own.
    v = openssl("verify", "-vfyopt", DISTID, "-CAfile", "root.pem", "inter.pem", cwd=tmp_path)
    assert v.returncode == 0 and b"inter.pem: OK" in v.stdout, v.stdout + v.stderr
    v = openssl(
        "verify", "-vfyopt", DISTID, "-partial_chain", "-CAfile", "inter.pem", "-purpose", "sslserver",
        "leaf.pem", cwd=tmp_path,
    )  # fmt: skip
    assert v.returncode == 0 and b"leaf.pem: OK" in v.stdout, v.stdout + v.stderr
    # OpenSSL agrees that a tampered certificate fails.
    der = bytearray(leaf.to_der())
    der[-3] ^= 1
    (tmp_path / "bad.der").write_bytes(bytes(der))
    assert (
        openssl("x509", "-inform", "DER", "-in", "bad.der", "-out", "bad.pem", cwd=tmp_path).returncode == 0
    )
    bad = openssl(
        "verify", "-vfyopt", DISTID, "-partial_chain", "-CAfile", "inter.pem", "bad.pem", cwd=tmp_path
    )
    assert bad.returncode != 0
    # CSR.
    csr = x509.CertificateSigningRequestBuilder(
        subject="CN=req,O=Guomi", subject_alternative_names=["dns:r.example"]
    ).sign(lk)
    (tmp_path / "req.csr").write_text(csr.to_pem())
    r = openssl("req", "-in", "req.csr", "-noout", "-verify", "-vfyopt", DISTID, "-text", cwd=tmp_path)
    assert r.returncode == 0 and b"DNS:r.example" in r.stdout, r.stderr
    # OpenSSL issues a certificate from guomi's CSR with guomi's CA key.
    (tmp_path / "ca.key").write_text(rk.to_pem())
    r = openssl(
        "x509", "-req", "-in", "req.csr", "-CA", "root.pem", "-CAkey", "ca.key", "-sm3", "-sigopt", DISTID,
        "-vfyopt", DISTID, "-days", "5", "-out", "issued.pem", cwd=tmp_path,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    issued = x509.Certificate.from_pem((tmp_path / "issued.pem").read_text())
    assert issued.public_key() == lk.public_key()
    issued.verify_signature(root)
