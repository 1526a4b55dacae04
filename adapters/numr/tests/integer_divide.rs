//! numr's `div` on integer tensors, called on the crate directly. The numr suite checks the
//! same calls through the harness (`numr:numr:divide:<integer dtype>:*`), under the stricter
//! reading `integers.divide: truncate` (docs/AUTHORITY.md); this test keeps the seed's words.
//!
//! Seed 003 says of `div` only "Division by zero is undefined behavior
//! (implementation-dependent)" and names no rounding direction for integers. So: a nonzero
//! divisor must give the exact quotient truncated or floored (one direction for every
//! element), wrapped to the dtype (numr's integer kernels wrap; `MIN / -1` overflows); a zero
//! divisor may give any value or an error, but not a panic or a crash, since the document
//! leaves the value open, not the survival of the caller. The adapter turns a panic into an
//! error naming it (`guarded`), which fails here.

use opspec_adapter::{Adapter, DType, Tensor};
use opspec_numr::NumrAdapter;

const INTEGERS: [DType; 8] =
    [DType::I8, DType::I16, DType::I32, DType::I64, DType::U8, DType::U16, DType::U32, DType::U64];

fn signed(d: DType) -> bool {
    matches!(d, DType::I8 | DType::I16 | DType::I32 | DType::I64)
}

fn bits(d: DType) -> u32 {
    8 * d.size() as u32
}

/// The value of `x`'s bit pattern in `d`.
fn value(d: DType, x: u64) -> i128 {
    let n = bits(d);
    let x = if n == 64 { x } else { x & ((1 << n) - 1) };
    if signed(d) && x >> (n - 1) & 1 == 1 { x as i128 - (1i128 << n) } else { x as i128 }
}

/// `v` wrapped to `d`'s bit pattern.
fn wrap(d: DType, v: i128) -> u64 {
    let n = bits(d);
    let m = v.rem_euclid(1i128 << n) as u128;
    m as u64
}

/// Edge values of `d`: 0, ±1, ±2, 3, 7, the extremes and their neighbours.
fn edges(d: DType) -> Vec<i128> {
    let n = bits(d);
    let (min, max) =
        if signed(d) { (-(1i128 << (n - 1)), (1i128 << (n - 1)) - 1) } else { (0, (1i128 << n) - 1) };
    let mut v = vec![0, 1, 2, 3, 7, max, max - 1, min, min + 1, max / 2];
    if signed(d) {
        v.extend([-1, -2, -3, -7]);
    }
    v
}

/// `floor(x / y)` for a nonzero `y`.
fn floor_div(x: i128, y: i128) -> i128 {
    let q = x / y;
    if x % y != 0 && (x < 0) != (y < 0) { q - 1 } else { q }
}

fn tensor(d: DType, values: &[i128]) -> Tensor {
    let b: Vec<u64> = values.iter().map(|&v| wrap(d, v)).collect();
    Tensor::from_bits(d, &[b.len()], &b).unwrap()
}

#[test]
fn the_helpers_hold_hand_checked_values() {
    assert_eq!((floor_div(-7, 2), floor_div(7, -2), floor_div(7, 2), floor_div(-8, 2)), (-4, -4, 3, -4));
    assert_eq!((wrap(DType::I8, 128), wrap(DType::I8, -1), wrap(DType::U8, 256)), (0x80, 0xff, 0));
    assert_eq!(
        (value(DType::I8, 0x80), value(DType::U8, 0x80), value(DType::I64, u64::MAX)),
        (-128, 128, -1)
    );
}

#[test]
fn div_on_integers_truncates_or_floors_and_survives_a_zero_divisor() {
    let numr = NumrAdapter::new();
    let mut report = Vec::new();
    for d in INTEGERS {
        let e = edges(d);
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for &x in &e {
            for &y in e.iter().filter(|&&y| y != 0) {
                a.push(x);
                b.push(y);
            }
        }
        let out = numr.binary(opspec_adapter::BinaryOp::Divide, &tensor(d, &a), &tensor(d, &b));
        let out = out.unwrap_or_else(|e| panic!("numr div {d}: {e}"));
        assert_eq!(out.dtype(), d, "numr div {d} gives {}", out.dtype());
        let got = out.to_bits();
        let trunc = a.iter().zip(&b).map(|(&x, &y)| wrap(d, x / y));
        let floor = a.iter().zip(&b).map(|(&x, &y)| wrap(d, floor_div(x, y)));
        let truncates = trunc.clone().eq(got.iter().copied());
        let floors = floor.clone().eq(got.iter().copied());
        let wrong: Vec<String> = (0..a.len())
            .filter(|&i| got[i] != trunc.clone().nth(i).unwrap() && got[i] != floor.clone().nth(i).unwrap())
            .take(5)
            .map(|i| format!("{} / {} gave {}", a[i], b[i], value(d, got[i])))
            .collect();
        assert!(truncates || floors, "numr div {d} is neither truncated nor floored: {wrong:?}");
        report.push(format!("{d}: {}", if truncates { "truncates" } else { "floors" }));

        let zeros = vec![0; e.len()];
        match numr.binary(opspec_adapter::BinaryOp::Divide, &tensor(d, &e), &tensor(d, &zeros)) {
            Ok(t) => {
                let got: Vec<i128> = t.to_bits().into_iter().map(|x| value(d, x)).collect();
                report.push(format!("{d}: x / 0 gives {got:?}"));
            }
            Err(err) => {
                assert!(!err.message.contains("panicked"), "numr div {d} by zero panicked: {err}");
                report.push(format!("{d}: x / 0 is refused: {err}"));
            }
        }
    }
    println!("{}", report.join("\n"));
}
