//! The task runner (GEMP's `CTaskRunner`, §4.1): a façade that runs the queries of a batch, one
//! task per query, on the chosen backend.
//!
//! - **backend choice** ([`Backend`]): `host` runs [`crate::matcher::execute`]; `opencl` runs the
//!   device pipeline ([`crate::matcher::device`]) and fails when no device can be opened or a
//!   query exceeds the kernel's limits; `auto` uses OpenCL when a GPU or accelerator exists (or a device is named) and
//!   otherwise the host, with a log line saying why (a platform whose selected device cannot be opened, e.g. a bad
//!   `--device` or `GEMP_DEVICE`, is an error); it also runs on the host, with a log line, a query
//!   the device cannot take (pattern size limits) or one whose device run fails;
//! - **one upload per batch**: the model's topology goes to the device once, when the runner is
//!   created, and every task reuses it;
//! - **rounds and host help** inside a task: phase 1 runs in rounds of the topology kernel (result
//!   buffer, overflow, GEMP formulas 1–3), while host threads take pivot chunks from the end of
//!   the pivot list as the device takes rounds from its start (see
//!   [`DeviceConfig::host_threads`](crate::matcher::device::DeviceConfig::host_threads));
//! - **measurement points** ([`TaskReport`]): GEMP §7's (1) read input and (7) output are the
//!   caller's; the runner reports (2) convert, (3) upload and phase 1, (4) reading results,
//!   (5) phase-2 buffers and (6) phase 2.

use std::time::{Duration, Instant};

use clap::ValueEnum;
use serde::Serialize;

use crate::error::{Error, Result};
use crate::gpu::DeviceSelector;
use crate::matcher::device::{DeviceConfig, DeviceTimings};
use crate::matcher::{MatchOptions, QueryOutput};
use crate::model::Model;
use crate::pattern::ir::BoundQuery;

/// Where queries run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    /// OpenCL when a GPU or accelerator is found (or a device is named with `--device` /
    /// `GEMP_DEVICE`), else the host, with a log line saying why. A CPU OpenCL device (PoCL) is
    /// used only when asked for: there the host matcher is faster.
    #[default]
    Auto,
    /// The OpenCL pipeline; an error when no device can be opened.
    Opencl,
    /// The host matcher (all cores).
    Host,
}

/// How the runner is set up.
#[derive(Debug, Clone, Default)]
pub struct TaskOptions {
    /// The backend.
    pub backend: Backend,
    /// Which OpenCL device (`Auto` honours `GEMP_DEVICE`).
    pub device: DeviceSelector,
    /// Tuning of the device pipeline.
    pub config: DeviceConfig,
}

/// What one task reports besides its result.
#[derive(Debug, Clone, Default, Serialize)]
pub struct TaskReport {
    /// Where the query ran: `host`, or `opencl` with the device name.
    pub backend: String,
    /// Why an `auto` runner ran this query on the host although a device is open.
    pub fallback: Option<String>,
    /// The device pipeline's measurement points (absent on the host).
    pub device: Option<DeviceTimings>,
    /// Wall time of the task.
    pub total: Duration,
}

/// Runs the queries of a batch on one model.
#[derive(Debug)]
pub struct TaskRunner<'m> {
    model: &'m Model,
    backend: Backend,
    #[cfg(feature = "opencl")]
    device: Option<crate::matcher::device::DeviceMatcher<'m>>,
    /// Time the model upload took (0 on the host).
    pub model_upload: Duration,
}

impl<'m> TaskRunner<'m> {
    /// Prepares the runner: with an OpenCL backend, opens the device and uploads the model.
    ///
    /// Errors: `opencl` without a usable device (or a build without OpenCL support), a device
    /// selection that names no device, or a failing upload. `auto` without any OpenCL platform
    /// logs and uses the host.
    pub fn new(model: &'m Model, options: &TaskOptions) -> Result<Self> {
        #[cfg_attr(not(feature = "opencl"), allow(unused_mut))]
        let mut runner = TaskRunner {
            model,
            backend: options.backend,
            #[cfg(feature = "opencl")]
            device: None,
            model_upload: Duration::ZERO,
        };
        if options.backend == Backend::Host {
            return Ok(runner);
        }
        let mut selector = options.device;
        if options.backend == Backend::Auto {
            let choice = crate::gpu::auto_backend_here(options.device)?;
            match choice.device {
                None => {
                    log::info!("backend auto: the host ({})", choice.reason);
                    return Ok(runner);
                }
                Some(index) => {
                    log::info!("backend auto: OpenCL ({})", choice.reason);
                    selector = DeviceSelector::Index(index);
                }
            }
        }
        match open_device(model, options, selector) {
            Ok(device) => {
                #[cfg(feature = "opencl")]
                {
                    runner.model_upload = device.device_model().upload_time;
                    log::info!(
                        "OpenCL backend on {} (model uploaded in {:.3?})",
                        device.gpu().info().summary(),
                        runner.model_upload
                    );
                    runner.device = Some(device);
                }
                #[cfg(not(feature = "opencl"))]
                let () = device;
                Ok(runner)
            }
            Err(e) => Err(e),
        }
    }

    /// The backend asked for.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// The backend queries run on: `host` or `opencl (<device>)`.
    pub fn backend_name(&self) -> String {
        #[cfg(feature = "opencl")]
        if let Some(d) = &self.device {
            return format!("opencl ({})", d.gpu().info().name);
        }
        "host".to_string()
    }

    /// True when queries run on an OpenCL device.
    #[cfg(feature = "opencl")]
    pub fn uses_device(&self) -> bool {
        self.device.is_some()
    }

    /// True when queries run on an OpenCL device (never, without OpenCL support).
    #[cfg(not(feature = "opencl"))]
    pub fn uses_device(&self) -> bool {
        false
    }

    /// The device pipeline's tuning, when a device is open (e.g. to change buffer sizes).
    #[cfg(feature = "opencl")]
    pub fn device_config_mut(&mut self) -> Option<&mut DeviceConfig> {
        self.device.as_mut().map(|d| &mut d.config)
    }

    /// Runs one task (query).
    pub fn run(
        &self,
        query: &BoundQuery,
        options: &MatchOptions,
    ) -> Result<(QueryOutput<'m>, TaskReport)> {
        let start = Instant::now();
        #[cfg(feature = "opencl")]
        if let Some(device) = &self.device {
            match device.execute_timed(query, options) {
                Ok((out, timings)) => {
                    let report = TaskReport {
                        backend: self.backend_name(),
                        fallback: None,
                        device: Some(timings),
                        total: start.elapsed(),
                    };
                    return Ok((out, report));
                }
                Err(e @ (Error::Query(_) | Error::OpenCl(_))) if self.backend == Backend::Auto => {
                    let why = e.to_string();
                    if matches!(e, Error::OpenCl(_)) {
                        log::warn!("OpenCL failed ({why}): running the query on the host");
                    } else {
                        log::info!("{why}: running the query on the host");
                    }
                    let out = crate::matcher::execute(self.model, query, options)?;
                    let report = TaskReport {
                        backend: "host".into(),
                        fallback: Some(why),
                        device: None,
                        total: start.elapsed(),
                    };
                    return Ok((out, report));
                }
                Err(e) => return Err(e),
            }
        }
        let out = crate::matcher::execute(self.model, query, options)?;
        Ok((
            out,
            TaskReport {
                backend: "host".into(),
                fallback: None,
                device: None,
                total: start.elapsed(),
            },
        ))
    }
}

/// Opens the device `selector` names and uploads the model.
#[cfg(feature = "opencl")]
fn open_device<'m>(
    model: &'m Model,
    options: &TaskOptions,
    selector: DeviceSelector,
) -> Result<crate::matcher::device::DeviceMatcher<'m>> {
    if crate::gpu::platform_count()? == 0 {
        return Err(Error::OpenCl("no OpenCL platform found".into()));
    }
    let gpu = crate::gpu::Gpu::new(selector)?;
    crate::matcher::device::DeviceMatcher::new(
        std::sync::Arc::new(gpu),
        model,
        options.config.clone(),
    )
}

#[cfg(not(feature = "opencl"))]
fn open_device(_model: &Model, _options: &TaskOptions, _selector: DeviceSelector) -> Result<()> {
    Err(Error::OpenCl(
        "gemp was built without OpenCL support (rebuild with the default cargo feature `opencl`)"
            .into(),
    ))
}

/// GEMP's measurement points as one line (`--timings`): `read_input` and `output` are the
/// caller's (1) and (7).
pub fn timings_line(
    report: &TaskReport,
    host: &crate::matcher::Timings,
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
            crate::gpu::human_bytes(d.upload_bytes as u64),
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
    use crate::model::ModelBuilder;

    #[test]
    fn host_backend_runs_on_the_host() {
        let mut b = ModelBuilder::new();
        let t = b.rel_type("T");
        let a = b.add_node("a", &["A"]);
        let c = b.add_node("c", &["A"]);
        b.add_edge(a, c, t).unwrap();
        let m = b.freeze().unwrap();
        let runner = TaskRunner::new(
            &m,
            &TaskOptions {
                backend: Backend::Host,
                ..Default::default()
            },
        )
        .unwrap();
        assert!(!runner.uses_device());
        assert_eq!(runner.backend_name(), "host");
        let q = crate::pattern::compile(
            "MATCH (x:A)-[:T]->(y:A) RETURN count(*) AS c",
            &m,
            &Default::default(),
        )
        .unwrap();
        let (out, report) = runner.run(&q, &MatchOptions::default()).unwrap();
        assert_eq!(out.count, 1);
        assert_eq!(report.backend, "host");
        assert!(report.device.is_none());
        assert!(timings_line(
            &report,
            &out.timings,
            Duration::ZERO,
            Duration::ZERO,
            Duration::ZERO
        )
        .starts_with("timings [host]"));
    }

    #[cfg(not(feature = "opencl"))]
    #[test]
    fn opencl_backend_without_opencl_support_is_an_error() {
        let m = ModelBuilder::new().freeze().unwrap();
        let err = TaskRunner::new(
            &m,
            &TaskOptions {
                backend: Backend::Opencl,
                ..Default::default()
            },
        )
        .unwrap_err();
        assert!(err.to_string().contains("without OpenCL"));
        let auto = TaskRunner::new(&m, &TaskOptions::default()).unwrap();
        assert!(!auto.uses_device());
    }
}
