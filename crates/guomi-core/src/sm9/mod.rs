//! SM9 identity-based cryptography (GM/T 0044-2016 / GB/T 38635).

pub mod bn256;
pub mod hash;
