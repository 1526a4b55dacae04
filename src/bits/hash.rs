//! Stable FNV-1a hashes: the 64-bit one derives seeds, shard keys and the worker folder's name;
//! the 128-bit one is the catalog's revision.

/// The 64-bit FNV-1a hash of `bytes`.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3))
}

/// The 128-bit FNV-1a hash of the concatenation of `parts`.
pub fn fnv1a_128<'a>(parts: impl IntoIterator<Item = &'a [u8]>) -> u128 {
    const OFFSET: u128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d;
    const PRIME: u128 = 0x0000_0000_0100_0000_0000_0000_0000_013b;
    parts.into_iter().flatten().fold(OFFSET, |hash, &b| (hash ^ u128::from(b)).wrapping_mul(PRIME))
}
