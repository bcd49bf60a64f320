//! The root package holds only the cross-crate tests in `tests/`.
