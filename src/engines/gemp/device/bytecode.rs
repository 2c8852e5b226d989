//! Phase-1 predicate programs: the plan's step filters (numbers, ids, labels, NACs) compiled into a
//! small stack bytecode that `cl/predicates.cl` interprets during the topology search, with
//! exactly the three-valued logic of [`crate::exec::eval`].
//!
//! # What compiles
//!
//! Literals (null, booleans, integers, floats); pattern nodes and *named* relationships; `id()`;
//! integer, float and boolean properties of bound nodes and relationships (read from columns
//! uploaded per query: only the properties the programs read, per property group, as `long` bits
//! with a validity bitmap); label tests; comparisons (integers and floats compared exactly as the
//! host does, `i64 as f64` rounding included, NaN unequal to everything: only `<>` holds); `AND`, `OR`, `XOR`, `NOT`,
//! unary minus; `IS [NOT] NULL`; `IN` over a list expression; and simple NACs: an `EXISTS`
//! sub-pattern without `WHERE` whose single relationship joins two anchored nodes, or one anchored
//! node to one new node with a label constraint.
//!
//! # What does not (and where it runs instead)
//!
//! Strings (properties that are strings in some group, string literals), arithmetic, `type()`,
//! `labels()`, `CASE`, regular expressions, larger sub-patterns, and expressions nesting deeper than
//! [`MAX_STACK`]. Such a conjunct is *residual*: the host evaluates it on every complete phase-1
//! match (in parallel), which is exact because all conjuncts are ANDed. `--backend opencl` and
//! `auto` behave the same (a debug log line names the residual conjuncts); only a pattern beyond
//! the kernel's size limits makes `auto` fall back to the host matcher and `opencl` fail.
//!
//! # Program layout
//!
//! `[code_len, code…, data…]`: opcodes with their operands, then data (label CNFs, type lists,
//! node-slot lists) addressed relative to the data start. Literals live in a separate `long` pool
//! as (tag, bits) pairs.

use super::encode::{Programs, NONE};
use crate::exec::plan::Plan;
use crate::model::{ColumnData, Model, Value};
use crate::pattern::ir::{BoundQuery, CmpOp, Expr, SubPattern};

/// Deepest value stack a program may use (`GEMP_STACK` in `cl/predicates.cl`).
pub const MAX_STACK: usize = 16;

/// Value tag: null.
pub const T_NULL: u32 = 0;
/// Value tag: boolean (0/1).
pub const T_BOOL: u32 = 1;
/// Value tag: 64-bit integer.
pub const T_INT: u32 = 2;
/// Value tag: 64-bit float (IEEE bits).
pub const T_FLOAT: u32 = 3;
/// Value tag: a node id.
pub const T_NODE: u32 = 4;
/// Value tag: an edge id.
pub const T_REL: u32 = 5;

/// Push literal `i` of the pool.
pub const OP_LIT: u32 = 1;
/// Push the node bound to slot `s`.
pub const OP_NODE: u32 = 2;
/// Push the edge bound to named relationship `i`.
pub const OP_REL: u32 = 3;
/// `id()` of the node of slot `s`.
pub const OP_NODE_ID: u32 = 4;
/// `id()` of the edge of named relationship `i`.
pub const OP_REL_ID: u32 = 5;
/// Property `p` (node property table) of the node of slot `s`: operands `s, p`.
pub const OP_NODE_PROP: u32 = 6;
/// Property `p` (edge property table) of named relationship `i`: operands `i, p`.
pub const OP_REL_PROP: u32 = 7;
/// Label CNF test of the node of slot `s`: operands `s, cnf` (data offset).
pub const OP_HAS_LABELS: u32 = 8;
/// Comparison: operand the operator (0 `=`, 1 `<>`, 2 `<`, 3 `<=`, 4 `>`, 5 `>=`).
pub const OP_CMP: u32 = 9;
/// `IS NULL` (operand 0) or `IS NOT NULL` (operand 1).
pub const OP_IS_NULL: u32 = 10;
/// Three-valued `NOT`.
pub const OP_NOT: u32 = 11;
/// Three-valued binary `AND`.
pub const OP_AND: u32 = 12;
/// Three-valued binary `OR`.
pub const OP_OR: u32 = 13;
/// `XOR`.
pub const OP_XOR: u32 = 14;
/// Unary minus.
pub const OP_NEG: u32 = 15;
/// `x IN [n items]`: operand `n`; pops the items, then `x`.
pub const OP_IN: u32 = 16;
/// Edge between two bound nodes: operands `a slot, b slot, types (data offset), type count,
/// undirected`. Pushes a boolean.
pub const OP_EXISTS_EDGE: u32 = 17;
/// A neighbour of a bound node: operands `from slot, direction (0 out, 1 in, 2 both), types,
/// type count, cnf, excluded slots (data offset), excluded count`. Pushes a boolean.
pub const OP_EXISTS_NEIGHBOR: u32 = 18;

/// Property-table header words (`prop_tab`): groups, group-starts offset, node table offset,
/// edge table offset.
pub const PT_HEADER: usize = 4;
/// Words per property-table entry: kind (0 absent, 1 int, 2 float, 3 bool), values offset,
/// validity offset ([`NONE`] = every row valid).
pub const PT_ENTRY: usize = 3;
/// Property kind: absent (null).
pub const PK_ABSENT: u32 = 0;
/// Property kind: integer column.
pub const PK_INT: u32 = 1;
/// Property kind: float column.
pub const PK_FLOAT: u32 = 2;
/// Property kind: boolean column.
pub const PK_BOOL: u32 = 3;

/// The result of compiling a query's phase-1 conjuncts.
#[derive(Debug, Clone, Default)]
pub struct Compiled {
    /// Programs for the device.
    pub programs: Programs,
    /// Conjuncts (indices into the query's filter) the device does not evaluate: the host checks
    /// them on complete phase-1 matches.
    pub residual: Vec<usize>,
    /// Conjuncts the device evaluates.
    pub on_device: Vec<usize>,
    /// The literal pool: (tag, bits) pairs.
    pub lits: Vec<i64>,
    /// Node properties the programs read (index = table index).
    pub node_props: Vec<String>,
    /// Edge properties the programs read.
    pub edge_props: Vec<String>,
}

/// Why an expression does not compile.
#[derive(Debug)]
struct Unsupported;

type Res = std::result::Result<(), Unsupported>;

/// Compiles the plan's step filters (and the pivot's unary conjuncts) into device programs where
/// possible. `named_index[slot]` is the named index of each relationship slot ([`NONE`] when
/// anonymous).
pub fn compile(model: &Model, query: &BoundQuery, plan: &Plan) -> Compiled {
    let named_index: Vec<u32> = {
        let mut next = 0u32;
        query
            .pattern
            .rels
            .iter()
            .map(|r| {
                if r.named {
                    next += 1;
                    next - 1
                } else {
                    NONE
                }
            })
            .collect()
    };
    let mut out = Compiled::default();
    let mut ctx = Ctx {
        model,
        named_index: &named_index,
        lits: Vec::new(),
        node_props: Vec::new(),
        edge_props: Vec::new(),
    };
    for step in &plan.steps {
        let mut prog = Program::default();
        let mut n = 0;
        for &f in &step.filters {
            let Some(e) = query.filter.get(f) else {
                continue;
            };
            if prog.conjunct(&mut ctx, e, n > 0).is_ok() {
                n += 1;
                out.on_device.push(f);
            } else {
                out.residual.push(f);
            }
        }
        out.programs
            .steps
            .push(if n == 0 { Vec::new() } else { prog.finish() });
    }
    // The pivot's unary conjuncts: all on the device, or none (then the host bitset is used).
    if let Some(first) = plan.steps.first() {
        let unary = plan.unary.get(first.node).map_or(&[][..], |u| &u[..]);
        if !unary.is_empty() {
            let mut prog = Program::default();
            let ok = unary.iter().enumerate().all(|(i, &f)| {
                query
                    .filter
                    .get(f)
                    .is_some_and(|e| prog.conjunct(&mut ctx, e, i > 0).is_ok())
            });
            if ok {
                out.programs.pivot = Some(prog.finish());
            }
        }
    }
    out.lits = ctx.lits;
    out.node_props = ctx.node_props;
    out.edge_props = ctx.edge_props;
    out
}

/// Shared compilation state: the literal pool and the property tables.
struct Ctx<'a> {
    model: &'a Model,
    named_index: &'a [u32],
    lits: Vec<i64>,
    node_props: Vec<String>,
    edge_props: Vec<String>,
}

impl Ctx<'_> {
    fn literal(&mut self, tag: u32, bits: i64) -> u32 {
        for (i, pair) in self.lits.chunks_exact(2).enumerate() {
            if pair[0] == tag as i64 && pair[1] == bits {
                return i as u32;
            }
        }
        self.lits.extend_from_slice(&[tag as i64, bits]);
        (self.lits.len() / 2 - 1) as u32
    }

    fn node_prop(&mut self, key: &str) -> std::result::Result<u32, Unsupported> {
        let string = self.model.groups().iter().any(|g| {
            g.column(key)
                .is_some_and(|c| matches!(c.data, ColumnData::Str(_) | ColumnData::Dict { .. }))
        });
        if string {
            return Err(Unsupported);
        }
        Ok(index_of(&mut self.node_props, key))
    }

    fn edge_prop(&mut self, key: &str) -> std::result::Result<u32, Unsupported> {
        let string = self.model.edge_columns().iter().any(|c| {
            c.name == key && matches!(c.data, ColumnData::Str(_) | ColumnData::Dict { .. })
        });
        if string {
            return Err(Unsupported);
        }
        Ok(index_of(&mut self.edge_props, key))
    }
}

fn index_of(list: &mut Vec<String>, key: &str) -> u32 {
    match list.iter().position(|k| k == key) {
        Some(i) => i as u32,
        None => {
            list.push(key.to_string());
            (list.len() - 1) as u32
        }
    }
}

/// One program under construction.
#[derive(Default)]
struct Program {
    code: Vec<u32>,
    data: Vec<u32>,
    depth: usize,
    max_depth: usize,
}

impl Program {
    fn push(&mut self, words: &[u32], pops: usize, pushes: usize) -> Res {
        if self.depth < pops {
            return Err(Unsupported);
        }
        self.code.extend_from_slice(words);
        self.depth = self.depth - pops + pushes;
        self.max_depth = self.max_depth.max(self.depth);
        if self.max_depth > MAX_STACK {
            return Err(Unsupported);
        }
        Ok(())
    }

    fn data(&mut self, words: &[u32]) -> u32 {
        let off = self.data.len() as u32;
        self.data.extend_from_slice(words);
        off
    }

    fn cnf(&mut self, labels: &[Vec<u32>]) -> u32 {
        let off = self.data(&[labels.len() as u32]);
        for g in labels {
            self.data(&[g.len() as u32]);
            self.data(g);
        }
        off
    }

    /// Compiles one conjunct, ANDed to the previous ones when `and`. On failure the program is
    /// left as it was.
    fn conjunct(&mut self, ctx: &mut Ctx<'_>, e: &Expr, and: bool) -> Res {
        let saved = (
            self.code.len(),
            self.data.len(),
            self.depth,
            self.max_depth,
            ctx.lits.len(),
            ctx.node_props.len(),
            ctx.edge_props.len(),
        );
        let r = self.expr(ctx, e).and_then(|()| {
            if and {
                self.push(&[OP_AND], 2, 1)
            } else {
                Ok(())
            }
        });
        if r.is_err() {
            self.code.truncate(saved.0);
            self.data.truncate(saved.1);
            self.depth = saved.2;
            self.max_depth = saved.3;
            ctx.lits.truncate(saved.4);
            ctx.node_props.truncate(saved.5);
            ctx.edge_props.truncate(saved.6);
        }
        r
    }

    fn finish(self) -> Vec<u32> {
        let mut out = Vec::with_capacity(1 + self.code.len() + self.data.len());
        out.push(self.code.len() as u32);
        out.extend_from_slice(&self.code);
        out.extend_from_slice(&self.data);
        out
    }

    fn literal(&mut self, ctx: &mut Ctx<'_>, v: &Value) -> Res {
        let (tag, bits) = match v {
            Value::Null => (T_NULL, 0),
            Value::Bool(b) => (T_BOOL, *b as i64),
            Value::Int(i) => (T_INT, *i),
            Value::Float(f) => (T_FLOAT, f.to_bits() as i64),
            Value::Str(_) => return Err(Unsupported),
        };
        let i = ctx.literal(tag, bits);
        self.push(&[OP_LIT, i], 0, 1)
    }

    fn rel_index(ctx: &Ctx<'_>, slot: usize) -> std::result::Result<u32, Unsupported> {
        match ctx.named_index.get(slot) {
            Some(&i) if i != NONE => Ok(i),
            _ => Err(Unsupported),
        }
    }

    fn expr(&mut self, ctx: &mut Ctx<'_>, e: &Expr) -> Res {
        match e {
            Expr::Literal(v) => self.literal(ctx, v),
            Expr::Node(s) => self.push(&[OP_NODE, slot32(*s)?], 0, 1),
            Expr::Rel(s) => {
                let i = Self::rel_index(ctx, *s)?;
                self.push(&[OP_REL, i], 0, 1)
            }
            Expr::Id(base) => match **base {
                Expr::Node(s) => self.push(&[OP_NODE_ID, slot32(s)?], 0, 1),
                Expr::Rel(s) => {
                    let i = Self::rel_index(ctx, s)?;
                    self.push(&[OP_REL_ID, i], 0, 1)
                }
                _ => Err(Unsupported),
            },
            Expr::Property(base, key) => match **base {
                Expr::Node(s) => {
                    let p = ctx.node_prop(key)?;
                    self.push(&[OP_NODE_PROP, slot32(s)?, p], 0, 1)
                }
                Expr::Rel(s) => {
                    let i = Self::rel_index(ctx, s)?;
                    let p = ctx.edge_prop(key)?;
                    self.push(&[OP_REL_PROP, i, p], 0, 1)
                }
                _ => Err(Unsupported),
            },
            Expr::HasLabels(base, groups) => match **base {
                Expr::Node(s) => {
                    let cnf = self.cnf(groups);
                    self.push(&[OP_HAS_LABELS, slot32(s)?, cnf], 0, 1)
                }
                _ => Err(Unsupported),
            },
            Expr::Compare(op, a, b) => {
                self.expr(ctx, a)?;
                self.expr(ctx, b)?;
                let code = match op {
                    CmpOp::Eq => 0,
                    CmpOp::Ne => 1,
                    CmpOp::Lt => 2,
                    CmpOp::Le => 3,
                    CmpOp::Gt => 4,
                    CmpOp::Ge => 5,
                };
                self.push(&[OP_CMP, code], 2, 1)
            }
            Expr::IsNull(a, negated) => {
                self.expr(ctx, a)?;
                self.push(&[OP_IS_NULL, *negated as u32], 1, 1)
            }
            Expr::Not(a) => {
                self.expr(ctx, a)?;
                self.push(&[OP_NOT], 1, 1)
            }
            Expr::Neg(a) => {
                self.expr(ctx, a)?;
                self.push(&[OP_NEG], 1, 1)
            }
            Expr::Xor(a, b) => {
                self.expr(ctx, a)?;
                self.expr(ctx, b)?;
                self.push(&[OP_XOR], 2, 1)
            }
            Expr::And(items) | Expr::Or(items) => {
                let op = if matches!(e, Expr::And(_)) {
                    OP_AND
                } else {
                    OP_OR
                };
                let lit = Value::Bool(op == OP_AND);
                match items.split_first() {
                    // An empty conjunction is true, an empty disjunction false.
                    None => self.literal(ctx, &lit),
                    Some((first, rest)) => {
                        self.expr(ctx, first)?;
                        if rest.is_empty() {
                            // One item: `x AND` alone still maps non-booleans to null.
                            self.literal(ctx, &lit)?;
                            return self.push(&[op], 2, 1);
                        }
                        for it in rest {
                            self.expr(ctx, it)?;
                            self.push(&[op], 2, 1)?;
                        }
                        Ok(())
                    }
                }
            }
            Expr::In(a, list) => {
                let items = match &**list {
                    Expr::List(items) => items,
                    Expr::LiteralSet(set) => set.items(),
                    _ => return Err(Unsupported),
                };
                self.expr(ctx, a)?;
                for it in items {
                    self.expr(ctx, it)?;
                }
                self.push(&[OP_IN, items.len() as u32], items.len() + 1, 1)
            }
            Expr::Exists(sub) => self.exists(ctx, sub),
            Expr::Arith(..)
            | Expr::Checked(..)
            | Expr::Local(_)
            | Expr::Map(_)
            | Expr::Comprehension(_)
            | Expr::Index(..)
            | Expr::Slice(..)
            | Expr::Func(..)
            | Expr::Column(_)
            | Expr::TypeName(_)
            | Expr::LabelNames(_)
            | Expr::Str(..)
            | Expr::Regex(..)
            | Expr::List(_)
            | Expr::LiteralSet(_)
            | Expr::Case(_)
            | Expr::ListFn(..)
            | Expr::Path(_)
            | Expr::Aggregate { .. } => Err(Unsupported),
        }
    }

    /// Simple NACs: no `WHERE`; every sub-pattern node anchored except at most one, which the
    /// single relationship joins to an anchored node.
    fn exists(&mut self, ctx: &mut Ctx<'_>, sub: &SubPattern) -> Res {
        let p = &sub.pattern;
        if !sub.filter.is_empty() || p.rels.len() > 1 {
            return Err(Unsupported);
        }
        let mut outer = vec![None; p.nodes.len()];
        for &(o, s) in &sub.anchors {
            *outer.get_mut(s).ok_or(Unsupported)? = Some(slot32(o)?);
        }
        let free: Vec<usize> = (0..p.nodes.len()).filter(|&s| outer[s].is_none()).collect();
        // Labels of the anchored nodes (the host checks them first).
        let mut parts = 0;
        for (s, o) in outer.iter().enumerate() {
            if let Some(o) = o {
                if !p.nodes[s].labels.is_empty() {
                    let cnf = self.cnf(&p.nodes[s].labels);
                    self.push(&[OP_HAS_LABELS, *o, cnf], 0, 1)?;
                    parts += 1;
                }
            }
        }
        match (p.rels.first(), free.as_slice()) {
            (None, []) => {
                // Only label tests (or nothing: true).
                if parts == 0 {
                    self.literal(ctx, &Value::Bool(true))?;
                    parts += 1;
                }
            }
            (Some(r), []) => {
                let (a, b) = (
                    outer[r.src].ok_or(Unsupported)?,
                    outer[r.dst].ok_or(Unsupported)?,
                );
                let types = self.data(&r.types);
                self.push(
                    &[
                        OP_EXISTS_EDGE,
                        a,
                        b,
                        types,
                        r.types.len() as u32,
                        r.undirected as u32,
                    ],
                    0,
                    1,
                )?;
                parts += 1;
            }
            (Some(r), &[f]) if r.src != r.dst && (r.src == f || r.dst == f) => {
                let (from, dir) = if r.dst == f {
                    (outer[r.src].ok_or(Unsupported)?, 0u32)
                } else {
                    (outer[r.dst].ok_or(Unsupported)?, 1u32)
                };
                let dir = if r.undirected { 2 } else { dir };
                let types = self.data(&r.types);
                let cnf = self.cnf(&p.nodes[f].labels);
                let excluded: Vec<u32> = outer.iter().flatten().copied().collect();
                let excl = self.data(&excluded);
                self.push(
                    &[
                        OP_EXISTS_NEIGHBOR,
                        from,
                        dir,
                        types,
                        r.types.len() as u32,
                        cnf,
                        excl,
                        excluded.len() as u32,
                    ],
                    0,
                    1,
                )?;
                parts += 1;
            }
            _ => return Err(Unsupported),
        }
        for _ in 1..parts {
            self.push(&[OP_AND], 2, 1)?;
        }
        Ok(())
    }
}

fn slot32(s: usize) -> std::result::Result<u32, Unsupported> {
    if s < super::encode::MAX_PATTERN_NODES {
        Ok(s as u32)
    } else {
        Err(Unsupported)
    }
}

/// The device buffers predicate programs read: the literal pool and the property tables.
#[cfg(feature = "opencl")]
#[derive(Debug)]
pub(crate) struct DevicePredicates {
    lits: crate::gpu::DeviceBuffer<i64>,
    tab: crate::gpu::DeviceBuffer<u32>,
    vals: crate::gpu::DeviceBuffer<i64>,
    valid: crate::gpu::DeviceBuffer<u32>,
    /// Bytes uploaded.
    pub bytes: usize,
}

/// Property tables on the host: (`prop_tab`, `prop_vals`, `prop_valid`).
pub fn property_tables(model: &Model, compiled: &Compiled) -> (Vec<u32>, Vec<i64>, Vec<u32>) {
    let groups = model.groups();
    let ng = groups.len();
    let starts_off = PT_HEADER;
    let node_tab = starts_off + ng + 1;
    let edge_tab = node_tab + compiled.node_props.len() * ng * PT_ENTRY;
    let mut tab = vec![0u32; edge_tab + compiled.edge_props.len() * PT_ENTRY];
    tab[0] = ng as u32;
    tab[1] = starts_off as u32;
    tab[2] = node_tab as u32;
    tab[3] = edge_tab as u32;
    for (i, g) in groups.iter().enumerate() {
        tab[starts_off + i] = g.start;
    }
    tab[starts_off + ng] = model.node_count() as u32;
    let mut vals: Vec<i64> = Vec::new();
    let mut valid: Vec<u32> = Vec::new();
    let mut put = |col: Option<&crate::model::Column>, entry: &mut [u32]| {
        entry[0] = PK_ABSENT;
        entry[1] = 0;
        entry[2] = NONE;
        let Some(c) = col else { return };
        let (kind, start) = (
            match &c.data {
                ColumnData::Int(_) => PK_INT,
                ColumnData::Float(_) => PK_FLOAT,
                ColumnData::Bool(_) => PK_BOOL,
                _ => return,
            },
            vals.len(),
        );
        match &c.data {
            ColumnData::Int(v) => vals.extend_from_slice(v),
            ColumnData::Float(v) => vals.extend(v.iter().map(|f| f.to_bits() as i64)),
            ColumnData::Bool(v) => vals.extend(v.iter().map(|&b| i64::from(b != 0))),
            _ => return,
        }
        entry[0] = kind;
        entry[1] = start as u32;
        if !c.validity.is_empty() {
            entry[2] = valid.len() as u32;
            for &w in c.validity.iter() {
                valid.push(w as u32);
                valid.push((w >> 32) as u32);
            }
        }
    };
    for (p, key) in compiled.node_props.iter().enumerate() {
        for (g, group) in groups.iter().enumerate() {
            let b = node_tab + (p * ng + g) * PT_ENTRY;
            put(group.column(key), &mut tab[b..b + PT_ENTRY]);
        }
    }
    for (p, key) in compiled.edge_props.iter().enumerate() {
        let b = edge_tab + p * PT_ENTRY;
        let col = model.edge_columns().iter().find(|c| &c.name == key);
        put(col, &mut tab[b..b + PT_ENTRY]);
    }
    (tab, vals, valid)
}

#[cfg(feature = "opencl")]
impl DevicePredicates {
    /// Uploads the literal pool and the property columns the programs read.
    pub(crate) fn upload(
        gpu: &crate::gpu::Gpu,
        model: &Model,
        compiled: &Compiled,
    ) -> crate::Result<Self> {
        let (tab, vals, valid) = property_tables(model, compiled);
        if vals.len() > u32::MAX as usize || valid.len() > u32::MAX as usize {
            return Err(crate::Error::DeviceLimit(
                "the property columns the query reads are too large for the OpenCL matcher".into(),
            ));
        }
        let p = DevicePredicates {
            lits: gpu.buffer_from("predicate literals", &compiled.lits, true)?,
            tab: gpu.buffer_from("property table", &tab, true)?,
            vals: gpu.buffer_from("property values", &vals, true)?,
            valid: gpu.buffer_from("property validity", &valid, true)?,
            bytes: 0,
        };
        let bytes = p.lits.bytes() + p.tab.bytes() + p.vals.bytes() + p.valid.bytes();
        Ok(DevicePredicates { bytes, ..p })
    }

    /// The kernel arguments (`PRED_ARGS_DECL` of `cl/predicates.cl`).
    pub(crate) fn args(&self) -> crate::gpu::args::PredicateArgs<'_> {
        crate::gpu::args::PredicateArgs {
            pred_lits: &self.lits,
            prop_tab: &self.tab,
            prop_vals: &self.vals,
            prop_valid: &self.valid,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::plan::Step;
    use crate::model::{ModelBuilder, ValueRef};
    use crate::pattern::ir::{ArithOp, NodeVar, Pattern, RelVar};

    fn model() -> Model {
        let mut b = ModelBuilder::new();
        let (x, s) = (b.node_property("x"), b.node_property("s"));
        let w = b.edge_property("w");
        let t = b.rel_type("T");
        let a = b.add_node("a", &["A"]);
        let c = b.add_node("c", &["B"]);
        b.set_node_property(a, x, ValueRef::Int(4)).unwrap();
        b.set_node_property(c, s, ValueRef::Str("hi")).unwrap();
        let e = b.add_edge(a, c, t).unwrap();
        b.set_edge_property(e, w, ValueRef::Int(7)).unwrap();
        b.freeze().unwrap()
    }

    fn node(name: &str) -> NodeVar {
        NodeVar {
            name: name.into(),
            named: true,
            labels: vec![],
        }
    }

    fn prop(slot: usize, key: &str) -> Box<Expr> {
        Box::new(Expr::Property(Box::new(Expr::Node(slot)), key.into()))
    }

    fn query(filter: Vec<Expr>) -> (BoundQuery, Plan) {
        let q = BoundQuery {
            pattern: Pattern {
                nodes: vec![node("a"), node("b")],
                rels: vec![RelVar {
                    name: "r".into(),
                    named: true,
                    src: 0,
                    dst: 1,
                    types: vec![],
                    undirected: false,
                    clause: 0,
                }],
            },
            filter,
            stages: vec![],
            clauses: None,
        };
        let n = q.filter.len();
        let step = |node, filters| Step {
            node,
            expand: None,
            checks: vec![],
            filters,
            candidates: 0,
            estimate: 0.0,
        };
        let plan = Plan {
            steps: vec![step(0, vec![]), step(1, (0..n).collect())],
            unary: vec![vec![], vec![]],
            attribute_filters: vec![],
        };
        (q, plan)
    }

    #[test]
    fn numeric_conjuncts_compile_strings_and_arithmetic_stay_on_the_host() {
        let m = model();
        let id = |s| Box::new(Expr::Id(Box::new(Expr::Node(s))));
        let nac = SubPattern {
            anchors: vec![(0, 0), (1, 1)],
            pattern: Pattern {
                nodes: vec![node("a"), node("b")],
                rels: vec![RelVar {
                    name: "_".into(),
                    named: false,
                    src: 1,
                    dst: 0,
                    types: vec![],
                    undirected: false,
                    clause: 0,
                }],
            },
            filter: vec![],
        };
        let mut nac_with_filter = nac.clone();
        nac_with_filter.filter = vec![Expr::Literal(Value::Bool(true))];
        let (q, plan) = query(vec![
            Expr::Compare(CmpOp::Lt, id(0), id(1)),
            Expr::Compare(CmpOp::Eq, prop(0, "s"), prop(1, "s")),
            Expr::Compare(
                CmpOp::Gt,
                Box::new(Expr::Arith(
                    ArithOp::Add,
                    prop(0, "x"),
                    Box::new(Expr::Literal(Value::Int(1))),
                )),
                Box::new(Expr::Literal(Value::Int(3))),
            ),
            Expr::Not(Box::new(Expr::Exists(Box::new(nac)))),
            Expr::Exists(Box::new(nac_with_filter)),
            Expr::IsNull(
                Box::new(Expr::Property(Box::new(Expr::Rel(0)), "w".into())),
                true,
            ),
            Expr::In(
                prop(0, "x"),
                Box::new(Expr::List(vec![
                    Expr::Literal(Value::Int(4)),
                    Expr::Literal(Value::Float(2.5)),
                ])),
            ),
        ]);
        let c = compile(&m, &q, &plan);
        assert_eq!(c.on_device, vec![0, 3, 5, 6]);
        assert_eq!(c.residual, vec![1, 2, 4]);
        assert!(c.programs.steps[0].is_empty());
        let prog = &c.programs.steps[1];
        assert!((prog[0] as usize) < prog.len());
        assert_eq!(c.node_props, vec!["x".to_string()]);
        assert_eq!(c.edge_props, vec!["w".to_string()]);
        // Literals are pooled as (tag, bits) pairs, without repeats.
        assert_eq!(
            c.lits,
            vec![T_INT as i64, 4, T_FLOAT as i64, 2.5f64.to_bits() as i64]
        );
    }

    #[test]
    fn deep_expressions_stay_on_the_host() {
        let m = model();
        let mut e = Expr::Literal(Value::Int(1));
        for _ in 0..MAX_STACK + 2 {
            e = Expr::Compare(
                CmpOp::Eq,
                Box::new(Expr::Literal(Value::Int(1))),
                Box::new(e),
            );
        }
        let (q, plan) = query(vec![e]);
        let c = compile(&m, &q, &plan);
        assert_eq!(c.residual, vec![0]);
        assert!(c.lits.is_empty());
    }

    #[test]
    fn property_table_layout() {
        let m = model();
        let (q, plan) = query(vec![Expr::Compare(
            CmpOp::Gt,
            prop(0, "x"),
            Box::new(Expr::Literal(Value::Int(3))),
        )]);
        let c = compile(&m, &q, &plan);
        let (tab, vals, valid) = property_tables(&m, &c);
        let ng = m.groups().len();
        assert_eq!(tab[0] as usize, ng);
        let starts = tab[1] as usize;
        assert_eq!(tab[starts + ng] as usize, m.node_count());
        // Every node's x through the table equals the model's.
        for v in 0..m.node_count() as u32 {
            let g = (0..ng).rev().find(|&g| tab[starts + g] <= v).unwrap();
            let e = tab[2] as usize + g * PT_ENTRY;
            let row = (v - tab[starts + g]) as usize;
            let got = match tab[e] {
                PK_ABSENT => None,
                _ if tab[e + 2] != NONE
                    && (valid[tab[e + 2] as usize + row / 32] >> (row % 32)) & 1 == 0 =>
                {
                    None
                }
                PK_INT => Some(vals[tab[e + 1] as usize + row]),
                k => panic!("kind {k}"),
            };
            let want = match m.node_property(v, "x") {
                ValueRef::Int(i) => Some(i),
                _ => None,
            };
            assert_eq!(got, want, "node {v}");
        }
    }
}
