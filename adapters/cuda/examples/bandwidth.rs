//! Bandwidth of the CUDA adapter's f32 `add` kernel against a device-to-device copy, both on
//! device-resident data: `bandwidth [ELEMENTS [REPEATS]]` (default 2^28 elements, 20 repeats).
//! Prints one summary line, then one line of JSON; exits with 2 (after `skipped: <reason>`)
//! when there is no GPU.

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let number = |i: usize, default: usize| args.get(i).map_or(Ok(default), |a| a.parse::<usize>());
    let (Ok(elements), Ok(repeats)) = (number(0, 1 << 28), number(1, 20)) else {
        eprintln!("usage: bandwidth [ELEMENTS [REPEATS]]");
        return ExitCode::FAILURE;
    };
    match opspec_cuda::bench::measure(elements, repeats) {
        Ok(b) => {
            println!(
                "f32 add of {} elements: {:.1} GB/s ({:.3} ms); device-to-device copy: {:.1} GB/s ({:.3} ms); add/copy = {:.2} ({})",
                b.elements,
                b.add_gbps,
                b.add_ms,
                b.copy_gbps,
                b.copy_ms,
                b.add_gbps / b.copy_gbps,
                b.device
            );
            println!(
                "{{\"elements\": {}, \"add_gbps\": {:.2}, \"add_ms\": {:.4}, \"copy_gbps\": {:.2}, \"copy_ms\": {:.4}, \"add_over_copy\": {:.3}, \"device\": {:?}}}",
                b.elements,
                b.add_gbps,
                b.add_ms,
                b.copy_gbps,
                b.copy_ms,
                b.add_gbps / b.copy_gbps,
                b.device
            );
            ExitCode::SUCCESS
        }
        Err(reason) => {
            println!("skipped: {reason}");
            ExitCode::from(2)
        }
    }
}
