//! What every element-wise bench shares: the timer, rayon pools of a given size, and a Python
//! subprocess that prints `key seconds` lines.

use std::collections::HashMap;
use std::process::Command;
use std::time::Instant;

/// Seconds per call: the best of `samples` samples (3 at most when one call takes over 50 ms),
/// each repeating the call for at least 2 ms, after two warm-up calls.
pub fn time(samples: usize, mut f: impl FnMut()) -> f64 {
    f();
    let start = Instant::now();
    f();
    let once = start.elapsed().as_secs_f64().max(1e-9);
    let reps = ((2e-3 / once).ceil() as usize).max(1);
    let samples = if once > 0.05 { samples.min(3) } else { samples };
    (0..samples.max(1))
        .map(|_| {
            let start = Instant::now();
            for _ in 0..reps {
                f();
            }
            start.elapsed().as_secs_f64() / reps as f64
        })
        .fold(f64::INFINITY, f64::min)
}

/// A rayon pool of `threads` threads.
pub fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("a rayon pool")
}

/// Runs `script` with `args` under `python` and collects its stdout lines `key seconds`;
/// empty when it cannot run (the reason, and the script's stderr, go to stderr).
pub fn python_seconds(python: &str, script: &str, args: &[String]) -> HashMap<String, f64> {
    eprintln!("timing NumPy ({python})...");
    let mut times = HashMap::new();
    match Command::new(python).arg("-c").arg(script).args(args).output() {
        Ok(o) => {
            eprint!("{}", String::from_utf8_lossy(&o.stderr));
            if !o.status.success() {
                eprintln!("NumPy failed ({}); its columns show —", o.status);
            }
            for line in String::from_utf8_lossy(&o.stdout).lines() {
                if let Some((key, secs)) = line.rsplit_once(' ')
                    && let Ok(secs) = secs.parse::<f64>()
                {
                    times.insert(key.to_string(), secs);
                }
            }
        }
        Err(e) => eprintln!("NumPy skipped: cannot run {python}: {e}"),
    }
    times
}
