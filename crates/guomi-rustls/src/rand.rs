//! rustls's randomness from guomi-core's OS CSPRNG (`getrandom`). A failure is reported
//! to rustls, which aborts what it was doing: there is no fallback generator.

use rustls::crypto::{GetRandomFailed, SecureRandom};

/// The OS CSPRNG.
#[derive(Debug)]
pub struct OsRandom;

/// The one instance the provider uses.
pub static OS_RANDOM: OsRandom = OsRandom;

impl SecureRandom for OsRandom {
    fn fill(&self, buf: &mut [u8]) -> Result<(), GetRandomFailed> {
        guomi_core::rand::fill(buf).map_err(|_| GetRandomFailed)
    }
}
