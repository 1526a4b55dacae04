//! `opspec eval`'s operands (`bits::value::operand_bits`): `0x` and hex digits. What parses is
//! described in every dtype that holds it, as eval prints it; the same text is also read as a
//! value literal of every dtype (`Literal::parse`, the tables' `values:`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use opspec::bits::value::{Domain, Literal, describe_value, operand_bits};
use opspec_adapter::DType;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(bits) = operand_bits(text) {
        assert_eq!(operand_bits(&format!("0x{bits:x}")), Ok(bits));
        for dtype in DType::ALL {
            let width = 8 * dtype.size();
            if width < 64 && bits >> width != 0 || dtype == DType::Bool && bits > 1 {
                continue;
            }
            Domain::of(dtype).describe(bits);
            describe_value(dtype, bits);
        }
    }
    for dtype in DType::ALL {
        let _ = Literal::parse(dtype, text);
    }
});
