//! Combining the gathered result at process 0 into the query's output: the count, or the rows
//! with grouping and aggregates (`count`, `sum`, `avg`, `min`, `max`, `collect`, with or without
//! `DISTINCT`: the single-process engine's accumulators over the gathered argument values),
//! `DISTINCT`, `ORDER BY`, `SKIP` and `LIMIT` applied as the single-process result stages do.

use std::collections::HashMap;

use super::dataflow::Gathered;
use super::local::Wire;
use super::plan::{DistPlan, Output};
use crate::exec::eval::{Env, Val};
use crate::exec::results::Aggregate;
use crate::model::Model;
use crate::pattern::ir::{BoundQuery, Expr};

/// A finished result: column names and rows (a count is one row of one column).
#[derive(Debug)]
pub struct Finished {
    /// Column names.
    pub columns: Vec<String>,
    /// The rows.
    pub rows: Vec<Vec<Val<'static>>>,
    /// The number of matches (count plans) or of rows.
    pub count: u64,
    /// True when the result is a count (no projection, or a lone `count(*)`).
    pub counted: bool,
}

/// Makes the output of `gathered` for `query` (`model`: any model, for evaluating `ORDER BY`
/// over the rows, which hold no node).
pub fn finish(query: &BoundQuery, plan: &DistPlan, gathered: Gathered, model: &Model) -> Finished {
    if let Output::Count { column } = &plan.output {
        let count = gathered.count;
        let rows = if query.stages.is_empty() {
            Vec::new()
        } else {
            vec![vec![Val::Int(count as i64)]]
        };
        return Finished {
            columns: vec![column.clone()],
            rows,
            count,
            counted: true,
        };
    }
    let Some(proj) = query.stages.first() else {
        return Finished {
            columns: Vec::new(),
            rows: Vec::new(),
            count: 0,
            counted: false,
        };
    };
    let width = proj.items.len();
    let agg_of = |k: usize| match &proj.items[k].expr {
        Expr::Aggregate {
            func,
            distinct,
            arg,
        } => Some((*func, *distinct, arg.is_none())),
        _ => None,
    };
    let grouped = (0..width).any(|k| agg_of(k).is_some());
    let as_row = |vals: Vec<(u32, Wire)>| {
        let mut row = vec![Wire::Null; width];
        for (k, v) in vals {
            if let Some(slot) = row.get_mut(k as usize) {
                *slot = v;
            }
        }
        row
    };
    let fresh = || -> Vec<Option<Aggregate<'static>>> {
        (0..width)
            .map(|k| agg_of(k).map(|(f, d, _)| Aggregate::new(f, d)))
            .collect()
    };
    let mut rows: Vec<Vec<Val<'static>>> = if grouped {
        // Group by the other items (first-seen order); each group aggregates its rows' argument
        // values, a row counting `weight` times.
        let mut index: HashMap<String, usize> = HashMap::new();
        let mut groups: Vec<(Vec<Wire>, Vec<Option<Aggregate<'static>>>)> = Vec::new();
        for (vals, weight) in gathered.rows {
            let row = as_row(vals);
            let key: Vec<&Wire> = (0..width)
                .filter(|&k| agg_of(k).is_none())
                .map(|k| &row[k])
                .collect();
            let key = format!("{key:?}");
            let g = match index.get(&key) {
                Some(&g) => g,
                None => {
                    index.insert(key, groups.len());
                    groups.push((row.clone(), fresh()));
                    groups.len() - 1
                }
            };
            for (k, acc) in groups[g].1.iter_mut().enumerate() {
                if let Some(acc) = acc {
                    let star = agg_of(k).is_some_and(|(_, _, star)| star);
                    let v = if star { Val::Int(1) } else { row[k].val() };
                    acc.add(v, weight);
                }
            }
        }
        if groups.is_empty() && (0..width).all(|k| agg_of(k).is_some()) {
            // Aggregates without grouping keys: one row, also over no match.
            groups.push((vec![Wire::Null; width], fresh()));
        }
        groups
            .into_iter()
            .map(|(row, accs)| {
                row.iter()
                    .zip(accs)
                    .map(|(w, acc)| match acc {
                        Some(acc) => acc.finish(),
                        None => w.val(),
                    })
                    .collect()
            })
            .collect()
    } else {
        // A row bound by several choices of parallel edges (Cypher semantics) is that many rows.
        let mut out = Vec::new();
        for (vals, weight) in gathered.rows {
            let row: Vec<Val<'static>> = as_row(vals).iter().map(Wire::val).collect();
            for _ in 1..weight {
                out.push(row.clone());
            }
            if weight > 0 {
                out.push(row);
            }
        }
        out
    };
    if proj.distinct {
        let mut seen = std::collections::HashSet::new();
        rows.retain(|r| seen.insert(format!("{r:?}")));
    }
    if !proj.order_by.is_empty() {
        let keys: Vec<Vec<Val<'static>>> = rows
            .iter()
            .map(|r| {
                let env = Env {
                    model,
                    nodes: &[],
                    rels: &[],
                    row: r,
                    exists: None,
                    locals: &[],
                };
                proj.order_by
                    .iter()
                    .map(|(e, _)| env.eval(e).into_owned())
                    .collect()
            })
            .collect();
        let mut idx: Vec<usize> = (0..rows.len()).collect();
        idx.sort_by(|&a, &b| {
            for (i, (_, desc)) in proj.order_by.iter().enumerate() {
                let c = keys[a][i].sort_cmp(&keys[b][i]);
                let c = if *desc { c.reverse() } else { c };
                if c != std::cmp::Ordering::Equal {
                    return c;
                }
            }
            std::cmp::Ordering::Equal
        });
        let mut taken: Vec<Option<Vec<Val<'static>>>> = rows.into_iter().map(Some).collect();
        rows = idx.into_iter().filter_map(|i| taken[i].take()).collect();
    }
    let skip = proj.skip.unwrap_or(0) as usize;
    let limit = proj.limit.map_or(usize::MAX, |l| l as usize);
    let rows: Vec<_> = rows.into_iter().skip(skip).take(limit).collect();
    Finished {
        columns: proj.items.iter().map(|i| i.name.clone()).collect(),
        count: rows.len() as u64,
        rows,
        counted: false,
    }
}
