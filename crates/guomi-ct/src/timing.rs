//! A dudect-style timing test (Reparaz, Balasch, Verbauwhede, "Dude, is my code constant
//! time?", DATE 2017) for the kernels valgrind cannot run (AVX-512, GFNI, VAES,
//! VPCLMULQDQ).
//!
//! Two classes of secret input: class 0 a fixed value (all zero, or k = 1 for scalar
//! multiplication: the values most likely to hit a shortcut), class 1 fresh random values.
//! The class of each measurement is drawn at random, inputs are prepared before the timed
//! region, and one operation is timed with `lfence; rdtsc` on both sides. The first batch
//! is a warm-up and sets the cropping thresholds (percentiles of the cycle counts, as
//! dudect does); every later measurement feeds Welch's t-test for the uncropped data and
//! for each crop. A target leaks if the largest |t| exceeds 4.5.

use guomi_core::cpu::{self, Backend};
use guomi_core::sm2;
use guomi_core::sm3;
use guomi_core::sm4::{self, gcm::Sm4Gcm, Mode, Sm4};
use guomi_core::zuc;
use std::hint::black_box;

/// |t| above this: leak (dudect's threshold for "probably not constant time").
pub const T_THRESHOLD: f64 = 4.5;
const BATCH: usize = 10_000;
/// Crops at percentiles 1 - 0.5^(10 (i+1) / CROPS) (dudect's schedule).
const CROPS: usize = 20;

/// One timing target: prepares a secret input of its class, then runs the operation.
pub struct Target {
    pub name: &'static str,
    /// Measurements in the full run (the short run takes a tenth).
    pub default_n: usize,
    pub input_len: usize,
    /// Maps a raw input (all zero for class 0, random for class 1) to a valid one, before
    /// the timed region (so that the harness's own work is never timed).
    pub prepare: fn(&mut [u8]),
    /// The timed operation on one prepared secret input.
    pub run: fn(&[u8]) -> u64,
}

/// Inputs used as they are.
fn raw(_: &mut [u8]) {}

/// The result for one target.
pub struct Outcome {
    pub name: &'static str,
    pub backend: Backend,
    pub n: usize,
    pub max_t: f64,
    pub max_t_crop: Option<usize>,
    pub median_fixed: u64,
    pub median_random: u64,
}

#[derive(Clone, Copy, Default)]
struct Welford {
    n: [f64; 2],
    mean: [f64; 2],
    m2: [f64; 2],
}

impl Welford {
    fn push(&mut self, class: usize, x: f64) {
        self.n[class] += 1.0;
        let d = x - self.mean[class];
        self.mean[class] += d / self.n[class];
        self.m2[class] += d * (x - self.mean[class]);
    }

    /// Welch's t statistic.
    fn t(&self) -> f64 {
        if self.n[0] < 2.0 || self.n[1] < 2.0 {
            return 0.0;
        }
        let v0 = self.m2[0] / (self.n[0] - 1.0);
        let v1 = self.m2[1] / (self.n[1] - 1.0);
        let den = (v0 / self.n[0] + v1 / self.n[1]).sqrt();
        if den == 0.0 {
            return 0.0;
        }
        (self.mean[0] - self.mean[1]) / den
    }
}

/// xorshift64*: input generation only (not a secret source).
struct Prng(u64);
impl Prng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn fill(&mut self, b: &mut [u8]) {
        for c in b.chunks_mut(8) {
            let v = self.next().to_le_bytes();
            c.copy_from_slice(&v[..c.len()]);
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
#[allow(unsafe_code)] // the rdtsc / lfence intrinsics
fn cycles() -> u64 {
    use std::arch::x86_64::{_mm_lfence, _rdtsc};
    // SAFETY: lfence and rdtsc exist on every x86-64 CPU.
    unsafe {
        _mm_lfence();
        let t = _rdtsc();
        _mm_lfence();
        t
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn cycles() -> u64 {
    use std::time::{SystemTime, UNIX_EPOCH};
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
}

/// Times `f` once.
#[inline(always)]
fn time(f: impl FnOnce() -> u64) -> u64 {
    let t0 = cycles();
    black_box(f());
    cycles().wrapping_sub(t0)
}

fn percentile(sorted: &[u64], p: f64) -> u64 {
    let i = ((sorted.len() - 1) as f64 * p) as usize;
    sorted[i]
}

/// Runs one target for `n` measurements (plus a warm-up batch) on `backend`.
pub fn measure(t: &Target, backend: Backend, n: usize) -> Outcome {
    let mut seed = [0u8; 8];
    guomi_core::rand::fill(&mut seed).expect("OS randomness");
    let mut rng = Prng(u64::from_le_bytes(seed) | 1);
    let mut inputs = vec![0u8; BATCH * t.input_len];
    let mut classes = vec![0u8; BATCH];
    let mut times = vec![0u64; BATCH];
    let mut thresholds: Vec<u64> = Vec::new();
    let mut stats = vec![Welford::default(); CROPS + 1];
    let mut all: [Vec<u64>; 2] = [Vec::new(), Vec::new()];
    let batches = n.div_ceil(BATCH) + 1;
    cpu::with_backend(backend, || {
        for batch in 0..batches {
            // Prepare every input of the batch outside the timed region.
            for (i, c) in classes.iter_mut().enumerate() {
                *c = (rng.next() & 1) as u8;
                let buf = &mut inputs[i * t.input_len..(i + 1) * t.input_len];
                if *c == 0 {
                    buf.fill(0);
                } else {
                    rng.fill(buf);
                }
                (t.prepare)(buf);
            }
            for i in 0..BATCH {
                let input = &inputs[i * t.input_len..(i + 1) * t.input_len];
                times[i] = time(|| (t.run)(input));
            }
            if batch == 0 {
                // Warm-up: sets the crop thresholds, not counted.
                let mut s = times.clone();
                s.sort_unstable();
                thresholds = (0..CROPS)
                    .map(|i| {
                        let p = 1.0 - 0.5f64.powf(10.0 * (i + 1) as f64 / CROPS as f64);
                        percentile(&s, p)
                    })
                    .collect();
                continue;
            }
            for i in 0..BATCH {
                let (c, x) = (classes[i] as usize, times[i]);
                stats[0].push(c, x as f64);
                for (k, &th) in thresholds.iter().enumerate() {
                    if x <= th {
                        stats[k + 1].push(c, x as f64);
                    }
                }
                all[c].push(x);
            }
        }
    });
    let (mut max_t, mut max_t_crop) = (0.0f64, None);
    for (k, s) in stats.iter().enumerate() {
        // Ignore crops too small to say anything (dudect's rule of thumb).
        if s.n[0] + s.n[1] < 1000.0 {
            continue;
        }
        let tv = s.t();
        if tv.abs() > max_t.abs() {
            max_t = tv;
            max_t_crop = k.checked_sub(1);
        }
    }
    let med = |v: &mut Vec<u64>| {
        v.sort_unstable();
        if v.is_empty() {
            0
        } else {
            v[v.len() / 2]
        }
    };
    Outcome {
        name: t.name,
        backend,
        n: (batches - 1) * BATCH,
        max_t,
        max_t_crop,
        median_fixed: med(&mut all[0]),
        median_random: med(&mut all[1]),
    }
}

fn sm4_key_schedule(input: &[u8]) -> u64 {
    let c = Sm4::new(input.try_into().unwrap());
    black_box(&c);
    0
}

/// Key and data (256 bytes, or 4 KiB for the wide AVX-512 paths) both secret
/// (input = key || data).
fn sm4_mode(input: &[u8], mode: Mode) -> u64 {
    let c = Sm4::new(input[..16].try_into().unwrap());
    let data = &input[16..];
    let mut buf = [0u8; 4096];
    let out = &mut buf[..data.len()];
    let iv = [7u8; 16];
    let iv = if mode == Mode::Ecb {
        None
    } else {
        Some(&iv[..])
    };
    sm4::modes::encrypt_into(&c, mode, iv, Some(sm4::Padding::None), data, out).unwrap();
    out[0] as u64
}

fn sm4_ecb(input: &[u8]) -> u64 {
    sm4_mode(input, Mode::Ecb)
}

fn sm4_ctr(input: &[u8]) -> u64 {
    sm4_mode(input, Mode::Ctr)
}

fn sm4_gcm(input: &[u8]) -> u64 {
    let g = Sm4Gcm::new(input[..16].try_into().unwrap());
    let data = &input[16..];
    let mut buf = [0u8; 4096 + 16];
    let out = &mut buf[..data.len() + 16];
    g.encrypt_into(&[9u8; 12], b"aad", data, out).unwrap();
    out[0] as u64
}

/// ZUC-128 key (secret) and 256 bytes of data: EEA3.
fn zuc_eea3(input: &[u8]) -> u64 {
    let mut out = [0u8; 256];
    zuc::eea3::eea3_into(&input[..16], 0x1234, 5, 1, &input[16..], None, &mut out).unwrap();
    out[0] as u64
}

/// ZUC-128 key (secret): initialisation and 64 keystream words.
fn zuc_keystream(input: &[u8]) -> u64 {
    let mut z = zuc::Zuc::new(input, &[3u8; 16]).unwrap();
    let mut w = [0u32; 64];
    z.words(&mut w);
    w[0] as u64
}

fn sm3_hash(input: &[u8]) -> u64 {
    sm3::hash(input)[0] as u64
}

/// The 16-lane multi-buffer SM3 (the AVX-512 kernel): sixteen secret 64-byte messages.
fn sm3_hash_many(input: &[u8]) -> u64 {
    let msgs: Vec<&[u8]> = input.chunks(64).collect();
    sm3::many::hash_many(&msgs, None)[0][0] as u64
}

/// k in [1, n-1]: class 0 (all zero) becomes k = 1, class 1 drops its top bit (< n).
fn sm2_k(k: &mut [u8]) {
    k[0] &= 0x7f;
    k[31] |= k.iter().all(|&b| b == 0) as u8;
}

/// The same with a dense fixed k (class 0 becomes 0x5a5a..5a): separates a timing
/// difference specific to k = 1 (few nonzero digits) from one for any fixed k.
fn sm2_k_dense(k: &mut [u8]) {
    if k.iter().all(|&b| b == 0) {
        k.fill(0x5a);
    }
    k[0] &= 0x7f;
}

/// PrivateKey::from_bytes: range check, [d]G by the fixed-base comb, to_affine.
fn sm2_from_bytes(input: &[u8]) -> u64 {
    let key = sm2::PrivateKey::<sm2::Sm2p256>::from_bytes(input).unwrap();
    key.public_key().x()[0] as u64
}

/// [k]G and the rest of SM2 signing (A4-A7) with k secret.
fn sm2_sign_k(input: &[u8]) -> u64 {
    use std::sync::OnceLock;
    static KEY: OnceLock<sm2::PrivateKey> = OnceLock::new();
    let key = KEY.get_or_init(|| sm2::PrivateKey::from_bytes(&[0x42; 32]).unwrap());
    let k: &[u8; 32] = input.try_into().unwrap();
    let sig = sm2::hazmat::sign_digest_with_fixed_k_for_testing(key, &[5u8; 32], k);
    sig.map(|s| s.r[0] as u64).unwrap_or(0)
}

pub const TARGETS: &[Target] = &[
    Target {
        name: "sm4-key-schedule",
        default_n: 1_000_000,
        input_len: 16,
        prepare: raw,
        run: sm4_key_schedule,
    },
    Target {
        name: "sm4-ecb",
        default_n: 1_000_000,
        input_len: 16 + 256,
        prepare: raw,
        run: sm4_ecb,
    },
    Target {
        name: "sm4-ctr",
        default_n: 1_000_000,
        input_len: 16 + 256,
        prepare: raw,
        run: sm4_ctr,
    },
    Target {
        name: "sm4-gcm",
        default_n: 1_000_000,
        input_len: 16 + 256,
        prepare: raw,
        run: sm4_gcm,
    },
    Target {
        name: "sm4-ecb-4k",
        default_n: 200_000,
        input_len: 16 + 4096,
        prepare: raw,
        run: sm4_ecb,
    },
    Target {
        name: "sm4-ctr-4k",
        default_n: 200_000,
        input_len: 16 + 4096,
        prepare: raw,
        run: sm4_ctr,
    },
    Target {
        name: "sm4-gcm-4k",
        default_n: 200_000,
        input_len: 16 + 4096,
        prepare: raw,
        run: sm4_gcm,
    },
    Target {
        name: "zuc-keystream",
        default_n: 1_000_000,
        input_len: 16,
        prepare: raw,
        run: zuc_keystream,
    },
    Target {
        name: "zuc-eea3",
        default_n: 1_000_000,
        input_len: 16 + 256,
        prepare: raw,
        run: zuc_eea3,
    },
    Target {
        name: "sm3-hash",
        default_n: 1_000_000,
        input_len: 256,
        prepare: raw,
        run: sm3_hash,
    },
    Target {
        name: "sm3-hash-many",
        default_n: 300_000,
        input_len: 16 * 64,
        prepare: raw,
        run: sm3_hash_many,
    },
    Target {
        name: "sm2-from-bytes",
        default_n: 200_000,
        input_len: 32,
        prepare: sm2_k,
        run: sm2_from_bytes,
    },
    Target {
        name: "sm2-sign-k-dense",
        default_n: 200_000,
        input_len: 32,
        prepare: sm2_k_dense,
        run: sm2_sign_k,
    },
    Target {
        name: "sm2-sign-k",
        default_n: 200_000,
        input_len: 32,
        prepare: sm2_k,
        run: sm2_sign_k,
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    fn welch(a: &[f64], b: &[f64]) -> f64 {
        let mut w = Welford::default();
        a.iter().for_each(|&x| w.push(0, x));
        b.iter().for_each(|&x| w.push(1, x));
        w.t()
    }

    #[test]
    fn welch_t_matches_a_hand_computed_value() {
        // means 2 and 5, sample variances 1 and 1, n = 3 each:
        // t = (2 - 5) / sqrt(1/3 + 1/3) = -3.674...
        let t = welch(&[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0]);
        assert!((t + 3.0 / (2.0f64 / 3.0).sqrt()).abs() < 1e-12, "{t}");
        // Identical samples: no difference; too few samples: 0.
        assert_eq!(welch(&[1.0, 2.0, 3.0], &[1.0, 2.0, 3.0]), 0.0);
        assert_eq!(welch(&[1.0], &[4.0, 5.0]), 0.0);
    }

    /// The statistic separates a shifted distribution and does not flag equal ones.
    #[test]
    fn welch_t_separates_shift_from_noise() {
        let mut r = Prng(0x9e37_79b9_7f4a_7c15);
        let noise = |r: &mut Prng| (r.next() % 100) as f64;
        let a: Vec<f64> = (0..20_000).map(|_| noise(&mut r)).collect();
        let b: Vec<f64> = (0..20_000).map(|_| noise(&mut r)).collect();
        let c: Vec<f64> = (0..20_000).map(|_| noise(&mut r) + 2.0).collect();
        assert!(welch(&a, &b).abs() < T_THRESHOLD);
        assert!(welch(&a, &c).abs() > T_THRESHOLD);
    }

    /// A deliberately leaky target (work proportional to the secret) is flagged, and a
    /// constant one is not: the whole measurement pipeline, end to end.
    #[test]
    fn measure_flags_a_leaky_target() {
        fn leaky(input: &[u8]) -> u64 {
            // Class 0 (zero) returns at once; class 1 spins.
            let mut x = 0u64;
            for _ in 0..(input[0] as u64 | 1) * 20 {
                x = black_box(x.wrapping_add(1));
            }
            x
        }
        let t = Target {
            name: "leaky",
            default_n: 20_000,
            input_len: 1,
            prepare: raw,
            run: leaky,
        };
        let o = measure(&t, Backend::Portable, 20_000);
        assert!(
            o.max_t.abs() > T_THRESHOLD,
            "leak not found: t = {}",
            o.max_t
        );
        assert_eq!(o.n, 20_000);
    }
}
