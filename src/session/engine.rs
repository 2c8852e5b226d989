//! The one engine interface every matching backend implements: the host matcher, GEMP's device
//! pipeline, and GpSense on the host or a device. The [`super::Session`] owns one engine and
//! drives it; engines know nothing of backend choice, fallback or output.

use std::time::Duration;

use crate::engines::gemp::device::DeviceTimings;
use crate::error::Result;
use crate::exec::{MatchOptions, QueryOutput, RowConsumer, StreamSummary};
use crate::pattern::ir::BoundQuery;

/// What one run of an engine returns.
#[derive(Debug)]
pub struct EngineRun<'m> {
    /// Rows (or only the count), the plan that ran and the host stages' timings.
    pub output: QueryOutput<'m>,
    /// The device pipeline's measurement points, when a GEMP device ran the query.
    pub device: Option<DeviceTimings>,
}

/// A matching engine over one model (`'m`).
///
/// Every implementation has the same semantics: equal queries give equal results on every
/// engine (the differential tests hold them to it).
pub trait Engine<'m>: std::fmt::Debug + Send {
    /// The name reports use: `host`, `host stages filter=… order=… join=…`, `opencl (<device>)`,
    /// `gpsense host`, `gpsense opencl (<device>)`.
    fn name(&self) -> String;

    /// True when queries run on an OpenCL device (a failure may then fall back to the host).
    fn uses_device(&self) -> bool;

    /// Why this engine leaves `query` to the host (its runs answer
    /// [`crate::Error::DeviceLimit`]), or `None` when it runs it. Engines that take every query
    /// they can express keep the default.
    fn defers(&self, _query: &BoundQuery, _options: &MatchOptions) -> Option<String> {
        None
    }

    /// Under `--backend auto`, why this engine keeps `query` (a line for `gemp explain`), when it
    /// decided by a prediction; `None` otherwise. Engines without a cost model keep the default.
    fn auto_note(&self, _query: &BoundQuery, _options: &MatchOptions) -> Option<String> {
        None
    }

    /// Time its preparation took: the model upload, GpSense's compression.
    fn setup_time(&self) -> Duration;

    /// How this engine runs `query` (plan and execution strategy, as `gemp explain` prints it).
    fn explain(&self, query: &BoundQuery, options: &MatchOptions) -> Result<String>;

    /// Runs a query to a collected output.
    fn run(&self, query: &BoundQuery, options: &MatchOptions) -> Result<EngineRun<'m>>;

    /// Runs a query and hands its rows to `consume`. The default collects the rows with
    /// [`Engine::run`] and hands them over once; an engine that can hand rows out while it
    /// searches overrides it.
    fn run_streaming(
        &self,
        query: &BoundQuery,
        options: &MatchOptions,
        consume: RowConsumer<'_, 'm>,
    ) -> Result<(StreamSummary, Option<DeviceTimings>)> {
        let run = self.run(query, options)?;
        Ok((crate::exec::hand_over(run.output, consume)?, run.device))
    }
}

/// `--limit` (an exact cap on pattern matches) runs on the host matcher only: other engines
/// refuse it with a device limit, so `--backend auto` moves the query to the host and an engine
/// named explicitly says why.
pub(crate) fn refuse_limit(options: &MatchOptions, engine: &str) -> Result<()> {
    match options.limit {
        Some(_) => Err(crate::Error::DeviceLimit(format!(
            "--limit runs on the host matcher; {engine} does not take it"
        ))),
        None => Ok(()),
    }
}
