//! `guomi._native.arrow`: the column functions over Apache Arrow arrays.
//!
//! Import and export go through the Arrow C data interface
//! (<https://arrow.apache.org/docs/format/CDataInterface.html>) and the Arrow PyCapsule
//! interface (`__arrow_c_array__`, `__arrow_c_stream__`), with the C structs declared
//! here: no Arrow crate, no pyarrow at build time, and nothing outside the stable ABI.
//! Imported buffers are borrowed in place (no per-value Python object and no copy), turned
//! into the validated views of `guomi_core::columns`, and the kernels run there without
//! the GIL. Results are exported as (schema, array) capsules that own their Rust buffers;
//! the Python facade hands them to `pyarrow.array`.

use crate::buf::Bytes;
use crate::error::to_py;
use crate::sm2::{PyPrivateKey, PyPublicKey};
use guomi_core::columns::{
    self, Arg, BinaryOut, BoolOut, Chunk, Column, IntArg, IntChunk, IntColumn, IntValues, OnError,
    PublicKeys, RowError, Validity, Values,
};
use guomi_core::sm4::modes::{Mode, Padding};
use guomi_core::Error;
use guomi_python_macros::guard_panics;
use pyo3::exceptions::PyTypeError;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};
use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::ptr;

// ---------------------------------------------------------------------------------------
// The C data interface structs (ABI-stable, from the Arrow specification).

#[repr(C)]
struct ArrowSchema {
    format: *const c_char,
    name: *const c_char,
    metadata: *const c_char,
    flags: i64,
    n_children: i64,
    children: *mut *mut ArrowSchema,
    dictionary: *mut ArrowSchema,
    release: Option<unsafe extern "C" fn(*mut ArrowSchema)>,
    private_data: *mut c_void,
}

#[repr(C)]
struct ArrowArray {
    length: i64,
    null_count: i64,
    offset: i64,
    n_buffers: i64,
    n_children: i64,
    buffers: *mut *const c_void,
    children: *mut *mut ArrowArray,
    dictionary: *mut ArrowArray,
    release: Option<unsafe extern "C" fn(*mut ArrowArray)>,
    private_data: *mut c_void,
}

#[repr(C)]
struct ArrowArrayStream {
    get_schema: Option<unsafe extern "C" fn(*mut ArrowArrayStream, *mut ArrowSchema) -> c_int>,
    get_next: Option<unsafe extern "C" fn(*mut ArrowArrayStream, *mut ArrowArray) -> c_int>,
    get_last_error: Option<unsafe extern "C" fn(*mut ArrowArrayStream) -> *const c_char>,
    release: Option<unsafe extern "C" fn(*mut ArrowArrayStream)>,
    private_data: *mut c_void,
}

impl ArrowSchema {
    fn empty() -> Self {
        ArrowSchema {
            format: ptr::null(),
            name: ptr::null(),
            metadata: ptr::null(),
            flags: 0,
            n_children: 0,
            children: ptr::null_mut(),
            dictionary: ptr::null_mut(),
            release: None,
            private_data: ptr::null_mut(),
        }
    }
}

impl ArrowArray {
    fn empty() -> Self {
        ArrowArray {
            length: 0,
            null_count: 0,
            offset: 0,
            n_buffers: 0,
            n_children: 0,
            buffers: ptr::null_mut(),
            children: ptr::null_mut(),
            dictionary: ptr::null_mut(),
            release: None,
            private_data: ptr::null_mut(),
        }
    }
}

/// An imported schema or array that we own: released (through its producer's callback)
/// when dropped.
struct Owned<T: Release>(Box<T>);

trait Release {
    fn release(&mut self);
}

impl Release for ArrowSchema {
    fn release(&mut self) {
        if let Some(f) = self.release {
            // SAFETY: the producer's release callback, called once on the struct it filled
            // (the C data interface contract); it sets `release` to NULL.
            unsafe { f(self) };
            self.release = None;
        }
    }
}

impl Release for ArrowArray {
    fn release(&mut self) {
        if let Some(f) = self.release {
            // SAFETY: as for ArrowSchema.
            unsafe { f(self) };
            self.release = None;
        }
    }
}

impl Release for ArrowArrayStream {
    fn release(&mut self) {
        if let Some(f) = self.release {
            // SAFETY: as for ArrowSchema.
            unsafe { f(self) };
            self.release = None;
        }
    }
}

impl<T: Release> Drop for Owned<T> {
    fn drop(&mut self) {
        self.0.release();
    }
}

// SAFETY: the structs are plain data plus buffers owned by the producer until `release`;
// the C data interface allows releasing from any thread, and we only read the buffers.
unsafe impl<T: Release> Send for Owned<T> {}

// ---------------------------------------------------------------------------------------
// Import.

fn type_error(msg: impl Into<String>) -> PyErr {
    PyTypeError::new_err(msg.into())
}

fn malformed(msg: &'static str) -> PyErr {
    to_py(Error::InvalidValue(msg))
}

/// Moves the struct out of a capsule named `name` (the PyCapsule protocol: the consumer
/// takes ownership and marks the original released).
fn take_capsule<T>(cap: &Bound<'_, PyAny>, name: &CStr, empty: T) -> PyResult<Owned<T>>
where
    T: Release + TakeRelease,
{
    // SAFETY: PyCapsule_GetPointer checks the type and the name and returns NULL (with an
    // exception set) otherwise; the pointer is a `T` by the protocol.
    let p = unsafe { ffi::PyCapsule_GetPointer(cap.as_ptr(), name.as_ptr()) } as *mut T;
    if p.is_null() {
        return Err(PyErr::take(cap.py())
            .unwrap_or_else(|| type_error("not an Arrow PyCapsule of the expected kind")));
    }
    let mut out = Box::new(empty);
    // SAFETY: p points to a live `T` owned by the capsule; we copy it and mark the
    // capsule's copy released so only we release it.
    unsafe {
        ptr::copy_nonoverlapping(p, &mut *out, 1);
        (*p).clear_release();
    }
    if !out.is_live() {
        return Err(malformed("arrow capsule holds a released struct"));
    }
    Ok(Owned(out))
}

trait TakeRelease {
    fn clear_release(&mut self);
    fn is_live(&self) -> bool;
}

impl TakeRelease for ArrowSchema {
    fn clear_release(&mut self) {
        self.release = None;
    }
    fn is_live(&self) -> bool {
        self.release.is_some()
    }
}

impl TakeRelease for ArrowArray {
    fn clear_release(&mut self) {
        self.release = None;
    }
    fn is_live(&self) -> bool {
        self.release.is_some()
    }
}

impl TakeRelease for ArrowArrayStream {
    fn clear_release(&mut self) {
        self.release = None;
    }
    fn is_live(&self) -> bool {
        self.release.is_some()
    }
}

/// Arrays imported from one Python object: one schema, its chunks.
pub struct Imported {
    schema: Owned<ArrowSchema>,
    arrays: Vec<Owned<ArrowArray>>,
    /// Aligned copies of misaligned buffers.
    arena: Arena,
}

/// Append-only storage for aligned copies of buffers that a producer handed over
/// misaligned (e.g. arrays rebuilt from pickle-5 out-of-band buffers, as Dask does).
#[derive(Default)]
struct Arena(std::cell::RefCell<Vec<Box<[u64]>>>);

impl Arena {
    /// An 8-byte-aligned copy of `len` bytes at `p`, living as long as the arena.
    ///
    /// # Safety
    /// `p` must point to `len` readable bytes.
    unsafe fn copy(&self, p: *const u8, len: usize) -> *const u8 {
        let mut b = vec![0u64; len.div_ceil(8)].into_boxed_slice();
        // SAFETY: `p` has `len` readable bytes (caller); `b` has room for them.
        unsafe { ptr::copy_nonoverlapping(p, b.as_mut_ptr() as *mut u8, len) };
        let out = b.as_ptr() as *const u8;
        // The box's heap block never moves or drops while the arena lives (nothing is
        // ever removed), so `out` stays valid for the arena's lifetime.
        self.0.borrow_mut().push(b);
        out
    }
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

/// Reads an Arrow array from `obj` (`__arrow_c_array__` or `__arrow_c_stream__`).
fn import(obj: &Bound<'_, PyAny>) -> PyResult<Imported> {
    let py = obj.py();
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
        return Ok(Imported {
            schema,
            arrays: vec![array],
            arena: Arena::default(),
        });
    }
    if obj.hasattr("__arrow_c_stream__")? {
        let cap = obj.call_method0("__arrow_c_stream__")?;
        let mut stream = take_capsule(
            &cap,
            c"arrow_array_stream",
            ArrowArrayStream {
                get_schema: None,
                get_next: None,
                get_last_error: None,
                release: None,
                private_data: ptr::null_mut(),
            },
        )?;
        let s: &mut ArrowArrayStream = &mut stream.0;
        let (Some(get_schema), Some(get_next)) = (s.get_schema, s.get_next) else {
            return Err(malformed("arrow stream without callbacks"));
        };
        let mut schema = Owned(Box::new(ArrowSchema::empty()));
        // SAFETY: the producer's callback filling a schema we own.
        let rc = unsafe { get_schema(s, &mut *schema.0) };
        if rc != 0 {
            return Err(stream_error(s, rc));
        }
        let mut arrays = Vec::new();
        loop {
            let mut a = Owned(Box::new(ArrowArray::empty()));
            // SAFETY: the producer's callback filling an array we own.
            let rc = unsafe { get_next(s, &mut *a.0) };
            if rc != 0 {
                return Err(stream_error(s, rc));
            }
            if a.0.release.is_none() {
                break;
            }
            arrays.push(a);
        }
        drop(stream);
        let _ = py;
        return Ok(Imported {
            schema,
            arrays,
            arena: Arena::default(),
        });
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

/// The format string of a schema.
fn format_of(s: &ArrowSchema) -> PyResult<&str> {
    if s.format.is_null() {
        return Err(malformed("arrow schema without a format"));
    }
    // SAFETY: the producer guarantees a NUL-terminated format string while the schema
    // lives.
    unsafe { CStr::from_ptr(s.format) }
        .to_str()
        .map_err(|_| malformed("arrow schema format is not UTF-8"))
}

/// A buffer as a slice of `len` items of `T` (empty for length 0, whatever the pointer);
/// a misaligned buffer is copied once into `arena` (the C data interface asks producers
/// for aligned buffers, but not all comply).
///
/// # Safety
/// `p` must point to at least `len` readable `T`s that live as long as `'a`; `T` is a
/// plain integer type of alignment at most 8.
unsafe fn buffer<T: Copy>(arena: &Arena, p: *const c_void, len: usize) -> PyResult<&[T]> {
    if len == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(malformed("arrow array: missing buffer"));
    }
    let bytes = len
        .checked_mul(std::mem::size_of::<T>())
        .ok_or_else(|| malformed("arrow array: size overflows"))?;
    let p = if !(p as usize).is_multiple_of(std::mem::align_of::<T>()) {
        // SAFETY: `p` has `bytes` readable bytes (caller's contract).
        unsafe { arena.copy(p as *const u8, bytes) as *const c_void }
    } else {
        p
    };
    // SAFETY: by the caller's contract, or the arena's aligned copy of the same bytes,
    // which lives as long as the arena ('a).
    Ok(unsafe { std::slice::from_raw_parts(p as *const T, len) })
}

/// The type of a column after looking through a one-field struct.
enum Kind {
    Bin32,
    Bin64,
    Fixed(usize),
    View,
    Int(u8),
}

fn kind_of(format: &str) -> Option<Kind> {
    Some(match format {
        "z" | "u" => Kind::Bin32,
        "Z" | "U" => Kind::Bin64,
        "vz" | "vu" => Kind::View,
        "c" | "C" | "s" | "S" | "i" | "I" | "l" | "L" => Kind::Int(format.as_bytes()[0]),
        f => Kind::Fixed(f.strip_prefix("w:")?.parse().ok()?),
    })
}

fn describe(format: &str) -> String {
    match format {
        "n" => "null".into(),
        "b" => "bool".into(),
        "f" | "g" | "e" => "float".into(),
        f if f.starts_with("+s") => "struct".into(),
        f if f.starts_with("+l") || f.starts_with("+L") || f.starts_with("+v") => "list".into(),
        f if f.starts_with("ts") || f.starts_with("td") || f.starts_with("tt") => "temporal".into(),
        f => format!("format {f:?}"),
    }
}

/// One chunk to read: the array, its offset and its length.
type Slot<'a> = (&'a ArrowArray, usize, usize);

/// The format and arrays of a column, looking through a struct of exactly one field
/// (a one-column table or record batch, e.g. a DuckDB or Polars frame).
fn leaf(imp: &Imported) -> PyResult<(&str, Vec<Slot<'_>>)> {
    let schema: &ArrowSchema = &imp.schema.0;
    let format = format_of(schema)?;
    if !schema.dictionary.is_null() {
        return Err(type_error(
            "dictionary-encoded arrays are not supported; decode them first (cast to binary)",
        ));
    }
    let mut arrays = Vec::with_capacity(imp.arrays.len());
    if format == "+s" {
        if schema.n_children != 1 || schema.children.is_null() {
            return Err(type_error(
                "expected one column of binary or string values, got a struct (table) of \
                 several columns; pass one column",
            ));
        }
        // SAFETY: n_children == 1 valid child pointers (the C data interface).
        let child: &ArrowSchema = unsafe { &**schema.children };
        let cformat = format_of(child)?;
        for a in &imp.arrays {
            let a: &ArrowArray = &a.0;
            if a.n_children != 1 || a.children.is_null() {
                return Err(malformed("arrow struct array without its child"));
            }
            if a.null_count != 0 {
                return Err(type_error(
                    "a struct column with null rows is not supported",
                ));
            }
            // SAFETY: as above, one child array.
            let c: &ArrowArray = unsafe { &**a.children };
            let (off, len) = (usize_of(a.offset)?, usize_of(a.length)?);
            arrays.push((c, usize_of(c.offset)? + off, len));
        }
        return Ok((cformat, arrays));
    }
    for a in &imp.arrays {
        let a: &ArrowArray = &a.0;
        arrays.push((a, usize_of(a.offset)?, usize_of(a.length)?));
    }
    Ok((format, arrays))
}

fn usize_of(v: i64) -> PyResult<usize> {
    usize::try_from(v).map_err(|_| malformed("arrow array: negative length or offset"))
}

fn validity<'a>(
    arena: &'a Arena,
    a: &'a ArrowArray,
    offset: usize,
    len: usize,
) -> PyResult<Option<Validity<'a>>> {
    if a.n_buffers < 1 || a.buffers.is_null() {
        return Err(malformed("arrow array: missing buffers"));
    }
    // SAFETY: n_buffers >= 1 buffer pointers.
    let p = unsafe { *a.buffers };
    if p.is_null() || a.null_count == 0 {
        return Ok(None);
    }
    let end = offset
        .checked_add(len)
        .ok_or_else(|| malformed("arrow array: offset + length overflows"))?;
    // SAFETY: a validity bitmap covers offset + length bits (the C data interface).
    let bits = unsafe { buffer::<u8>(arena, p, end.div_ceil(8))? };
    Ok(Some(Validity::new(bits, offset, len).map_err(to_py)?))
}

fn buffers_of(a: &ArrowArray, want: usize) -> PyResult<&[*const c_void]> {
    let n = usize_of(a.n_buffers)?;
    if n < want || a.buffers.is_null() {
        return Err(malformed("arrow array: too few buffers for its type"));
    }
    // SAFETY: the array has n_buffers buffer pointers.
    Ok(unsafe { std::slice::from_raw_parts(a.buffers, n) })
}

/// A binary or string column (what: the argument's name, for errors).
fn binary_column<'a>(imp: &'a Imported, what: &str) -> PyResult<Column<'a>> {
    let (format, arrays) = leaf(imp)?;
    let kind = match kind_of(format) {
        Some(Kind::Int(_)) | None => {
            return Err(type_error(format!(
                "{what}: expected an Arrow column of binary or string values, got {}",
                describe(format)
            )))
        }
        Some(k) => k,
    };
    let mut chunks = Vec::with_capacity(arrays.len());
    for (a, offset, len) in arrays {
        let v = validity(&imp.arena, a, offset, len)?;
        let end = offset + len;
        let values = match kind {
            Kind::Bin32 => {
                let b = buffers_of(a, 3)?;
                // SAFETY: a binary array has offset + length + 1 offsets and the values
                // buffer holds up to its last offset (checked by Chunk::new).
                let offs = unsafe { buffer::<i32>(&imp.arena, b[1], end + 1)? };
                let data_len = usize_of(i64::from(offs[end]))?;
                // SAFETY: as above.
                let data = unsafe { buffer::<u8>(&imp.arena, b[2], data_len)? };
                Values::Offsets32 {
                    offsets: &offs[offset..],
                    data,
                }
            }
            Kind::Bin64 => {
                let b = buffers_of(a, 3)?;
                // SAFETY: as for Bin32 with 64-bit offsets.
                let offs = unsafe { buffer::<i64>(&imp.arena, b[1], end + 1)? };
                let data_len = usize_of(offs[end])?;
                // SAFETY: as above.
                let data = unsafe { buffer::<u8>(&imp.arena, b[2], data_len)? };
                Values::Offsets64 {
                    offsets: &offs[offset..],
                    data,
                }
            }
            Kind::Fixed(w) => {
                let b = buffers_of(a, 2)?;
                let n = end
                    .checked_mul(w)
                    .ok_or_else(|| malformed("arrow array: size overflows"))?;
                // SAFETY: a fixed-size binary array holds (offset + length) * width bytes.
                let data = unsafe { buffer::<u8>(&imp.arena, b[1], n)? };
                Values::Fixed {
                    width: w,
                    data: &data[offset * w..],
                }
            }
            Kind::View => {
                let b = buffers_of(a, 3)?;
                let k = b.len() - 3;
                // SAFETY: the last buffer of a view array holds the k data buffer sizes.
                let sizes = unsafe { buffer::<i64>(&imp.arena, b[b.len() - 1], k)? };
                let mut bufs = Vec::with_capacity(k);
                for (j, &s) in sizes.iter().enumerate() {
                    // SAFETY: data buffer j holds sizes[j] bytes.
                    bufs.push(unsafe { buffer::<u8>(&imp.arena, b[2 + j], usize_of(s)?)? });
                }
                // SAFETY: the views buffer holds offset + length 16-byte views.
                let views = unsafe { buffer::<u8>(&imp.arena, b[1], end * 16)? };
                Values::Views {
                    views: &views[offset * 16..],
                    buffers: bufs,
                }
            }
            Kind::Int(_) => unreachable!("refused above"),
        };
        chunks.push(Chunk::new(len, v, values).map_err(to_py)?);
    }
    Ok(Column::new(chunks))
}

/// An integer column.
fn int_column<'a>(imp: &'a Imported, what: &str) -> PyResult<IntColumn<'a>> {
    let (format, arrays) = leaf(imp)?;
    let Some(Kind::Int(t)) = kind_of(format) else {
        return Err(type_error(format!(
            "{what}: expected an Arrow column of integers, got {}",
            describe(format)
        )));
    };
    let mut chunks = Vec::with_capacity(arrays.len());
    for (a, offset, len) in arrays {
        let v = validity(&imp.arena, a, offset, len)?;
        let b = buffers_of(a, 2)?;
        let end = offset + len;
        // SAFETY: (every arm) an integer array holds offset + length values.
        let values = unsafe {
            match t {
                b'c' => IntValues::I8(&buffer::<i8>(&imp.arena, b[1], end)?[offset..]),
                b'C' => IntValues::U8(&buffer::<u8>(&imp.arena, b[1], end)?[offset..]),
                b's' => IntValues::I16(&buffer::<i16>(&imp.arena, b[1], end)?[offset..]),
                b'S' => IntValues::U16(&buffer::<u16>(&imp.arena, b[1], end)?[offset..]),
                b'i' => IntValues::I32(&buffer::<i32>(&imp.arena, b[1], end)?[offset..]),
                b'I' => IntValues::U32(&buffer::<u32>(&imp.arena, b[1], end)?[offset..]),
                b'l' => IntValues::I64(&buffer::<i64>(&imp.arena, b[1], end)?[offset..]),
                _ => IntValues::U64(&buffer::<u64>(&imp.arena, b[1], end)?[offset..]),
            }
        };
        chunks.push(IntChunk::new(len, v, values).map_err(to_py)?);
    }
    Ok(IntColumn::new(chunks))
}

/// Whether any chunk uses 64-bit offsets (then the output does too).
fn is_large(imp: &Imported) -> bool {
    leaf(imp)
        .map(|(f, _)| matches!(f, "Z" | "U"))
        .unwrap_or(false)
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
