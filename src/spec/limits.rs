//! The bounds the loader holds counts, sizes and tolerances to, so that no table or suite can
//! make opspec generate, allocate or accept without bound. Errors name the limit and why.

use crate::bits::format::Format;

/// Most inputs a suite may ask one check to generate (`cases_per_row`, `random_cases`):
/// 2^20, so that a check's operands stay within 24 MiB (three f64 operands).
pub const MAX_INPUTS_PER_CHECK: usize = 1 << 20;

/// Most generated shape pairs per broadcasting value check (`broadcast_shapes`).
pub const MAX_BROADCAST_SHAPES: usize = 4096;

/// Most elements of any shape a table writes (a vector's operand or result, a destination, a
/// merged axis): 2^20, 8 MiB as f64, refused before anything is allocated.
pub const MAX_ELEMENTS: usize = 1 << 20;

/// Most axes of any shape a table writes.
pub const MAX_RANK: usize = 32;

/// Most problems per scatter generator.
pub const MAX_SCATTER_PROBLEMS: usize = 4096;

/// Most index vectors per generated scatter problem: 2^18, room for the sizes at which
/// implementations split the work across threads (opspec-cpu from 2^16 update elements).
pub const MAX_INDEX_VECTORS: usize = 1 << 18;

/// Largest extent of an axis of a generated scatter problem's input (`max_extent`); the
/// input and updates must also stay within [`MAX_ELEMENTS`].
pub const MAX_SCATTER_EXTENT: usize = 1 << 16;

/// Most steps a suite's step bound may allow from the correctly rounded value in format `f`:
/// 1024, and at most 2^(p-5) for p significand bits (f16: 64, bf16: 8), since a bound of
/// 2^(p-5) steps already lets a result be off by 1/16 of its value.
pub fn max_step_bound(f: Format) -> u32 {
    1024u32.min(1 << (f.precision() - 5).min(10))
}

/// Checks a count the suite asks for: at least `min`, at most `max`.
pub fn check_count(value: usize, min: usize, max: usize, reason: &str) -> Result<(), String> {
    if value < min || value > max {
        return Err(format!("{value} is out of range: give {min} to {max} ({reason})"));
    }
    Ok(())
}

/// The number of elements of `shape`, if it has at most [`MAX_RANK`] axes and at most
/// [`MAX_ELEMENTS`] elements (counted without overflow).
pub fn check_shape(shape: &[usize]) -> Result<usize, String> {
    if shape.len() > MAX_RANK {
        return Err(format!("{} axes: at most {MAX_RANK}", shape.len()));
    }
    match shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d)) {
        Some(n) if n <= MAX_ELEMENTS => Ok(n),
        _ => Err(format!(
            "shape {shape:?} has more than {MAX_ELEMENTS} elements (the limit per operand, 8 MiB as f64)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits() {
        assert_eq!(max_step_bound(Format::F16), 64);
        assert_eq!(max_step_bound(Format::BF16), 8);
        assert_eq!(max_step_bound(Format::F32), 1024);
        assert_eq!(max_step_bound(Format::F64), 1024);
        assert_eq!(check_shape(&[2, 3]), Ok(6));
        assert_eq!(check_shape(&[0, usize::MAX]), Ok(0));
        assert!(check_shape(&[65536, 65536]).is_err());
        assert!(check_shape(&[1 << 32, 1 << 32, 2]).is_err());
        assert!(check_shape(&[1; 33]).is_err());
        assert!(check_count(0, 1, 10, "why").unwrap_err().contains("give 1 to 10 (why)"));
    }
}
