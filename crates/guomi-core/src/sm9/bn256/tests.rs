use super::curve::Affine;
use super::fp::{Fn, Fp};
use super::fp12::Fp12;
use super::fp2::Fp2;
use super::pairing::*;
use super::*;

fn affine_add(p: &G1Affine, q: &G1Affine) -> G1Affine {
    let l = if p.x == q.x {
        let xx = p.x.square();
        xx.double().add(&xx).mul(&p.y.double().invert())
    } else {
        q.y.sub(&p.y).mul(&q.x.sub(&p.x).invert())
    };
    let x3 = l.square().sub(&p.x).sub(&q.x);
    let y3 = l.mul(&p.x.sub(&x3)).sub(&p.y);
    Affine { x: x3, y: y3 }
}

#[test]
fn g1_group_law() {
    let p = consts().p1;
    assert!(bool::from(g1_on_curve(&p)));
    let p2 = p1().double().to_affine().unwrap();
    let a2 = affine_add(&p, &p);
    assert_eq!((p2.x, p2.y), (a2.x, a2.y));
    let p3 = p1().double().add(&p1()).to_affine().unwrap();
    let a3 = affine_add(&a2, &p);
    assert_eq!((p3.x, p3.y), (a3.x, a3.y));
    assert!(bool::from(p1().mul_ct(&N).is_identity()));
    let k = [5u64, 0, 0, 0];
    assert!(bool::from(p1().mul_ct(&k).ct_eq(&p1_table().mul(&k))));
    let k = [
        0x1234_5678_9abc_def0,
        0x0fed_cba9_8765_4321,
        0x1111_2222_3333_4444,
        0x0555_6666_7777_8888,
    ];
    assert!(bool::from(p1().mul_ct(&k).ct_eq(&p1_table().mul(&k))));
}

#[test]
fn g2_group_law_and_frobenius() {
    let q = consts().p2;
    assert!(bool::from(G2::affine_on_curve(&q)));
    assert!(bool::from(g2_in_subgroup(&q)));
    // pi(Q) = [p mod N] Q on G2.
    let pm = Fn::from_raw(Fp::MODULUS.map(|x| x)).to_raw(); // p mod N (p > N)
    let lhs = G2::from_affine(&g2_frobenius(&q));
    let rhs = p2().mul_ct(&pm);
    assert!(bool::from(lhs.ct_eq(&rhs)));
    let k = [
        0x1234_5678_9abc_def0,
        0x0fed_cba9_8765_4321,
        0x1111_2222_3333_4444,
        0x0555_6666_7777_8888,
    ];
    assert!(bool::from(p2().mul_ct(&k).ct_eq(&p2_table().mul(&k))));
}

fn some_fp12() -> Fp12 {
    let mut f = Fp12::ONE;
    let mut x = Fp::from_u64(3);
    let mut coeffs = [Fp::ZERO; 12];
    for c in coeffs.iter_mut() {
        x = x.square().add(&Fp::from_u64(7));
        *c = x;
    }
    f.c0.c0 = Fp2::new(coeffs[0], coeffs[1]);
    f.c0.c1 = Fp2::new(coeffs[2], coeffs[3]);
    f.c1.c0 = Fp2::new(coeffs[4], coeffs[5]);
    f.c1.c1 = Fp2::new(coeffs[6], coeffs[7]);
    f.c2.c0 = Fp2::new(coeffs[8], coeffs[9]);
    f.c2.c1 = Fp2::new(coeffs[10], coeffs[11]);
    f
}

#[test]
fn fp12_ops() {
    let f = some_fp12();
    assert_eq!(f.square(), f.mul(&f));
    assert_eq!(f.mul(&f.invert()), Fp12::ONE);
    // frobenius == f^p
    assert_eq!(f.frobenius(), f.pow_vartime(&Fp::MODULUS));
    let mut c = f;
    for _ in 0..6 {
        c = c.frobenius();
    }
    assert_eq!(c, f.conj());
    // cyclotomic squaring on an element of the cyclotomic subgroup
    let f1 = f.conj().mul(&f.invert());
    let g = f1.frobenius2().mul(&f1);
    assert_eq!(g.cyclotomic_square(), g.square());
    assert_eq!(final_exponentiation(&f), final_exponentiation_reference(&f));
}

#[test]
fn bilinearity() {
    let a = [
        0x1234_5678_9abc_def0,
        0x0fed_cba9_8765_4321,
        0x1111_2222_3333_4444,
        0x0555_6666_7777_8888,
    ];
    let b = [0xdead_beef, 0, 0, 0x0123];
    let p = consts().p1;
    let q = consts().p2;
    let e = pairing(&p, &q);
    assert!(!bool::from(e.is_one()));
    let en = e.pow_vartime(&N);
    assert_eq!(en, Fp12::ONE);
    let pa = p1().mul_ct(&a).to_affine().unwrap();
    let qb = p2().mul_ct(&b).to_affine().unwrap();
    let lhs = pairing(&pa, &qb);
    let ab = Fn::from_raw(a).mul(&Fn::from_raw(b)).to_raw();
    assert_eq!(lhs, gt::pow_ct(&e, &ab));
    assert_eq!(lhs, gt::GtTable::new(&e).pow(&ab));
}

fn fp_hex_be(s: &str) -> Fp {
    let mut b = [0u8; 32];
    for (i, o) in b.iter_mut().enumerate() {
        *o = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap();
    }
    Fp::from_be_bytes(&b).unwrap()
}

/// A twist point from (x1, x0, y1, y0) in hex.
fn twist_point(c: [&str; 4]) -> G2Affine {
    G2Affine {
        x: Fp2::new(fp_hex_be(c[1]), fp_hex_be(c[0])),
        y: Fp2::new(fp_hex_be(c[3]), fp_hex_be(c[2])),
    }
}

/// The G2 membership test by the endomorphism accepts G2 and rejects the other points
/// of the twist: R = (1, y) (a generic point of E'(Fp2), order N h2), [N]R (order
/// dividing the cofactor h2 = 13 * 1621 * ...), a point of order 13, and P2 plus each of
/// them. It agrees with the test by the definition ([N]Q = O) on every one.
#[test]
fn g2_subgroup_test_by_endomorphism() {
    const ZERO: &str = "0000000000000000000000000000000000000000000000000000000000000000";
    let r = twist_point([
        ZERO,
        "0000000000000000000000000000000000000000000000000000000000000001",
        "0453E9BE88D22CCFE209A420669CAC8B9EC1FCCF14061EB8BD714E6A1F6A3EE1",
        "79A8EB911912EF24A4A0796B7A21A0935854B7CB00EE547F244A76F4C3718630",
    ]);
    let rn = twist_point([
        "0C1EE48198A1C68E762E6E5AEEF953128D9D516621586D3AE6B317992E291521",
        "1DB923C50C8554AA5FC951FB39499BB0BA0AFB74B9383ED66D880158B5E21656",
        "9C7CC0B83C70BDCB4C59147587F9ECE346C5A5D479F02AF87EA040E8B36AA0DF",
        "5B51032B35A40BA1545654EB5CA1F91DC13876E154D36D798E6FBE4E1C54728F",
    ]);
    let r13 = twist_point([
        "79BB36ADB803D88BE606FF3B88D7C4036F95BAE7931969F3F0F56E0C04F380EA",
        "1257C42D5136EDD906F880EB6566F905DAFCA6E88B9FE1C3201AA5813A3CCD20",
        "7F5EA7F03E988993EAE50E1626542518BDA8384E67ED5A7963A3F2A27AB2448E",
        "943824CC2BBE3FC9809C8E719008F6EC13465C4661AFFDB70607B25B832E5A5B",
    ]);
    for q in [r, rn, r13] {
        assert!(bool::from(G2::affine_on_curve(&q)));
    }
    // [N]R is [N]R; r13 has order 13.
    let rn_proj = G2::from_affine(&r).mul_vartime(&N);
    assert!(bool::from(rn_proj.ct_eq(&G2::from_affine(&rn))));
    assert!(!bool::from(G2::from_affine(&r13).is_identity()));
    assert!(bool::from(
        G2::from_affine(&r13)
            .mul_vartime(&[13, 0, 0, 0])
            .is_identity()
    ));
    let mut outside = vec![r, rn, r13];
    for q in [r, rn, r13] {
        outside.push(p2().add(&G2::from_affine(&q)).to_affine().unwrap());
    }
    for q in &outside {
        assert!(!bool::from(g2_in_subgroup(q)));
        assert!(!bool::from(g2_in_subgroup_by_order(q)));
    }
    // Not on the twist at all: rejected by both.
    let mut off = consts().p2;
    off.y = off.y.add(&Fp2::ONE);
    assert!(!bool::from(g2_in_subgroup(&off)));
    assert!(!bool::from(g2_in_subgroup_by_order(&off)));
    // Members: P2, [k]P2 for several k, -P2, and the master-key-like [N-1]P2.
    let mut inside = vec![consts().p2];
    for k in [
        [2u64, 0, 0, 0],
        [T, 0, 0, 0],
        [N[0] - 1, N[1], N[2], N[3]],
        [
            0x1234_5678_9abc_def0,
            0x0fed_cba9_8765_4321,
            0x1111_2222_3333_4444,
            0x0555_6666_7777_8888,
        ],
    ] {
        inside.push(p2().mul_ct(&k).to_affine().unwrap());
    }
    for q in &inside {
        assert!(bool::from(g2_in_subgroup(q)));
        assert!(bool::from(g2_in_subgroup_by_order(q)));
    }
    // The endomorphism's facts the test relies on: pi acts as lambda = 6t^2 = p mod N
    // on G2, and [T]Q by the 64-bit ladder is [T]Q.
    let lam = (6 * (T as u128) * (T as u128)).to_le_bytes();
    let lam = [
        u64::from_le_bytes(lam[..8].try_into().unwrap()),
        u64::from_le_bytes(lam[8..].try_into().unwrap()),
        0,
        0,
    ];
    assert_eq!(lam, Fn::from_raw(Fp::MODULUS).to_raw());
    let q = inside[4];
    assert!(bool::from(
        G2::from_affine(&g2_frobenius(&q)).ct_eq(&G2::from_affine(&q).mul_vartime(&lam))
    ));
    for k in [T, 0, 1, 2, 3, 7, 0x5555_5555_5555_5555, u64::MAX, 1 << 63] {
        assert!(bool::from(
            G2::from_affine(&q)
                .mul_public_u64(k)
                .ct_eq(&G2::from_affine(&q).mul_vartime(&[k, 0, 0, 0]))
        ));
    }
}

/// The sparse line product equals the dense product with the line as an Fp12 element
/// a + b v + c w^2.
#[test]
fn mul_line_matches_dense_product() {
    use super::fp4::Fp4;
    let f = some_fp12();
    let g = f.square();
    for (a, b, c) in [
        (f.c0.c0, f.c1.c1, f.c2.c0),
        (g.c2.c1, g.c0.c0, g.c1.c0),
        (Fp2::ONE, Fp2::ZERO, Fp2::ZERO),
        (Fp2::ZERO, Fp2::ZERO, f.c0.c1),
    ] {
        let line = Fp12 {
            c0: Fp4 { c0: a, c1: b },
            c1: Fp4::ZERO,
            c2: Fp4 {
                c0: c,
                c1: Fp2::ZERO,
            },
        };
        assert_eq!(f.mul_line(&a, &b, &c), f.mul(&line));
        assert_eq!(g.mul_line(&a, &b, &c), g.mul(&line));
    }
}

/// Halving is the product by 2^-1 (odd and even values, 0, p - 1, the largest limbs),
/// and the line step's 3b' z by additions equals the product by 3b' = 15u.
#[test]
fn halve_and_mul_b3_match_products() {
    let inv2 = Fp::from_u64(2).invert();
    let m = Fp::MODULUS;
    let mut vals = vec![
        Fp::ZERO,
        Fp::ONE,
        Fp([m[0] - 1, m[1], m[2], m[3]]),
        Fp([m[0] - 2, m[1], m[2], m[3]]),
        Fp([u64::MAX, u64::MAX, u64::MAX, 0x7fff_ffff_ffff_ffff]),
        Fp([1, 0, 0, 0]),
        Fp([2, 0, 0, 0]),
    ];
    let mut x = Fp::from_u64(5);
    for _ in 0..50 {
        x = x.square().add(&Fp::from_u64(3));
        vals.push(x);
    }
    for v in &vals {
        assert_eq!(v.halve(), v.mul(&inv2));
        assert_eq!(v.halve().double(), *v);
    }
    let b3 = <G2Params as curve::CurveParams>::b3();
    for w in vals.windows(2) {
        let z = Fp2::new(w[0], w[1]);
        assert_eq!(mul_b3(&z), b3.mul(&z));
        assert_eq!(z.halve(), z.mul_fp(&inv2));
    }
}
