//! guomi-core: the Chinese commercial cryptography algorithms in pure Rust.
//!
//! * SM3 hash (GB/T 32905-2016) with HMAC, the GM/T 0003 KDF, PBKDF2 and HKDF.
//! * SM4 block cipher (GB/T 32907-2016) and its modes.
//! * ZUC stream cipher (GM/T 0001-2012, 3GPP 128-EEA3/EIA3, ZUC-256).
//! * SM2 elliptic-curve signatures, encryption and key exchange (GB/T 32918).
//! * SM9 identity-based cryptography over a BN curve (GM/T 0044-2016).
//!
//! Formats built on these (X.509, PKCS#8 and encrypted keys, the envelope, CMS, PKCS#12)
//! live in the `guomi-formats` crate; this one holds the primitives only.
//!
//! This crate has no Python dependency; `guomi-python` binds it. Backends (portable;
//! AVX2, AVX-512 on x86-64; NEON and the SM3/SM4 instructions on aarch64; Zksed/Zksh and
//! the vector crypto extensions on riscv64) are chosen at run time, see [`cpu`].
//!
//! `unsafe` code (SIMD intrinsics, inline assembly) lives only in the backend files
//! (`*/x86_avx2.rs`, `*/x86_avx512.rs`, `*/aarch64_*.rs`, `*/riscv_*.rs`,
//! `sm4/ghash_*.rs`) and the token dispatch that calls them (`sm4/native.rs`,
//! `sm3/native.rs`, `sm4/ghash.rs` on aarch64/riscv64): the crate denies `unsafe_code`
//! and only those modules allow it. Each backend file is compiled for its architecture
//! only, behind a runtime CPU check or a CPU-proof token (see [`cpu`]), and every
//! `unsafe` block carries a `// SAFETY:` comment. The exceptions are
//! [`parallel`]'s hand-off of a call's work to pool threads (a lifetime-erased pointer
//! to the call's task, dereferenced only while the call waits for it; see
//! `parallel::with_helpers`), [`cpu`]'s CPUID query of the vendor (an `unsafe fn`
//! in the oldest supported Rust, safe from 1.94 on) and its `riscv_hwprobe` system call, and `ct::valgrind`'s valgrind
//! client-request sequence, compiled only with the `ct-declassify` feature that the
//! constant-time harness enables (see [`ct`]), and [`columns::cdata`]'s reading of Arrow
//! C data interface structs from a foreign producer (every pointer, count and length
//! checked before it is followed; fuzzed by the `arrow_cdata` target).
#![deny(unsafe_code)]
#![deny(unsafe_op_in_unsafe_fn)]

pub mod columns;
pub mod cpu;
pub mod ct;
pub mod der;
pub mod error;
pub(crate) mod lanes;
pub(crate) mod modinv;
pub mod parallel;
pub mod rand;
pub mod sm2;
pub mod sm3;
pub mod sm4;
pub mod sm9;
pub mod zuc;

pub use error::{Error, Result};
