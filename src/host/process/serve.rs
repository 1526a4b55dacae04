//! The worker side of the protocol: answers a host's requests with any [`Adapter`].

use std::io::{BufReader, BufWriter, Read, Write};

use opspec_adapter::{Adapter, AdapterError, DType, OpKind, ScalarSide, Support, Tensor};

use super::frame::{MAX_DATA, read_frame, write_frame};
use super::wire::{self, Arg, Encoder, Form, PROTOCOL, Reply, Request, SupportEntry};

/// Answers requests read from `input` with `adapter` until `shutdown` or the end of `input`.
///
/// A request the adapter cannot take is answered with an `error`; only an unreadable stream
/// (which the host never sends) ends the loop with an error.
pub fn serve(adapter: &dyn Adapter, input: impl Read, output: impl Write) -> Result<(), String> {
    let (mut input, mut output) = (BufReader::new(input), BufWriter::new(output));
    loop {
        let frame = match read_frame(&mut input, MAX_DATA) {
            Ok(Some(f)) => f,
            Ok(None) => return Ok(()),
            Err(e) => return Err(format!("the host's request: {e}")),
        };
        let request: Request = wire::parse(&frame).map_err(|e| format!("the host's request: {e}"))?;
        let (reply, data) = match request {
            Request::Shutdown { .. } => return Ok(()),
            Request::Hello { id, ops, dtypes, .. } => (hello(adapter, id, &ops, &dtypes), Vec::new()),
            Request::Call { id, op, args, out, buffers } => {
                answer(id, call(adapter, &op, &args, out.as_ref(), &buffers, &frame.data))
            }
            Request::ScatterAdd { id, input, indices, updates, mode, buffers } => {
                let t = |d| wire::tensor(d, &buffers, &frame.data).map_err(bad_request);
                let result = (|| {
                    let mode = wire::mode(&mode).map_err(bad_request)?;
                    adapter.scatter_add(&t(&input)?, &t(&indices)?, &t(&updates)?, mode)
                })();
                answer(id, result)
            }
            Request::CheckShape { id, op, operands } => {
                let checked = (|| {
                    let checker = adapter
                        .checker()
                        .ok_or_else(|| AdapterError::unsupported("this adapter has no shape checker"))?;
                    let op = op.parse().map_err(bad_request)?;
                    let operands = operands.iter().map(wire::operand).collect::<Result<Vec<_>, _>>();
                    checker.check(op, &operands.map_err(bad_request)?)
                })();
                match checked {
                    Ok(c) => (wire::checked_reply(id, &c), Vec::new()),
                    Err(e) => (Reply::error(id, &e), Vec::new()),
                }
            }
        };
        write_frame(&mut output, &wire::frame(&reply, Vec::new()).meta, &data)
            .and_then(|()| output.flush())
            .map_err(|e| format!("cannot write a reply: {e}"))?;
    }
}

/// The file descriptor the protocol's replies go to: the process's original stdout, after
/// which fd 1 points at stderr, so that stray prints of the adapter cannot corrupt frames.
#[cfg(unix)]
pub fn protocol_stdout() -> std::io::Result<std::fs::File> {
    use std::os::fd::FromRawFd;
    std::io::stdout().flush()?;
    // SAFETY: dup and dup2 on the standard descriptors; the new descriptor is owned by the
    // returned File alone.
    unsafe {
        let saved = libc::dup(1);
        if saved < 0 || libc::dup2(2, 1) < 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(std::fs::File::from_raw_fd(saved))
    }
}

fn bad_request(message: String) -> AdapterError {
    AdapterError::unsupported(format!("cannot read the request: {message}"))
}

/// A `result` or `error` reply with its data section.
fn answer(id: u64, result: Result<Tensor, AdapterError>) -> (Reply, Vec<u8>) {
    match result {
        Ok(t) => {
            let mut enc = Encoder::default();
            let result = enc.tensor(&t);
            (Reply::Result { id, result, buffers: enc.buffers, warnings: Vec::new() }, enc.data)
        }
        Err(e) => (Reply::error(id, &e), Vec::new()),
    }
}

/// The `hello` reply: what the adapter supports of what the host asks about.
fn hello(adapter: &dyn Adapter, id: u64, ops: &[String], dtypes: &[wire::DlType]) -> Reply {
    let dtypes: Vec<(wire::DlType, DType)> =
        dtypes.iter().filter_map(|&d| d.dtype().ok().map(|t| (d, t))).collect();
    let mut support = Vec::new();
    for op in ops {
        for form in [Form::Tensors, Form::Scalar, Form::Out] {
            let Some(kind) = wire::op_kind(op, form) else { continue };
            for &(code, dtype) in &dtypes {
                let unsupported = match adapter.supports(kind, dtype) {
                    Support::Supported => None,
                    Support::Unsupported(reason) => Some(reason),
                };
                support.push(SupportEntry { op: op.clone(), form, dtype: code, unsupported });
            }
        }
    }
    Reply::Hello {
        id,
        protocol: PROTOCOL,
        name: adapter.name().to_string(),
        version: adapter.version(),
        platform: format!("{}-{}", std::env::consts::ARCH, std::env::consts::OS),
        support,
        checker: adapter.checker().is_some(),
        views: Default::default(),
    }
}

/// Runs a `call` on the adapter.
fn call(
    adapter: &dyn Adapter,
    op: &str,
    args: &[Arg],
    out: Option<&wire::TensorDesc>,
    buffers: &[wire::BufferRange],
    data: &[u8],
) -> Result<Tensor, AdapterError> {
    let tensor = |d| wire::tensor(d, buffers, data).map_err(bad_request);
    let scalar_side = match args {
        [Arg::Scalar { .. }, Arg::Tensor(_)] => Some(ScalarSide::Left),
        [Arg::Tensor(_), Arg::Scalar { .. }] => Some(ScalarSide::Right),
        _ => None,
    };
    let form = match (out, scalar_side) {
        (Some(_), _) => Form::Out,
        (None, Some(_)) => Form::Scalar,
        (None, None) => Form::Tensors,
    };
    let unsupported =
        || AdapterError::unsupported(format!("`{op}` in form {form:?} with {} operands", args.len()));
    let kind = wire::op_kind(op, form).ok_or_else(unsupported)?;
    let tensors = args
        .iter()
        .filter_map(|a| match a {
            Arg::Tensor(d) => Some(tensor(d)),
            Arg::Scalar { .. } => None,
        })
        .collect::<Result<Vec<_>, _>>()?;
    match (kind, &tensors[..], out) {
        (OpKind::Unary(u), [x], None) => adapter.unary(u, x),
        (OpKind::Binary(b), [x, y], None) => adapter.binary(b, x, y),
        (OpKind::Ternary(t), [x, y, z], None) => adapter.ternary(t, x, y, z),
        (OpKind::BinaryInto(b), [x, y], Some(out)) => {
            let mut out = tensor(out)?;
            adapter.binary_into(b, x, y, &mut out).map(|()| out)
        }
        (OpKind::BinaryScalar(b), [t], None) => {
            let s = args.iter().find_map(|a| match a {
                Arg::Scalar { scalar } => Some(wire::scalar(scalar)),
                Arg::Tensor(_) => None,
            });
            let s = s.ok_or_else(unsupported)?.map_err(bad_request)?;
            adapter.binary_scalar(b, t, s, scalar_side.unwrap_or(ScalarSide::Right))
        }
        _ => Err(unsupported()),
    }
}

#[cfg(test)]
mod tests {
    use opspec_adapter::{BinaryOp, ErrorKind};

    use super::super::frame::Frame;
    use super::super::wire::{DlType, TensorDesc};
    use super::*;

    /// Adds f32 tensors of one shape; nothing else.
    struct Adds;

    impl Adapter for Adds {
        fn name(&self) -> &str {
            "adds"
        }
        fn version(&self) -> String {
            "1".into()
        }
        fn supports(&self, op: OpKind, dtype: DType) -> Support {
            match (op, dtype) {
                (OpKind::Binary(BinaryOp::Add), DType::F32) => Support::Supported,
                _ => Support::Unsupported("adds only".into()),
            }
        }
        fn binary(&self, _: BinaryOp, a: &Tensor, b: &Tensor) -> Result<Tensor, AdapterError> {
            let sum: Vec<f32> =
                a.to_vec::<f32>()?.iter().zip(b.to_vec::<f32>()?).map(|(x, y)| x + y).collect();
            Tensor::from_slice(&sum, a.shape())
        }
    }

    fn call(id: u64, op: &str, a: &Tensor, b: &Tensor) -> Frame {
        let mut enc = Encoder::default();
        let args = vec![Arg::Tensor(enc.tensor(a)), Arg::Tensor(enc.tensor(b))];
        wire::frame(&Request::Call { id, op: op.into(), args, out: None, buffers: enc.buffers }, enc.data)
    }

    #[test]
    fn serve_answers_hello_calls_and_errors_until_shutdown() {
        let a = Tensor::from_slice(&[1.0f32, 2.0, 3.0, 4.0], &[4]).unwrap().view(&[2], &[-2], 3).unwrap();
        let b = Tensor::from_slice(&[0.5f32], &[1]).unwrap().view(&[2], &[0], 0).unwrap();
        let requests = [
            wire::frame(
                &Request::Hello {
                    id: 0,
                    protocol: PROTOCOL,
                    host: "test".into(),
                    ops: vec!["add".into(), "pow".into()],
                    dtypes: vec![DlType::of(DType::F32), DlType(5, 32, 1)],
                },
                Vec::new(),
            ),
            call(1, "add", &a, &b),
            call(2, "frobnicate", &a, &b),
            wire::frame(&Request::Shutdown { id: 3 }, Vec::new()),
            call(4, "add", &a, &b),
        ];
        let mut input = Vec::new();
        for f in &requests {
            write_frame(&mut input, &f.meta, &f.data).unwrap();
        }
        let mut output = Vec::new();
        serve(&Adds, &input[..], &mut output).unwrap();
        let mut replies = &output[..];
        let mut next = || read_frame(&mut replies, MAX_DATA).unwrap();
        let hello: Reply = wire::parse(&next().unwrap()).unwrap();
        let Reply::Hello { support, protocol, .. } = hello else { panic!("{hello:?}") };
        assert_eq!(protocol, PROTOCOL);
        let supported: Vec<_> =
            support.iter().filter(|e| e.unsupported.is_none()).map(|e| (&e.op[..], e.form)).collect();
        assert_eq!(supported, [("add", Form::Tensors)]);
        assert_eq!(support.len(), 6, "add and pow in three forms each, f32 only: {support:?}");
        let sum = next().unwrap();
        let Reply::Result { id: 1, result, buffers, .. } = wire::parse::<Reply>(&sum).unwrap() else {
            panic!()
        };
        let result: TensorDesc = result;
        assert_eq!(wire::tensor(&result, &buffers, &sum.data).unwrap().to_vec::<f32>().unwrap(), [4.5, 2.5]);
        let Reply::Error { id: 2, kind, .. } = wire::parse::<Reply>(&next().unwrap()).unwrap() else {
            panic!()
        };
        assert_eq!(kind, ErrorKind::Unsupported.name());
        assert!(next().is_none(), "nothing is answered after shutdown");
    }
}
