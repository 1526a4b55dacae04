//! The process-wide device: probing, NVRTC compilation with a per-process kernel cache, launches.

use std::collections::HashMap;
use std::fmt::Display;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Instant;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::{CompileError, CompileOptions, Ptx, compile_ptx_with_opts};
use opspec_adapter::{AdapterError, ErrorKind};

use crate::kernels::Kernel;
use crate::layout::Plan;
use crate::scatter::{Targets, ordered_plan};
use crate::timing::Timings;

/// NVRTC options: IEEE division and square root, subnormals kept, no contraction into FMA, and
/// code for the device's own architecture (so NVRTC also assembles it and rejects bad PTX).
pub(crate) fn compile(source: &str, cc: (i32, i32)) -> Result<Ptx, String> {
    let options = CompileOptions {
        ftz: Some(false),
        prec_div: Some(true),
        prec_sqrt: Some(true),
        fmad: Some(false),
        use_fast_math: Some(false),
        options: vec![format!("--gpu-architecture=sm_{}{}", cc.0, cc.1)],
        ..Default::default()
    };
    compile_ptx_with_opts(source, options).map_err(|e| match e {
        CompileError::CompileError { log, .. } => log.to_string_lossy().into_owned(),
        other => other.to_string(),
    })
}

/// Whether NVRTC can be loaded (checked first: cudarc panics when it is missing).
pub(crate) fn nvrtc_present() -> bool {
    // SAFETY: only tries to open the shared library.
    unsafe { cudarc::nvrtc::sys::is_culib_present() }
}

/// The NVRTC version as `major.minor`; NVRTC must be present.
pub(crate) fn nvrtc_version() -> String {
    let (mut major, mut minor) = (0, 0);
    // SAFETY: two valid out-pointers.
    unsafe { cudarc::nvrtc::sys::nvrtcVersion(&mut major, &mut minor) };
    format!("{major}.{minor}")
}

/// An [`ErrorKind::Other`] error for a CUDA failure.
pub(crate) fn cuda_error(e: impl Display) -> AdapterError {
    AdapterError::new(ErrorKind::Other, format!("CUDA: {e}"))
}

/// A kernel compiled (or failed) once, or still to be compiled.
type Slot = OnceLock<Result<CudaFunction, AdapterError>>;

/// Device 0 with its stream and compiled kernels.
pub(crate) struct Gpu {
    pub(crate) stream: Arc<CudaStream>,
    /// Compute capability (major, minor).
    pub(crate) cc: (i32, i32),
    /// Driver, NVRTC and device, for reports.
    pub(crate) description: String,
    /// One slot per kernel asked for: kernels compile in parallel, each once.
    functions: Mutex<HashMap<Kernel, Arc<Slot>>>,
}

/// The device shared by every adapter in the process, or why there is none.
pub(crate) fn gpu() -> Result<Arc<Gpu>, String> {
    static GPU: OnceLock<Result<Arc<Gpu>, String>> = OnceLock::new();
    GPU.get_or_init(|| {
        std::panic::catch_unwind(open).unwrap_or_else(|panic| {
            let message = panic
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| panic.downcast_ref::<&str>().copied())
                .unwrap_or("unknown panic");
            Err(format!("probing CUDA panicked: {message}"))
        })
    })
    .clone()
}

fn open() -> Result<Arc<Gpu>, String> {
    // SAFETY: only tries to open the shared library.
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        return Err("no CUDA driver: libcuda.so.1 was not found".into());
    }
    if !nvrtc_present() {
        return Err("no NVRTC: libnvrtc.so.13 (or .so.12) was not found; \
                    add its directory to LD_LIBRARY_PATH"
            .into());
    }
    let count = CudaContext::device_count().map_err(|e| format!("no CUDA device: {e}"))?;
    if count < 1 {
        return Err("no CUDA device".into());
    }
    let ctx = CudaContext::new(0).map_err(|e| format!("cannot open CUDA device 0: {e}"))?;
    let cc = ctx.compute_capability().map_err(|e| e.to_string())?;
    let mut driver = 0;
    // SAFETY: a valid out-pointer.
    unsafe { cudarc::driver::sys::cuDriverGetVersion(&mut driver) };
    let description = format!(
        "driver {}.{}, NVRTC {}, {} (sm_{}{})",
        driver / 1000,
        driver % 1000 / 10,
        nvrtc_version(),
        ctx.name().map_err(|e| e.to_string())?,
        cc.0,
        cc.1
    );
    let gpu = Gpu { stream: ctx.default_stream(), cc, description, functions: Mutex::new(HashMap::new()) };
    // An empty kernel proves that NVRTC targets this device and the driver loads its output.
    let probe = compile("extern \"C\" __global__ void probe() {}", cc)
        .map_err(|e| format!("NVRTC cannot compile for sm_{}{}: {e}", cc.0, cc.1))?;
    ctx.load_module(probe)
        .map_err(|e| format!("the driver cannot load NVRTC's PTX ({}): {e}", gpu.description))?;
    Ok(Arc::new(gpu))
}

/// A launch over `n` work items for the grid-stride loops of the kernels.
fn grid(n: usize) -> LaunchConfig {
    let blocks = n.div_ceil(256).clamp(1, 1 << 20) as u32;
    LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 }
}

impl Gpu {
    /// The compiled kernel, from the cache or compiled now (the time it takes added to `t`).
    /// The cache's lock is not held while NVRTC runs, so that checks running in parallel
    /// compile their kernels in parallel.
    pub(crate) fn function(&self, kernel: Kernel, t: &mut Timings) -> Result<CudaFunction, AdapterError> {
        kernel.support(self.cc).map_err(AdapterError::unsupported)?;
        let slot = {
            let mut cache = self.functions.lock().unwrap_or_else(PoisonError::into_inner);
            Arc::clone(cache.entry(kernel).or_default())
        };
        slot.get_or_init(|| {
            let started = Instant::now();
            let function = self.build(kernel);
            t.compile += started.elapsed();
            function
        })
        .clone()
    }

    /// Compiles and loads `kernel`.
    fn build(&self, kernel: Kernel) -> Result<CudaFunction, AdapterError> {
        let source = kernel.source().map_err(AdapterError::unsupported)?;
        let ptx = compile(&source, self.cc).map_err(|log| {
            AdapterError::new(ErrorKind::Other, format!("NVRTC failed on {}: {log}", kernel.name()))
        })?;
        let module = self.stream.context().load_module(ptx).map_err(cuda_error)?;
        module.load_function(&kernel.name()).map_err(cuda_error)
    }

    /// Launches an element-wise kernel on device buffers: `out` receives the `n` results.
    pub(crate) fn launch_elementwise(
        &self,
        function: &CudaFunction,
        out: &mut CudaSlice<u8>,
        inputs: &[CudaSlice<u8>],
        meta: &CudaSlice<i64>,
        rank: usize,
        n: usize,
    ) -> Result<(), AdapterError> {
        let (rank, count) = (rank as i32, n as i64);
        let mut launch = self.stream.launch_builder(function);
        launch.arg(out);
        for input in inputs {
            launch.arg(input);
        }
        launch.arg(meta).arg(&rank).arg(&count);
        // SAFETY: the arguments match the kernel's signature (see `kernels::elementwise`), the
        // input buffers hold every element the plan's strides reach and `out` holds `n` elements.
        unsafe { launch.launch(grid(n)) }.map_err(cuda_error)?;
        Ok(())
    }

    /// Runs an element-wise kernel over host buffers (each a whole tensor buffer) and returns
    /// the `n` contiguous results; each phase's time is added to `t`. Fails as unsupported
    /// first if the kernel is, even when `n` is 0.
    pub(crate) fn elementwise(
        &self,
        kernel: Kernel,
        buffers: &[&[u8]],
        plan: &Plan,
        n: usize,
        t: &mut Timings,
    ) -> Result<Vec<u8>, AdapterError> {
        let function = self.function(kernel, t)?;
        if n == 0 {
            return Ok(Vec::new());
        }
        let size = kernel.output().size();
        let started = Instant::now();
        let inputs = buffers
            .iter()
            .map(|b| self.stream.clone_htod(*b))
            .collect::<Result<Vec<_>, _>>()
            .map_err(cuda_error)?;
        let meta = self.stream.clone_htod(&plan.meta()).map_err(cuda_error)?;
        // SAFETY: the kernel writes all `n` elements before they are read back.
        let mut out = unsafe { self.stream.alloc::<u8>(n * size) }.map_err(cuda_error)?;
        self.stream.synchronize().map_err(cuda_error)?;
        t.upload += started.elapsed();
        let started = Instant::now();
        self.launch_elementwise(&function, &mut out, &inputs, &meta, plan.shape.len(), n)?;
        self.stream.synchronize().map_err(cuda_error)?;
        t.kernel += started.elapsed();
        t.launches += 1;
        t.elements += n as u64;
        self.download(&out, n * size, t)
    }

    /// Scatter-add on the device: `base` (the input's contiguous bytes) plus the slices of
    /// `updates` (contiguous) at `targets`, by the atomic or the deterministic `kernel`.
    pub(crate) fn scatter(
        &self,
        kernel: Kernel,
        base: &[u8],
        updates: &[u8],
        targets: &Targets,
        t: &mut Timings,
    ) -> Result<Vec<u8>, AdapterError> {
        let (groups, routing) = match kernel {
            Kernel::ScatterOrdered(_) => ordered_plan(&targets.dest),
            _ => (targets.dest.len(), targets.dest.clone()),
        };
        let function = self.function(kernel, t)?;
        let n = groups * targets.slice;
        if n == 0 || targets.dest.iter().all(|&d| d < 0) {
            return Ok(base.to_vec());
        }
        let s = &self.stream;
        let started = Instant::now();
        // Padded to whole 32-bit words for the sub-word compare-and-swap.
        let mut out = s.alloc_zeros::<u8>(base.len().next_multiple_of(4)).map_err(cuda_error)?;
        s.memcpy_htod(base, &mut out).map_err(cuda_error)?;
        let updates = s.clone_htod(updates).map_err(cuda_error)?;
        let routing = s.clone_htod(&routing).map_err(cuda_error)?;
        s.synchronize().map_err(cuda_error)?;
        t.upload += started.elapsed();
        let started = Instant::now();
        let (groups, slice, count) = (groups as i64, targets.slice as i64, n as i64);
        let mut launch = s.launch_builder(&function);
        launch.arg(&mut out).arg(&updates).arg(&routing);
        if let Kernel::ScatterOrdered(_) = kernel {
            launch.arg(&groups);
        }
        launch.arg(&slice).arg(&count);
        // SAFETY: the arguments match the kernel's signature (see `kernels::scatter_*`); every
        // routed slice lies inside `out` and every update row inside `updates`.
        unsafe { launch.launch(grid(n)) }.map_err(cuda_error)?;
        s.synchronize().map_err(cuda_error)?;
        t.kernel += started.elapsed();
        t.launches += 1;
        t.elements += base.len() as u64 / kernel.output().size() as u64;
        self.download(&out, base.len(), t)
    }

    /// The first `len` bytes of `buffer`, after the stream has finished (surfacing launch
    /// errors); the time is added to `t`.
    fn download(&self, buffer: &CudaSlice<u8>, len: usize, t: &mut Timings) -> Result<Vec<u8>, AdapterError> {
        let started = Instant::now();
        let bytes = self.stream.clone_dtoh(&buffer.slice(..len)).map_err(cuda_error)?;
        self.stream.synchronize().map_err(cuda_error)?;
        t.download += started.elapsed();
        Ok(bytes)
    }
}
