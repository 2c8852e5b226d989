//! Phase-1 predicate programs for the device. Not compiled yet: every step filter is evaluated on
//! the host on complete phase-1 matches (residual conjuncts), and the pivot's unary conjuncts are
//! applied through the host filter's candidate bitset.

use super::encode::Programs;
use crate::pattern::ir::BoundQuery;
use crate::pattern::planner::Plan;

/// The result of compiling a query's phase-1 conjuncts.
#[derive(Debug, Clone, Default)]
pub struct Compiled {
    /// Programs for the device.
    pub programs: Programs,
    /// Conjuncts (indices into the query's filter) the device does not evaluate: the host checks
    /// them on complete phase-1 matches.
    pub residual: Vec<usize>,
}

/// Compiles the plan's step filters into device programs where possible.
pub fn compile(_query: &BoundQuery, plan: &Plan) -> Compiled {
    Compiled {
        programs: Programs::default(),
        residual: plan
            .steps
            .iter()
            .flat_map(|s| s.filters.iter().copied())
            .collect(),
    }
}

/// The device buffers predicate programs read.
#[cfg(feature = "opencl")]
#[derive(Debug)]
pub(crate) struct DevicePredicates {
    lits: crate::gpu::DeviceBuffer<i64>,
}

#[cfg(feature = "opencl")]
impl DevicePredicates {
    /// Uploads the literal pool.
    pub(crate) fn upload(gpu: &crate::gpu::Gpu, _compiled: &Compiled) -> crate::Result<Self> {
        Ok(DevicePredicates {
            lits: gpu.buffer_from::<i64>("predicate literals", &[], true)?,
        })
    }

    /// Appends the kernel arguments (`PRED_ARGS_DECL` of `cl/predicates.cl`).
    pub(crate) fn args<'b>(&'b self, b: &mut ocl::builders::KernelBuilder<'b>) {
        b.arg(self.lits.buffer());
    }
}
