//! The element types of the fast kernels: how each reads and writes its bytes, its portable
//! loop (the same arithmetic as `float.rs`/`integer.rs`), and its AVX-512 and AVX block kernels.

use std::mem::MaybeUninit;

use half::{bf16, f16};
use opspec_adapter::BinaryOp;

use super::Operand;
#[cfg(target_arch = "x86_64")]
use super::level::Simd;
use super::side::Side;

/// An element type with fast kernels.
pub(super) trait Lane: Copy {
    const SIZE: usize;
    fn read(b: &[u8]) -> Self;
    fn write(self, b: &mut [MaybeUninit<u8>]);
    /// Computes a whole segment with the portable loop.
    fn portable(op: BinaryOp, x: Side, y: Side, out: &mut [MaybeUninit<u8>]);
    /// Runs `out`'s rows of `row` bytes with AVX-512 (every byte) or AVX/AVX2 (the whole
    /// 32-byte blocks from each row's start), as [`super::level::simd`] says, with the operands
    /// in the roles `x` and `y` (see `avx::run`); returns the bytes written per row (0 when the
    /// CPU lacks the features the kernel needs). With `stream` the stores bypass the cache:
    /// AVX/AVX2 takes rows that start 32-byte aligned, AVX-512 rows that start element-aligned.
    fn avx(
        op: BinaryOp,
        x: Operand,
        y: Operand,
        row: usize,
        out: &mut [MaybeUninit<u8>],
        stream: bool,
    ) -> usize;
}

/// Implements [`Lane`] for `$t`: `$portable` is its portable loop, `$kernel` its block kernel
/// in `super::avx512` and in `super::avx` (run when every feature in `$features` is detected).
macro_rules! lane {
    ($t:ty, $portable:expr, $kernel:ident, $($features:tt),+) => {
        impl Lane for $t {
            const SIZE: usize = size_of::<$t>();
            fn read(b: &[u8]) -> $t {
                <$t>::from_le_bytes(b.try_into().expect("one element"))
            }
            fn write(self, b: &mut [MaybeUninit<u8>]) {
                b.write_copy_of_slice(&self.to_le_bytes());
            }
            fn portable(op: BinaryOp, x: Side, y: Side, out: &mut [MaybeUninit<u8>]) {
                $portable(op, x, y, out)
            }
            fn avx(op: BinaryOp, x: Operand, y: Operand, row: usize, out: &mut [MaybeUninit<u8>], stream: bool) -> usize {
                #[cfg(target_arch = "x86_64")]
                {
                    let walk = super::avx::Walk { rows: out.len() / row, row, size: Self::SIZE };
                    match super::level::simd() {
                        Simd::Avx512 => return super::avx::run(op, x, y, walk, out, stream, super::avx512::$kernel),
                        Simd::Avx2 if $(std::arch::is_x86_feature_detected!($features))&&+ => {
                            return super::avx::run(op, x, y, walk, out, stream, super::avx::$kernel);
                        }
                        _ => {}
                    }
                }
                let _ = (op, x, y, row, out, stream);
                0
            }
        }
    };
}
lane!(f32, float_portable::<f32, f32>, f32_blocks, "avx");
lane!(f64, float_portable::<f64, f64>, f64_blocks, "avx");
lane!(f16, float_portable::<f16, f32>, f16_blocks, "avx", "f16c");
lane!(bf16, float_portable::<bf16, f32>, bf16_blocks, "avx2");
lane!(i8, int_portable::<i8>, i8_blocks, "avx2");
lane!(i16, int_portable::<i16>, i16_blocks, "avx2");
lane!(i32, int_portable::<i32>, i32_blocks, "avx2");
lane!(i64, int_portable::<i64>, i64_blocks, "avx2");
lane!(u8, int_portable::<u8>, u8_blocks, "avx2");
lane!(u16, int_portable::<u16>, u16_blocks, "avx2");
lane!(u32, int_portable::<u32>, u32_blocks, "avx2");
lane!(u64, int_portable::<u64>, u64_blocks, "avx2");

/// A float type `L` that computes in `Self` (itself for f32 and f64, f32 for f16 and bf16,
/// rounding back to nearest as `float.rs` does through the `half` crate).
trait Compute<L>:
    Copy
    + PartialOrd
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
    + std::ops::Div<Output = Self>
{
    fn widen(x: L) -> Self;
    /// The `L` result of `x op y`, computed as `r`.
    fn result(r: Self, x: Self) -> L;
    fn is_nan(self) -> bool;
}

macro_rules! compute {
    ($l:ty, $t:ty, $widen:expr, $result:expr) => {
        impl Compute<$l> for $t {
            #[inline(always)]
            fn widen(x: $l) -> $t {
                $widen(x)
            }
            #[inline(always)]
            fn result(r: $t, x: $t) -> $l {
                $result(r, x)
            }
            #[inline(always)]
            fn is_nan(self) -> bool {
                <$t>::is_nan(self)
            }
        }
    };
}
compute!(f32, f32, |x| x, |r, _| r);
compute!(f64, f64, |x| x, |r, _| r);
// When both operands are NaN, x86 returns the first one's payload, and so does the scalar
// `x op y` of `float.rs` as compiled; this loop's `+` and `×` may have their operands swapped
// by the compiler, so `x`'s NaN is chosen explicitly (the narrowing quiets it).
compute!(f16, f32, f16::to_f32, |r, x: f32| f16::from_f32(if x.is_nan() { x } else { r }));
compute!(bf16, f32, bf16::to_f32, |r, x: f32| bf16::from_f32(if x.is_nan() { x } else { r }));

/// NaN-propagating maximum; `x` between equal values (as `float.rs`).
fn maximum<T: Compute<L>, L>(x: T, y: T) -> T {
    if x.is_nan() || y < x {
        x
    } else if y.is_nan() || x < y {
        y
    } else {
        x
    }
}

/// NaN-propagating minimum; `x` between equal values (as `float.rs`).
fn minimum<T: Compute<L>, L>(x: T, y: T) -> T {
    if x.is_nan() || y > x {
        x
    } else if y.is_nan() || x > y {
        y
    } else {
        x
    }
}

/// `f` on `L` values through their compute type `T`.
#[inline(always)]
fn via<L: Lane, T: Compute<L>>(f: impl Fn(T, T) -> T) -> impl Fn(L, L) -> L {
    move |a, b| {
        let (a, b) = (T::widen(a), T::widen(b));
        T::result(f(a, b), a)
    }
}

fn float_portable<L: Lane, T: Compute<L>>(op: BinaryOp, x: Side, y: Side, out: &mut [MaybeUninit<u8>]) {
    // `float.rs` writes subtraction as `x + (-y)`, which compiles to a subtraction (a NaN `y`
    // keeps its sign; tests/fast_paths.rs checks the 16-bit formats' NaNs bit for bit).
    match op {
        BinaryOp::Add => portable(x, y, out, via::<L, T>(|a, b| a + b)),
        BinaryOp::Subtract => portable(x, y, out, via::<L, T>(|a, b| a - b)),
        BinaryOp::Multiply => portable(x, y, out, via::<L, T>(|a, b| a * b)),
        BinaryOp::Divide => portable(x, y, out, via::<L, T>(|a, b| a / b)),
        BinaryOp::Maximum => portable(x, y, out, via::<L, T>(maximum)),
        _ => portable(x, y, out, via::<L, T>(minimum)),
    }
}

/// Wrapping integer arithmetic (as `integer.rs`).
trait Int: Lane + Ord {
    fn add(self, y: Self) -> Self;
    fn sub(self, y: Self) -> Self;
    fn mul(self, y: Self) -> Self;
}

macro_rules! int {
    ($($t:ty),*) => {$(
        impl Int for $t {
            #[inline(always)]
            fn add(self, y: $t) -> $t {
                self.wrapping_add(y)
            }
            #[inline(always)]
            fn sub(self, y: $t) -> $t {
                self.wrapping_sub(y)
            }
            #[inline(always)]
            fn mul(self, y: $t) -> $t {
                self.wrapping_mul(y)
            }
        }
    )*};
}
int!(i8, i16, i32, i64, u8, u16, u32, u64);

fn int_portable<T: Int>(op: BinaryOp, x: Side, y: Side, out: &mut [MaybeUninit<u8>]) {
    match op {
        BinaryOp::Add => portable(x, y, out, T::add),
        BinaryOp::Subtract => portable(x, y, out, T::sub),
        BinaryOp::Multiply => portable(x, y, out, T::mul),
        BinaryOp::Maximum => portable(x, y, out, T::max),
        BinaryOp::Minimum => portable(x, y, out, T::min),
        _ => unreachable!("supports() excludes {op} for integers"),
    }
}

/// The portable loop (simple enough for the compiler to vectorise).
#[inline(always)]
fn portable<T: Lane>(x: Side, y: Side, out: &mut [MaybeUninit<u8>], f: impl Fn(T, T) -> T) {
    let n = T::SIZE;
    match (x, y) {
        (Side::Slice(a), Side::Slice(b)) => {
            for ((o, a), b) in out.chunks_exact_mut(n).zip(a.chunks_exact(n)).zip(b.chunks_exact(n)) {
                f(T::read(a), T::read(b)).write(o);
            }
        }
        (Side::Slice(a), Side::Splat(b)) => {
            let b = T::read(b);
            for (o, a) in out.chunks_exact_mut(n).zip(a.chunks_exact(n)) {
                f(T::read(a), b).write(o);
            }
        }
        (Side::Splat(a), Side::Slice(b)) => {
            let a = T::read(a);
            for (o, b) in out.chunks_exact_mut(n).zip(b.chunks_exact(n)) {
                f(a, T::read(b)).write(o);
            }
        }
        (Side::Splat(a), Side::Splat(b)) => {
            let v = f(T::read(a), T::read(b));
            for o in out.chunks_exact_mut(n) {
                v.write(o);
            }
        }
    }
}
