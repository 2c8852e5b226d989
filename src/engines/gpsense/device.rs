//! GpSense's filtering phase and edge-candidate collection on an OpenCL device
//! (`cl/gpsense_filter.cl`, `cl/gpsense_join.cl`, and the crate's scan for compaction and the
//! two-step output scheme). The topology (data graph, or compressed graph) is uploaded once per
//! engine; per query only candidate flags, candidate arrays and edge candidates move.
//!
//! The device computes exactly what the host functions of [`super::filter`] and [`super::join`]
//! compute; partial matches are combined on the host (all cores) from the edge candidates.

use std::sync::Arc;

use ocl::Program;

use super::filter::{forward_steps, refinement_steps, FilterConfig, Topo};
use super::join::{normalise_group, EdgeCandidates, EdgeGroups};
use super::plan::GpsPlan;
use crate::error::Result;
use crate::exec::candidates::{degree_needs, Semantics};
use crate::gpu::args::{
    GpsenseAndArgs, GpsenseEdgeCountArgs, GpsenseEdgeWriteArgs, GpsenseInitArgs, GpsenseMarkArgs,
};
use crate::gpu::scan::{compact_flags, compact_flags_device, exclusive_scan_device};
use crate::gpu::sizing::round_up;
use crate::gpu::{DeviceBuffer, Gpu};
use crate::pattern::ir::{BoundQuery, RelVar};

/// Filtering kernels.
pub const FILTER_CL: &str = include_str!("../../../cl/gpsense_filter.cl");
/// Edge-candidate kernels.
pub const JOIN_CL: &str = include_str!("../../../cl/gpsense_join.cl");

/// One direction of the uploaded topology.
struct DeviceCsr {
    offsets: DeviceBuffer<u32>,
    neighbours: DeviceBuffer<u32>,
    types: DeviceBuffer<u32>,
    edge_ids: DeviceBuffer<u32>,
    has_ids: bool,
}

impl DeviceCsr {
    fn upload(gpu: &Gpu, adj: &crate::model::Adjacency, what: &str) -> Result<Self> {
        Ok(DeviceCsr {
            offsets: gpu.buffer_from(&format!("{what} offsets"), &adj.offsets, true)?,
            neighbours: gpu.buffer_from(&format!("{what} neighbours"), &adj.neighbors, true)?,
            types: gpu.buffer_from(&format!("{what} types"), &adj.types, true)?,
            edge_ids: gpu.buffer_from(&format!("{what} edge ids"), &adj.edge_ids, true)?,
            has_ids: !adj.edge_ids.is_empty(),
        })
    }
}

/// The uploaded topology and the built programs.
pub struct DeviceEngine {
    gpu: Arc<Gpu>,
    nodes: usize,
    out: DeviceCsr,
    inc: DeviceCsr,
    label_offsets: DeviceBuffer<u32>,
    labels: DeviceBuffer<u32>,
    filter: Arc<Program>,
    join: Arc<Program>,
    /// Bytes uploaded for the topology.
    pub upload_bytes: usize,
}

impl std::fmt::Debug for DeviceEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceEngine")
            .field("device", &self.gpu.info().name)
            .field("nodes", &self.nodes)
            .field("upload_bytes", &self.upload_bytes)
            .finish()
    }
}

impl DeviceEngine {
    /// Uploads `topo` and its label CSR, builds the kernels.
    pub fn new(gpu: Arc<Gpu>, topo: Topo<'_>, labels: (&[u32], &[u32])) -> Result<Self> {
        let out = DeviceCsr::upload(&gpu, topo.out, "gpsense out")?;
        let inc = DeviceCsr::upload(&gpu, topo.inc, "gpsense in")?;
        let label_offsets = gpu.buffer_from("gpsense label offsets", labels.0, true)?;
        let label_list = gpu.buffer_from("gpsense labels", labels.1, true)?;
        let filter = gpu.program("gpsense_filter", &[FILTER_CL], "")?;
        let join = gpu.program("gpsense_join", &[JOIN_CL], "")?;
        let upload_bytes = [&out, &inc]
            .iter()
            .map(|c| {
                c.offsets.bytes() + c.neighbours.bytes() + c.types.bytes() + c.edge_ids.bytes()
            })
            .sum::<usize>()
            + label_offsets.bytes()
            + label_list.bytes();
        Ok(DeviceEngine {
            gpu,
            nodes: topo.nodes,
            out,
            inc,
            label_offsets,
            labels: label_list,
            filter,
            join,
            upload_bytes,
        })
    }

    /// Candidate initialisation (labels and degree, Definition 3) of pattern node `slot`; unary
    /// conjuncts are the caller's.
    pub fn init_flags(
        &self,
        query: &BoundQuery,
        slot: usize,
        semantics: Semantics,
    ) -> Result<Vec<bool>> {
        let var = &query.pattern.nodes[slot];
        let mut spec = vec![var.labels.len() as u32];
        for g in &var.labels {
            spec.push(g.len() as u32);
            spec.extend_from_slice(g);
        }
        let needs = degree_needs(&query.pattern, slot);
        spec.push(needs.len() as u32);
        for (types, dir, count) in &needs {
            spec.push(match dir {
                Some(true) => 0,
                Some(false) => 1,
                None => 2,
            });
            spec.push(match semantics {
                Semantics::Isomorphism => *count as u32,
                Semantics::Homomorphism | Semantics::Cypher => 1,
            });
            spec.push(types.len() as u32);
            spec.extend_from_slice(types);
        }
        let g = &self.gpu;
        let spec = g.buffer_from("gpsense spec", &spec, true)?;
        let flags = g.zeroed::<u32>("gpsense flags", self.nodes)?;
        if self.nodes == 0 {
            return Ok(Vec::new());
        }
        let l = g.local_size(&self.filter, GpsenseInitArgs::KERNEL, None)?;
        let k = g.kernel_from(
            &self.filter,
            GpsenseInitArgs {
                label_offsets: &self.label_offsets,
                labels: &self.labels,
                out_offsets: &self.out.offsets,
                out_types: &self.out.types,
                in_offsets: &self.inc.offsets,
                in_types: &self.inc.types,
                spec: &spec,
                n: self.nodes as u32,
                flags: &flags,
            },
        )?;
        g.run(&k, round_up(self.nodes, l), Some(l))?;
        Ok(g.read(&flags)?.into_iter().map(|f| f != 0).collect())
    }

    /// Clears `to`'s flags of nodes no candidate in `from` reaches along `rel`; returns how many.
    fn filter_neighbours(
        &self,
        from: &DeviceBuffer<u32>,
        rel: &RelVar,
        from_src: bool,
        to: &DeviceBuffer<u32>,
    ) -> Result<u32> {
        let g = &self.gpu;
        let (cands, count) = compact_flags_device(g, from)?;
        let marks = g.zeroed::<u32>("gpsense marks", self.nodes)?;
        let types = g.buffer_from("gpsense rel types", &rel.types, true)?;
        if count > 0 {
            let l = g.local_size(&self.filter, GpsenseMarkArgs::KERNEL, None)?;
            let (forward, backward) = if rel.undirected {
                (true, true)
            } else {
                (from_src, !from_src)
            };
            for (csr, on) in [(&self.out, forward), (&self.inc, backward)] {
                if !on {
                    continue;
                }
                let k = g.kernel_from(
                    &self.filter,
                    GpsenseMarkArgs {
                        cands: &cands,
                        ncands: count as u32,
                        offsets: &csr.offsets,
                        neighbours: &csr.neighbours,
                        types: &csr.types,
                        rel_types: &types,
                        ntypes: rel.types.len() as u32,
                        marks: &marks,
                    },
                )?;
                g.run(&k, count * l, Some(l))?;
            }
        }
        let removed = g.zeroed::<u32>("gpsense removed", 1)?;
        let l = g.local_size(&self.filter, GpsenseAndArgs::KERNEL, None)?;
        let k = g.kernel_from(
            &self.filter,
            GpsenseAndArgs {
                flags: to,
                marks: &marks,
                n: self.nodes as u32,
                removed: &removed,
            },
        )?;
        g.run(&k, round_up(self.nodes, l), Some(l))?;
        Ok(g.read(&removed)?[0])
    }

    /// Neighbour filtering and refinement on the device (same schedule as
    /// [`super::filter::refine`]; the caller applies [`super::filter::self_loops`] first); updates
    /// `flags` and returns the compacted candidate arrays.
    pub fn refine(
        &self,
        query: &BoundQuery,
        plan: &GpsPlan,
        flags: &mut [Vec<bool>],
        config: FilterConfig,
    ) -> Result<Vec<Vec<u32>>> {
        let g = &self.gpu;
        let pattern = &query.pattern;
        let mut bufs = Vec::with_capacity(flags.len());
        for f in flags.iter() {
            let words: Vec<u32> = f.iter().map(|&b| b as u32).collect();
            bufs.push(g.buffer_from("gpsense flags", &words, false)?);
        }
        if self.nodes > 0 {
            for step in forward_steps(pattern, &plan.order) {
                self.filter_neighbours(&bufs[step.from], step.rel, step.from_src, &bufs[step.to])?;
            }
            let round = refinement_steps(pattern, &plan.order);
            for _ in 0..config.refine_rounds {
                let mut removed = 0;
                for step in &round {
                    removed += self.filter_neighbours(
                        &bufs[step.from],
                        step.rel,
                        step.from_src,
                        &bufs[step.to],
                    )?;
                }
                if removed == 0 {
                    break;
                }
            }
        }
        let mut cands = Vec::with_capacity(bufs.len());
        for (slot, b) in bufs.iter().enumerate() {
            let list = compact_flags(g, b)?;
            let f = &mut flags[slot];
            f.iter_mut().for_each(|x| *x = false);
            for &v in &list {
                f[v as usize] = true;
            }
            cands.push(list);
        }
        Ok(cands)
    }

    /// Edge candidates of `rel` (count, prefix sum, write on the device; grouping and
    /// de-duplication of anonymous pairs on the host).
    pub fn edge_candidates(
        &self,
        rel: &RelVar,
        src_cands: &[u32],
        dst_flags: &[bool],
        all_anonymous: bool,
    ) -> Result<EdgeCandidates> {
        let g = &self.gpu;
        let n = src_cands.len();
        let mut parts: Vec<(Vec<u32>, Vec<u32>, Vec<u32>)> = Vec::new();
        if n > 0 {
            let cands = g.buffer_from("gpsense edge cands", src_cands, true)?;
            let flags: Vec<u32> = dst_flags.iter().map(|&b| b as u32).collect();
            let far_flags = g.buffer_from("gpsense far flags", &flags, true)?;
            let types = g.buffer_from("gpsense rel types", &rel.types, true)?;
            let loop_only = (rel.src == rel.dst) as u32;
            let directions = if rel.undirected {
                vec![&self.out, &self.inc]
            } else {
                vec![&self.out]
            };
            let l = g.local_size(&self.join, GpsenseEdgeCountArgs::KERNEL, None)?;
            for csr in directions {
                let counts = g.zeroed::<u32>("gpsense edge counts", n)?;
                let k = g.kernel_from(
                    &self.join,
                    GpsenseEdgeCountArgs {
                        cands: &cands,
                        ncands: n as u32,
                        offsets: &csr.offsets,
                        neighbours: &csr.neighbours,
                        types: &csr.types,
                        rel_types: &types,
                        ntypes: rel.types.len() as u32,
                        far_flags: &far_flags,
                        loop_only,
                        counts: &counts,
                    },
                )?;
                g.run(&k, round_up(n, l), Some(l))?;
                let (offsets, total) = exclusive_scan_device(g, &counts)?;
                let far = g.uninit::<u32>("gpsense edge far", total as usize)?;
                let edges = g.uninit::<u32>("gpsense edge ids", total as usize)?;
                if total > 0 {
                    let k = g.kernel_from(
                        &self.join,
                        GpsenseEdgeWriteArgs {
                            cands: &cands,
                            ncands: n as u32,
                            offsets: &csr.offsets,
                            neighbours: &csr.neighbours,
                            types: &csr.types,
                            rel_types: &types,
                            ntypes: rel.types.len() as u32,
                            far_flags: &far_flags,
                            loop_only,
                            edge_ids: &csr.edge_ids,
                            has_ids: csr.has_ids as u32,
                            out_offsets: &offsets,
                            far: &far,
                            edges: &edges,
                        },
                    )?;
                    g.run(&k, round_up(n, l), Some(l))?;
                }
                parts.push((g.read(&counts)?, g.read(&far)?, g.read(&edges)?));
            }
        }
        let named = rel.named && !all_anonymous;
        let mut by_src = EdgeGroups {
            offsets: vec![0],
            ..Default::default()
        };
        let mut starts = vec![0usize; parts.len()];
        let mut entries = Vec::new();
        for (i, &x) in src_cands.iter().enumerate() {
            entries.clear();
            for (d, (counts, far, edges)) in parts.iter().enumerate() {
                let c = counts[i] as usize;
                let s = starts[d];
                entries.extend(
                    far[s..s + c]
                        .iter()
                        .copied()
                        .zip(edges[s..s + c].iter().copied()),
                );
                starts[d] += c;
            }
            if entries.is_empty() {
                continue;
            }
            normalise_group(&mut entries, named);
            by_src.keys.push(x);
            for &(y, e) in &entries {
                by_src.far.push(y);
                by_src.edges.push(e);
            }
            by_src.offsets.push(by_src.far.len() as u32);
        }
        let by_dst = by_src.transposed();
        Ok(EdgeCandidates { by_src, by_dst })
    }
}
