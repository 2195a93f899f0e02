//! Many independent SM3 messages at once: multi-buffer SIMD, one message per 32-bit
//! lane (AVX2: 8 lanes, AVX-512: 16 lanes, NEON: 4 lanes), optionally spread over
//! threads.
//!
//! Messages are sorted by length so that lanes of one group finish together (the
//! scheduling shared with ZUC is `crate::lanes`); a lane whose message has ended keeps
//! its state through a masked blend. A kernel file implements `Lanes` for its vector
//! type and `MultiCompress` over `compress_lanes` (or `compress_lanes_unrolled`);
//! `Kernel` names it.

use super::{Sm3, DIGEST_SIZE};
#[cfg(any(test, target_arch = "x86_64", target_arch = "aarch64"))]
use super::{BLOCK_SIZE, IV, T_ROTATED};
use crate::cpu::{self, Backend};

/// A vector of 32-bit lanes (a SIMD register), the operations SM3's rounds need.
// The SIMD backends, and the portable test lanes.
#[cfg(any(test, target_arch = "x86_64", target_arch = "aarch64"))]
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
#[cfg(any(test, target_arch = "x86_64", target_arch = "aarch64"))]
pub(crate) trait MultiCompress: Copy {
    const LANES: usize;
    /// `state[r][lane]`: register r of each lane; `words[j][lane]`: message word j of
    /// each lane's current block (already big-endian decoded). Only lanes whose bit is
    /// set in `active` are updated. `self` holds the proof that this CPU runs the kernel.
    fn compress(self, state: &mut [[u32; 16]; 8], words: &[[u32; 16]; 16], active: u32);
}

/// The SM3 compression function on lanes (GB/T 32905-2016 §5.3, as in `soft`), the
/// rounds in a loop.
#[cfg(any(test, target_arch = "x86_64"))]
#[inline(always)]
pub(crate) fn compress_lanes<V: Lanes>(
    state: &mut [[u32; 16]; 8],
    words: &[[u32; 16]; 16],
    active: u32,
) {
    // W_k lives in w[k % 16] from the time it is computed (at round k - 4, when W_k-16
    // leaves the window) until round k; the window is filled from the block directly, so
    // no schedule array is zeroed per block (that memset was 4% of `hash_many`).
    let mut w: [V; 16] = core::array::from_fn(|j| V::load(&words[j]));
    let old: [V; 8] = core::array::from_fn(|r| V::load(&state[r]));
    let mut s = old;
    for j in 0..64 {
        round(j, j % 16, &mut w, &mut s);
    }
    for (r, v) in s.into_iter().enumerate() {
        V::blend(active, v.xor(old[r]), old[r]).store(&mut state[r]);
    }
}

/// [`compress_lanes`] with the rounds unrolled sixteen at a time, so that every index
/// into the message window is a constant and the window stays in registers (NEON: the
/// loop above kept it in memory, 22 instructions a byte against 15).
#[cfg(any(test, target_arch = "aarch64"))]
#[inline(always)]
pub(crate) fn compress_lanes_unrolled<V: Lanes>(
    state: &mut [[u32; 16]; 8],
    words: &[[u32; 16]; 16],
    active: u32,
) {
    let mut w: [V; 16] = core::array::from_fn(|j| V::load(&words[j]));
    let old: [V; 8] = core::array::from_fn(|r| V::load(&state[r]));
    let mut s = old;
    for base in [0, 16, 32, 48] {
        macro_rules! rounds {
            ($($i:literal)*) => {
                $(round(base + $i, $i, &mut w, &mut s);)*
            };
        }
        rounds!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);
    }
    for (r, v) in s.into_iter().enumerate() {
        V::blend(active, v.xor(old[r]), old[r]).store(&mut state[r]);
    }
}

/// Round j of §5.3.3 on the registers `s` = (A, B, C, D, E, F, G, H), with the
/// expansion (§5.3.2) of W_j+4 into the window `w`; `i` = j mod 16.
#[cfg(any(test, target_arch = "x86_64", target_arch = "aarch64"))]
#[inline(always)]
fn round<V: Lanes>(j: usize, i: usize, w: &mut [V; 16], s: &mut [V; 8]) {
    #[inline(always)]
    fn p0<V: Lanes>(x: V) -> V {
        x.xor3(x.rol::<9>(), x.rol::<17>())
    }
    #[inline(always)]
    fn p1<V: Lanes>(x: V) -> V {
        x.xor3(x.rol::<15>(), x.rol::<23>())
    }
    debug_assert_eq!(i, j % 16);
    // Window slot of W_j+4-back (back <= 16): (i + 4 - back) mod 16.
    let at = |w: &[V; 16], back: usize| w[(i + 20 - back) % 16];
    let k4 = (i + 4) % 16;
    if j + 4 >= 16 {
        // Wk = P1(Wk-16 ^ Wk-9 ^ (Wk-3 <<< 15)) ^ (Wk-13 <<< 7) ^ Wk-6, k = j + 4.
        w[k4] =
            p1(at(w, 16).xor3(at(w, 9), at(w, 3).rol::<15>())).xor3(at(w, 13).rol::<7>(), at(w, 6));
    }
    let [a, b, c, d, e, f, g, h] = *s;
    let (wj, wj4) = (w[i], w[k4]);
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
    *s = [tt1, a, b.rol::<9>(), c, p0(tt2), e, f.rol::<19>(), g];
}

/// Number of 64-byte blocks after §5.2 padding.
#[cfg(any(test, target_arch = "x86_64", target_arch = "aarch64"))]
fn padded_blocks(len: usize) -> usize {
    (len + 9).div_ceil(BLOCK_SIZE)
}

/// Block `b` of `msg` after padding, decoded into big-endian words and stored as lane
/// `lane` of `words` (`words[j][lane]` = word j). Whole blocks are decoded straight from
/// the message; only the last one or two go through a padded copy.
#[cfg(any(test, target_arch = "x86_64", target_arch = "aarch64"))]
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

/// Hashes up to `M::LANES` messages in SIMD lanes; what is left to hash one message at a
/// time runs on `backend` (the batch's, which a worker thread does not have as its own).
#[cfg(any(test, target_arch = "x86_64", target_arch = "aarch64"))]
fn hash_group<M: MultiCompress>(
    m: M,
    backend: Backend,
    msgs: &[&[u8]],
    out: &mut [[u8; DIGEST_SIZE]],
) {
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
        let active = (0..msgs.len()).filter(|&lane| b < blocks[lane]);
        // Fewer than MIN_SIMD lanes left, each with whole message blocks still to go: a
        // SIMD block costs more than their single blocks, so they finish one by one from
        // their chaining values (the longest messages of a group of mixed lengths).
        if active.clone().count() < MIN_SIMD
            && active
                .clone()
                .all(|lane| b * BLOCK_SIZE <= msgs[lane].len())
        {
            for lane in active {
                let v = core::array::from_fn(|r| state[r][lane]);
                let mut h = Sm3::resume(backend, v, (b * BLOCK_SIZE) as u64);
                h.update(&msgs[lane][b * BLOCK_SIZE..]);
                for (r, w) in h.finalize().chunks_exact(4).enumerate() {
                    state[r][lane] = u32::from_be_bytes([w[0], w[1], w[2], w[3]]);
                }
            }
            break;
        }
        let mut mask = 0u32;
        for lane in active {
            mask |= 1 << lane;
            block_words(msgs[lane], b, &mut words, lane);
        }
        m.compress(&mut state, &words, mask);
    }
    for (lane, digest) in out.iter_mut().enumerate() {
        lane_digest(&state, lane, digest);
    }
}

/// The digest bytes of lane `lane` of a multi-buffer state (`state[r][lane]`: register r).
#[cfg(any(test, target_arch = "x86_64", target_arch = "aarch64"))]
#[inline(always)]
fn lane_digest(state: &[[u32; 16]; 8], lane: usize, digest: &mut [u8; DIGEST_SIZE]) {
    for (bytes, row) in digest.chunks_exact_mut(4).zip(state) {
        bytes.copy_from_slice(&row[lane].to_be_bytes());
    }
}

/// Hashes every message of `msgs` with the given multi-buffer kernel, groups of similar
/// length together (`lanes::for_each_group`), and what goes one message at a time on
/// `backend`.
#[cfg(any(test, target_arch = "x86_64", target_arch = "aarch64"))]
fn hash_sorted<M: MultiCompress>(
    m: M,
    backend: Backend,
    msgs: &[&[u8]],
    out: &mut [[u8; DIGEST_SIZE]],
) {
    let mut group_msgs: Vec<&[u8]> = Vec::with_capacity(M::LANES);
    let mut group_out = vec![[0u8; DIGEST_SIZE]; M::LANES];
    let key = |i: usize| padded_blocks(msgs[i].len());
    crate::lanes::for_each_group(msgs.len(), M::LANES, key, |idx| {
        if idx.len() == 1 {
            out[idx[0]] = super::hash_on(backend, msgs[idx[0]]);
            return;
        }
        group_msgs.clear();
        group_msgs.extend(idx.iter().map(|&i| msgs[i]));
        hash_group(m, backend, &group_msgs, &mut group_out[..idx.len()]);
        for (k, &i) in idx.iter().enumerate() {
            out[i] = group_out[k];
        }
    });
}

/// GM/T 0003 KDF blocks in SIMD lanes: fills `out` with Hash(Z ∥ ct) for ct = `first`,
/// `first` + 1, ... (32 bytes each, the last one truncated), one counter per lane.
/// `start` is the chaining value after Z's whole blocks, `tail` Z's last partial block
/// (under 64 bytes) and `z_len` Z's length in bytes. Every lane starts from `start` and
/// hashes the same one or two padded blocks but for the counter's four bytes, so those
/// blocks are decoded once and per lane only the one or two words holding the counter
/// are written. Everything derived from Z (the chaining values, the tail's words) is
/// wiped before returning.
#[cfg(any(test, target_arch = "x86_64", target_arch = "aarch64"))]
fn kdf_lanes<M: MultiCompress>(
    m: M,
    start: &[u32; 8],
    tail: &[u8],
    z_len: u64,
    first: u32,
    out: &mut [u8],
) {
    use zeroize::{Zeroize, Zeroizing};
    debug_assert!(tail.len() < BLOCK_SIZE && M::LANES <= 16);
    let r = tail.len();
    // tail ∥ ct ∥ 0x80 ∥ zeros ∥ the length in bits (§5.2), the counter's bytes left 0.
    let mut padded = Zeroizing::new([0u8; 2 * BLOCK_SIZE]);
    padded[..r].copy_from_slice(tail);
    padded[r + 4] = 0x80;
    let blocks = if r + 4 < BLOCK_SIZE - 8 { 1 } else { 2 };
    let end = blocks * BLOCK_SIZE;
    let bits = z_len.wrapping_add(4).wrapping_mul(8);
    padded[end - 8..end].copy_from_slice(&bits.to_be_bytes());
    let mut base = Zeroizing::new([0u32; 32]);
    for (w, c) in base.iter_mut().zip(padded.chunks_exact(4)) {
        *w = u32::from_be_bytes([c[0], c[1], c[2], c[3]]);
    }
    // words[i / 16][i % 16][lane]: word i of the padded blocks, in every lane.
    let mut words = [[[0u32; 16]; 16]; 2];
    for (i, &w) in base.iter().enumerate().take(16 * blocks) {
        words[i / 16][i % 16] = [w; 16];
    }
    // The counter starts `shift` bits into word `at` (big-endian) and, unless it is
    // aligned, ends in word `at + 1`.
    let (at, shift) = (r / 4, 8 * (r % 4) as u32);
    let mut state = Zeroizing::new([[0u32; 16]; 8]);
    let mut ct = first;
    for group in out.chunks_mut(M::LANES * DIGEST_SIZE) {
        let lanes = group.len().div_ceil(DIGEST_SIZE);
        let counters = (0..lanes).map(|lane| ct.wrapping_add(lane as u32));
        for (w, c) in words[at / 16][at % 16].iter_mut().zip(counters.clone()) {
            *w = base[at] | (c >> shift);
        }
        if shift != 0 {
            for (w, c) in words[(at + 1) / 16][(at + 1) % 16].iter_mut().zip(counters) {
                *w = base[at + 1] | (c << (32 - shift));
            }
        }
        for (row, &v) in state.iter_mut().zip(start) {
            *row = [v; 16];
        }
        let active = ((1u64 << lanes) - 1) as u32;
        for block in words.iter().take(blocks) {
            m.compress(&mut state, block, active);
        }
        for (lane, chunk) in group.chunks_mut(DIGEST_SIZE).enumerate() {
            if let Ok(digest) = <&mut [u8; DIGEST_SIZE]>::try_from(&mut *chunk) {
                lane_digest(&state, lane, digest);
            } else {
                // The output's last, partial block: through a wiped copy.
                let mut d = Zeroizing::new([0u8; DIGEST_SIZE]);
                lane_digest(&state, lane, &mut d);
                chunk.copy_from_slice(&d[..chunk.len()]);
            }
        }
        ct = ct.wrapping_add(lanes as u32);
    }
    // Words 0..=at are the only ones that can hold bytes of Z.
    for i in 0..=at {
        words[i / 16][i % 16].zeroize();
    }
}

/// Writes the leading part of a GM/T 0003 KDF output (counters from 1) in SIMD lanes,
/// where that is faster than one block at a time; returns how many bytes of `out` it
/// wrote (a multiple of 32, or all of `out`). `prefix` has absorbed Z.
pub(super) fn kdf_prefix_lanes(prefix: &Sm3, out: &mut [u8]) -> usize {
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    {
        let Some(kernel) = kernel(cpu::active()) else {
            return 0;
        };
        let blocks = out.len().div_ceil(DIGEST_SIZE);
        let min = kernel.kdf_min_blocks();
        if blocks < min {
            return 0;
        }
        let lanes = kernel.lanes();
        // Whole groups, and a last partial one of at least `min` blocks (so n is at least
        // `min`: with fewer blocks than lanes, all of them).
        let mut n = blocks / lanes * lanes;
        if blocks - n >= min {
            n = blocks;
        }
        let len = (n * DIGEST_SIZE).min(out.len());
        let (tail, out) = (&prefix.buf[..prefix.buf_len], &mut out[..len]);
        let (start, z_len) = (&prefix.state, prefix.len);
        match kernel {
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512(t) => {
                kdf_lanes(super::x86_avx512::Avx512x16(t), start, tail, z_len, 1, out);
            }
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2(t) => kdf_lanes(super::x86_avx2::Avx2x8(t), start, tail, z_len, 1, out),
            #[cfg(target_arch = "aarch64")]
            Kernel::Neon => kdf_lanes(super::aarch64_neon::Neonx4, start, tail, z_len, 1, out),
        }
        len
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        let _ = (prefix, out);
        0
    }
}

/// A multi-buffer kernel: the widest one a backend runs, with the proof that this CPU
/// runs it.
#[derive(Clone, Copy, Debug)]
enum Kernel {
    /// 16 lanes of AVX-512 (`x86_avx512`).
    #[cfg(target_arch = "x86_64")]
    Avx512(cpu::Avx512),
    /// 8 lanes of AVX2 (`x86_avx2`).
    #[cfg(target_arch = "x86_64")]
    Avx2(cpu::Avx2),
    /// 4 lanes of NEON (`aarch64_neon`).
    #[cfg(target_arch = "aarch64")]
    Neon,
}

impl Kernel {
    fn lanes(self) -> usize {
        match self {
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512(_) => 16,
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2(_) => 8,
            #[cfg(target_arch = "aarch64")]
            Kernel::Neon => 4,
        }
    }

    /// The fewest KDF blocks worth a lane group. x86: one group of 16 (AVX-512) or 8
    /// (AVX2) lanes costs about as much as 2.4 blocks one at a time
    /// (`examples/kdf_bench.rs`: 3 blocks 0.54–0.57 µs in lanes against 0.65 µs, 2 blocks
    /// 0.55 against 0.48). NEON: a group of 4 lanes executes about as many instructions
    /// as 1.7 portable blocks (`hash_many` of 1 KiB messages, 15.07 instructions a byte
    /// in lanes against 35.47 one at a time, counted under qemu), so 2.
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    fn kdf_min_blocks(self) -> usize {
        match self {
            #[cfg(target_arch = "aarch64")]
            Kernel::Neon => 2,
            #[allow(unreachable_patterns)]
            _ => 3,
        }
    }
}

/// The multi-buffer kernel `hash_many` uses on `backend` (`None`: one message at a time):
/// the one place that obtains the tokens of the x86 lane kernels.
fn kernel(backend: Backend) -> Option<Kernel> {
    #[cfg(target_arch = "x86_64")]
    {
        let variant = cpu::Variant::from(backend);
        if let Some(t) = variant.avx512() {
            return Some(Kernel::Avx512(t));
        }
        if let Some(t) = variant.avx2() {
            return Some(Kernel::Avx2(t));
        }
    }
    #[cfg(target_arch = "aarch64")]
    {
        // `armsm` hashes one message at a time with the SM3 instructions: `hash_many` of
        // 1 KiB messages executes 5.3 instructions a byte that way against 15.1 in the
        // NEON lanes (docs/performance.md, counted under qemu).
        if backend != Backend::ArmSm && cpu::Variant::from(backend).neon() {
            return Some(Kernel::Neon);
        }
    }
    let _ = backend;
    None
}

fn hash_serial(backend: Backend, msgs: &[&[u8]], out: &mut [[u8; DIGEST_SIZE]]) {
    if msgs.len() > 1 {
        match kernel(backend) {
            #[cfg(target_arch = "x86_64")]
            Some(Kernel::Avx512(t)) if msgs.len() > 8 => {
                return hash_sorted(super::x86_avx512::Avx512x16(t), backend, msgs, out);
            }
            #[cfg(target_arch = "x86_64")]
            Some(Kernel::Avx512(t)) => {
                return hash_sorted(super::x86_avx2::Avx2x8(t.avx2()), backend, msgs, out);
            }
            #[cfg(target_arch = "x86_64")]
            Some(Kernel::Avx2(t)) => {
                return hash_sorted(super::x86_avx2::Avx2x8(t), backend, msgs, out);
            }
            #[cfg(target_arch = "aarch64")]
            Some(Kernel::Neon) => {
                return hash_sorted(super::aarch64_neon::Neonx4, backend, msgs, out);
            }
            None => {}
        }
    }
    for (m, o) in msgs.iter().zip(out.iter_mut()) {
        *o = super::hash_on(backend, m);
    }
}

/// SM3 of every message in `msgs`, in order.
///
/// `threads`: see [`crate::parallel`] (`None`: the calling thread, `Some(0)`: every core).
pub fn hash_many(msgs: &[&[u8]], threads: Option<usize>) -> Vec<[u8; DIGEST_SIZE]> {
    let backend = cpu::active();
    let total: usize = msgs.iter().map(|m| m.len()).sum();
    let threads = crate::lanes::threads_for(total, threads);
    let mut out = vec![[0u8; DIGEST_SIZE]; msgs.len()];
    // Each thread hashes pieces of whole lane groups into their place in `out`, taking the
    // next piece when done (a late or preempted thread takes less); nothing is copied
    // afterwards. A digest does not depend on its piece. Two messages are shared as single
    // hashes (see MIN_SIMD), so one each halves the time.
    let split = crate::parallel::simd_split(msgs.len(), threads, lanes(backend), MIN_SIMD);
    crate::lanes::run_batch(&mut out, split, |start, chunk| {
        hash_serial(backend, &msgs[start..start + chunk.len()], chunk)
    });
    out
}

/// Fewest messages for which a SIMD group beats single hashes: a group of two costs about
/// what two single hashes do (4.93 against 4.82 ms per 1 MiB message on a Zen 3 core).
/// (A NEON group of four executes about 1.7 portable blocks' instructions, so two
/// messages would already gain a little there; the x86 bound is kept for every kernel.)
/// `hash_many` shares smaller batches between threads one message each, and a group
/// whose lanes drop below it finishes its longest messages one by one.
const MIN_SIMD: usize = 3;

/// (lanes, fewest messages for them) of the active backend's multi-lane kernel, for
/// callers that share batches of messages between threads (`parallel::simd_split`).
pub(crate) fn simd_lanes() -> (usize, usize) {
    (lanes(cpu::active()), MIN_SIMD)
}

/// The messages `hash_serial` hashes at once on `backend` (its widest kernel's lanes).
fn lanes(backend: Backend) -> usize {
    kernel(backend).map_or(1, Kernel::lanes)
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
#[derive(Clone, Copy)]
struct Scalarx4;

#[cfg(test)]
impl MultiCompress for Scalarx4 {
    const LANES: usize = 4;
    fn compress(self, state: &mut [[u32; 16]; 8], words: &[[u32; 16]; 16], active: u32) {
        compress_lanes::<Scalar4>(state, words, active);
    }
}

/// The portable lanes through the unrolled rounds.
#[cfg(test)]
#[derive(Clone, Copy)]
struct Scalarx4Unrolled;

#[cfg(test)]
impl MultiCompress for Scalarx4Unrolled {
    const LANES: usize = 4;
    fn compress(self, state: &mut [[u32; 16]; 8], words: &[[u32; 16]; 16], active: u32) {
        compress_lanes_unrolled::<Scalar4>(state, words, active);
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
        hash_sorted(Scalarx4, Backend::Portable, &msgs, &mut out);
        for (m, d) in msgs.iter().zip(&out) {
            assert_eq!(*d, reference(m));
        }
        let mut unrolled = vec![[0u8; 32]; msgs.len()];
        hash_sorted(Scalarx4Unrolled, Backend::Portable, &msgs, &mut unrolled);
        assert_eq!(unrolled, out);
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

    /// Hash(Z ∥ ct) for ct = first, first + 1, ... by the straight-line reference.
    fn kdf_reference(z: &[u8], first: u32, len: usize) -> Vec<u8> {
        let mut out = Vec::new();
        let mut ct = first;
        while out.len() < len {
            let mut m = z.to_vec();
            m.extend_from_slice(&ct.to_be_bytes());
            out.extend_from_slice(&reference(&m));
            ct = ct.wrapping_add(1);
        }
        out.truncate(len);
        out
    }

    #[test]
    fn kdf_lanes_match_reference() {
        // Every tail length (the counter at each byte offset of a word, one padded block
        // or two), partial lane groups and partial last blocks, and counters whose bytes
        // are all set or cross a byte carry.
        let z: Vec<u8> = (0..200u32).map(|i| (i * 89 + 7) as u8).collect();
        for z_len in (0..=130).chain([191, 192, 200]) {
            let z = &z[..z_len];
            let whole = z_len - z_len % BLOCK_SIZE;
            let mut prefix = Sm3::with_backend(Backend::Portable);
            prefix.update(z);
            for first in [1, 0x0102_03ff, u32::MAX - 5] {
                for len in [1, 31, 32, 100, 128, 129, 300] {
                    let mut out = vec![0u8; len];
                    kdf_lanes(
                        Scalarx4,
                        &prefix.state,
                        &z[whole..],
                        z_len as u64,
                        first,
                        &mut out,
                    );
                    assert_eq!(
                        out,
                        kdf_reference(z, first, len),
                        "Z {z_len} B, ct {first:#x}, {len} B"
                    );
                }
            }
        }
    }

    #[test]
    fn groups_of_mixed_lengths_finish_their_longest_lanes_singly() {
        // One or two long messages among short ones: the long lanes go on one by one
        // once fewer than MIN_SIMD lanes are left, from every block offset and with
        // every padding shape (the long ones end 0..=65 bytes past a block boundary).
        for long in [1usize, 2, 3] {
            for tail in [0usize, 1, 55, 56, 63, 64, 65] {
                let len = 5 * 64 + tail;
                let owned: Vec<Vec<u8>> = (0..8)
                    .map(|i| {
                        let n = if i >= 8 - long { len + 64 * i } else { 3 * i };
                        (0..n).map(|j| (i * 7 + j * 13) as u8).collect()
                    })
                    .collect();
                let msgs: Vec<&[u8]> = owned.iter().map(Vec::as_slice).collect();
                let want: Vec<_> = msgs.iter().map(|m| reference(m)).collect();
                let mut out = vec![[0u8; 32]; msgs.len()];
                hash_group(Scalarx4, Backend::Portable, &msgs[..4], &mut out[..4]);
                hash_group(Scalarx4, Backend::Portable, &msgs[4..], &mut out[4..]);
                assert_eq!(out, want, "{long} long, tail {tail}");
                assert_eq!(hash_many(&msgs, None), want, "{long} long, tail {tail}");
            }
        }
    }

    #[test]
    fn lanes_handed_over_run_on_the_batch_backend() {
        // The long message of a mixed group finishes one block at a time on the batch's
        // backend. It ran on the thread's own, which on a pool thread is the detected
        // one whatever backend the caller forced.
        use super::super::tests::COMPRESS_CHOSEN;
        let owned: Vec<Vec<u8>> = (0..4)
            .map(|i| vec![i as u8; if i == 3 { 640 } else { 10 + i }])
            .collect();
        let msgs: Vec<&[u8]> = owned.iter().map(Vec::as_slice).collect();
        let want: Vec<_> = msgs.iter().map(|m| reference(m)).collect();
        let detected = cpu::detected();
        let chosen = |f: &mut dyn FnMut()| {
            COMPRESS_CHOSEN.with(|c| c.borrow_mut().clear());
            cpu::with_backend(detected, f);
            COMPRESS_CHOSEN.with(|c| c.take())
        };
        // The thread's own backend, as a hasher made without one sees it.
        assert_eq!(chosen(&mut || drop(Sm3::new())), [detected]);
        let mut out = vec![[0u8; DIGEST_SIZE]; 4];
        let got = chosen(&mut || hash_group(Scalarx4, Backend::Portable, &msgs, &mut out));
        assert_eq!(got, [Backend::Portable]);
        assert_eq!(out, want);
    }

    #[test]
    fn large_batch_threads() {
        let owned: Vec<Vec<u8>> = (0..200).map(|i| vec![i as u8; 1024]).collect();
        let msgs: Vec<&[u8]> = owned.iter().map(Vec::as_slice).collect();
        let expect: Vec<_> = msgs.iter().map(|m| reference(m)).collect();
        assert_eq!(hash_many(&msgs, Some(0)), expect);
    }

    #[test]
    fn a_few_long_messages_are_shared_by_the_threads() {
        // 32 messages of 32 KiB: two 16-lane groups. Every batch of under 32 messages
        // ran on one thread whatever `threads` said (pieces were at least 16), and on
        // `avx2` (8 lanes) so did 16..31 messages, two groups or more.
        let owned: Vec<Vec<u8>> = (0..32).map(|i| vec![i as u8; 32 << 10]).collect();
        let msgs: Vec<&[u8]> = owned.iter().map(Vec::as_slice).collect();
        let expect: Vec<_> = msgs.iter().map(|m| reference(m)).collect();
        let lanes = lanes(cpu::active());
        for n in [2 * lanes, lanes + 1] {
            for threads in [Some(2), Some(0)] {
                assert_eq!(hash_many(&msgs[..n], threads), expect[..n]);
                let want = crate::parallel::threads(threads).min(2);
                let parts = crate::parallel::tests::LAST_PARTS.with(|c| c.replace(0));
                assert_eq!(parts, want, "{n} messages, threads {threads:?}");
            }
        }
        // Two messages (64 KiB, the smallest batch that is shared): one each.
        assert_eq!(hash_many(&msgs[..2], Some(2)), expect[..2]);
        let parts = crate::parallel::tests::LAST_PARTS.with(|c| c.replace(0));
        assert_eq!(parts, crate::parallel::threads(Some(2)));
    }
}
