//! CUDA C++ source for every kernel, generated per operation and dtype.
//!
//! The sources include no header: 16-bit floats are stored as `unsigned short` bits, widened to
//! f32 exactly and rounded back once with round-to-nearest-even (`cvt.rn.f16.f32` for f16, an
//! integer RNE on the bits for bf16), and their fused multiply-add is the native `fma.rn.f16` /
//! `fma.rn.bf16` instruction. So NVRTC alone is enough, without the toolkit's `cuda_fp16.h`.

use opspec_adapter::{BinaryOp, DType, TernaryOp};

/// One kernel: an operation on one dtype. Each is compiled into its own module, once per process.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Kernel {
    /// Element-wise binary operation over strided operands.
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
        for dtype in DType::ALL {
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
            Kernel::Binary(op, dtype) => Ok(elementwise(&name, dtype, 2, &binary_expression(op, dtype)?)),
            Kernel::Ternary(op, dtype) => {
                let mut src = elementwise(&name, dtype, 3, &ternary_expression(op, dtype)?);
                if op == TernaryOp::FusedMulAdd {
                    src.insert_str(0, fma_helper(dtype));
                }
                Ok(src)
            }
            Kernel::ScatterAtomic(dtype) => Ok(scatter_atomic(&name, dtype, &add_bits(dtype)?)),
            Kernel::ScatterOrdered(dtype) => Ok(scatter_ordered(&name, dtype, &add_bits(dtype)?)),
        }
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

/// Conversions between 16-bit float bits and f32. Widening is exact; narrowing rounds to
/// nearest even and keeps subnormals; a NaN stays a (quiet) NaN.
fn conversions(dtype: DType) -> &'static str {
    match dtype {
        DType::F16 => {
            r#"
static __device__ __forceinline__ float f16_to_f32(unsigned short h) {
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
    return f;
}
static __device__ __forceinline__ unsigned short f32_to_f16(float f) {
    unsigned short h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return h;
}
"#
        }
        DType::BF16 => {
            r#"
static __device__ __forceinline__ float bf16_to_f32(unsigned short h) {
    return __uint_as_float((unsigned int)h << 16);
}
static __device__ __forceinline__ unsigned short f32_to_bf16(float f) {
    unsigned int u = __float_as_uint(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) {
        return (unsigned short)((u >> 16) | 0x40u);
    }
    return (unsigned short)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
"#
        }
        _ => "",
    }
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

/// `value` (an f32 or f64) rounded once to `dtype`.
fn narrow(dtype: DType, value: &str) -> String {
    match dtype {
        DType::F16 => format!("f32_to_f16({value})"),
        DType::BF16 => format!("f32_to_bf16({value})"),
        _ => value.to_string(),
    }
}

/// Correctly rounded f32/f64 arithmetic: the `_rn` intrinsics are never contracted into an FMA.
/// `name` is `add`, `sub`, `mul` or `div`.
fn float_arith(dtype: DType, name: &str, a: &str, b: &str) -> String {
    let width = if dtype == DType::F64 { 'd' } else { 'f' };
    format!("__{width}{name}_rn({a}, {b})")
}

/// The C expression of `op(x0, x1)`, or why the pair is not implemented.
fn binary_expression(op: BinaryOp, dtype: DType) -> Result<String, String> {
    if dtype == DType::Bool {
        return Err("bool arithmetic is not implemented".into());
    }
    if !dtype.is_float() {
        let (ty, wide) = (c_type(dtype), wrapping_type(dtype));
        return match op {
            BinaryOp::Add => Ok(format!("({ty})(({wide})x0 + ({wide})x1)")),
            BinaryOp::Subtract => Ok(format!("({ty})(({wide})x0 - ({wide})x1)")),
            BinaryOp::Multiply => Ok(format!("({ty})(({wide})x0 * ({wide})x1)")),
            BinaryOp::Maximum => Ok("(x0 > x1 ? x0 : x1)".into()),
            BinaryOp::Minimum => Ok("(x0 < x1 ? x0 : x1)".into()),
            _ => Err(format!("{op} is not implemented for integer dtypes")),
        };
    }
    let (a, b) = (widen(dtype, "x0"), widen(dtype, "x1"));
    let f64 = dtype == DType::F64;
    let value = match op {
        BinaryOp::Add => float_arith(dtype, "add", &a, &b),
        BinaryOp::Subtract => float_arith(dtype, "sub", &a, &b),
        BinaryOp::Multiply => float_arith(dtype, "mul", &a, &b),
        BinaryOp::Divide => float_arith(dtype, "div", &a, &b),
        BinaryOp::Pow => format!("{}({a}, {b})", if f64 { "pow" } else { "powf" }),
        BinaryOp::Atan2 => format!("{}({a}, {b})", if f64 { "atan2" } else { "atan2f" }),
        // NaN propagates; otherwise one operand is returned unchanged (for ±0 either one).
        BinaryOp::Maximum => {
            return Ok(format!("(isnan({a}) ? x0 : isnan({b}) ? x1 : {a} > {b} ? x0 : x1)"));
        }
        BinaryOp::Minimum => {
            return Ok(format!("(isnan({a}) ? x0 : isnan({b}) ? x1 : {a} < {b} ? x0 : x1)"));
        }
        _ => return Err(format!("{op} is not implemented")),
    };
    Ok(narrow(dtype, &value))
}

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

/// An element-wise kernel over `arity` strided inputs.
///
/// `meta` holds the output shape (`rank` extents), then each input's strides (`rank` each, in
/// elements, possibly 0 or negative), then each input's offset. The output is contiguous.
fn elementwise(name: &str, dtype: DType, arity: usize, expression: &str) -> String {
    let ty = c_type(dtype);
    let inputs: String = (0..arity).map(|k| format!(", const T* p{k}")).collect();
    let offsets: String = (0..arity)
        .map(|k| format!("        long long o{k} = meta[{}LL * rank + {k}];\n", arity + 1))
        .collect();
    let steps: String =
        (0..arity).map(|k| format!("            o{k} += idx * meta[{}LL * rank + d];\n", k + 1)).collect();
    let loads: String = (0..arity).map(|k| format!("        T x{k} = p{k}[o{k}];\n")).collect();
    format!(
        r#"typedef {ty} T;
{conversions}
extern "C" __global__ void {name}(T* out{inputs}, const long long* meta, int rank, long long n) {{
    {GRID_STRIDE} {{
{offsets}        long long rem = i;
        for (int d = rank - 1; d >= 0; --d) {{
            long long idx = rem;
            if (d > 0) {{
                idx = rem % meta[d];
                rem /= meta[d];
            }}
{steps}        }}
{loads}        out[i] = {expression};
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
