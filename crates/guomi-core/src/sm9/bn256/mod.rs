//! The SM9 BN curve (GM/T 0044-2016 Part 1 Appendix A; Part 5 §A.1):
//! E(Fp): y^2 = x^3 + 5 with p = 36t^4 + 36t^3 + 24t^2 + 6t + 1, t = 0x600000000058F98A,
//! group order N = 36t^4 + 36t^3 + 18t^2 + 6t + 1, embedding degree 12, the sextic twist
//! E'(Fp2): y^2 = x^3 + 5u (u^2 = -2), and the R-ate pairing e: G1 x G2 -> GT.

pub mod curve;
pub mod fp;
pub mod fp12;
pub mod fp2;
pub mod fp4;
pub mod gt;
pub mod pairing;
#[cfg(target_arch = "x86_64")]
pub(crate) mod x86_adx;

use curve::{Affine, CurveParams, FixedBase, Point};
use fp::Fp;
use fp2::Fp2;
use std::sync::OnceLock;
use subtle::Choice;

/// The BN parameter t.
pub const T: u64 = 0x600000000058F98A;

/// G1: E(Fp), y^2 = x^3 + 5.
#[derive(Clone, Copy, Debug)]
pub struct G1Params;
/// G2: the twist E'(Fp2), y^2 = x^3 + 5u.
#[derive(Clone, Copy, Debug)]
pub struct G2Params;

impl CurveParams for G1Params {
    type F = Fp;
    fn b() -> Fp {
        consts().b1
    }
    fn b3() -> Fp {
        consts().b1_3
    }
}

impl CurveParams for G2Params {
    type F = Fp2;
    fn b() -> Fp2 {
        consts().b2
    }
    fn b3() -> Fp2 {
        consts().b2_3
    }
}

/// A point of G1 (projective).
pub type G1 = Point<G1Params>;
/// A point of G2 (projective, on the twist).
pub type G2 = Point<G2Params>;
/// An affine G1 point.
pub type G1Affine = Affine<Fp>;
/// An affine G2 point.
pub type G2Affine = Affine<Fp2>;

pub(crate) struct Consts {
    b1: Fp,
    b1_3: Fp,
    b2: Fp2,
    b2_3: Fp2,
    pub(crate) p1: G1Affine,
    pub(crate) p2: G2Affine,
}

fn hex32(s: &str) -> [u8; 32] {
    let mut o = [0u8; 32];
    for i in 0..32 {
        o[i] = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap();
    }
    o
}

fn fp_hex(s: &str) -> Fp {
    Fp::from_be_bytes(&hex32(s)).unwrap()
}

pub(crate) fn consts() -> &'static Consts {
    static C: OnceLock<Consts> = OnceLock::new();
    C.get_or_init(|| {
        let b1 = Fp::from_u64(5);
        let b2 = Fp2::new(Fp::ZERO, Fp::from_u64(5));
        // GM/T 0044-2016 Part 1 Appendix A (and Part 5 §A.1): the generators.
        let p1 = G1Affine {
            x: fp_hex("93DE051D62BF718FF5ED0704487D01D6E1E4086909DC3280E8C4E4817C66DDDD"),
            y: fp_hex("21FE8DDA4F21E607631065125C395BBC1C1C00CBFA6024350C464CD70A3EA616"),
        };
        // P2's coordinates are printed (high coefficient, low coefficient).
        let p2 = G2Affine {
            x: Fp2::new(
                fp_hex("3722755292130B08D2AAB97FD34EC120EE265948D19C17ABF9B7213BAF82D65B"),
                fp_hex("85AEF3D078640C98597B6027B441A01FF1DD2C190F5E93C454806C11D8806141"),
            ),
            y: Fp2::new(
                fp_hex("A7CF28D519BE3DA65F3170153D278FF247EFBA98A71A08116215BBA5C999A7C7"),
                fp_hex("17509B092E845C1266BA0D262CBEE6ED0736A96FA347C8BD856DC76B84EBEB96"),
            ),
        };
        Consts {
            b1,
            b1_3: Fp::from_u64(15),
            b2,
            b2_3: Fp2::new(Fp::ZERO, Fp::from_u64(15)),
            p1,
            p2,
        }
    })
}

/// Switches this thread's Fp arithmetic to the code path of its active backend variant
/// (`cpu::active_variant()`): the MULX/ADX assembly where the variant has
/// `cpu::Feature::Adx`, else the portable code. Called at the start of every SM9
/// operation; both paths give the same results.
#[inline]
pub fn select_backend() {
    #[cfg(target_arch = "x86_64")]
    x86_adx::select();
}

/// The generator P1 of G1.
pub fn p1() -> G1 {
    G1::from_affine(&consts().p1)
}

/// The generator P2 of G2.
pub fn p2() -> G2 {
    G2::from_affine(&consts().p2)
}

/// The fixed-base comb of P1.
pub fn p1_table() -> &'static FixedBase<G1Params> {
    static T1: OnceLock<FixedBase<G1Params>> = OnceLock::new();
    T1.get_or_init(|| FixedBase::new(&p1()))
}

/// The fixed-base comb of P2.
pub fn p2_table() -> &'static FixedBase<G2Params> {
    static T2: OnceLock<FixedBase<G2Params>> = OnceLock::new();
    T2.get_or_init(|| FixedBase::new(&p2()))
}

/// The order N, little-endian limbs.
pub const N: [u64; 4] = fp::Fn::MODULUS;

/// The p-power Frobenius endomorphism on the twist, pi(x, y) = (conj(x) g^-2, conj(y) g^-3),
/// g = u^((p-1)/6) (the untwist-Frobenius-twist map).
pub fn g2_frobenius(q: &G2Affine) -> G2Affine {
    let c = fp12::frob_consts();
    G2Affine {
        x: q.x.conj().mul(&c.twist_x),
        y: q.y.conj().mul(&c.twist_y),
    }
}

/// The Frobenius pi of [`g2_frobenius`] on a projective point (conjugation is a field
/// automorphism, so it applies to X, Y and Z alike).
fn g2_frobenius_proj(q: &G2) -> G2 {
    let c = fp12::frob_consts();
    G2 {
        x: q.x.conj().mul(&c.twist_x),
        y: q.y.conj().mul(&c.twist_y),
        z: q.z.conj(),
    }
}

/// Membership of G2: on the twist and [t+1]Q + pi([t]Q) + pi^2([t]Q) = pi^3([2t]Q).
///
/// The test of Dai, Lin, Zhao and Zhou ("Fast subgroup membership testings for G1, G2
/// and GT on pairing-friendly curves", eprint 2022/348, §5.1 for BN curves), instead of
/// [N]Q = O: one multiplication by the 63-bit t (62 doublings and 10 additions along its
/// non-adjacent form) instead of one by the 256-bit N. Why it
/// is exact for this curve: pi satisfies pi^2 - tr pi + p = 0 (tr = 6t^2 + 1, the trace
/// of E(Fp)), so the endomorphism psi = (t+1) + t pi + t pi^2 - 2t pi^3 reduces to
/// a + b pi, whose kernel has a^2 + tr a b + p b^2 points (p does not divide a: it is
/// separable). That number is divisible by N and prime to the cofactor h2 = 2p - N of
/// the twist (h2 = 13 * 1621 * a 242-bit factor), and a + b lambda = 0 mod N for the
/// eigenvalue lambda = p mod N = 6t^2 of pi on G2 (checked by the tests). A point
/// Q = Q_N + Q_h of E'(Fp2) (orders dividing N and h2) therefore has psi(Q) = psi(Q_h),
/// which is O only if Q_h = O. Constant time in the point (fixed windows, complete
/// formulas; the scalar t is public).
pub fn g2_in_subgroup(q: &G2Affine) -> Choice {
    let q = G2::from_affine(q);
    let tq = q.mul_public_u64(T);
    let lhs = tq
        .add(&q)
        .add(&g2_frobenius_proj(&tq))
        .add(&g2_frobenius_proj(&g2_frobenius_proj(&tq)));
    let rhs = g2_frobenius_proj(&g2_frobenius_proj(&g2_frobenius_proj(&tq.double())));
    G2::affine_on_curve(&G2Affine { x: q.x, y: q.y }) & lhs.ct_eq(&rhs)
}

/// Membership of G2 by the definition: on the twist and [N]Q = O (the reference for
/// [`g2_in_subgroup`] in the tests).
#[cfg(test)]
pub(crate) fn g2_in_subgroup_by_order(q: &G2Affine) -> Choice {
    G2::affine_on_curve(q) & G2::from_affine(q).mul_vartime(&N).is_identity()
}

/// Membership of G1 (the cofactor of E(Fp) is 1): on the curve.
pub fn g1_on_curve(q: &G1Affine) -> Choice {
    G1::affine_on_curve(q)
}

#[cfg(test)]
mod tests;

/// P1 in affine form.
pub fn consts_p1() -> G1Affine {
    consts().p1
}

/// P2 in affine form.
pub fn consts_p2() -> G2Affine {
    consts().p2
}
