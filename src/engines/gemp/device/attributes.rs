//! GEMP phase 2: string attribute conjuncts on the phase-1 matches (`cl/attributes.cl`).
//!
//! The planner puts every string conjunct into [`Plan::attribute_filters`]. Those of a simple
//! shape run on the device: a node property compared with a string literal (`=`, `<>`, `<`, `<=`,
//! `>`, `>=`, either side), `CONTAINS` / `STARTS WITH` / `ENDS WITH` a string literal, and `IN` a
//! list of string literals. Only the string attributes of the nodes occurring in phase-1 matches
//! are copied (GEMP §5, Fig. 4): per property key the sorted distinct nodes the predicates read,
//! with (offset, length, kind) entries into one byte heap. One work-item evaluates one
//! (match, predicate) pair and writes a pass flag; the host ANDs the flags per match and keeps the
//! survivors.
//!
//! Everything else runs on the host on the survivors, in parallel (rayon): regular expressions
//! (`=~`, with the `regex` crate), conjuncts mixing string predicates with `OR` / `NOT` / other
//! operators, and string properties of relationships.

use crate::exec::plan::Plan;
use crate::model::{Model, Value, ValueRef};
use crate::pattern::ir::{BoundQuery, CmpOp, Expr, StrOp};

/// Words per predicate in the predicate table.
pub const PRED_WORDS: usize = 6;

/// A string operator of the attribute kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StrPredOp {
    /// `=`
    Eq = 0,
    /// `<>`
    Ne = 1,
    /// `<`
    Lt = 2,
    /// `<=`
    Le = 3,
    /// `>`
    Gt = 4,
    /// `>=`
    Ge = 5,
    /// `CONTAINS`
    Contains = 6,
    /// `STARTS WITH`
    StartsWith = 7,
    /// `ENDS WITH`
    EndsWith = 8,
    /// `IN [strings]`
    In = 9,
}

/// One device-evaluated string predicate: `node(slot).key OP literal(s)`.
#[derive(Debug, Clone, PartialEq)]
pub struct StrPred {
    /// The pattern node slot whose property is read.
    pub slot: usize,
    /// The property key.
    pub key: String,
    /// The operator (with the property on the left).
    pub op: StrPredOp,
    /// The literal (one), or the list of `IN`.
    pub literals: Vec<String>,
}

impl StrPred {
    /// Host evaluation with the kernel's semantics (true = the conjunct holds).
    pub fn holds(&self, value: ValueRef<'_>) -> bool {
        match value {
            ValueRef::Null => false,
            ValueRef::Str(s) => {
                let lit = self.literals.first().map_or("", String::as_str);
                match self.op {
                    StrPredOp::Eq => s == lit,
                    StrPredOp::Ne => s != lit,
                    StrPredOp::Lt => s < lit,
                    StrPredOp::Le => s <= lit,
                    StrPredOp::Gt => s > lit,
                    StrPredOp::Ge => s >= lit,
                    StrPredOp::Contains => s.contains(lit),
                    StrPredOp::StartsWith => s.starts_with(lit),
                    StrPredOp::EndsWith => s.ends_with(lit),
                    StrPredOp::In => self.literals.iter().any(|l| l == s),
                }
            }
            _ => self.op == StrPredOp::Ne,
        }
    }
}

/// How the attribute conjuncts of a plan are split.
#[derive(Debug, Clone, Default)]
pub struct AttributeSplit {
    /// Predicates for the attribute kernel.
    pub device: Vec<StrPred>,
    /// The conjuncts they come from (same order).
    pub device_conjuncts: Vec<usize>,
    /// Conjuncts the host evaluates (regular expressions, mixed logic…).
    pub host: Vec<usize>,
}

fn node_property(e: &Expr) -> Option<(usize, &str)> {
    match e {
        Expr::Property(base, key) => match **base {
            Expr::Node(s) => Some((s, key.as_str())),
            _ => None,
        },
        _ => None,
    }
}

fn string_literal(e: &Expr) -> Option<&str> {
    match e {
        Expr::Literal(Value::Str(s)) => Some(s),
        _ => None,
    }
}

/// The device form of a conjunct, when it has one.
pub fn device_predicate(e: &Expr) -> Option<StrPred> {
    let pred = |slot, key: &str, op, literals| StrPred {
        slot,
        key: key.to_string(),
        op,
        literals,
    };
    match e {
        Expr::Compare(op, a, b) => {
            let (slot, key, lit, mirrored) = match (node_property(a), string_literal(b)) {
                (Some((s, k)), Some(l)) => (s, k, l, false),
                _ => {
                    let (s, k) = node_property(b)?;
                    (s, k, string_literal(a)?, true)
                }
            };
            let op = match (op, mirrored) {
                (CmpOp::Eq, _) => StrPredOp::Eq,
                (CmpOp::Ne, _) => StrPredOp::Ne,
                (CmpOp::Lt, false) | (CmpOp::Gt, true) => StrPredOp::Lt,
                (CmpOp::Le, false) | (CmpOp::Ge, true) => StrPredOp::Le,
                (CmpOp::Gt, false) | (CmpOp::Lt, true) => StrPredOp::Gt,
                (CmpOp::Ge, false) | (CmpOp::Le, true) => StrPredOp::Ge,
            };
            Some(pred(slot, key, op, vec![lit.to_string()]))
        }
        Expr::Str(op, a, b) => {
            let (slot, key) = node_property(a)?;
            let lit = string_literal(b)?;
            let op = match op {
                StrOp::Contains => StrPredOp::Contains,
                StrOp::StartsWith => StrPredOp::StartsWith,
                StrOp::EndsWith => StrPredOp::EndsWith,
            };
            Some(pred(slot, key, op, vec![lit.to_string()]))
        }
        Expr::In(a, list) => {
            let (slot, key) = node_property(a)?;
            let items = match &**list {
                Expr::List(items) => items,
                Expr::LiteralSet(set) => set.items(),
                _ => return None,
            };
            let lits = items
                .iter()
                .map(|i| string_literal(i).map(str::to_string))
                .collect::<Option<Vec<_>>>()?;
            Some(pred(slot, key, StrPredOp::In, lits))
        }
        _ => None,
    }
}

/// Splits the plan's attribute conjuncts between the attribute kernel and the host.
pub fn split(query: &BoundQuery, plan: &Plan) -> AttributeSplit {
    let mut out = AttributeSplit::default();
    for &f in &plan.attribute_filters {
        match query.filter.get(f).and_then(device_predicate) {
            Some(p) => {
                out.device.push(p);
                out.device_conjuncts.push(f);
            }
            None => out.host.push(f),
        }
    }
    out
}

/// The attribute kernel's inputs on the host.
#[derive(Debug, Clone, Default)]
pub struct Phase2Inputs {
    /// Predicate table, [`PRED_WORDS`] per predicate.
    pub preds: Vec<u32>,
    /// Sorted distinct nodes per property key, concatenated.
    pub dnodes: Vec<u32>,
    /// Per distinct node: heap offset, length, kind (0 null, 1 string, 2 other).
    pub entries: Vec<u32>,
    /// The string heap.
    pub heap: Vec<u8>,
    /// Literal (offset, length) pairs into `lit_bytes`.
    pub lits: Vec<u32>,
    /// Literal bytes.
    pub lit_bytes: Vec<u8>,
}

impl Phase2Inputs {
    /// Builds the compact heap for `preds` over the matches `rows` (`w` words each, node ids by
    /// slot first). `None` when offsets would not fit in 32 bits (the host then evaluates).
    pub fn build(model: &Model, preds: &[StrPred], rows: &[u32], w: usize) -> Option<Self> {
        let mut out = Phase2Inputs::default();
        let mut keys: Vec<&str> = preds.iter().map(|p| p.key.as_str()).collect();
        keys.sort_unstable();
        keys.dedup();
        let mut key_range = Vec::with_capacity(keys.len());
        for key in &keys {
            let mut nodes: Vec<u32> = Vec::new();
            for p in preds.iter().filter(|p| p.key == *key) {
                nodes.extend(rows.chunks_exact(w.max(1)).map(|r| r[p.slot]));
            }
            nodes.sort_unstable();
            nodes.dedup();
            let off = out.dnodes.len();
            for &v in &nodes {
                let (kind, start, len) = match model.node_property(v, key) {
                    ValueRef::Null => (0u32, 0usize, 0usize),
                    ValueRef::Str(s) => {
                        let start = out.heap.len();
                        out.heap.extend_from_slice(s.as_bytes());
                        (1, start, s.len())
                    }
                    _ => (2, 0, 0),
                };
                out.entries
                    .extend_from_slice(&[u32::try_from(start).ok()?, len as u32, kind]);
            }
            out.dnodes.extend_from_slice(&nodes);
            key_range.push((off as u32, nodes.len() as u32));
        }
        for p in preds {
            let k = keys.binary_search(&p.key.as_str()).ok()?;
            let first = out.lits.len() / 2;
            for l in &p.literals {
                out.lits
                    .extend_from_slice(&[u32::try_from(out.lit_bytes.len()).ok()?, l.len() as u32]);
                out.lit_bytes.extend_from_slice(l.as_bytes());
            }
            out.preds.extend_from_slice(&[
                p.slot as u32,
                key_range[k].0,
                key_range[k].1,
                p.op as u32,
                first as u32,
                p.literals.len() as u32,
            ]);
        }
        u32::try_from(out.heap.len()).ok()?;
        Some(out)
    }

    /// Bytes these inputs take on the device.
    pub fn bytes(&self) -> usize {
        4 * (self.preds.len() + self.dnodes.len() + self.entries.len() + self.lits.len())
            + self.heap.len()
            + self.lit_bytes.len()
    }
}

/// Runs the attribute kernel: one pass flag per (match, predicate), match-major.
#[cfg(feature = "opencl")]
pub fn run_kernel(
    gpu: &crate::gpu::Gpu,
    inputs: &Phase2Inputs,
    rows: &[u32],
    w: usize,
) -> crate::Result<Vec<u8>> {
    use crate::gpu::args::AttributesArgs;
    use crate::gpu::{sizing, COMMON_CL};
    let n_rows = rows.len() / w.max(1);
    let n_preds = inputs.preds.len() / PRED_WORDS;
    let total = n_rows * n_preds;
    if total == 0 {
        return Ok(Vec::new());
    }
    if n_rows > u32::MAX as usize {
        return Err(crate::Error::DeviceLimit(
            "too many phase-1 matches for the attribute kernel".into(),
        ));
    }
    let program = gpu.program("attributes", &[COMMON_CL, super::ATTRIBUTES_CL], "")?;
    let rows_buf = gpu.buffer_from("phase-1 rows", rows, true)?;
    let preds = gpu.buffer_from("string predicates", &inputs.preds, true)?;
    let dnodes = gpu.buffer_from("distinct nodes", &inputs.dnodes, true)?;
    let entries = gpu.buffer_from("string entries", &inputs.entries, true)?;
    let heap = gpu.buffer_from("string heap", &inputs.heap, true)?;
    let lits = gpu.buffer_from("string literals", &inputs.lits, true)?;
    let lit_bytes = gpu.buffer_from("literal bytes", &inputs.lit_bytes, true)?;
    let flags = gpu.uninit::<u8>("predicate flags", total)?;
    let local = gpu.local_size(&program, AttributesArgs::KERNEL, None)?;
    // At most 2^30 work-items per launch.
    let chunk = sizing::round_up(1 << 30, local);
    let mut first = 0usize;
    while first < total {
        let n = chunk.min(total - first);
        let kernel = gpu.kernel_from(
            &program,
            AttributesArgs {
                rows: &rows_buf,
                row_words: w as u32,
                n_rows: n_rows as u32,
                preds: &preds,
                n_preds: n_preds as u32,
                dnodes: &dnodes,
                entries: &entries,
                heap: &heap,
                lits: &lits,
                lit_bytes: &lit_bytes,
                first: first as u64,
                flags: &flags,
            },
        )?;
        gpu.run(&kernel, sizing::round_up(n, local), Some(local))?;
        first += n;
    }
    gpu.read(&flags)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ModelBuilder, ValueRef};

    #[test]
    fn shapes() {
        let prop =
            |s: usize, k: &str| Box::new(Expr::Property(Box::new(Expr::Node(s)), k.to_string()));
        let lit = |s: &str| Box::new(Expr::Literal(Value::Str(s.to_string())));
        let p = device_predicate(&Expr::Compare(CmpOp::Lt, lit("M"), prop(2, "name"))).unwrap();
        assert_eq!((p.slot, p.key.as_str(), p.op), (2, "name", StrPredOp::Gt));
        let p = device_predicate(&Expr::Str(StrOp::EndsWith, prop(0, "t"), lit("x"))).unwrap();
        assert_eq!(p.op, StrPredOp::EndsWith);
        let p = device_predicate(&Expr::In(
            prop(1, "t"),
            Box::new(Expr::List(vec![*lit("a"), *lit("b")])),
        ))
        .unwrap();
        assert_eq!(p.literals, vec!["a", "b"]);
        // Literal on the left of CONTAINS, mixed lists, OR: host.
        assert!(device_predicate(&Expr::Str(StrOp::Contains, lit("abc"), prop(0, "t"))).is_none());
        assert!(device_predicate(&Expr::In(
            prop(1, "t"),
            Box::new(Expr::List(vec![*lit("a"), Expr::Literal(Value::Int(1))])),
        ))
        .is_none());
        assert!(device_predicate(&Expr::Or(vec![Expr::Compare(
            CmpOp::Eq,
            prop(0, "t"),
            lit("a")
        )]))
        .is_none());
    }

    #[test]
    fn heap_holds_only_the_matched_nodes() {
        let mut b = ModelBuilder::new();
        let name = b.node_property("name");
        let year = b.node_property("year");
        let mut ids = Vec::new();
        for (i, n) in ["Ann", "Bob", "Cy", "Dee"].iter().enumerate() {
            let id = b.add_node(&format!("{i}"), &["P"]);
            b.set_node_property(id, name, ValueRef::Str(n)).unwrap();
            b.set_node_property(id, year, ValueRef::Int(i as i64))
                .unwrap();
            ids.push(id);
        }
        let m = b.freeze().unwrap();
        let preds = vec![
            StrPred {
                slot: 1,
                key: "name".into(),
                op: StrPredOp::Contains,
                literals: vec!["o".into()],
            },
            StrPred {
                slot: 0,
                key: "year".into(),
                op: StrPredOp::Ne,
                literals: vec!["x".into()],
            },
        ];
        // Two matches (k = 2): (Ann, Bob), (Cy, Bob).
        let rows = vec![ids[0], ids[1], ids[2], ids[1]];
        let inp = Phase2Inputs::build(&m, &preds, &rows, 2).unwrap();
        // name: only Bob; year: Ann and Cy (non-strings: kind 2, no bytes).
        assert_eq!(inp.heap, b"Bob");
        assert_eq!(inp.dnodes.len(), 3);
        assert_eq!(inp.preds.len(), 2 * PRED_WORDS);
        assert_eq!(inp.lit_bytes, b"ox");
        assert!(preds[0].holds(ValueRef::Str("Bob")));
        assert!(preds[1].holds(ValueRef::Int(3)));
        assert!(!preds[1].holds(ValueRef::Null));
    }
}
