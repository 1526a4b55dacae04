//! Device bandwidth of the element-wise kernels, for `examples/bandwidth.rs`.

use cudarc::driver::sys::CUevent_flags;
use opspec_adapter::{BinaryOp, DType};

use crate::gpu::{Gpu, cuda_error, gpu};
use crate::kernels::Kernel;

/// The f32 `add` kernel against a device-to-device copy of the same size, both on device-resident
/// data (no host transfers). Times are the best of the repeats; GB/s are 10^9 bytes per second.
#[derive(Clone, Debug)]
pub struct Bandwidth {
    /// Elements per operand.
    pub elements: usize,
    /// Driver, NVRTC and device.
    pub device: String,
    /// One `c = a + b` launch, milliseconds.
    pub add_ms: f64,
    /// Bytes of a, b and c (12 per element) over `add_ms`.
    pub add_gbps: f64,
    /// One copy of `elements` f32, milliseconds.
    pub copy_ms: f64,
    /// Bytes read and written by the copy (8 per element) over `copy_ms`.
    pub copy_gbps: f64,
}

/// Measures [`Bandwidth`] for `elements` f32 per operand, each timing the best of `repeats`
/// runs after one warm-up. Fails with the reason when there is no GPU.
pub fn measure(elements: usize, repeats: usize) -> Result<Bandwidth, String> {
    let gpu = gpu()?;
    let add = gpu.function(Kernel::Binary(BinaryOp::Add, DType::F32)).map_err(|e| e.to_string())?;
    let s = &gpu.stream;
    let bytes = elements * 4;
    let alloc = || s.alloc_zeros::<u8>(bytes).map_err(|e| cuda_error(e).to_string());
    let inputs = [alloc()?, alloc()?];
    let mut out = alloc()?;
    // A dense rank-1 launch: shape, the strides of a and b, their offsets.
    let meta = s.clone_htod(&[elements as i64, 1, 1, 0, 0]).map_err(|e| e.to_string())?;
    let add_ms = best_time(&gpu, repeats, &mut || {
        gpu.launch_elementwise(&add, &mut out, &inputs, &meta, 1, elements).map_err(|e| e.to_string())
    })?;
    let copy_ms =
        best_time(&gpu, repeats, &mut || s.memcpy_dtod(&inputs[0], &mut out).map_err(|e| e.to_string()))?;
    let gbps = |bytes: usize, ms: f64| bytes as f64 / (ms * 1e6);
    Ok(Bandwidth {
        elements,
        device: gpu.description.clone(),
        add_ms,
        add_gbps: gbps(3 * bytes, add_ms),
        copy_ms,
        copy_gbps: gbps(2 * bytes, copy_ms),
    })
}

/// The shortest of `repeats` timings of `work` by CUDA events, after one untimed run.
fn best_time(gpu: &Gpu, repeats: usize, work: &mut dyn FnMut() -> Result<(), String>) -> Result<f64, String> {
    let s = &gpu.stream;
    let event = || s.context().new_event(Some(CUevent_flags::CU_EVENT_DEFAULT)).map_err(|e| e.to_string());
    work()?;
    let mut best = f64::INFINITY;
    for _ in 0..repeats.max(1) {
        let (start, end) = (event()?, event()?);
        start.record(s).map_err(|e| e.to_string())?;
        work()?;
        end.record(s).map_err(|e| e.to_string())?;
        end.synchronize().map_err(|e| e.to_string())?;
        best = best.min(f64::from(start.elapsed_ms(&end).map_err(|e| e.to_string())?));
    }
    Ok(best)
}
