//! Bits and values below the contract: floating-point formats ([`format`]), literal values and
//! value domains ([`value`]) and the stable hashes seeds and revisions come from ([`hash`]).

pub mod format;
pub mod hash;
pub mod value;
