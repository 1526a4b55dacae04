//! The messages of the protocol (`docs/PROTOCOL.md`) as serde types, and the conversions
//! between them and the adapter API's tensors, dtypes, scalars and errors.

use opspec_adapter::{
    AdapterError, BinaryOp, Checked, DType, ErrorKind, NamedAxis, OpKind, Operand, Scalar, ScatterMode,
    Tensor, TernaryOp, UnaryOp, ValueKind,
};
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::frame::Frame;

/// The protocol version this build speaks.
pub const PROTOCOL: u32 = 1;

/// Where buffers start in the data sections we write.
pub const ALIGN: usize = 64;

/// A dtype as DLPack's `DLDataType`: `[code, bits, lanes]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct DlType(pub u8, pub u8, pub u16);

impl DlType {
    /// The DLPack code of `dtype`.
    pub fn of(dtype: DType) -> DlType {
        let (code, bits) = match dtype {
            DType::I8 | DType::I16 | DType::I32 | DType::I64 => (0, 8 * dtype.size()),
            DType::U8 | DType::U16 | DType::U32 | DType::U64 => (1, 8 * dtype.size()),
            DType::BF16 => (4, 16),
            DType::Bool => (6, 8),
            // DLPack's kDLComplex: the bits of the whole element (both parts).
            DType::C64 | DType::C128 => (5, 8 * dtype.size()),
            _ => (2, 8 * dtype.size()),
        };
        DlType(code, bits as u8, 1)
    }

    /// The opspec dtype with this code.
    pub fn dtype(self) -> Result<DType, String> {
        DType::ALL.into_iter().find(|&d| DlType::of(d) == self).ok_or_else(|| {
            let DlType(code, bits, lanes) = self;
            format!("dtype [{code}, {bits}, {lanes}] is not one opspec knows")
        })
    }
}

/// A byte range of a frame's data section.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BufferRange {
    pub offset: u64,
    pub len: u64,
}

/// A tensor: DLPack's `DLTensor` layout with its buffer named by index.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TensorDesc {
    pub dtype: DlType,
    pub shape: Vec<usize>,
    /// In elements.
    pub strides: Vec<i64>,
    pub byte_offset: u64,
    pub buffer: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub names: Option<Vec<Option<String>>>,
}

/// A host scalar: `{"int": -3}` or `{"float": "0x…"}` (the `f64` bits).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WireScalar {
    Int(i64),
    Float(String),
}

/// One operand of a `call`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Arg {
    Scalar { scalar: WireScalar },
    Tensor(TensorDesc),
}

/// How a `call`'s operands and result are given (a key of the support map with the op name).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Form {
    /// Tensor operands, a new result.
    #[default]
    Tensors,
    /// One operand is a host scalar.
    Scalar,
    /// The result goes into a destination.
    Out,
}

/// One entry of a worker's support map.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SupportEntry {
    pub op: String,
    #[serde(default, skip_serializing_if = "is_default")]
    pub form: Form,
    pub dtype: DlType,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unsupported: Option<String>,
}

fn is_default(form: &Form) -> bool {
    *form == Form::Tensors
}

/// An axis of a named shape.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WireAxis {
    pub name: Option<String>,
    pub size: usize,
}

/// An operand of `check_shape`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WireOperand {
    pub kind: String,
    pub dtype: Option<DlType>,
    pub shape: Vec<WireAxis>,
}

/// What the host sends.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Request {
    Hello {
        id: u64,
        protocol: u32,
        host: String,
        ops: Vec<String>,
        dtypes: Vec<DlType>,
    },
    Call {
        id: u64,
        op: String,
        args: Vec<Arg>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        out: Option<TensorDesc>,
        #[serde(default)]
        buffers: Vec<BufferRange>,
    },
    ScatterAdd {
        id: u64,
        input: TensorDesc,
        indices: TensorDesc,
        updates: TensorDesc,
        mode: String,
        #[serde(default)]
        buffers: Vec<BufferRange>,
    },
    CheckShape {
        id: u64,
        op: String,
        operands: Vec<WireOperand>,
    },
    Shutdown {
        id: u64,
    },
}

/// What a worker answers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Reply {
    Hello {
        id: u64,
        protocol: u32,
        name: String,
        version: String,
        #[serde(default)]
        platform: String,
        support: Vec<SupportEntry>,
        #[serde(default)]
        checker: bool,
        /// How operands with each layout trait reach the library (`docs/PROTOCOL.md`,
        /// "Views"): trait name to `view` or `copy`; optional.
        #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
        views: BTreeMap<String, String>,
    },
    Result {
        id: u64,
        result: TensorDesc,
        #[serde(default)]
        buffers: Vec<BufferRange>,
        /// The library's warnings during the request; optional.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        warnings: Vec<String>,
    },
    Checked {
        id: u64,
        shape: Vec<WireAxis>,
        kind: String,
        alignment: Option<Vec<Vec<Option<usize>>>>,
    },
    Error {
        id: u64,
        kind: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        code: Option<String>,
        message: String,
        /// The worker's own step that failed (building an operand, converting a result), if
        /// the error is not the operation's; optional.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        step: Option<String>,
        /// The library's warnings during the request; optional.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        warnings: Vec<String>,
    },
}

impl Reply {
    /// The id of the request it answers.
    pub fn id(&self) -> u64 {
        match self {
            Reply::Hello { id, .. }
            | Reply::Result { id, .. }
            | Reply::Checked { id, .. }
            | Reply::Error { id, .. } => *id,
        }
    }

    /// An `error` reply for `e`.
    pub fn error(id: u64, e: &AdapterError) -> Reply {
        Reply::Error {
            id,
            kind: e.kind.name().to_string(),
            code: e.code.clone(),
            message: e.message.clone(),
            step: None,
            warnings: Vec::new(),
        }
    }
}

/// A message and its data section as one frame.
pub fn frame<T: Serialize>(message: &T, data: Vec<u8>) -> Frame {
    // Serializing these types cannot fail: every map key is a string.
    Frame { meta: serde_json::to_vec(message).unwrap_or_default(), data }
}

/// Reads the message of `frame`.
pub fn parse<T: for<'de> Deserialize<'de>>(frame: &Frame) -> Result<T, String> {
    serde_json::from_slice(&frame.meta).map_err(|e| {
        let start = String::from_utf8_lossy(&frame.meta[..frame.meta.len().min(120)]).into_owned();
        format!("bad message ({e}): {start}")
    })
}

/// The names of the operations a host asks about, in a fixed order.
pub fn op_names() -> Vec<String> {
    let unary = UnaryOp::ALL.into_iter().map(UnaryOp::name);
    let binary = BinaryOp::ALL.into_iter().map(BinaryOp::name);
    let ternary = TernaryOp::ALL.into_iter().map(TernaryOp::name);
    unary.chain(binary).chain(ternary).chain(["scatter_add"]).map(str::to_string).collect()
}

/// The wire name and form of `op`; `None` for an operation the protocol has no form for yet.
pub fn op_form(op: OpKind) -> Option<(&'static str, Form)> {
    Some(match op {
        OpKind::Unary(u) => (u.name(), Form::Tensors),
        OpKind::Binary(b) => (b.name(), Form::Tensors),
        OpKind::BinaryScalar(b) => (b.name(), Form::Scalar),
        OpKind::BinaryInto(b) => (b.name(), Form::Out),
        OpKind::Ternary(t) => (t.name(), Form::Tensors),
        OpKind::ScatterAdd => ("scatter_add", Form::Tensors),
        _ => return None,
    })
}

/// The operation a wire name and form stand for.
pub fn op_kind(name: &str, form: Form) -> Option<OpKind> {
    if let Ok(b) = name.parse::<BinaryOp>() {
        return Some(match form {
            Form::Tensors => OpKind::Binary(b),
            Form::Scalar => OpKind::BinaryScalar(b),
            Form::Out => OpKind::BinaryInto(b),
        });
    }
    if let (Ok(u), Form::Tensors) = (name.parse::<UnaryOp>(), form) {
        return Some(OpKind::Unary(u));
    }
    match (name, form) {
        ("scatter_add", Form::Tensors) => Some(OpKind::ScatterAdd),
        (_, Form::Tensors) => name.parse::<TernaryOp>().ok().map(OpKind::Ternary),
        _ => None,
    }
}

/// The wire name of a scatter mode.
pub fn mode_name(mode: ScatterMode) -> &'static str {
    match mode {
        ScatterMode::Ignore => "ignore",
        ScatterMode::Error => "error",
        ScatterMode::Clip => "clip",
    }
}

/// The scatter mode of a wire name.
pub fn mode(name: &str) -> Result<ScatterMode, String> {
    [ScatterMode::Ignore, ScatterMode::Error, ScatterMode::Clip]
        .into_iter()
        .find(|&m| mode_name(m) == name)
        .ok_or_else(|| format!("unknown scatter mode `{name}`"))
}

/// A scalar as sent.
pub fn wire_scalar(s: Scalar) -> WireScalar {
    match s {
        Scalar::Int(i) => WireScalar::Int(i),
        Scalar::Float(f) => WireScalar::Float(format!("0x{:016x}", f.to_bits())),
    }
}

/// A scalar as received.
pub fn scalar(s: &WireScalar) -> Result<Scalar, String> {
    match s {
        WireScalar::Int(i) => Ok(Scalar::Int(*i)),
        WireScalar::Float(text) => text
            .strip_prefix("0x")
            .filter(|d| d.len() == 16)
            .and_then(|d| u64::from_str_radix(d, 16).ok())
            .map(|bits| Scalar::Float(f64::from_bits(bits)))
            .ok_or_else(|| format!("float scalar `{text}` is not 0x and 16 hex digits")),
    }
}

/// An error reply as the adapter API's error: one that names the worker's own `step` is an
/// [`ErrorKind::Adapter`] error whatever its kind (its message without the step's name where it
/// repeats it: a worker's message must stand alone for hosts that do not read `step`); an
/// unknown kind is read as `other`.
pub fn adapter_error(kind: &str, code: Option<String>, message: &str, step: Option<&str>) -> AdapterError {
    if let Some(step) = step {
        let why = message.split_once(&format!("{step}: ")).map_or(message, |(_, why)| why);
        return AdapterError::at_step(step, why);
    }
    // `crashed` is the hosts' to say: a worker that sends it is read as `other`.
    let known = ErrorKind::ALL.into_iter().filter(|&k| k != ErrorKind::Crashed);
    let error = match known.into_iter().find(|k| k.name() == kind) {
        Some(k) => AdapterError::new(k, message),
        None => AdapterError::new(ErrorKind::Other, format!("(error kind `{kind}`) {message}")),
    };
    match code {
        Some(c) => error.with_code(c),
        None => error,
    }
}

/// Builds a data section: each tensor's whole buffer at a multiple of 64 bytes.
#[derive(Default)]
pub struct Encoder {
    pub data: Vec<u8>,
    pub buffers: Vec<BufferRange>,
}

impl Encoder {
    /// Adds `t`'s buffer and describes `t` as the view of it that it is.
    pub fn tensor(&mut self, t: &Tensor) -> TensorDesc {
        self.data.resize(self.data.len().next_multiple_of(ALIGN), 0);
        let offset = self.data.len() as u64;
        self.data.extend_from_slice(t.buffer());
        self.buffers.push(BufferRange { offset, len: t.buffer().len() as u64 });
        TensorDesc {
            dtype: DlType::of(t.dtype()),
            shape: t.shape().to_vec(),
            strides: t.strides().iter().map(|&s| s as i64).collect(),
            byte_offset: (t.offset() * t.dtype().size()) as u64,
            buffer: self.buffers.len() - 1,
            names: t.names().map(<[_]>::to_vec),
        }
    }
}

/// The tensor `desc` describes, checked against the buffers and data it refers to.
pub fn tensor(desc: &TensorDesc, buffers: &[BufferRange], data: &[u8]) -> Result<Tensor, String> {
    let dtype = desc.dtype.dtype()?;
    let size = dtype.size();
    let range = buffers
        .get(desc.buffer)
        .ok_or_else(|| format!("tensor names buffer {}, the message lists {}", desc.buffer, buffers.len()))?;
    let end = range.offset.checked_add(range.len).filter(|&e| e <= data.len() as u64).ok_or_else(|| {
        format!(
            "buffer {} ({} bytes at {}) is outside the data section of {} bytes",
            desc.buffer,
            range.len,
            range.offset,
            data.len()
        )
    })?;
    let bytes = &data[range.offset as usize..end as usize];
    if !bytes.len().is_multiple_of(size) || !desc.byte_offset.is_multiple_of(size as u64) {
        return Err(format!(
            "a {dtype} tensor needs whole elements: buffer of {} bytes, byte offset {}",
            bytes.len(),
            desc.byte_offset
        ));
    }
    if desc.strides.len() != desc.shape.len() {
        return Err(format!("shape {:?} and strides {:?} differ in rank", desc.shape, desc.strides));
    }
    let strides: Vec<isize> = desc.strides.iter().map(|&s| s as isize).collect();
    let numel = desc.shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d));
    let tensor =
        if desc.byte_offset == 0 && strides == row_major(&desc.shape) && numel == Some(bytes.len() / size) {
            // The common case, a contiguous result filling its buffer: no second copy.
            Tensor::from_bytes(dtype, &desc.shape, bytes.to_vec())
        } else {
            Tensor::from_bytes(dtype, &[bytes.len() / size], bytes.to_vec())
                .and_then(|base| base.view(&desc.shape, &strides, (desc.byte_offset / size as u64) as usize))
        }
        .map_err(|e| format!("bad {dtype} tensor of shape {:?}: {}", desc.shape, e.message))?;
    match &desc.names {
        Some(names) => tensor.with_names(names.clone()).map_err(|e| e.message),
        None => Ok(tensor),
    }
}

/// Row-major strides, in elements.
fn row_major(shape: &[usize]) -> Vec<isize> {
    let mut strides = vec![0isize; shape.len()];
    let mut step = 1isize;
    for (stride, &n) in strides.iter_mut().zip(shape).rev() {
        *stride = step;
        step = step.saturating_mul(n.max(1) as isize);
    }
    strides
}

/// A named-axis operand as sent.
pub fn wire_operand(o: &Operand) -> WireOperand {
    WireOperand {
        kind: o.kind.name().to_string(),
        dtype: o.dtype.map(DlType::of),
        shape: wire_axes(&o.shape),
    }
}

/// A named-axis operand as received.
pub fn operand(o: &WireOperand) -> Result<Operand, String> {
    Ok(Operand {
        kind: o.kind.parse::<ValueKind>()?,
        dtype: o.dtype.map(DlType::dtype).transpose()?,
        shape: axes(&o.shape),
    })
}

/// Named axes as sent.
pub fn wire_axes(axes: &[NamedAxis]) -> Vec<WireAxis> {
    axes.iter().map(|a| WireAxis { name: a.name.clone(), size: a.size }).collect()
}

/// Named axes as received.
pub fn axes(axes: &[WireAxis]) -> Vec<NamedAxis> {
    axes.iter().map(|a| NamedAxis { name: a.name.clone(), size: a.size }).collect()
}

/// A `checked` reply for a checker's answer.
pub fn checked_reply(id: u64, c: &Checked) -> Reply {
    Reply::Checked {
        id,
        shape: wire_axes(&c.shape),
        kind: c.kind.name().to_string(),
        alignment: c.alignment.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_dtype_has_its_dlpack_code() {
        for d in DType::ALL {
            assert_eq!(DlType::of(d).dtype(), Ok(d));
        }
        assert_eq!(DlType::of(DType::BF16), DlType(4, 16, 1));
        assert_eq!(DlType::of(DType::Bool), DlType(6, 8, 1));
        assert_eq!(DlType::of(DType::U16), DlType(1, 16, 1));
        assert_eq!(DlType::of(DType::C64), DlType(5, 64, 1));
        assert_eq!(DlType::of(DType::C128), DlType(5, 128, 1));
        assert!(DlType(5, 32, 1).dtype().unwrap_err().contains("[5, 32, 1]"));
        assert_eq!(serde_json::to_string(&DlType::of(DType::F32)).unwrap(), "[2,32,1]");
    }

    #[test]
    fn views_travel_as_views() {
        let base = Tensor::from_slice(&[1i32, 2, 3, 4, 5, 6], &[6]).unwrap();
        let view = base.view(&[2, 2], &[-2, 1], 4).unwrap();
        let mut enc = Encoder::default();
        let desc = enc.tensor(&view);
        assert_eq!((desc.byte_offset, &desc.strides[..]), (16, &[-2i64, 1][..]));
        let back = tensor(&desc, &enc.buffers, &enc.data).unwrap();
        assert_eq!(back.to_vec::<i32>().unwrap(), [5, 6, 3, 4]);
    }

    #[test]
    fn tensors_that_do_not_fit_are_errors() {
        let t = Tensor::from_slice(&[1.0f32, 2.0], &[2]).unwrap();
        let mut enc = Encoder::default();
        let desc = enc.tensor(&t);
        let wrong_size = TensorDesc { shape: vec![3], strides: vec![1], ..desc.clone() };
        let err = tensor(&wrong_size, &enc.buffers, &enc.data).unwrap_err();
        assert!(err.contains("reaches outside"), "{err}");
        let odd = [BufferRange { offset: 0, len: 7 }];
        assert!(tensor(&desc, &odd, &enc.data).unwrap_err().contains("whole elements"));
        let outside = [BufferRange { offset: 4, len: 8 }];
        assert!(tensor(&desc, &outside, &enc.data).unwrap_err().contains("outside the data section"));
        let unknown = TensorDesc { dtype: DlType(5, 32, 1), ..desc.clone() };
        assert!(tensor(&unknown, &enc.buffers, &enc.data).unwrap_err().contains("not one opspec knows"));
        assert!(
            tensor(&TensorDesc { buffer: 3, ..desc }, &enc.buffers, &enc.data)
                .unwrap_err()
                .contains("buffer 3")
        );
    }

    #[test]
    fn scalars_are_bits_and_errors_keep_their_kind() {
        let nan = Scalar::Float(f64::from_bits(0x7ff8_0000_0000_0001));
        let w = wire_scalar(nan);
        assert_eq!(w, WireScalar::Float("0x7ff8000000000001".into()));
        assert!(matches!(scalar(&w), Ok(Scalar::Float(f)) if f.to_bits() == 0x7ff8_0000_0000_0001));
        assert!(scalar(&WireScalar::Float("1.5".into())).is_err());
        assert_eq!(adapter_error("rank", None, "x", None).kind, ErrorKind::Rank);
        let odd = adapter_error("cosmic_ray", Some("E1".into()), "x", None);
        assert_eq!((odd.kind, odd.code.as_deref()), (ErrorKind::Other, Some("E1")));
        assert!(odd.message.contains("cosmic_ray"));
    }

    /// `warnings` (result and error replies) and `step` (error replies) are optional: replies
    /// without them, as workers wrote them before, read as before.
    #[test]
    fn warnings_and_step_are_optional_fields_of_replies() {
        let read = |json: &str| -> Reply {
            parse(&Frame { meta: json.as_bytes().to_vec(), data: Vec::new() }).unwrap()
        };
        let desc = r#"{"dtype":[2,32,1],"shape":[1],"strides":[1],"byte_offset":0,"buffer":0}"#;
        let Reply::Result { warnings, .. } = read(&format!(r#"{{"type":"result","id":1,"result":{desc}}}"#))
        else {
            panic!("not a result")
        };
        assert!(warnings.is_empty());
        let with =
            read(&format!(r#"{{"type":"result","id":1,"result":{desc},"warnings":["UserWarning: lossy"]}}"#));
        assert!(matches!(with, Reply::Result { warnings, .. } if warnings == ["UserWarning: lossy"]));
        let old = read(r#"{"type":"error","id":2,"kind":"rank","message":"m"}"#);
        assert!(matches!(&old, Reply::Error { step: None, warnings, .. } if warnings.is_empty()), "{old:?}");
        let new = read(
            r#"{"type":"error","id":2,"kind":"other","step":"building operand x1 (f32 [])","warnings":["W"],
                "message":"adapter error (its own step failed, not add): building operand x1 (f32 []): ValueError: 0-d"}"#,
        );
        let Reply::Error { kind, code, message, step, warnings, .. } = new else { panic!("not an error") };
        assert_eq!(warnings, ["W"]);
        let e = adapter_error(&kind, code, &message, step.as_deref());
        assert_eq!(e.kind, ErrorKind::Adapter);
        assert_eq!(e.message, "adapter error at step building operand x1 (f32 []): ValueError: 0-d");
        // A message that does not repeat the step is kept whole.
        assert_eq!(adapter_error("other", None, "boom", Some("s")).message, "adapter error at step s: boom");
        // `crashed` is the host's own kind: a worker that sends it sends an error, no crash.
        assert_eq!(adapter_error("crashed", None, "boom", None).kind, ErrorKind::Other);
        // Written without them, as `serve` writes an error.
        let plain = serde_json::to_string(&Reply::error(3, &AdapterError::unsupported("no"))).unwrap();
        assert!(!plain.contains("step") && !plain.contains("warnings"), "{plain}");
    }

    #[test]
    fn op_names_and_forms_round_trip() {
        for name in op_names() {
            let kind = op_kind(&name, Form::Tensors).unwrap();
            assert_eq!(op_form(kind), Some((name.as_str(), Form::Tensors)));
        }
        assert_eq!(op_kind("add", Form::Out), Some(OpKind::BinaryInto(BinaryOp::Add)));
        assert_eq!(op_kind("fused_mul_add", Form::Scalar), None);
        assert_eq!(op_kind("frobnicate", Form::Tensors), None);
        let args: Vec<Arg> = serde_json::from_str(r#"[{"scalar":{"int":-3}}]"#).unwrap();
        assert_eq!(args, [Arg::Scalar { scalar: WireScalar::Int(-3) }]);
    }
}
