//! What a worker writes to the host (`src/host/process`): frames read one after another from
//! the bytes (`frame::read_frame`), each message decoded as a reply (`wire::parse`), and a
//! result's tensor checked against the data section (`wire::tensor`) and read, as the host
//! does, under the widest bound a request allows (`MAX_DATA`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use opspec::host::process::frame::{MAX_DATA, read_frame};
use opspec::host::process::wire::{self, Reply, Request};

/// Results with more elements are checked but not read (a broadcast view of one element may
/// name billions).
const MAX_READ: usize = 1 << 16;

fuzz_target!(|data: &[u8]| {
    let mut input = data;
    while let Ok(Some(frame)) = read_frame(&mut input, MAX_DATA) {
        let _ = wire::parse::<Request>(&frame);
        match wire::parse::<Reply>(&frame) {
            Ok(Reply::Result { result, buffers, .. }) => {
                if let Ok(tensor) = wire::tensor(&result, &buffers, &frame.data)
                    && tensor.numel() <= MAX_READ
                {
                    tensor.to_bits();
                }
            }
            Ok(Reply::Error { kind, code, message, step, .. }) => {
                wire::adapter_error(&kind, code, &message, step.as_deref());
            }
            _ => {}
        }
    }
});
