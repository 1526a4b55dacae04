//! Planning shards: the part of a check one shard runs, the work-unit keys of a check, and the
//! hash that names a plan, so that `merge` joins only the shards of one plan. The units and
//! their assignment to shards: [`crate::results::shard`].

use super::check::{Check, RunOptions, Target};
use crate::bits::hash::fnv1a;
use crate::results::shard::{Shard, chunk_key};
use crate::run::check::ElementwiseKind;
use crate::spec::Catalog;

/// The part of `check` that `shard` runs: all of it, the sweep chunks it owns, or `None`.
pub fn part_of(shard: Shard, check: Check) -> Option<Check> {
    let id = check.id.to_string();
    match check.target {
        Target::Elementwise(ElementwiseKind::Sweep(_)) => {
            super::elementwise::sweep::keep_chunks(check, |k| shard.owns(&chunk_key(&id, k)))
        }
        _ => shard.owns(&id).then_some(check),
    }
}

/// The keys of `check`'s units: its id, or one `ID#CHUNK` per chunk of a sweep.
pub fn unit_keys(check: &Check) -> Vec<String> {
    let id = check.id.to_string();
    match &check.target {
        Target::Elementwise(ElementwiseKind::Sweep(t)) => {
            t.chunks.iter().map(|&k| chunk_key(&id, k)).collect()
        }
        _ => vec![id],
    }
}

/// The plan's hash: 16 hex digits of FNV-1a over everything that decides what a plan's units
/// are and what their results can be: opspec's version; the catalog (its revision, the
/// check-id contract's version, and the text of every table and expectations file, which
/// includes `--expectations` files); the adapters as named on the command line (`cpu`,
/// `mylib=lib:PATH`); the run options; and the key of every unit, in order. Not what differs
/// between honest machines: paths of the catalog, the target, CPU features, threads.
pub fn plan_hash(catalog: &Catalog, adapters: &[String], options: &RunOptions, units: &[String]) -> String {
    // Every option, named: a new option must be added here (or said not to change results).
    // `state_dir` (where sweeps keep their finished chunks), `verify_resumed` (how many resumed
    // chunks run again) and `rerun` (how printed commands rerun a check) change no result of a
    // sweep whose state file is its own.
    let RunOptions {
        timeout,
        max_listed_failures,
        table_cases_per_row,
        table_seed,
        state_dir: _,
        verify_resumed: _,
        rerun: _,
    } = options;
    let mut bytes = Vec::new();
    let mut put = |field: &[u8]| {
        bytes.extend_from_slice(&(field.len() as u64).to_le_bytes());
        bytes.extend_from_slice(field);
    };
    put(env!("CARGO_PKG_VERSION").as_bytes());
    put(catalog.revision.as_bytes());
    put(&crate::spec::id::CONTRACT_VERSION.to_le_bytes());
    catalog.sources.values().for_each(|text| put(text.as_bytes()));
    adapters.iter().for_each(|a| put(a.as_bytes()));
    put(&timeout.as_nanos().to_le_bytes());
    put(&max_listed_failures.to_le_bytes());
    put(&table_cases_per_row.to_le_bytes());
    put(&table_seed.to_le_bytes());
    units.iter().for_each(|u| put(u.as_bytes()));
    format!("{:016x}", fnv1a(&bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plan_hash_changes_with_each_part_of_the_plan() {
        let catalog = Catalog::builtin().unwrap();
        let (cpu, units) = (vec!["cpu".to_string()], vec!["table:add:f32:edges".to_string()]);
        let options = RunOptions::default();
        let hash = plan_hash(&catalog, &cpu, &options, &units);
        assert_eq!(hash.len(), 16);
        assert_eq!(hash, plan_hash(&catalog, &cpu, &options, &units));
        let longer = RunOptions { timeout: options.timeout * 2, ..RunOptions::default() };
        let seed = RunOptions { table_seed: 1, ..RunOptions::default() };
        let two = vec!["table:add:f32:edges".to_string(), "table:add:f64:edges".to_string()];
        for other in [
            plan_hash(&catalog, &["numr".to_string()], &options, &units),
            plan_hash(&catalog, &cpu, &longer, &units),
            plan_hash(&catalog, &cpu, &seed, &units),
            plan_hash(&catalog, &cpu, &options, &two),
            plan_hash(&catalog, &cpu, &options, &[]),
        ] {
            assert_ne!(other, hash);
        }
    }
}
