//! Shapes and layouts for broadcasting checks: NumPy shape pairs, strided views, and named
//! axes for the order rule's properties. Every generator draws from the check's seeded
//! [`Generator`], so a check id always gets the same shapes.

use super::{Generator, any_value};
use crate::bits::format::Format;
use opspec_adapter::{DType, NamedAxis, Tensor};

/// Two unnamed shapes.
pub type ShapePair = (Vec<usize>, Vec<usize>);

/// Multi-index of element `i` of a row-major `shape`.
pub fn unravel(mut i: usize, shape: &[usize]) -> Vec<usize> {
    let mut index = vec![0; shape.len()];
    for (k, &n) in shape.iter().enumerate().rev() {
        if n > 0 {
            index[k] = i % n;
            i /= n;
        }
    }
    index
}

/// `n` seeded NumPy shape pairs, each in both operand orders: row, column and outer-product
/// broadcasting, a rank-0 operand, and general pairs (ranks 0-5, random size-1 axes, extra
/// leading axes).
pub fn shape_pairs(g: &mut Generator, n: usize) -> Vec<ShapePair> {
    let mut pairs = Vec::with_capacity(2 * n);
    for k in 0..n {
        let pattern = k % 5;
        let rank = g.inclusive(if pattern < 3 { 2 } else { 0 }, 5);
        let largest = if rank == 5 { 3 } else { 4 };
        let out: Vec<usize> = (0..rank).map(|_| g.inclusive(1, largest)).collect();
        let (a, b) = match pattern {
            // Row: a matrix and its last axis.
            0 => (out.clone(), out[rank - 1..].to_vec()),
            // Column: the last axis of one operand is 1.
            1 => {
                let mut col = out.clone();
                col[rank - 1] = 1;
                (out, col)
            }
            // Outer: a column against a row.
            2 => {
                let mut col = out.clone();
                col[rank - 1] = 1;
                let mut row = out[rank - 2..].to_vec();
                row[0] = 1;
                (col, row)
            }
            3 => (out, Vec::new()),
            _ => {
                let operand = |g: &mut Generator| -> Vec<usize> {
                    let drop = g.inclusive(0, rank);
                    out[drop..].iter().map(|&d| if g.below(3) == 0 { 1 } else { d }).collect()
                };
                (operand(g), operand(g))
            }
        };
        pairs.push((a.clone(), b.clone()));
        pairs.push((b, a));
    }
    pairs
}

/// A strided view holding `values` (in logical order): axes stored in a random order, each
/// with a step of 1 or 2 and possibly reversed, behind 1 to 3 leading elements. The gaps hold
/// other values, so an adapter that ignores strides reads wrong elements.
pub fn strided_view(
    g: &mut Generator,
    f: Format,
    dtype: DType,
    shape: &[usize],
    values: &[u64],
) -> Result<Tensor, String> {
    let rank = shape.len();
    let mut order: Vec<usize> = (0..rank).collect();
    g.shuffle(&mut order);
    let steps: Vec<isize> = (0..rank).map(|_| [1, 2, -1, -2][g.below(4)]).collect();
    let pad = g.inclusive(1, 3);
    // Storage axis k holds logical axis order[k], with room for its steps.
    let extents: Vec<usize> = order.iter().map(|&i| shape[i] * steps[i].unsigned_abs()).collect();
    let mut storage_stride = vec![0isize; rank];
    let mut step = 1isize;
    for k in (0..rank).rev() {
        storage_stride[k] = step;
        step *= extents[k].max(1) as isize;
    }
    let mut strides = vec![0isize; rank];
    let mut offset = pad as isize;
    for (k, &i) in order.iter().enumerate() {
        strides[i] = storage_stride[k] * steps[i];
        if steps[i] < 0 && shape[i] > 0 {
            offset += (shape[i] as isize - 1) * -strides[i];
        }
    }
    let len = pad + extents.iter().product::<usize>();
    let any = any_value(f);
    let mut buffer = (0..len).map(|_| any.draw(g)).collect::<Result<Vec<u64>, _>>()?;
    for (i, &v) in values.iter().enumerate() {
        let index = unravel(i, shape);
        let position = offset + index.iter().zip(&strides).map(|(&j, &s)| j as isize * s).sum::<isize>();
        buffer[position as usize] = v;
    }
    let base = Tensor::from_bits(dtype, &[len], &buffer).map_err(|e| e.to_string())?;
    base.view(shape, &strides, offset as usize).map_err(|e| e.to_string())
}

/// The `k`-th named pair of the swap property: both operands qualifying by name, one
/// qualifying, and pairs that line up from the right (unnamed and size-1 axes, extra axes).
pub fn swap_pair(g: &mut Generator, k: usize) -> (Vec<NamedAxis>, Vec<NamedAxis>) {
    let names = ["p", "q", "r", "s"];
    let rank = g.inclusive(1, 4);
    let sizes: Vec<usize> = (0..rank).map(|_| g.inclusive(2, 3)).collect();
    let full: Vec<NamedAxis> = sizes.iter().zip(names).map(|(&n, name)| NamedAxis::named(name, n)).collect();
    let mut shuffled = full.clone();
    g.shuffle(&mut shuffled);
    match k % 3 {
        0 => (full, shuffled),
        1 => {
            let keep = g.inclusive(1, rank);
            (shuffled[..keep].to_vec(), full)
        }
        _ => {
            // From the right: the trailing axes of `full`, some unnamed, some of size 1, and
            // an unnamed extra axis in front of the longer operand.
            let keep = g.inclusive(1, rank);
            let mut short = Vec::with_capacity(keep);
            for a in &full[rank - keep..] {
                short.push(match g.below(3) {
                    0 => NamedAxis::unnamed(a.size),
                    1 => NamedAxis::unnamed(1),
                    _ => a.clone(),
                });
            }
            let mut long = vec![NamedAxis::unnamed(2)];
            long.extend(full);
            (long, short)
        }
    }
}

/// The axes of one permutation property case: a superset operand's axes (distinct names
/// `p`, `q`, `r`, `s`; rank 2 to 4, sizes 1 to 3), a subset of them in an order of its own,
/// and three orders of the superset's axes (the first the identity).
pub struct PermutationAxes {
    pub superset: Vec<NamedAxis>,
    pub subset: Vec<NamedAxis>,
    pub orders: Vec<Vec<usize>>,
}

/// Draws the axes of one permutation property case.
pub fn permutation_axes(g: &mut Generator) -> PermutationAxes {
    let rank = g.inclusive(2, 4);
    let sizes: Vec<usize> = (0..rank).map(|_| g.inclusive(1, 3)).collect();
    let superset: Vec<NamedAxis> =
        sizes.iter().zip(["p", "q", "r", "s"]).map(|(&n, name)| NamedAxis::named(name, n)).collect();
    let keep: Vec<bool> = (0..rank).map(|_| g.coin()).collect();
    let mut subset: Vec<NamedAxis> =
        superset.iter().zip(&keep).filter(|(_, k)| **k).map(|(a, _)| a.clone()).collect();
    if subset.is_empty() {
        subset.push(superset[rank - 1].clone());
    }
    g.shuffle(&mut subset);
    let mut orders: Vec<Vec<usize>> = vec![(0..rank).collect()];
    for _ in 0..2 {
        let mut order: Vec<usize> = (0..rank).collect();
        g.shuffle(&mut order);
        orders.push(order);
    }
    PermutationAxes { superset, subset, orders }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oracle::broadcast::numpy_shape;

    #[test]
    fn unravel_is_row_major() {
        assert_eq!(unravel(4, &[2, 3]), vec![1, 1]);
        assert_eq!(unravel(2, &[3]), vec![2]);
        assert_eq!(unravel(0, &[]), Vec::<usize>::new());
    }

    #[test]
    fn shape_pairs_broadcast_and_come_in_both_orders() {
        let pairs = shape_pairs(&mut Generator::new(7, "shapes"), 20);
        assert_eq!(pairs.len(), 40);
        for pair in pairs.chunks(2) {
            assert_eq!((&pair[0].0, &pair[0].1), (&pair[1].1, &pair[1].0));
            assert!(numpy_shape(&pair[0].0, &pair[0].1).is_some(), "{pair:?}");
        }
    }

    #[test]
    fn strided_views_hold_the_values_in_logical_order() {
        let mut g = Generator::new(3, "views");
        let f = Format::F32;
        for shape in [vec![2, 3], vec![4], vec![], vec![2, 1, 3], vec![0, 2]] {
            let n: usize = shape.iter().product();
            let values: Vec<u64> = (0..n as u64).map(|v| 0x3f80_0000 + v).collect();
            let view = strided_view(&mut g, f, DType::F32, &shape, &values).unwrap();
            assert_eq!(view.shape(), shape.as_slice());
            assert_eq!(view.to_bits(), values, "{shape:?}");
        }
    }
}
