//! Column kernels: one operation over every row of a column of byte strings, in the
//! memory layout of Apache Arrow (offsets + values buffers, a validity bitmap), with the
//! result written into one preallocated values buffer.
//!
//! This module knows nothing of Python or of the Arrow C data interface: the bindings
//! turn foreign buffers into the borrowed views below ([`Chunk`], [`Column`]), after
//! which everything is safe Rust. The views are validated when built (offsets
//! non-decreasing and inside the values buffer, view entries inside their buffers,
//! bitmaps long enough), so a malformed array from another library is a typed error,
//! never an out-of-bounds read.
//!
//! Every kernel calls the same core APIs as the scalar functions (`sm3::hash`,
//! `PrivateKey::sign_digest`, ...) or their multi-message forms (`sm3::many::hash_many`,
//! `Sm4Gcm::encrypt_many_into`), which give the same bytes; the results agree row for row.
//! Threads follow [`crate::parallel`]: `None`/`Some(1)` the calling thread, `Some(0)`
//! every core, `Some(n)` at most `n`; rows are cut into contiguous ranges, so the output
//! never depends on the thread count (apart from fresh random nonces and signatures).

#[allow(unsafe_code)]
pub mod cdata;
mod kernel;
mod ops;
mod view;

pub use kernel::{BinaryOut, BoolOut, OnError, RowError};
pub use ops::{
    hmac_sm3, sm2_sign, sm2_verify, sm3, sm4_decrypt, sm4_encrypt, sm4_gcm_decrypt,
    sm4_gcm_encrypt, zuc_eea3, PublicKeys, GCM_NONCE_SIZE, GCM_OVERHEAD,
};
pub use view::{Arg, Chunk, Column, IntArg, IntChunk, IntColumn, IntValues, Validity, Values};
