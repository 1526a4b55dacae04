//! CUDA C++ source for every kernel, generated per operation and dtype.
//!
//! The sources include no header: 16-bit floats are stored as `unsigned short` bits, widened to
//! f32 exactly and rounded back once with round-to-nearest-even (`cvt.rn.f16.f32` for f16, an
//! integer RNE on the bits for bf16), and their fused multiply-add is the native `fma.rn.f16` /
//! `fma.rn.bf16` instruction. So NVRTC alone is enough, without the toolkit's `cuda_fp16.h`.
//! A result computed in f64 reaches a 16-bit type through f32 rounded to odd, which makes the
//! second rounding (to nearest even) equal to one direct rounding (f32 has more than p + 2 bits).

use opspec_adapter::{BinaryOp, DType, TernaryOp};

/// One kernel: an operation on one dtype. Each is compiled into its own module, once per process.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Kernel {
    /// Element-wise binary operation over strided operands of one dtype.
    Binary(BinaryOp, DType),
    /// Element-wise ternary (fused) operation over strided operands.
    Ternary(TernaryOp, DType),
    /// Scatter-add with one thread per update element and compare-and-swap adds.
    ScatterAtomic(DType),
    /// Scatter-add with one thread per destination element, adding its updates in index order.
    ScatterOrdered(DType),
}

impl Kernel {
    /// Every kernel the adapter may compile (supported or not on a given device).
    #[cfg(test)]
    pub(crate) fn all() -> Vec<Kernel> {
        let mut all = Vec::new();
        // No complex kernels: opspec-cuda answers complex dtypes unsupported.
        for dtype in DType::ALL.into_iter().filter(|d| !d.is_complex()) {
            all.extend(BinaryOp::ALL.map(|op| Kernel::Binary(op, dtype)));
            all.extend(TernaryOp::ALL.map(|op| Kernel::Ternary(op, dtype)));
            all.push(Kernel::ScatterAtomic(dtype));
            all.push(Kernel::ScatterOrdered(dtype));
        }
        all
    }

    /// The entry point's name, e.g. `add_f32` or `scatter_atomic_bf16`.
    pub(crate) fn name(self) -> String {
        match self {
            Kernel::Binary(op, dtype) => format!("{op}_{dtype}"),
            Kernel::Ternary(op, dtype) => format!("{op}_{dtype}"),
            Kernel::ScatterAtomic(dtype) => format!("scatter_atomic_{dtype}"),
            Kernel::ScatterOrdered(dtype) => format!("scatter_ordered_{dtype}"),
        }
    }

    /// The dtype of the kernel's output elements.
    pub(crate) fn output(self) -> DType {
        match self {
            Kernel::Binary(op, dtype) => binary_output(op, dtype),
            Kernel::Ternary(_, dtype) | Kernel::ScatterAtomic(dtype) | Kernel::ScatterOrdered(dtype) => dtype,
        }
    }

    /// `Ok` when the kernel is implemented for a device of compute capability `cc`.
    pub(crate) fn support(self, cc: (i32, i32)) -> Result<(), String> {
        if self == Kernel::Ternary(TernaryOp::FusedMulAdd, DType::BF16) && cc < (8, 0) {
            return Err("bf16 fused_mul_add needs fma.rn.bf16 (compute capability 8.0)".into());
        }
        self.source().map(drop)
    }

    /// The CUDA C++ source, or why the kernel is not implemented.
    pub(crate) fn source(self) -> Result<String, String> {
        let name = self.name();
        match self {
            Kernel::Binary(op, dtype) => {
                let (helpers, body) = binary_body(op, dtype)?;
                Ok(elementwise(&name, dtype, self.output(), 2, &helpers, &body))
            }
            Kernel::Ternary(op, dtype) => {
                let expression = ternary_expression(op, dtype)?;
                let helpers = if op == TernaryOp::FusedMulAdd { fma_helper(dtype) } else { "" };
                Ok(elementwise(&name, dtype, dtype, 3, helpers, &format!("return {expression};")))
            }
            Kernel::ScatterAtomic(dtype) => Ok(scatter_atomic(&name, dtype, &add_bits(dtype)?)),
            Kernel::ScatterOrdered(dtype) => Ok(scatter_ordered(&name, dtype, &add_bits(dtype)?)),
        }
    }
}

/// The dtype of `op`'s result on operands of `dtype`: `bool` for the comparisons, `f32` for
/// integer true division (as the CPU adapter), `dtype` otherwise.
pub(crate) fn binary_output(op: BinaryOp, dtype: DType) -> DType {
    if op.is_comparison() {
        DType::Bool
    } else if op == BinaryOp::Divide && !dtype.is_float() {
        DType::F32
    } else {
        dtype
    }
}

/// The C type that stores one element.
fn c_type(dtype: DType) -> &'static str {
    match dtype {
        DType::F16 | DType::BF16 | DType::U16 => "unsigned short",
        DType::F32 => "float",
        DType::F64 => "double",
        DType::I8 => "signed char",
        DType::I16 => "short",
        DType::I32 => "int",
        DType::I64 => "long long",
        DType::U8 | DType::Bool => "unsigned char",
        DType::U32 => "unsigned int",
        DType::U64 => "unsigned long long",
        // A dtype without kernels of its own is stored as its bits.
        _ => bits_type(dtype),
    }
}

/// The unsigned C type of an element's bits.
fn bits_type(dtype: DType) -> &'static str {
    match dtype.size() {
        1 => "unsigned char",
        2 => "unsigned short",
        4 => "unsigned int",
        _ => "unsigned long long",
    }
}

/// Unsigned type in which integer arithmetic wraps (no signed overflow, no promotion to `int`).
fn wrapping_type(dtype: DType) -> &'static str {
    if dtype.size() == 8 { "unsigned long long" } else { "unsigned int" }
}

fn is_signed(dtype: DType) -> bool {
    matches!(dtype, DType::I8 | DType::I16 | DType::I32 | DType::I64)
}

/// Conversions between 16-bit float bits and f32 (widening is exact; narrowing rounds to
/// nearest even and keeps subnormals; a NaN stays a quiet NaN), and from f64 through f32
/// rounded to odd.
fn conversions(dtype: DType) -> String {
    let (name, widen, narrow) = match dtype {
        DType::F16 => (
            "f16",
            "float f;\n    asm(\"cvt.f32.f16 %0, %1;\" : \"=f\"(f) : \"h\"(h));\n    return f;",
            "unsigned short h;\n    asm(\"cvt.rn.f16.f32 %0, %1;\" : \"=h\"(h) : \"f\"(f));\n    return h;",
        ),
        DType::BF16 => (
            "bf16",
            "return __uint_as_float((unsigned int)h << 16);",
            "unsigned int u = __float_as_uint(f);\n    \
             if ((u & 0x7fffffffu) > 0x7f800000u) {\n        return (unsigned short)((u >> 16) | 0x40u);\n    }\n    \
             return (unsigned short)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);",
        ),
        _ => return String::new(),
    };
    format!(
        r#"
static __device__ __forceinline__ float {name}_to_f32(unsigned short h) {{
    {widen}
}}
static __device__ __forceinline__ unsigned short f32_to_{name}(float f) {{
    {narrow}
}}
static __device__ __forceinline__ unsigned short f64_to_{name}(double x) {{
    float r = __double2float_rz(x);
    if (!isnan(x) && (double)r != x) {{
        r = __uint_as_float(__float_as_uint(r) | 1u);
    }}
    return f32_to_{name}(r);
}}
"#
    )
}

/// The single-rounding 16-bit fused multiply-add instructions.
fn fma_helper(dtype: DType) -> &'static str {
    match dtype {
        DType::F16 => {
            r#"
static __device__ __forceinline__ unsigned short fma_f16(unsigned short a, unsigned short b, unsigned short c) {
    unsigned short d;
    asm("fma.rn.f16 %0, %1, %2, %3;" : "=h"(d) : "h"(a), "h"(b), "h"(c));
    return d;
}
"#
        }
        DType::BF16 => {
            r#"
static __device__ __forceinline__ unsigned short fma_bf16(unsigned short a, unsigned short b, unsigned short c) {
    unsigned short d;
    asm("fma.rn.bf16 %0, %1, %2, %3;" : "=h"(d) : "h"(a), "h"(b), "h"(c));
    return d;
}
"#
        }
        _ => "",
    }
}

/// `value` (an element of `dtype`) as the f32 or f64 that float arithmetic works in.
fn widen(dtype: DType, value: &str) -> String {
    match dtype {
        DType::F16 => format!("f16_to_f32({value})"),
        DType::BF16 => format!("bf16_to_f32({value})"),
        _ => value.to_string(),
    }
}

/// `value` (an f32 or f64 in the working type) rounded once to `dtype`.
fn narrow(dtype: DType, value: &str) -> String {
    match dtype {
        DType::F16 => format!("f32_to_f16({value})"),
        DType::BF16 => format!("f32_to_bf16({value})"),
        _ => value.to_string(),
    }
}

/// `value` (an f64) rounded once to `dtype`.
fn narrow_f64(dtype: DType, value: &str) -> String {
    match dtype {
        DType::F16 => format!("f64_to_f16({value})"),
        DType::BF16 => format!("f64_to_bf16({value})"),
        DType::F32 => format!("__double2float_rn({value})"),
        _ => value.to_string(),
    }
}

/// Correctly rounded f32/f64 arithmetic: the `_rn` intrinsics are never contracted into an FMA.
/// `name` is `add`, `sub`, `mul` or `div`.
fn float_arith(dtype: DType, name: &str, a: &str, b: &str) -> String {
    let width = if dtype == DType::F64 { 'd' } else { 'f' };
    format!("__{width}{name}_rn({a}, {b})")
}

/// The C comparison operator of a comparison.
fn comparison(op: BinaryOp) -> Option<&'static str> {
    Some(match op {
        BinaryOp::Equal => "==",
        BinaryOp::NotEqual => "!=",
        BinaryOp::Greater => ">",
        BinaryOp::GreaterEqual => ">=",
        BinaryOp::Less => "<",
        BinaryOp::LessEqual => "<=",
        _ => return None,
    })
}

/// The helper definitions and the body of `O op(T x0, T x1)`, or why the pair is not
/// implemented.
fn binary_body(op: BinaryOp, dtype: DType) -> Result<(String, String), String> {
    match dtype {
        DType::Bool => Err("bool arithmetic is not implemented".into()),
        _ if dtype.is_float() => float_body(op, dtype),
        _ => integer_body(op, dtype).map(|body| (String::new(), body)),
    }
}

/// Integer operations: wrapping arithmetic, Python's floor division and remainder, and the
/// CPU adapter's choices where the contracts leave results open (`x // 0` and `x % 0` give 0,
/// a negative exponent gives the truncated `1 / x^n`); true division computes in f32.
fn integer_body(op: BinaryOp, dtype: DType) -> Result<String, String> {
    let (ty, wide, signed) = (c_type(dtype), wrapping_type(dtype), is_signed(dtype));
    if let Some(c) = comparison(op) {
        return Ok(format!("return (O)(x0 {c} x1);"));
    }
    Ok(match op {
        BinaryOp::Add => format!("return ({ty})(({wide})x0 + ({wide})x1);"),
        BinaryOp::Subtract => format!("return ({ty})(({wide})x0 - ({wide})x1);"),
        BinaryOp::Multiply => format!("return ({ty})(({wide})x0 * ({wide})x1);"),
        BinaryOp::Maximum => "return x0 > x1 ? x0 : x1;".into(),
        BinaryOp::Minimum => "return x0 < x1 ? x0 : x1;".into(),
        // Through f64 as the CPU adapter converts (exact up to 32 bits).
        BinaryOp::Divide => "return __fdiv_rn((float)(double)x0, (float)(double)x1);".into(),
        BinaryOp::FloorDivide if signed => format!(
            "if (x1 == 0) return 0;\n    \
             if (x1 == -1) return ({ty})(({wide})0 - ({wide})x0);\n    \
             {ty} q = ({ty})(x0 / x1);\n    \
             if (({ty})(x0 % x1) != 0 && ((x0 < 0) != (x1 < 0))) q = ({ty})(q - 1);\n    \
             return q;"
        ),
        BinaryOp::FloorDivide => format!("return x1 == 0 ? ({ty})0 : ({ty})(x0 / x1);"),
        BinaryOp::Remainder if signed => format!(
            "if (x1 == 0 || x1 == -1) return 0;\n    \
             {ty} r = ({ty})(x0 % x1);\n    \
             if (r != 0 && ((r < 0) != (x1 < 0))) r = ({ty})(r + x1);\n    \
             return r;"
        ),
        BinaryOp::Remainder => format!("return x1 == 0 ? ({ty})0 : ({ty})(x0 % x1);"),
        BinaryOp::Pow => {
            let negative = if signed {
                format!(
                    "if (x1 < 0) return x0 == 1 ? ({ty})1 : x0 == -1 ? ((x1 & 1) ? x0 : ({ty})1) : ({ty})0;\n    "
                )
            } else {
                String::new()
            };
            format!(
                "{negative}{wide} base = ({wide})x0, acc = 1;\n    \
                 for (unsigned long long e = (unsigned long long)x1; e != 0; e >>= 1) {{\n        \
                 if (e & 1) acc *= base;\n        base *= base;\n    }}\n    \
                 return ({ty})acc;"
            )
        }
        _ => return Err(format!("{op} is not implemented for integer dtypes")),
    })
}

/// Float operations. `+ - × ÷` are correctly rounded (in f32 for the 16-bit types, then one
/// rounding); pow, atan2 and hypot are libdevice's f64 functions (for f16, bf16 and f32 on the
/// widened operands, then one rounding); logaddexp computes in double-double for every type;
/// floor division, remainder, copysign and nextafter follow the CPU adapter's algorithms.
fn float_body(op: BinaryOp, dtype: DType) -> Result<(String, String), String> {
    let f64 = dtype == DType::F64;
    let work = if f64 { "double" } else { "float" };
    let head = format!("{work} a = {}, b = {};\n    ", widen(dtype, "x0"), widen(dtype, "x1"));
    let (sign, magnitude) = sign_masks(dtype);
    let mut helpers = bit_helpers(dtype);
    let body = if let Some(c) = comparison(op) {
        format!("return (O)(a {c} b);")
    } else {
        match op {
            BinaryOp::Add => format!("return {};", narrow(dtype, &float_arith(dtype, "add", "a", "b"))),
            BinaryOp::Subtract => format!("return {};", narrow(dtype, &float_arith(dtype, "sub", "a", "b"))),
            BinaryOp::Multiply => format!("return {};", narrow(dtype, &float_arith(dtype, "mul", "a", "b"))),
            BinaryOp::Divide => format!("return {};", narrow(dtype, &float_arith(dtype, "div", "a", "b"))),
            BinaryOp::Pow | BinaryOp::Atan2 | BinaryOp::Hypot => {
                format!("return {};", narrow_f64(dtype, &format!("{op}((double)a, (double)b)")))
            }
            BinaryOp::Logaddexp => {
                helpers.push_str(DOUBLE_DOUBLE);
                format!("return {};", narrow_f64(dtype, "logaddexp_dd((double)a, (double)b)"))
            }
            // NaN propagates; otherwise one operand is returned unchanged (for ±0 either one).
            BinaryOp::Maximum => "return isnan(a) ? x0 : isnan(b) ? x1 : a > b ? x0 : x1;".into(),
            BinaryOp::Minimum => "return isnan(a) ? x0 : isnan(b) ? x1 : a < b ? x0 : x1;".into(),
            BinaryOp::Copysign => {
                format!("return from_bits((U)((to_bits(x0) & {magnitude}) | (to_bits(x1) & {sign})));")
            }
            BinaryOp::Nextafter => format!(
                "if (isnan(a) || isnan(b)) return isnan(a) ? x0 : x1;\n    \
                 if (a == b) return x1;\n    \
                 U ux = to_bits(x0);\n    \
                 if ((ux & {magnitude}) == 0) return from_bits((U)(1 | (to_bits(x1) & {sign})));\n    \
                 bool beyond = (ux & {sign}) ? (b < a) : (a < b);\n    \
                 return from_bits((U)(beyond ? ux + 1 : ux - 1));"
            ),
            BinaryOp::FloorDivide => {
                helpers.push_str(&floor_divide(work));
                if dtype.is_float() && dtype.size() == 2 {
                    // Rounded down, not to nearest, to the 16-bit type.
                    format!(
                        "float wide = floor_divide(a, b);\n    \
                         T near = {};\n    \
                         float back = {};\n    \
                         if (isfinite(back) && back > wide) near = (T)(wide > 0 ? near - 1 : near + 1);\n    \
                         return near;",
                        narrow(dtype, "wide"),
                        widen(dtype, "near")
                    )
                } else {
                    "return floor_divide(a, b);".into()
                }
            }
            BinaryOp::Remainder => {
                helpers.push_str(&python_remainder(work));
                format!("return {};", narrow(dtype, "python_remainder(a, b)"))
            }
            _ => return Err(format!("{op} is not implemented")),
        }
    };
    Ok((helpers, head + &body))
}

/// The sign bit and the magnitude mask of a float dtype, as C literals.
fn sign_masks(dtype: DType) -> (String, String) {
    let bits = 8 * dtype.size() as u32;
    let sign = 1u64 << (bits - 1);
    (format!("{sign:#x}ULL"), format!("{:#x}ULL", sign - 1))
}

/// `U`, the bits type of a float dtype, with `to_bits` and `from_bits`.
fn bit_helpers(dtype: DType) -> String {
    let (to, from) = match dtype {
        DType::F32 => ("__float_as_uint(x)", "__uint_as_float(u)"),
        DType::F64 => ("(U)__double_as_longlong(x)", "__longlong_as_double((long long)u)"),
        _ => ("x", "u"),
    };
    format!(
        "typedef {} U;\nstatic __device__ __forceinline__ U to_bits(T x) {{ return {to}; }}\n\
         static __device__ __forceinline__ T from_bits(U u) {{ return {from}; }}\n",
        bits_type(dtype)
    )
}

/// `floor(x / y)` per the array API (the CPU adapter's algorithm): the floor of the rounded
/// quotient, stepped down when the residual `x - r·y` (one rounding, by fma) shows that `r`
/// overshoots the exact quotient.
fn floor_divide(work: &str) -> String {
    let (f, bits, int) = if work == "double" {
        ("", "__double_as_longlong", "__longlong_as_double")
    } else {
        ("f", "__float_as_uint", "__uint_as_float")
    };
    let suffix = if work == "double" { 'd' } else { 'f' };
    format!(
        r#"
static __device__ {work} floor_divide({work} x, {work} y) {{
    {work} q = __{suffix}div_rn(x, y);
    if (isnan(q) || isinf(q) || (q == 0 && (x == 0 || isinf(y)))) return q;
    {work} r = floor{f}(q);
    {work} residual = __fma{f}_rn(-r, y, x);
    if (residual != 0 && ((signbit(residual) != 0) != (signbit(y) != 0))) {{
        {work} down = __{suffix}add_rn(r, -1);
        r = down != r ? down : r > 0 ? {int}({bits}(r) - 1) : {int}({bits}(r) + 1);
    }}
    return r == 0 ? ({work})0 : r;
}}
"#
    )
}

/// Python's `x % y` (the CPU adapter's algorithm): `fmod`, then one addition of `y` when the
/// signs differ; a zero takes `y`'s sign.
fn python_remainder(work: &str) -> String {
    let (f, suffix) = if work == "double" { ("", 'd') } else { ("f", 'f') };
    format!(
        r#"
static __device__ {work} python_remainder({work} x, {work} y) {{
    {work} m = fmod{f}(x, y);
    if (isnan(m)) return m;
    if (m == 0) return signbit(y) ? -({work})0 : ({work})0;
    if ((signbit(m) != 0) != (signbit(y) != 0)) m = __{suffix}add_rn(m, y);
    return m;
}}
"#
    )
}

/// Double-double (about 106 bits) `logaddexp`, the CPU adapter's algorithm: the usual
/// `hi + log1p(exp(lo - hi))` loses every correct digit next to a zero result in f64.
const DOUBLE_DOUBLE: &str = r#"
struct dd { double hi, lo; };
static __device__ dd two_sum(double a, double b) {
    double s = a + b, bb = s - a;
    return {s, (a - (s - bb)) + (b - bb)};
}
static __device__ dd two_prod(double a, double b) {
    double p = a * b;
    return {p, __fma_rn(a, b, -p)};
}
static __device__ dd dd_add(dd a, dd b) {
    dd s = two_sum(a.hi, b.hi), t = two_sum(a.lo, b.lo);
    dd u = two_sum(s.hi, s.lo + t.hi);
    return two_sum(u.hi, u.lo + t.lo);
}
static __device__ dd dd_mul(dd a, dd b) {
    dd p = two_prod(a.hi, b.hi);
    return two_sum(p.hi, p.lo + (a.hi * b.lo + a.lo * b.hi));
}
static __device__ dd dd_div(dd a, double d) {
    double q = a.hi / d;
    dd p = two_prod(q, d);
    dd r = dd_add(a, {-p.hi, -p.lo});
    return two_sum(q, r.hi / d);
}
static __device__ dd dd_scale(dd a, double k) { return {a.hi * k, a.lo * k}; }
// ln 2 as a double-double.
#define LN2_HI 0.6931471805599453
#define LN2_LO 2.3190468138462996e-17
// exp(t) - 1 by its Taylor series, for |t| <= ln 2 / 2.
static __device__ dd expm1_reduced(dd t) {
    dd term = t, sum = t;
    for (int k = 2; k <= 30; ++k) {
        term = dd_div(dd_mul(term, t), (double)k);
        sum = dd_add(sum, term);
        if (fabs(term.hi) <= fabs(sum.hi) * 1e-34) break;
    }
    return sum;
}
// exp(x) for finite x in [-745, 710]: x = k ln 2 + t, exp(x) = 2^k (1 + expm1(t)).
static __device__ dd dd_exp(dd x) {
    double k = round(x.hi / LN2_HI);
    dd t = dd_add(x, dd_mul({LN2_HI, LN2_LO}, {-k, 0.0}));
    dd e = dd_add({1.0, 0.0}, expm1_reduced(t));
    double half = trunc(k / 2.0);
    return dd_scale(dd_scale(e, ldexp(1.0, (int)half)), ldexp(1.0, (int)(k - half)));
}
static __device__ dd dd_expm1(dd x) {
    return fabs(x.hi) <= LN2_HI / 2.0 ? expm1_reduced(x) : dd_add(dd_exp(x), {-1.0, 0.0});
}
// log1p(v) for v in (0, 1]: one Newton step on expm1 from the f64 value.
static __device__ dd dd_log1p(dd v) {
    dd y = {log1p(v.hi), 0.0};
    dd residual = dd_add(dd_expm1(y), {-v.hi, -v.lo});
    return dd_add(y, dd_div(residual, -(1.0 + v.hi)));
}
static __device__ double logaddexp_dd(double x, double y) {
    if (isnan(x) || isnan(y)) return x + y;
    double hi = x >= y ? x : y, lo = x >= y ? y : x;
    // +inf wins; two -infs stay -inf; -inf with a finite value leaves that value.
    if (isinf(hi) || isinf(lo)) return hi;
    dd gap = two_sum(lo, -hi);
    if (gap.hi < -745.0) return hi;
    dd l = dd_log1p(dd_exp(gap));
    dd s = two_sum(hi, l.hi);
    return s.hi + (s.lo + l.lo);
}
"#;

/// The C expression of `op(x0, x1, x2)`, or why the pair is not implemented.
fn ternary_expression(op: TernaryOp, dtype: DType) -> Result<String, String> {
    if dtype == DType::Bool {
        return Err("bool arithmetic is not implemented".into());
    }
    if !dtype.is_float() {
        let (ty, wide) = (c_type(dtype), wrapping_type(dtype));
        return match op {
            TernaryOp::FusedMulAdd => Ok(format!("({ty})(({wide})x0 * ({wide})x1 + ({wide})x2)")),
            TernaryOp::FusedAddMul => Ok(format!("({ty})((({wide})x0 + ({wide})x1) * ({wide})x2)")),
            _ => Err(format!("{op} is not implemented")),
        };
    }
    match op {
        // One rounding.
        TernaryOp::FusedMulAdd => Ok(match dtype {
            DType::F16 => "fma_f16(x0, x1, x2)".into(),
            DType::BF16 => "fma_bf16(x0, x1, x2)".into(),
            DType::F32 => "__fmaf_rn(x0, x1, x2)".into(),
            _ => "__fma_rn(x0, x1, x2)".into(),
        }),
        // Two roundings: the sum is rounded to the dtype before the product.
        TernaryOp::FusedAddMul => {
            let sum = narrow(dtype, &float_arith(dtype, "add", &widen(dtype, "x0"), &widen(dtype, "x1")));
            let product = float_arith(dtype, "mul", &widen(dtype, &sum), &widen(dtype, "x2"));
            Ok(narrow(dtype, &product))
        }
        _ => Err(format!("{op} is not implemented")),
    }
}

/// The C expression adding the elements whose bits are `a` and `b`, as bits.
fn add_bits(dtype: DType) -> Result<String, String> {
    Ok(match dtype {
        DType::Bool => return Err("scatter_add is not implemented for bool".into()),
        DType::F16 => "f32_to_f16(__fadd_rn(f16_to_f32(a), f16_to_f32(b)))".into(),
        DType::BF16 => "f32_to_bf16(__fadd_rn(bf16_to_f32(a), bf16_to_f32(b)))".into(),
        DType::F32 => "__float_as_uint(__fadd_rn(__uint_as_float(a), __uint_as_float(b)))".into(),
        DType::F64 => "(unsigned long long)__double_as_longlong(__dadd_rn(\
                       __longlong_as_double((long long)a), __longlong_as_double((long long)b)))"
            .into(),
        // Integers wrap: the sum of the unsigned bits is the two's complement sum.
        _ => format!("({})(a + b)", bits_type(dtype)),
    })
}

/// The grid-stride loop every kernel runs: `i` from 0 to `n` over all threads.
const GRID_STRIDE: &str = "for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; \
                           i += (long long)gridDim.x * blockDim.x)";

/// An element-wise kernel over `arity` strided inputs of `dtype`, writing `output` elements:
/// `helpers` (C definitions) and `body`, the body of `O op(T x0, ...)`.
///
/// `meta` holds the output shape (`rank` extents), then each input's strides (`rank` each, in
/// elements, possibly 0 or negative), then each input's offset. The output is contiguous.
/// Dense operands (rank 1, every stride 1) take a loop without index arithmetic. The output
/// never overlaps an input (it is a buffer of its own), hence `__restrict__`.
fn elementwise(name: &str, dtype: DType, output: DType, arity: usize, helpers: &str, body: &str) -> String {
    let (ty, out_ty) = (c_type(dtype), c_type(output));
    let params: String = (0..arity).map(|k| format!("{}T x{k}", if k > 0 { ", " } else { "" })).collect();
    let inputs: String = (0..arity).map(|k| format!(", const T* __restrict__ p{k}")).collect();
    let dense_test: String = (0..arity).map(|k| format!(" && meta[{}] == 1", k + 1)).collect();
    let dense_starts: String = (0..arity)
        .map(|k| format!("        const T* __restrict__ q{k} = p{k} + meta[{}];\n", arity + 1 + k))
        .collect();
    let dense_args: String =
        (0..arity).map(|k| format!("{}q{k}[i]", if k > 0 { ", " } else { "" })).collect();
    let offsets: String = (0..arity)
        .map(|k| format!("        long long o{k} = meta[{}LL * rank + {k}];\n", arity + 1))
        .collect();
    let steps: String =
        (0..arity).map(|k| format!("            o{k} += idx * meta[{}LL * rank + d];\n", k + 1)).collect();
    let args: String = (0..arity).map(|k| format!("{}p{k}[o{k}]", if k > 0 { ", " } else { "" })).collect();
    format!(
        r#"typedef {ty} T;
typedef {out_ty} O;
{conversions}{helpers}
static __device__ __forceinline__ O op({params}) {{
    {body}
}}
extern "C" __global__ void {name}(O* __restrict__ out{inputs}, const long long* meta, int rank, long long n) {{
    if (rank == 1{dense_test}) {{
{dense_starts}        {GRID_STRIDE} {{
            out[i] = op({dense_args});
        }}
        return;
    }}
    {GRID_STRIDE} {{
{offsets}        long long rem = i;
        for (int d = rank - 1; d >= 0; --d) {{
            long long idx = rem;
            if (d > 0) {{
                idx = rem % meta[d];
                rem /= meta[d];
            }}
{steps}        }}
        out[i] = op({args});
    }}
}}
"#,
        conversions = conversions(dtype),
    )
}

/// Definitions shared by both scatter kernels: the bits type `B` and `add`.
fn scatter_prelude(dtype: DType, add: &str) -> String {
    format!(
        "typedef {} B;\n{}\nstatic __device__ __forceinline__ B add(B a, B b) {{ return {add}; }}\n",
        bits_type(dtype),
        conversions(dtype)
    )
}

/// Scatter-add by compare-and-swap: `out[dest[u / slice] * slice + u % slice] += upd[u]` for
/// every update element `u` whose index vector was not skipped (`dest < 0`). 1- and 2-byte
/// elements are swapped inside their aligned 32-bit word (the output buffer is padded to 4 bytes).
fn scatter_atomic(name: &str, dtype: DType, add: &str) -> String {
    let atomic_add = if dtype.size() >= 4 {
        r#"
static __device__ void atomic_add(B* p, B v) {
    B old = *p, assumed;
    do {
        assumed = old;
        old = atomicCAS(p, assumed, add(assumed, v));
    } while (old != assumed);
}
"#
    } else {
        r#"
static __device__ void atomic_add(B* p, B v) {
    unsigned long long address = (unsigned long long)p;
    unsigned int* word = (unsigned int*)(address & ~3ULL);
    unsigned int shift = (unsigned int)(address & 3ULL) * 8u;
    unsigned int mask = ((1u << (8u * sizeof(B))) - 1u) << shift;
    unsigned int old = *word, assumed;
    do {
        assumed = old;
        unsigned int sum = add((B)(assumed >> shift), v);
        old = atomicCAS(word, assumed, (assumed & ~mask) | (sum << shift));
    } while (old != assumed);
}
"#
    };
    format!(
        r#"{prelude}{atomic_add}
extern "C" __global__ void {name}(B* out, const B* upd, const long long* dest, long long slice, long long n) {{
    {GRID_STRIDE} {{
        long long d = dest[i / slice];
        if (d >= 0) {{
            atomic_add(out + d * slice + i % slice, upd[i]);
        }}
    }}
}}
"#,
        prelude = scatter_prelude(dtype, add),
    )
}

/// Deterministic scatter-add: `plan` lists, for `groups` distinct destinations, the target
/// slice (`groups` entries), the start of its rows (`groups + 1` entries) and the update rows in
/// index order. One thread per destination element adds its rows left to right, so the result
/// is the sequential sum, with the same bits on every run.
fn scatter_ordered(name: &str, dtype: DType, add: &str) -> String {
    format!(
        r#"{prelude}
extern "C" __global__ void {name}(B* out, const B* upd, const long long* plan, long long groups, long long slice, long long n) {{
    const long long* target = plan;
    const long long* start = plan + groups;
    const long long* rows = plan + 2 * groups + 1;
    {GRID_STRIDE} {{
        long long g = i / slice, s = i % slice;
        B* dst = out + target[g] * slice + s;
        B acc = *dst;
        for (long long r = start[g]; r < start[g + 1]; ++r) {{
            acc = add(acc, upd[rows[r] * slice + s]);
        }}
        *dst = acc;
    }}
}}
"#,
        prelude = scatter_prelude(dtype, add),
    )
}
