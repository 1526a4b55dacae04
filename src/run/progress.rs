//! The progress line of a long run (a sweep, an exhaustive agreement run): cases done, the
//! rate and the time left.

use std::io::{IsTerminal, Write};
use std::time::Instant;

/// The progress line of one long run on stderr: overwritten in place on a terminal, one plain
/// line about every ten seconds otherwise.
pub(crate) struct Progress {
    label: String,
    unit: &'static str,
    total: u64,
    done: u64,
    started: Instant,
    last: Instant,
    tty: bool,
}

impl Progress {
    /// The line of `label`, `total` of `unit` (`cases`) to go.
    pub(crate) fn new(label: String, unit: &'static str, total: u64) -> Progress {
        let now = Instant::now();
        Progress {
            label,
            unit,
            total,
            done: 0,
            started: now,
            last: now,
            tty: std::io::stderr().is_terminal(),
        }
    }

    pub(crate) fn advance(&mut self, cases: u64) {
        self.done += cases;
        let due = if self.tty { 0.2 } else { 10.0 };
        if self.last.elapsed().as_secs_f64() >= due || self.done == self.total {
            self.last = Instant::now();
            let seconds = self.started.elapsed().as_secs_f64();
            let rate = self.done as f64 / seconds.max(1e-9);
            let left = (self.total - self.done) as f64 / rate.max(1.0);
            let line = format!(
                "  {}: {} of {} {}, {:.3e} {}/s, {:.0} s left",
                self.label,
                group(self.done),
                group(self.total),
                self.unit,
                rate,
                self.unit,
                left
            );
            let mut err = std::io::stderr().lock();
            let _ = if self.tty { write!(err, "\r{line}\x1b[K") } else { writeln!(err, "{line}") };
        }
    }

    pub(crate) fn finish(&self) {
        if self.tty && self.done > 0 {
            eprintln!();
        }
    }
}

/// `n` with thousands separators (`4,294,967,296`).
pub(crate) fn group(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_grouped() {
        assert_eq!(group(4_294_967_296), "4,294,967,296");
        assert_eq!(
            (group(0), group(999), group(1000)),
            ("0".to_string(), "999".to_string(), "1,000".to_string())
        );
    }
}
