//! Portable SM3 compression function (GB/T 32905-2016 §5.3). Data-independent
//! control flow; no tables indexed by data.

use super::T_ROTATED;

#[inline(always)]
fn p0(x: u32) -> u32 {
    x ^ x.rotate_left(9) ^ x.rotate_left(17)
}

#[inline(always)]
fn p1(x: u32) -> u32 {
    x ^ x.rotate_left(15) ^ x.rotate_left(23)
}

/// Compresses whole 64-byte blocks into `state`. `blocks.len()` must be a multiple of 64.
///
/// `#[inline(always)]` so that the `x86_avx2` backend can compile the same code with BMI2
/// (`rorx`) enabled.
#[inline(always)]
pub(crate) fn compress_inline(state: &mut [u32; 8], blocks: &[u8]) {
    debug_assert_eq!(blocks.len() % 64, 0);
    for block in blocks.chunks_exact(64) {
        // §5.3.2 message expansion: W0..W67 (W'j = Wj ^ Wj+4 is formed in the rounds).
        let mut w = [0u32; 68];
        for (j, word) in block.chunks_exact(4).enumerate() {
            w[j] = u32::from_be_bytes([word[0], word[1], word[2], word[3]]);
        }
        for j in 16..68 {
            w[j] = p1(w[j - 16] ^ w[j - 9] ^ w[j - 3].rotate_left(15)) ^ w[j - 13].rotate_left(7) ^ w[j - 6];
        }
        // §5.3.3 compression function CF.
        let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = *state;
        macro_rules! round {
            ($j:expr, $ff:expr, $gg:expr) => {{
                let a12 = a.rotate_left(12);
                let ss1 = a12.wrapping_add(e).wrapping_add(T_ROTATED[$j]).rotate_left(7);
                let ss2 = ss1 ^ a12;
                let tt1 = $ff(a, b, c).wrapping_add(d).wrapping_add(ss2).wrapping_add(w[$j] ^ w[$j + 4]);
                let tt2 = $gg(e, f, g).wrapping_add(h).wrapping_add(ss1).wrapping_add(w[$j]);
                d = c;
                c = b.rotate_left(9);
                b = a;
                a = tt1;
                h = g;
                g = f.rotate_left(19);
                f = e;
                e = p0(tt2);
            }};
        }
        let ff0 = |x: u32, y: u32, z: u32| x ^ y ^ z;
        let ff1 = |x: u32, y: u32, z: u32| (x & y) | (x & z) | (y & z);
        let gg1 = |x: u32, y: u32, z: u32| (x & y) | (!x & z);
        for j in 0..16 {
            round!(j, ff0, ff0);
        }
        for j in 16..64 {
            round!(j, ff1, gg1);
        }
        for (s, v) in state.iter_mut().zip([a, b, c, d, e, f, g, h]) {
            *s ^= v;
        }
    }
}

/// Portable backend entry point.
pub(crate) fn compress(state: &mut [u32; 8], blocks: &[u8]) {
    compress_inline(state, blocks);
}
