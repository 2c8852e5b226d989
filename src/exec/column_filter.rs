//! Filters before enumeration, on the column: a unary conjunct `n.key CONTAINS | STARTS WITH |
//! ENDS WITH 'literal'` is tested on the bytes of `key`'s string column, with the property column
//! of each node group looked up once (not by name per node), the needle's searcher built once,
//! and a dictionary-encoded column's distinct values tested once each. Results are those of the
//! generic evaluator ([`crate::exec::eval`]): a null, absent or non-string property makes the
//! predicate null, so the node is dropped.

use memchr::memmem::Finder;
use rayon::prelude::*;

use crate::model::{ColumnData, Model, StringHeap, Value};
use crate::pattern::ir::{Expr, NodeSlot, StrOp};

/// One string predicate on a node's property, prepared for a column pass.
pub struct StrColumnTest<'a> {
    op: StrOp,
    needle: &'a [u8],
    finder: Finder<'a>,
    /// Per property group: the index of `key`'s column, if the group has one.
    columns: Vec<Option<usize>>,
    /// Per property group: the predicate's value for each distinct value of a dictionary column.
    dict_results: Vec<Option<Vec<bool>>>,
    /// Per property group: for `CONTAINS` on a plain string column, the rows where it holds, found
    /// by one search over the column's bytes ([`StrColumnTest::index_rows`]); empty until then.
    row_hits: Vec<Option<Vec<bool>>>,
}

/// Where a [`StrColumnTest`] pass stands: the group of the last node tested (nodes come sorted, so
/// the group changes rarely).
#[derive(Default)]
pub struct Cursor {
    group: Option<usize>,
}

impl<'a> StrColumnTest<'a> {
    /// The test for `expr` when it is `n.key OP 'literal'` with `n` the node of `slot`; `None` for
    /// any other shape (the generic evaluator handles those).
    pub fn of(model: &Model, expr: &'a Expr, slot: NodeSlot) -> Option<Self> {
        let Expr::Str(op, subject, needle) = expr else {
            return None;
        };
        let (Expr::Property(base, key), Expr::Literal(Value::Str(needle))) =
            (subject.as_ref(), needle.as_ref())
        else {
            return None;
        };
        if !matches!(base.as_ref(), Expr::Node(s) if *s == slot) {
            return None;
        }
        let needle = needle.as_bytes();
        let finder = Finder::new(needle);
        let mut test = StrColumnTest {
            op: *op,
            needle,
            finder,
            columns: model
                .groups()
                .iter()
                .map(|g| g.columns.iter().position(|c| c.name == *key))
                .collect(),
            dict_results: Vec::new(),
            row_hits: Vec::new(),
        };
        test.dict_results = model
            .groups()
            .iter()
            .map(|g| match g.column(key).map(|c| &c.data) {
                Some(ColumnData::Dict { dict, .. }) => Some(
                    (0..dict.len())
                        .map(|i| test.holds_on(string_bytes(dict, i)))
                        .collect(),
                ),
                _ => None,
            })
            .collect();
        Some(test)
    }

    /// Finds the rows where a `CONTAINS` holds on each plain string column with one search over
    /// the column's bytes, instead of a search per node: worth it when most of a column's nodes
    /// are to be tested (a rare needle is skipped over at memchr's speed). A large column is
    /// searched in parts of whole rows on all cores. A hit inside one row is that row's answer; a
    /// hit straddling two strings has its first row checked on its own bytes, and the search goes
    /// on at the next row either way, so no row's occurrence is hidden behind a straddling one.
    /// Other operators keep the per-node test.
    pub fn index_rows(&mut self, model: &Model) {
        if self.op != StrOp::Contains || self.needle.is_empty() {
            return;
        }
        let groups = model.groups();
        let this = &*self;
        let row_hits = (0..groups.len())
            .map(|gi| {
                let col = &groups[gi].columns[this.columns[gi]?];
                let ColumnData::Str(heap) = &col.data else {
                    return None;
                };
                let rows = heap.offsets.len().saturating_sub(1);
                let mut hits = vec![false; rows];
                // Parts of at least 64 KiB of text each, a few per core.
                let parts = (heap.bytes.len() >> 16).clamp(1, 4 * rayon::current_num_threads());
                let rows_per_part = rows.div_ceil(parts).max(1);
                hits.par_chunks_mut(rows_per_part)
                    .enumerate()
                    .for_each(|(k, part)| this.search_rows(heap, k * rows_per_part, part));
                Some(hits)
            })
            .collect();
        self.row_hits = row_hits;
    }

    /// [`StrColumnTest::index_rows`] for rows `first..first + hits.len()` of `heap`: marks in
    /// `hits` the rows whose string contains the needle. The search is confined to these rows'
    /// bytes; each hit's row is found by galloping forward from the last one (hits come in order).
    fn search_rows(&self, heap: &StringHeap, first: usize, hits: &mut [bool]) {
        let offsets = &heap.offsets[first..=first + hits.len()];
        let (Some(&lo), Some(&hi)) = (offsets.first(), offsets.last()) else {
            return;
        };
        let Some(text) = heap.bytes.get(lo as usize..hi as usize) else {
            return;
        };
        let at = |row: usize| (offsets[row] - lo) as usize;
        let (mut from, mut row) = (0usize, 0usize);
        while let Some(found) = text.get(from..).and_then(|b| self.finder.find(b)) {
            let pos = from + found;
            // The last row starting at or before `pos`: gallop, then bisect the last stride.
            let mut step = 1;
            while row + step < hits.len() && at(row + step) <= pos {
                row += step;
                step *= 2;
            }
            let end = (row + step).min(hits.len());
            row += offsets[row + 1..end].partition_point(|&o| (o - lo) as usize <= pos);
            let row_end = at(row + 1);
            hits[row] = pos + self.needle.len() <= row_end
                || self.holds_on(string_bytes(heap, first + row));
            from = row_end.max(pos + 1);
            row += 1;
            if row >= hits.len() {
                break;
            }
        }
    }

    /// The predicate on one string's bytes.
    #[inline]
    fn holds_on(&self, s: Option<&[u8]>) -> bool {
        let Some(s) = s else { return false };
        match self.op {
            StrOp::Contains => self.finder.find(s).is_some(),
            StrOp::StartsWith => s.starts_with(self.needle),
            StrOp::EndsWith => s.ends_with(self.needle),
        }
    }

    /// True when the predicate holds for node `v` (false when it is false or null).
    pub fn holds(&self, model: &Model, cursor: &mut Cursor, v: u32) -> bool {
        let groups = model.groups();
        let in_group = |i: usize| groups[i].start <= v && v < groups[i].end;
        let gi = match cursor.group {
            Some(i) if in_group(i) => i,
            _ => {
                let i = groups.partition_point(|g| g.start <= v);
                match i.checked_sub(1).filter(|&i| in_group(i)) {
                    Some(i) => i,
                    None => return false,
                }
            }
        };
        cursor.group = Some(gi);
        let group = &groups[gi];
        let Some(col) = self.columns[gi].map(|c| &group.columns[c]) else {
            return false;
        };
        let row = (v - group.start) as usize;
        if !col.is_valid(row) {
            return false;
        }
        if let Some(hits) = self.row_hits.get(gi).and_then(Option::as_ref) {
            return hits.get(row).copied().unwrap_or(false);
        }
        match &col.data {
            ColumnData::Str(heap) => self.holds_on(string_bytes(heap, row)),
            ColumnData::Dict { codes, .. } => {
                let results = self.dict_results[gi].as_deref().unwrap_or(&[]);
                codes
                    .get(row)
                    .and_then(|&c| results.get(c as usize))
                    .copied()
                    .unwrap_or(false)
            }
            _ => false,
        }
    }
}

/// The bytes of string `i` of `heap` (`None` when out of range).
#[inline]
fn string_bytes(heap: &StringHeap, i: usize) -> Option<&[u8]> {
    let start = *heap.offsets.get(i)? as usize;
    let end = *heap.offsets.get(i + 1)? as usize;
    heap.bytes.get(start..end)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::eval::Env;
    use crate::model::{ModelBuilder, ValueRef};

    /// A model whose `name` property is a dictionary column (label A: few repeated values), a
    /// plain string column (label B: every value distinct), absent (labels C and D) or null in
    /// places (every seventh A and B node); C nodes have an integer `age` instead.
    fn model() -> Model {
        let mut b = ModelBuilder::new();
        let name = b.node_property("name");
        let repeated = ["Jack", "jack", "Jacques", "Éloïse", "Maja"];
        for i in 0..300u32 {
            let v = b.add_node(&format!("a{i}"), &["A"]);
            if i % 7 != 0 {
                let s = repeated[i as usize % repeated.len()];
                b.set_node_property(v, name, ValueRef::Str(s)).unwrap();
            }
        }
        for i in 0..300u32 {
            let v = b.add_node(&format!("b{i}"), &["B"]);
            if i % 7 != 0 {
                let s = format!("{}Jack{i}é", "x".repeat(i as usize % 5));
                b.set_node_property(v, name, ValueRef::Str(&s)).unwrap();
            }
        }
        let age = b.node_property("age");
        for i in 0..50u32 {
            let v = b.add_node(&format!("c{i}"), &["C"]);
            b.set_node_property(v, age, ValueRef::Int(i.into()))
                .unwrap();
        }
        for i in 0..50u32 {
            b.add_node(&format!("d{i}"), &["D"]);
        }
        b.freeze().unwrap()
    }

    /// What the generic evaluator says of `expr` with node slot 0 bound to `v`.
    fn evaluator_holds(m: &Model, expr: &Expr, v: u32) -> bool {
        let nodes = [v];
        Env {
            locals: &[],
            model: m,
            nodes: &nodes,
            rels: &[],
            row: &[],
            exists: None,
        }
        .holds(expr)
    }

    #[test]
    fn the_column_pass_agrees_with_the_evaluator_on_every_node() {
        let m = model();
        let kinds: Vec<&str> = m
            .groups()
            .iter()
            .filter_map(|g| g.column("name"))
            .map(|c| match c.data {
                ColumnData::Dict { .. } => "dict",
                ColumnData::Str(_) => "str",
                _ => "other",
            })
            .collect();
        for kind in ["dict", "str"] {
            assert!(kinds.contains(&kind), "no {kind} column in {kinds:?}");
        }
        let predicates = [
            "n.name CONTAINS 'Jack'",
            "n.name CONTAINS 'ac'",
            "n.name CONTAINS ''",
            "n.name STARTS WITH 'J'",
            "n.name STARTS WITH 'xxJ'",
            "n.name ENDS WITH 'é'",
            "n.name ENDS WITH 'ïse'",
            "n.name CONTAINS 'nowhere'",
            "n.age CONTAINS '1'",
            // Straddles two B strings ("…é" then "x…" or "J…") and overlaps itself.
            "n.name CONTAINS 'éx'",
            "n.name CONTAINS 'éJ'",
            "n.name CONTAINS 'xx'",
            "n.name CONTAINS 'k1'",
        ];
        for (p, indexed) in predicates.iter().flat_map(|p| [(p, false), (p, true)]) {
            let q = crate::pattern::compile(
                &format!("MATCH (n) WHERE {p} RETURN n"),
                &m,
                &Default::default(),
            )
            .unwrap();
            let expr = &q.filter[0];
            let mut test = StrColumnTest::of(&m, expr, 0).expect("a column test");
            if indexed {
                test.index_rows(&m);
            }
            let mut cursor = Cursor::default();
            let mut hits = 0;
            for v in 0..m.node_count() as u32 {
                let want = evaluator_holds(&m, expr, v);
                assert_eq!(
                    test.holds(&m, &mut cursor, v),
                    want,
                    "{p} on node {v} (indexed {indexed})"
                );
                hits += usize::from(want);
            }
            // Out-of-order probes (a fresh group lookup each time) agree too.
            for v in (0..m.node_count() as u32).rev().step_by(3) {
                assert_eq!(
                    test.holds(&m, &mut cursor, v),
                    evaluator_holds(&m, expr, v),
                    "{p} on {v}"
                );
            }
            let straddling_only = p.contains("éx") || p.contains("éJ");
            if !p.contains("nowhere") && !p.contains("age") && !straddling_only {
                assert!(hits > 0, "{p} holds somewhere");
            }
        }
    }

    /// A column large enough to be searched in several parts on all cores: strings over a
    /// three-letter alphabet (so hits straddle strings and part boundaries everywhere), some empty,
    /// some null; the index agrees with the evaluator on every node for needles of every length.
    #[test]
    fn a_column_searched_in_parts_agrees_with_the_evaluator() {
        let mut b = ModelBuilder::new();
        let name = b.node_property("name");
        let mut x: u64 = 7;
        for i in 0..60_000u32 {
            let v = b.add_node(&format!("n{i}"), &["N"]);
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            if x >> 60 == 0 {
                continue; // null
            }
            let len = (x >> 33) as usize % 14;
            let s: String = (0..len)
                .map(|k| [b'a', b'b', b'c'][((x >> (2 * k + 3)) % 3) as usize] as char)
                .collect();
            b.set_node_property(v, name, ValueRef::Str(&s)).unwrap();
        }
        let m = b.freeze().unwrap();
        let column = m.groups()[0].column("name").expect("a name column");
        let ColumnData::Str(heap) = &column.data else {
            panic!("expected a plain string column");
        };
        assert!(
            heap.bytes.len() >= 4 << 16,
            "several parts: {} bytes",
            heap.bytes.len()
        );
        for needle in ["a", "ab", "bca", "abcab", "cccc", "abcabca"] {
            let q = crate::pattern::compile(
                &format!("MATCH (n) WHERE n.name CONTAINS '{needle}' RETURN n"),
                &m,
                &Default::default(),
            )
            .unwrap();
            let expr = &q.filter[0];
            let mut test = StrColumnTest::of(&m, expr, 0).expect("a column test");
            test.index_rows(&m);
            let mut cursor = Cursor::default();
            let mut hits = 0;
            for v in 0..m.node_count() as u32 {
                let want = evaluator_holds(&m, expr, v);
                assert_eq!(test.holds(&m, &mut cursor, v), want, "'{needle}' on {v}");
                hits += usize::from(want);
            }
            assert!(hits > 0, "'{needle}' holds somewhere");
        }
    }

    #[test]
    fn other_shapes_are_left_to_the_evaluator() {
        let m = model();
        for p in [
            "n.name = 'Jack'",
            "'Jack' CONTAINS n.name",
            "n.name CONTAINS n.name",
            "toLower(n.name) CONTAINS 'jack'",
        ] {
            let Ok(q) = crate::pattern::compile(
                &format!("MATCH (n) WHERE {p} RETURN n"),
                &m,
                &Default::default(),
            ) else {
                continue;
            };
            assert!(StrColumnTest::of(&m, &q.filter[0], 0).is_none(), "{p}");
        }
        let q = crate::pattern::compile(
            "MATCH (n)-->(k) WHERE k.name CONTAINS 'J' RETURN n",
            &m,
            &Default::default(),
        )
        .unwrap();
        assert!(
            StrColumnTest::of(&m, &q.filter[0], 0).is_none(),
            "another node's slot"
        );
    }
}
