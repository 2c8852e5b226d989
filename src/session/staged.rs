//! The staged engine: the host matcher with a chosen algorithm per stage — GEMP's or GpSense's
//! filter, order and join ([`crate::engines::staged`]), `gemp match --filter … --order …
//! --join …`. Host only; it always enumerates, so stage algorithms compare on equal terms.

use std::time::Duration;

use super::engine::{Engine, EngineRun};
use crate::engines::staged::{self, StageChoice};
use crate::error::Result;
use crate::exec::MatchOptions;
use crate::model::Model;
use crate::pattern::ir::BoundQuery;

/// The host matcher running one [`StageChoice`].
#[derive(Debug, Clone, Copy)]
pub struct StagedEngine<'m> {
    model: &'m Model,
    choice: StageChoice,
}

impl<'m> StagedEngine<'m> {
    /// The staged engine for `model` (nothing to prepare).
    pub fn new(model: &'m Model, choice: StageChoice) -> Self {
        StagedEngine { model, choice }
    }

    /// The algorithms it runs.
    pub fn choice(&self) -> StageChoice {
        self.choice
    }
}

impl<'m> Engine<'m> for StagedEngine<'m> {
    fn name(&self) -> String {
        format!("host stages {}", self.choice)
    }

    fn uses_device(&self) -> bool {
        false
    }

    fn setup_time(&self) -> Duration {
        Duration::ZERO
    }

    fn explain(&self, query: &BoundQuery, options: &MatchOptions) -> Result<String> {
        staged::explain(self.model, query, options, self.choice)
    }

    fn run(&self, query: &BoundQuery, options: &MatchOptions) -> Result<EngineRun<'m>> {
        super::engine::refuse_limit(options, "the staged engine")?;
        Ok(EngineRun {
            output: staged::execute(self.model, query, options, self.choice)?,
            device: None,
        })
    }
}
