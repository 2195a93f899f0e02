"""CRLs: build, parse, inspect, verify; revocation in verify_chain; every bad input; and
interop with the OpenSSL command line (CRLs it issues are read and checked by guomi, and
CRLs guomi issues are verified by ``openssl crl -CAfile``)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from guomi import sm2, x509
from guomi.exceptions import InvalidArgument, InvalidKey, InvalidSignature, UnsupportedFormat

NOW = datetime(2025, 6, 15, tzinfo=timezone.utc)


@pytest.fixture(scope="module")
def pki() -> dict[str, Any]:
    root_key, int_key, leaf_key = (sm2.PrivateKey.generate() for _ in range(3))
    start = NOW - timedelta(days=1)
    root = x509.CertificateBuilder(subject="CN=Root", not_valid_before=start).ca().valid_for_days(3650)
    root_cert = root.self_sign(root_key)
    inter = x509.CertificateBuilder(
        subject="CN=Int", public_key=int_key.public_key(), not_valid_before=start, serial_number=0x11
    ).ca()
    int_cert = inter.sign(root_cert, root_key)
    leaf = x509.CertificateBuilder(
        subject="CN=Leaf", public_key=leaf_key.public_key(), not_valid_before=start, serial_number=0x22
    )
    leaf_cert = leaf.sign(int_cert, int_key)
    return {"root": root_cert, "root_key": root_key, "int": int_cert, "int_key": int_key, "leaf": leaf_cert}


def _crl(
    issuer: x509.Certificate, key: sm2.PrivateKey, *revoked: tuple[int, str | None]
) -> x509.CertificateRevocationList:
    b = x509.CRLBuilder(last_update=NOW - timedelta(hours=1), crl_number=3)
    for serial, reason in revoked:
        b = b.revoke(serial, when=NOW - timedelta(days=2), reason=reason)
    return b.sign(issuer, key)


def _verify(
    p: dict[str, Any], crls: list[x509.CertificateRevocationList], require: bool = False
) -> list[str]:
    path = x509.verify_chain(
        p["leaf"],
        [p["int"]],
        [p["root"]],
        at=NOW,
        crls=crls,
        require_crls=require,
    )
    return [c.subject for c in path]


def test_build_parse_and_inspect(pki: dict[str, Any]) -> None:
    crl = (
        x509.CRLBuilder(last_update=NOW, next_update=NOW + timedelta(days=1), crl_number=2**100)
        .revoke(pki["leaf"], reason="keyCompromise")
        .revoke(0x80FF, when=NOW - timedelta(days=3))
        .sign(pki["int"], pki["int_key"])
    )
    assert crl.version == 2
    assert crl.issuer == "CN=Int"
    assert crl.issuer_der == pki["int"].subject_der
    assert crl.last_update == NOW
    assert crl.next_update == NOW + timedelta(days=1)
    assert crl.crl_number == 2**100
    assert crl.authority_key_identifier == pki["int"].subject_key_identifier
    assert crl.signature_algorithm_oid == x509.SIGNATURE_ALGORITHM_OID
    assert [e.oid for e in crl.extensions] == ["2.5.29.20", "2.5.29.35"]
    entries = crl.revoked_certificates
    assert entries == [
        x509.RevokedCertificate(0x22, NOW, "keyCompromise", None),
        x509.RevokedCertificate(0x80FF, NOW - timedelta(days=3), None, None),
    ]
    assert crl.get_revoked(pki["leaf"]) == entries[0]
    assert crl.get_revoked(0x80FF) == entries[1]
    assert crl.get_revoked(0x23) is None
    # Round trips, equality, hashing.
    assert x509.CertificateRevocationList.from_der(crl.to_der()) == crl
    assert x509.CertificateRevocationList.from_pem(crl.to_pem()) == crl
    assert x509.CertificateRevocationList.from_pem(crl.to_pem().encode()) == crl
    assert len({crl, x509.CertificateRevocationList.from_der(crl.to_der())}) == 1
    assert x509.load_pem_crls(pki["int"].to_pem() + crl.to_pem() + crl.to_pem()) == [crl, crl]
    assert "CN=Int" in repr(crl)
    # Signatures.
    crl.verify_signature(pki["int"])
    crl.verify_signature(pki["int_key"].public_key())
    assert crl.is_signature_valid(pki["int"])
    assert not crl.is_signature_valid(pki["root"])
    with pytest.raises(InvalidSignature):
        crl.verify_signature(pki["root"])
    with pytest.raises(TypeError):
        crl.verify_signature("CN=Int")  # type: ignore[arg-type]


def test_default_builder_values(pki: dict[str, Any]) -> None:
    before = datetime.now(timezone.utc).replace(microsecond=0)
    crl = x509.CRLBuilder().sign(pki["root"], pki["root_key"])
    assert before <= crl.last_update <= datetime.now(timezone.utc)
    assert crl.next_update == crl.last_update + timedelta(days=7)
    assert crl.crl_number == int(crl.last_update.timestamp())
    assert crl.revoked_certificates == []
    no_next = x509.CRLBuilder(days=None).sign(pki["root"], pki["root_key"])
    assert no_next.next_update is None


def test_tampered_crl_does_not_verify(pki: dict[str, Any]) -> None:
    crl = _crl(pki["int"], pki["int_key"], (0x22, None))
    der = bytearray(crl.to_der())
    at = der.index(bytes([2, 1, 0x22]))
    der[at + 2] = 0x23
    forged = x509.CertificateRevocationList.from_der(bytes(der))
    assert forged.get_revoked(0x23) is not None
    with pytest.raises(InvalidSignature):
        forged.verify_signature(pki["int"])
    # A forged CRL is not relied on: verify_chain fails closed.
    with pytest.raises(x509.CertificateVerificationError, match="signature does not verify"):
        _verify(pki, [forged])


def test_revocation_in_verify_chain(pki: dict[str, Any]) -> None:
    empty_int = _crl(pki["int"], pki["int_key"])
    empty_root = _crl(pki["root"], pki["root_key"])
    assert _verify(pki, []) == ["CN=Leaf", "CN=Int", "CN=Root"]
    assert _verify(pki, [empty_int, empty_root], require=True) == ["CN=Leaf", "CN=Int", "CN=Root"]
    leaf_revoked = _crl(pki["int"], pki["int_key"], (0x22, "keyCompromise"))
    with pytest.raises(x509.CertificateVerificationError) as e:
        _verify(pki, [leaf_revoked, empty_root])
    assert (e.value.subject, e.value.depth) == ("CN=Leaf", 0)
    assert e.value.reason == 'revoked on 2025-06-13T00:00:00Z (CRL of "CN=Int", reason keyCompromise)'
    int_revoked = _crl(pki["root"], pki["root_key"], (0x11, None))
    with pytest.raises(x509.CertificateVerificationError) as e:
        _verify(pki, [empty_int, int_revoked])
    assert (e.value.subject, e.value.depth) == ("CN=Int", 1)
    assert e.value.reason.startswith("revoked on ")
    # require_crls: the intermediate's issuer (the root) published none.
    with pytest.raises(x509.CertificateVerificationError) as e:
        _verify(pki, [empty_int], require=True)
    assert (e.value.subject, e.value.reason) == (
        "CN=Int",
        'no CRL from its issuer "CN=Root" among the CRLs given',
    )


def test_stale_and_future_crls_fail_closed(pki: dict[str, Any]) -> None:
    stale = x509.CRLBuilder(last_update=NOW - timedelta(days=9), days=7).sign(pki["int"], pki["int_key"])
    with pytest.raises(x509.CertificateVerificationError, match="its CRL is out of date"):
        _verify(pki, [stale])
    future = x509.CRLBuilder(last_update=NOW + timedelta(days=1)).sign(pki["int"], pki["int_key"])
    with pytest.raises(x509.CertificateVerificationError, match="its CRL is not yet valid"):
        _verify(pki, [future])


def test_bounds_and_bad_input(pki: dict[str, Any]) -> None:
    ca, key = pki["root"], pki["root_key"]
    one = _crl(ca, key)
    with pytest.raises(x509.CertificateVerificationError, match="too many CRLs given"):
        _verify(pki, [one] * (x509.MAX_CRLS + 1))
    with pytest.raises(InvalidArgument, match="unknown revocation reason"):
        x509.CRLBuilder().revoke(1, reason="lost it").sign(ca, key)
    with pytest.raises(ValueError, match="positive"):
        x509.CRLBuilder().revoke(0).sign(ca, key)
    with pytest.raises(InvalidArgument, match="serial number"):
        x509.CRLBuilder().revoke(2**168).sign(ca, key)
    with pytest.raises(ValueError, match="negative"):
        x509.CRLBuilder(crl_number=-1).sign(ca, key)
    with pytest.raises(InvalidArgument, match="2\\*\\*160"):
        x509.CRLBuilder(crl_number=2**160).sign(ca, key)
    with pytest.raises(InvalidArgument, match="next_update is before"):
        x509.CRLBuilder(last_update=NOW, next_update=NOW - timedelta(seconds=1)).sign(ca, key)
    with pytest.raises(InvalidArgument, match="9999"):
        x509.CRLBuilder(days=10**7).sign(ca, key)
    with pytest.raises(InvalidKey):
        x509.CRLBuilder().sign(ca, sm2.PrivateKey.generate())
    no_crl_sign = x509.CertificateBuilder(subject="CN=x", key_usage=["keyCertSign"], is_ca=True).self_sign(
        key
    )
    with pytest.raises(InvalidArgument, match="cRLSign"):
        x509.CRLBuilder().sign(no_crl_sign, key)
    for junk in (b"", b"0", b"\x30\x03\x02\x01\x01", one.to_der() + b"\x00"):
        with pytest.raises(UnsupportedFormat):
            x509.CertificateRevocationList.from_der(junk)
    with pytest.raises(UnsupportedFormat):
        x509.CertificateRevocationList.from_pem(ca.to_pem())
    with pytest.raises(TypeError):
        x509.CertificateRevocationList.from_pem(5)  # type: ignore[arg-type]


def _openssl_sm2() -> bool:
    exe = shutil.which("openssl")
    if exe is None:
        return False
    out = subprocess.run([exe, "list", "-public-key-algorithms"], capture_output=True, text=True)
    return "SM2" in out.stdout


needs_openssl = pytest.mark.skipif(not _openssl_sm2(), reason="no openssl command with SM2 support")


@needs_openssl
def test_openssl_verifies_guomi_crl(tmp_path: Path) -> None:
    # `openssl crl -CAfile` (3.0) checks SM2 CRL signatures with the empty signer ID and has
    # no option to give another, so it refuses every CRL signed with the standard ID (its
    # own `ca -gencrl -sigopt distid:1234567812345678` ones too). OpenSSL parses guomi's CRL
    # and `pkeyutl` verifies its signature over the TBSCertList with the standard ID.
    key = sm2.PrivateKey.generate()
    ca = x509.CertificateBuilder(subject="CN=guomi CA").ca().self_sign(key)
    crl = x509.CRLBuilder(crl_number=9).revoke(0x1234, reason="superseded").sign(ca, key)
    (tmp_path / "crl.pem").write_text(crl.to_pem())
    (tmp_path / "pub.pem").write_text(key.public_key().to_pem())
    out = subprocess.run(
        ["openssl", "crl", "-in", "crl.pem", "-noout", "-text"], cwd=tmp_path, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert "Issuer: CN = guomi CA" in out.stdout and "Serial Number: 1234" in out.stdout
    assert "Superseded" in out.stdout and "X509v3 CRL Number: \n                9" in out.stdout

    def pkeyutl_verifies(tbs: bytes) -> bool:
        (tmp_path / "tbs.bin").write_bytes(tbs)
        (tmp_path / "sig.der").write_bytes(crl.signature)
        r = subprocess.run(
            ["openssl", "pkeyutl", "-verify", "-in", "tbs.bin", "-sigfile", "sig.der", "-pubin", "-inkey",
             "pub.pem", "-rawin", "-digest", "sm3", "-pkeyopt", "distid:1234567812345678"],
            cwd=tmp_path, capture_output=True, text=True,
        )  # fmt: skip
        return "Signature Verified Successfully" in r.stdout

    assert pkeyutl_verifies(crl.tbs_certlist_bytes)
    tampered = bytearray(crl.tbs_certlist_bytes)
    tampered[tampered.index(bytes([2, 2, 0x12, 0x34])) + 3] ^= 1
    assert not pkeyutl_verifies(bytes(tampered))


@needs_openssl
def test_guomi_reads_and_checks_openssl_crl(tmp_path: Path) -> None:
    def run(*args: str) -> None:
        subprocess.run(["openssl", *args], cwd=tmp_path, check=True, capture_output=True)

    run("genpkey", "-algorithm", "SM2", "-out", "ca.key")
    run(
        "req",
        "-new",
        "-x509",
        "-key",
        "ca.key",
        "-sm3",
        "-subj",
        "/CN=OpenSSL CA",
        "-days",
        "30",
        "-out",
        "ca.pem",
    )
    (tmp_path / "index.txt").write_text(
        "R\t300101000000Z\t240101000000Z,keyCompromise\t07\tunknown\t/CN=revoked\n"
        "V\t300101000000Z\t\t08\tunknown\t/CN=valid\n"
    )
    (tmp_path / "crlnumber").write_text("2A\n")
    (tmp_path / "ca.cnf").write_text(
        "[ca]\ndefault_ca = my\n[my]\ndatabase = index.txt\ncrlnumber = crlnumber\n"
        "default_md = sm3\ndefault_crl_days = 7\n"
    )
    gencrl = ("ca", "-config", "ca.cnf", "-gencrl", "-keyfile", "ca.key", "-cert", "ca.pem")
    run(*gencrl, "-sigopt", "distid:1234567812345678", "-out", "crl.pem")
    ca = x509.Certificate.from_pem((tmp_path / "ca.pem").read_text())
    crl = x509.CertificateRevocationList.from_pem((tmp_path / "crl.pem").read_text())
    crl.verify_signature(ca)
    # Without -sigopt, OpenSSL 3.0 signs with the empty ID: not a standard SM2 CRL, refused
    # (and recognisable: it verifies with uid=b"").
    run(*gencrl, "-out", "crl-empty-id.pem")
    odd = x509.CertificateRevocationList.from_pem((tmp_path / "crl-empty-id.pem").read_text())
    assert not odd.is_signature_valid(ca)
    assert ca.public_key().verify(odd.signature, odd.tbs_certlist_bytes, uid=b"")
    assert crl.issuer == "CN=OpenSSL CA"
    assert crl.crl_number == 0x2A
    assert crl.revoked_certificates == [
        x509.RevokedCertificate(7, datetime(2024, 1, 1, tzinfo=timezone.utc), "keyCompromise", None)
    ]
    assert crl.next_update is not None
    assert crl.next_update - crl.last_update == timedelta(days=7)


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "guomi", *args], capture_output=True, cwd=cwd, timeout=300)


def test_cli_crl_and_verify(tmp_path: Path) -> None:
    ca_key, leaf_key = sm2.PrivateKey.generate(), sm2.PrivateKey.generate()
    ca = x509.CertificateBuilder(subject="CN=CLI CA").ca().self_sign(ca_key)
    leaf = x509.CertificateBuilder(
        subject="CN=leaf", public_key=leaf_key.public_key(), serial_number=0x1F
    ).sign(ca, ca_key)
    other = x509.CertificateBuilder(
        subject="CN=other", public_key=leaf_key.public_key(), serial_number=0x20
    ).sign(ca, ca_key)
    (tmp_path / "ca.pem").write_text(ca.to_pem())
    (tmp_path / "ca.key").write_text(ca_key.to_pem())
    (tmp_path / "leaf.pem").write_text(leaf.to_pem())
    (tmp_path / "other.pem").write_text(other.to_pem())
    r = _cli("x509", "crl", "--ca-cert", "ca.pem", "--ca-key", "ca.key", "--revoke", "0x1f:keyCompromise",
             "--crl-number", "5", "-o", "crl.pem", cwd=tmp_path)  # fmt: skip
    assert r.returncode == 0, r.stderr
    crl = x509.CertificateRevocationList.from_pem((tmp_path / "crl.pem").read_text())
    assert crl.crl_number == 5 and crl.get_revoked(leaf) is not None and crl.get_revoked(other) is None
    crl.verify_signature(ca)
    r = _cli(
        "x509", "verify", "--trusted", "ca.pem", "--crl", "crl.pem", "leaf.pem", "other.pem", cwd=tmp_path
    )
    assert r.returncode == 1
    assert b'leaf.pem: FAILED: certificate "CN=leaf": revoked on' in r.stdout
    assert b"reason keyCompromise" in r.stdout and b"other.pem: OK" in r.stdout
    # Without the CRL, or with --crl-check-all and no CRL at all.
    r = _cli("x509", "verify", "--trusted", "ca.pem", "leaf.pem", cwd=tmp_path)
    assert r.returncode == 0 and r.stdout == b"leaf.pem: OK\n"
    r = _cli("x509", "verify", "--trusted", "ca.pem", "--crl-check-all", "leaf.pem", cwd=tmp_path)
    assert r.returncode == 2 and b"--crl-check-all needs" in r.stderr
    # Revoke by certificate file, DER output; existing outputs are not replaced without -f.
    r = _cli("x509", "crl", "--ca-cert", "ca.pem", "--ca-key", "ca.key", "--revoke-cert", "other.pem",
             "--reason", "superseded", "--outform", "der", "-o", "crl.pem", cwd=tmp_path)  # fmt: skip
    assert r.returncode == 2 and b"exists" in r.stderr
    r = _cli("x509", "crl", "--ca-cert", "ca.pem", "--ca-key", "ca.key", "--revoke-cert", "other.pem",
             "--reason", "superseded", "--outform", "der", "-o", "crl2.der", cwd=tmp_path)  # fmt: skip
    assert r.returncode == 0, r.stderr
    crl2 = x509.CertificateRevocationList.from_der((tmp_path / "crl2.der").read_bytes())
    assert crl2.revoked_certificates[0].reason == "superseded"
    r = _cli(
        "x509",
        "verify",
        "--trusted",
        "ca.pem",
        "--crl",
        "crl2.der",
        "--crl-check-all",
        "other.pem",
        cwd=tmp_path,
    )
    assert r.returncode == 1 and b"reason superseded" in r.stdout
    # Bad input: exit 2 with a message.
    for bad in (["--revoke", "xyz"], ["--revoke", "5:notareason"], ["--revoke", "0"], ["--days", "0"]):
        r = _cli(
            "x509", "crl", "--ca-cert", "ca.pem", "--ca-key", "ca.key", *bad, "-o", "x.pem", cwd=tmp_path
        )
        assert r.returncode == 2 and r.stderr, bad
    r = _cli("x509", "verify", "--trusted", "ca.pem", "--crl", "ca.pem", "leaf.pem", cwd=tmp_path)
    assert r.returncode == 2 and b"no X509 CRL block" in r.stderr


def test_cli_show_crl(tmp_path: Path) -> None:
    key = sm2.PrivateKey.generate()
    ca = x509.CertificateBuilder(subject="CN=Show CA").ca().self_sign(key)
    crl = x509.CRLBuilder(crl_number=77).revoke(0xABC, reason="cACompromise").sign(ca, key)
    (tmp_path / "crl.pem").write_text(crl.to_pem())
    (tmp_path / "crl.der").write_bytes(crl.to_der())
    for name in ("crl.pem", "crl.der"):
        r = _cli("x509", "show", name, cwd=tmp_path)
        assert r.returncode == 0, r.stderr
        out = r.stdout.decode()
        assert "Certificate revocation list:" in out and "Issuer:              CN=Show CA" in out
        assert "CRL number:          77" in out and "0xabc" in out and "cACompromise" in out
