//! Many EEA3 / EIA3 packets in one call: multi-buffer SIMD, one packet per 32-bit lane
//! (AVX2: 8 lanes, AVX-512: 16 lanes, NEON: 4 lanes), optionally spread over threads
//! (`crate::parallel`).
//!
//! Packets are sorted by length so that the lanes of a group need about the same number
//! of keystream words (the scheduling shared with SM3 is `crate::lanes`). Each group
//! runs the generic ZUC below on vectors of lanes; the keystream is then XORed (EEA3) or
//! folded (EIA3, with the backend's single-stream folding, PCLMULQDQ on x86) per packet.
//! A kernel file implements `Lanes` for its vector type over `keystream_lanes`;
//! `keystream_group` and `lanes_for` name it.

use super::core::{self as zc, State};
use super::{check_framing, eea3 as e3, eia3 as i3, kernel, key128};
use crate::cpu::{self, Backend, Variant};
use crate::error::{Error, Result};

/// One packet: (key, COUNT, BEARER, DIRECTION, data); the whole of `data` is processed.
pub type Item<'a> = (&'a [u8], u32, u8, u8, &'a [u8]);

/// A vector of 32-bit lanes, with what ZUC needs.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))] // only the SIMD backends run lanes
pub(crate) trait Lanes: Copy {
    const N: usize;
    fn splat(x: u32) -> Self;
    fn load(w: &[u32]) -> Self;
    fn store(self, w: &mut [u32]);
    fn add(self, o: Self) -> Self;
    fn xor(self, o: Self) -> Self;
    fn and(self, o: Self) -> Self;
    fn or(self, o: Self) -> Self;
    fn shl<const K: i32>(self) -> Self;
    fn shr<const K: i32>(self) -> Self;
    /// Rotation left by K (K2 = 32 - K).
    fn rol<const K: i32, const K2: i32>(self) -> Self;
    #[inline(always)]
    fn xor3(self, b: Self, c: Self) -> Self {
        self.xor(b).xor(c)
    }
    /// (self | b) & c
    #[inline(always)]
    fn or_and(self, b: Self, c: Self) -> Self {
        self.or(b).and(c)
    }
    /// The high 16 bits of each lane of `self`, the low 16 of `lo`.
    #[inline(always)]
    fn high16_low16(self, lo: Self) -> Self {
        self.and(Self::splat(0xffff_0000))
            .or(lo.and(Self::splat(0xffff)))
    }
    /// (self << 16) | (lo >> 16)
    #[inline(always)]
    fn concat16(self, lo: Self) -> Self {
        self.shl::<16>().or(lo.shr::<16>())
    }
    /// (L1(W1L ∥ W2H), L2(W2L ∥ W1H)), the inputs of F's S-boxes (§3.4).
    #[inline(always)]
    fn l1_l2(w1: Self, w2: Self) -> (Self, Self) {
        (l1(w1.concat16(w2)), l2(w2.concat16(w1)))
    }
    /// S = (S0, S1, S0, S1) on every 32-bit lane (GM/T 0001.1 §3.4).
    fn sbox(self) -> Self;
    /// `rows[t]` holds keystream word t of every lane; writes lane i's 16 words to
    /// `out[i][offset..offset + 16]` for every i < out.len() (a transposition).
    fn store_columns(rows: &[Self; 16], out: &mut [Vec<u32>], offset: usize) {
        let mut tmp = [0u32; 16];
        let mut cols = [[0u32; 16]; 16];
        for (t, r) in rows.iter().enumerate() {
            r.store(&mut tmp);
            for (lane, c) in cols.iter_mut().enumerate().take(Self::N) {
                c[t] = tmp[lane];
            }
        }
        for (o, c) in out.iter_mut().zip(cols.iter()) {
            o[offset..offset + 16].copy_from_slice(c);
        }
    }
}

/// a + b mod 2^31 - 1 for a, b in [1, 2^31 - 1] (never 0).
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[inline(always)]
fn add31<V: Lanes>(a: V, b: V) -> V {
    let s = a.add(b);
    s.and(V::splat(0x7fff_ffff)).add(s.shr::<31>())
}

/// x · 2^K mod 2^31 - 1 (a 31-bit rotation); K2 = 31 - K.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[inline(always)]
fn rot31<V: Lanes, const K: i32, const K2: i32>(x: V) -> V {
    x.shl::<K>().or_and(x.shr::<K2>(), V::splat(0x7fff_ffff))
}

/// §3.2: 2^15·s15 + 2^17·s13 + 2^21·s10 + 2^20·s4 + (1 + 2^8)·s0 mod 2^31 - 1.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[inline(always)]
fn feedback<V: Lanes>(s0: V, s4: V, s10: V, s13: V, s15: V) -> V {
    let a = add31(rot31::<V, 15, 16>(s15), rot31::<V, 17, 14>(s13));
    let b = add31(rot31::<V, 21, 10>(s10), rot31::<V, 20, 11>(s4));
    let c = add31(rot31::<V, 8, 23>(s0), s0);
    add31(add31(a, b), c)
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[inline(always)]
fn l1<V: Lanes>(x: V) -> V {
    x.xor3(x.rol::<2, 30>(), x.rol::<10, 22>())
        .xor3(x.rol::<18, 14>(), x.rol::<24, 8>())
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[inline(always)]
fn l2<V: Lanes>(x: V) -> V {
    x.xor3(x.rol::<8, 24>(), x.rol::<14, 18>())
        .xor3(x.rol::<22, 10>(), x.rol::<30, 2>())
}

/// One round on lane vectors: returns W and updates R1, R2 (§3.3-3.4). `c(k)` is s_k.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[inline(always)]
fn round<V: Lanes>(c: impl Fn(usize) -> V, r1: &mut V, r2: &mut V) -> (V, V) {
    // s15H ∥ s14L: bits 15..30 of s15 shifted up by one, bits 0..15 of s14.
    let x0 = c(15).shl::<1>().high16_low16(c(14));
    let x1 = c(11).shl::<16>().or(c(9).shr::<15>());
    let x2 = c(7).shl::<16>().or(c(5).shr::<15>());
    let x3 = c(2).shl::<16>().or(c(0).shr::<15>());
    let w = x0.xor(*r1).add(*r2);
    let w1 = r1.add(x1);
    let w2 = r2.xor(x2);
    let (u, v) = V::l1_l2(w1, w2);
    *r1 = u.sbox();
    *r2 = v.sbox();
    (w, x3)
}

/// Initializes up to `V::N` loaded states (§3.6.1) and generates `words` keystream words
/// for each into `out[lane]` (resized to a multiple of 16 >= `words`).
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[inline(always)]
pub(crate) fn keystream_lanes<V: Lanes>(states: &[&State], words: usize, out: &mut [Vec<u32>]) {
    let n = V::N;
    debug_assert!(states.len() <= n && out.len() == states.len());
    let mut col = [0u32; 16];
    let mut s: [V; 16] = [V::splat(0); 16];
    for (k, cell) in s.iter_mut().enumerate() {
        for (lane, st) in states.iter().enumerate() {
            col[lane] = st.s[k];
        }
        // Unused lanes run on a copy of lane 0 (any valid state).
        for c in col.iter_mut().take(n).skip(states.len()) {
            *c = states[0].s[k];
        }
        *cell = V::load(&col);
    }
    col.fill(0);
    let (mut r1, mut r2) = (V::splat(0), V::splat(0));
    // 32 initialization rounds, the LFSR addressed circularly (two turns of 16).
    for _ in 0..2 {
        macro_rules! init_round {
            ($t:expr) => {{
                let (w, _) = round(|k| s[($t + k) & 15], &mut r1, &mut r2);
                let c = |k: usize| s[($t + k) & 15];
                s[$t] = add31(feedback(c(0), c(4), c(10), c(13), c(15)), w.shr::<1>());
            }};
        }
        init_round!(0);
        init_round!(1);
        init_round!(2);
        init_round!(3);
        init_round!(4);
        init_round!(5);
        init_round!(6);
        init_round!(7);
        init_round!(8);
        init_round!(9);
        init_round!(10);
        init_round!(11);
        init_round!(12);
        init_round!(13);
        init_round!(14);
        init_round!(15);
    }
    let _ = round(|k| s[k], &mut r1, &mut r2);
    let v = feedback(s[0], s[4], s[10], s[13], s[15]);
    s.copy_within(1..16, 0);
    s[15] = v;

    let blocks = words.div_ceil(16);
    for o in out.iter_mut() {
        o.clear();
        o.resize(16 * blocks, 0);
    }
    let mut z = [V::splat(0); 16];
    for blk in 0..blocks {
        macro_rules! step {
            ($t:expr) => {{
                let (w, x3) = round(|k| s[($t + k) & 15], &mut r1, &mut r2);
                z[$t] = w.xor(x3);
                s[$t] = feedback(
                    s[$t],
                    s[($t + 4) & 15],
                    s[($t + 10) & 15],
                    s[($t + 13) & 15],
                    s[($t + 15) & 15],
                );
            }};
        }
        step!(0);
        step!(1);
        step!(2);
        step!(3);
        step!(4);
        step!(5);
        step!(6);
        step!(7);
        step!(8);
        step!(9);
        step!(10);
        step!(11);
        step!(12);
        step!(13);
        step!(14);
        step!(15);
        V::store_columns(&z, out, 16 * blk);
    }
}

/// What one word of a lane group costs, in quarters of a single-stream word (measured;
/// `None`: the backend has no lane kernel). AVX-512 (Zen 4): about 6.7 single words.
/// AVX2 on a CPU that selects it by itself (Zen 3, no AVX-512): about 2.1 single words
/// (8.2-8.7 quarters measured, a group of 8 x 256 words against one stream of 256 words,
/// both with their initialization, alternated in one process; 2.4 before the lane kernel's
/// L and transposition were reworked). A Zen 4 forced onto `avx2` makes it about 4.7, but
/// never runs that backend unasked.
///
/// NEON (`neon` and `armsm`, which has no ZUC instructions; their single stream is the
/// portable one): a 4-lane group word executes about 1.1 single words' instructions
/// (`eea3_many` of 1 KiB packets: 11.61 instructions a byte in lanes, 175.23 one stream
/// at a time; counted under qemu), so 1 quarter, and even one packet goes in the lanes.
fn group_word_quarters(backend: Backend) -> Option<u128> {
    match backend {
        Backend::Avx512 if cfg!(target_arch = "x86_64") => Some(27),
        Backend::Avx2 if cfg!(target_arch = "x86_64") => Some(9),
        Backend::Neon | Backend::ArmSm if cfg!(target_arch = "aarch64") => Some(NEON_QUARTERS),
        _ => None,
    }
}

/// See [`group_word_quarters`].
const NEON_QUARTERS: u128 = 1;

/// Below this many streams a group runs as single streams: they cost less than a group
/// word per word (7 on avx512, 3 on avx2).
fn min_lanes(backend: Backend) -> usize {
    match group_word_quarters(backend) {
        Some(q) => (q / 4 + 1) as usize,
        None => usize::MAX,
    }
}

/// Keystreams of a group of loaded states, `words` words each, on `variant`'s backend.
fn keystream_group(variant: Variant, states: &[&State], words: usize, out: &mut [Vec<u32>]) {
    let backend = variant.backend();
    #[cfg(target_arch = "aarch64")]
    if states.len() >= min_lanes(backend) && states.len() <= 4 && variant.neon() {
        return super::aarch64_neon::keystream_x4(states, words, out);
    }
    #[cfg(target_arch = "x86_64")]
    if states.len() >= min_lanes(backend) {
        if let Some(t) = variant.avx512() {
            return super::x86_avx512::keystream_x16(t, variant.vbmi(), states, words, out);
        }
        if let Some(t) = variant.avx2() {
            return super::x86_avx2::keystream_x8(t, variant.vaes(), states, words, out);
        }
    }
    let _ = backend;
    // One stream at a time.
    let k = kernel(variant);
    for (st, o) in states.iter().zip(out.iter_mut()) {
        let mut st = (*st).clone();
        (k.init)(&mut st);
        o.clear();
        o.resize(words, 0);
        (k.generate)(&mut st, o);
    }
}

/// The packets one lane group of `backend` holds (1: no lane kernel).
fn lanes_for(backend: Backend) -> usize {
    match backend {
        Backend::Avx512 if cfg!(target_arch = "x86_64") => 16,
        Backend::Avx2 if cfg!(target_arch = "x86_64") => 8,
        Backend::Neon | Backend::ArmSm if cfg!(target_arch = "aarch64") => 4,
        _ => 1,
    }
}

/// Checks every packet's key length and framing, in order (the first bad one's error).
fn check(items: &[Item<'_>]) -> Result<()> {
    for &(key, _, bearer, direction, _) in items {
        key128(key)?;
        check_framing(bearer, direction)?;
    }
    Ok(())
}

/// What each packet of an already [`check`]ed part needs: its loaded state and its
/// number of keystream words.
fn load(
    items: &[Item<'_>],
    iv: fn(u32, u8, u8) -> [u8; 16],
    words: fn(usize) -> usize,
) -> Result<Vec<(State, usize)>> {
    items
        .iter()
        .map(|&(key, count, bearer, direction, data)| {
            Ok((
                zc::load_128(key128(key)?, &iv(count, bearer, direction)),
                words(data.len()),
            ))
        })
        .collect()
}

thread_local! {
    /// Per-thread keystream buffers, reused across calls (no allocation per batch);
    /// zeroed after every use.
    static BUFFERS: core::cell::RefCell<Vec<Vec<u32>>> = const { core::cell::RefCell::new(Vec::new()) };
}

/// Runs `finish(index, keystream)` for every packet, keystreams made in SIMD groups.
fn run_serial(
    variant: Variant,
    prepared: &[(State, usize)],
    mut finish: impl FnMut(usize, &[u32]),
) {
    let lanes = lanes_for(variant.backend()).max(1);
    let mut cached = BUFFERS.with(|b| b.take());
    if cached.len() < lanes {
        cached.resize(lanes, Vec::new());
    }
    let bufs = &mut cached[..lanes];
    let mut group: Vec<&State> = Vec::with_capacity(lanes);
    crate::lanes::for_each_group(
        prepared.len(),
        lanes,
        |i| prepared[i].1,
        |idx| {
            // `idx` is in ascending length: the first `simd` packets share the lanes, the
            // longer ones after them go one by one.
            let simd = simd_prefix(idx.iter().map(|&i| prepared[i].1), variant.backend());
            group.clear();
            group.extend(idx[..simd].iter().map(|&i| &prepared[i].0));
            let words = idx[..simd].last().map_or(0, |&i| prepared[i].1);
            keystream_group(variant, &group, words, &mut bufs[..simd]);
            for (k, &i) in idx.iter().enumerate().skip(simd) {
                keystream_group(variant, &[&prepared[i].0], prepared[i].1, &mut bufs[k..=k]);
            }
            for (k, &i) in idx.iter().enumerate() {
                finish(i, &bufs[k][..prepared[i].1]);
            }
        },
    );
    for b in bufs.iter_mut() {
        b.iter_mut().for_each(|w| *w = 0);
    }
    BUFFERS.with(|b| *b.borrow_mut() = cached);
}

/// How many of a group's packets (`words` each, in ascending order) share the SIMD
/// lanes: a lane group generates its longest packet's words for every lane, at
/// [`group_word_quarters`] a word, so the longest packets of a group of mixed lengths go
/// one by one when that costs less. 0 (every packet alone) or at least `min_lanes`.
fn simd_prefix(words: impl ExactSizeIterator<Item = usize> + Clone, backend: Backend) -> usize {
    let n = words.len();
    let Some(simd_word) = group_word_quarters(backend) else {
        return 0;
    };
    // A group is at most 16 lanes; anything else goes one by one (the same outputs).
    if lanes_for(backend) == 1 || n < min_lanes(backend) || n > 16 {
        return 0;
    }
    // Costs in quarters of a single-stream word.
    let mut lens = [0u128; 16];
    for (l, w) in lens.iter_mut().zip(words) {
        *l = w as u128;
    }
    let lens = &lens[..n];
    let alone = |from: usize| 4 * lens[from..].iter().sum::<u128>();
    let mut best = (alone(0), 0);
    for s in min_lanes(backend)..=n {
        let cost = simd_word * lens[s - 1] + alone(s);
        if cost < best.0 {
            best = (cost, s);
        }
    }
    best.1
}

/// `(threads, align)` for `n` packets on `threads` threads: `parallel::simd_split` with
/// this backend's lanes and the group size from which `keystream_group` uses them, except
/// that packets that would make one lane group go one by one, shared by the threads, when
/// that costs less than the group on one thread (4 packets on two threads: two single
/// streams each, 8 quarter-words a word against the avx2 group's 9).
fn split(n: usize, threads: usize, backend: Backend) -> (usize, usize) {
    let lanes = lanes_for(backend);
    match group_word_quarters(backend) {
        Some(q) if lanes > 1 => {
            let threads = threads.max(1);
            if n <= lanes && 4 * (n.div_ceil(threads) as u128) < q {
                (threads.min(n).max(1), 1)
            } else {
                crate::parallel::simd_split(n, threads, lanes, min_lanes(backend))
            }
        }
        _ => crate::parallel::simd_split(n, threads, 1, 1),
    }
}

/// 128-EEA3 of every packet, in order. `threads`: `None` or `Some(1)` runs on the
/// calling thread; `Some(0)` uses every core; `Some(n)` at most `n` threads.
pub fn eea3_many(items: &[Item<'_>], threads: Option<usize>) -> Result<Vec<Vec<u8>>> {
    let mut outs: Vec<Vec<u8>> = items.iter().map(|i| vec![0u8; i.4.len()]).collect();
    let mut refs: Vec<&mut [u8]> = outs.iter_mut().map(Vec::as_mut_slice).collect();
    eea3_many_into(items, &mut refs, threads)?;
    Ok(outs)
}

/// [`eea3_many`] with the outputs concatenated in item order (one allocation; item k's
/// output starts at the sum of the data lengths of items 0..k).
pub fn eea3_many_concat(items: &[Item<'_>], threads: Option<usize>) -> Result<Vec<u8>> {
    let mut flat = vec![0u8; items.iter().map(|i| i.4.len()).sum()];
    let mut refs: Vec<&mut [u8]> = Vec::with_capacity(items.len());
    let mut rest = flat.as_mut_slice();
    for item in items {
        let (head, tail) = rest.split_at_mut(item.4.len());
        refs.push(head);
        rest = tail;
    }
    eea3_many_into(items, &mut refs, threads)?;
    Ok(flat)
}

/// An output buffer for [`eea3_many_into`]: the thread that computes the packet asks for
/// the bytes (once, right before it writes all of them), so a buffer that still has to be
/// prepared (for example zeroed) is prepared by that thread, in parallel with the others.
pub trait OutBuf: Send {
    /// The buffer's length.
    fn len(&self) -> usize;
    /// Whether the buffer is empty.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The bytes to write, `len()` of them; every one of them is then overwritten.
    fn bytes(&mut self) -> &mut [u8];
}

impl OutBuf for &mut [u8] {
    fn len(&self) -> usize {
        <[u8]>::len(self)
    }
    fn bytes(&mut self) -> &mut [u8] {
        self
    }
}

/// [`eea3_many`] into caller-provided buffers: `outs[k]` (exactly as long as item k's
/// data) receives item k's output. Each thread writes its own packets' buffers in place
/// (no intermediate copy). A buffer of another length is `InvalidLength`; an invalid
/// item is its error (the first in order) and leaves the buffers unspecified (and
/// [`OutBuf::bytes`] not called: every check comes before the first output).
pub fn eea3_many_into<O: OutBuf>(
    items: &[Item<'_>],
    outs: &mut [O],
    threads: Option<usize>,
) -> Result<()> {
    if outs.len() != items.len() {
        return Err(Error::InvalidLength {
            what: "eea3_many outputs",
            expected: "one buffer per item",
            got: outs.len(),
        });
    }
    if let Some(o) = outs.iter().zip(items).find(|(o, i)| o.len() != i.4.len()) {
        return Err(Error::InvalidLength {
            what: "eea3_many output buffer",
            expected: "the length of its item's data",
            got: o.0.len(),
        });
    }
    check(items)?;
    // The caller's variant, clamped, for every worker thread.
    let variant = cpu::active_variant().clamp();
    let total = items.iter().map(|i| i.4.len()).sum();
    let threads = crate::lanes::threads_for(total, threads);
    let xor_words = kernel(variant).xor_words;
    // Pieces of whole lane groups (or single packets, for a batch too small for the SIMD
    // kernel), handed out as the threads get to them (see `for_each_guided` and
    // `simd_split`); an output does not depend on its piece.
    let split = split(items.len(), threads, variant.backend());
    crate::lanes::run_batch(outs, split, |start, chunk| {
        let part = &items[start..start + chunk.len()];
        let Ok(prepared) = load(part, e3::iv, |len| len.div_ceil(4)) else {
            unreachable!("every item was checked before the split")
        };
        run_serial(variant, &prepared, |i, ks| {
            let data = part[i].4;
            let out = chunk[i].bytes();
            let whole = data.len() / 4 * 4;
            xor_words(Some(&data[..whole]), &mut out[..whole], &ks[..whole / 4]);
            if whole < data.len() {
                let last = ks[whole / 4].to_be_bytes();
                for (k, (o, d)) in out[whole..].iter_mut().zip(&data[whole..]).enumerate() {
                    *o = d ^ last[k];
                }
            }
        });
    });
    Ok(())
}

/// 128-EIA3 MAC of every packet, in order (`threads` as in [`eea3_many`]).
pub fn eia3_many(items: &[Item<'_>], threads: Option<usize>) -> Result<Vec<[u8; 4]>> {
    check(items)?;
    // The caller's variant, clamped, for every worker thread.
    let variant = cpu::active_variant().clamp();
    let total = items.iter().map(|i| i.4.len()).sum();
    let threads = crate::lanes::threads_for(total, threads);
    let mac_words = kernel(variant).mac_words;
    let split = split(items.len(), threads, variant.backend());
    let mut macs = vec![[0u8; 4]; items.len()];
    crate::lanes::run_batch(&mut macs, split, |start, chunk| {
        let part = &items[start..start + chunk.len()];
        // L' = ceil(L / 32) + 2 words, L = 8·len.
        let Ok(prepared) = load(part, i3::iv, |len| (8 * len).div_ceil(32) + 2) else {
            unreachable!("every item was checked before the split")
        };
        run_serial(variant, &prepared, |i, ks| {
            let data = part[i].4;
            chunk[i] =
                i3::mac_from_keystream(mac_words, data, 8 * data.len() as u64, ks).to_be_bytes();
        });
    });
    Ok(macs)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One packet per buffer of `data`, the counter its index.
    fn items_of<'a>(key: &'a [u8; 16], data: &'a [Vec<u8>], bearer: u8, dir: u8) -> Vec<Item<'a>> {
        data.iter()
            .enumerate()
            .map(|(i, d)| (&key[..], i as u32, bearer, dir, d.as_slice()))
            .collect()
    }

    /// 128-EEA3 of each item, one call at a time.
    fn eea3_each(items: &[Item<'_>]) -> Vec<Vec<u8>> {
        items
            .iter()
            .map(|&(k, c, b, d, m)| super::super::eea3::eea3(k, c, b, d, m, None).unwrap())
            .collect()
    }

    /// The avx2 lane split: which packets of a mixed group share the lanes.
    #[cfg(target_arch = "x86_64")]
    fn split_policy_on_avx2() {
        let b = Backend::Avx2;
        let (m, lanes) = (min_lanes(b), lanes_for(b));
        // Equal lengths: every packet in the lanes.
        assert_eq!(simd_prefix([100usize; 8].into_iter(), b), 8);
        // One long packet among short ones: it goes alone.
        let mut w = vec![256usize; lanes];
        w[lanes - 1] = 16384;
        assert_eq!(simd_prefix(w.clone().into_iter(), b), lanes - 1);
        // Two long packets among six short ones: the short ones keep the lanes (a
        // lane group's word costs more than two single words on avx2).
        let mut w = vec![256usize; 6];
        w.extend([16384; 2]);
        assert_eq!(simd_prefix(w.into_iter(), b), 6);
        // Too few short ones left for the lanes: every packet alone.
        let w: Vec<usize> = (0..m).map(|k| if k + 1 < m { 1 } else { 1000 }).collect();
        assert_eq!(simd_prefix(w.into_iter(), b), 0);
        assert_eq!(simd_prefix([5usize, 6].into_iter(), b), 0);
        assert_eq!(simd_prefix([5usize; 8].into_iter(), Backend::Portable), 0);
        assert_eq!(simd_prefix([5usize; 17].into_iter(), b), 0);
    }

    #[test]
    fn the_longest_packets_of_a_mixed_group_go_alone() {
        // The split policy is about the x86 lane kernels (on NEON a lane group costs
        // less than two single streams, so every group of two or more shares the lanes),
        // and the outputs below are checked everywhere.
        #[cfg(target_arch = "x86_64")]
        split_policy_on_avx2();
        // The outputs stay those of one packet at a time, on every backend.
        let key = [3u8; 16];
        let data: Vec<Vec<u8>> = (0..19)
            .map(|i| vec![i as u8; if i % 8 == 7 { 20_000 + i } else { 100 + 3 * i }])
            .collect();
        let items = items_of(&key, &data, 1, 0);
        let want = eea3_each(&items);
        for v in cpu::variants() {
            let got = cpu::with_variant(v, || eea3_many(&items, None).unwrap());
            assert_eq!(got, want, "{v:?}");
        }
    }

    #[test]
    fn a_few_long_packets_are_shared_by_the_threads() {
        // Every batch of under 32 packets ran on one thread whatever `threads` said.
        let key = [7u8; 16];
        let data: Vec<Vec<u8>> = (0..32).map(|i| vec![i as u8; 32 << 10]).collect();
        let items = items_of(&key, &data, 5, 1);
        let want_enc = eea3_each(&items);
        let want_mac: Vec<[u8; 4]> = items
            .iter()
            .map(|&(k, c, b, d, m)| super::super::eia3::eia3(k, c, b, d, m, None).unwrap())
            .collect();
        let parts = || crate::parallel::tests::LAST_PARTS.with(|c| c.replace(0));
        let backend = cpu::active_variant().clamp().backend();
        let lanes = lanes_for(backend);
        // Two groups; a group and one more; four packets, which on x86 cost less as
        // single streams shared by the threads than as one lane group on one thread. On
        // NEON four packets are one whole group, whose word costs less than two single
        // words (see `group_word_quarters`): one thread.
        let four = if lanes == 4 { 1 } else { 4 };
        for (n, most) in [(2 * lanes, 2), (lanes + 1, 2), (4, four)] {
            for threads in [Some(2), Some(0)] {
                let want = crate::parallel::threads(threads).min(most);
                assert_eq!(eea3_many(&items[..n], threads).unwrap(), want_enc[..n]);
                assert_eq!(parts(), want, "eea3 {n} packets, threads {threads:?}");
                assert_eq!(eia3_many(&items[..n], threads).unwrap(), want_mac[..n]);
                assert_eq!(parts(), want, "eia3 {n} packets, threads {threads:?}");
            }
        }
    }
}
