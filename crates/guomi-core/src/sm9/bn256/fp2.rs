//! Fp2 = Fp[u] / (u^2 - alpha), alpha = -2 (GM/T 0044-2016 Part 1 §A.1: the 1-2-4-12 tower).
//! An element is c0 + c1*u. In byte strings the standard prints the high coefficient
//! first: c1 || c0.

use super::fp::Fp;
use subtle::{Choice, ConditionallySelectable, ConstantTimeEq};

/// An element c0 + c1*u of Fp2.
#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
pub struct Fp2 {
    pub(crate) c0: Fp,
    pub(crate) c1: Fp,
}

impl Fp2 {
    pub const ZERO: Self = Self {
        c0: Fp::ZERO,
        c1: Fp::ZERO,
    };
    pub const ONE: Self = Self {
        c0: Fp::ONE,
        c1: Fp::ZERO,
    };

    #[inline(always)]
    pub const fn new(c0: Fp, c1: Fp) -> Self {
        Self { c0, c1 }
    }

    #[inline(always)]
    pub fn add(&self, b: &Self) -> Self {
        Self {
            c0: self.c0.add(&b.c0),
            c1: self.c1.add(&b.c1),
        }
    }
    #[inline(always)]
    pub fn sub(&self, b: &Self) -> Self {
        Self {
            c0: self.c0.sub(&b.c0),
            c1: self.c1.sub(&b.c1),
        }
    }
    #[inline(always)]
    pub fn double(&self) -> Self {
        Self {
            c0: self.c0.double(),
            c1: self.c1.double(),
        }
    }
    #[inline(always)]
    pub fn neg(&self) -> Self {
        Self {
            c0: self.c0.neg(),
            c1: self.c1.neg(),
        }
    }
    /// a / 2 (two Fp halvings).
    #[inline(always)]
    pub fn halve(&self) -> Self {
        Self {
            c0: self.c0.halve(),
            c1: self.c1.halve(),
        }
    }
    /// The conjugate c0 - c1*u (= the p-power Frobenius).
    #[inline(always)]
    pub fn conj(&self) -> Self {
        Self {
            c0: self.c0,
            c1: self.c1.neg(),
        }
    }

    /// a * b: with the MULX/ADX assembly (when the thread's variant has
    /// `cpu::Feature::Adx`) as two sums of two Fp products with one Montgomery reduction
    /// each, c0 = a0 b0 + a1 (-2 b1) and c1 = a0 b1 + a1 b0; else [`Self::mul_portable`].
    #[inline(always)]
    pub fn mul(&self, b: &Self) -> Self {
        #[cfg(target_arch = "x86_64")]
        if let Some(t) = super::x86_adx::Adx::get() {
            return self.mul_adx(b, t);
        }
        self.mul_portable(b)
    }

    /// [`Self::mul`] on the assembly (the token shows that it is switched on).
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    pub(crate) fn mul_adx(&self, b: &Self, t: super::x86_adx::Adx) -> Self {
        let x = join(&self.c0, &self.c1);
        let nb1 = b.c1.double().neg();
        Self {
            c0: Fp(t.mul2(&x, &join(&b.c0, &nb1))),
            c1: Fp(t.mul2(&x, &join(&b.c1, &b.c0))),
        }
    }

    /// Karatsuba: 3 Fp multiplications.
    #[inline(always)]
    pub fn mul_portable(&self, b: &Self) -> Self {
        let v0 = self.c0.mul(&b.c0);
        let v1 = self.c1.mul(&b.c1);
        let s = self.c0.add(&self.c1).mul(&b.c0.add(&b.c1));
        // c0 = v0 + alpha*v1 = v0 - 2 v1; c1 = (a0+a1)(b0+b1) - v0 - v1
        Self {
            c0: v0.sub(&v1.double()),
            c1: s.sub(&v0).sub(&v1),
        }
    }

    /// a^2: with the MULX/ADX assembly c0 = a0 a0 + a1 (-2 a1) (one sum of two products)
    /// and c1 = a0 (2 a1); else [`Self::square_portable`].
    #[inline(always)]
    pub fn square(&self) -> Self {
        #[cfg(target_arch = "x86_64")]
        if let Some(t) = super::x86_adx::Adx::get() {
            let d1 = self.c1.double();
            let n1 = d1.neg();
            return Self {
                c0: Fp(t.mul2(&join(&self.c0, &self.c1), &join(&self.c0, &n1))),
                c1: Fp(t.mul(&self.c0.0, &d1.0)),
            };
        }
        self.square_portable()
    }

    /// (a0 + a1 u)^2 = (a0 - a1)(a0 + 2 a1) - a0 a1 + 2 a0 a1 u: 2 Fp multiplications.
    #[inline(always)]
    pub fn square_portable(&self) -> Self {
        let ab = self.c0.mul(&self.c1);
        let t = self.c0.sub(&self.c1).mul(&self.c0.add(&self.c1.double()));
        Self {
            c0: t.sub(&ab),
            c1: ab.double(),
        }
    }

    /// Multiplication by an Fp element.
    #[inline(always)]
    pub fn mul_fp(&self, b: &Fp) -> Self {
        Self {
            c0: self.c0.mul(b),
            c1: self.c1.mul(b),
        }
    }

    /// Multiplication by u: (a0 + a1 u) u = -2 a1 + a0 u.
    #[inline(always)]
    pub fn mul_u(&self) -> Self {
        Self {
            c0: self.c1.double().neg(),
            c1: self.c0,
        }
    }

    /// a^-1 = (a0 - a1 u) / (a0^2 + 2 a1^2); 0 maps to 0.
    pub fn invert(&self) -> Self {
        let n = self.c0.square().add(&self.c1.square().double());
        let ni = n.invert();
        Self {
            c0: self.c0.mul(&ni),
            c1: self.c1.neg().mul(&ni),
        }
    }

    pub fn is_zero(&self) -> Choice {
        self.c0.is_zero() & self.c1.is_zero()
    }

    /// self^e, e little-endian limbs of any length (variable time in e: public exponents).
    pub fn pow_vartime(&self, e: &[u64]) -> Self {
        let mut r = Self::ONE;
        for i in (0..e.len() * 64).rev() {
            r = r.square();
            if (e[i / 64] >> (i % 64)) & 1 == 1 {
                r = r.mul(self);
            }
        }
        r
    }

    /// 64 bytes, c1 || c0 (the standard's order).
    pub fn to_bytes(&self) -> [u8; 64] {
        let mut o = [0u8; 64];
        o[..32].copy_from_slice(&self.c1.to_be_bytes());
        o[32..].copy_from_slice(&self.c0.to_be_bytes());
        o
    }

    /// Parses c1 || c0; `None` if a coordinate is not below p.
    pub fn from_bytes(b: &[u8; 64]) -> Option<Self> {
        let c1 = Fp::from_be_bytes(b[..32].try_into().unwrap());
        let c0 = Fp::from_be_bytes(b[32..].try_into().unwrap());
        // Declassified: both coordinates below p, or None (an error the caller returns).
        // The values are taken by constant-time selects: `CtOption::unwrap` would branch
        // on each (still secret) `is_some` on its own.
        if crate::ct::declassify_choice(c0.is_some() & c1.is_some()) {
            Some(Self {
                c0: c0.unwrap_or(Fp::ZERO),
                c1: c1.unwrap_or(Fp::ZERO),
            })
        } else {
            None
        }
    }
}

/// x || y as eight limbs (the operand layout of the MULX/ADX sums of products).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(super) fn join(x: &Fp, y: &Fp) -> [u64; 8] {
    let (x, y) = (&x.0, &y.0);
    [x[0], x[1], x[2], x[3], y[0], y[1], y[2], y[3]]
}

impl ConstantTimeEq for Fp2 {
    fn ct_eq(&self, o: &Self) -> Choice {
        self.c0.ct_eq(&o.c0) & self.c1.ct_eq(&o.c1)
    }
}

impl ConditionallySelectable for Fp2 {
    fn conditional_select(a: &Self, b: &Self, c: Choice) -> Self {
        Self {
            c0: Fp::conditional_select(&a.c0, &b.c0, c),
            c1: Fp::conditional_select(&a.c1, &b.c1, c),
        }
    }
}

impl zeroize::Zeroize for Fp2 {
    fn zeroize(&mut self) {
        self.c0.zeroize();
        self.c1.zeroize();
    }
}
