//! What GEMP's task runner (`CTaskRunner`, §4.1) reports: the backend names, what one task (query)
//! reports and GEMP's measurement points. The runner is [`crate::session::Session`], which owns
//!
//! - **backend choice** ([`Backend`]): `host` runs [`crate::engines::gemp::execute`]; `opencl` runs the
//!   device pipeline ([`crate::engines::gemp::device`]) and fails when no device can be opened or a
//!   query exceeds the kernel's limits; `auto` uses OpenCL when a GPU or accelerator exists (or a
//!   device is named) and otherwise the host, with a log line saying why (a platform whose
//!   selected device cannot be opened, e.g. a bad `--device` or `GEMP_DEVICE`, is an error); it
//!   also runs on the host, with a log line, a query the device cannot take (pattern size
//!   limits) or one whose device run fails;
//! - **one upload per batch**: the model's topology goes to the device once, when the session is
//!   opened, and every task reuses it;
//! - **rounds and host help** inside a task: phase 1 runs in rounds of the topology kernel (result
//!   buffer, overflow, GEMP formulas 1–3), while host threads take pivot chunks from the end of
//!   the pivot list as the device takes rounds from its start (see
//!   [`DeviceConfig::host_threads`](crate::engines::gemp::device::DeviceConfig::host_threads));
//! - **measurement points** ([`TaskReport`]): GEMP §7's (1) read input and (7) output are the
//!   caller's; the runner reports (2) convert, (3) upload and phase 1, (4) reading results,
//!   (5) phase-2 buffers and (6) phase 2.

use std::time::Duration;

use serde::Serialize;

pub use crate::gpu::Backend;

use crate::engines::gemp::device::DeviceTimings;

/// What one task reports besides its result.
#[derive(Debug, Clone, Default, Serialize)]
pub struct TaskReport {
    /// Where the query ran: `host`, or `opencl` with the device name.
    pub backend: String,
    /// Why an `auto` session ran this query on the host although a device is open.
    pub fallback: Option<String>,
    /// The device pipeline's measurement points (absent on the host).
    pub device: Option<DeviceTimings>,
    /// Wall time of the task.
    pub total: Duration,
}

/// GEMP's measurement points as one line (`--timings`): `read_input` and `output` are the
/// caller's (1) and (7).
pub fn timings_line(
    report: &TaskReport,
    host: &crate::exec::Timings,
    read_input: Duration,
    model_upload: Duration,
    output: Duration,
) -> String {
    match &report.device {
        Some(d) => format!(
            "timings [{}]: (1) read input {:.3?}, (2) convert {:.3?} (filter+plan {:.3?}), \
             (3) upload {:.3?} (model {:.3?}, query {}), phase 1 {:.3?} (kernel {:.3?}, {} rounds, \
             {} overflows, {} pivots, {} on the host), (4) read results {:.3?}, \
             (5) phase-2 buffers {:.3?}, (6) phase 2 {:.3?} ({} → {} matches), (7) output {:.3?} \
             (result stage {:.3?})",
            report.backend,
            read_input,
            d.convert,
            d.prepare,
            d.upload,
            model_upload,
            crate::util::human_bytes(d.upload_bytes as u64),
            d.phase1,
            d.phase1_kernel,
            d.rounds,
            d.overflows,
            d.pivots,
            d.host_pivots,
            d.read_results,
            d.phase2_buffers,
            d.phase2,
            d.phase1_matches,
            d.phase2_matches,
            output,
            d.results,
        ),
        None if report.backend.starts_with("host stages ") => {
            // The staged engine (`--filter/--order/--join`): the plan is the order stage, the
            // enumeration the join stage.
            let t = host;
            format!(
                "timings [{}]: read input {:.3?}, filter {:.3?}, order {:.3?}, join {:.3?}, \
                 results {:.3?}, output {:.3?}",
                report.backend, read_input, t.filter, t.plan, t.enumerate, t.results, output
            )
        }
        None => {
            let t = host;
            format!(
                "timings [{}]: read input {:.3?}, filter {:.3?}, plan {:.3?}, match {:.3?}, \
                 results {:.3?}, output {:.3?}",
                report.backend, read_input, t.filter, t.plan, t.enumerate, t.results, output
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_timings_name_the_backend_and_every_stage() {
        let report = TaskReport {
            backend: "host".into(),
            ..Default::default()
        };
        let line = timings_line(
            &report,
            &crate::exec::Timings::default(),
            Duration::ZERO,
            Duration::ZERO,
            Duration::ZERO,
        );
        assert!(line.starts_with("timings [host]"), "{line}");
        for stage in ["read input", "filter", "plan", "match", "results", "output"] {
            assert!(line.contains(stage), "{line}");
        }
        let staged = TaskReport {
            backend: "host stages filter=gpsense order=gemp join=gpsense".into(),
            ..Default::default()
        };
        let line = timings_line(
            &staged,
            &crate::exec::Timings::default(),
            Duration::ZERO,
            Duration::ZERO,
            Duration::ZERO,
        );
        for stage in ["filter=gpsense", "filter 0", "order 0", "join 0", "results"] {
            assert!(line.contains(stage), "{line}");
        }
    }
}
