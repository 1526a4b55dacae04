//! The C ABI of `adapters/ffi/include/opspec.h`, version 1.0, as Rust types.

use std::ffi::{c_char, c_void};

pub const ABI_MAJOR: u32 = 1;
pub const ABI_MINOR: u32 = 0;

/// The exported entry point's name.
pub const ENTRY: &[u8] = b"opspec_adapter_open\0";

pub const FORM_TENSORS: u32 = 0;
pub const FORM_SCALAR: u32 = 1;
pub const FORM_OUT: u32 = 2;

pub const ARG_TENSOR: u32 = 0;
pub const ARG_INT: u32 = 1;
pub const ARG_FLOAT: u32 = 2;

/// `DLDataType`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dtype {
    pub code: u8,
    pub bits: u8,
    pub lanes: u16,
}

/// `DLDevice`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Device {
    pub device_type: i32,
    pub device_id: i32,
}

/// `DLDevice` of host memory (`kDLCPU`).
pub const CPU: Device = Device { device_type: 1, device_id: 0 };

/// `opspec_tensor`, the layout of `DLTensor`.
#[repr(C)]
pub struct RawTensor {
    pub data: *mut c_void,
    pub device: Device,
    pub ndim: i32,
    pub dtype: Dtype,
    pub shape: *const i64,
    pub strides: *const i64,
    pub byte_offset: u64,
}

/// `opspec_error`.
#[repr(C)]
pub struct RawError {
    pub message: *mut c_char,
    pub capacity: usize,
    pub code: [c_char; 16],
}

/// `opspec_arg`.
#[repr(C)]
pub struct RawArg {
    pub kind: u32,
    pub tensor: *const RawTensor,
    pub int_value: i64,
    pub float_value: f64,
}

/// `opspec_output`.
#[repr(C)]
pub struct RawOutput {
    pub alloc: extern "C" fn(*mut RawOutput, Dtype, i32, *const i64) -> *mut RawTensor,
    pub host: *mut c_void,
}

pub type SupportsFn = unsafe extern "C" fn(*mut c_void, *const c_char, u32, Dtype, *mut RawError) -> i32;
pub type CallFn = unsafe extern "C" fn(
    *mut c_void,
    *const c_char,
    usize,
    *const RawArg,
    *mut RawTensor,
    *mut RawOutput,
    *mut RawError,
) -> i32;
pub type ScatterFn = unsafe extern "C" fn(
    *mut c_void,
    *const RawTensor,
    *const RawTensor,
    *const RawTensor,
    u32,
    *mut RawOutput,
    *mut RawError,
) -> i32;
pub type CloseFn = unsafe extern "C" fn(*mut c_void);
pub type OpenFn = unsafe extern "C" fn(u32, u32, *const c_char, *mut RawError) -> *const RawVtable;

/// `opspec_adapter` as of ABI 1.0.
#[repr(C)]
pub struct RawVtable {
    pub struct_size: usize,
    pub abi_major: u32,
    pub abi_minor: u32,
    pub name: *const c_char,
    pub version: *const c_char,
    pub ctx: *mut c_void,
    pub supports: Option<SupportsFn>,
    pub call: Option<CallFn>,
    pub scatter_add: Option<ScatterFn>,
    pub close: Option<CloseFn>,
}
