//! Typed kernel arguments: one struct per `cl/*.cl` kernel, declared once, checked against the
//! kernel's source.
//!
//! OpenCL binds kernel arguments by position, so a host call site that lists them by hand
//! silently drifts from the kernel when a parameter is added, removed or reordered. Instead, each
//! kernel has an argument struct declared with the `kernel_args!` macro below: its fields
//! are the kernel's parameters, in order and named like them (the `.cl` name in lower case, so
//! AMonG's `Q` is the field `q`), typed by what the kernel reads (`&DeviceBuffer<u16>` for a
//! `__global ushort*`, `u32` for a `uint`, [`LocalMem`] for a `__local` array). A call site fills
//! the struct with named fields and hands it to [`Gpu::kernel_from`](super::Gpu::kernel_from),
//! which creates the kernel named by the struct and applies every field in declaration order.
//!
//! Parameters that several kernels share as a block are a *group* ([`GraphArgs`],
//! [`PredicateArgs`]): a struct of its own that a kernel struct embeds as one field and that
//! expands to its fields' parameters. A `.cl` parameter list may name such a block through a
//! `#define` (`PRED_ARGS_DECL`); the signature test expands it.
//!
//! The unit test `signatures_match_cl_sources` parses every declared kernel's parameter list from
//! its `.cl` file and asserts that names, order, count, address spaces and element types equal
//! the struct's, so a kernel parameter added without updating its struct fails `cargo test`.
//!
//! Kernels are built once per launch at every call site, so a scalar that changes between
//! launches (a chunk's first index, a round's task count) is simply a new struct value; the
//! structs are `Copy`, so `Args { first, ..base }` re-uses the rest.

use ocl::builders::KernelBuilder;
use ocl::{Buffer, OclPrm};

use super::DeviceBuffer;

/// Where a kernel parameter lives, with the OpenCL C name of its (element) type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamKind {
    /// A value parameter (`uint n`): the OpenCL C type name.
    Scalar(&'static str),
    /// A `__global` (or `__constant`) pointer: the element type name.
    Global(&'static str),
    /// A `__local` pointer: the element type name.
    Local(&'static str),
}

/// One kernel parameter as the host side declares it: name and kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Param {
    /// The parameter's name (the `.cl` name in lower case).
    pub name: &'static str,
    /// Its address space and type.
    pub kind: ParamKind,
}

/// A Rust scalar that is an OpenCL C scalar type.
pub trait ClScalar: OclPrm {
    /// The OpenCL C name of the type (`uint` for `u32`).
    const CL_NAME: &'static str;
}

macro_rules! cl_scalars {
    ($($rust:ty => $cl:literal),* $(,)?) => {
        $(
            impl ClScalar for $rust {
                const CL_NAME: &'static str = $cl;
            }
        )*
    };
}

cl_scalars! {
    u8 => "uchar", i8 => "char", u16 => "ushort", i16 => "short", u32 => "uint", i32 => "int",
    u64 => "ulong", i64 => "long", f32 => "float", f64 => "double",
}

/// The `.cl` parameters a field type fills (one for a value or buffer, several for a group).
pub trait ClParams {
    /// Appends the parameters this type fills to `out`; `name` is the field's name (groups use
    /// their own fields' names instead).
    fn describe(name: &'static str, out: &mut Vec<Param>);
}

/// A value that can be appended to a kernel under construction as its next argument(s).
pub trait KernelArg<'b>: ClParams {
    /// Appends this value as the next argument(s) of `builder`.
    fn push(self, builder: &mut KernelBuilder<'b>);
}

/// `__local T[len]` scratch memory: a kernel argument with no host data, only a length in
/// elements (`KernelBuilder::arg_local`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LocalMem<T> {
    /// Number of elements.
    pub len: usize,
    _elem: std::marker::PhantomData<T>,
}

impl<T> LocalMem<T> {
    /// `len` elements of local memory.
    pub fn new(len: usize) -> Self {
        LocalMem {
            len,
            _elem: std::marker::PhantomData,
        }
    }
}

macro_rules! scalar_args {
    ($($rust:ty),*) => {
        $(
            impl ClParams for $rust {
                fn describe(name: &'static str, out: &mut Vec<Param>) {
                    out.push(Param { name, kind: ParamKind::Scalar(<$rust as ClScalar>::CL_NAME) });
                }
            }

            impl<'b> KernelArg<'b> for $rust {
                fn push(self, builder: &mut KernelBuilder<'b>) {
                    builder.arg(self);
                }
            }
        )*
    };
}

scalar_args!(u8, i8, u16, i16, u32, i32, u64, i64, f32, f64);

impl<T: ClScalar> ClParams for &DeviceBuffer<T> {
    fn describe(name: &'static str, out: &mut Vec<Param>) {
        out.push(Param {
            name,
            kind: ParamKind::Global(T::CL_NAME),
        });
    }
}

impl<'a: 'b, 'b, T: ClScalar> KernelArg<'b> for &'a DeviceBuffer<T> {
    fn push(self, builder: &mut KernelBuilder<'b>) {
        let buffer: &'b Buffer<T> = self.buffer();
        builder.arg(buffer);
    }
}

/// `None` passes a null buffer (for a kernel that does not read the parameter in this launch).
impl<T: ClScalar> ClParams for Option<&DeviceBuffer<T>> {
    fn describe(name: &'static str, out: &mut Vec<Param>) {
        <&DeviceBuffer<T> as ClParams>::describe(name, out);
    }
}

impl<'a: 'b, 'b, T: ClScalar> KernelArg<'b> for Option<&'a DeviceBuffer<T>> {
    fn push(self, builder: &mut KernelBuilder<'b>) {
        let buffer: Option<&'b Buffer<T>> = self.map(|b| b.buffer());
        builder.arg(buffer);
    }
}

impl<T: ClScalar> ClParams for LocalMem<T> {
    fn describe(name: &'static str, out: &mut Vec<Param>) {
        out.push(Param {
            name,
            kind: ParamKind::Local(T::CL_NAME),
        });
    }
}

impl<'b, T: ClScalar> KernelArg<'b> for LocalMem<T> {
    fn push(self, builder: &mut KernelBuilder<'b>) {
        builder.arg_local::<T>(self.len);
    }
}

/// The argument struct of one kernel (or of several kernels with the same signature); see the
/// [module documentation](self).
pub trait KernelArgs<'b> {
    /// The kernels whose parameter lists this struct mirrors (the first is the default).
    const KERNELS: &'static [&'static str];
    /// The `cl/` file that declares them.
    const FILE: &'static str;
    /// Appends every field, in declaration order, as the kernel's arguments.
    fn apply(self, builder: &mut KernelBuilder<'b>);
}

/// Declares kernel argument structs; see the module documentation.
///
/// ```text
/// kernel_args! {
///     /// Arguments of `compact_scatter`.
///     pub struct CompactScatterArgs<'a> for "compact_scatter" in "scan.cl" {
///         flags: &'a DeviceBuffer<u32>,
///         n: u32,
///     }
/// }
/// ```
///
/// `for "a" | "b"` declares one struct for kernels with identical parameter lists. Each struct
/// gets `KERNEL` (its first kernel), `KERNELS`, `FILE`, `cl_params()` (the expanded parameter
/// list) and a `KernelArgs` implementation; the invocation also gets a test-only `SIGNATURES`
/// table of every struct it declares.
macro_rules! kernel_args {
    ($(
        $(#[$meta:meta])*
        pub struct $name:ident<$lt:lifetime> for $($kernel:literal)|+ in $file:literal {
            $($field:ident: $ty:ty),* $(,)?
        }
    )*) => {
        $(
            $(#[$meta])*
            #[derive(Clone, Copy)]
            pub struct $name<$lt> {
                $(
                    #[doc = concat!("Parameter `", stringify!($field), "`.")]
                    pub $field: $ty,
                )*
            }

            impl<$lt> $name<$lt> {
                /// The kernel this struct's arguments are for (the first of [`Self::KERNELS`]).
                pub const KERNEL: &'static str = [$($kernel),+][0];
                /// Every kernel with this parameter list.
                pub const KERNELS: &'static [&'static str] = &[$($kernel),+];
                /// The `cl/` file declaring the kernels.
                pub const FILE: &'static str = $file;

                /// The parameters, in order, as this struct declares them (groups expanded).
                pub fn cl_params() -> Vec<$crate::gpu::args::Param> {
                    let mut out = Vec::new();
                    $(<$ty as $crate::gpu::args::ClParams>::describe(stringify!($field), &mut out);)*
                    out
                }
            }

            impl<'b, $lt: 'b> $crate::gpu::args::KernelArgs<'b> for $name<$lt> {
                const KERNELS: &'static [&'static str] = &[$($kernel),+];
                const FILE: &'static str = $file;

                fn apply(self, builder: &mut ocl::builders::KernelBuilder<'b>) {
                    $($crate::gpu::args::KernelArg::<'b>::push(self.$field, builder);)*
                }
            }
        )*

        /// Every struct of this declaration: (its kernels, its file's source, its parameters).
        #[cfg(test)]
        const SIGNATURES: &[(&[&str], &str, &str, fn() -> Vec<$crate::gpu::args::Param>)] = &[
            $((
                &[$($kernel),+],
                $file,
                include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/cl/", $file)),
                $name::cl_params,
            ),)*
        ];
    };
}

/// Declares a group of kernel parameters that several kernels take as one block (a struct that
/// is one field of a kernel argument struct and expands to its own fields' parameters).
macro_rules! kernel_arg_group {
    (
        $(#[$meta:meta])*
        pub struct $name:ident<$lt:lifetime> {
            $($field:ident: $ty:ty),* $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy)]
        pub struct $name<$lt> {
            $(
                #[doc = concat!("Parameter `", stringify!($field), "`.")]
                pub $field: $ty,
            )*
        }

        impl<$lt> ClParams for $name<$lt> {
            fn describe(_name: &'static str, out: &mut Vec<Param>) {
                $(<$ty as ClParams>::describe(stringify!($field), out);)*
            }
        }

        impl<'b, $lt: 'b> KernelArg<'b> for $name<$lt> {
            fn push(self, builder: &mut KernelBuilder<'b>) {
                $(KernelArg::<'b>::push(self.$field, builder);)*
            }
        }
    };
}

kernel_arg_group! {
    /// The model's topology as the matcher's kernels take it (`cl/topology.cl`): out and in CSR
    /// (offsets, neighbours, types; in edge ids) and the node-label CSR.
    pub struct GraphArgs<'a> {
        out_off: &'a DeviceBuffer<u32>,
        out_nbr: &'a DeviceBuffer<u32>,
        out_ty: &'a DeviceBuffer<u32>,
        in_off: &'a DeviceBuffer<u32>,
        in_nbr: &'a DeviceBuffer<u32>,
        in_ty: &'a DeviceBuffer<u32>,
        in_eid: &'a DeviceBuffer<u32>,
        lab_off: &'a DeviceBuffer<u32>,
        labs: &'a DeviceBuffer<u32>,
    }
}

kernel_arg_group! {
    /// The predicate programs' literal pool and property columns (`PRED_ARGS_DECL` of
    /// `cl/predicates.cl`).
    pub struct PredicateArgs<'a> {
        pred_lits: &'a DeviceBuffer<i64>,
        prop_tab: &'a DeviceBuffer<u32>,
        prop_vals: &'a DeviceBuffer<i64>,
        prop_valid: &'a DeviceBuffer<u32>,
    }
}

kernel_args! {
    // ---------------------------------------------------------------------------------------
    // cl/selftest.cl
    // ---------------------------------------------------------------------------------------

    /// Arguments of `selftest_lower_bound` (`cl/selftest.cl`).
    pub struct SelftestLowerBoundArgs<'a> for "selftest_lower_bound" in "selftest.cl" {
        sorted: &'a DeviceBuffer<u32>,
        n: u32,
        queries: &'a DeviceBuffer<u32>,
        q: u32,
        lower: &'a DeviceBuffer<u32>,
        upper: &'a DeviceBuffer<u32>,
    }

    /// Arguments of `selftest_has_edge` (`cl/selftest.cl`).
    pub struct SelftestHasEdgeArgs<'a> for "selftest_has_edge" in "selftest.cl" {
        offsets: &'a DeviceBuffer<u32>,
        node_count: u32,
        types: &'a DeviceBuffer<u32>,
        neighbors: &'a DeviceBuffer<u32>,
        qu: &'a DeviceBuffer<u32>,
        qv: &'a DeviceBuffer<u32>,
        qt: &'a DeviceBuffer<u32>,
        q: u32,
        found: &'a DeviceBuffer<u32>,
    }

    // ---------------------------------------------------------------------------------------
    // cl/scan.cl
    // ---------------------------------------------------------------------------------------

    /// Arguments of `scan_blocks` (`cl/scan.cl`): block scans of `2 * local size` elements.
    pub struct ScanBlocksArgs<'a> for "scan_blocks" in "scan.cl" {
        input: &'a DeviceBuffer<u32>,
        output: &'a DeviceBuffer<u32>,
        block_sums: &'a DeviceBuffer<u32>,
        n: u32,
        predicate: u32,
        tmp: LocalMem<u32>,
    }

    /// Arguments of `scan_add_block_offsets` (`cl/scan.cl`).
    pub struct ScanAddBlockOffsetsArgs<'a> for "scan_add_block_offsets" in "scan.cl" {
        data: &'a DeviceBuffer<u32>,
        offsets: &'a DeviceBuffer<u32>,
        n: u32,
    }

    /// Arguments of `compact_scatter` (`cl/scan.cl`).
    pub struct CompactScatterArgs<'a> for "compact_scatter" in "scan.cl" {
        flags: &'a DeviceBuffer<u32>,
        positions: &'a DeviceBuffer<u32>,
        out: &'a DeviceBuffer<u32>,
        n: u32,
    }

    // ---------------------------------------------------------------------------------------
    // cl/topology.cl (with cl/predicates.cl)
    // ---------------------------------------------------------------------------------------

    /// Arguments of `mark_pivot` (`cl/topology.cl`): flags the pivot's candidates.
    pub struct MarkPivotArgs<'a> for "mark_pivot" in "topology.cl" {
        graph: GraphArgs<'a>,
        plan: &'a DeviceBuffer<u32>,
        cand_bits: &'a DeviceBuffer<u32>,
        bit_words: u32,
        pred: PredicateArgs<'a>,
        flags: &'a DeviceBuffer<u32>,
        n: u32,
    }

    /// Arguments of `topology` (`cl/topology.cl`): one round of phase 1.
    pub struct TopologyArgs<'a> for "topology" in "topology.cl" {
        graph: GraphArgs<'a>,
        plan: &'a DeviceBuffer<u32>,
        cand_bits: &'a DeviceBuffer<u32>,
        bit_words: u32,
        scan_nodes: &'a DeviceBuffer<u32>,
        pivots: &'a DeviceBuffer<u32>,
        tasks: &'a DeviceBuffer<u32>,
        n_tasks: u32,
        state_in: &'a DeviceBuffer<u32>,
        state_out: &'a DeviceBuffer<u32>,
        status: &'a DeviceBuffer<u32>,
        counts: &'a DeviceBuffer<u64>,
        results: &'a DeviceBuffer<u32>,
        result_cap: u32,
        result_counter: &'a DeviceBuffer<u32>,
        mode: u32,
        step_budget: u64,
        pred: PredicateArgs<'a>,
    }

    // ---------------------------------------------------------------------------------------
    // cl/factorised.cl
    // ---------------------------------------------------------------------------------------

    /// Arguments of `factorised` (`cl/factorised.cl`): one round of factorised counting.
    pub struct FactorisedArgs<'a> for "factorised" in "factorised.cl" {
        plan: &'a DeviceBuffer<u32>,
        list_off: &'a DeviceBuffer<u32>,
        list_nbr: &'a DeviceBuffer<u32>,
        pivots: &'a DeviceBuffer<u32>,
        n: u32,
        next_pivot: &'a DeviceBuffer<u32>,
        scratch: &'a DeviceBuffer<u32>,
        region_words: u32,
        regions: u32,
        table_slots: u32,
        tables: u32,
        mode: u32,
        min_weight: u64,
        rows: &'a DeviceBuffer<u32>,
        row_cap: u32,
        row_counter: &'a DeviceBuffer<u32>,
        status: &'a DeviceBuffer<u32>,
        sums: &'a DeviceBuffer<u64>,
    }

    // ---------------------------------------------------------------------------------------
    // cl/triangles.cl
    // ---------------------------------------------------------------------------------------

    /// Arguments of `triangles` (`cl/triangles.cl`): one round of weighted triangle listing.
    pub struct TrianglesArgs<'a> for "triangles" in "triangles.cl" {
        co_off: &'a DeviceBuffer<u32>,
        co_nbr: &'a DeviceBuffer<u32>,
        co_cnt: &'a DeviceBuffer<u32>,
        co_base: u32,
        co_span: u32,
        mid_off: &'a DeviceBuffer<u32>,
        mid_nbr: &'a DeviceBuffer<u32>,
        mid_start: u32,
        mid_base: u32,
        mid_span: u32,
        pivots: &'a DeviceBuffer<u32>,
        n: u32,
        next_pivot: &'a DeviceBuffer<u32>,
        mode: u32,
        min_weight: u64,
        rows: &'a DeviceBuffer<u32>,
        row_cap: u32,
        row_counter: &'a DeviceBuffer<u32>,
        status: &'a DeviceBuffer<u32>,
        sums: &'a DeviceBuffer<u64>,
    }

    // ---------------------------------------------------------------------------------------
    // cl/space.cl
    // ---------------------------------------------------------------------------------------

    /// Arguments of `space_count` (`cl/space.cl`): one launch of counting over the candidate
    /// space (edge roots or prefix roots).
    pub struct SpaceCountArgs<'a> for "space_count" in "space.cl" {
        plan: &'a DeviceBuffer<u32>,
        cand_off: &'a DeviceBuffer<u32>,
        cand_nodes: &'a DeviceBuffer<u32>,
        tab_off: &'a DeviceBuffer<u32>,
        tab_tgt: &'a DeviceBuffer<u32>,
        mode: u32,
        roots: &'a DeviceBuffer<u32>,
        root_len: u32,
        first: u32,
        n: u32,
        next_root: &'a DeviceBuffer<u32>,
        stack: &'a DeviceBuffer<u32>,
        stack_words: u32,
        overflow: &'a DeviceBuffer<u32>,
        overflow_count: &'a DeviceBuffer<u32>,
        sums: &'a DeviceBuffer<u64>,
    }

    // ---------------------------------------------------------------------------------------
    // cl/attributes.cl
    // ---------------------------------------------------------------------------------------

    /// Arguments of `attributes` (`cl/attributes.cl`): phase 2's string predicates on one chunk
    /// of rows.
    pub struct AttributesArgs<'a> for "attributes" in "attributes.cl" {
        rows: &'a DeviceBuffer<u32>,
        row_words: u32,
        n_rows: u32,
        preds: &'a DeviceBuffer<u32>,
        n_preds: u32,
        dnodes: &'a DeviceBuffer<u32>,
        entries: &'a DeviceBuffer<u32>,
        heap: &'a DeviceBuffer<u8>,
        lits: &'a DeviceBuffer<u32>,
        lit_bytes: &'a DeviceBuffer<u8>,
        first: u64,
        flags: &'a DeviceBuffer<u8>,
    }

    // ---------------------------------------------------------------------------------------
    // cl/gpsense_filter.cl, cl/gpsense_join.cl
    // ---------------------------------------------------------------------------------------

    /// Arguments of `gpsense_init` (`cl/gpsense_filter.cl`): initial candidate flags.
    pub struct GpsenseInitArgs<'a> for "gpsense_init" in "gpsense_filter.cl" {
        label_offsets: &'a DeviceBuffer<u32>,
        labels: &'a DeviceBuffer<u32>,
        out_offsets: &'a DeviceBuffer<u32>,
        out_types: &'a DeviceBuffer<u32>,
        in_offsets: &'a DeviceBuffer<u32>,
        in_types: &'a DeviceBuffer<u32>,
        spec: &'a DeviceBuffer<u32>,
        n: u32,
        flags: &'a DeviceBuffer<u32>,
    }

    /// Arguments of `gpsense_mark` (`cl/gpsense_filter.cl`): marks the neighbours of candidates.
    pub struct GpsenseMarkArgs<'a> for "gpsense_mark" in "gpsense_filter.cl" {
        cands: &'a DeviceBuffer<u32>,
        ncands: u32,
        offsets: &'a DeviceBuffer<u32>,
        neighbours: &'a DeviceBuffer<u32>,
        types: &'a DeviceBuffer<u32>,
        rel_types: &'a DeviceBuffer<u32>,
        ntypes: u32,
        marks: &'a DeviceBuffer<u32>,
    }

    /// Arguments of `gpsense_and` (`cl/gpsense_filter.cl`): clears unmarked flags.
    pub struct GpsenseAndArgs<'a> for "gpsense_and" in "gpsense_filter.cl" {
        flags: &'a DeviceBuffer<u32>,
        marks: &'a DeviceBuffer<u32>,
        n: u32,
        removed: &'a DeviceBuffer<u32>,
    }

    /// Arguments of `gpsense_edge_count` (`cl/gpsense_join.cl`).
    pub struct GpsenseEdgeCountArgs<'a> for "gpsense_edge_count" in "gpsense_join.cl" {
        cands: &'a DeviceBuffer<u32>,
        ncands: u32,
        offsets: &'a DeviceBuffer<u32>,
        neighbours: &'a DeviceBuffer<u32>,
        types: &'a DeviceBuffer<u32>,
        rel_types: &'a DeviceBuffer<u32>,
        ntypes: u32,
        far_flags: &'a DeviceBuffer<u32>,
        loop_only: u32,
        counts: &'a DeviceBuffer<u32>,
    }

    /// Arguments of `gpsense_edge_write` (`cl/gpsense_join.cl`).
    pub struct GpsenseEdgeWriteArgs<'a> for "gpsense_edge_write" in "gpsense_join.cl" {
        cands: &'a DeviceBuffer<u32>,
        ncands: u32,
        offsets: &'a DeviceBuffer<u32>,
        neighbours: &'a DeviceBuffer<u32>,
        types: &'a DeviceBuffer<u32>,
        rel_types: &'a DeviceBuffer<u32>,
        ntypes: u32,
        far_flags: &'a DeviceBuffer<u32>,
        loop_only: u32,
        edge_ids: &'a DeviceBuffer<u32>,
        has_ids: u32,
        out_offsets: &'a DeviceBuffer<u32>,
        far: &'a DeviceBuffer<u32>,
        edges: &'a DeviceBuffer<u32>,
    }

    // ---------------------------------------------------------------------------------------
    // cl/trust_scores.cl, cl/trust_search.cl
    // ---------------------------------------------------------------------------------------

    /// Arguments of `trust_similarity` (`cl/trust_scores.cl`): one chunk of the similarity
    /// matrix.
    pub struct TrustSimilarityArgs<'a> for "trust_similarity" in "trust_scores.cl" {
        t_off: &'a DeviceBuffer<u32>,
        t_chars: &'a DeviceBuffer<u32>,
        d_off: &'a DeviceBuffer<u32>,
        d_chars: &'a DeviceBuffer<u32>,
        d_count: u32,
        scratch: &'a DeviceBuffer<u32>,
        stride: u32,
        first: u32,
        count: u32,
        sim: &'a DeviceBuffer<u32>,
    }

    /// Arguments of `trust_one_hop` (`cl/trust_scores.cl`): one chunk of the one-hop scores.
    pub struct TrustOneHopArgs<'a> for "trust_one_hop" in "trust_scores.cl" {
        sim: &'a DeviceBuffer<u32>,
        d_count: u32,
        t_adj_off: &'a DeviceBuffer<u32>,
        t_adj: &'a DeviceBuffer<u32>,
        d_adj_off: &'a DeviceBuffer<u32>,
        d_adj: &'a DeviceBuffer<u32>,
        lscratch: &'a DeviceBuffer<i64>,
        uscratch: &'a DeviceBuffer<u32>,
        stride: u32,
        first: u32,
        count: u32,
        oh: &'a DeviceBuffer<u32>,
    }

    /// Arguments of `trust_count` (`cl/trust_search.cl`): children per beam state.
    pub struct TrustCountArgs<'a> for "trust_count" in "trust_search.cl" {
        states: &'a DeviceBuffer<u32>,
        n_states: u32,
        t_count: u32,
        t_off: &'a DeviceBuffer<u32>,
        t_adj: &'a DeviceBuffer<u32>,
        d_off: &'a DeviceBuffer<u32>,
        d_adj: &'a DeviceBuffer<u32>,
        d_count: u32,
        counts: &'a DeviceBuffer<u32>,
    }

    /// Arguments of `trust_expand` (`cl/trust_search.cl`): writes every state's children.
    pub struct TrustExpandArgs<'a> for "trust_expand" in "trust_search.cl" {
        states: &'a DeviceBuffer<u32>,
        scores: &'a DeviceBuffer<u64>,
        hashes: &'a DeviceBuffer<u64>,
        n_states: u32,
        t_count: u32,
        t_off: &'a DeviceBuffer<u32>,
        t_adj: &'a DeviceBuffer<u32>,
        d_off: &'a DeviceBuffer<u32>,
        d_adj: &'a DeviceBuffer<u32>,
        d_count: u32,
        oh: &'a DeviceBuffer<u32>,
        offsets: &'a DeviceBuffer<u32>,
        c_parent: &'a DeviceBuffer<u32>,
        c_u: &'a DeviceBuffer<u32>,
        c_x: &'a DeviceBuffer<u32>,
        c_score: &'a DeviceBuffer<u64>,
        c_hash: &'a DeviceBuffer<u64>,
    }

    /// Arguments of `trust_dedup_insert` (`cl/trust_search.cl`): hash-table deduplication.
    pub struct TrustDedupInsertArgs<'a> for "trust_dedup_insert" in "trust_search.cl" {
        states: &'a DeviceBuffer<u32>,
        t_count: u32,
        c_parent: &'a DeviceBuffer<u32>,
        c_u: &'a DeviceBuffer<u32>,
        c_x: &'a DeviceBuffer<u32>,
        c_hash: &'a DeviceBuffer<u64>,
        n_cand: u32,
        table: &'a DeviceBuffer<u32>,
        mask: u32,
        winner: &'a DeviceBuffer<u32>,
        slot_of: &'a DeviceBuffer<u32>,
    }

    /// Arguments of `trust_dedup_keep` (`cl/trust_search.cl`).
    pub struct TrustDedupKeepArgs<'a> for "trust_dedup_keep" in "trust_search.cl" {
        slot_of: &'a DeviceBuffer<u32>,
        winner: &'a DeviceBuffer<u32>,
        n_cand: u32,
        keep: &'a DeviceBuffer<u32>,
    }

    /// Arguments of `trust_materialise` (`cl/trust_search.cl`): the next beam level.
    pub struct TrustMaterialiseArgs<'a> for "trust_materialise" in "trust_search.cl" {
        sel: &'a DeviceBuffer<u32>,
        n_sel: u32,
        c_parent: &'a DeviceBuffer<u32>,
        c_u: &'a DeviceBuffer<u32>,
        c_x: &'a DeviceBuffer<u32>,
        c_score: &'a DeviceBuffer<u64>,
        c_hash: &'a DeviceBuffer<u64>,
        states: &'a DeviceBuffer<u32>,
        t_count: u32,
        new_states: &'a DeviceBuffer<u32>,
        new_scores: &'a DeviceBuffer<u64>,
        new_hashes: &'a DeviceBuffer<u64>,
    }

    // ---------------------------------------------------------------------------------------
    // cl/among.cl (`Q`, `QN`, `C`, `CN`, `K` are the fields `q`, `qn`, `c`, `cn`, `k`)
    // ---------------------------------------------------------------------------------------

    /// Arguments of `extract_expand` (`cl/among.cl`).
    pub struct ExtractExpandArgs<'a> for "extract_expand" in "among.cl" {
        q: u32,
        qn: u32,
        c: u32,
        cn: u32,
        k: u32,
        cap: u32,
        q_kind: &'a DeviceBuffer<u32>,
        q_ends: &'a DeviceBuffer<u32>,
        c_ends: &'a DeviceBuffer<u32>,
        cand_off: &'a DeviceBuffer<u32>,
        cand_case: &'a DeviceBuffer<u32>,
        cand_sim: &'a DeviceBuffer<f32>,
        surplus: &'a DeviceBuffer<u32>,
        heap_f: &'a DeviceBuffer<f32>,
        heap_slot: &'a DeviceBuffer<u32>,
        heap_size: &'a DeviceBuffer<u32>,
        free_stack: &'a DeviceBuffer<u32>,
        free_top: &'a DeviceBuffer<u32>,
        pool: &'a DeviceBuffer<u16>,
        pool_g: &'a DeviceBuffer<f32>,
        pool_next: &'a DeviceBuffer<i32>,
        best_f: &'a DeviceBuffer<f32>,
        child: &'a DeviceBuffer<u16>,
        child_g: &'a DeviceBuffer<f32>,
        child_count: &'a DeviceBuffer<u32>,
        expansions: &'a DeviceBuffer<u32>,
    }

    /// Arguments of `eval_instance` and `eval_child` (`cl/among.cl`; evaluation strategies 1
    /// and 2, one work-item per instance or per child).
    pub struct EvalArgs<'a> for "eval_instance" | "eval_child" in "among.cl" {
        q: u32,
        qn: u32,
        c: u32,
        cn: u32,
        k: u32,
        h3: u32,
        sel3: u32,
        inv_denom: f32,
        q_ends: &'a DeviceBuffer<u32>,
        c_ends: &'a DeviceBuffer<u32>,
        cand_off: &'a DeviceBuffer<u32>,
        cand_case: &'a DeviceBuffer<u32>,
        cand_sim: &'a DeviceBuffer<f32>,
        q_max: &'a DeviceBuffer<f32>,
        child: &'a DeviceBuffer<u16>,
        child_g: &'a DeviceBuffer<f32>,
        child_count: &'a DeviceBuffer<u32>,
        child_f: &'a DeviceBuffer<f32>,
        child_next: &'a DeviceBuffer<i32>,
    }

    /// Arguments of `eval_element` (`cl/among.cl`; strategy 3, one work-item per query element).
    pub struct EvalElementArgs<'a> for "eval_element" in "among.cl" {
        q: u32,
        qn: u32,
        c: u32,
        cn: u32,
        k: u32,
        h3: u32,
        q_ends: &'a DeviceBuffer<u32>,
        c_ends: &'a DeviceBuffer<u32>,
        cand_off: &'a DeviceBuffer<u32>,
        cand_case: &'a DeviceBuffer<u32>,
        cand_sim: &'a DeviceBuffer<f32>,
        q_max: &'a DeviceBuffer<f32>,
        child: &'a DeviceBuffer<u16>,
        child_count: &'a DeviceBuffer<u32>,
        contrib: &'a DeviceBuffer<f32>,
        cnt: &'a DeviceBuffer<i32>,
    }

    /// Arguments of `eval_reduce` (`cl/among.cl`; strategy 3's per-child reduction).
    pub struct EvalReduceArgs<'a> for "eval_reduce" in "among.cl" {
        q: u32,
        qn: u32,
        c: u32,
        k: u32,
        sel3: u32,
        inv_denom: f32,
        q_ends: &'a DeviceBuffer<u32>,
        child: &'a DeviceBuffer<u16>,
        child_g: &'a DeviceBuffer<f32>,
        child_count: &'a DeviceBuffer<u32>,
        contrib: &'a DeviceBuffer<f32>,
        cnt: &'a DeviceBuffer<i32>,
        child_f: &'a DeviceBuffer<f32>,
        child_next: &'a DeviceBuffer<i32>,
    }

    /// Arguments of `insert` (`cl/among.cl`): moves children into the target instances' heaps.
    pub struct InsertArgs<'a> for "insert" in "among.cl" {
        q: u32,
        c: u32,
        k: u32,
        cap: u32,
        n_inst: u32,
        strategy: u32,
        perm_inv: &'a DeviceBuffer<u32>,
        child: &'a DeviceBuffer<u16>,
        child_g: &'a DeviceBuffer<f32>,
        child_f: &'a DeviceBuffer<f32>,
        child_next: &'a DeviceBuffer<i32>,
        child_count: &'a DeviceBuffer<u32>,
        heap_f: &'a DeviceBuffer<f32>,
        heap_slot: &'a DeviceBuffer<u32>,
        heap_size: &'a DeviceBuffer<u32>,
        free_stack: &'a DeviceBuffer<u32>,
        free_top: &'a DeviceBuffer<u32>,
        pool: &'a DeviceBuffer<u16>,
        pool_g: &'a DeviceBuffer<f32>,
        pool_next: &'a DeviceBuffer<i32>,
        best_f: &'a DeviceBuffer<f32>,
        best_state: &'a DeviceBuffer<u16>,
        status_u: &'a DeviceBuffer<u32>,
    }

    /// Arguments of `status` (`cl/among.cl`): the termination test's summary.
    pub struct StatusArgs<'a> for "status" in "among.cl" {
        n_inst: u32,
        cap: u32,
        heap_f: &'a DeviceBuffer<f32>,
        heap_size: &'a DeviceBuffer<u32>,
        best_f: &'a DeviceBuffer<f32>,
        status_f: &'a DeviceBuffer<f32>,
        status_u: &'a DeviceBuffer<u32>,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// `#define NAME body` of every `cl/*.cl` file (continuation lines joined).
    fn cl_defines() -> HashMap<String, String> {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/cl");
        let mut defines = HashMap::new();
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "cl") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap().replace("\\\n", " ");
            for line in text.lines() {
                let Some(rest) = line.trim_start().strip_prefix("#define") else {
                    continue;
                };
                let rest = rest.trim_start();
                let name_end = rest
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(rest.len());
                if rest[name_end..].starts_with('(') {
                    continue; // function-like macro
                }
                defines.insert(
                    rest[..name_end].to_string(),
                    rest[name_end..].trim().to_string(),
                );
            }
        }
        defines
    }

    /// Strips `/* */` and `//` comments.
    fn strip_comments(src: &str) -> String {
        let mut out = String::with_capacity(src.len());
        let mut rest = src;
        while !rest.is_empty() {
            if let Some(r) = rest.strip_prefix("/*") {
                rest = r.find("*/").map_or("", |e| &r[e + 2..]);
                out.push(' ');
            } else if let Some(r) = rest.strip_prefix("//") {
                rest = r.find('\n').map_or("", |e| &r[e..]);
            } else {
                let c = rest.chars().next().unwrap();
                out.push(c);
                rest = &rest[c.len_utf8()..];
            }
        }
        out
    }

    /// The parameters of `__kernel void name(...)` in `src`, as (name, kind) with the name as
    /// written (`#define`d parameter blocks expanded).
    fn cl_params(
        src: &str,
        name: &str,
        defines: &HashMap<String, String>,
    ) -> Vec<(String, ParamKind)> {
        let src = strip_comments(src);
        let head = format!("__kernel void {name}(");
        let mut found = src.match_indices(&head);
        let (at, _) = found
            .next()
            .unwrap_or_else(|| panic!("no `{head}` in the source"));
        assert!(found.next().is_none(), "`{head}` twice in the source");
        let body = &src[at + head.len()..];
        let mut depth = 1;
        let end = body
            .char_indices()
            .find(|&(_, c)| {
                match c {
                    '(' => depth += 1,
                    ')' => depth -= 1,
                    _ => {}
                }
                depth == 0
            })
            .map(|(i, _)| i)
            .unwrap_or_else(|| panic!("unclosed parameter list of `{name}`"));
        let mut out = Vec::new();
        split_params(&body[..end], defines, &mut out);
        out
    }

    fn split_params(
        list: &str,
        defines: &HashMap<String, String>,
        out: &mut Vec<(String, ParamKind)>,
    ) {
        for param in list.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            if let Some(body) = defines.get(param) {
                split_params(body, defines, out);
                continue;
            }
            let words: Vec<&str> = param
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .filter(|w| !w.is_empty())
                .collect();
            let (&pname, rest) = words.split_last().unwrap();
            let ty = rest
                .iter()
                .rev()
                .find(|w| {
                    !matches!(
                        **w,
                        "const"
                            | "__global"
                            | "global"
                            | "__local"
                            | "local"
                            | "__constant"
                            | "constant"
                            | "restrict"
                            | "__restrict"
                            | "volatile"
                    )
                })
                .unwrap_or_else(|| panic!("no type in parameter `{param}`"));
            let ty: &'static str = Box::leak(ty.to_string().into_boxed_str());
            let kind = if !param.contains('*') {
                ParamKind::Scalar(ty)
            } else if rest.iter().any(|w| matches!(*w, "__local" | "local")) {
                ParamKind::Local(ty)
            } else {
                ParamKind::Global(ty)
            };
            out.push((pname.to_string(), kind));
        }
    }

    #[test]
    fn signatures_match_cl_sources() {
        let defines = cl_defines();
        let mut checked = 0;
        for &(kernels, file, source, params) in SIGNATURES {
            let declared: Vec<(String, ParamKind)> = params()
                .into_iter()
                .map(|p| (p.name.to_string(), p.kind))
                .collect();
            for kernel in kernels {
                let actual: Vec<(String, ParamKind)> = cl_params(source, kernel, &defines)
                    .into_iter()
                    .map(|(n, k)| (n.to_ascii_lowercase(), k))
                    .collect();
                assert_eq!(
                    declared, actual,
                    "the argument struct of `{kernel}` does not match its parameter list in \
                     cl/{file} (left: struct, right: .cl)"
                );
                checked += 1;
            }
        }
        // Every kernel of cl/ has a struct.
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/cl");
        let mut all = Vec::new();
        for entry in std::fs::read_dir(dir).unwrap() {
            let text = strip_comments(&std::fs::read_to_string(entry.unwrap().path()).unwrap());
            for (at, head) in text.match_indices("__kernel void ") {
                let rest = &text[at + head.len()..];
                all.push(rest[..rest.find('(').unwrap()].trim().to_string());
            }
        }
        let covered: Vec<&str> = SIGNATURES
            .iter()
            .flat_map(|s| s.0.iter().copied())
            .collect();
        for kernel in &all {
            assert!(
                covered.contains(&kernel.as_str()),
                "kernel `{kernel}` has no argument struct"
            );
        }
        assert_eq!(checked, all.len());
    }

    #[test]
    fn parser_expands_defines_and_kinds() {
        let mut defines = HashMap::new();
        defines.insert(
            "BLOCK".to_string(),
            "__global const long *a, uint b".to_string(),
        );
        let src = "/* c */ __kernel void k(__global const uint* x, BLOCK, // note\n \
                   __local float *tmp, const ulong n) { f(1); }";
        let got = cl_params(src, "k", &defines);
        let want = [
            ("x", ParamKind::Global("uint")),
            ("a", ParamKind::Global("long")),
            ("b", ParamKind::Scalar("uint")),
            ("tmp", ParamKind::Local("float")),
            ("n", ParamKind::Scalar("ulong")),
        ];
        assert_eq!(got.len(), want.len());
        for ((n, k), (wn, wk)) in got.iter().zip(want) {
            assert_eq!((n.as_str(), *k), (wn, wk));
        }
    }
}
