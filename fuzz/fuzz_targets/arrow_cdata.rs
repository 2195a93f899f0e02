//! The Arrow C data interface reader (`guomi_core::columns::cdata`) on hostile trees of
//! `ArrowSchema`/`ArrowArray` structs, as any C producer could hand them over.
//!
//! The input describes a tree that this target allocates for real:
//!
//! * byte 0: shape flags: bit 0 wraps the column in a one-column struct (a record batch);
//!   bits 1/2 make the struct's schema/array child pointer NULL; bit 3 puts a dictionary
//!   on the top schema, bit 4 on the leaf array, bit 5 on the leaf schema; bit 6 gives the
//!   struct a wrong child count (from byte 2); bit 7 makes the leaf's numbers hostile
//!   (extremes near 2^63, negative) with NULL buffers.
//! * byte 1: the leaf format (binary, large binary, views, fixed-size binary of several
//!   widths including absurd ones, every integer type, a struct, garbage); byte 2: child
//!   counts; byte 3: number of chunks (1..=3, a stream).
//! * per chunk: the leaf's offset and length (u8 each), null count selector, buffer count
//!   delta, then buffer contents (offsets, views, variadic buffers, bitmaps) from the input;
//!   the struct's offset and length (small or extreme) and its validity.
//!
//! Each leaf's buffers hold what its *own* offset + length needs (the C data interface
//! contract, which a consumer cannot check); everything else is hostile. Invariants: the
//! reader returns a typed error or a column whose every row lies inside the buffers the
//! tree allocated (checked below, and by AddressSanitizer), and every top-level struct is
//! released exactly once.
#![no_main]

use core::ffi::{c_char, c_void};
use guomi_core::columns::cdata::{ArrowArray, ArrowSchema, Imported, Owned};
use guomi_fuzz::Cursor;
use libfuzzer_sys::fuzz_target;
use std::cell::Cell;
use std::ffi::CString;
use std::ptr;

thread_local! {
    static SCHEMA_RELEASES: Cell<usize> = const { Cell::new(0) };
    static ARRAY_RELEASES: Cell<usize> = const { Cell::new(0) };
}

unsafe extern "C" fn release_schema(s: *mut ArrowSchema) {
    SCHEMA_RELEASES.with(|c| c.set(c.get() + 1));
    // SAFETY: called by the reader on a top-level schema this target built.
    unsafe { (*s).release = None };
}

unsafe extern "C" fn release_array(a: *mut ArrowArray) {
    ARRAY_RELEASES.with(|c| c.set(c.get() + 1));
    // SAFETY: as above.
    unsafe { (*a).release = None };
}

const FORMATS: &[&str] = &[
    "z",
    "u",
    "Z",
    "U",
    "vz",
    "vu",
    "w:1",
    "w:16",
    "w:0",
    "w:18446744073709551615",
    "w:4611686018427387904",
    "c",
    "C",
    "s",
    "S",
    "i",
    "I",
    "l",
    "L",
    "+s",
    "b",
    "w:",
    "w:-1",
    "\u{fffd}",
];

const EXTREMES: &[i64] = &[
    i64::MAX,
    i64::MAX - 1,
    1 << 62,
    (1 << 62) + 1,
    1 << 32,
    -1,
    i64::MIN,
    1 << 59,
];

/// Everything the tree owns; freed after the reader (and its views) are gone.
#[derive(Default)]
struct Arena {
    blocks: Vec<Vec<u64>>,
    ptr_lists: Vec<Vec<*const c_void>>,
    /// Boxed structs (stable addresses), freed on drop.
    schemas: Vec<*mut ArrowSchema>,
    arrays: Vec<*mut ArrowArray>,
    schema_lists: Vec<Vec<*mut ArrowSchema>>,
    array_lists: Vec<Vec<*mut ArrowArray>>,
    strings: Vec<CString>,
    /// (start, len) of every data buffer, where row bytes may lie.
    data: Vec<(usize, usize)>,
}

impl Drop for Arena {
    fn drop(&mut self) {
        for &p in &self.schemas {
            // SAFETY: from Box::into_raw below, freed once.
            drop(unsafe { Box::from_raw(p) });
        }
        for &p in &self.arrays {
            // SAFETY: as above.
            drop(unsafe { Box::from_raw(p) });
        }
    }
}

impl Arena {
    /// A zeroed, 8-byte-aligned buffer of `n` bytes filled from the input.
    fn buf(&mut self, c: &mut Cursor, n: usize) -> *const c_void {
        let mut v = vec![0u64; n.div_ceil(8).max(1)];
        // SAFETY: the Vec has at least n bytes.
        let bytes = unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr() as *mut u8, n) };
        let src = c.take(n);
        bytes[..src.len()].copy_from_slice(src);
        let p = v.as_ptr() as *const c_void;
        self.blocks.push(v);
        p
    }

    fn data_buf(&mut self, c: &mut Cursor, n: usize) -> *const c_void {
        let p = self.buf(c, n);
        self.data.push((p as usize, n));
        p
    }

    fn write<T: Copy>(p: *const c_void, i: usize, v: T) {
        // SAFETY: callers write inside buffers they sized for it.
        unsafe { (p as *mut T).add(i).write(v) };
    }

    fn schema(&mut self, format: &str) -> *mut ArrowSchema {
        let f = CString::new(format).unwrap_or_default();
        let mut s = Box::new(ArrowSchema::empty());
        s.format = f.as_ptr() as *const c_char;
        self.strings.push(f);
        let p = Box::into_raw(s);
        self.schemas.push(p);
        p
    }

    fn array(&mut self) -> *mut ArrowArray {
        let p = Box::into_raw(Box::new(ArrowArray::empty()));
        self.arrays.push(p);
        p
    }

    fn schema_children(&mut self, n: usize, child: *mut ArrowSchema) -> *mut *mut ArrowSchema {
        let mut v = vec![child; n.max(1)];
        let p = v.as_mut_ptr();
        self.schema_lists.push(v);
        p
    }

    fn array_children(&mut self, n: usize, child: *mut ArrowArray) -> *mut *mut ArrowArray {
        let mut v = vec![child; n.max(1)];
        let p = v.as_mut_ptr();
        self.array_lists.push(v);
        p
    }

    fn buffers(&mut self, list: Vec<*const c_void>) -> (*mut *const c_void, i64) {
        let n = list.len() as i64;
        let mut list = list;
        if list.is_empty() {
            list.push(ptr::null());
        }
        let p = list.as_mut_ptr();
        self.ptr_lists.push(list);
        (p, n)
    }
}

fn small_or_extreme(c: &mut Cursor) -> i64 {
    let b = c.u8();
    if b >= 0xF8 {
        EXTREMES[(b & 7) as usize]
    } else {
        i64::from(c.u8())
    }
}

/// A leaf array of `format` with honest buffers for its own offset + length.
fn leaf(
    ar: &mut Arena,
    c: &mut Cursor,
    format: &str,
    hostile: bool,
    dict: bool,
) -> *mut ArrowArray {
    let a = ar.array();
    let (off, len) = if hostile {
        (small_or_extreme(c), small_or_extreme(c))
    } else {
        (i64::from(c.u8() & 0x3f), i64::from(c.u8()))
    };
    let nsel = c.u8();
    let null_count = match nsel & 3 {
        0 => 0,
        1 => -1,
        2 => i64::from(c.u8()),
        _ => -2,
    };
    let delta = [0i64, 0, 0, 1, -1, 0, 0, 2][(nsel >> 2 & 7) as usize];
    let own_end = if hostile { 0 } else { (off + len) as usize };
    let validity = if nsel & 0x20 != 0 && !hostile {
        ar.buf(c, own_end.div_ceil(8))
    } else {
        ptr::null()
    };
    let mut bufs = vec![validity];
    let null = ptr::null::<c_void>();
    match format {
        "z" | "u" | "Z" | "U" => {
            let wide = format == "Z" || format == "U";
            if hostile {
                bufs.extend([null, null]);
            } else {
                let size = if wide { 8 } else { 4 };
                let offs = ar.buf(c, (own_end + 1) * size);
                let data_len = usize::from(c.u8());
                // The last own offset sizes the values buffer (the contract); a negative
                // one is allowed (the reader refuses it).
                let last: i64 = if c.u8() == 0xFF { -1 } else { data_len as i64 };
                if wide {
                    Arena::write(offs, own_end, last);
                } else {
                    Arena::write(offs, own_end, last as i32);
                }
                let data = ar.data_buf(c, data_len);
                bufs.extend([offs, data]);
            }
        }
        "vz" | "vu" => {
            if hostile {
                bufs.extend([null, null]);
            } else {
                let views = ar.buf(c, own_end * 16);
                bufs.push(views);
                let k = usize::from(c.u8() % 4);
                let mut sizes = Vec::with_capacity(k);
                for _ in 0..k {
                    let n = usize::from(c.u8());
                    bufs.push(ar.data_buf(c, n));
                    sizes.push(n as i64);
                }
                let sb = ar.buf(&mut Cursor::new(&[]), 8 * k);
                for (j, s) in sizes.iter().enumerate() {
                    Arena::write(sb, j, *s);
                }
                bufs.push(sb);
            }
        }
        f if f.starts_with("w:") => {
            let w: Option<usize> = f[2..].parse().ok();
            match w
                .and_then(|w| w.checked_mul(own_end))
                .filter(|&n| n <= 1 << 16)
            {
                Some(n) if !hostile => bufs.push(ar.data_buf(c, n)),
                _ => bufs.push(null),
            }
        }
        "c" | "C" | "s" | "S" | "i" | "I" | "l" | "L" => {
            let size = match format {
                "c" | "C" => 1,
                "s" | "S" => 2,
                "i" | "I" => 4,
                _ => 8,
            };
            bufs.push(if hostile {
                null
            } else {
                ar.buf(c, own_end * size)
            });
        }
        _ => bufs.push(null),
    }
    // A wrong buffer count (the pointer list keeps its real length when it grows, so
    // a too-large count only ever points at allocated entries).
    // For a view array the count *is* the layout (the last buffer holds the variadic
    // sizes), so a different count is a different, honest-looking tree: only counts the
    // reader must refuse (under 3) are tried there.
    let real = bufs.len() as i64;
    let views = format == "vz" || format == "vu";
    let n = if views && delta != 0 {
        (real + delta).clamp(0, 2)
    } else {
        (real + delta).max(0)
    };
    while (bufs.len() as i64) < n {
        bufs.push(ptr::null());
    }
    let (bp, _) = ar.buffers(bufs);
    let dict_array = if dict { ar.array() } else { ptr::null_mut() };
    // SAFETY: `a` is a live array of the arena.
    unsafe {
        (*a).length = len;
        (*a).offset = off;
        (*a).null_count = null_count;
        (*a).n_buffers = n;
        (*a).buffers = bp;
        (*a).dictionary = dict_array;
    }
    a
}

fuzz_target!(|data: &[u8]| {
    let mut c = Cursor::new(data);
    let flags = c.u8();
    let format = FORMATS[usize::from(c.u8()) % FORMATS.len()];
    let counts = c.u8();
    let chunks = 1 + usize::from(c.u8() % 3);
    let wrap = flags & 1 != 0;
    let hostile = flags & 0x80 != 0;

    let mut ar = Arena::default();
    let leaf_schema = ar.schema(format);
    if flags & 0x20 != 0 {
        let d = ar.schema("z");
        // SAFETY: live schema of the arena.
        unsafe { (*leaf_schema).dictionary = d };
    }
    let top_schema = if wrap {
        let s = ar.schema("+s");
        let n = if flags & 0x40 != 0 {
            usize::from(counts & 3)
        } else {
            1
        };
        let child = if flags & 2 != 0 {
            ptr::null_mut()
        } else {
            leaf_schema
        };
        let list = ar.schema_children(n, child);
        // SAFETY: live schema of the arena.
        unsafe {
            (*s).n_children = n as i64;
            (*s).children = list;
        }
        s
    } else {
        leaf_schema
    };
    if flags & 8 != 0 {
        let d = ar.schema("u");
        // SAFETY: live schema of the arena.
        unsafe { (*top_schema).dictionary = d };
    }

    let mut tops = Vec::with_capacity(chunks);
    for _ in 0..chunks {
        let l = leaf(&mut ar, &mut c, format, hostile, flags & 0x10 != 0);
        let top = if wrap {
            let s = ar.array();
            let n = if flags & 0x40 != 0 {
                usize::from(counts >> 2 & 3)
            } else {
                1
            };
            let child = if flags & 4 != 0 { ptr::null_mut() } else { l };
            let list = ar.array_children(n, child);
            let (off, len) = (small_or_extreme(&mut c), small_or_extreme(&mut c));
            let sel = c.u8();
            let own_end = usize::try_from(off.saturating_add(len)).unwrap_or(0);
            let validity = if sel & 1 != 0 && own_end <= 1 << 12 {
                ar.buf(&mut c, own_end.div_ceil(8))
            } else {
                ptr::null()
            };
            let nb = [1usize, 1, 0, 2][usize::from(sel >> 1 & 3)];
            let mut list_b = vec![validity; nb];
            if nb == 2 {
                list_b[1] = ptr::null();
            }
            let (bp, n_buffers) = ar.buffers(list_b);
            // SAFETY: live array of the arena.
            unsafe {
                (*s).length = len;
                (*s).offset = off;
                (*s).null_count = [0, -1, 1, 0][usize::from(sel >> 3 & 3)];
                (*s).n_buffers = n_buffers;
                (*s).buffers = bp;
                (*s).n_children = n as i64;
                (*s).children = list;
            }
            s
        } else {
            l
        };
        tops.push(top);
    }

    // Hand the top-level structs over: moved out, the copies in the arena marked
    // released (as the PyCapsule protocol does).
    SCHEMA_RELEASES.with(|c| c.set(0));
    ARRAY_RELEASES.with(|c| c.set(0));
    let take_schema = |p: *mut ArrowSchema| {
        let mut b = Box::new(ArrowSchema::empty());
        // SAFETY: a live schema of the arena; swapped with an empty one.
        unsafe { ptr::swap(p, &mut *b) };
        b.release = Some(release_schema);
        // SAFETY: the tree follows the memory contract (its buffers are real).
        unsafe { Owned::new(b) }
    };
    let schema = take_schema(top_schema);
    let arrays = tops
        .iter()
        .map(|&p| {
            let mut b = Box::new(ArrowArray::empty());
            // SAFETY: as above.
            unsafe { ptr::swap(p, &mut *b) };
            b.release = Some(release_array);
            // SAFETY: as above.
            unsafe { Owned::new(b) }
        })
        .collect();
    // SAFETY: as above.
    let imp = unsafe { Imported::new(schema, arrays) };

    let inside = |v: &[u8]| {
        let (s, n) = (v.as_ptr() as usize, v.len());
        n == 0 || ar.data.iter().any(|&(b, m)| s >= b && s + n <= b + m)
    };
    let views = format.starts_with('v');
    if let Ok(col) = imp.binary_column("column") {
        let _ = col.value_bytes();
        for i in 0..col.len() {
            if let Some(v) = col.get(i) {
                // Inline view values (at most 12 bytes) live in the reader's copy of the
                // views; every other row lies in a data buffer of the tree.
                assert!(
                    (views && v.len() <= 12) || inside(v),
                    "row {i} lies outside the buffers handed over"
                );
            }
        }
    }
    if let Ok(col) = imp.int_column("count") {
        for i in 0..col.len() {
            let _ = col.get(i);
        }
    }
    let _ = imp.is_large();
    drop(imp);
    assert_eq!(
        SCHEMA_RELEASES.with(Cell::get),
        1,
        "the schema is released once"
    );
    assert_eq!(
        ARRAY_RELEASES.with(Cell::get),
        chunks,
        "each array is released once"
    );
    drop(ar);
});
