//! The oracle's operation registry (`src/oracle/ops.rs`) and the tables agree, both ways:
//! a table is `approximate` exactly when its operation has a high-precision value, has
//! `output: bool` exactly when its operation is a comparison, lists integer or bool dtypes
//! exactly when its operation has an exact integer result and float dtypes exactly when it has
//! a float reference; every registry entry has a table; and every operation the CPU adapter
//! runs on integers has an exact integer reference.

use opspec::oracle::ops::{OPS, lookup};
use opspec::spec::complex::ComplexOp;
use opspec::spec::schema::{Accuracy, Output};
use opspec::spec::{Catalog, LoadedTable};
use opspec_adapter::{BinaryOp, DType, OpKind};

/// The element-wise tables of the shipped catalog where `yaml` (a fact read from the table)
/// and `registry` (the same fact read from the oracle's registry) differ, with both answers.
fn disagreements(
    yaml: impl Fn(&LoadedTable) -> bool,
    registry: impl Fn(&LoadedTable) -> bool,
) -> Vec<String> {
    let catalog = Catalog::builtin().unwrap();
    assert!(!catalog.elementwise.is_empty());
    catalog
        .elementwise
        .iter()
        .filter(|t| yaml(t) != registry(t))
        .map(|t| format!("{} (the table says {}, the registry {})", t.path.display(), yaml(t), registry(t)))
        .collect()
}

/// The registry's entry for a table's operation, which every table must have.
fn entry(t: &LoadedTable) -> &'static opspec::oracle::ops::OpDef {
    lookup(t.op).unwrap_or_else(|| panic!("{}: the oracle has no entry for {}", t.path.display(), t.op))
}

#[test]
fn approximate_tables_are_the_ops_with_a_high_precision_value() {
    let wrong =
        disagreements(|t| t.table.accuracy == Accuracy::Approximate, |t| entry(t).high_precision.is_some());
    assert!(wrong.is_empty(), "accuracy: approximate vs a high-precision value: {wrong:#?}");
}

#[test]
fn bool_tables_are_the_comparisons() {
    let comparison = |op: OpKind| match op {
        OpKind::Unary(u) => u.is_comparison(),
        OpKind::Binary(b) | OpKind::BinaryInto(b) => b.is_comparison(),
        OpKind::Ternary(t) => t.is_comparison(),
        other => panic!("{other} has no element-wise table"),
    };
    let wrong = disagreements(|t| t.table.output == Output::Bool, |t| comparison(t.op));
    assert!(wrong.is_empty(), "output: bool vs is_comparison: {wrong:#?}");
}

#[test]
fn tables_with_integer_or_bool_dtypes_are_the_ops_with_an_integer_result() {
    let integer = |d: &String| d.parse::<DType>().is_ok_and(|d| d.is_integer() || d == DType::Bool);
    // divide's integer quotient is not listed: only a suite that says how it rounds
    // (`integers.divide`) checks it, in that suite's integer dtypes.
    let exact = |t: &LoadedTable| entry(t).integer.is_some() && t.op != OpKind::Binary(BinaryOp::Divide);
    let wrong = disagreements(|t| t.table.dtypes.iter().any(integer), exact);
    assert!(wrong.is_empty(), "integer or bool dtypes vs an exact integer result: {wrong:#?}");
}

#[test]
fn tables_with_float_dtypes_are_the_ops_with_a_float_reference() {
    let float = |d: &String| d.parse::<DType>().is_ok_and(|d| d.is_float());
    let wrong = disagreements(|t| t.table.dtypes.iter().any(float), |t| entry(t).reference.is_some());
    assert!(wrong.is_empty(), "float dtypes vs a float reference: {wrong:#?}");
}

/// Every entry has an element-wise table, or a complex one where it computes nothing on real
/// operands (`imag`).
#[test]
fn every_registry_entry_has_a_table() {
    let catalog = Catalog::builtin().unwrap();
    for def in OPS {
        if def.reference.is_none() && def.integer.is_none() {
            let OpKind::Unary(u) = def.op else { panic!("{}: a complex-only entry is unary", def.op) };
            let complex = catalog.complex.iter().any(|t| t.op == ComplexOp::Unary(u));
            assert!(complex, "no complex table for the complex-only {}", def.op);
        } else {
            assert!(
                catalog.elementwise.iter().any(|t| t.op == def.op),
                "no table for the registry's {}",
                def.op
            );
        }
    }
}

#[test]
fn the_cpu_adapters_integer_ops_have_an_exact_integer_result() {
    for op in opspec_cpu::INTEGER_OPS {
        let def = lookup(OpKind::Binary(op)).unwrap_or_else(|| panic!("the oracle has no entry for {op}"));
        assert!(def.integer.is_some(), "opspec-cpu runs {op} on integers, the oracle has no integer result");
    }
    for op in opspec_cpu::INTEGER_UNARY_OPS {
        let def = lookup(OpKind::Unary(op)).unwrap_or_else(|| panic!("the oracle has no entry for {op}"));
        assert!(def.integer.is_some(), "opspec-cpu runs {op} on integers, the oracle has no integer result");
    }
}
