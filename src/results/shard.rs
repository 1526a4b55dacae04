//! Shards of a plan as its results record them: which shard a run was (`run --shard I/N`),
//! the work units of a plan and which shard owns each.
//!
//! # Work units
//!
//! A unit is named by its key, a string: a check is one unit keyed by its id, except a sweep
//! (`run --exhaustive`), whose every fixed chunk of 2^25 cases is a unit keyed `CHECK_ID#CHUNK`
//! (the chunk's decimal index; `#` is outside the id grammar, so the two never collide). A
//! unit's shard depends on its key and N alone, never on which other units the plan has.
//!
//! # Assignment
//!
//! Jump consistent hashing (Lamping and Veach, "A Fast, Minimal Memory, Consistent Hash
//! Algorithm", 2014) of a stable 64-bit hash of the key: FNV-1a of its bytes, then splitmix64's
//! finalizer, so that keys that differ only in their last bytes still differ in every bit.
//! From N shards to N + 1, a unit either stays where it was or moves to the new shard N + 1
//! (about 1/(N + 1) of them do); none moves between the old shards. Both steps are integer
//! and IEEE-754 arithmetic fixed by their definitions, so every build on every platform
//! assigns alike, which `std`'s `DefaultHasher` does not promise.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::bits::hash::fnv1a;

/// Shard `index` of `total` (`--shard I/N`; 1-based, as nextest, Jest and Playwright count).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Shard {
    index: u32,
    total: u32,
}

impl Shard {
    /// Shard `index` of `total`, with 1 ≤ `index` ≤ `total`.
    pub fn new(index: u32, total: u32) -> Result<Shard, String> {
        if total == 0 {
            return Err("N is 0: there is at least one shard".to_string());
        }
        if index == 0 || index > total {
            return Err(format!("I is {index}: it counts from 1 to N ({total})"));
        }
        Ok(Shard { index, total })
    }

    /// The shard's number, from 1.
    pub fn index(self) -> u32 {
        self.index
    }

    /// The number of shards.
    pub fn total(self) -> u32 {
        self.total
    }

    /// Whether the unit keyed `key` belongs to this shard.
    pub fn owns(self, key: &str) -> bool {
        shard_of(key, self.total) == self.index
    }
}

/// The key of chunk `k` of the sweep check `id`.
pub fn chunk_key(id: &str, k: u64) -> String {
    format!("{id}#{k}")
}

/// The check id and chunk of a unit key: `(id, None)` for a whole check, `(id, Some(k))` for
/// chunk `k` of a sweep; `None` for a `#` without a chunk number.
pub fn split_key(key: &str) -> Option<(&str, Option<u64>)> {
    match key.split_once('#') {
        None => Some((key, None)),
        Some((id, k)) => k.parse().ok().map(|k| (id, Some(k))),
    }
}

/// The shard (1 to `total`) that the unit keyed `key` belongs to among `total` (at least 1).
pub fn shard_of(key: &str, total: u32) -> u32 {
    jump(finalize(fnv1a(key.as_bytes())), total.max(1)) + 1
}

/// splitmix64's output function: a bijection of 64 bits in which every input bit reaches
/// every output bit.
fn finalize(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Jump consistent hash: the bucket in `0..buckets` of `key` (the paper's code, in Rust).
fn jump(mut key: u64, buckets: u32) -> u32 {
    let (mut b, mut j) = (-1i64, 0i64);
    while j < i64::from(buckets) {
        b = j;
        key = key.wrapping_mul(2_862_933_555_777_941_757).wrapping_add(1);
        j = ((b + 1) as f64 * ((1u64 << 31) as f64 / ((key >> 33) + 1) as f64)) as i64;
    }
    b as u32
}

impl FromStr for Shard {
    type Err = String;

    /// Reads `I/N`.
    fn from_str(text: &str) -> Result<Shard, String> {
        let form = |why: &str| format!("`{text}` is not a shard I/N (e.g. 2/4): {why}");
        let (i, n) = text.split_once('/').ok_or_else(|| form("no `/`"))?;
        let number = |part: &str, what: &str| {
            part.parse::<u32>().map_err(|_| form(&format!("{what} `{part}` is not a whole number")))
        };
        Shard::new(number(i, "I")?, number(n, "N")?).map_err(|e| form(&e))
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.total)
    }
}

/// In `results.jsonl` a shard is written as its text, `"2/4"`.
impl Serialize for Shard {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Shard {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Shard, D::Error> {
        String::deserialize(deserializer)?.parse().map_err(serde::de::Error::custom)
    }
}

/// A run that is one shard of a plan: which shard, and the key of every unit of the whole
/// plan, in order (what `merge` needs to name the units no shard ran).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ShardOfPlan {
    pub shard: Shard,
    pub units: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_read_as_i_of_n_and_bad_ones_say_why() {
        let s: Shard = "2/4".parse().unwrap();
        assert_eq!((s.index(), s.total(), s.to_string()), (2, 4, "2/4".to_string()));
        assert_eq!(serde_json::to_string(&s).unwrap(), "\"2/4\"");
        assert_eq!(serde_json::from_str::<Shard>("\"1/1\"").unwrap(), Shard::new(1, 1).unwrap());
        for (bad, says) in [
            ("2", "no `/`"),
            ("0/4", "I is 0: it counts from 1 to N (4)"),
            ("5/4", "I is 5: it counts from 1 to N (4)"),
            ("1/0", "N is 0"),
            ("a/4", "I `a` is not a whole number"),
            ("1/-3", "N `-3` is not a whole number"),
            ("1/4/2", "N `4/2` is not a whole number"),
            ("", "no `/`"),
        ] {
            let e = bad.parse::<Shard>().unwrap_err();
            assert!(e.contains(says) && e.contains("is not a shard I/N"), "{bad}: {e}");
        }
        assert!(serde_json::from_str::<Shard>("\"3/2\"").is_err());
    }

    #[test]
    fn unit_keys_split_into_a_check_and_a_chunk() {
        let id = "array-api:cpu:add:f16:exhaustive";
        assert_eq!(split_key(&chunk_key(id, 17)), Some((id, Some(17))));
        assert_eq!(split_key(id), Some((id, None)));
        assert_eq!(split_key("array-api:cpu:add:f16:exhaustive#x"), None);
    }

    #[test]
    fn one_shard_owns_everything_and_a_new_bucket_only_takes_keys() {
        assert!(["a", "b", "table:add:f32:edges"].iter().all(|k| Shard::new(1, 1).unwrap().owns(k)));
        // A key's bucket among n + 1 is its bucket among n, or the new one, n.
        for key in 0..2_000u64 {
            for n in 1..40 {
                let (a, b) = (jump(finalize(key), n), jump(finalize(key), n + 1));
                assert!(a < n && (b == a || b == n), "key {key}: {a} of {n}, then {b} of {}", n + 1);
            }
        }
    }
}
