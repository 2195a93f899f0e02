//! A small SM2 timing harness (no criterion): the low end (minimum, lower quartile) and
//! the median of many alternating rounds.
//!
//! ```text
//! cargo run -p guomi-core --example sm2_bench -- [ROUNDS] [VARIANT ...]
//! ```
//!
//! The operations are the one-shot forms `guomi bench` times: a verification with a new
//! `PublicKey` object per call (no comb table), an encryption to a new key object, a
//! decryption, one signature, a key exchange (both sides). With several backend variants
//! (e.g. `portable avx2`), every round runs each variant in turn on the same thread
//! (`cpu::with_variant`). Before timing, the outputs of every operation (fixed nonces
//! through the `kat-hooks` hazmat functions) are compared across the variants and a digest
//! of them is printed, so that two builds (old and new code, run alternately as child
//! processes) can be checked against each other before their times are compared.

#[path = "support/bench.rs"]
mod bench;

use guomi_core::cpu;
use guomi_core::sm2::hazmat::{
    bench_chain_for_testing, encrypt_with_fixed_k_for_testing, sign_digest_with_fixed_k_for_testing,
};
use guomi_core::sm2::{
    message_digest, CiphertextParts, Initiator, PrivateKey, PublicKey, Responder, Signature,
    Sm2p256, DEFAULT_UID,
};
use std::time::Instant;

struct Ctx {
    key: PrivateKey,
    peer: PrivateKey,
    pub_bytes: [u8; 65],
    msg: Vec<u8>,
    sig: Signature,
    ct: CiphertextParts,
    e: [u8; 32],
}

const D: &str = "3945208f7b2144b13f36e38ac6d39f95889393692860b51a42fb81ef4df7c5b8";
const K: [u8; 32] = [
    0x59, 0x27, 0x6E, 0x27, 0xD5, 0x06, 0x86, 0x1A, 0x16, 0x68, 0x0F, 0x3A, 0xD9, 0xC0, 0x2D, 0xCC,
    0xEF, 0x3C, 0xC1, 0xFA, 0x3C, 0xDB, 0xE4, 0xCE, 0x6D, 0x54, 0xB8, 0x0D, 0xEA, 0xC1, 0xBC, 0x21,
];
const K2: [u8; 32] = [
    0x1F, 0x2E, 0x3D, 0x4C, 0x5B, 0x6A, 0x79, 0x88, 0x97, 0xA6, 0xB5, 0xC4, 0xD3, 0xE2, 0xF1, 0x00,
    0x0F, 0x1E, 0x2D, 0x3C, 0x4B, 0x5A, 0x69, 0x78, 0x87, 0x96, 0xA5, 0xB4, 0xC3, 0xD2, 0xE1, 0xF0,
];

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

fn setup() -> Ctx {
    let key = PrivateKey::from_bytes(&unhex(D)).unwrap();
    let peer = PrivateKey::from_bytes(&[0x5a; 32]).unwrap();
    let pub_bytes = key.public_key().to_uncompressed();
    let msg: Vec<u8> = (0..64u8).collect();
    let z = key.z(DEFAULT_UID).unwrap();
    let e = message_digest(&z, &msg);
    let sig = sign_digest_with_fixed_k_for_testing(&key, &e, &K).unwrap();
    let ct = encrypt_with_fixed_k_for_testing(key.public_key(), &msg, &K).unwrap();
    Ctx {
        key,
        peer,
        pub_bytes,
        msg,
        sig,
        ct,
        e,
    }
}

type Op = (&'static str, fn(&Ctx) -> Vec<u8>);

fn kex(c: &Ctx, fixed: bool) -> Vec<u8> {
    // As the Python bench: A is the peer key, B ours; fresh key objects on each side.
    let pa = PublicKey::<Sm2p256>::from_bytes(&c.peer.public_key().to_uncompressed()).unwrap();
    let pb = PublicKey::<Sm2p256>::from_bytes(&c.pub_bytes).unwrap();
    let mut ini = if fixed {
        Initiator::with_fixed_ephemeral_for_testing(&c.peer, b"alice", &pb, b"bob", &K).unwrap()
    } else {
        Initiator::new(&c.peer, b"alice", &pb, b"bob").unwrap()
    };
    let (resp, kb) = if fixed {
        Responder::respond_with_fixed_ephemeral_for_testing(
            &c.key,
            b"bob",
            &pa,
            b"alice",
            &ini.ephemeral_public(),
            16,
            &K2,
        )
        .unwrap()
    } else {
        Responder::respond(&c.key, b"bob", &pa, b"alice", &ini.ephemeral_public(), 16).unwrap()
    };
    let ka = ini
        .finish(&resp.ephemeral_public(), Some(&kb.confirmation), 16)
        .unwrap();
    resp.confirm(&ka.confirmation).unwrap();
    assert_eq!(&ka.key[..], &kb.key[..]);
    let mut o = ka.key.to_vec();
    o.extend_from_slice(&ka.confirmation);
    o
}

fn ops() -> Vec<Op> {
    vec![
        ("field mul x1000", |_| {
            bench_chain_for_testing("mul", 1000).to_vec()
        }),
        ("field mul x1000 (2 chains)", |_| {
            bench_chain_for_testing("mul2", 1000).to_vec()
        }),
        ("field sqr x1000", |_| {
            bench_chain_for_testing("sqr", 1000).to_vec()
        }),
        ("field add x1000", |_| {
            bench_chain_for_testing("add", 1000).to_vec()
        }),
        ("field sub x1000", |_| {
            bench_chain_for_testing("sub", 1000).to_vec()
        }),
        ("point double x100", |_| {
            bench_chain_for_testing("dbl", 100).to_vec()
        }),
        ("point madd x100", |_| {
            bench_chain_for_testing("madd", 100).to_vec()
        }),
        ("point add x100", |_| {
            bench_chain_for_testing("add_ct", 100).to_vec()
        }),
        ("field invert x10", |_| {
            bench_chain_for_testing("inv", 10).to_vec()
        }),
        ("field invert vartime x10", |_| {
            bench_chain_for_testing("inv_vt", 10).to_vec()
        }),
        ("verify (new key object)", |c| {
            let pk = PublicKey::<Sm2p256>::from_bytes(&c.pub_bytes).unwrap();
            vec![pk.verify(&c.msg, DEFAULT_UID, &c.sig) as u8]
        }),
        ("verify (bad sig, new key obj)", |c| {
            let pk = PublicKey::<Sm2p256>::from_bytes(&c.pub_bytes).unwrap();
            let mut bad = c.sig;
            bad.s[31] ^= 1;
            vec![pk.verify_digest(&c.e, &bad) as u8]
        }),
        ("sign (fixed k)", |c| {
            sign_digest_with_fixed_k_for_testing(&c.key, &c.e, &K)
                .unwrap()
                .to_raw()
                .to_vec()
        }),
        ("sign (hedged)", |c| {
            let s = c.key.sign(&c.msg, DEFAULT_UID).unwrap();
            // Randomized: only its validity is an output.
            vec![c.key.public_key().verify(&c.msg, DEFAULT_UID, &s) as u8]
        }),
        ("encrypt 64 B (new key obj)", |c| {
            let pk = PublicKey::<Sm2p256>::from_bytes(&c.pub_bytes).unwrap();
            let p = encrypt_with_fixed_k_for_testing(&pk, &c.msg, &K).unwrap();
            let mut o = p.c1_x.to_vec();
            o.extend_from_slice(&p.c3);
            o.extend_from_slice(&p.c2);
            o
        }),
        ("decrypt 64 B", |c| {
            c.key.decrypt_parts(&c.ct).unwrap().to_vec()
        }),
        ("key exchange (fixed r)", |c| kex(c, true)),
        ("key exchange (hedged)", |c| {
            kex(c, false);
            Vec::new()
        }),
    ]
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (rounds, variants) = bench::rounds_and_variants(&args, 200);
    let ctx = setup();
    // SM2_BENCH_ONLY=substring keeps the matching operations (profiling one of them);
    // SM2_BENCH_ONLY=ops keeps the whole operations (no field or point chains).
    let only = std::env::var("SM2_BENCH_ONLY").unwrap_or_default();
    let ops: Vec<Op> = ops()
        .into_iter()
        .filter(|(name, _)| {
            if only == "ops" {
                !name.starts_with("field") && !name.starts_with("point")
            } else {
                name.contains(only.as_str())
            }
        })
        .collect();
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
    let mut samples = vec![vec![Vec::new(); variants.len()]; ops.len()];
    for _ in 0..rounds {
        for (i, (_, f)) in ops.iter().enumerate() {
            for (j, v) in variants.iter().enumerate() {
                let t = cpu::with_variant(*v, || {
                    let t0 = Instant::now();
                    std::hint::black_box(f(std::hint::black_box(&ctx)));
                    t0.elapsed()
                });
                samples[i][j].push(t.as_secs_f64() * 1e6);
            }
        }
    }
    print!("{:<30}", "operation (us: min/p25/med)");
    for v in &variants {
        print!("{:>24}", v.name());
    }
    println!();
    for (i, (name, _)) in ops.iter().enumerate() {
        print!("{name:<30}");
        for s in samples[i].iter_mut() {
            let (lo, q1, med) = bench::low_stats(s);
            print!("{:>24}", format!("{lo:.1} / {q1:.1} / {med:.1}"));
        }
        println!();
    }
}
