"""``guomi sm2 keygen|pubkey|sign|verify|encrypt|decrypt|convert``: SM2 keys, signatures
and file encryption.

Keys are read from PEM or DER files (PKCS#8, SEC1, password-protected PKCS#8 or legacy
``DEK-Info: SM4-CBC`` PEM; public keys as SPKI, or a certificate for ``--pubkey``).
Passwords come from ``--password-file`` (first line) or a prompt on a terminal, never
from the command line. Signatures use the default ID 1234567812345678 unless ``--uid``
says otherwise. ``encrypt``/``decrypt`` use the streaming guomi envelope (docs/envelope.md)
with an SM2 KEM recipient: any file size in constant memory, tampering and truncation
detected, output written atomically (nothing is written on failure; ``decrypt -o -``
holds the plaintext in an unnamed temporary file in $TMPDIR until all of it verified).
An output is never one of the inputs, and two outputs are never one file.

Exit status: 0 success, 1 signature invalid or decryption failed, 2 usage or input error.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Optional

import guomi.envelope as envelope
from guomi import keys, sm2
from guomi.cli._io import (
    UsageError,
    guarded,
    open_input,
    open_output,
    prompt_password,
    read_password_file,
    transform,
)
from guomi.exceptions import DecryptionError, GuomiError, InvalidKey

READ_SIZE = 1 << 20


def _read_file(path: str, what: str) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise UsageError(f"cannot read {what} {path}: {e.strerror or e}") from e


def _password(args: argparse.Namespace, attr: str = "password_file", *, confirm: bool = False) -> bytes:
    path = getattr(args, attr, None)
    if path is not None:
        return read_password_file(path)
    return prompt_password(confirm=confirm)


def _is_pem(data: bytes) -> bool:
    return b"-----BEGIN " in data


def load_private_key(path: str, args: argparse.Namespace, attr: str = "password_file") -> sm2.PrivateKey:
    """A private key from a PEM/DER file; asks for the password only when it is needed."""
    data = _read_file(path, "key file")
    try:
        if _is_pem(data):
            if keys.is_encrypted_pem(data):
                return keys.load_pem_private_key(data, password=_password(args, attr))
            try:
                return keys.load_pem_private_key(data)
            except TypeError:  # encrypted in a way is_encrypted_pem did not recognise
                return keys.load_pem_private_key(data, password=_password(args, attr))
        try:
            return keys.load_der_private_key(data)
        except TypeError:  # an EncryptedPrivateKeyInfo
            return keys.load_der_private_key(data, password=_password(args, attr))
    except InvalidKey as e:
        raise UsageError(f"{path}: {e} (check the password file or the key)") from e
    except (GuomiError, ValueError) as e:
        raise UsageError(f"{path}: not a usable SM2 private key: {e}") from e


def load_public_key(path: str) -> sm2.PublicKey:
    """An SM2 public key from SPKI PEM/DER, a certificate (PEM/DER) or a raw point file."""
    from guomi import x509

    data = _read_file(path, "public key file")
    try:
        if _is_pem(data):
            if b"-----BEGIN CERTIFICATE-----" in data:
                return x509.Certificate.from_pem(data).public_key()
            if b"PRIVATE KEY-----" in data:
                raise UsageError(f"{path} holds a private key: give the public key (guomi sm2 pubkey)")
            return sm2.PublicKey.from_pem(data)
        try:
            return sm2.PublicKey.from_der(data)
        except GuomiError:
            return x509.Certificate.from_der(data).public_key()
    except UsageError:
        raise
    except (GuomiError, ValueError) as e:
        raise UsageError(f"{path}: not an SM2 public key or certificate: {e}") from e


def _uid(args: argparse.Namespace) -> bytes:
    if args.uid_hex is not None:
        try:
            return bytes.fromhex(args.uid_hex)
        except ValueError:
            raise UsageError("--uid-hex must be hexadecimal") from None
    return sm2.DEFAULT_UID if args.uid is None else args.uid.encode()


def _write(dst: str, data: bytes, args: argparse.Namespace) -> None:
    with open_output(dst, force=args.force) as out:
        out.write(data)


def _check_iterations(args: argparse.Namespace) -> None:
    if not 1 <= args.iterations <= keys.MAX_ITERATIONS:
        raise UsageError(f"--iterations must be 1 to {keys.MAX_ITERATIONS}")


def _keygen(args: argparse.Namespace) -> int:
    _check_iterations(args)
    password: Optional[bytes] = None
    if args.password_file is not None or args.encrypt:
        if args.format != "pkcs8":
            raise UsageError("encrypted keys are PKCS#8: drop --format sec1")
        password = _password(args, confirm=True)
    key = sm2.PrivateKey.generate()
    if args.outform == "der":
        data = keys.dump_der_private_key(
            key, password, prf=args.prf, iterations=args.iterations, format=args.format
        )
    else:
        data = keys.dump_pem_private_key(
            key, password, prf=args.prf, iterations=args.iterations, format=args.format
        ).encode()
    _write(args.output, data, args)
    if args.pubout:
        _write(args.pubout, key.public_key().to_pem().encode(), args)
    return 0


def _pubkey(args: argparse.Namespace) -> int:
    key = load_private_key(args.key, args)
    pub = key.public_key()
    _write(args.output, pub.to_der() if args.outform == "der" else pub.to_pem().encode(), args)
    return 0


def _stream_into(path: str, update: Callable[[bytes], None]) -> None:
    with open_input(path) as f:
        while True:
            chunk = f.read(READ_SIZE)
            if not chunk:
                return
            update(chunk)


def _sign(args: argparse.Namespace) -> int:
    key = load_private_key(args.key, args)
    signer = sm2.Signer(key, uid=_uid(args))
    _stream_into(args.input, signer.update)
    _write(args.output, signer.sign(format=args.sig_format), args)
    return 0


def _verify(args: argparse.Namespace) -> int:
    pub = load_public_key(args.pubkey)
    sig = _read_file(args.sig, "signature file")
    verifier = sm2.Verifier(pub, uid=_uid(args))
    _stream_into(args.input, verifier.update)
    if verifier.verify(sig):
        if not args.quiet:
            print("Signature OK")
        return 0
    print("Signature verification FAILED")
    return 1


def _encrypt(args: argparse.Namespace) -> int:
    pub = load_public_key(args.pubkey)
    chunk = args.chunk_size
    if chunk < 1024 or chunk > 1 << 24 or chunk & (chunk - 1):
        raise UsageError("--chunk-size must be a power of two from 1024 to 16777216")
    stream = envelope.Sealer(recipient=pub, chunk_size=chunk)
    transform(args.input, args.output, stream, force=args.force, quiet=args.quiet)
    return 0


def _decrypt(args: argparse.Namespace) -> int:
    key = load_private_key(args.key, args)
    try:
        transform(
            args.input,
            args.output,
            envelope.Opener(private_key=key),
            force=args.force,
            quiet=args.quiet,
            verify_first=True,
        )
    except DecryptionError:
        print(
            "guomi sm2 decrypt: decryption failed: wrong key, or the file was modified or "
            "truncated; nothing was written",
            file=sys.stderr,
        )
        return 1
    except GuomiError as e:
        raise UsageError(f"{args.input}: {e}") from e
    return 0


def _convert(args: argparse.Namespace) -> int:
    _check_iterations(args)
    data = _read_file(args.input, "input")
    is_public = (_is_pem(data) and b"PUBLIC KEY-----" in data) or (
        not _is_pem(data) and _try_public_der(data)
    )
    if is_public:
        pub = load_public_key(args.input)
        if args.to not in (None, "public"):
            raise UsageError("a public key converts only between PEM and DER (--outform)")
        _write(args.output, pub.to_der() if args.outform == "der" else pub.to_pem().encode(), args)
        return 0
    key = load_private_key(args.input, args)
    if args.to == "public":
        pub = key.public_key()
        _write(args.output, pub.to_der() if args.outform == "der" else pub.to_pem().encode(), args)
        return 0
    password: Optional[bytes] = None
    if args.to == "encrypted":
        password = _password(args, "out_password_file", confirm=True)
    fmt = "sec1" if args.to == "sec1" else "pkcs8"
    if args.outform == "der":
        out = keys.dump_der_private_key(key, password, prf=args.prf, iterations=args.iterations, format=fmt)
    else:
        out = keys.dump_pem_private_key(
            key, password, prf=args.prf, iterations=args.iterations, format=fmt
        ).encode()
    _write(args.output, out, args)
    return 0


def _try_public_der(data: bytes) -> bool:
    try:
        sm2.PublicKey.from_der(data)
    except (GuomiError, ValueError):
        return False
    return True


def _common(a: argparse.ArgumentParser, *, out: bool = True, password: bool = True) -> None:
    if out:
        a.add_argument(
            "-o", "--out", dest="output", required=True, metavar="FILE", help="output file ('-': stdout)"
        )
        a.add_argument("-f", "--force", action="store_true", help="replace an existing output file")
    if password:
        a.add_argument(
            "--password-file",
            metavar="FILE",
            help="file whose first line is the key's password (else a prompt)",
        )


def _uid_args(a: argparse.ArgumentParser) -> None:
    g = a.add_mutually_exclusive_group()
    g.add_argument("--uid", metavar="TEXT", help="signer ID (default 1234567812345678)")
    g.add_argument(
        "--uid-hex", metavar="HEX", help="signer ID in hex (an empty string for OpenSSL < 4 defaults)"
    )


def _protect_args(a: argparse.ArgumentParser) -> None:
    a.add_argument(
        "--prf",
        choices=["hmac-sm3", "hmac-sha256"],
        default="hmac-sm3",
        help="PBKDF2 PRF for an encrypted key: hmac-sm3 (GmSSL) or hmac-sha256 (OpenSSL 3)",
    )
    a.add_argument(
        "--iterations",
        type=int,
        default=keys.DEFAULT_ITERATIONS,
        help=f"PBKDF2 iterations, 1 to {keys.MAX_ITERATIONS}",
    )
    a.add_argument("--outform", choices=["pem", "der"], default="pem", help="output encoding")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("sm2", help="SM2 keys, signatures and file encryption", description=__doc__)
    actions = p.add_subparsers(dest="action", metavar="ACTION")
    actions.required = True

    a = actions.add_parser(
        "keygen", help="generate a private key", description="Generate an SM2 private key."
    )
    _common(a)
    a.add_argument("--encrypt", action="store_true", help="protect the key with a password typed at a prompt")
    a.add_argument("--format", choices=["pkcs8", "sec1"], default="pkcs8", help="key structure (plain keys)")
    a.add_argument("--pubout", metavar="FILE", help="also write the public key (SPKI PEM) here")
    _protect_args(a)
    a.set_defaults(func=guarded(_keygen))

    a = actions.add_parser("pubkey", help="extract the public key", description="Write the SPKI public key.")
    a.add_argument("-k", "--key", required=True, metavar="FILE", help="private key file (PEM or DER)")
    _common(a)
    a.add_argument("--outform", choices=["pem", "der"], default="pem", help="output encoding")
    a.set_defaults(func=guarded(_pubkey))

    a = actions.add_parser("sign", help="sign a file", description="Sign a file (streaming; SM3 with Z_A).")
    a.add_argument("-k", "--key", required=True, metavar="FILE", help="private key file (PEM or DER)")
    a.add_argument(
        "-i", "--in", dest="input", required=True, metavar="FILE", help="file to sign ('-': stdin)"
    )
    _common(a)
    _uid_args(a)
    a.add_argument(
        "--sig-format", choices=["der", "raw"], default="der", help="DER SEQUENCE{r,s} or 64-byte r||s"
    )
    a.set_defaults(func=guarded(_sign))

    a = actions.add_parser(
        "verify",
        help="verify a signature (exit 0 valid, 1 invalid)",
        description="Verify a file's signature.",
    )
    a.add_argument(
        "-p", "--pubkey", required=True, metavar="FILE", help="public key or certificate (PEM/DER)"
    )
    a.add_argument("-i", "--in", dest="input", required=True, metavar="FILE", help="signed file ('-': stdin)")
    a.add_argument("-s", "--sig", required=True, metavar="FILE", help="signature file (DER or raw r||s)")
    a.add_argument("-q", "--quiet", action="store_true", help="no 'Signature OK' line")
    _uid_args(a)
    a.set_defaults(func=guarded(_verify))

    a = actions.add_parser(
        "encrypt", help="encrypt a file to a public key (streaming envelope)", description=__doc__
    )
    a.add_argument(
        "-p", "--pubkey", required=True, metavar="FILE", help="recipient public key or certificate"
    )
    a.add_argument("-i", "--in", dest="input", required=True, metavar="FILE", help="input file ('-': stdin)")
    _common(a, password=False)
    a.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    a.add_argument("--chunk-size", type=int, default=envelope.DEFAULT_CHUNK_SIZE, help="bytes per chunk")
    a.set_defaults(func=guarded(_encrypt))

    a = actions.add_parser("decrypt", help="decrypt a file (exit 1 if it fails)", description=__doc__)
    a.add_argument("-k", "--key", required=True, metavar="FILE", help="private key file (PEM or DER)")
    a.add_argument(
        "-i", "--in", dest="input", required=True, metavar="FILE", help="envelope file ('-': stdin)"
    )
    _common(a)
    a.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    a.set_defaults(func=guarded(_decrypt))

    a = actions.add_parser(
        "convert",
        help="convert keys: PEM<->DER, SEC1<->PKCS#8, encrypt/decrypt, private->public",
        description="Convert a key. The input form (PEM/DER, plain/encrypted, private/public) is detected.",
    )
    a.add_argument("-i", "--in", dest="input", required=True, metavar="FILE", help="input key file")
    _common(a)
    a.add_argument(
        "--to",
        choices=["pkcs8", "sec1", "encrypted", "public"],
        help="output structure (default: plain PKCS#8 for private keys)",
    )
    a.add_argument("--out-password-file", metavar="FILE", help="password for --to encrypted (else a prompt)")
    _protect_args(a)
    a.set_defaults(func=guarded(_convert))
