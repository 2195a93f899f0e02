//! Constant-time modular inversion for odd moduli below 2^256 by the "safegcd" method of
//! Bernstein and Yang ("Fast constant-time gcd computation and modular inversion", 2019),
//! in the form libsecp256k1 describes in `doc/safegcd_implementation.md`: batches of
//! division steps on the low 64 bits of f and g give a 2x2 transition matrix, which is
//! then applied to the full f, g and to d, e (the running multiples of the inverse,
//! kept mod m) in a signed radix-2^62 representation.
//!
//! One implementation serves every 256-bit field of the crate (SM2's p and n, the
//! example curve of GB/T 32918, SM9's p and N): each modulus precomputes a [`ModInfo`]
//! at compile time.
//!
//! Division steps are the "half-delta" variant (hddivstep: δ starts at 1/2, tracked as
//! ζ = -(δ + 1/2)), for which 590 steps suffice for any odd f < 2^256 and 0 <= g < f
//! (the convex-hull bound of Wuille's `safegcd-bounds`, the count libsecp256k1 uses for
//! 256-bit inputs; the paper's own bound for the original divstep is 741). Here: 10
//! batches of 59 steps. Once g reaches 0, further steps leave f, d and the result as they
//! are, so running the full count is always correct.
//!
//! Constant time: the number of steps is fixed, and every data-dependent decision is a
//! mask (arithmetic shift of a sign, negated low bit) applied with AND/XOR; no branch and
//! no memory index depends on the value.

use subtle::Choice;

/// Low 62 bits.
const M62: u64 = u64::MAX >> 2;

/// Division steps per batch; the matrix is scaled by 2^62 (it starts at 8 = 2^3), so
/// that the batch's division by 2^STEPS is a shift by one whole limb.
const STEPS: usize = 59;

/// Batches: 10 × 59 = 590 division steps, the hddivstep bound for 256-bit inputs.
const BATCHES: usize = 10;

/// A signed integer in radix 2^62: `v[0] + v[1]·2^62 + ... + v[4]·2^248`. Limbs 0..3 are
/// in [0, 2^62) after each update; the top limb carries the sign.
type S62 = [i64; 5];

/// What the inversion needs of a modulus m (odd, m < 2^256).
#[derive(Clone, Copy, Debug)]
pub(crate) struct ModInfo {
    /// m in radix 2^62.
    m: S62,
    /// m^-1 mod 2^62.
    m_inv62: u64,
}

impl ModInfo {
    /// The constants for the odd modulus `m` (little-endian 64-bit limbs).
    pub(crate) const fn new(m: &[u64; 4]) -> Self {
        assert!(m[0] & 1 == 1, "the modulus must be odd");
        // m^-1 mod 2^64 by Newton's iteration (each step doubles the correct low bits;
        // x = m is correct to 3 bits for odd m).
        let mut inv = m[0];
        let mut i = 0;
        while i < 5 {
            inv = inv.wrapping_mul(2u64.wrapping_sub(m[0].wrapping_mul(inv)));
            i += 1;
        }
        assert!(m[0].wrapping_mul(inv) == 1);
        ModInfo {
            m: to_s62(m),
            m_inv62: inv & M62,
        }
    }
}

/// 256-bit little-endian limbs to radix 2^62 (non-negative).
#[inline(always)]
const fn to_s62(a: &[u64; 4]) -> S62 {
    [
        (a[0] & M62) as i64,
        (((a[0] >> 62) | (a[1] << 2)) & M62) as i64,
        (((a[1] >> 60) | (a[2] << 4)) & M62) as i64,
        (((a[2] >> 58) | (a[3] << 6)) & M62) as i64,
        (a[3] >> 56) as i64,
    ]
}

/// Radix 2^62 with limbs 0..3 in [0, 2^62) and 0 <= value < 2^256 to 64-bit limbs.
#[inline(always)]
fn from_s62(a: &S62) -> [u64; 4] {
    let (a0, a1, a2, a3, a4) = (
        a[0] as u64,
        a[1] as u64,
        a[2] as u64,
        a[3] as u64,
        a[4] as u64,
    );
    [
        a0 | (a1 << 62),
        (a1 >> 2) | (a2 << 60),
        (a2 >> 4) | (a3 << 58),
        (a3 >> 6) | (a4 << 56),
    ]
}

/// A batch's transition matrix [[u, v], [q, r]], scaled by 2^62. |u| + |v| <= 2^62 and
/// |q| + |r| <= 2^62 (each division step at most doubles the sum of a row's magnitudes).
#[derive(Clone, Copy)]
struct Trans {
    u: i64,
    v: i64,
    q: i64,
    r: i64,
}

/// [`STEPS`] half-delta division steps on the low 64 bits of f (odd) and g: returns the
/// new ζ and the transition matrix (times 2^62). Bit k of g is only read after k
/// shifts, when it is still one of the 64 - k exact low bits; the high bits of the
/// words (garbage from the truncation) never influence a decision.
///
/// One step, with c1 = (ζ < 0) and c2 = (g odd) as all-ones masks:
/// g += (c1 ? -f : f) if c2; then if c1 and c2: ζ = -ζ - 2 and f += g (so f becomes the
/// old g and g the old g - f); else ζ -= 1; finally g /= 2 (the rows u, v of f are doubled
/// instead, which keeps the matrix an integer one).
#[inline(always)]
fn divsteps(zeta: i64, f0: u64, g0: u64) -> (i64, Trans) {
    let (mut u, mut v, mut q, mut r) = (8u64, 0u64, 0u64, 8u64);
    let (mut f, mut g) = (f0, g0);
    let mut zeta = zeta;
    for _ in 0..STEPS {
        // All ones when ζ < 0 (δ > 0), i.e. when an odd g swaps with f.
        let c1 = (zeta >> 63) as u64;
        // All ones when g is odd.
        let c2 = (g & 1).wrapping_neg();
        // x, y, z: f, u, v negated when c1.
        let x = (f ^ c1).wrapping_sub(c1);
        let y = (u ^ c1).wrapping_sub(c1);
        let z = (v ^ c1).wrapping_sub(c1);
        g = g.wrapping_add(x & c2);
        q = q.wrapping_add(y & c2);
        r = r.wrapping_add(z & c2);
        let c3 = c1 & c2;
        // ζ -> -ζ - 2 (= !ζ - 1) when swapping, else ζ - 1.
        zeta = (zeta ^ c3 as i64).wrapping_sub(1);
        f = f.wrapping_add(g & c3);
        u = u.wrapping_add(q & c3);
        v = v.wrapping_add(r & c3);
        g >>= 1;
        u <<= 1;
        v <<= 1;
    }
    (
        zeta,
        Trans {
            u: u as i64,
            v: v as i64,
            q: q as i64,
            r: r as i64,
        },
    )
}

/// [f, g] <- t·[f, g] / 2^62 (exact: the low 62 bits of both products are zero).
#[inline(always)]
fn update_fg(f: &mut S62, g: &mut S62, t: &Trans) {
    update_fg_len(f, g, t, 5);
}

/// [`update_fg`] on the low `len` limbs (the top one signed): the variable-time inversion
/// drops limbs as f and g shrink; the constant-time one always passes 5.
#[inline(always)]
fn update_fg_len(f: &mut S62, g: &mut S62, t: &Trans, len: usize) {
    let (u, v, q, r) = (t.u as i128, t.v as i128, t.q as i128, t.r as i128);
    let mut cf = u * f[0] as i128 + v * g[0] as i128;
    let mut cg = q * f[0] as i128 + r * g[0] as i128;
    debug_assert!(cf as u64 & M62 == 0 && cg as u64 & M62 == 0);
    cf >>= 62;
    cg >>= 62;
    for i in 1..len {
        cf += u * f[i] as i128 + v * g[i] as i128;
        cg += q * f[i] as i128 + r * g[i] as i128;
        f[i - 1] = (cf as u64 & M62) as i64;
        g[i - 1] = (cg as u64 & M62) as i64;
        cf >>= 62;
        cg >>= 62;
    }
    f[len - 1] = cf as i64;
    g[len - 1] = cg as i64;
}

/// [d, e] <- t·[d, e] / 2^62 mod m, for d, e in (-2m, m); the outputs are in (-2m, m)
/// again. A multiple of m is added first (m for each negative input, through the
/// matrix: u·m, q·m for d and v·m, r·m for e) and then corrected so that the low 62 bits
/// vanish; the bound analysis is libsecp256k1's (safegcd_implementation.md §4).
#[inline(always)]
fn update_de(d: &mut S62, e: &mut S62, t: &Trans, mi: &ModInfo) {
    let (u, v, q, r) = (t.u, t.v, t.q, t.r);
    let sd = sign_mask(d[4]);
    let se = sign_mask(e[4]);
    let mut md = (u & sd) + (v & se);
    let mut me = (q & sd) + (r & se);
    let (ui, vi, qi, ri) = (u as i128, v as i128, q as i128, r as i128);
    let mut cd = ui * d[0] as i128 + vi * e[0] as i128;
    let mut ce = qi * d[0] as i128 + ri * e[0] as i128;
    // Lower md, me by [0, 2^62) so that the low 62 bits of t·[d, e] + m·[md, me] vanish.
    md -= (mi.m_inv62.wrapping_mul(cd as u64).wrapping_add(md as u64) & M62) as i64;
    me -= (mi.m_inv62.wrapping_mul(ce as u64).wrapping_add(me as u64) & M62) as i64;
    let (mdi, mei) = (md as i128, me as i128);
    cd += mi.m[0] as i128 * mdi;
    ce += mi.m[0] as i128 * mei;
    debug_assert!(cd as u64 & M62 == 0 && ce as u64 & M62 == 0);
    cd >>= 62;
    ce >>= 62;
    for i in 1..5 {
        cd += ui * d[i] as i128 + vi * e[i] as i128 + mi.m[i] as i128 * mdi;
        ce += qi * d[i] as i128 + ri * e[i] as i128 + mi.m[i] as i128 * mei;
        d[i - 1] = (cd as u64 & M62) as i64;
        e[i - 1] = (ce as u64 & M62) as i64;
        cd >>= 62;
        ce >>= 62;
    }
    d[4] = cd as i64;
    e[4] = ce as i64;
}

/// Carries limbs 0..3 into [0, 2^62) (the value is unchanged).
#[inline(always)]
fn propagate(a: &mut S62) {
    for i in 0..4 {
        a[i + 1] += a[i] >> 62;
        a[i] &= M62 as i64;
    }
}

/// a += m & mask, limb by limb.
#[inline(always)]
fn add_masked(a: &mut S62, m: &S62, mask: i64) {
    for (x, y) in a.iter_mut().zip(m) {
        *x += y & mask;
    }
}

/// All ones when `x < 0`, else 0, passed through `subtle`'s optimisation barrier: without
/// it the compiler turned the masked additions of [`normalize`] into a branch on the sign
/// (found by the valgrind check, `scripts/ct-check.sh`).
#[inline(always)]
fn sign_mask(x: i64) -> i64 {
    let negative = Choice::from(((x as u64) >> 63) as u8);
    -(negative.unwrap_u8() as i64)
}

/// `sign < 0 ? -a : a` mod m in [0, m), for a in (-2m, m) with limbs 0..3 in [0, 2^62).
#[inline(always)]
fn normalize(a: &mut S62, sign: i64, mi: &ModInfo) {
    // (-2m, m) -> (-m, m).
    add_masked(a, &mi.m, sign_mask(a[4]));
    // Negate when the final f is -1.
    let neg = sign_mask(sign);
    for x in a.iter_mut() {
        *x = (*x ^ neg) - neg;
    }
    propagate(a);
    // (-m, m) -> [0, m).
    add_masked(a, &mi.m, sign_mask(a[4]));
    propagate(a);
}

/// `c · x^-1 mod m` for x, c < m (little-endian limbs), in constant time; 0 for x = 0
/// (and for any x sharing a factor with m, which a prime m does not have). With x = a·R
/// and c = R^2 mod m it maps a Montgomery form to the Montgomery form of the inverse.
#[inline]
pub(crate) fn invert_times(x: &[u64; 4], c: &[u64; 4], mi: &ModInfo) -> [u64; 4] {
    let mut f = mi.m;
    let mut g = to_s62(x);
    // d = f/x·c and e = g/x·c (mod m) throughout.
    let mut d: S62 = [0; 5];
    let mut e = to_s62(c);
    // ζ = -(δ + 1/2) with δ = 1/2 at the start.
    let mut zeta = -1i64;
    for _ in 0..BATCHES {
        let (z, t) = divsteps(
            zeta,
            f[0] as u64 | ((f[1] as u64) << 62),
            g[0] as u64 | ((g[1] as u64) << 62),
        );
        zeta = z;
        update_de(&mut d, &mut e, &t, mi);
        update_fg(&mut f, &mut g, &t);
    }
    // g = 0 now and f = ±gcd(m, x) = ±1 (or f = m when x = 0, with d = 0).
    debug_assert!(g == [0; 5]);
    normalize(&mut d, f[4], mi);
    from_s62(&d)
}

/// Variable-time division steps (public inputs only): the original divstep of the paper
/// (δ starts at 1, tracked as η = -δ), 62 of them per call, with libsecp256k1's
/// shortcuts (`safegcd_implementation.md` §5): runs of zero low bits of g are shifted out
/// at once (count-trailing-zeros), and several non-swapping steps are done by one
/// `g += w·f` with w = -g/f modulo a power of two. Returns the new η and the matrix
/// (scaled by 2^62, as in [`divsteps`]).
#[inline]
fn divsteps_vartime(eta: i64, f0: u64, g0: u64) -> (i64, Trans) {
    let (mut u, mut v, mut q, mut r) = (1u64, 0u64, 0u64, 1u64);
    let (mut f, mut g) = (f0, g0);
    let mut eta = eta;
    // Steps left in this batch.
    let mut left = 62u32;
    loop {
        // Shift out the zero low bits of g (never more than the steps left).
        let zeros = (g | (u64::MAX << left)).trailing_zeros();
        g >>= zeros;
        u <<= zeros;
        v <<= zeros;
        eta -= zeros as i64;
        left -= zeros;
        if left == 0 {
            break;
        }
        // g is odd. δ > 0: swap, (f, g) <- (g, -f), and the rows with them.
        let w = if eta < 0 {
            eta = -eta;
            (f, g) = (g, f.wrapping_neg());
            (u, q) = (q, u.wrapping_neg());
            (v, r) = (r, v.wrapping_neg());
            // Up to 6 steps with f fixed: -g/f mod 2^6, with f^-1 = f(2 - f^2) mod 2^6.
            let limit = (eta as u32 + 1).min(left);
            let m = (u64::MAX >> (64 - limit)) & 63;
            f.wrapping_mul(g)
                .wrapping_mul(f.wrapping_mul(f).wrapping_sub(2))
                & m
        } else {
            // Up to 4 steps: -g/f mod 2^4 (f + ((f + 1) & 4) · 2 is f^-1 mod 16).
            let limit = (eta as u32 + 1).min(left);
            let m = (u64::MAX >> (64 - limit)) & 15;
            let finv = f.wrapping_add((f.wrapping_add(1) & 4) << 1);
            finv.wrapping_neg().wrapping_mul(g) & m
        };
        g = g.wrapping_add(f.wrapping_mul(w));
        q = q.wrapping_add(u.wrapping_mul(w));
        r = r.wrapping_add(v.wrapping_mul(w));
    }
    (
        eta,
        Trans {
            u: u as i64,
            v: v as i64,
            q: q as i64,
            r: r as i64,
        },
    )
}

/// [`invert_times`] in variable time, for public values only (about twice as fast): the
/// division steps stop once g reaches 0, take the shortcuts of [`divsteps_vartime`], and
/// f and g drop their top limb once it carries no information. The result is the same.
pub(crate) fn invert_times_vartime(x: &[u64; 4], c: &[u64; 4], mi: &ModInfo) -> [u64; 4] {
    let mut f = mi.m;
    let mut g = to_s62(x);
    let mut d: S62 = [0; 5];
    let mut e = to_s62(c);
    let mut eta = -1i64;
    let mut len = 5;
    // The original divstep ends within 724 steps for 256-bit inputs (the paper's bound
    // is 741): 12 batches of 62; the cap only bounds the loop.
    for _ in 0..12 {
        let (z, t) = divsteps_vartime(eta, f[0] as u64, g[0] as u64);
        eta = z;
        update_de(&mut d, &mut e, &t, mi);
        update_fg_len(&mut f, &mut g, &t, len);
        if g[..len].iter().all(|&l| l == 0) {
            break;
        }
        // Drop the top limb when it is only the sign extension of the one below for
        // both f and g (0 or -1), folding it into that limb's top bits.
        let (fn_, gn) = (f[len - 1], g[len - 1]);
        if len > 1 && (fn_ ^ (fn_ >> 63)) == 0 && (gn ^ (gn >> 63)) == 0 {
            f[len - 2] |= ((fn_ as u64) << 62) as i64;
            g[len - 2] |= ((gn as u64) << 62) as i64;
            len -= 1;
        }
    }
    debug_assert!(g[..len].iter().all(|&l| l == 0));
    // f = ±1 (or ±m when x = 0, with d = 0): its sign is that of the top limb in use.
    let sign = f[len - 1];
    normalize(&mut d, sign, mi);
    from_s62(&d)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2^256 - 2^224 - 2^96 + 2^64 - 1 (the SM2 prime).
    const P: [u64; 4] = [
        0xFFFF_FFFF_FFFF_FFFF,
        0xFFFF_FFFF_0000_0000,
        0xFFFF_FFFF_FFFF_FFFF,
        0xFFFF_FFFE_FFFF_FFFF,
    ];

    #[test]
    fn radix_conversions_round_trip() {
        for a in [
            [0u64; 4],
            [1, 0, 0, 0],
            [u64::MAX; 4],
            P,
            [
                0x0123_4567_89ab_cdef,
                0xfedc_ba98_7654_3210,
                1 << 63,
                1 << 62,
            ],
        ] {
            let s = to_s62(&a);
            assert!(s[..4].iter().all(|&l| (0..1 << 62).contains(&l)));
            assert_eq!(from_s62(&s), a);
        }
    }

    #[test]
    fn modulus_constants() {
        let mi = ModInfo::new(&P);
        assert_eq!(P[0].wrapping_mul(mi.m_inv62) & M62, 1);
        assert_eq!(from_s62(&mi.m), P);
    }

    #[test]
    fn small_inverses() {
        let mi = ModInfo::new(&P);
        let one = [1, 0, 0, 0];
        assert_eq!(invert_times(&one, &one, &mi), one);
        assert_eq!(invert_times(&[0; 4], &one, &mi), [0; 4]);
        // 2^-1 = (p + 1) / 2.
        let half = [
            0x8000_0000_0000_0000,
            0xFFFF_FFFF_8000_0000,
            0xFFFF_FFFF_FFFF_FFFF,
            0x7FFF_FFFF_7FFF_FFFF,
        ];
        assert_eq!(invert_times(&[2, 0, 0, 0], &one, &mi), half);
        // (p - 1)^-1 = p - 1.
        let pm1 = [P[0] - 1, P[1], P[2], P[3]];
        assert_eq!(invert_times(&pm1, &one, &mi), pm1);
        // c · x^-1 with x = 1 is c.
        assert_eq!(invert_times(&one, &pm1, &mi), pm1);
        for x in [one, [0; 4], [2, 0, 0, 0], pm1, half] {
            assert_eq!(
                invert_times_vartime(&x, &pm1, &mi),
                invert_times(&x, &pm1, &mi),
                "{x:x?}"
            );
        }
    }

    /// The variable-time form against the constant-time one on many values for several
    /// moduli (SM2 p, SM9 p, 2^255 - 19), including values whose
    /// gcd with the modulus is the modulus itself (x = 0) and low-weight values, which
    /// take long runs of zero bits.
    #[test]
    fn vartime_matches_constant_time() {
        let moduli = [
            P,
            // SM9 BN256 p.
            [
                0xE56F_9B27_E351_457D,
                0x21F2_934B_1A7A_EEDB,
                0xD603_AB4F_F58E_C745,
                0xB640_0000_02A3_A6F1,
            ],
            // 2^255 - 19.
            [
                0xFFFF_FFFF_FFFF_FFED,
                u64::MAX,
                u64::MAX,
                0x7FFF_FFFF_FFFF_FFFF,
            ],
        ];
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        for m in moduli {
            let mi = ModInfo::new(&m);
            let below = |mut a: [u64; 4]| {
                a[3] %= m[3];
                a
            };
            for i in 0..4000 {
                let x = match i % 4 {
                    0 => below([next(), next(), next(), next()]),
                    1 => [1u64 << (next() % 64), 0, 0, 0],
                    2 => below([0, 0, 0, next()]),
                    _ => below([next() & next() & next(), 0, next() & next(), next()]),
                };
                let c = below([next(), next(), next(), next()]);
                assert_eq!(
                    invert_times_vartime(&x, &c, &mi),
                    invert_times(&x, &c, &mi),
                    "{m:x?} {x:x?} {c:x?}"
                );
            }
        }
    }
}
