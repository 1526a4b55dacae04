//! Every failure reproduces with the command it prints: for one deliberately wrong adapter per
//! family of checks, the check fails, the first listed failure's command is run in-process
//! exactly as the CLI would run it (`eval <id> <bits>…` or `run --exact <id>`), and it fails
//! again. `--exact` selects exactly one check.

#[macro_use]
mod common;

use std::sync::Arc;

use opspec::host::NamedAdapter;
use opspec::results::Status;
use opspec::run::eval::eval;
use opspec::run::select::Selection;
use opspec::run::{RunOptions, run_check};
use opspec::spec::Catalog;
use opspec_adapter::{
    Adapter, AdapterError, BinaryOp, Checked, DType, NamedOp, Operand, ScatterMode, ShapeChecker, Tensor,
    TernaryOp,
};
use opspec_cpu::CpuAdapter;

type Binary = fn(BinaryOp, &Tensor, &Tensor) -> Result<Tensor, AdapterError>;
type Ternary = fn(TernaryOp, &Tensor, &Tensor, &Tensor) -> Result<Tensor, AdapterError>;
type Into = fn(BinaryOp, &Tensor, &Tensor, &mut Tensor) -> Result<(), AdapterError>;
type Scatter = fn(&Tensor, &Tensor, &Tensor, ScatterMode) -> Result<Tensor, AdapterError>;
type Check = fn(NamedOp, &[Operand]) -> Result<Checked, AdapterError>;

/// The CPU adapter with one method replaced.
#[derive(Default)]
struct Wrong {
    binary: Option<Binary>,
    ternary: Option<Ternary>,
    into: Option<Into>,
    scatter: Option<Scatter>,
    check: Option<Check>,
}

const NAME: &str = "wrong";

impl Adapter for Wrong {
    fn name(&self) -> &str {
        NAME
    }

    wraps_cpu!("deliberately wrong");

    fn binary(&self, op: BinaryOp, a: &Tensor, b: &Tensor) -> Result<Tensor, AdapterError> {
        self.binary.map_or_else(|| CpuAdapter.binary(op, a, b), |f| f(op, a, b))
    }

    fn ternary(&self, op: TernaryOp, a: &Tensor, b: &Tensor, c: &Tensor) -> Result<Tensor, AdapterError> {
        self.ternary.map_or_else(|| CpuAdapter.ternary(op, a, b, c), |f| f(op, a, b, c))
    }

    fn binary_into(
        &self,
        op: BinaryOp,
        a: &Tensor,
        b: &Tensor,
        out: &mut Tensor,
    ) -> Result<(), AdapterError> {
        match self.into {
            Some(f) => f(op, a, b, out),
            None => CpuAdapter.binary_into(op, a, b, out),
        }
    }

    fn scatter_add(
        &self,
        i: &Tensor,
        x: &Tensor,
        u: &Tensor,
        m: ScatterMode,
    ) -> Result<Tensor, AdapterError> {
        self.scatter.map_or_else(|| CpuAdapter.scatter_add(i, x, u, m), |f| f(i, x, u, m))
    }

    fn checker(&self) -> Option<&dyn ShapeChecker> {
        Some(self)
    }
}

impl ShapeChecker for Wrong {
    fn check(&self, op: NamedOp, operands: &[Operand]) -> Result<Checked, AdapterError> {
        match self.check {
            Some(f) => f(op, operands),
            None => CpuAdapter
                .checker()
                .ok_or_else(|| AdapterError::unsupported("no checker"))?
                .check(op, operands),
        }
    }
}

/// Rewrites every element of a result through `f(x1, x2, result)` (bits).
fn rewrite(
    t: Tensor,
    a: &Tensor,
    b: &Tensor,
    f: impl Fn(u64, u64, u64) -> u64,
) -> Result<Tensor, AdapterError> {
    let (xs, ys) = (a.to_bits(), b.to_bits());
    if xs.len() != t.to_bits().len() || ys.len() != xs.len() {
        return Ok(t);
    }
    let bits: Vec<u64> = t.to_bits().iter().enumerate().map(|(i, &r)| f(xs[i], ys[i], r)).collect();
    Tensor::from_bits(t.dtype(), t.shape(), &bits)
}

/// Runs the check `id` against `wrong`; it must fail, and the command printed with its first
/// listed failure (or, where the check failed as a whole, the report's "rerun the check"
/// command) must reproduce the failure. Returns that command.
fn reproduces(wrong: Wrong, id: &str) -> String {
    let catalog = Catalog::builtin().unwrap();
    let adapters: Vec<NamedAdapter> = vec![(NAME.to_string(), Arc::new(wrong))];
    let options = RunOptions::default();
    let exact = |id: &str| {
        let selection = Selection { exact: Some(id.to_string()), ..Selection::default() };
        let checks = selection.checks(&catalog, &[NAME]).unwrap();
        assert_eq!(checks.len(), 1, "--exact {id} selects one check");
        assert_eq!(checks[0].id.to_string(), id);
        checks.into_iter().next().unwrap()
    };
    let check = exact(id);
    let result = run_check(&catalog, &check, Some(&adapters[0].1), &options);
    assert_eq!(result.status, Status::Fail, "{id} must fail:\n{}", result.report(&Default::default()));
    let report = result.report(&Default::default());
    let rerun = report.lines().find_map(|l| l.trim().strip_prefix("rerun the check: ").map(str::to_string));
    let command = result.failures.first().map(|f| f.reproduce.clone()).or(rerun).unwrap_or_else(|| {
        panic!("{id} prints no command:\n{report}");
    });
    let args: Vec<&str> = command.strip_prefix("opspec ").expect("an opspec command").split(' ').collect();
    match args.as_slice() {
        ["eval", id, bits @ ..] => {
            let operands: Vec<u64> =
                bits.iter().map(|b| u64::from_str_radix(b.trim_start_matches("0x"), 16).unwrap()).collect();
            let evaluation = eval(&catalog, &adapters, &exact(id), &operands, &options).unwrap();
            assert!(!evaluation.pass, "`{command}` passes:\n{}", evaluation.lines.join("\n"));
        }
        ["run", "--exact", again] => {
            let rerun = run_check(&catalog, &exact(again), Some(&adapters[0].1), &options);
            assert_eq!(rerun.status, Status::Fail, "`{command}` passes");
        }
        _ => panic!("unexpected command `{command}`"),
    }
    command
}

#[test]
fn elementwise_float() {
    // -0 + -0 gives +0.
    let binary: Binary = |op, a, b| {
        let r = CpuAdapter.binary(op, a, b)?;
        if op != BinaryOp::Add || a.dtype() != DType::F32 {
            return Ok(r);
        }
        rewrite(r, a, b, |x, y, r| if x == 0x8000_0000 && y == 0x8000_0000 { 0 } else { r })
    };
    let command = reproduces(
        Wrong { binary: Some(binary), ..Wrong::default() },
        "array-api:wrong:add:f32:nzero-plus-nzero",
    );
    assert!(
        command.starts_with("opspec eval array-api:wrong:add:f32:nzero-plus-nzero 0x80000000 0x80000000")
    );
}

#[test]
fn elementwise_float_in_a_batch_only() {
    // Right for one element, wrong in a batch (as numr's pow was): `eval` must call the batch.
    let binary: Binary = |op, a, b| {
        let r = CpuAdapter.binary(op, a, b)?;
        if op != BinaryOp::Multiply || a.dtype() != DType::F64 || a.shape().iter().product::<usize>() < 2 {
            return Ok(r);
        }
        rewrite(r, a, b, |_, _, r| r ^ 1)
    };
    reproduces(Wrong { binary: Some(binary), ..Wrong::default() }, "array-api:wrong:multiply:f64:random");
}

#[test]
fn integer() {
    // Adding zero to i32 gives one.
    let binary: Binary = |op, a, b| {
        let r = CpuAdapter.binary(op, a, b)?;
        if op != BinaryOp::Add || a.dtype() != DType::I32 {
            return Ok(r);
        }
        rewrite(r, a, b, |_, y, r| if y == 0 { r.wrapping_add(1) & 0xffff_ffff } else { r })
    };
    let command =
        reproduces(Wrong { binary: Some(binary), ..Wrong::default() }, "array-api:wrong:add:i32:edges");
    assert!(command.contains(" eval "), "{command}");
}

#[test]
fn property() {
    // hypot(x1, x2) is one step off when |x1| < |x2|: not symmetric.
    let binary: Binary = |op, a, b| {
        let r = CpuAdapter.binary(op, a, b)?;
        if op != BinaryOp::Hypot || a.dtype() != DType::F32 {
            return Ok(r);
        }
        let abs = |x: u64| x & 0x7fff_ffff;
        rewrite(r, a, b, |x, y, r| if abs(x) < abs(y) && abs(r) < 0x7f80_0000 { r + 1 } else { r })
    };
    let command =
        reproduces(Wrong { binary: Some(binary), ..Wrong::default() }, "array-api:wrong:hypot:f32:symmetry");
    assert!(command.contains(" eval "), "{command}");
}

#[test]
fn fused_rules() {
    // Broadcasts instead of refusing different shapes.
    let ternary: Ternary = |_, a, _, _| Tensor::zeros(a.dtype(), a.shape());
    reproduces(
        Wrong { ternary: Some(ternary), ..Wrong::default() },
        "numr:wrong:fused_mul_add:f32:no-broadcast",
    );
}

#[test]
fn into_rules() {
    // Accepts a destination of another dtype without complaint.
    let into: Into = |op, a, b, out| {
        if out.dtype() != a.dtype() {
            return Ok(());
        }
        CpuAdapter.binary_into(op, a, b, out)
    };
    reproduces(Wrong { into: Some(into), ..Wrong::default() }, "numr:wrong:add_into:f32:into-rules");
}

#[test]
fn promotion() {
    // Mixed integer dtypes are an error.
    let binary: Binary = |op, a, b| {
        if a.dtype() != b.dtype() {
            return Err(AdapterError::unsupported("no promotion"));
        }
        CpuAdapter.binary(op, a, b)
    };
    reproduces(Wrong { binary: Some(binary), ..Wrong::default() }, "array-api:wrong:add:i8+i16:i8-i16");
}

#[test]
fn broadcasting() {
    // Refuses every broadcast.
    let binary: Binary = |op, a, b| {
        if a.shape() != b.shape() {
            return Err(AdapterError::new(opspec_adapter::ErrorKind::ShapeMismatch, "no broadcasting"));
        }
        CpuAdapter.binary(op, a, b)
    };
    reproduces(Wrong { binary: Some(binary), ..Wrong::default() }, "array-api:wrong:numpy:-:row-broadcast");
}

#[test]
fn named_axes() {
    // The checker refuses everything.
    let check: Check = |_, _| Err(opspec_adapter::named_axis_error("E0401", "refuses everything"));
    reproduces(
        Wrong { check: Some(check), ..Wrong::default() },
        "named-axes:wrong:named:-:seed-superset-left",
    );
}

#[test]
fn scatter() {
    // Ignores the updates.
    let scatter: Scatter = |input, _, _, _| Ok(input.clone());
    reproduces(
        Wrong { scatter: Some(scatter), ..Wrong::default() },
        "mindspore:wrong:tensor_scatter_add:f32:example-duplicate-index",
    );
}

#[test]
fn exact_rejects_what_is_not_one_check() {
    let catalog = Catalog::builtin().unwrap();
    for (id, says) in [
        ("array-api:cpu:add:f32", "suite:adapter:op:dtype:case"),
        ("array-api:cpu:add:f32:no-such-case", "no check has the id"),
        ("array-api:nmr:add:f32:edges", "unknown adapter `nmr`"),
        ("array-ap:cpu:add:f32:edges", "unknown suite `array-ap`"),
    ] {
        let selection = Selection { exact: Some(id.to_string()), ..Selection::default() };
        let e = selection.checks(&catalog, &["cpu"]).unwrap_err();
        assert!(e.contains(says), "{id}: {e}");
    }
    let listed = Selection { adapters: vec!["nmr".into()], ..Selection::default() };
    assert!(listed.checks(&catalog, &["cpu"]).unwrap_err().contains("unknown adapter `nmr`"));
}

/// The interpreter with NumPy that `.ci/run` installs (or `$OPSPEC_PYTHON`), if there is one.
fn python_with_numpy() -> Option<String> {
    let venv =
        std::env::var_os("HOME").map(|h| std::path::Path::new(&h).join(".cache/opspec-python/bin/python"));
    let python = std::env::var("OPSPEC_PYTHON").ok().or_else(|| Some(venv?.to_str()?.to_string()))?;
    let probe = std::process::Command::new(&python).args(["-c", "import numpy"]).output().ok()?;
    probe.status.success().then_some(python)
}

/// A failure of a `python:` adapter whose module lives on `PYTHONPATH`, rendered by `opspec
/// report` in another process with none of the run's environment, prints commands that rerun
/// it: the run's program, its `PYTHONPATH` and its `--adapter NAME=SPEC`.
#[test]
fn a_report_rendered_later_reruns_a_python_adapter_as_it_ran() {
    use std::process::Command;
    let Some(python) = python_with_numpy() else {
        eprintln!("skipped: no Python with NumPy ($OPSPEC_PYTHON or .ci/run's venv)");
        return;
    };
    let dir = std::env::temp_dir().join(format!("opspec-repro-python-{}", std::process::id()));
    let module_dir = dir.join("my lib");
    std::fs::create_dir_all(&module_dir).unwrap();
    // NumPy with one bug: an add that turns -0 + -0 into +0.
    std::fs::write(
        module_dir.join("zerosign.py"),
        "import numpy\nfrom numpy import *\n\ndef add(x1, x2):\n    return numpy.add(x1, x2) + 0.0\n",
    )
    .unwrap();
    let opspec = env!("CARGO_BIN_EXE_opspec");
    let spec = format!("python:module=zerosign python={python}");
    let run = Command::new(opspec)
        .args([
            "run",
            "--no-tables",
            "--adapter",
            &spec,
            "--filter",
            "array-api:zerosign:add:f32:nzero-plus-nzero",
        ])
        .arg("--out")
        .arg(dir.join("run"))
        .env("PYTHONPATH", &module_dir)
        .env_remove("OPSPEC_PYTHON")
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(1), "{}", String::from_utf8_lossy(&run.stderr));
    let report = Command::new(opspec)
        .arg("report")
        .arg(dir.join("run/results.jsonl"))
        .arg("--out")
        .arg(dir.join("later"))
        .env_remove("PYTHONPATH")
        .env_remove("OPSPEC_PYTHON")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&report.stdout);
    let line = |prefix: &str| {
        let found = text.lines().find_map(|l| l.trim().strip_prefix(prefix));
        found.unwrap_or_else(|| panic!("no `{prefix}` line in:\n{text}")).to_string()
    };
    let html = std::fs::read_to_string(dir.join("later/index.html")).unwrap();
    for command in [line("reproduce: "), line("rerun the check: ")] {
        assert!(
            command.starts_with(&format!("PYTHONPATH='{}' {opspec} ", module_dir.display())),
            "{command}"
        );
        assert!(command.contains(&format!("--adapter 'zerosign={spec}'")), "{command}");
        let again = Command::new("sh")
            .args(["-c", &command])
            .current_dir(&dir)
            .env_remove("PYTHONPATH")
            .env_remove("OPSPEC_PYTHON")
            .output()
            .unwrap();
        let says = String::from_utf8_lossy(&again.stdout);
        assert_eq!(again.status.code(), Some(1), "`{command}` must fail again:\n{says}");
        assert!(!says.contains("No module named"), "`{command}` did not find the module:\n{says}");
    }
    // The page's "Rerun this check" comes from the same record.
    assert!(
        html.contains("PYTHONPATH=") && html.contains("zerosign=python:module=zerosign"),
        "the page's rerun"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
