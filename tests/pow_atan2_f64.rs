//! The CPU adapter's f64 `pow` and `atan2` (`opspec_cpu::fast::transcendental64`) against the
//! MPFR oracle: the error of every result in ULPs of the 96-guard-bit value
//! (`oracle::ulp_error`), over inputs that aim at the kernel's weak spots as well as everyday
//! ones, run densely through `fast::binary_into` (the vector kernel on CPUs with AVX2 + FMA).
//!
//! The array-api suite accepts 2 steps from the correctly rounded result; the kernel is built
//! for about 0.5 ULP, so this test holds it to 1 ULP: the largest error found is printed.

use opspec::bits::format::Format;
use opspec::oracle::functions::{atan2, atan2_value, pow, pow_value};
use opspec::oracle::ulp_error;
use opspec_adapter::{BinaryOp, DType};
use opspec_cpu::fast::{Operand, binary_into};

/// The error allowed, in ULPs.
const BOUND: f64 = 1.0;

/// SplitMix64.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * ((self.next() >> 11) as f64 / (1u64 << 53) as f64)
    }

    /// `v` moved by up to `k` ULPs either way.
    fn nudge(&mut self, v: f64, k: u64) -> f64 {
        f64::from_bits(v.to_bits().wrapping_add(self.next() % (2 * k + 1)).wrapping_sub(k))
    }
}

/// The oracle's functions for one operation: correctly rounded bits, and the high-precision
/// value; and the platform's function, whose error is printed for comparison.
type Oracle = (fn(Format, u64, u64) -> u64, fn(Format, u64, u64) -> rug::Float, fn(f64, f64) -> f64);

/// The error of `got` for `op(a, b)`: the correctly rounded result (an infinity included)
/// counts as its distance from the exact value, at most 0.5.
fn error(oracle: Oracle, a: f64, b: f64, got: u64) -> f64 {
    let (rounded, value, _) = oracle;
    let exact = value(Format::F64, a.to_bits(), b.to_bits());
    let e = ulp_error(Format::F64, got, &exact);
    if e.is_infinite() && got == rounded(Format::F64, a.to_bits(), b.to_bits()) { 0.5 } else { e }
}

/// Runs `op` on the pairs through the kernel and returns the largest error against the oracle
/// (and where), after checking every pair against [`BOUND`].
fn sweep(op: BinaryOp, a: &[f64], b: &[f64], oracle: Oracle) -> f64 {
    let bytes = |v: &[f64]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let (ab, bb) = (bytes(a), bytes(b));
    let mut out = vec![0u8; ab.len()];
    assert!(binary_into(op, DType::F64, Operand::Dense(&ab), Operand::Dense(&bb), a.len(), &mut out));
    let mut worst = (0.0f64, 0.0, 0.0);
    for (i, chunk) in out.chunks_exact(8).enumerate() {
        let got = u64::from_le_bytes(chunk.try_into().unwrap());
        let e = error(oracle, a[i], b[i], got);
        assert!(e <= BOUND, "{op}({:e}, {:e}) = {:e}: {e} ULP off", a[i], b[i], f64::from_bits(got));
        if e > worst.0 {
            worst = (e, a[i], b[i]);
        }
    }
    let (e, x, y) = worst;
    let platform = error(oracle, x, y, oracle.2(x, y).to_bits());
    println!(
        "{op} f64: {} inputs, max error {e:.4} ULP at ({x:e}, {y:e}) (the platform's function: {platform:.4} there)",
        a.len()
    );
    e
}

#[test]
fn pow_f64_within_one_ulp_of_the_oracle() {
    let mut r = Rng(0x0f64_0001);
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    for i in 0..60_000u32 {
        let (x, y) = match i % 8 {
            // Any positive normal x, y chosen so that x^y spans the f64 range and beyond.
            0 | 1 => {
                let x = 2f64.powf(r.range(-1022.0, 1023.0));
                (x, r.range(-1080.0, 1080.0) / x.log2())
            }
            // x near 1 (and near √2 and √½, where ln m is largest), large |y|: |y ln x| up to
            // the overflow threshold, where the low part of ln x matters most.
            2 => {
                let centre =
                    [1.0, std::f64::consts::SQRT_2, std::f64::consts::FRAC_1_SQRT_2][(r.next() % 3) as usize];
                let x = r.nudge(centre, 1 << 40) * 2f64.powi((r.next() % 5) as i32 - 2);
                (x, r.range(-709.0, 709.0) / x.ln())
            }
            // Small integer and half-integer exponents of any x, negative and subnormal ones
            // included (the scalar path), and integer powers with exact results.
            3 => (f64::from_bits(r.next() & 0xbfff_ffff_ffff_ffff), ((r.next() % 64) as f64 - 32.0) / 2.0),
            4 => ((r.next() % 30 + 2) as f64, (r.next() % 40) as f64),
            // Results right at the overflow, underflow and subnormal thresholds.
            5 => {
                let x = r.range(1.01, 4.0);
                let edge = [1024.0, -1022.0, -1074.0, -1075.0, 1021.0][(r.next() % 5) as usize];
                (x, r.nudge(edge / x.log2(), 64))
            }
            // Everyday values.
            6 => (r.range(0.0, 100.0), r.range(-10.0, 10.0)),
            // Random bits: mostly special lanes.
            _ => (f64::from_bits(r.next()), f64::from_bits(r.next())),
        };
        xs.push(x);
        ys.push(y);
    }
    sweep(BinaryOp::Pow, &xs, &ys, (pow, pow_value, f64::powf));
}

#[test]
fn atan2_f64_within_one_ulp_of_the_oracle() {
    let mut r = Rng(0x0f64_0002);
    let (mut ys, mut xs) = (Vec::new(), Vec::new());
    let sign = |r: &mut Rng, v: f64| if r.next() & 1 == 0 { v } else { -v };
    for i in 0..60_000u32 {
        let (y, x) = match i % 6 {
            0 => (f64::from_bits(r.next()), f64::from_bits(r.next())),
            1 => (r.range(-10.0, 10.0), r.range(-10.0, 10.0)),
            // Angles over the circle at magnitudes from tiny to huge.
            2 => {
                let (a, m) = (r.range(-4.0, 4.0), 2f64.powf(r.range(-1020.0, 1020.0)));
                (m * a.sin(), m * a.cos())
            }
            // Ratios near the reduction's break points: 1 and tan π/8 (and their inverses).
            3 => {
                let k = [1.0, 0.414_213_562_373_095_03, 2.414_213_562_373_095][(r.next() % 3) as usize];
                let x = r.range(0.5, 2.0);
                let y = r.nudge(x * k, 1 << 20);
                (sign(&mut r, y), sign(&mut r, x))
            }
            // Very unequal magnitudes, around the common path's 2^900 limit and past it.
            4 => {
                let y = 2f64.powf(r.range(-1074.0, 0.0));
                let x = 2f64.powf(r.range(0.0, 1023.0));
                let (y, x) = if r.next() & 1 == 0 { (y, x) } else { (x, y) };
                (sign(&mut r, y), sign(&mut r, x))
            }
            _ => ((r.next() % 41) as f64 - 20.0, (r.next() % 41) as f64 - 20.0),
        };
        ys.push(y);
        xs.push(x);
    }
    sweep(BinaryOp::Atan2, &ys, &xs, (atan2, atan2_value, f64::atan2));
}
