//! A sweep's progress line: cases done, the rate and the time left.

use crate::spec::id::CheckId;
use std::io::{IsTerminal, Write};
use std::time::Instant;

/// The progress line of one sweep on stderr: overwritten in place on a terminal, one plain
/// line about every ten seconds otherwise.
pub(super) struct Progress {
    id: String,
    total: u64,
    done: u64,
    started: Instant,
    last: Instant,
    tty: bool,
}

impl Progress {
    pub(super) fn new(id: &CheckId, total: u64) -> Progress {
        let now = Instant::now();
        Progress {
            id: id.to_string(),
            total,
            done: 0,
            started: now,
            last: now,
            tty: std::io::stderr().is_terminal(),
        }
    }

    pub(super) fn advance(&mut self, cases: u64) {
        self.done += cases;
        let due = if self.tty { 0.2 } else { 10.0 };
        if self.last.elapsed().as_secs_f64() >= due || self.done == self.total {
            self.last = Instant::now();
            let seconds = self.started.elapsed().as_secs_f64();
            let rate = self.done as f64 / seconds.max(1e-9);
            let left = (self.total - self.done) as f64 / rate.max(1.0);
            let line = format!(
                "  {}: {} of {} cases, {:.3e} cases/s, {:.0} s left",
                self.id,
                group(self.done),
                group(self.total),
                rate,
                left
            );
            let mut err = std::io::stderr().lock();
            let _ = if self.tty { write!(err, "\r{line}\x1b[K") } else { writeln!(err, "{line}") };
        }
    }

    pub(super) fn finish(&self) {
        if self.tty && self.done > 0 {
            eprintln!();
        }
    }
}

/// `n` with thousands separators (`4,294,967,296`).
pub(super) fn group(n: u64) -> String {
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
