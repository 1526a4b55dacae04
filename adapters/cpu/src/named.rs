//! Named tensors: the named-axis rules (broadcasting by name, `masked_fill`, `matmul`, the
//! operator table), answered as a checker and executed by lining operands up through strides.
//!
//! Lining up is a permutation plus unsqueezes of each operand, done on strides: the kernel
//! reads the caller's buffers in place, and nothing is copied before it does.

use crate::broadcast;
use opspec_adapter::{
    AdapterError, Alignment, Checked, DType, Element, ErrorKind, NamedAxis, NamedOp, Operand, Tensor,
    ValueKind, named_axis_error, shape_text,
};

/// The result shape of two lined-up operands and how each lines up with it.
struct LinedUp {
    shape: Vec<NamedAxis>,
    alignment: Vec<Alignment>,
}

/// The answer to one checker question.
pub fn check(op: NamedOp, operands: &[Operand]) -> Result<Checked, AdapterError> {
    if operands.len() != op.arity() {
        return Err(AdapterError::new(
            ErrorKind::Other,
            format!("{op} takes {} operands, {} given", op.arity(), operands.len()),
        ));
    }
    let kind = result_kind(op, operands)?;
    let x = &operands[0].shape;
    let (shape, alignment) = match op {
        NamedOp::Matmul => (matmul(x, &operands[1].shape)?, None),
        NamedOp::LogicalNot | NamedOp::Negative => (x.clone(), Some(vec![(0..x.len()).map(Some).collect()])),
        NamedOp::MaskedFill => {
            let lined = masked_fill(x, &operands[1].shape)?;
            (lined.shape, Some(lined.alignment))
        }
        _ => {
            let lined = line_up(x, &operands[1].shape)?;
            (lined.shape, Some(lined.alignment))
        }
    };
    Ok(Checked { shape, kind, alignment })
}

fn is_number(k: ValueKind) -> bool {
    matches!(
        k,
        ValueKind::Int | ValueKind::Real | ValueKind::Logits | ValueKind::HostInt | ValueKind::HostReal
    )
}

fn is_boolean(k: ValueKind) -> bool {
    matches!(k, ValueKind::Mask | ValueKind::HostBool)
}

fn is_host(k: ValueKind) -> bool {
    matches!(k, ValueKind::HostInt | ValueKind::HostReal | ValueKind::HostBool)
}

/// Whether an operand holds integers: its dtype says so, or else its kind.
fn is_integer(o: &Operand) -> bool {
    match o.dtype {
        Some(d) => !d.is_float() && d != DType::Bool,
        None => matches!(o.kind, ValueKind::Int | ValueKind::HostInt),
    }
}

/// The operator table: operand kinds are checked before shapes.
fn result_kind(op: NamedOp, operands: &[Operand]) -> Result<ValueKind, AdapterError> {
    use ValueKind::*;
    if operands.iter().any(|o| o.kind == Str) {
        return Err(named_axis_error("E0412", format!("a string operand of `{}`", op.symbol())));
    }
    // A Python value's type is unknown here; the other operands are still checked.
    let known: Vec<&Operand> = operands.iter().filter(|o| o.kind != Python).collect();
    match op {
        NamedOp::Add
        | NamedOp::Subtract
        | NamedOp::Multiply
        | NamedOp::Divide
        | NamedOp::Negative
        | NamedOp::Matmul => {
            if let Some(o) = known.iter().find(|o| !is_number(o.kind)) {
                return Err(named_axis_error(
                    "E0505",
                    format!("`{}` needs numbers, not {}", op.symbol(), o.kind),
                ));
            }
        }
        NamedOp::LogicalAnd | NamedOp::LogicalOr | NamedOp::LogicalNot => {
            if let Some(o) = known.iter().find(|o| !is_boolean(o.kind)) {
                return Err(named_axis_error(
                    "E0501",
                    format!("`{}` needs Masks or bools, not {}", op.symbol(), o.kind),
                ));
            }
        }
        _ => {}
    }
    if op == NamedOp::Matmul && known.len() == 2 {
        let (a, b) = (known[0], known[1]);
        let same = match (a.dtype, b.dtype) {
            (Some(x), Some(y)) => x == y,
            _ => is_integer(a) == is_integer(b),
        };
        if !same {
            return Err(named_axis_error("E0502", "the operands of `@` have different dtypes"));
        }
    }
    if known.len() < operands.len() {
        return Ok(Python);
    }
    let all_host = operands.iter().all(|o| is_host(o.kind));
    let x = operands[0].kind;
    Ok(match op {
        NamedOp::Add | NamedOp::Subtract | NamedOp::Multiply => {
            let ints = operands.iter().all(|o| matches!(o.kind, Int | HostInt));
            match (all_host, ints) {
                (true, true) => HostInt,
                (true, false) => HostReal,
                (false, true) => Int,
                (false, false) => Real,
            }
        }
        NamedOp::Divide if all_host => HostReal,
        NamedOp::Divide | NamedOp::Matmul => Real,
        NamedOp::Equal
        | NamedOp::NotEqual
        | NamedOp::Less
        | NamedOp::LessEqual
        | NamedOp::Greater
        | NamedOp::GreaterEqual
        | NamedOp::LogicalAnd
        | NamedOp::LogicalOr => {
            if all_host {
                HostBool
            } else {
                Mask
            }
        }
        NamedOp::LogicalNot | NamedOp::Negative | NamedOp::MaskedFill => x,
    })
}

/// Whether every axis of `a` is named and each name occurs in `b` at least as often.
fn names_within(a: &[NamedAxis], b: &[NamedAxis]) -> bool {
    a.iter().all(|axis| {
        axis.name.is_some() && {
            let wanted = a.iter().filter(|o| o.name == axis.name).count();
            b.iter().filter(|o| o.name == axis.name).count() >= wanted
        }
    })
}

/// The order rule.
fn line_up(x: &[NamedAxis], y: &[NamedAxis]) -> Result<LinedUp, AdapterError> {
    let identity = |s: &[NamedAxis]| -> Alignment { (0..s.len()).map(Some).collect() };
    if x.is_empty() {
        return Ok(LinedUp { shape: y.to_vec(), alignment: vec![vec![None; y.len()], identity(y)] });
    }
    if y.is_empty() {
        return Ok(LinedUp { shape: x.to_vec(), alignment: vec![identity(x), vec![None; x.len()]] });
    }
    let (x_in_y, y_in_x) = (names_within(x, y), names_within(y, x));
    if x_in_y || y_in_x {
        // The result takes the other operand's order; the left one's when both qualify.
        let x_leads = y_in_x;
        let (lead, follow) = if x_leads { (x, y) } else { (y, x) };
        let mut follow_align = vec![None; lead.len()];
        for (j, axis) in follow.iter().enumerate() {
            let nth = follow[..j].iter().filter(|a| a.name == axis.name).count();
            let i = lead
                .iter()
                .enumerate()
                .filter(|(_, a)| a.name == axis.name)
                .nth(nth)
                .map(|(i, _)| i)
                .ok_or_else(|| AdapterError::new(ErrorKind::Other, "name matching lost an axis"))?;
            if lead[i].size != axis.size {
                return Err(named_axis_error(
                    "E0401",
                    format!("axis {axis} of one operand and {} of the other differ in size", lead[i]),
                ));
            }
            follow_align[i] = Some(j);
        }
        let alignment =
            if x_leads { vec![identity(lead), follow_align] } else { vec![follow_align, identity(lead)] };
        return Ok(LinedUp { shape: lead.to_vec(), alignment });
    }
    from_right(x, y)
}

/// Lining up from the right, as in NumPy, with names: a name conflict is reported before a
/// size conflict wherever each occurs.
fn from_right(x: &[NamedAxis], y: &[NamedAxis]) -> Result<LinedUp, AdapterError> {
    let rank = x.len().max(y.len());
    fn axis_at(s: &[NamedAxis], rank: usize, i: usize) -> Option<&NamedAxis> {
        (i >= rank - s.len()).then(|| &s[i - (rank - s.len())])
    }
    let at = |s, i| axis_at(s, rank, i);
    let context = || format!("{} and {}", shape_text(x), shape_text(y));
    for i in 0..rank {
        if let (Some(a), Some(b)) = (at(x, i), at(y, i))
            && a.name.is_some()
            && b.name.is_some()
            && a.name != b.name
        {
            return Err(named_axis_error("E0404", format!("axes {a} and {b} line up in {}", context())));
        }
    }
    let mut shape = Vec::with_capacity(rank);
    for i in 0..rank {
        let axis = match (at(x, i), at(y, i)) {
            (Some(a), Some(b)) if a.size == b.size => {
                NamedAxis { name: a.name.clone().or_else(|| b.name.clone()), size: a.size }
            }
            (Some(a), Some(b)) if b.size == 1 => a.clone(),
            (Some(a), Some(b)) if a.size == 1 => b.clone(),
            (Some(a), Some(b)) => {
                return Err(named_axis_error("E0401", format!("axes {a} and {b} line up in {}", context())));
            }
            (Some(a), None) => a.clone(),
            (None, Some(b)) => b.clone(),
            (None, None) => return Err(AdapterError::new(ErrorKind::Other, "an axis of neither operand")),
        };
        shape.push(axis);
    }
    let align = |s: &[NamedAxis]| -> Alignment {
        (0..rank).map(|i| (i >= rank - s.len()).then(|| i - (rank - s.len()))).collect()
    };
    Ok(LinedUp { alignment: vec![align(x), align(y)], shape })
}

/// `masked_fill(x, mask)`: the mask must line up with `x` without adding axes or growing it.
fn masked_fill(x: &[NamedAxis], mask: &[NamedAxis]) -> Result<LinedUp, AdapterError> {
    let lined = line_up(x, mask)?;
    if lined.shape.len() > x.len() {
        return Err(named_axis_error(
            "E0404",
            format!("the mask {} adds axes to the tensor {}", shape_text(mask), shape_text(x)),
        ));
    }
    let x_at = |i: usize| lined.alignment[0][i].map_or(1, |j| x[j].size);
    if (0..lined.shape.len()).any(|i| x_at(i) != lined.shape[i].size) {
        return Err(named_axis_error(
            "E0401",
            format!("the mask {} would stretch the tensor {}", shape_text(mask), shape_text(x)),
        ));
    }
    // The result is the tensor itself: its own order and names.
    let mut mask_align = vec![None; x.len()];
    for (i, &slot) in lined.alignment[0].iter().enumerate() {
        if let Some(j) = slot {
            mask_align[j] = lined.alignment[1][i];
        }
    }
    Ok(LinedUp { shape: x.to_vec(), alignment: vec![(0..x.len()).map(Some).collect(), mask_align] })
}

/// `x @ y`, as `torch.matmul` with named batch axes.
fn matmul(x: &[NamedAxis], y: &[NamedAxis]) -> Result<Vec<NamedAxis>, AdapterError> {
    if x.is_empty() || y.is_empty() {
        return Err(named_axis_error("E0403", "a rank-0 operand of `@`"));
    }
    let (nx, ny) = (x.len(), y.len());
    let batch = if nx >= 2 && ny >= 2 { Some(line_up(&x[..nx - 2], &y[..ny - 2])) } else { None };
    if let Some(Err(e)) = &batch
        && e.code.as_deref() == Some("E0404")
    {
        return Err(e.clone());
    }
    let (kx, ky) = (&x[nx - 1], if ny == 1 { &y[0] } else { &y[ny - 2] });
    if kx.size != ky.size {
        return Err(named_axis_error("E0401", format!("contracted axes {kx} and {ky} differ in size")));
    }
    Ok(match (nx, ny) {
        (1, 1) => Vec::new(),
        (1, _) => y[..ny - 2].iter().chain([&y[ny - 1]]).cloned().collect(),
        (_, 1) => x[..nx - 1].to_vec(),
        _ => {
            let mut shape = match batch {
                Some(lined) => lined?.shape,
                None => Vec::new(),
            };
            shape.push(x[nx - 2].clone());
            shape.push(y[ny - 1].clone());
            shape
        }
    })
}

/// A tensor's named shape (unnamed axes where it has no names).
pub fn named_shape(t: &Tensor) -> Vec<NamedAxis> {
    let names = t.names();
    t.shape()
        .iter()
        .enumerate()
        .map(|(i, &size)| NamedAxis { name: names.and_then(|n| n[i].clone()), size })
        .collect()
}

/// An operand as the kernel reads it: a broadcast view (NumPy broadcasting), or the caller's
/// tensor read through lined-up strides (the named-axis rules: permuted and unsqueezed, size-1
/// axes at stride 0; nothing is copied).
enum Source<'a> {
    View(Tensor),
    Aligned { tensor: &'a Tensor, strides: Vec<isize> },
}

impl Source<'_> {
    /// The elements in the row-major order of `shape`.
    fn to_vec<T: Element>(&self, shape: &[usize]) -> Result<Vec<T>, AdapterError> {
        match self {
            Source::View(t) => t.to_vec(),
            Source::Aligned { tensor, strides } => read_strided(tensor, shape, strides),
        }
    }
}

/// Reads `t`'s buffer through `strides` (from `t`'s offset) in the row-major order of `shape`.
fn read_strided<T: Element>(t: &Tensor, shape: &[usize], strides: &[isize]) -> Result<Vec<T>, AdapterError> {
    if t.dtype() != T::DTYPE {
        return Err(AdapterError::new(
            ErrorKind::DTypeMismatch,
            format!("tensor holds {}, not {}", t.dtype(), T::DTYPE),
        ));
    }
    let (size, buffer) = (t.dtype().size(), t.buffer());
    let total: usize = shape.iter().product();
    let mut out = Vec::with_capacity(total);
    let mut index = vec![0usize; shape.len()];
    for _ in 0..total {
        let position =
            t.offset() as isize + index.iter().zip(strides).map(|(&i, &s)| i as isize * s).sum::<isize>();
        let bytes =
            usize::try_from(position).ok().and_then(|p| buffer.get(p * size..(p + 1) * size)).ok_or_else(
                || AdapterError::new(ErrorKind::OutOfRange, "a lined-up view reaches outside its buffer"),
            )?;
        out.push(T::read_le(bytes));
        for axis in (0..shape.len()).rev() {
            index[axis] += 1;
            if index[axis] < shape[axis] {
                break;
            }
            index[axis] = 0;
        }
    }
    Ok(out)
}

/// The strides that line `t` up with `shape` by `align`: a permutation plus unsqueezes, with
/// size-1 axes broadcast at stride 0.
pub fn aligned_strides(t: &Tensor, align: &Alignment, shape: &[usize]) -> Vec<isize> {
    align
        .iter()
        .zip(shape)
        .map(|(slot, &n)| match *slot {
            Some(j) if t.shape()[j] == n => t.strides()[j],
            _ => 0,
        })
        .collect()
}

/// Two operands lined up for an element-wise kernel.
pub struct Lined<'a> {
    x: Source<'a>,
    y: Source<'a>,
    /// The result's shape.
    pub shape: Vec<usize>,
    /// The result's axis names, when an operand had names.
    names: Option<Vec<Option<String>>>,
}

impl Lined<'_> {
    /// Both operands' elements, one per result element.
    pub fn values<T: Element>(&self) -> Result<(Vec<T>, Vec<T>), AdapterError> {
        Ok((self.x.to_vec(&self.shape)?, self.y.to_vec(&self.shape)?))
    }

    /// Attaches the result's axis names (if any) to the kernel's output.
    pub fn finish(self, out: Tensor) -> Result<Tensor, AdapterError> {
        match self.names {
            Some(names) => out.with_names(names),
            None => Ok(out),
        }
    }
}

/// Lines two operands up: by the named-axis order rule when either has axis names, by NumPy
/// broadcasting otherwise.
pub fn line_up_operands<'a>(a: &'a Tensor, b: &'a Tensor) -> Result<Lined<'a>, AdapterError> {
    if a.names().is_none() && b.names().is_none() {
        let shape = broadcast::broadcast_shapes(a.shape(), b.shape())?;
        return Ok(Lined {
            x: Source::View(broadcast::broadcast_to(a, &shape)?),
            y: Source::View(broadcast::broadcast_to(b, &shape)?),
            shape,
            names: None,
        });
    }
    let lined = line_up(&named_shape(a), &named_shape(b))?;
    let shape: Vec<usize> = lined.shape.iter().map(|a| a.size).collect();
    Ok(Lined {
        x: Source::Aligned { tensor: a, strides: aligned_strides(a, &lined.alignment[0], &shape) },
        y: Source::Aligned { tensor: b, strides: aligned_strides(b, &lined.alignment[1], &shape) },
        names: Some(lined.shape.into_iter().map(|a| a.name).collect()),
        shape,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Vec<NamedAxis> {
        text.split_whitespace()
            .map(|t| match t.split_once('=') {
                Some((n, s)) => NamedAxis::named(n, s.parse().unwrap()),
                None => NamedAxis::unnamed(t.parse().unwrap()),
            })
            .collect()
    }

    fn real(text: &str) -> Operand {
        Operand { kind: ValueKind::Real, dtype: None, shape: parse(text) }
    }

    fn code(op: NamedOp, x: &str, y: &str) -> Option<String> {
        check(op, &[real(x), real(y)]).err().and_then(|e| e.code)
    }

    #[test]
    fn order_rule() {
        let r = check(NamedOp::Add, &[real("n=2 m=3"), real("m=3 n=2")]).unwrap();
        assert_eq!(r.shape, parse("n=2 m=3"));
        assert_eq!(r.alignment.unwrap()[1], vec![Some(1), Some(0)]);
        let r = check(NamedOp::Add, &[real("n=2 D=4"), real("D=4")]).unwrap();
        assert_eq!(r.alignment.unwrap()[1], vec![None, Some(0)]);
        assert_eq!(code(NamedOp::Add, "n=2 D=4", "k=2 D=4").as_deref(), Some("E0404"));
        assert_eq!(code(NamedOp::Add, "n=2 3", "4").as_deref(), Some("E0401"));
        assert_eq!(check(NamedOp::Add, &[real("n=2 3"), real("3")]).unwrap().shape, parse("n=2 3"));
    }

    #[test]
    fn matmul_and_masked_fill() {
        let r = check(NamedOp::Matmul, &[real("b=2 n=3 HDh=8"), real("D=8 D=8")]).unwrap();
        assert_eq!(r.shape, parse("b=2 n=3 D=8"));
        assert_eq!(code(NamedOp::Matmul, "", "n=2").as_deref(), Some("E0403"));
        assert_eq!(code(NamedOp::MaskedFill, "n=2", "k=3 n=2").as_deref(), Some("E0404"));
    }

    #[test]
    fn aligned_views_do_not_copy() {
        let t = Tensor::from_slice(&[1u8, 2, 3, 4, 5, 6], &[2, 3]).unwrap();
        let t = t.with_names(vec![Some("m".into()), Some("n".into())]).unwrap();
        let u = Tensor::from_slice(&[0u8; 6], &[3, 2]).unwrap();
        let u = u.with_names(vec![Some("n".into()), Some("m".into())]).unwrap();
        let lined = line_up_operands(&u, &t).unwrap();
        let Source::Aligned { tensor, strides } = &lined.y else {
            panic!("a named operand is read in place")
        };
        assert!(std::ptr::eq(*tensor, &t));
        assert_eq!(strides, &[1, 3]);
        assert_eq!(lined.values::<u8>().unwrap().1, vec![1, 4, 2, 5, 3, 6]);
    }
}
