//! Workers that misbehave, scripted with `sh`: each replays a crafted byte stream (frames
//! built with our own encoder, then broken on purpose) and then does what the test needs.

use std::time::Duration;

use opspec_adapter::{Adapter, BinaryOp, DType, ErrorKind, OpKind, Reach, Support, Tensor};
use serde::Serialize;

use super::frame::write_frame;
use super::wire::{BufferRange, DlType, Form, PROTOCOL, Reply, SupportEntry, TensorDesc};
use super::{Launch, ProcessAdapter, ProcessOptions, STRIKES};

/// Replays the stream, then reads stdin until the host closes it.
const REPLAY: &str = "cat \"$1\"; cat >/dev/null";

fn frame<T: Serialize>(message: &T, data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    write_frame(&mut out, &serde_json::to_vec(message).unwrap(), data).unwrap();
    out
}

fn hello_with(support: Vec<SupportEntry>, protocol: u32) -> Vec<u8> {
    let hello = Reply::Hello {
        id: 0,
        protocol,
        name: "scripted".into(),
        version: "0".into(),
        platform: "sh".into(),
        support,
        checker: false,
        views: Default::default(),
    };
    frame(&hello, &[])
}

fn entry(op: &str, form: Form) -> SupportEntry {
    SupportEntry { op: op.into(), form, dtype: DlType::of(DType::F32), unsupported: None }
}

fn hello() -> Vec<u8> {
    hello_with(vec![entry("add", Form::Tensors), entry("add", Form::Out)], PROTOCOL)
}

/// A `result` reply whose tensor claims `dtype` and `shape` over `data`.
fn result(id: u64, dtype: DType, shape: &[usize], data: &[u8]) -> Vec<u8> {
    result_warning(id, dtype, shape, data, &[])
}

/// [`result`], with the library's `warnings`.
fn result_warning(id: u64, dtype: DType, shape: &[usize], data: &[u8], warnings: &[&str]) -> Vec<u8> {
    let desc = TensorDesc {
        dtype: DlType::of(dtype),
        shape: shape.to_vec(),
        strides: vec![1; shape.len()],
        byte_offset: 0,
        buffer: 0,
        names: None,
    };
    let buffers = vec![BufferRange { offset: 0, len: data.len() as u64 }];
    let warnings = warnings.iter().map(|w| w.to_string()).collect();
    frame(&Reply::Result { id, result: desc, buffers, warnings }, data)
}

/// `sh -c SCRIPT sh FILE`, where FILE holds `stream`.
fn scripted(
    name: &str,
    stream: &[u8],
    script: &str,
    call_timeout: Duration,
) -> Result<ProcessAdapter, String> {
    let dir = std::env::temp_dir().join(format!("opspec-process-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(format!("{name}.bin"));
    std::fs::write(&file, stream).unwrap();
    let args = vec!["-c".into(), script.into(), "sh".into(), file.display().to_string()];
    ProcessAdapter::start(ProcessOptions {
        name: name.into(),
        spec: format!("process:sh -c '{script}'"),
        launch: Launch { program: "sh".into(), args },
        call_timeout,
        start_timeout: Duration::from_secs(30),
    })
}

fn f32s(n: usize) -> Tensor {
    Tensor::from_slice(&vec![1.0f32; n], &[n]).unwrap()
}

fn start_error(name: &str, stream: &[u8], script: &str) -> String {
    match scripted(name, stream, script, Duration::from_secs(30)) {
        Ok(_) => panic!("{name}: the worker started"),
        Err(e) => e,
    }
}

#[test]
fn a_worker_that_cannot_say_hello_is_unavailable_with_the_reason() {
    let garbage = start_error("garbage", b"Hello, I am not a worker\n", REPLAY);
    assert!(garbage.contains("adapter `garbage`") && garbage.contains("garbage on the pipe"), "{garbage}");
    assert!(garbage.contains("(\"Hell\")"), "{garbage}");
    let exited = start_error("exits", b"", "echo 'cannot import numpy' >&2; exit 3");
    assert!(exited.contains("exit status: 3") && exited.contains("cannot import numpy"), "{exited}");
    let json = start_error(
        "json",
        &{
            let mut v = Vec::new();
            write_frame(&mut v, b"{\"type\": \"hello\", oops", &[]).unwrap();
            v
        },
        REPLAY,
    );
    assert!(json.contains("bad hello") && json.contains("bad message"), "{json}");
    let short = start_error("short", &hello()[..30], "cat \"$1\"");
    assert!(short.contains("the stream ended inside a frame") && short.contains("exit status: 0"), "{short}");
}

#[test]
fn a_hello_that_lies_is_refused() {
    let unknown =
        start_error("unknown", &hello_with(vec![entry("frobnicate", Form::Tensors)], PROTOCOL), REPLAY);
    assert!(
        unknown.contains("adapter `unknown`") && unknown.contains("unknown op `frobnicate`"),
        "{unknown}"
    );
    let form = start_error("form", &hello_with(vec![entry("fused_mul_add", Form::Scalar)], PROTOCOL), REPLAY);
    assert!(form.contains("which it does not have"), "{form}");
    let twice = start_error("twice", &hello_with(vec![entry("add", Form::Tensors); 2], PROTOCOL), REPLAY);
    assert!(twice.contains("twice"), "{twice}");
    let newer = start_error("newer", &hello_with(Vec::new(), PROTOCOL + 1), REPLAY);
    assert!(newer.contains(&format!("speaks protocol {}", PROTOCOL + 1)), "{newer}");
}

#[test]
fn bad_results_are_errors_naming_the_adapter_and_the_worker_stays() {
    let mut stream = hello();
    stream.extend(result(1, DType::F32, &[4], &[0; 8]));
    stream.extend(result(2, DType::I32, &[2], &[0; 8]));
    stream.extend(result(7, DType::F32, &[2], &[0; 8]));
    let w = scripted("bad", &stream, REPLAY, Duration::from_secs(30)).unwrap();
    assert_eq!(w.supports(OpKind::Binary(BinaryOp::Add), DType::F32), Support::Supported);
    assert!(matches!(w.supports(OpKind::Binary(BinaryOp::Pow), DType::F32), Support::Unsupported(_)));
    let size = w.binary(BinaryOp::Add, &f32s(4), &f32s(4)).unwrap_err().message;
    assert!(
        size.contains("adapter `bad`") && size.contains("bad result") && size.contains("reaches outside"),
        "{size}"
    );
    let mut out = f32s(2);
    let dtype = w.binary_into(BinaryOp::Add, &f32s(2), &f32s(2), &mut out).unwrap_err().message;
    assert!(dtype.contains("the result is i32 [2], the destination f32 [2]"), "{dtype}");
    let id = w.binary(BinaryOp::Add, &f32s(2), &f32s(2)).unwrap_err();
    assert_eq!(id.kind, ErrorKind::Crashed, "a garbled stream ends its worker");
    assert!(
        id.message.contains("answers request 7, not 3") && id.message.contains("a new worker starts"),
        "{id}"
    );
}

#[test]
fn a_crash_names_the_signal_and_the_request_and_a_group_that_keeps_crashing_stops() {
    let w = scripted(
        "crash",
        &hello(),
        "cat \"$1\"; echo 'about to fall over' >&2; kill -SEGV $$",
        Duration::from_secs(30),
    )
    .unwrap();
    for _ in 0..STRIKES {
        let crash = w.binary(BinaryOp::Add, &f32s(4), &f32s(4)).unwrap_err();
        assert_eq!(crash.kind, ErrorKind::Crashed, "no refusal of the library's: {crash}");
        let e = crash.message;
        assert!(e.contains("SIGSEGV") && e.contains("(call add: f32 [4], f32 [4])"), "{e}");
        assert!(e.contains("about to fall over") && e.contains("a new worker starts"), "{e}");
    }
    let stopped = w.binary(BinaryOp::Add, &f32s(4), &f32s(4)).unwrap_err();
    assert_eq!(stopped.kind, ErrorKind::Crashed, "a call left unrun has no result either");
    assert!(
        stopped.message.contains(&format!("not run: the worker failed the last {STRIKES} calls of add f32")),
        "{stopped}"
    );
    let other = w.binary_into(BinaryOp::Add, &f32s(4), &f32s(4), &mut f32s(4)).unwrap_err();
    assert!(other.message.contains("SIGSEGV"), "another group still runs: {}", other.message);
}

#[test]
fn a_hang_is_killed_at_the_deadline() {
    let w = scripted("hang", &hello(), "cat \"$1\"; exec sleep 60", Duration::from_millis(300)).unwrap();
    let hung = w.binary(BinaryOp::Add, &f32s(4), &f32s(4)).unwrap_err();
    assert_eq!(hung.kind, ErrorKind::Crashed);
    assert!(
        hung.message.contains("did not answer within 0.3 s") && hung.message.contains("SIGKILL"),
        "{hung}"
    );
}

/// `frame` with its header's data length set to `len` (the data itself not sent).
fn announcing(mut frame: Vec<u8>, len: u64) -> Vec<u8> {
    frame[8..16].copy_from_slice(&len.to_le_bytes());
    frame
}

/// A hello that announces 60 GiB of data (under the frame's 64 GiB limit), and then sends
/// none of it: refused from the header, where waiting for the data would hang until the start
/// time-out.
#[test]
fn a_hello_with_data_is_refused_unread() {
    let e = start_error("big-hello", &announcing(hello(), 60 << 30), "cat \"$1\"; exec sleep 60");
    assert!(
        e.contains("adapter `big-hello`")
            && e.contains("no hello from `sh -c")
            && e.contains("bad frame: the data length is 64424509440 bytes, more than the 0 allowed")
            && e.contains("the worker was killed"),
        "{e}"
    );
}

/// A result's data is bounded by its request: the request's own data (here two `f32 [4]`
/// operands at offsets 0 and 64: 80 bytes), the result's elements at 16 bytes (64) and one
/// alignment (64): 208 bytes pass, 209 and 1 GiB are refused from the header.
#[test]
fn a_result_larger_than_its_request_can_produce_is_refused_unread() {
    let mut stream = hello();
    stream.extend(result(1, DType::F32, &[4], &[0; 208]));
    stream.extend(result(2, DType::F32, &[4], &[0; 209]));
    let w = scripted("bound", &stream, REPLAY, Duration::from_secs(30)).unwrap();
    assert_eq!(w.binary(BinaryOp::Add, &f32s(4), &f32s(4)).unwrap().to_vec::<f32>().unwrap(), [0.0; 4]);
    let over = w.binary(BinaryOp::Add, &f32s(4), &f32s(4)).unwrap_err().message;
    assert!(
        over.contains("request 2 (call add: f32 [4], f32 [4]): bad frame: the data length is 209 bytes, more than the 208 allowed")
            && over.contains("a new worker starts"),
        "{over}"
    );
    let silent = [hello(), announcing(result(1, DType::F32, &[4], &[]), 1 << 30)].concat();
    let w = scripted("silent", &silent, "cat \"$1\"; exec sleep 60", Duration::from_secs(30)).unwrap();
    let e = w.binary(BinaryOp::Add, &f32s(4), &f32s(4)).unwrap_err().message;
    assert!(
        e.contains("adapter `silent`")
            && e.contains("request 1 (call add: f32 [4], f32 [4]): bad frame: the data length is 1073741824 bytes, more than the 208 allowed"),
        "{e}"
    );
}

/// A worker that writes 10 MB to stderr without a newline and crashes: the crash report
/// quotes the line shortened, with its length.
#[test]
fn an_endless_stderr_line_is_cut() {
    let w = scripted(
        "flood",
        &hello(),
        "cat \"$1\"; head -c 10000000 /dev/zero | tr '\\0' x >&2; kill -SEGV $$",
        Duration::from_secs(30),
    )
    .unwrap();
    let e = w.binary(BinaryOp::Add, &f32s(4), &f32s(4)).unwrap_err().message;
    let quoted = format!("    {}… [line cut at 65536 of its 10000000 bytes]", "x".repeat(500));
    assert!(e.contains("SIGSEGV") && e.contains(&quoted), "{}", &e[..e.len().min(2000)]);
}

#[test]
fn a_workers_views_say_how_each_layout_reaches_its_library() {
    let hello_views = |views: &[(&str, &str)]| {
        let hello = Reply::Hello {
            id: 0,
            protocol: PROTOCOL,
            name: "views".into(),
            version: "0".into(),
            platform: "sh".into(),
            support: vec![entry("add", Form::Tensors)],
            checker: false,
            views: views.iter().map(|&(t, r)| (t.to_string(), r.to_string())).collect(),
        };
        frame(&hello, &[])
    };
    let adapter = scripted(
        "views",
        &hello_views(&[("offset", "view"), ("negative", "copy")]),
        REPLAY,
        Duration::from_secs(30),
    )
    .unwrap();
    let base = f32s(8);
    let offset = base.view(&[7], &[1], 1).unwrap();
    let reversed = base.view(&[8], &[-1], 7).unwrap();
    let reversed_offset = base.view(&[7], &[-1], 7).unwrap();
    let stepped = base.view(&[4], &[2], 0).unwrap();
    let reach = adapter
        .reach(OpKind::Binary(BinaryOp::Add), &[&base, &offset, &reversed, &reversed_offset, &stepped]);
    assert_eq!(reach, [Reach::View, Reach::View, Reach::Copy, Reach::Copy, Reach::Unknown]);
    let bad = start_error("bad-views", &hello_views(&[("offset", "maybe")]), REPLAY);
    assert!(bad.contains("its views map says `maybe` for `offset` (view or copy)"), "{bad}");
}

/// An `error` reply of the worker's own `step` and a `result` reply, each with warnings: the
/// warnings are raised on the calling thread, and the step error is an adapter error naming it.
#[test]
fn replies_raise_their_warnings_and_a_step_error_names_the_step() {
    use crate::host::warnings::collect;

    let step = "building operand x1 (f32 [4])";
    let mut stream = hello();
    stream.extend(frame(
        &Reply::Error {
            id: 1,
            kind: "other".into(),
            code: None,
            message: format!("adapter error (its own step failed, not add): {step}: ValueError: no"),
            step: Some(step.into()),
            warnings: vec!["UserWarning: lossy cast".into()],
        },
        &[],
    ));
    let warned = ["UserWarning: lossy cast", "RuntimeWarning: slow path"];
    stream.extend(result_warning(2, DType::F32, &[4], &[0; 16], &warned));
    let w = scripted("warns", &stream, REPLAY, Duration::from_secs(30)).unwrap();
    let (error, first) = collect(|| w.binary(BinaryOp::Add, &f32s(4), &f32s(4)).unwrap_err());
    assert_eq!(error.kind, ErrorKind::Adapter);
    assert_eq!(error.to_string(), format!("adapter: adapter error at step {step}: ValueError: no"));
    assert_eq!(first, ["UserWarning: lossy cast"]);
    let (sum, second) = collect(|| w.binary(BinaryOp::Add, &f32s(4), &f32s(4)));
    assert_eq!(sum.unwrap().to_vec::<f32>().unwrap(), [0.0; 4]);
    assert_eq!(second, warned);
}
