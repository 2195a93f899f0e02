//! SM4 on x86-64 GFNI + AVX-512 (the `avx512` backend's GHASH is `ghash_vpclmul.rs`).
//!
//! S-box: `S(x) = M2·inv(M1·x + c1) + c2` with inversion in the AES field, which is
//! exactly `vgf2p8affineinvqb(vgf2p8affineqb(x, M1, c1), M2, c2)`; `M1, c1, M2, c2` come
//! from `derive_affine.py` (checked there against the §6.2 table, and in the tests here).
//! L uses `vprold`, XORs of three use `vpternlogd`. Sixteen blocks per zmm (words
//! transposed: register i holds word i of 16 blocks), four zmm groups (64 blocks) in
//! flight to hide the latency of the GF(2^8) instructions.
#![allow(unsafe_code)]
// Register groups are indexed by position (g) across several arrays at once.
#![allow(clippy::needless_range_loop)]

use super::ROUNDS;
use crate::cpu::Avx512;
use core::arch::x86_64::*;
use zeroize::Zeroize;

/// `vgf2p8affineqb` matrix and constant of `M1·x + c1`.
const M1: i64 = 0x4c28_7db9_1a22_505d;
const C1: i32 = 0x3e;
/// `vgf2p8affineinvqb` matrix and constant of `M2·inv(y) + c2`.
const M2: i64 = 0xf3ab_34a9_74a6_b589u64 as i64;
const C2: i32 = 0xd3;

const BSWAP32: [u8; 16] = [3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12];

#[inline(always)]
unsafe fn bswap_mask512() -> __m512i {
    // SAFETY: AVX-512F enabled by the callers; reads a 16-byte constant.
    unsafe { _mm512_broadcast_i32x4(_mm_loadu_si128(BSWAP32.as_ptr().cast())) }
}

#[inline(always)]
unsafe fn transpose512(a: __m512i, b: __m512i, c: __m512i, d: __m512i) -> [__m512i; 4] {
    // SAFETY: AVX-512F enabled by the callers.
    unsafe {
        let t0 = _mm512_unpacklo_epi32(a, b);
        let t1 = _mm512_unpackhi_epi32(a, b);
        let t2 = _mm512_unpacklo_epi32(c, d);
        let t3 = _mm512_unpackhi_epi32(c, d);
        [
            _mm512_unpacklo_epi64(t0, t2),
            _mm512_unpackhi_epi64(t0, t2),
            _mm512_unpacklo_epi64(t1, t3),
            _mm512_unpackhi_epi64(t1, t3),
        ]
    }
}

/// §7.1 one round on G groups: X0 ^= T(X1 ^ X2 ^ X3 ^ rk), T = L ∘ τ.
#[inline(always)]
unsafe fn round512<const G: usize>(
    x0: &mut [__m512i; G],
    x1: &[__m512i; G],
    x2: &[__m512i; G],
    x3: &[__m512i; G],
    key: u32,
) {
    // SAFETY: avx512f/bw/vl + gfni enabled by the callers.
    unsafe {
        let m1 = _mm512_set1_epi64(M1);
        let m2 = _mm512_set1_epi64(M2);
        let kk = _mm512_set1_epi32(key as i32);
        for g in 0..G {
            // τ by GFNI: affine map into the AES field, then inversion + affine map out.
            let t = _mm512_ternarylogic_epi32::<0x96>(x1[g], x2[g], _mm512_xor_si512(x3[g], kk));
            let s = _mm512_gf2p8affine_epi64_epi8::<C1>(t, m1);
            let s = _mm512_gf2p8affineinv_epi64_epi8::<C2>(s, m2);
            // L: s ^ (s <<< 2) ^ (s <<< 10) ^ (s <<< 18) ^ (s <<< 24), XORed into X0.
            let a = _mm512_ternarylogic_epi32::<0x96>(
                s,
                _mm512_rol_epi32::<2>(s),
                _mm512_rol_epi32::<10>(s),
            );
            let b = _mm512_ternarylogic_epi32::<0x96>(
                x0[g],
                _mm512_rol_epi32::<18>(s),
                _mm512_rol_epi32::<24>(s),
            );
            x0[g] = _mm512_xor_si512(a, b);
        }
    }
}

/// The 32 rounds on G transposed groups; returns (X35, X34, X33, X32) per group.
#[inline(always)]
unsafe fn rounds_transposed<const G: usize>(
    rk: &[u32; ROUNDS],
    x: [[__m512i; G]; 4],
) -> [[__m512i; G]; 4] {
    // SAFETY: avx512f/bw/vl + gfni enabled by the callers.
    unsafe {
        let [mut x0, mut x1, mut x2, mut x3] = x;
        // Unrolled by four so that the roles of the words rotate without any indexing.
        for r in (0..ROUNDS).step_by(4) {
            round512(&mut x0, &x1, &x2, &x3, rk[r]);
            round512(&mut x1, &x2, &x3, &x0, rk[r + 1]);
            round512(&mut x2, &x3, &x0, &x1, rk[r + 2]);
            round512(&mut x3, &x0, &x1, &x2, rk[r + 3]);
        }
        // §7.1: (Y0, Y1, Y2, Y3) = R(X32, X33, X34, X35) = (X35, X34, X33, X32).
        [x3, x2, x1, x0]
    }
}

/// Group g of the output words back to block order: four zmm of four blocks each.
#[inline(always)]
unsafe fn untranspose<const G: usize>(
    y: &[[__m512i; G]; 4],
    g: usize,
    bswap: __m512i,
) -> [__m512i; 4] {
    // SAFETY: AVX-512F/BW enabled by the callers.
    unsafe {
        let t = transpose512(y[0][g], y[1][g], y[2][g], y[3][g]);
        t.map(|v| _mm512_shuffle_epi8(v, bswap))
    }
}

/// G groups of 16 blocks (256·G bytes at `p`) through the 32 rounds.
#[inline(always)]
unsafe fn rounds512<const G: usize>(rk: &[u32; ROUNDS], p: *mut u8) {
    // SAFETY: forwarded: the caller's guarantee on `p` covers both source and destination.
    unsafe { rounds512_to::<G>(rk, p, p) }
}

/// G groups of 16 blocks from `src` to `dst` (256·G bytes each; the same buffer or disjoint).
#[inline(always)]
unsafe fn rounds512_to<const G: usize>(rk: &[u32; ROUNDS], src: *const u8, dst: *mut u8) {
    // SAFETY: the caller guarantees 256·G readable bytes at `src`, writable at `dst`, and
    // enables avx512f/bw/vl + gfni. All loads happen before the stores.
    unsafe {
        let bswap = bswap_mask512();
        let mut x = [[_mm512_setzero_si512(); G]; 4];
        for g in 0..G {
            let q = src.add(256 * g);
            let r: [__m512i; 4] = core::array::from_fn(|i| {
                _mm512_shuffle_epi8(_mm512_loadu_si512(q.add(64 * i).cast()), bswap)
            });
            let t = transpose512(r[0], r[1], r[2], r[3]);
            for i in 0..4 {
                x[i][g] = t[i];
            }
        }
        let y = rounds_transposed(rk, x);
        for g in 0..G {
            let q = dst.add(256 * g);
            for (i, v) in untranspose(&y, g, bswap).iter().enumerate() {
                _mm512_storeu_si512(q.add(64 * i).cast(), *v);
            }
        }
    }
}

/// Sixteen blocks given as four zmm (bytes as in memory) into transposed words.
#[inline(always)]
unsafe fn transpose_in(r: [__m512i; 4], bswap: __m512i) -> [__m512i; 4] {
    // SAFETY: AVX-512F/BW enabled by the callers.
    unsafe {
        let r = r.map(|v| _mm512_shuffle_epi8(v, bswap));
        transpose512(r[0], r[1], r[2], r[3])
    }
}

/// What a chained kernel does around the block cipher.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Chain {
    /// XTS: C = E(P ^ T) ^ T with tweaks from a buffer.
    Xex,
    /// CBC decryption: P_i = D(C_i) ^ C_{i-1}.
    CbcDecrypt,
    /// CFB decryption: P_i = C_i ^ E(C_{i-1}).
    CfbDecrypt,
}

/// 16·G blocks in place at `p` (256·G bytes) in one of the [`Chain`] modes. `aux` holds
/// the tweaks (Xex); `iv` is the ciphertext block before `p` (CBC/CFB). Outputs are
/// written from the highest address down, so every ciphertext block is read before the
/// store that overwrites it.
#[inline(always)]
unsafe fn chained512<const G: usize>(
    rk: &[u32; ROUNDS],
    chain: Chain,
    p: *mut u8,
    aux: *const u8,
    iv: __m128i,
) {
    // SAFETY: 256·G readable/writable bytes at `p` (and readable at `aux` for Xex);
    // avx512f/bw/vl + gfni enabled by the callers.
    unsafe {
        let bswap = bswap_mask512();
        let ivb = _mm512_broadcast_i32x4(iv);
        // [iv, C0, C1, C2]: the blocks preceding the first four.
        let shifted_first = _mm512_alignr_epi64::<6>(_mm512_loadu_si512(p.cast()), ivb);
        let mut x = [[_mm512_setzero_si512(); G]; 4];
        for g in 0..G {
            let r: [__m512i; 4] = core::array::from_fn(|i| {
                let off = 256 * g + 64 * i;
                match chain {
                    Chain::Xex => _mm512_xor_si512(
                        _mm512_loadu_si512(p.add(off).cast()),
                        _mm512_loadu_si512(aux.add(off).cast()),
                    ),
                    Chain::CbcDecrypt => _mm512_loadu_si512(p.add(off).cast()),
                    Chain::CfbDecrypt if off == 0 => shifted_first,
                    Chain::CfbDecrypt => _mm512_loadu_si512(p.add(off - 16).cast()),
                }
            });
            let t = transpose_in(r, bswap);
            for i in 0..4 {
                x[i][g] = t[i];
            }
        }
        let y = rounds_transposed(rk, x);
        for g in (0..G).rev() {
            let out = untranspose(&y, g, bswap);
            for i in (0..4).rev() {
                let off = 256 * g + 64 * i;
                let mask = match chain {
                    Chain::Xex => _mm512_loadu_si512(aux.add(off).cast()),
                    Chain::CbcDecrypt if off == 0 => shifted_first,
                    Chain::CbcDecrypt => _mm512_loadu_si512(p.add(off - 16).cast()),
                    Chain::CfbDecrypt => _mm512_loadu_si512(p.add(off).cast()),
                };
                _mm512_storeu_si512(p.add(off).cast(), _mm512_xor_si512(out[i], mask));
            }
        }
    }
}

#[target_feature(enable = "avx512f,avx512bw,avx512vl,gfni")]
unsafe fn chained_gfni(
    rk: &[u32; ROUNDS],
    chain: Chain,
    reg: &mut [u8; 16],
    data: &mut [u8],
    aux: &[u8],
) -> usize {
    // SAFETY: features enabled here; every 2048-byte chunk lies inside `data` (and `aux`,
    // which the caller makes at least as long for Xex).
    unsafe {
        let mut done = 0;
        while data.len() - done >= 2048 {
            let p = data.as_mut_ptr().add(done);
            let iv = _mm_loadu_si128(reg.as_ptr().cast());
            // The last ciphertext block of this chunk chains into the next one.
            let last = _mm_loadu_si128(p.add(2048 - 16).cast());
            let a = if chain == Chain::Xex {
                aux.as_ptr().add(done)
            } else {
                aux.as_ptr()
            };
            chained512::<8>(rk, chain, p, a, iv);
            if chain != Chain::Xex {
                _mm_storeu_si128(reg.as_mut_ptr().cast(), last);
            }
            done += 2048;
        }
        done
    }
}

#[target_feature(enable = "avx512f,avx512bw,avx512vl")]
unsafe fn xts_tweaks_impl(gb: bool, tw: &mut [u8]) {
    // SAFETY: AVX-512F/BW enabled here; every 64-byte access lies inside `tw`, whose length
    // is a multiple of 64 (checked by the caller).
    unsafe {
        // Per 128-bit lane: the numeric tweak as (low qword, high qword).
        let rev = _mm512_broadcast_i32x4(_mm_set_epi8(
            0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
        ));
        let p = tw.as_mut_ptr();
        let mut v = _mm512_loadu_si512(p.cast());
        if gb {
            v = _mm512_shuffle_epi8(v, rev);
        }
        let mut off = 64;
        while off < tw.len() {
            // v · α^4, lane by lane, constant time.
            v = if gb {
                // GB (bit-reflected): v >> 4 as a 128-bit number, and the four bits shifted
                // out at the bottom come back as clmul(n, 0xe1) << 117.
                let srl = _mm512_srli_epi64(v, 4);
                let up = _mm512_shuffle_epi32::<_MM_PERM_BADC>(_mm512_slli_epi64(v, 60));
                let n = _mm512_srli_epi64(up, 60);
                let r = _mm512_ternarylogic_epi64::<0x96>(
                    _mm512_xor_si512(n, _mm512_slli_epi64(n, 5)),
                    _mm512_slli_epi64(n, 6),
                    _mm512_slli_epi64(n, 7),
                );
                _mm512_xor_si512(
                    srl,
                    _mm512_mask_blend_epi64(0x55, _mm512_slli_epi64(r, 53), up),
                )
            } else {
                // IEEE: v << 4 as a 128-bit number, the top four bits reduced by 0x87.
                let sh = _mm512_slli_epi64(v, 4);
                let c = _mm512_shuffle_epi32::<_MM_PERM_BADC>(_mm512_srli_epi64(v, 60));
                let red = _mm512_ternarylogic_epi64::<0x96>(
                    _mm512_xor_si512(c, _mm512_slli_epi64(c, 1)),
                    _mm512_slli_epi64(c, 2),
                    _mm512_slli_epi64(c, 7),
                );
                _mm512_xor_si512(sh, _mm512_mask_blend_epi64(0x55, c, red))
            };
            let out = if gb { _mm512_shuffle_epi8(v, rev) } else { v };
            _mm512_storeu_si512(p.add(off).cast(), out);
            off += 64;
        }
    }
}

/// XTS tweaks T_4.. into `tw` from T_0..T_3 already in its first 64 bytes.
pub(crate) fn xts_tweaks(_: Avx512, gb: bool, tw: &mut [u8]) {
    assert!(tw.len().is_multiple_of(64) && !tw.is_empty());
    // SAFETY: the token proves the avx512 level (AVX-512 F/BW/VL, GFNI).
    unsafe { xts_tweaks_impl(gb, tw) }
}

/// XTS whole blocks: `data ^= tweaks; E/D; ^= tweaks` for the longest prefix of 128-block
/// chunks; returns how many bytes it did (the caller finishes the rest).
pub(crate) fn xex(_: Avx512, rk: &[u32; ROUNDS], tweaks: &[u8], data: &mut [u8]) -> usize {
    assert!(tweaks.len() >= data.len() / 2048 * 2048);
    let mut unused = [0u8; 16];
    // SAFETY: the token proves the avx512 level (AVX-512 F/BW/VL, GFNI).
    unsafe { chained_gfni(rk, Chain::Xex, &mut unused, data, tweaks) }
}

/// CBC decryption of the longest prefix of 128-block chunks (`reg` = previous ciphertext,
/// updated); returns the bytes done.
pub(crate) fn cbc_decrypt(
    _: Avx512,
    rk_dec: &[u32; ROUNDS],
    reg: &mut [u8; 16],
    data: &mut [u8],
) -> usize {
    // SAFETY: as `xex`.
    unsafe { chained_gfni(rk_dec, Chain::CbcDecrypt, reg, data, &[]) }
}

/// CFB decryption of the longest prefix of 128-block chunks; returns the bytes done.
pub(crate) fn cfb_decrypt(
    _: Avx512,
    rk_enc: &[u32; ROUNDS],
    reg: &mut [u8; 16],
    data: &mut [u8],
) -> usize {
    // SAFETY: as `xex`.
    unsafe { chained_gfni(rk_enc, Chain::CfbDecrypt, reg, data, &[]) }
}

/// Dword position p of a transposed register holds block 4·(p mod 4) + p/4 of its group.
const LANE_BLOCK: [u32; 16] = [0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15];

/// CTR on 16·G blocks: counters built directly in transposed form (no loads, no
/// transposition on the way in), keystream XORed into `p` (256·G bytes).
/// Requires that the low 32 bits of `ctr` do not wrap within the 16·G blocks.
#[inline(always)]
unsafe fn ctr_groups<const G: usize>(rk: &[u32; ROUNDS], ctr: u128, src: *const u8, dst: *mut u8) {
    // SAFETY: 256·G readable bytes at `src` and writable bytes at `dst` (equal or
    // disjoint); features enabled by the caller.
    unsafe {
        let bswap = bswap_mask512();
        let lanes = _mm512_loadu_si512(LANE_BLOCK.as_ptr().cast());
        let low = _mm512_add_epi32(_mm512_set1_epi32(ctr as u32 as i32), lanes);
        let w0 = _mm512_set1_epi32((ctr >> 96) as u32 as i32);
        let w1 = _mm512_set1_epi32((ctr >> 64) as u32 as i32);
        let w2 = _mm512_set1_epi32((ctr >> 32) as u32 as i32);
        let x3: [__m512i; G] =
            core::array::from_fn(|g| _mm512_add_epi32(low, _mm512_set1_epi32(16 * g as i32)));
        let y = rounds_transposed::<G>(rk, [[w0; G], [w1; G], [w2; G], x3]);
        for g in 0..G {
            for (i, v) in untranspose(&y, g, bswap).iter().enumerate() {
                let off = 256 * g + 64 * i;
                let d = _mm512_xor_si512(_mm512_loadu_si512(src.add(off).cast()), *v);
                _mm512_storeu_si512(dst.add(off).cast(), d);
            }
        }
    }
}

#[target_feature(enable = "avx512f,avx512bw,avx512vl,gfni")]
unsafe fn ctr_gfni(
    rk: &[u32; ROUNDS],
    counter: &mut u128,
    src: *const u8,
    dst: *mut u8,
    len: usize,
) {
    // SAFETY: `len` readable bytes at `src`, writable at `dst` (the same buffer or disjoint
    // ones); features enabled here; every offset below stays below `len`.
    unsafe {
        let mut off = 0;
        for (step, blocks) in [(2048usize, 128u32), (256, 16)] {
            while len - off >= step {
                let ctr = *counter;
                if (ctr as u32) <= u32::MAX - (blocks - 1) {
                    if blocks == 128 {
                        ctr_groups::<8>(rk, ctr, src.add(off), dst.add(off));
                    } else {
                        ctr_groups::<1>(rk, ctr, src.add(off), dst.add(off));
                    }
                    *counter = ctr.wrapping_add(blocks as u128);
                } else {
                    core::ptr::copy(src.add(off), dst.add(off), step);
                    ctr_generic(
                        rk,
                        counter,
                        core::slice::from_raw_parts_mut(dst.add(off), step),
                    );
                }
                off += step;
            }
        }
        if off < len {
            core::ptr::copy(src.add(off), dst.add(off), len - off);
            ctr_generic(
                rk,
                counter,
                core::slice::from_raw_parts_mut(dst.add(off), len - off),
            );
        }
    }
}

/// CTR through the ECB kernel: counter blocks in a buffer, encrypted, XORed.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,gfni")]
unsafe fn ctr_generic(rk: &[u32; ROUNDS], counter: &mut u128, data: &mut [u8]) {
    let mut buf = [0u8; 1024];
    for chunk in data.chunks_mut(1024) {
        let ks = &mut buf[..chunk.len()];
        for b in ks.chunks_exact_mut(16) {
            b.copy_from_slice(&counter.to_be_bytes());
            *counter = counter.wrapping_add(1);
        }
        // SAFETY: features enabled on this function.
        unsafe { crypt_blocks_gfni(rk, ks) };
        super::xor_in_place(chunk, ks);
    }
    buf.fill(0);
}

/// CTR keystream (128-bit big-endian counter) XORed into whole blocks of `data`.
pub(crate) fn ctr_xor(_: Avx512, rk: &[u32; ROUNDS], counter: &mut u128, data: &mut [u8]) {
    let p = data.as_mut_ptr();
    // SAFETY: the token proves the avx512 level (AVX-512 F/BW/VL, GFNI); the
    // source and destination are the same `data.len()` bytes.
    unsafe { ctr_gfni(rk, counter, p, p, data.len()) }
}

/// CTR from `src` into `dst` (same length, whole blocks).
pub(crate) fn ctr_xor_to(
    _: Avx512,
    rk: &[u32; ROUNDS],
    counter: &mut u128,
    src: &[u8],
    dst: &mut [u8],
) {
    assert_eq!(src.len(), dst.len());
    // SAFETY: as `ctr_xor`; `src` and `dst` are distinct borrows of equal length.
    unsafe { ctr_gfni(rk, counter, src.as_ptr(), dst.as_mut_ptr(), src.len()) }
}

/// One round on one xmm group (the latency path).
#[inline(always)]
unsafe fn round128(
    x0: &mut __m128i,
    x1: __m128i,
    x2: __m128i,
    x3: __m128i,
    key: u32,
    m1: __m128i,
    m2: __m128i,
) {
    // SAFETY: avx512vl + gfni enabled by the callers.
    unsafe {
        let t =
            _mm_ternarylogic_epi32::<0x96>(x1, x2, _mm_xor_si128(x3, _mm_set1_epi32(key as i32)));
        let s = _mm_gf2p8affine_epi64_epi8::<C1>(t, m1);
        let s = _mm_gf2p8affineinv_epi64_epi8::<C2>(s, m2);
        let a = _mm_ternarylogic_epi32::<0x96>(s, _mm_rol_epi32::<2>(s), _mm_rol_epi32::<10>(s));
        let b = _mm_ternarylogic_epi32::<0x96>(*x0, _mm_rol_epi32::<18>(s), _mm_rol_epi32::<24>(s));
        *x0 = _mm_xor_si128(a, b);
    }
}

/// One to four blocks (64 bytes at `p`) in one xmm group: the latency path.
#[inline(always)]
unsafe fn rounds128(rk: &[u32; ROUNDS], p: *mut u8) {
    // SAFETY: 64 readable/writable bytes at `p`; avx512vl + gfni enabled by the callers.
    unsafe {
        let bswap = _mm_loadu_si128(BSWAP32.as_ptr().cast());
        let m1 = _mm_set1_epi64x(M1);
        let m2 = _mm_set1_epi64x(M2);
        let r: [__m128i; 4] = core::array::from_fn(|i| {
            _mm_shuffle_epi8(_mm_loadu_si128(p.add(16 * i).cast()), bswap)
        });
        let t0 = _mm_unpacklo_epi32(r[0], r[1]);
        let t1 = _mm_unpackhi_epi32(r[0], r[1]);
        let t2 = _mm_unpacklo_epi32(r[2], r[3]);
        let t3 = _mm_unpackhi_epi32(r[2], r[3]);
        let x = [
            _mm_unpacklo_epi64(t0, t2),
            _mm_unpackhi_epi64(t0, t2),
            _mm_unpacklo_epi64(t1, t3),
            _mm_unpackhi_epi64(t1, t3),
        ];
        let [mut x0, mut x1, mut x2, mut x3] = x;
        for r in (0..ROUNDS).step_by(4) {
            round128(&mut x0, x1, x2, x3, rk[r], m1, m2);
            round128(&mut x1, x2, x3, x0, rk[r + 1], m1, m2);
            round128(&mut x2, x3, x0, x1, rk[r + 2], m1, m2);
            round128(&mut x3, x0, x1, x2, rk[r + 3], m1, m2);
        }
        let x = [x0, x1, x2, x3];
        let t0 = _mm_unpacklo_epi32(x[3], x[2]);
        let t1 = _mm_unpackhi_epi32(x[3], x[2]);
        let t2 = _mm_unpacklo_epi32(x[1], x[0]);
        let t3 = _mm_unpackhi_epi32(x[1], x[0]);
        let y = [
            _mm_unpacklo_epi64(t0, t2),
            _mm_unpackhi_epi64(t0, t2),
            _mm_unpacklo_epi64(t1, t3),
            _mm_unpackhi_epi64(t1, t3),
        ];
        for (i, v) in y.iter().enumerate() {
            _mm_storeu_si128(p.add(16 * i).cast(), _mm_shuffle_epi8(*v, bswap));
        }
    }
}

/// Round `r` of the single-block path: X_{r+4} (into `x0`) = X_r ^ L(τ(t)), and the next
/// round's input t = (X_{r+2} ^ X_{r+3} ^ rk_{r+1}) ^ a ^ b, one `vpternlogd` after L
/// (the XOR of the older words is off the critical path); `x2`, `x3` are X_{r+2}, X_{r+3}.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn step1(
    t: &mut __m128i,
    x0: &mut __m128i,
    x2: __m128i,
    x3: __m128i,
    rk: &[u32; ROUNDS],
    r: usize,
    m1: __m128i,
    m2: __m128i,
) {
    // SAFETY: avx512vl + gfni enabled by the callers.
    unsafe {
        let s = _mm_gf2p8affine_epi64_epi8::<C1>(*t, m1);
        let s = _mm_gf2p8affineinv_epi64_epi8::<C2>(s, m2);
        let a = _mm_ternarylogic_epi32::<0x96>(s, _mm_rol_epi32::<2>(s), _mm_rol_epi32::<10>(s));
        let b = _mm_ternarylogic_epi32::<0x96>(*x0, _mm_rol_epi32::<18>(s), _mm_rol_epi32::<24>(s));
        if r + 1 < ROUNDS {
            let pre = _mm_ternarylogic_epi32::<0x96>(x2, x3, _mm_set1_epi32(rk[r + 1] as i32));
            *t = _mm_ternarylogic_epi32::<0x96>(pre, a, b);
        }
        *x0 = _mm_xor_si128(a, b);
    }
}

/// One block held in an xmm (bytes as in memory) through the rounds: the latency path
/// of the serial modes (no memory round trip between blocks).
#[inline(always)]
unsafe fn block1(rk: &[u32; ROUNDS], v: __m128i) -> __m128i {
    // SAFETY: avx512vl + gfni enabled by the callers.
    unsafe {
        let bswap = _mm_loadu_si128(BSWAP32.as_ptr().cast());
        let m1 = _mm_set1_epi64x(M1);
        let m2 = _mm_set1_epi64x(M2);
        let w = _mm_shuffle_epi8(v, bswap);
        // Word i in lane 0 of x_i (the other lanes carry harmless junk).
        let (mut x0, mut x1, mut x2, mut x3) = (
            w,
            _mm_srli_si128(w, 4),
            _mm_srli_si128(w, 8),
            _mm_srli_si128(w, 12),
        );
        // Latency-minimal schedule: the next round's input
        // t_{i+1} = (X_{i+2} ^ X_{i+3} ^ rk_{i+1}) ^ a ^ b is one vpternlogd after L, where
        // X_{i+4} = a ^ b; the XOR of the older words is computed off the critical path.
        let mut t =
            _mm_ternarylogic_epi32::<0x96>(x1, x2, _mm_xor_si128(x3, _mm_set1_epi32(rk[0] as i32)));
        for r in (0..ROUNDS).step_by(4) {
            step1(&mut t, &mut x0, x2, x3, rk, r, m1, m2);
            step1(&mut t, &mut x1, x3, x0, rk, r + 1, m1, m2);
            step1(&mut t, &mut x2, x0, x1, rk, r + 2, m1, m2);
            step1(&mut t, &mut x3, x1, x2, rk, r + 3, m1, m2);
        }
        let y = _mm_unpacklo_epi64(_mm_unpacklo_epi32(x3, x2), _mm_unpacklo_epi32(x1, x0));
        _mm_shuffle_epi8(y, bswap)
    }
}

// ---------------------------------------------------------------------------------------
// Serial modes (CBC/CFB encryption, CBC-MAC, OFB): one block at a time, so the cost is the
// latency of 32 dependent rounds. The rounds run in the "M1 domain": every state word is
// kept as W = M1·X (M1 applied to each byte), so the affine map in front of the field
// inversion disappears from the critical path. With v = inv(x) (bytewise), the next
// round's S-box input needs M1·L(M2·v); L is XOR of rotations, and splitting each rotation
// into a whole-byte rotation and a shift inside the byte gives
//   M1·L(M2·v) = K0·v ^ rol8(K1·v) ^ rol16(K1·v) ^ rol24(K3·v)
// with the bytewise matrices K0 = M1·(I ^ shl2)·M2, K1 = M1·(shl2 ^ shr6)·M2 and
// K3 = M1·(I ^ shr6)·M2 (byte i of rol2(y) is (y_i << 2) ^ (y_{i-1} >> 6)). Three
// independent `vgf2p8affineinvqb` (one latency), one `vprold` and two `vpternlogd` per
// round instead of two dependent GF(2^8) instructions, `vprold` and two `vpternlogd`.
// The affine constants c1, c2 are folded into precomputed round keys. Still no table
// lookups and no data-dependent branches.
//
// Rotation forms. A word x is held as its "form" (x, x <<< 8, x <<< 16, x <<< 24) in the
// four dwords of an xmm register. Every bytewise map commutes with byte rotations, so
// `vgf2p8affineinvqb` of a form is the form of the result, and the form of y <<< 8k is
// the form of y with its dwords rotated by k: one `vpshufd` (1 cycle on the CPUs measured)
// instead of `vprold` (2 cycles). A round is then
//   g1 = K1·inv(x), g3 = K3·inv(x) (issued first), g0 = K0·inv(x),
//   x' = (sh1(g1) ^ sh2(g1) ^ g0) ^ sh3(g3) ^ z
// where z (older state words and the round key) is computed off the critical path, and
// the XORs are grouped so that two of the three shuffles feed the first `vpternlogd`
// together with g0, the third the second: GF(3) + shuffle(1) + two `vpternlogd` = 6 cycles
// per round with two GF(2^8) and two shuffle pipes. The state words W_i are kept as
// forms too, and are recovered from the S-box inputs: W_{r+3} = x_r ^ W_{r+1} ^ W_{r+2} ^
// rkz_r ^ KC. Between blocks nothing leaves this domain: M1 is linear, so the next block's
// input words M1·(Y ^ D) = W_{35-i} ^ M1·D_i (D: the next plaintext block for CBC, none
// for OFB), and its first S-box input needs W_32..W_34 only, so it is ready while round 31
// still runs; M1^-1 and the byte order of the output are applied off the critical path.

/// Row `i` (output bit `i`) of a matrix in the `vgf2p8affineqb` encoding (byte 7 - i).
const fn mat_row(m: u64, i: usize) -> u64 {
    (m >> (8 * (7 - i))) & 0xff
}

/// A matrix from its rows.
const fn mat_from_rows(rows: [u64; 8]) -> u64 {
    let mut m = 0;
    let mut i = 0;
    while i < 8 {
        m |= rows[i] << (8 * (7 - i));
        i += 1;
    }
    m
}

/// The product a·b (b applied first).
const fn mat_mul(a: u64, b: u64) -> u64 {
    let mut rows = [0u64; 8];
    let mut i = 0;
    while i < 8 {
        let ra = mat_row(a, i);
        let mut j = 0;
        while j < 8 {
            if (ra >> j) & 1 == 1 {
                rows[i] ^= mat_row(b, j);
            }
            j += 1;
        }
        i += 1;
    }
    mat_from_rows(rows)
}

/// m·x for one byte.
const fn mat_apply(m: u64, x: u8) -> u8 {
    let mut y = 0u8;
    let mut i = 0;
    while i < 8 {
        y |= (((mat_row(m, i) as u8 & x).count_ones() & 1) as u8) << i;
        i += 1;
    }
    y
}

/// The inverse of an invertible matrix (column j is the x with m·x = e_j).
const fn mat_inverse(m: u64) -> u64 {
    let mut rows = [0u64; 8];
    let mut j = 0;
    while j < 8 {
        let mut x = 0u16;
        while x < 256 {
            if mat_apply(m, x as u8) == 1 << j {
                break;
            }
            x += 1;
        }
        assert!(x < 256, "matrix not invertible");
        let mut i = 0;
        while i < 8 {
            rows[i] |= (((x >> i) & 1) as u64) << j;
            i += 1;
        }
        j += 1;
    }
    mat_from_rows(rows)
}

/// Bytewise shift matrices: I, `<< 2`, `>> 6`.
const fn mat_shift(left: i32) -> u64 {
    let mut rows = [0u64; 8];
    let mut i = 0;
    while i < 8 {
        let src = i as i32 - left;
        if src >= 0 && src < 8 {
            rows[i] = 1 << src;
        }
        i += 1;
    }
    mat_from_rows(rows)
}
const MAT_I: u64 = mat_shift(0);
const MAT_SHL2: u64 = mat_shift(2);
const MAT_SHR6: u64 = mat_shift(-6);
/// K0, K1, K3 of the comment above, and M1^-1 (back out of the M1 domain).
const K0: i64 = mat_mul(M1 as u64, mat_mul(MAT_I ^ MAT_SHL2, M2 as u64)) as i64;
const K1: i64 = mat_mul(M1 as u64, mat_mul(MAT_SHL2 ^ MAT_SHR6, M2 as u64)) as i64;
const K3: i64 = mat_mul(M1 as u64, mat_mul(MAT_I ^ MAT_SHR6, M2 as u64)) as i64;
const M1_INV: i64 = mat_inverse(M1 as u64) as i64;
/// M1·L(c2 c2 c2 c2): the S-box output constant carried through L into the M1 domain.
const KC: u32 = {
    let c = (C2 as u32) * 0x0101_0101;
    let l = c ^ c.rotate_left(2) ^ c.rotate_left(10) ^ c.rotate_left(18) ^ c.rotate_left(24);
    let b = l.to_le_bytes();
    u32::from_le_bytes([
        mat_apply(M1 as u64, b[0]),
        mat_apply(M1 as u64, b[1]),
        mat_apply(M1 as u64, b[2]),
        mat_apply(M1 as u64, b[3]),
    ])
};

/// Round keys of the M1 domain: M1·rk_i ^ c1 ^ KC (bytewise).
#[inline(always)]
unsafe fn round_keys_m1(rk: &[u32; ROUNDS], out: &mut [u32; ROUNDS]) {
    // SAFETY: avx512vl + gfni enabled by the callers; 16-byte accesses inside both arrays.
    unsafe {
        let m1 = _mm_set1_epi64x(M1);
        let kc = _mm_set1_epi32(KC as i32);
        for i in (0..ROUNDS).step_by(4) {
            let k = _mm_loadu_si128(rk.as_ptr().add(i).cast());
            let k = _mm_xor_si128(_mm_gf2p8affine_epi64_epi8::<C1>(k, m1), kc);
            _mm_storeu_si128(out.as_mut_ptr().add(i).cast(), k);
        }
    }
}

/// `vpshufd` immediates: dword j of the result is dword (j + k) mod 4 of the source, so
/// applied to the form of y they give the form of y <<< 8k.
const SH1: i32 = 0x39;
const SH2: i32 = 0x4e;
const SH3: i32 = 0x93;

/// The rotation form of each word of `w` (word i in dword i).
#[inline(always)]
unsafe fn forms4(w: __m128i) -> [__m128i; 4] {
    // SAFETY: avx512f/vl enabled by the callers.
    unsafe {
        let rot = _mm_set_epi32(24, 16, 8, 0);
        [
            _mm_rolv_epi32(_mm_shuffle_epi32::<0x00>(w), rot),
            _mm_rolv_epi32(_mm_shuffle_epi32::<0x55>(w), rot),
            _mm_rolv_epi32(_mm_shuffle_epi32::<0xaa>(w), rot),
            _mm_rolv_epi32(_mm_shuffle_epi32::<0xff>(w), rot),
        ]
    }
}

/// The rotation form of a word.
#[inline(always)]
unsafe fn form1(x: u32) -> __m128i {
    // SAFETY: avx512f/vl enabled by the callers.
    unsafe { _mm_rolv_epi32(_mm_set1_epi32(x as i32), _mm_set_epi32(24, 16, 8, 0)) }
}

/// Round keys as forms, for [`serial_gfni`]: `kf[r]` = form(rkz_r), `kfc[r]` = form(rkz_r ^
/// KC), `kk[r]` = form(rkz_r ^ rkz_{r+1} ^ KC) (`kk[31]` unused); rkz from [`round_keys_m1`].
struct FormKeys {
    kf: [__m128i; ROUNDS],
    kfc: [__m128i; ROUNDS],
    kk: [__m128i; ROUNDS],
}

impl FormKeys {
    #[inline(always)]
    unsafe fn new(rk: &[u32; ROUNDS]) -> FormKeys {
        // SAFETY: avx512vl + gfni enabled by the callers.
        unsafe {
            let mut rkz = [0u32; ROUNDS];
            round_keys_m1(rk, &mut rkz);
            let kcf = form1(KC);
            let kf: [__m128i; ROUNDS] = core::array::from_fn(|i| form1(rkz[i]));
            rkz.zeroize();
            let kfc = kf.map(|k| _mm_xor_si128(k, kcf));
            let kk = core::array::from_fn(|i| {
                if i + 1 < ROUNDS {
                    _mm_xor_si128(kfc[i], kf[i + 1])
                } else {
                    _mm_setzero_si128()
                }
            });
            FormKeys { kf, kfc, kk }
        }
    }
}

impl Drop for FormKeys {
    fn drop(&mut self) {
        self.kf.zeroize();
        self.kfc.zeroize();
        self.kk.zeroize();
    }
}

/// Orders the instructions of a round for the scheduler (oldest ready first): `a` and
/// `b` are computed before anything that uses the value `c` passes out. Emits nothing.
#[inline(always)]
unsafe fn after(a: __m128i, b: __m128i, c: __m128i) -> __m128i {
    let mut c = c;
    // SAFETY: an empty asm block: no instruction, no memory, no flags.
    unsafe {
        core::arch::asm!(
            "/* {0} {1} {2} */",
            in(xmm_reg) a,
            in(xmm_reg) b,
            inout(xmm_reg) c,
            options(pure, nomem, nostack, preserves_flags)
        );
    }
    c
}

/// Block offset (in rounds) at which the next block's data is loaded and transformed,
/// and at which the previous block's output is transformed back and stored: both off
/// the critical path, away from the block boundary.
const AT_NEXT: usize = 8;
const AT_PREV: usize = 4;

#[target_feature(enable = "avx512f,avx512bw,avx512vl,gfni")]
unsafe fn serial_gfni(
    rk: &[u32; ROUNDS],
    mode: super::Serial,
    reg: &mut [u8; 16],
    data: &mut [u8],
) {
    use super::Serial;
    let n = data.len() / 16;
    if n == 0 {
        return;
    }
    // SAFETY: features enabled here; every 16-byte access is at `p + 16·i` with i < n,
    // inside `data`, or inside `reg`.
    unsafe {
        let keys = FormKeys::new(rk);
        let (kf, kfc, kk) = (&keys.kf, &keys.kfc, &keys.kk);
        let k0 = _mm_set1_epi64x(K0);
        let k1 = _mm_set1_epi64x(K1);
        let k3 = _mm_set1_epi64x(K3);
        let kcf = form1(KC);
        let bswap = _mm_loadu_si128(BSWAP32.as_ptr().cast());
        // A block (bytes as in memory) to its words in the M1 domain, as forms.
        let to_forms = |v: __m128i| {
            forms4(_mm_gf2p8affine_epi64_epi8::<0>(
                _mm_shuffle_epi8(v, bswap),
                _mm_set1_epi64x(M1),
            ))
        };
        let p = data.as_mut_ptr();
        let mut r = _mm_loadu_si128(reg.as_ptr().cast());
        // Block i's output from its W_32..W_35: stored as the mode says, and the chaining
        // value `r`.
        let emit = |i: usize, wo: [__m128i; 4], r: &mut __m128i| {
            let [v0, v1, v2, v3] = wo;
            let yw = _mm_unpacklo_epi64(_mm_unpacklo_epi32(v3, v2), _mm_unpacklo_epi32(v1, v0));
            let y = _mm_gf2p8affine_epi64_epi8::<0>(yw, _mm_set1_epi64x(M1_INV));
            let y = _mm_shuffle_epi8(y, bswap);
            let q = p.add(16 * i).cast::<__m128i>();
            match mode {
                // C_i = E(P_i ^ C_{i-1})
                Serial::CbcEncrypt => {
                    _mm_storeu_si128(q, y);
                    *r = y;
                }
                // Y_i = E(Y_{i-1} ^ B_i), nothing written
                Serial::CbcMac => *r = y,
                // C_i = P_i ^ E(C_{i-1})
                Serial::CfbEncrypt => {
                    *r = _mm_xor_si128(y, _mm_loadu_si128(q));
                    _mm_storeu_si128(q, *r);
                }
                // O_i = E(O_{i-1}), C_i = P_i ^ O_i
                Serial::Ofb => {
                    *r = y;
                    _mm_storeu_si128(q, _mm_xor_si128(y, _mm_loadu_si128(q)));
                }
            }
        };
        // The first block's input in the plain domain.
        let i0 = match mode {
            Serial::CbcEncrypt | Serial::CbcMac => _mm_xor_si128(_mm_loadu_si128(p.cast()), r),
            Serial::CfbEncrypt | Serial::Ofb => r,
        };
        // W_0..W_3, the S-box input x_0 = W_1 ^ W_2 ^ W_3 ^ rkz_0 ^ KC and
        // z_0 = W_0 ^ W_2 ^ W_3 ^ rkz_1 (x_1 = S-box output through L ^ z_0).
        let [mut w0, mut w1, mut w2, mut w3] = to_forms(i0);
        let mut x = _mm_ternarylogic_epi32::<0x96>(w1, w2, _mm_xor_si128(w3, kfc[0]));
        let mut z = _mm_ternarylogic_epi32::<0x96>(w0, w2, _mm_xor_si128(w3, kf[1]));
        let mut prev = [_mm_setzero_si128(); 4];
        for b in 0..n {
            let last = b + 1 == n;
            // M1·D of the next block, as forms (D: what its input adds to this output).
            let mut d = [_mm_setzero_si128(); 4];
            // Round r: `wm` holds W_{r-1} and receives W_{r+3}; `wa`, `wb`, `wc` hold W_r,
            // W_{r+1}, W_{r+2}.
            macro_rules! round {
                ($r:expr, $wm:ident, $wa:ident, $wb:ident, $wc:ident) => {{
                    if $r == AT_NEXT && !last {
                        let q = p.add(16 * b);
                        d = match mode {
                            Serial::CbcEncrypt | Serial::CbcMac => {
                                to_forms(_mm_loadu_si128(q.add(16).cast()))
                            }
                            Serial::CfbEncrypt => to_forms(_mm_loadu_si128(q.cast())),
                            Serial::Ofb => [_mm_setzero_si128(); 4],
                        };
                    }
                    if $r == AT_PREV && b > 0 {
                        emit(b - 1, prev, &mut r);
                    }
                    let g1 = _mm_gf2p8affineinv_epi64_epi8::<0>(x, k1);
                    let g3 = _mm_gf2p8affineinv_epi64_epi8::<0>(x, k3);
                    let xb = after(g1, g3, x);
                    let g0 = _mm_gf2p8affineinv_epi64_epi8::<0>(xb, k0);
                    let xb = after(g0, g0, xb);
                    if $r > 0 {
                        $wm = _mm_ternarylogic_epi32::<0x96>(xb, $wb, _mm_xor_si128($wc, kfc[$r]));
                        if $r + 1 < ROUNDS {
                            // z_r = W_r ^ W_{r+2} ^ W_{r+3} ^ rkz_{r+1}
                            z = _mm_ternarylogic_epi32::<0x96>(xb, $wa, _mm_xor_si128($wb, kk[$r]));
                        }
                    }
                    let s1 = _mm_shuffle_epi32::<SH1>(g1);
                    let s2 = _mm_shuffle_epi32::<SH2>(g1);
                    let s3 = _mm_shuffle_epi32::<SH3>(after(s1, s2, g3));
                    let u = _mm_ternarylogic_epi32::<0x96>(s1, s2, g0);
                    if $r + 1 < ROUNDS {
                        x = _mm_ternarylogic_epi32::<0x96>(u, s3, z);
                    } else {
                        // Round 31 (wm = W_34, wa = W_31, wb = W_32, wc = W_33):
                        // W_35 = W_31 ^ KC ^ (u ^ s3), and the next block's W'_i =
                        // W_{35-i} ^ d_i, x'_0 = W'_1 ^ W'_2 ^ W'_3 ^ rkz_0 ^ KC and
                        // z'_0 = W'_0 ^ W'_2 ^ W'_3 ^ rkz_1, the last straight from u, s3.
                        let w31k = _mm_xor_si128($wa, kcf);
                        $wa = _mm_ternarylogic_epi32::<0x96>(u, s3, w31k);
                        if !last {
                            let n1 = _mm_xor_si128($wm, d[1]);
                            let n2 = _mm_xor_si128($wc, d[2]);
                            let n3 = _mm_xor_si128($wb, d[3]);
                            let rest = _mm_ternarylogic_epi32::<0x96>(
                                w31k,
                                d[0],
                                _mm_ternarylogic_epi32::<0x96>(n2, n3, kf[1]),
                            );
                            z = _mm_ternarylogic_epi32::<0x96>(u, s3, rest);
                            x = _mm_ternarylogic_epi32::<0x96>(n1, n2, _mm_xor_si128(n3, kfc[0]));
                        }
                    }
                }};
            }
            round!(0, w3, w0, w1, w2);
            round!(1, w0, w1, w2, w3);
            round!(2, w1, w2, w3, w0);
            round!(3, w2, w3, w0, w1);
            round!(4, w3, w0, w1, w2);
            round!(5, w0, w1, w2, w3);
            round!(6, w1, w2, w3, w0);
            round!(7, w2, w3, w0, w1);
            round!(8, w3, w0, w1, w2);
            round!(9, w0, w1, w2, w3);
            round!(10, w1, w2, w3, w0);
            round!(11, w2, w3, w0, w1);
            round!(12, w3, w0, w1, w2);
            round!(13, w0, w1, w2, w3);
            round!(14, w1, w2, w3, w0);
            round!(15, w2, w3, w0, w1);
            round!(16, w3, w0, w1, w2);
            round!(17, w0, w1, w2, w3);
            round!(18, w1, w2, w3, w0);
            round!(19, w2, w3, w0, w1);
            round!(20, w3, w0, w1, w2);
            round!(21, w0, w1, w2, w3);
            round!(22, w1, w2, w3, w0);
            round!(23, w2, w3, w0, w1);
            round!(24, w3, w0, w1, w2);
            round!(25, w0, w1, w2, w3);
            round!(26, w1, w2, w3, w0);
            round!(27, w2, w3, w0, w1);
            round!(28, w3, w0, w1, w2);
            round!(29, w0, w1, w2, w3);
            round!(30, w1, w2, w3, w0);
            round!(31, w2, w3, w0, w1);
            // w0..w3 = W_32..W_35; the next block starts from W'_i = W_{35-i} ^ d_i.
            prev = [w0, w1, w2, w3];
            (w0, w1, w2, w3) = (
                _mm_xor_si128(prev[3], d[0]),
                _mm_xor_si128(prev[2], d[1]),
                _mm_xor_si128(prev[1], d[2]),
                _mm_xor_si128(prev[0], d[3]),
            );
        }
        emit(n - 1, prev, &mut r);
        _mm_storeu_si128(reg.as_mut_ptr().cast(), r);
    }
}

/// A serial mode over whole blocks of `data`, chaining through `reg`.
pub(crate) fn serial(
    _: Avx512,
    rk: &[u32; ROUNDS],
    mode: super::Serial,
    reg: &mut [u8; 16],
    data: &mut [u8],
) {
    // SAFETY: the token proves the avx512 level (AVX-512 F/BW/VL, GFNI).
    unsafe { serial_gfni(rk, mode, reg, data) }
}

#[target_feature(enable = "avx512f,avx512bw,avx512vl,gfni")]
unsafe fn crypt_blocks_gfni(rk: &[u32; ROUNDS], data: &mut [u8]) {
    // SAFETY: features enabled here; every pointer range lies inside `data` or a local buffer.
    unsafe {
        let mut c4 = data.chunks_exact_mut(2048);
        for c in &mut c4 {
            rounds512::<8>(rk, c.as_mut_ptr());
        }
        let rest = c4.into_remainder();
        let mut c1 = rest.chunks_exact_mut(256);
        for c in &mut c1 {
            rounds512::<1>(rk, c.as_mut_ptr());
        }
        let tail = c1.into_remainder();
        let mut buf = [0u8; 256];
        if tail.len() > 64 {
            buf[..tail.len()].copy_from_slice(tail);
            rounds512::<1>(rk, buf.as_mut_ptr());
            tail.copy_from_slice(&buf[..tail.len()]);
        } else if !tail.is_empty() {
            buf[..tail.len()].copy_from_slice(tail);
            rounds128(rk, buf.as_mut_ptr());
            tail.copy_from_slice(&buf[..tail.len()]);
        }
        buf.fill(0);
    }
}

#[target_feature(enable = "avx512f,avx512bw,avx512vl,gfni")]
unsafe fn crypt_blocks_to_gfni(rk: &[u32; ROUNDS], src: &[u8], dst: &mut [u8]) {
    // SAFETY: features enabled here; `src` and `dst` have equal lengths (checked by the
    // caller) and every 2048-byte range lies inside both.
    unsafe {
        let n = src.len() / 2048 * 2048;
        let mut off = 0;
        while off < n {
            rounds512_to::<8>(rk, src.as_ptr().add(off), dst.as_mut_ptr().add(off));
            off += 2048;
        }
        dst[off..].copy_from_slice(&src[off..]);
        crypt_blocks_gfni(rk, &mut dst[off..]);
    }
}

/// Every block of `src` into `dst` (equal lengths, whole blocks).
pub(crate) fn crypt_blocks_to(_: Avx512, rk: &[u32; ROUNDS], src: &[u8], dst: &mut [u8]) {
    assert_eq!(src.len(), dst.len());
    // SAFETY: the token proves the avx512 level (AVX-512 F/BW/VL, GFNI).
    unsafe { crypt_blocks_to_gfni(rk, src, dst) }
}

/// Every block of `data` (whole blocks).
pub(crate) fn crypt_blocks(_: Avx512, rk: &[u32; ROUNDS], data: &mut [u8]) {
    // SAFETY: the token proves the avx512 level (AVX-512 F/BW/VL, GFNI).
    unsafe { crypt_blocks_gfni(rk, data) }
}

#[target_feature(enable = "avx512f,avx512bw,avx512vl,gfni")]
unsafe fn crypt_block_gfni(rk: &[u32; ROUNDS], block: &mut [u8; 16]) {
    // SAFETY: features enabled here; 16-byte load/store of `block`.
    unsafe {
        let v = block1(rk, _mm_loadu_si128(block.as_ptr().cast()));
        _mm_storeu_si128(block.as_mut_ptr().cast(), v);
    }
}

/// One block.
pub(crate) fn crypt_block(_: Avx512, rk: &[u32; ROUNDS], block: &mut [u8; 16]) {
    // SAFETY: the token proves the avx512 level (AVX-512 F/BW/VL, GFNI).
    unsafe { crypt_block_gfni(rk, block) }
}

#[target_feature(enable = "avx512f,avx512vl,gfni")]
unsafe fn tau_gfni(w: u32) -> u32 {
    // GFNI and AVX-512VL are enabled on this function, so the intrinsics are safe here.
    let t = _mm_cvtsi32_si128(w as i32);
    let s = _mm_gf2p8affine_epi64_epi8::<C1>(t, _mm_set1_epi64x(M1));
    let s = _mm_gf2p8affineinv_epi64_epi8::<C2>(s, _mm_set1_epi64x(M2));
    _mm_cvtsi128_si32(s) as u32
}

/// §6.2 τ of one word.
pub(crate) fn tau(_: Avx512, w: u32) -> u32 {
    // SAFETY: the token proves the avx512 level (AVX-512 F/BW/VL, GFNI).
    unsafe { tau_gfni(w) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::Backend;
    use crate::sm4::Serial;

    /// The serial modes as they were before the M1-domain rounds: `block1` per block.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,gfni")]
    unsafe fn serial_plain(rk: &[u32; ROUNDS], mode: Serial, reg: &mut [u8; 16], data: &mut [u8]) {
        // SAFETY: features enabled here; 16-byte accesses inside `reg` or `data`.
        unsafe {
            let mut r = _mm_loadu_si128(reg.as_ptr().cast());
            for b in data.chunks_exact_mut(16) {
                let q = b.as_mut_ptr().cast::<__m128i>();
                let p = _mm_loadu_si128(q);
                match mode {
                    Serial::CbcEncrypt => {
                        r = block1(rk, _mm_xor_si128(p, r));
                        _mm_storeu_si128(q, r);
                    }
                    Serial::CbcMac => r = block1(rk, _mm_xor_si128(p, r)),
                    Serial::CfbEncrypt => {
                        r = _mm_xor_si128(p, block1(rk, r));
                        _mm_storeu_si128(q, r);
                    }
                    Serial::Ofb => {
                        r = block1(rk, r);
                        _mm_storeu_si128(q, _mm_xor_si128(p, r));
                    }
                }
            }
            _mm_storeu_si128(reg.as_mut_ptr().cast(), r);
        }
    }

    /// Round-2 kernel, kept for comparison: round `r` in the M1 domain: `x` is the S-box input M1·(X1 ^ X2 ^ X3 ^ rk) ^ c1,
    /// `wr` = W_r (replaced by W_{r+4}), `w2`, `w3` = W_{r+2}, W_{r+3}.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    unsafe fn step_m1(
        x: &mut __m128i,
        wr: &mut __m128i,
        w2: __m128i,
        w3: __m128i,
        rkz: &[u32; ROUNDS],
        r: usize,
        k: &[__m128i; 4],
    ) {
        // SAFETY: avx512vl + gfni enabled by the callers.
        unsafe {
            let [k0, k1, k3, kc] = *k;
            let p0 = _mm_gf2p8affineinv_epi64_epi8::<0>(*x, k0);
            let p1 = _mm_gf2p8affineinv_epi64_epi8::<0>(*x, k1);
            let p3 = _mm_gf2p8affineinv_epi64_epi8::<0>(*x, k3);
            let u = _mm_ternarylogic_epi32::<0x96>(
                _mm_rol_epi32::<8>(p1),
                _mm_rol_epi32::<16>(p1),
                _mm_rol_epi32::<24>(p3),
            );
            if r + 1 < ROUNDS {
                // x_{r+1} = W_{r+2} ^ W_{r+3} ^ W_{r+4} ^ (M1·rk_{r+1} ^ c1), with
                // W_{r+4} = W_r ^ KC ^ p0 ^ u.
                let z = _mm_ternarylogic_epi32::<0x96>(
                    *wr,
                    w2,
                    _mm_xor_si128(w3, _mm_set1_epi32(rkz[r + 1] as i32)),
                );
                *x = _mm_ternarylogic_epi32::<0x96>(u, p0, z);
            }
            *wr = _mm_ternarylogic_epi32::<0x96>(u, p0, _mm_xor_si128(*wr, kc));
        }
    }

    /// One block (bytes as in memory) through the 32 rounds in the M1 domain; `rkz` from
    /// [`round_keys_m1`] (the round-2 kernel: one block at a time, state in lane 0).
    #[inline(always)]
    unsafe fn block_m1(rkz: &[u32; ROUNDS], v: __m128i) -> __m128i {
        // SAFETY: avx512vl + gfni enabled by the callers.
        unsafe {
            let bswap = _mm_loadu_si128(BSWAP32.as_ptr().cast());
            let k = [
                _mm_set1_epi64x(K0),
                _mm_set1_epi64x(K1),
                _mm_set1_epi64x(K3),
                _mm_set1_epi32(KC as i32),
            ];
            let w =
                _mm_gf2p8affine_epi64_epi8::<0>(_mm_shuffle_epi8(v, bswap), _mm_set1_epi64x(M1));
            // W_i in lane 0 of w_i (the other lanes carry harmless junk).
            let (mut w0, mut w1, mut w2, mut w3) = (
                w,
                _mm_srli_si128(w, 4),
                _mm_srli_si128(w, 8),
                _mm_srli_si128(w, 12),
            );
            // rkz_0 ^ KC = M1·rk_0 ^ c1.
            let mut x = _mm_ternarylogic_epi32::<0x96>(
                w1,
                w2,
                _mm_ternarylogic_epi32::<0x96>(w3, _mm_set1_epi32(rkz[0] as i32), k[3]),
            );
            for r in (0..ROUNDS).step_by(4) {
                step_m1(&mut x, &mut w0, w2, w3, rkz, r, &k);
                step_m1(&mut x, &mut w1, w3, w0, rkz, r + 1, &k);
                step_m1(&mut x, &mut w2, w0, w1, rkz, r + 2, &k);
                step_m1(&mut x, &mut w3, w1, w2, rkz, r + 3, &k);
            }
            let y = _mm_unpacklo_epi64(_mm_unpacklo_epi32(w3, w2), _mm_unpacklo_epi32(w1, w0));
            let y = _mm_gf2p8affine_epi64_epi8::<0>(y, _mm_set1_epi64x(M1_INV));
            _mm_shuffle_epi8(y, bswap)
        }
    }

    /// The serial modes as in round 2: [`block_m1`] per block, M1 in and out per block.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,gfni")]
    unsafe fn serial_m1_round2(
        rk: &[u32; ROUNDS],
        mode: Serial,
        reg: &mut [u8; 16],
        data: &mut [u8],
    ) {
        // SAFETY: features enabled here; every 16-byte access lies inside `reg` or `data`.
        unsafe {
            let mut rkz = [0u32; ROUNDS];
            round_keys_m1(rk, &mut rkz);
            let rk = &rkz;
            let mut r = _mm_loadu_si128(reg.as_ptr().cast());
            for b in data.chunks_exact_mut(16) {
                let q = b.as_mut_ptr().cast::<__m128i>();
                let p = _mm_loadu_si128(q);
                match mode {
                    Serial::CbcEncrypt => {
                        r = block_m1(rk, _mm_xor_si128(p, r));
                        _mm_storeu_si128(q, r);
                    }
                    Serial::CbcMac => r = block_m1(rk, _mm_xor_si128(p, r)),
                    Serial::CfbEncrypt => {
                        r = _mm_xor_si128(p, block_m1(rk, r));
                        _mm_storeu_si128(q, r);
                    }
                    Serial::Ofb => {
                        r = block_m1(rk, r);
                        _mm_storeu_si128(q, _mm_xor_si128(p, r));
                    }
                }
            }
            _mm_storeu_si128(reg.as_mut_ptr().cast(), r);
        }
    }

    #[test]
    fn matrices() {
        // M1·M1^-1 = I, and the S-box through the decomposition used by the serial path:
        // S(y) = M2·inv(M1·y ^ c1) ^ c2, so M1·(I ^ shl2)·S(y) = K0·inv(..) ^ M1·(c2 ^ c2 << 2).
        assert_eq!(mat_mul(M1 as u64, M1_INV as u64), MAT_I);
        assert_eq!(mat_mul(M1_INV as u64, M1 as u64), MAT_I);
        assert_eq!(mat_apply(MAT_SHL2, 0b1100_0001), 0b0000_0100);
        assert_eq!(mat_apply(MAT_SHR6, 0b1100_0001), 0b0000_0011);
    }

    /// Every serial mode on the rotation-form path agrees byte for byte with the round-2
    /// M1-domain kernel, the plain GFNI rounds and the portable backend, for several keys
    /// and chain lengths (1 block: no chaining; the later ones cross the points where the
    /// next block's data is loaded and the previous block's output stored), and with the
    /// standard's examples (GB/T 32907 A.1, A.2).
    #[test]
    fn serial_forms_agree_with_plain_portable_and_the_standard() {
        if !Backend::Avx512.is_supported() {
            return;
        }
        let plain = |rk: &[u32; ROUNDS], m: Serial, r: &mut [u8; 16], d: &mut [u8]| {
            // SAFETY: the CPU has AVX-512 and GFNI (checked above).
            unsafe { serial_plain(rk, m, r, d) }
        };
        let round2 = |rk: &[u32; ROUNDS], m: Serial, r: &mut [u8; 16], d: &mut [u8]| {
            // SAFETY: as above.
            unsafe { serial_m1_round2(rk, m, r, d) }
        };
        let t = crate::cpu::Variant::from(Backend::Avx512).avx512().unwrap();
        let serial =
            |rk: &[u32; ROUNDS], m: Serial, r: &mut [u8; 16], d: &mut [u8]| serial(t, rk, m, r, d);
        super::super::tests::check_serial_kernels(&[
            ("forms", &serial),
            ("plain", &plain),
            ("m1 round 2", &round2),
        ]);
        super::super::tests::check_serial_known_answer(&serial);
    }

    /// A/B timing of the serial path (not a correctness test): the rotation-form kernel,
    /// the round-2 M1-domain kernel and the plain rounds, alternated; medians and minima
    /// of 1 MiB CBC encryptions, and the minimum over many 16 KiB calls in cycles per
    /// block at the frequency given by `GUOMI_GHZ` (default 3.69):
    /// `cargo test -p guomi-core --lib sm4::x86_avx512::tests::ab_serial -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn ab_serial() {
        if !Backend::Avx512.is_supported() {
            return;
        }
        type Kernel = unsafe fn(&[u32; ROUNDS], Serial, &mut [u8; 16], &mut [u8]);
        let c = super::super::Sm4::with_backend(&[7; 16], Backend::Avx512);
        let forms: Kernel = serial_gfni;
        let kernels: [(&str, Kernel); 3] = [
            ("forms", forms),
            ("round 2 (M1 domain)", serial_m1_round2),
            ("plain", serial_plain),
        ];
        let ghz: f64 = std::env::var("GUOMI_GHZ")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(3.69);
        for (len, reps) in [(1usize << 20, 15), (1 << 14, 1001)] {
            let mut data = vec![0x5au8; len];
            let mut reg = [0u8; 16];
            let mut t = vec![Vec::new(); kernels.len()];
            for _ in 0..reps {
                for (k, (_, f)) in kernels.iter().enumerate() {
                    let s = std::time::Instant::now();
                    // SAFETY: the CPU has AVX-512 and GFNI (checked above).
                    unsafe { f(&c.rk.enc, Serial::CbcEncrypt, &mut reg, &mut data) };
                    t[k].push(s.elapsed().as_secs_f64());
                }
            }
            for (k, (name, _)) in kernels.iter().enumerate() {
                t[k].sort_by(f64::total_cmp);
                let mbs = |s: f64| len as f64 / s / 1e6;
                let cycles = t[k][0] * ghz * 1e9 / (len / 16) as f64;
                println!(
                    "CBC-enc {len} B, {name}: median {:.0} MB/s, best {:.0} MB/s ({cycles:.0} cycles/block)",
                    mbs(t[k][t[k].len() / 2]),
                    mbs(t[k][0]),
                );
            }
        }
    }
}
