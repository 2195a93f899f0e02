//! A small SM3 timing harness (no criterion): one-shot `sm3::hash` of 1 MiB, 8 KiB and 32 B,
//! the minimum and the median of many alternating rounds, as MB/s and cycles per byte.
//!
//! ```text
//! cargo run --release -p guomi-core --example sm3_bench -- [ROUNDS] [VARIANT ...]
//! ```
//!
//! `SM3_BENCH_AB=old|new|ab` (default `ab`) chooses the single-stream compression of the
//! x86-64 `avx2`/`avx512` backends: the assembly (`new`), the portable rounds compiled with
//! BMI2 that it replaced (`old`), or both, run alternately in every round on the same
//! thread. With several backend variants (e.g. `portable avx2`), each runs in turn too
//! (`cpu::with_variant`). Before timing, the digests of every configuration are compared.
//! Cycles per byte assume a fixed clock, `SM3_BENCH_GHZ` (default 3.7).

#[path = "support/bench.rs"]
mod bench;

use guomi_core::cpu;
use guomi_core::sm3;
use std::time::Instant;

#[cfg(target_arch = "x86_64")]
fn select(old: bool) {
    sm3::use_old_compress_for_testing(old);
}

#[cfg(not(target_arch = "x86_64"))]
fn select(_old: bool) {}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (rounds, variants) = bench::rounds_and_variants(&args, 200);
    let ab = std::env::var("SM3_BENCH_AB").unwrap_or_else(|_| "ab".into());
    let modes: Vec<(&str, bool)> = match ab.as_str() {
        "old" => vec![("old", true)],
        "new" => vec![("new", false)],
        "ab" => vec![("old", true), ("new", false)],
        other => panic!("SM3_BENCH_AB={other}: expected old, new or ab"),
    };
    let ghz: f64 = std::env::var("SM3_BENCH_GHZ")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3.7);

    let big: Vec<u8> = (0..1usize << 20)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    // (label, input length, hashes per timed sample)
    let sizes: [(&str, usize, usize); 3] = [
        ("1 MiB", 1 << 20, 1),
        ("8 KiB", 8 << 10, 64),
        ("32 B", 32, 4096),
    ];

    let mut configs = Vec::new();
    for v in &variants {
        for &(name, old) in &modes {
            configs.push((format!("{} {name}", v.name()), *v, old));
        }
    }
    // Digests first: every configuration must agree.
    for &(_, len, _) in &sizes {
        let mut first: Option<[u8; 32]> = None;
        for (label, v, old) in &configs {
            select(*old);
            let d = cpu::with_variant(*v, || sm3::hash(&big[..len]));
            match first {
                None => first = Some(d),
                Some(f) => assert_eq!(d, f, "{label}: digest of {len} bytes differs"),
            }
        }
        let hex: String = first.unwrap()[..8]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        println!(
            "digest({len} B) = {hex}... (all {} configurations agree)",
            configs.len()
        );
    }

    println!("{rounds} rounds; cycles/byte at an assumed {ghz} GHz; min / median of the rounds");
    for &(size_label, len, reps) in &sizes {
        let mut times: Vec<Vec<f64>> = vec![Vec::with_capacity(rounds); configs.len()];
        let mut sink = 0u8;
        for _ in 0..rounds {
            for (k, (_, v, old)) in configs.iter().enumerate() {
                select(*old);
                cpu::with_variant(*v, || {
                    let t0 = Instant::now();
                    for _ in 0..reps {
                        sink ^= sm3::hash(std::hint::black_box(&big[..len]))[0];
                    }
                    times[k].push(t0.elapsed().as_secs_f64() / reps as f64);
                });
            }
        }
        std::hint::black_box(sink);
        for (k, (label, _, _)) in configs.iter().enumerate() {
            let (min, _, med) = bench::low_stats(&mut times[k]);
            let mbs = |t: f64| len as f64 / t / 1e6;
            let cpb = |t: f64| t * ghz * 1e9 / len as f64;
            println!(
                "{size_label:>6} {label:<22} {:7.1} / {:7.1} MB/s   {:5.2} / {:5.2} cycles/B",
                mbs(min),
                mbs(med),
                cpb(min),
                cpb(med)
            );
        }
    }
    select(false);
}
