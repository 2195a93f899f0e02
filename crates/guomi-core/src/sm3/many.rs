//! Many independent SM3 messages at once: multi-buffer SIMD, one message per 32-bit
//! lane (AVX2: 8 lanes, AVX-512: 16 lanes), optionally spread over threads.
//!
//! Messages are sorted by length so that lanes of one group finish together; a lane
//! whose message has ended keeps its state through a masked blend.

use super::{Sm3, DIGEST_SIZE};
#[cfg(any(test, target_arch = "x86_64"))]
use super::{BLOCK_SIZE, IV, T_ROTATED};
use crate::cpu::{self, Backend};

/// A vector of 32-bit lanes (a SIMD register), the operations SM3's rounds need.
#[cfg(any(test, target_arch = "x86_64"))] // the SIMD backends, and the portable test lanes
pub(crate) trait Lanes: Copy {
    fn splat(x: u32) -> Self;
    fn load(words: &[u32]) -> Self;
    fn store(self, words: &mut [u32]);
    fn add(self, o: Self) -> Self;
    fn xor(self, o: Self) -> Self;
    fn xor3(self, b: Self, c: Self) -> Self;
    /// FF1: majority.
    fn maj(self, b: Self, c: Self) -> Self;
    /// GG1: `(x & y) | (!x & z)`.
    fn choose(self, b: Self, c: Self) -> Self;
    fn rol<const R: u32>(self) -> Self;
    /// Lane i is `new` if bit i of `keep_new` is set, else `old`.
    fn blend(keep_new: u32, new: Self, old: Self) -> Self;
}

/// A multi-buffer compression function over `LANES` lanes.
#[cfg(any(test, target_arch = "x86_64"))]
pub(crate) trait MultiCompress {
    const LANES: usize;
    /// `state[r][lane]`: register r of each lane; `words[j][lane]`: message word j of
    /// each lane's current block (already big-endian decoded). Only lanes whose bit is
    /// set in `active` are updated.
    fn compress(state: &mut [[u32; 16]; 8], words: &[[u32; 16]; 16], active: u32);
}

/// The SM3 compression function on lanes (GB/T 32905-2016 §5.3, as in `soft`).
#[cfg(any(test, target_arch = "x86_64"))]
#[inline(always)]
pub(crate) fn compress_lanes<V: Lanes>(
    state: &mut [[u32; 16]; 8],
    words: &[[u32; 16]; 16],
    active: u32,
) {
    #[inline(always)]
    fn p0<V: Lanes>(x: V) -> V {
        x.xor3(x.rol::<9>(), x.rol::<17>())
    }
    #[inline(always)]
    fn p1<V: Lanes>(x: V) -> V {
        x.xor3(x.rol::<15>(), x.rol::<23>())
    }
    // W_k lives in w[k % 16] from the time it is computed (at round k - 4, when W_k-16
    // leaves the window) until round k; the window is filled from the block directly, so
    // no schedule array is zeroed per block (that memset was 4% of `hash_many`).
    let mut w: [V; 16] = core::array::from_fn(|j| V::load(&words[j]));
    let old: [V; 8] = core::array::from_fn(|r| V::load(&state[r]));
    let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = old;
    for j in 0..64 {
        let k = j + 4;
        if k >= 16 {
            // §5.3.2: Wk = P1(Wk-16 ^ Wk-9 ^ (Wk-3 <<< 15)) ^ (Wk-13 <<< 7) ^ Wk-6.
            let at = |back: usize| w[(k - back) % 16];
            w[k % 16] = p1(at(16).xor3(at(9), at(3).rol::<15>())).xor3(at(13).rol::<7>(), at(6));
        }
        let (wj, wj4) = (w[j % 16], w[k % 16]);
        let a12 = a.rol::<12>();
        let ss1 = a12.add(e).add(V::splat(T_ROTATED[j])).rol::<7>();
        let ss2 = ss1.xor(a12);
        let (ff, gg) = if j < 16 {
            (a.xor3(b, c), e.xor3(f, g))
        } else {
            (a.maj(b, c), e.choose(f, g))
        };
        let tt1 = ff.add(d).add(ss2).add(wj.xor(wj4));
        let tt2 = gg.add(h).add(ss1).add(wj);
        d = c;
        c = b.rol::<9>();
        b = a;
        a = tt1;
        h = g;
        g = f.rol::<19>();
        f = e;
        e = p0(tt2);
    }
    for (r, v) in [a, b, c, d, e, f, g, h].into_iter().enumerate() {
        V::blend(active, v.xor(old[r]), old[r]).store(&mut state[r]);
    }
}

/// Number of 64-byte blocks after §5.2 padding.
#[cfg(any(test, target_arch = "x86_64"))]
fn padded_blocks(len: usize) -> usize {
    (len + 9).div_ceil(BLOCK_SIZE)
}

/// Block `b` of `msg` after padding, decoded into big-endian words and stored as lane
/// `lane` of `words` (`words[j][lane]` = word j). Whole blocks are decoded straight from
/// the message; only the last one or two go through a padded copy.
#[cfg(any(test, target_arch = "x86_64"))]
#[inline(always)]
fn block_words(msg: &[u8], b: usize, words: &mut [[u32; 16]; 16], lane: usize) {
    let start = b * BLOCK_SIZE;
    if let Some(block) = msg.get(start..start + BLOCK_SIZE) {
        for (j, c) in block.chunks_exact(4).enumerate() {
            words[j][lane] = u32::from_be_bytes([c[0], c[1], c[2], c[3]]);
        }
        return;
    }
    let mut block = [0u8; BLOCK_SIZE];
    let total = padded_blocks(msg.len());
    if start < msg.len() {
        block[..msg.len() - start].copy_from_slice(&msg[start..]);
    }
    if msg.len() >= start && msg.len() < start + BLOCK_SIZE {
        block[msg.len() - start] = 0x80;
    }
    if b + 1 == total {
        block[56..].copy_from_slice(&((msg.len() as u64) * 8).to_be_bytes());
    }
    for (j, c) in block.chunks_exact(4).enumerate() {
        words[j][lane] = u32::from_be_bytes([c[0], c[1], c[2], c[3]]);
    }
}

/// Hashes up to `M::LANES` messages in SIMD lanes.
#[cfg(any(test, target_arch = "x86_64"))]
fn hash_group<M: MultiCompress>(msgs: &[&[u8]], out: &mut [[u8; DIGEST_SIZE]]) {
    debug_assert!(msgs.len() <= M::LANES && msgs.len() == out.len());
    let mut state = [[0u32; 16]; 8];
    for (r, row) in state.iter_mut().enumerate() {
        row.fill(IV[r]);
    }
    let mut blocks = [0usize; 16];
    for (n, m) in blocks.iter_mut().zip(msgs) {
        *n = padded_blocks(m.len());
    }
    let max = blocks.iter().copied().max().unwrap_or(0);
    let mut words = [[0u32; 16]; 16];
    for b in 0..max {
        let mut active = 0u32;
        for (lane, msg) in msgs.iter().enumerate() {
            if b < blocks[lane] {
                active |= 1 << lane;
                block_words(msg, b, &mut words, lane);
            }
        }
        M::compress(&mut state, &words, active);
    }
    for (lane, digest) in out.iter_mut().enumerate() {
        for r in 0..8 {
            digest[4 * r..4 * r + 4].copy_from_slice(&state[r][lane].to_be_bytes());
        }
    }
}

/// Hashes every message of `msgs` with the given multi-buffer kernel, groups of similar
/// length together.
#[cfg(any(test, target_arch = "x86_64"))]
fn hash_sorted<M: MultiCompress>(msgs: &[&[u8]], out: &mut [[u8; DIGEST_SIZE]]) {
    let mut order: Vec<usize> = (0..msgs.len()).collect();
    order.sort_by_key(|&i| padded_blocks(msgs[i].len()));
    let mut group_msgs: Vec<&[u8]> = Vec::with_capacity(M::LANES);
    let mut group_out = vec![[0u8; DIGEST_SIZE]; M::LANES];
    for idx in order.chunks(M::LANES) {
        if idx.len() == 1 {
            out[idx[0]] = super::hash(msgs[idx[0]]);
            continue;
        }
        group_msgs.clear();
        group_msgs.extend(idx.iter().map(|&i| msgs[i]));
        hash_group::<M>(&group_msgs, &mut group_out[..idx.len()]);
        for (k, &i) in idx.iter().enumerate() {
            out[i] = group_out[k];
        }
    }
}

fn hash_serial(backend: Backend, msgs: &[&[u8]], out: &mut [[u8; DIGEST_SIZE]]) {
    #[cfg(target_arch = "x86_64")]
    {
        if backend >= Backend::Avx512 && msgs.len() > 8 {
            return hash_sorted::<super::x86_avx512::Avx512x16>(msgs, out);
        }
        if backend >= Backend::Avx2 && msgs.len() > 1 {
            return hash_sorted::<super::x86_avx2::Avx2x8>(msgs, out);
        }
    }
    for (m, o) in msgs.iter().zip(out.iter_mut()) {
        let mut h = Sm3::with_backend(backend);
        h.update(m);
        *o = h.finalize();
    }
}

/// SM3 of every message in `msgs`, in order.
///
/// `threads`: see [`crate::parallel`] (`None`: the calling thread, `Some(0)`: every core).
pub fn hash_many(msgs: &[&[u8]], threads: Option<usize>) -> Vec<[u8; DIGEST_SIZE]> {
    let backend = cpu::active();
    let total: usize = msgs.iter().map(|m| m.len()).sum();
    // Below ~64 KiB of work, thread hand-off costs more than it saves.
    let threads = if total < 64 * 1024 {
        1
    } else {
        crate::parallel::threads(threads)
    };
    let mut out = vec![[0u8; DIGEST_SIZE]; msgs.len()];
    // Each thread hashes pieces of whole lane groups (16 = the widest kernel) into their
    // place in `out`, taking the next piece when done (a late or preempted thread takes
    // less); nothing is copied afterwards. A digest does not depend on its piece.
    crate::parallel::for_each_guided(&mut out, threads, 16, 16, |start, chunk| {
        hash_serial(backend, &msgs[start..start + chunk.len()], chunk)
    });
    out
}

/// [`hash_many`] on the calling thread, written into `out` (one digest per message, in
/// order; `out` must be as long as `msgs`).
pub(crate) fn hash_many_into(msgs: &[&[u8]], out: &mut [[u8; DIGEST_SIZE]]) {
    assert_eq!(msgs.len(), out.len(), "one digest slot per message");
    hash_serial(cpu::active(), msgs, out)
}

/// Portable lanes, used to test the generic round code on every machine.
#[cfg(test)]
#[derive(Clone, Copy)]
struct Scalar4([u32; 4]);

#[cfg(test)]
impl Lanes for Scalar4 {
    fn splat(x: u32) -> Self {
        Scalar4([x; 4])
    }
    fn load(w: &[u32]) -> Self {
        Scalar4([w[0], w[1], w[2], w[3]])
    }
    fn store(self, w: &mut [u32]) {
        w[..4].copy_from_slice(&self.0);
    }
    fn add(self, o: Self) -> Self {
        Scalar4(core::array::from_fn(|i| self.0[i].wrapping_add(o.0[i])))
    }
    fn xor(self, o: Self) -> Self {
        Scalar4(core::array::from_fn(|i| self.0[i] ^ o.0[i]))
    }
    fn xor3(self, b: Self, c: Self) -> Self {
        self.xor(b).xor(c)
    }
    fn maj(self, b: Self, c: Self) -> Self {
        Scalar4(core::array::from_fn(|i| {
            (self.0[i] & b.0[i]) | (self.0[i] & c.0[i]) | (b.0[i] & c.0[i])
        }))
    }
    fn choose(self, b: Self, c: Self) -> Self {
        Scalar4(core::array::from_fn(|i| {
            (self.0[i] & b.0[i]) | (!self.0[i] & c.0[i])
        }))
    }
    fn rol<const R: u32>(self) -> Self {
        Scalar4(self.0.map(|x| x.rotate_left(R)))
    }
    fn blend(m: u32, new: Self, old: Self) -> Self {
        Scalar4(core::array::from_fn(|i| {
            if m >> i & 1 == 1 {
                new.0[i]
            } else {
                old.0[i]
            }
        }))
    }
}

#[cfg(test)]
struct Scalarx4;

#[cfg(test)]
impl MultiCompress for Scalarx4 {
    const LANES: usize = 4;
    fn compress(state: &mut [[u32; 16]; 8], words: &[[u32; 16]; 16], active: u32) {
        compress_lanes::<Scalar4>(state, words, active);
    }
}

/// Straight-line reference: pad, then the portable compression function.
#[cfg(test)]
fn reference(msg: &[u8]) -> [u8; DIGEST_SIZE] {
    let mut state = IV;
    let mut padded = msg.to_vec();
    padded.push(0x80);
    while padded.len() % 64 != 56 {
        padded.push(0);
    }
    padded.extend_from_slice(&((msg.len() as u64) * 8).to_be_bytes());
    super::soft::compress_inline(&mut state, &padded, |x| x);
    let mut out = [0u8; 32];
    for (c, w) in out.chunks_exact_mut(4).zip(state) {
        c.copy_from_slice(&w.to_be_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn messages() -> Vec<Vec<u8>> {
        (0..70usize)
            .map(|i| (0..(i * 37) % 300).map(|j| (i * 31 + j) as u8).collect())
            .collect()
    }

    #[test]
    fn generic_lanes_match_reference() {
        let owned = messages();
        let msgs: Vec<&[u8]> = owned.iter().map(Vec::as_slice).collect();
        let mut out = vec![[0u8; 32]; msgs.len()];
        hash_sorted::<Scalarx4>(&msgs, &mut out);
        for (m, d) in msgs.iter().zip(&out) {
            assert_eq!(*d, reference(m));
        }
    }

    #[test]
    fn every_backend_and_thread_count() {
        let owned = messages();
        let msgs: Vec<&[u8]> = owned.iter().map(Vec::as_slice).collect();
        let expect: Vec<_> = msgs.iter().map(|m| reference(m)).collect();
        for b in cpu::available() {
            cpu::with_backend(b, || {
                for threads in [None, Some(0), Some(2), Some(3)] {
                    assert_eq!(hash_many(&msgs, threads), expect, "{b:?} {threads:?}");
                }
                assert!(hash_many(&[], None).is_empty());
            });
        }
    }

    #[test]
    fn large_batch_threads() {
        let owned: Vec<Vec<u8>> = (0..200).map(|i| vec![i as u8; 1024]).collect();
        let msgs: Vec<&[u8]> = owned.iter().map(Vec::as_slice).collect();
        let expect: Vec<_> = msgs.iter().map(|m| reference(m)).collect();
        assert_eq!(hash_many(&msgs, Some(0)), expect);
    }
}
