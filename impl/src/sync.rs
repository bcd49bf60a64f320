//! The synchronisation primitives that the lock-free and nearly lock-free
//! parts are written against: std's here.  `impl/tests/loom.rs` includes
//! those files beside a module of this name that gives loom's instead, so
//! that loom explores every interleaving of the very code that ships.

pub use std::sync::atomic;
