//! Fp4 = Fp2[v] / (v^2 - u) (GM/T 0044-2016 Part 1 §A.1). An element is c0 + c1*v.

#[cfg(target_arch = "x86_64")]
use super::fp::Fp;
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

    /// a * b: with the MULX/ADX assembly (when the thread's variant has
    /// `cpu::Feature::Adx`) schoolbook over Fp, each of the four Fp coefficients one sum
    /// of four products with one Montgomery reduction; else [`Self::mul_portable`].
    #[inline(always)]
    pub fn mul(&self, b: &Self) -> Self {
        #[cfg(target_arch = "x86_64")]
        if super::x86_adx::selected() {
            use super::x86_adx::mont_mul4_selected;
            // a = (a00 + a01 u) + (a10 + a11 u) v, v^2 = u, u^2 = -2:
            // c00 = a00 b00 - 2 a01 b01 - 2 a10 b11 - 2 a11 b10
            // c01 = a00 b01 + a01 b00 + a10 b10 - 2 a11 b11
            // c10 = a00 b10 - 2 a01 b11 + a10 b00 - 2 a11 b01
            // c11 = a00 b11 + a01 b10 + a10 b01 + a11 b00
            let x = join4(&self.c0.c0, &self.c0.c1, &self.c1.c0, &self.c1.c1);
            let (b00, b01, b10, b11) = (&b.c0.c0, &b.c0.c1, &b.c1.c0, &b.c1.c1);
            let n01 = b01.double().neg();
            let n10 = b10.double().neg();
            let n11 = b11.double().neg();
            let c00 = mont_mul4_selected(&x, &join4(b00, &n01, &n11, &n10));
            let c01 = mont_mul4_selected(&x, &join4(b01, b00, b10, &n11));
            let c10 = mont_mul4_selected(&x, &join4(b10, &n11, b00, &n01));
            let c11 = mont_mul4_selected(&x, &join4(b11, b10, b01, b00));
            if let (Some(c00), Some(c01), Some(c10), Some(c11)) = (c00, c01, c10, c11) {
                return Self {
                    c0: Fp2::new(Fp(c00), Fp(c01)),
                    c1: Fp2::new(Fp(c10), Fp(c11)),
                };
            }
        }
        self.mul_portable(b)
    }

    /// Karatsuba: 3 Fp2 multiplications.
    #[inline(always)]
    pub fn mul_portable(&self, b: &Self) -> Self {
        let v0 = self.c0.mul(&b.c0);
        let v1 = self.c1.mul(&b.c1);
        let s = self.c0.add(&self.c1).mul(&b.c0.add(&b.c1));
        Self {
            c0: v0.add(&v1.mul_u()),
            c1: s.sub(&v0).sub(&v1),
        }
    }

    /// a^2: with the MULX/ADX assembly (when the thread's variant has
    /// `cpu::Feature::Adx`) each Fp coefficient one sum of two or three products with
    /// one Montgomery reduction; else [`Self::square_portable`].
    #[inline(always)]
    pub fn square(&self) -> Self {
        #[cfg(target_arch = "x86_64")]
        if super::x86_adx::selected() {
            use super::x86_adx::{mont_mul2_selected, mont_mul3_selected};
            // c00 = a00^2 - 2 a01^2 - 4 a10 a11, c01 = 2 a00 a01 + a10^2 - 2 a11^2,
            // c10 = 2 a00 a10 - 4 a01 a11,      c11 = 2 a00 a11 + 2 a01 a10.
            let (a00, a01, a10, a11) = (&self.c0.c0, &self.c0.c1, &self.c1.c0, &self.c1.c1);
            let d01 = a01.double();
            let n01 = d01.neg();
            let d10 = a10.double();
            let d11 = a11.double();
            let n11 = d11.neg();
            let nn11 = n11.double();
            let c00 = mont_mul3_selected(&join3(a00, a01, a10), &join3(a00, &n01, &nn11));
            let c01 = mont_mul3_selected(&join3(a00, a10, a11), &join3(&d01, a10, &n11));
            let x = super::fp2::join(a00, a01);
            let c10 = mont_mul2_selected(&x, &super::fp2::join(&d10, &nn11));
            let c11 = mont_mul2_selected(&x, &super::fp2::join(&d11, &d10));
            if let (Some(c00), Some(c01), Some(c10), Some(c11)) = (c00, c01, c10, c11) {
                return Self {
                    c0: Fp2::new(Fp(c00), Fp(c01)),
                    c1: Fp2::new(Fp(c10), Fp(c11)),
                };
            }
        }
        self.square_portable()
    }

    /// 2 Fp2 multiplications: c0 = (a0 + a1)(a0 + u a1) - a0a1 - u a0a1, c1 = 2 a0 a1.
    #[inline(always)]
    pub fn square_portable(&self) -> Self {
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

/// Three Fp elements as twelve limbs.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn join3(a: &Fp, b: &Fp, c: &Fp) -> [u64; 12] {
    let mut o = [0u64; 12];
    o[..4].copy_from_slice(&a.0);
    o[4..8].copy_from_slice(&b.0);
    o[8..].copy_from_slice(&c.0);
    o
}

/// Four Fp elements as sixteen limbs.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn join4(a: &Fp, b: &Fp, c: &Fp, d: &Fp) -> [u64; 16] {
    let mut o = [0u64; 16];
    for (k, e) in [a, b, c, d].into_iter().enumerate() {
        o[4 * k..4 * k + 4].copy_from_slice(&e.0);
    }
    o
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
