//! NumPy in a `python3` subprocess: `np.add(a, b, out=c)` and the allocating `a + b`, timed with
//! `timeit` on buffers NumPy allocates itself (same shapes and values as the Rust side).

use std::collections::HashMap;

const SCRIPT: &str = r#"
import sys, timeit
import numpy as np
samples, dtypes, sizes, n_small, n_large = int(sys.argv[1]), sys.argv[2].split(","), sys.argv[3].split(","), int(sys.argv[4]), int(sys.argv[5])
types = {"f16": np.float16, "f32": np.float32, "f64": np.float64}
try:
    import ml_dtypes
    types["bf16"] = ml_dtypes.bfloat16
except ImportError:
    print("bf16 skipped: ml_dtypes is not installed", file=sys.stderr)
def best(f):
    f()
    once = timeit.timeit(f, number=1)
    reps = max(1, int(2e-3 / max(once, 1e-9)) + 1)
    return min(timeit.repeat(f, number=reps, repeat=samples if once < 0.05 else min(samples, 3))) / reps
print("NumPy", np.__version__, file=sys.stderr)
for dt in dtypes:
    if dt not in types:
        continue
    t = types[dt]
    for layout in ("contiguous", "row", "column"):
        for log2 in map(int, sizes):
            total = 1 << log2
            n = total if layout == "contiguous" else (n_large if log2 >= 16 else n_small)
            m = total // n
            i = np.arange(total)
            a = ((i % 1024) * 0.25).astype(t).reshape(m, n)
            j = np.arange({"contiguous": total, "row": n, "column": m}[layout])
            b = (1 + j % 512).astype(t).reshape({"contiguous": (m, n), "row": (n,), "column": (m, 1)}[layout])
            c = np.empty_like(a)
            print(dt, layout, log2, "out", best(lambda: np.add(a, b, out=c)), flush=True)
            print(dt, layout, log2, "alloc", best(lambda: a + b), flush=True)
"#;

/// Seconds per call keyed by `"dtype layout log2 out"` / `"... alloc"`; empty when NumPy
/// cannot run (the reason goes to stderr).
pub fn times(
    python: &str,
    samples: usize,
    dtypes: &[&str],
    sizes: &[u32],
    row_len: (usize, usize),
) -> HashMap<String, f64> {
    let sizes: Vec<String> = sizes.iter().map(u32::to_string).collect();
    let args = [
        samples.to_string(),
        dtypes.join(","),
        sizes.join(","),
        row_len.0.to_string(),
        row_len.1.to_string(),
    ];
    crate::timing::python_seconds(python, SCRIPT, &args)
}
