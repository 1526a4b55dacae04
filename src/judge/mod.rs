//! Judging: every way a result is accepted. An [`expect::Expect`] is the set of results an
//! input allows; [`context`] computes it for an element-wise input from the table and the
//! oracle; [`classes`] judges a sweep's cases once per combination of value classes, and
//! [`values`] a one-operand sweep's values (their classes found once per [`spans`] run of
//! patterns); [`accuracy`] counts approximate results' errors; [`profile`] judges again under a
//! relaxation profile an adapter declares.

pub mod accuracy;
pub mod authority;
pub mod batch;
pub mod classes;
pub mod complex;
pub mod context;
pub mod expect;
pub mod integer;
pub mod profile;
pub mod scatter;
pub mod spans;
pub mod values;
