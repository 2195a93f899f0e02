"""File plumbing shared by the file helpers and the command line: atomic output and
chunked streaming."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import BinaryIO, Optional, Protocol, Union

PathLike = Union[str, "os.PathLike[str]"]
READ_SIZE = 1 << 20


class Stream(Protocol):
    """What :func:`pump` drives: an object with ``update(data) -> bytes`` and
    ``finalize() -> bytes`` (a sealer, opener, encryptor or decryptor)."""

    def update(self, data: bytes) -> bytes:
        """Processes ``data``; returns the output that is ready."""
        ...

    def finalize(self) -> bytes:
        """Ends the stream; returns the rest of the output."""
        ...


@contextmanager
def atomic_output(
    dst: PathLike, *, force: bool = False, src: Optional[PathLike] = None
) -> Iterator[BinaryIO]:
    """A file object whose content replaces ``dst`` only if the block completes.

    The data goes to a temporary file beside ``dst``, is flushed and fsynced, then renamed
    over ``dst``. On any exception the temporary file is removed and ``dst`` is left as it
    was.

    Args:
        dst: the path to write.
        force: replace an existing ``dst`` (default ``False``).
        src: the input file's path, if any: ``dst`` may not be the same file.

    Yields:
        BinaryIO: the temporary file, open for writing.

    Raises:
        FileExistsError: ``dst`` exists and ``force`` is false.
        ValueError: ``dst`` is the file ``src``.
        OSError: creating, writing or renaming failed.

    Example:
        >>> import os, tempfile
        >>> from guomi._fileio import atomic_output
        >>> path = os.path.join(tempfile.mkdtemp(), "out")
        >>> with atomic_output(path) as f:
        ...     _ = f.write(b"all or nothing")
        >>> os.path.getsize(path)
        14
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
    """Feeds ``src`` through ``stream`` into ``dst`` in 1 MiB reads, in constant memory.

    Args:
        src: a binary file open for reading.
        dst: a binary file open for writing.
        stream: the :class:`Stream` (``update``/``finalize``).
        progress: called with the size of each chunk read, or ``None``.

    Raises:
        Whatever ``stream`` raises (e.g. ``DecryptionError``), and ``OSError``.

    Example:
        >>> import io
        >>> from guomi import envelope
        >>> from guomi._fileio import pump
        >>> out = io.BytesIO()
        >>> pump(io.BytesIO(b"data"), out, envelope.Sealer(key=bytes(16)))
        >>> envelope.open(out.getvalue(), key=bytes(16))
        b'data'
    """
    while True:
        chunk = src.read(READ_SIZE)
        if not chunk:
            break
        dst.write(stream.update(chunk))
        if progress is not None:
            progress(len(chunk))
    dst.write(stream.finalize())


def transform_file(src: PathLike, dst: PathLike, stream: Stream, *, force: bool = False) -> None:
    """Streams file ``src`` through ``stream`` into ``dst``, atomically (see
    :func:`atomic_output`).

    Args:
        src: the input path.
        dst: the output path.
        stream: the :class:`Stream`.
        force: replace an existing ``dst`` (default ``False``).

    Raises:
        FileExistsError: ``dst`` exists and ``force`` is false.
        ValueError: ``dst`` is ``src``.
        OSError: reading or writing failed; anything ``stream`` raises.

    Example:
        >>> import os, tempfile
        >>> from guomi import envelope
        >>> from guomi._fileio import transform_file
        >>> d = tempfile.mkdtemp()
        >>> with open(os.path.join(d, "a"), "wb") as f:
        ...     _ = f.write(b"data")
        >>> transform_file(os.path.join(d, "a"), os.path.join(d, "b"), envelope.Sealer(key=bytes(16)))
        >>> os.path.getsize(os.path.join(d, "b")) > 4
        True
    """
    with open(src, "rb") as inp, atomic_output(dst, force=force, src=src) as out:
        pump(inp, out, stream)
