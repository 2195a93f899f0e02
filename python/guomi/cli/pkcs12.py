"""``guomi pkcs12 create|info|extract``: PKCS#12 files (``.p12`` / ``.pfx``).

``create`` bundles an SM2 private key, its certificate and a chain
(``--encryption sm``: PBKDF2-HMAC-SM3 + SM4-CBC with an SM3 MAC; ``--encryption aes``:
PBKDF2-HMAC-SHA256 + AES-256-CBC with a SHA-256 MAC, for OpenSSL 3, Java and Windows).
``info`` shows how a file is protected and what it holds; ``extract`` writes its key and
certificates as PEM.

Passwords come from ``--password-file`` (first line) or a prompt on a terminal, never
from the command line. Outputs are written atomically and never replace a file without
``--force``.

Exit status: 0 success, 2 usage or input error (wrong password, unsupported file).
"""

from __future__ import annotations

import argparse
from typing import Optional

from guomi import keys, pkcs12, x509
from guomi.cli._io import UsageError, guarded, open_output, prompt_password, read_password_file
from guomi.cli.sm2 import load_private_key
from guomi.cli.x509 import load_certificates
from guomi.exceptions import InvalidKey


def _password(path: Optional[str], *, confirm: bool) -> bytes:
    if path is not None:
        return read_password_file(path)
    return prompt_password(confirm=confirm)


def _read(path: str) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise UsageError(f"cannot read PKCS#12 file {path}: {e.strerror or e}") from e


def _create(args: argparse.Namespace) -> int:
    if args.iterations < 1 or args.iterations > pkcs12.MAX_ITERATIONS:
        raise UsageError(f"--iterations must be 1 to {pkcs12.MAX_ITERATIONS}")
    key = load_private_key(args.key, args, "key_password_file") if args.key else None
    certs = load_certificates(args.cert) if args.cert else []
    cert = certs[0] if certs else None
    chain: list[x509.Certificate] = certs[1:]
    for path in args.chain or ():
        chain.extend(load_certificates(path))
    if key is None and cert is None:
        raise UsageError("give --key and/or --cert")
    password = _password(args.password_file, confirm=True)
    data = pkcs12.dump(
        key,
        cert,
        chain,
        password,
        encryption=args.encryption,
        iterations=args.iterations,
        name=args.name,
    )
    with open_output(args.output, force=args.force) as out:
        out.write(data)
    return 0


def _load(args: argparse.Namespace) -> tuple[bytes, bytes]:
    data = _read(args.input)
    return data, _password(args.password_file, confirm=False)


def _info(args: argparse.Namespace) -> int:
    data, password = _load(args)
    try:
        d = pkcs12.info(data, password)
    except InvalidKey as e:
        raise UsageError(f"{args.input}: {e}") from e
    print(f"MAC: {d['mac']}, {d['mac_iterations']} iterations")
    for line in d["contents"]:  # type: ignore[attr-defined]
        print(f"  {line}")
    print(f"private key: {'yes' if d['has_key'] else 'no'}")
    if d["friendly_name"] is not None:
        print(f"friendly name: {d['friendly_name']}")
    if d["certificate"] is not None:
        print(f"certificate: {d['certificate']}")
    for subject in d["chain"]:  # type: ignore[attr-defined]
        print(f"chain: {subject}")
    return 0


def _extract(args: argparse.Namespace) -> int:
    if not (args.key_out or args.cert_out or args.chain_out):
        raise UsageError("give --key-out, --cert-out and/or --chain-out")
    if args.out_password_file is not None and not 1 <= args.iterations <= keys.MAX_ITERATIONS:
        raise UsageError(f"--iterations must be 1 to {keys.MAX_ITERATIONS}")
    data, password = _load(args)
    try:
        key, cert, chain = pkcs12.load(data, password)
    except InvalidKey as e:
        raise UsageError(f"{args.input}: {e}") from e
    outputs: list[tuple[str, bytes]] = []
    if args.key_out:
        if key is None:
            raise UsageError(f"{args.input} holds no private key")
        if args.out_password_file is not None:
            pem = keys.dump_pem_private_key(
                key, read_password_file(args.out_password_file), iterations=args.iterations
            )
        else:
            pem = keys.dump_pem_private_key(key)
        outputs.append((args.key_out, pem.encode()))
    if args.cert_out:
        if cert is None:
            raise UsageError(f"{args.input} holds no certificate")
        outputs.append((args.cert_out, cert.to_pem().encode()))
    if args.chain_out:
        outputs.append((args.chain_out, "".join(c.to_pem() for c in chain).encode()))
    for path, blob in outputs:
        with open_output(path, force=args.force) as out:
            out.write(blob)
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("pkcs12", help="PKCS#12 (.p12/.pfx) files", description=__doc__)
    actions = p.add_subparsers(dest="action", metavar="ACTION")
    actions.required = True

    a = actions.add_parser("create", help="bundle a key, its certificate and a chain", description=__doc__)
    a.add_argument("-k", "--key", metavar="FILE", help="the private key (PEM/DER)")
    a.add_argument("-c", "--cert", metavar="FILE", help="its certificate (a PEM bundle: the rest is chain)")
    a.add_argument("--chain", action="append", metavar="FILE", help="chain certificates (repeatable)")
    a.add_argument("--name", help="friendlyName of the key and certificate (the alias)")
    a.add_argument(
        "--encryption",
        choices=["sm", "aes"],
        default="sm",
        help="sm: PBKDF2-HMAC-SM3 + SM4-CBC, SM3 MAC (default); aes: OpenSSL 3 / Windows",
    )
    a.add_argument(
        "--iterations",
        type=int,
        default=pkcs12.DEFAULT_ITERATIONS,
        help=f"PBKDF2 and MAC iterations (default {pkcs12.DEFAULT_ITERATIONS})",
    )
    a.add_argument("--password-file", metavar="FILE", help="password of the PKCS#12 file (else a prompt)")
    a.add_argument("--key-password-file", metavar="FILE", help="password of an encrypted --key")
    a.add_argument(
        "-o", "--out", dest="output", required=True, metavar="FILE", help="output file ('-': stdout)"
    )
    a.add_argument("-f", "--force", action="store_true", help="replace an existing output file")
    a.set_defaults(func=guarded(_create))

    a = actions.add_parser("info", help="show how a file is protected and what it holds", description=__doc__)
    a.add_argument("input", metavar="FILE", help="the PKCS#12 file")
    a.add_argument("--password-file", metavar="FILE", help="its password (else a prompt)")
    a.set_defaults(func=guarded(_info))

    a = actions.add_parser("extract", help="write the key and certificates as PEM", description=__doc__)
    a.add_argument("input", metavar="FILE", help="the PKCS#12 file")
    a.add_argument("--password-file", metavar="FILE", help="its password (else a prompt)")
    a.add_argument("--key-out", metavar="FILE", help="write the private key (PKCS#8 PEM)")
    a.add_argument(
        "--out-password-file", metavar="FILE", help="encrypt the written key with this password (PBES2)"
    )
    a.add_argument(
        "--iterations",
        type=int,
        default=keys.DEFAULT_ITERATIONS,
        help="PBKDF2 iterations of the written key (with --out-password-file)",
    )
    a.add_argument("--cert-out", metavar="FILE", help="write the key's certificate (PEM)")
    a.add_argument("--chain-out", metavar="FILE", help="write the other certificates (PEM bundle)")
    a.add_argument("-f", "--force", action="store_true", help="replace existing output files")
    a.set_defaults(func=guarded(_extract))
