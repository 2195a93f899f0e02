"""The ``guomi`` command line.

Exit status: 0 success, 1 verification failure (a digest or signature that does not
match, a decryption that fails), 2 usage or input error (including an output that cannot
be written: a full disk, a read-only file system, a missing directory, a closed pipe),
130 interrupted (Ctrl-C), 128 + N killed by signal N (SIGTERM, SIGHUP). Every
subcommand has ``--help``. An output file is never left half-written.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Optional

from guomi import __version__
from guomi.cli import cms as _cms
from guomi.cli import pkcs12 as _pkcs12
from guomi.cli import sm2 as _sm2
from guomi.cli import sm3 as _sm3
from guomi.cli import sm4 as _sm4
from guomi.cli import sm9 as _sm9
from guomi.cli import tls as _tls
from guomi.cli import x509 as _x509
from guomi.cli import zuc as _zuc
from guomi.cli._io import UsageError, check_namespace, file_dests
from guomi.exceptions import GuomiError

__all__ = ["main"]


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="guomi",
        description="Chinese commercial cryptography (SM2, SM3, SM4, SM9, ZUC) from the command line.",
    )
    p.add_argument("--version", action="version", version=f"guomi {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    # `guomi bench ...` is handed whole to guomi.bench (see main); listed here for --help.
    sub.add_parser("bench", help="benchmark guomi (--compare: side by side with other SM libraries)")

    _sm3.register(sub)
    _sm4.register(sub)
    _sm2.register(sub)
    _x509.register(sub)
    _cms.register(sub)
    _pkcs12.register(sub)
    _sm9.register(sub)
    _zuc.register(sub)
    _tls.register(sub)
    return p


class Terminated(BaseException):
    """Raised in the main thread by SIGTERM or SIGHUP, as Ctrl-C raises
    KeyboardInterrupt: the cleanup of every ``with`` block runs (temporary files are
    removed), then the command exits with status 128 + the signal number."""

    def __init__(self, signo: int) -> None:
        super().__init__(signo)
        self.signo = signo


def _on_signal(signo: int, frame: Optional[FrameType]) -> None:
    # One signal is enough: a second one must not interrupt the cleanup of the first.
    for s in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, signal.SIG_IGN)
    raise Terminated(signo)


@contextmanager
def _signals_raise() -> Iterator[None]:
    """SIGTERM and SIGHUP raise :class:`Terminated` while the block runs (a signal the
    caller ignores, e.g. SIGHUP under nohup, stays ignored); the old handlers return."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = {}
    for s in (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(s) == signal.SIG_DFL:
            old[s] = signal.signal(s, _on_signal)
    try:
        yield
    finally:
        for s, handler in old.items():
            signal.signal(s, handler)


def _os_error(e: OSError) -> str:
    text = e.strerror or str(e)
    return f"{e.filename}: {text}" if e.filename else text


def main(argv: Optional[list[str]] = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["bench"]:
        from guomi import bench

        return bench.main(argv[1:])
    parser = build_parser()
    args = parser.parse_args(argv)
    func: Callable[[argparse.Namespace], int] = args.func
    name = " ".join(x for x in (args.command, getattr(args, "action", None)) if x)
    try:
        with _signals_raise():
            check_namespace(args, file_dests(parser))
            return func(args)
    except UsageError as e:
        print(f"guomi {name}: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader went away (`guomi ... -o - | head`): nothing more can reach it.
        # Point stdout at /dev/null so the interpreter's final flush does not fail again.
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        print(f"guomi {name}: the output was closed early (broken pipe)", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"guomi {name}: {_os_error(e)}", file=sys.stderr)
        return 2
    except (GuomiError, ValueError) as e:
        print(f"guomi {name}: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except Terminated as t:
        return 128 + t.signo
