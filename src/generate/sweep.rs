//! Enumerated inputs: every value of a 16-bit format (or every pair of them), or the dense grid
//! of a wider format in the spirit of Berkeley TestFloat's level 2 (exponent classes ×
//! significand patterns), numbered by a case index and cut into fixed chunks.
//!
//! A chunk is a fixed unit of work with a stable number (chunk `k` holds the indices
//! `k × CHUNK ..`), so that a sweep can resume after its last finished chunk and a scheduler
//! can hand chunks to different machines. XLA's exhaustive tests cut the 2^32 pairs of a
//! 16-bit binary operation the same way (128 chunks of 2^25).

use std::ops::Range;
use std::sync::OnceLock;

use opspec_adapter::{DType, Tensor};

use crate::bits::format::Format;

/// Cases per chunk: 2^25, so a 16-bit binary sweep has 128 chunks.
pub const CHUNK: u64 = 1 << 25;

/// An enumeration of operand tuples by index.
#[derive(Clone, Debug)]
pub struct Sweep {
    /// One operand or two.
    arity: usize,
    /// The values each operand ranges over, or `None` for every bit pattern of a 16-bit format.
    values: Option<Vec<u64>>,
    len: u64,
}

impl Sweep {
    /// The sweep of binary operations in `f`: every pair of a 16-bit format, else the grid.
    pub fn binary(f: Format) -> Sweep {
        Sweep::exhaustive(f, 2).unwrap_or_else(|| Sweep::grid(f, 2))
    }

    /// Every value (`arity` 1: 2^16 cases) or every pair (`arity` 2: 2^32 cases) of a 16-bit
    /// format; `None` for a wider format or another arity. Case `i` of a pair sweep has
    /// `x1 = i mod 2^16` and `x2 = i / 2^16` (XLA's packing: the low half is the left operand).
    pub fn exhaustive(f: Format, arity: usize) -> Option<Sweep> {
        (f.bits == 16 && (1..=2).contains(&arity)).then(|| Sweep {
            arity,
            values: None,
            len: 1 << (16 * arity),
        })
    }

    /// Every value of `f` as a one-operand sweep, case `i` being the bit pattern `i`: 2^16
    /// cases of a 16-bit format, 2^32 (128 chunks) of f32; `None` for f64.
    pub fn every_value(f: Format) -> Option<Sweep> {
        (f.bits <= 32).then(|| Sweep { arity: 1, values: None, len: 1 << f.bits })
    }

    /// The sweep of an operation of `arity` operands in `f`: [`Sweep::every_value`] for one,
    /// [`Sweep::binary`] for two.
    pub fn of(arity: usize, f: Format) -> Option<Sweep> {
        match arity {
            1 => Sweep::every_value(f),
            2 => Some(Sweep::binary(f)),
            _ => None,
        }
    }

    /// Every value (`arity` 1) or every pair (`arity` 2) of [`grid_values`]`(f)`; case `i` of a
    /// pair sweep has `x1 = values[i mod n]` and `x2 = values[i / n]`.
    pub fn grid(f: Format, arity: usize) -> Sweep {
        let values = grid_values(f);
        let len = (values.len() as u64).pow(arity as u32);
        Sweep { arity, values: Some(values), len }
    }

    /// The number of cases of [`Sweep::binary`]`(f)`, counted once per format: planning sizes
    /// the sweep of every table, and a grid's size takes building it.
    pub fn binary_len(f: Format) -> u64 {
        static LENS: OnceLock<[(Format, u64); 4]> = OnceLock::new();
        once_per_format(&LENS, f, |f| Sweep::binary(f).len())
    }

    /// The number of cases.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether there are no cases (never, for the sweeps built here).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Operands per case.
    pub fn arity(&self) -> usize {
        self.arity
    }

    /// The number of chunks: [`CHUNK`] cases each, the last one possibly shorter.
    pub fn chunks(&self) -> u64 {
        chunk_count(self.len)
    }

    /// The case indices of chunk `k` (empty past the last chunk).
    pub fn chunk(&self, k: u64) -> Range<u64> {
        let start = |k: u64| k.saturating_mul(CHUNK).min(self.len);
        start(k)..start(k.saturating_add(1))
    }

    /// The values each operand ranges over, in order: every bit pattern `0 .. 2^16` of an
    /// exhaustive sweep, or the grid's values (not for an f32 [`Sweep::every_value`], whose
    /// cases are their own bit patterns). Operand `slot` of case `i` is
    /// `domain[(i / n^slot) mod n]`, `n` the domain's length.
    pub fn domain(&self) -> Vec<u64> {
        self.values.clone().unwrap_or_else(|| (0..1 << 16).collect())
    }

    /// Operand `slot` of case `index`.
    #[inline]
    pub fn operand(&self, index: u64, slot: usize) -> u64 {
        match &self.values {
            None if self.arity == 1 => index,
            None => (index >> (16 * slot)) & 0xffff,
            Some(values) => {
                let n = values.len() as u64;
                values[((index / n.pow(slot as u32)) % n) as usize]
            }
        }
    }
}

/// The number of chunks of a sweep of `len` cases: [`CHUNK`] cases each, the last one
/// possibly shorter.
pub fn chunk_count(len: u64) -> u64 {
    len.div_ceil(CHUNK)
}

/// `count(f)`, computed once for each of the four floating-point formats (and each time for
/// any other): what planning asks for every table, of inputs that take time to build.
pub fn once_per_format<T: Copy>(memo: &OnceLock<[(Format, T); 4]>, f: Format, count: fn(Format) -> T) -> T {
    let known =
        memo.get_or_init(|| [Format::F16, Format::BF16, Format::F32, Format::F64].map(|g| (g, count(g))));
    known.iter().find(|(g, _)| *g == f).map_or_else(|| count(f), |&(_, n)| n)
}

/// TestFloat-style dense values of `f`: both signs of each exponent class (zero/subnormal,
/// the smallest normal, −p, −2, −1, 0, 1, 2, p, the largest, infinity/NaN, where p is the
/// precision) combined with each significand pattern (zero, walking one, walking zero, leading
/// ones, trailing ones). The zero/subnormal class with a zero pattern gives ±0, the
/// infinity/NaN class gives ±∞ and NaNs of each payload pattern. Sorted, without repeats.
pub fn grid_values(f: Format) -> Vec<u64> {
    let bias = f.bias();
    let p = f.precision() as i32;
    let top = (1 << f.exp_bits) - 1;
    let exponents: Vec<u64> =
        [0, 1, bias - p, bias - 2, bias - 1, bias, bias + 1, bias + 2, bias + p, top - 1, top]
            .into_iter()
            .map(|e| e.clamp(0, top) as u64)
            .collect();
    let n = f.frac_bits;
    let mask = f.frac_mask();
    let mut patterns = vec![0, mask];
    for k in 0..n {
        patterns.extend([1 << k, mask ^ (1 << k), mask & !((1 << k) - 1), (1 << k) - 1]);
    }
    let mut values: Vec<u64> = exponents
        .iter()
        .flat_map(|&e| patterns.iter().flat_map(move |&s| [f.compose(false, e, s), f.compose(true, e, s)]))
        .collect();
    values.sort_unstable();
    values.dedup();
    values
}

pub fn operand_tensor(
    domain: &[u8],
    first: u64,
    n: usize,
    slot: usize,
    dtype: DType,
) -> Result<Tensor, String> {
    let size = dtype.size();
    let values = domain.len() / size;
    // Written once each, without zeroing first.
    let mut bytes = Vec::with_capacity(n * size);
    let mut at = Digits::new(first, values as u64);
    while bytes.len() < n * size {
        let run = (values - at.low).min(n - bytes.len() / size);
        if slot == 0 {
            bytes.extend_from_slice(&domain[at.low * size..(at.low + run) * size]);
        } else {
            // One copy of the value, then doubling copies of what is written.
            let (start, end) = (bytes.len(), bytes.len() + run * size);
            bytes.extend_from_slice(&domain[at.high * size..(at.high + 1) * size]);
            while bytes.len() < end {
                let more = (bytes.len() - start).min(end - bytes.len());
                bytes.extend_from_within(start..start + more);
            }
        }
        at = Digits { low: 0, high: at.high + 1 };
    }
    Tensor::from_bytes(dtype, &[n], bytes).map_err(|e| e.to_string())
}

/// The two operand positions of a case index `low + high × base`.
pub struct Digits {
    pub low: usize,
    pub high: usize,
}

impl Digits {
    /// The positions of case `index` in a domain of `base` values.
    pub fn new(index: u64, base: u64) -> Digits {
        Digits { low: (index % base) as usize, high: (index / base) as usize }
    }
}

/// Element `j` of a contiguous little-endian buffer of `size`-byte elements, as bits.
#[inline]
pub fn element(bytes: &[u8], j: usize, size: usize) -> u64 {
    match size {
        1 => u64::from(bytes[j]),
        2 => u64::from(u16::from_le_bytes([bytes[2 * j], bytes[2 * j + 1]])),
        4 => {
            let b = &bytes[4 * j..4 * j + 4];
            u64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        }
        _ => {
            let b = &bytes[8 * j..8 * j + 8];
            u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]])
        }
    }
}

/// Elements `from ..` of a contiguous little-endian buffer of `size`-byte elements, as bits,
/// into `out` (as many as it holds).
#[inline(always)]
pub fn elements(bytes: &[u8], from: usize, size: usize, out: &mut [u64]) {
    let bytes = &bytes[from * size..(from + out.len()) * size];
    match size {
        1 => out.iter_mut().zip(bytes).for_each(|(o, &b)| *o = u64::from(b)),
        2 => out
            .iter_mut()
            .zip(bytes.chunks_exact(2))
            .for_each(|(o, b)| *o = u64::from(u16::from_le_bytes([b[0], b[1]]))),
        _ => out.iter_mut().enumerate().for_each(|(j, o)| *o = element(bytes, j, size)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pair_sweep_has_every_pair_once_in_128_chunks() {
        let s = Sweep::exhaustive(Format::F16, 2).unwrap();
        assert_eq!((s.len(), s.chunks()), (1 << 32, 128));
        assert_eq!(s.chunk(127), 127 * CHUNK..1 << 32);
        let i = 0xabcd_1234;
        assert_eq!((s.operand(i, 0), s.operand(i, 1)), (0x1234, 0xabcd));
        let unary = Sweep::exhaustive(Format::BF16, 1).unwrap();
        assert_eq!((unary.len(), unary.chunks(), unary.operand(0xffff, 0)), (1 << 16, 1, 0xffff));
        let domain = s.domain();
        assert_eq!((domain[0x1234], domain[0xabcd], domain.len()), (0x1234, 0xabcd, 1 << 16));
        assert!(Sweep::exhaustive(Format::F32, 2).is_none());
        let f32 = Sweep::every_value(Format::F32).unwrap();
        assert_eq!((f32.len(), f32.chunks(), f32.operand(0xdead_beef, 0)), (1 << 32, 128, 0xdead_beef));
        assert!(Sweep::every_value(Format::F64).is_none());
        assert!(Sweep::exhaustive(Format::F16, 3).is_none());
    }

    #[test]
    fn operand_tensors_hold_each_case_s_operands() {
        for (f, dtype) in [(Format::F16, DType::F16), (Format::F32, DType::F32)] {
            let sweep = Sweep::binary(f);
            let domain: Vec<u8> =
                sweep.domain().iter().flat_map(|x| x.to_le_bytes()[..dtype.size()].to_vec()).collect();
            // From the middle of one second operand's run across three more.
            let base = sweep.domain().len() as u64;
            let (first, n) = (base / 2 + 1, 3 * base as usize + 7);
            for slot in 0..2 {
                let t = operand_tensor(&domain, first, n, slot, dtype).unwrap();
                let bytes = t.contiguous_bytes().unwrap();
                for j in 0..n {
                    let case = first + j as u64;
                    assert_eq!(
                        element(bytes, j, dtype.size()),
                        sweep.operand(case, slot),
                        "{} case {case}",
                        f.name
                    );
                }
            }
        }
    }

    #[test]
    fn grids_reach_every_class_boundary() {
        for f in [Format::F16, Format::BF16, Format::F32, Format::F64] {
            let values = grid_values(f);
            for must in [
                f.pos_zero(),
                f.neg_zero(),
                f.min_subnormal(),
                f.max_subnormal(),
                f.min_normal(),
                f.one(),
                f.neg(f.one()),
                f.max_finite(),
                f.pos_inf(),
                f.neg_inf(),
                f.quiet_nan(),
                f.exp_mask() | 1,
            ] {
                assert!(values.binary_search(&must).is_ok(), "{} lacks {}", f.name, f.describe(must));
            }
            // 2 signs × 11 exponent classes × (2 + 4n) patterns, less the repeats.
            let bound = 22 * (2 + 4 * f.frac_bits as usize);
            assert!(values.len() <= bound && values.len() > bound / 2, "{} {}", f.name, values.len());
            let grid = Sweep::grid(f, 2);
            assert_eq!(grid.len(), (values.len() as u64).pow(2));
            let last = grid.len() - 1;
            assert_eq!(grid.operand(last, 1), *values.last().unwrap());
            assert_eq!(grid.operand(values.len() as u64, 1), values[1]);
            assert_eq!(grid.domain(), values);
        }
    }
}
