//! NumPy broadcasting through strides.

use opspec_adapter::{AdapterError, ErrorKind, Tensor};

/// The broadcast shape of two shapes: aligned from the right, each pair equal or one of them 1.
pub fn broadcast_shapes(a: &[usize], b: &[usize]) -> Result<Vec<usize>, AdapterError> {
    let rank = a.len().max(b.len());
    let dim = |s: &[usize], i: usize| if i < rank - s.len() { 1 } else { s[i - (rank - s.len())] };
    (0..rank)
        .map(|i| match (dim(a, i), dim(b, i)) {
            (x, y) if x == y => Ok(x),
            (1, y) => Ok(y),
            (x, 1) => Ok(x),
            (x, y) => Err(AdapterError::new(
                ErrorKind::ShapeMismatch,
                format!("shapes {a:?} and {b:?} do not broadcast (axis {i}: {x} vs {y})"),
            )),
        })
        .collect()
}

/// A view of `t` with shape `shape`: missing leading axes and size-1 axes get stride 0.
pub fn broadcast_to(t: &Tensor, shape: &[usize]) -> Result<Tensor, AdapterError> {
    let extra = shape.len() - t.shape().len();
    let strides: Vec<isize> = (0..shape.len())
        .map(|i| if i < extra || t.shape()[i - extra] == 1 { 0 } else { t.strides()[i - extra] })
        .collect();
    t.view(shape, &strides, t.offset())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numpy_rules() {
        assert_eq!(broadcast_shapes(&[2, 3], &[3]).unwrap(), vec![2, 3]);
        assert_eq!(broadcast_shapes(&[4, 1], &[1, 5]).unwrap(), vec![4, 5]);
        assert_eq!(broadcast_shapes(&[], &[2]).unwrap(), vec![2]);
        assert_eq!(broadcast_shapes(&[0, 1], &[3]).unwrap(), vec![0, 3]);
        assert_eq!(broadcast_shapes(&[2, 3], &[2]).unwrap_err().kind, ErrorKind::ShapeMismatch);
    }

    #[test]
    fn broadcast_view_repeats_rows() {
        let t = Tensor::from_slice(&[1u8, 2, 3], &[3]).unwrap();
        let v = broadcast_to(&t, &[2, 3]).unwrap();
        assert_eq!(v.to_vec::<u8>().unwrap(), vec![1, 2, 3, 1, 2, 3]);
    }
}
