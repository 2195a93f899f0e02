//! The Arrow C data interface (<https://arrow.apache.org/docs/format/CDataInterface.html>)
//! read into the validated views of this module ([`Column`], [`IntColumn`]).
//!
//! This is the one place that reads foreign memory. It has no Python in it, so a fuzz
//! target can drive it with hostile trees of structs (`fuzz/fuzz_targets/arrow_cdata.rs`);
//! `guomi-python` only takes the structs out of their PyCapsules and maps the errors.
//!
//! What is trusted, and what is checked:
//!
//! * Trusted (the C data interface contract, which no consumer can check): every non-NULL
//!   pointer points to what the specification says it does. `format` is a NUL-terminated
//!   string; `children` holds `n_children` pointers and `buffers` holds `n_buffers`; each
//!   non-NULL buffer of an array holds what the array's *own* `offset + length` needs in
//!   its layout (Columnar format, "Buffer listing for each layout"): `offset + length + 1`
//!   offsets, a values buffer up to the last offset, `(offset + length) * width` bytes,
//!   the variadic buffer sizes of a view array, and so on.
//! * Checked at every level we read (the top-level array, the child of a one-column
//!   struct, every chunk of a stream): non-negative lengths and offsets, every sum and
//!   product with checked arithmetic, `n_buffers` and `n_children` as the format requires,
//!   non-NULL child pointers, no dictionary (refused, schema or array), a struct child
//!   at least as long as its parent's `offset + length`, and then inside the buffers: the
//!   offsets non-decreasing and inside the values buffer, view entries inside their
//!   buffers, bitmaps long enough ([`Chunk::new`]).
//! * Copied before use: everything the checks depend on (offsets, views, variadic buffer
//!   sizes, validity bitmaps, integer columns), only the rows read (`length` entries from
//!   the array's offset on). The kernels then run without the GIL on the copies, so
//!   another thread that rewrites those buffers during the call (a bytearray-backed
//!   pyarrow buffer, say) cannot make a checked index go out of bounds. The data bytes
//!   themselves are borrowed in place: they must not change during a call (a change
//!   gives unspecified output for the rows concerned; it is the caller's data race).

use super::view::{Chunk, Column, IntChunk, IntColumn, IntValues, Validity, Values};
use crate::error::Error;
use core::ffi::{c_char, c_int, c_void, CStr};
use core::ptr;
use std::cell::RefCell;

// ---------------------------------------------------------------------------------------
// The C structs (ABI-stable, from the Arrow specification).

/// `struct ArrowSchema` of the C data interface.
#[repr(C)]
#[derive(Debug)]
pub struct ArrowSchema {
    /// The type, as a format string ("z", "w:16", "+s", ...).
    pub format: *const c_char,
    /// Field name (may be NULL).
    pub name: *const c_char,
    /// Field metadata (may be NULL).
    pub metadata: *const c_char,
    /// `ARROW_FLAG_*` bits.
    pub flags: i64,
    /// Number of entries in `children`.
    pub n_children: i64,
    /// The child types.
    pub children: *mut *mut ArrowSchema,
    /// The value type of a dictionary-encoded field (NULL otherwise).
    pub dictionary: *mut ArrowSchema,
    /// The producer's release callback (NULL: released).
    pub release: Option<unsafe extern "C" fn(*mut ArrowSchema)>,
    /// The producer's data.
    pub private_data: *mut c_void,
}

/// `struct ArrowArray` of the C data interface.
#[repr(C)]
#[derive(Debug)]
pub struct ArrowArray {
    /// Number of rows.
    pub length: i64,
    /// Number of null rows (-1: not computed).
    pub null_count: i64,
    /// First row, in every buffer.
    pub offset: i64,
    /// Number of entries in `buffers`.
    pub n_buffers: i64,
    /// Number of entries in `children`.
    pub n_children: i64,
    /// The buffers of the layout (validity first).
    pub buffers: *mut *const c_void,
    /// The child arrays.
    pub children: *mut *mut ArrowArray,
    /// The dictionary of a dictionary-encoded array (NULL otherwise).
    pub dictionary: *mut ArrowArray,
    /// The producer's release callback (NULL: released).
    pub release: Option<unsafe extern "C" fn(*mut ArrowArray)>,
    /// The producer's data.
    pub private_data: *mut c_void,
}

/// `struct ArrowArrayStream` of the C stream interface.
#[repr(C)]
#[derive(Debug)]
pub struct ArrowArrayStream {
    /// Fills the stream's schema.
    pub get_schema: Option<unsafe extern "C" fn(*mut ArrowArrayStream, *mut ArrowSchema) -> c_int>,
    /// Fills the next array (released array: end of stream).
    pub get_next: Option<unsafe extern "C" fn(*mut ArrowArrayStream, *mut ArrowArray) -> c_int>,
    /// The last error message (may be NULL).
    pub get_last_error: Option<unsafe extern "C" fn(*mut ArrowArrayStream) -> *const c_char>,
    /// The producer's release callback (NULL: released).
    pub release: Option<unsafe extern "C" fn(*mut ArrowArrayStream)>,
    /// The producer's data.
    pub private_data: *mut c_void,
}

impl ArrowSchema {
    /// A released (all-NULL) schema, to be filled by a producer.
    pub fn empty() -> Self {
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
    /// A released (all-NULL) array, to be filled by a producer.
    pub fn empty() -> Self {
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

impl ArrowArrayStream {
    /// A released (all-NULL) stream.
    pub fn empty() -> Self {
        ArrowArrayStream {
            get_schema: None,
            get_next: None,
            get_last_error: None,
            release: None,
            private_data: ptr::null_mut(),
        }
    }
}

/// A C struct with a producer's release callback.
pub trait Release {
    /// Calls the release callback once (nothing when already released).
    fn release(&mut self);
    /// Whether the struct is live (not released).
    fn is_live(&self) -> bool;
}

macro_rules! release_impl {
    ($t:ty) => {
        impl Release for $t {
            fn release(&mut self) {
                if let Some(f) = self.release.take() {
                    // SAFETY: the producer's callback, called once on the struct it filled
                    // (`take` clears it first, so never twice).
                    unsafe { f(self) };
                    self.release = None;
                }
            }
            fn is_live(&self) -> bool {
                self.release.is_some()
            }
        }
    };
}
release_impl!(ArrowSchema);
release_impl!(ArrowArray);
release_impl!(ArrowArrayStream);

/// A schema, array or stream that we own: released (through its producer's callback)
/// when dropped, on every path.
pub struct Owned<T: Release>(Box<T>);

impl<T: Release> Owned<T> {
    /// Takes ownership of a struct moved out of its producer.
    ///
    /// # Safety
    /// `inner` must be released (`release` NULL) or follow the C data interface: every
    /// pointer it holds valid as the specification says (see the module documentation),
    /// until its release callback is called.
    pub unsafe fn new(inner: Box<T>) -> Self {
        Owned(inner)
    }

    /// The struct.
    pub fn get(&self) -> &T {
        &self.0
    }

    /// The struct, for a producer's callback to fill (streams).
    pub fn get_mut(&mut self) -> &mut T {
        &mut self.0
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
// Errors.

/// Why a column could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadError {
    /// A well-formed column of a type the function does not take (Python `TypeError`).
    WrongType(String),
    /// A malformed array (Python `InvalidArgument`).
    Invalid(Error),
}

impl From<Error> for ReadError {
    fn from(e: Error) -> Self {
        ReadError::Invalid(e)
    }
}

impl core::fmt::Display for ReadError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            ReadError::WrongType(m) => f.write_str(m),
            ReadError::Invalid(e) => e.fmt(f),
        }
    }
}

type R<T> = core::result::Result<T, ReadError>;

fn malformed(msg: &'static str) -> ReadError {
    ReadError::Invalid(Error::InvalidValue(msg))
}

fn dictionary_refused(what: &str) -> ReadError {
    ReadError::WrongType(format!(
        "{what}: dictionary-encoded columns are not supported; decode them first \
         (pyarrow: column.dictionary_decode() or column.cast(pa.binary()))"
    ))
}

// ---------------------------------------------------------------------------------------
// Copies.

/// Append-only storage for the copies the views borrow: the boxes' heap blocks never move
/// or drop while the arena lives.
#[derive(Default)]
struct Arena(RefCell<Vec<Box<[u64]>>>);

/// The offset type of a binary or string array: `i32` (binary, utf8) or `i64` (the large
/// forms).
trait Offset: Copy + Into<i64> + 'static {
    /// The offsets of an empty array that left its offsets buffer out.
    const ZERO: &'static [Self];
}

impl Offset for i32 {
    const ZERO: &'static [Self] = &[0];
}

impl Offset for i64 {
    const ZERO: &'static [Self] = &[0];
}

impl Arena {
    /// A copy of the `len` values of `T` from item `first` of the buffer at `base`
    /// (unaligned is fine), living as long as the arena. Empty for `len` 0, whatever
    /// `base`; a NULL `base` is an error (checked before any arithmetic on it).
    ///
    /// # Safety
    /// When `len > 0` and `base` is not NULL, `base` must point to `first + len` readable
    /// `T`s; `T` is a plain integer type (any bit pattern valid) of alignment at most 8.
    unsafe fn copy<T: Copy>(&self, base: *const T, first: usize, len: usize) -> R<&[T]> {
        if len == 0 {
            return Ok(&[]);
        }
        if base.is_null() {
            return Err(malformed("arrow array: missing buffer"));
        }
        // SAFETY: items first..first + len lie in the buffer (caller).
        let p = unsafe { base.add(first) };
        let bytes = len
            .checked_mul(size_of::<T>())
            .filter(|&b| b <= isize::MAX as usize)
            .ok_or(malformed("arrow array: size overflows"))?;
        let mut v: Vec<u64> = Vec::new();
        v.try_reserve_exact(bytes.div_ceil(8))
            .map_err(|_| malformed("arrow array: too large to copy"))?;
        v.resize(bytes.div_ceil(8), 0);
        let mut b = v.into_boxed_slice();
        // SAFETY: `p` has `bytes` readable bytes (caller); `b` has room for them.
        unsafe { ptr::copy_nonoverlapping(p as *const u8, b.as_mut_ptr() as *mut u8, bytes) };
        let out = b.as_ptr() as *const T;
        self.0.borrow_mut().push(b);
        // SAFETY: `out` is 8-byte aligned and holds `len` initialised `T`s; the block lives
        // (unmoved, unchanged) as long as the arena, hence as long as `&self`.
        Ok(unsafe { core::slice::from_raw_parts(out, len) })
    }
}

/// Bytes `start..start + len` of the buffer at `base`, borrowed in place (empty for `len`
/// 0, whatever the pointer; a NULL `base` is an error, checked before any arithmetic).
///
/// # Safety
/// When `len > 0` and `base` is not NULL, `base` must point to `start + len` bytes that
/// live as long as `'a`.
unsafe fn borrow<'a>(base: *const c_void, start: usize, len: usize) -> R<&'a [u8]> {
    if len == 0 {
        return Ok(&[]);
    }
    if base.is_null() {
        return Err(malformed("arrow array: missing buffer"));
    }
    if len > isize::MAX as usize {
        return Err(malformed("arrow array: size overflows"));
    }
    // SAFETY: the bytes lie in the buffer (caller).
    let p = unsafe { (base as *const u8).add(start) };
    // SAFETY: caller.
    Ok(unsafe { core::slice::from_raw_parts(p, len) })
}

// ---------------------------------------------------------------------------------------
// Import.

/// Arrays imported from one producer: one schema, its chunks (one for an array, any
/// number for a stream), and the copies their views borrow.
pub struct Imported {
    schema: Owned<ArrowSchema>,
    arrays: Vec<Owned<ArrowArray>>,
    arena: Arena,
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

/// One chunk to read: the array, the first row in its buffers, the number of rows, and
/// the array's own `offset + length` (what its buffers are sized for; at least
/// `offset + len`).
struct Slot<'a> {
    array: &'a ArrowArray,
    offset: usize,
    len: usize,
    own_end: usize,
}

fn usize_of(v: i64) -> R<usize> {
    usize::try_from(v).map_err(|_| malformed("arrow array: negative length or offset"))
}

/// The format string of a schema.
fn format_of(s: &ArrowSchema) -> R<&str> {
    if s.format.is_null() {
        return Err(malformed("arrow schema without a format"));
    }
    // SAFETY: a NUL-terminated format string while the schema lives (the contract).
    unsafe { CStr::from_ptr(s.format) }
        .to_str()
        .map_err(|_| malformed("arrow schema format is not UTF-8"))
}

/// Checks what every array level must satisfy: (offset, length) as usize, with
/// `offset + length` representable; a sane null count; no dictionary.
fn check_array(a: &ArrowArray, what: &str) -> R<(usize, usize)> {
    if !a.dictionary.is_null() {
        return Err(dictionary_refused(what));
    }
    let (offset, len) = (usize_of(a.offset)?, usize_of(a.length)?);
    // Lengths and offsets are 64-bit signed in the C data interface: so is their sum.
    a.offset
        .checked_add(a.length)
        .ok_or(malformed("arrow array: offset + length overflows"))?;
    if a.null_count < -1 {
        return Err(malformed("arrow array: negative null count"));
    }
    if a.n_buffers < 0 || a.n_children < 0 {
        return Err(malformed("arrow array: negative buffer or child count"));
    }
    Ok((offset, len))
}

/// The one child of a struct schema or array, checked non-NULL.
///
/// # Safety
/// `children` holds `n` pointers when not NULL (the contract).
unsafe fn only_child<'a, T>(n: i64, children: *mut *mut T) -> Option<&'a T> {
    if n != 1 || children.is_null() {
        return None;
    }
    // SAFETY: one readable child pointer (caller); checked non-NULL before the deref.
    let c = unsafe { *children };
    // SAFETY: a non-NULL child pointer points to a live struct (the contract).
    (!c.is_null()).then(|| unsafe { &*c })
}

/// Checks that a buffer of `count` items of `size` bytes (what an array's own offset +
/// length needs) can exist at all: a claim past `isize::MAX` bytes is refused before any
/// pointer arithmetic on it.
fn fits(count: usize, size: usize) -> R<()> {
    count
        .checked_mul(size)
        .filter(|&n| n <= isize::MAX as usize)
        .map(|_| ())
        .ok_or(malformed("arrow array: buffer size overflows"))
}

/// The buffer pointers of `a`: exactly `want` of them (or at least `want` with `at_least`).
fn buffers_of(a: &ArrowArray, want: usize, at_least: bool) -> R<&[*const c_void]> {
    let n = usize_of(a.n_buffers)?;
    if n < want || (!at_least && n != want) || a.buffers.is_null() {
        return Err(malformed(
            "arrow array: wrong number of buffers for its type",
        ));
    }
    // SAFETY: the array has n_buffers buffer pointers (the contract).
    Ok(unsafe { core::slice::from_raw_parts(a.buffers, n) })
}

impl Imported {
    /// The column read from `schema` and its `arrays` (chunks, in order).
    ///
    /// # Safety
    /// As [`Owned::new`] for each struct: a producer that follows the C data interface's
    /// memory contract (see the module documentation). Everything else is checked.
    pub unsafe fn new(schema: Owned<ArrowSchema>, arrays: Vec<Owned<ArrowArray>>) -> Self {
        Imported {
            schema,
            arrays,
            arena: Arena::default(),
        }
    }

    /// The leaf format and chunks, looking through a struct of exactly one field (a
    /// one-column record batch or table, e.g. a DuckDB or Polars frame). Every level is
    /// checked (see the module documentation).
    fn leaf(&self, what: &str) -> R<(&str, Vec<Slot<'_>>)> {
        let schema = self.schema.get();
        if schema.release.is_none() {
            return Err(malformed("arrow schema is released"));
        }
        if !schema.dictionary.is_null() {
            return Err(dictionary_refused(what));
        }
        let format = format_of(schema)?;
        let mut slots = Vec::with_capacity(self.arrays.len());
        if format != "+s" {
            if schema.n_children != 0 {
                return Err(malformed("arrow schema: children on a type without any"));
            }
            for a in &self.arrays {
                let a = a.get();
                let (offset, len) = check_array(a, what)?;
                if a.n_children != 0 {
                    return Err(malformed("arrow array: children on a type without any"));
                }
                slots.push(Slot {
                    array: a,
                    offset,
                    len,
                    own_end: offset + len,
                });
            }
            return Ok((format, slots));
        }
        // SAFETY: `children` holds n_children pointers (the contract).
        let Some(child) = (unsafe { only_child(schema.n_children, schema.children) }) else {
            if schema.n_children > 1 {
                return Err(ReadError::WrongType(format!(
                    "{what}: expected one column of binary or string values, got a struct \
                     (table) of several columns; pass one column"
                )));
            }
            return Err(malformed("arrow struct schema without its child"));
        };
        if !child.dictionary.is_null() {
            return Err(dictionary_refused(what));
        }
        let cformat = format_of(child)?;
        if cformat.starts_with('+') {
            return Err(ReadError::WrongType(format!(
                "{what}: expected a column of binary, string or integer values, got a \
                 struct of {}",
                describe(cformat)
            )));
        }
        if child.n_children != 0 {
            return Err(malformed("arrow schema: children on a type without any"));
        }
        for a in &self.arrays {
            let a = a.get();
            let (offset, len) = check_array(a, what)?;
            // A struct array has one buffer, the validity bitmap (Columnar format,
            // "Struct Layout"); rows that are null at the struct level are refused.
            let b = buffers_of(a, 1, false)?;
            if a.null_count != 0 && !b[0].is_null() && len > 0 {
                // SAFETY: a validity bitmap holds offset + length bits (the contract);
                // check_array checked the sum.
                let bits = unsafe { borrow(b[0], 0, (offset + len).div_ceil(8))? };
                let v = Validity::new(bits, offset, len)?;
                if (0..len).any(|i| !v.is_valid(i)) {
                    return Err(ReadError::WrongType(format!(
                        "{what}: a struct column with null rows is not supported"
                    )));
                }
            }
            // SAFETY: `children` holds n_children pointers (the contract).
            let Some(c) = (unsafe { only_child(a.n_children, a.children) }) else {
                return Err(malformed("arrow struct array without its child"));
            };
            let (coffset, clen) = check_array(c, what)?;
            if c.n_children != 0 {
                return Err(malformed("arrow array: children on a type without any"));
            }
            // The parent's rows offset..offset + len are the child's rows at the same
            // positions: the child must have them (Columnar format, "Struct Layout").
            if clen < offset + len {
                return Err(malformed(
                    "arrow struct array: child shorter than its parent",
                ));
            }
            let first = coffset
                .checked_add(offset)
                .filter(|f| f.checked_add(len).is_some())
                .ok_or(malformed("arrow array: offset + length overflows"))?;
            slots.push(Slot {
                array: c,
                offset: first,
                len,
                own_end: coffset + clen,
            });
        }
        Ok((cformat, slots))
    }

    /// The validity of `len` rows from row `offset`: a copy of the bytes that hold them.
    fn validity(&self, a: &ArrowArray, offset: usize, len: usize) -> R<Option<Validity<'_>>> {
        let b = buffers_of(a, 1, true)?;
        if b[0].is_null() || a.null_count == 0 || len == 0 {
            return Ok(None);
        }
        // offset + len was checked by `leaf`.
        let (lo, hi) = (offset / 8, (offset + len).div_ceil(8));
        // SAFETY: a validity bitmap holds offset + length bits (the contract), so bytes
        // lo..hi are readable.
        let bits = unsafe { self.arena.copy(b[0] as *const u8, lo, hi - lo)? };
        Ok(Some(Validity::new(bits, offset % 8, len)?))
    }

    /// The offsets (the `len + 1` read, copied) and the values buffer of a binary or string
    /// array with `T`-wide offsets (`i32`: binary/utf8, `i64`: the large forms).
    fn offsets_and_data<T: Offset>(
        &self,
        a: &ArrowArray,
        offset: usize,
        len: usize,
        own_end: usize,
    ) -> R<(&[T], &[u8])> {
        let b = buffers_of(a, 3, false)?;
        fits(own_end + 1, core::mem::size_of::<T>())?;
        let offs: &[T] = if len == 0 && b[1].is_null() {
            // An empty array may leave its offsets out: one zero offset stands in.
            T::ZERO
        } else {
            // SAFETY: a binary array has offset + length + 1 offsets (the contract); we
            // copy the len + 1 from `offset` on.
            unsafe { self.arena.copy(b[1] as *const T, offset, len + 1)? }
        };
        // The values buffer is sized by the array's own last offset, which bounds the rows
        // read (checked by Chunk::new).
        let last = if own_end == offset + len {
            offs[len]
        } else {
            // SAFETY: offsets[own_end] is the array's own last offset (the contract);
            // own_end >= offset + len.
            let own_last = unsafe { self.arena.copy(b[1] as *const T, own_end, 1)? };
            own_last[0]
        };
        // SAFETY: the values buffer holds bytes up to the last offset.
        let data = unsafe { borrow(b[2], 0, usize_of(last.into())?)? };
        Ok((offs, data))
    }

    /// A binary or string column (`what`: the argument's name, for errors).
    pub fn binary_column(&self, what: &str) -> R<Column<'_>> {
        let (format, slots) = self.leaf(what)?;
        let kind = match kind_of(format) {
            // No buffer bounds the rows of a zero-width column: its length alone would
            // set the work (2^62 empty rows from a struct of a few bytes).
            Some(Kind::Fixed(0)) => {
                return Err(ReadError::WrongType(format!(
                    "{what}: fixed_size_binary(0) columns are not supported"
                )))
            }
            Some(Kind::Int(_)) | None => {
                return Err(ReadError::WrongType(format!(
                    "{what}: expected an Arrow column of binary or string values, got {}",
                    describe(format)
                )))
            }
            Some(k) => k,
        };
        let mut chunks = Vec::with_capacity(slots.len());
        for Slot {
            array: a,
            offset,
            len,
            own_end,
        } in slots
        {
            let v = self.validity(a, offset, len)?;
            let values = match kind {
                Kind::Bin32 => {
                    let (offsets, data) = self.offsets_and_data::<i32>(a, offset, len, own_end)?;
                    Values::Offsets32 { offsets, data }
                }
                Kind::Bin64 => {
                    let (offsets, data) = self.offsets_and_data::<i64>(a, offset, len, own_end)?;
                    Values::Offsets64 { offsets, data }
                }
                Kind::Fixed(w) => {
                    let b = buffers_of(a, 2, false)?;
                    fits(own_end, w)?;
                    let (start, n) = offset
                        .checked_mul(w)
                        .zip(len.checked_mul(w))
                        .filter(|(s, n)| s.checked_add(*n).is_some())
                        .ok_or(malformed("arrow array: size overflows"))?;
                    // SAFETY: a fixed-size binary array holds (offset + length) * width
                    // bytes (the contract); the sum does not overflow (checked).
                    let data = if n == 0 {
                        &[][..]
                    } else {
                        // SAFETY: see above.
                        unsafe { borrow(b[1], start, n)? }
                    };
                    Values::Fixed { width: w, data }
                }
                Kind::View => {
                    let b = buffers_of(a, 3, true)?;
                    fits(own_end, 16)?;
                    let k = b.len() - 3;
                    // SAFETY: the last buffer of a view array holds the k variadic buffer
                    // sizes (the contract).
                    let sizes = unsafe { self.arena.copy(b[b.len() - 1] as *const i64, 0, k)? };
                    let mut bufs = Vec::with_capacity(k);
                    for (j, &s) in sizes.iter().enumerate() {
                        // SAFETY: variadic buffer j holds sizes[j] bytes (the contract).
                        bufs.push(unsafe { borrow(b[2 + j], 0, usize_of(s)?)? });
                    }
                    // SAFETY: the views buffer holds offset + length 16-byte views (the
                    // contract); we copy the len from `offset` on.
                    let views = unsafe { self.arena.copy(b[1] as *const [u8; 16], offset, len)? };
                    Values::Views {
                        views: views.as_flattened(),
                        buffers: bufs,
                    }
                }
                Kind::Int(_) => unreachable!("refused above"),
            };
            chunks.push(Chunk::new(len, v, values)?);
        }
        Ok(Column::new(chunks))
    }

    /// An integer column (`what`: the argument's name, for errors).
    pub fn int_column(&self, what: &str) -> R<IntColumn<'_>> {
        let (format, slots) = self.leaf(what)?;
        let Some(Kind::Int(t)) = kind_of(format) else {
            return Err(ReadError::WrongType(format!(
                "{what}: expected an Arrow column of integers, got {}",
                describe(format)
            )));
        };
        let mut chunks = Vec::with_capacity(slots.len());
        for Slot {
            array: a,
            offset,
            len,
            own_end,
        } in slots
        {
            let v = self.validity(a, offset, len)?;
            let b = buffers_of(a, 2, false)?;
            let p = b[1];
            fits(
                own_end,
                match t {
                    b'c' | b'C' => 1,
                    b's' | b'S' => 2,
                    b'i' | b'I' => 4,
                    _ => 8,
                },
            )?;
            // SAFETY: (every arm) an integer array holds offset + length values (the
            // contract); we copy the len from `offset` on.
            let values = unsafe {
                match t {
                    b'c' => IntValues::I8(self.arena.copy(p as *const i8, offset, len)?),
                    b'C' => IntValues::U8(self.arena.copy(p as *const u8, offset, len)?),
                    b's' => IntValues::I16(self.arena.copy(p as *const i16, offset, len)?),
                    b'S' => IntValues::U16(self.arena.copy(p as *const u16, offset, len)?),
                    b'i' => IntValues::I32(self.arena.copy(p as *const i32, offset, len)?),
                    b'I' => IntValues::U32(self.arena.copy(p as *const u32, offset, len)?),
                    b'l' => IntValues::I64(self.arena.copy(p as *const i64, offset, len)?),
                    _ => IntValues::U64(self.arena.copy(p as *const u64, offset, len)?),
                }
            };
            chunks.push(IntChunk::new(len, v, values)?);
        }
        Ok(IntColumn::new(chunks))
    }

    /// Whether the column uses 64-bit offsets (then the output does too).
    pub fn is_large(&self) -> bool {
        self.leaf("column")
            .map(|(f, _)| matches!(f, "Z" | "U"))
            .unwrap_or(false)
    }
}
