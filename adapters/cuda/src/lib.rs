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
//! # Numerics
//!
//! NVRTC runs with `--fmad=false --ftz=false --prec-div=true --prec-sqrt=true` (no fast math),
//! for the device's own `sm_XY`. Each kernel (operation x dtype) is compiled once per process.
//!
//! - f32/f64 `add`, `subtract`, `multiply`, `divide`: the `__fadd_rn`/`__dadd_rn`-family
//!   intrinsics, IEEE round-to-nearest-even with subnormals, never contracted.
//! - f16/bf16 `add`, `subtract`, `multiply`, `divide`: computed in f32 and rounded once to the
//!   16-bit type (RNE: `cvt.rn.f16.f32`, and an integer RNE on the bits for bf16). f32 has at
//!   least 2p+2 bits for both, so this equals the correctly rounded 16-bit result.
//! - `fused_mul_add` (`a*b+c`, one rounding): `__fmaf_rn`, `__fma_rn`, and the `fma.rn.f16` /
//!   `fma.rn.bf16` instructions (bf16 needs compute capability 8.0; reported unsupported below).
//! - `fused_add_mul` (`(a+b)*c`, two roundings): `_rn` add then `_rn` multiply, the sum rounded
//!   to the dtype first.
//! - `maximum`/`minimum`: a NaN operand is returned (NaN propagates, as in the array API);
//!   otherwise one operand unchanged; for `-0` vs `+0` either may come back.
//! - `pow`, `atan2`: libdevice (`__nv_powf`, `__nv_atan2f`, `__nv_pow`, `__nv_atan2`, non-FTZ
//!   variants); the CUDA Programming Guide documents at most 4 (powf), 3 (atan2f) and 2
//!   (pow, atan2) ULP. f16/bf16 compute them in f32 and round once to the 16-bit type.
//! - Integers (i8..u64): `add`, `subtract`, `multiply`, both fused ops (wrapping) and
//!   `maximum`/`minimum`. Integer `divide` and `pow`, `atan2` of integers, and everything on
//!   `bool` are unsupported.
//!
//! Operands are passed as whole host buffers with their shape, strides (in elements; zero and
//! negative allowed) and offsets; NumPy broadcasting happens in the kernel's indexing.
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

#[cfg(test)]
mod tests;

use std::fmt;
use std::sync::Arc;

use opspec_adapter::{
    Adapter, AdapterError, BinaryOp, DType, ErrorKind, OpKind, ScatterMode, Support, Tensor, TernaryOp,
};

pub use device::DeviceBinary;
use gpu::Gpu;
use kernels::Kernel;
use layout::{Plan, broadcast_shape};

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
}

impl CudaAdapter {
    /// The adapter, or why no GPU can be used.
    pub fn new(scatter: Scatter) -> Result<CudaAdapter, Unavailable> {
        let gpu = gpu::gpu().map_err(Unavailable)?;
        Ok(CudaAdapter { gpu: Ok(gpu), scatter })
    }

    /// The adapter even without a GPU: then every operation is unsupported, with the reason.
    pub fn new_or_unavailable(scatter: Scatter) -> CudaAdapter {
        CudaAdapter { gpu: gpu::gpu(), scatter }
    }

    /// Why the adapter cannot run, if it cannot.
    pub fn unavailable_reason(&self) -> Option<&str> {
        self.gpu.as_ref().err().map(String::as_str)
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

    /// Runs an element-wise kernel over `inputs` broadcast to `shape`; returns the bytes.
    fn run(&self, kernel: Kernel, inputs: &[&Tensor], shape: &[usize]) -> Result<Vec<u8>, AdapterError> {
        let plan = Plan::new(shape, inputs);
        let buffers: Vec<&[u8]> = inputs.iter().map(|t| t.buffer()).collect();
        let n = shape.iter().product();
        self.device()?.elementwise(kernel, &buffers, &plan, n, inputs[0].dtype().size())
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
        let gpu = match &self.gpu {
            Ok(gpu) => gpu,
            Err(reason) => return Support::Unsupported(format!("CUDA unavailable: {reason}")),
        };
        let kernel = match op {
            OpKind::Binary(op) | OpKind::BinaryInto(op) => Kernel::Binary(op, dtype),
            OpKind::Ternary(op) => Kernel::Ternary(op, dtype),
            OpKind::ScatterAdd => self.scatter_kernel(dtype),
            other => return Support::Unsupported(format!("opspec-cuda does not implement {other}")),
        };
        match kernel.support(gpu.cc) {
            Ok(()) => Support::Supported,
            Err(reason) => Support::Unsupported(reason),
        }
    }

    fn binary(&self, op: BinaryOp, a: &Tensor, b: &Tensor) -> Result<Tensor, AdapterError> {
        let dtype = same_dtype(&[a, b])?;
        let shape = broadcast_shape(&[a.shape(), b.shape()])?;
        let bytes = self.run(Kernel::Binary(op, dtype), &[a, b], &shape)?;
        Tensor::from_bytes(dtype, &shape, bytes)
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
        dst.copy_from_slice(&self.run(Kernel::Binary(op, dtype), &[a, b], &shape)?);
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
        let bytes = self.run(Kernel::Ternary(op, dtype), &[a, b, c], a.shape())?;
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
        let bytes =
            self.device()?.scatter(self.scatter_kernel(dtype), base.buffer(), updates.buffer(), &targets)?;
        Tensor::from_bytes(dtype, input.shape(), bytes)
    }
}
