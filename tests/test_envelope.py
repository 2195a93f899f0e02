"""The streaming envelope: round trips, streaming == one-shot, and every kind of damage."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import guomi.envelope as env
from guomi.exceptions import AlreadyFinalized, DecryptionError, InvalidLength, UnsupportedFormat

KEY = bytes(range(16))
HEADER = 8 + 4 + 16 + 2  # magic, version/kem/chunk/flags, salt, kem_len (raw-key kem_data is empty)
CHUNK = 1024
RECORD = CHUNK + 16


def test_format_header() -> None:
    sealed = env.seal(b"", key=KEY, chunk_size=CHUNK)
    assert sealed[:8] == b"GUOMIENV" == env.MAGIC
    assert sealed[8:12] == bytes([1, 4, 10, 0])  # version 1, raw key, 2^10, no flags
    assert sealed[28:30] == b"\x00\x00"
    assert len(sealed) == HEADER + 16  # one empty last chunk: its tag


@pytest.mark.parametrize("size", [0, 1, CHUNK - 1, CHUNK, CHUNK + 1, 3 * CHUNK, 3 * CHUNK + 5])
def test_round_trip_sizes(backend: str, size: int) -> None:
    data = bytes(i * 7 & 0xFF for i in range(size))
    sealed = env.seal(data, key=KEY, chunk_size=CHUNK)
    assert env.open(sealed, key=KEY) == data
    assert env.open(bytearray(sealed), key=memoryview(KEY)) == data


@settings(max_examples=40, deadline=None)
@given(
    st.binary(max_size=5000),
    st.integers(min_value=1, max_value=3000),
    st.integers(min_value=1, max_value=3000),
)
def test_streaming_equals_one_shot(data: bytes, wstep: int, rstep: int) -> None:
    s = env.Sealer(key=KEY, chunk_size=CHUNK)
    sealed = b"".join(s.update(data[i : i + wstep]) for i in range(0, len(data), wstep)) + s.finalize()
    o = env.Opener(key=KEY)
    out = b"".join(o.update(sealed[i : i + rstep]) for i in range(0, len(sealed), rstep)) + o.finalize()
    assert out == data


def test_password_envelopes() -> None:
    sealed = env.seal(b"secret data", password=b"correct horse", iterations=1000)
    assert sealed[9] == 3 and sealed[30:34] == (1000).to_bytes(4, "big")
    assert env.open(sealed, password=b"correct horse") == b"secret data"
    with pytest.raises(DecryptionError):
        env.open(sealed, password=b"wrong")
    with pytest.raises(DecryptionError):
        env.open(sealed, key=KEY)  # a key cannot open a password envelope


def test_damage_is_detected() -> None:
    data = bytes(3000)
    sealed = env.seal(data, key=KEY, chunk_size=CHUNK)
    for pos in (9 + 3, 12, 29, HEADER, HEADER + RECORD + 1, len(sealed) - 1):
        bad = bytearray(sealed)
        bad[pos] ^= 0x01
        with pytest.raises((DecryptionError, UnsupportedFormat)):
            env.open(bytes(bad), key=KEY)
    for cut in (HEADER, HEADER + RECORD, HEADER + 2 * RECORD, len(sealed) - 1, 5):
        with pytest.raises((DecryptionError, UnsupportedFormat)):
            env.open(sealed[:cut], key=KEY)
    reordered = (
        sealed[:HEADER] + sealed[HEADER + RECORD : HEADER + 2 * RECORD] + sealed[HEADER : HEADER + RECORD]
    )
    reordered += sealed[HEADER + 2 * RECORD :]
    with pytest.raises(DecryptionError):
        env.open(reordered, key=KEY)
    with pytest.raises(DecryptionError):
        env.open(sealed + b"\x00" * 16, key=KEY)
    with pytest.raises(DecryptionError):
        env.open(sealed, key=bytes(16))
    with pytest.raises(UnsupportedFormat):
        env.open(b"not an envelope at all", key=KEY)


def test_no_unverified_plaintext_is_released() -> None:
    sealed = bytearray(env.seal(bytes(5 * CHUNK), key=KEY, chunk_size=CHUNK))
    sealed[HEADER + 2 * RECORD + 10] ^= 1  # damage the third chunk
    o = env.Opener(key=KEY)
    released = o.update(bytes(sealed[: HEADER + 2 * RECORD + 100]))
    assert len(released) == 2 * CHUNK  # the two good chunks only
    with pytest.raises(DecryptionError):
        o.update(bytes(sealed[HEADER + 2 * RECORD + 100 :]))


def test_bad_arguments() -> None:
    with pytest.raises(InvalidLength):
        env.seal(b"x", key=b"short")
    with pytest.raises(TypeError):
        env.seal(b"x")
    with pytest.raises(TypeError):
        env.seal(b"x", key=KEY, password=b"pw")
    with pytest.raises(TypeError):
        env.seal("text", key=KEY)  # type: ignore[arg-type]
    for size in (1000, 512, 1 << 25):
        with pytest.raises(ValueError):
            env.seal(b"x", key=KEY, chunk_size=size)
    s = env.Sealer(key=KEY)
    s.finalize()
    with pytest.raises(AlreadyFinalized):
        s.update(b"x")
    with pytest.raises(AlreadyFinalized):
        s.finalize()


def test_files_are_written_atomically(tmp_path: Path) -> None:
    src, sealed, out = tmp_path / "in.bin", tmp_path / "in.gm", tmp_path / "out.bin"
    data = bytes(range(256)) * 3000
    src.write_bytes(data)
    env.seal_file(src, sealed, key=KEY)
    env.open_file(sealed, out, key=KEY)
    assert out.read_bytes() == data
    with pytest.raises(FileExistsError):
        env.open_file(sealed, out, key=KEY)
    # A damaged envelope: the existing output is untouched and no temporary file is left.
    damaged = bytearray(sealed.read_bytes())
    damaged[-1] ^= 1
    sealed.write_bytes(bytes(damaged))
    with pytest.raises(DecryptionError):
        env.open_file(sealed, out, key=KEY, force=True)
    assert out.read_bytes() == data
    fresh = tmp_path / "fresh.bin"
    with pytest.raises(DecryptionError):
        env.open_file(sealed, fresh, key=KEY)
    assert not fresh.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.bin", "in.gm", "out.bin"]


def test_sm9_recipient() -> None:
    from guomi import sm9

    master = sm9.EncMasterKey.generate()
    sealed = env.seal(b"for bob only", recipient=master.public_key(), user_id=b"bob", chunk_size=CHUNK)
    assert sealed[9] == 2 and sealed[28:30] == b"\x00\x41"  # SM9 KEM, 65-byte C
    assert env.open(sealed, private_key=master.extract(b"bob")) == b"for bob only"
    with pytest.raises(DecryptionError):
        env.open(sealed, private_key=master.extract(b"eve"))
    with pytest.raises(DecryptionError):
        env.open(sealed, key=KEY)
    with pytest.raises(TypeError):
        env.seal(b"x", recipient=master.public_key())  # no user_id
    with pytest.raises(TypeError):
        env.seal(b"x", key=KEY, user_id=b"bob")
    with pytest.raises(TypeError):
        env.seal(b"x", recipient=b"not a key")  # type: ignore[arg-type]
