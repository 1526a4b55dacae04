//! Where an adapter's time goes: NVRTC compilation, host-to-device copies, kernels,
//! device-to-host copies, and the whole calls (which add the host work around them:
//! promotion, lining operands up, scatter index resolution). Each phase is timed on the host
//! with the stream synchronized at its end, so the phases do not overlap.

use std::fmt::Write;
use std::time::Duration;

/// Time spent in adapter calls, by phase, and what they computed.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Timings {
    /// Adapter calls that reached the device.
    pub calls: u64,
    /// Output elements computed on the device.
    pub elements: u64,
    /// Kernel launches.
    pub launches: u64,
    /// NVRTC compilation and module loading (once per kernel and process).
    pub compile: Duration,
    /// Host-to-device copies of operands and launch metadata.
    pub upload: Duration,
    /// Kernels, from launch to the stream's completion.
    pub kernel: Duration,
    /// Device-to-host copies of results.
    pub download: Duration,
    /// The whole calls, the phases above included.
    pub total: Duration,
}

impl Timings {
    /// Adds `other`'s counts and times to these.
    pub fn add(&mut self, other: &Timings) {
        self.calls += other.calls;
        self.elements += other.elements;
        self.launches += other.launches;
        self.compile += other.compile;
        self.upload += other.upload;
        self.kernel += other.kernel;
        self.download += other.download;
        self.total += other.total;
    }

    /// One JSON object line: `adapter`, the counts, and each phase in seconds (`*_s`).
    pub fn json(&self, adapter: &str) -> String {
        let mut line = format!(
            "{{\"adapter\": \"{adapter}\", \"calls\": {}, \"launches\": {}, \"elements\": {}",
            self.calls, self.launches, self.elements
        );
        for (name, d) in [
            ("compile", self.compile),
            ("upload", self.upload),
            ("kernel", self.kernel),
            ("download", self.download),
            ("total", self.total),
        ] {
            let _ = write!(line, ", \"{name}_s\": {:.6}", d.as_secs_f64());
        }
        line.push('}');
        line
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timings_add_up_and_print_as_json() {
        let call = Timings {
            calls: 1,
            elements: 10,
            launches: 1,
            kernel: Duration::from_millis(3),
            total: Duration::from_millis(5),
            ..Timings::default()
        };
        let mut sum = Timings::default();
        sum.add(&call);
        sum.add(&call);
        assert_eq!((sum.calls, sum.elements, sum.kernel), (2, 20, Duration::from_millis(6)));
        assert_eq!(
            sum.json("cuda"),
            "{\"adapter\": \"cuda\", \"calls\": 2, \"launches\": 2, \"elements\": 20, \"compile_s\": 0.000000, \
             \"upload_s\": 0.000000, \"kernel_s\": 0.006000, \"download_s\": 0.000000, \"total_s\": 0.010000}"
        );
    }
}
