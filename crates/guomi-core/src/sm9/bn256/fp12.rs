//! Fp12 = Fp4[w] / (w^3 - v) (GM/T 0044-2016 Part 1 §A.1), the field that holds GT.
//! An element is c0 + c1*w + c2*w^2 with ci in Fp4. Seen over Fp2 it is
//! sum e_k w^k (k = 0..5, w^6 = u) with c_j = e_j + e_{j+3} v.

use super::fp::Fp;
use super::fp2::Fp2;
use super::fp4::Fp4;
use std::sync::OnceLock;
use subtle::{Choice, ConditionallySelectable, ConstantTimeEq};

/// An element c0 + c1 w + c2 w^2 of Fp12.
#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
pub struct Fp12 {
    pub(crate) c0: Fp4,
    pub(crate) c1: Fp4,
    pub(crate) c2: Fp4,
}

/// (p - 1) / 6, little-endian limbs.
const P_MINUS_1_OVER_6: [u64; 4] = [
    0xa63d4486a5e2e0ea,
    0xdafdc3372f147d24,
    0xf9009c8d5397cbe0,
    0x1e60000000709bd2,
];

/// Frobenius constants: gamma[k] = u^(k (p-1)/6) = w^(k (p-1)), k = 0..5.
pub(crate) struct FrobConsts {
    pub(crate) gamma: [Fp2; 6],
    /// gamma1^-2 and gamma1^-3: the p-power Frobenius on the twist E'(Fp2).
    pub(crate) twist_x: Fp2,
    pub(crate) twist_y: Fp2,
}

pub(crate) fn frob_consts() -> &'static FrobConsts {
    static C: OnceLock<FrobConsts> = OnceLock::new();
    C.get_or_init(|| {
        let u = Fp2::new(Fp::ZERO, Fp::ONE);
        let g1 = u.pow_vartime(&P_MINUS_1_OVER_6);
        let mut gamma = [Fp2::ONE; 6];
        for k in 1..6 {
            gamma[k] = gamma[k - 1].mul(&g1);
        }
        let g1i = g1.invert();
        let twist_x = g1i.square();
        let twist_y = twist_x.mul(&g1i);
        FrobConsts {
            gamma,
            twist_x,
            twist_y,
        }
    })
}

impl Fp12 {
    pub const ZERO: Self = Self {
        c0: Fp4::ZERO,
        c1: Fp4::ZERO,
        c2: Fp4::ZERO,
    };
    pub const ONE: Self = Self {
        c0: Fp4::ONE,
        c1: Fp4::ZERO,
        c2: Fp4::ZERO,
    };

    #[inline]
    pub fn add(&self, b: &Self) -> Self {
        Self {
            c0: self.c0.add(&b.c0),
            c1: self.c1.add(&b.c1),
            c2: self.c2.add(&b.c2),
        }
    }
    #[inline]
    pub fn sub(&self, b: &Self) -> Self {
        Self {
            c0: self.c0.sub(&b.c0),
            c1: self.c1.sub(&b.c1),
            c2: self.c2.sub(&b.c2),
        }
    }

    /// Karatsuba over the cubic extension: 6 Fp4 multiplications.
    #[inline]
    pub fn mul(&self, b: &Self) -> Self {
        let (a0, a1, a2) = (&self.c0, &self.c1, &self.c2);
        let (b0, b1, b2) = (&b.c0, &b.c1, &b.c2);
        let v0 = a0.mul(b0);
        let v1 = a1.mul(b1);
        let v2 = a2.mul(b2);
        let t12 = a1.add(a2).mul(&b1.add(b2)).sub(&v1).sub(&v2);
        let t01 = a0.add(a1).mul(&b0.add(b1)).sub(&v0).sub(&v1);
        let t02 = a0.add(a2).mul(&b0.add(b2)).sub(&v0).sub(&v2);
        Self {
            c0: v0.add(&t12.mul_v()),
            c1: t01.add(&v2.mul_v()),
            c2: t02.add(&v1),
        }
    }

    /// Chung-Hasan SQR2: 2 Fp4 squarings and 3 Fp4 multiplications.
    #[inline]
    pub fn square(&self) -> Self {
        let (a0, a1, a2) = (&self.c0, &self.c1, &self.c2);
        let s0 = a0.square();
        let ab = a0.mul(a1);
        let s1 = ab.double();
        let s2 = a0.sub(a1).add(a2).square();
        let bc = a1.mul(a2);
        let s3 = bc.double();
        let s4 = a2.square();
        Self {
            c0: s0.add(&s3.mul_v()),
            c1: s1.add(&s4.mul_v()),
            c2: s1.add(&s2).add(&s3).sub(&s0).sub(&s4),
        }
    }

    /// Multiplication by a line value l0 + l2 w^2 with l0 = a + b v (a, b in Fp2) and
    /// l2 = c in Fp2 (the sparse shape of the R-ate line functions on this M-type twist).
    #[inline]
    pub fn mul_line(&self, a: &Fp2, b: &Fp2, c: &Fp2) -> Self {
        let l0 = Fp4 { c0: *a, c1: *b };
        let (f0, f1, f2) = (&self.c0, &self.c1, &self.c2);
        // (f0 + f1 w + f2 w^2)(l0 + c w^2)
        //  = (f0 l0 + v f1 c) + (f1 l0 + v f2 c) w + (f0 c + f2 l0) w^2,
        // with f0 c + f2 l0 = (f0 + f2)(l0 + c) - f0 l0 - f2 c (Karatsuba): 13 Fp2
        // multiplications instead of 15.
        let f0l = f0.mul(&l0);
        let f1l = f1.mul(&l0);
        let f1c = f1.mul_fp2(c);
        let f2c = f2.mul_fp2(c);
        let l0c = Fp4 {
            c0: a.add(c),
            c1: *b,
        };
        let mid = f0.add(f2).mul(&l0c).sub(&f0l).sub(&f2c);
        Self {
            c0: f0l.add(&f1c.mul_v()),
            c1: f1l.add(&f2c.mul_v()),
            c2: mid,
        }
    }

    /// Inverse through the tower.
    pub fn invert(&self) -> Self {
        let (a0, a1, a2) = (&self.c0, &self.c1, &self.c2);
        let c0 = a0.square().sub(&a1.mul(a2).mul_v());
        let c1 = a2.square().mul_v().sub(&a0.mul(a1));
        let c2 = a1.square().sub(&a0.mul(a2));
        let t = a0.mul(&c0).add(&a2.mul(&c1).add(&a1.mul(&c2)).mul_v());
        let ti = t.invert();
        Self {
            c0: c0.mul(&ti),
            c1: c1.mul(&ti),
            c2: c2.mul(&ti),
        }
    }

    /// f^(p^6): w -> -w, i.e. the coefficients of odd powers of w change sign. In the
    /// cyclotomic subgroup this is the inverse.
    #[inline]
    pub fn conj(&self) -> Self {
        // e0 (+) e3 (-) in c0; e1 (-) e4 (+) in c1; e2 (+) e5 (-) in c2.
        Self {
            c0: Fp4 {
                c0: self.c0.c0,
                c1: self.c0.c1.neg(),
            },
            c1: Fp4 {
                c0: self.c1.c0.neg(),
                c1: self.c1.c1,
            },
            c2: Fp4 {
                c0: self.c2.c0,
                c1: self.c2.c1.neg(),
            },
        }
    }

    /// f^p.
    pub fn frobenius(&self) -> Self {
        let g = &frob_consts().gamma;
        Self {
            c0: Fp4 {
                c0: self.c0.c0.conj(),
                c1: self.c0.c1.conj().mul(&g[3]),
            },
            c1: Fp4 {
                c0: self.c1.c0.conj().mul(&g[1]),
                c1: self.c1.c1.conj().mul(&g[4]),
            },
            c2: Fp4 {
                c0: self.c2.c0.conj().mul(&g[2]),
                c1: self.c2.c1.conj().mul(&g[5]),
            },
        }
    }

    /// f^(p^2).
    pub fn frobenius2(&self) -> Self {
        self.frobenius().frobenius()
    }

    /// f^(p^3).
    pub fn frobenius3(&self) -> Self {
        self.frobenius().frobenius().frobenius()
    }

    /// Squaring in the cyclotomic subgroup (Granger-Scott, PKC 2010, §3.1):
    /// for f = a + b w + c w^2, f^2 = (3a^2 - 2 conj a) + (3 v c^2 + 2 conj b) w + (3 b^2 - 2 conj c) w^2.
    #[inline]
    pub fn cyclotomic_square(&self) -> Self {
        let (a, b, c) = (&self.c0, &self.c1, &self.c2);
        let a2 = a.square();
        let b2 = b.square();
        let c2v = c.square().mul_v();
        // 3x - 2 conj(y) = x + 2 (x - conj(y)), with x - conj(y) = (x0 - y0) + (x1 + y1) v.
        let m = |x: &Fp4, y: &Fp4| Fp4 {
            c0: x.c0.sub(&y.c0),
            c1: x.c1.add(&y.c1),
        };
        let p = |x: &Fp4, y: &Fp4| Fp4 {
            c0: x.c0.add(&y.c0),
            c1: x.c1.sub(&y.c1),
        };
        let a_ = a2.add(&m(&a2, a).double());
        let b_ = c2v.add(&p(&c2v, b).double());
        let c_ = b2.add(&m(&b2, c).double());
        Self {
            c0: a_,
            c1: b_,
            c2: c_,
        }
    }

    /// f^e in the cyclotomic subgroup, variable time in the (public) exponent.
    pub fn cyclotomic_pow_vartime(&self, e: &[u64]) -> Self {
        let mut r = Self::ONE;
        let mut started = false;
        for i in (0..e.len() * 64).rev() {
            if started {
                r = r.cyclotomic_square();
            }
            if (e[i / 64] >> (i % 64)) & 1 == 1 {
                r = if started { r.mul(self) } else { *self };
                started = true;
            }
        }
        r
    }

    /// f^e in the cyclotomic subgroup for e given in non-adjacent form (digits -1, 0, 1,
    /// least significant first); f^-1 = conj(f) there. Variable time in the public e.
    pub fn cyclotomic_pow_naf(&self, naf: &[i8]) -> Self {
        let inv = self.conj();
        let mut r = Self::ONE;
        let mut started = false;
        for &d in naf.iter().rev() {
            if started {
                r = r.cyclotomic_square();
            }
            if d != 0 {
                let m = if d > 0 { self } else { &inv };
                r = if started { r.mul(m) } else { *m };
                started = true;
            }
        }
        r
    }

    /// f^e (any f) by square-and-multiply, variable time in e; used by tests.
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

    /// The 12 Fp coefficients in the byte order of GM/T 0044 (used in H2 and the KDF
    /// inputs): highest tower coefficient first,
    /// c2.c1.c1 || c2.c1.c0 || c2.c0.c1 || c2.c0.c0 || c1... || c0...
    pub fn to_bytes(&self) -> [u8; 384] {
        let mut o = [0u8; 384];
        let mut i = 0;
        for c in [&self.c2, &self.c1, &self.c0] {
            for e in [&c.c1, &c.c0] {
                o[i..i + 64].copy_from_slice(&e.to_bytes());
                i += 64;
            }
        }
        o
    }

    /// Parses [`Self::to_bytes`]; `None` if a coefficient is not below p.
    pub fn from_bytes(b: &[u8; 384]) -> Option<Self> {
        let mut e = [Fp2::ZERO; 6];
        for (k, chunk) in b.chunks_exact(64).enumerate() {
            e[k] = Fp2::from_bytes(chunk.try_into().unwrap())?;
        }
        Some(Self {
            c2: Fp4 { c1: e[0], c0: e[1] },
            c1: Fp4 { c1: e[2], c0: e[3] },
            c0: Fp4 { c1: e[4], c0: e[5] },
        })
    }

    pub fn is_one(&self) -> Choice {
        self.ct_eq(&Self::ONE)
    }
}

impl ConstantTimeEq for Fp12 {
    fn ct_eq(&self, o: &Self) -> Choice {
        self.c0.ct_eq(&o.c0) & self.c1.ct_eq(&o.c1) & self.c2.ct_eq(&o.c2)
    }
}

impl ConditionallySelectable for Fp12 {
    fn conditional_select(a: &Self, b: &Self, c: Choice) -> Self {
        Self {
            c0: Fp4::conditional_select(&a.c0, &b.c0, c),
            c1: Fp4::conditional_select(&a.c1, &b.c1, c),
            c2: Fp4::conditional_select(&a.c2, &b.c2, c),
        }
    }
}

impl zeroize::Zeroize for Fp12 {
    fn zeroize(&mut self) {
        self.c0.zeroize();
        self.c1.zeroize();
        self.c2.zeroize();
    }
}
