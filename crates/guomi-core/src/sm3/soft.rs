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
/// The 64 rounds are fully unrolled with the register roles renamed from round to round
/// (no moves), and the message expansion (§5.3.2) is computed four words ahead inside the
/// rounds. `#[inline(always)]` so that `x86_avx2` can compile the same code with BMI2
/// (`rorx`) enabled: the reference its assembly is tested and benchmarked against.
#[inline(always)]
pub(crate) fn compress_inline(state: &mut [u32; 8], blocks: &[u8], barrier: impl Fn(u32) -> u32) {
    debug_assert_eq!(blocks.len() % 64, 0);
    for block in blocks.chunks_exact(64) {
        let mut w = [0u32; 68];
        for (j, word) in block.chunks_exact(4).enumerate() {
            w[j] = u32::from_be_bytes([word[0], word[1], word[2], word[3]]);
        }
        // §5.3.2: Wj = P1(Wj-16 ^ Wj-9 ^ (Wj-3 <<< 15)) ^ (Wj-13 <<< 7) ^ Wj-6.
        macro_rules! expand {
            ($j:expr) => {
                if $j >= 16 && $j < 68 {
                    w[$j] = p1(w[$j - 16] ^ w[$j - 9] ^ w[$j - 3].rotate_left(15))
                        ^ w[$j - 13].rotate_left(7)
                        ^ w[$j - 6];
                }
            };
        }
        let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = *state;
        // §5.3.3, one round with FF/GG given: updates b, d, f, h in place; the caller
        // renames (a..h) -> (d, a, b, c, h, e, f, g) for the next round.
        macro_rules! round {
            ($a:ident, $b:ident, $c:ident, $d:ident, $e:ident, $f:ident, $g:ident, $h:ident, $j:expr, $ff:expr, $gg:expr) => {{
                expand!($j + 4);
                // Sums are ordered so that the latest-arriving value (E, then SS1) is
                // added last: the E -> SS1 -> E chain sets the speed.
                let a12 = $a.rotate_left(12);
                let ss1 = barrier(a12.wrapping_add(T_ROTATED[$j]))
                    .wrapping_add($e)
                    .rotate_left(7);
                let ss2 = ss1 ^ a12;
                let tt1 = barrier(
                    $ff($a, $b, $c)
                        .wrapping_add($d)
                        .wrapping_add(w[$j] ^ w[$j + 4]),
                )
                .wrapping_add(ss2);
                let tt2 =
                    barrier($gg($e, $f, $g).wrapping_add($h).wrapping_add(w[$j])).wrapping_add(ss1);
                $b = $b.rotate_left(9);
                $d = tt1;
                $f = $f.rotate_left(19);
                $h = p0(tt2);
            }};
        }
        #[inline(always)]
        fn xor3(x: u32, y: u32, z: u32) -> u32 {
            x ^ y ^ z
        }
        #[inline(always)]
        fn maj(x: u32, y: u32, z: u32) -> u32 {
            (x & y) | (z & (x | y))
        }
        #[inline(always)]
        fn choose(x: u32, y: u32, z: u32) -> u32 {
            ((y ^ z) & x) ^ z
        }
        macro_rules! four {
            ($j:expr, $ff:expr, $gg:expr) => {
                round!(a, b, c, d, e, f, g, h, $j, $ff, $gg);
                round!(d, a, b, c, h, e, f, g, $j + 1, $ff, $gg);
                round!(c, d, a, b, g, h, e, f, $j + 2, $ff, $gg);
                round!(b, c, d, a, f, g, h, e, $j + 3, $ff, $gg);
            };
        }
        four!(0, xor3, xor3);
        four!(4, xor3, xor3);
        four!(8, xor3, xor3);
        four!(12, xor3, xor3);
        four!(16, maj, choose);
        four!(20, maj, choose);
        four!(24, maj, choose);
        four!(28, maj, choose);
        four!(32, maj, choose);
        four!(36, maj, choose);
        four!(40, maj, choose);
        four!(44, maj, choose);
        four!(48, maj, choose);
        four!(52, maj, choose);
        four!(56, maj, choose);
        four!(60, maj, choose);
        for (s, v) in state.iter_mut().zip([a, b, c, d, e, f, g, h]) {
            *s ^= v;
        }
    }
}

/// Portable backend entry point. Kept out of line, as it was when hashers called it
/// through a function pointer: inlined into the dispatch it measured 1-2% slower.
#[inline(never)]
pub(crate) fn compress(state: &mut [u32; 8], blocks: &[u8]) {
    compress_inline(state, blocks, |x| x);
}
