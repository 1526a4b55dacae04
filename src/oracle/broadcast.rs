//! The broadcasting rules as pure functions: NumPy's (numr's `BinaryOps`, seed 003) and the
//! named-axis document's (seed 002): the order rule, `masked_fill`, `matmul` and the operator
//! table, each from shapes (and operand kinds) to a result or the document's error code.
//!
//! Written from the documents alone; no adapter's code is used. Where a document is ambiguous
//! the decision taken is the one recorded in `specs/broadcasting/*.yaml` (`decisions:`).

use std::collections::HashMap;

use opspec_adapter::{Alignment, Checked, NamedAxis, NamedOp, Operand, ValueKind};

/// A document error code (`E0404`).
pub type Code = &'static str;

/// NumPy broadcasting: shapes compared from the trailing axis backward, each pair equal or one
/// of them 1 (stretched), the result the pairwise maximum; `None` when a pair is incompatible.
pub fn numpy_shape(a: &[usize], b: &[usize]) -> Option<Vec<usize>> {
    let rank = a.len().max(b.len());
    let mut out = vec![0; rank];
    for k in 0..rank {
        let da = if k < a.len() { a[a.len() - 1 - k] } else { 1 };
        let db = if k < b.len() { b[b.len() - 1 - k] } else { 1 };
        out[rank - 1 - k] = if da == db || db == 1 {
            da
        } else if da == 1 {
            db
        } else {
            return None;
        };
    }
    Some(out)
}

/// How an operand of rank `rank` lines up with a result of rank `out_rank` under NumPy's rule
/// (trailing axes together, new leading axes).
pub fn numpy_alignment(rank: usize, out_rank: usize) -> Alignment {
    let lead = out_rank - rank.min(out_rank);
    (0..out_rank).map(|i| i.checked_sub(lead)).collect()
}

/// Explicitly expands an operand: `values` in row-major order over `shape`, lined up with the
/// result by `align`, gives one value per element of `out_shape` (size-1 axes repeated).
pub fn expand(values: &[u64], shape: &[usize], align: &Alignment, out_shape: &[usize]) -> Vec<u64> {
    let mut stride = vec![0usize; shape.len()];
    let mut step = 1;
    for j in (0..shape.len()).rev() {
        stride[j] = step;
        step *= shape[j];
    }
    let total: usize = out_shape.iter().product();
    let mut out = Vec::with_capacity(total);
    let mut index = vec![0usize; out_shape.len()];
    for _ in 0..total {
        let mut flat = 0;
        for (i, slot) in align.iter().enumerate() {
            if let Some(j) = *slot
                && shape[j] != 1
            {
                flat += index[i] * stride[j];
            }
        }
        out.push(values[flat]);
        for i in (0..out_shape.len()).rev() {
            index[i] += 1;
            if index[i] < out_shape[i] {
                break;
            }
            index[i] = 0;
        }
    }
    out
}

/// The result of lining up two operands, and how each lines up with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lined {
    /// The result's named shape.
    pub shape: Vec<NamedAxis>,
    /// How the left and the right operand line up with it.
    pub alignment: [Alignment; 2],
}

/// The order rule of element-wise operations.
///
/// A rank-0 operand broadcasts to anything. Otherwise, if every axis of one operand is named
/// and those names are all axes of the other (the i-th repeat matching the i-th), the axes
/// line up by name and the result has the other operand's axes in its order (the left
/// operand's when both qualify); matched sizes must be equal (E0401). Otherwise axes line up
/// from the right: two named axes in a pair must share the name (E0404), sizes must be equal
/// or one of them 1 (E0401); a name conflict anywhere is reported before a size conflict.
pub fn order_rule(x: &[NamedAxis], y: &[NamedAxis]) -> Result<Lined, Code> {
    if x.is_empty() || y.is_empty() {
        let (full, x_full) = if x.is_empty() { (y, false) } else { (x, true) };
        let all: Alignment = (0..full.len()).map(Some).collect();
        let none: Alignment = vec![None; full.len()];
        let alignment = if x_full { [all, none] } else { [none, all] };
        return Ok(Lined { shape: full.to_vec(), alignment });
    }
    let x_by_name = by_name(x, y);
    let y_by_name = by_name(y, x);
    match (x_by_name, y_by_name) {
        // Both qualify: the left operand's order wins, y is matched into it.
        (Some(_), Some(y_into_x)) | (None, Some(y_into_x)) => {
            sizes_match(y, x, &y_into_x)?;
            Ok(Lined { shape: x.to_vec(), alignment: [identity(x.len()), y_into_x] })
        }
        (Some(x_into_y), None) => {
            sizes_match(x, y, &x_into_y)?;
            Ok(Lined { shape: y.to_vec(), alignment: [x_into_y, identity(y.len())] })
        }
        (None, None) => from_right(x, y),
    }
}

fn identity(n: usize) -> Alignment {
    (0..n).map(Some).collect()
}

/// If every axis of `a` is named and all are axes of `b`: for each axis of `b`, the axis of
/// `a` matched to it (the i-th axis of a name in `a` with the i-th of that name in `b`).
fn by_name(a: &[NamedAxis], b: &[NamedAxis]) -> Option<Alignment> {
    let mut slots: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, axis) in b.iter().enumerate() {
        if let Some(name) = &axis.name {
            slots.entry(name).or_default().push(i);
        }
    }
    let mut used: HashMap<&str, usize> = HashMap::new();
    let mut align = vec![None; b.len()];
    for (j, axis) in a.iter().enumerate() {
        let name = axis.name.as_deref()?;
        let k = used.entry(name).or_insert(0);
        let i = *slots.get(name)?.get(*k)?;
        *k += 1;
        align[i] = Some(j);
    }
    Some(align)
}

/// Axes matched by name must have equal sizes (E0401).
fn sizes_match(a: &[NamedAxis], b: &[NamedAxis], a_into_b: &Alignment) -> Result<(), Code> {
    let equal = a_into_b.iter().enumerate().all(|(i, slot)| slot.is_none_or(|j| a[j].size == b[i].size));
    if equal { Ok(()) } else { Err("E0401") }
}

fn from_right(x: &[NamedAxis], y: &[NamedAxis]) -> Result<Lined, Code> {
    let pairs = || x.iter().rev().zip(y.iter().rev());
    if pairs().any(|(a, b)| matches!((&a.name, &b.name), (Some(m), Some(n)) if m != n)) {
        return Err("E0404");
    }
    if pairs().any(|(a, b)| a.size != b.size && a.size != 1 && b.size != 1) {
        return Err("E0401");
    }
    let (longer, shorter) = if x.len() >= y.len() { (x, y) } else { (y, x) };
    let lead = longer.len() - shorter.len();
    let mut shape = longer[..lead].to_vec();
    for (a, b) in longer[lead..].iter().zip(shorter) {
        // The pair's size; at equal sizes a named axis is kept over an unnamed one.
        shape.push(if a.size == b.size {
            if a.name.is_some() { a.clone() } else { b.clone() }
        } else if a.size == 1 {
            b.clone()
        } else {
            a.clone()
        });
    }
    let rank = shape.len();
    Ok(Lined { shape, alignment: [numpy_alignment(x.len(), rank), numpy_alignment(y.len(), rank)] })
}

/// `masked_fill(x, mask, value)`: the mask must broadcast to x's shape without adding axes
/// (E0404); a mask that would stretch x is a size conflict (E0401). The result is x's shape.
pub fn masked_fill(x: &[NamedAxis], mask: &[NamedAxis]) -> Result<Lined, Code> {
    let lined = order_rule(x, mask)?;
    if lined.shape.len() != x.len() {
        return Err("E0404");
    }
    let mut mask_align = vec![None; x.len()];
    for (i, axis) in lined.shape.iter().enumerate() {
        let Some(j) = lined.alignment[0][i] else { return Err("E0404") };
        if x[j].size != axis.size {
            return Err("E0401");
        }
        mask_align[j] = lined.alignment[1][i];
    }
    Ok(Lined { shape: x.to_vec(), alignment: [identity(x.len()), mask_align] })
}

/// `x @ y` (as `torch.matmul`): x's last axis is contracted with y's second-to-last, or its
/// only axis; the contracted sizes must be equal but not the names (E0401). Batch axes
/// broadcast by the order rule (its E0404 reported first); the result is the batch axes, then
/// x's second-to-last axis, then y's last; a rank-1 operand loses its contracted axis; a
/// rank-0 operand is E0403.
pub fn matmul(x: &[NamedAxis], y: &[NamedAxis]) -> Result<Vec<NamedAxis>, Code> {
    let (Some(contracted_x), Some(contracted_y)) = (x.last(), y.iter().rev().nth(1).or(y.first())) else {
        return Err("E0403");
    };
    let batch = match (x.len(), y.len()) {
        (1, _) | (_, 1) => Ok(Vec::new()),
        (m, n) => order_rule(&x[..m - 2], &y[..n - 2]).map(|l| l.shape),
    };
    if batch == Err("E0404") {
        return Err("E0404");
    }
    if contracted_x.size != contracted_y.size {
        return Err("E0401");
    }
    let mut shape = batch?;
    match (x.len(), y.len()) {
        (1, 1) => {}
        (1, n) => {
            shape.extend_from_slice(&y[..n - 2]);
            shape.push(y[n - 1].clone());
        }
        (m, 1) => shape.extend_from_slice(&x[..m - 1]),
        (m, n) => {
            shape.push(x[m - 2].clone());
            shape.push(y[n - 1].clone());
        }
    }
    Ok(shape)
}

/// The operator table's classes of operations.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    /// `+ - *`: numbers, not Mask (E0505).
    Arithmetic,
    /// `/`: as arithmetic; integers give the default float.
    Division,
    /// `@`: numbers of one dtype (E0502); Real.
    Matmul,
    /// `== != < <= > >=`: anything; Mask, or a bool for two host scalars.
    Comparison,
    /// `and`, `or`, `!`: Masks or bools (E0501).
    Logical,
    /// Unary `-`: numbers (E0505); negated logits stay logits.
    Negation,
    /// `masked_fill`: the tensor's kind.
    Fill,
}

fn class(op: NamedOp) -> Class {
    match op {
        NamedOp::Add | NamedOp::Subtract | NamedOp::Multiply => Class::Arithmetic,
        NamedOp::Divide => Class::Division,
        NamedOp::Matmul => Class::Matmul,
        NamedOp::Equal
        | NamedOp::NotEqual
        | NamedOp::Less
        | NamedOp::LessEqual
        | NamedOp::Greater
        | NamedOp::GreaterEqual => Class::Comparison,
        NamedOp::LogicalAnd | NamedOp::LogicalOr | NamedOp::LogicalNot => Class::Logical,
        NamedOp::Negative => Class::Negation,
        NamedOp::MaskedFill => Class::Fill,
    }
}

/// Numbers: integer and real tensors (logits included) and host numbers.
fn number(k: ValueKind) -> bool {
    use ValueKind::*;
    matches!(k, Int | Real | Logits | HostInt | HostReal)
}

/// Integer-valued operands: by dtype where one is given, else by kind.
fn integral(o: &Operand) -> bool {
    match o.dtype {
        Some(d) => !d.is_float() && d != opspec_adapter::DType::Bool,
        None => matches!(o.kind, ValueKind::Int | ValueKind::HostInt),
    }
}

/// The operator table: the result kind of `op` on operands of these kinds, or its code.
///
/// Checked in this order: a string operand (E0412); each operand whose kind is known (not a
/// Python value) against the operator's operand rule (E0505, E0501), then `@`'s dtypes
/// (E0502); a Python operand then makes the result a Python value.
pub fn operator_kind(op: NamedOp, operands: &[Operand]) -> Result<ValueKind, Code> {
    use ValueKind::*;
    if operands.iter().any(|o| o.kind == Str) {
        return Err("E0412");
    }
    let known = || operands.iter().filter(|o| o.kind != Python);
    let c = class(op);
    match c {
        Class::Arithmetic | Class::Division | Class::Matmul | Class::Negation => {
            if known().any(|o| !number(o.kind)) {
                return Err("E0505");
            }
        }
        Class::Logical => {
            if known().any(|o| !matches!(o.kind, Mask | HostBool)) {
                return Err("E0501");
            }
        }
        Class::Comparison | Class::Fill => {}
    }
    if c == Class::Matmul
        && let [a, b] = known().collect::<Vec<_>>()[..]
    {
        let same = match (a.dtype, b.dtype) {
            (Some(p), Some(q)) => p == q,
            _ => integral(a) == integral(b),
        };
        if !same {
            return Err("E0502");
        }
    }
    if known().count() < operands.len() {
        return Ok(Python);
    }
    let host = operands.iter().all(|o| matches!(o.kind, HostInt | HostReal | HostBool));
    let ints = operands.iter().all(|o| matches!(o.kind, Int | HostInt));
    Ok(match (c, host) {
        (Class::Arithmetic, true) if ints => HostInt,
        (Class::Arithmetic, true) | (Class::Division, true) => HostReal,
        (Class::Arithmetic, false) if ints => Int,
        (Class::Arithmetic | Class::Division | Class::Matmul, _) => Real,
        (Class::Comparison | Class::Logical, true) if operands.len() == 2 => HostBool,
        (Class::Comparison | Class::Logical, false) if operands.len() == 2 => Mask,
        (Class::Logical | Class::Negation | Class::Fill, _) => operands[0].kind,
        (Class::Comparison, _) => Mask,
    })
}

/// The whole answer for `op` on `operands`: operand kinds first (the operator table decides
/// whether the expression is well-typed and which shape rule applies), then shapes.
pub fn check(op: NamedOp, operands: &[Operand]) -> Result<Checked, Code> {
    let kind = operator_kind(op, operands)?;
    let shape = |i: usize| operands[i].shape.as_slice();
    let (shape, alignment) = match op {
        NamedOp::Matmul => (matmul(shape(0), shape(1))?, None),
        NamedOp::LogicalNot | NamedOp::Negative => (shape(0).to_vec(), Some(vec![identity(shape(0).len())])),
        NamedOp::MaskedFill => {
            let l = masked_fill(shape(0), shape(1))?;
            (l.shape, Some(l.alignment.to_vec()))
        }
        _ => {
            let l = order_rule(shape(0), shape(1))?;
            (l.shape, Some(l.alignment.to_vec()))
        }
    };
    Ok(Checked { shape, kind, alignment })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// `"n=2 D=3 4"`: named axes with sizes, and unnamed sizes.
    fn s(text: &str) -> Vec<NamedAxis> {
        text.split_whitespace()
            .map(|t| match t.split_once('=') {
                Some((n, size)) => NamedAxis::named(n, size.parse().unwrap()),
                None => NamedAxis::unnamed(t.parse().unwrap()),
            })
            .collect()
    }

    fn op(kind: ValueKind) -> Operand {
        Operand { kind, dtype: None, shape: Vec::new() }
    }

    #[test]
    fn numpy() {
        assert_eq!(numpy_shape(&[2, 1, 3], &[4, 1]), Some(vec![2, 4, 3]));
        assert_eq!(numpy_shape(&[], &[5, 0]), Some(vec![5, 0]));
        assert_eq!(numpy_shape(&[1], &[0]), Some(vec![0]));
        assert_eq!(numpy_shape(&[2], &[0]), None);
        assert_eq!(numpy_shape(&[2, 3], &[2]), None, "aligned from the right, not the left");
        assert_eq!(numpy_alignment(1, 3), vec![None, None, Some(0)]);
        // [[1], [2]] + [10, 20, 30] (column + row)
        let col = expand(&[1, 2], &[2, 1], &numpy_alignment(2, 2), &[2, 3]);
        let row = expand(&[10, 20, 30], &[3], &numpy_alignment(1, 2), &[2, 3]);
        assert_eq!(col, [1, 1, 1, 2, 2, 2]);
        assert_eq!(row, [10, 20, 30, 10, 20, 30]);
    }

    #[test]
    fn seed_examples() {
        let big = s("b=2 H=4 n=3 m=5");
        assert_eq!(order_rule(&big, &s("n=3 m=5")).unwrap().shape, big);
        let l = order_rule(&s("n=3 m=5"), &big).unwrap();
        assert_eq!(l.shape, big);
        assert_eq!(l.alignment[0], vec![None, None, Some(0), Some(1)]);
        assert_eq!(order_rule(&s("n=2 D=4"), &s("k=2 D=4")), Err("E0404"));
        assert_eq!(order_rule(&s("n=2 D=4"), &s("D=4")).unwrap().alignment[1], vec![None, Some(0)]);
        assert_eq!(order_rule(&s("n=2 3"), &s("3")).unwrap().shape, s("n=2 3"));
        let l = order_rule(&s("n=2 m=3"), &s("m=3 n=2")).unwrap();
        assert_eq!((l.shape, &l.alignment[1]), (s("n=2 m=3"), &vec![Some(1), Some(0)]));
        assert_eq!(matmul(&s("b=2 n=3 (H,Dh)=8"), &s("D=8 D=8")), Ok(s("b=2 n=3 D=8")));
        assert_eq!(matmul(&s("n=3"), &s("n=3")), Ok(vec![]));
        assert_eq!(matmul(&s(""), &s("n=3")), Err("E0403"));
        assert_eq!(masked_fill(&s("n=2 D=4"), &s("k=3 n=2 D=4")), Err("E0404"));
        assert_eq!(masked_fill(&s("n=2 D=4"), &s("D=4 n=2")).unwrap().alignment[1], vec![Some(1), Some(0)]);
    }

    #[test]
    fn operator_table() {
        use ValueKind::*;
        let k = |o: NamedOp, kinds: &[ValueKind]| {
            operator_kind(o, &kinds.iter().map(|&k| op(k)).collect::<Vec<_>>())
        };
        assert_eq!(k(NamedOp::Add, &[Mask, Real]), Err("E0505"));
        assert_eq!(k(NamedOp::Divide, &[Int, Int]), Ok(Real));
        assert_eq!(k(NamedOp::Less, &[HostInt, HostReal]), Ok(HostBool));
        assert_eq!(k(NamedOp::Less, &[HostInt, Real]), Ok(Mask));
        assert_eq!(k(NamedOp::LogicalAnd, &[Mask, Int]), Err("E0501"));
        assert_eq!(k(NamedOp::Negative, &[Logits]), Ok(Logits));
        assert_eq!(k(NamedOp::Add, &[Python, Real]), Ok(Python));
        assert_eq!(k(NamedOp::Equal, &[Str, Real]), Err("E0412"));
        assert_eq!(k(NamedOp::Matmul, &[Int, Real]), Err("E0502"));
    }

    /// A named shape over distinct names `a`..: each name once, sizes 1..=3.
    fn distinct_named(max_rank: usize) -> impl Strategy<Value = Vec<NamedAxis>> {
        proptest::collection::vec(1usize..=3, 1..=max_rank).prop_map(|sizes| {
            sizes
                .into_iter()
                .enumerate()
                .map(|(i, n)| NamedAxis::named(((b'a' + i as u8) as char).to_string(), n))
                .collect()
        })
    }

    proptest! {
        /// By name, the result does not depend on how the superset operand orders its axes
        /// beyond what the rule states: it takes that order, with the same axes.
        #[test]
        fn by_name_follows_the_superset_order(
            (superset, permuted) in distinct_named(5).prop_flat_map(|s| (Just(s.clone()), Just(s).prop_shuffle())),
            keep in proptest::collection::vec(any::<bool>(), 5),
        ) {
            let mut subset: Vec<NamedAxis> =
                superset.iter().zip(&keep).filter(|(_, k)| **k).map(|(a, _)| a.clone()).collect();
            subset.reverse();
            let strict = subset.len() < superset.len();
            for sup in [&superset, &permuted] {
                let l = order_rule(&subset, sup).unwrap();
                if strict {
                    prop_assert_eq!(&l.shape, sup);
                } else {
                    prop_assert_eq!(&l.shape, &subset, "both qualify: the left order wins");
                }
                // Each subset axis lands on the superset axis of its name.
                for (i, slot) in l.alignment[0].iter().enumerate() {
                    if let Some(j) = slot {
                        prop_assert_eq!(&subset[*j].name, &l.shape[i].name);
                    }
                }
            }
        }

        /// Swapping operands changes only the order rule's outcome: the same axes (names and
        /// sizes) or the same error, and only when both qualify by name can the order change.
        #[test]
        fn swapping_changes_only_the_order(
            x in proptest::collection::vec((proptest::option::of(0u8..4), 1usize..=3), 0..=4),
            y in proptest::collection::vec((proptest::option::of(0u8..4), 1usize..=3), 0..=4),
        ) {
            let axes = |v: &[(Option<u8>, usize)]| -> Vec<NamedAxis> {
                v.iter().map(|&(n, size)| NamedAxis { name: n.map(|c| ((b'a' + c) as char).to_string()), size }).collect()
            };
            let (x, y) = (axes(&x), axes(&y));
            let (xy, yx) = (order_rule(&x, &y), order_rule(&y, &x));
            match (&xy, &yx) {
                (Ok(a), Ok(b)) => {
                    let mut sa = a.shape.clone();
                    let mut sb = b.shape.clone();
                    if a.shape != b.shape {
                        prop_assert!(by_name(&x, &y).is_some() && by_name(&y, &x).is_some(), "{:?} vs {:?}", a, b);
                    }
                    sa.sort();
                    sb.sort();
                    prop_assert_eq!(sa, sb);
                    if a.shape == b.shape {
                        prop_assert_eq!(&a.alignment[0], &b.alignment[1]);
                        prop_assert_eq!(&a.alignment[1], &b.alignment[0]);
                    }
                }
                (Err(a), Err(b)) => prop_assert_eq!(a, b),
                _ => prop_assert!(false, "{:?} vs {:?}", xy, yx),
            }
        }
    }
}
