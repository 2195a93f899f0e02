//! Prime fields of the SM9 BN curve (GM/T 0044-2016 Part 1, Appendix A / Part 5 §A.1):
//! the base field Fp and the scalar field Fn (n = N, the group order), both in Montgomery
//! form with four 64-bit limbs (little-endian limb order), multiplied with CIOS
//! (coarsely integrated operand scanning). Every operation runs in constant time: no
//! branch or memory index depends on the values.

use subtle::{Choice, ConditionallySelectable, ConstantTimeEq};

#[inline(always)]
pub(crate) const fn adc(a: u64, b: u64, carry: u64) -> (u64, u64) {
    let t = (a as u128)
        .wrapping_add(b as u128)
        .wrapping_add(carry as u128);
    (t as u64, (t >> 64) as u64)
}

#[inline(always)]
pub(crate) const fn sbb(a: u64, b: u64, borrow: u64) -> (u64, u64) {
    // borrow is 0 or 1; the returned borrow is 0 or 1. Written with overflowing_sub
    // (not as a 128-bit subtraction) so that the compiler emits a sub/sbb chain.
    let (d, b1) = a.overflowing_sub(b);
    let (d, b2) = d.overflowing_sub(borrow);
    (d, (b1 | b2) as u64)
}

/// a + b + carry (carry 0 or 1) and the carry out, for the modular additions: on x86-64
/// the `_addcarry_u64` intrinsic, which compiles to one `adc` per limb (the 128-bit
/// form of [`adc`] compiles to `setb`/`or` sequences in long chains).
#[inline(always)]
pub(crate) fn add_c(a: u64, b: u64, carry: u8) -> (u64, u8) {
    #[cfg(target_arch = "x86_64")]
    {
        let mut s = 0u64;
        let c = core::arch::x86_64::_addcarry_u64(carry, a, b, &mut s);
        (s, c)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let (s, c1) = a.overflowing_add(b);
        let (s, c2) = s.overflowing_add(carry as u64);
        (s, (c1 | c2) as u8)
    }
}

/// a - b - borrow (borrow 0 or 1) and the borrow out: one `sbb` per limb on x86-64
/// (`_subborrow_u64`).
#[inline(always)]
pub(crate) fn sub_b(a: u64, b: u64, borrow: u8) -> (u64, u8) {
    #[cfg(target_arch = "x86_64")]
    {
        let mut d = 0u64;
        let c = core::arch::x86_64::_subborrow_u64(borrow, a, b, &mut d);
        (d, c)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let (d, b1) = a.overflowing_sub(b);
        let (d, b2) = d.overflowing_sub(borrow as u64);
        (d, (b1 | b2) as u8)
    }
}

#[inline(always)]
pub(crate) const fn mac(a: u64, b: u64, c: u64, carry: u64) -> (u64, u64) {
    // a + b*c + carry never overflows 128 bits.
    let t = ((b as u128).wrapping_mul(c as u128))
        .wrapping_add(a as u128)
        .wrapping_add(carry as u128);
    (t as u64, (t >> 64) as u64)
}

/// Compares 4-limb little-endian integers: returns 1 if a < b (constant time).
#[inline(always)]
pub(crate) fn lt4(a: &[u64; 4], b: &[u64; 4]) -> Choice {
    let (_, b0) = sbb(a[0], b[0], 0);
    let (_, b1) = sbb(a[1], b[1], b0);
    let (_, b2) = sbb(a[2], b[2], b1);
    let (_, b3) = sbb(a[3], b[3], b2);
    Choice::from(b3 as u8)
}

/// Big-endian 32 bytes to limbs.
#[inline]
pub(crate) fn limbs_from_be(b: &[u8; 32]) -> [u64; 4] {
    let mut l = [0u64; 4];
    for (i, limb) in l.iter_mut().enumerate() {
        let off = 32 - 8 * (i + 1);
        *limb = u64::from_be_bytes(b[off..off + 8].try_into().unwrap());
    }
    l
}

/// Limbs to big-endian 32 bytes.
#[inline]
pub(crate) fn limbs_to_be(l: &[u64; 4]) -> [u8; 32] {
    let mut b = [0u8; 32];
    for (i, limb) in l.iter().enumerate() {
        let off = 32 - 8 * (i + 1);
        b[off..off + 8].copy_from_slice(&limb.to_be_bytes());
    }
    b
}

macro_rules! mont_field {
    ($(#[$doc:meta])* $name:ident, modulus = $m:expr, r = $r:expr, r2 = $r2:expr, inv = $inv:expr,
     fast_mul = $fast:path) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Default)]
        pub struct $name(pub(crate) [u64; 4]);

        impl $name {
            /// The modulus, little-endian limbs.
            pub const MODULUS: [u64; 4] = $m;
            const R: [u64; 4] = $r;
            const R2: [u64; 4] = $r2;
            const INV: u64 = $inv;

            /// 0.
            pub const ZERO: Self = Self([0; 4]);
            /// 1 (Montgomery form R mod m).
            pub const ONE: Self = Self(Self::R);

            /// Converts a canonical integer (< modulus, little-endian limbs) into the field.
            #[inline]
            pub fn from_raw(l: [u64; 4]) -> Self {
                Self(l).mul(&Self(Self::R2))
            }

            /// The canonical integer of this element, little-endian limbs.
            #[inline]
            pub fn to_raw(&self) -> [u64; 4] {
                Self::mont_reduce(&[self.0[0], self.0[1], self.0[2], self.0[3], 0, 0, 0, 0])
            }

            /// A small integer.
            pub fn from_u64(v: u64) -> Self {
                Self::from_raw([v, 0, 0, 0])
            }

            /// Parses 32 big-endian bytes; `None` (constant-time choice) if >= modulus.
            pub fn from_be_bytes(b: &[u8; 32]) -> subtle::CtOption<Self> {
                let l = limbs_from_be(b);
                let ok = lt4(&l, &Self::MODULUS);
                subtle::CtOption::new(Self::from_raw(l), ok)
            }

            /// Reduces 32 big-endian bytes modulo the modulus (the input may be >= modulus;
            /// both moduli are above 2^255, so one subtraction suffices).
            pub fn from_be_bytes_reduce(b: &[u8; 32]) -> Self {
                let l = limbs_from_be(b);
                Self::from_raw(Self::sub_mod_once(l))
            }

            #[inline(always)]
            fn sub_mod_once(l: [u64; 4]) -> [u64; 4] {
                let m = Self::MODULUS;
                let (d0, b) = sbb(l[0], m[0], 0);
                let (d1, b) = sbb(l[1], m[1], b);
                let (d2, b) = sbb(l[2], m[2], b);
                let (d3, b) = sbb(l[3], m[3], b);
                let keep = 0u64.wrapping_sub(b); // all ones if l < m
                [
                    (l[0] & keep) | (d0 & !keep),
                    (l[1] & keep) | (d1 & !keep),
                    (l[2] & keep) | (d2 & !keep),
                    (l[3] & keep) | (d3 & !keep),
                ]
            }

            /// 32 big-endian bytes of the canonical integer.
            pub fn to_be_bytes(&self) -> [u8; 32] {
                limbs_to_be(&self.to_raw())
            }

            #[inline(always)]
            fn mont_reduce(t: &[u64; 8]) -> [u64; 4] {
                // Montgomery reduction of a 512-bit t < m * 2^256.
                let m = Self::MODULUS;
                let mut r = *t;
                let mut carry2 = 0u64;
                for i in 0..4 {
                    let k = r[i].wrapping_mul(Self::INV);
                    let (_, mut c) = mac(r[i], k, m[0], 0);
                    for j in 1..4 {
                        let (v, c2) = mac(r[i + j], k, m[j], c);
                        r[i + j] = v;
                        c = c2;
                    }
                    let (v, c2) = adc(r[i + 4], c, carry2);
                    r[i + 4] = v;
                    carry2 = c2;
                }
                Self::final_sub([r[4], r[5], r[6], r[7]], carry2)
            }

            /// Subtracts the modulus from (carry:l) if (carry:l) >= modulus.
            #[inline(always)]
            fn final_sub(l: [u64; 4], carry: u64) -> [u64; 4] {
                let m = Self::MODULUS;
                let (d0, b) = sub_b(l[0], m[0], 0);
                let (d1, b) = sub_b(l[1], m[1], b);
                let (d2, b) = sub_b(l[2], m[2], b);
                let (d3, b) = sub_b(l[3], m[3], b);
                let (_, b) = sub_b(carry, 0, b);
                let keep = 0u64.wrapping_sub(b as u64);
                [
                    (l[0] & keep) | (d0 & !keep),
                    (l[1] & keep) | (d1 & !keep),
                    (l[2] & keep) | (d2 & !keep),
                    (l[3] & keep) | (d3 & !keep),
                ]
            }

            /// a + b.
            #[inline(always)]
            pub fn add(&self, b: &Self) -> Self {
                #[cfg(target_arch = "x86_64")]
                {
                    Self(super::x86_adx::add_mod(&self.0, &b.0, &Self::MODULUS))
                }
                #[cfg(not(target_arch = "x86_64"))]
                {
                    self.add_portable(b)
                }
            }

            /// a + b in portable code (the reference for the x86-64 assembly).
            #[inline(always)]
            pub fn add_portable(&self, b: &Self) -> Self {
                let a = &self.0;
                let b = &b.0;
                let (s0, c) = add_c(a[0], b[0], 0);
                let (s1, c) = add_c(a[1], b[1], c);
                let (s2, c) = add_c(a[2], b[2], c);
                let (s3, c) = add_c(a[3], b[3], c);
                Self(Self::final_sub([s0, s1, s2, s3], c as u64))
            }

            /// 2a.
            #[inline(always)]
            pub fn double(&self) -> Self {
                self.add(self)
            }

            /// a - b.
            #[inline(always)]
            pub fn sub(&self, b: &Self) -> Self {
                #[cfg(target_arch = "x86_64")]
                {
                    Self(super::x86_adx::sub_mod(&self.0, &b.0, &Self::MODULUS))
                }
                #[cfg(not(target_arch = "x86_64"))]
                {
                    self.sub_portable(b)
                }
            }

            /// a - b in portable code (the reference for the x86-64 assembly).
            #[inline(always)]
            pub fn sub_portable(&self, b: &Self) -> Self {
                let a = &self.0;
                let b = &b.0;
                let m = Self::MODULUS;
                let (d0, br) = sub_b(a[0], b[0], 0);
                let (d1, br) = sub_b(a[1], b[1], br);
                let (d2, br) = sub_b(a[2], b[2], br);
                let (d3, br) = sub_b(a[3], b[3], br);
                let mask = 0u64.wrapping_sub(br as u64);
                let (r0, c) = add_c(d0, m[0] & mask, 0);
                let (r1, c) = add_c(d1, m[1] & mask, c);
                let (r2, c) = add_c(d2, m[2] & mask, c);
                let (r3, _) = add_c(d3, m[3] & mask, c);
                Self([r0, r1, r2, r3])
            }

            /// a / 2: a + (p if a is odd), shifted right by one bit (the sum has at most
            /// 257 bits). Constant time (a mask, no branch).
            #[inline(always)]
            pub fn halve(&self) -> Self {
                let a = &self.0;
                let m = Self::MODULUS;
                let mask = 0u64.wrapping_sub(a[0] & 1);
                let (s0, c) = add_c(a[0], m[0] & mask, 0);
                let (s1, c) = add_c(a[1], m[1] & mask, c);
                let (s2, c) = add_c(a[2], m[2] & mask, c);
                let (s3, c) = add_c(a[3], m[3] & mask, c);
                Self([
                    (s0 >> 1) | (s1 << 63),
                    (s1 >> 1) | (s2 << 63),
                    (s2 >> 1) | (s3 << 63),
                    (s3 >> 1) | ((c as u64) << 63),
                ])
            }

            /// -a.
            #[inline(always)]
            pub fn neg(&self) -> Self {
                Self::ZERO.sub(self)
            }

            /// a * b (Montgomery multiplication): the backend's code if it has one for
            /// this field and it is switched on, else the portable CIOS.
            #[inline(always)]
            pub fn mul(&self, b: &Self) -> Self {
                if let Some(r) = $fast(&self.0, &b.0) {
                    return Self(r);
                }
                self.mul_portable(b)
            }

            /// a * b (portable CIOS Montgomery multiplication). Out of line, like the
            /// assembly: inlined at every call site of the tower code it would overflow
            /// the instruction cache.
            #[inline(never)]
            pub fn mul_portable(&self, b: &Self) -> Self {
                let a = &self.0;
                let b = &b.0;
                let m = Self::MODULUS;
                let mut t = [0u64; 6];
                for i in 0..4 {
                    // t += a * b[i]
                    let mut c = 0u64;
                    for j in 0..4 {
                        let (v, c2) = mac(t[j], a[j], b[i], c);
                        t[j] = v;
                        c = c2;
                    }
                    let (v, c2) = adc(t[4], c, 0);
                    t[4] = v;
                    t[5] = c2;
                    // reduce one limb
                    let k = t[0].wrapping_mul(Self::INV);
                    let (_, mut c) = mac(t[0], k, m[0], 0);
                    for j in 1..4 {
                        let (v, c2) = mac(t[j], k, m[j], c);
                        t[j - 1] = v;
                        c = c2;
                    }
                    let (v, c2) = adc(t[4], c, 0);
                    t[3] = v;
                    t[4] = t[5].wrapping_add(c2);
                }
                Self(Self::final_sub([t[0], t[1], t[2], t[3]], t[4]))
            }

            /// a^2.
            #[inline(always)]
            pub fn square(&self) -> Self {
                self.mul(self)
            }

            /// self^e for a public or secret exponent (fixed sequence of squarings and
            /// multiplications with a masked select; constant time in e).
            pub fn pow_ct(&self, e: &[u64; 4]) -> Self {
                let mut table = [Self::ONE; 16];
                for i in 1..16 {
                    table[i] = table[i - 1].mul(self);
                }
                let mut r = Self::ONE;
                for i in (0..64).rev() {
                    for _ in 0..4 {
                        r = r.square();
                    }
                    let d = ((e[i / 16] >> ((i % 16) * 4)) & 15) as u8;
                    let mut s = Self::ZERO;
                    for (j, t) in table.iter().enumerate() {
                        s.conditional_assign(t, (j as u8).ct_eq(&d));
                    }
                    r = r.mul(&s);
                }
                r
            }

            /// a^-1 by safegcd (a fixed number of division steps, constant time); 0 maps
            /// to 0. The stored a·R is inverted to a^-1·R^-1 and multiplied by R^2 in the
            /// same pass, which gives the Montgomery form a^-1·R.
            pub fn invert(&self) -> Self {
                let info = const { crate::modinv::ModInfo::new(&Self::MODULUS) };
                Self(crate::modinv::invert_times(&self.0, &Self::R2, &info))
            }

            /// a^-1 by Fermat (a^(m-2), constant time); 0 maps to 0. The reference for
            /// [`Self::invert`] in the tests.
            #[cfg(test)]
            pub(crate) fn invert_fermat(&self) -> Self {
                let m = Self::MODULUS;
                let (e0, b) = sbb(m[0], 2, 0);
                let (e1, b) = sbb(m[1], 0, b);
                let (e2, b) = sbb(m[2], 0, b);
                let (e3, _) = sbb(m[3], 0, b);
                self.pow_ct(&[e0, e1, e2, e3])
            }

            /// 1 if zero.
            #[inline]
            pub fn is_zero(&self) -> Choice {
                self.ct_eq(&Self::ZERO)
            }
        }

        impl ConstantTimeEq for $name {
            fn ct_eq(&self, o: &Self) -> Choice {
                // Montgomery representatives are canonical (< modulus), so compare limbs.
                self.0[0].ct_eq(&o.0[0]) & self.0[1].ct_eq(&o.0[1]) & self.0[2].ct_eq(&o.0[2]) & self.0[3].ct_eq(&o.0[3])
            }
        }

        impl ConditionallySelectable for $name {
            fn conditional_select(a: &Self, b: &Self, c: Choice) -> Self {
                Self([
                    u64::conditional_select(&a.0[0], &b.0[0], c),
                    u64::conditional_select(&a.0[1], &b.0[1], c),
                    u64::conditional_select(&a.0[2], &b.0[2], c),
                    u64::conditional_select(&a.0[3], &b.0[3], c),
                ])
            }
        }

        impl PartialEq for $name {
            fn eq(&self, o: &Self) -> bool {
                bool::from(self.ct_eq(o))
            }
        }
        impl Eq for $name {}

        impl core::fmt::Debug for $name {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                // Field elements may be secret; print nothing of the value.
                f.write_str(concat!(stringify!($name), "(..)"))
            }
        }

        impl zeroize::Zeroize for $name {
            fn zeroize(&mut self) {
                self.0.zeroize();
            }
        }
    };
}

/// -p^-1 mod 2^64 for the SM9 prime p.
pub(crate) const FP_INV: u64 = 0x892bc42c2f2ee42b;

/// Fp products in the x86-64 MULX/ADX assembly when the active backend variant has
/// `cpu::Feature::Adx` (see `x86_adx.rs`), else `None`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn fp_fast_mul(a: &[u64; 4], b: &[u64; 4]) -> Option<[u64; 4]> {
    super::x86_adx::mont_mul_selected(a, b)
}

/// No assembly on this architecture.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn fp_fast_mul(_: &[u64; 4], _: &[u64; 4]) -> Option<[u64; 4]> {
    None
}

/// Fn has no assembly (scalar arithmetic is not on a hot path).
#[inline(always)]
fn no_fast_mul(_: &[u64; 4], _: &[u64; 4]) -> Option<[u64; 4]> {
    None
}

mont_field!(
    /// An element of Fp, p = B6400000 02A3A6F1 D603AB4F F58EC745 21F2934B 1A7AEEDB E56F9B27 E351457D
    /// (GM/T 0044-2016 Part 1 Appendix A: the base field of the SM9 curve).
    Fp,
    modulus = [0xe56f9b27e351457d, 0x21f2934b1a7aeedb, 0xd603ab4ff58ec745, 0xb640000002a3a6f1],
    r = [0x1a9064d81caeba83, 0xde0d6cb4e5851124, 0x29fc54b00a7138ba, 0x49bffffffd5c590e],
    r2 = [0x27dea312b417e2d2, 0x88f8105fae1a5d3f, 0xe479b522d6706e7b, 0x2ea795a656f62fbd],
    inv = FP_INV,
    fast_mul = fp_fast_mul
);

mont_field!(
    /// An element of Fn (scalars), N = B6400000 02A3A6F1 D603AB4F F58EC744 49F2934B 18EA8BEE E56EE19C D69ECF25
    /// (GM/T 0044-2016 Part 1 Appendix A: the order of G1, G2 and GT).
    Fn,
    modulus = [0xe56ee19cd69ecf25, 0x49f2934b18ea8bee, 0xd603ab4ff58ec744, 0xb640000002a3a6f1],
    r = [0x1a911e63296130db, 0xb60d6cb4e7157411, 0x29fc54b00a7138bb, 0x49bffffffd5c590e],
    r2 = [0x7598cd79cd750c35, 0xe4a08110bb6daeab, 0xbfee4bae7d78a1f9, 0x8894f5d163695d0e],
    inv = 0x1d02662351974b53,
    fast_mul = no_fast_mul
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fp_basic() {
        let a = Fp::from_u64(7);
        let b = Fp::from_u64(9);
        assert_eq!(a.mul(&b), Fp::from_u64(63));
        assert_eq!(a.sub(&b).add(&b), a);
        assert_eq!(a.mul(&a.invert()), Fp::ONE);
        let m1 = Fp::ZERO.sub(&Fp::ONE);
        assert_eq!(
            m1.to_raw(),
            [
                Fp::MODULUS[0] - 1,
                Fp::MODULUS[1],
                Fp::MODULUS[2],
                Fp::MODULUS[3]
            ]
        );
        assert_eq!(m1.square(), Fp::ONE);
        let x = Fp::from_raw([
            0x1234567890abcdef,
            0xfedcba0987654321,
            0x1111111111111111,
            0x0abcdef012345678,
        ]);
        assert_eq!(x.mul(&x.invert()), Fp::ONE);
        assert_eq!(Fp::from_be_bytes(&x.to_be_bytes()).unwrap(), x);
        let n = Fn::from_raw([3, 0, 0, 0]);
        assert_eq!(n.mul(&n.invert()), Fn::ONE);
    }

    /// Edge values: 1, 2, 3, m-1, m-2, 2^k and 2^k - 1 for every k < 256 (reduced),
    /// alternating and half-filled limb patterns.
    fn edge_values(m: [u64; 4]) -> Vec<[u64; 4]> {
        let mut v = vec![
            [1, 0, 0, 0],
            [2, 0, 0, 0],
            [3, 0, 0, 0],
            [m[0] - 1, m[1], m[2], m[3]],
            [m[0] - 2, m[1], m[2], m[3]],
            [u64::MAX, 0, u64::MAX, 0],
            [0, u64::MAX, 0, u64::MAX],
            [0x5555_5555_5555_5555; 4],
            [0xAAAA_AAAA_AAAA_AAAA; 4],
            [0xFFFF_FFFF_0000_0000; 4],
            [u64::MAX; 4],
        ];
        for k in 1..256 {
            let mut p = [0u64; 4];
            p[k / 64] = 1 << (k % 64);
            v.push(p);
            let (d0, b) = sbb(p[0], 1, 0);
            let (d1, b) = sbb(p[1], 0, b);
            let (d2, b) = sbb(p[2], 0, b);
            let (d3, _) = sbb(p[3], 0, b);
            v.push([d0, d1, d2, d3]);
        }
        v
    }

    /// splitmix64 values (seeded, reproducible).
    fn random_values(seed: u64, n: usize) -> Vec<[u64; 4]> {
        let mut s = seed;
        let mut next = move || {
            s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        };
        (0..n).map(|_| [next(), next(), next(), next()]).collect()
    }

    macro_rules! invert_matches_fermat {
        ($test:ident, $f:ident, $seed:expr) => {
            #[test]
            fn $test() {
                assert_eq!($f::ZERO.invert(), $f::ZERO);
                assert_eq!($f::ONE.invert(), $f::ONE);
                let values = edge_values($f::MODULUS)
                    .into_iter()
                    .chain(random_values($seed, 2000));
                for x in values {
                    let a = $f::from_raw($f::sub_mod_once(x));
                    let inv = a.invert();
                    assert_eq!(inv.0, a.invert_fermat().0, "{x:x?}");
                    assert!(bool::from(lt4(&inv.0, &$f::MODULUS)), "{x:x?}");
                    assert_eq!(a.mul(&inv), $f::ONE, "{x:x?}");
                    assert_eq!(inv.invert(), a, "{x:x?}");
                }
            }
        };
    }

    invert_matches_fermat!(fp_invert_matches_fermat, Fp, 7);
    invert_matches_fermat!(fn_invert_matches_fermat, Fn, 8);
}

#[cfg(all(test, target_arch = "x86_64"))]
mod asm_tests {
    use super::super::x86_adx::{
        mont_mul2_detected, mont_mul3_detected, mont_mul4_detected, mont_mul_detected, select,
        selected,
    };
    use super::*;

    /// The switch follows the thread's variant; another thread under another variant
    /// does not change it.
    #[test]
    fn fp_asm_switch_follows_the_thread_variant() {
        use crate::cpu::{self, Backend, Feature, Variant};
        for v in cpu::variants() {
            cpu::with_variant(v, || {
                select();
                assert_eq!(selected(), v.has(Feature::Adx), "{v}");
                for other in [
                    Some(Variant::from(Backend::Portable)),
                    Some(Variant::from(cpu::detected())),
                    None,
                ] {
                    std::thread::spawn(move || match other {
                        Some(o) => cpu::with_variant(o, select),
                        None => select(),
                    })
                    .join()
                    .unwrap();
                    assert_eq!(selected(), v.has(Feature::Adx), "{v} after {other:?}");
                }
            });
        }
    }

    /// The x86-64 modular addition and subtraction against the portable code, in Fp and
    /// Fn: every pair of edge values (0, 1, m - 1, m - 2, values that carry out of the
    /// fourth limb or borrow from it) and 100,000 chained values.
    #[test]
    fn fp_asm_add_sub_match_portable() {
        type Ops = fn(&[u64; 4], &[u64; 4]) -> ([u64; 4], [u64; 4], [u64; 4], [u64; 4]);
        fn check(m: [u64; 4], ops: Ops) {
            let edge = [
                [0u64; 4],
                [1, 0, 0, 0],
                [m[0] - 1, m[1], m[2], m[3]],
                [m[0] - 2, m[1], m[2], m[3]],
                [u64::MAX, u64::MAX, u64::MAX, 0x7fff_ffff_ffff_ffff],
                [0, 0, 0, 1 << 63],
                [u64::MAX, 0, 0, 0],
                [0, 0, 0, m[3] - 1],
            ];
            for a in edge.iter() {
                for b in edge.iter() {
                    let (s, sp, d, dp) = ops(a, b);
                    assert_eq!(s, sp, "{a:x?} + {b:x?}");
                    assert_eq!(d, dp, "{a:x?} - {b:x?}");
                }
            }
            let mut x = [
                0x0123456789abcdef,
                0xfedcba9876543210,
                0x0f1e2d3c4b5a6978,
                0x1796a5b4c3d2e1f0,
            ];
            let mut y = [m[0] - 1, m[1], m[2], m[3]];
            for i in 0..100_000u64 {
                let (s, sp, d, dp) = ops(&x, &y);
                assert_eq!(s, sp);
                assert_eq!(d, dp);
                y = x;
                x = if i % 2 == 0 { s } else { d };
            }
        }
        check(Fp::MODULUS, |a, b| {
            let (a, b) = (Fp(*a), Fp(*b));
            (
                a.add(&b).0,
                a.add_portable(&b).0,
                a.sub(&b).0,
                a.sub_portable(&b).0,
            )
        });
        check(Fn::MODULUS, |a, b| {
            let (a, b) = (Fn(*a), Fn(*b));
            (
                a.add(&b).0,
                a.add_portable(&b).0,
                a.sub(&b).0,
                a.sub_portable(&b).0,
            )
        });
    }

    /// The assembly against the portable CIOS: edge values (0, 1, p - 1, values that
    /// make t reach 2p and the 257th bit) and 200,000 chained products.
    #[test]
    fn fp_asm_matches_portable() {
        if !crate::cpu::Feature::Adx.is_detected() {
            return;
        }
        let m = Fp::MODULUS;
        let sub1 = |x: [u64; 4], k: u64| {
            let (d0, b) = sbb(x[0], k, 0);
            let (d1, b) = sbb(x[1], 0, b);
            let (d2, b) = sbb(x[2], 0, b);
            let (d3, _) = sbb(x[3], 0, b);
            [d0, d1, d2, d3]
        };
        let edge = [
            [0u64; 4],
            [1, 0, 0, 0],
            [2, 0, 0, 0],
            sub1(m, 1),
            sub1(m, 2),
            [u64::MAX, 0, 0, 0],
            [0, 0, 0, 1 << 63],
            [u64::MAX, u64::MAX, u64::MAX, 0x7fff_ffff_ffff_ffff],
            Fp::R,
            Fp::R2,
            [m[0], m[1], m[2], m[3] - 1],
        ];
        for a in edge.iter() {
            for b in edge.iter() {
                let want = Fp(*a).mul_portable(&Fp(*b)).0;
                assert_eq!(mont_mul_detected(a, b).unwrap(), want, "{a:x?} {b:x?}");
            }
        }
        let mut x = [
            0x0123456789abcdef,
            0xfedcba9876543210,
            0x0f1e2d3c4b5a6978,
            0x8796a5b4c3d2e1f0,
        ];
        let mut y = sub1(m, 1);
        for i in 0..200_000u64 {
            let r = mont_mul_detected(&x, &y).unwrap();
            assert_eq!(r, Fp(x).mul_portable(&Fp(y)).0);
            let s = mont_mul_detected(&x, &x).unwrap();
            assert_eq!(s, Fp(x).mul_portable(&Fp(x)).0);
            y = x;
            x = Fp(r).add(&Fp([i, i << 7, 0, i << 50])).0;
        }
    }

    /// The sum of two products (the Fp2 product's assembly) against the portable CIOS:
    /// every combination of edge values (p - 1 everywhere makes the accumulator and the
    /// result largest: two final subtractions), then 100,000 chained sums.
    #[test]
    fn fp_asm_sum_of_two_products_matches_portable() {
        if !crate::cpu::Feature::Adx.is_detected() {
            return;
        }
        let m = Fp::MODULUS;
        let edge = [
            [0u64; 4],
            [1, 0, 0, 0],
            [m[0] - 1, m[1], m[2], m[3]],
            [m[0] - 2, m[1], m[2], m[3]],
            [u64::MAX, 0, 0, 0],
            [0, 0, 0, 1 << 63],
            [u64::MAX, u64::MAX, u64::MAX, 0x7fff_ffff_ffff_ffff],
            Fp::R,
            [m[0], m[1], m[2], m[3] - 1],
        ];
        let want = |x: &[[u64; 4]; 4]| {
            Fp(x[0])
                .mul_portable(&Fp(x[1]))
                .add(&Fp(x[2]).mul_portable(&Fp(x[3])))
                .0
        };
        let cat = |a: &[u64; 4], b: &[u64; 4]| [a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3]];
        for a in edge.iter() {
            for b in edge.iter() {
                for c in edge.iter() {
                    for d in edge.iter() {
                        let got = mont_mul2_detected(&cat(a, c), &cat(b, d)).unwrap();
                        assert_eq!(got, want(&[*a, *b, *c, *d]), "{a:x?} {b:x?} {c:x?} {d:x?}");
                    }
                }
            }
        }
        let mut v = [
            [
                0x0123456789abcdef,
                0xfedcba9876543210,
                0x0f1e2d3c4b5a6978,
                0x8796a5b4c3d2e1f0,
            ],
            [m[0] - 1, m[1], m[2], m[3]],
            [
                0x1111111111111111,
                0x2222222222222222,
                0x3333333333333333,
                0x4444444444444444,
            ],
            [m[0] - 5, m[1], m[2], m[3]],
        ];
        for i in 0..100_000u64 {
            let r = mont_mul2_detected(&cat(&v[0], &v[2]), &cat(&v[1], &v[3])).unwrap();
            assert_eq!(r, want(&v));
            v = [r, v[0], Fp(v[1]).add(&Fp([i, i << 9, 0, i << 40])).0, v[2]];
        }
    }

    /// The Fp2 product and squaring under the assembly equal the portable ones.
    #[test]
    fn fp2_asm_mul_matches_portable() {
        use super::super::fp2::Fp2;
        use crate::cpu::{self, Feature};
        let m = Fp::MODULUS;
        let vals = [
            Fp::ZERO,
            Fp::ONE,
            Fp([m[0] - 1, m[1], m[2], m[3]]),
            Fp::from_u64(0x1234_5678_9abc_def0).invert(),
            Fp::from_u64(7).neg(),
        ];
        for v in cpu::variants() {
            cpu::with_variant(v, || {
                select();
                assert_eq!(selected(), v.has(Feature::Adx));
                for a0 in vals {
                    for a1 in vals {
                        for b0 in vals {
                            for b1 in vals {
                                let a = Fp2::new(a0, a1);
                                let b = Fp2::new(b0, b1);
                                assert_eq!(a.mul(&b), a.mul_portable(&b), "{v}");
                                assert_eq!(a.square(), a.square_portable(), "{v}");
                                assert_eq!(a.square(), a.mul_portable(&a), "{v}");
                            }
                        }
                    }
                }
            });
        }
    }

    /// The sum of four products (the Fp4 product's assembly) against the portable CIOS:
    /// the largest case (p - 1 everywhere: three final subtractions), mixed edge values
    /// and 50,000 chained sums.
    #[test]
    fn fp_asm_sum_of_four_products_matches_portable() {
        if !crate::cpu::Feature::Adx.is_detected() {
            return;
        }
        let m = Fp::MODULUS;
        let pm1 = [m[0] - 1, m[1], m[2], m[3]];
        let want = |x: &[[u64; 4]; 4], y: &[[u64; 4]; 4]| {
            let mut acc = Fp::ZERO;
            for k in 0..4 {
                acc = acc.add(&Fp(x[k]).mul_portable(&Fp(y[k])));
            }
            acc.0
        };
        let cat = |v: &[[u64; 4]; 4]| {
            let mut o = [0u64; 16];
            for k in 0..4 {
                o[4 * k..4 * k + 4].copy_from_slice(&v[k]);
            }
            o
        };
        let edge = [
            [0u64; 4],
            [1, 0, 0, 0],
            pm1,
            [u64::MAX, u64::MAX, u64::MAX, 0x7fff_ffff_ffff_ffff],
            Fp::R,
        ];
        for a in edge {
            for b in edge {
                for c in edge {
                    let x = [a, b, c, pm1];
                    let y = [pm1, c, b, a];
                    assert_eq!(
                        mont_mul4_detected(&cat(&x), &cat(&y)).unwrap(),
                        want(&x, &y)
                    );
                    assert_eq!(
                        mont_mul4_detected(&cat(&y), &cat(&x)).unwrap(),
                        want(&y, &x)
                    );
                }
            }
        }
        let x = [pm1; 4];
        assert_eq!(
            mont_mul4_detected(&cat(&x), &cat(&x)).unwrap(),
            want(&x, &x)
        );
        let mut x = [
            [
                0x0123456789abcdef,
                0xfedcba9876543210,
                0x0f1e2d3c4b5a6978,
                0x8796a5b4c3d2e1f0,
            ],
            pm1,
            [
                0x1111111111111111,
                0x2222222222222222,
                0x3333333333333333,
                0x4444444444444444,
            ],
            [m[0] - 5, m[1], m[2], m[3]],
        ];
        let mut y = [pm1, x[0], x[3], x[2]];
        for i in 0..50_000u64 {
            let r = mont_mul4_detected(&cat(&x), &cat(&y)).unwrap();
            assert_eq!(r, want(&x, &y));
            y = [x[1], r, y[0], x[3]];
            x = [r, x[2], x[3], Fp(x[0]).add(&Fp([i, i << 9, 0, i << 40])).0];
        }
    }

    /// The Fp4 product under the assembly equals the portable Karatsuba product.
    #[test]
    fn fp4_asm_mul_matches_portable() {
        use super::super::fp2::Fp2;
        use super::super::fp4::Fp4;
        use crate::cpu::{self, Feature};
        let m = Fp::MODULUS;
        let vals = [
            Fp::ZERO,
            Fp::ONE,
            Fp([m[0] - 1, m[1], m[2], m[3]]),
            Fp::from_u64(0x1234_5678_9abc_def0).invert(),
        ];
        let mut elems = Vec::new();
        for a in vals {
            for b in vals {
                elems.push(Fp4 {
                    c0: Fp2::new(a, b),
                    c1: Fp2::new(b.add(&Fp::ONE), a.neg()),
                });
                elems.push(Fp4 {
                    c0: Fp2::new(b, b),
                    c1: Fp2::new(a, a.double()),
                });
            }
        }
        for v in cpu::variants() {
            cpu::with_variant(v, || {
                select();
                assert_eq!(selected(), v.has(Feature::Adx));
                for a in &elems {
                    for b in &elems {
                        assert_eq!(a.mul(b), a.mul_portable(b), "{v}");
                    }
                }
            });
        }
    }

    /// The sum of three products against the portable CIOS (p - 1 everywhere: three
    /// final subtractions; mixed edge values).
    #[test]
    fn fp_asm_sum_of_three_products_matches_portable() {
        if !crate::cpu::Feature::Adx.is_detected() {
            return;
        }
        let m = Fp::MODULUS;
        let pm1 = [m[0] - 1, m[1], m[2], m[3]];
        let edge = [
            [0u64; 4],
            [1, 0, 0, 0],
            pm1,
            [m[0] - 3, m[1], m[2], m[3]],
            [u64::MAX, u64::MAX, u64::MAX, 0x7fff_ffff_ffff_ffff],
            Fp::R,
        ];
        for a in edge {
            for b in edge {
                for c in edge {
                    for d in edge {
                        let x = [a, b, c];
                        let y = [d, c, pm1];
                        let mut want = Fp::ZERO;
                        let mut xs = [0u64; 12];
                        let mut ys = [0u64; 12];
                        for k in 0..3 {
                            want = want.add(&Fp(x[k]).mul_portable(&Fp(y[k])));
                            xs[4 * k..4 * k + 4].copy_from_slice(&x[k]);
                            ys[4 * k..4 * k + 4].copy_from_slice(&y[k]);
                        }
                        assert_eq!(mont_mul3_detected(&xs, &ys).unwrap(), want.0);
                    }
                }
            }
        }
    }

    /// The Fp4 squaring under the assembly equals the portable one and the product.
    #[test]
    fn fp4_asm_square_matches_portable() {
        use super::super::fp2::Fp2;
        use super::super::fp4::Fp4;
        use crate::cpu::{self, Feature};
        let m = Fp::MODULUS;
        let vals = [
            Fp::ZERO,
            Fp::ONE,
            Fp([m[0] - 1, m[1], m[2], m[3]]),
            Fp::from_u64(0x1234_5678_9abc_def0).invert(),
            Fp::from_u64(3).neg(),
        ];
        for v in cpu::variants() {
            cpu::with_variant(v, || {
                select();
                assert_eq!(selected(), v.has(Feature::Adx));
                for a in vals {
                    for b in vals {
                        for c in vals {
                            for d in vals {
                                let x = Fp4 {
                                    c0: Fp2::new(a, b),
                                    c1: Fp2::new(c, d),
                                };
                                assert_eq!(x.square(), x.square_portable(), "{v}");
                                assert_eq!(x.square(), x.mul_portable(&x), "{v}");
                            }
                        }
                    }
                }
            });
        }
    }
}
