//! What the integration tests share.

/// The `Adapter` methods of a test adapter that wraps the CPU adapter: `version` gives the
/// text said (what is wrong with it), `supports` the CPU adapter's table.
macro_rules! wraps_cpu {
    ($version:expr) => {
        fn version(&self) -> String {
            $version.into()
        }

        fn supports(
            &self,
            op: opspec_adapter::OpKind,
            dtype: opspec_adapter::DType,
        ) -> opspec_adapter::Support {
            opspec_adapter::Adapter::supports(&opspec_cpu::CpuAdapter, op, dtype)
        }
    };
}
