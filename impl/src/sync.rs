//! The synchronisation primitives that the lock-free and locking parts
//! are written against (the SIGBUS guard's slot table, the parallel
//! grep's relay and queue): std's here.  `impl/tests/loom.rs` includes
//! those files beside a module of this name that gives loom's instead, so
//! that loom explores every interleaving of the very code that ships.

pub use std::sync::{atomic, Condvar, Mutex, MutexGuard};
