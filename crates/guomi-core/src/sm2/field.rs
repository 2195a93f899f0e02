//! Arithmetic modulo a 256-bit odd modulus on 4 x 64-bit limbs, in Montgomery form
//! (R = 2^256). One generic implementation serves the SM2 prime p, the group order n
//! and the example curve of the GB/T 32918 annexes; every constant of a modulus
//! (-m^-1 mod 2^64, R mod m, R^2 mod m) is derived at compile time.
//!
//! For the SM2 prime p = 2^256 - 2^224 - 2^96 + 2^64 - 1, -p^-1 mod 2^64 = 1, so the
//! Montgomery quotient digit is the low limb itself (the multiplication by `N0` folds
//! away after inlining).
//!
//! Every operation here is constant time (no branch or index depends on the values),
//! except the functions whose names end in `_vartime`.

use crate::modinv::{invert_times, invert_times_vartime, ModInfo};
use core::marker::PhantomData;
use subtle::{Choice, ConditionallySelectable, ConstantTimeEq};

/// Little-endian 64-bit limbs.
pub type Limbs = [u64; 4];

/// Parses 64 hex digits (big-endian) at compile time.
pub(crate) const fn hex_limbs(s: &str) -> Limbs {
    let b = s.as_bytes();
    assert!(b.len() == 64);
    let mut out = [0u64; 4];
    let mut i = 0;
    while i < 64 {
        let c = b[i];
        let v = match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            b'A'..=b'F' => c - b'A' + 10,
            _ => panic!("bad hex digit"),
        } as u64;
        let limb = 3 - i / 16;
        out[limb] = (out[limb] << 4) | v;
        i += 1;
    }
    out
}

/// `a + b + carry`, returning (sum, carry).
#[inline(always)]
const fn adc(a: u64, b: u64, carry: u64) -> (u64, u64) {
    let t = a as u128 + b as u128 + carry as u128;
    (t as u64, (t >> 64) as u64)
}

/// `a - b - borrow`, returning (difference, borrow in {0, 1}).
#[inline(always)]
const fn sbb(a: u64, b: u64, borrow: u64) -> (u64, u64) {
    let t = (a as u128).wrapping_sub(b as u128 + borrow as u128);
    (t as u64, ((t >> 64) as u64) & 1)
}

/// `a + b * c + carry`, returning (low, high).
#[inline(always)]
const fn mac(a: u64, b: u64, c: u64, carry: u64) -> (u64, u64) {
    let t = a as u128 + (b as u128) * (c as u128) + carry as u128;
    (t as u64, (t >> 64) as u64)
}

/// Returns `t - m` when `hi == 1` or `t >= m`, else `t`; requires `hi*2^256 + t < 2m`.
#[inline(always)]
const fn sub_if_ge(t: Limbs, hi: u64, m: &Limbs) -> Limbs {
    let (r0, b) = sbb(t[0], m[0], 0);
    let (r1, b) = sbb(t[1], m[1], b);
    let (r2, b) = sbb(t[2], m[2], b);
    let (r3, b) = sbb(t[3], m[3], b);
    // Keep t when there was a borrow out and no high bit.
    let (_, keep) = sbb(hi, 0, b);
    let keep = 0u64.wrapping_sub(keep);
    [
        (t[0] & keep) | (r0 & !keep),
        (t[1] & keep) | (r1 & !keep),
        (t[2] & keep) | (r2 & !keep),
        (t[3] & keep) | (r3 & !keep),
    ]
}

/// Montgomery reduction of a 512-bit value: `t * 2^-256 mod m`, fully reduced.
#[inline(always)]
const fn mont_reduce(t: [u64; 8], m: &Limbs, n0: u64) -> Limbs {
    let mut t = t;
    let mut hi = 0u64;
    let mut i = 0;
    while i < 4 {
        let u = t[i].wrapping_mul(n0);
        let (_, c) = mac(t[i], u, m[0], 0);
        let (x1, c) = mac(t[i + 1], u, m[1], c);
        let (x2, c) = mac(t[i + 2], u, m[2], c);
        let (x3, c) = mac(t[i + 3], u, m[3], c);
        t[i + 1] = x1;
        t[i + 2] = x2;
        t[i + 3] = x3;
        let (x4, h) = adc(t[i + 4], c, hi);
        t[i + 4] = x4;
        hi = h;
        i += 1;
    }
    sub_if_ge([t[4], t[5], t[6], t[7]], hi, m)
}

/// Montgomery reduction specialised to the SM2 prime p = 2^256 - 2^224 - 2^96 + 2^64 - 1
/// (-p^-1 mod 2^64 = 1, so the quotient digit u is the low limb): t + u·p =
/// (t - u) + 2^64·u·(2^192 - 2^160 - 2^32 + 1), computed with shifts instead of products.
#[inline(always)]
const fn mont_reduce_sm2p(t: [u64; 8]) -> Limbs {
    let mut t = t;
    let mut hi = 0u64;
    let mut i = 0;
    while i < 4 {
        let u = t[i];
        // q = u·2^192 + u - (u·2^160 + u·2^32) as four limbs (never negative).
        let (q0, b) = sbb(u, u << 32, 0);
        let (q1, b) = sbb(0, u >> 32, b);
        let (q2, b) = sbb(0, u << 32, b);
        let (q3, _) = sbb(u, u >> 32, b);
        let (x1, c) = adc(t[i + 1], q0, 0);
        let (x2, c) = adc(t[i + 2], q1, c);
        let (x3, c) = adc(t[i + 3], q2, c);
        let (x4, c) = adc(t[i + 4], q3, c);
        t[i + 1] = x1;
        t[i + 2] = x2;
        t[i + 3] = x3;
        // The carry out of limb i + 4 from the previous round joins here.
        let (x4, h) = adc(x4, hi, 0);
        t[i + 4] = x4;
        hi = c + h;
        i += 1;
    }
    sub_if_ge([t[4], t[5], t[6], t[7]], hi, &SM2_P)
}

const SM2_P: Limbs = hex_limbs("FFFFFFFEFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF00000000FFFFFFFFFFFFFFFF");

/// Reduction for modulus m: the SM2-prime shortcut when m is that prime.
#[inline(always)]
const fn reduce_for(t: [u64; 8], m: &Limbs, n0: u64) -> Limbs {
    if m[0] == SM2_P[0] && m[1] == SM2_P[1] && m[2] == SM2_P[2] && m[3] == SM2_P[3] {
        mont_reduce_sm2p(t)
    } else {
        mont_reduce(t, m, n0)
    }
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
const fn is_sm2p(m: &Limbs) -> bool {
    m[0] == SM2_P[0] && m[1] == SM2_P[1] && m[2] == SM2_P[2] && m[3] == SM2_P[3]
}

/// Reads `cpu::active_variant()` and switches the SM2-prime assembly on or off for this
/// thread accordingly.
#[inline]
pub(crate) fn select_backend() {
    #[cfg(target_arch = "x86_64")]
    super::x86_avx2::select();
}

/// Montgomery product `a * b * 2^-256 mod m`.
#[inline(always)]
pub(crate) const fn mont_mul(a: &Limbs, b: &Limbs, m: &Limbs, n0: u64) -> Limbs {
    let mut t = [0u64; 8];
    let mut i = 0;
    while i < 4 {
        let (x0, c) = mac(t[i], a[i], b[0], 0);
        let (x1, c) = mac(t[i + 1], a[i], b[1], c);
        let (x2, c) = mac(t[i + 2], a[i], b[2], c);
        let (x3, c) = mac(t[i + 3], a[i], b[3], c);
        t[i] = x0;
        t[i + 1] = x1;
        t[i + 2] = x2;
        t[i + 3] = x3;
        t[i + 4] = c;
        i += 1;
    }
    reduce_for(t, m, n0)
}

/// Montgomery square (off-diagonal products computed once).
#[inline(always)]
const fn mont_sqr(a: &Limbs, m: &Limbs, n0: u64) -> Limbs {
    // Off-diagonal products a[i]*a[j], i < j.
    let (t1, c) = mac(0, a[0], a[1], 0);
    let (t2, c) = mac(0, a[0], a[2], c);
    let (t3, t4) = mac(0, a[0], a[3], c);
    let (t3, c) = mac(t3, a[1], a[2], 0);
    let (t4, t5) = mac(t4, a[1], a[3], c);
    let (t5, t6) = mac(t5, a[2], a[3], 0);
    // Double them.
    let t7 = t6 >> 63;
    let t6 = (t6 << 1) | (t5 >> 63);
    let t5 = (t5 << 1) | (t4 >> 63);
    let t4 = (t4 << 1) | (t3 >> 63);
    let t3 = (t3 << 1) | (t2 >> 63);
    let t2 = (t2 << 1) | (t1 >> 63);
    let t1 = t1 << 1;
    // Add the squares a[i]^2.
    let (t0, c) = mac(0, a[0], a[0], 0);
    let (t1, c) = adc(t1, 0, c);
    let (t2, c) = mac(t2, a[1], a[1], c);
    let (t3, c) = adc(t3, 0, c);
    let (t4, c) = mac(t4, a[2], a[2], c);
    let (t5, c) = adc(t5, 0, c);
    let (t6, c) = mac(t6, a[3], a[3], c);
    let (t7, _) = adc(t7, 0, c);
    reduce_for([t0, t1, t2, t3, t4, t5, t6, t7], m, n0)
}

/// `a + b mod m` for a, b < m.
#[inline(always)]
const fn add_mod(a: &Limbs, b: &Limbs, m: &Limbs) -> Limbs {
    let (s0, c) = adc(a[0], b[0], 0);
    let (s1, c) = adc(a[1], b[1], c);
    let (s2, c) = adc(a[2], b[2], c);
    let (s3, c) = adc(a[3], b[3], c);
    sub_if_ge([s0, s1, s2, s3], c, m)
}

/// `a - b mod m` for a, b < m.
#[inline(always)]
const fn sub_mod(a: &Limbs, b: &Limbs, m: &Limbs) -> Limbs {
    let (d0, br) = sbb(a[0], b[0], 0);
    let (d1, br) = sbb(a[1], b[1], br);
    let (d2, br) = sbb(a[2], b[2], br);
    let (d3, br) = sbb(a[3], b[3], br);
    let mask = 0u64.wrapping_sub(br);
    let (r0, c) = adc(d0, m[0] & mask, 0);
    let (r1, c) = adc(d1, m[1] & mask, c);
    let (r2, c) = adc(d2, m[2] & mask, c);
    let (r3, _) = adc(d3, m[3] & mask, c);
    [r0, r1, r2, r3]
}

/// -m^-1 mod 2^64 by Newton iteration.
const fn neg_inv64(m0: u64) -> u64 {
    let mut inv = 1u64;
    let mut i = 0;
    while i < 7 {
        inv = inv.wrapping_mul(2u64.wrapping_sub(m0.wrapping_mul(inv)));
        i += 1;
    }
    inv.wrapping_neg()
}

/// 2^(256 + k) mod m for k >= 0, by doubling (compile time only).
const fn pow2_mod(m: &Limbs, k: usize) -> Limbs {
    // 2^255 < m is not assumed: start from 1 and double 256 + k times.
    let mut x = [1u64, 0, 0, 0];
    let mut i = 0;
    while i < 256 + k {
        x = add_mod(&x, &x, m);
        i += 1;
    }
    x
}

/// `a < b` as integers (variable time; compile time and public values only).
pub(crate) const fn lt_vartime(a: &Limbs, b: &Limbs) -> bool {
    let mut i = 4;
    while i > 0 {
        i -= 1;
        if a[i] != b[i] {
            return a[i] < b[i];
        }
    }
    false
}

/// A modulus and its Montgomery constants.
pub trait Modulus: Copy + Clone + Send + Sync + 'static {
    /// The modulus m (odd, 2^255 < m < 2^256 not required, but m < 2^256).
    const M: Limbs;
    /// -m^-1 mod 2^64.
    const N0: u64 = neg_inv64(Self::M[0]);
    /// R mod m (the Montgomery form of 1).
    const R1: Limbs = pow2_mod(&Self::M, 0);
    /// R^2 mod m.
    const R2: Limbs = pow2_mod(&Self::M, 256);
    /// m - 2 (the Fermat inversion exponent).
    const M_MINUS_2: Limbs = sub_small(&Self::M, 2);
}

const fn sub_small(m: &Limbs, k: u64) -> Limbs {
    let (d0, b) = sbb(m[0], k, 0);
    let (d1, b) = sbb(m[1], 0, b);
    let (d2, b) = sbb(m[2], 0, b);
    let (d3, _) = sbb(m[3], 0, b);
    [d0, d1, d2, d3]
}

/// An element of Z/mZ in Montgomery form (the limbs hold `x * R mod m`, always < m).
pub struct Fe<M: Modulus>(pub(crate) Limbs, PhantomData<M>);

impl<M: Modulus> Clone for Fe<M> {
    #[inline(always)]
    fn clone(&self) -> Self {
        *self
    }
}
impl<M: Modulus> Copy for Fe<M> {}

impl<M: Modulus> Default for Fe<M> {
    fn default() -> Self {
        Self::ZERO
    }
}

impl<M: Modulus> ConditionallySelectable for Fe<M> {
    #[inline(always)]
    fn conditional_select(a: &Self, b: &Self, choice: Choice) -> Self {
        let mask = 0u64.wrapping_sub(choice.unwrap_u8() as u64);
        Fe(
            [
                a.0[0] ^ (mask & (a.0[0] ^ b.0[0])),
                a.0[1] ^ (mask & (a.0[1] ^ b.0[1])),
                a.0[2] ^ (mask & (a.0[2] ^ b.0[2])),
                a.0[3] ^ (mask & (a.0[3] ^ b.0[3])),
            ],
            PhantomData,
        )
    }
}

impl<M: Modulus> ConstantTimeEq for Fe<M> {
    #[inline(always)]
    fn ct_eq(&self, other: &Self) -> Choice {
        let d = (self.0[0] ^ other.0[0])
            | (self.0[1] ^ other.0[1])
            | (self.0[2] ^ other.0[2])
            | (self.0[3] ^ other.0[3]);
        is_zero_u64(d)
    }
}

/// `Choice(1)` when `x == 0`, without a branch.
#[inline(always)]
pub(crate) fn is_zero_u64(x: u64) -> Choice {
    Choice::from((((x | x.wrapping_neg()) >> 63) ^ 1) as u8)
}

impl<M: Modulus> Fe<M> {
    pub(crate) const ZERO: Self = Fe([0; 4], PhantomData);
    pub(crate) const ONE: Self = Fe(M::R1, PhantomData);

    /// Montgomery form of an integer already < m (compile time or run time).
    #[inline(always)]
    pub(crate) const fn from_limbs_reduced(x: &Limbs) -> Self {
        Fe(mont_mul(x, &M::R2, &M::M, M::N0), PhantomData)
    }

    /// Montgomery form of any 256-bit integer `x`, reduced mod m. Constant time.
    /// Requires m > 2^255 (true for every modulus used here) so one subtraction suffices.
    #[inline(always)]
    pub(crate) fn from_limbs_reducing(x: &Limbs) -> Self {
        let r = sub_if_ge(*x, 0, &M::M);
        Self::from_limbs_reduced(&r)
    }

    /// The integer value (leaves Montgomery form).
    #[inline(always)]
    pub(crate) fn to_limbs(self) -> Limbs {
        mont_reduce(
            [self.0[0], self.0[1], self.0[2], self.0[3], 0, 0, 0, 0],
            &M::M,
            M::N0,
        )
    }

    /// Parses 32 big-endian bytes; `None` (as a Choice) when the value is >= m.
    #[inline]
    pub(crate) fn from_bytes(b: &[u8; 32]) -> (Self, Choice) {
        let x = limbs_from_be(b);
        let ok = lt_ct(&x, &M::M);
        (Self::from_limbs_reduced(&sub_if_ge(x, 0, &M::M)), ok)
    }

    /// Parses 32 big-endian bytes, reducing mod m (m > 2^255).
    #[inline]
    pub(crate) fn from_bytes_reducing(b: &[u8; 32]) -> Self {
        Self::from_limbs_reducing(&limbs_from_be(b))
    }

    /// 32 big-endian bytes reduced mod m (m > 2^255) taken as a Montgomery form as they
    /// are (the element x·R^-1): for uniform random bytes, where the conversion of
    /// [`from_bytes_reducing`](Self::from_bytes_reducing) would only cost a product.
    #[inline]
    pub(crate) fn from_montgomery_bytes_reducing(b: &[u8; 32]) -> Self {
        Fe(sub_if_ge(limbs_from_be(b), 0, &M::M), PhantomData)
    }

    /// 32 big-endian bytes of the integer value.
    #[inline]
    pub(crate) fn to_bytes(self) -> [u8; 32] {
        limbs_to_be(&self.to_limbs())
    }

    #[inline(always)]
    pub(crate) fn mul(&self, rhs: &Self) -> Self {
        #[cfg(target_arch = "x86_64")]
        if is_sm2p(&M::M) {
            if let Some(r) = super::x86_avx2::mont_mul_selected(&self.0, &rhs.0) {
                return Fe(r, PhantomData);
            }
        }
        Fe(mont_mul(&self.0, &rhs.0, &M::M, M::N0), PhantomData)
    }

    #[inline(always)]
    pub(crate) fn square(&self) -> Self {
        #[cfg(target_arch = "x86_64")]
        if is_sm2p(&M::M) {
            if let Some(r) = super::x86_avx2::mont_sqr_selected(&self.0) {
                return Fe(r, PhantomData);
            }
        }
        Fe(mont_sqr(&self.0, &M::M, M::N0), PhantomData)
    }

    #[inline(always)]
    pub(crate) fn add(&self, rhs: &Self) -> Self {
        #[cfg(target_arch = "x86_64")]
        if is_sm2p(&M::M) {
            if let Some(r) = super::x86_avx2::add_mod_selected(&self.0, &rhs.0) {
                return Fe(r, PhantomData);
            }
        }
        Fe(add_mod(&self.0, &rhs.0, &M::M), PhantomData)
    }

    #[inline(always)]
    pub(crate) fn sub(&self, rhs: &Self) -> Self {
        #[cfg(target_arch = "x86_64")]
        if is_sm2p(&M::M) {
            if let Some(r) = super::x86_avx2::sub_mod_selected(&self.0, &rhs.0) {
                return Fe(r, PhantomData);
            }
        }
        Fe(sub_mod(&self.0, &rhs.0, &M::M), PhantomData)
    }

    #[inline(always)]
    pub(crate) fn double(&self) -> Self {
        self.add(self)
    }

    /// `self / 2 mod m` (m odd): adds m when the value is odd, then shifts right.
    /// Constant time.
    #[inline(always)]
    pub(crate) fn half(&self) -> Self {
        let mask = 0u64.wrapping_sub(self.0[0] & 1);
        let m = M::M;
        let (s0, c) = adc(self.0[0], m[0] & mask, 0);
        let (s1, c) = adc(self.0[1], m[1] & mask, c);
        let (s2, c) = adc(self.0[2], m[2] & mask, c);
        let (s3, c) = adc(self.0[3], m[3] & mask, c);
        Fe(
            [
                (s0 >> 1) | (s1 << 63),
                (s1 >> 1) | (s2 << 63),
                (s2 >> 1) | (s3 << 63),
                (s3 >> 1) | (c << 63),
            ],
            PhantomData,
        )
    }

    #[inline(always)]
    pub(crate) fn neg(&self) -> Self {
        Fe(sub_mod(&[0; 4], &self.0, &M::M), PhantomData)
    }

    #[inline(always)]
    pub(crate) fn is_zero(&self) -> Choice {
        is_zero_u64(self.0[0] | self.0[1] | self.0[2] | self.0[3])
    }

    /// `self^e` for a public exponent `e` (fixed 4-bit windows; the base may be secret,
    /// the sequence of operations depends only on `e`).
    pub(crate) fn pow_public_exp(&self, e: &Limbs) -> Self {
        let mut table = [Self::ONE; 16];
        table[1] = *self;
        for i in 2..16 {
            table[i] = table[i - 1].mul(self);
        }
        let mut acc = Self::ONE;
        let mut started = false;
        for i in (0..64).rev() {
            let nib = ((e[i / 16] >> ((i % 16) * 4)) & 15) as usize;
            if started {
                acc = acc.square().square().square().square();
            }
            if nib != 0 {
                acc = if started {
                    acc.mul(&table[nib])
                } else {
                    table[nib]
                };
                started = true;
            }
        }
        acc
    }

    /// Multiplicative inverse by safegcd ([`crate::modinv`]): the inverse of the stored
    /// a·R is a^-1·R^-1, so it is computed as R^2 · (a·R)^-1 = a^-1·R in one pass. Constant
    /// time; the inverse of 0 is 0.
    #[inline]
    pub(crate) fn invert(&self) -> Self {
        let info = const { ModInfo::new(&M::M) };
        Fe(invert_times(&self.0, &M::R2, &info), PhantomData)
    }

    /// [`Self::invert`] in variable time (about half the time): public values only.
    #[inline]
    pub(crate) fn invert_vartime(&self) -> Self {
        let info = const { ModInfo::new(&M::M) };
        Fe(invert_times_vartime(&self.0, &M::R2, &info), PhantomData)
    }

    /// Multiplicative inverse by Fermat's little theorem (m prime): `self^(m-2)`, the
    /// reference for [`Self::invert`] in the tests. Constant time; the inverse of 0 is 0.
    #[cfg(test)]
    pub(crate) fn invert_fermat(&self) -> Self {
        if M::M[0] == SM2_P[0] && M::M[1] == SM2_P[1] && M::M[2] == SM2_P[2] && M::M[3] == SM2_P[3]
        {
            self.invert_sm2p()
        } else {
            self.pow_public_exp(&M::M_MINUS_2)
        }
    }

    /// `self^(k-fold squaring)` helper.
    #[cfg(test)]
    #[inline(always)]
    fn sqn(&self, n: usize) -> Self {
        let mut x = *self;
        for _ in 0..n {
            x = x.square();
        }
        x
    }

    /// x^(p-2) for the SM2 prime by an addition chain (256 squarings, 15 products).
    /// p - 2 = 1^31 0 1^128 0^32 1^62 0 1 (bits, most significant first); x_k below
    /// stands for x^(2^k - 1).
    #[cfg(test)]
    fn invert_sm2p(&self) -> Self {
        let x1 = *self;
        let x2 = x1.square().mul(&x1);
        let x3 = x2.square().mul(&x1);
        let x6 = x3.sqn(3).mul(&x3);
        let x12 = x6.sqn(6).mul(&x6);
        let x24 = x12.sqn(12).mul(&x12);
        let x30 = x24.sqn(6).mul(&x6);
        let x31 = x30.square().mul(&x1);
        let x32 = x31.square().mul(&x1);
        // 1^31 0
        let mut r = x31.square();
        // 1^128
        for _ in 0..4 {
            r = r.sqn(32).mul(&x32);
        }
        // 0^32
        r = r.sqn(32);
        // 1^62
        r = r.sqn(31).mul(&x31);
        r = r.sqn(31).mul(&x31);
        // 0 1
        r.square().square().mul(&x1)
    }

    /// Square root for m = 3 mod 4: `self^((m+1)/4)`; the Choice says whether it is one.
    pub(crate) fn sqrt(&self) -> (Self, Choice) {
        // (m + 1) / 4 = (m >> 2) + 1 for m = 3 mod 4.
        let m = M::M;
        let q = [
            (m[0] >> 2) | (m[1] << 62),
            (m[1] >> 2) | (m[2] << 62),
            (m[2] >> 2) | (m[3] << 62),
            m[3] >> 2,
        ];
        let (q0, c) = adc(q[0], 1, 0);
        let (q1, c) = adc(q[1], 0, c);
        let (q2, c) = adc(q[2], 0, c);
        let (q3, _) = adc(q[3], 0, c);
        let r = self.pow_public_exp(&[q0, q1, q2, q3]);
        let ok = r.square().ct_eq(self);
        (r, ok)
    }

    /// Whether the integer value is odd.
    #[inline]
    pub(crate) fn is_odd(&self) -> Choice {
        Choice::from((self.to_limbs()[0] & 1) as u8)
    }
}

/// Constant-time `a < b`.
#[inline(always)]
pub(crate) fn lt_ct(a: &Limbs, b: &Limbs) -> Choice {
    let (_, br) = sbb(a[0], b[0], 0);
    let (_, br) = sbb(a[1], b[1], br);
    let (_, br) = sbb(a[2], b[2], br);
    let (_, br) = sbb(a[3], b[3], br);
    Choice::from(br as u8)
}

/// Big-endian bytes to limbs.
#[inline]
pub(crate) fn limbs_from_be(b: &[u8; 32]) -> Limbs {
    let mut out = [0u64; 4];
    for (i, limb) in out.iter_mut().enumerate() {
        let off = 32 - 8 * (i + 1);
        *limb = u64::from_be_bytes(b[off..off + 8].try_into().unwrap());
    }
    out
}

/// Limbs to big-endian bytes.
#[inline]
pub(crate) fn limbs_to_be(x: &Limbs) -> [u8; 32] {
    let mut out = [0u8; 32];
    for (i, limb) in x.iter().enumerate() {
        let off = 32 - 8 * (i + 1);
        out[off..off + 8].copy_from_slice(&limb.to_be_bytes());
    }
    out
}

/// Integer addition of limbs with carry out (for scalar recoding).
#[inline]
pub(crate) fn add_limbs(a: &Limbs, b: &Limbs) -> (Limbs, u64) {
    let (s0, c) = adc(a[0], b[0], 0);
    let (s1, c) = adc(a[1], b[1], c);
    let (s2, c) = adc(a[2], b[2], c);
    let (s3, c) = adc(a[3], b[3], c);
    ([s0, s1, s2, s3], c)
}

/// Integer subtraction of limbs with borrow out.
#[inline]
pub(crate) fn sub_limbs(a: &Limbs, b: &Limbs) -> (Limbs, u64) {
    let (d0, br) = sbb(a[0], b[0], 0);
    let (d1, br) = sbb(a[1], b[1], br);
    let (d2, br) = sbb(a[2], b[2], br);
    let (d3, br) = sbb(a[3], b[3], br);
    ([d0, d1, d2, d3], br)
}

#[cfg(all(test, target_arch = "x86_64"))]
mod asm_tests {
    use super::super::x86_avx2::{
        add_mod as asm_add_mod, mont_mul_detected, mont_sqr_detected, selected,
        sub_mod as asm_sub_mod,
    };
    use super::*;

    /// The switch is per thread and follows the thread's variant: another thread
    /// running under another variant does not change it.
    #[test]
    fn asm_switch_follows_the_thread_variant() {
        use crate::cpu::{self, Backend, Feature, Variant};
        for v in cpu::variants() {
            cpu::with_variant(v, || {
                select_backend();
                assert_eq!(selected(), v.has(Feature::Adx), "{v}");
                for other in [
                    Some(Variant::from(Backend::Portable)),
                    Some(Variant::from(cpu::detected())),
                    None,
                ] {
                    std::thread::spawn(move || match other {
                        Some(o) => cpu::with_variant(o, select_backend),
                        None => select_backend(),
                    })
                    .join()
                    .unwrap();
                    assert_eq!(selected(), v.has(Feature::Adx), "{v} after {other:?}");
                }
            });
        }
    }

    /// The assembly against the portable code: edge values and 300,000 chained products.
    #[test]
    fn asm_matches_portable() {
        if !crate::cpu::Feature::Adx.is_detected() {
            return;
        }
        let pm1 = sub_limbs(&SM2_P, &[1, 0, 0, 0]).0;
        let edge = [
            [0u64; 4],
            [1, 0, 0, 0],
            pm1,
            sub_limbs(&SM2_P, &[2, 0, 0, 0]).0,
            [u64::MAX, 0, 0, 0],
            [0, 0, 0, 0xFFFF_FFFE_0000_0000],
            [u64::MAX, u64::MAX, u64::MAX, 0xFFFF_FFFE_FFFF_FFFE],
            [0, 0xFFFF_FFFF_0000_0000, 0, 0],
        ];
        for a in edge.iter() {
            for b in edge.iter() {
                let r = mont_mul_detected(a, b).unwrap();
                assert_eq!(r, mont_mul(a, b, &SM2_P, 1), "{a:x?} {b:x?}");
                let s = mont_sqr_detected(a).unwrap();
                assert_eq!(s, mont_sqr(a, &SM2_P, 1), "{a:x?}");
            }
        }
        // The additions take reduced operands (< p).
        for a in edge.iter().filter(|a| lt_vartime(a, &SM2_P)) {
            for b in edge.iter().filter(|b| lt_vartime(b, &SM2_P)) {
                assert_eq!(asm_add_mod(a, b), add_mod(a, b, &SM2_P), "{a:x?} + {b:x?}");
                assert_eq!(asm_sub_mod(a, b), sub_mod(a, b, &SM2_P), "{a:x?} - {b:x?}");
            }
        }
        let mut x: Limbs = [
            0x0123456789abcdef,
            0xfedcba9876543210,
            0x0f1e2d3c4b5a6978,
            0x8796a5b4c3d2e1f0,
        ];
        let mut y: Limbs = pm1;
        for i in 0..300_000u64 {
            let r = mont_mul_detected(&x, &y).unwrap();
            assert_eq!(r, mont_mul(&x, &y, &SM2_P, 1));
            let s = mont_sqr_detected(&x).unwrap();
            assert_eq!(s, mont_sqr(&x, &SM2_P, 1));
            assert_eq!(asm_add_mod(&x, &y), add_mod(&x, &y, &SM2_P));
            assert_eq!(asm_sub_mod(&x, &y), sub_mod(&x, &y, &SM2_P));
            assert_eq!(asm_sub_mod(&y, &x), sub_mod(&y, &x, &SM2_P));
            y = x;
            x = add_mod(&r, &[i, i << 7, 0, i << 50], &SM2_P);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Copy)]
    struct P;
    impl Modulus for P {
        const M: Limbs =
            hex_limbs("FFFFFFFEFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF00000000FFFFFFFFFFFFFFFF");
    }

    #[test]
    fn constants() {
        assert_eq!(P::N0, 1);
        let one = Fe::<P>::ONE;
        assert_eq!(one.to_limbs(), [1, 0, 0, 0]);
        let x = Fe::<P>::from_limbs_reduced(&[5, 6, 7, 8]);
        assert_eq!(x.to_limbs(), [5, 6, 7, 8]);
        assert_eq!(x.mul(&x.invert()).to_limbs(), [1, 0, 0, 0]);
        assert_eq!(x.square().to_limbs(), x.mul(&x).to_limbs());
        let y = Fe::<P>::from_limbs_reduced(&[u64::MAX, 3, u64::MAX, 0xFFFFFFFE00000000]);
        assert_eq!(y.square().to_limbs(), y.mul(&y).to_limbs());
        assert_eq!(y.add(&x).sub(&x).to_limbs(), y.to_limbs());
        assert_eq!(y.neg().add(&y).to_limbs(), [0; 4]);
        for v in [x, y, y.neg(), Fe::ONE, Fe::ZERO, Fe::ONE.neg()] {
            assert_eq!(v.half().double().to_limbs(), v.to_limbs());
        }
        let (r, ok) = y.square().sqrt();
        assert!(bool::from(ok));
        assert!(r.to_limbs() == y.to_limbs() || r.neg().to_limbs() == y.to_limbs());
    }
}

/// The safegcd inversion against Fermat's, on every modulus `Fe` is used with.
#[cfg(test)]
mod invert_tests {
    use super::super::curve::{ExampleN, ExampleP, Sm2N, Sm2P};
    use super::*;

    /// splitmix64: a seeded, reproducible source of test values.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        }
        fn limbs(&mut self) -> Limbs {
            [self.next(), self.next(), self.next(), self.next()]
        }
    }

    /// Integers 1, 2, m-1, m-2, 2^255 mod m and values with long runs of ones and zeros.
    fn edge_values<M: Modulus>() -> Vec<Limbs> {
        let m = M::M;
        let mut v = vec![
            [1, 0, 0, 0],
            [2, 0, 0, 0],
            [3, 0, 0, 0],
            sub_small(&m, 1),
            sub_small(&m, 2),
            sub_small(&m, 3),
            [0, 0, 0, 1 << 63],
            [u64::MAX, u64::MAX, u64::MAX, u64::MAX >> 1],
            [u64::MAX, 0, u64::MAX, 0],
            [0, u64::MAX, 0, u64::MAX],
            [1, 0, 0, 1 << 63],
            [u64::MAX, u64::MAX, 0, 0],
            [0, 0, u64::MAX, u64::MAX],
            [0x5555_5555_5555_5555; 4],
            [0xAAAA_AAAA_AAAA_AAAA; 4],
            [0xFFFF_FFFF_0000_0000; 4],
            [0x0000_0000_FFFF_FFFF; 4],
            [u64::MAX; 4],
        ];
        // 2^k and 2^k - 1 for every k.
        for k in 1..256 {
            let mut p = [0u64; 4];
            p[k / 64] = 1 << (k % 64);
            v.push(p);
            v.push(sub_limbs(&p, &[1, 0, 0, 0]).0);
        }
        v
    }

    fn check<M: Modulus>(seed: u64, random: usize) {
        let m = M::M;
        // Inverse of 0 is 0 (the contract callers rely on).
        assert_eq!(Fe::<M>::ZERO.invert().0, [0; 4], "{m:x?}");
        assert_eq!(Fe::<M>::ZERO.invert_vartime().0, [0; 4], "{m:x?}");
        assert_eq!(Fe::<M>::ONE.invert().0, M::R1, "{m:x?}");
        let mut rng = Rng(seed);
        let values = edge_values::<M>()
            .into_iter()
            .chain((0..random).map(|_| rng.limbs()));
        for x in values {
            // Both as an integer and as a raw Montgomery representative.
            for a in [
                Fe::<M>::from_limbs_reducing(&x),
                Fe(sub_if_ge(x, 0, &m), PhantomData),
            ] {
                let inv = a.invert();
                assert_eq!(inv.0, a.invert_fermat().0, "{m:x?} {x:x?}");
                assert_eq!(a.invert_vartime().0, inv.0, "{m:x?} {x:x?}");
                assert!(lt_vartime(&inv.0, &m), "{m:x?} {x:x?}");
                let one: Fe<M> = if bool::from(a.is_zero()) {
                    Fe::ZERO
                } else {
                    Fe::ONE
                };
                assert_eq!(a.mul(&inv).0, one.0, "{m:x?} {x:x?}");
                assert_eq!(inv.invert().0, a.0, "{m:x?} {x:x?}");
            }
        }
    }

    #[test]
    fn invert_matches_fermat_sm2_p() {
        check::<Sm2P>(1, 3000);
    }

    #[test]
    fn invert_matches_fermat_sm2_n() {
        check::<Sm2N>(2, 3000);
    }

    #[test]
    fn invert_matches_fermat_example_curve() {
        check::<ExampleP>(3, 1000);
        check::<ExampleN>(4, 1000);
    }

    /// The same on every backend variant (the products under `invert` and `mul` switch to
    /// assembly on x86-64 with ADX).
    #[test]
    fn invert_matches_fermat_every_variant() {
        for v in crate::cpu::variants() {
            crate::cpu::with_variant(v, || {
                select_backend();
                check::<Sm2P>(5, 300);
                check::<Sm2N>(6, 300);
            });
        }
        select_backend();
    }
}
