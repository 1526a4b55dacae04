//! The shape rules of element-wise operations, as their tables state them:
//!
//! - a fused (ternary) operation's `no_broadcast:` rows list operand shapes that it must
//!   refuse with the stated error kind (seed 003: "All three tensors must have the same shape
//!   (no broadcasting)");
//! - a destination-passing operation's (`add_into`'s) `into_rules:` rows list destinations for
//!   one pair of operands: a fitting `out` must hold exactly the stated values afterwards, any
//!   other must be refused with an error that leaves `out` as it was.
//!
//! One check per rule block and dtype; every failure names the row it broke, and the check
//! cites the block's rows. A failure reproduces with `run --exact` of the check.

use std::sync::Arc;

use opspec_adapter::{Adapter, DType, OpKind, Tensor};
use serde_saphyr::Spanned;

use crate::bits::format::Format;
use crate::judge::authority::Grade;
use crate::oracle::broadcast::{expand, numpy_alignment, numpy_shape};
use crate::oracle::scatter::parse_value;
use crate::results::{CheckResult, Citation};
use crate::run::call::{apply_guarded, guarded};
use crate::run::check::{RunOptions, ShapeRule, ShapeRuleTarget};
use crate::run::record::{Failure, Recorder, Repro, citation};
use crate::spec::Catalog;
use crate::spec::LoadedTable;
use crate::spec::schema::{Destination, IntoResult, Layout, OutDtype};

/// The shape rule `table` states, if it states one.
pub fn rule_of(table: &LoadedTable) -> Option<ShapeRule> {
    if !table.table.no_broadcast.is_empty() {
        Some(ShapeRule::NoBroadcast)
    } else if table.table.into_rules.is_some() {
        Some(ShapeRule::IntoRules)
    } else {
        None
    }
}

/// How many calls the check of `rule` on `table` makes: one per set of operand shapes, or one
/// per destination.
pub fn scenarios(table: &LoadedTable, rule: ShapeRule) -> usize {
    match rule {
        ShapeRule::NoBroadcast => table.table.no_broadcast.iter().map(|r| r.shapes.len()).sum(),
        ShapeRule::IntoRules => table.table.into_rules.as_ref().map_or(0, |r| r.destinations.len()),
    }
}

/// Runs a shape-rule check against `adapter`.
pub fn run(
    catalog: &Catalog,
    target: &ShapeRuleTarget,
    adapter: &Arc<dyn Adapter>,
    options: &RunOptions,
    result: &mut CheckResult,
) -> Result<(), String> {
    let table = &catalog.elementwise[target.table];
    let mut rec = Recorder::new(result, options);
    match target.rule {
        ShapeRule::NoBroadcast => check_no_broadcast(table, target.dtype, adapter, options, &mut rec),
        ShapeRule::IntoRules => check_into_rules(table, target.dtype, adapter, options, &mut rec),
    }
}

/// A failed call: what was called, what the rule requires, what happened.
fn problem(call: &str, expected: &str, actual: String) -> Failure {
    Failure {
        inputs: vec![call.to_string()],
        expected: expected.to_string(),
        actual,
        steps: None,
        actual_bits: None,
        batch: None,
        repro: Repro::Check,
    }
}

/// The citation of a rule block whose rows are `(id, source, text)`: the row, or where there
/// are several the check (`add_into/into-rules`), at the first row's line, with the rows'
/// sources and texts (each quoted, where there are several).
fn block_citation<'t>(
    table: &'t LoadedTable,
    rule: ShapeRule,
    rows: impl IntoIterator<Item = (&'t Spanned<String>, &'t str, &'t str)>,
) -> Option<Citation> {
    let rows: Vec<_> = rows.into_iter().collect();
    let &(first, ..) = rows.first()?;
    let mut titles: Vec<&str> = Vec::new();
    let mut texts: Vec<&str> = Vec::new();
    for &(_, source, text) in &rows {
        let title = table.table.source(source).map_or(source, |s| s.title.as_str());
        if !titles.contains(&title) {
            titles.push(title);
        }
        if !texts.contains(&text) {
            texts.push(text);
        }
    }
    let text = match texts.as_slice() {
        [one] => one.to_string(),
        several => several.iter().map(|t| format!("\"{t}\"")).collect::<Vec<_>>().join(" "),
    };
    let mut c = citation(&table.table.op, first, &table.path, &titles.join("; "), "", text);
    if rows.len() > 1 {
        c.row = format!("{}/{}", table.table.op, rule.name());
    }
    Some(c)
}

/// A fused operation on each row's sets of operand shapes must fail with the row's error kind;
/// a result, another error kind or a panic fails the check.
fn check_no_broadcast(
    table: &LoadedTable,
    dtype: DType,
    adapter: &Arc<dyn Adapter>,
    options: &RunOptions,
    rec: &mut Recorder,
) -> Result<(), String> {
    if !matches!(table.op, OpKind::Ternary(_)) {
        return Err(format!("{} is not a fused operation", table.table.op));
    }
    let rows = &table.table.no_broadcast;
    rec.result.citation = block_citation(
        table,
        ShapeRule::NoBroadcast,
        rows.iter().map(|r| (&r.id, r.source.as_str(), r.text.as_str())),
    );
    for row in rows {
        let kind = row.error.kind();
        let expected = format!("a {} error ({}: \"{}\")", kind.name(), row.id.value, row.text);
        rec.checked(row.shapes.len());
        for shapes in &row.shapes {
            let operands = shapes
                .iter()
                .map(|s| Tensor::zeros(dtype, s).map_err(|e| e.to_string()))
                .collect::<Result<Vec<_>, _>>()?;
            let args: Vec<String> = table
                .table
                .operands
                .iter()
                .zip(shapes)
                .map(|(operand, shape)| format!("{}: {dtype}{shape:?}", operand.name()))
                .collect();
            let shown = format!("{}: {}({})", row.id.value, table.table.op, args.join(", "));
            match apply_guarded(adapter, table.op, operands, dtype, options.timeout) {
                Ok(Err(e)) if e.kind == kind => {}
                Ok(Err(e)) => rec.fail(1, || problem(&shown, &expected, format!("error {e}"))),
                Ok(Ok(t)) => rec.fail(1, || {
                    problem(
                        &shown,
                        &expected,
                        format!("a result of shape {:?}: the operands were broadcast", t.shape()),
                    )
                }),
                Err(e) => rec.fail(1, || problem(&shown, &expected, e)),
            }
        }
    }
    rec.finish("calls");
    Ok(())
}

/// The value every destination starts filled with, so that a write is visible.
const FILL: f64 = 7.0;

/// Writes the table's `a` and `b` into each destination of its `into_rules:` in `dtype`. A row
/// that states values must get exactly those (and the table's values must be the oracle's
/// `a op b`); a refused row must get an error and its `out` back unchanged. A row whose
/// stated result contradicts the rule (values for an `out` that does not fit, a refusal of
/// one that does) is an error of the table, not a failure of the adapter.
fn check_into_rules(
    table: &LoadedTable,
    dtype: DType,
    adapter: &Arc<dyn Adapter>,
    options: &RunOptions,
    rec: &mut Recorder,
) -> Result<(), String> {
    let OpKind::BinaryInto(op) = table.op else {
        return Err(format!("{} does not write into a destination", table.table.op));
    };
    let rules = table.table.into_rules.as_ref().ok_or("the table states no into_rules")?;
    let f = Format::of(dtype).ok_or("the into-rules check runs in float dtypes")?;
    let (a_bits, b_bits) = (read(&rules.a.values, dtype)?, read(&rules.b.values, dtype)?);
    let fitting =
        numpy_shape(&rules.a.shape, &rules.b.shape).ok_or("the table's a and b do not broadcast")?;
    let lined_up = |bits: &[u64], shape: &[usize]| {
        expand(bits, shape, &numpy_alignment(shape.len(), fitting.len()), &fitting)
    };
    let sum = lined_up(&a_bits, &rules.a.shape)
        .into_iter()
        .zip(lined_up(&b_bits, &rules.b.shape))
        .map(|(x, y)| crate::oracle::reference(table.op, f, &[x, y]))
        .collect::<Result<Vec<u64>, _>>()?;
    let a = Tensor::from_bits(dtype, &rules.a.shape, &a_bits).map_err(|e| e.to_string())?;
    let b = Tensor::from_bits(dtype, &rules.b.shape, &b_bits).map_err(|e| e.to_string())?;
    rec.result.citation = block_citation(
        table,
        ShapeRule::IntoRules,
        rules.destinations.iter().map(|r| (&r.id, r.source.as_str(), r.text.as_str())),
    );
    rec.checked(rules.destinations.len());
    for row in &rules.destinations {
        let id = &row.id.value;
        let at = format!("{}:{}", table.path.display(), row.id.referenced.line());
        let fits = row.out.shape == fitting
            && row.out.dtype == OutDtype::Same
            && row.out.layout == Layout::Contiguous;
        let stated = match &row.result {
            IntoResult::Values(values) if fits => Some(values),
            IntoResult::Refused if !fits => None,
            IntoResult::Values(_) => {
                return Err(format!("{at}: row `{id}` states values, but its out does not fit {fitting:?}"));
            }
            IntoResult::Refused => {
                return Err(format!("{at}: row `{id}` states a refusal, but its out fits"));
            }
        };
        if let Some(values) = stated {
            let bits = read(values, dtype)?;
            if bits != sum {
                return Err(format!(
                    "{at}: row `{id}` states the bits {bits:x?} in {dtype}, but the oracle's {op}(a, b) is {sum:x?}"
                ));
            }
        }
        let out = destination(&row.out, dtype)?;
        let before = out.to_bits();
        let (adapter, a, b) = (Arc::clone(adapter), a.clone(), b.clone());
        let returned = guarded(options.timeout, move || {
            let mut out = out;
            let outcome = adapter.binary_into(op, &a, &b, &mut out);
            (outcome, out)
        });
        let shown = format!(
            "{id}: {}(a: {dtype}{:?}, b: {dtype}{:?}) into out: {}",
            table.table.op,
            rules.a.shape,
            rules.b.shape,
            describe(&row.out, dtype)
        );
        let (outcome, out) = match returned {
            Ok(r) => r,
            Err(panic) => {
                rec.fail(1, || problem(&shown, "the call returns", panic));
                continue;
            }
        };
        match (outcome, stated) {
            (Ok(()), Some(values)) => {
                if out.shape() != fitting || out.dtype() != dtype || out.to_bits() != sum {
                    let expected = format!(
                        "out holds {} (the bits {sum:x?}, shape {fitting:?}) ({id}: \"{}\")",
                        values.join(", "),
                        row.text
                    );
                    let actual = format!("out holds the bits {:x?} (shape {:?})", out.to_bits(), out.shape());
                    rec.fail(1, || problem(&shown, &expected, actual));
                }
            }
            (Err(e), Some(_)) => rec.fail(1, || {
                problem(&shown, &format!("success ({id}: \"{}\")", row.text), format!("error {e}"))
            }),
            // The error kind is free (the seed names none); the destination must be untouched.
            (outcome, None) => {
                let expected = format!(
                    "an error, with out unchanged ({id}: \"{}\"; unchanged: opspec requires a refused call to change nothing)",
                    row.text
                );
                match outcome {
                    Ok(()) => rec.fail(1, || problem(&shown, &expected, "success".into())),
                    // The error is the seed's must; what a refused call leaves in out, opspec's bar.
                    Err(_) if out.to_bits() != before => {
                        rec.fail_graded(1, Grade::changed_on_refusal(), false, || {
                            problem(
                                &shown,
                                &expected,
                                format!("an error, with out changed to the bits {:x?}", out.to_bits()),
                            )
                        })
                    }
                    Err(_) => {}
                }
            }
        }
    }
    rec.finish("destinations");
    Ok(())
}

/// The bits of values as a table writes them, in `dtype`.
fn read(values: &[String], dtype: DType) -> Result<Vec<u64>, String> {
    values.iter().map(|v| parse_value(dtype, v)).collect()
}

/// The destination's dtype when the operands are `dtype`.
fn out_dtype(out: &Destination, dtype: DType) -> DType {
    match out.dtype {
        OutDtype::Same => dtype,
        OutDtype::Other if dtype == DType::F64 => DType::F32,
        OutDtype::Other => DType::F64,
    }
}

/// `f64[2, 3] transposed`.
fn describe(out: &Destination, dtype: DType) -> String {
    let layout = match out.layout {
        Layout::Contiguous => "contiguous",
        Layout::Transposed => "transposed",
    };
    format!("{}{:?} {layout}", out_dtype(out, dtype), out.shape)
}

/// The destination a row describes, for operands of `dtype`, filled with [`FILL`]. A
/// transposed one is a view whose axes run in reverse order over a contiguous buffer of the
/// reversed shape (for `[2, 3]`: strides `[1, 2]` over a `[3, 2]` buffer).
fn destination(out: &Destination, dtype: DType) -> Result<Tensor, String> {
    let d = out_dtype(out, dtype);
    let fill = Format::of(d).and_then(|g| g.from_f64_exact(FILL)).ok_or("a float destination")?;
    let filled = |shape: &[usize]| {
        Tensor::from_bits(d, shape, &vec![fill; shape.iter().product()]).map_err(|e| e.to_string())
    };
    match out.layout {
        Layout::Contiguous => filled(&out.shape),
        Layout::Transposed => {
            let reversed: Vec<usize> = out.shape.iter().rev().copied().collect();
            let strides: Vec<isize> =
                (0..out.shape.len()).map(|i| out.shape[..i].iter().product::<usize>() as isize).collect();
            filled(&reversed)?.view(&out.shape, &strides, 0).map_err(|e| e.to_string())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::Status;
    use crate::run::check::{ElementwiseKind, Target};
    use crate::run::{adapter_checks, run_check};

    /// Runs `numr:cpu:add_into:f32:into-rules` on the shipped catalog after `edit` changed
    /// the add_into table's rules.
    fn into_rules_after(edit: impl FnOnce(&mut crate::spec::schema::IntoRules)) -> CheckResult {
        let mut catalog = Catalog::builtin().unwrap();
        let check = adapter_checks(&catalog, &["cpu".to_string()])
            .into_iter()
            .find(|c| c.id.to_string() == "numr:cpu:add_into:f32:into-rules")
            .unwrap();
        let Target::Elementwise(ElementwiseKind::ShapeRule(target)) = check.target else {
            panic!("not a shape-rule check")
        };
        edit(catalog.elementwise[target.table].table.into_rules.as_mut().unwrap());
        let cpu: Arc<dyn Adapter> = Arc::new(opspec_cpu::CpuAdapter::new());
        run_check(&catalog, &check, Some(&cpu), &RunOptions::default())
    }

    /// The CPU adapter, refusing unequal fused operands with the wrong error kind.
    struct OtherKind;

    impl Adapter for OtherKind {
        fn name(&self) -> &str {
            "other-kind"
        }

        fn version(&self) -> String {
            "deliberately wrong".into()
        }

        fn supports(&self, op: OpKind, dtype: DType) -> opspec_adapter::Support {
            opspec_cpu::CpuAdapter.supports(op, dtype)
        }

        fn ternary(
            &self,
            op: opspec_adapter::TernaryOp,
            a: &Tensor,
            b: &Tensor,
            c: &Tensor,
        ) -> Result<Tensor, opspec_adapter::AdapterError> {
            opspec_cpu::CpuAdapter
                .ternary(op, a, b, c)
                .map_err(|e| opspec_adapter::AdapterError::new(opspec_adapter::ErrorKind::Other, e.message))
        }
    }

    #[test]
    fn a_refusal_of_another_kind_fails_naming_the_row() {
        let catalog = Catalog::builtin().unwrap();
        let check = adapter_checks(&catalog, &["other-kind".to_string()])
            .into_iter()
            .find(|c| c.id.to_string() == "numr:other-kind:fused_add_mul:f64:no-broadcast")
            .unwrap();
        let adapter: Arc<dyn Adapter> = Arc::new(OtherKind);
        let result = run_check(&catalog, &check, Some(&adapter), &RunOptions::default());
        assert_eq!((result.status, result.failed_inputs, check.planned), (Status::Fail, 5, Some(5)));
        let f = &result.failures[0];
        assert!(f.inputs[0].starts_with("same-shape: fused_add_mul(x1: f64[2, 3]"), "{:?}", f.inputs);
        assert!(f.expected.starts_with("a shape_mismatch error (same-shape: "), "{}", f.expected);
        assert!(f.actual.starts_with("error other"), "{}", f.actual);
    }

    #[test]
    fn the_shipped_rules_pass_on_a_right_adapter() {
        let result = into_rules_after(|_| {});
        assert_eq!(
            (result.status, result.inputs, result.failed_inputs),
            (Status::Pass, 5, 0),
            "{}",
            result.report(&Default::default())
        );
    }

    #[test]
    fn a_row_that_contradicts_the_rule_is_an_error_of_the_table() {
        // A stated sum that is not the oracle's.
        let result = into_rules_after(|r| {
            r.destinations[0].result =
                IntoResult::Values(["11", "22", "33", "14", "25", "37"].map(String::from).into());
        });
        assert_eq!(result.status, Status::Fail);
        assert!(result.message.contains("row `out-fits` states the bits"), "{}", result.message);
        assert!(result.message.starts_with("specs/fused/add_into.yaml:"), "{}", result.message);
        // A refusal of an out that fits.
        let result = into_rules_after(|r| r.destinations[2].out.shape = vec![2, 3]);
        assert!(
            result.message.contains("row `out-shape-swapped` states a refusal, but its out fits"),
            "{}",
            result.message
        );
        // Values for an out that does not fit.
        let result = into_rules_after(|r| r.destinations[0].out.shape = vec![3, 2]);
        assert!(
            result.message.contains("row `out-fits` states values, but its out does not fit [2, 3]"),
            "{}",
            result.message
        );
    }
}
