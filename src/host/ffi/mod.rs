//! C ABI adapters (`adapters/ffi/include/opspec.h`): [`LibAdapter`] loads a shared library
//! that exports `opspec_adapter_open` and implements [`Adapter`] by calling its table.
//!
//! Only `opspec adapter-host` uses it, in a worker process of its own: the library's crashes
//! end that process, never the run.

mod abi;

use std::ffi::{CStr, CString, c_char, c_void};
use std::path::Path;
use std::sync::Mutex;

use libloading::Library;
use opspec_adapter::{
    Adapter, AdapterError, BinaryOp, DType, ErrorKind, OpKind, Scalar, ScalarSide, ScatterMode, Support,
    Tensor, TernaryOp, UnaryOp,
};

use crate::host::process::CallArg;
use crate::host::process::wire::{self, DlType, Form};
use abi::{RawArg, RawError, RawOutput, RawTensor, RawVtable};

/// The longest message a library may write into an error.
const MESSAGE_CAPACITY: usize = 4096;
/// The largest result a library may ask for.
const MAX_RESULT_BYTES: usize = 16 << 30;

/// A loaded C ABI adapter. Calls are serialised: the ABI does not ask libraries to be
/// thread-safe.
pub struct LibAdapter {
    vtable: *const RawVtable,
    name: String,
    version: String,
    calls: Mutex<()>,
    /// Kept loaded for as long as `vtable` is used (dropped last).
    _library: Library,
}

// SAFETY: the table's pointers are used only under `calls`, one call at a time, which is all
// the ABI promises a library.
unsafe impl Send for LibAdapter {}
// SAFETY: as above.
unsafe impl Sync for LibAdapter {}

impl LibAdapter {
    /// Loads the library at `path`, negotiates the ABI version and opens the adapter with
    /// `config`.
    pub fn open(path: &Path, config: Option<&str>) -> Result<LibAdapter, String> {
        let shown = path.display();
        // SAFETY: loading a library runs its initialisers: that is what the user asked for,
        // and why this runs in a worker process.
        let library = unsafe { Library::new(path) }.map_err(|e| format!("cannot load {shown}: {e}"))?;
        // SAFETY: the symbol is declared in opspec.h with this signature.
        let open = unsafe { library.get::<abi::OpenFn>(abi::ENTRY) }.map_err(|e| {
            format!("{shown} does not export `opspec_adapter_open` (adapters/ffi/include/opspec.h): {e}")
        })?;
        let config = config
            .map(CString::new)
            .transpose()
            .map_err(|_| format!("the configuration for {shown} holds a NUL byte"))?;
        let mut err = ErrorBuf::new();
        let config_ptr = config.as_ref().map_or(std::ptr::null(), |c| c.as_ptr());
        // SAFETY: the arguments are as opspec.h declares them; `err` outlives the call.
        let vtable = unsafe { open(abi::ABI_MAJOR, abi::ABI_MINOR, config_ptr, err.raw()) };
        if vtable.is_null() {
            return Err(format!(
                "{shown}: opspec_adapter_open refused: {}",
                err.message_or("no reason given")
            ));
        }
        // SAFETY: a non-NULL table stays valid until `close`; its first three members are
        // where every version of the ABI keeps them.
        let (size, major, minor) =
            unsafe { ((*vtable).struct_size, (*vtable).abi_major, (*vtable).abi_minor) };
        if major != abi::ABI_MAJOR {
            return Err(format!(
                "{shown} is built for C ABI {major}.{minor}, this opspec speaks {}.{}: build it against this \
                 opspec's adapters/ffi/include/opspec.h",
                abi::ABI_MAJOR,
                abi::ABI_MINOR
            ));
        }
        if size < size_of::<RawVtable>() {
            return Err(format!(
                "{shown}: its opspec_adapter is {size} bytes, ABI 1.0's has {}",
                size_of::<RawVtable>()
            ));
        }
        // SAFETY: as above; the strings are NUL-terminated and static, or NULL.
        let text = |p: *const c_char, none: &str| {
            if p.is_null() {
                none.to_string()
            } else {
                unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
            }
        };
        let (name, version) =
            unsafe { (text((*vtable).name, "unnamed"), text((*vtable).version, "unknown")) };
        Ok(LibAdapter { vtable, name, version, calls: Mutex::new(()), _library: library })
    }

    fn table(&self) -> &RawVtable {
        // SAFETY: checked non-NULL in `open`; valid until `close` in `drop`.
        unsafe { &*self.vtable }
    }

    /// Calls `op` on `args`: into `out` when given, else into a result the library allocates.
    fn invoke(
        &self,
        op: &str,
        args: &[CallArg],
        out: Option<&mut Tensor>,
    ) -> Result<Option<Tensor>, AdapterError> {
        let call =
            self.table().call.ok_or_else(|| AdapterError::unsupported("the library has no `call` entry"))?;
        let inputs: Vec<Desc> = args
            .iter()
            .filter_map(|a| match a {
                CallArg::Tensor(t) => Some(Desc::of(t, t.buffer().as_ptr().cast_mut().cast())),
                CallArg::Scalar(_) => None,
            })
            .collect();
        let mut next = inputs.iter();
        let raw_args: Vec<RawArg> = args
            .iter()
            .map(|a| match a {
                CallArg::Tensor(_) => RawArg {
                    kind: abi::ARG_TENSOR,
                    tensor: next.next().map_or(std::ptr::null(), |d| &d.raw),
                    int_value: 0,
                    float_value: 0.0,
                },
                CallArg::Scalar(Scalar::Int(i)) => {
                    RawArg { kind: abi::ARG_INT, tensor: std::ptr::null(), int_value: *i, float_value: 0.0 }
                }
                CallArg::Scalar(Scalar::Float(f)) => {
                    RawArg { kind: abi::ARG_FLOAT, tensor: std::ptr::null(), int_value: 0, float_value: *f }
                }
            })
            .collect();
        let op_name =
            CString::new(op).map_err(|_| AdapterError::unsupported("an operation name with a NUL"))?;
        let mut err = ErrorBuf::new();
        let _serial = self.calls.lock();
        match out {
            Some(out) => {
                let mut buffer = out.buffer().to_vec();
                let mut desc = Desc::of(out, buffer.as_mut_ptr().cast());
                // SAFETY: every pointer is valid for the call: the descriptors and buffers
                // above, the error buffer and the NUL-terminated name.
                let status = unsafe {
                    call(
                        self.table().ctx,
                        op_name.as_ptr(),
                        raw_args.len(),
                        raw_args.as_ptr(),
                        &mut desc.raw,
                        std::ptr::null_mut(),
                        err.raw(),
                    )
                };
                err.check(status)?;
                let len = buffer.len() / out.dtype().size();
                let written = Tensor::from_bytes(out.dtype(), &[len], buffer)?.view(
                    out.shape(),
                    out.strides(),
                    out.offset(),
                )?;
                *out = match out.names() {
                    Some(names) => written.with_names(names.to_vec())?,
                    None => written,
                };
                Ok(None)
            }
            None => {
                let mut slot = Slot::new();
                // SAFETY: as above; `slot` outlives the call.
                let status = unsafe {
                    call(
                        self.table().ctx,
                        op_name.as_ptr(),
                        raw_args.len(),
                        raw_args.as_ptr(),
                        std::ptr::null_mut(),
                        slot.raw(),
                        err.raw(),
                    )
                };
                err.check(status)?;
                slot.result().map(Some)
            }
        }
    }
}

impl Drop for LibAdapter {
    fn drop(&mut self) {
        if let Some(close) = self.table().close {
            let _serial = self.calls.lock();
            // SAFETY: the table's own context, closed once; the table is not used afterwards.
            unsafe { close(self.table().ctx) };
        }
    }
}

impl Adapter for LibAdapter {
    fn name(&self) -> &str {
        &self.name
    }

    fn version(&self) -> String {
        self.version.clone()
    }

    fn supports(&self, op: OpKind, dtype: DType) -> Support {
        let Some((name, form)) = wire::op_form(op) else {
            return Support::Unsupported(format!("the C ABI has no form for {op}"));
        };
        let Some(supports) = self.table().supports else {
            return Support::Unsupported("the library has no `supports` entry".into());
        };
        let Ok(name) = CString::new(name) else { return Support::Unsupported("a name with a NUL".into()) };
        let form = match form {
            Form::Tensors => abi::FORM_TENSORS,
            Form::Scalar => abi::FORM_SCALAR,
            Form::Out => abi::FORM_OUT,
        };
        let mut err = ErrorBuf::new();
        let _serial = self.calls.lock();
        // SAFETY: valid, NUL-terminated name; `err` outlives the call.
        let status = unsafe { supports(self.table().ctx, name.as_ptr(), form, raw_dtype(dtype), err.raw()) };
        match status {
            0 => Support::Supported,
            s => Support::Unsupported(err.message_or(&format!("the library's supports() returned {s}"))),
        }
    }

    fn unary(&self, op: UnaryOp, x: &Tensor) -> Result<Tensor, AdapterError> {
        self.invoke(op.name(), &[CallArg::Tensor(x)], None).and_then(required)
    }

    fn binary(&self, op: BinaryOp, a: &Tensor, b: &Tensor) -> Result<Tensor, AdapterError> {
        self.invoke(op.name(), &[CallArg::Tensor(a), CallArg::Tensor(b)], None).and_then(required)
    }

    fn binary_scalar(
        &self,
        op: BinaryOp,
        t: &Tensor,
        s: Scalar,
        side: ScalarSide,
    ) -> Result<Tensor, AdapterError> {
        self.invoke(op.name(), &CallArg::with_scalar(t, s, side), None).and_then(required)
    }

    fn binary_into(
        &self,
        op: BinaryOp,
        a: &Tensor,
        b: &Tensor,
        out: &mut Tensor,
    ) -> Result<(), AdapterError> {
        self.invoke(op.name(), &[CallArg::Tensor(a), CallArg::Tensor(b)], Some(out)).map(|_| ())
    }

    fn ternary(&self, op: TernaryOp, a: &Tensor, b: &Tensor, c: &Tensor) -> Result<Tensor, AdapterError> {
        self.invoke(op.name(), &[CallArg::Tensor(a), CallArg::Tensor(b), CallArg::Tensor(c)], None)
            .and_then(required)
    }

    fn scatter_add(
        &self,
        input: &Tensor,
        indices: &Tensor,
        updates: &Tensor,
        mode: ScatterMode,
    ) -> Result<Tensor, AdapterError> {
        let scatter = self
            .table()
            .scatter_add
            .ok_or_else(|| AdapterError::unsupported("the library has no `scatter_add` entry"))?;
        let d = |t: &Tensor| Desc::of(t, t.buffer().as_ptr().cast_mut().cast());
        let (i, x, u) = (d(input), d(indices), d(updates));
        let mode = match mode {
            ScatterMode::Ignore => 0,
            ScatterMode::Error => 1,
            ScatterMode::Clip => 2,
        };
        let (mut slot, mut err) = (Slot::new(), ErrorBuf::new());
        let _serial = self.calls.lock();
        // SAFETY: the descriptors, `slot` and `err` outlive the call.
        let status =
            unsafe { scatter(self.table().ctx, &i.raw, &x.raw, &u.raw, mode, slot.raw(), err.raw()) };
        err.check(status)?;
        slot.result()
    }
}

/// A result the library was to allocate.
fn required(result: Option<Tensor>) -> Result<Tensor, AdapterError> {
    result.ok_or_else(|| AdapterError::new(ErrorKind::Other, "the library returned no result"))
}

fn raw_dtype(dtype: DType) -> abi::Dtype {
    let DlType(code, bits, lanes) = DlType::of(dtype);
    abi::Dtype { code, bits, lanes }
}

/// A tensor descriptor with the shape and strides it points to.
struct Desc {
    _shape: Vec<i64>,
    _strides: Vec<i64>,
    raw: RawTensor,
}

impl Desc {
    /// Describes `t` over `data` (its buffer or a copy of it).
    fn of(t: &Tensor, data: *mut c_void) -> Desc {
        let shape: Vec<i64> = t.shape().iter().map(|&n| n as i64).collect();
        let strides: Vec<i64> = t.strides().iter().map(|&s| s as i64).collect();
        let raw = RawTensor {
            data,
            device: abi::CPU,
            ndim: shape.len() as i32,
            dtype: raw_dtype(t.dtype()),
            shape: shape.as_ptr(),
            strides: strides.as_ptr(),
            byte_offset: (t.offset() * t.dtype().size()) as u64,
        };
        Desc { _shape: shape, _strides: strides, raw }
    }

    /// Describes a row-major tensor of `dtype` and `dims` over `data`.
    fn row_major(dtype: DType, dims: &[usize], data: *mut c_void) -> Desc {
        let shape: Vec<i64> = dims.iter().map(|&n| n as i64).collect();
        let mut strides = vec![0i64; dims.len()];
        let mut step = 1i64;
        for (stride, &n) in strides.iter_mut().zip(&shape).rev() {
            *stride = step;
            step = step.saturating_mul(n.max(1));
        }
        let raw = RawTensor {
            data,
            device: abi::CPU,
            ndim: shape.len() as i32,
            dtype: raw_dtype(dtype),
            shape: shape.as_ptr(),
            strides: strides.as_ptr(),
            byte_offset: 0,
        };
        Desc { _shape: shape, _strides: strides, raw }
    }
}

/// The result a library asks the host for (`opspec_output`).
#[repr(C)]
struct Slot {
    raw: RawOutput,
    result: Option<(DType, Vec<usize>, Vec<u8>, Desc)>,
    refused: Option<String>,
}

impl Slot {
    fn new() -> Slot {
        let raw = RawOutput { alloc: alloc_result, host: std::ptr::null_mut() };
        Slot { raw, result: None, refused: None }
    }

    fn raw(&mut self) -> *mut RawOutput {
        &mut self.raw
    }

    /// The tensor the library wrote, once the call succeeded.
    fn result(mut self) -> Result<Tensor, AdapterError> {
        if let Some(why) = self.refused.take() {
            return Err(AdapterError::new(ErrorKind::Other, format!("the library's result: {why}")));
        }
        let (dtype, shape, data, _) = self.result.take().ok_or_else(|| {
            AdapterError::new(ErrorKind::Other, "the library returned OK without allocating a result")
        })?;
        Tensor::from_bytes(dtype, &shape, data)
    }
}

/// `opspec_output.alloc`: a zero-filled row-major tensor, once per call.
extern "C" fn alloc_result(
    output: *mut RawOutput,
    dtype: abi::Dtype,
    ndim: i32,
    shape: *const i64,
) -> *mut RawTensor {
    // SAFETY: the host hands out only the `raw` member of a live `Slot`, its first field
    // (`#[repr(C)]`).
    let slot = unsafe { &mut *output.cast::<Slot>() };
    let dims: Result<Vec<usize>, String> = match ndim {
        0 => Ok(Vec::new()),
        1..=64 if !shape.is_null() => {
            // SAFETY: opspec.h asks for `ndim` sizes at `shape`.
            let sizes = unsafe { std::slice::from_raw_parts(shape, ndim as usize) };
            sizes.iter().map(|&n| usize::try_from(n).map_err(|_| format!("a negative size {n}"))).collect()
        }
        _ => Err(format!("rank {ndim} with shape {shape:?}")),
    };
    let asked = dims.and_then(|dims| {
        if slot.result.is_some() {
            return Err("alloc was called twice".to_string());
        }
        let dtype = DlType(dtype.code, dtype.bits, dtype.lanes).dtype()?;
        let bytes = dims
            .iter()
            .try_fold(dtype.size(), |n, &d| n.checked_mul(d))
            .filter(|&n| n <= MAX_RESULT_BYTES)
            .ok_or_else(|| format!("a {dtype} result of shape {dims:?} is over {MAX_RESULT_BYTES} bytes"))?;
        Ok((dtype, dims, bytes))
    });
    match asked {
        Ok((dtype, dims, bytes)) => {
            let mut data = vec![0u8; bytes];
            let desc = Desc::row_major(dtype, &dims, data.as_mut_ptr().cast());
            let slot_result = slot.result.insert((dtype, dims, data, desc));
            &mut slot_result.3.raw
        }
        Err(why) => {
            slot.refused = Some(why);
            std::ptr::null_mut()
        }
    }
}

/// A caller-owned `opspec_error`.
struct ErrorBuf {
    message: Vec<c_char>,
    raw: RawError,
}

impl ErrorBuf {
    fn new() -> ErrorBuf {
        let mut message = vec![0 as c_char; MESSAGE_CAPACITY];
        let raw = RawError { message: message.as_mut_ptr(), capacity: message.len(), code: [0; 16] };
        ErrorBuf { message, raw }
    }

    fn raw(&mut self) -> *mut RawError {
        &mut self.raw
    }

    /// The text up to the first NUL (or the whole buffer, if the library wrote none).
    fn message_or(&self, none: &str) -> String {
        let text = nul_terminated(&self.message);
        if text.is_empty() { none.to_string() } else { text }
    }

    /// `Ok` for status 0, else the error the library reported.
    fn check(&self, status: i32) -> Result<(), AdapterError> {
        let kind = match status {
            0 => return Ok(()),
            1 => ErrorKind::Unsupported,
            2 => ErrorKind::ShapeMismatch,
            3 => ErrorKind::DTypeMismatch,
            4 => ErrorKind::NameMismatch,
            5 => ErrorKind::IndexDType,
            6 => ErrorKind::Rank,
            7 => ErrorKind::OutOfRange,
            8 => ErrorKind::NotContiguous,
            _ => ErrorKind::Other,
        };
        let message = self.message_or(&format!("the library returned status {status} with no message"));
        let error = AdapterError::new(kind, message);
        match nul_terminated(&self.raw.code) {
            code if code.is_empty() => Err(error),
            code => Err(error.with_code(code)),
        }
    }
}

fn nul_terminated(bytes: &[c_char]) -> String {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    let bytes: Vec<u8> = bytes[..end].iter().map(|&b| b as u8).collect();
    String::from_utf8_lossy(&bytes).into_owned()
}
