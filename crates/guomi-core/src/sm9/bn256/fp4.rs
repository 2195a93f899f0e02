//! Fp4 = Fp2[v] / (v^2 - u) (GM/T 0044-2016 Part 1 §A.1). An element is c0 + c1*v.

use super::fp2::Fp2;
use subtle::{Choice, ConditionallySelectable, ConstantTimeEq};

/// An element c0 + c1*v of Fp4.
#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
pub struct Fp4 {
    pub(crate) c0: Fp2,
    pub(crate) c1: Fp2,
}

impl Fp4 {
    pub const ZERO: Self = Self {
        c0: Fp2::ZERO,
        c1: Fp2::ZERO,
    };
    pub const ONE: Self = Self {
        c0: Fp2::ONE,
        c1: Fp2::ZERO,
    };

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
    /// c0 - c1 v (conjugation of Fp4 over Fp2).
    #[inline(always)]
    pub fn conj(&self) -> Self {
        Self {
            c0: self.c0,
            c1: self.c1.neg(),
        }
    }

    /// Karatsuba: 3 Fp2 multiplications.
    #[inline(always)]
    pub fn mul(&self, b: &Self) -> Self {
        let v0 = self.c0.mul(&b.c0);
        let v1 = self.c1.mul(&b.c1);
        let s = self.c0.add(&self.c1).mul(&b.c0.add(&b.c1));
        Self {
            c0: v0.add(&v1.mul_u()),
            c1: s.sub(&v0).sub(&v1),
        }
    }

    /// 2 Fp2 multiplications: c0 = (a0 + a1)(a0 + u a1) - a0a1 - u a0a1, c1 = 2 a0 a1.
    #[inline(always)]
    pub fn square(&self) -> Self {
        let ab = self.c0.mul(&self.c1);
        let t = self.c0.add(&self.c1).mul(&self.c0.add(&self.c1.mul_u()));
        Self {
            c0: t.sub(&ab).sub(&ab.mul_u()),
            c1: ab.double(),
        }
    }

    /// Multiplication by an Fp2 element.
    #[inline(always)]
    pub fn mul_fp2(&self, b: &Fp2) -> Self {
        Self {
            c0: self.c0.mul(b),
            c1: self.c1.mul(b),
        }
    }

    /// Multiplication by v: (a0 + a1 v) v = u a1 + a0 v.
    #[inline(always)]
    pub fn mul_v(&self) -> Self {
        Self {
            c0: self.c1.mul_u(),
            c1: self.c0,
        }
    }

    /// (a0 - a1 v) / (a0^2 - u a1^2).
    pub fn invert(&self) -> Self {
        let n = self.c0.square().sub(&self.c1.square().mul_u());
        let ni = n.invert();
        Self {
            c0: self.c0.mul(&ni),
            c1: self.c1.neg().mul(&ni),
        }
    }
}

impl ConstantTimeEq for Fp4 {
    fn ct_eq(&self, o: &Self) -> Choice {
        self.c0.ct_eq(&o.c0) & self.c1.ct_eq(&o.c1)
    }
}

impl ConditionallySelectable for Fp4 {
    fn conditional_select(a: &Self, b: &Self, c: Choice) -> Self {
        Self {
            c0: Fp2::conditional_select(&a.c0, &b.c0, c),
            c1: Fp2::conditional_select(&a.c1, &b.c1, c),
        }
    }
}

impl zeroize::Zeroize for Fp4 {
    fn zeroize(&mut self) {
        self.c0.zeroize();
        self.c1.zeroize();
    }
}
