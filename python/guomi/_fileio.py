"""File plumbing shared by the file helpers and the command line: atomic output and
chunked streaming."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import BinaryIO, Callable, Optional, Protocol, Union

PathLike = Union[str, "os.PathLike[str]"]
READ_SIZE = 1 << 20


class Stream(Protocol):
    def update(self, data: bytes) -> bytes: ...
    def finalize(self) -> bytes: ...


@contextmanager
def atomic_output(
    dst: PathLike, *, force: bool = False, src: Optional[PathLike] = None
) -> Iterator[BinaryIO]:
    """A file object whose content replaces ``dst`` only if the block completes.

    The data goes to a temporary file beside ``dst``, is flushed and fsynced, then renamed
    over ``dst``. On any exception the temporary file is removed and ``dst`` is left as it
    was. An existing ``dst`` needs ``force``; ``dst`` may not be the input file ``src``.
    """
    path = os.fspath(dst)
    if os.path.exists(path):
        if src is not None and os.path.exists(src) and os.path.samefile(src, path):
            raise ValueError(f"{path}: output would overwrite the input")
        if not force:
            raise FileExistsError(f"{path} exists (use force/--force to replace it)")
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as out:
            yield out
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def pump(
    src: BinaryIO, dst: BinaryIO, stream: Stream, progress: Optional[Callable[[int], None]] = None
) -> None:
    """Feeds ``src`` through ``stream`` (update/finalize) into ``dst``, in constant memory."""
    while True:
        chunk = src.read(READ_SIZE)
        if not chunk:
            break
        dst.write(stream.update(chunk))
        if progress is not None:
            progress(len(chunk))
    dst.write(stream.finalize())


def transform_file(src: PathLike, dst: PathLike, stream: Stream, *, force: bool = False) -> None:
    """Streams file ``src`` through ``stream`` into ``dst``, atomically."""
    with open(src, "rb") as inp, atomic_output(dst, force=force, src=src) as out:
        pump(inp, out, stream)
