//! floor_divide and remainder of two dense f16 or bf16 operands of one shape, [`BLOCK`] pairs
//! at a time: widened by `half`'s slice conversions (F16C where the CPU has it), divided in
//! f32 and f64 in loops without branches that the compiler vectorises (for AVX2 and FMA where
//! the CPU has them and `OPSPEC_CPU_SIMD` allows), and rounded back by the slice conversions,
//! split across rayon's threads. Bit-identical to the scalar path (`float.rs`), which widens,
//! divides and rounds one element at a time; an exhaustive pair sweep calls them with 2^20
//! pairs.

use half::slice::{HalfBitsSliceExt, HalfFloatSliceExt};
use half::{bf16, f16};
use opspec_adapter::{AdapterError, BinaryOp, DType, Tensor};

use crate::{PAIRS_PIECE, dense_operands, in_pieces};

/// Pairs widened, divided and rounded together.
const BLOCK: usize = 64;

/// The conversions between a 16-bit format's bits and f32.
struct Conversions {
    widen: fn(&[u16], &mut [f32]),
    narrow: fn(&[f32], &mut [u16]),
}

const F16: Conversions = Conversions {
    widen: |h, w| h.reinterpret_cast::<f16>().convert_to_f32_slice(w),
    narrow: |w, h| h.reinterpret_cast_mut::<f16>().convert_from_f32_slice(w),
};

const BF16: Conversions = Conversions {
    widen: |h, w| h.reinterpret_cast::<bf16>().convert_to_f32_slice(w),
    narrow: |w, h| h.reinterpret_cast_mut::<bf16>().convert_from_f32_slice(w),
};

/// `op` on `a` and `b`, or `None` where these kernels do not apply (another operation or
/// dtype, operands of different dtypes or shapes, axis names, or a strided operand).
pub fn binary(op: BinaryOp, a: &Tensor, b: &Tensor) -> Option<Result<Tensor, AdapterError>> {
    if !matches!(op, BinaryOp::FloorDivide | BinaryOp::Remainder) {
        return None;
    }
    let conversions = match a.dtype() {
        DType::F16 => F16,
        DType::BF16 => BF16,
        _ => return None,
    };
    let (xs, ys) = dense_operands(a, b, a.dtype())?;
    let out = in_pieces::<f16>(xs.len() / 2, PAIRS_PIECE, 2, |bytes, out| {
        let bits = |b: &[u8], to: &mut [u16]| {
            for (t, b) in to.iter_mut().zip(b.as_chunks::<2>().0) {
                *t = u16::from_le_bytes(*b);
            }
        };
        let (xs, ys) = (&xs[bytes.clone()], &ys[bytes]);
        for (x, y) in xs.chunks(2 * BLOCK).zip(ys.chunks(2 * BLOCK)) {
            let (mut bx, mut by, mut results) = ([0; BLOCK], [0; BLOCK], [0; BLOCK]);
            let n = x.len() / 2;
            bits(x, &mut bx[..n]);
            bits(y, &mut by[..n]);
            block(op, &conversions, (&bx[..n], &by[..n]), &mut results[..n]);
            out.extend(results[..n].iter().flat_map(|r| r.to_le_bytes()));
        }
        Some(())
    })
    .unwrap_or_default();
    Some(Tensor::from_bytes(a.dtype(), a.shape(), out))
}

/// `op` on the pairs of bits `x[i]`, `y[i]` (at most [`BLOCK`]), into `out[i]`.
fn block(op: BinaryOp, conversions: &Conversions, (x, y): (&[u16], &[u16]), out: &mut [u16]) {
    let n = x.len();
    let (mut wx, mut wy, mut wide) = ([0.0; BLOCK], [0.0; BLOCK], [0.0; BLOCK]);
    let (wx, wy, wide) = (&mut wx[..n], &mut wy[..n], &mut wide[..n]);
    (conversions.widen)(x, wx);
    (conversions.widen)(y, wy);
    divide(op, (wx, wy), wide);
    (conversions.narrow)(wide, out);
    if op == BinaryOp::FloorDivide {
        // Rounded to nearest; a finite result above the f32 floor goes one value down.
        let mut back = [0.0; BLOCK];
        let back = &mut back[..n];
        (conversions.widen)(out, back);
        for ((o, &b), &w) in out.iter_mut().zip(&*back).zip(&*wide) {
            let down = if w > 0.0 { o.wrapping_sub(1) } else { o.wrapping_add(1) };
            *o = if b.is_finite() & (b > w) { down } else { *o };
        }
    }
}

/// `op` on the f32 pairs `x[i]`, `y[i]`, into `out[i]`, compiled for AVX2 and FMA where the
/// CPU has them (vector floor, truncation and fused multiply-add) and `OPSPEC_CPU_SIMD` is not
/// `portable`.
fn divide(op: BinaryOp, (x, y): (&[f32], &[f32]), out: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if crate::fast::simd() >= crate::fast::Simd::Avx2
        && std::arch::is_x86_feature_detected!("avx2")
        && std::arch::is_x86_feature_detected!("fma")
    {
        // SAFETY: the CPU has AVX2 and FMA, as just checked.
        return unsafe { divide_avx2(op, (x, y), out) };
    }
    divide_in(op, (x, y), out)
}

/// [`divide`] compiled for AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn divide_avx2(op: BinaryOp, (x, y): (&[f32], &[f32]), out: &mut [f32]) {
    divide_in(op, (x, y), out)
}

/// [`divide`] for any CPU.
#[inline(always)]
fn divide_in(op: BinaryOp, (x, y): (&[f32], &[f32]), out: &mut [f32]) {
    match op {
        BinaryOp::FloorDivide => {
            for ((o, &x), &y) in out.iter_mut().zip(x).zip(y) {
                *o = floor_divide(x, y);
            }
        }
        _ => remainder(x, y, out),
    }
}

/// The f32 floor of `x / y` as `float.rs` computes it: the quotient's floor, one lower where
/// `x − floor·y` (one fma) shows the exact quotient below it; the quotient itself where it is
/// not finite, or zero for a zero dividend or an infinite divisor.
#[inline(always)]
fn floor_divide(x: f32, y: f32) -> f32 {
    let q = x / y;
    let special = q.is_nan() | q.is_infinite() | (q == 0.0) & ((x == 0.0) | y.is_infinite());
    let r = q.floor();
    let residual = (-r).mul_add(y, x);
    let overshoots = (residual != 0.0) & (residual.is_sign_negative() != y.is_sign_negative());
    // Past 2^24 every f32 is an integer and r == q: the value below instead of r − 1.
    let below =
        f32::from_bits(if r > 0.0 { r.to_bits().wrapping_sub(1) } else { r.to_bits().wrapping_add(1) });
    let lower = if r - 1.0 == r { below } else { r - 1.0 };
    let floor = if overshoots { lower } else { r };
    let floor = if floor == 0.0 { 0.0 } else { floor };
    if special { q } else { floor }
}

/// Python's `x % y` of each pair, as `float.rs` computes it: `fmod`, then one f32 addition of
/// `y` where the signs differ; a zero takes `y`'s sign, and a NaN result is `(x·y)/(x·y)`, as
/// the C library's `fmodf` gives it. In place of `fmod`, any exact value congruent to `x`
/// modulo `y` and below `|y|` will do (from [`residues`], in f64): of the two, the one in
/// `y`'s sign is the result, and the other plus `y` rounds to it. It is an f32 value: where
/// it is not `fmod`'s, the quotient rounded up onto an integer, which 16-bit operands allow
/// only where `x`'s quantum is the coarser, and then it is a multiple of `y`'s quantum below
/// `|y|`.
#[inline(always)]
fn remainder(x: &[f32], y: &[f32], out: &mut [f32]) {
    let n = x.len();
    let valid = |x: f32, y: f32| x.is_finite() & y.is_finite() & (y != 0.0);
    // The valid pairs; the others stand in as 0 by 1.
    let (mut m, mut s) = ([0.0f64; BLOCK], [1.0f64; BLOCK]);
    let (m, s) = (&mut m[..n], &mut s[..n]);
    for (((m, s), &x), &y) in m.iter_mut().zip(s.iter_mut()).zip(x).zip(y) {
        (*m, *s) = if valid(x, y) { (f64::from(x), f64::from(y)) } else { (0.0, 1.0) };
    }
    residues(m, s);
    for (((o, &m), &x), &y) in out.iter_mut().zip(&*m).zip(x).zip(y) {
        // An infinite divisor leaves a finite dividend as it is; the rest is a NaN.
        let kept = x.is_finite() & y.is_infinite();
        #[expect(clippy::eq_op, reason = "fmodf's NaN: a NaN operand's, quietened, or the default NaN")]
        let nan = (x * y) / (x * y);
        let m = if valid(x, y) {
            m as f32
        } else if kept {
            x
        } else {
            nan
        };
        let moved = if m.is_sign_negative() == y.is_sign_negative() { m } else { m + y };
        let zero = if y.is_sign_negative() { -0.0 } else { 0.0 };
        let nonzero = if m.is_nan() { m } else { moved };
        *o = if m == 0.0 { zero } else { nonzero };
    }
}

/// `m[i]` becomes a value congruent to it modulo `s[i]` and below `|s[i]|`, exactly, for
/// finite `m` and finite nonzero `s` that are f32 values. Each step reduces by `s·2^k`, with
/// `k` the binade distance `d` of `m` above `s` less 50 (0 at least): the quotient is below
/// 2^51, so `n`, the truncated f64 quotient, is the true one or one more in magnitude, and
/// `m − n·s·2^k`, a multiple of the finer quantum below the divisor, is exact in one fma; it
/// keeps the residue modulo `s`, and its `d` is at most `k`. The block takes the steps of its
/// largest `d`, the last one with `k = 0`.
#[inline(always)]
fn residues(m: &mut [f64], s: &[f64]) {
    let field = |v: f64| (v.to_bits() >> 52 & 0x7ff) as i64;
    let distance = |m: f64, s: f64| field(m) - field(s);
    let reach = m.iter().zip(s).fold(0, |d, (&m, &s)| d.max(distance(m, s)));
    for _ in 0..=(reach - 1).max(0) / 50 {
        for (m, &s) in m.iter_mut().zip(s) {
            let divisor = s * f64::from_bits((((distance(*m, s) - 50).max(0) + 1023) as u64) << 52);
            *m = (-(*m / divisor).trunc()).mul_add(divisor, *m);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CpuAdapter;
    use opspec_adapter::Adapter;

    /// Both operations give the scalar path's bits on every f16 and bf16 first operand against
    /// second operands at the zeros, the smallest subnormals, ±1, ±3, the largest finite
    /// values, the infinities and NaNs, and on every first operand against every second one
    /// of a stride through the format.
    #[test]
    fn the_division_kernels_give_the_scalar_results() {
        for (dtype, inf) in [(DType::F16, 0x7c00u16), (DType::BF16, 0x7f80)] {
            let one = if dtype == DType::F16 { 0x3c00 } else { 0x3f80 };
            let three = if dtype == DType::F16 { 0x4200 } else { 0x4040 };
            let seconds = [0, 1, one, three, inf - 1, inf, inf | 1, inf + 0x40];
            let seconds = seconds.iter().flat_map(|&s| [s, s | 0x8000]).chain((0..=u16::MAX).step_by(251));
            let firsts: Vec<u16> = (0..=u16::MAX).collect();
            let tensor = |v: &[u16]| {
                let bytes = v.iter().flat_map(|x| x.to_le_bytes()).collect();
                Tensor::from_bytes(dtype, &[v.len()], bytes).unwrap()
            };
            let a = tensor(&firsts);
            for second in seconds {
                let b = tensor(&vec![second; firsts.len()]);
                for op in [BinaryOp::FloorDivide, BinaryOp::Remainder] {
                    let fast = binary(op, &a, &b).unwrap().unwrap();
                    let scalar = match dtype {
                        DType::F16 => crate::binary_float::<f16>(op, &a, &b),
                        _ => crate::binary_float::<bf16>(op, &a, &b),
                    }
                    .unwrap();
                    let (fast, scalar) =
                        (fast.contiguous_bytes().unwrap(), scalar.contiguous_bytes().unwrap());
                    for (k, (f, s)) in fast.chunks(2).zip(scalar.chunks(2)).enumerate() {
                        assert_eq!(f, s, "{op} {dtype} {:#06x} {second:#06x}", firsts[k]);
                    }
                    // And the adapter takes this path.
                    let adapter = CpuAdapter.binary(op, &a, &b).unwrap();
                    assert_eq!(adapter.contiguous_bytes(), Some(fast), "{op} {dtype}");
                }
            }
        }
    }
}
