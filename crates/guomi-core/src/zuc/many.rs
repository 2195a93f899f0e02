//! Many EEA3 / EIA3 packets in one call.

use crate::error::Result;

/// One packet: (key, COUNT, BEARER, DIRECTION, data); the whole of `data` is processed.
pub type Item<'a> = (&'a [u8], u32, u8, u8, &'a [u8]);

/// 128-EEA3 of every packet, in order.
pub fn eea3_many(items: &[Item<'_>], threads: Option<usize>) -> Result<Vec<Vec<u8>>> {
    let _ = threads;
    items
        .iter()
        .map(|&(k, c, b, d, data)| super::eea3(k, c, b, d, data, None))
        .collect()
}

/// 128-EIA3 of every packet, in order.
pub fn eia3_many(items: &[Item<'_>], threads: Option<usize>) -> Result<Vec<[u8; 4]>> {
    let _ = threads;
    items
        .iter()
        .map(|&(k, c, b, d, data)| super::eia3(k, c, b, d, data, None))
        .collect()
}
