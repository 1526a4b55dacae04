//! Scatter-add benchmark: 2^22 f32 updates into 2^20 slots (depth-1 int64 indices, `ignore`
//! mode) with uniform random, sorted, and runs-of-repeated indices.
//!
//! Measured in one run, on the same data: opspec-cpu's kernel (in place, in a 1-thread rayon
//! pool and on rayon's global pool), the adapter call (tensors in and out, global pool), a
//! plain single-threaded loop (run in the same 1-thread pool as the kernel, so that both work
//! on the pool's thread, with the output reset by the main thread), and, when a `python3`
//! with them is available, NumPy's `np.add.at` and PyTorch's `index_add_`. Each time is the
//! best of several repetitions; the output array is reset (untimed) before each.
//!
//! `cargo bench --bench scatter` (environment: `OPSPEC_BENCH_REPS`, default 31;
//! `OPSPEC_BENCH_PYTHON`, default `python3`; `RAYON_NUM_THREADS` sizes the global pool).

use std::io::Write;
use std::process::Command;
use std::time::Instant;

use opspec_adapter::{Adapter, ScatterMode, Tensor};
use opspec_cpu::CpuAdapter;
use opspec_cpu::scatter::scatter_add_in_place;
use rayon::{ThreadPool, ThreadPoolBuilder};

const SLOTS: usize = 1 << 20;
const UPDATES: usize = 1 << 22;

/// SplitMix64.
fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The baseline: one thread, index order, the same skip rule.
#[inline(never)]
fn plain_loop(out: &mut [f32], indices: &[i64], updates: &[f32]) {
    let n = out.len() as u64;
    for (&c, &u) in indices.iter().zip(updates) {
        if (c as u64) < n {
            out[c as usize] += u;
        }
    }
}

/// One implementation under measurement: it scatters into the output it is given.
type Method<'a> = Box<dyn FnMut(&mut [f32]) + 'a>;

/// Times of `reps` rounds; each round runs every method once (the order rotating from round
/// to round), with `out` reset to `init` before each run.
fn rounds(reps: usize, init: &[f32], out: &mut [f32], methods: &mut [Method<'_>]) -> Vec<Vec<f64>> {
    let k = methods.len();
    let mut times = vec![Vec::with_capacity(reps); k];
    for round in 0..reps {
        for j in 0..k {
            let m = (j + round) % k;
            out.copy_from_slice(init);
            let start = Instant::now();
            methods[m](out);
            times[m].push(start.elapsed().as_secs_f64());
        }
    }
    times
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

fn best(xs: &[f64]) -> f64 {
    xs.iter().copied().fold(f64::INFINITY, f64::min)
}

/// A rayon pool of `threads` threads.
fn pool(threads: usize) -> ThreadPool {
    ThreadPoolBuilder::new().num_threads(threads).build().expect("a rayon pool")
}

const PYTHON: &str = r#"
import sys, time, json
import numpy as np
d = sys.argv[1]; reps = int(sys.argv[2])
idx = np.fromfile(d + "/idx.bin", dtype="<i8"); upd = np.fromfile(d + "/upd.bin", dtype="<f4")
init = np.fromfile(d + "/init.bin", dtype="<f4"); out = init.copy()
def best(f):
    t = float("inf")
    for _ in range(reps):
        out[:] = init; s = time.perf_counter(); f(); t = min(t, time.perf_counter() - s)
    return t
print(json.dumps({"name": "numpy np.add.at " + np.__version__, "seconds": best(lambda: np.add.at(out, idx, upd))}))
sys.stdout.flush()
try:
    import torch
    torch.set_num_threads(1)
    o = torch.from_numpy(out); i = torch.from_numpy(idx); u = torch.from_numpy(upd)
    print(json.dumps({"name": "torch index_add_ " + torch.__version__ + " (1 thread)",
                      "seconds": best(lambda: o.index_add_(0, i, u))}))
except ImportError as e:
    print(json.dumps({"name": "torch index_add_", "missing": str(e)}))
"#;

/// Times NumPy and PyTorch on the same data in a Python process: `(name, seconds or why not)`.
fn python_peers(
    indices: &[i64],
    updates: &[f32],
    init: &[f32],
    reps: usize,
) -> Vec<(String, Result<f64, String>)> {
    let dir = std::env::temp_dir().join(format!("opspec-scatter-bench-{}", std::process::id()));
    let write = |name: &str, bytes: Vec<u8>| std::fs::write(dir.join(name), bytes);
    let saved = std::fs::create_dir_all(&dir)
        .and_then(|_| write("idx.bin", indices.iter().flat_map(|v| v.to_le_bytes()).collect()))
        .and_then(|_| write("upd.bin", updates.iter().flat_map(|v| v.to_le_bytes()).collect()))
        .and_then(|_| write("init.bin", init.iter().flat_map(|v| v.to_le_bytes()).collect()));
    if let Err(e) = saved {
        return vec![("numpy/torch".into(), Err(format!("cannot write the data: {e}")))];
    }
    let python = std::env::var("OPSPEC_BENCH_PYTHON").unwrap_or_else(|_| "python3".into());
    let output = Command::new(&python).arg("-c").arg(PYTHON).arg(&dir).arg(reps.to_string()).output();
    let _ = std::fs::remove_dir_all(&dir);
    let output = match output {
        Ok(o) => o,
        Err(e) => return vec![("numpy/torch".into(), Err(format!("cannot run {python}: {e}")))],
    };
    let stdout = String::from_utf8_lossy(&output.stdout);
    let mut peers: Vec<(String, Result<f64, String>)> = stdout
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .map(|v| {
            let name = v["name"].as_str().unwrap_or("?").to_string();
            let result =
                v["seconds"].as_f64().ok_or_else(|| v["missing"].as_str().unwrap_or("?").to_string());
            (name, result)
        })
        .collect();
    if peers.is_empty() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let why = stderr.lines().last().unwrap_or("no output").to_string();
        peers.push(("numpy np.add.at".into(), Err(why)));
    }
    peers
}

fn main() {
    // The machines this runs on are shared and noisy: each figure is the best of `reps` runs,
    // and the Rust methods also get the median over rounds of the time ratio within a round.
    let reps: usize = std::env::var("OPSPEC_BENCH_REPS").ok().and_then(|v| v.parse().ok()).unwrap_or(31);
    let threads = rayon::current_num_threads();
    let pools = [pool(1), pool(2), pool(threads)];
    let mut state = 0x5ca7_7e12;
    let updates: Vec<f32> = (0..UPDATES).map(|_| (next(&mut state) % 2001) as f32 * 1e-3 - 1.0).collect();
    let init: Vec<f32> = (0..SLOTS).map(|_| (next(&mut state) % 1001) as f32 * 1e-3).collect();
    let uniform: Vec<i64> = (0..UPDATES).map(|_| (next(&mut state) % SLOTS as u64) as i64).collect();
    let mut sorted = uniform.clone();
    sorted.sort_unstable();
    let mut runs = Vec::with_capacity(UPDATES);
    while runs.len() < UPDATES {
        let slot = (next(&mut state) % SLOTS as u64) as i64;
        let length = 1 + (next(&mut state) % 16) as usize;
        runs.extend(std::iter::repeat_n(slot, length.min(UPDATES - runs.len())));
    }
    println!(
        "scatter-add: {UPDATES} f32 updates into {SLOTS} slots, int64 indices, ignore mode; {reps} rounds; \
         {threads} threads in rayon's global pool"
    );
    println!(
        "{:<8} {:<52} {:>9} {:>11} {:>12} {:>12}",
        "indices", "implementation", "best ms", "updates/s", "ours÷ (best)", "ours÷ (med)"
    );
    let mut out = init.clone();
    for (pattern, indices) in [("uniform", &uniform), ("sorted", &sorted), ("runs (1-16)", &runs)] {
        let updates = &updates;
        // On the current rayon pool.
        let kernel = |o: &mut [f32]| {
            scatter_add_in_place(o, &[SLOTS], indices, 1, updates, ScatterMode::Ignore).unwrap();
        };
        // Same bits for every thread count, and the same as the plain loop (both sum in index order).
        let mut reference = init.clone();
        plain_loop(&mut reference, indices, updates);
        let mut deterministic = true;
        for p in &pools {
            let mut o = init.clone();
            p.install(|| kernel(&mut o));
            deterministic &= o.iter().zip(&reference).all(|(a, b)| a.to_bits() == b.to_bits());
        }
        let index_tensor = Tensor::from_slice(indices, &[UPDATES, 1]).unwrap();
        let update_tensor = Tensor::from_slice(updates, &[UPDATES]).unwrap();
        let input_tensor = Tensor::from_slice(&init, &[SLOTS]).unwrap();
        let names = [
            "opspec-cpu kernel, in place (1 thread)".to_string(),
            "plain loop (1 thread, the kernel's pool)".to_string(),
            format!("opspec-cpu kernel, in place ({threads} threads)"),
            format!("opspec-cpu adapter call, tensors in/out ({threads} thr.)"),
        ];
        let mut methods: Vec<Method> = vec![
            Box::new(|o: &mut [f32]| pools[0].install(|| kernel(o))),
            Box::new(|o: &mut [f32]| pools[0].install(|| plain_loop(o, indices, updates))),
            Box::new(kernel),
            Box::new(|_: &mut [f32]| {
                let t =
                    CpuAdapter.scatter_add(&input_tensor, &index_tensor, &update_tensor, ScatterMode::Ignore);
                std::hint::black_box(t.unwrap());
            }),
        ];
        let times = rounds(reps, &init, &mut out, &mut methods);
        let ours = best(&times[0]);
        let mut peers: Vec<(String, f64)> = vec![(names[1].clone(), best(&times[1]))];
        for (j, name) in names.iter().enumerate() {
            let paired = median(times[j].iter().zip(&times[0]).map(|(t, o)| t / o).collect());
            let b = best(&times[j]);
            println!(
                "{pattern:<8} {name:<52} {:>9.2} {:>11.3e} {:>11.2}x {:>11.2}x",
                b * 1e3,
                UPDATES as f64 / b,
                b / ours,
                paired
            );
        }
        for (name, seconds) in python_peers(indices, updates, &init, reps) {
            match seconds {
                Ok(s) => {
                    println!(
                        "{pattern:<8} {name:<52} {:>9.2} {:>11.3e} {:>11.2}x {:>12}",
                        s * 1e3,
                        UPDATES as f64 / s,
                        s / ours,
                        "-"
                    );
                    peers.push((name, s));
                }
                Err(why) => println!("{pattern:<8} {name:<52} {:>9} ({why})", "-"),
            }
        }
        if let Some((name, s)) = peers.iter().min_by(|a, b| a.1.total_cmp(&b.1)) {
            println!(
                "{pattern:<8} => ours (1 thread) is {:.2}x the best peer ({name}) by best times; bits identical for \
                 1, 2 and {threads} threads and to the plain loop: {}",
                s / ours,
                if deterministic { "yes" } else { "NO" }
            );
        }
        let _ = std::io::stdout().flush();
    }
}
