//! The matching engines, on the shared model and the engine-neutral layer ([`crate::exec`]); no
//! engine imports another's search, and none imports the session or the front ends.
//!
//! - [`gemp`]: GEMP — the host matcher (planner-driven enumeration, factorised counting, triangle
//!   listing, the row-by-row executor) with the candidate-space core ([`gemp::space`]: filter →
//!   order → enumerate as in Sun & Luo's study), and the OpenCL pipeline ([`gemp::device`]);
//! - [`gpsense`]: GpSense's filter-and-join engine with multi-level compression;
//! - [`staged`]: the filter / order / enumerate stage contract, mixing GEMP's and GpSense's
//!   algorithm per stage.

pub mod gemp;
pub mod gpsense;
pub mod staged;
