//! GpSense as a session engine: filter-and-join with multi-level compression
//! ([`crate::engines::gpsense::Engine`]), its filtering on the host or an OpenCL device.

use std::time::{Duration, Instant};

use super::engine::{Engine, EngineRun};
use crate::engines::gpsense::EngineConfig;
use crate::error::Result;
use crate::exec::MatchOptions;
use crate::model::Model;
use crate::pattern::ir::BoundQuery;

/// GpSense over one model.
#[derive(Debug)]
pub struct GpsenseEngine<'m> {
    engine: crate::engines::gpsense::Engine<'m>,
    device_name: Option<String>,
    setup: Duration,
}

impl<'m> GpsenseEngine<'m> {
    /// GpSense with host filtering (compressing the graph first when `config` asks).
    pub fn host(model: &'m Model, config: EngineConfig) -> Result<Self> {
        let start = Instant::now();
        let engine = crate::engines::gpsense::Engine::new(model, config)?;
        Ok(GpsenseEngine {
            engine,
            device_name: None,
            setup: start.elapsed(),
        })
    }

    /// GpSense with filtering on the OpenCL device `selector` names.
    ///
    /// Errors: no OpenCL platform or device, a budget compression cannot reach.
    #[cfg(feature = "opencl")]
    pub fn open(
        model: &'m Model,
        config: EngineConfig,
        selector: crate::gpu::DeviceSelector,
    ) -> Result<Self> {
        let start = Instant::now();
        if crate::gpu::platform_count()? == 0 {
            return Err(crate::Error::OpenCl("no OpenCL platform found".into()));
        }
        let gpu = std::sync::Arc::new(crate::gpu::Gpu::new(selector)?);
        let name = gpu.info().name.clone();
        let engine = crate::engines::gpsense::Engine::with_device(model, config, gpu)?;
        Ok(GpsenseEngine {
            engine,
            device_name: Some(name),
            setup: start.elapsed(),
        })
    }

    /// The GpSense engine itself (its compressed graph, filters).
    pub fn inner(&self) -> &crate::engines::gpsense::Engine<'m> {
        &self.engine
    }
}

impl<'m> Engine<'m> for GpsenseEngine<'m> {
    fn name(&self) -> String {
        match &self.device_name {
            Some(d) => format!("gpsense opencl ({d})"),
            None => "gpsense host".into(),
        }
    }

    fn uses_device(&self) -> bool {
        self.engine.uses_device()
    }

    fn setup_time(&self) -> Duration {
        self.setup
    }

    fn explain(&self, query: &BoundQuery, options: &MatchOptions) -> Result<String> {
        refuse_host_only(query)?;
        self.engine.explain(query, options)
    }

    fn run(&self, query: &BoundQuery, options: &MatchOptions) -> Result<EngineRun<'m>> {
        refuse_host_only(query)?;
        super::engine::refuse_limit(options, "GpSense")?;
        Ok(EngineRun {
            output: self.engine.execute(query, options)?,
            device: None,
        })
    }
}

/// GpSense refuses the clauses only GEMP's host matcher runs, as it refuses Cypher semantics.
fn refuse_host_only(query: &BoundQuery) -> Result<()> {
    match query.host_only_clause() {
        Some(what) => Err(crate::Error::Query(
            format!("{what} is not supported in this engine (GpSense); use --engine gemp").into(),
        )),
        None => Ok(()),
    }
}
