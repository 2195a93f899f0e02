//! `guomi._native.zuc`: ZUC-128/256 keystream, 128-EEA3/EIA3, ZUC-256 MAC, the
//! keystream-reuse guard and the batch calls. Conversion, error mapping and GIL release
//! only; the algorithms are in `guomi_core::zuc`.

use crate::buf::{maybe_detach, Bytes};
use crate::error::{IntoPy, InvalidArgument};
use crate::locked::Locked;
use guomi_core::zuc::{eea3 as core_eea3, eia3 as core_eia3, guard::Eea3Guard, many, zuc256, Zuc};
use guomi_core::Error;
use guomi_python_macros::guard_panics;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyInt, PyList, PyTuple};

/// An integer argument in the range of `T`: a non-int is a `TypeError`, an int out of
/// range is `InvalidArgument` (a `ValueError`).
fn int_arg<'py, T>(obj: &Bound<'py, PyAny>, what: &'static str) -> PyResult<T>
where
    T: for<'a> FromPyObject<'a, 'py>,
{
    if !obj.is_instance_of::<PyInt>() {
        return Err(PyTypeError::new_err(format!("{what} must be an int")));
    }
    obj.extract::<T>()
        .map_err(|_| InvalidArgument::new_err(format!("{what} is out of range")))
}

/// COUNT (32 bits), BEARER (5 bits), DIRECTION (1 bit).
fn framing(
    count: &Bound<'_, PyAny>,
    bearer: &Bound<'_, PyAny>,
    direction: &Bound<'_, PyAny>,
) -> PyResult<(u32, u8, u8)> {
    let c = int_arg::<u32>(count, "count (32-bit unsigned)")?;
    let b = int_arg::<u8>(bearer, "bearer (0..31)")?;
    let d = int_arg::<u8>(direction, "direction (0 or 1)")?;
    Ok((c, b, d))
}

fn length_arg(length_bits: Option<&Bound<'_, PyAny>>) -> PyResult<Option<u64>> {
    length_bits
        .map(|l| int_arg::<u64>(l, "length_bits (>= 0)"))
        .transpose()
}

/// `words` keystream words of `z` (4·words bytes) in a new `bytes`.
fn keystream_bytes<'py>(py: Python<'py>, z: Zuc, words: usize) -> PyResult<Bound<'py, PyBytes>> {
    let n = guomi_core::zuc::keystream_len(words).py_err()?;
    PyBytes::new_with(py, n, |out| {
        maybe_detach(py, n, || z.fill_once(out));
        Ok(())
    })
}

/// The first ``words`` ZUC-128 keystream words (the binding behind
/// ``guomi.zuc.keystream``).
///
/// Args:
///     key: 16 bytes.
///     iv: 16 bytes.
///     words: how many 32-bit words, 0 to 2**27 (512 MiB), checked before allocating.
///
/// Returns:
///     bytes: ``4 * words`` bytes, each word big-endian (z1 first).
///
/// Raises:
///     InvalidLength: ``key`` or ``iv`` is not 16 bytes.
///     InvalidArgument: ``words`` is over 2**27.
///     OverflowError: ``words`` is negative.
///     TypeError: ``key`` or ``iv`` is not bytes-like.
///
/// Example:
///     >>> from guomi._native import zuc
///     >>> zuc.keystream(bytes(16), bytes(16), 2).hex()
///     '27bede74018082da'
#[guard_panics]
#[pyfunction]
fn keystream<'py>(
    py: Python<'py>,
    key: Bytes,
    iv: Bytes,
    words: usize,
) -> PyResult<Bound<'py, PyBytes>> {
    keystream_bytes(py, Zuc::new(&key, &iv).py_err()?, words)
}

/// The first ``words`` ZUC-256 keystream words (the binding behind
/// ``guomi.zuc.zuc256_keystream``).
///
/// Args:
///     key: 32 bytes.
///     iv: 25 bytes (IV0..IV16, then IV17..IV24 as 6-bit values, one per byte) or the
///         23-byte packed form of GmSSL and gmsm.
///     words: how many 32-bit words, 0 to 2**27, checked before allocating.
///
/// Returns:
///     bytes: ``4 * words`` bytes, each word big-endian.
///
/// Raises:
///     InvalidLength: ``key`` is not 32 bytes or ``iv`` not 25 or 23 bytes.
///     InvalidArgument: a 25-byte ``iv`` with a byte 17..24 of 64 or more, or
///         ``words`` over 2**27.
///     OverflowError: ``words`` is negative.
///     TypeError: ``key`` or ``iv`` is not bytes-like.
///
/// Example:
///     >>> from guomi._native import zuc
///     >>> len(zuc.zuc256_keystream(bytes(32), bytes(25), 4))
///     16
#[guard_panics]
#[pyfunction]
fn zuc256_keystream<'py>(
    py: Python<'py>,
    key: Bytes,
    iv: Bytes,
    words: usize,
) -> PyResult<Bound<'py, PyBytes>> {
    keystream_bytes(py, Zuc::new_256(&key, &iv).py_err()?, words)
}

/// 128-EEA3 (3GPP confidentiality, ETSI/SAGE specification) encryption or decryption:
/// the same operation, ``data`` XOR the keystream of (key, COUNT, BEARER, DIRECTION).
///
/// Never encrypt two messages under the same key, ``count``, ``bearer`` and
/// ``direction``: the XOR of the two ciphertexts is the XOR of the plaintexts.
/// ``guomi.zuc.EEA3`` refuses such reuse. The GIL is released from 2 KiB on.
///
/// Args:
///     key: the 16-byte confidentiality key CK.
///     count: the 32-bit COUNT, an ``int`` in 0..2**32-1.
///     bearer: the 5-bit BEARER, an ``int`` in 0..31.
///     direction: the DIRECTION bit, 0 (uplink) or 1 (downlink).
///     data: the message, any bytes-like object.
///     length_bits: how many bits of ``data`` to process, most significant bit of each
///         byte first (3GPP order): an ``int`` from 0 to ``8 * len(data)``; ``None``
///         (the default) = every bit.
///
/// Returns:
///     bytes: ``ceil(length_bits / 8)`` bytes, the unused trailing bits of the last
///     byte set to zero.
///
/// Raises:
///     InvalidArgument: ``count``, ``bearer`` or ``direction`` out of range, or
///         ``length_bits`` negative or longer than ``data``.
///     InvalidLength: ``key`` is not 16 bytes.
///     TypeError: ``count``, ``bearer``, ``direction`` or ``length_bits`` is not an
///         ``int``, or ``key``/``data`` is not bytes-like.
///
/// Example:
///     >>> from guomi import zuc
///     >>> ct = zuc.eea3(bytes(16), 7, 3, 1, b"hello")
///     >>> zuc.eea3(bytes(16), 7, 3, 1, ct)
///     b'hello'
///     >>> len(zuc.eea3(bytes(16), 7, 3, 1, b"hello", length_bits=12))
///     2
#[guard_panics]
#[pyfunction]
#[pyo3(signature = (key, count, bearer, direction, data, *, length_bits=None))]
fn eea3<'py>(
    py: Python<'py>,
    key: Bytes,
    count: &Bound<'py, PyAny>,
    bearer: &Bound<'py, PyAny>,
    direction: &Bound<'py, PyAny>,
    data: Bytes,
    length_bits: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let (c, b, d) = framing(count, bearer, direction)?;
    let bits = length_arg(length_bits)?;
    let n = core_eea3::output_len(data.len(), bits).py_err()?;
    PyBytes::new_with(py, n, |out| {
        maybe_detach(py, n, || {
            core_eea3::eea3_into(&key, c, b, d, &data, bits, out)
        })
        .py_err()
    })
}

/// 128-EIA3 (3GPP integrity, ETSI/SAGE specification) MAC of the first
/// ``length_bits`` bits of ``data``. The GIL is released from 2 KiB on.
///
/// Args:
///     key: the 16-byte integrity key IK.
///     count: the 32-bit COUNT, an ``int`` in 0..2**32-1.
///     bearer: the 5-bit BEARER, an ``int`` in 0..31.
///     direction: the DIRECTION bit, 0 (uplink) or 1 (downlink).
///     data: the message, any bytes-like object.
///     length_bits: how many bits of ``data`` to process, most significant bit of each
///         byte first (3GPP order): an ``int`` from 0 to ``8 * len(data)``; ``None``
///         (the default) = every bit.
///
/// Returns:
///     bytes: the 4-byte MAC-I. Check a received MAC with ``eia3_verify`` (constant
///     time), not ``==``.
///
/// Raises:
///     InvalidArgument: ``count``, ``bearer`` or ``direction`` out of range, or
///         ``length_bits`` negative or longer than ``data``.
///     InvalidLength: ``key`` is not 16 bytes.
///     TypeError: ``count``, ``bearer``, ``direction`` or ``length_bits`` is not an
///         ``int``, or ``key``/``data`` is not bytes-like.
///
/// Example:
///     >>> from guomi import zuc
///     >>> mac = zuc.eia3(bytes(16), 0, 0, 0, b"message")
///     >>> len(mac), zuc.eia3_verify(bytes(16), 0, 0, 0, b"message", mac)
///     (4, True)
#[guard_panics]
#[pyfunction]
#[pyo3(signature = (key, count, bearer, direction, data, *, length_bits=None))]
fn eia3<'py>(
    py: Python<'py>,
    key: Bytes,
    count: &Bound<'py, PyAny>,
    bearer: &Bound<'py, PyAny>,
    direction: &Bound<'py, PyAny>,
    data: Bytes,
    length_bits: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let (c, b, d) = framing(count, bearer, direction)?;
    let bits = length_arg(length_bits)?;
    let mac = maybe_detach(py, data.len(), || {
        core_eia3::eia3(&key, c, b, d, &data, bits)
    })
    .py_err()?;
    Ok(PyBytes::new(py, &mac))
}

/// Whether ``mac`` is the 128-EIA3 MAC of ``data``, compared in constant time.
///
/// The MAC length is fixed at 4 bytes by the algorithm: a ``mac`` of any other length
/// (a truncated one included) is simply ``False``.
///
/// Args:
///     key: the 16-byte integrity key IK.
///     count: the 32-bit COUNT, an ``int`` in 0..2**32-1.
///     bearer: the 5-bit BEARER, an ``int`` in 0..31.
///     direction: the DIRECTION bit, 0 (uplink) or 1 (downlink).
///     data: the message, any bytes-like object.
///     mac: the MAC to check, any bytes-like object.
///     length_bits: how many bits of ``data`` to process, most significant bit of each
///         byte first (3GPP order): an ``int`` from 0 to ``8 * len(data)``; ``None``
///         (the default) = every bit.
///
/// Returns:
///     bool: ``True`` if ``mac`` matches.
///
/// Raises:
///     InvalidArgument: ``count``, ``bearer`` or ``direction`` out of range, or
///         ``length_bits`` negative or longer than ``data``.
///     InvalidLength: ``key`` is not 16 bytes.
///     TypeError: ``count``, ``bearer``, ``direction`` or ``length_bits`` is not an
///         ``int``, or ``key``/``data`` is not bytes-like.
///
/// Example:
///     >>> from guomi import zuc
///     >>> mac = zuc.eia3(bytes(16), 1, 2, 0, b"abc")
///     >>> zuc.eia3_verify(bytes(16), 1, 2, 0, b"abc", mac)
///     True
///     >>> zuc.eia3_verify(bytes(16), 1, 2, 0, b"abd", mac), zuc.eia3_verify(
///     ...     bytes(16), 1, 2, 0, b"abc", mac[:2])
///     (False, False)
#[guard_panics]
#[pyfunction]
#[pyo3(signature = (key, count, bearer, direction, data, mac, *, length_bits=None))]
#[allow(clippy::too_many_arguments)]
fn eia3_verify<'py>(
    py: Python<'py>,
    key: Bytes,
    count: &Bound<'py, PyAny>,
    bearer: &Bound<'py, PyAny>,
    direction: &Bound<'py, PyAny>,
    data: Bytes,
    mac: Bytes,
    length_bits: Option<&Bound<'py, PyAny>>,
) -> PyResult<bool> {
    let (c, b, d) = framing(count, bearer, direction)?;
    let bits = length_arg(length_bits)?;
    maybe_detach(py, data.len(), || {
        core_eia3::verify(&key, c, b, d, &data, &mac, bits)
    })
    .py_err()
}

/// ZUC-256 MAC (2018 specification) of the first ``length_bits`` bits of ``data``
/// (the binding behind ``guomi.zuc.zuc256_mac``).
///
/// Args:
///     key: 32 bytes.
///     iv: 25 bytes (IV17..IV24 as 6-bit values, one per byte) or the 23-byte packed
///         form.
///     data: the message, any bytes-like object.
///     tag_bits: 32 (``None``, the default), 64 or 128. Each size uses its own
///         constants, so a 64-bit tag is not an extension of the 32-bit one.
///     length_bits: how many bits of ``data`` to process, most significant bit of each
///         byte first (3GPP order): an ``int`` from 0 to ``8 * len(data)``; ``None``
///         (the default) = every bit.
///
/// Returns:
///     bytes: the tag, ``tag_bits / 8`` bytes.
///
/// Raises:
///     InvalidLength: ``key`` is not 32 bytes or ``iv`` not 25 or 23 bytes.
///     InvalidArgument: ``tag_bits`` is not 32, 64 or 128; ``length_bits`` negative or
///         longer than ``data``; a 25-byte ``iv`` byte 17..24 of 64 or more.
///     TypeError: ``tag_bits`` or ``length_bits`` is not an ``int``, or a bytes
///         argument is not bytes-like.
///
/// Example:
///     >>> from guomi._native import zuc
///     >>> len(zuc.zuc256_mac(bytes(32), bytes(25), b"abc", tag_bits=64))
///     8
#[guard_panics]
#[pyfunction]
#[pyo3(signature = (key, iv, data, *, tag_bits=None, length_bits=None))]
fn zuc256_mac<'py>(
    py: Python<'py>,
    key: Bytes,
    iv: Bytes,
    data: Bytes,
    tag_bits: Option<&Bound<'py, PyAny>>,
    length_bits: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let t = tag_bits
        .map(|t| int_arg::<u32>(t, "tag_bits (32, 64 or 128)"))
        .transpose()?
        .unwrap_or(32);
    let bits = length_arg(length_bits)?;
    let tag = maybe_detach(py, data.len(), || zuc256::mac(&key, &iv, &data, t, bits)).py_err()?;
    Ok(PyBytes::new(py, &tag))
}

/// Whether ``tag`` is the ``tag_bits``-bit ZUC-256 MAC of ``data``, compared in
/// constant time (the binding behind ``guomi.zuc.zuc256_mac_verify``).
///
/// ``tag_bits`` is fixed by the caller, never taken from ``tag``: a ``tag`` that is
/// not ``tag_bits / 8`` bytes long is simply ``False``.
///
/// Args:
///     key: 32 bytes.
///     iv: 25 bytes (IV17..IV24 as 6-bit values, one per byte) or the 23-byte packed
///         form.
///     data: the message, any bytes-like object.
///     tag: the tag to check, any bytes-like object.
///     tag_bits: 32 (``None``, the default, as in ``zuc256_mac``), 64 or 128.
///     length_bits: how many bits of ``data`` to process, most significant bit of each
///         byte first (3GPP order): an ``int`` from 0 to ``8 * len(data)``; ``None``
///         (the default) = every bit.
///
/// Returns:
///     bool: ``True`` if ``tag`` matches.
///
/// Raises:
///     InvalidLength: ``key`` is not 32 bytes or ``iv`` not 25 or 23 bytes.
///     InvalidArgument: ``tag_bits`` is not 32, 64 or 128; ``length_bits`` negative or
///         longer than ``data``; a 25-byte ``iv`` byte 17..24 of 64 or more.
///     TypeError: ``tag_bits`` or ``length_bits`` is not an ``int``, or a bytes
///         argument is not bytes-like.
///
/// Example:
///     >>> from guomi._native import zuc
///     >>> tag = zuc.zuc256_mac(bytes(32), bytes(25), b"abc")
///     >>> zuc.zuc256_mac_verify(bytes(32), bytes(25), b"abc", tag)
///     True
#[guard_panics]
#[pyfunction]
#[pyo3(signature = (key, iv, data, tag, *, tag_bits=None, length_bits=None))]
fn zuc256_mac_verify<'py>(
    py: Python<'py>,
    key: Bytes,
    iv: Bytes,
    data: Bytes,
    tag: Bytes,
    tag_bits: Option<&Bound<'py, PyAny>>,
    length_bits: Option<&Bound<'py, PyAny>>,
) -> PyResult<bool> {
    let t = tag_bits
        .map(|t| int_arg::<u32>(t, "tag_bits (32, 64 or 128)"))
        .transpose()?
        .unwrap_or(32);
    let bits = length_arg(length_bits)?;
    maybe_detach(py, data.len(), || {
        zuc256::mac_verify(&key, &iv, &data, &tag, t, bits)
    })
    .py_err()
}

/// Converts `(key, count, bearer, direction, data)` tuples.
type OwnedItem = (Bytes, u32, u8, u8, Bytes);

fn items_arg(items: &Bound<'_, PyAny>) -> PyResult<Vec<OwnedItem>> {
    let mut out = Vec::with_capacity(items.len().unwrap_or(0));
    for item in items.try_iter()? {
        out.push(item_arg(&item?)?);
    }
    Ok(out)
}

/// One `(key, count, bearer, direction, data)` tuple, converted the general way.
fn item_arg(item: &Bound<'_, PyAny>) -> PyResult<OwnedItem> {
    let shape =
        || PyTypeError::new_err("each item must be a (key, count, bearer, direction, data) tuple");
    let t = item.cast::<PyTuple>().map_err(|_| shape())?;
    if t.len() != 5 {
        return Err(shape());
    }
    let key: Bytes = t.get_borrowed_item(0)?.extract()?;
    let (c, b, d) = framing(
        &*t.get_borrowed_item(1)?,
        &*t.get_borrowed_item(2)?,
        &*t.get_borrowed_item(3)?,
    )?;
    let data: Bytes = t.get_borrowed_item(4)?.extract()?;
    Ok((key, c, b, d, data))
}

/// Converts `items` (any iterable of 5-tuples) and runs `f` on them. A list or tuple is
/// held as one tuple (see `crate::batch`), and an item that is exactly a 5-tuple with
/// exactly `bytes` key and data is borrowed from it without a reference of its own; any
/// other item is converted by [`item_arg`]. Items are converted in order, so an error is
/// the first bad item's, as before.
fn with_items<R>(
    items: &Bound<'_, PyAny>,
    f: impl FnOnce(&[many::Item<'_>]) -> PyResult<R>,
) -> PyResult<R> {
    let held = crate::batch::Held::new(items);
    let mut owned: Vec<OwnedItem> = Vec::new();
    let slots: Vec<Option<many::Item<'_>>> = match &held {
        Some(h) => held_items(h, 0..h.len(), &mut owned)?,
        None => {
            owned = items_arg(items)?;
            vec![None; owned.len()]
        }
    };
    f(&merge(slots, &owned))
}

/// Items `range` of a held list: `Some` for the ones borrowed in place, `None` for the
/// ones converted the general way, which are appended to `owned` (in order).
fn held_items<'a>(
    h: &'a crate::batch::Held<'_>,
    range: std::ops::Range<usize>,
    owned: &mut Vec<OwnedItem>,
) -> PyResult<Vec<Option<many::Item<'a>>>> {
    let mut slots = Vec::with_capacity(range.len());
    for i in range {
        let fast = match h.tuple(i, 5) {
            Some(t) => match (t.bytes(0), t.bytes(4)) {
                (Some(key), Some(data)) => {
                    let (c, b, d) = framing(&*t.item(1)?, &*t.item(2)?, &*t.item(3)?)?;
                    Some((key, c, b, d, data))
                }
                _ => None,
            },
            None => None,
        };
        if fast.is_none() {
            owned.push(item_arg(&*h.item(i)?)?);
        }
        slots.push(fast);
    }
    Ok(slots)
}

/// The items in order: each `None` slot takes the next of `owned`.
fn merge<'a>(slots: Vec<Option<many::Item<'a>>>, owned: &'a [OwnedItem]) -> Vec<many::Item<'a>> {
    let mut other = owned
        .iter()
        .map(|(k, c, b, d, m)| (&k[..], *c, *b, *d, &m[..]));
    (slots.into_iter())
        .flat_map(|s| s.or_else(|| other.next()))
        .collect()
}

/// Whether a held list carries at least `min` bytes of data, counting only the items
/// borrowed in place (the others count as empty) and stopping as soon as it does.
fn held_data_at_least(h: &crate::batch::Held<'_>, min: usize) -> bool {
    let mut total = 0usize;
    for i in 0..h.len() {
        if let Some(data) = h.tuple(i, 5).and_then(|t| t.bytes(4)) {
            total += data.len();
            if total >= min {
                return true;
            }
        }
    }
    false
}

/// One batch of a pipelined `eea3_many`: where it starts, its items (borrowed, or
/// converted the general way and owned by the batch) and its result buffers.
struct Eea3Batch<'a> {
    slots: Vec<Option<many::Item<'a>>>,
    owned: Vec<OwnedItem>,
    outs: Vec<Fresh>,
}

/// `eea3_many` on several threads with the argument conversion overlapping the work:
/// the calling thread converts the items and makes their result objects batch by batch
/// (it needs the GIL for that), and each batch is encrypted by a pool thread as soon as
/// it is ready; the calling thread then releases the GIL and works on what is left
/// (`parallel::pipeline`). The results and errors are those of the one-pass path: a
/// conversion error is the first bad item's, wherever the computation had got to (its
/// outputs are dropped unseen), and otherwise an invalid item's error is the first one's.
fn eea3_many_pipelined<'py>(
    py: Python<'py>,
    h: &crate::batch::Held<'py>,
    threads: usize,
) -> PyResult<Bound<'py, PyList>> {
    let n = h.len();
    // About 16 batches, each of whole 16-lane groups.
    let per = (n / 16).next_multiple_of(16).max(16);
    let mut objects = Vec::with_capacity(n);
    let mut failed: Option<PyErr> = None;
    let mut next = 0;
    let produce = || -> Option<Eea3Batch<'_>> {
        if next >= n || failed.is_some() {
            return None;
        }
        let range = next..(next + per).min(n);
        next = range.end;
        let mut owned = Vec::new();
        let batch = held_items(h, range, &mut owned).and_then(|slots| {
            let lens = merge(slots.clone(), &owned)
                .iter()
                .map(|i| i.4.len())
                .collect::<Vec<_>>();
            let (objs, outs) = fresh_bytes(py, lens.into_iter())?;
            objects.extend(objs);
            Ok(Eea3Batch { slots, owned, outs })
        });
        batch.map_err(|e| failed = Some(e)).ok()
    };
    let work = |mut b: Eea3Batch<'_>| {
        let refs = merge(std::mem::take(&mut b.slots), &b.owned);
        let r = many::eea3_many_into(&refs, &mut b.outs, Some(1));
        drop(refs);
        // The owned items go back to the calling thread, to be released under the GIL.
        (r, b.owned)
    };
    let results = guomi_core::parallel::pipeline(threads, produce, work, |run| py.detach(run));
    if let Some(e) = failed {
        return Err(e);
    }
    let mut first_err = None;
    for (r, owned) in results {
        drop(owned);
        if let (Err(e), None) = (r, &first_err) {
            first_err = Some(e);
        }
    }
    if let Some(e) = first_err {
        return Err(e).py_err();
    }
    PyList::new(py, objects)
}

/// `threads`: None, or an int >= 0 (negative: InvalidArgument).
fn threads_arg(threads: Option<&Bound<'_, PyAny>>) -> PyResult<Option<usize>> {
    threads
        .map(|t| int_arg::<usize>(t, "threads (>= 0)"))
        .transpose()
}

/// 128-EEA3 of many packets in one call, in 8 (AVX2) or 16 (AVX-512) SIMD lanes and
/// optionally several threads; the GIL is released from 2 KiB in total.
///
/// This function has no keystream-reuse guard: the caller owns the counters.
///
/// Args:
///     items: an iterable of ``(key, count, bearer, direction, data)`` tuples, each as
///         in ``eea3`` (whole bytes of ``data``; no ``length_bits``).
///     threads: ``threads``: ``None`` or ``1`` = the calling thread, ``0`` = every core, ``n`` = at
///         most ``n`` threads (clamped to the number of CPUs; small batches run on the
///         calling thread whatever the value). Negative: ``InvalidArgument``.
///
/// Returns:
///     list[bytes]: the outputs, in the order of ``items``.
///
/// Raises:
///     TypeError: an item is not a 5-tuple, or has a value of the wrong type.
///     InvalidArgument: a ``count``, ``bearer`` or ``direction`` out of range, or a
///         negative ``threads``.
///     InvalidLength: a key that is not 16 bytes.
///
/// Example:
///     >>> from guomi import zuc
///     >>> items = [(bytes(16), n, 1, 0, b"packet %d" % n) for n in range(3)]
///     >>> out = zuc.eea3_many(items, threads=1)
///     >>> out[2] == zuc.eea3(bytes(16), 2, 1, 0, b"packet 2")
///     True
#[guard_panics]
#[pyfunction]
#[pyo3(signature = (items, *, threads=None))]
fn eea3_many<'py>(
    py: Python<'py>,
    items: &Bound<'py, PyAny>,
    threads: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyList>> {
    let threads = threads_arg(threads)?;
    if let Some(h) = crate::batch::Held::new(items) {
        let t = guomi_core::parallel::threads(threads);
        if t > 1 && h.len() >= 32 && held_data_at_least(&h, 64 * 1024) {
            return eea3_many_pipelined(py, &h, t);
        }
    }
    with_items(items, |refs| {
        let total: usize = refs.iter().map(|i| i.4.len()).sum();
        // The result objects are made first, uninitialised, and each is zeroed and filled
        // in place by the worker thread that computes it (see `Fresh`): no intermediate
        // buffer, no copy and no memset under the GIL.
        let (objects, mut outs) = fresh_bytes(py, refs.iter().map(|i| i.4.len()))?;
        maybe_detach(py, total, || many::eea3_many_into(refs, &mut outs, threads)).py_err()?;
        drop(outs);
        PyList::new(py, objects)
    })
}

/// The contents of a new `bytes` object that Python has not seen yet, left uninitialised
/// by `fresh_bytes`: the thread that computes the packet zeroes them (making them valid
/// for a `&mut [u8]`) right before writing every byte (`OutBuf::bytes`), so the memset is
/// spread over the worker threads and done while the memory is about to be written
/// anyway, instead of under the GIL for the whole batch first.
struct Fresh {
    ptr: std::ptr::NonNull<u8>,
    len: usize,
    zeroed: bool,
}

// SAFETY: a `Fresh` is the only access to its object's contents (see `fresh_bytes`); it
// holds no reference to the object and calls no Python API, so moving it to another
// thread (which does not hold the GIL) is sound.
#[allow(unsafe_code)]
unsafe impl Send for Fresh {}

impl many::OutBuf for Fresh {
    fn len(&self) -> usize {
        self.len
    }

    #[allow(unsafe_code)]
    fn bytes(&mut self) -> &mut [u8] {
        if !self.zeroed {
            // SAFETY: `ptr` points to the `len` content bytes of a live `bytes` object
            // (kept alive by `fresh_bytes`' caller until after the last `Fresh` is
            // dropped) that nothing else reads or writes (see `fresh_bytes`); writing
            // them needs no initialisation.
            unsafe { std::ptr::write_bytes(self.ptr.as_ptr(), 0, self.len) };
            self.zeroed = true;
        }
        // SAFETY: the same `len` bytes, now initialised (zeroed above, on this or an
        // earlier call); the returned borrow of `self` is the only view of them.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

/// New `bytes` objects of the given lengths and, for each, a [`Fresh`] handle on its
/// (uninitialised) contents, for a core function to fill (possibly without the GIL, on
/// several threads) before the objects are handed to Python. The caller keeps the objects
/// alive until it has dropped the handles, and returns them to Python only after every
/// byte has been written (`eea3_many_into` writes all of them, or fails before asking for
/// any); on an error the objects are dropped unseen.
///
/// No Python code can see an object before that: each is referenced only by the vector
/// returned here (refcount 1), and `bytes` objects are not tracked by the cyclic garbage
/// collector, so `gc.get_objects()` and `gc.get_referrers()` cannot reach them either.
/// (Only a `--with-trace-refs` debug interpreter's `sys.getobjects()` lists every
/// object; such a build is not supported for this.)
#[allow(unsafe_code)]
#[allow(clippy::type_complexity)]
fn fresh_bytes<'py>(
    py: Python<'py>,
    lens: impl ExactSizeIterator<Item = usize>,
) -> PyResult<(Vec<Bound<'py, PyBytes>>, Vec<Fresh>)> {
    let mut objects = Vec::with_capacity(lens.len());
    let mut handles = Vec::with_capacity(lens.len());
    for len in lens {
        let n = pyo3::ffi::Py_ssize_t::try_from(len)
            .map_err(|_| pyo3::exceptions::PyOverflowError::new_err("output too large"))?;
        // SAFETY: PyBytes_FromStringAndSize(NULL, n) returns a new reference to a fresh
        // `bytes` of n bytes, contents uninitialised (or NULL with an exception set,
        // turned into Err here).
        let obj = unsafe {
            Bound::from_owned_ptr_or_err(
                py,
                pyo3::ffi::PyBytes_FromStringAndSize(std::ptr::null(), n),
            )?
        };
        // SAFETY: `obj` is a live `bytes`; PyBytes_AsString returns the pointer to its
        // contents (NULL with an exception set only for a non-`bytes`). Only this function
        // references `obj` (refcount 1, never shown to Python code; for len 0 it may be
        // the shared empty `bytes`, whose 0-byte contents nobody writes), so nothing else
        // reads or writes the contents while the handle lives; the pointer comes from the
        // C API, not from a shared Rust reference. Distinct objects have disjoint contents.
        let ptr = unsafe { pyo3::ffi::PyBytes_AsString(obj.as_ptr()).cast::<u8>() };
        let Some(ptr) = std::ptr::NonNull::new(ptr) else {
            return Err(PyErr::fetch(py));
        };
        objects.push(obj.cast_into::<PyBytes>()?);
        handles.push(Fresh {
            ptr,
            len,
            zeroed: false,
        });
    }
    Ok((objects, handles))
}

/// 128-EIA3 MACs of many packets in one call, in SIMD lanes and optionally several
/// threads; the GIL is released from 2 KiB in total.
///
/// Args:
///     items: an iterable of ``(key, count, bearer, direction, data)`` tuples, each as
///         in ``eia3`` (whole bytes of ``data``; no ``length_bits``).
///     threads: ``threads``: ``None`` or ``1`` = the calling thread, ``0`` = every core, ``n`` = at
///         most ``n`` threads (clamped to the number of CPUs; small batches run on the
///         calling thread whatever the value). Negative: ``InvalidArgument``.
///
/// Returns:
///     list[bytes]: the 4-byte MACs, in the order of ``items``.
///
/// Raises:
///     TypeError: an item is not a 5-tuple, or has a value of the wrong type.
///     InvalidArgument: a ``count``, ``bearer`` or ``direction`` out of range, or a
///         negative ``threads``.
///     InvalidLength: a key that is not 16 bytes.
///
/// Example:
///     >>> from guomi import zuc
///     >>> macs = zuc.eia3_many([(bytes(16), 5, 0, 1, b"abc")])
///     >>> macs == [zuc.eia3(bytes(16), 5, 0, 1, b"abc")]
///     True
#[guard_panics]
#[pyfunction]
#[pyo3(signature = (items, *, threads=None))]
fn eia3_many<'py>(
    py: Python<'py>,
    items: &Bound<'py, PyAny>,
    threads: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyList>> {
    let threads = threads_arg(threads)?;
    with_items(items, |refs| {
        let total: usize = refs.iter().map(|i| i.4.len()).sum();
        let macs = maybe_detach(py, total, || many::eia3_many(refs, threads)).py_err()?;
        PyList::new(py, macs.iter().map(|m| PyBytes::new(py, m)))
    })
}

/// A streaming ZUC keystream generator: ZUC-128 (GM/T 0001-2012) for a 16-byte key,
/// ZUC-256 for a 32-byte key.
///
/// ``update(data)`` returns ``data`` XOR the next ``len(data)`` keystream bytes
/// (encryption and decryption alike); ``keystream(n)`` returns the next ``n`` bytes.
/// Chunking never changes the result. ``finalize()`` wipes the state; every later call
/// raises ``AlreadyFinalized``. Never use one (key, iv) for two messages.
///
/// Args:
///     key: 16 bytes (ZUC-128) or 32 bytes (ZUC-256).
///     iv: 16 bytes for ZUC-128; 25 or 23 (packed) bytes for ZUC-256.
///
/// Raises:
///     InvalidLength: ``key`` is not 16 or 32 bytes, or ``iv`` has the wrong length
///         for it.
///     InvalidArgument: a 25-byte ZUC-256 ``iv`` with a byte 17..24 of 64 or more.
///     TypeError: ``key`` or ``iv`` is not bytes-like.
///
/// Example:
///     >>> from guomi.zuc import ZUC
///     >>> z = ZUC(bytes(16), bytes(16))
///     >>> z.keystream(3).hex() + z.keystream(5).hex()
///     '27bede74018082da'
#[pyclass(module = "guomi.zuc", name = "ZUC", frozen)]
struct PyZuc {
    inner: Locked<Option<Zuc>>,
}

/// The generator of a `ZUC` object, or `AlreadyFinalized` after `finalize`.
fn live(z: &mut Option<Zuc>) -> PyResult<&mut Zuc> {
    z.as_mut()
        .ok_or_else(|| crate::error::to_py(Error::AlreadyFinalized))
}

#[guard_panics]
#[pymethods]
impl PyZuc {
    /// Creates the generator (see the class documentation).
    #[new]
    fn new(key: Bytes, iv: Bytes) -> PyResult<Self> {
        let z = match key.len() {
            16 => Zuc::new(&key, &iv),
            32 => Zuc::new_256(&key, &iv),
            n => Err(Error::InvalidLength {
                what: "ZUC key",
                expected: "16 (ZUC-128) or 32 (ZUC-256) bytes",
                got: n,
            }),
        }
        .py_err()?;
        Ok(PyZuc {
            inner: Locked::new(Some(z)),
        })
    }

    /// ``data`` XOR the next ``len(data)`` keystream bytes (the GIL is released from
    /// 2 KiB on).
    ///
    /// Args:
    ///     data: any bytes-like object, any length.
    ///
    /// Returns:
    ///     bytes: ``len(data)`` bytes.
    ///
    /// Raises:
    ///     AlreadyFinalized: ``finalize()`` was called.
    ///     TypeError: ``data`` is not bytes-like.
    ///
    /// Example:
    ///     >>> from guomi.zuc import ZUC
    ///     >>> ct = ZUC(bytes(16), bytes(16)).update(b"hello")
    ///     >>> ZUC(bytes(16), bytes(16)).update(ct)
    ///     b'hello'
    fn update<'py>(&self, py: Python<'py>, data: Bytes) -> PyResult<Bound<'py, PyBytes>> {
        let mut z = self.inner.lock(py)?;
        let z = live(&mut z)?;
        let n = data.len();
        PyBytes::new_with(py, n, |out| {
            maybe_detach(py, n, || z.apply_keystream_into(&data, out));
            Ok(())
        })
    }

    /// The next ``nbytes`` keystream bytes.
    ///
    /// Args:
    ///     nbytes: 0 to 2**29 (512 MiB) per call, checked before allocating.
    ///
    /// Returns:
    ///     bytes: ``nbytes`` bytes.
    ///
    /// Raises:
    ///     InvalidArgument: ``nbytes`` is over 2**29.
    ///     OverflowError: ``nbytes`` is negative.
    ///     AlreadyFinalized: ``finalize()`` was called.
    ///
    /// Example:
    ///     >>> from guomi.zuc import ZUC
    ///     >>> ZUC(bytes(16), bytes(16)).keystream(4).hex()
    ///     '27bede74'
    fn keystream<'py>(&self, py: Python<'py>, nbytes: usize) -> PyResult<Bound<'py, PyBytes>> {
        guomi_core::zuc::keystream_len(nbytes.div_ceil(4)).py_err()?;
        let mut z = self.inner.lock(py)?;
        let z = live(&mut z)?;
        PyBytes::new_with(py, nbytes, |out| {
            maybe_detach(py, nbytes, || z.fill(out));
            Ok(())
        })
    }

    /// Ends the stream and wipes the state.
    ///
    /// Returns:
    ///     bytes: always ``b""``.
    ///
    /// Raises:
    ///     AlreadyFinalized: called a second time.
    ///
    /// Example:
    ///     >>> from guomi.zuc import ZUC
    ///     >>> ZUC(bytes(16), bytes(16)).finalize()
    ///     b''
    fn finalize<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let mut z = self.inner.lock(py)?;
        live(&mut z)?;
        *z = None;
        Ok(PyBytes::new(py, b""))
    }

    fn __repr__(&self) -> &'static str {
        "<guomi.zuc.ZUC object>"
    }
}

/// A 128-EEA3 encryptor bound to one key that refuses keystream reuse.
///
/// EEA3 is a stream cipher: its keystream depends only on (key, COUNT, BEARER,
/// DIRECTION). Encrypting two messages with the same four values gives an attacker
/// ``P1 XOR P2``, often enough to recover both. ``encrypt`` remembers every (count,
/// bearer, direction) it has encrypted under, for the object's lifetime, and raises
/// ``KeystreamReuse`` on a second encryption under the same triple, before producing
/// any output; invalid arguments do not use up a triple. ``decrypt`` is never
/// restricted. The memory is per object and per process and grows by one entry per
/// encrypted packet. Thread-safe.
///
/// Args:
///     key: the 16-byte confidentiality key.
///     allow_keystream_reuse: ``True`` turns the check off, for callers whose protocol
///         already guarantees unique COUNT values (e.g. PDCP with a persisted HFN/SN).
///         Dangerous: a single repeated COUNT after a restart, a state rollback or a
///         misconfigured bearer silently breaks confidentiality, and this object can
///         no longer tell you.
///
/// Raises:
///     InvalidLength: ``key`` is not 16 bytes.
///     TypeError: ``key`` is not bytes-like.
///
/// Example:
///     >>> from guomi.zuc import EEA3
///     >>> e = EEA3(bytes(16))
///     >>> ct = e.encrypt(1, 0, 0, b"first")
///     >>> e.encrypt(1, 0, 0, b"second")
///     Traceback (most recent call last):
///     ...
///     guomi.exceptions.KeystreamReuse: keystream reuse: this key and IV were already used
///     >>> e.decrypt(1, 0, 0, ct)
///     b'first'
#[pyclass(module = "guomi.zuc", name = "EEA3", frozen)]
struct PyEea3 {
    guard: Locked<Eea3Guard>,
    key: core_eea3::Key128,
}

#[guard_panics]
#[pymethods]
impl PyEea3 {
    /// Creates the encryptor (see the class documentation).
    #[new]
    #[pyo3(signature = (key, *, allow_keystream_reuse=false))]
    fn new(key: Bytes, allow_keystream_reuse: bool) -> PyResult<Self> {
        let g = Eea3Guard::new(&key, allow_keystream_reuse).py_err()?;
        let key = g.key().clone();
        Ok(PyEea3 {
            guard: Locked::new(g),
            key,
        })
    }

    /// 128-EEA3 encryption under a (count, bearer, direction) not used before by this
    /// object.
    ///
    /// Args:
    ///     count: the 32-bit COUNT, an ``int`` in 0..2**32-1.
    ///     bearer: the 5-bit BEARER, an ``int`` in 0..31.
    ///     direction: the DIRECTION bit, 0 (uplink) or 1 (downlink).
    ///     data: the plaintext, any bytes-like object.
    ///     length_bits: how many bits of ``data`` to process, most significant bit of each
    ///         byte first (3GPP order): an ``int`` from 0 to ``8 * len(data)``; ``None``
    ///         (the default) = every bit.
    ///
    /// Returns:
    ///     bytes: ``ceil(length_bits / 8)`` bytes of ciphertext, unused trailing bits
    ///     zero.
    ///
    /// Raises:
    ///     KeystreamReuse: this (count, bearer, direction) was already used for
    ///         encryption (unless ``allow_keystream_reuse``); nothing is returned.
    ///     InvalidArgument: ``count``, ``bearer`` or ``direction`` out of range, or
    ///         ``length_bits`` negative or longer than ``data``.
    ///     TypeError: a framing value or ``length_bits`` is not an ``int``, or ``data``
    ///         is not bytes-like.
    ///
    /// Example:
    ///     >>> from guomi import zuc
    ///     >>> zuc.EEA3(bytes(16)).encrypt(9, 1, 1, b"abc") == zuc.eea3(bytes(16), 9, 1, 1, b"abc")
    ///     True
    #[pyo3(signature = (count, bearer, direction, data, *, length_bits=None))]
    fn encrypt<'py>(
        &self,
        py: Python<'py>,
        count: &Bound<'py, PyAny>,
        bearer: &Bound<'py, PyAny>,
        direction: &Bound<'py, PyAny>,
        data: Bytes,
        length_bits: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let (c, b, d) = framing(count, bearer, direction)?;
        let bits = length_arg(length_bits)?;
        let n = core_eea3::output_len(data.len(), bits).py_err()?;
        {
            let mut g = self.guard.lock(py)?;
            g.reserve(c, b, d).py_err()?;
        }
        let key = self.key.as_bytes();
        PyBytes::new_with(py, n, |out| {
            maybe_detach(py, n, || {
                core_eea3::eea3_into(key, c, b, d, &data, bits, out)
            })
            .py_err()
        })
    }

    /// 128-EEA3 decryption; never restricted by the reuse guard.
    ///
    /// Args:
    ///     count: the 32-bit COUNT, an ``int`` in 0..2**32-1.
    ///     bearer: the 5-bit BEARER, an ``int`` in 0..31.
    ///     direction: the DIRECTION bit, 0 (uplink) or 1 (downlink).
    ///     data: the ciphertext, any bytes-like object.
    ///     length_bits: how many bits of ``data`` to process, most significant bit of each
    ///         byte first (3GPP order): an ``int`` from 0 to ``8 * len(data)``; ``None``
    ///         (the default) = every bit.
    ///
    /// Returns:
    ///     bytes: ``ceil(length_bits / 8)`` bytes of plaintext, unused trailing bits
    ///     zero.
    ///
    /// Raises:
    ///     InvalidArgument: ``count``, ``bearer`` or ``direction`` out of range, or
    ///         ``length_bits`` negative or longer than ``data``.
    ///     TypeError: a framing value or ``length_bits`` is not an ``int``, or ``data``
    ///         is not bytes-like.
    ///
    /// Example:
    ///     >>> from guomi.zuc import EEA3
    ///     >>> e = EEA3(bytes(16))
    ///     >>> e.decrypt(4, 2, 0, e.encrypt(4, 2, 0, b"abc"))
    ///     b'abc'
    #[pyo3(signature = (count, bearer, direction, data, *, length_bits=None))]
    fn decrypt<'py>(
        &self,
        py: Python<'py>,
        count: &Bound<'py, PyAny>,
        bearer: &Bound<'py, PyAny>,
        direction: &Bound<'py, PyAny>,
        data: Bytes,
        length_bits: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let (c, b, d) = framing(count, bearer, direction)?;
        let bits = length_arg(length_bits)?;
        let n = core_eea3::output_len(data.len(), bits).py_err()?;
        let key = self.key.as_bytes();
        PyBytes::new_with(py, n, |out| {
            maybe_detach(py, n, || {
                core_eea3::eea3_into(key, c, b, d, &data, bits, out)
            })
            .py_err()
        })
    }

    /// Whether this object has already encrypted under (count, bearer, direction).
    ///
    /// Args:
    ///     count: the 32-bit COUNT, an ``int`` in 0..2**32-1.
    ///     bearer: the 5-bit BEARER, an ``int`` in 0..31.
    ///     direction: the DIRECTION bit, 0 (uplink) or 1 (downlink).
    ///
    /// Returns:
    ///     bool: ``True`` if used (always ``False`` with ``allow_keystream_reuse``).
    ///
    /// Raises:
    ///     InvalidArgument: a value out of its range (BEARER above 31, DIRECTION above 1).
    ///     TypeError: a value is not an ``int``.
    ///
    /// Example:
    ///     >>> from guomi.zuc import EEA3
    ///     >>> e = EEA3(bytes(16))
    ///     >>> _ = e.encrypt(1, 2, 1, b"x")
    ///     >>> e.is_used(1, 2, 1), e.is_used(2, 2, 1)
    ///     (True, False)
    fn is_used(
        &self,
        py: Python<'_>,
        count: &Bound<'_, PyAny>,
        bearer: &Bound<'_, PyAny>,
        direction: &Bound<'_, PyAny>,
    ) -> PyResult<bool> {
        let (c, b, d) = framing(count, bearer, direction)?;
        self.guard.lock(py)?.is_used(c, b, d).py_err()
    }

    /// How many (count, bearer, direction) triples this object has encrypted under.
    ///
    /// Example:
    ///     >>> from guomi.zuc import EEA3
    ///     >>> e = EEA3(bytes(16))
    ///     >>> _ = e.encrypt(1, 0, 0, b"x"), e.encrypt(2, 0, 0, b"y")
    ///     >>> e.used_count
    ///     2
    #[getter]
    fn used_count(&self, py: Python<'_>) -> PyResult<usize> {
        Ok(self.guard.lock(py)?.used_count())
    }

    /// Whether the reuse check is off (set when the object was made).
    ///
    /// Example:
    ///     >>> from guomi.zuc import EEA3
    ///     >>> EEA3(bytes(16)).allow_keystream_reuse
    ///     False
    #[getter]
    fn allow_keystream_reuse(&self, py: Python<'_>) -> PyResult<bool> {
        Ok(self.guard.lock(py)?.allows_reuse())
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let used = self.guard.lock(py)?.used_count();
        Ok(format!("<guomi.zuc.EEA3 object, {used} keystreams used>"))
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(keystream, m)?)?;
    m.add_function(wrap_pyfunction!(zuc256_keystream, m)?)?;
    m.add_function(wrap_pyfunction!(eea3, m)?)?;
    m.add_function(wrap_pyfunction!(eia3, m)?)?;
    m.add_function(wrap_pyfunction!(eia3_verify, m)?)?;
    m.add_function(wrap_pyfunction!(zuc256_mac, m)?)?;
    m.add_function(wrap_pyfunction!(zuc256_mac_verify, m)?)?;
    m.add_function(wrap_pyfunction!(eea3_many, m)?)?;
    m.add_function(wrap_pyfunction!(eia3_many, m)?)?;
    m.add_class::<PyZuc>()?;
    m.add_class::<PyEea3>()?;
    Ok(())
}
