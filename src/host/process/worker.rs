//! One worker process: spawned with piped stdin, stdout and stderr, written to and read from
//! on threads of its own so that a worker that stops reading or answering can never block us
//! past a deadline, and killed when it misbehaves.
//!
//! The worker stays in our process group, so that Ctrl-C ends it with us even when it hangs;
//! the kill reaches the worker alone, so a worker that starts processes of its own must see to
//! it that they end with it.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Condvar, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use super::frame::{Frame, FrameError, read_frame, write_frame};

/// How many of a worker's last stderr lines a crash report quotes.
const TAIL_LINES: usize = 20;
/// How long a worker has to exit after its stdin closes.
const EXIT_GRACE: Duration = Duration::from_secs(1);

/// What to run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Launch {
    pub program: String,
    pub args: Vec<String>,
}

/// Why an exchange gave no reply.
#[derive(Debug)]
pub enum Fault {
    /// The worker ended (or closed its stdout): how, and its last stderr lines.
    Died(String),
    /// No reply within the deadline; the worker was killed.
    Hung(Duration),
    /// The worker wrote something that is not a frame.
    Garbage(FrameError),
}

/// A running worker.
pub struct Worker {
    child: Child,
    requests: Option<Sender<Frame>>,
    replies: Receiver<Result<Option<Frame>, FrameError>>,
    stderr: Arc<Tail>,
}

impl Worker {
    /// Starts `launch`; its stderr lines are copied to ours, prefixed with `[label]`.
    pub fn spawn(launch: &Launch, label: &str) -> Result<Worker, String> {
        let mut command = Command::new(&launch.program);
        command.args(&launch.args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = command.spawn().map_err(|e| format!("cannot start `{}`: {e}", launch.program))?;
        let (Some(stdin), Some(mut stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            let _ = child.kill();
            return Err("the worker's pipes were not opened".into());
        };
        let (requests, to_write) = mpsc::channel::<Frame>();
        let (replied, replies) = mpsc::channel();
        let tail = Arc::new(Tail::default());
        let spawned = thread::Builder::new()
            .name("worker-write".into())
            .spawn(move || write_loop(stdin, to_write))
            .and_then(|_| {
                thread::Builder::new().name("worker-read".into()).spawn(move || {
                    loop {
                        let frame = read_frame(&mut stdout);
                        let last = !matches!(frame, Ok(Some(_)));
                        if replied.send(frame).is_err() || last {
                            break;
                        }
                    }
                })
            })
            .and_then(|_| {
                let (tail, prefix) = (Arc::clone(&tail), format!("[{label}] "));
                thread::Builder::new()
                    .name("worker-stderr".into())
                    .spawn(move || tail.collect(stderr, &prefix))
            });
        let mut worker = Worker { child, requests: Some(requests), replies, stderr: tail };
        if let Err(e) = spawned {
            worker.kill();
            return Err(format!("cannot start the worker's threads: {e}"));
        }
        Ok(worker)
    }

    /// The worker's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends `request` and waits up to `deadline` for the reply frame. On any fault the
    /// worker is dead (killed if need be) and must be dropped.
    pub fn exchange(&mut self, request: Frame, deadline: Duration) -> Result<Frame, Fault> {
        let sent = self.requests.as_ref().is_some_and(|r| r.send(request).is_ok());
        if !sent {
            return Err(Fault::Died(self.died()));
        }
        match self.replies.recv_timeout(deadline) {
            Ok(Ok(Some(frame))) => Ok(frame),
            Ok(Ok(None)) | Err(RecvTimeoutError::Disconnected) => Err(Fault::Died(self.died())),
            Ok(Err(e @ (FrameError::Truncated { .. } | FrameError::Io(_)))) => {
                Err(Fault::Died(format!("{e}: {}", self.died())))
            }
            Ok(Err(garbage)) => {
                self.kill();
                Err(Fault::Garbage(garbage))
            }
            Err(RecvTimeoutError::Timeout) => {
                self.kill();
                Err(Fault::Hung(deadline))
            }
        }
    }

    /// Sends `request` without waiting for a reply (`shutdown`).
    pub fn send(&self, request: Frame) {
        if let Some(r) = &self.requests {
            let _ = r.send(request);
        }
    }

    /// How the worker ended (waiting for it briefly, then killing it), with its last stderr.
    fn died(&mut self) -> String {
        let status = self.wait_or_kill();
        let mut text = match status {
            Some(s) => format!("the worker ended ({s})"),
            None => "the worker closed its stdout".to_string(),
        };
        let lines = self.stderr.lines(EXIT_GRACE);
        if !lines.is_empty() {
            text.push_str(&format!("; its stderr ended with:\n    {}", lines.join("\n    ")));
        }
        text
    }

    /// The exit status after the grace period, or after killing the worker.
    fn wait_or_kill(&mut self) -> Option<ExitStatus> {
        self.requests = None;
        let until = Instant::now() + EXIT_GRACE;
        while Instant::now() < until {
            match self.child.try_wait() {
                Ok(Some(status)) => return Some(status),
                Ok(None) => thread::sleep(Duration::from_millis(2)),
                Err(_) => break,
            }
        }
        self.kill();
        self.child.wait().ok()
    }

    /// Kills the worker (`SIGKILL` on Unix).
    pub fn kill(&mut self) {
        self.requests = None;
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Worker {
    /// Closes the worker's stdin (which ends a well-behaved worker) and kills it if it is
    /// still there after the grace period.
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            self.wait_or_kill();
        }
    }
}

fn write_loop(mut stdin: ChildStdin, frames: Receiver<Frame>) {
    for frame in frames {
        if write_frame(&mut stdin, &frame.meta, &frame.data).and_then(|()| stdin.flush()).is_err() {
            break;
        }
    }
}

/// The last lines of a worker's stderr.
#[derive(Default)]
struct Tail {
    state: Mutex<(VecDeque<String>, bool)>,
    ended: Condvar,
}

impl Tail {
    /// Copies `stderr` line by line to ours and keeps the last lines, until it ends.
    fn collect(&self, stderr: impl std::io::Read, prefix: &str) {
        let mut reader = BufReader::new(stderr);
        let mut line = Vec::new();
        while matches!(reader.read_until(b'\n', &mut line), Ok(n) if n > 0) {
            let text = String::from_utf8_lossy(&line).trim_end().chars().take(500).collect::<String>();
            eprintln!("{prefix}{text}");
            if let Ok(mut state) = self.state.lock() {
                if state.0.len() == TAIL_LINES {
                    state.0.pop_front();
                }
                state.0.push_back(text);
            }
            line.clear();
        }
        if let Ok(mut state) = self.state.lock() {
            state.1 = true;
        }
        self.ended.notify_all();
    }

    /// The lines kept, once stderr has ended or `wait` has passed.
    fn lines(&self, wait: Duration) -> Vec<String> {
        let Ok(state) = self.state.lock() else { return Vec::new() };
        match self.ended.wait_timeout_while(state, wait, |s| !s.1) {
            Ok((state, _)) => state.0.iter().cloned().collect(),
            Err(_) => Vec::new(),
        }
    }
}
