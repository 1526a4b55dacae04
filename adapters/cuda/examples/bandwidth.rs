//! Bandwidth of the CUDA adapter's f32 `add` kernel against a device-to-device copy, both on
//! device-resident data: `bandwidth [ELEMENTS [REPEATS]]` (default 2^28 elements, 20 repeats).
//! Prints one summary line, then one line of JSON; exits with 2 (after `skipped: <reason>`)
//! when there is no GPU.
//!
//! Each time is the best of the repeats, timed by CUDA events after one warm-up; GB/s are
//! 10^9 bytes per second: a, b and c (12 bytes per element) for the add, the bytes read and
//! written (8 per element) for the copy.

use std::process::ExitCode;

use cudarc::driver::CudaStream;
use cudarc::driver::sys::CUevent_flags;
use opspec_adapter::{Adapter, BinaryOp, DType};
use opspec_cuda::{CudaAdapter, Scatter};

/// What one run measured.
struct Bandwidth {
    /// Driver, NVRTC and device (the adapter's version string).
    device: String,
    /// One `c = a + b` launch, milliseconds.
    add_ms: f64,
    /// One copy of the same number of f32, milliseconds.
    copy_ms: f64,
}

/// Measures the f32 add kernel and the copy on `elements` f32 per operand, or says why not.
fn measure(elements: usize, repeats: usize) -> Result<Bandwidth, String> {
    let adapter = CudaAdapter::new(Scatter::Atomic).map_err(|e| e.0)?;
    let add = adapter.device_binary(BinaryOp::Add, DType::F32, elements).map_err(|e| e.to_string())?;
    let s = add.stream();
    let alloc = || s.alloc_zeros::<u8>(elements * 4).map_err(|e| e.to_string());
    let inputs = [alloc()?, alloc()?];
    let mut out = alloc()?;
    let add_ms = best_time(s, repeats, &mut || add.launch(&inputs, &mut out).map_err(|e| e.to_string()))?;
    let copy_ms =
        best_time(s, repeats, &mut || s.memcpy_dtod(&inputs[0], &mut out).map_err(|e| e.to_string()))?;
    Ok(Bandwidth { device: adapter.version(), add_ms, copy_ms })
}

/// The shortest of `repeats` timings of `work` on stream `s` by CUDA events, after one untimed
/// run.
fn best_time(
    s: &CudaStream,
    repeats: usize,
    work: &mut dyn FnMut() -> Result<(), String>,
) -> Result<f64, String> {
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

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let number = |i: usize, default: usize| args.get(i).map_or(Ok(default), |a| a.parse::<usize>());
    let (Ok(elements), Ok(repeats)) = (number(0, 1 << 28), number(1, 20)) else {
        eprintln!("usage: bandwidth [ELEMENTS [REPEATS]]");
        return ExitCode::FAILURE;
    };
    match measure(elements, repeats) {
        Ok(b) => {
            let gbps = |bytes_per_element: usize, ms: f64| (bytes_per_element * elements) as f64 / (ms * 1e6);
            let (add_gbps, copy_gbps) = (gbps(12, b.add_ms), gbps(8, b.copy_ms));
            println!(
                "f32 add of {elements} elements: {add_gbps:.1} GB/s ({:.3} ms); device-to-device copy: {copy_gbps:.1} GB/s ({:.3} ms); add/copy = {:.2} ({})",
                b.add_ms,
                b.copy_ms,
                add_gbps / copy_gbps,
                b.device
            );
            println!(
                "{{\"elements\": {elements}, \"add_gbps\": {add_gbps:.2}, \"add_ms\": {:.4}, \"copy_gbps\": {copy_gbps:.2}, \"copy_ms\": {:.4}, \"add_over_copy\": {:.3}, \"device\": {:?}}}",
                b.add_ms,
                b.copy_ms,
                add_gbps / copy_gbps,
                b.device
            );
            ExitCode::SUCCESS
        }
        Err(reason) => {
            println!("skipped: {reason}");
            ExitCode::from(2)
        }
    }
}
