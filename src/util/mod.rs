//! Small utilities shared by every layer: crash-safe file and directory writes, the heap account
//! behind `--memory-limit`, the run's time limit (`--timeout`), and byte counts for people. Nothing
//! here knows about graphs or queries.

pub mod bytes;
pub mod deadline;
pub mod memory;
pub mod safe_dir;
pub mod safe_write;

pub use bytes::human_bytes;
