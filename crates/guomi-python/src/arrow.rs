//! `guomi._native.arrow`: the column functions over Apache Arrow arrays.
//!
//! Import and export go through the Arrow C data interface
//! (<https://arrow.apache.org/docs/format/CDataInterface.html>) and the Arrow PyCapsule
//! interface (`__arrow_c_array__`, `__arrow_c_stream__`): no Arrow crate, no pyarrow at
//! build time, and nothing outside the stable ABI. This file only takes the C structs out
//! of their capsules (and drives streams); `guomi_core::columns::cdata` checks every level
//! of them and turns them into the validated views the kernels read, without the GIL.
//! Results are exported as (schema, array) capsules that own their Rust buffers; the
//! Python facade hands them to `pyarrow.array`.

use crate::buf::Bytes;
use crate::error::to_py;
use crate::sm2::{PyPrivateKey, PyPublicKey};
use guomi_core::columns::cdata::{
    ArrowArray, ArrowArrayStream, ArrowSchema, Imported, Owned, ReadError, Release,
};
use guomi_core::columns::{
    self, Arg, BinaryOut, BoolOut, Column, IntArg, IntColumn, OnError, PublicKeys, RowError,
};
use guomi_core::sm4::modes::{Mode, Padding};
use guomi_core::Error;
use guomi_python_macros::guard_panics;
use pyo3::exceptions::PyTypeError;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};
use std::ffi::{c_int, c_void, CStr, CString};
use std::ptr;

/// Most chunks read from one Arrow stream (a producer that never ends its stream gets a
/// typed error instead of unbounded memory).
const MAX_STREAM_CHUNKS: usize = 1 << 20;

// ---------------------------------------------------------------------------------------
// Import.

fn type_error(msg: impl Into<String>) -> PyErr {
    PyTypeError::new_err(msg.into())
}

fn malformed(msg: &'static str) -> PyErr {
    to_py(Error::InvalidValue(msg))
}

fn read_err(e: ReadError) -> PyErr {
    match e {
        ReadError::WrongType(m) => type_error(m),
        ReadError::Invalid(e) => to_py(e),
    }
}

/// Moves the struct out of a capsule named `name` (the PyCapsule protocol: the consumer
/// takes ownership and marks the original released).
fn take_capsule<T: Release>(cap: &Bound<'_, PyAny>, name: &CStr, empty: T) -> PyResult<Owned<T>> {
    // SAFETY: PyCapsule_GetPointer checks the type and the name and returns NULL (with an
    // exception set) otherwise; the pointer is a `T` by the protocol.
    let p = unsafe { ffi::PyCapsule_GetPointer(cap.as_ptr(), name.as_ptr()) } as *mut T;
    if p.is_null() {
        return Err(PyErr::take(cap.py())
            .unwrap_or_else(|| type_error("not an Arrow PyCapsule of the expected kind")));
    }
    let mut out = Box::new(empty);
    // SAFETY: p points to a live `T` owned by the capsule; we move it out and leave the
    // capsule an empty (released) struct, so only we release it. The struct follows the C
    // data interface by the PyCapsule protocol (Owned::new's contract).
    let out = unsafe {
        ptr::swap(p, &mut *out);
        Owned::new(out)
    };
    if !out.get().is_live() {
        return Err(malformed("arrow capsule holds a released struct"));
    }
    Ok(out)
}

fn stream_error(stream: &mut ArrowArrayStream, code: c_int) -> PyErr {
    let msg = stream
        .get_last_error
        .map(|f| {
            // SAFETY: the producer's callback; it returns NULL or a NUL-terminated string
            // valid until the next call on the stream.
            let p = unsafe { f(stream) };
            if p.is_null() {
                String::new()
            } else {
                // SAFETY: see above.
                unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
            }
        })
        .unwrap_or_default();
    pyo3::exceptions::PyOSError::new_err(format!("arrow stream failed (error {code}): {msg}"))
}

/// Reads an Arrow array from `obj` (`__arrow_c_array__` or `__arrow_c_stream__`). Every
/// struct taken is released on every path (`Owned`).
fn import(obj: &Bound<'_, PyAny>) -> PyResult<Imported> {
    if obj.hasattr("__arrow_c_array__")? {
        let pair = obj.call_method0("__arrow_c_array__")?;
        let pair = pair
            .cast::<PyTuple>()
            .map_err(|_| type_error("__arrow_c_array__ must return a (schema, array) tuple"))?;
        if pair.len() != 2 {
            return Err(type_error(
                "__arrow_c_array__ must return a (schema, array) tuple",
            ));
        }
        let schema = take_capsule(&pair.get_item(0)?, c"arrow_schema", ArrowSchema::empty())?;
        let array = take_capsule(&pair.get_item(1)?, c"arrow_array", ArrowArray::empty())?;
        // SAFETY: both follow the C data interface (the PyCapsule protocol).
        return Ok(unsafe { Imported::new(schema, vec![array]) });
    }
    if obj.hasattr("__arrow_c_stream__")? {
        let cap = obj.call_method0("__arrow_c_stream__")?;
        let mut stream = take_capsule(&cap, c"arrow_array_stream", ArrowArrayStream::empty())?;
        let s: &mut ArrowArrayStream = stream.get_mut();
        let (Some(get_schema), Some(get_next)) = (s.get_schema, s.get_next) else {
            return Err(malformed("arrow stream without callbacks"));
        };
        // SAFETY: an empty schema has nothing to release.
        let mut schema = unsafe { Owned::new(Box::new(ArrowSchema::empty())) };
        // SAFETY: the producer's callback filling a schema we own; the result follows the
        // C data interface (the stream interface's contract).
        let rc = unsafe { get_schema(s, schema.get_mut()) };
        if rc != 0 {
            return Err(stream_error(s, rc));
        }
        let mut arrays = Vec::new();
        loop {
            // SAFETY: as for the schema.
            let mut a = unsafe { Owned::new(Box::new(ArrowArray::empty())) };
            // SAFETY: the producer's callback filling an array we own.
            let rc = unsafe { get_next(s, a.get_mut()) };
            if rc != 0 {
                return Err(stream_error(s, rc));
            }
            if !a.get().is_live() {
                break;
            }
            if arrays.len() == MAX_STREAM_CHUNKS {
                return Err(malformed("arrow stream: more than 2^20 chunks"));
            }
            arrays.push(a);
        }
        drop(stream);
        // SAFETY: the structs the stream filled follow the C data interface.
        return Ok(unsafe { Imported::new(schema, arrays) });
    }
    let name = obj
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "object".into());
    Err(type_error(format!(
        "expected an Arrow array (pyarrow Array or ChunkedArray, polars Series, or any object \
         with __arrow_c_array__ / __arrow_c_stream__), got {name}"
    )))
}

/// A binary or string column (what: the argument's name, for errors).
fn binary_column<'a>(imp: &'a Imported, what: &str) -> PyResult<Column<'a>> {
    imp.binary_column(what).map_err(read_err)
}

/// An integer column.
fn int_column<'a>(imp: &'a Imported, what: &str) -> PyResult<IntColumn<'a>> {
    imp.int_column(what).map_err(read_err)
}

/// Whether the column uses 64-bit offsets (then the output does too).
fn is_large(imp: &Imported) -> bool {
    imp.is_large()
}

// ---------------------------------------------------------------------------------------
// Export.

struct SchemaPrivate {
    format: CString,
    name: CString,
}

struct ArrayPrivate {
    _data: Vec<u8>,
    _offsets32: Vec<i32>,
    _offsets64: Vec<i64>,
    _validity: Option<Vec<u8>>,
    buffers: Vec<*const c_void>,
}

unsafe extern "C" fn release_schema(s: *mut ArrowSchema) {
    if s.is_null() {
        return;
    }
    // SAFETY: `s` is one of our exported schemas; private_data is the Box we leaked.
    unsafe {
        if (*s).release.is_some() && !(*s).private_data.is_null() {
            drop(Box::from_raw((*s).private_data as *mut SchemaPrivate));
        }
        (*s).private_data = ptr::null_mut();
        (*s).release = None;
    }
}

unsafe extern "C" fn release_array(a: *mut ArrowArray) {
    if a.is_null() {
        return;
    }
    // SAFETY: `a` is one of our exported arrays; private_data is the Box we leaked.
    unsafe {
        if (*a).release.is_some() && !(*a).private_data.is_null() {
            drop(Box::from_raw((*a).private_data as *mut ArrayPrivate));
        }
        (*a).private_data = ptr::null_mut();
        (*a).release = None;
    }
}

unsafe extern "C" fn schema_capsule_destructor(cap: *mut ffi::PyObject) {
    // SAFETY: called by Python on our capsule named "arrow_schema" holding a Box.
    unsafe {
        let p = ffi::PyCapsule_GetPointer(cap, c"arrow_schema".as_ptr()) as *mut ArrowSchema;
        if p.is_null() {
            ffi::PyErr_Clear();
            return;
        }
        if let Some(f) = (*p).release {
            f(p);
        }
        drop(Box::from_raw(p));
    }
}

unsafe extern "C" fn array_capsule_destructor(cap: *mut ffi::PyObject) {
    // SAFETY: called by Python on our capsule named "arrow_array" holding a Box.
    unsafe {
        let p = ffi::PyCapsule_GetPointer(cap, c"arrow_array".as_ptr()) as *mut ArrowArray;
        if p.is_null() {
            ffi::PyErr_Clear();
            return;
        }
        if let Some(f) = (*p).release {
            f(p);
        }
        drop(Box::from_raw(p));
    }
}

fn export_schema(format: &str) -> Box<ArrowSchema> {
    let private = Box::new(SchemaPrivate {
        format: CString::new(format).unwrap_or_default(),
        name: CString::default(),
    });
    let mut s = Box::new(ArrowSchema::empty());
    s.format = private.format.as_ptr();
    s.name = private.name.as_ptr();
    // Nullable.
    s.flags = 2;
    s.release = Some(release_schema);
    s.private_data = Box::into_raw(private) as *mut c_void;
    s
}

fn export_array(
    len: usize,
    null_count: usize,
    validity: Option<Vec<u8>>,
    data: Vec<u8>,
    offsets32: Vec<i32>,
    offsets64: Vec<i64>,
    with_offsets: bool,
) -> Box<ArrowArray> {
    let mut buffers: Vec<*const c_void> = vec![validity
        .as_ref()
        .map_or(ptr::null(), |v| v.as_ptr() as *const c_void)];
    if with_offsets {
        buffers.push(if offsets64.is_empty() {
            offsets32.as_ptr() as *const c_void
        } else {
            offsets64.as_ptr() as *const c_void
        });
    }
    buffers.push(data.as_ptr() as *const c_void);
    let mut private = Box::new(ArrayPrivate {
        _data: data,
        _offsets32: offsets32,
        _offsets64: offsets64,
        _validity: validity,
        buffers,
    });
    let mut a = Box::new(ArrowArray::empty());
    a.length = len as i64;
    a.null_count = null_count as i64;
    a.n_buffers = private.buffers.len() as i64;
    a.buffers = private.buffers.as_mut_ptr();
    a.release = Some(release_array);
    a.private_data = Box::into_raw(private) as *mut c_void;
    a
}

/// (schema capsule, array capsule) for the facade.
fn capsules<'py>(
    py: Python<'py>,
    schema: Box<ArrowSchema>,
    array: Box<ArrowArray>,
) -> PyResult<Bound<'py, PyTuple>> {
    // SAFETY: PyCapsule_New takes ownership of the leaked Box (freed by the destructor);
    // on failure we free it ourselves.
    let s = unsafe {
        let raw = Box::into_raw(schema);
        let cap = ffi::PyCapsule_New(
            raw as *mut c_void,
            c"arrow_schema".as_ptr(),
            Some(schema_capsule_destructor),
        );
        if cap.is_null() {
            release_schema(raw);
            drop(Box::from_raw(raw));
        }
        Bound::from_owned_ptr_or_err(py, cap)
    };
    // SAFETY: as above.
    let a = unsafe {
        let raw = Box::into_raw(array);
        let cap = ffi::PyCapsule_New(
            raw as *mut c_void,
            c"arrow_array".as_ptr(),
            Some(array_capsule_destructor),
        );
        if cap.is_null() {
            release_array(raw);
            drop(Box::from_raw(raw));
        }
        Bound::from_owned_ptr_or_err(py, cap)
    };
    PyTuple::new(py, [s?, a?])
}

fn export_binary<'py>(
    py: Python<'py>,
    out: BinaryOut,
    large: bool,
) -> PyResult<Bound<'py, PyTuple>> {
    if let Some(w) = out.width {
        let schema = export_schema(&format!("w:{w}"));
        let array = export_array(
            out.len,
            out.null_count,
            out.validity,
            out.data,
            vec![],
            vec![],
            false,
        );
        return capsules(py, schema, array);
    }
    let total = out.data.len();
    let large = large || i32::try_from(total).is_err();
    let (o32, o64) = if large {
        (vec![], out.offsets.iter().map(|&o| o as i64).collect())
    } else {
        (out.offsets.iter().map(|&o| o as i32).collect(), vec![])
    };
    let schema = export_schema(if large { "Z" } else { "z" });
    let array = export_array(
        out.len,
        out.null_count,
        out.validity,
        out.data,
        o32,
        o64,
        true,
    );
    capsules(py, schema, array)
}

fn export_bool<'py>(py: Python<'py>, out: BoolOut) -> PyResult<Bound<'py, PyTuple>> {
    let schema = export_schema("b");
    let array = export_array(
        out.len,
        out.null_count,
        out.validity,
        out.values,
        vec![],
        vec![],
        false,
    );
    capsules(py, schema, array)
}

// ---------------------------------------------------------------------------------------
// Errors and arguments.

/// A kernel error as its Python exception; a row error says which row (and carries it as
/// the exception's `row` attribute).
fn row_err(py: Python<'_>, e: RowError) -> PyErr {
    let Some(row) = e.row else {
        return to_py(e.error);
    };
    let msg = format!("row {row}: {}", e.error);
    let base = to_py(e.error);
    let err = PyErr::from_type(base.get_type(py), msg);
    let _ = err.value(py).setattr("row", row);
    err
}

fn on_error_arg(s: &str) -> PyResult<OnError> {
    match s {
        "raise" => Ok(OnError::Raise),
        "null" => Ok(OnError::Null),
        _ => Err(to_py(Error::InvalidValue(
            "on_error must be \"raise\" or \"null\"",
        ))),
    }
}

fn is_bytes_like(obj: &Bound<'_, PyAny>) -> bool {
    obj.is_instance_of::<PyBytes>()
        || obj.is_instance_of::<pyo3::types::PyByteArray>()
        || obj.is_instance_of::<pyo3::types::PyMemoryView>()
}

/// A bytes value or an Arrow column.
enum BytesOrColumn {
    Bytes(Bytes),
    Column(Imported),
}

fn bytes_or_column(obj: &Bound<'_, PyAny>) -> PyResult<BytesOrColumn> {
    if is_bytes_like(obj) {
        return Ok(BytesOrColumn::Bytes(obj.extract()?));
    }
    Ok(BytesOrColumn::Column(import(obj)?))
}

/// An int value or an Arrow column.
enum IntOrColumn {
    Int(i128),
    Column(Imported),
}

fn int_or_column(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<IntOrColumn> {
    if obj.is_instance_of::<pyo3::types::PyBool>() {
        return Err(type_error(format!(
            "{what}: expected an int or an Arrow column, got bool"
        )));
    }
    if obj.is_instance_of::<pyo3::types::PyInt>() {
        return match obj.extract::<i128>() {
            Ok(v) => Ok(IntOrColumn::Int(v)),
            Err(_) => Err(to_py(Error::InvalidValue("integer argument out of range"))),
        };
    }
    Ok(IntOrColumn::Column(import(obj)?))
}

// ---------------------------------------------------------------------------------------
// The functions.

/// sm3(column, threads=None) -> (schema, array): SM3 of every row, fixed_size_binary(32).
#[guard_panics]
#[pyfunction]
#[pyo3(signature = (column, threads=None))]
fn sm3<'py>(
    py: Python<'py>,
    column: &Bound<'py, PyAny>,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyTuple>> {
    let imp = import(column)?;
    let col = binary_column(&imp, "column")?;
    let out = py
        .detach(|| columns::sm3(&col, threads))
        .map_err(|e| row_err(py, e))?;
    export_binary(py, out, false)
}

/// hmac_sm3(key, column, threads=None): HMAC-SM3 of every row, fixed_size_binary(32).
#[guard_panics]
#[pyfunction]
#[pyo3(signature = (key, column, threads=None))]
fn hmac_sm3<'py>(
    py: Python<'py>,
    key: Bytes,
    column: &Bound<'py, PyAny>,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyTuple>> {
    let imp = import(column)?;
    let col = binary_column(&imp, "column")?;
    let out = py
        .detach(|| columns::hmac_sm3(&key, &col, threads))
        .map_err(|e| row_err(py, e))?;
    export_binary(py, out, false)
}

fn aad_arg(aad: Option<&Bound<'_, PyAny>>) -> PyResult<Option<BytesOrColumn>> {
    aad.filter(|a| !a.is_none())
        .map(bytes_or_column)
        .transpose()
}

/// sm4_gcm_encrypt(key, column, aad=None, threads=None): nonce || ciphertext || tag.
#[guard_panics]
#[pyfunction]
#[pyo3(signature = (key, column, aad=None, threads=None))]
fn sm4_gcm_encrypt<'py>(
    py: Python<'py>,
    key: Bytes,
    column: &Bound<'py, PyAny>,
    aad: Option<&Bound<'py, PyAny>>,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyTuple>> {
    let imp = import(column)?;
    let col = binary_column(&imp, "column")?;
    let aad = aad_arg(aad)?;
    let aad_col = match &aad {
        Some(BytesOrColumn::Column(i)) => Some(binary_column(i, "aad")?),
        _ => None,
    };
    let aad = match (&aad, &aad_col) {
        (Some(BytesOrColumn::Bytes(b)), _) => Arg::Scalar(b),
        (_, Some(c)) => Arg::Column(c),
        _ => Arg::Scalar(b""),
    };
    let out = py
        .detach(|| columns::sm4_gcm_encrypt(&key, &col, aad, threads))
        .map_err(|e| row_err(py, e))?;
    export_binary(py, out, is_large(&imp))
}

/// sm4_gcm_decrypt(key, column, aad=None, on_error="raise", threads=None).
#[guard_panics]
#[pyfunction]
#[pyo3(signature = (key, column, aad=None, on_error="raise", threads=None))]
fn sm4_gcm_decrypt<'py>(
    py: Python<'py>,
    key: Bytes,
    column: &Bound<'py, PyAny>,
    aad: Option<&Bound<'py, PyAny>>,
    on_error: &str,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyTuple>> {
    let on_error = on_error_arg(on_error)?;
    let imp = import(column)?;
    let col = binary_column(&imp, "column")?;
    let aad = aad_arg(aad)?;
    let aad_col = match &aad {
        Some(BytesOrColumn::Column(i)) => Some(binary_column(i, "aad")?),
        _ => None,
    };
    let aad = match (&aad, &aad_col) {
        (Some(BytesOrColumn::Bytes(b)), _) => Arg::Scalar(b),
        (_, Some(c)) => Arg::Column(c),
        _ => Arg::Scalar(b""),
    };
    let out = py
        .detach(|| columns::sm4_gcm_decrypt(&key, &col, aad, on_error, threads))
        .map_err(|e| row_err(py, e))?;
    export_binary(py, out, is_large(&imp))
}

fn mode_args(mode: &str, padding: Option<&str>) -> PyResult<(Mode, Option<Padding>)> {
    let mode = Mode::parse(mode).map_err(to_py)?;
    let padding = padding.map(Padding::parse).transpose().map_err(to_py)?;
    Ok((mode, padding))
}

fn iv_import(iv: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Imported>> {
    match iv {
        None => Ok(None),
        Some(v) if v.is_none() => Ok(None),
        Some(v) if is_bytes_like(v) => Err(type_error(
            "iv: expected an Arrow column with one 16-byte IV per row (one IV for every row \
             would repeat keystream or leak equal prefixes)",
        )),
        Some(v) => Ok(Some(import(v)?)),
    }
}

/// sm4_encrypt(key, column, mode, iv=None, padding=None, threads=None).
#[guard_panics]
#[pyfunction]
#[pyo3(signature = (key, column, mode, iv=None, padding=None, threads=None))]
fn sm4_encrypt<'py>(
    py: Python<'py>,
    key: Bytes,
    column: &Bound<'py, PyAny>,
    mode: &str,
    iv: Option<&Bound<'py, PyAny>>,
    padding: Option<&str>,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyTuple>> {
    let (mode, padding) = mode_args(mode, padding)?;
    let imp = import(column)?;
    let col = binary_column(&imp, "column")?;
    let iv_imp = iv_import(iv)?;
    let iv_col = iv_imp
        .as_ref()
        .map(|i| binary_column(i, "iv"))
        .transpose()?;
    let out = py
        .detach(|| columns::sm4_encrypt(&key, mode, &col, iv_col.as_ref(), padding, threads))
        .map_err(|e| row_err(py, e))?;
    export_binary(py, out, is_large(&imp))
}

/// sm4_decrypt(key, column, mode, iv=None, padding=None, on_error="raise", threads=None).
#[guard_panics]
#[pyfunction]
#[pyo3(signature = (key, column, mode, iv=None, padding=None, on_error="raise", threads=None))]
#[allow(clippy::too_many_arguments)]
fn sm4_decrypt<'py>(
    py: Python<'py>,
    key: Bytes,
    column: &Bound<'py, PyAny>,
    mode: &str,
    iv: Option<&Bound<'py, PyAny>>,
    padding: Option<&str>,
    on_error: &str,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyTuple>> {
    let (mode, padding) = mode_args(mode, padding)?;
    let on_error = on_error_arg(on_error)?;
    let imp = import(column)?;
    let col = binary_column(&imp, "column")?;
    let iv_imp = iv_import(iv)?;
    let iv_col = iv_imp
        .as_ref()
        .map(|i| binary_column(i, "iv"))
        .transpose()?;
    let out = py
        .detach(|| {
            columns::sm4_decrypt(
                &key,
                mode,
                &col,
                iv_col.as_ref(),
                padding,
                on_error,
                threads,
            )
        })
        .map_err(|e| row_err(py, e))?;
    export_binary(py, out, is_large(&imp))
}

/// sm2_sign(private_key, column, uid=None, format="raw", threads=None).
#[guard_panics]
#[pyfunction]
#[pyo3(signature = (private_key, column, uid=None, format="raw", threads=None))]
fn sm2_sign<'py>(
    py: Python<'py>,
    private_key: PyRef<'py, PyPrivateKey>,
    column: &Bound<'py, PyAny>,
    uid: Option<Bytes>,
    format: &str,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyTuple>> {
    let der = match format {
        "raw" => false,
        "der" => true,
        _ => {
            return Err(to_py(Error::InvalidValue(
                "format must be \"raw\" or \"der\"",
            )))
        }
    };
    let key = private_key.owned_key().map_err(to_py)?;
    let uid: &[u8] = uid.as_deref().unwrap_or(guomi_core::sm2::DEFAULT_UID);
    let imp = import(column)?;
    let col = binary_column(&imp, "column")?;
    let out = py
        .detach(|| columns::sm2_sign(&key, uid, der, &col, threads))
        .map_err(|e| row_err(py, e))?;
    export_binary(py, out, false)
}

/// sm2_verify(public_key, signatures, messages, uid=None, threads=None) -> bool column.
/// `public_key`: a PublicKey, encoded key bytes, or a column of encoded keys.
#[guard_panics]
#[pyfunction]
#[pyo3(signature = (public_key, signatures, messages, uid=None, threads=None))]
fn sm2_verify<'py>(
    py: Python<'py>,
    public_key: &Bound<'py, PyAny>,
    signatures: &Bound<'py, PyAny>,
    messages: &Bound<'py, PyAny>,
    uid: Option<Bytes>,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyTuple>> {
    let uid: &[u8] = uid.as_deref().unwrap_or(guomi_core::sm2::DEFAULT_UID);
    let sig_imp = import(signatures)?;
    let msg_imp = import(messages)?;
    let sigs = binary_column(&sig_imp, "signatures")?;
    let msgs = binary_column(&msg_imp, "messages")?;
    let one: Option<guomi_core::sm2::PublicKey>;
    let key_imp: Option<Imported>;
    if let Ok(k) = public_key.cast::<PyPublicKey>() {
        one = Some(k.get().inner().clone());
        key_imp = None;
    } else if is_bytes_like(public_key) {
        let b: Bytes = public_key.extract()?;
        one = Some(guomi_core::sm2::PublicKey::from_bytes(&b).map_err(to_py)?);
        key_imp = None;
    } else {
        one = None;
        key_imp = Some(import(public_key)?);
    }
    let key_col = key_imp
        .as_ref()
        .map(|i| binary_column(i, "public_key"))
        .transpose()?;
    let keys = match (&one, &key_col) {
        (Some(k), _) => PublicKeys::One(k),
        (None, Some(c)) => PublicKeys::Column(c),
        (None, None) => unreachable!("one of the two is set above"),
    };
    let out = py
        .detach(|| columns::sm2_verify(keys, uid, &sigs, &msgs, threads))
        .map_err(|e| row_err(py, e))?;
    export_bool(py, out)
}

/// zuc_eea3(key, count, bearer, direction, data, length_bits=None, threads=None).
#[guard_panics]
#[pyfunction]
#[pyo3(signature = (key, count, bearer, direction, data, length_bits=None, threads=None))]
#[allow(clippy::too_many_arguments)]
fn zuc_eea3<'py>(
    py: Python<'py>,
    key: &Bound<'py, PyAny>,
    count: &Bound<'py, PyAny>,
    bearer: &Bound<'py, PyAny>,
    direction: &Bound<'py, PyAny>,
    data: &Bound<'py, PyAny>,
    length_bits: Option<&Bound<'py, PyAny>>,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyTuple>> {
    let data_imp = import(data)?;
    let data_col = binary_column(&data_imp, "data")?;
    let key = bytes_or_column(key)?;
    let key_col = match &key {
        BytesOrColumn::Column(i) => Some(binary_column(i, "key")?),
        BytesOrColumn::Bytes(_) => None,
    };
    let key_arg = match (&key, &key_col) {
        (BytesOrColumn::Bytes(b), _) => Arg::Scalar(b),
        (_, Some(c)) => Arg::Column(c),
        _ => unreachable!("a column key is imported above"),
    };
    let ints = [
        int_or_column(count, "count")?,
        int_or_column(bearer, "bearer")?,
        int_or_column(direction, "direction")?,
    ];
    let bits = length_bits
        .filter(|b| !b.is_none())
        .map(|b| int_or_column(b, "length_bits"))
        .transpose()?;
    let names = ["count", "bearer", "direction"];
    let mut int_cols: Vec<Option<IntColumn<'_>>> = Vec::new();
    for (v, name) in ints.iter().zip(names) {
        int_cols.push(match v {
            IntOrColumn::Column(i) => Some(int_column(i, name)?),
            IntOrColumn::Int(_) => None,
        });
    }
    let bits_col = match &bits {
        Some(IntOrColumn::Column(i)) => Some(int_column(i, "length_bits")?),
        _ => None,
    };
    let (c, b, d) = (
        int_arg(&ints[0], &int_cols[0]),
        int_arg(&ints[1], &int_cols[1]),
        int_arg(&ints[2], &int_cols[2]),
    );
    let l = bits.as_ref().map(|v| int_arg(v, &bits_col));
    let out = py
        .detach(|| columns::zuc_eea3(key_arg, c, b, d, &data_col, l, threads))
        .map_err(|e| row_err(py, e))?;
    export_binary(py, out, is_large(&data_imp))
}

fn int_arg<'a>(v: &'a IntOrColumn, c: &'a Option<IntColumn<'a>>) -> IntArg<'a> {
    match (v, c) {
        (IntOrColumn::Int(x), _) => IntArg::Scalar(*x),
        (_, Some(c)) => IntArg::Column(c),
        // A column argument always has its imported column.
        (IntOrColumn::Column(_), None) => IntArg::Scalar(0),
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(sm3, m)?)?;
    m.add_function(wrap_pyfunction!(hmac_sm3, m)?)?;
    m.add_function(wrap_pyfunction!(sm4_gcm_encrypt, m)?)?;
    m.add_function(wrap_pyfunction!(sm4_gcm_decrypt, m)?)?;
    m.add_function(wrap_pyfunction!(sm4_encrypt, m)?)?;
    m.add_function(wrap_pyfunction!(sm4_decrypt, m)?)?;
    m.add_function(wrap_pyfunction!(sm2_sign, m)?)?;
    m.add_function(wrap_pyfunction!(sm2_verify, m)?)?;
    m.add_function(wrap_pyfunction!(zuc_eea3, m)?)?;
    m.add("GCM_NONCE_SIZE", columns::GCM_NONCE_SIZE)?;
    m.add("GCM_OVERHEAD", columns::GCM_OVERHEAD)?;
    Ok(())
}
