//! opspec's CUDA adapter: element-wise, fused and scatter-add kernels written as CUDA C++,
//! compiled by NVRTC at run time and launched through [`cudarc`]. What it needs at run time
//! (the driver, NVRTC and where it is looked for) and how to test it, with or without a GPU:
//! `adapters/cuda/README.md`.
//!
//! [`CudaAdapter::new`] probes once per process (driver library, NVRTC, a device, then one
//! empty kernel compiled and loaded) and returns the adapter or the [`Unavailable`] reason; it
//! never panics (each library is checked before cudarc, which panics on a missing one, loads
//! it). The bindings are cudarc's `cuda-13000` feature: `cuda-12080` would not look for
//! `libnvrtc.so.13`, and bindings for a later 13.x may use entry points driver 580 lacks.
//!
//! # What it implements
//!
//! Everything the CPU adapter (`opspec-cpu`) implements, on the device: every element-wise
//! binary operation (the six comparisons give `bool`), the Python-scalar forms, `binary_into`
//! where the result has the operands' dtype, both fused operations and scatter-add. Host-side
//! rules are the CPU adapter's own, so both adapters answer alike: dtype promotion and Python
//! scalars (`opspec_cpu::promote`: mixed operands are converted on the host, then one kernel
//! runs in the common dtype), and the named-axis rules (the CPU adapter's [`ShapeChecker`],
//! whose alignment becomes the kernel's strides: operands are read in place, permuted and
//! unsqueezed, never copied). Nothing is implemented for `bool` operands.
//!
//! # Numerics
//!
//! NVRTC runs with `--fmad=false --ftz=false --prec-div=true --prec-sqrt=true` (no fast math),
//! for the device's own `sm_XY`. Each kernel (operation x dtype) is compiled once per process.
//!
//! - f32/f64 `add`, `subtract`, `multiply`, `divide`: the `__fadd_rn`/`__dadd_rn`-family
//!   intrinsics, IEEE round-to-nearest-even with subnormals, never contracted.
//! - f16/bf16: computed in f32 and rounded once to the 16-bit type (RNE: `cvt.rn.f16.f32`, and
//!   an integer RNE on the bits for bf16). For `+ - × ÷` and the remainder's one addition f32
//!   has at least 2p+2 bits, so this equals the correctly rounded 16-bit result.
//! - `pow`, `atan2`, `hypot`: libdevice's f64 functions (`__nv_pow`, `__nv_atan2`,
//!   `__nv_hypot`; the CUDA Programming Guide documents at most 2 ULP each). f16, bf16 and f32
//!   compute them in f64 on the widened operands and round once, so their error is within one
//!   step of the correctly rounded value.
//! - `logaddexp`: the CPU adapter's double-double algorithm (about 106 bits), for every dtype,
//!   rounded once from f64.
//! - `floor_divide`, `remainder`, `copysign`, `nextafter`, `maximum`, `minimum`: the CPU
//!   adapter's algorithms (floor division corrected by an fma residual and rounded down for the
//!   16-bit types; Python's remainder; bit operations; NaN-propagating extrema).
//! - Comparisons: IEEE (NaN compares false, `-0 == +0`), on the widened values.
//! - `fused_mul_add` (`a*b+c`, one rounding): `__fmaf_rn`, `__fma_rn`, and the `fma.rn.f16` /
//!   `fma.rn.bf16` instructions (bf16 needs compute capability 8.0; reported unsupported below).
//! - `fused_add_mul` (`(a+b)*c`, two roundings): `_rn` add then `_rn` multiply, the sum rounded
//!   to the dtype first.
//! - Integers (i8..u64): wrapping `add`, `subtract`, `multiply`, `pow` and fused operations,
//!   `maximum`/`minimum`, Python's `floor_divide` and `remainder` (`x // 0` and `x % 0` give
//!   0, as on the CPU adapter; a negative exponent gives the truncated `1 / x^n`), true
//!   `divide` in f32 (the operands converted through f64, as the CPU adapter does). `atan2`,
//!   `copysign`, `hypot`, `logaddexp` and `nextafter` are float-only.
//!
//! Operands are passed as whole host buffers with their shape, strides (in elements; zero and
//! negative allowed) and offsets; broadcasting happens in the kernel's indexing, and dense
//! operands take an index-free loop. One adapter call is one launch with its copies; the time
//! of each phase is counted ([`CudaAdapter::timings`], [`Timings`]).
//!
//! # Scatter-add
//!
//! The operands are checked and the index vectors resolved on the host, as the source document
//! (MindSpore `TensorScatterAdd`) states; the sums run on the device in one of two flavours
//! ([`Scatter`]): adapter `cuda` adds with compare-and-swap loops around the same correctly
//! rounded add (fast, order not deterministic; not `atom.add.f32`, which may flush subnormals);
//! adapter `cuda-deterministic` gives each destination element one thread that adds its updates
//! in index order (the sequential sum, the same bits on every run).

mod device;
mod gpu;
mod kernels;
mod layout;
mod scatter;
mod timing;

#[cfg(test)]
mod tests;

use std::borrow::Cow;
use std::fmt;
use std::io::Write;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use opspec_adapter::{
    Adapter, AdapterError, BinaryOp, DType, ErrorKind, NamedOp, OpKind, Operand, Scalar, ScalarSide,
    ScatterMode, ShapeChecker, Support, Tensor, TernaryOp, ValueKind,
};
use opspec_cpu::{CpuAdapter, aligned_strides, named_shape, promote};

pub use device::DeviceBinary;
use gpu::Gpu;
use kernels::{Kernel, binary_output};
use layout::{Plan, broadcast_shape};
pub use timing::Timings;

/// The environment variable naming a file to which each adapter appends its [`Timings`] as one
/// JSON line (`Timings::json`) when it is dropped.
pub const TIMINGS_ENV: &str = "OPSPEC_CUDA_TIMINGS";

/// How scatter-add accumulates duplicate indices on the device.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scatter {
    /// Compare-and-swap adds from one thread per update element (adapter name `cuda`).
    Atomic,
    /// One thread per destination element, updates added in index order (`cuda-deterministic`).
    Deterministic,
}

/// Why the CUDA adapter cannot run here (no driver, no NVRTC, no device, ...).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unavailable(pub String);

impl fmt::Display for Unavailable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CUDA unavailable: {}", self.0)
    }
}

impl std::error::Error for Unavailable {}

/// The CUDA adapter on device 0.
pub struct CudaAdapter {
    gpu: Result<Arc<Gpu>, String>,
    scatter: Scatter,
    /// The host-side rules shared with the CPU adapter (named axes).
    rules: CpuAdapter,
    timings: Mutex<Timings>,
}

/// Two operands lined up for one launch: the result's shape and axis names, and the walk.
struct Lined {
    shape: Vec<usize>,
    names: Option<Vec<Option<String>>>,
    plan: Plan,
}

impl CudaAdapter {
    /// The adapter, or why no GPU can be used.
    pub fn new(scatter: Scatter) -> Result<CudaAdapter, Unavailable> {
        let gpu = gpu::gpu().map_err(Unavailable)?;
        Ok(CudaAdapter::with(Ok(gpu), scatter))
    }

    /// The adapter even without a GPU: then every operation is unsupported, with the reason.
    pub fn new_or_unavailable(scatter: Scatter) -> CudaAdapter {
        CudaAdapter::with(gpu::gpu(), scatter)
    }

    fn with(gpu: Result<Arc<Gpu>, String>, scatter: Scatter) -> CudaAdapter {
        CudaAdapter { gpu, scatter, rules: CpuAdapter::new(), timings: Mutex::new(Timings::default()) }
    }

    /// Why the adapter cannot run, if it cannot.
    pub fn unavailable_reason(&self) -> Option<&str> {
        self.gpu.as_ref().err().map(String::as_str)
    }

    /// The time this adapter's calls have spent so far, by phase.
    pub fn timings(&self) -> Timings {
        *self.timings.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The kernel of `op` in `dtype` for dense operands of `elements` elements that are already
    /// on the device: a kernel's time without host transfers (`examples/bandwidth.rs`).
    pub fn device_binary(
        &self,
        op: BinaryOp,
        dtype: DType,
        elements: usize,
    ) -> Result<DeviceBinary, AdapterError> {
        DeviceBinary::new(Arc::clone(self.device()?), op, dtype, elements)
    }

    fn device(&self) -> Result<&Arc<Gpu>, AdapterError> {
        self.gpu.as_ref().map_err(|reason| AdapterError::unsupported(format!("CUDA unavailable: {reason}")))
    }

    fn scatter_kernel(&self, dtype: DType) -> Kernel {
        match self.scatter {
            Scatter::Atomic => Kernel::ScatterAtomic(dtype),
            Scatter::Deterministic => Kernel::ScatterOrdered(dtype),
        }
    }

    /// Whether `op` on `dtype` is implemented for a device of compute capability `cc`.
    fn support_on(&self, op: OpKind, dtype: DType, cc: (i32, i32)) -> Support {
        if dtype.is_complex() {
            return Support::Unsupported(format!("opspec-cuda has no {dtype} kernels"));
        }
        let kernel = match op {
            OpKind::Binary(op) | OpKind::BinaryScalar(op) => Kernel::Binary(op, dtype),
            OpKind::BinaryInto(op) if binary_output(op, dtype) == dtype => Kernel::Binary(op, dtype),
            OpKind::BinaryInto(op) => {
                let result = binary_output(op, dtype);
                return Support::Unsupported(format!(
                    "{op} of {dtype} gives {result}, which out cannot hold"
                ));
            }
            OpKind::Ternary(op) => Kernel::Ternary(op, dtype),
            OpKind::ScatterAdd => self.scatter_kernel(dtype),
            other => return Support::Unsupported(format!("opspec-cuda does not implement {other}")),
        };
        match kernel.support(cc) {
            Ok(()) => Support::Supported,
            Err(reason) => Support::Unsupported(reason),
        }
    }

    /// Runs `call` with a fresh [`Timings`] for it and adds that to the adapter's.
    fn timed<R>(
        &self,
        call: impl FnOnce(&mut Timings) -> Result<R, AdapterError>,
    ) -> Result<R, AdapterError> {
        let started = Instant::now();
        let mut t = Timings::default();
        let result = call(&mut t);
        if t.launches > 0 {
            t.calls = 1;
            t.total = started.elapsed();
            self.timings.lock().unwrap_or_else(PoisonError::into_inner).add(&t);
        }
        result
    }

    /// Runs an element-wise kernel over `inputs` walked by `plan`; returns the `n` results' bytes.
    fn launch(
        &self,
        kernel: Kernel,
        inputs: &[&Tensor],
        plan: &Plan,
        n: usize,
        t: &mut Timings,
    ) -> Result<Vec<u8>, AdapterError> {
        if let Some(t) = inputs.iter().find(|t| t.dtype().is_complex()) {
            return Err(AdapterError::unsupported(format!("opspec-cuda has no {} kernels", t.dtype())));
        }
        let buffers: Vec<&[u8]> = inputs.iter().map(|t| t.buffer()).collect();
        self.device()?.elementwise(kernel, &buffers, plan, n, t)
    }

    /// Lines `a` and `b` up: by the named-axis rules when either has axis names (the CPU
    /// adapter's checker gives the alignment), by NumPy broadcasting otherwise.
    fn line_up(&self, a: &Tensor, b: &Tensor) -> Result<Lined, AdapterError> {
        if a.names().is_none() && b.names().is_none() {
            let shape = broadcast_shape(&[a.shape(), b.shape()])?;
            let plan = Plan::broadcast(&shape, &[a, b]);
            return Ok(Lined { shape, names: None, plan });
        }
        let operand =
            |t: &Tensor| Operand { kind: ValueKind::Real, dtype: Some(t.dtype()), shape: named_shape(t) };
        let checked = self.rules.check(NamedOp::Add, &[operand(a), operand(b)])?;
        let alignment = checked
            .alignment
            .ok_or_else(|| AdapterError::new(ErrorKind::Other, "the named-axis rules gave no alignment"))?;
        let shape: Vec<usize> = checked.shape.iter().map(|axis| axis.size).collect();
        let strides: Vec<Vec<isize>> =
            [a, b].iter().zip(&alignment).map(|(t, align)| aligned_strides(t, align, &shape)).collect();
        let plan = Plan::new(&shape, &strides, vec![a.offset(), b.offset()]);
        Ok(Lined { names: Some(checked.shape.into_iter().map(|axis| axis.name).collect()), shape, plan })
    }
}

/// The common dtype of `tensors`, or a dtype-mismatch error.
fn same_dtype(tensors: &[&Tensor]) -> Result<DType, AdapterError> {
    let dtype = tensors[0].dtype();
    match tensors.iter().find(|t| t.dtype() != dtype) {
        Some(other) => Err(AdapterError::new(
            ErrorKind::DTypeMismatch,
            format!("operands are {dtype} and {}", other.dtype()),
        )),
        None => Ok(dtype),
    }
}

/// `t` in `dtype` (converted on the host by the CPU adapter's rules when it is not already),
/// keeping its axis names.
fn convert(t: &Tensor, dtype: DType) -> Result<Cow<'_, Tensor>, AdapterError> {
    if t.dtype() == dtype {
        return Ok(Cow::Borrowed(t));
    }
    let converted = promote::cast(t, dtype)?;
    Ok(Cow::Owned(match t.names() {
        Some(names) => converted.with_names(names.to_vec())?,
        None => converted,
    }))
}

/// The tensor and the scalar (a rank-0 tensor) in their common dtype by the CPU adapter's
/// rules: the scalar takes the tensor's dtype, or f32 for a Python float with an integer tensor.
fn scalar_operands(tensor: &Tensor, scalar: Scalar) -> Result<[Cow<'_, Tensor>; 2], AdapterError> {
    let dtype = promote::with_scalar(tensor.dtype(), scalar);
    Ok([convert(tensor, dtype)?, Cow::Owned(promote::scalar_tensor(scalar, dtype)?)])
}

impl Adapter for CudaAdapter {
    fn name(&self) -> &str {
        match self.scatter {
            Scatter::Atomic => "cuda",
            Scatter::Deterministic => "cuda-deterministic",
        }
    }

    fn version(&self) -> String {
        let device = match &self.gpu {
            Ok(gpu) => gpu.description.clone(),
            Err(reason) => format!("unavailable: {reason}"),
        };
        format!("opspec-cuda {} (cudarc 0.19, CUDA 13.0 API; {device})", env!("CARGO_PKG_VERSION"))
    }

    fn supports(&self, op: OpKind, dtype: DType) -> Support {
        match &self.gpu {
            Ok(gpu) => self.support_on(op, dtype, gpu.cc),
            Err(reason) => Support::Unsupported(format!("CUDA unavailable: {reason}")),
        }
    }

    fn binary(&self, op: BinaryOp, a: &Tensor, b: &Tensor) -> Result<Tensor, AdapterError> {
        let dtype = promote::promote(a.dtype(), b.dtype()).map_err(|e| {
            AdapterError::new(
                e.kind,
                format!("opspec-cuda does not promote {} with {}", a.dtype(), b.dtype()),
            )
        })?;
        let (a, b) = (convert(a, dtype)?, convert(b, dtype)?);
        let lined = self.line_up(&a, &b)?;
        let kernel = Kernel::Binary(op, dtype);
        let n = lined.shape.iter().product();
        let bytes = self.timed(|t| self.launch(kernel, &[&a, &b], &lined.plan, n, t))?;
        let out = Tensor::from_bytes(kernel.output(), &lined.shape, bytes)?;
        match lined.names {
            Some(names) => out.with_names(names),
            None => Ok(out),
        }
    }

    fn binary_scalar(
        &self,
        op: BinaryOp,
        tensor: &Tensor,
        scalar: Scalar,
        side: ScalarSide,
    ) -> Result<Tensor, AdapterError> {
        let operands = scalar_operands(tensor, scalar)?;
        let (x, y) = if side == ScalarSide::Left { (1, 0) } else { (0, 1) };
        self.binary(op, &operands[x], &operands[y])
    }

    fn binary_into(
        &self,
        op: BinaryOp,
        a: &Tensor,
        b: &Tensor,
        out: &mut Tensor,
    ) -> Result<(), AdapterError> {
        let dtype = same_dtype(&[a, b, out])?;
        let shape = broadcast_shape(&[a.shape(), b.shape()])?;
        if out.shape() != shape {
            return Err(AdapterError::new(
                ErrorKind::ShapeMismatch,
                format!("out has shape {:?}, the result has {shape:?}", out.shape()),
            ));
        }
        let Some(dst) = out.contiguous_bytes_mut() else {
            return Err(AdapterError::new(ErrorKind::NotContiguous, "out must be contiguous"));
        };
        let result = binary_output(op, dtype);
        if result != dtype {
            return Err(AdapterError::new(
                ErrorKind::DTypeMismatch,
                format!("{op}_into: the result is {result}, out is {dtype}"),
            ));
        }
        let plan = Plan::broadcast(&shape, &[a, b]);
        let n = shape.iter().product();
        dst.copy_from_slice(&self.timed(|t| self.launch(Kernel::Binary(op, dtype), &[a, b], &plan, n, t))?);
        Ok(())
    }

    fn ternary(&self, op: TernaryOp, a: &Tensor, b: &Tensor, c: &Tensor) -> Result<Tensor, AdapterError> {
        let dtype = same_dtype(&[a, b, c])?;
        if a.shape() != b.shape() || a.shape() != c.shape() {
            return Err(AdapterError::new(
                ErrorKind::ShapeMismatch,
                format!(
                    "{op} takes equal shapes (no broadcasting), got {:?}, {:?} and {:?}",
                    a.shape(),
                    b.shape(),
                    c.shape()
                ),
            ));
        }
        let plan = Plan::broadcast(a.shape(), &[a, b, c]);
        let n = a.numel();
        let bytes = self.timed(|t| self.launch(Kernel::Ternary(op, dtype), &[a, b, c], &plan, n, t))?;
        Tensor::from_bytes(dtype, a.shape(), bytes)
    }

    fn scatter_add(
        &self,
        input: &Tensor,
        indices: &Tensor,
        updates: &Tensor,
        mode: ScatterMode,
    ) -> Result<Tensor, AdapterError> {
        let targets = scatter::targets(input, indices, updates, mode)?;
        let dtype = input.dtype();
        let (base, updates) = (input.to_contiguous(), updates.to_contiguous());
        let kernel = self.scatter_kernel(dtype);
        let gpu = self.device()?;
        let bytes = self.timed(|t| gpu.scatter(kernel, base.buffer(), updates.buffer(), &targets, t))?;
        Tensor::from_bytes(dtype, input.shape(), bytes)
    }

    fn checker(&self) -> Option<&dyn ShapeChecker> {
        // The rules the adapter lines named operands up by; none without a device, so that all
        // of its checks are skipped there.
        self.gpu.is_ok().then_some(&self.rules as &dyn ShapeChecker)
    }
}

impl Drop for CudaAdapter {
    /// Appends the timings to the file named by [`TIMINGS_ENV`], if set and anything ran.
    fn drop(&mut self) {
        let Some(path) = std::env::var_os(TIMINGS_ENV) else { return };
        let timings = self.timings();
        if timings.calls == 0 {
            return;
        }
        let line = timings.json(self.name());
        let written = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .and_then(|mut f| writeln!(f, "{line}"));
        if let Err(e) = written {
            eprintln!("opspec-cuda: cannot append timings to {}: {e}", path.to_string_lossy());
        }
    }
}
