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
