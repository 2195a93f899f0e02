"""``guomi cms sign|verify|encrypt|decrypt``: CMS SignedData and EnvelopedData.

SM3-with-SM2 signatures (signer ID 1234567812345678) and SM2 key transport of an SM4
key, as RFC 5652 and GM/T 0010 describe them. Inputs may be DER, BER or PEM; outputs are
DER (``--outform der``, default) or PEM, written atomically. Private keys may be
password-protected (``--password-file``, else a prompt).

Exit status: 0 success, 1 a signature or certificate path does not verify, or decryption
fails, 2 usage or input error.
"""

from __future__ import annotations

import argparse
import sys
from datetime import datetime, timezone
from typing import Optional

from guomi import cms, x509
from guomi.cli._io import UsageError, guarded, open_output
from guomi.cli.sm2 import load_private_key
from guomi.cli.x509 import load_certificates
from guomi.exceptions import (
    CertificateVerificationError,
    DecryptionError,
    InvalidSignature,
)

__all__ = ["register"]


def _read(path: str, what: str) -> bytes:
    try:
        if path == "-":
            return sys.stdin.buffer.read()
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise UsageError(f"cannot read {what} {path}: {e.strerror or e}") from e


def _certs(paths: Optional[list[str]]) -> list[x509.Certificate]:
    return [c for p in paths or [] for c in load_certificates(p)]


def _one_cert(path: str) -> x509.Certificate:
    certs = load_certificates(path)
    return certs[0]


def _sign(args: argparse.Namespace) -> int:
    content = _read(args.input, "input")
    key = load_private_key(args.key, args)
    cert = _one_cert(args.cert)
    data = cms.sign(
        content,
        key,
        cert,
        detached=args.detached,
        certificates=_certs(args.certfile),
        signed_attributes=not args.no_attributes,
        oid_style=args.oid_style,
        format=args.outform,
        signature_algorithm=args.signature_algorithm,
    )
    with open_output(args.output, force=args.force) as out:
        out.write(data)
    return 0


def _verify(args: argparse.Namespace) -> int:
    data = _read(args.input, "input")
    content = _read(args.content, "content") if args.content else None
    at = None
    if args.at:
        try:
            at = datetime.fromisoformat(args.at)
        except ValueError:
            raise UsageError(f"--at: not an ISO 8601 time: {args.at}") from None
        if at.tzinfo is None:
            at = at.replace(tzinfo=timezone.utc)
    try:
        r = cms.verify(
            data,
            content=content,
            trust_roots=_certs(args.trusted),
            intermediates=_certs(args.untrusted),
            at=at,
            purpose=args.purpose,
        )
    except (InvalidSignature, CertificateVerificationError) as e:
        print(f"verification failed: {e}", file=sys.stderr)
        return 1
    if not args.quiet:
        for c in r.signers:
            print(f"signer: {c.subject}", file=sys.stderr)
        if not args.trusted:
            print(
                "signatures verify (no --trusted root given: signer certificates not chained to a root)",
                file=sys.stderr,
            )
        else:
            print("verified", file=sys.stderr)
    if args.output:
        with open_output(args.output, force=args.force) as out:
            out.write(r.content)
    return 0


def _encrypt(args: argparse.Namespace) -> int:
    content = _read(args.input, "input")
    recipients = _certs(args.recipient)
    data = cms.encrypt(
        content,
        recipients,
        cipher=args.cipher,
        oid_style=args.oid_style,
        format=args.outform,
        key_format=args.key_format,
        key_oid=args.key_oid,
    )
    with open_output(args.output, force=args.force) as out:
        out.write(data)
    return 0


def _decrypt(args: argparse.Namespace) -> int:
    data = _read(args.input, "input")
    key = load_private_key(args.key, args)
    cert = _one_cert(args.cert) if args.cert else None
    try:
        plain = cms.decrypt(data, key, cert)
    except DecryptionError as e:
        print(f"decryption failed: {e}", file=sys.stderr)
        return 1
    with open_output(args.output, force=args.force) as out:
        out.write(plain)
    return 0


def _io(a: argparse.ArgumentParser, *, outform: bool, out_required: bool = True) -> None:
    a.add_argument("-i", "--in", dest="input", required=True, metavar="FILE", help="input file ('-': stdin)")
    a.add_argument(
        "-o", "--out", dest="output", required=out_required, metavar="FILE", help="output file ('-': stdout)"
    )
    a.add_argument("-f", "--force", action="store_true", help="replace an existing output file")
    if outform:
        a.add_argument(
            "--outform", choices=["der", "pem"], default="der", help="output encoding (default der)"
        )
        a.add_argument(
            "--oid-style",
            choices=["rfc", "gm"],
            default="rfc",
            help="content-type OIDs: rfc (1.2.840.113549.1.7.x, default) or gm (GM/T 0010)",
        )


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "cms", help="CMS SignedData and EnvelopedData (RFC 5652, GM/T 0010)", description=__doc__
    )
    actions = p.add_subparsers(dest="action", metavar="ACTION")
    actions.required = True

    a = actions.add_parser("sign", help="sign a file (SignedData)", description=__doc__)
    _io(a, outform=True)
    a.add_argument("-k", "--key", required=True, metavar="FILE", help="the signer's private key")
    a.add_argument("-c", "--cert", required=True, metavar="FILE", help="the signer's certificate")
    a.add_argument("--certfile", action="append", metavar="FILE", help="more certificates to include")
    a.add_argument("--detached", action="store_true", help="leave the content out")
    a.add_argument("--no-attributes", action="store_true", help="sign the content, not signed attributes")
    a.add_argument(
        "--signature-algorithm",
        choices=["sm2-with-sm3", "sm2"],
        default="sm2-with-sm3",
        help="SignerInfo signature OID: sm2-with-sm3 (1.2.156.10197.1.501, BouncyCastle/OpenSSL; "
        "default) or sm2 (1.2.156.10197.1.301.1, gmsm)",
    )
    a.add_argument("--password-file", metavar="FILE", help="password of the private key (else a prompt)")
    a.set_defaults(func=guarded(_sign))

    a = actions.add_parser(
        "verify", help="verify a SignedData (exit 0 valid, 1 invalid)", description=__doc__
    )
    _io(a, outform=False, out_required=False)
    a.add_argument("--content", metavar="FILE", help="the content of a detached SignedData")
    a.add_argument("--trusted", action="append", metavar="FILE", help="trusted root(s) (PEM bundle)")
    a.add_argument("--untrusted", action="append", metavar="FILE", help="intermediate certificate(s)")
    a.add_argument("--at", metavar="TIME", help="check certificates at this ISO 8601 time instead of now")
    a.add_argument(
        "--purpose",
        choices=["smime", "any", "codesign", "timestamping"],
        default="smime",
        help="what each signer certificate must allow (keyUsage, extKeyUsage; docs/cms.md): default smime",
    )
    a.add_argument("-q", "--quiet", action="store_true", help="print nothing on success")
    a.set_defaults(func=guarded(_verify))

    a = actions.add_parser(
        "encrypt", help="encrypt a file to certificates (EnvelopedData)", description=__doc__
    )
    _io(a, outform=True)
    a.add_argument(
        "-r", "--recipient", action="append", required=True, metavar="FILE", help="recipient certificate(s)"
    )
    a.add_argument("--cipher", choices=["sm4-cbc", "sm4-gcm"], default="sm4-cbc", help="content cipher")
    a.add_argument(
        "--key-format",
        choices=["der", "c1c3c2"],
        default="der",
        help="SM2-encrypted key: der (GM/T 0009 SM2Cipher, default) or c1c3c2 (raw, for BouncyCastle)",
    )
    a.add_argument(
        "--key-oid",
        choices=["1.2.156.10197.1.301.3", "1.2.156.10197.1.301.3.2.1"],
        default="1.2.156.10197.1.301.3",
        help="key-transport OID (default 1.2.156.10197.1.301.3; BouncyCastle needs "
        "1.2.156.10197.1.301.3.2.1 with --key-format c1c3c2)",
    )
    a.set_defaults(func=guarded(_encrypt))

    a = actions.add_parser("decrypt", help="decrypt an EnvelopedData", description=__doc__)
    _io(a, outform=False)
    a.add_argument("-k", "--key", required=True, metavar="FILE", help="the recipient's private key")
    a.add_argument(
        "-c", "--cert", metavar="FILE", help="the recipient's certificate (selects its recipient info)"
    )
    a.add_argument("--password-file", metavar="FILE", help="password of the private key (else a prompt)")
    a.set_defaults(func=guarded(_decrypt))
