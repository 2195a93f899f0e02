//! Borrowed, validated views of Arrow-layout columns (Arrow columnar format:
//! <https://arrow.apache.org/docs/format/Columnar.html>).

use crate::error::{Error, Result};

/// A validity bitmap: bit `offset + i` (least significant bit first) is 1 when row `i` is
/// not null.
#[derive(Clone, Copy, Debug)]
pub struct Validity<'a> {
    bits: &'a [u8],
    offset: usize,
}

impl<'a> Validity<'a> {
    /// A bitmap for `len` rows starting at bit `offset`; `bits` must hold them all.
    pub fn new(bits: &'a [u8], offset: usize, len: usize) -> Result<Self> {
        let need = offset
            .checked_add(len)
            .map(|b| b.div_ceil(8))
            .ok_or(Error::InvalidValue(
                "arrow array: offset + length overflows",
            ))?;
        if bits.len() < need {
            return Err(Error::InvalidValue(
                "arrow array: validity bitmap shorter than the array",
            ));
        }
        Ok(Validity { bits, offset })
    }

    /// Whether row `i` holds a value.
    #[inline]
    pub fn is_valid(&self, i: usize) -> bool {
        let j = self.offset + i;
        (self.bits[j >> 3] >> (j & 7)) & 1 == 1
    }
}

/// The values of one chunk of a binary or string column. Offsets and views start at the
/// chunk's first row (the bindings apply the Arrow array offset).
#[derive(Clone, Debug)]
pub enum Values<'a> {
    /// `Binary`/`String`: `len + 1` 32-bit offsets into `data`.
    Offsets32 {
        /// Row `i` is `data[offsets[i]..offsets[i + 1]]`.
        offsets: &'a [i32],
        /// The values buffer.
        data: &'a [u8],
    },
    /// `LargeBinary`/`LargeString`: `len + 1` 64-bit offsets into `data`.
    Offsets64 {
        /// Row `i` is `data[offsets[i]..offsets[i + 1]]`.
        offsets: &'a [i64],
        /// The values buffer.
        data: &'a [u8],
    },
    /// `FixedSizeBinary(width)`: row `i` is `data[i * width..(i + 1) * width]`.
    Fixed {
        /// Bytes per row.
        width: usize,
        /// The values buffer, from the first row on.
        data: &'a [u8],
    },
    /// `BinaryView`/`StringView`: 16-byte views (length, then inline bytes or prefix,
    /// buffer index and offset, all little-endian) into variadic data buffers.
    Views {
        /// `16 * len` bytes of views.
        views: &'a [u8],
        /// The data buffers the long values point into.
        buffers: Vec<&'a [u8]>,
    },
}

/// One contiguous chunk (an Arrow array) of byte strings.
#[derive(Clone, Debug)]
pub struct Chunk<'a> {
    len: usize,
    validity: Option<Validity<'a>>,
    values: Values<'a>,
}

fn malformed(what: &'static str) -> Error {
    Error::InvalidValue(what)
}

fn le_i32(b: &[u8]) -> i32 {
    i32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

impl<'a> Chunk<'a> {
    /// A chunk of `len` rows; checks that every row lies inside its buffers.
    pub fn new(len: usize, validity: Option<Validity<'a>>, values: Values<'a>) -> Result<Self> {
        match &values {
            &Values::Offsets32 { offsets, data } => check_offsets(
                len,
                offsets.iter().map(|&o| i64::from(o)),
                offsets.len(),
                data,
            )?,
            &Values::Offsets64 { offsets, data } => {
                check_offsets(len, offsets.iter().copied(), offsets.len(), data)?
            }
            &Values::Fixed { width, data } => {
                let need = width
                    .checked_mul(len)
                    .ok_or(malformed("arrow array: size overflows"))?;
                if data.len() < need {
                    return Err(malformed(
                        "arrow array: values buffer shorter than the array",
                    ));
                }
            }
            Values::Views { views, buffers } => {
                let views: &[u8] = views;
                if views.len() / 16 < len {
                    return Err(malformed(
                        "arrow array: views buffer shorter than the array",
                    ));
                }
                for i in 0..len {
                    if validity.is_some_and(|v| !v.is_valid(i)) {
                        continue;
                    }
                    let v = &views[16 * i..16 * i + 16];
                    let n = le_i32(&v[0..4]);
                    if n < 0 {
                        return Err(malformed("arrow array: negative view length"));
                    }
                    if n > 12 {
                        let (b, o) = (le_i32(&v[8..12]), le_i32(&v[12..16]));
                        let ok = usize::try_from(b)
                            .ok()
                            .and_then(|b| buffers.get(b))
                            .zip(usize::try_from(o).ok())
                            .is_some_and(|(buf, o)| o + n as usize <= buf.len());
                        if !ok {
                            return Err(malformed("arrow array: view points outside its buffers"));
                        }
                    }
                }
            }
        }
        Ok(Chunk {
            len,
            validity,
            values,
        })
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the chunk has no rows.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The bytes the rows span in the values buffer (null rows included where they span
    /// some): a measure of the work on the chunk.
    pub fn value_bytes(&self) -> usize {
        if self.len == 0 {
            return 0;
        }
        match &self.values {
            // `new` checked the offsets: they do not decrease and lie inside `data`.
            &Values::Offsets32 { offsets, .. } => (offsets[self.len] - offsets[0]) as usize,
            &Values::Offsets64 { offsets, .. } => (offsets[self.len] - offsets[0]) as usize,
            &Values::Fixed { width, .. } => width * self.len,
            Values::Views { views, .. } => {
                let views: &[u8] = views;
                views[..16 * self.len]
                    .chunks_exact(16)
                    .map(|v| le_i32(&v[0..4]).max(0) as usize)
                    .fold(0usize, usize::saturating_add)
            }
        }
    }

    /// Row `i` (`None` when null). `i < len()`.
    #[inline]
    pub fn get(&self, i: usize) -> Option<&'a [u8]> {
        if let Some(v) = self.validity {
            if !v.is_valid(i) {
                return None;
            }
        }
        Some(match &self.values {
            &Values::Offsets32 { offsets, data } => {
                &data[offsets[i] as usize..offsets[i + 1] as usize]
            }
            &Values::Offsets64 { offsets, data } => {
                &data[offsets[i] as usize..offsets[i + 1] as usize]
            }
            &Values::Fixed { width, data } => &data[i * width..(i + 1) * width],
            Values::Views { views, buffers } => {
                let views: &'a [u8] = views;
                let v = &views[16 * i..16 * i + 16];
                let n = le_i32(&v[0..4]) as usize;
                if n <= 12 {
                    &v[4..4 + n]
                } else {
                    let (b, o) = (le_i32(&v[8..12]) as usize, le_i32(&v[12..16]) as usize);
                    let buf: &'a [u8] = buffers[b];
                    &buf[o..o + n]
                }
            }
        })
    }
}

fn check_offsets(
    len: usize,
    mut offsets: impl Iterator<Item = i64>,
    count: usize,
    data: &[u8],
) -> Result<()> {
    if count < len + 1 {
        return Err(malformed(
            "arrow array: offsets buffer shorter than the array",
        ));
    }
    let mut prev = offsets.next().unwrap_or(0);
    if prev < 0 {
        return Err(malformed("arrow array: negative offset"));
    }
    for o in offsets.take(len) {
        if o < prev {
            return Err(malformed("arrow array: offsets decrease"));
        }
        prev = o;
    }
    if prev as u64 > data.len() as u64 {
        return Err(malformed(
            "arrow array: offsets point past the values buffer",
        ));
    }
    Ok(())
}

/// A column: chunks in order, read as one sequence of rows.
#[derive(Clone, Debug, Default)]
pub struct Column<'a> {
    chunks: Vec<Chunk<'a>>,
    /// `starts[k]` is the first row of chunk `k`; one more entry holds the total.
    starts: Vec<usize>,
}

fn chunk_of(starts: &[usize], i: usize) -> usize {
    // The last chunk whose start is <= i (empty chunks are skipped over).
    starts.partition_point(|&s| s <= i) - 1
}

impl<'a> Column<'a> {
    /// A column of these chunks, in order.
    pub fn new(chunks: Vec<Chunk<'a>>) -> Self {
        let mut starts = Vec::with_capacity(chunks.len() + 1);
        let mut at = 0usize;
        for c in &chunks {
            starts.push(at);
            at += c.len;
        }
        starts.push(at);
        Column { chunks, starts }
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        *self.starts.last().unwrap_or(&0)
    }

    /// Whether the column has no rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes the rows span in their chunks' values (see [`Chunk::value_bytes`]).
    pub fn value_bytes(&self) -> usize {
        self.chunks
            .iter()
            .map(Chunk::value_bytes)
            .fold(0, usize::saturating_add)
    }

    /// Row `i` (`None` when null). `i < len()`.
    #[inline]
    pub fn get(&self, i: usize) -> Option<&'a [u8]> {
        if self.chunks.len() == 1 {
            return self.chunks[0].get(i);
        }
        let k = chunk_of(&self.starts, i);
        self.chunks[k].get(i - self.starts[k])
    }
}

/// The integers of one chunk of an integer column, from its first row on.
#[derive(Clone, Copy, Debug)]
pub enum IntValues<'a> {
    /// int8
    I8(&'a [i8]),
    /// uint8
    U8(&'a [u8]),
    /// int16
    I16(&'a [i16]),
    /// uint16
    U16(&'a [u16]),
    /// int32
    I32(&'a [i32]),
    /// uint32
    U32(&'a [u32]),
    /// int64
    I64(&'a [i64]),
    /// uint64
    U64(&'a [u64]),
}

impl IntValues<'_> {
    fn count(&self) -> usize {
        match self {
            IntValues::I8(v) => v.len(),
            IntValues::U8(v) => v.len(),
            IntValues::I16(v) => v.len(),
            IntValues::U16(v) => v.len(),
            IntValues::I32(v) => v.len(),
            IntValues::U32(v) => v.len(),
            IntValues::I64(v) => v.len(),
            IntValues::U64(v) => v.len(),
        }
    }

    fn get(&self, i: usize) -> i128 {
        match self {
            IntValues::I8(v) => v[i].into(),
            IntValues::U8(v) => v[i].into(),
            IntValues::I16(v) => v[i].into(),
            IntValues::U16(v) => v[i].into(),
            IntValues::I32(v) => v[i].into(),
            IntValues::U32(v) => v[i].into(),
            IntValues::I64(v) => v[i].into(),
            IntValues::U64(v) => v[i].into(),
        }
    }
}

/// One chunk of an integer column.
#[derive(Clone, Copy, Debug)]
pub struct IntChunk<'a> {
    len: usize,
    validity: Option<Validity<'a>>,
    values: IntValues<'a>,
}

impl<'a> IntChunk<'a> {
    /// A chunk of `len` integers.
    pub fn new(len: usize, validity: Option<Validity<'a>>, values: IntValues<'a>) -> Result<Self> {
        if values.count() < len {
            return Err(malformed(
                "arrow array: values buffer shorter than the array",
            ));
        }
        Ok(IntChunk {
            len,
            validity,
            values,
        })
    }

    /// Row `i` (`None` when null).
    pub fn get(&self, i: usize) -> Option<i128> {
        match self.validity {
            Some(v) if !v.is_valid(i) => None,
            _ => Some(self.values.get(i)),
        }
    }
}

/// A column of integers (chunks in order).
#[derive(Clone, Debug, Default)]
pub struct IntColumn<'a> {
    chunks: Vec<IntChunk<'a>>,
    starts: Vec<usize>,
}

impl<'a> IntColumn<'a> {
    /// A column of these chunks, in order.
    pub fn new(chunks: Vec<IntChunk<'a>>) -> Self {
        let mut starts = Vec::with_capacity(chunks.len() + 1);
        let mut at = 0usize;
        for c in &chunks {
            starts.push(at);
            at += c.len;
        }
        starts.push(at);
        IntColumn { chunks, starts }
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        *self.starts.last().unwrap_or(&0)
    }

    /// Whether the column has no rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Row `i` (`None` when null).
    pub fn get(&self, i: usize) -> Option<i128> {
        let k = chunk_of(&self.starts, i);
        self.chunks[k].get(i - self.starts[k])
    }
}

/// A byte-string argument: one value for every row, or a column (same length as the data).
#[derive(Clone, Copy, Debug)]
pub enum Arg<'a> {
    /// The same bytes for every row.
    Scalar(&'a [u8]),
    /// Row `i` uses row `i` of the column.
    Column(&'a Column<'a>),
}

impl<'a> Arg<'a> {
    /// The value for row `i` (`None` when the column's row is null).
    #[inline]
    pub fn get(&self, i: usize) -> Option<&'a [u8]> {
        match self {
            Arg::Scalar(b) => Some(b),
            Arg::Column(c) => c.get(i),
        }
    }

    pub(crate) fn check_len(&self, what: &'static str, n: usize) -> Result<()> {
        match self {
            Arg::Column(c) if c.len() != n => Err(Error::InvalidValue(what)),
            _ => Ok(()),
        }
    }
}

/// An integer argument: one value for every row, or a column.
#[derive(Clone, Copy, Debug)]
pub enum IntArg<'a> {
    /// The same integer for every row.
    Scalar(i128),
    /// Row `i` uses row `i` of the column.
    Column(&'a IntColumn<'a>),
}

impl IntArg<'_> {
    /// The value for row `i` (`None` when the column's row is null).
    pub fn get(&self, i: usize) -> Option<i128> {
        match self {
            IntArg::Scalar(v) => Some(*v),
            IntArg::Column(c) => c.get(i),
        }
    }

    pub(crate) fn check_len(&self, what: &'static str, n: usize) -> Result<()> {
        match self {
            IntArg::Column(c) if c.len() != n => Err(Error::InvalidValue(what)),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_nulls_and_chunks() {
        let data = b"abcdef";
        let offsets = [0i32, 1, 1, 3, 6];
        let bits = [0b1101u8];
        let v = Validity::new(&bits, 0, 4).unwrap();
        let c = Chunk::new(
            4,
            Some(v),
            Values::Offsets32 {
                offsets: &offsets,
                data,
            },
        )
        .unwrap();
        let fixed = Chunk::new(
            2,
            None,
            Values::Fixed {
                width: 2,
                data: b"xyzw",
            },
        )
        .unwrap();
        let col = Column::new(vec![
            c,
            Chunk::new(
                0,
                None,
                Values::Fixed {
                    width: 3,
                    data: b"",
                },
            )
            .unwrap(),
            fixed,
        ]);
        // 6 bytes of offsets (the null row spans none), 0, 2 x 2 fixed.
        assert_eq!(col.value_bytes(), 10);
        let rows: Vec<_> = (0..col.len()).map(|i| col.get(i)).collect();
        assert_eq!(
            rows,
            vec![
                Some(&b"a"[..]),
                None,
                Some(&b"bc"[..]),
                Some(&b"def"[..]),
                Some(&b"xy"[..]),
                Some(&b"zw"[..])
            ]
        );
    }

    #[test]
    fn views_inline_and_out_of_line() {
        let long = b"0123456789abcdefXYZ";
        let mut views = [0u8; 32];
        views[0..4].copy_from_slice(&3i32.to_le_bytes());
        views[4..7].copy_from_slice(b"abc");
        views[16..20].copy_from_slice(&16i32.to_le_bytes());
        views[20..24].copy_from_slice(b"0123");
        views[24..28].copy_from_slice(&0i32.to_le_bytes());
        views[28..32].copy_from_slice(&0i32.to_le_bytes());
        let bufs: Vec<&[u8]> = vec![long];
        let c = Chunk::new(
            2,
            None,
            Values::Views {
                views: &views,
                buffers: bufs.clone(),
            },
        )
        .unwrap();
        assert_eq!(c.get(0), Some(&b"abc"[..]));
        assert_eq!(c.get(1), Some(&long[..16]));
        assert_eq!(c.value_bytes(), 3 + 16);
        // A view pointing past its buffer is refused.
        views[28..32].copy_from_slice(&4i32.to_le_bytes());
        assert!(Chunk::new(
            2,
            None,
            Values::Views {
                views: &views,
                buffers: bufs
            }
        )
        .is_err());
    }

    #[test]
    fn value_bytes_of_a_slice() {
        // A chunk that starts inside its buffers (an Arrow slice): 64-bit offsets 2..9.
        let data = b"..abcdefg";
        let offsets = [2i64, 4, 9];
        let c = Chunk::new(
            2,
            None,
            Values::Offsets64 {
                offsets: &offsets,
                data,
            },
        )
        .unwrap();
        assert_eq!(c.value_bytes(), 7);
        assert_eq!(Column::new(vec![c.clone(), c]).value_bytes(), 14);
        let empty = Chunk::new(
            0,
            None,
            Values::Offsets32 {
                offsets: &[0],
                data: b"",
            },
        )
        .unwrap();
        assert_eq!(empty.value_bytes(), 0);
    }

    #[test]
    fn malformed_offsets_refused() {
        let data = b"abc";
        for offsets in [
            &[0i32, 2, 1][..],
            &[0, 4, 4][..],
            &[-1, 0, 1][..],
            &[0, 1][..],
        ] {
            assert!(
                Chunk::new(2, None, Values::Offsets32 { offsets, data }).is_err(),
                "{offsets:?}"
            );
        }
        assert!(Validity::new(&[0u8], 4, 5).is_err());
    }
}
