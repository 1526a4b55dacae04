//! Frames: the length-prefixed envelope of every message (`docs/PROTOCOL.md`, "Frames").

use std::fmt;
use std::io::{self, Read, Write};

/// The four bytes every frame starts with.
pub const MAGIC: [u8; 4] = *b"OPSP";
/// The longest JSON message a frame may carry.
pub const MAX_META: u32 = 16 << 20;
/// The longest data section a frame may carry; a reader may allow less ([`read_frame`]).
pub const MAX_DATA: u64 = 64 << 30;

/// One message: its JSON text and its data section.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Frame {
    pub meta: Vec<u8>,
    pub data: Vec<u8>,
}

/// Why a frame could not be read.
#[derive(Debug)]
pub enum FrameError {
    /// The stream failed.
    Io(io::Error),
    /// The first bytes are not [`MAGIC`]: whatever is on the pipe is not a frame.
    Magic([u8; 4]),
    /// A length field is over its limit.
    TooLong { what: &'static str, len: u64, max: u64 },
    /// The stream ended inside a frame.
    Truncated { what: &'static str, got: usize, wanted: u64 },
}

impl fmt::Display for FrameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FrameError::Io(e) => write!(f, "cannot read a frame: {e}"),
            FrameError::Magic(bytes) => {
                let hex: Vec<String> = bytes.iter().map(|b| format!("{b:02x}")).collect();
                let text: String = bytes
                    .iter()
                    .map(|&b| if b.is_ascii_graphic() || b == b' ' { b as char } else { '.' })
                    .collect();
                write!(
                    f,
                    "garbage on the pipe: a frame starts with `OPSP`, these bytes are {} (\"{text}\")",
                    hex.join(" ")
                )
            }
            FrameError::TooLong { what, len, max } => {
                write!(f, "bad frame: the {what} length is {len} bytes, more than the {max} allowed")
            }
            FrameError::Truncated { what, got, wanted } => {
                write!(f, "the stream ended inside a frame: {got} of the {wanted} bytes of its {what}")
            }
        }
    }
}

/// Writes one frame (the caller flushes).
pub fn write_frame(out: &mut impl Write, meta: &[u8], data: &[u8]) -> io::Result<()> {
    let meta_len = u32::try_from(meta.len()).ok().filter(|&n| n <= MAX_META).ok_or_else(|| {
        io::Error::other(format!("a message of {} bytes is too long for a frame", meta.len()))
    })?;
    if data.len() as u64 > MAX_DATA {
        return Err(io::Error::other(format!(
            "a data section of {} bytes is too long for a frame",
            data.len()
        )));
    }
    let mut header = [0u8; 16];
    header[..4].copy_from_slice(&MAGIC);
    header[4..8].copy_from_slice(&meta_len.to_le_bytes());
    header[8..].copy_from_slice(&(data.len() as u64).to_le_bytes());
    out.write_all(&header)?;
    out.write_all(meta)?;
    out.write_all(data)
}

/// Reads one frame whose data section holds at most `max_data` bytes (and [`MAX_DATA`]); a
/// longer one is refused from its header, before any of it is read. `None` when the stream
/// ends cleanly before a frame starts.
pub fn read_frame(input: &mut impl Read, max_data: u64) -> Result<Option<Frame>, FrameError> {
    let mut header = [0u8; 16];
    let got = read_full(input, &mut header)?;
    if got == 0 {
        return Ok(None);
    }
    if got >= 4 && header[..4] != MAGIC || got < 4 && header[..got] != MAGIC[..got] {
        let mut start = [0u8; 4];
        start[..got.min(4)].copy_from_slice(&header[..got.min(4)]);
        return Err(FrameError::Magic(start));
    }
    if got < header.len() {
        return Err(FrameError::Truncated { what: "header", got, wanted: header.len() as u64 });
    }
    let meta_len = u32::from_le_bytes([header[4], header[5], header[6], header[7]]);
    let data_len = u64::from_le_bytes(header[8..].try_into().unwrap_or_default());
    if meta_len > MAX_META {
        return Err(FrameError::TooLong { what: "message", len: meta_len.into(), max: MAX_META.into() });
    }
    let max_data = max_data.min(MAX_DATA);
    if data_len > max_data {
        return Err(FrameError::TooLong { what: "data", len: data_len, max: max_data });
    }
    let meta = read_exactly(input, "message", meta_len.into())?;
    let data = read_exactly(input, "data", data_len)?;
    Ok(Some(Frame { meta, data }))
}

/// Fills as much of `buf` as the stream holds; the count read.
fn read_full(input: &mut impl Read, buf: &mut [u8]) -> Result<usize, FrameError> {
    let mut got = 0;
    while got < buf.len() {
        match input.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(FrameError::Io(e)),
        }
    }
    Ok(got)
}

/// Exactly `len` bytes; the buffer grows as they arrive, so a lying length costs no memory.
fn read_exactly(input: &mut impl Read, what: &'static str, len: u64) -> Result<Vec<u8>, FrameError> {
    let mut bytes = Vec::new();
    input.take(len).read_to_end(&mut bytes).map_err(FrameError::Io)?;
    if (bytes.len() as u64) < len {
        return Err(FrameError::Truncated { what, got: bytes.len(), wanted: len });
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn framed(meta: &[u8], data: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        write_frame(&mut out, meta, data).unwrap();
        out
    }

    #[test]
    fn frames_round_trip_and_end_cleanly() {
        let mut bytes = framed(b"{\"type\":\"x\"}", &[1, 2, 3]);
        bytes.extend(framed(b"{}", &[]));
        let mut input = &bytes[..];
        let first = read_frame(&mut input, MAX_DATA).unwrap().unwrap();
        assert_eq!((&first.meta[..], &first.data[..]), (&b"{\"type\":\"x\"}"[..], &[1u8, 2, 3][..]));
        assert_eq!(read_frame(&mut input, MAX_DATA).unwrap().unwrap().meta, b"{}");
        assert!(read_frame(&mut input, MAX_DATA).unwrap().is_none());
    }

    #[test]
    fn garbage_is_named_with_its_bytes() {
        let err = read_frame(&mut &b"Hello, world\n"[..], MAX_DATA).unwrap_err().to_string();
        assert!(
            err.contains("garbage on the pipe") && err.contains("48 65 6c 6c") && err.contains("Hell"),
            "{err}"
        );
        let short = read_frame(&mut &b"Hi"[..], MAX_DATA).unwrap_err().to_string();
        assert!(short.contains("garbage"), "{short}");
    }

    #[test]
    fn wrong_lengths_are_errors() {
        let mut long = framed(b"{}", &[]);
        long[4..8].copy_from_slice(&(MAX_META + 1).to_le_bytes());
        assert!(read_frame(&mut &long[..], MAX_DATA).unwrap_err().to_string().contains("more than"));
        let mut lying = framed(b"{}", &[9; 8]);
        lying[8..16].copy_from_slice(&1000u64.to_le_bytes());
        let err = read_frame(&mut &lying[..], MAX_DATA).unwrap_err().to_string();
        assert!(err.contains("8 of the 1000 bytes of its data"), "{err}");
        let header_only = &framed(b"{}", &[])[..10];
        let err = read_frame(&mut &header_only[..], MAX_DATA).unwrap_err().to_string();
        assert!(err.contains("10 of the 16 bytes"), "{err}");
    }

    /// A data length over the reader's bound is refused from the header alone: the stream
    /// here ends before the data, so a reader that read on would say so instead.
    #[test]
    fn a_data_length_over_the_readers_bound_is_refused_unread() {
        let mut header = framed(b"{}", &[]);
        header[8..16].copy_from_slice(&(1u64 << 30).to_le_bytes());
        let err = read_frame(&mut &header[..], 100).unwrap_err().to_string();
        assert_eq!(err, "bad frame: the data length is 1073741824 bytes, more than the 100 allowed");
        let over = read_frame(&mut &header[..], u64::MAX).unwrap_err().to_string();
        assert!(over.contains("0 of the 1073741824 bytes of its data"), "{over}");
    }
}
