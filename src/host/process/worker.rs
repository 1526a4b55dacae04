//! One worker process: spawned with piped stdin, stdout and stderr, written to and read from
//! on threads of its own so that a worker that stops reading or answering can never block us
//! past a deadline, and killed when it misbehaves.
//!
//! The worker stays in our process group, so that Ctrl-C ends it with us even when it hangs;
//! the kill reaches the worker alone, so a worker that starts processes of its own must see to
//! it that they end with it.

use std::collections::VecDeque;
use std::io::{self, BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Condvar, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use super::frame::{Frame, FrameError, read_frame, write_frame};

/// How many of a worker's last stderr lines a crash report quotes.
const TAIL_LINES: usize = 20;
/// How many characters of each of those lines it quotes.
const TAIL_CHARS: usize = 500;
/// The longest stderr line copied to ours, in bytes: a longer one is cut there and the rest of
/// it skipped, so that a worker that never ends a line costs no memory.
const LINE_BYTES: usize = 64 << 10;
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
    /// The data bound of each reply to read, sent as its request is.
    bounds: Sender<u64>,
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
        let (bounds, to_read) = mpsc::channel::<u64>();
        let (replied, replies) = mpsc::channel();
        let tail = Arc::new(Tail::default());
        let spawned = thread::Builder::new()
            .name("worker-write".into())
            .spawn(move || write_loop(stdin, to_write))
            .and_then(|_| {
                thread::Builder::new().name("worker-read".into()).spawn(move || {
                    // One reply per request, each read under its request's bound.
                    for max_data in to_read {
                        let frame = read_frame(&mut stdout, max_data);
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
        let mut worker = Worker { child, requests: Some(requests), bounds, replies, stderr: tail };
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

    /// Sends `request` and waits up to `deadline` for the reply frame, whose data section may
    /// hold at most `max_data` bytes (a longer one is garbage, refused unread). On any fault
    /// the worker is dead (killed if need be) and must be dropped.
    pub fn exchange(&mut self, request: Frame, max_data: u64, deadline: Duration) -> Result<Frame, Fault> {
        let sent = self.bounds.send(max_data).is_ok()
            && self.requests.as_ref().is_some_and(|r| r.send(request).is_ok());
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

/// The last lines of a worker's stderr: at most [`TAIL_LINES`] of [`TAIL_CHARS`] characters.
#[derive(Default)]
struct Tail {
    state: Mutex<(VecDeque<String>, bool)>,
    ended: Condvar,
}

impl Tail {
    /// Copies `stderr` line by line to ours and keeps the last lines, until it ends.
    fn collect(&self, stderr: impl io::Read, prefix: &str) {
        let mut reader = BufReader::new(stderr);
        let mut line = Vec::new();
        while let Ok(Some(len)) = read_line(&mut reader, &mut line, LINE_BYTES) {
            let text = String::from_utf8_lossy(&line);
            let text = text.trim_end();
            let cut = if len > line.len() as u64 {
                format!(" [line cut at {LINE_BYTES} of its {len} bytes]")
            } else {
                String::new()
            };
            eprintln!("{prefix}{text}{cut}");
            if let Ok(mut state) = self.state.lock() {
                if state.0.len() == TAIL_LINES {
                    state.0.pop_front();
                }
                state.0.push_back(format!("{}{cut}", shortened(text, TAIL_CHARS)));
            }
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

/// Reads the next line of `input` into `line`, without its newline, keeping at most `max`
/// bytes of it and skipping the rest. Returns the line's whole length in bytes, or `None` at
/// the end of the stream (or on an error).
fn read_line(input: &mut impl BufRead, line: &mut Vec<u8>, max: usize) -> io::Result<Option<u64>> {
    line.clear();
    let mut len = 0u64;
    loop {
        let chunk = match input.fill_buf() {
            Ok(chunk) => chunk,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            return Ok((len > 0).then_some(len));
        }
        let newline = chunk.iter().position(|&b| b == b'\n');
        let part = &chunk[..newline.unwrap_or(chunk.len())];
        line.extend_from_slice(&part[..part.len().min(max - line.len())]);
        len += part.len() as u64;
        let used = newline.map_or(part.len(), |n| n + 1);
        input.consume(used);
        if newline.is_some() {
            return Ok(Some(len));
        }
    }
}

/// `text` cut to `max` characters, with `…` where it was cut.
fn shortened(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use std::io::Read;

    use super::*;

    #[test]
    fn long_lines_are_cut_and_their_rest_skipped() {
        let text = format!("short\r\n{}\n\nlast", "x".repeat(100));
        let mut input = text.as_bytes();
        let mut line = Vec::new();
        let mut next = || read_line(&mut input, &mut line, 10).unwrap().map(|len| (line.clone(), len));
        assert_eq!(next(), Some((b"short\r".to_vec(), 6)));
        assert_eq!(next(), Some((b"xxxxxxxxxx".to_vec(), 100)));
        assert_eq!(next(), Some((Vec::new(), 0)));
        assert_eq!(next(), Some((b"last".to_vec(), 4)));
        assert_eq!(next(), None);
    }

    /// 200 MB without a newline: the line holds the first `max` bytes, never more.
    #[test]
    fn a_line_without_end_costs_no_memory() {
        let mut input = BufReader::new(io::repeat(b'x').take(200_000_000));
        let mut line = Vec::new();
        assert_eq!(read_line(&mut input, &mut line, LINE_BYTES).unwrap(), Some(200_000_000));
        assert_eq!(line.len(), LINE_BYTES);
        assert!(line.capacity() <= 2 * LINE_BYTES, "{}", line.capacity());
        assert_eq!(read_line(&mut input, &mut line, LINE_BYTES).unwrap(), None);
    }

    #[test]
    fn quoted_lines_are_shortened_by_characters() {
        assert_eq!(shortened("héllo", 2), "hé…");
        assert_eq!(shortened("héllo", 5), "héllo");
    }
}
