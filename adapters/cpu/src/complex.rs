//! Complex operations in `c64` and `c128`, one element at a time.
//!
//! Implemented: `add`, `subtract`, `multiply`, `divide`, `pow`, `equal`, `not_equal` (with a
//! real float operand too: the dtypes promote as the array API's table gives, and the
//! component table's cells for a real operand are computed on its value, see [`kernel`]), and
//! `abs`, `conj`, `real`, `imag`, `isfinite`, `isinf`, `isnan`, `negative`, `positive`, `sign`,
//! `square` and `reciprocal`, and the elementary functions `exp`, `expm1`, `log`, `log1p`,
//! `log2`, `log10`, `sqrt`, `sin`, `cos`, `tan`, `sinh`, `cosh`, `tanh`, `asin`, `acos`, `atan`,
//! `asinh`, `acosh` and `atanh` (in [`math`]). The rounding functions are not defined for
//! complex operands and are reported unsupported.
//!
//! How each is computed:
//!
//! - `add` and `subtract` apply the real operation to each component (one IEEE rounding each),
//!   as the array API's component table for `add` says; a real operand's cells of the tables
//!   of `add`, `multiply` and `divide` are the real operations they state (see [`kernel`]).
//! - `multiply` is the textbook formula `(ac - bd) + (ad + bc)j`, and `divide` the textbook
//!   formula `((ac + bd) + (bc - ad)j) / (c² + d²)` with the divisor first scaled by a power of
//!   two to `[1, 2)` (exact), so that `c² + d²` neither overflows nor underflows. Where the
//!   formula gives `NaN + NaN j` although an operand is infinite or the divisor zero, both
//!   recover the infinity or zero as C99 Annex G (`_Cmul`/`_Cdiv` in G.5.1) does; the standard
//!   leaves those cases to the implementation and fixes only `NaN + NaN j` from four NaNs.
//! - `c64` computes in f64 (the parts' products are exact there and `c² + d²` cannot overflow)
//!   and rounds each part once to f32; `c128` computes in f64.
//! - `abs` is `+infinity` when a part is infinite, else NaN when a part is NaN, else
//!   `hypot(a, b)` (the C library's for `c128`; `sqrt(a² + b²)` in f64 for `c64`).
//! - `sign` is `0 + 0j` for a zero, `NaN + NaN j` when a part is NaN, and otherwise
//!   `divide(x, abs(x) + 0j)` (the standard: "according to the rules of complex number
//!   division"); `square` is `multiply(x, x)` and `reciprocal` `divide(1 + 0j, x)`.
//! - `pow(x, y)` is the standard's definition, `exp(y * log(x))`, with [`math`]'s `exp` and
//!   `log` and the product above.
//! - The elementary functions compute on f64 parts for both dtypes (see [`math`]); `c64`
//!   rounds each part once to f32. `sin`, `cos`, `tan`, `asin` and `atan` are the standard's
//!   delegations (`-1j * sinh(x*1j)` and the like) with exact rotations, and `log2` and `log10`
//!   are `log(x) / ln 2` and `log(x) / ln 10`.

use opspec_adapter::{AdapterError, BinaryOp, Complex, DType, Element, OpKind, Support, Tensor, UnaryOp};

use crate::named;

mod math;

/// The complex binary operations this module implements.
const BINARY: [BinaryOp; 7] = [
    BinaryOp::Add,
    BinaryOp::Subtract,
    BinaryOp::Multiply,
    BinaryOp::Divide,
    BinaryOp::Pow,
    BinaryOp::Equal,
    BinaryOp::NotEqual,
];

/// The complex unary operations this module implements.
const UNARY: [UnaryOp; 31] = [
    UnaryOp::Abs,
    UnaryOp::Acos,
    UnaryOp::Acosh,
    UnaryOp::Asin,
    UnaryOp::Asinh,
    UnaryOp::Atan,
    UnaryOp::Atanh,
    UnaryOp::Conj,
    UnaryOp::Cos,
    UnaryOp::Cosh,
    UnaryOp::Exp,
    UnaryOp::Expm1,
    UnaryOp::Imag,
    UnaryOp::Isfinite,
    UnaryOp::Isinf,
    UnaryOp::Isnan,
    UnaryOp::Log,
    UnaryOp::Log1p,
    UnaryOp::Log2,
    UnaryOp::Log10,
    UnaryOp::Negative,
    UnaryOp::Positive,
    UnaryOp::Real,
    UnaryOp::Reciprocal,
    UnaryOp::Sign,
    UnaryOp::Sin,
    UnaryOp::Sinh,
    UnaryOp::Sqrt,
    UnaryOp::Square,
    UnaryOp::Tan,
    UnaryOp::Tanh,
];

/// Whether `op` is implemented for the complex `dtype`.
pub fn supports(op: OpKind, dtype: DType) -> Support {
    match op {
        OpKind::Binary(b) if BINARY.contains(&b) => Support::Supported,
        OpKind::Unary(u) if UNARY.contains(&u) => Support::Supported,
        _ => Support::Unsupported(format!("opspec-cpu does not implement {op} for {dtype} yet")),
    }
}

type C = Complex<f64>;

/// A complex element type: converted to and from f64 parts for computing.
trait Part: Element {
    fn widen(self) -> C;
    fn narrow(z: C) -> Self;
    /// `|z|` of finite parts.
    fn finite_abs(z: C) -> f64;
}

impl Part for Complex<f32> {
    fn widen(self) -> C {
        Complex::new(f64::from(self.re), f64::from(self.im))
    }
    fn narrow(z: C) -> Self {
        Complex::new(z.re as f32, z.im as f32)
    }
    fn finite_abs(z: C) -> f64 {
        // Squares of f32 values are exact in f64, and their sum cannot overflow.
        (z.re * z.re + z.im * z.im).sqrt()
    }
}

impl Part for Complex<f64> {
    fn widen(self) -> C {
        self
    }
    fn narrow(z: C) -> Self {
        z
    }
    fn finite_abs(z: C) -> f64 {
        z.re.hypot(z.im)
    }
}

/// `op(a, b)` for two complex tensors, or a complex and a real float one, in the dtype they
/// promote to.
pub fn binary(op: BinaryOp, a: &Tensor, b: &Tensor) -> Result<Tensor, AdapterError> {
    let dtype = crate::promote::promote(a.dtype(), b.dtype())?;
    let real = match (a.dtype().is_complex(), b.dtype().is_complex()) {
        (false, _) => Some(Operand::First),
        (_, false) => Some(Operand::Second),
        _ => None,
    };
    let kernel = kernel(op, real);
    let (a, b) = (&to_complex(a, dtype)?, &to_complex(b, dtype)?);
    match dtype {
        DType::C64 => binary_typed::<Complex<f32>>(op, kernel, a, b),
        DType::C128 => binary_typed::<Complex<f64>>(op, kernel, a, b),
        other => Err(AdapterError::unsupported(format!("{op} is not implemented for {other}"))),
    }
}

/// Which operand of a binary operation is real-valued.
#[derive(Clone, Copy, PartialEq)]
enum Operand {
    First,
    Second,
}

/// How a binary operation computes on f64 parts, the `real` operand (promoted with a +0
/// imaginary part) taken as a real number where the array API's component table gives a
/// cell for it: `a + (c + dj) = (a + c) + dj`, `a * (c + dj) = ac + (ad)j`, and the column of
/// a real `x2` for add, multiply and divide (`(a + bj) / c = a/c + (b/c)j`). Elsewhere (a real
/// `x1` divided by a complex `x2`: "special rules"; `subtract`, which has no table) the real
/// operand is the complex `a + 0j`. `None` for the comparisons (which [`binary_typed`]
/// computes itself) and the operations without a complex kernel.
fn kernel(op: BinaryOp, real: Option<Operand>) -> Option<fn(C, C) -> C> {
    use Operand::{First, Second};
    Some(match (op, real) {
        (BinaryOp::Add, Some(First)) => |x, y| Complex::new(x.re + y.re, y.im),
        (BinaryOp::Add, Some(Second)) => |x, y| Complex::new(x.re + y.re, x.im),
        (BinaryOp::Add, None) => |x, y| Complex::new(x.re + y.re, x.im + y.im),
        (BinaryOp::Subtract, _) => |x, y| Complex::new(x.re - y.re, x.im - y.im),
        (BinaryOp::Multiply, Some(First)) => |x, y| Complex::new(x.re * y.re, x.re * y.im),
        (BinaryOp::Multiply, Some(Second)) => |x, y| Complex::new(x.re * y.re, x.im * y.re),
        (BinaryOp::Multiply, None) => multiply,
        (BinaryOp::Divide, Some(Second)) => |x, y| Complex::new(x.re / y.re, x.im / y.re),
        (BinaryOp::Divide, _) => divide,
        (BinaryOp::Pow, _) => |x, y| math::exp(multiply(y, math::log(x))),
        _ => return None,
    })
}

/// `t` as a tensor of complex `dtype`: a real one with +0 imaginary parts, a `c64` one
/// widened (both exact).
fn to_complex(t: &Tensor, dtype: DType) -> Result<Tensor, AdapterError> {
    if t.dtype() == dtype {
        return Ok(t.clone());
    }
    let widened: Vec<Complex<f64>> = match t.dtype() {
        DType::C64 => {
            t.to_vec::<Complex<f32>>()?.into_iter().map(|z| Complex::new(z.re.into(), z.im.into())).collect()
        }
        _ => {
            let real = crate::promote::cast(t, DType::F64)?.to_vec::<f64>()?;
            real.into_iter().map(|re| Complex::new(re, 0.0)).collect()
        }
    };
    match dtype {
        DType::C128 => Tensor::from_slice(&widened, t.shape()),
        // A real operand of c64's width (f16, bf16, f32) rounds back without error.
        _ => {
            let narrow: Vec<Complex<f32>> =
                widened.into_iter().map(|z| Complex::new(z.re as f32, z.im as f32)).collect();
            Tensor::from_slice(&narrow, t.shape())
        }
    }
}

fn binary_typed<T: Part>(
    op: BinaryOp,
    kernel: Option<fn(C, C) -> C>,
    a: &Tensor,
    b: &Tensor,
) -> Result<Tensor, AdapterError> {
    let lined = named::line_up_operands(a, b)?;
    let (xs, ys) = lined.values::<T>()?;
    let pairs = xs.into_iter().zip(ys).map(|(x, y)| (x.widen(), y.widen()));
    let out = match op {
        BinaryOp::Equal | BinaryOp::NotEqual => {
            let eq: Vec<bool> =
                pairs.map(|(x, y)| (x.re == y.re && x.im == y.im) == (op == BinaryOp::Equal)).collect();
            Tensor::from_slice(&eq, &lined.shape)?
        }
        _ => {
            let kernel = kernel.ok_or_else(|| {
                AdapterError::unsupported(format!("{op} is not implemented for {}", T::DTYPE))
            })?;
            let values: Vec<T> = pairs.map(|(x, y)| T::narrow(kernel(x, y))).collect();
            Tensor::from_slice(&values, &lined.shape)?
        }
    };
    lined.finish(out)
}

/// `op(x)` for a complex tensor.
pub fn unary(op: UnaryOp, x: &Tensor) -> Result<Tensor, AdapterError> {
    match x.dtype() {
        DType::C64 => unary_typed::<Complex<f32>, f32>(op, x),
        DType::C128 => unary_typed::<Complex<f64>, f64>(op, x),
        other => Err(AdapterError::unsupported(format!("{op} is not implemented for {other}"))),
    }
}

fn unary_typed<T: Part, R: Element + FromF64>(op: UnaryOp, x: &Tensor) -> Result<Tensor, AdapterError> {
    let values: Vec<C> = x.to_vec::<T>()?.into_iter().map(Part::widen).collect();
    let predicate = |f: fn(C) -> bool| -> Result<Tensor, AdapterError> {
        Tensor::from_slice(&values.iter().map(|&z| f(z)).collect::<Vec<_>>(), x.shape())
    };
    let complex = |f: &dyn Fn(C) -> C| -> Result<Tensor, AdapterError> {
        Tensor::from_slice(&values.iter().map(|&z| T::narrow(f(z))).collect::<Vec<_>>(), x.shape())
    };
    let real = |f: &dyn Fn(C) -> f64| -> Result<Tensor, AdapterError> {
        Tensor::from_slice(&values.iter().map(|&z| R::from_f64(f(z))).collect::<Vec<_>>(), x.shape())
    };
    match op {
        UnaryOp::Isfinite => predicate(|z| z.re.is_finite() && z.im.is_finite()),
        UnaryOp::Isinf => predicate(|z| z.re.is_infinite() || z.im.is_infinite()),
        UnaryOp::Isnan => predicate(|z| z.re.is_nan() || z.im.is_nan()),
        UnaryOp::Abs => real(&|z| abs::<T>(z)),
        UnaryOp::Real => real(&|z| z.re),
        UnaryOp::Imag => real(&|z| z.im),
        UnaryOp::Conj => complex(&|z| Complex::new(z.re, -z.im)),
        UnaryOp::Negative => complex(&|z| Complex::new(-z.re, -z.im)),
        UnaryOp::Positive => complex(&|z| z),
        UnaryOp::Square => complex(&|z| multiply(z, z)),
        UnaryOp::Reciprocal => complex(&|z| divide(Complex::new(1.0, 0.0), z)),
        UnaryOp::Exp => complex(&math::exp),
        UnaryOp::Expm1 => complex(&math::expm1),
        UnaryOp::Log => complex(&math::log),
        UnaryOp::Log1p => complex(&math::log1p),
        UnaryOp::Log2 => complex(&math::log2),
        UnaryOp::Log10 => complex(&math::log10),
        UnaryOp::Sqrt => complex(&math::sqrt),
        UnaryOp::Sin => complex(&math::sin),
        UnaryOp::Cos => complex(&math::cos),
        UnaryOp::Tan => complex(&math::tan),
        UnaryOp::Sinh => complex(&math::sinh),
        UnaryOp::Cosh => complex(&math::cosh),
        UnaryOp::Tanh => complex(&math::tanh),
        UnaryOp::Asin => complex(&math::asin),
        UnaryOp::Acos => complex(&math::acos),
        UnaryOp::Atan => complex(&math::atan),
        UnaryOp::Asinh => complex(&math::asinh),
        UnaryOp::Acosh => complex(&math::acosh),
        UnaryOp::Atanh => complex(&math::atanh),
        UnaryOp::Sign => complex(&|z| {
            if z.re == 0.0 && z.im == 0.0 {
                Complex::new(0.0, 0.0)
            } else if z.re.is_nan() || z.im.is_nan() {
                Complex::new(f64::NAN, f64::NAN)
            } else {
                // Scaled first, so that |z| neither overflows nor loses a subnormal's bits.
                let k = magnitude(z);
                let z = Complex::new(scale(z.re, -k), scale(z.im, -k));
                divide(z, Complex::new(abs::<T>(z), 0.0))
            }
        }),
        _ => Err(AdapterError::unsupported(format!("{op} is not implemented for {}", T::DTYPE))),
    }
}

/// A real result type rounded from f64 (once).
trait FromF64: Copy {
    fn from_f64(v: f64) -> Self;
}

impl FromF64 for f32 {
    fn from_f64(v: f64) -> f32 {
        v as f32
    }
}

impl FromF64 for f64 {
    fn from_f64(v: f64) -> f64 {
        v
    }
}

/// `|z|`: `+infinity` if a part is infinite (even with a NaN), else NaN if a part is NaN.
fn abs<T: Part>(z: C) -> f64 {
    if z.re.is_infinite() || z.im.is_infinite() {
        f64::INFINITY
    } else if z.re.is_nan() || z.im.is_nan() {
        f64::NAN
    } else {
        T::finite_abs(z)
    }
}

/// 1 with the sign of `v` if `v` is infinite, else 0 with its sign (C99 G.5.1's "box").
fn boxed(v: f64) -> f64 {
    (if v.is_infinite() { 1.0f64 } else { 0.0 }).copysign(v)
}

/// `v`, or 0 with its sign if `v` is NaN.
fn unnan(v: f64) -> f64 {
    if v.is_nan() { 0.0f64.copysign(v) } else { v }
}

/// The textbook product, with C99 Annex G's recovery of infinities.
fn multiply(x: C, y: C) -> C {
    let (mut a, mut b, mut c, mut d) = (x.re, x.im, y.re, y.im);
    let (ac, bd, ad, bc) = (a * c, b * d, a * d, b * c);
    let z = Complex::new(ac - bd, ad + bc);
    if !(z.re.is_nan() && z.im.is_nan()) {
        return z;
    }
    let mut recalc = false;
    if a.is_infinite() || b.is_infinite() {
        (a, b, c, d) = (boxed(a), boxed(b), unnan(c), unnan(d));
        recalc = true;
    }
    if c.is_infinite() || d.is_infinite() {
        (a, b, c, d) = (unnan(a), unnan(b), boxed(c), boxed(d));
        recalc = true;
    }
    if !recalc && [ac, bd, ad, bc].iter().any(|v| v.is_infinite()) {
        (a, b, c, d) = (unnan(a), unnan(b), unnan(c), unnan(d));
        recalc = true;
    }
    if recalc { Complex::new(f64::INFINITY * (a * c - b * d), f64::INFINITY * (a * d + b * c)) } else { z }
}

/// The binary exponent of a finite nonzero `v` (`floor(log2 |v|)`), subnormals included.
fn exponent(v: f64) -> i32 {
    let bits = v.to_bits() & !(1u64 << 63);
    let biased = (bits >> 52) as i32;
    if biased == 0 { -1074 + (63 - bits.leading_zeros() as i32) } else { biased - 1023 }
}

/// `v × 2^n`, exact unless the result overflows or is subnormal.
fn scale(v: f64, n: i32) -> f64 {
    // 2^n in at most three exact steps of at most 2^1000 each.
    let mut v = v;
    let mut n = n;
    while n != 0 {
        let step = n.clamp(-1000, 1000);
        v *= f64::from_bits(((1023 + step) as u64) << 52);
        n -= step;
    }
    v
}

/// The exponent of `z`'s larger part where that part is finite and nonzero, else 0: the
/// power of two that scales `z`'s larger part into `[1, 2)` exactly.
fn magnitude(z: C) -> i32 {
    let m = z.re.abs().max(z.im.abs());
    if m.is_finite() && m != 0.0 { exponent(m) } else { 0 }
}

/// The textbook quotient with both operands scaled by powers of two to a larger part in
/// `[1, 2)` (so that no product or `c² + d²` overflows or underflows; the scale comes back in
/// one multiplication), with C99 Annex G's recovery of infinities and zeros.
fn divide(x: C, y: C) -> C {
    let (kx, ky) = (magnitude(x), magnitude(y));
    let (mut a, mut b) = (scale(x.re, -kx), scale(x.im, -kx));
    let (mut c, mut d) = (scale(y.re, -ky), scale(y.im, -ky));
    let m = y.re.abs().max(y.im.abs());
    let denom = c * c + d * d;
    let shift = kx - ky;
    let z = Complex::new(scale((a * c + b * d) / denom, shift), scale((b * c - a * d) / denom, shift));
    if !(z.re.is_nan() && z.im.is_nan()) {
        return z;
    }
    if denom == 0.0 && (!a.is_nan() || !b.is_nan()) {
        let inf = f64::INFINITY.copysign(c);
        Complex::new(inf * a, inf * b)
    } else if (a.is_infinite() || b.is_infinite()) && c.is_finite() && d.is_finite() {
        (a, b) = (boxed(a), boxed(b));
        Complex::new(f64::INFINITY * (a * c + b * d), f64::INFINITY * (b * c - a * d))
    } else if m.is_infinite() && a.is_finite() && b.is_finite() {
        (c, d) = (boxed(c), boxed(d));
        Complex::new(0.0 * (a * c + b * d), 0.0 * (b * c - a * d))
    } else {
        z
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(re: f64, im: f64) -> C {
        Complex::new(re, im)
    }

    fn same(x: C, y: C) -> bool {
        let eq = |p: f64, q: f64| p.to_bits() == q.to_bits() || p.is_nan() && q.is_nan();
        eq(x.re, y.re) && eq(x.im, y.im)
    }

    #[test]
    fn textbook_values() {
        assert!(same(multiply(c(1.0, 2.0), c(3.0, 4.0)), c(-5.0, 10.0)));
        assert!(same(divide(c(-5.0, 10.0), c(3.0, 4.0)), c(1.0, 2.0)));
        // The scaling keeps c² + d² finite: (1e300 + 1e300j) / (1e300 + 1e300j) = 1.
        assert!(same(divide(c(1e300, 1e300), c(1e300, 1e300)), c(1.0, 0.0)));
        assert!(same(divide(c(1e-310, 0.0), c(1e-310, 0.0)), c(1.0, 0.0)));
        assert!(same(divide(c(f64::MAX, f64::MAX), c(f64::MAX, 0.0)), c(1.0, 1.0)));
        assert!(same(divide(c(1e-323, 0.0), c(1e-323, 1e-323)), c(0.5, -0.5)));
    }

    #[test]
    fn annex_g_recoveries() {
        let nan = f64::NAN;
        let inf = f64::INFINITY;
        assert!(same(multiply(c(nan, nan), c(nan, nan)), c(nan, nan)));
        // (inf + NaN j)(1 + 0j) is an infinity in the one-infinity model.
        assert!(multiply(c(inf, nan), c(1.0, 0.0)).re.is_infinite());
        assert!(same(divide(c(1.0, 1.0), c(0.0, 0.0)), c(inf, inf)));
        assert!(same(divide(c(1.0, 1.0), c(inf, 0.0)), c(0.0, 0.0)));
        assert!(divide(c(inf, 0.0), c(1.0, 1.0)).re.is_infinite());
        assert!(same(divide(c(nan, nan), c(nan, nan)), c(nan, nan)));
    }

    #[test]
    fn exponents_and_scaling() {
        assert_eq!(exponent(1.0), 0);
        assert_eq!(exponent(3.0), 1);
        assert_eq!(exponent(f64::MIN_POSITIVE), -1022);
        assert_eq!(exponent(f64::from_bits(1)), -1074);
        assert_eq!(scale(1.0, -1074), f64::from_bits(1));
        assert_eq!(scale(f64::from_bits(1), 2000), 2f64.powi(926));
    }

    #[test]
    fn tensors_of_both_dtypes() {
        let a = Tensor::from_slice(&[Complex::new(1.0f32, 2.0)], &[1]).unwrap();
        let b = Tensor::from_slice(&[Complex::new(3.0f32, 4.0)], &[1]).unwrap();
        let p = binary(BinaryOp::Multiply, &a, &b).unwrap();
        assert_eq!(p.to_vec::<Complex<f32>>().unwrap(), [Complex::new(-5.0, 10.0)]);
        let eq = binary(BinaryOp::Equal, &a, &a).unwrap();
        assert_eq!(eq.to_vec::<bool>().unwrap(), [true]);
        let z = Tensor::from_slice(&[Complex::new(3.0f64, -4.0), Complex::new(-0.0, 0.0)], &[2]).unwrap();
        assert_eq!(unary(UnaryOp::Abs, &z).unwrap().to_vec::<f64>().unwrap(), [5.0, 0.0]);
        let s = unary(UnaryOp::Sign, &z).unwrap().to_vec::<Complex<f64>>().unwrap();
        assert_eq!(s[0], Complex::new(0.6, -0.8));
        assert_eq!(unary(UnaryOp::Isnan, &z).unwrap().to_vec::<bool>().unwrap(), [false, false]);
        assert!(unary(UnaryOp::Floor, &z).is_err());
        // c64 with c128 promotes to c128; f64 with c64 too; an integer with a complex: refused.
        let sum = binary(BinaryOp::Add, &a, &z).unwrap().to_vec::<Complex<f64>>().unwrap();
        assert_eq!(sum, [Complex::new(4.0, -2.0), Complex::new(1.0, 2.0)]);
        let real = Tensor::from_slice(&[0.5f64], &[1]).unwrap();
        let product = binary(BinaryOp::Multiply, &real, &a).unwrap().to_vec::<Complex<f64>>().unwrap();
        assert_eq!(product, [Complex::new(0.5, 1.0)]);
        let int = Tensor::from_slice(&[1i32], &[1]).unwrap();
        assert!(binary(BinaryOp::Add, &int, &a).is_err());
    }

    #[test]
    fn a_real_operand_takes_the_component_table() {
        let bits =
            |t: Tensor| t.to_vec::<Complex<f64>>().unwrap().iter().map(|z| [z.re, z.im]).collect::<Vec<_>>();
        let real = Tensor::from_slice(&[1.0f64, f64::INFINITY], &[2]).unwrap();
        let z = Tensor::from_slice(&[Complex::new(2.0f64, -0.0), Complex::new(f64::NAN, 3.0)], &[2]).unwrap();
        // a + (c + dj) = (a + c) + dj: the -0 stays; (a + bj) * c = ac + (bc)j: NaN stays in its part.
        let sum = bits(binary(BinaryOp::Add, &real, &z).unwrap());
        assert!(sum[0][0] == 3.0 && sum[0][1].to_bits() == (-0.0f64).to_bits(), "{sum:?}");
        let product = bits(binary(BinaryOp::Multiply, &z, &real).unwrap());
        assert!(product[1][0].is_nan() && product[1][1] == f64::INFINITY, "{product:?}");
        let quotient = bits(binary(BinaryOp::Divide, &z, &real).unwrap());
        assert!(quotient[1][0].is_nan() && quotient[1][1] == 0.0, "{quotient:?}");
        // conj, real and imag.
        let conj = bits(unary(UnaryOp::Conj, &z).unwrap());
        assert!(conj[0][1].to_bits() == 0 && conj[1][1] == -3.0, "{conj:?}");
        assert_eq!(unary(UnaryOp::Imag, &z).unwrap().to_vec::<f64>().unwrap(), [-0.0, 3.0]);
        assert_eq!(unary(UnaryOp::Real, &z).unwrap().to_vec::<f64>().unwrap()[0], 2.0);
    }
}
