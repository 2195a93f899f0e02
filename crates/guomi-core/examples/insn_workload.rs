//! One cryptographic operation chosen on the command line, and nothing else: the workload
//! that `scripts/insn-count.sh` runs under qemu's instruction-counting plugin, so that the
//! counts hold guomi's code and not an interpreter's.
//!
//! ```text
//! cargo build --release -p guomi-core --target aarch64-unknown-linux-gnu --example insn_workload
//! GUOMI_BACKEND=neon qemu-aarch64 -L /usr/aarch64-linux-gnu -cpu max \
//!     -plugin target/cross/insn.so,inline=on -d plugin \
//!     target/aarch64-unknown-linux-gnu/release/examples/insn_workload sm4-ctr 1048576
//! ```
//!
//! Arguments: `<op> <n>`. For the byte-oriented operations `n` is the input length in
//! bytes (a multiple of 16 for `sm4-ecb` and `sm4-cbc-enc`, which run without padding):
//!
//! | op            | what runs once                                                    |
//! |---------------|-------------------------------------------------------------------|
//! | `sm4-ecb`     | `sm4::modes::encrypt_into`, ECB, no padding                       |
//! | `sm4-cbc-enc` | `sm4::modes::encrypt_into`, CBC, no padding                       |
//! | `sm4-ctr`     | `sm4::modes::encrypt_into`, CTR                                   |
//! | `sm4-gcm`     | `Sm4Gcm::encrypt_into`, 12-byte nonce, no associated data         |
//! | `sm3`         | `sm3::hash`                                                       |
//! | `sm3-many`    | `sm3::many::hash_many` of 1 KiB messages, on the calling thread   |
//! | `eea3-many`   | `zuc::many::eea3_many` of 1 KiB packets, on the calling thread    |
//!
//! For `sm2-sign` and `sm2-verify`, `n` is a number of operations, each on a 64-byte
//! message with the default user ID (so Z_A and the message digest are part of each):
//! `PrivateKey::sign` (hedged nonce), and `PublicKey::verify` of one fixed signature on a
//! key object parsed from its encoding for each verification (no per-key comb table, as
//! one-shot callers and OpenSSL's `EVP_DigestVerify` have).
//!
//! Everything the operation needs (the key schedule, the buffers, the key pair and the
//! signature that is verified) is set up whatever `n` is, so the count of a run with
//! `n = 0` is the baseline to subtract. The buffers come zeroed from the allocator
//! (`vec![0; n]`), which writes no byte in user mode for large sizes (fresh pages), so
//! the difference is the operation alone.
//!
//! The backend is the active variant: `GUOMI_BACKEND` (`portable`, `neon`,
//! `neon-nopmull`, `armsm`, `zk`, `zvk`, ...). A name this CPU cannot run is an error
//! here, not the silent fallback the library makes. The variant is printed to stderr.

use guomi_core::cpu;
use guomi_core::sm2::hazmat::sign_digest_with_fixed_k_for_testing;
use guomi_core::sm2::{message_digest, PrivateKey, PublicKey, Signature, Sm2p256, DEFAULT_UID};
use guomi_core::sm3;
use guomi_core::sm4::gcm::Sm4Gcm;
use guomi_core::sm4::modes::{self, Mode, Padding};
use guomi_core::sm4::Sm4;
use guomi_core::zuc;
use std::hint::black_box;
use std::process::ExitCode;

/// The GB/T 32907 example key (any fixed key will do: the code is constant time).
const KEY: [u8; 16] = [
    0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10,
];
/// A fixed IV / initial counter block for CBC and CTR.
const IV: [u8; 16] = [0x5a; 16];
/// A fixed 96-bit GCM nonce.
const NONCE: [u8; 12] = [0xa5; 12];
/// A fixed SM2 private key (the GB/T 32918 example's d).
const SM2_D: [u8; 32] = [
    0x39, 0x45, 0x20, 0x8f, 0x7b, 0x21, 0x44, 0xb1, 0x3f, 0x36, 0xe3, 0x8a, 0xc6, 0xd3, 0x9f, 0x95,
    0x88, 0x93, 0x93, 0x69, 0x28, 0x60, 0xb5, 0x1a, 0x42, 0xfb, 0x81, 0xef, 0x4d, 0xf7, 0xc5, 0xb8,
];
/// The fixed nonce of the signature that `sm2-verify` checks (any k in [1, n-1] will do).
const K: [u8; 32] = [0x5a; 32];

/// The usage line printed on a bad command line.
const USAGE: &str =
    "usage: insn_workload <sm4-ecb|sm4-cbc-enc|sm4-ctr|sm4-gcm|sm3|sm3-many|eea3-many|sm2-sign|sm2-verify> <n>";

/// An SM4 confidentiality mode run once over `n` zero bytes with `modes::encrypt_into`.
fn sm4_mode(mode: Mode, n: usize) -> Result<(), String> {
    let cipher = Sm4::new(&KEY);
    let iv = (mode != Mode::Ecb).then_some(&IV[..]);
    let data = vec![0u8; n];
    let mut out = vec![0u8; n];
    modes::encrypt_into(&cipher, mode, iv, Some(Padding::None), &data, &mut out)
        .map_err(|e| e.to_string())?;
    black_box(&out);
    Ok(())
}

/// SM4-GCM encryption of `n` zero bytes (ciphertext and tag into one buffer).
fn sm4_gcm(n: usize) -> Result<(), String> {
    let gcm = Sm4Gcm::new(&KEY);
    let data = vec![0u8; n];
    let mut out = vec![0u8; n + 16];
    gcm.encrypt_into(&NONCE, &[], &data, &mut out)
        .map_err(|e| e.to_string())?;
    black_box(&out);
    Ok(())
}

/// One-shot SM3 of `n` zero bytes.
fn sm3_hash(n: usize) -> Result<(), String> {
    let data = vec![0u8; n];
    black_box(sm3::hash(black_box(&data)));
    Ok(())
}

/// The message (and packet) size of `sm3-many` and `eea3-many`.
const MANY_LEN: usize = 1024;

/// `hash_many` of `n` zero bytes cut into [`MANY_LEN`]-byte messages (the last shorter).
fn sm3_many(n: usize) -> Result<(), String> {
    let data = vec![0u8; n];
    let msgs: Vec<&[u8]> = data.chunks(MANY_LEN).collect();
    black_box(sm3::many::hash_many(black_box(&msgs), None));
    Ok(())
}

/// `eea3_many` of `n` zero bytes cut into [`MANY_LEN`]-byte packets, one key, the
/// counter the packet's index.
fn eea3_many(n: usize) -> Result<(), String> {
    let data = vec![0u8; n];
    let items: Vec<zuc::many::Item<'_>> = data
        .chunks(MANY_LEN)
        .enumerate()
        .map(|(i, d)| (&KEY[..], i as u32, 3, 1, d))
        .collect();
    let out = zuc::many::eea3_many(black_box(&items), None).map_err(|e| e.to_string())?;
    black_box(&out);
    Ok(())
}

/// `count` SM2 signatures of a 64-byte message (`verify`: false) or `count` verifications
/// of one signature with a freshly parsed public key each (`verify`: true).
fn sm2(count: usize, verify: bool) -> Result<(), String> {
    let key = PrivateKey::<Sm2p256>::from_bytes(&SM2_D).map_err(|e| e.to_string())?;
    let msg = [0x61u8; 64];
    let pub_bytes = key.public_key().to_uncompressed();
    // Made in both runs (also when only signatures are counted), so that the baseline
    // holds the same setup. A fixed nonce (the `kat-hooks` hook that this crate's examples
    // are built with) makes the signature, and so the count of the variable-time
    // verification, the same in every run.
    let z = key.z(DEFAULT_UID).map_err(|e| e.to_string())?;
    let sig: Signature = sign_digest_with_fixed_k_for_testing(&key, &message_digest(&z, &msg), &K)
        .map_err(|e| e.to_string())?;
    for _ in 0..count {
        if verify {
            let pk = PublicKey::<Sm2p256>::from_bytes(black_box(&pub_bytes))
                .map_err(|e| e.to_string())?;
            if !pk.verify(black_box(&msg), DEFAULT_UID, black_box(&sig)) {
                return Err("verification failed".into());
            }
        } else {
            black_box(
                key.sign(black_box(&msg), DEFAULT_UID)
                    .map_err(|e| e.to_string())?,
            );
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (op, n) = match args.as_slice() {
        [op, n] => match n.parse::<usize>() {
            Ok(n) => (op.as_str(), n),
            Err(_) => {
                eprintln!("{USAGE}");
                return ExitCode::from(2);
            }
        },
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    if let Err(e) = cpu::check_env() {
        eprintln!("insn_workload: {e}");
        return ExitCode::from(2);
    }
    eprintln!("variant: {}", cpu::active_variant());
    let result = match op {
        "sm4-ecb" => sm4_mode(Mode::Ecb, n),
        "sm4-cbc-enc" => sm4_mode(Mode::Cbc, n),
        "sm4-ctr" => sm4_mode(Mode::Ctr, n),
        "sm4-gcm" => sm4_gcm(n),
        "sm3" => sm3_hash(n),
        "sm3-many" => sm3_many(n),
        "eea3-many" => eea3_many(n),
        "sm2-sign" => sm2(n, false),
        "sm2-verify" => sm2(n, true),
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("insn_workload: {op}: {e}");
            ExitCode::FAILURE
        }
    }
}
