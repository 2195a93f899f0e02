//! Points on a short Weierstrass curve in Jacobian coordinates (X : Y : Z) representing
//! (X/Z^2, Y/Z^3); Z = 0 is the point at infinity.
//!
//! Formulas: doubling "dbl-2001-b" (a = -3) and "dbl-2007-bl" (any a), addition and
//! mixed addition "add-1998-cmo-2" (Explicit-Formulas Database, hyperelliptic.org/EFD),
//! chosen for few field additions, which cost here about as much as the difference
//! between a product and a square. The constant-time additions report the one case they
//! cannot handle (adding a point to itself) instead of branching on it; callers fall back
//! to a complete, slower method in that (negligibly rare) case.

use super::curve::Curve;
use super::field::{Fe, Modulus};
use subtle::{Choice, ConditionallySelectable, ConstantTimeEq};

/// The field operations a point formula runs on, chosen once per formula: [`Dispatch`]
/// (the `Fe` methods, which pick the code per operation) or, for the SM2 prime with the
/// assembly switched on, [`Sm2Asm`] (the assembly called directly).
trait FieldOps<F: Modulus>: Copy {
    fn mul(self, a: &Fe<F>, b: &Fe<F>) -> Fe<F>;
    fn sqr(self, a: &Fe<F>) -> Fe<F>;
    fn add(self, a: &Fe<F>, b: &Fe<F>) -> Fe<F>;
    fn sub(self, a: &Fe<F>, b: &Fe<F>) -> Fe<F>;
    fn half(self, a: &Fe<F>) -> Fe<F>;
    #[inline(always)]
    fn dbl(self, a: &Fe<F>) -> Fe<F> {
        self.add(a, a)
    }
}

/// The `Fe` methods.
#[derive(Clone, Copy)]
pub(crate) struct Dispatch;

impl<F: Modulus> FieldOps<F> for Dispatch {
    #[inline(always)]
    fn mul(self, a: &Fe<F>, b: &Fe<F>) -> Fe<F> {
        a.mul(b)
    }
    #[inline(always)]
    fn sqr(self, a: &Fe<F>) -> Fe<F> {
        a.square()
    }
    #[inline(always)]
    fn add(self, a: &Fe<F>, b: &Fe<F>) -> Fe<F> {
        a.add(b)
    }
    #[inline(always)]
    fn sub(self, a: &Fe<F>, b: &Fe<F>) -> Fe<F> {
        a.sub(b)
    }
    #[inline(always)]
    fn half(self, a: &Fe<F>) -> Fe<F> {
        a.half()
    }
    #[inline(always)]
    fn dbl(self, a: &Fe<F>) -> Fe<F> {
        a.double()
    }
}

/// The SM2-prime assembly, called directly (one switch check per point operation).
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
pub(crate) struct Sm2Asm(super::x86_avx2::FieldAsm);

#[cfg(target_arch = "x86_64")]
impl Sm2Asm {
    /// `Some` when F is the SM2 prime field and the assembly is switched on for this
    /// thread (the same condition under which `Fe`'s methods use it).
    #[inline(always)]
    pub(crate) fn for_field<F: Modulus>() -> Option<Self> {
        if F::M == super::x86_avx2::SM2_P {
            super::x86_avx2::FieldAsm::selected().map(Sm2Asm)
        } else {
            None
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn fe<F: Modulus>(l: super::field::Limbs) -> Fe<F> {
    let mut f = Fe::ZERO;
    f.0 = l;
    f
}

#[cfg(target_arch = "x86_64")]
impl<F: Modulus> FieldOps<F> for Sm2Asm {
    #[inline(always)]
    fn mul(self, a: &Fe<F>, b: &Fe<F>) -> Fe<F> {
        fe(self.0.mul(&a.0, &b.0))
    }
    #[inline(always)]
    fn sqr(self, a: &Fe<F>) -> Fe<F> {
        fe(self.0.sqr(&a.0))
    }
    #[inline(always)]
    fn add(self, a: &Fe<F>, b: &Fe<F>) -> Fe<F> {
        fe(self.0.add(&a.0, &b.0))
    }
    #[inline(always)]
    fn sub(self, a: &Fe<F>, b: &Fe<F>) -> Fe<F> {
        fe(self.0.sub(&a.0, &b.0))
    }
    #[inline(always)]
    fn half(self, a: &Fe<F>) -> Fe<F> {
        fe(self.0.half(&a.0))
    }
}

/// The point operations of a scalar-multiplication loop, chosen once per multiplication
/// so that the loop is compiled for one field code: [`Sm2Asm`] inlines the formulas on
/// the assembly (the limbs stay in registers; a loop that may also take the other path
/// merges the two results through memory, and the narrow stores then feed wide loads, a
/// store-forwarding stall that cost 10 % of a doubling), [`Dispatch`] calls the point
/// methods.
pub(crate) trait PointOps<C: Curve>: Copy {
    fn double(self, p: &Jacobian<C>) -> Jacobian<C>;
    fn add(self, p: &Jacobian<C>, q: &Jacobian<C>) -> (Jacobian<C>, Choice);
    fn add_mixed(self, p: &Jacobian<C>, q: &Affine<C>) -> (Jacobian<C>, Choice);
    /// [`Jacobian::add_mixed_blinded_with`].
    fn add_mixed_blinded(
        self,
        p: &Jacobian<C>,
        p_inf: Choice,
        q: &Affine<C>,
    ) -> (Jacobian<C>, Choice);
}

// The out-of-line `Dispatch` forms directly: inlining `double()` here would bring its
// assembly path into the loop, and the two results would meet in memory again.
impl<C: Curve> PointOps<C> for Dispatch {
    #[inline(always)]
    fn double(self, p: &Jacobian<C>) -> Jacobian<C> {
        p.double_dispatch()
    }
    #[inline(always)]
    fn add(self, p: &Jacobian<C>, q: &Jacobian<C>) -> (Jacobian<C>, Choice) {
        p.add_dispatch(q)
    }
    #[inline(always)]
    fn add_mixed(self, p: &Jacobian<C>, q: &Affine<C>) -> (Jacobian<C>, Choice) {
        p.add_mixed_dispatch(q)
    }
    #[inline(always)]
    fn add_mixed_blinded(
        self,
        p: &Jacobian<C>,
        p_inf: Choice,
        q: &Affine<C>,
    ) -> (Jacobian<C>, Choice) {
        p.add_mixed_blinded_dispatch(p_inf, q)
    }
}

#[cfg(target_arch = "x86_64")]
impl<C: Curve> PointOps<C> for Sm2Asm {
    #[inline(always)]
    fn double(self, p: &Jacobian<C>) -> Jacobian<C> {
        p.double_asm(self)
    }
    #[inline(always)]
    fn add(self, p: &Jacobian<C>, q: &Jacobian<C>) -> (Jacobian<C>, Choice) {
        p.add_with(q, self)
    }
    #[inline(always)]
    fn add_mixed(self, p: &Jacobian<C>, q: &Affine<C>) -> (Jacobian<C>, Choice) {
        p.add_mixed_with(q, self)
    }
    #[inline(always)]
    fn add_mixed_blinded(
        self,
        p: &Jacobian<C>,
        p_inf: Choice,
        q: &Affine<C>,
    ) -> (Jacobian<C>, Choice) {
        p.add_mixed_blinded_with(p_inf, q, self)
    }
}

/// An affine point (never the point at infinity).
pub struct Affine<C: Curve> {
    pub(crate) x: Fe<C::F>,
    pub(crate) y: Fe<C::F>,
}

impl<C: Curve> Clone for Affine<C> {
    #[inline(always)]
    fn clone(&self) -> Self {
        *self
    }
}
impl<C: Curve> Copy for Affine<C> {}

impl<C: Curve> ConditionallySelectable for Affine<C> {
    #[inline(always)]
    fn conditional_select(a: &Self, b: &Self, c: Choice) -> Self {
        Affine {
            x: Fe::conditional_select(&a.x, &b.x, c),
            y: Fe::conditional_select(&a.y, &b.y, c),
        }
    }
}

impl<C: Curve> Affine<C> {
    pub(crate) const ZERO: Self = Affine {
        x: Fe::ZERO,
        y: Fe::ZERO,
    };

    /// Whether y^2 = x^3 + ax + b (GB/T 32918.1 §6.2 point validation, step b).
    pub(crate) fn is_on_curve(&self) -> Choice {
        let lhs = self.y.square();
        let rhs = self.x.square().add(&C::a()).mul(&self.x).add(&C::b());
        lhs.ct_eq(&rhs)
    }

    #[inline(always)]
    pub(crate) fn neg(&self) -> Self {
        Affine {
            x: self.x,
            y: self.y.neg(),
        }
    }

    #[inline(always)]
    pub(crate) fn to_jacobian(self) -> Jacobian<C> {
        Jacobian {
            x: self.x,
            y: self.y,
            z: Fe::ONE,
        }
    }

    /// The Montgomery limbs x ∥ y (the storage of the comb and fixed-window tables).
    #[inline(always)]
    pub(crate) fn to_words(self) -> [u64; 8] {
        let (x, y) = (self.x.0, self.y.0);
        [x[0], x[1], x[2], x[3], y[0], y[1], y[2], y[3]]
    }

    /// The point whose Montgomery limbs are `w` (from [`Affine::to_words`]).
    #[inline(always)]
    pub(crate) fn from_words(w: &[u64; 8]) -> Self {
        let mut p = Self::ZERO;
        p.x.0 = [w[0], w[1], w[2], w[3]];
        p.y.0 = [w[4], w[5], w[6], w[7]];
        p
    }

    /// x || y, 32 big-endian bytes each.
    pub(crate) fn to_bytes(self) -> ([u8; 32], [u8; 32]) {
        (self.x.to_bytes(), self.y.to_bytes())
    }
}

/// A point in Jacobian coordinates.
pub struct Jacobian<C: Curve> {
    pub(crate) x: Fe<C::F>,
    pub(crate) y: Fe<C::F>,
    pub(crate) z: Fe<C::F>,
}

impl<C: Curve> Clone for Jacobian<C> {
    #[inline(always)]
    fn clone(&self) -> Self {
        *self
    }
}
impl<C: Curve> Copy for Jacobian<C> {}

impl<C: Curve> ConditionallySelectable for Jacobian<C> {
    #[inline(always)]
    fn conditional_select(a: &Self, b: &Self, c: Choice) -> Self {
        Jacobian {
            x: Fe::conditional_select(&a.x, &b.x, c),
            y: Fe::conditional_select(&a.y, &b.y, c),
            z: Fe::conditional_select(&a.z, &b.z, c),
        }
    }
}

impl<C: Curve> Jacobian<C> {
    pub(crate) const INFINITY: Self = Jacobian {
        x: Fe::ONE,
        y: Fe::ONE,
        z: Fe::ZERO,
    };

    #[inline(always)]
    pub(crate) fn is_infinity(&self) -> Choice {
        self.z.is_zero()
    }

    #[inline(always)]
    pub(crate) fn neg(&self) -> Self {
        Jacobian {
            x: self.x,
            y: self.y.neg(),
            z: self.z,
        }
    }

    /// 2P. Correct for every input (infinity stays infinity; no point of order 2 exists
    /// on these prime-order curves).
    #[inline]
    pub(crate) fn double(&self) -> Self {
        #[cfg(target_arch = "x86_64")]
        if let Some(ops) = Sm2Asm::for_field::<C::F>() {
            return self.double_asm(ops);
        }
        self.double_dispatch()
    }

    // The `Dispatch` forms stay out of line: inlined into a caller's loop (the doublings of
    // `mul_var_table_ct`), LLVM turned the portable field code's masked final subtraction
    // into a branch (its cmov-to-branch conversion in loops; scripts/ct-check.sh reported
    // it). As functions of their own they compile as before, branch-free.
    #[cold]
    #[inline(never)]
    fn double_dispatch(&self) -> Self {
        self.double_with(Dispatch)
    }

    #[inline(always)]
    fn double_with<O: FieldOps<C::F>>(&self, f: O) -> Self {
        if C::A_IS_MINUS_3 {
            // dbl-2001-b (3(X - Z^2)(X + Z^2) for a = -3) arranged to need few additions:
            // S = (2Y)^2 = 4Y^2 folds the factor 4 of 4XY^2 into a square, 8Y^4 = S^2 / 2,
            // Z3 = 2Y·Z (one product instead of a square and three additions, on the 2Y
            // that S needs anyway).
            let y2 = f.dbl(&self.y);
            let s = f.sqr(&y2);
            let zz = f.sqr(&self.z);
            let z3 = f.mul(&y2, &self.z);
            let m = f.mul(&f.add(&self.x, &zz), &f.sub(&self.x, &zz));
            let m = f.add(&f.dbl(&m), &m);
            let y4_8 = f.half(&f.sqr(&s));
            let s = f.mul(&s, &self.x);
            let x3 = f.sub(&f.sqr(&m), &f.dbl(&s));
            let y3 = f.sub(&f.mul(&m, &f.sub(&s, &x3)), &y4_8);
            Jacobian {
                x: x3,
                y: y3,
                z: z3,
            }
        } else {
            // dbl-2007-bl
            let xx = f.sqr(&self.x);
            let yy = f.sqr(&self.y);
            let yyyy = f.sqr(&yy);
            let zz = f.sqr(&self.z);
            let s = f.dbl(&f.sub(&f.sub(&f.sqr(&f.add(&self.x, &yy)), &xx), &yyyy));
            let m = f.add(&f.add(&f.dbl(&xx), &xx), &f.mul(&C::a(), &f.sqr(&zz)));
            let t = f.sub(&f.sqr(&m), &f.dbl(&s));
            let y3 = f.sub(&f.mul(&m, &f.sub(&s, &t)), &f.dbl(&f.dbl(&f.dbl(&yyyy))));
            let z3 = f.sub(&f.sub(&f.sqr(&f.add(&self.y, &self.z)), &yy), &zz);
            Jacobian { x: t, y: y3, z: z3 }
        }
    }

    /// P + Q for Q affine, constant time. Handles P = infinity. Returns the flag
    /// "P == Q" (where the result is wrong) for the caller to handle.
    #[inline]
    pub(crate) fn add_mixed_ct(&self, q: &Affine<C>) -> (Self, Choice) {
        #[cfg(target_arch = "x86_64")]
        if let Some(ops) = Sm2Asm::for_field::<C::F>() {
            return self.add_mixed_with(q, ops);
        }
        self.add_mixed_dispatch(q)
    }

    #[cold]
    #[inline(never)]
    fn add_mixed_dispatch(&self, q: &Affine<C>) -> (Self, Choice) {
        self.add_mixed_with(q, Dispatch)
    }

    #[inline(always)]
    fn add_mixed_with<O: FieldOps<C::F>>(&self, q: &Affine<C>, f: O) -> (Self, Choice) {
        let (sum, _, equal) = self.add_mixed_parts(q, f);
        let p_inf = self.is_infinity();
        (
            Jacobian::conditional_select(&sum, &q.to_jacobian(), p_inf),
            equal & !p_inf,
        )
    }

    #[cold]
    #[inline(never)]
    fn add_mixed_blinded_dispatch(&self, p_inf: Choice, q: &Affine<C>) -> (Self, Choice) {
        self.add_mixed_blinded_with(p_inf, q, Dispatch)
    }

    /// P + Q for Q affine, where `p_inf` says whether P stands for the point at infinity,
    /// whatever its coordinates: the accumulator of the constant-time loops, which starts
    /// as a placeholder with a random Z (`table.rs`). Z must not be 0. For P at infinity
    /// the result is Q on P's Z, (x·Z², y·Z³, Z), products the formula computes anyway:
    /// the random Z carries over to Q instead of the Z = 1 of an affine point. Returns
    /// the flag "P == Q" (where the result is wrong), as [`Self::add_mixed_ct`].
    #[inline(always)]
    fn add_mixed_blinded_with<O: FieldOps<C::F>>(
        &self,
        p_inf: Choice,
        q: &Affine<C>,
        f: O,
    ) -> (Self, Choice) {
        let (sum, q_on_z, equal) = self.add_mixed_parts(q, f);
        (
            Jacobian::conditional_select(&sum, &q_on_z, p_inf),
            equal & !p_inf,
        )
    }

    /// The mixed addition's values: P + Q (wrong when P = Q or P is at infinity), Q on
    /// P's Z, and whether h = r = 0 (P == Q, for P not at infinity).
    #[inline(always)]
    fn add_mixed_parts<O: FieldOps<C::F>>(&self, q: &Affine<C>, f: O) -> (Self, Self, Choice) {
        // add-1998-cmo-2 with Z2 = 1: 8M + 3S and 7 additions (madd-2007-bl needs 7M + 4S
        // but 12 additions, which cost more than the product they save).
        let z1z1 = f.sqr(&self.z);
        let u2 = f.mul(&q.x, &z1z1);
        let s2 = f.mul(&q.y, &f.mul(&self.z, &z1z1));
        let h = f.sub(&u2, &self.x);
        let r = f.sub(&s2, &self.y);
        let hh = f.sqr(&h);
        let hhh = f.mul(&hh, &h);
        let v = f.mul(&self.x, &hh);
        let x3 = f.sub(&f.sub(&f.sqr(&r), &hhh), &f.dbl(&v));
        let y3 = f.sub(&f.mul(&r, &f.sub(&v, &x3)), &f.mul(&self.y, &hhh));
        let z3 = f.mul(&self.z, &h);
        let sum = Jacobian {
            x: x3,
            y: y3,
            z: z3,
        };
        let q_on_z = Jacobian {
            x: u2,
            y: s2,
            z: self.z,
        };
        (sum, q_on_z, h.is_zero() & r.is_zero())
    }

    /// P + Q, constant time. Handles either input at infinity. Returns the flag
    /// "P == Q" (where the result is wrong) for the caller to handle.
    #[inline]
    pub(crate) fn add_ct(&self, q: &Self) -> (Self, Choice) {
        #[cfg(target_arch = "x86_64")]
        if let Some(ops) = Sm2Asm::for_field::<C::F>() {
            return self.add_with(q, ops);
        }
        self.add_dispatch(q)
    }

    #[cold]
    #[inline(never)]
    fn add_dispatch(&self, q: &Self) -> (Self, Choice) {
        self.add_with(q, Dispatch)
    }

    #[inline(always)]
    fn add_with<O: FieldOps<C::F>>(&self, q: &Self, f: O) -> (Self, Choice) {
        // add-1998-cmo-2: 12M + 4S and 7 additions (add-2007-bl: 11M + 5S, 11 additions).
        let z1z1 = f.sqr(&self.z);
        let z2z2 = f.sqr(&q.z);
        let u1 = f.mul(&self.x, &z2z2);
        let u2 = f.mul(&q.x, &z1z1);
        let s1 = f.mul(&self.y, &f.mul(&q.z, &z2z2));
        let s2 = f.mul(&q.y, &f.mul(&self.z, &z1z1));
        let h = f.sub(&u2, &u1);
        let r = f.sub(&s2, &s1);
        let hh = f.sqr(&h);
        let hhh = f.mul(&hh, &h);
        let v = f.mul(&u1, &hh);
        let x3 = f.sub(&f.sub(&f.sqr(&r), &hhh), &f.dbl(&v));
        let y3 = f.sub(&f.mul(&r, &f.sub(&v, &x3)), &f.mul(&s1, &hhh));
        let z3 = f.mul(&f.mul(&self.z, &q.z), &h);
        let p_inf = self.is_infinity();
        let q_inf = q.is_infinity();
        let same = h.is_zero() & r.is_zero() & !p_inf & !q_inf;
        let mut out = Jacobian {
            x: x3,
            y: y3,
            z: z3,
        };
        out = Jacobian::conditional_select(&out, q, p_inf);
        out = Jacobian::conditional_select(&out, self, q_inf);
        (out, same)
    }

    /// P + Q for every input, constant time (computes the doubling too). The tests'
    /// reference multiplication.
    #[cfg(test)]
    pub(crate) fn add_complete(&self, q: &Self) -> Self {
        let (sum, same) = self.add_ct(q);
        let dbl = self.double();
        Jacobian::conditional_select(&sum, &dbl, same)
    }

    /// P + Q, variable time (public points only).
    pub(crate) fn add_vartime(&self, q: &Self) -> Self {
        let (sum, same) = self.add_ct(q);
        if bool::from(same) {
            self.double()
        } else {
            sum
        }
    }

    /// P + Q for affine Q, variable time (public points only).
    pub(crate) fn add_mixed_vartime(&self, q: &Affine<C>) -> Self {
        let (sum, same) = self.add_mixed_ct(q);
        if bool::from(same) {
            self.double()
        } else {
            sum
        }
    }

    /// The affine point, or `None` for infinity. Constant time apart from the
    /// infinity outcome (one safegcd inversion).
    pub(crate) fn to_affine(self) -> Option<Affine<C>> {
        let a = self.scaled(&self.z.invert());
        // Declassified: whether the point is infinity. Callers turn it into an error or a
        // retry that the API reports (for a valid key and an in-range scalar it never
        // happens); the inversion and products before it are constant time.
        if crate::ct::declassify_choice(self.is_infinity()) {
            None
        } else {
            Some(a)
        }
    }

    /// The affine point of a public point not at infinity (variable-time inversion).
    pub(crate) fn to_affine_vartime(self) -> Affine<C> {
        self.scaled(&self.z.invert_vartime())
    }

    /// Both points in affine form with one shared inversion (Montgomery's trick);
    /// `None` if either is infinity. Constant time apart from that outcome.
    pub(crate) fn to_affine_pair(self, other: &Self) -> Option<(Affine<C>, Affine<C>)> {
        let inv = self.z.mul(&other.z).invert();
        let out = (
            self.scaled(&inv.mul(&other.z)),
            other.scaled(&inv.mul(&self.z)),
        );
        // Declassified: either point at infinity, as in `to_affine`.
        if crate::ct::declassify_choice(self.is_infinity() | other.is_infinity()) {
            None
        } else {
            Some(out)
        }
    }

    /// (X·zinv², Y·zinv³): the affine point when `zinv` is 1/Z.
    fn scaled(&self, zinv: &Fe<C::F>) -> Affine<C> {
        let zinv2 = zinv.square();
        Affine {
            x: self.x.mul(&zinv2),
            y: self.y.mul(&zinv2).mul(zinv),
        }
    }

    /// Affine x coordinate times Z^2 equals `x`? (Projective comparison, no inversion.)
    pub(crate) fn x_equals_vartime(&self, x: &Fe<C::F>) -> bool {
        !bool::from(self.is_infinity()) && bool::from(self.x.ct_eq(&x.mul(&self.z.square())))
    }
}

/// Converts many Jacobian points (none at infinity) to affine with one inversion
/// (Montgomery's trick). Variable time: public points only.
pub(crate) fn batch_to_affine_vartime<C: Curve>(pts: &[Jacobian<C>]) -> Vec<Affine<C>> {
    super::field::select_backend();
    #[cfg(target_arch = "x86_64")]
    if let Some(f) = Sm2Asm::for_field::<C::F>() {
        return batch_to_affine_with(pts, f);
    }
    batch_to_affine_with(pts, Dispatch)
}

#[inline(always)]
fn batch_to_affine_with<C: Curve, O: FieldOps<C::F>>(pts: &[Jacobian<C>], f: O) -> Vec<Affine<C>> {
    let mut acc = Vec::with_capacity(pts.len());
    let mut prod = Fe::<C::F>::ONE;
    for p in pts {
        acc.push(prod);
        prod = f.mul(&prod, &p.z);
    }
    let mut inv = prod.invert_vartime();
    let mut out = vec![Affine::ZERO; pts.len()];
    for i in (0..pts.len()).rev() {
        let zinv = f.mul(&inv, &acc[i]);
        inv = f.mul(&inv, &pts[i].z);
        let zinv2 = f.sqr(&zinv);
        out[i] = Affine {
            x: f.mul(&pts[i].x, &zinv2),
            y: f.mul(&f.mul(&pts[i].y, &zinv2), &zinv),
        };
    }
    out
}

/// P, 2P, ..., NP in affine form, variable time (public P, not at infinity, of order
/// above N). After one doubling, P is carried on the same Z as the running multiple R and
/// each R + P is a co-Z addition (Meloni's ZADDU: 4 products and 2 squarings, which also
/// gives P on the new Z); the Z ratios then make the affine conversion one inversion and
/// one product per point, with no prefix products.
pub(crate) fn multiples_vartime<C: Curve, const N: usize>(p: &Affine<C>) -> [Affine<C>; N] {
    super::field::select_backend();
    #[cfg(target_arch = "x86_64")]
    if let Some(f) = Sm2Asm::for_field::<C::F>() {
        return multiples_with(p, f);
    }
    multiples_with(p, Dispatch)
}

#[inline(always)]
fn multiples_with<C: Curve, O: FieldOps<C::F>, const N: usize>(
    p: &Affine<C>,
    f: O,
) -> [Affine<C>; N] {
    let mut out = [*p; N];
    if N < 2 {
        return out;
    }
    // R = 2P = (X, Y, Z); P on the same Z: (x·Z², y·Z³).
    let d = p.to_jacobian().double();
    let zz = f.sqr(&d.z);
    let (mut px, mut py) = (f.mul(&p.x, &zz), f.mul(&f.mul(&p.y, &zz), &d.z));
    // Entry j holds (j + 1)P in Jacobian form; ratio[j] = Z_j / Z_(j-1).
    let mut xs = [Fe::<C::F>::ZERO; N];
    let mut ys = [Fe::<C::F>::ZERO; N];
    let mut ratio = [Fe::<C::F>::ZERO; N];
    (xs[1], ys[1]) = (d.x, d.y);
    let mut z = d.z;
    for j in 2..N {
        let (rx, ry) = (xs[j - 1], ys[j - 1]);
        // ZADDU(P, R): with t = X_R - X_P (never 0: R != ±P since the order is above N),
        // B = X_P·t², C = X_R·t², E = Y_P·(C - B): R + P = (D - B - C, (Y_R - Y_P)(B - X3) - E)
        // with D = (Y_R - Y_P)², and P = (B, E), both on Z·t.
        let t = f.sub(&rx, &px);
        let tt = f.sqr(&t);
        let b = f.mul(&px, &tt);
        let c = f.mul(&rx, &tt);
        let e = f.mul(&py, &f.sub(&c, &b));
        let dy = f.sub(&ry, &py);
        let x3 = f.sub(&f.sub(&f.sqr(&dy), &b), &c);
        ys[j] = f.sub(&f.mul(&dy, &f.sub(&b, &x3)), &e);
        xs[j] = x3;
        (px, py) = (b, e);
        ratio[j] = t;
        z = f.mul(&z, &t);
    }
    // z = Z_(N-1); walk back with the ratios.
    let mut zinv = z.invert_vartime();
    for j in (1..N).rev() {
        let zi2 = f.sqr(&zinv);
        out[j] = Affine {
            x: f.mul(&xs[j], &zi2),
            y: f.mul(&f.mul(&ys[j], &zi2), &zinv),
        };
        if j > 1 {
            zinv = f.mul(&zinv, &ratio[j]);
        }
    }
    out
}

#[cfg(target_arch = "x86_64")]
impl<C: Curve> Jacobian<C> {
    /// [`Jacobian::double_with`] on the SM2-prime assembly: for a = -3 the whole doubling
    /// is one assembly block (`x86_avx2::point_double`, the same formula and results).
    #[inline(always)]
    fn double_asm(&self, f: Sm2Asm) -> Self {
        if C::A_IS_MINUS_3 {
            let [x, y, z] = f.0.double(&self.x.0, &self.y.0, &self.z.0);
            Jacobian {
                x: fe(x),
                y: fe(y),
                z: fe(z),
            }
        } else {
            self.double_with(f)
        }
    }
}

/// [`Sm2Asm`] with the doubling as the compiled formula (`double_with`, one assembly
/// block per field operation) instead of the one-block assembly. For the constant-time
/// windowed loops (`table.rs::mul_var_table_with`: five doublings, then a table scan and
/// an addition; `mul_fixed_ct_with`, one doubling beside its last addition), where LLVM
/// interleaves the field operations of consecutive doublings and of the additions: there
/// the one block, which no such interleaving crosses, measured 2-3 % slower (SM2
/// decryption), while it is 5-8 % faster in the chains of doublings of the wNAF loops.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
pub(crate) struct Sm2AsmSplit(Sm2Asm);

#[cfg(target_arch = "x86_64")]
impl Sm2Asm {
    /// These operations with the doubling of [`Sm2AsmSplit`].
    #[inline(always)]
    pub(crate) fn split_double(self) -> Sm2AsmSplit {
        Sm2AsmSplit(self)
    }
}

#[cfg(target_arch = "x86_64")]
impl<C: Curve> PointOps<C> for Sm2AsmSplit {
    #[inline(always)]
    fn double(self, p: &Jacobian<C>) -> Jacobian<C> {
        p.double_with(self.0)
    }
    #[inline(always)]
    fn add(self, p: &Jacobian<C>, q: &Jacobian<C>) -> (Jacobian<C>, Choice) {
        p.add_with(q, self.0)
    }
    #[inline(always)]
    fn add_mixed(self, p: &Jacobian<C>, q: &Affine<C>) -> (Jacobian<C>, Choice) {
        p.add_mixed_with(q, self.0)
    }
    #[inline(always)]
    fn add_mixed_blinded(
        self,
        p: &Jacobian<C>,
        p_inf: Choice,
        q: &Affine<C>,
    ) -> (Jacobian<C>, Choice) {
        p.add_mixed_blinded_with(p_inf, q, self.0)
    }
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::super::curve::{Curve, Sm2p256};
    use super::super::field::{Fe, Limbs};
    use super::super::x86_avx2::SM2_P;
    use super::{fe, Dispatch, Jacobian, PointOps, Sm2Asm};
    use crate::cpu::{self, Backend, Variant};

    type F = <Sm2p256 as Curve>::F;

    fn splitmix(s: &mut u64) -> u64 {
        *s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = *s;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below_p(a: &Limbs) -> bool {
        (0..4)
            .rev()
            .find(|&i| a[i] != SM2_P[i])
            .is_some_and(|i| a[i] < SM2_P[i])
    }

    fn random_fe(s: &mut u64) -> Fe<F> {
        loop {
            let a = [splitmix(s), splitmix(s), splitmix(s), splitmix(s)];
            if below_p(&a) {
                return fe(a);
            }
        }
    }

    fn limbs(p: &Jacobian<Sm2p256>) -> [Limbs; 3] {
        [p.x.0, p.y.0, p.z.0]
    }

    /// `double_with` on the portable field code (the reference).
    fn reference(p: &Jacobian<Sm2p256>) -> [Limbs; 3] {
        cpu::with_variant(Variant::from(Backend::Portable), || {
            super::super::field::select_backend();
            limbs(&p.double_with(Dispatch))
        })
    }

    /// The assembly doubling (through the scalar-multiplication hook and through
    /// `Jacobian::double`) against the portable `double_with` on 100,000 random
    /// Jacobian triples, on curve points with random Z, and on every combination of the
    /// edge values 0, 1, p - 1, 2^256 mod p and p - 2 (Z = 0 included: the point at
    /// infinity stays there), on every variant of this CPU; it must run on the variants
    /// with BMI2 and ADX.
    #[test]
    fn asm_double_matches_portable() {
        let mut s = 0xd0b1e_u64;
        let mut pts: Vec<Jacobian<Sm2p256>> = Vec::new();
        let pm1: Limbs = [SM2_P[0] - 1, SM2_P[1], SM2_P[2], SM2_P[3]];
        let pm2: Limbs = [SM2_P[0] - 2, SM2_P[1], SM2_P[2], SM2_P[3]];
        let edges: [Fe<F>; 5] = [fe([0; 4]), fe([1, 0, 0, 0]), fe(pm1), Fe::ONE, fe(pm2)];
        for x in &edges {
            for y in &edges {
                for z in &edges {
                    pts.push(Jacobian {
                        x: *x,
                        y: *y,
                        z: *z,
                    });
                }
            }
        }
        // Points of the curve: the multiples of G, each on a random Z.
        let mut g = Sm2p256::g().to_jacobian();
        for _ in 0..1000 {
            let z = random_fe(&mut s);
            let a = g.to_affine().unwrap();
            let zz = z.square();
            pts.push(Jacobian {
                x: a.x.mul(&zz),
                y: a.y.mul(&zz).mul(&z),
                z,
            });
            g = g.add_vartime(&Sm2p256::g().to_jacobian());
        }
        for i in 0..100_000 {
            let mut p = Jacobian {
                x: random_fe(&mut s),
                y: random_fe(&mut s),
                z: random_fe(&mut s),
            };
            // Some with one random coordinate replaced by an edge value.
            if i % 16 == 0 {
                let e = edges[(splitmix(&mut s) % 5) as usize];
                match splitmix(&mut s) % 3 {
                    0 => p.x = e,
                    1 => p.y = e,
                    _ => p.z = e,
                }
            }
            pts.push(p);
        }
        let want: Vec<[Limbs; 3]> = pts.iter().map(reference).collect();
        for (p, w) in pts.iter().zip(&want) {
            if p.z.0 == [0; 4] {
                assert_eq!(w[2], [0; 4]);
            }
        }
        let mut asm_runs = 0;
        for v in cpu::variants() {
            cpu::with_variant(v, || {
                super::super::field::select_backend();
                let ops = Sm2Asm::for_field::<F>();
                assert_eq!(ops.is_some(), v.has(cpu::Feature::Adx), "{v}");
                if ops.is_some() {
                    asm_runs += 1;
                }
                for (p, w) in pts.iter().zip(&want) {
                    assert_eq!(&limbs(&p.double()), w, "{v}: {:x?}", limbs(p));
                    if let Some(ops) = ops {
                        assert_eq!(&limbs(&ops.double(p)), w, "{v}: {:x?}", limbs(p));
                        let split = ops.split_double();
                        assert_eq!(&limbs(&split.double(p)), w, "{v}: {:x?}", limbs(p));
                    }
                }
            });
        }
        assert_eq!(asm_runs > 0, cpu::Feature::Adx.is_detected());
        // The reference is the doubling: for the multiples kG above (k = 1..1000, made by
        // additions of distinct points after 2G), 2·(kG) = (2k)G, in affine form.
        cpu::with_variant(Variant::from(Backend::Portable), || {
            super::super::field::select_backend();
            let kg = &pts[125..1125];
            for k in 1..=500 {
                let d: Jacobian<Sm2p256> = Jacobian {
                    x: fe(want[124 + k][0]),
                    y: fe(want[124 + k][1]),
                    z: fe(want[124 + k][2]),
                };
                assert_eq!(
                    d.to_affine().unwrap().to_bytes(),
                    kg[2 * k - 1].to_affine().unwrap().to_bytes(),
                    "{k}"
                );
            }
        });
    }
}
