//! `ProcessAdapter`: an [`Adapter`] whose implementation runs in worker processes that speak
//! the protocol, so that its crashes, hangs and garbage become failed calls.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use opspec_adapter::{
    Adapter, AdapterError, Checked, DType, ErrorKind, NamedOp, OpKind, Operand, Reach, Scalar, ScalarSide,
    ScatterMode, ShapeChecker, Support, Tensor,
};

use super::frame::Frame;
use super::wire::{self, Arg, DlType, Encoder, Form, PROTOCOL, Reply, Request};
use super::worker::{Fault, Launch, Worker};

/// Consecutive crashes, hangs or garbled replies on one (operation, form, dtype) after which
/// its remaining calls fail unrun.
pub const STRIKES: u32 = 3;

/// How a [`ProcessAdapter`] runs its workers.
#[derive(Clone, Debug)]
pub struct ProcessOptions {
    /// The adapter's name in check ids.
    pub name: String,
    /// The spec it was given as (`process:…`, `lib:…`), for messages.
    pub spec: String,
    pub launch: Launch,
    /// How long a call may take before the worker is killed as hung.
    pub call_timeout: Duration,
    /// How long a new worker may take to answer `hello`.
    pub start_timeout: Duration,
}

/// What a worker's `hello` said.
#[derive(Debug)]
struct Hello {
    version: String,
    support: HashMap<(OpKind, DType), Support>,
    checker: bool,
    /// How operands with each layout trait reach the library, as the worker says.
    views: HashMap<String, Reach>,
}

/// An adapter served by worker processes: one per concurrent call, started on demand and
/// reused; a worker that crashes, hangs or garbles its reply is killed and replaced.
pub struct ProcessAdapter {
    options: ProcessOptions,
    hello: Hello,
    idle: Mutex<Vec<Worker>>,
    next_id: AtomicU64,
    /// Per group (`add f32`): consecutive faults and the last one.
    strikes: Mutex<HashMap<String, (u32, String)>>,
}

impl ProcessAdapter {
    /// Starts the first worker and reads its `hello`; the error says why the adapter is
    /// unavailable.
    pub fn start(options: ProcessOptions) -> Result<ProcessAdapter, String> {
        let mut adapter = ProcessAdapter {
            hello: Hello {
                version: String::new(),
                support: HashMap::new(),
                checker: false,
                views: HashMap::new(),
            },
            options,
            idle: Mutex::new(Vec::new()),
            next_id: AtomicU64::new(1),
            strikes: Mutex::new(HashMap::new()),
        };
        let (worker, hello) = adapter.start_worker().map_err(|e| adapter.context(&e))?;
        adapter.hello = hello;
        adapter.park(worker);
        Ok(adapter)
    }

    /// `adapter `name` (spec): message`.
    fn context(&self, message: &str) -> String {
        format!("adapter `{}` ({}): {message}", self.options.name, self.options.spec)
    }

    /// Spawns a worker and has it say `hello`.
    fn start_worker(&self) -> Result<(Worker, Hello), String> {
        let mut worker = Worker::spawn(&self.options.launch, &self.options.name)?;
        let request = Request::Hello {
            id: 0,
            protocol: PROTOCOL,
            host: format!("opspec {}", env!("CARGO_PKG_VERSION")),
            ops: wire::op_names(),
            dtypes: DType::ALL.into_iter().map(DlType::of).collect(),
        };
        // A hello carries no tensor, so no data.
        let reply = worker
            .exchange(wire::frame(&request, Vec::new()), 0, self.options.start_timeout)
            .map_err(|f| format!("no hello from `{}`: {}", self.launch_text(), fault_text(&f)))?;
        let hello =
            read_hello(&reply).map_err(|e| format!("bad hello from `{}`: {e}", self.launch_text()))?;
        Ok((worker, hello))
    }

    fn launch_text(&self) -> String {
        let l = &self.options.launch;
        std::iter::once(&l.program).chain(&l.args).cloned().collect::<Vec<_>>().join(" ")
    }

    fn park(&self, worker: Worker) {
        if let Ok(mut idle) = self.idle.lock() {
            idle.push(worker);
        }
    }

    /// Sends one request built by `build` (given its id) and returns the reply with its data
    /// section, bounded by [`max_reply_data`] of the request and its tensor `operands`, or an
    /// [`ErrorKind::Crashed`] error; `group` keys the strike count, `what` describes the
    /// request in messages.
    fn request(
        &self,
        group: String,
        what: &str,
        operands: &[&Tensor],
        build: impl FnOnce(u64) -> Frame,
    ) -> Result<(Reply, Vec<u8>), AdapterError> {
        if let Some((n, last)) = self.strikes.lock().ok().and_then(|s| s.get(&group).cloned())
            && n >= STRIKES
        {
            return Err(self.crashed(format!(
                "not run: the worker failed the last {n} calls of {group} in a row (the last: {last}), so the rest of them fail unrun"
            )));
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let strike = |message: &str| {
            if let Ok(mut s) = self.strikes.lock() {
                let entry = s.entry(group.clone()).or_insert((0, String::new()));
                *entry = (entry.0 + 1, message.to_string());
            }
        };
        let parked = self.idle.lock().ok().and_then(|mut idle| idle.pop());
        let mut worker = match parked.map_or_else(|| self.start_worker().map(|(w, _)| w), Ok) {
            Ok(w) => w,
            Err(e) => {
                // A worker that no longer starts (or hangs before `hello`) counts as a fault too.
                let message = format!("request {id} ({what}): cannot start a new worker: {e}");
                strike(&message);
                return Err(self.crashed(message));
            }
        };
        let pid = worker.pid();
        let request = build(id);
        let max_data = max_reply_data(&request, operands);
        let answered = worker
            .exchange(request, max_data, self.options.call_timeout)
            .map_err(|f| fault_text(&f))
            .and_then(|frame| {
                let reply: Reply = wire::parse(&frame)?;
                match reply.id() {
                    answered if answered == id => Ok((reply, frame.data)),
                    other => Err(format!("the reply answers request {other}, not {id}")),
                }
            });
        match answered {
            Ok(reply) => {
                self.park(worker);
                if let Ok(mut s) = self.strikes.lock() {
                    s.remove(&group);
                }
                Ok(reply)
            }
            Err(e) => {
                // Its stream cannot be trusted any more: it goes, and the next call starts another.
                drop(worker);
                let message = format!("worker {pid}, request {id} ({what}): {e}");
                strike(&message);
                Err(self.crashed(format!("{message}; a new worker starts for the next call")))
            }
        }
    }

    /// An error of ours about this adapter.
    fn error(&self, message: String) -> AdapterError {
        AdapterError::new(ErrorKind::Other, self.context(&message))
    }

    /// A call that gave no result because its worker faulted (died, hung, garbled its stream,
    /// or would not start), or because earlier faults stopped the calls of its group: not a
    /// refusal of the library's, so no check accepts it ([`ErrorKind::Crashed`]).
    fn crashed(&self, message: String) -> AdapterError {
        AdapterError::new(ErrorKind::Crashed, self.context(&message))
    }

    /// A `call` whose reply is a tensor (checked against `out`'s dtype and shape, if given).
    fn call(&self, op: &str, args: &[CallArg], out: Option<&Tensor>) -> Result<Tensor, AdapterError> {
        let dtype = args.iter().find_map(|a| match a {
            CallArg::Tensor(t) => Some(t.dtype()),
            CallArg::Scalar(_) => None,
        });
        let form = match (out, args.iter().any(|a| matches!(a, CallArg::Scalar(_)))) {
            (Some(_), _) => Form::Out,
            (None, true) => Form::Scalar,
            (None, false) => Form::Tensors,
        };
        let shown: Vec<String> = args.iter().map(CallArg::describe).collect();
        let what = format!("call {op}: {}", shown.join(", "));
        let operands: Vec<&Tensor> = args
            .iter()
            .filter_map(|a| match a {
                CallArg::Tensor(t) => Some(*t),
                CallArg::Scalar(_) => None,
            })
            .chain(out)
            .collect();
        let (reply, data) = self.request(group(op, form, dtype), &what, &operands, |id| {
            let mut enc = Encoder::default();
            let args = args
                .iter()
                .map(|a| match a {
                    CallArg::Tensor(t) => Arg::Tensor(enc.tensor(t)),
                    CallArg::Scalar(s) => Arg::Scalar { scalar: wire::wire_scalar(*s) },
                })
                .collect();
            let out = out.map(|t| enc.tensor(t));
            wire::frame(&Request::Call { id, op: op.to_string(), args, out, buffers: enc.buffers }, enc.data)
        })?;
        let result = self.tensor_reply(&what, reply, &data)?;
        match out {
            Some(out) if result.dtype() != out.dtype() || result.shape() != out.shape() => {
                Err(self.error(format!(
                    "{what}: the result is {} {:?}, the destination {} {:?}",
                    result.dtype(),
                    result.shape(),
                    out.dtype(),
                    out.shape()
                )))
            }
            _ => Ok(result),
        }
    }

    /// The tensor of a `result` reply, or the error it carries.
    fn tensor_reply(&self, what: &str, reply: Reply, data: &[u8]) -> Result<Tensor, AdapterError> {
        match reply {
            Reply::Result { result, buffers, warnings, .. } => {
                crate::host::warnings::raise(warnings);
                wire::tensor(&result, &buffers, data)
                    .map_err(|e| self.error(format!("{what}: bad result: {e}")))
            }
            Reply::Error { kind, code, message, step, warnings, .. } => {
                crate::host::warnings::raise(warnings);
                Err(wire::adapter_error(&kind, code, &message, step.as_deref()))
            }
            other => {
                Err(self.error(format!("{what}: expected a result or an error, got {}", reply_type(&other))))
            }
        }
    }
}

/// An operand of a call, as both out-of-process forms (the protocol and the C ABI) pass it.
pub enum CallArg<'a> {
    Tensor(&'a Tensor),
    Scalar(Scalar),
}

impl<'a> CallArg<'a> {
    /// The operands of `binary_scalar`: the tensor and the scalar, in the order `side` says.
    pub fn with_scalar(tensor: &'a Tensor, scalar: Scalar, side: ScalarSide) -> [CallArg<'a>; 2] {
        match side {
            ScalarSide::Left => [CallArg::Scalar(scalar), CallArg::Tensor(tensor)],
            ScalarSide::Right => [CallArg::Tensor(tensor), CallArg::Scalar(scalar)],
        }
    }

    /// `f32 [4096]`, `scalar 1.5`.
    fn describe(&self) -> String {
        match self {
            CallArg::Tensor(t) => format!("{} {:?}", t.dtype(), t.shape()),
            CallArg::Scalar(Scalar::Int(i)) => format!("scalar {i}"),
            CallArg::Scalar(Scalar::Float(f)) => format!("scalar {f:?}"),
        }
    }
}

/// The strike group of a call: `add f32`, `add_into f32`, `add with a scalar f32`.
fn group(op: &str, form: Form, dtype: Option<DType>) -> String {
    let form = match form {
        Form::Tensors => "",
        Form::Scalar => " with a scalar",
        Form::Out => "_into",
    };
    match dtype {
        Some(d) => format!("{op}{form} {d}"),
        None => format!("{op}{form}"),
    }
}

fn reply_type(reply: &Reply) -> &'static str {
    match reply {
        Reply::Hello { .. } => "a hello",
        Reply::Result { .. } => "a result",
        Reply::Checked { .. } => "a checked",
        Reply::Error { .. } => "an error",
    }
}

/// The most data a reply to `request` may carry (`docs/PROTOCOL.md`, "Frames"): none where
/// the request has no tensor `operands` (its reply has no tensor); else the request's own data
/// section (a result may be a view of an operand's buffer, as a destination is), plus the
/// elements of the operands' shapes broadcast leniently (each axis at its largest size, lined
/// up from the right) at the widest dtype, plus one alignment's padding.
fn max_reply_data(request: &Frame, operands: &[&Tensor]) -> u64 {
    if operands.is_empty() {
        return 0;
    }
    // Axis sizes from the last axis on.
    let mut sizes: Vec<u64> = Vec::new();
    for t in operands {
        for (i, &n) in t.shape().iter().rev().enumerate() {
            match sizes.get_mut(i) {
                Some(size) => *size = (*size).max(n as u64),
                None => sizes.push(n as u64),
            }
        }
    }
    let elements = sizes.iter().fold(1u64, |n, &size| n.saturating_mul(size));
    let widest = DType::ALL.iter().map(|d| d.size() as u64).max().unwrap_or(16);
    (request.data.len() as u64)
        .saturating_add(elements.saturating_mul(widest))
        .saturating_add(wire::ALIGN as u64)
}

/// A fault in words.
fn fault_text(fault: &Fault) -> String {
    match fault {
        Fault::Died(how) => how.clone(),
        Fault::Hung(after) => {
            format!("the worker did not answer within {:.1} s and was killed (SIGKILL)", after.as_secs_f64())
        }
        Fault::Garbage(e) => format!("{e}; the worker was killed"),
    }
}

/// Reads and checks a `hello` reply.
fn read_hello(frame: &Frame) -> Result<Hello, String> {
    let Reply::Hello { id: _, protocol, name, version, platform, support, checker, views } =
        wire::parse(frame)?
    else {
        return Err("the first reply is not a hello".into());
    };
    if protocol != PROTOCOL {
        return Err(format!("the worker speaks protocol {protocol}, this opspec speaks protocol {PROTOCOL}"));
    }
    let known = wire::op_names();
    let mut map = HashMap::new();
    for entry in support {
        if !known.contains(&entry.op) {
            return Err(format!(
                "its support map names the unknown op `{}` (this opspec asked about {})",
                entry.op,
                known.join(", ")
            ));
        }
        let op = wire::op_kind(&entry.op, entry.form).ok_or_else(|| {
            format!("its support map lists `{}` in form {:?}, which it does not have", entry.op, entry.form)
        })?;
        let dtype = entry.dtype.dtype().map_err(|e| format!("its support map lists {}: {e}", entry.op))?;
        let support = entry.unsupported.map_or(Support::Supported, Support::Unsupported);
        if map.insert((op, dtype), support).is_some() {
            return Err(format!("its support map lists {op} for {dtype} twice"));
        }
    }
    let views = views
        .into_iter()
        .map(|(layout, reach)| match reach.as_str() {
            "view" => Ok((layout, Reach::View)),
            "copy" => Ok((layout, Reach::Copy)),
            other => Err(format!("its views map says `{other}` for `{layout}` (view or copy)")),
        })
        .collect::<Result<_, _>>()?;
    let platform = if platform.is_empty() { String::new() } else { format!(" ({platform})") };
    Ok(Hello { version: format!("{name} {version}{platform}"), support: map, checker, views })
}

impl Adapter for ProcessAdapter {
    fn name(&self) -> &str {
        &self.options.name
    }

    fn version(&self) -> String {
        self.hello.version.clone()
    }

    fn supports(&self, op: OpKind, dtype: DType) -> Support {
        self.hello.support.get(&(op, dtype)).cloned().unwrap_or_else(|| {
            Support::Unsupported(format!("the worker's hello does not list {op} for {dtype}"))
        })
    }

    fn unary(&self, op: opspec_adapter::UnaryOp, x: &Tensor) -> Result<Tensor, AdapterError> {
        self.call(op.name(), &[CallArg::Tensor(x)], None)
    }

    fn binary(&self, op: opspec_adapter::BinaryOp, a: &Tensor, b: &Tensor) -> Result<Tensor, AdapterError> {
        self.call(op.name(), &[CallArg::Tensor(a), CallArg::Tensor(b)], None)
    }

    fn binary_scalar(
        &self,
        op: opspec_adapter::BinaryOp,
        tensor: &Tensor,
        scalar: Scalar,
        side: ScalarSide,
    ) -> Result<Tensor, AdapterError> {
        self.call(op.name(), &CallArg::with_scalar(tensor, scalar, side), None)
    }

    fn binary_into(
        &self,
        op: opspec_adapter::BinaryOp,
        a: &Tensor,
        b: &Tensor,
        out: &mut Tensor,
    ) -> Result<(), AdapterError> {
        let result = self.call(op.name(), &[CallArg::Tensor(a), CallArg::Tensor(b)], Some(out))?;
        *out = into_layout(&result, out).map_err(|e| self.error(format!("{op}_into: {e}")))?;
        Ok(())
    }

    fn ternary(
        &self,
        op: opspec_adapter::TernaryOp,
        a: &Tensor,
        b: &Tensor,
        c: &Tensor,
    ) -> Result<Tensor, AdapterError> {
        self.call(op.name(), &[CallArg::Tensor(a), CallArg::Tensor(b), CallArg::Tensor(c)], None)
    }

    fn scatter_add(
        &self,
        input: &Tensor,
        indices: &Tensor,
        updates: &Tensor,
        mode: ScatterMode,
    ) -> Result<Tensor, AdapterError> {
        let what = format!(
            "scatter_add: {} {:?}, {} {:?}, {} {:?}, {}",
            input.dtype(),
            input.shape(),
            indices.dtype(),
            indices.shape(),
            updates.dtype(),
            updates.shape(),
            wire::mode_name(mode)
        );
        let (reply, data) = self.request(
            group("scatter_add", Form::Tensors, Some(input.dtype())),
            &what,
            &[input, indices, updates],
            |id| {
                let mut enc = Encoder::default();
                let (input, indices, updates) = (enc.tensor(input), enc.tensor(indices), enc.tensor(updates));
                let mode = wire::mode_name(mode).to_string();
                wire::frame(
                    &Request::ScatterAdd { id, input, indices, updates, mode, buffers: enc.buffers },
                    enc.data,
                )
            },
        )?;
        self.tensor_reply(&what, reply, &data)
    }

    fn checker(&self) -> Option<&dyn ShapeChecker> {
        self.hello.checker.then_some(self as &dyn ShapeChecker)
    }

    /// From the worker's `views` map: a copy if any trait of the operand's layout is copied, a
    /// view if every trait is passed as a view (a row-major whole buffer has none), unknown
    /// otherwise.
    fn reach(&self, _op: OpKind, operands: &[&Tensor]) -> Vec<Reach> {
        operands
            .iter()
            .map(|t| {
                let each: Vec<Reach> = crate::generate::layouts::layout_traits(t)
                    .into_iter()
                    .map(|name| self.hello.views.get(name).copied().unwrap_or(Reach::Unknown))
                    .collect();
                if each.contains(&Reach::Copy) {
                    Reach::Copy
                } else if each.contains(&Reach::Unknown) {
                    Reach::Unknown
                } else {
                    Reach::View
                }
            })
            .collect()
    }
}

impl ShapeChecker for ProcessAdapter {
    fn check(&self, op: NamedOp, operands: &[Operand]) -> Result<Checked, AdapterError> {
        let what = format!("check_shape {op}");
        let (reply, _) = self.request(format!("check_shape {op}"), &what, &[], |id| {
            let operands = operands.iter().map(wire::wire_operand).collect();
            wire::frame(&Request::CheckShape { id, op: op.name().to_string(), operands }, Vec::new())
        })?;
        match reply {
            Reply::Checked { shape, kind, alignment, .. } => Ok(Checked {
                shape: wire::axes(&shape),
                kind: kind.parse().map_err(|e| self.error(format!("{what}: {e}")))?,
                alignment,
            }),
            Reply::Error { kind, code, message, step, warnings, .. } => {
                crate::host::warnings::raise(warnings);
                Err(wire::adapter_error(&kind, code, &message, step.as_deref()))
            }
            other => {
                Err(self.error(format!("{what}: expected checked or an error, got {}", reply_type(&other))))
            }
        }
    }
}

impl Drop for ProcessAdapter {
    /// Asks every idle worker to shut down; each is killed if it has not exited a second later.
    fn drop(&mut self) {
        let workers = self.idle.get_mut().map(std::mem::take).unwrap_or_default();
        for w in &workers {
            w.send(wire::frame(&Request::Shutdown { id: 0 }, Vec::new()));
        }
        drop(workers);
    }
}

/// `result`'s elements laid out as `out` is (its shape, strides, offset and names).
fn into_layout(result: &Tensor, out: &Tensor) -> Result<Tensor, AdapterError> {
    if out.is_contiguous() && out.names().is_none() {
        return Ok(result.to_contiguous());
    }
    let size = out.dtype().size();
    let mut data = out.buffer().to_vec();
    let values = result.to_contiguous();
    let values = values.buffer();
    for (i, p) in out.element_positions().enumerate() {
        data[p * size..(p + 1) * size].copy_from_slice(&values[i * size..(i + 1) * size]);
    }
    let len = data.len() / size;
    let laid =
        Tensor::from_bytes(out.dtype(), &[len], data)?.view(out.shape(), out.strides(), out.offset())?;
    match out.names() {
        Some(names) => laid.with_names(names.to_vec()),
        None => Ok(laid),
    }
}
