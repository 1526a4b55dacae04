//! Scatter problems: seeded shapes, index vectors (with duplicates, out-of-range, negative and
//! empty ones in the shares a generator asks for) and values.
//!
//! The shares are the generator's (`specs/scatter/*.yaml`); the rest is fixed here, for
//! reasons given where each number is chosen.

use opspec_adapter::DType;

use super::Generator;
use crate::bits::format::Format;
use crate::oracle::scatter::Problem;
use crate::spec::scatter::{GeneratedCheck, GeneratorSpec, IndexOrder, ValueKind};

/// The problems of a scatter generator in `dtype`: `spec.problems` of them, with index
/// dtypes taken in turn from `accepted`, or (for an `index_dtypes` check) `spec.problems` in
/// every dtype.
pub fn scatter_problems(
    spec: &GeneratorSpec,
    dtype: DType,
    accepted: &[DType],
    rng: &mut Generator,
) -> Result<Vec<Problem>, String> {
    if spec.check == GeneratedCheck::IndexDtypes {
        let mut problems = Vec::new();
        // Complex dtypes are left out: a c128 index cannot be built from 64-bit element bits.
        for index_dtype in DType::ALL.into_iter().filter(|d| !d.is_complex()) {
            for _ in 0..spec.problems {
                problems.push(random_problem(spec, dtype, index_dtype, rng, 0));
            }
        }
        return Ok(problems);
    }
    if accepted.is_empty() {
        return Err("the suite accepts no index dtype".into());
    }
    Ok((0..spec.problems)
        .map(|k| random_problem(spec, dtype, accepted[k % accepted.len()], rng, k))
        .collect())
}

/// Problem number `k`: rank and extents within the spec's limits, an index depth from 1 to
/// the rank, `min_index_vectors` to `max_index_vectors` index vectors in the `k`-th of the
/// spec's index orders (in turn).
fn random_problem(
    spec: &GeneratorSpec,
    dtype: DType,
    index_dtype: DType,
    rng: &mut Generator,
    k: usize,
) -> Problem {
    let rank = spec.min_rank + rng.below(spec.max_rank - spec.min_rank + 1);
    let extents = spec.max_extent - spec.min_extent + 1;
    let mut input_shape: Vec<usize> = (0..rank).map(|_| spec.min_extent + rng.below(extents)).collect();
    let depth = 1 + rng.below(rank);
    if depth < rank && rng.chance(spec.zero_size) {
        input_shape[depth + rng.below(rank - depth)] = 0;
    }
    let mut vectors = spec.min_index_vectors + rng.below(spec.max_index_vectors - spec.min_index_vectors + 1);
    // About a third of the problems batch their index vectors in two or three rows (an index
    // tensor of rank 3), so a kernel that reads only a flat list of vectors is caught.
    let mut batch = if rng.chance(0.3) && vectors > 1 {
        let a = 2 + rng.below(2);
        vectors = vectors.div_ceil(a);
        vec![a, vectors]
    } else {
        vec![vectors]
    };
    if rng.chance(spec.empty_indices) {
        let axis = rng.below(batch.len());
        batch[axis] = 0;
    }
    let count: usize = batch.iter().product();
    let (dup, oor) = (rng.between(spec.duplicates), rng.between(spec.out_of_range));
    let narrow = index_dtype != DType::I64;
    let order = spec.index_orders[k % spec.index_orders.len()];
    let mut indices: Vec<i64> = Vec::with_capacity(count * depth);
    let mut run = 0;
    for v in 0..count {
        if run > 0 {
            // Runs: the vector before, again.
            run -= 1;
            let from = indices.len() - depth;
            indices.extend_from_within(from..);
            continue;
        }
        if order == IndexOrder::Runs {
            // Runs of 8 to 24, 16 on average: some 94 % of neighbouring vectors are equal.
            run = 7 + rng.below(17);
        }
        if v > 0 && rng.chance(dup) {
            let from = rng.below(v) * depth;
            indices.extend_from_within(from..from + depth);
            continue;
        }
        let start = indices.len();
        for &extent in &input_shape[..depth] {
            indices.push(rng.below(extent) as i64);
        }
        if rng.chance(oor) {
            // Out of range in one coordinate: two in five just past the end, two in five
            // negative (wrapped or out of range as the suite says), one in five the index
            // dtype's extremes (overflow in an implementation's offset arithmetic).
            let axis = rng.below(depth);
            let extent = input_shape[axis] as i64;
            indices[start + axis] = match rng.below(5) {
                0 | 1 => extent + rng.below(3) as i64,
                2 | 3 => -1 - rng.below(input_shape[axis] + 2) as i64,
                _ if narrow => [i64::from(i32::MAX), i64::from(i32::MIN)][rng.below(2)],
                _ => [i64::MAX, i64::MIN][rng.below(2)],
            };
        }
    }
    if index_dtype != DType::I32 && index_dtype != DType::I64 {
        // Other index dtypes only need representable, in-range coordinates.
        for (k, c) in indices.iter_mut().enumerate() {
            *c = (*c).clamp(0, input_shape[k % depth].saturating_sub(1) as i64).min(1);
        }
    }
    if order == IndexOrder::Sorted {
        let mut vectors: Vec<&[i64]> = indices.chunks(depth).collect();
        vectors.sort_unstable();
        indices = vectors.concat();
    }
    let sliced = &input_shape[depth..];
    let updates_shape: Vec<usize> = batch.iter().chain(sliced).copied().collect();
    let input_len: usize = input_shape.iter().product();
    let updates_len: usize = updates_shape.iter().product();
    Problem {
        dtype,
        input: (0..input_len).map(|_| random_value(dtype, spec.values, rng)).collect(),
        input_shape,
        index_dtype,
        index_shape: batch.iter().copied().chain([depth]).collect(),
        indices,
        updates_dtype: dtype,
        updates: (0..updates_len).map(|_| random_value(dtype, spec.values, rng)).collect(),
        updates_shape,
    }
}

/// One value of `dtype`: any bit pattern (integers), or (floats) a zero 1 time in 64, a
/// subnormal 1 in 64, and otherwise a normal number of magnitude 2^-8 to 2^4, so that sums of
/// many addends round often but rarely overflow; or small integers, -4 to 4 (0 to 4 unsigned;
/// both zeros for floats), whose sums are exact in every order.
fn random_value(dtype: DType, kind: ValueKind, rng: &mut Generator) -> u64 {
    let mask = if dtype.size() == 8 { u64::MAX } else { (1u64 << (8 * dtype.size())) - 1 };
    let unsigned = matches!(dtype, DType::U8 | DType::U16 | DType::U32 | DType::U64);
    match (Format::of(dtype), kind) {
        (None, ValueKind::Random) => rng.bits() & mask,
        (None, ValueKind::SmallIntegers) => {
            let v = if unsigned { rng.below(5) as i64 } else { rng.below(9) as i64 - 4 };
            v as u64 & mask
        }
        (Some(f), ValueKind::SmallIntegers) => {
            let v = rng.below(9) as f64 - 4.0;
            // -0 now and then: small integers include both zeros.
            let v = if v == 0.0 && rng.chance(0.5) { -0.0 } else { v };
            f.from_f64_exact(v).unwrap_or(0)
        }
        (Some(f), ValueKind::Random) => {
            let r = rng.bits();
            match r % 64 {
                0 => r >> 63 << (f.bits - 1),                     // ±0
                1 => f.compose(r >> 63 == 1, 0, (r >> 8).max(1)), // subnormal
                _ => f.compose(r >> 63 == 1, (f.bias() - 8 + ((r >> 8) % 12) as i32) as u64, r >> 20),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oracle::scatter::{Policy, reference};
    use opspec_adapter::ScatterMode;

    /// Every input and update value of `problems`.
    fn values_of(problems: &[Problem]) -> impl Iterator<Item = &u64> {
        problems.iter().flat_map(|p| p.input.iter().chain(&p.updates))
    }

    #[test]
    fn problems_are_well_formed_and_reproducible() {
        let yaml = "{id: x, source: s, anchor: a, text: t, check: values, values: random, problems: 50, \
                    max_rank: 3, max_extent: 5, max_index_vectors: 40, duplicates: [0.0, 0.6], \
                    out_of_range: [0.0, 0.2], empty_indices: 0.1, zero_size: 0.1}";
        let spec: GeneratorSpec =
            crate::spec::load::parse_yaml(std::path::Path::new("test.yaml"), yaml).unwrap();
        let accepted = [DType::I32, DType::I64];
        let policy =
            Policy { mode: ScatterMode::Ignore, wrap_negative: false, index_dtypes: accepted.to_vec() };
        for dtype in [DType::F16, DType::F64, DType::U8, DType::I64] {
            let a = scatter_problems(&spec, dtype, &accepted, &mut Generator::new(1, "id")).unwrap();
            let b = scatter_problems(&spec, dtype, &accepted, &mut Generator::new(1, "id")).unwrap();
            assert_eq!(a, b);
            assert_eq!(a.len(), 50);
            for p in &a {
                assert_eq!(p.input.len(), p.input_shape.iter().product::<usize>());
                assert_eq!(p.indices.len(), p.index_shape.iter().product::<usize>());
                assert_eq!(p.updates.len(), p.updates_shape.iter().product::<usize>());
                assert_eq!(reference(p, &policy).unwrap().len(), p.input.len());
            }
            if let Some(f) = Format::of(dtype) {
                // Zeros, subnormals, and normal numbers of magnitude 2^-8 to 2^4.
                let exponents = f.bias() as u64 - 8..f.bias() as u64 + 4;
                for &x in values_of(&a) {
                    let e = f.biased_exp(x);
                    assert!(e == 0 || exponents.contains(&e), "{dtype}: {}", f.describe(x));
                }
            }
            assert!(a.iter().any(|p| p.updates.is_empty()), "no empty problem");
            assert!(a.iter().any(|p| p.index_shape.len() == 3), "no batched index vectors");
        }
    }

    #[test]
    fn large_problems_keep_their_sizes_and_orders() {
        let yaml = "{id: x, source: s, anchor: a, text: t, check: values, values: random, problems: 3, \
                    max_rank: 1, min_extent: 100, max_extent: 200, min_index_vectors: 3000, \
                    max_index_vectors: 4000, index_orders: [random, sorted, runs], \
                    duplicates: [0.0, 0.5], out_of_range: [0.0, 0.1]}";
        let spec: GeneratorSpec =
            crate::spec::load::parse_yaml(std::path::Path::new("test.yaml"), yaml).unwrap();
        let problems =
            scatter_problems(&spec, DType::F32, &[DType::I64], &mut Generator::new(7, "id")).unwrap();
        for p in &problems {
            assert!((100..=200).contains(&p.input_shape[0]), "{:?}", p.input_shape);
            assert!((3000..=4002).contains(&p.indices.len()), "{}", p.indices.len());
        }
        let equal = |p: &Problem| p.indices.windows(2).filter(|w| w[0] == w[1]).count() as f64;
        let n = |p: &Problem| (p.indices.len() - 1) as f64;
        assert!(equal(&problems[0]) / n(&problems[0]) < 0.5, "drawn: mostly distinct neighbours");
        assert!(problems[1].indices.is_sorted(), "sorted");
        assert!(equal(&problems[2]) / n(&problems[2]) > 0.9, "runs: 8 to 24 repeats");
    }
}
