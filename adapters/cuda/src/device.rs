//! The adapter's element-wise kernels on operands that are already on the device, so that a
//! kernel can be timed without host transfers (`examples/bandwidth.rs`).

use std::sync::Arc;

use cudarc::driver::{CudaFunction, CudaSlice, CudaStream};
use opspec_adapter::{AdapterError, BinaryOp, DType, ErrorKind};

use crate::gpu::{Gpu, cuda_error};
use crate::kernels::Kernel;
use crate::layout::Plan;
use crate::timing::Timings;

/// The kernel of one binary operation and dtype, prepared for dense operands of a fixed number
/// of elements in device buffers (from [`crate::CudaAdapter::device_binary`]).
pub struct DeviceBinary {
    gpu: Arc<Gpu>,
    function: CudaFunction,
    /// The launch's walk (both operands dense: rank 1, or 0 for one element) and its rank.
    meta: CudaSlice<i64>,
    rank: usize,
    elements: usize,
    /// Bytes per operand element and per result element.
    sizes: (usize, usize),
}

impl DeviceBinary {
    pub(crate) fn new(
        gpu: Arc<Gpu>,
        op: BinaryOp,
        dtype: DType,
        elements: usize,
    ) -> Result<DeviceBinary, AdapterError> {
        let kernel = Kernel::Binary(op, dtype);
        let function = gpu.function(kernel, &mut Timings::default())?;
        let plan = Plan::new(&[elements], &[vec![1], vec![1]], vec![0, 0]);
        let meta = gpu.stream.clone_htod(&plan.meta()).map_err(cuda_error)?;
        let sizes = (dtype.size(), kernel.output().size());
        Ok(DeviceBinary { gpu, function, meta, rank: plan.shape.len(), elements, sizes })
    }

    /// The stream the kernel runs on: allocate the operands and record timing events on it.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.gpu.stream
    }

    /// Queues `out = x op y` on [`Self::stream`], for `[x, y] = operands`; each buffer must
    /// hold at least the elements this kernel was prepared for.
    pub fn launch(&self, operands: &[CudaSlice<u8>; 2], out: &mut CudaSlice<u8>) -> Result<(), AdapterError> {
        let (input, output) = (self.elements * self.sizes.0, self.elements * self.sizes.1);
        if operands.iter().any(|b| b.len() < input) || out.len() < output {
            return Err(AdapterError::new(
                ErrorKind::ShapeMismatch,
                format!(
                    "the operands must hold {input} bytes and the output {output} ({} elements)",
                    self.elements
                ),
            ));
        }
        self.gpu.launch_elementwise(&self.function, out, operands, &self.meta, self.rank, self.elements)
    }
}
