//! Host-side shape logic: NumPy broadcasting and the strided walk a kernel launch follows.

use opspec_adapter::{AdapterError, ErrorKind, Tensor};

/// The NumPy broadcast of `shapes`: right-aligned, each axis equal or 1.
pub(crate) fn broadcast_shape(shapes: &[&[usize]]) -> Result<Vec<usize>, AdapterError> {
    let rank = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
    let mut out = vec![1usize; rank];
    for shape in shapes {
        for (o, &n) in out[rank - shape.len()..].iter_mut().zip(shape.iter()) {
            if *o == 1 {
                *o = n;
            } else if n != 1 && n != *o {
                return Err(AdapterError::new(
                    ErrorKind::ShapeMismatch,
                    format!("shapes {shapes:?} cannot be broadcast together"),
                ));
            }
        }
    }
    Ok(out)
}

/// How one element-wise launch walks its inputs: a (simplified) output shape and, per input,
/// strides and offset in elements. Axes of extent 1 are dropped and adjacent axes that every
/// input walks contiguously are merged, so a dense operation runs as rank 1.
#[derive(Debug, PartialEq)]
pub(crate) struct Plan {
    pub(crate) shape: Vec<usize>,
    pub(crate) strides: Vec<Vec<isize>>,
    pub(crate) offsets: Vec<usize>,
}

impl Plan {
    /// The plan for `inputs` broadcast to `shape` by NumPy's rules (which must be their
    /// broadcast shape).
    pub(crate) fn broadcast(shape: &[usize], inputs: &[&Tensor]) -> Plan {
        let rank = shape.len();
        let strides: Vec<Vec<isize>> = inputs
            .iter()
            .map(|t| {
                let lead = rank - t.shape().len();
                (0..rank)
                    .map(|axis| match axis.checked_sub(lead) {
                        Some(j) if t.shape()[j] != 1 => t.strides()[j],
                        _ => 0,
                    })
                    .collect()
            })
            .collect();
        Plan::new(shape, &strides, inputs.iter().map(|t| t.offset()).collect())
    }

    /// The plan for inputs read through `strides` (per input, one per axis of `shape`, in
    /// elements) from `offsets`.
    pub(crate) fn new(shape: &[usize], strides: &[Vec<isize>], offsets: Vec<usize>) -> Plan {
        // (extent, stride per input) of each kept axis, outermost first.
        let mut axes: Vec<(usize, Vec<isize>)> = Vec::new();
        for (axis, &extent) in shape.iter().enumerate() {
            if extent == 1 {
                continue;
            }
            let strides: Vec<isize> = strides.iter().map(|s| s[axis]).collect();
            match axes.last_mut() {
                Some((outer, outer_strides))
                    if outer_strides.iter().zip(&strides).all(|(&o, &s)| o == s * extent as isize) =>
                {
                    *outer *= extent;
                    *outer_strides = strides;
                }
                _ => axes.push((extent, strides)),
            }
        }
        Plan {
            shape: axes.iter().map(|(extent, _)| *extent).collect(),
            strides: (0..offsets.len())
                .map(|k| axes.iter().map(|(_, strides)| strides[k]).collect())
                .collect(),
            offsets,
        }
    }

    /// The `meta` array of the element-wise kernels: shape, each input's strides, offsets.
    pub(crate) fn meta(&self) -> Vec<i64> {
        let shape = self.shape.iter().map(|&n| n as i64);
        let strides = self.strides.iter().flatten().map(|&s| s as i64);
        let offsets = self.offsets.iter().map(|&o| o as i64);
        shape.chain(strides).chain(offsets).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcasting_follows_numpy() {
        assert_eq!(broadcast_shape(&[&[3, 1], &[4]]).unwrap(), vec![3, 4]);
        assert_eq!(broadcast_shape(&[&[], &[2, 3]]).unwrap(), vec![2, 3]);
        assert_eq!(broadcast_shape(&[&[0], &[1]]).unwrap(), vec![0]);
        assert_eq!(broadcast_shape(&[&[5, 1, 2], &[3, 1]]).unwrap(), vec![5, 3, 2]);
        let err = broadcast_shape(&[&[3], &[4]]).unwrap_err();
        assert_eq!(err.kind, ErrorKind::ShapeMismatch);
        assert!(broadcast_shape(&[&[2, 0], &[2, 3]]).is_err());
    }

    #[test]
    fn dense_inputs_become_rank_one() {
        let a = Tensor::from_slice(&[0f32; 24], &[2, 3, 4]).unwrap();
        let plan = Plan::broadcast(&[2, 3, 4], &[&a, &a]);
        assert_eq!(plan.shape, vec![24]);
        assert_eq!(plan.strides, vec![vec![1], vec![1]]);
        assert_eq!(plan.meta(), vec![24, 1, 1, 0, 0]);
    }

    #[test]
    fn broadcast_and_reversed_axes_keep_their_strides() {
        let a = Tensor::from_slice(&[0i32; 3], &[3, 1]).unwrap();
        let b = Tensor::from_slice(&[0i32; 4], &[4]).unwrap().view(&[4], &[-1], 3).unwrap();
        let plan = Plan::broadcast(&[3, 4], &[&a, &b]);
        assert_eq!(plan.shape, vec![3, 4]);
        assert_eq!(plan.strides, vec![vec![1, 0], vec![0, -1]]);
        assert_eq!(plan.offsets, vec![0, 3]);
    }

    #[test]
    fn scalar_and_unit_axes_leave_rank_zero() {
        let a = Tensor::from_slice(&[1u8], &[1, 1]).unwrap();
        let plan = Plan::broadcast(&[1, 1], &[&a, &a]);
        assert!(plan.shape.is_empty());
        assert_eq!(plan.meta(), vec![0, 0]);
    }

    #[test]
    fn transposed_inputs_are_not_merged() {
        let t = Tensor::from_slice(&[0f64; 6], &[2, 3]).unwrap().view(&[3, 2], &[1, 3], 0).unwrap();
        let plan = Plan::broadcast(&[3, 2], &[&t, &t]);
        assert_eq!(plan.shape, vec![3, 2]);
        assert_eq!(plan.strides[0], vec![1, 3]);
    }

    #[test]
    fn permuted_and_unsqueezed_strides_are_kept() {
        // Result axes (4, 3, 2) read from a [2, 3] buffer transposed, broadcast on the first.
        let plan = Plan::new(&[4, 3, 2], &[vec![0, 1, 3]], vec![0]);
        assert_eq!(plan.shape, vec![4, 3, 2]);
        assert_eq!(plan.strides, vec![vec![0, 1, 3]]);
    }
}
