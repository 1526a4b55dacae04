//! Relaxation profiles, as declared: departures from the contract that an adapter declares in its
//! expectations file (`profile: [daz, ftz]`), under which its results are judged a second
//! time. A library that flushes subnormals fails thousands of checks for that one reason; the
//! profile says so once, and the report gives both verdicts. A profile never changes a
//! check's status: the strict verdict stays what it is (`docs/RESULTS.md`). How a profile judges
//! a result: [`crate::judge::profile`].

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// One way of departing from the contract.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Relaxation {
    /// Subnormal inputs are read as zeros of their sign (x86's denormals-are-zero).
    Daz,
    /// Subnormal results are flushed to zeros of their sign (x86's flush-to-zero).
    Ftz,
    /// A NaN result's sign is free where the contract fixes it.
    NanSign,
}

impl Relaxation {
    const ALL: [Relaxation; 3] = [Relaxation::Daz, Relaxation::Ftz, Relaxation::NanSign];

    fn name(self) -> &'static str {
        match self {
            Relaxation::Daz => "daz",
            Relaxation::Ftz => "ftz",
            Relaxation::NanSign => "nan-sign",
        }
    }
}

/// A set of relaxations, spelled `daz+ftz` in results and reports.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Profile(Vec<Relaxation>);

impl Profile {
    /// The profile of these relaxations (sorted, each once).
    pub fn new(mut relaxations: Vec<Relaxation>) -> Profile {
        relaxations.sort();
        relaxations.dedup();
        Profile(relaxations)
    }

    /// Whether the profile has relaxation `r`.
    pub fn has(&self, r: Relaxation) -> bool {
        self.0.contains(&r)
    }
}

impl fmt::Display for Profile {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.0.iter().map(|r| r.name()).collect();
        out.write_str(&names.join("+"))
    }
}

impl FromStr for Relaxation {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Relaxation::ALL.into_iter().find(|r| r.name() == s).ok_or_else(|| {
            let names: Vec<&str> = Relaxation::ALL.iter().map(|r| r.name()).collect();
            format!("unknown relaxation `{s}` (known: {})", names.join(", "))
        })
    }
}

impl FromStr for Profile {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        s.split('+').map(str::parse).collect::<Result<Vec<_>, _>>().map(Profile::new)
    }
}

impl Serialize for Profile {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Profile {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d)?.parse().map_err(serde::de::Error::custom)
    }
}

impl<'de> Deserialize<'de> for Relaxation {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d)?.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn profile(s: &str) -> Profile {
        s.parse().unwrap()
    }

    #[test]
    fn spelling_round_trips_sorted_and_refuses_unknown_names() {
        assert_eq!(profile("ftz+daz").to_string(), "daz+ftz");
        assert_eq!(profile("nan-sign+ftz+ftz").to_string(), "ftz+nan-sign");
        let e = "daz+fast".parse::<Profile>().unwrap_err();
        assert!(e.contains("unknown relaxation `fast`") && e.contains("daz, ftz, nan-sign"), "{e}");
    }
}
