//! The R-ate pairing of GM/T 0044-2016 Part 1 §A.? (Appendix B, "R-ate pair"):
//! e(P, Q) = (f_{a,Q}(P) * l_{aQ,pi(Q)}(P) * l_{aQ+pi(Q),-pi^2(Q)}(P))^((p^12 - 1)/N),
//! a = 6t + 2, P in G1, Q in G2.
//!
//! The Miller loop runs on the twist in homogeneous projective coordinates (line and
//! point formulas of Costello-Lange-Naehrig / Aranha et al., "Faster explicit formulas
//! for computing pairings over ordinary curves", EUROCRYPT 2011). The line functions of
//! Q are computed once ([`G2Prepared`]) and evaluated at P, so fixed G2 points (P2,
//! Ppub-s, user keys) are prepared once and reused. Because this is an M-type twist
//! (b' = 5u), a line, scaled by w^3 and by factors in Fp2 (which the final
//! exponentiation removes), has the sparse shape a + b yP v + c xP w^2.

use super::fp::Fp;
use super::fp12::Fp12;
use super::fp2::Fp2;
use super::fp4::Fp4;
use super::{g2_frobenius, G1Affine, G2Affine, T};

/// a = 6t + 2 = 0x2_4000_0000_0215_D93E (66 bits).
const ATE: u128 = 6 * (T as u128) + 2;

/// The non-adjacent form of `v` (digits -1, 0, 1, least significant first), length 68.
const fn naf(mut v: u128) -> [i8; 68] {
    let mut out = [0i8; 68];
    let mut i = 0;
    while v != 0 {
        if v & 1 == 1 {
            let d: i8 = if v & 3 == 1 { 1 } else { -1 };
            if d == 1 {
                v -= 1;
            } else {
                v += 1;
            }
            out[i] = d;
        }
        v >>= 1;
        i += 1;
    }
    out
}

/// NAF of a (11 non-zero digits instead of 16 bits set).
const ATE_NAF: [i8; 68] = naf(ATE);
/// NAF of t (11 non-zero digits instead of 14).
const T_NAF: [i8; 68] = naf(T as u128);

/// Index of the top non-zero digit.
const fn naf_top(n: &[i8; 68]) -> usize {
    let mut i = 67;
    while n[i] == 0 {
        i -= 1;
    }
    i
}

/// One line: value a + (b yP) v + (c xP) w^2.
#[derive(Clone, Copy, Debug, Default)]
struct Line {
    a: Fp2,
    b: Fp2,
    c: Fp2,
}

impl zeroize::Zeroize for Line {
    fn zeroize(&mut self) {
        self.a.zeroize();
        self.b.zeroize();
        self.c.zeroize();
    }
}

/// The line functions of a G2 point for the Miller loop.
#[derive(Clone)]
pub struct G2Prepared {
    lines: Vec<Line>,
}

impl Drop for G2Prepared {
    fn drop(&mut self) {
        // The lines of a user key reveal the key: wipe them.
        use zeroize::Zeroize;
        for l in self.lines.iter_mut() {
            l.zeroize();
        }
    }
}

struct Proj {
    x: Fp2,
    y: Fp2,
    z: Fp2,
}

/// 3b' z for the twist's b' = 5u: 15u (z0 + z1 u) = -30 z1 + 15 z0 u, by additions
/// (16x - x) instead of an Fp2 product.
#[inline]
pub(super) fn mul_b3(z: &Fp2) -> Fp2 {
    let x16 = |x: &Fp| x.double().double().double().double();
    Fp2::new(z.c1.sub(&x16(&z.c1)).double(), x16(&z.c0).sub(&z.c0))
}

/// T <- 2T; returns the tangent line at T.
fn double_step(t: &mut Proj) -> Line {
    let (x, y, z) = (&t.x, &t.y, &t.z);
    let yy = y.square();
    let zz = z.square();
    let bzz3 = mul_b3(&zz); // 3 b' Z^2
    let bzz9 = bzz3.double().add(&bzz3); // 9 b' Z^2
    let xx = x.square();
    let yz = y.mul(z);
    // line: (Y^2 - 3b'Z^2) + 2YZ yP v - 3X^2 xP w^2
    let line = Line {
        a: yy.sub(&bzz3),
        b: yz.double(),
        c: xx.double().add(&xx).neg(),
    };
    // X3 = XY/2 (Y^2 - 9b'Z^2); Y3 = ((Y^2 + 9b'Z^2)/2)^2 - 27 b'^2 Z^4; Z3 = 2 Y^3 Z
    let x3 = x.mul(y).halve().mul(&yy.sub(&bzz9));
    let h = yy.add(&bzz9).halve();
    let b3z2sq = bzz3.square(); // 9 b'^2 Z^4
    let y3 = h.square().sub(&b3z2sq.double().add(&b3z2sq));
    let z3 = yy.mul(&yz).double();
    t.x = x3;
    t.y = y3;
    t.z = z3;
    line
}

/// T <- T + Q (Q affine); returns the line through T and Q.
fn add_step(t: &mut Proj, q: &G2Affine) -> Line {
    let theta = t.y.sub(&q.y.mul(&t.z));
    let lambda = t.x.sub(&q.x.mul(&t.z));
    // line: (theta xQ - lambda yQ) + lambda yP v - theta xP w^2
    let line = Line {
        a: theta.mul(&q.x).sub(&lambda.mul(&q.y)),
        b: lambda,
        c: theta.neg(),
    };
    let c = theta.square();
    let d = lambda.square();
    let e = d.mul(&lambda);
    let f = t.z.mul(&c);
    let g = t.x.mul(&d);
    let h = e.add(&f).sub(&g.double());
    let x3 = lambda.mul(&h);
    let y3 = theta.mul(&g.sub(&h)).sub(&t.y.mul(&e));
    let z3 = t.z.mul(&e);
    t.x = x3;
    t.y = y3;
    t.z = z3;
    line
}

impl G2Prepared {
    /// Computes the lines of Q for the R-ate Miller loop (GM/T 0044 Part 1 §B.?, R-ate
    /// steps: the loop over the bits of a = 6t+2, then Q1 = pi(Q) and -Q2 = -pi^2(Q)).
    pub fn new(q: &G2Affine) -> Self {
        super::select_backend();
        let mut lines = Vec::with_capacity(90);
        let mut t = Proj {
            x: q.x,
            y: q.y,
            z: Fp2::ONE,
        };
        let qn = G2Affine {
            x: q.x,
            y: q.y.neg(),
        };
        for i in (0..naf_top(&ATE_NAF)).rev() {
            lines.push(double_step(&mut t));
            match ATE_NAF[i] {
                1 => lines.push(add_step(&mut t, q)),
                -1 => lines.push(add_step(&mut t, &qn)),
                _ => {}
            }
        }
        let q1 = g2_frobenius(q);
        let q2 = g2_frobenius(&q1);
        let q2n = G2Affine {
            x: q2.x,
            y: q2.y.neg(),
        };
        lines.push(add_step(&mut t, &q1));
        lines.push(add_step(&mut t, &q2n));
        Self { lines }
    }
}

#[inline]
fn eval(f: &Fp12, l: &Line, p: &G1Affine) -> Fp12 {
    f.mul_line(&l.a, &l.b.mul_fp(&p.y), &l.c.mul_fp(&p.x))
}

/// The Miller loop value f_{a,Q}(P) l_{aQ,Q1}(P) l_{aQ+Q1,-Q2}(P) (before the final
/// exponentiation).
pub fn miller_loop(p: &G1Affine, q: &G2Prepared) -> Fp12 {
    super::select_backend();
    let top = naf_top(&ATE_NAF);
    // The first step from f = 1: its squaring is 1 and its line product is the line.
    let l = &q.lines[0];
    let mut f = Fp12 {
        c0: Fp4 {
            c0: l.a,
            c1: l.b.mul_fp(&p.y),
        },
        c1: Fp4::ZERO,
        c2: Fp4 {
            c0: l.c.mul_fp(&p.x),
            c1: Fp2::ZERO,
        },
    };
    let mut k = 1;
    if ATE_NAF[top - 1] != 0 {
        f = eval(&f, &q.lines[k], p);
        k += 1;
    }
    for i in (0..top - 1).rev() {
        f = f.square();
        f = eval(&f, &q.lines[k], p);
        k += 1;
        if ATE_NAF[i] != 0 {
            f = eval(&f, &q.lines[k], p);
            k += 1;
        }
    }
    f = eval(&f, &q.lines[k], p);
    f = eval(&f, &q.lines[k + 1], p);
    f
}

/// f^t in the cyclotomic subgroup.
#[inline]
fn pow_t(f: &Fp12) -> Fp12 {
    f.cyclotomic_pow_naf(&T_NAF)
}

/// The final exponentiation f^((p^12 - 1)/N): the easy part (p^6 - 1)(p^2 + 1), then
/// the hard part (p^4 - p^2 + 1)/N = l0 + l1 p + l2 p^2 + l3 p^3 with the addition
/// chain of Scott, Benger, Charlemagne, Dominguez Perez and Kachisa ("On the final
/// exponentiation for calculating pairings on ordinary elliptic curves", 2009):
/// y0 y1^2 y2^6 y3^12 y4^18 y5^30 y6^36.
pub fn final_exponentiation(f: &Fp12) -> Fp12 {
    super::select_backend();
    // Easy part.
    let f1 = f.conj().mul(&f.invert());
    let f = f1.frobenius2().mul(&f1);
    // Hard part.
    let ft = pow_t(&f);
    let ft2 = pow_t(&ft);
    let ft3 = pow_t(&ft2);
    let fp = f.frobenius();
    let fp2 = fp.frobenius();
    let fp3 = fp2.frobenius();
    let y0 = fp.mul(&fp2).mul(&fp3);
    let y1 = f.conj();
    let y2 = ft2.frobenius2();
    let y3 = ft.frobenius().conj();
    let y4 = ft.mul(&ft2.frobenius()).conj();
    let y5 = ft2.conj();
    let y6 = ft3.mul(&ft3.frobenius()).conj();
    let mut t0 = y6.cyclotomic_square().mul(&y4).mul(&y5);
    let mut t1 = y3.mul(&y5).mul(&t0);
    t0 = t0.mul(&y2);
    t1 = t1.cyclotomic_square().mul(&t0);
    t1 = t1.cyclotomic_square();
    t0 = t1.mul(&y1);
    t1 = t1.mul(&y0);
    t0 = t0.cyclotomic_square();
    t0.mul(&t1)
}

/// The hard part by plain exponentiation (reference for the tests).
#[cfg(test)]
pub(crate) fn final_exponentiation_reference(f: &Fp12) -> Fp12 {
    const HARD: [u64; 12] = [
        0xa9b2ada593152855,
        0x44bf9d0fa74ddfb7,
        0x83687ee0c6d9188c,
        0xe0d49de3aa8a4748,
        0x0da3d71bcdb13fe5,
        0xa5782c82fdb6b0a1,
        0x7c0ca02d9b0d8649,
        0xba4cade09029e471,
        0xdc53e586930846f1,
        0xd62cd8fb7b497a0a,
        0xf12fcad3b31fe2b0,
        0x5c5e452404034e2a,
    ];
    let f1 = f.conj().mul(&f.invert());
    let f = f1.frobenius2().mul(&f1);
    f.pow_vartime(&HARD)
}

/// e(P, Q) with Q's lines prepared.
pub fn pairing_prepared(p: &G1Affine, q: &G2Prepared) -> Fp12 {
    final_exponentiation(&miller_loop(p, q))
}

/// e(P, Q).
pub fn pairing(p: &G1Affine, q: &G2Affine) -> Fp12 {
    pairing_prepared(p, &G2Prepared::new(q))
}
