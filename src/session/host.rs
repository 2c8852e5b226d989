//! The host engine: [`crate::engines::gemp::execute`] on all cores (factorised counting, intersections,
//! aggregation inside the search), streaming rows of plain projections while it searches.

use std::time::Duration;

use super::engine::{Engine, EngineRun};
use crate::engines::gemp::device::DeviceTimings;
use crate::error::Result;
use crate::exec::{MatchOptions, RowConsumer, StreamSummary};
use crate::model::Model;
use crate::pattern::ir::BoundQuery;

/// The host matcher over one model.
#[derive(Debug, Clone, Copy)]
pub struct HostEngine<'m> {
    model: &'m Model,
}

impl<'m> HostEngine<'m> {
    /// The host engine for `model` (nothing to prepare).
    pub fn new(model: &'m Model) -> Self {
        HostEngine { model }
    }
}

impl<'m> Engine<'m> for HostEngine<'m> {
    fn name(&self) -> String {
        "host".into()
    }

    fn uses_device(&self) -> bool {
        false
    }

    fn setup_time(&self) -> Duration {
        Duration::ZERO
    }

    fn explain(&self, query: &BoundQuery, options: &MatchOptions) -> Result<String> {
        Ok(crate::engines::gemp::explain::host_execution(
            self.model, query, options,
        ))
    }

    fn run(&self, query: &BoundQuery, options: &MatchOptions) -> Result<EngineRun<'m>> {
        Ok(EngineRun {
            output: crate::engines::gemp::execute(self.model, query, options)?,
            device: None,
        })
    }

    fn run_streaming(
        &self,
        query: &BoundQuery,
        options: &MatchOptions,
        consume: RowConsumer<'_, 'm>,
    ) -> Result<(StreamSummary, Option<DeviceTimings>)> {
        let summary = crate::engines::gemp::execute_streaming(self.model, query, options, consume)?;
        Ok((summary, None))
    }
}
