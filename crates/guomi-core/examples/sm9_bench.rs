//! A small SM9 timing harness (no criterion): the low end (minimum, lower quartile) and the
//! median of many alternating rounds.
//!
//! ```text
//! cargo run -p guomi-core --example sm9_bench -- [ROUNDS] [VARIANT ...] [--only=TEXT ...]
//! ```
//!
//! `--only=TEXT` (repeatable) keeps the operations whose name contains TEXT, e.g.
//! `--only=e(P1` for the pairing alone (under `perf record`); the digest then covers
//! only those.
//!
//! With several backend variants (e.g. `portable avx2`), every round runs each variant in
//! turn on the same thread (`cpu::with_variant`), so the variants are compared under the
//! same machine load; each row gives the minimum, the lower quartile and the median.
//! Before timing, the outputs of every operation are compared byte for byte across the
//! variants, and a digest of them is printed so that two builds can
//! be checked against each other. Every operation uses fixed inputs (the `kat-hooks`
//! hazmat constructors with fixed r), so the digest is deterministic.

#[path = "support/bench.rs"]
mod bench;

use guomi_core::cpu;
use guomi_core::sm9::bn256::fp::Fp;
use guomi_core::sm9::bn256::{consts_p1, consts_p2, g2_in_subgroup, pairing, G2, N};
use guomi_core::sm9::{
    generator_p1, generator_p2, hazmat, EncMasterKey, SignMasterKey, HID_ENCRYPT, HID_EXCHANGE,
};
use std::sync::{Arc, OnceLock};

fn p2_lines() -> &'static pairing::G2Prepared {
    static L: OnceLock<pairing::G2Prepared> = OnceLock::new();
    L.get_or_init(|| pairing::G2Prepared::new(&consts_p2()))
}
use std::time::Instant;

struct Ctx {
    sign_user: guomi_core::sm9::SignUserKey,
    sign_pub: guomi_core::sm9::SignMasterPublicKey,
    enc_pub: guomi_core::sm9::EncMasterPublicKey,
    enc_user: guomi_core::sm9::EncUserKey,
    kex_a: Arc<guomi_core::sm9::EncUserKey>,
    kex_b: Arc<guomi_core::sm9::EncUserKey>,
    sig: guomi_core::sm9::Signature,
    ct: guomi_core::sm9::Ciphertext,
}

const MSG: &[u8] = b"Chinese IBS standard";
const R: [u8; 32] = [
    0x00, 0x03, 0x3C, 0x86, 0x16, 0xB0, 0x67, 0x04, 0x81, 0x32, 0x03, 0xDF, 0xD0, 0x09, 0x65, 0x02,
    0x2E, 0xD1, 0x59, 0x75, 0xC6, 0x62, 0x33, 0x7A, 0xED, 0x64, 0x88, 0x79, 0xAD, 0x84, 0x31, 0x35,
];
const R2: [u8; 32] = [
    0x00, 0x01, 0x8B, 0x98, 0xC4, 0x4B, 0xEF, 0x9F, 0x85, 0x37, 0xFB, 0x7D, 0x07, 0x1B, 0x2C, 0x92,
    0x8B, 0x3B, 0xC6, 0x5B, 0xD3, 0xD6, 0x9E, 0x1E, 0xEE, 0x21, 0x35, 0x64, 0x90, 0x56, 0x34, 0xFE,
];

fn setup() -> Ctx {
    let sm = SignMasterKey::from_bytes(&[0x13; 32]).unwrap();
    let sign_user = sm.extract(b"Alice").unwrap();
    let sign_pub = sm.public_key();
    let em = EncMasterKey::from_bytes(&[0x21; 32]).unwrap();
    let enc_pub = em.public_key();
    let enc_user = em.extract(b"Bob", HID_ENCRYPT).unwrap();
    let kex_a = Arc::new(em.extract(b"Alice", HID_EXCHANGE).unwrap());
    let kex_b = Arc::new(em.extract(b"Bob", HID_EXCHANGE).unwrap());
    sign_user.precompute();
    sign_pub.precompute();
    enc_pub.precompute();
    enc_user.precompute();
    kex_a.precompute();
    kex_b.precompute();
    let sig = hazmat::sign_with_fixed_r_for_testing(&sign_user, MSG, &R).unwrap();
    let ct = hazmat::encrypt_with_fixed_r_for_testing(&enc_pub, MSG, b"Bob", &R).unwrap();
    Ctx {
        sign_user,
        sign_pub,
        enc_pub,
        enc_user,
        kex_a,
        kex_b,
        sig,
        ct,
    }
}

type Op = (&'static str, fn(&Ctx) -> Vec<u8>);

fn ops() -> Vec<Op> {
    vec![
        ("Fp mul x1000", |_| {
            // Fp products switch on the variant's code path only after this.
            guomi_core::sm9::bn256::select_backend();
            let mut x = Fp::from_u64(0x1234_5678);
            let y = Fp::from_u64(0x9abc_def0).invert();
            for _ in 0..1000 {
                x = x.mul(&y);
            }
            x.to_be_bytes().to_vec()
        }),
        ("Fp12 mul x100", |_| {
            let f = pairing::miller_loop(&consts_p1(), p2_lines());
            let mut x = f;
            for _ in 0..100 {
                x = x.mul(&f);
            }
            x.to_bytes().to_vec()
        }),
        ("Fp12 cyclotomic sq x100", |_| {
            let mut x = pairing::pairing(&consts_p1(), &consts_p2());
            for _ in 0..100 {
                x = x.cyclotomic_square();
            }
            x.to_bytes().to_vec()
        }),
        ("Miller loop (prepared)", |_| {
            pairing::miller_loop(&consts_p1(), p2_lines())
                .to_bytes()
                .to_vec()
        }),
        ("final exponentiation", |_| {
            let f = pairing::miller_loop(&consts_p1(), p2_lines());
            pairing::final_exponentiation(&f).to_bytes().to_vec()
        }),
        ("G2 line preparation", |_| {
            // The lines are opaque; their effect is checked through the pairings.
            std::hint::black_box(pairing::G2Prepared::new(&consts_p2()));
            Vec::new()
        }),
        ("pairing e(P1,P2)", |_| {
            pairing::pairing(&consts_p1(), &consts_p2())
                .to_bytes()
                .to_vec()
        }),
        ("G2 check [N]Q = O (before)", |_| {
            let q = G2::from_affine(&consts_p2()).mul_vartime(&N);
            vec![q.is_identity().unwrap_u8()]
        }),
        ("G2 check (endomorphism)", |_| {
            vec![g2_in_subgroup(&consts_p2()).unwrap_u8()]
        }),
        ("sm9::pairing(bytes) (Python)", |_| {
            // What `guomi.sm9.pairing` runs: parse both points, check Q's subgroup, pair.
            guomi_core::sm9::pairing(&generator_p1(), &generator_p2())
                .unwrap()
                .to_vec()
        }),
        ("sign", |c| {
            hazmat::sign_with_fixed_r_for_testing(&c.sign_user, MSG, &R)
                .unwrap()
                .to_raw()
        }),
        ("verify", |c| {
            vec![c.sign_pub.verify(&c.sig, MSG, b"Alice") as u8]
        }),
        ("encrypt", |c| {
            hazmat::encrypt_with_fixed_r_for_testing(&c.enc_pub, MSG, b"Bob", &R)
                .unwrap()
                .to_raw()
        }),
        ("decrypt", |c| c.enc_user.decrypt(&c.ct).unwrap().to_vec()),
        ("key exchange (both sides)", |c| {
            let mut a =
                hazmat::key_exchange_with_fixed_r_for_testing(c.kex_a.clone(), b"Bob", true, &R)
                    .unwrap();
            let mut b = hazmat::key_exchange_with_fixed_r_for_testing(
                c.kex_b.clone(),
                b"Alice",
                false,
                &R2,
            )
            .unwrap();
            let (skb, sb) = b.respond(&a.ephemeral(), 16).unwrap();
            let (ska, sa) = a.finish(&b.ephemeral(), 16, Some(&sb)).unwrap();
            b.confirm(&sa).unwrap();
            assert_eq!(ska, skb);
            let mut o = ska.to_vec();
            o.extend_from_slice(&sa);
            o
        }),
    ]
}

fn main() {
    let all_args: Vec<String> = std::env::args().skip(1).collect();
    let only: Vec<&str> = all_args
        .iter()
        .filter_map(|a| a.strip_prefix("--only="))
        .collect();
    let args: Vec<&String> = all_args
        .iter()
        .filter(|a| !a.starts_with("--only="))
        .collect();
    let (rounds, variants) = bench::rounds_and_variants(&args, 30);
    let ctx = setup();
    let ops: Vec<Op> = ops()
        .into_iter()
        .filter(|(name, _)| only.is_empty() || only.iter().any(|o| name.contains(o)))
        .collect();
    assert!(!ops.is_empty(), "--only matched no operation");
    // Byte-for-byte agreement across the variants, and a digest for cross-build checks.
    let mut all = Vec::new();
    for (name, f) in &ops {
        let outs: Vec<Vec<u8>> = variants
            .iter()
            .map(|v| cpu::with_variant(*v, || f(&ctx)))
            .collect();
        for o in &outs[1..] {
            assert_eq!(o, &outs[0], "{name}: outputs differ between variants");
        }
        all.extend_from_slice(&outs[0]);
    }
    let digest = guomi_core::sm3::hash(&all);
    println!(
        "outputs agree; digest {}",
        digest
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
    );
    // Timing: per round, each op under each variant; a few calls per sample.
    let mut samples = vec![vec![Vec::new(); variants.len()]; ops.len()];
    for _ in 0..rounds {
        for (i, (_, f)) in ops.iter().enumerate() {
            for (j, v) in variants.iter().enumerate() {
                let reps = 1;
                let t = cpu::with_variant(*v, || {
                    let t0 = Instant::now();
                    for _ in 0..reps {
                        std::hint::black_box(f(std::hint::black_box(&ctx)));
                    }
                    t0.elapsed()
                });
                samples[i][j].push(t.as_secs_f64() * 1e6 / reps as f64);
            }
        }
    }
    print!("{:<28}", "operation (us: min / p25 / p50)");
    for v in &variants {
        print!("{:>28}", v.name());
    }
    println!();
    for (i, (name, _)) in ops.iter().enumerate() {
        print!("{name:<28}");
        for s in samples[i].iter_mut() {
            let (lo, q1, med) = bench::low_stats(s);
            print!("{:>28}", format!("{lo:.1} / {q1:.1} / {med:.1}"));
        }
        println!();
    }
}
