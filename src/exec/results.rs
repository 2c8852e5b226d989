//! The result stage: turns matches into rows — projection, implicit grouping with aggregates,
//! `DISTINCT`, `WITH … WHERE`, `ORDER BY`, `SKIP`, `LIMIT`.
//!
//! Per worker, a [`RowSink`] projects each match as it is found; grouped queries keep one accumulator
//! per group (mergeable across workers), so nothing holds every match unless the query orders or
//! deduplicates all its rows.

use std::hash::{Hash, Hasher};

use hashbrown::{HashMap, HashSet};

use super::id_tuple::IdTuple;
use crate::exec::control::{Control, Sink};
use crate::exec::eval::{compare, Env, ExistsOracle, Val};
use crate::model::Model;
use crate::pattern::ir::{AggFn, CmpOp, Expr, Projection};

/// A row of values, hashable with Cypher's equality (numbers by value, nulls equal for grouping).
#[derive(Debug, Clone)]
pub struct Key<'m>(pub Vec<Val<'m>>);

impl PartialEq for Key<'_> {
    fn eq(&self, o: &Self) -> bool {
        self.0.len() == o.0.len()
            && self
                .0
                .iter()
                .zip(&o.0)
                .all(|(a, b)| a.sort_cmp(b) == std::cmp::Ordering::Equal)
    }
}
impl Eq for Key<'_> {}

fn hash_val<H: Hasher>(v: &Val<'_>, h: &mut H) {
    match v {
        Val::Null => 0u8.hash(h),
        Val::Bool(b) => (1u8, b).hash(h),
        Val::Int(i) => (2u8, (*i as f64).to_bits()).hash(h),
        Val::Float(f) => (2u8, f.to_bits()).hash(h),
        Val::Str(s) => (3u8, s.as_ref()).hash(h),
        Val::Node(n) => (4u8, n).hash(h),
        Val::Rel(r) => (5u8, r).hash(h),
        Val::Path(p) => (8u8, p).hash(h),
        // Equal temporal values (in the sense of `sort_cmp`) print the same.
        Val::Temporal(t) => (9u8, t.to_string()).hash(h),
        Val::List(l) => {
            6u8.hash(h);
            l.iter().for_each(|x| hash_val(x, h));
        }
        // Equal maps may list their keys in other orders: hash the sorted keys only.
        Val::Map(m) => {
            7u8.hash(h);
            let mut keys: Vec<&str> = m.iter().map(|(k, _)| k.as_str()).collect();
            keys.sort_unstable();
            keys.hash(h);
        }
    }
}

impl Hash for Key<'_> {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.0.iter().for_each(|v| hash_val(v, h));
    }
}

/// One aggregate's running state.
#[derive(Debug, Clone)]
enum Acc<'m> {
    Count(u64),
    Distinct(HashSet<Key<'m>>),
    Sum(Val<'m>),
    Min(Val<'m>),
    Max(Val<'m>),
    Avg(f64, u64),
    Collect(Vec<Val<'m>>),
    /// `count(DISTINCT …)` of a typed argument (see [`IdTuple`]): the packed distinct values.
    DistinctIds(HashSet<u128>),
}

impl<'m> Acc<'m> {
    fn new(func: AggFn, distinct: bool) -> Self {
        if distinct {
            return Acc::Distinct(HashSet::new());
        }
        match func {
            AggFn::Count => Acc::Count(0),
            AggFn::Sum => Acc::Sum(Val::Int(0)),
            AggFn::Min => Acc::Min(Val::Null),
            AggFn::Max => Acc::Max(Val::Null),
            AggFn::Avg => Acc::Avg(0.0, 0),
            AggFn::Collect => Acc::Collect(Vec::new()),
        }
    }

    fn add(&mut self, v: Val<'m>) {
        if v.is_null() {
            return;
        }
        match self {
            Acc::Count(c) => *c += 1,
            Acc::Distinct(s) => {
                s.insert(Key(vec![v]));
            }
            Acc::Sum(s) => *s = add_num(s, &v),
            Acc::Min(m) => {
                if m.is_null() || compare(CmpOp::Lt, &v, m) == Some(true) {
                    *m = v
                }
            }
            Acc::Max(m) => {
                if m.is_null() || compare(CmpOp::Gt, &v, m) == Some(true) {
                    *m = v
                }
            }
            Acc::Avg(s, n) => {
                if let Some(x) = as_f64(&v) {
                    *s += x;
                    *n += 1;
                }
            }
            Acc::Collect(l) => l.push(v),
            // Fed packed values by `RowSink::add_to` only.
            Acc::DistinctIds(_) => {}
        }
    }

    /// Adds `v` as if it came from `weight` identical inputs (a factorised binding).
    fn add_weighted(&mut self, v: Val<'m>, weight: u64) {
        if v.is_null() || weight == 0 {
            return;
        }
        match self {
            Acc::Count(c) => *c = c.saturating_add(weight),
            Acc::Sum(s) => {
                let scaled = match &v {
                    Val::Int(x) => i64::try_from(weight)
                        .ok()
                        .and_then(|w| x.checked_mul(w))
                        .map_or(Val::Float(*x as f64 * weight as f64), Val::Int),
                    _ => match as_f64(&v) {
                        Some(x) => Val::Float(x * weight as f64),
                        None => v.clone(),
                    },
                };
                *s = add_num(s, &scaled);
            }
            Acc::Avg(s, n) => {
                if let Some(x) = as_f64(&v) {
                    *s += x * weight as f64;
                    *n += weight;
                }
            }
            Acc::Collect(l) => {
                for _ in 1..weight {
                    l.push(v.clone());
                }
                l.push(v);
            }
            // Distinct values, minimum and maximum do not depend on multiplicity.
            Acc::Distinct(_) | Acc::Min(_) | Acc::Max(_) | Acc::DistinctIds(_) => self.add(v),
        }
    }

    fn merge(&mut self, other: Acc<'m>) {
        match (self, other) {
            (Acc::Count(a), Acc::Count(b)) => *a += b,
            (Acc::Distinct(a), Acc::Distinct(b)) => a.extend(b),
            (Acc::Sum(a), Acc::Sum(b)) => *a = add_num(a, &b),
            (a @ Acc::Min(_), Acc::Min(b)) | (a @ Acc::Max(_), Acc::Max(b)) => a.add(b),
            (Acc::Avg(s, n), Acc::Avg(s2, n2)) => {
                *s += s2;
                *n += n2;
            }
            (Acc::Collect(a), Acc::Collect(b)) => a.extend(b),
            (Acc::DistinctIds(a), Acc::DistinctIds(b)) => a.extend(b),
            _ => {}
        }
    }

    fn finish(self, func: AggFn) -> Val<'m> {
        match self {
            Acc::Count(c) => Val::Int(c as i64),
            Acc::Distinct(s) => {
                let vals = s.into_iter().map(|mut k| k.0.pop().unwrap_or(Val::Null));
                let mut acc = Acc::new(func, false);
                for v in vals {
                    acc.add(v);
                }
                acc.finish(func)
            }
            Acc::Sum(s) => s,
            Acc::Min(m) | Acc::Max(m) => m,
            Acc::Avg(s, n) => {
                if n == 0 {
                    Val::Null
                } else {
                    Val::Float(s / n as f64)
                }
            }
            Acc::Collect(l) => Val::List(l),
            Acc::DistinctIds(s) => Val::Int(s.len() as i64),
        }
    }
}

/// One aggregate's running state for a caller that combines rows itself (the cluster's result at
/// process 0): the same accumulation and result as a projection's.
#[derive(Debug, Clone)]
pub struct Aggregate<'m> {
    func: AggFn,
    acc: Acc<'m>,
}

impl<'m> Aggregate<'m> {
    /// A fresh `func` (`DISTINCT` when `distinct`).
    pub fn new(func: AggFn, distinct: bool) -> Self {
        Aggregate {
            func,
            acc: Acc::new(func, distinct),
        }
    }

    /// Adds `v` as `weight` identical inputs (a null adds nothing, as in Cypher).
    pub fn add(&mut self, v: Val<'m>, weight: u64) {
        self.acc.add_weighted(v, weight);
    }

    /// The aggregate's value.
    pub fn finish(self) -> Val<'m> {
        self.acc.finish(self.func)
    }
}

fn as_f64(v: &Val<'_>) -> Option<f64> {
    match v {
        Val::Int(i) => Some(*i as f64),
        Val::Float(f) => Some(*f),
        _ => None,
    }
}

fn add_num<'m>(a: &Val<'m>, b: &Val<'m>) -> Val<'m> {
    match (a, b) {
        (Val::Int(x), Val::Int(y)) => x
            .checked_add(*y)
            .map_or(Val::Float(*x as f64 + *y as f64), Val::Int),
        _ => match (as_f64(a), as_f64(b)) {
            (Some(x), Some(y)) => Val::Float(x + y),
            _ => a.clone(),
        },
    }
}

/// The aggregates of a projection, in item order: (item index, function, distinct, argument).
struct AggSpec<'q> {
    item: usize,
    func: AggFn,
    distinct: bool,
    arg: Option<&'q Expr>,
    /// `count(DISTINCT x)` whose argument is typed: distinct values kept packed.
    typed_arg: Option<IdTuple>,
}

impl AggSpec<'_> {
    /// A fresh accumulator for this aggregate.
    fn new_acc<'m>(&self) -> Acc<'m> {
        if self.typed_arg.is_some() {
            Acc::DistinctIds(HashSet::new())
        } else {
            Acc::new(self.func, self.distinct)
        }
    }
}

/// A projection prepared for evaluation.
pub struct Projector<'q> {
    proj: &'q Projection,
    aggs: Vec<AggSpec<'q>>,
    keys: Vec<usize>,
    /// The grouping keys packed into one integer, when every key is an element or its id.
    typed_keys: Option<IdTuple>,
}

impl<'q> Projector<'q> {
    /// Prepares `proj`. Aggregates must be whole items (`count(x) AS n`), as the binder ensures.
    pub fn new(proj: &'q Projection) -> Self {
        let mut aggs = Vec::new();
        let mut keys = Vec::new();
        for (i, it) in proj.items.iter().enumerate() {
            match &it.expr {
                Expr::Aggregate {
                    func,
                    distinct,
                    arg,
                } => aggs.push(AggSpec {
                    item: i,
                    func: *func,
                    distinct: *distinct,
                    arg: arg.as_deref(),
                    typed_arg: arg
                        .as_deref()
                        .filter(|_| *distinct && *func == AggFn::Count)
                        .and_then(IdTuple::of_value),
                }),
                _ => keys.push(i),
            }
        }
        let typed_keys = if aggs.is_empty() {
            None
        } else {
            IdTuple::of_keys(keys.iter().map(|&k| &proj.items[k].expr))
        };
        Projector {
            proj,
            aggs,
            keys,
            typed_keys,
        }
    }

    /// True when the projection groups.
    pub fn is_grouped(&self) -> bool {
        !self.aggs.is_empty()
    }

    /// True when rows can be produced one by one, in any order, with no state (LIMIT can stop early).
    pub fn is_streaming(&self) -> bool {
        !self.is_grouped() && !self.proj.distinct && self.proj.order_by.is_empty()
    }

    /// True when the projection makes one row per match (no grouping, no `DISTINCT`), in whatever
    /// order: how many rows it gives is then the number of matches less `SKIP`, capped by `LIMIT`
    /// — `ORDER BY` changes which rows, not how many.
    pub fn rows_one_per_match(&self) -> bool {
        !self.is_grouped() && !self.proj.distinct
    }

    /// True for a lone `count(*)` (or `count(v)` of a node) with nothing else to do.
    pub fn is_count_star(&self) -> bool {
        self.proj.items.len() == 1
            && self.proj.filter.is_none()
            && self.proj.order_by.is_empty()
            && self.proj.skip.unwrap_or(0) == 0
            && self.proj.limit != Some(0)
            && matches!(
                &self.proj.items[0].expr,
                Expr::Aggregate { func: AggFn::Count, distinct: false, arg }
                    if arg.as_deref().is_none_or(|a| matches!(a, Expr::Node(_)))
            )
    }

    /// True when the projection returns one aggregate and nothing else (one row, one value).
    pub fn is_single_aggregate(&self) -> bool {
        self.proj.items.len() == 1 && self.aggs.len() == 1
    }

    /// Column names.
    pub fn columns(&self) -> Vec<String> {
        self.proj.items.iter().map(|i| i.name.clone()).collect()
    }
}

/// Bytes a hash table allocates when its next insert grows it (0 while it has room, or before
/// its first allocation): twice its buckets, each an entry and a control byte.
fn table_growth<T>(table: &impl TableSize<T>) -> usize {
    let (len, cap) = table.len_and_capacity();
    // An unused table (never allocated) and one with room grow by nothing worth a check.
    if cap == 0 || len < cap {
        return 0;
    }
    (cap.max(8) * 2 * 8 / 7 + 16) * (std::mem::size_of::<T>() + 1)
}

/// Length and capacity of a hash table whose entries are `T`.
trait TableSize<T> {
    fn len_and_capacity(&self) -> (usize, usize);
}

impl<K, V> TableSize<(K, V)> for HashMap<K, V> {
    fn len_and_capacity(&self) -> (usize, usize) {
        (self.len(), self.capacity())
    }
}

impl<K> TableSize<K> for HashSet<K> {
    fn len_and_capacity(&self) -> (usize, usize) {
        (self.len(), self.capacity())
    }
}

/// Collects the rows of a projection from matches (first stage) or rows (later stages).
pub struct RowSink<'q, 'm> {
    model: &'m Model,
    projector: &'q Projector<'q>,
    oracle: Option<&'q (dyn ExistsOracle + Sync)>,
    /// Plain rows (streaming or distinct or ordered without grouping).
    pub rows: Vec<Vec<Val<'m>>>,
    groups: HashMap<Key<'m>, Vec<Acc<'m>>>,
    /// Groups keyed by packed element ids (see [`IdTuple`]), when the projector's keys are typed.
    typed_groups: HashMap<u128, Vec<Acc<'m>>>,
    /// `DISTINCT` rows seen so far (rows are deduplicated as they arrive, so the state is the
    /// size of the distinct rows, not of the input).
    distinct_seen: HashSet<Key<'m>>,
    /// Stop after this many rows (LIMIT + SKIP of a streaming projection).
    pub row_budget: Option<u64>,
    /// Matches seen (count-only).
    pub count: u64,
    count_only: bool,
    /// Leave the rows in the order found instead of sorting them by `ORDER BY`: set once the
    /// deadline stopped the search — the rows so far are a partial answer whatever their order, and
    /// sorting millions of them would run on past `--timeout`.
    keep_order_found: bool,
    control: Option<&'q Control>,
    stream: Option<std::sync::mpsc::SyncSender<Vec<Vec<Val<'m>>>>>,
    /// Every weighted input is its own group: its row is finished (and `WITH … WHERE` applied)
    /// when it arrives; `rows` then holds finished rows.
    per_binding: bool,
    /// The `WITH … WHERE` filter reads grouping keys (else it is tested before they are built).
    filter_reads_keys: bool,
    /// A row being built (per-binding groups).
    scratch: Vec<Val<'m>>,
    /// Items whose aggregate counts weighted inputs once each (see
    /// [`unit_weight_items`](Self::unit_weight_items)).
    unit_weight: Vec<usize>,
    /// `ORDER BY … LIMIT`: only the first `SKIP + LIMIT` rows in order can be returned, so `rows`
    /// is cut back to them whenever it doubles (a top-k buffer: memory bounded by the query).
    top_k: Option<usize>,
    /// Inputs since the last look at the memory limit.
    since_memory_check: u32,
    /// The next stage, fed each finished per-binding row at once instead of holding it (see
    /// [`then`](Self::then)).
    next: Option<Box<RowSink<'q, 'm>>>,
}

/// Rows handed to a streaming consumer at a time.
pub const STREAM_BATCH: usize = 1024;

impl<'q, 'm> RowSink<'q, 'm> {
    /// A sink for `projector`.
    pub fn new(
        model: &'m Model,
        projector: &'q Projector<'q>,
        oracle: Option<&'q (dyn ExistsOracle + Sync)>,
    ) -> Self {
        RowSink {
            model,
            projector,
            oracle,
            rows: Vec::new(),
            groups: HashMap::new(),
            typed_groups: HashMap::new(),
            distinct_seen: HashSet::new(),
            row_budget: None,
            count: 0,
            count_only: projector.is_count_star(),
            keep_order_found: false,
            control: None,
            stream: None,
            per_binding: false,
            filter_reads_keys: true,
            scratch: Vec::new(),
            unit_weight: Vec::new(),
            top_k: top_k(projector.proj, false),
            since_memory_check: 0,
            next: None,
        }
    }

    /// Turns off the count-only shortcut of a lone `count(v)`: every input is then evaluated, so
    /// `count(v)` skips inputs where `v` is null (rows of an `OPTIONAL MATCH` without a match).
    pub fn counting_inputs(mut self) -> Self {
        self.count_only = false;
        self
    }

    /// True when this per-binding sink's finished rows can go straight to the next stage: its
    /// projection has nothing left to do once a row passed its `WITH … WHERE` (no `DISTINCT`,
    /// `ORDER BY`, `SKIP` or `LIMIT`).
    pub fn can_feed_next(&self) -> bool {
        let proj = self.projector.proj;
        self.per_binding
            && !proj.distinct
            && proj.order_by.is_empty()
            && proj.skip.is_none()
            && proj.limit.is_none()
    }

    /// Feeds every finished row to `next` (the next stage's sink) instead of holding it (see
    /// [`can_feed_next`](Self::can_feed_next)): `WITH p1, p2, count(t) … RETURN count(*)` then
    /// never materialises its pairs. [`finish_stages`] finishes `next` in its place.
    pub fn then(mut self, next: RowSink<'q, 'm>) -> Self {
        if self.can_feed_next() {
            self.next = Some(Box::new(next));
        }
        self
    }

    /// Makes the aggregates of these items see each [`push_weighted`](Self::push_weighted) input
    /// once, whatever its weight (a `count(DISTINCT …)` whose value is different for every input).
    pub fn unit_weight_items(mut self, items: &[usize]) -> Self {
        self.unit_weight = items.to_vec();
        self
    }

    /// Declares that the grouping keys of every [`push_weighted`](Self::push_weighted) input are
    /// distinct from all others' (they determine the binding), so each input is its own group.
    pub fn per_binding(mut self) -> Self {
        self.per_binding = true;
        let keys = &self.projector.keys;
        self.filter_reads_keys = self.projector.proj.filter.as_ref().is_some_and(|f| {
            let mut reads = false;
            f.walk(&mut |e| reads |= matches!(e, Expr::Column(c) if keys.contains(c)));
            reads
        });
        self.top_k = top_k(self.projector.proj, true);
        self
    }

    /// What the memory-limit error names when this sink's state passes the limit.
    fn stage(&self) -> &'static str {
        let proj = self.projector.proj;
        if self.projector.is_grouped() {
            "the result stage's grouping state"
        } else if proj.distinct {
            "the result stage's DISTINCT state"
        } else if !proj.order_by.is_empty() {
            ORDER_STAGE
        } else {
            "the result rows"
        }
    }

    /// Every 1,024 inputs: false (and every worker stopped) once the heap passed
    /// `--memory-limit`, naming this stage.
    fn memory_ok(&mut self) -> bool {
        self.since_memory_check += 1;
        // A full hash table doubles on its next insert: check the heap with that growth first,
        // so the table's stage names itself before the search sees the heap past the limit.
        // The rows held (ORDER BY over a large result) double too.
        let rows_growth = if self.rows.len() == self.rows.capacity() && self.rows.len() >= 1024 {
            self.rows.capacity() * std::mem::size_of::<Vec<Val<'m>>>()
        } else {
            0
        };
        let growth = table_growth(&self.groups)
            .max(table_growth(&self.typed_groups))
            .max(table_growth(&self.distinct_seen))
            .max(rows_growth);
        if self.since_memory_check < 1024 && growth == 0 {
            return true;
        }
        self.since_memory_check = 0;
        let stage = self.stage();
        if crate::util::memory::check(stage) || crate::util::memory::check_growth(stage, growth) {
            if let Some(c) = self.control {
                c.stop();
            }
            return false;
        }
        true
    }

    /// Cuts `rows` back to the first `SKIP + LIMIT` in order once it holds twice that many
    /// (`ORDER BY … LIMIT` without `DISTINCT`).
    fn bound_rows(&mut self) {
        if let Some(k) = self.top_k {
            // Saturating: `LIMIT 9223372036854775807` made `2 * k` wrap to a few rows, so every
            // row sorted everything held so far (quadratic, beyond any `--timeout`). A limit
            // beyond what memory can hold never cuts back: the buffer is every row seen.
            if self.rows.len() >= k.saturating_mul(2).saturating_add(TOP_K_SLACK) {
                let rows = std::mem::take(&mut self.rows);
                self.rows = sort_rows(self.model, self.projector.proj, rows);
                self.rows.truncate(k);
            }
        }
    }

    /// Adds one binding that stands for `weight` identical matches (factorised execution): counts
    /// and sums are scaled by `weight`; `DISTINCT`, `min` and `max` see it once. The projection
    /// must group (have aggregates).
    pub fn push_weighted(&mut self, nodes: &[u32], weight: u64) -> bool {
        if !self.memory_ok() {
            return false;
        }
        if self.count_only {
            // The lone count item counts bindings when it is a unit-weight item.
            let w = if self.unit_weight.is_empty() {
                weight
            } else {
                1
            };
            self.count = self.count.saturating_add(w);
            return true;
        }
        let env = Env {
            locals: &[],
            model: self.model,
            nodes,
            rels: &[],
            row: &[],
            exists: self.oracle.map(|o| o as &dyn ExistsOracle),
        };
        let p = self.projector;
        let unit = &self.unit_weight;
        let arg = |a: &AggSpec<'_>| match a.arg {
            // A unit-weight item's argument is a bound node's value: never null.
            _ if unit.contains(&a.item) => Val::Bool(true),
            None => Val::Bool(true),
            Some(e) => env.eval(e),
        };
        if self.per_binding {
            let mut row = std::mem::take(&mut self.scratch);
            row.clear();
            row.resize(p.proj.items.len(), Val::Null);
            for a in &p.aggs {
                let mut acc = a.new_acc();
                let w = if self.unit_weight.contains(&a.item) {
                    1
                } else {
                    weight
                };
                if matches!(acc, Acc::DistinctIds(_)) {
                    Self::add_to(&mut acc, a, &env, w);
                } else {
                    acc.add_weighted(arg(a), w);
                }
                row[a.item] = acc.finish(a.func);
            }
            let passes = |row: &[Val<'m>]| {
                p.proj.filter.as_ref().is_none_or(|f| {
                    Env {
                        locals: &[],
                        model: self.model,
                        nodes: &[],
                        rels: &[],
                        row,
                        exists: None,
                    }
                    .holds(f)
                })
            };
            if !self.filter_reads_keys && !passes(&row) {
                self.scratch = row;
                return true;
            }
            for &k in &p.keys {
                row[k] = env.eval(&p.proj.items[k].expr);
            }
            if self.filter_reads_keys && !passes(&row) {
                self.scratch = row;
                return true;
            }
            if let Some(next) = &mut self.next {
                let more = next.push(&[], &[], &row);
                self.scratch = row;
                return more;
            }
            self.rows.push(row);
            self.bound_rows();
            return true;
        }
        let accs = match &p.typed_keys {
            Some(t) => Self::typed_group_of(&mut self.typed_groups, p, t.pack(nodes, &[])),
            None => Self::group_of(&mut self.groups, p, &env),
        };
        for (acc, a) in accs.iter_mut().zip(&p.aggs) {
            let w = if self.unit_weight.contains(&a.item) {
                1
            } else {
                weight
            };
            if matches!(acc, Acc::DistinctIds(_)) {
                Self::add_to(acc, a, &env, w);
            } else {
                acc.add_weighted(arg(a), w);
            }
        }
        true
    }

    /// Hands rows to `sender` in batches as they are produced (streaming projections only).
    pub fn streaming(mut self, sender: std::sync::mpsc::SyncSender<Vec<Vec<Val<'m>>>>) -> Self {
        self.stream = Some(sender);
        self
    }

    /// Sends the rows held so far to the streaming consumer; false when it hung up.
    pub fn flush(&mut self) -> bool {
        match &self.stream {
            Some(s) if !self.rows.is_empty() => s.send(std::mem::take(&mut self.rows)).is_ok(),
            _ => true,
        }
    }

    /// Stops every worker once `budget` rows exist in total (LIMIT of a streaming projection).
    pub fn with_budget(mut self, budget: Option<u64>, control: &'q Control) -> Self {
        self.row_budget = budget;
        self.control = Some(control);
        self
    }

    /// Adds one input (a match, or a row of the previous stage).
    pub fn push(&mut self, nodes: &[u32], rels: &[u32], row: &[Val<'m>]) -> bool {
        if self.count_only {
            self.count += 1;
            return true;
        }
        if !self.memory_ok() {
            return false;
        }
        let env = Env {
            locals: &[],
            model: self.model,
            nodes,
            rels,
            row,
            exists: self.oracle.map(|o| o as &dyn ExistsOracle),
        };
        let p = self.projector;
        if !p.is_grouped() {
            let r: Vec<Val<'m>> = p.proj.items.iter().map(|i| env.eval(&i.expr)).collect();
            if p.proj.distinct && !self.distinct_seen.insert(Key(r.clone())) {
                return true;
            }
            self.rows.push(r);
            if let (Some(b), Some(c)) = (self.row_budget, self.control) {
                if c.emitted.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1 >= b {
                    c.stop();
                    return false;
                }
            }
            if self.stream.is_none() {
                self.bound_rows();
            } else if self.rows.len() >= STREAM_BATCH && !self.flush() {
                if let Some(c) = self.control {
                    c.stop();
                }
                return false;
            }
            return true;
        }
        let accs = match &p.typed_keys {
            Some(t) => Self::typed_group_of(&mut self.typed_groups, p, t.pack(nodes, rels)),
            None => Self::group_of(&mut self.groups, p, &env),
        };
        for (acc, a) in accs.iter_mut().zip(&p.aggs) {
            Self::add_to(acc, a, &env, 1);
        }
        true
    }

    /// Adds the current binding's argument of aggregate `a` to `acc`, as `weight` inputs.
    #[inline]
    fn add_to(acc: &mut Acc<'m>, a: &AggSpec<'_>, env: &Env<'_, 'm>, weight: u64) {
        if let (Acc::DistinctIds(seen), Some(t)) = (&mut *acc, &a.typed_arg) {
            if let Some(k) = t.pack_value(env.nodes, env.rels) {
                seen.insert(k);
            }
            return;
        }
        let v = match a.arg {
            None => Val::Bool(true),
            Some(e) => env.eval(e),
        };
        if weight == 1 {
            acc.add(v);
        } else {
            acc.add_weighted(v, weight);
        }
    }

    /// The accumulators of the group with packed key `key` (created empty when new).
    fn typed_group_of<'g>(
        groups: &'g mut HashMap<u128, Vec<Acc<'m>>>,
        p: &Projector<'_>,
        key: u128,
    ) -> &'g mut Vec<Acc<'m>> {
        groups
            .entry(key)
            .or_insert_with(|| p.aggs.iter().map(AggSpec::new_acc).collect())
    }

    /// Merges another worker's sink into this one.
    pub fn merge(&mut self, other: RowSink<'q, 'm>) {
        match (&mut self.next, other.next) {
            (Some(mine), Some(theirs)) => mine.merge(*theirs),
            (None, Some(theirs)) => self.next = Some(theirs),
            _ => {}
        }
        self.count += other.count;
        self.rows.extend(other.rows);
        if self.stream.is_none() {
            self.bound_rows();
        }
        for (k, accs) in other.groups {
            match self.groups.get_mut(&k) {
                Some(mine) => mine.iter_mut().zip(accs).for_each(|(a, b)| a.merge(b)),
                None => {
                    self.groups.insert(k, accs);
                }
            }
        }
        for (k, accs) in other.typed_groups {
            match self.typed_groups.get_mut(&k) {
                Some(mine) => mine.iter_mut().zip(accs).for_each(|(a, b)| a.merge(b)),
                None => {
                    self.typed_groups.insert(k, accs);
                }
            }
        }
    }

    /// The accumulators of the group whose keys `env` evaluates to (created empty when new).
    fn group_of<'g>(
        groups: &'g mut HashMap<Key<'m>, Vec<Acc<'m>>>,
        p: &Projector<'_>,
        env: &Env<'_, 'm>,
    ) -> &'g mut Vec<Acc<'m>> {
        let key = Key(p
            .keys
            .iter()
            .map(|&k| env.eval(&p.proj.items[k].expr))
            .collect());
        groups
            .entry(key)
            .or_insert_with(|| p.aggs.iter().map(AggSpec::new_acc).collect())
    }

    /// The row of a grouped projection without keys over no input (count 0, others null).
    fn empty_group_row(&self) -> Vec<Val<'m>> {
        let p = self.projector;
        let mut row = vec![Val::Null; p.proj.items.len()];
        for a in &p.aggs {
            row[a.item] = a.new_acc().finish(a.func);
        }
        row
    }

    /// Finishes: grouping, `WITH … WHERE`, `DISTINCT`, `ORDER BY`, `SKIP`, `LIMIT`.
    pub fn finish(mut self) -> Vec<Vec<Val<'m>>> {
        let p = self.projector;
        let proj = p.proj;
        let mut rows = if self.count_only {
            vec![vec![Val::Int(self.count as i64)]]
        } else if self.per_binding {
            let mut rows = std::mem::take(&mut self.rows);
            if rows.is_empty() && p.keys.is_empty() {
                rows.push(self.empty_group_row());
            }
            rows
        } else if p.is_grouped() {
            let mut groups: Vec<(Key<'m>, Vec<Acc<'m>>)> = self.groups.drain().collect();
            if let Some(t) = &p.typed_keys {
                groups.extend(
                    self.typed_groups
                        .drain()
                        .map(|(k, accs)| (Key(t.unpack(k)), accs)),
                );
            }
            if groups.is_empty() && p.keys.is_empty() {
                // Aggregates over no rows give one row (count 0, others null).
                groups.push((
                    Key(Vec::new()),
                    p.aggs.iter().map(AggSpec::new_acc).collect(),
                ));
            }
            groups
                .into_iter()
                .map(|(key, accs)| {
                    let mut row = vec![Val::Null; proj.items.len()];
                    for (&k, v) in p.keys.iter().zip(key.0) {
                        row[k] = v;
                    }
                    for (a, acc) in p.aggs.iter().zip(accs) {
                        row[a.item] = acc.finish(a.func);
                    }
                    row
                })
                .collect()
        } else {
            std::mem::take(&mut self.rows)
        };
        if let Some(f) = proj.filter.as_ref().filter(|_| !self.per_binding) {
            rows.retain(|r| {
                Env {
                    locals: &[],
                    model: self.model,
                    nodes: &[],
                    rels: &[],
                    row: r,
                    exists: None,
                }
                .holds(f)
            });
        }
        if proj.distinct {
            let mut seen = HashSet::new();
            rows.retain(|r| seen.insert(Key(r.clone())));
        }
        if !proj.order_by.is_empty() && !self.keep_order_found {
            // Sorting holds a key per row and an index beside the rows: past the memory limit
            // it is not started (the run is then the memory-limit error).
            let per_row = sort_bytes_per_row(proj.order_by.len());
            if crate::util::memory::check_growth(ORDER_STAGE, rows.len().saturating_mul(per_row)) {
                return Vec::new();
            }
            rows = sort_rows(self.model, proj, rows);
        }
        let skip = proj.skip.unwrap_or(0) as usize;
        let rows: Vec<Vec<Val<'m>>> = rows.into_iter().skip(skip).collect();
        match proj.limit {
            Some(l) => rows.into_iter().take(l as usize).collect(),
            None => rows,
        }
    }
}

/// The stage the memory-limit error names for the rows held to be sorted.
const ORDER_STAGE: &str = "the rows held for ORDER BY";

/// Rows a top-k buffer may hold beyond twice `SKIP + LIMIT` before it is cut back.
const TOP_K_SLACK: usize = 1024;

/// `SKIP + LIMIT` when a projection's rows can be cut back to that many in order while they
/// arrive: it orders and limits, has no `DISTINCT`, and its `WITH … WHERE` (if any) has been
/// applied to each row already (`filtered`).
fn top_k(proj: &Projection, filtered: bool) -> Option<usize> {
    let limit = proj.limit?;
    if proj.order_by.is_empty() || proj.distinct || (proj.filter.is_some() && !filtered) {
        return None;
    }
    usize::try_from(limit.saturating_add(proj.skip.unwrap_or(0))).ok()
}

/// Bytes [`sort_rows`] takes per row beside the rows: its keys (one flat list) and an index.
fn sort_bytes_per_row(keys: usize) -> usize {
    keys * std::mem::size_of::<Val<'_>>() + std::mem::size_of::<usize>()
}

/// `rows` in `ORDER BY` order (stable: equal keys keep their order). Beside the rows it holds
/// only the sort keys, in one flat list, and an index ([`sort_bytes_per_row`]): the rows are put
/// in order in place.
fn sort_rows<'m>(
    model: &'m Model,
    proj: &Projection,
    mut rows: Vec<Vec<Val<'m>>>,
) -> Vec<Vec<Val<'m>>> {
    let k = proj.order_by.len();
    let mut keys: Vec<Val<'m>> = Vec::with_capacity(rows.len() * k);
    for r in &rows {
        let env = Env {
            locals: &[],
            model,
            nodes: &[],
            rels: &[],
            row: r,
            exists: None,
        };
        keys.extend(proj.order_by.iter().map(|(e, _)| env.eval(e)));
    }
    let mut idx: Vec<usize> = (0..rows.len()).collect();
    idx.sort_by(|&a, &b| {
        for (i, (_, desc)) in proj.order_by.iter().enumerate() {
            let c = keys[a * k + i].sort_cmp(&keys[b * k + i]);
            let c = if *desc { c.reverse() } else { c };
            if c != std::cmp::Ordering::Equal {
                return c;
            }
        }
        a.cmp(&b)
    });
    drop(keys);
    // Row `j` of the result is row `idx[j]`: follow each cycle of the permutation, marking a
    // place done by pointing it at itself.
    for start in 0..idx.len() {
        let mut j = start;
        while idx[j] != start && idx[j] != j {
            let from = idx[j];
            rows.swap(j, from);
            idx[j] = j;
            j = from;
        }
        idx[j] = j;
    }
    rows
}

/// The result stage once the search is done: merges the workers' sinks of the first projection,
/// then runs each later projection (`WITH … RETURN`) over the rows of the one before. Returns the
/// final rows and their column names. A `partial` run (stopped by its deadline) keeps its rows in
/// the order found: `ORDER BY` is not applied to a partial answer.
pub fn finish_stages<'q, 'm>(
    model: &'m Model,
    stages: &[Projection],
    first: &'q Projector<'q>,
    sinks: Vec<RowSink<'q, 'm>>,
    oracle: Option<&'q (dyn ExistsOracle + Sync)>,
    partial: bool,
) -> (Vec<Vec<Val<'m>>>, Vec<String>) {
    let mut merged = RowSink::new(model, first, oracle);
    merged.per_binding = sinks.first().is_some_and(|s| s.per_binding);
    merged.keep_order_found = partial;
    for s in sinks {
        // The workers' rows are gathered into one list: past the memory limit (found by the
        // search, or by this growth) nothing more is gathered, and the run is the memory-limit
        // error.
        let growth = s.rows.len() * std::mem::size_of::<Vec<Val<'m>>>();
        if crate::util::memory::check_growth(s.stage(), growth) {
            return (Vec::new(), first.columns());
        }
        merged.merge(s);
    }
    // A first stage that fed the second one as it went: finish the second.
    let (mut rows, mut columns, done) = match merged.next.take() {
        Some(mut next) => {
            let columns = next.projector.columns();
            next.keep_order_found = partial;
            (next.finish(), columns, 2)
        }
        None => (merged.finish(), first.columns(), 1),
    };
    for stage in stages.iter().skip(done) {
        let p = Projector::new(stage);
        let mut sink = RowSink::new(model, &p, None);
        sink.keep_order_found = partial;
        for row in &rows {
            sink.push(&[], &[], row);
        }
        rows = sink.finish();
        columns = p.columns();
    }
    (rows, columns)
}

impl Sink for RowSink<'_, '_> {
    fn emit(&mut self, nodes: &[u32], rels: &[u32]) -> bool {
        self.push(nodes, rels, &[])
    }

    fn add_count(&mut self, count: u64) -> bool {
        self.count += count;
        true
    }

    fn count_only(&self) -> bool {
        self.count_only
    }

    fn absorb(&mut self, other: Self) {
        self.merge(other);
    }
}

/// A sink that only counts matches.
#[derive(Debug, Default)]
pub struct CountSink {
    /// Matches counted.
    pub count: u64,
}

impl Sink for CountSink {
    fn emit(&mut self, _: &[u32], _: &[u32]) -> bool {
        self.count += 1;
        true
    }

    fn add_count(&mut self, count: u64) -> bool {
        self.count = self.count.saturating_add(count);
        true
    }

    fn count_only(&self) -> bool {
        true
    }

    fn absorb(&mut self, other: Self) {
        self.count = self.count.saturating_add(other.count);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ModelBuilder;

    /// A table's coming growth is announced only when its next insert reallocates it: never for
    /// an unallocated table or one with room, and then at least twice its entries' bytes.
    #[test]
    fn table_growth_is_announced_only_when_the_table_is_full() {
        let mut m: HashMap<u64, u64> = HashMap::new();
        assert_eq!(table_growth(&m), 0);
        m.insert(0, 0);
        let mut i = 1;
        while m.len() < m.capacity() {
            assert_eq!(table_growth(&m), 0, "{} of {}", m.len(), m.capacity());
            m.insert(i, i);
            i += 1;
        }
        let grow = table_growth(&m);
        assert!(
            grow >= 2 * m.capacity() * 16,
            "{grow} for {} entries",
            m.capacity()
        );
        m.insert(i, i);
        assert_eq!(table_growth(&m), 0);
        let mut set: HashSet<u32> = HashSet::with_capacity(3);
        while set.len() < set.capacity() {
            set.insert(set.len() as u32);
        }
        assert!(table_growth(&set) >= 2 * set.capacity() * 4);
    }

    #[test]
    fn order_by_limit_keeps_a_bounded_buffer_and_the_right_rows() {
        let mut b = ModelBuilder::new();
        for i in 0..5000 {
            b.add_node(&i.to_string(), &["A"]);
        }
        let m = b.freeze().unwrap();
        let q = crate::pattern::compile(
            "MATCH (x:A) RETURN id(x) AS i ORDER BY i DESC SKIP 1 LIMIT 3",
            &m,
            &Default::default(),
        )
        .unwrap();
        let p = Projector::new(&q.stages[0]);
        let mut sink = RowSink::new(&m, &p, None);
        // Ascending input: every new row displaces the kept ones.
        for n in 0..5000u32 {
            sink.push(&[n], &[], &[]);
            assert!(sink.rows.len() < 2 * 4 + TOP_K_SLACK, "row {n}");
        }
        let rows = sink.finish();
        let ids: Vec<Val<'_>> = rows.into_iter().map(|mut r| r.remove(0)).collect();
        assert_eq!(ids, [Val::Int(4998), Val::Int(4997), Val::Int(4996)]);
    }

    /// Finished rows as sorted debug strings (order-insensitive comparison).
    fn sorted(rows: Vec<Vec<Val<'_>>>) -> Vec<String> {
        let mut v: Vec<String> = rows.iter().map(|r| format!("{r:?}")).collect();
        v.sort();
        v
    }

    #[test]
    fn typed_keys_give_the_rows_of_the_generic_path() {
        let mut b = ModelBuilder::new();
        for i in 0..12 {
            b.add_node(&i.to_string(), &["A"]);
        }
        let m = b.freeze().unwrap();
        let texts = [
            "MATCH (a:A), (b:A) WITH a, b, count(*) AS c RETURN a, b, c",
            "MATCH (a:A), (b:A) RETURN id(a) AS x, count(DISTINCT b) AS n, \
             count(DISTINCT [id(a), id(b)]) AS m, sum(id(b)) AS s, count(b) AS k",
            "MATCH (a:A), (b:A) RETURN count(DISTINCT id(b)) AS n, count(*) AS c",
            "MATCH (a:A), (b:A) RETURN DISTINCT a, id(b) AS j",
        ];
        let mut rng = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        let bindings: Vec<[u32; 2]> = (0..3000)
            .map(|_| [(next() % 12) as u32, (next() % 7) as u32])
            .collect();
        for text in texts {
            let q = crate::pattern::compile(text, &m, &Default::default()).unwrap();
            let typed = Projector::new(&q.stages[0]);
            let mut generic = Projector::new(&q.stages[0]);
            generic.typed_keys = None;
            generic.aggs.iter_mut().for_each(|a| a.typed_arg = None);
            assert!(
                typed.typed_keys.is_some()
                    || typed.aggs.iter().any(|a| a.typed_arg.is_some())
                    || q.stages[0].distinct,
                "{text}: the typed path is not taken"
            );
            let run = |p: &Projector<'_>, weighted: bool| {
                // Two workers' sinks, merged, as the matchers do.
                let mut halves = bindings.chunks(bindings.len() / 2 + 1).map(|part| {
                    let mut sink = RowSink::new(&m, p, None);
                    for n in part {
                        if weighted && p.is_grouped() {
                            sink.push_weighted(n, 2);
                        } else {
                            sink.push(n, &[], &[]);
                        }
                    }
                    sink
                });
                let mut first = halves.next().unwrap();
                halves.for_each(|s| first.merge(s));
                sorted(first.finish())
            };
            for weighted in [false, true] {
                let want = run(&generic, weighted);
                assert!(!want.is_empty(), "{text}");
                assert_eq!(run(&typed, weighted), want, "{text} (weighted: {weighted})");
            }
        }
    }

    #[test]
    fn distinct_rows_are_deduplicated_as_they_arrive() {
        let mut b = ModelBuilder::new();
        for i in 0..3 {
            b.add_node(&i.to_string(), &["A"]);
        }
        let m = b.freeze().unwrap();
        let q = crate::pattern::compile("MATCH (a:A) RETURN DISTINCT a", &m, &Default::default())
            .unwrap();
        let p = Projector::new(&q.stages[0]);
        let mut sink = RowSink::new(&m, &p, None);
        for i in 0..10_000u32 {
            sink.push(&[i % 3], &[], &[]);
        }
        assert_eq!(
            sink.rows.len(),
            3,
            "DISTINCT state is the size of the distinct rows"
        );
        assert_eq!(sink.finish().len(), 3);
    }

    #[test]
    fn distinct_or_a_later_filter_turns_the_top_k_buffer_off() {
        let m = ModelBuilder::new().freeze().unwrap();
        for (text, bounded) in [
            ("MATCH (x) RETURN x ORDER BY id(x) LIMIT 2", true),
            ("MATCH (x) RETURN DISTINCT x ORDER BY id(x) LIMIT 2", false),
            ("MATCH (x) RETURN x ORDER BY id(x)", false),
            ("MATCH (x) RETURN x LIMIT 2", false),
            (
                "MATCH (x) WITH x WHERE id(x) > 1 RETURN x ORDER BY id(x) LIMIT 2",
                true,
            ),
        ] {
            let q = crate::pattern::compile(text, &m, &Default::default()).unwrap();
            let last = q.stages.last().unwrap();
            assert_eq!(top_k(last, false).is_some(), bounded, "{text}");
        }
        // A filter applied only at the end must see every row; one applied per row need not.
        let q = crate::pattern::compile(
            "MATCH (x) RETURN x ORDER BY id(x) SKIP 3 LIMIT 2",
            &m,
            &Default::default(),
        )
        .unwrap();
        let mut filtered = q.stages[0].clone();
        filtered.filter = Some(Expr::Literal(crate::model::Value::Bool(true)));
        assert_eq!(top_k(&q.stages[0], false), Some(5));
        assert_eq!(top_k(&filtered, false), None);
        assert_eq!(top_k(&filtered, true), Some(5));
    }
}
