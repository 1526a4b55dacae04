//! Promotion checks against an adapter that lacks one of a case's operand dtypes: skipped,
//! naming the dtype, not failed (as element-wise checks of that dtype are).

use std::sync::Arc;

use opspec::results::Status;
use opspec::run::{RunOptions, adapter_checks, run_all};
use opspec::spec::Catalog;
use opspec_adapter::{Adapter, AdapterError, BinaryOp, DType, OpKind, Scalar, ScalarSide, Support, Tensor};
use opspec_cpu::CpuAdapter;

/// The CPU adapter without int8.
struct NoInt8;

impl Adapter for NoInt8 {
    fn name(&self) -> &str {
        "no-int8"
    }

    fn version(&self) -> String {
        "the CPU adapter without int8".into()
    }

    fn supports(&self, op: OpKind, dtype: DType) -> Support {
        if dtype == DType::I8 {
            Support::Unsupported("no dtype int8".into())
        } else {
            CpuAdapter.supports(op, dtype)
        }
    }

    fn binary(&self, op: BinaryOp, a: &Tensor, b: &Tensor) -> Result<Tensor, AdapterError> {
        if a.dtype() == DType::I8 || b.dtype() == DType::I8 {
            return Err(AdapterError::unsupported("no dtype int8"));
        }
        CpuAdapter.binary(op, a, b)
    }

    fn binary_scalar(
        &self,
        op: BinaryOp,
        t: &Tensor,
        s: Scalar,
        side: ScalarSide,
    ) -> Result<Tensor, AdapterError> {
        CpuAdapter.binary_scalar(op, t, s, side)
    }
}

#[test]
fn a_case_with_an_unsupported_operand_dtype_is_skipped_in_either_place() {
    let catalog = Catalog::builtin().unwrap();
    let name = "no-int8".to_string();
    let checks: Vec<_> = adapter_checks(&catalog, std::slice::from_ref(&name))
        .into_iter()
        .filter(|c| c.id.suite() == Some("array-api") && c.id.dtype.contains('+'))
        .collect();
    let results = run_all(&catalog, &checks, &[(name, Arc::new(NoInt8))], &RunOptions::default(), 0);
    let with_i8: Vec<_> = results.iter().filter(|r| r.id.dtype.split('+').any(|d| d == "i8")).collect();
    // int8 first and int8 second: both kinds exist in the array API's table.
    assert!(
        with_i8.iter().any(|r| r.id.dtype.starts_with("i8+"))
            && with_i8.iter().any(|r| r.id.dtype.ends_with("+i8"))
    );
    for r in &with_i8 {
        assert_eq!(r.status, Status::Skip, "{}: {}", r.id, r.message);
        assert!(r.message.contains("no dtype int8"), "{}: {}", r.id, r.message);
    }
    let others = results.iter().filter(|r| !r.id.dtype.split('+').any(|d| d == "i8"));
    let bad: Vec<_> = others
        .clone()
        .filter(|r| r.status != Status::Pass)
        .map(|r| format!("{} {:?} {}", r.id, r.status, r.message))
        .collect();
    assert!(others.count() > 0 && bad.is_empty(), "{bad:#?}");
}
