"""``guomi x509 req|selfsign|issue|crl|verify|show``: SM2 certificates, requests and CRLs.

Signatures are SM2-with-SM3 with the default ID 1234567812345678 (as GmSSL, and OpenSSL
with ``-sigopt distid:1234567812345678``). Names are RFC 4514 strings
(``"CN=leaf,O=Example"``) or OpenSSL's ``"/O=Example/CN=leaf"``. Subject alternative
names: ``--san dns:host.example --san ip:192.0.2.1 --san email:a@example.com``.

Exit status: 0 success (``verify``: the path validates), 1 a certificate does not verify,
2 usage or input error.
"""

from __future__ import annotations

import argparse
import sys
from datetime import datetime, timedelta, timezone
from typing import Optional

from guomi import x509
from guomi.cli._io import UsageError, guarded, open_output
from guomi.cli.sm2 import load_private_key
from guomi.exceptions import CertificateVerificationError, GuomiError

_NAMES = {"1.2.156.10197.1.501": "SM2-with-SM3"}


def _read(path: str, what: str) -> bytes:
    try:
        if path == "-":
            return sys.stdin.buffer.read()
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise UsageError(f"cannot read {what} {path}: {e.strerror or e}") from e


def load_certificates(path: str) -> list[x509.Certificate]:
    """Every certificate in a PEM bundle, or one DER certificate."""
    data = _read(path, "certificate file")
    try:
        if b"-----BEGIN " in data:
            certs = x509.load_pem_certificates(data)
            if not certs:
                raise UsageError(f"{path}: no CERTIFICATE block")
            return certs
        return [x509.Certificate.from_der(data)]
    except GuomiError as e:
        raise UsageError(f"{path}: not a certificate: {e}") from e


def _write(args: argparse.Namespace, pem: str, der: bytes) -> None:
    with open_output(args.output, force=args.force) as out:
        out.write(der if args.outform == "der" else pem.encode())


def _validity(args: argparse.Namespace) -> tuple[datetime, datetime]:
    if args.days < 1:
        raise UsageError("--days must be at least 1")
    start = datetime.now(timezone.utc) - timedelta(minutes=1)
    try:
        return start, start + timedelta(days=args.days)
    except OverflowError:
        raise UsageError("--days is too large: the validity must end by the year 9999") from None


def _extensions(b: x509.CertificateBuilder, args: argparse.Namespace) -> x509.CertificateBuilder:
    if args.ca:
        b = b.ca(args.path_len)
    elif args.path_len is not None:
        raise UsageError("--path-len needs --ca")
    if args.key_usage:
        b = b.with_key_usage([u.strip() for item in args.key_usage for u in item.split(",") if u.strip()])
    if args.eku:
        b = b.with_extended_key_usage([u.strip() for item in args.eku for u in item.split(",") if u.strip()])
    if args.san:
        b = b.with_subject_alternative_names(args.san)
    if args.serial is not None:
        try:
            b = b.serial(int(args.serial, 0))
        except ValueError:
            raise UsageError("--serial must be an integer (decimal or 0x hex)") from None
    return b


def _req(args: argparse.Namespace) -> int:
    key = load_private_key(args.key, args)
    csr = x509.CertificateSigningRequestBuilder(
        subject=args.subject, subject_alternative_names=args.san or ()
    ).sign(key)
    _write(args, csr.to_pem(), csr.to_der())
    return 0


def _selfsign(args: argparse.Namespace) -> int:
    key = load_private_key(args.key, args)
    start, end = _validity(args)
    b = _extensions(x509.CertificateBuilder(subject=args.subject).validity(start, end), args)
    cert = b.self_sign(key)
    _write(args, cert.to_pem(), cert.to_der())
    return 0


def _issue(args: argparse.Namespace) -> int:
    ca_certs = load_certificates(args.ca_cert)
    ca_key = load_private_key(args.ca_key, args)
    data = _read(args.csr, "request file")
    try:
        csr = (
            x509.CertificateSigningRequest.from_pem(data)
            if b"-----BEGIN " in data
            else x509.CertificateSigningRequest.from_der(data)
        )
    except GuomiError as e:
        raise UsageError(f"{args.csr}: not a certification request: {e}") from e
    if not csr.is_signature_valid:
        raise UsageError(f"{args.csr}: the request's signature does not verify")
    start, end = _validity(args)
    b = x509.CertificateBuilder.from_csr(csr).validity(start, end)
    if args.subject:
        b = b.subject_name(args.subject)
    b = _extensions(b, args)
    cert = b.sign(ca_certs[0], ca_key)
    _write(args, cert.to_pem(), cert.to_der())
    return 0


def load_crls(path: str) -> list[x509.CertificateRevocationList]:
    """Every CRL in a PEM file, or one DER CRL."""
    data = _read(path, "CRL file")
    try:
        if b"-----BEGIN " in data:
            crls = x509.load_pem_crls(data)
            if not crls:
                raise UsageError(f"{path}: no X509 CRL block")
            return crls
        return [x509.CertificateRevocationList.from_der(data)]
    except GuomiError as e:
        raise UsageError(f"{path}: not a CRL: {e}") from e


def _crl(args: argparse.Namespace) -> int:
    ca = load_certificates(args.ca_cert)[0]
    ca_key = load_private_key(args.ca_key, args)
    if args.days < 1:
        raise UsageError("--days must be at least 1")
    b = x509.CRLBuilder(days=args.days, crl_number=args.crl_number)
    for item in args.revoke or []:
        serial_text, _, reason = item.partition(":")
        try:
            serial = int(serial_text, 0)
        except ValueError:
            raise UsageError(f"--revoke {item}: the serial must be an integer (0x... for hex)") from None
        b = b.revoke(serial, reason=reason or None)
    for path in args.revoke_cert or []:
        for cert in load_certificates(path):
            if cert.issuer != ca.subject:
                raise UsageError(f"{path}: issued by {cert.issuer!r}, not by {ca.subject!r}")
            b = b.revoke(cert, reason=args.reason)
    try:
        crl = b.sign(ca, ca_key)
    except ValueError as e:
        raise UsageError(str(e)) from e
    _write(args, crl.to_pem(), crl.to_der())
    return 0


def _verify(args: argparse.Namespace) -> int:
    trusted = [c for path in args.trusted for c in load_certificates(path)]
    untrusted = [c for path in args.untrusted or [] for c in load_certificates(path)]
    crls = [c for path in args.crl or [] for c in load_crls(path)]
    if args.crl_check_all and not crls:
        raise UsageError("--crl-check-all needs at least one --crl")
    at = None
    if args.at:
        try:
            at = datetime.fromisoformat(args.at.replace("Z", "+00:00"))
        except ValueError:
            raise UsageError("--at must be an ISO 8601 time, e.g. 2030-01-01T00:00:00Z") from None
    status = 0
    for path in args.certs:
        leaf = load_certificates(path)[0]
        try:
            x509.verify_chain(
                leaf,
                untrusted,
                trusted,
                at=at,
                purpose=args.purpose,
                crls=crls,
                require_crls=args.crl_check_all,
            )
        except CertificateVerificationError as e:
            print(f"{path}: FAILED: {e}")
            status = 1
            continue
        if not args.quiet:
            print(f"{path}: OK")
    return status


def _fmt_time(t: datetime) -> str:
    return t.strftime("%Y-%m-%d %H:%M:%S UTC")


def _show_cert(c: x509.Certificate) -> None:
    alg = c.signature_algorithm_oid
    lines = [
        "Certificate:",
        f"  Version:             {c.version}",
        f"  Serial number:       {c.serial_number:#x}",
        f"  Signature algorithm: {_NAMES.get(alg, alg)} ({alg})",
        f"  Issuer:              {c.issuer}",
        f"  Subject:             {c.subject}",
        f"  Not before:          {_fmt_time(c.not_valid_before)}",
        f"  Not after:           {_fmt_time(c.not_valid_after)}",
    ]
    try:
        lines.append(f"  Public key:          SM2 {c.public_key().to_bytes().hex()}")
    except GuomiError:
        lines.append("  Public key:          (not an SM2 key)")
    crit = {e.oid: e.critical for e in c.extensions}
    bc = c.basic_constraints
    if bc is not None:
        pl = "" if bc.path_length is None else f", pathlen:{bc.path_length}"
        tag = " (critical)" if crit.get("2.5.29.19") else ""
        lines.append(f"  Basic constraints:   CA:{'TRUE' if bc.ca else 'FALSE'}{pl}{tag}")
    if c.key_usage is not None:
        tag = " (critical)" if crit.get("2.5.29.15") else ""
        lines.append(f"  Key usage:           {', '.join(sorted(c.key_usage))}{tag}")
    if c.extended_key_usage is not None:
        lines.append(f"  Extended key usage:  {', '.join(c.extended_key_usage)}")
    if c.subject_alternative_names is not None:
        lines.append(
            f"  Alternative names:   {', '.join(f'{k}:{v}' for k, v in c.subject_alternative_names)}"
        )
    if c.subject_key_identifier is not None:
        lines.append(f"  Subject key ID:      {c.subject_key_identifier.hex()}")
    if c.authority_key_identifier is not None:
        lines.append(f"  Authority key ID:    {c.authority_key_identifier.hex()}")
    known = {"2.5.29.19", "2.5.29.15", "2.5.29.37", "2.5.29.17", "2.5.29.14", "2.5.29.35"}
    for e in c.extensions:
        if e.oid not in known:
            lines.append(f"  Extension {e.oid}{' (critical)' if e.critical else ''}: {e.value.hex()}")
    lines.append(f"  SM3 fingerprint:     {c.fingerprint('sm3').hex()}")
    lines.append(f"  SHA-256 fingerprint: {c.fingerprint('sha256').hex()}")
    print("\n".join(lines))


def _show_crl(crl: x509.CertificateRevocationList) -> None:
    lines = [
        "Certificate revocation list:",
        f"  Version:             {crl.version}",
        f"  Signature algorithm: {_NAMES.get(crl.signature_algorithm_oid, crl.signature_algorithm_oid)}",
        f"  Issuer:              {crl.issuer}",
        f"  Last update:         {_fmt_time(crl.last_update)}",
        f"  Next update:         {'-' if crl.next_update is None else _fmt_time(crl.next_update)}",
    ]
    if crl.crl_number is not None:
        lines.append(f"  CRL number:          {crl.crl_number}")
    if crl.authority_key_identifier is not None:
        lines.append(f"  Authority key ID:    {crl.authority_key_identifier.hex()}")
    entries = crl.revoked_certificates
    lines.append(f"  Revoked:             {len(entries)}")
    for e in entries:
        why = f" {e.reason}" if e.reason else ""
        lines.append(f"    {e.serial_number:#x}  {_fmt_time(e.revocation_date)}{why}")
    print("\n".join(lines))


def _show(args: argparse.Namespace) -> int:
    for path in args.files:
        data = _read(path, "file")
        if b"CERTIFICATE REQUEST-----" in data:
            try:
                csr = x509.CertificateSigningRequest.from_pem(data)
            except GuomiError as e:
                raise UsageError(f"{path}: not a certification request: {e}") from e
            sans = ", ".join(f"{k}:{v}" for k, v in csr.subject_alternative_names)
            print("Certificate request:")
            print(f"  Subject:             {csr.subject}")
            print(f"  Public key:          SM2 {csr.public_key().to_bytes().hex()}")
            if sans:
                print(f"  Alternative names:   {sans}")
            print(f"  Signature:           {'valid' if csr.is_signature_valid else 'INVALID'}")
            continue
        if b"X509 CRL-----" in data:
            for crl in load_crls(path):
                _show_crl(crl)
            continue
        if b"-----BEGIN " not in data:
            try:
                _show_crl(x509.CertificateRevocationList.from_der(data))
                continue
            except GuomiError:
                pass  # not a DER CRL: a DER certificate, or an error below
        for c in load_certificates(path):
            _show_cert(c)
    return 0


def _out(a: argparse.ArgumentParser) -> None:
    a.add_argument(
        "-o", "--out", dest="output", required=True, metavar="FILE", help="output file ('-': stdout)"
    )
    a.add_argument("-f", "--force", action="store_true", help="replace an existing output file")
    a.add_argument("--outform", choices=["pem", "der"], default="pem", help="output encoding")
    a.add_argument("--password-file", metavar="FILE", help="password of the private key (else a prompt)")


def _ext_args(a: argparse.ArgumentParser, *, days: Optional[int]) -> None:
    a.add_argument("--days", type=int, default=days, help=f"validity in days (default {days})")
    a.add_argument("--ca", action="store_true", help="a CA certificate (basicConstraints CA:TRUE)")
    a.add_argument("--path-len", type=int, metavar="N", help="CA path length constraint")
    a.add_argument(
        "--key-usage",
        action="append",
        metavar="LIST",
        help="keyUsage names, e.g. digitalSignature,keyEncipherment",
    )
    a.add_argument(
        "--eku", action="append", metavar="LIST", help="extendedKeyUsage, e.g. serverAuth,clientAuth"
    )
    a.add_argument(
        "--san", action="append", metavar="KIND:VALUE", help="subject alternative name (repeatable)"
    )
    a.add_argument("--serial", metavar="N", help="serial number (default: random 127-bit)")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("x509", help="SM2 certificates and certification requests", description=__doc__)
    actions = p.add_subparsers(dest="action", metavar="ACTION")
    actions.required = True

    a = actions.add_parser(
        "req", help="create a PKCS#10 request", description="Create a certification request."
    )
    a.add_argument("-k", "--key", required=True, metavar="FILE", help="the subject's private key")
    a.add_argument("--subject", required=True, metavar="DN", help='e.g. "CN=leaf,O=Example"')
    a.add_argument(
        "--san", action="append", metavar="KIND:VALUE", help="subject alternative name (repeatable)"
    )
    _out(a)
    a.set_defaults(func=guarded(_req))

    a = actions.add_parser("selfsign", help="create a self-signed certificate", description=__doc__)
    a.add_argument("-k", "--key", required=True, metavar="FILE", help="the private key")
    a.add_argument("--subject", required=True, metavar="DN", help='e.g. "CN=Root CA,O=Example"')
    _ext_args(a, days=365)
    _out(a)
    a.set_defaults(func=guarded(_selfsign))

    a = actions.add_parser("issue", help="issue a certificate from a request", description=__doc__)
    a.add_argument("--ca-cert", required=True, metavar="FILE", help="the issuing CA certificate")
    a.add_argument("--ca-key", required=True, metavar="FILE", help="the issuing CA's private key")
    a.add_argument("--csr", required=True, metavar="FILE", help="the certification request (PEM or DER)")
    a.add_argument("--subject", metavar="DN", help="override the request's subject")
    _ext_args(a, days=365)
    _out(a)
    a.set_defaults(func=guarded(_issue))

    a = actions.add_parser(
        "verify",
        help="verify certificates against trust roots (exit 0 valid, 1 invalid)",
        description="Validate each certificate's path to a trusted root: signatures, names, validity, "
        "CA flags, path length, keyCertSign; with --crl, revocation (base CRLs, which must verify "
        "and be current).",
    )
    a.add_argument("certs", nargs="+", metavar="FILE", help="certificate file(s) to verify")
    a.add_argument(
        "--trusted", action="append", required=True, metavar="FILE", help="trusted root(s) (PEM bundle)"
    )
    a.add_argument("--untrusted", action="append", metavar="FILE", help="intermediate certificate(s)")
    a.add_argument("--purpose", metavar="EKU", help="required extended key usage, e.g. serverAuth")
    a.add_argument("--at", metavar="TIME", help="verify at this ISO 8601 time instead of now")
    a.add_argument("--crl", action="append", metavar="FILE", help="CRL(s) to check revocation against")
    a.add_argument(
        "--crl-check-all",
        action="store_true",
        help="fail a certificate whose issuer has no CRL among --crl (else it is not checked)",
    )
    a.add_argument("-q", "--quiet", action="store_true", help="print only failures")
    a.set_defaults(func=guarded(_verify))

    a = actions.add_parser(
        "crl",
        help="issue a CRL (certificate revocation list)",
        description="Issue a v2 CRL signed by a CA, listing revoked serial numbers or certificates.",
    )
    a.add_argument("--ca-cert", required=True, metavar="FILE", help="the issuing CA certificate")
    a.add_argument("--ca-key", required=True, metavar="FILE", help="the issuing CA's private key")
    a.add_argument(
        "--revoke",
        action="append",
        metavar="SERIAL[:REASON]",
        help="a revoked serial number (decimal or 0x-hex), optionally with a reason, "
        "e.g. 0x1f:keyCompromise (repeatable)",
    )
    a.add_argument(
        "--revoke-cert", action="append", metavar="FILE", help="revoked certificate(s) (repeatable)"
    )
    a.add_argument("--reason", metavar="REASON", help="reason for --revoke-cert (e.g. superseded)")
    a.add_argument("--days", type=int, default=7, help="days until the next update (default 7)")
    a.add_argument("--crl-number", type=int, metavar="N", help="cRLNumber (default: the current Unix time)")
    _out(a)
    a.set_defaults(func=guarded(_crl))

    a = actions.add_parser(
        "show",
        help="print certificates, requests or CRLs",
        description="Print certificate, request or CRL fields.",
    )
    a.add_argument(
        "files", nargs="+", metavar="FILE", help="certificate, request or CRL files (PEM or DER, '-': stdin)"
    )
    a.set_defaults(func=guarded(_show))
