//! The catalog loader (`Catalog::from_files`): one file of a small catalog in memory is the
//! input. Its first byte, `0` to `9`, says which ([`SLOTS`]); the rest is the file's text.
//! Loading may refuse it with an error; it must not panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use opspec::spec::{Catalog, CatalogFiles, Origin};

/// The repository's files the catalog is built from.
macro_rules! file {
    ($path:literal) => {
        ($path, include_str!(concat!("../../", $path)))
    };
}

const TABLES: [(&str, &str); 7] = [
    file!("specs/elementwise/add.yaml"),
    file!("specs/elementwise/multiply.yaml"),
    file!("specs/fused/fused_mul_add.yaml"),
    file!("specs/promotion/megengine.yaml"),
    file!("specs/broadcasting/numpy.yaml"),
    file!("specs/scatter/tensor_scatter_add.yaml"),
    file!("specs/complex/subtract.yaml"),
];

/// Where the input goes, by its first byte, and which of [`TABLES`] the catalog also holds.
/// Loading a table costs up to 30 ms (the scatter table's), so each slot holds only the tables
/// its kind of file needs.
const SLOTS: [(&str, &[usize]); 10] = [
    ("specs/elementwise/fuzz.yaml", &[]),
    ("specs/fused/fuzz.yaml", &[]),
    ("specs/promotion/fuzz.yaml", &[]),
    ("specs/broadcasting/fuzz.yaml", &[]),
    ("specs/scatter/fuzz.yaml", &[]),
    ("specs/complex/fuzz.yaml", &[]),
    ("suites/fuzz.yaml", &[0, 1, 2, 3, 4, 6]),
    ("expectations/fuzz.yaml", &[0]),
    // A second table beside a shipped one: what the one-per-operation checks see.
    ("specs/elementwise/fuzz.yaml", &[0]),
    // A suite of scatter tables, with its `scatter:` block.
    ("suites/fuzz.yaml", &[5]),
];

fuzz_target!(|data: &[u8]| {
    let Some((&first, text)) = data.split_first() else { return };
    let Some(&(path, tables)) = SLOTS.get(usize::from(first.wrapping_sub(b'0'))) else { return };
    let text = String::from_utf8_lossy(text).into_owned();
    let mut files: Vec<(String, String)> =
        tables.iter().map(|&i| (TABLES[i].0.to_string(), TABLES[i].1.to_string())).collect();
    files.push((path.to_string(), text));
    let _ = Catalog::from_files(&CatalogFiles::from_texts(Origin::BuiltIn, files));
});
