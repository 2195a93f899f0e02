//! A small timing harness for the SM3 key derivations (no criterion), each against the
//! straightforward code it replaced, alternated in every round on the same thread, outputs
//! compared first:
//! * the GM/T 0003 KDF (`sm3::kdf::kdf_into`) against Hash(Z ∥ ct) one block at a time
//!   from a cloned prefix hasher (before its SIMD lanes), for every length and Z;
//! * PBKDF2-HMAC-SM3, 10,000 iterations (`sm3::kdf::pbkdf2_hmac_sm3`), against the loop of
//!   HMAC objects copied from the keyed one (before its fixed-block chain).
//!
//! ```text
//! cargo run --release -p guomi-core --example kdf_bench -- [ROUNDS] [VARIANT ...]
//! ```
//!
//! `KDF_BENCH_LENS=64,1024,...` chooses the KDF output lengths (default 64 B to 1 MiB).
//! The column "lanes" is `kdf_into` as shipped, which on `portable` (and for outputs
//! under 96 bytes) still goes one block at a time.

#[path = "support/bench.rs"]
mod bench;

use guomi_core::cpu;
use guomi_core::sm3;
use guomi_core::sm3::hmac::HmacSm3;
use guomi_core::sm3::kdf::{kdf_into, pbkdf2_hmac_sm3};
use std::time::Instant;
use zeroize::Zeroize;

/// The definition, one block per counter (the code `kdf_into` ran before its lanes).
fn kdf_blockwise(z: &[u8], out: &mut [u8]) {
    let mut prefix = sm3::Sm3::new();
    prefix.update(z);
    for (chunk, ct) in out.chunks_mut(32).zip(1u32..) {
        let mut h = prefix.clone();
        h.update(&ct.to_be_bytes());
        let mut d = h.finalize();
        chunk.copy_from_slice(&d[..chunk.len()]);
        d.zeroize();
    }
}

/// PBKDF2 (RFC 8018 §5.2) with an HMAC object copied from the keyed one per iteration.
fn pbkdf2_objects(pw: &[u8], salt: &[u8], iterations: u32, out: &mut [u8]) {
    let keyed = HmacSm3::new(pw);
    for (chunk, block) in out.chunks_mut(32).zip(1u32..) {
        let mut m = keyed.clone();
        m.update(salt);
        m.update(&block.to_be_bytes());
        let mut u = m.finalize();
        let mut t = u;
        for _ in 1..iterations {
            let mut m = keyed.clone();
            m.update(&u);
            u = m.finalize();
            t.iter_mut().zip(u).for_each(|(a, b)| *a ^= b);
        }
        chunk.copy_from_slice(&t[..chunk.len()]);
    }
}

fn bench_pbkdf2(rounds: usize, variants: &[cpu::Variant]) {
    const ITERATIONS: u32 = 10_000;
    for v in variants {
        let (mut a, mut b) = ([0u8; 32], [0u8; 32]);
        cpu::with_variant(*v, || {
            pbkdf2_hmac_sm3(b"password", b"salt", ITERATIONS, &mut a).unwrap();
            pbkdf2_objects(b"password", b"salt", ITERATIONS, &mut b);
        });
        assert_eq!(a, b, "PBKDF2 {}: outputs differ", v.name());
        let mut t = [Vec::new(), Vec::new()];
        for _ in 0..rounds.div_ceil(10) {
            for (k, t) in t.iter_mut().enumerate() {
                cpu::with_variant(*v, || {
                    let t0 = Instant::now();
                    if k == 0 {
                        pbkdf2_hmac_sm3(b"password", b"salt", ITERATIONS, &mut a).unwrap();
                    } else {
                        pbkdf2_objects(b"password", b"salt", ITERATIONS, &mut b);
                    }
                    t.push(t0.elapsed().as_secs_f64() * 1e6);
                });
            }
        }
        let [mut new, mut old] = t;
        let (n0, n1, n2) = bench::low_stats(&mut new);
        let (o0, o1, o2) = bench::low_stats(&mut old);
        println!(
            "PBKDF2 {ITERATIONS} iterations, 32 B {:<8} chain {n0:8.1} / {n1:8.1} / {n2:8.1}   objects {o0:8.1} / {o1:8.1} / {o2:8.1}   {:.2}x",
            v.name(),
            o2 / n2
        );
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (rounds, variants) = bench::rounds_and_variants(&args, 200);
    let lens: Vec<usize> = std::env::var("KDF_BENCH_LENS")
        .ok()
        .map(|s| s.split(',').map(|x| x.parse().unwrap()).collect())
        .unwrap_or_else(|| vec![64, 96, 128, 192, 256, 512, 1024, 8192, 1 << 20]);
    // Z as in SM2 encryption (x2 ∥ y2: one whole block) and a Z whose tail needs two
    // padded blocks per counter (60 bytes past the whole blocks).
    let zs: Vec<Vec<u8>> = vec![
        (0..64u8).collect(),
        (0..124u32).map(|i| (i * 7) as u8).collect(),
    ];
    for z in &zs {
        for &len in &lens {
            for v in &variants {
                let (mut a, mut b) = (vec![0u8; len], vec![0u8; len]);
                cpu::with_variant(*v, || {
                    kdf_into(z, &mut a);
                    kdf_blockwise(z, &mut b);
                });
                assert_eq!(
                    a,
                    b,
                    "Z {} B, {len} B, {}: outputs differ",
                    z.len(),
                    v.name()
                );
            }
        }
    }
    println!("outputs agree; {rounds} rounds, us: min / p25 / median");
    for z in &zs {
        for &len in &lens {
            let reps = (65536 / len).clamp(1, 256);
            let mut out = vec![0u8; len];
            for v in &variants {
                let mut t = [Vec::new(), Vec::new()];
                for _ in 0..rounds {
                    for (k, f) in [kdf_into as fn(&[u8], &mut [u8]), kdf_blockwise]
                        .iter()
                        .enumerate()
                    {
                        cpu::with_variant(*v, || {
                            let t0 = Instant::now();
                            for _ in 0..reps {
                                f(std::hint::black_box(z), &mut out);
                            }
                            t[k].push(t0.elapsed().as_secs_f64() * 1e6 / reps as f64);
                        });
                    }
                }
                let [mut new, mut old] = t;
                let (n0, n1, n2) = bench::low_stats(&mut new);
                let (o0, o1, o2) = bench::low_stats(&mut old);
                println!(
                    "Z {:>3} B {:>8} B {:<8} lanes {:8.3} / {:8.3} / {:8.3}   blockwise {:8.3} / {:8.3} / {:8.3}   {:.2}x",
                    z.len(),
                    len,
                    v.name(),
                    n0,
                    n1,
                    n2,
                    o0,
                    o1,
                    o2,
                    o2 / n2
                );
            }
        }
    }
    bench_pbkdf2(rounds, &variants);
}
