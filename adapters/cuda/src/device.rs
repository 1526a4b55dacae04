//! The adapter's element-wise kernels on operands that are already on the device, so that a
//! kernel can be timed without host transfers (`examples/bandwidth.rs`).

use std::sync::Arc;

use cudarc::driver::{CudaFunction, CudaSlice, CudaStream};
use opspec_adapter::{AdapterError, BinaryOp, DType, ErrorKind};

use crate::gpu::{Gpu, cuda_error};
use crate::kernels::Kernel;
use crate::layout::Plan;

/// The kernel of one binary operation and dtype, prepared for dense operands of a fixed number
/// of elements in device buffers (from [`crate::CudaAdapter::device_binary`]).
pub struct DeviceBinary {
    gpu: Arc<Gpu>,
    function: CudaFunction,
    /// The launch's walk: both operands dense, rank 1.
    meta: CudaSlice<i64>,
    elements: usize,
    size: usize,
}

impl DeviceBinary {
    pub(crate) fn new(
        gpu: Arc<Gpu>,
        op: BinaryOp,
        dtype: DType,
        elements: usize,
    ) -> Result<DeviceBinary, AdapterError> {
        let function = gpu.function(Kernel::Binary(op, dtype))?;
        let plan = Plan { shape: vec![elements], strides: vec![vec![1], vec![1]], offsets: vec![0, 0] };
        let meta = gpu.stream.clone_htod(&plan.meta()).map_err(cuda_error)?;
        Ok(DeviceBinary { gpu, function, meta, elements, size: dtype.size() })
    }

    /// The stream the kernel runs on: allocate the operands and record timing events on it.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.gpu.stream
    }

    /// Queues `out = x op y` on [`Self::stream`], for `[x, y] = operands`; each buffer must
    /// hold at least the elements this kernel was prepared for.
    pub fn launch(&self, operands: &[CudaSlice<u8>; 2], out: &mut CudaSlice<u8>) -> Result<(), AdapterError> {
        let bytes = self.elements * self.size;
        if operands.iter().chain([&*out]).any(|b| b.len() < bytes) {
            return Err(AdapterError::new(
                ErrorKind::ShapeMismatch,
                format!("each device buffer must hold {bytes} bytes ({} elements)", self.elements),
            ));
        }
        self.gpu.launch_elementwise(&self.function, out, operands, &self.meta, 1, self.elements)
    }
}
