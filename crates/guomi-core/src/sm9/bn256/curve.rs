//! Short Weierstrass curves y^2 = x^3 + b (a = 0) over Fp (G1) and Fp2 (the twist, G2),
//! in homogeneous projective coordinates (X : Y : Z), identity (0 : 1 : 0). Addition and
//! doubling use the complete formulas of Renes, Costello and Batina (EUROCRYPT 2016,
//! Algorithms 7 and 9 for a = 0): no exceptional cases, hence no branches on secret data.

use super::fp::Fp;
use super::fp2::Fp2;
use subtle::{Choice, ConditionallySelectable, ConstantTimeEq};

/// The field operations the curve code needs.
pub trait CurveField:
    Copy + Default + ConditionallySelectable + ConstantTimeEq + zeroize::Zeroize
{
    const ZERO: Self;
    const ONE: Self;
    fn add(&self, b: &Self) -> Self;
    fn sub(&self, b: &Self) -> Self;
    fn mul(&self, b: &Self) -> Self;
    fn square(&self) -> Self;
    fn double(&self) -> Self;
    fn neg(&self) -> Self;
    fn invert(&self) -> Self;
    fn is_zero(&self) -> Choice;
}

macro_rules! impl_curve_field {
    ($t:ty) => {
        impl CurveField for $t {
            const ZERO: Self = <$t>::ZERO;
            const ONE: Self = <$t>::ONE;
            #[inline(always)]
            fn add(&self, b: &Self) -> Self {
                <$t>::add(self, b)
            }
            #[inline(always)]
            fn sub(&self, b: &Self) -> Self {
                <$t>::sub(self, b)
            }
            #[inline(always)]
            fn mul(&self, b: &Self) -> Self {
                <$t>::mul(self, b)
            }
            #[inline(always)]
            fn square(&self) -> Self {
                <$t>::square(self)
            }
            #[inline(always)]
            fn double(&self) -> Self {
                <$t>::double(self)
            }
            #[inline(always)]
            fn neg(&self) -> Self {
                <$t>::neg(self)
            }
            fn invert(&self) -> Self {
                <$t>::invert(self)
            }
            fn is_zero(&self) -> Choice {
                <$t>::is_zero(self)
            }
        }
    };
}
impl_curve_field!(Fp);
impl_curve_field!(Fp2);

/// The curve constant: b and 3b.
pub trait CurveParams: Copy + 'static {
    type F: CurveField;
    fn b() -> Self::F;
    fn b3() -> Self::F;
}

/// A point in homogeneous projective coordinates.
#[derive(Clone, Copy, Debug)]
pub struct Point<C: CurveParams> {
    pub(crate) x: C::F,
    pub(crate) y: C::F,
    pub(crate) z: C::F,
}

/// An affine point (never the identity).
#[derive(Clone, Copy, Debug, Default)]
pub struct Affine<F: CurveField> {
    pub(crate) x: F,
    pub(crate) y: F,
}

impl<C: CurveParams> Point<C> {
    pub fn identity() -> Self {
        Self {
            x: C::F::ZERO,
            y: C::F::ONE,
            z: C::F::ZERO,
        }
    }

    pub fn from_affine(a: &Affine<C::F>) -> Self {
        Self {
            x: a.x,
            y: a.y,
            z: C::F::ONE,
        }
    }

    pub fn is_identity(&self) -> Choice {
        self.z.is_zero()
    }

    /// (x, y) or `None` for the identity.
    pub fn to_affine(&self) -> Option<Affine<C::F>> {
        // Declassified: identity or not. For a secret point (S = [l]ds_A with l != 0) it is
        // never the identity, and the outcome is an error the API returns.
        if crate::ct::declassify_choice(self.is_identity()) {
            return None;
        }
        let zi = self.z.invert();
        Some(Affine {
            x: self.x.mul(&zi),
            y: self.y.mul(&zi),
        })
    }

    pub fn neg(&self) -> Self {
        Self {
            x: self.x,
            y: self.y.neg(),
            z: self.z,
        }
    }

    /// Complete addition (RCB16 Algorithm 7, a = 0).
    pub fn add(&self, q: &Self) -> Self {
        let b3 = C::b3();
        let (x1, y1, z1) = (&self.x, &self.y, &self.z);
        let (x2, y2, z2) = (&q.x, &q.y, &q.z);
        let mut t0 = x1.mul(x2);
        let mut t1 = y1.mul(y2);
        let mut t2 = z1.mul(z2);
        let mut t3 = x1.add(y1);
        let mut t4 = x2.add(y2);
        t3 = t3.mul(&t4);
        t4 = t0.add(&t1);
        t3 = t3.sub(&t4);
        t4 = y1.add(z1);
        let mut x3 = y2.add(z2);
        t4 = t4.mul(&x3);
        x3 = t1.add(&t2);
        t4 = t4.sub(&x3);
        x3 = x1.add(z1);
        let mut y3 = x2.add(z2);
        x3 = x3.mul(&y3);
        y3 = t0.add(&t2);
        y3 = x3.sub(&y3);
        x3 = t0.add(&t0);
        t0 = x3.add(&t0);
        t2 = b3.mul(&t2);
        let mut z3 = t1.add(&t2);
        t1 = t1.sub(&t2);
        y3 = b3.mul(&y3);
        x3 = t4.mul(&y3);
        t2 = t3.mul(&t1);
        x3 = t2.sub(&x3);
        y3 = y3.mul(&t0);
        t1 = t1.mul(&z3);
        y3 = t1.add(&y3);
        t0 = t0.mul(&t3);
        z3 = z3.mul(&t4);
        z3 = z3.add(&t0);
        Self {
            x: x3,
            y: y3,
            z: z3,
        }
    }

    /// Complete doubling (RCB16 Algorithm 9, a = 0).
    pub fn double(&self) -> Self {
        let b3 = C::b3();
        let (x, y, z) = (&self.x, &self.y, &self.z);
        let mut t0 = y.square();
        let mut z3 = t0.add(&t0);
        z3 = z3.add(&z3);
        z3 = z3.add(&z3);
        let mut t1 = y.mul(z);
        let mut t2 = z.square();
        t2 = b3.mul(&t2);
        let mut x3 = t2.mul(&z3);
        let mut y3 = t0.add(&t2);
        z3 = t1.mul(&z3);
        t1 = t2.add(&t2);
        t2 = t1.add(&t2);
        t0 = t0.sub(&t2);
        y3 = t0.mul(&y3);
        y3 = x3.add(&y3);
        t1 = x.mul(y);
        x3 = t0.mul(&t1);
        x3 = x3.add(&x3);
        Self {
            x: x3,
            y: y3,
            z: z3,
        }
    }

    /// Projective equality (constant time).
    pub fn ct_eq(&self, q: &Self) -> Choice {
        let a = self.x.mul(&q.z).ct_eq(&q.x.mul(&self.z));
        let b = self.y.mul(&q.z).ct_eq(&q.y.mul(&self.z));
        let both_id = self.is_identity() & q.is_identity();
        let none_id = !self.is_identity() & !q.is_identity();
        both_id | (none_id & a & b)
    }

    /// Is (x, y) on the curve?
    pub fn affine_on_curve(a: &Affine<C::F>) -> Choice {
        let lhs = a.y.square();
        let rhs = a.x.square().mul(&a.x).add(&C::b());
        lhs.ct_eq(&rhs)
    }

    /// 16-entry table [0]P .. [15]P for the fixed windows.
    fn window_table(&self) -> [Self; 16] {
        let mut t = [Self::identity(); 16];
        t[1] = *self;
        for i in 2..16 {
            t[i] = if i % 2 == 0 {
                t[i / 2].double()
            } else {
                t[i - 1].add(self)
            };
        }
        t
    }

    /// [k]P for a secret scalar k (little-endian limbs, any value below 2^256): fixed
    /// 4-bit windows, masked table reads, complete formulas: constant time.
    pub fn mul_ct(&self, k: &[u64; 4]) -> Self {
        super::select_backend();
        let table = self.window_table();
        let mut r = Self::identity();
        for i in (0..64).rev() {
            r = r.double().double().double().double();
            let d = ((k[i / 16] >> ((i % 16) * 4)) & 15) as u8;
            r = r.add(&select(&table, d));
        }
        r
    }

    /// [k]P for a public 64-bit scalar: double-and-add over the non-adjacent form of k
    /// (branches on the public digits only; constant time in the point, so it may be a
    /// secret point).
    pub fn mul_public_u64(&self, k: u64) -> Self {
        super::select_backend();
        let mut naf = [0i8; 66];
        let mut v = k as u128;
        let mut len = 0;
        while v != 0 {
            if v & 1 == 1 {
                let d: i8 = if v & 3 == 1 { 1 } else { -1 };
                v = if d == 1 { v - 1 } else { v + 1 };
                naf[len] = d;
            }
            v >>= 1;
            len += 1;
        }
        let neg = self.neg();
        let mut r = Self::identity();
        for (i, &d) in naf[..len].iter().enumerate().rev() {
            if i + 1 != len {
                r = r.double();
            }
            match d {
                1 => r = r.add(self),
                -1 => r = r.add(&neg),
                _ => {}
            }
        }
        r
    }

    /// [k]P for a public scalar (same code; the constant-time path is fast enough).
    pub fn mul_vartime(&self, k: &[u64; 4]) -> Self {
        self.mul_ct(k)
    }
}

impl<C: CurveParams> ConditionallySelectable for Point<C> {
    fn conditional_select(a: &Self, b: &Self, c: Choice) -> Self {
        Self {
            x: C::F::conditional_select(&a.x, &b.x, c),
            y: C::F::conditional_select(&a.y, &b.y, c),
            z: C::F::conditional_select(&a.z, &b.z, c),
        }
    }
}

/// Reads table[d] touching every entry (constant time in d).
#[inline]
pub(crate) fn select<C: CurveParams>(table: &[Point<C>; 16], d: u8) -> Point<C> {
    let mut r = Point::<C>::identity();
    for (j, t) in table.iter().enumerate() {
        r.conditional_assign(t, (j as u8).ct_eq(&d));
    }
    r
}

/// A fixed-base comb for [k]B with a 256-bit k: 64 tables of [j 16^i]B, j = 0..15.
/// [k]B is 64 additions of masked table reads, no doublings.
pub struct FixedBase<C: CurveParams> {
    tables: Vec<[Point<C>; 16]>,
}

impl<C: CurveParams> FixedBase<C> {
    pub fn new(base: &Point<C>) -> Self {
        super::select_backend();
        let mut tables = Vec::with_capacity(64);
        let mut b = *base;
        for _ in 0..64 {
            tables.push(b.window_table());
            b = b.double().double().double().double();
        }
        Self { tables }
    }

    /// Overwrites the tables (for bases derived from secrets).
    pub fn zeroize_tables(&mut self) {
        use zeroize::Zeroize;
        for t in self.tables.iter_mut() {
            for p in t.iter_mut() {
                p.x.zeroize();
                p.y.zeroize();
                p.z.zeroize();
            }
        }
    }

    /// [k]B, constant time in k.
    pub fn mul(&self, k: &[u64; 4]) -> Point<C> {
        super::select_backend();
        let mut r = Point::<C>::identity();
        for (i, t) in self.tables.iter().enumerate() {
            let d = ((k[i / 16] >> ((i % 16) * 4)) & 15) as u8;
            r = r.add(&select(t, d));
        }
        r
    }
}
