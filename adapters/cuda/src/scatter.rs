//! Host-side scatter-add logic: validation, index resolution and the deterministic grouping.
//!
//! Operands are checked as the source document (MindSpore `TensorScatterAdd`) states: indices
//! int32/int64 (`ErrorKind::IndexDType` otherwise) of rank >= 2 whose last axis, the depth, is at
//! most the input's rank (`ErrorKind::Rank`); updates of the input's dtype
//! (`ErrorKind::DTypeMismatch`) and of shape `indices.shape[:-1] + input.shape[depth:]`
//! (`ErrorKind::ShapeMismatch`). Out-of-range and negative index vectors are skipped in
//! `ScatterMode::Ignore`, an `ErrorKind::OutOfRange` error in `ScatterMode::Error`, clamped in
//! `ScatterMode::Clip`.

use opspec_adapter::{AdapterError, DType, ErrorKind, ScatterMode, Tensor};

/// Where each index vector's slice of updates goes.
#[derive(Debug, PartialEq)]
pub(crate) struct Targets {
    /// Elements per slice: the product of `input.shape[depth..]`.
    pub(crate) slice: usize,
    /// Per index vector, the row-major slice number in `input.shape[..depth]`, or -1 if skipped.
    pub(crate) dest: Vec<i64>,
}

/// Checks the operands as the source document (MindSpore `TensorScatterAdd`) requires and
/// resolves every index vector under `mode`.
pub(crate) fn targets(
    input: &Tensor,
    indices: &Tensor,
    updates: &Tensor,
    mode: ScatterMode,
) -> Result<Targets, AdapterError> {
    let flat: Vec<i64> = match indices.dtype() {
        DType::I32 => indices.to_vec::<i32>()?.into_iter().map(i64::from).collect(),
        DType::I64 => indices.to_vec::<i64>()?,
        other => {
            return Err(AdapterError::new(
                ErrorKind::IndexDType,
                format!("indices must be int32 or int64, not {other}"),
            ));
        }
    };
    if updates.dtype() != input.dtype() {
        return Err(AdapterError::new(
            ErrorKind::DTypeMismatch,
            format!("updates are {}, input is {}", updates.dtype(), input.dtype()),
        ));
    }
    let (batch, depth) = match indices.shape() {
        [batch @ .., depth] if !batch.is_empty() => (batch, *depth),
        shape => {
            return Err(AdapterError::new(
                ErrorKind::Rank,
                format!("indices must have rank >= 2, got shape {shape:?}"),
            ));
        }
    };
    if input.shape().len() < depth {
        return Err(AdapterError::new(
            ErrorKind::Rank,
            format!("input of rank {} is indexed with depth {depth}", input.shape().len()),
        ));
    }
    let (indexed, sliced) = input.shape().split_at(depth);
    let expected: Vec<usize> = batch.iter().chain(sliced).copied().collect();
    if updates.shape() != expected {
        return Err(AdapterError::new(
            ErrorKind::ShapeMismatch,
            format!("updates have shape {:?}, expected {expected:?}", updates.shape()),
        ));
    }
    let dest = (0..batch.iter().product::<usize>())
        .map(|n| resolve(&flat[n * depth..(n + 1) * depth], indexed, mode))
        .collect::<Result<_, _>>()?;
    Ok(Targets { slice: sliced.iter().product(), dest })
}

/// The slice number of one index vector, or -1 when `mode` skips it.
fn resolve(vector: &[i64], shape: &[usize], mode: ScatterMode) -> Result<i64, AdapterError> {
    let mut linear = 0i64;
    for (&index, &extent) in vector.iter().zip(shape) {
        let extent = extent as i64;
        let index = if (0..extent).contains(&index) {
            index
        } else {
            match mode {
                ScatterMode::Clip if extent > 0 => index.clamp(0, extent - 1),
                ScatterMode::Error => {
                    return Err(AdapterError::new(
                        ErrorKind::OutOfRange,
                        format!("index vector {vector:?} is outside the input's leading shape {shape:?}"),
                    ));
                }
                _ => return Ok(-1),
            }
        };
        linear = linear * extent + index;
    }
    Ok(linear)
}

/// The `plan` of the deterministic kernel and its number of groups: the distinct destinations,
/// where each group's rows start, and the rows (index vector numbers) in index order.
pub(crate) fn ordered_plan(dest: &[i64]) -> (usize, Vec<i64>) {
    let mut rows: Vec<usize> = (0..dest.len()).filter(|&n| dest[n] >= 0).collect();
    rows.sort_by_key(|&n| dest[n]);
    let mut targets = Vec::new();
    let mut starts = Vec::new();
    for (r, &n) in rows.iter().enumerate() {
        if targets.last() != Some(&dest[n]) {
            targets.push(dest[n]);
            starts.push(r as i64);
        }
    }
    starts.push(rows.len() as i64);
    let groups = targets.len();
    let plan = targets.into_iter().chain(starts).chain(rows.into_iter().map(|n| n as i64)).collect();
    (groups, plan)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input() -> Tensor {
        Tensor::from_slice(&[0f32; 6], &[2, 3]).unwrap()
    }

    #[test]
    fn index_vectors_resolve_per_mode() {
        let indices = Tensor::from_slice(&[0i32, 0, 1, 2, -1, 0, 2, 1], &[4, 2]).unwrap();
        let updates = Tensor::from_slice(&[1f32; 4], &[4]).unwrap();
        let ignore = targets(&input(), &indices, &updates, ScatterMode::Ignore).unwrap();
        assert_eq!(ignore, Targets { slice: 1, dest: vec![0, 5, -1, -1] });
        let clip = targets(&input(), &indices, &updates, ScatterMode::Clip).unwrap();
        assert_eq!(clip.dest, vec![0, 5, 0, 4]);
        let err = targets(&input(), &indices, &updates, ScatterMode::Error).unwrap_err();
        assert_eq!(err.kind, ErrorKind::OutOfRange);
    }

    #[test]
    fn partial_depth_selects_slices() {
        let indices = Tensor::from_slice(&[1i64, 0, 1], &[3, 1]).unwrap();
        let updates = Tensor::from_slice(&[1f32; 9], &[3, 3]).unwrap();
        let t = targets(&input(), &indices, &updates, ScatterMode::Error).unwrap();
        assert_eq!(t, Targets { slice: 3, dest: vec![1, 0, 1] });
    }

    #[test]
    fn zero_depth_selects_the_whole_input() {
        let indices = Tensor::from_slice::<i32>(&[], &[2, 0]).unwrap();
        let updates = Tensor::from_slice(&[1f32; 12], &[2, 2, 3]).unwrap();
        let t = targets(&input(), &indices, &updates, ScatterMode::Error).unwrap();
        assert_eq!(t, Targets { slice: 6, dest: vec![0, 0] });
    }

    #[test]
    fn bad_operands_are_typed_errors() {
        let updates = Tensor::from_slice(&[1f32; 2], &[2]).unwrap();
        let float_indices = Tensor::from_slice(&[0f32; 4], &[2, 2]).unwrap();
        let kind = |i: &Tensor, u: &Tensor| targets(&input(), i, u, ScatterMode::Ignore).unwrap_err().kind;
        assert_eq!(kind(&float_indices, &updates), ErrorKind::IndexDType);
        let deep = Tensor::from_slice(&[0i32; 6], &[2, 3]).unwrap();
        assert_eq!(kind(&deep, &updates), ErrorKind::Rank);
        let flat = Tensor::from_slice(&[0i32; 2], &[2]).unwrap();
        assert_eq!(kind(&flat, &Tensor::from_slice(&[1f32], &[]).unwrap()), ErrorKind::Rank);
        let ok = Tensor::from_slice(&[0i32; 4], &[2, 2]).unwrap();
        assert_eq!(kind(&ok, &Tensor::from_slice(&[1f32; 3], &[3]).unwrap()), ErrorKind::ShapeMismatch);
        assert_eq!(kind(&ok, &Tensor::from_slice(&[1f64; 2], &[2]).unwrap()), ErrorKind::DTypeMismatch);
    }

    #[test]
    fn ordered_plan_groups_rows_in_index_order() {
        let (groups, plan) = ordered_plan(&[4, -1, 0, 4, 0, 2]);
        assert_eq!(groups, 3);
        // targets [0, 2, 4], starts [0, 2, 3, 5], rows [2, 4, 5, 0, 3]
        assert_eq!(plan, vec![0, 2, 4, 0, 2, 3, 5, 2, 4, 5, 0, 3]);
    }
}
