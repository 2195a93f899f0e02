"""``guomi sm9 setup|extract|sign|verify|encrypt|decrypt``: SM9 identity-based keys,
signatures and file encryption (GM/T 0044).

Key files are guomi PEM blocks holding the raw encodings of docs/sm9.md:

* ``GUOMI SM9 SIGN MASTER KEY`` / ``GUOMI SM9 ENC MASTER KEY``: the 32-byte master scalar;
* ``GUOMI SM9 SIGN MASTER PUBLIC KEY`` / ``GUOMI SM9 ENC MASTER PUBLIC KEY``: the point;
* ``GUOMI SM9 SIGN USER KEY`` / ``GUOMI SM9 ENC USER KEY``: 2-byte ID length, the ID, the
  master public key (length-prefixed, 2 bytes) and the user's key.

Private key files are written with mode 0600. ``sign``/``verify`` read the whole message
(SM9 signs the message itself); ``encrypt``/``decrypt`` stream through the guomi envelope
with an SM9 KEM recipient (``decrypt -o -`` releases nothing until the whole envelope
verified). Key files are read up to 64 KiB. Exit status: 0 success, 1 invalid signature or failed
decryption, 2 usage or input error.
"""

from __future__ import annotations

import argparse
import base64
import os
import stat
import sys
from collections.abc import Callable
from typing import Any

import guomi.envelope as envelope
from guomi import sm9
from guomi._native.x509 import pem_blocks
from guomi.cli._io import UsageError, guarded, open_output, read_small, transform
from guomi.exceptions import DecryptionError, UnsupportedFormat

# A key file is a few hundred bytes; a bound keeps a hostile one (from a key centre, say)
# from costing more than reading 64 KiB.
MAX_KEY_FILE = 1 << 16


def _pem(label: str, data: bytes) -> bytes:
    body = base64.encodebytes(data).decode()
    return f"-----BEGIN {label}-----\n{body}-----END {label}-----\n".encode()


def _load(path: str, *labels: str) -> tuple[str, bytes]:
    """(label, contents) of the first PEM block of a key file, which must be one of
    ``labels``. Read with the library's PEM reader (one linear pass, strict base64)."""
    try:
        blocks = pem_blocks(read_small(path, "key", MAX_KEY_FILE))
    except UnsupportedFormat as e:
        raise UsageError(f"{path} is not a guomi SM9 key file: {e}") from None
    if not blocks or blocks[0][0] not in labels:
        raise UsageError(f"{path} is not a guomi SM9 key file of type: {', '.join(labels)}")
    return blocks[0]


def _write(path: str, data: bytes, force: bool, private: bool) -> None:
    with open_output(path, force=force) as out:
        # Only a regular file gets the mode: a device written through (-o /dev/stdout)
        # belongs to someone else.
        if private and path != "-" and stat.S_ISREG(os.fstat(out.fileno()).st_mode):
            os.fchmod(out.fileno(), 0o600)
        out.write(data)


def _pack_user(user_id: bytes, master_public: bytes, key: bytes) -> bytes:
    return (
        len(user_id).to_bytes(2, "big")
        + user_id
        + len(master_public).to_bytes(2, "big")
        + master_public
        + key
    )


def _unpack_user(blob: bytes) -> tuple[bytes, bytes, bytes]:
    try:
        n = int.from_bytes(blob[:2], "big")
        user_id, rest = blob[2 : 2 + n], blob[2 + n :]
        m = int.from_bytes(rest[:2], "big")
        if len(user_id) != n or len(rest) < 2 + m:
            raise ValueError
        return user_id, rest[2 : 2 + m], rest[2 + m :]
    except ValueError:
        raise UsageError("corrupt SM9 user key file") from None


def _user_key(path: str, kind: str) -> Any:
    _, blob = _load(path, f"GUOMI SM9 {kind} USER KEY")
    user_id, mpk, key = _unpack_user(blob)
    if kind == "SIGN":
        return sm9.SignUserKey.from_bytes(key, user_id, sm9.SignMasterPublicKey.from_bytes(mpk))
    return sm9.EncUserKey.from_bytes(key, user_id, sm9.EncMasterPublicKey.from_bytes(mpk))


def _read(path: str) -> bytes:
    try:
        if path == "-":
            return sys.stdin.buffer.read()
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise UsageError(f"cannot read {path}: {e.strerror or e}") from e


def _id(args: argparse.Namespace) -> bytes:
    return str(args.id).encode("utf-8")


def _setup(args: argparse.Namespace) -> int:
    kind = args.type.upper()
    master = (sm9.SignMasterKey if kind == "SIGN" else sm9.EncMasterKey).generate()
    _write(args.output, _pem(f"GUOMI SM9 {kind} MASTER KEY", master.to_bytes()), args.force, True)
    if args.pub_out:
        pub = master.public_key().to_bytes()
        _write(args.pub_out, _pem(f"GUOMI SM9 {kind} MASTER PUBLIC KEY", pub), args.force, False)
    return 0


def _extract(args: argparse.Namespace) -> int:
    label, scalar = _load(args.master, "GUOMI SM9 SIGN MASTER KEY", "GUOMI SM9 ENC MASTER KEY")
    kind = label.split()[2]
    master: Any = (sm9.SignMasterKey if kind == "SIGN" else sm9.EncMasterKey).from_bytes(scalar)
    user = master.extract(_id(args))
    blob = _pack_user(_id(args), master.public_key().to_bytes(), user.to_bytes())
    _write(args.output, _pem(f"GUOMI SM9 {kind} USER KEY", blob), args.force, True)
    return 0


def _master_public(path: str, kind: str) -> Any:
    label, data = _load(path, f"GUOMI SM9 {kind} MASTER PUBLIC KEY")
    return (sm9.SignMasterPublicKey if kind == "SIGN" else sm9.EncMasterPublicKey).from_bytes(data)


def _sign(args: argparse.Namespace) -> int:
    key = _user_key(args.key, "SIGN")
    _write(args.output, key.sign(_read(args.input), format=args.format), args.force, False)
    return 0


def _verify(args: argparse.Namespace) -> int:
    mpk = _master_public(args.master_pub, "SIGN")
    ok = mpk.verify(_read(args.sig), _read(args.input), _id(args), format=args.format)
    print("Signature OK" if ok else "Signature INVALID", file=sys.stderr)
    return 0 if ok else 1


def _encrypt(args: argparse.Namespace) -> int:
    mpk = _master_public(args.master_pub, "ENC")
    stream = envelope.Sealer(recipient=mpk, user_id=_id(args))
    transform(args.input, args.output, stream, force=args.force, quiet=args.quiet)
    return 0


def _decrypt(args: argparse.Namespace) -> int:
    stream = envelope.Opener(private_key=_user_key(args.key, "ENC"))
    try:
        transform(args.input, args.output, stream, force=args.force, quiet=args.quiet, verify_first=True)
    except DecryptionError:
        print(
            "guomi sm9 decrypt: decryption failed: wrong key, or the file was modified or "
            "truncated; nothing was written",
            file=sys.stderr,
        )
        return 1
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "sm9", help="SM9 identity-based keys, signatures and file encryption", description=__doc__
    )
    actions = p.add_subparsers(dest="action", metavar="ACTION")
    actions.required = True

    def action(name: str, func: Callable[[argparse.Namespace], int], help: str) -> argparse.ArgumentParser:
        a = actions.add_parser(name, help=help, description=help)
        a.set_defaults(func=guarded(func))
        return a

    def out(a: argparse.ArgumentParser) -> None:
        a.add_argument(
            "-o", "--out", dest="output", required=True, metavar="FILE", help="output ('-': stdout)"
        )
        a.add_argument("-f", "--force", action="store_true", help="replace an existing output file")

    a = action("setup", _setup, "generate a master key (the key generation centre's)")
    a.add_argument(
        "--type", choices=["sign", "enc"], required=True, help="signature or encryption master key"
    )
    a.add_argument("--pub-out", metavar="FILE", help="also write the master public key")
    out(a)
    a = action("extract", _extract, "extract a user's private key for an identity")
    a.add_argument("--master", required=True, metavar="FILE", help="master key file")
    a.add_argument("--id", required=True, help="the user's identity (UTF-8)")
    out(a)
    for name, func, text in (("sign", _sign, "sign a file"), ("verify", _verify, "verify a signature")):
        a = action(name, func, text)
        a.add_argument("-i", "--in", dest="input", required=True, metavar="FILE", help="message ('-': stdin)")
        a.add_argument(
            "--format", choices=["raw", "der"], default="raw", help="signature encoding (default raw)"
        )
        if name == "sign":
            a.add_argument("--key", required=True, metavar="FILE", help="signing user key file")
            out(a)
        else:
            a.add_argument("--master-pub", required=True, metavar="FILE", help="sign master public key")
            a.add_argument("--id", required=True, help="the signer's identity (UTF-8)")
            a.add_argument("--sig", required=True, metavar="FILE", help="signature file")
    for name, func in (("encrypt", _encrypt), ("decrypt", _decrypt)):
        a = action(name, func, f"{name} a file (streaming envelope, SM9 KEM)")
        a.add_argument("-i", "--in", dest="input", required=True, metavar="FILE", help="input ('-': stdin)")
        a.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
        if name == "encrypt":
            a.add_argument("--master-pub", required=True, metavar="FILE", help="encryption master public key")
            a.add_argument("--id", required=True, help="the recipient's identity (UTF-8)")
        else:
            a.add_argument("--key", required=True, metavar="FILE", help="encryption user key file")
        out(a)
