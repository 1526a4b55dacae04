//! `eval` (one input of a check in detail) and `oracle-agreement` (the native reference
//! against MPFR).

use std::io::Write;
use std::time::{Duration, Instant};

use super::{Setup, adapter_names, rerun, say};
use crate::bits::value::operand_bits;
use crate::host::StartOptions;
use crate::results::shard::Shard;
use crate::run::{RunOptions, eval::eval};
use crate::spec::Catalog;
use crate::verdict;

/// Evaluates one input of a check against the adapter its id names (built in, offered by the
/// setup, or one of `adapters`' specs).
pub(super) fn evaluate(
    catalog: &Catalog,
    setup: &Setup,
    id: &str,
    bits: &[String],
    adapters: &[String],
    timeout: Duration,
) -> Result<u8, String> {
    let specs = crate::host::parse_specs(adapters)?;
    let operands = bits.iter().map(|b| operand_bits(b)).collect::<Result<Vec<_>, _>>()?;
    let set = &setup.adapters;
    let check = crate::run::select::exact_check(catalog, id, &set.available(&specs))?;
    let options = RunOptions { timeout, rerun: rerun(setup, &specs), ..RunOptions::default() };
    let (adapters, unavailable) = set.start_for(
        &adapter_names(std::slice::from_ref(&check)),
        &specs,
        &StartOptions::new(options.timeout),
    )?;
    if let Some((_, reason)) = unavailable.first() {
        return Err(reason.clone());
    }
    let evaluation = eval(catalog, &adapters, &check, &operands, &options)?;
    let mut out = std::io::stdout().lock();
    for line in &evaluation.lines {
        // A closed pipe ends the listing, not the program.
        if writeln!(out, "{line}").is_err() {
            break;
        }
    }
    Ok(if evaluation.pass { 0 } else { verdict::EXIT_FAIL })
}

/// `oracle-agreement`: one line per (operation, format); exit 1 if the references disagree.
/// `every_pair`: `Some` for `--exhaustive`, with the shard of each operation's pairs to run.
pub(super) fn oracle_agreement(
    cases: u64,
    seed: u64,
    ops: &[String],
    dtypes: &[String],
    every_pair: Option<Option<Shard>>,
) -> Result<u8, String> {
    use crate::run::agreement::{self, every_pair::compare as compare_every_pair};
    let wanted = |list: &[String], name: &str| list.is_empty() || list.iter().any(|x| x == name);
    let selected: Vec<_> = agreement::covered()
        .into_iter()
        .filter(|&(op, f)| wanted(ops, &op.to_string()) && wanted(dtypes, f.name))
        .filter(|&(op, f)| every_pair.is_none() || op.arity() == 2 && f.bits == 16)
        .collect();
    if selected.is_empty() {
        let what = if every_pair.is_some() { "two-operand operation in f16 or bf16" } else { "operation" };
        return Err(format!("no {what} the native or fast reference computes matches --op and --dtype"));
    }
    let mut code = 0;
    for (op, f) in selected {
        let started = Instant::now();
        let (a, mpfr_calls) = match every_pair {
            Some(shard) => {
                let e = compare_every_pair(op, f, shard)?;
                (e.agreement, format!(", {} MPFR evaluations", e.mpfr_calls))
            }
            None => (agreement::compare(op, f, cases, seed)?, String::new()),
        };
        let deferred = if a.deferred > 0 { format!(" ({} left to MPFR)", a.deferred) } else { String::new() };
        say(&format!(
            "{op} {} ({:?} reference): {} cases{deferred}{mpfr_calls}, {} disagreements, {:.1} s\n",
            f.name,
            crate::oracle::ReferenceKind::of(op, f),
            a.cases,
            a.mismatched,
            started.elapsed().as_secs_f64()
        ));
        for (case, under_test, mpfr) in &a.mismatches {
            let hex: Vec<String> = case.iter().map(|x| format!("{x:#x}")).collect();
            say(&format!("  ({}): {under_test:#x}, MPFR {mpfr:#x}\n", hex.join(", ")));
        }
        if a.mismatched > 0 {
            code = verdict::EXIT_FAIL;
        }
    }
    Ok(code)
}
