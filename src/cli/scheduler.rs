//! `run --shard auto`: the shard I/N from the variables of the scheduler that started the
//! process (`docs/SHARDING.md`, "The scheduler's own variables"), so that one command line
//! serves every task of a job array.
//!
//! | scheduler | variables | index |
//! |---|---|---|
//! | any (a GitHub matrix sets it in `env:`) | `OPSPEC_SHARD` = `I/N` | 1-based |
//! | Slurm job array | `SLURM_ARRAY_TASK_ID`, `_MIN`, `_MAX`, `_STEP`, `_COUNT` | the task's place in the array |
//! | GitLab `parallel:` | `CI_NODE_INDEX`, `CI_NODE_TOTAL` | 1-based |
//! | Kubernetes Indexed Job | `JOB_COMPLETION_INDEX`, and `OPSPEC_SHARD_TOTAL` (the Job's `completions`, which Kubernetes does not pass) | 0-based |
//!
//! Where several are set they must agree; none set, or one set halfway, is an error that
//! names what is missing.

use std::fmt;
use std::str::FromStr;

use crate::results::shard::Shard;

/// What `--shard` was given: a shard, or `auto`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShardChoice {
    Given(Shard),
    Auto,
}

impl FromStr for ShardChoice {
    type Err = String;

    fn from_str(text: &str) -> Result<ShardChoice, String> {
        match text {
            "auto" => Ok(ShardChoice::Auto),
            _ => text.parse().map(ShardChoice::Given).map_err(|e| format!("{e}, nor `auto`")),
        }
    }
}

impl fmt::Display for ShardChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ShardChoice::Given(s) => write!(f, "{s}"),
            ShardChoice::Auto => f.write_str("auto"),
        }
    }
}

impl ShardChoice {
    /// The shard: the given one, or the one the process's environment names.
    pub fn resolve(self) -> Result<Shard, String> {
        match self {
            ShardChoice::Given(s) => Ok(s),
            ShardChoice::Auto => from_environment(|name| std::env::var(name).ok()),
        }
    }
}

/// The shard the scheduler's variables name, read through `var`.
pub fn from_environment(var: impl Fn(&str) -> Option<String>) -> Result<Shard, String> {
    let found: Vec<(&str, Shard)> = [
        ("OPSPEC_SHARD", opspec(&var)),
        ("a Slurm job array (SLURM_ARRAY_TASK_*)", slurm(&var)),
        ("GitLab's parallel: (CI_NODE_INDEX, CI_NODE_TOTAL)", gitlab(&var)),
        ("a Kubernetes Indexed Job (JOB_COMPLETION_INDEX)", kubernetes(&var)),
    ]
    .into_iter()
    .filter_map(|(source, shard)| shard.transpose().map(|s| s.map(|s| (source, s))))
    .collect::<Result<_, String>>()
    .map_err(|e| format!("--shard auto: {e}"))?;
    match found.as_slice() {
        [] => Err("--shard auto: no scheduler's variables are set (OPSPEC_SHARD=I/N; SLURM_ARRAY_TASK_ID \
                   and its array's; CI_NODE_INDEX and CI_NODE_TOTAL; JOB_COMPLETION_INDEX with \
                   OPSPEC_SHARD_TOTAL): give --shard I/N"
            .to_string()),
        [(_, first), rest @ ..] => match rest.iter().find(|(_, s)| s != first) {
            Some((other, s)) => Err(format!(
                "--shard auto: {} says shard {first} but {other} says shard {s}: give --shard I/N",
                found[0].0
            )),
            None => Ok(*first),
        },
    }
}

/// A variable as a whole number, if set.
fn number(var: &impl Fn(&str) -> Option<String>, name: &str) -> Result<Option<u64>, String> {
    var(name)
        .map(|v| v.trim().parse::<u64>().map_err(|_| format!("{name}={v:?} is not a whole number")))
        .transpose()
}

/// A variable that must be set because `because` is.
fn required(var: &impl Fn(&str) -> Option<String>, name: &str, because: &str) -> Result<u64, String> {
    number(var, name)?.ok_or_else(|| format!("{because} is set but {name} is not"))
}

/// A 0- or 1-based index and a count as a shard, naming the variables where they do not fit.
fn shard(index: u64, total: u64, names: &str) -> Result<Shard, String> {
    let fit = |n: u64| u32::try_from(n).map_err(|_| format!("{names}: {n} shards are too many"));
    Shard::new(fit(index)?, fit(total)?).map_err(|e| format!("{names}: {e}"))
}

fn opspec(var: &impl Fn(&str) -> Option<String>) -> Result<Option<Shard>, String> {
    var("OPSPEC_SHARD").map(|v| v.parse().map_err(|e| format!("OPSPEC_SHARD: {e}"))).transpose()
}

/// A task of `sbatch --array=MIN-MAX[:STEP]` is the (ID − MIN) / STEP + 1-th of COUNT; an
/// array given as a list (`--array=1,3,7`) has no such place and is refused.
fn slurm(var: &impl Fn(&str) -> Option<String>) -> Result<Option<Shard>, String> {
    let Some(id) = number(var, "SLURM_ARRAY_TASK_ID")? else { return Ok(None) };
    let because = "SLURM_ARRAY_TASK_ID";
    let min = required(var, "SLURM_ARRAY_TASK_MIN", because)?;
    let max = required(var, "SLURM_ARRAY_TASK_MAX", because)?;
    let count = required(var, "SLURM_ARRAY_TASK_COUNT", because)?;
    let step = match number(var, "SLURM_ARRAY_TASK_STEP")? {
        Some(0) => {
            return Err(
                "SLURM_ARRAY_TASK_STEP=0 is not a step (Slurm's are 1 or more): give --shard I/N".into()
            );
        }
        step => step.unwrap_or(1),
    };
    let evenly = count > 0 && min.checked_add((count - 1).saturating_mul(step)) == Some(max);
    if !evenly || id < min || (id - min) % step != 0 {
        return Err(format!(
            "Slurm task {id} of an array {min}-{max}:{step} with {count} tasks is not a place in an \
             evenly stepped range (an array given as a list, such as --array=1,3,7): give --shard I/N"
        ));
    }
    shard((id - min) / step + 1, count, "SLURM_ARRAY_TASK_*").map(Some)
}

fn gitlab(var: &impl Fn(&str) -> Option<String>) -> Result<Option<Shard>, String> {
    let Some(index) = number(var, "CI_NODE_INDEX")? else { return Ok(None) };
    let total = required(var, "CI_NODE_TOTAL", "CI_NODE_INDEX")?;
    shard(index, total, "CI_NODE_INDEX/CI_NODE_TOTAL").map(Some)
}

fn kubernetes(var: &impl Fn(&str) -> Option<String>) -> Result<Option<Shard>, String> {
    let Some(index) = number(var, "JOB_COMPLETION_INDEX")? else { return Ok(None) };
    let total = number(var, "OPSPEC_SHARD_TOTAL")?.ok_or(
        "JOB_COMPLETION_INDEX is set but OPSPEC_SHARD_TOTAL is not: set it to the Job's completions \
         (Kubernetes does not pass their number to the pod)",
    )?;
    shard(index.saturating_add(1), total, "JOB_COMPLETION_INDEX/OPSPEC_SHARD_TOTAL").map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolve(vars: &[(&str, &str)]) -> Result<String, String> {
        from_environment(|name| vars.iter().find(|(n, _)| *n == name).map(|(_, v)| v.to_string()))
            .map(|s| s.to_string())
    }

    #[test]
    fn each_schedulers_variables_name_their_shard() {
        assert_eq!(resolve(&[("OPSPEC_SHARD", "3/8")]), Ok("3/8".into()));
        let slurm = |id: &str, min: &str, max: &str, step: &str, count: &str| {
            resolve(&[
                ("SLURM_ARRAY_TASK_ID", id),
                ("SLURM_ARRAY_TASK_MIN", min),
                ("SLURM_ARRAY_TASK_MAX", max),
                ("SLURM_ARRAY_TASK_STEP", step),
                ("SLURM_ARRAY_TASK_COUNT", count),
            ])
        };
        // --array=0-3, --array=1-4 and --array=10-16:2: each task's place, from 1.
        assert_eq!(slurm("0", "0", "3", "1", "4"), Ok("1/4".into()));
        assert_eq!(slurm("4", "1", "4", "1", "4"), Ok("4/4".into()));
        assert_eq!(slurm("14", "10", "16", "2", "4"), Ok("3/4".into()));
        assert_eq!(resolve(&[("CI_NODE_INDEX", "2"), ("CI_NODE_TOTAL", "5")]), Ok("2/5".into()));
        let k8s = [("JOB_COMPLETION_INDEX", "0"), ("OPSPEC_SHARD_TOTAL", "4")];
        assert_eq!(resolve(&k8s), Ok("1/4".into()));
        // Two schedulers that agree.
        assert_eq!(resolve(&[k8s[0], k8s[1], ("OPSPEC_SHARD", "1/4")]), Ok("1/4".into()));
    }

    #[test]
    fn missing_partial_and_contradicting_variables_say_what_is_wrong() {
        let says = |vars: &[(&str, &str)], words: &[&str]| {
            let e = resolve(vars).unwrap_err();
            assert!(e.starts_with("--shard auto: ") && words.iter().all(|w| e.contains(w)), "{vars:?}: {e}");
        };
        says(&[], &["no scheduler's variables are set", "give --shard I/N"]);
        says(&[("JOB_COMPLETION_INDEX", "2")], &["OPSPEC_SHARD_TOTAL is not", "completions"]);
        says(&[("CI_NODE_INDEX", "2")], &["CI_NODE_TOTAL is not"]);
        says(&[("CI_NODE_INDEX", "6"), ("CI_NODE_TOTAL", "5")], &["CI_NODE_INDEX/CI_NODE_TOTAL", "I is 6"]);
        says(
            &[("CI_NODE_INDEX", "two"), ("CI_NODE_TOTAL", "5")],
            &["CI_NODE_INDEX=\"two\" is not a whole number"],
        );
        says(&[("SLURM_ARRAY_TASK_ID", "3")], &["SLURM_ARRAY_TASK_MIN is not"]);
        // --array=1,3,7: MIN 1, MAX 7, COUNT 3, no step that reaches 7 from 1 in 2 steps of 1.
        says(
            &[
                ("SLURM_ARRAY_TASK_ID", "3"),
                ("SLURM_ARRAY_TASK_MIN", "1"),
                ("SLURM_ARRAY_TASK_MAX", "7"),
                ("SLURM_ARRAY_TASK_COUNT", "3"),
            ],
            &["--array=1,3,7", "give --shard I/N"],
        );
        let step_zero = [
            ("SLURM_ARRAY_TASK_ID", "1"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
            ("SLURM_ARRAY_TASK_MAX", "1"),
            ("SLURM_ARRAY_TASK_STEP", "0"),
            ("SLURM_ARRAY_TASK_COUNT", "1"),
        ];
        says(&step_zero, &["SLURM_ARRAY_TASK_STEP=0 is not a step", "give --shard I/N"]);
        says(&[("OPSPEC_SHARD", "2/4"), ("CI_NODE_INDEX", "3"), ("CI_NODE_TOTAL", "4")], &["2/4", "3/4"]);
        says(&[("OPSPEC_SHARD", "4")], &["OPSPEC_SHARD", "no `/`"]);
        says(&[("JOB_COMPLETION_INDEX", "0"), ("OPSPEC_SHARD_TOTAL", "99999999999")], &["too many"]);
    }

    #[test]
    fn the_flag_takes_a_shard_or_auto() {
        assert_eq!("auto".parse::<ShardChoice>(), Ok(ShardChoice::Auto));
        assert_eq!("2/3".parse::<ShardChoice>(), Ok(ShardChoice::Given(Shard::new(2, 3).unwrap())));
        assert!("automatic".parse::<ShardChoice>().unwrap_err().contains("nor `auto`"));
    }
}
