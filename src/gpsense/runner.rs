//! The GpSense engine behind `gemp match --engine gpsense` and `gemp batch --engine gpsense`:
//! picks the backend like [`crate::task::TaskRunner`] (`auto`: OpenCL when a platform exists,
//! else the host) and reports each query like it.

use std::time::{Duration, Instant};

use super::engine::{Engine, EngineConfig};
use crate::error::{Error, Result};
use crate::gpu::DeviceSelector;
use crate::matcher::{MatchOptions, QueryOutput};
use crate::model::Model;
use crate::pattern::ir::BoundQuery;
use crate::task::{Backend, TaskReport};

/// Runs the queries of a batch with the GpSense engine.
#[derive(Debug)]
pub struct Runner<'m> {
    engine: Engine<'m>,
    backend_name: String,
    /// Time spent preparing the engine: compression (or loading it) and the topology upload.
    pub setup: Duration,
}

impl<'m> Runner<'m> {
    /// Prepares the engine on `backend` (`device` picks the OpenCL device).
    ///
    /// Errors: `opencl` without a usable device (or a build without OpenCL), a device-memory budget
    /// compression cannot reach.
    pub fn new(
        model: &'m Model,
        config: EngineConfig,
        backend: Backend,
        device: DeviceSelector,
    ) -> Result<Self> {
        let start = Instant::now();
        let (use_device, device) = match backend {
            Backend::Host => (false, device),
            Backend::Opencl => (true, device),
            Backend::Auto => {
                let choice = crate::gpu::auto_backend_here(device)?;
                let on = if choice.device.is_some() {
                    "OpenCL"
                } else {
                    "the host"
                };
                log::info!("backend auto: GpSense on {on} ({})", choice.reason);
                match choice.device {
                    Some(i) => (true, DeviceSelector::Index(i)),
                    None => (false, device),
                }
            }
        };
        let (engine, backend_name) = if use_device {
            open(model, config, device)?
        } else {
            (Engine::new(model, config)?, "host".to_string())
        };
        Ok(Runner {
            engine,
            backend_name,
            setup: start.elapsed(),
        })
    }

    /// The engine.
    pub fn engine(&self) -> &Engine<'m> {
        &self.engine
    }

    /// `gpsense host` or `gpsense opencl (<device>)`.
    pub fn backend_name(&self) -> String {
        format!("gpsense {}", self.backend_name)
    }

    /// True when filtering runs on an OpenCL device.
    pub fn uses_device(&self) -> bool {
        self.engine.uses_device()
    }

    /// Runs one query.
    pub fn run(
        &self,
        query: &BoundQuery,
        options: &MatchOptions,
    ) -> Result<(QueryOutput<'m>, TaskReport)> {
        let start = Instant::now();
        let out = self.engine.execute(query, options)?;
        Ok((
            out,
            TaskReport {
                backend: self.backend_name(),
                fallback: None,
                device: None,
                total: start.elapsed(),
            },
        ))
    }
}

#[cfg(feature = "opencl")]
fn open<'m>(
    model: &'m Model,
    config: EngineConfig,
    device: DeviceSelector,
) -> Result<(Engine<'m>, String)> {
    if crate::gpu::platform_count()? == 0 {
        return Err(Error::OpenCl("no OpenCL platform found".into()));
    }
    let gpu = std::sync::Arc::new(crate::gpu::Gpu::new(device)?);
    let name = format!("opencl ({})", gpu.info().name);
    Ok((Engine::with_device(model, config, gpu)?, name))
}

#[cfg(not(feature = "opencl"))]
fn open<'m>(
    _model: &'m Model,
    _config: EngineConfig,
    _device: DeviceSelector,
) -> Result<(Engine<'m>, String)> {
    Err(Error::OpenCl(
        "gemp was built without OpenCL support (rebuild with the default cargo feature `opencl`)"
            .into(),
    ))
}
