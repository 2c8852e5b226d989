//! GEMP's device engine: phase 1 (pivot-seeded topological search) and phase 2 (string
//! attributes) on an OpenCL device, with the model's topology uploaded once per session
//! ([`crate::engines::gemp::device::DeviceMatcher`]).

use std::sync::Arc;
use std::time::Duration;

use super::engine::{Engine, EngineRun};
use crate::engines::gemp::device::{DeviceConfig, DeviceMatcher, DeviceTimings};
use crate::error::{Error, Result};
use crate::exec::{MatchOptions, RowConsumer, StreamSummary};
use crate::gpu::DeviceSelector;
use crate::model::Model;
use crate::pattern::ir::BoundQuery;

/// The device pipeline over one model on one OpenCL device.
#[derive(Debug)]
pub struct GempDeviceEngine<'m> {
    matcher: DeviceMatcher<'m>,
}

impl<'m> GempDeviceEngine<'m> {
    /// Opens the device `selector` names and uploads the model's topology.
    ///
    /// Errors: no OpenCL platform, no such device, a failing upload.
    pub fn open(model: &'m Model, selector: DeviceSelector, config: DeviceConfig) -> Result<Self> {
        if crate::gpu::platform_count()? == 0 {
            return Err(Error::OpenCl("no OpenCL platform found".into()));
        }
        let gpu = crate::gpu::Gpu::new(selector)?;
        let matcher = DeviceMatcher::new(Arc::new(gpu), model, config)?;
        log::info!(
            "OpenCL backend on {} (the model is uploaded by the first query that enumerates \
             on the device)",
            matcher.gpu().info().summary()
        );
        Ok(GempDeviceEngine { matcher })
    }

    /// The device pipeline's tuning (e.g. to force tiny result buffers).
    pub fn config_mut(&mut self) -> &mut DeviceConfig {
        &mut self.matcher.config
    }

    /// [`Error::DeviceLimit`] for a query the host counts without enumerating, when the
    /// configuration leaves those to the host ([`DeviceConfig::defer_factorised`]).
    fn check_deferred(&self, query: &BoundQuery, options: &MatchOptions) -> Result<()> {
        match self.defers(query, options) {
            Some(why) => Err(Error::DeviceLimit(why)),
            None => Ok(()),
        }
    }
}

impl<'m> Engine<'m> for GempDeviceEngine<'m> {
    fn name(&self) -> String {
        format!("opencl ({})", self.matcher.gpu().info().name)
    }

    fn uses_device(&self) -> bool {
        true
    }

    fn defers(&self, query: &BoundQuery, options: &MatchOptions) -> Option<String> {
        if let Some(why) = self.factorised_deferred(query, options) {
            return Some(why);
        }
        let p = self.prediction(query, options)?;
        (!p.device_wins).then(|| format!("cost model: {}", p.describe(self.matcher.gpu().info())))
    }

    fn auto_note(&self, query: &BoundQuery, options: &MatchOptions) -> Option<String> {
        let p = self.prediction(query, options)?;
        p.device_wins.then(|| {
            format!(
                "--backend auto runs this query on the device: cost model: {}",
                p.describe(self.matcher.gpu().info())
            )
        })
    }

    fn setup_time(&self) -> Duration {
        self.matcher.upload_time()
    }

    fn explain(&self, query: &BoundQuery, options: &MatchOptions) -> Result<String> {
        Ok(crate::engines::gemp::explain::device_execution(
            self.matcher.model(),
            query,
            options,
        ))
    }

    fn run(&self, query: &BoundQuery, options: &MatchOptions) -> Result<EngineRun<'m>> {
        refuse_host_only(query)?;
        self.check_deferred(query, options)?;
        super::engine::refuse_limit(options, "the OpenCL matcher")?;
        let (output, timings) = self.matcher.execute_timed(query, options)?;
        Ok(EngineRun {
            output,
            device: Some(timings),
        })
    }

    fn run_streaming(
        &self,
        query: &BoundQuery,
        options: &MatchOptions,
        consume: RowConsumer<'_, 'm>,
    ) -> Result<(StreamSummary, Option<DeviceTimings>)> {
        refuse_host_only(query)?;
        self.check_deferred(query, options)?;
        super::engine::refuse_limit(options, "the OpenCL matcher")?;
        let (summary, timings) = self.matcher.execute_streaming(query, options, consume)?;
        Ok((summary, Some(timings)))
    }
}

/// A query with a clause only the host runs (`OPTIONAL MATCH`, `UNWIND`, `UNION`,
/// variable-length relationships) is a device limit: `--backend auto` runs it on the host.
fn refuse_host_only(query: &BoundQuery) -> Result<()> {
    match query.host_only_clause() {
        Some(what) => Err(Error::DeviceLimit(format!(
            "{what} is not supported by the OpenCL matcher"
        ))),
        None => Ok(()),
    }
}

impl GempDeviceEngine<'_> {
    /// Under `auto` ([`DeviceConfig::cost_model`]), the cost model's prediction for a count over
    /// the candidate space.
    fn prediction(
        &self,
        query: &BoundQuery,
        options: &MatchOptions,
    ) -> Option<crate::gpu::cost::Prediction> {
        if !self.matcher.config.cost_model || query.host_only_clause().is_some() {
            return None;
        }
        self.matcher.space_prediction(query, options)
    }

    /// Why `auto` leaves a query the host counts without enumerating to the host.
    fn factorised_deferred(&self, query: &BoundQuery, options: &MatchOptions) -> Option<String> {
        (self.matcher.config.defer_factorised
            && query.host_only_clause().is_none()
            && crate::engines::gemp::host_counts_without_enumerating(
                self.matcher.model(),
                query,
                options,
            ))
        .then(|| {
            "the host counts this query without enumerating its matches (factorised plan); the \
             device's factorised kernels have not been measured faster than the host on a GPU \
             yet (docs/benchmarks.md), so `auto` keeps it on the host"
                .to_string()
        })
    }
}
