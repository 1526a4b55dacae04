//! The named-axis document's notation for operands and alignments, as broadcasting tables
//! write it: `"mask:f16[b n (H Dh)]"` (an optional kind with an optional dtype, then the axes:
//! a name, an unnamed size or a merged axis) and `"[0 _ 1]"` (for each result axis, the operand
//! axis that supplies it, `_` for a new one).

use std::collections::BTreeMap;

use opspec_adapter::{Alignment, DType, NamedAxis, ValueKind};

use super::limits::{MAX_ELEMENTS, check_shape};

/// `"[0 _ 1]"`: for each result axis, the operand axis that supplies it or `_` for a new one.
pub fn parse_alignment(text: &str, result_rank: usize, operand_rank: usize) -> Result<Alignment, String> {
    let inner = text
        .trim()
        .strip_prefix('[')
        .and_then(|t| t.strip_suffix(']'))
        .ok_or_else(|| format!("`{text}`: write an alignment as \"[0 _ 1]\""))?;
    let align = inner
        .split_whitespace()
        .map(|t| match t {
            "_" => Ok(None),
            n => match n.parse::<usize>() {
                Ok(j) if j < operand_rank => Ok(Some(j)),
                _ => Err(format!(
                    "`{n}` in `{text}` is neither `_` nor an axis of a rank-{operand_rank} operand"
                )),
            },
        })
        .collect::<Result<Alignment, _>>()?;
    if align.len() != result_rank {
        return Err(format!("`{text}` has {} entries for a rank-{result_rank} result", align.len()));
    }
    Ok(align)
}

/// An operand or result in the named notation, parsed.
#[derive(Debug, PartialEq)]
pub struct ParsedOperand {
    /// The operand's kind (one), or the kinds a result may have (empty: not constrained).
    pub kinds: Vec<ValueKind>,
    /// The dtype written after the kind (`real:f16`), if any.
    pub dtype: Option<DType>,
    /// The axes.
    pub shape: Vec<NamedAxis>,
}

/// Parses `kind[:dtype][axes]`. For a result, the kind is optional (then unconstrained) and
/// may be `number` or `host_number`; for an operand it defaults to `real`.
pub fn parse_operand(
    text: &str,
    sizes: &BTreeMap<String, usize>,
    result: bool,
) -> Result<ParsedOperand, String> {
    let text = text.trim();
    let (head, axes) = match text.find('[') {
        Some(i) => {
            let axes = text[i..]
                .strip_prefix('[')
                .and_then(|t| t.strip_suffix(']'))
                .ok_or_else(|| format!("`{text}`: the axes must be one bracketed list at the end"))?;
            (text[..i].trim(), axes)
        }
        None => (text, ""),
    };
    let (kind, dtype) = match head.split_once(':') {
        Some((k, d)) => (k, Some(d.parse::<DType>()?)),
        None => (head, None),
    };
    let kinds = match (kind, result) {
        ("", false) => vec![ValueKind::Real],
        ("", true) => Vec::new(),
        ("number", true) => vec![ValueKind::Int, ValueKind::Real, ValueKind::Logits],
        ("host_number", true) => vec![ValueKind::HostInt, ValueKind::HostReal],
        (k, _) => vec![k.parse::<ValueKind>()?],
    };
    let shape = parse_axes(axes, sizes)?;
    check_shape(&shape.iter().map(|a| a.size).collect::<Vec<_>>())?;
    Ok(ParsedOperand { kinds, dtype, shape })
}

/// Parses the axes between the brackets: `b n=3 4 (H Dh)`.
fn parse_axes(text: &str, sizes: &BTreeMap<String, usize>) -> Result<Vec<NamedAxis>, String> {
    let mut axes = Vec::new();
    let mut rest = text.trim();
    while !rest.is_empty() {
        if let Some(group) = rest.strip_prefix('(') {
            let close = group.find(')').ok_or_else(|| format!("unclosed `(` in `{text}`"))?;
            let parts = group[..close]
                .split_whitespace()
                .map(|p| named_size(p, sizes))
                .collect::<Result<Vec<_>, _>>()?;
            if parts.is_empty() {
                return Err(format!("an empty merged axis `()` in `{text}`"));
            }
            let names: Vec<&str> = parts.iter().map(|(n, _)| n.as_str()).collect();
            let size = parts
                .iter()
                .try_fold(1usize, |n, (_, s)| n.checked_mul(*s))
                .filter(|&n| n <= MAX_ELEMENTS)
                .ok_or_else(|| {
                    format!("merged axis ({}) has more than {MAX_ELEMENTS} elements", names.join(" "))
                })?;
            axes.push(NamedAxis::named(format!("({})", names.join(" ")), size));
            rest = group[close + 1..].trim_start();
            continue;
        }
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let token = &rest[..end];
        rest = rest[end..].trim_start();
        if let Ok(size) = token.parse::<usize>() {
            axes.push(NamedAxis::unnamed(size));
        } else {
            let (name, size) = named_size(token, sizes)?;
            axes.push(NamedAxis::named(name, size));
        }
    }
    Ok(axes)
}

/// `n` (size from `sizes`) or `n=3`.
fn named_size(token: &str, sizes: &BTreeMap<String, usize>) -> Result<(String, usize), String> {
    let (name, size) = match token.split_once('=') {
        Some((n, s)) => (n, Some(s.parse::<usize>().map_err(|_| format!("`{token}`: `{s}` is not a size"))?)),
        None => (token, None),
    };
    let valid = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !valid {
        return Err(format!("`{token}` is not an axis (a name, name=size, a size or a merged axis)"));
    }
    let size = size
        .or_else(|| sizes.get(name).copied())
        .ok_or_else(|| format!("axis `{name}` has no size: add it to `sizes` or write `{name}=3`"))?;
    Ok((name.to_string(), size))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_notation() {
        let sizes: BTreeMap<String, usize> =
            [("n".to_string(), 3), ("H".to_string(), 4), ("Dh".to_string(), 2)].into();
        let p = parse_operand("mask:f16[b=2 n (H Dh) 5]", &sizes, false).unwrap();
        assert_eq!(p.kinds, vec![ValueKind::Mask]);
        assert_eq!(p.dtype, Some(DType::F16));
        assert_eq!(
            p.shape,
            vec![
                NamedAxis::named("b", 2),
                NamedAxis::named("n", 3),
                NamedAxis::named("(H Dh)", 8),
                NamedAxis::unnamed(5)
            ]
        );
        assert_eq!(parse_operand("host_int", &sizes, false).unwrap().shape, vec![]);
        assert_eq!(parse_operand("[]", &sizes, false).unwrap().kinds, vec![ValueKind::Real]);
        assert!(parse_operand("[n]", &sizes, true).unwrap().kinds.is_empty());
        assert!(parse_operand("[k]", &sizes, false).unwrap_err().contains("axis `k` has no size"));
        assert!(parse_operand("tensor[n]", &sizes, false).unwrap_err().contains("unknown value kind"));
        assert!(parse_operand("[n", &sizes, false).is_err());
        assert_eq!(parse_alignment("[_ 1 0]", 3, 2).unwrap(), vec![None, Some(1), Some(0)]);
        assert!(parse_alignment("[2]", 1, 2).is_err());
        assert!(parse_alignment("[0]", 2, 2).is_err());
    }
}
