//! A bound query and its [`Plan`](crate::exec::plan::Plan) as text — pivot, matching order, how each
//! node's candidates are generated, where each predicate runs (candidate filter, topology step,
//! attribute phase), and the estimates: what every engine's `explain` starts from.

use std::fmt::Write;

use crate::exec::plan::{Dir, Plan};
use crate::model::{Model, Value};
use crate::pattern::ir::{BoundQuery, CmpOp, Expr, ListFn, Pattern, StrOp};

/// Renders an expression with the query's variable names.
pub fn expr_text(e: &Expr, p: &Pattern, model: &Model) -> String {
    let r = |x: &Expr| expr_text(x, p, model);
    match e {
        Expr::Literal(Value::Str(s)) => format!("{s:?}"),
        Expr::Literal(v) => v.to_string(),
        Expr::Node(s) => p.nodes.get(*s).map_or("?".into(), |n| n.name.clone()),
        Expr::Rel(s) => p.rels.get(*s).map_or("?".into(), |n| n.name.clone()),
        Expr::Column(i) => format!("#{i}"),
        Expr::Property(b, k) => format!("{}.{k}", r(b)),
        Expr::Id(b) => format!("id({})", r(b)),
        Expr::HasLabels(b, l) => format!("{}{}", r(b), labels_text(l, model)),
        Expr::TypeName(b) => format!("type({})", r(b)),
        Expr::LabelNames(b) => format!("labels({})", r(b)),
        Expr::Compare(op, a, b) => {
            let o = match op {
                CmpOp::Eq => "=",
                CmpOp::Ne => "<>",
                CmpOp::Lt => "<",
                CmpOp::Le => "<=",
                CmpOp::Gt => ">",
                CmpOp::Ge => ">=",
            };
            format!("{} {o} {}", r(a), r(b))
        }
        Expr::Str(op, a, b) => {
            let o = match op {
                StrOp::Contains => "CONTAINS",
                StrOp::StartsWith => "STARTS WITH",
                StrOp::EndsWith => "ENDS WITH",
            };
            format!("{} {o} {}", r(a), r(b))
        }
        Expr::Regex(a, re) => format!("{} =~ {:?}", r(a), re.0.as_str()),
        Expr::In(a, b) => format!("{} IN {}", r(a), r(b)),
        Expr::IsNull(a, neg) => format!("{} IS {}NULL", r(a), if *neg { "NOT " } else { "" }),
        Expr::And(v) => format!("({})", v.iter().map(r).collect::<Vec<_>>().join(" AND ")),
        Expr::Or(v) => format!("({})", v.iter().map(r).collect::<Vec<_>>().join(" OR ")),
        Expr::Xor(a, b) => format!("({} XOR {})", r(a), r(b)),
        Expr::Not(a) => format!("NOT {}", r(a)),
        Expr::Arith(op, a, b) => format!("({} {:?} {})", r(a), op, r(b)),
        Expr::Neg(a) => format!("-{}", r(a)),
        Expr::Checked(a, _) => r(a),
        Expr::Local(i) => format!("local#{i}"),
        Expr::Path(parts) => format!(
            "path({})",
            parts.iter().map(r).collect::<Vec<_>>().join(", ")
        ),
        Expr::Map(entries) => format!(
            "{{{}}}",
            entries
                .iter()
                .map(|(k, e)| format!("{k}: {}", r(e)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Expr::Comprehension(c) => {
            let mut t = format!("{:?}(local#{} IN {}", c.op, c.local, r(&c.list));
            if let Some(f) = &c.filter {
                t += &format!(" WHERE {}", r(f));
            }
            if let Some(m) = &c.map {
                t += &format!(" | {}", r(m));
            }
            t + ")"
        }
        Expr::Index(a, i) => format!("{}[{}]", r(a), r(i)),
        Expr::Slice(a, f, t) => format!(
            "{}[{}..{}]",
            r(a),
            f.as_deref().map(r).unwrap_or_default(),
            t.as_deref().map(r).unwrap_or_default()
        ),
        Expr::Func(func, args) => format!(
            "{func:?}({})",
            args.iter().map(r).collect::<Vec<_>>().join(", ")
        ),
        Expr::List(v) => format!("[{}]", v.iter().map(r).collect::<Vec<_>>().join(", ")),
        Expr::LiteralSet(set) => format!(
            "[{}]",
            set.items().iter().map(r).collect::<Vec<_>>().join(", ")
        ),
        Expr::Exists(sub) => {
            let rels: Vec<String> = sub
                .pattern
                .rels
                .iter()
                .map(|rel| {
                    let n = |s: usize| sub.pattern.nodes[s].name.clone();
                    format!(
                        "({})-[{}]-{}({})",
                        n(rel.src),
                        types_text(&rel.types, model),
                        if rel.undirected { "" } else { ">" },
                        n(rel.dst)
                    )
                })
                .collect();
            format!("EXISTS {{ {} }}", rels.join(", "))
        }
        Expr::ListFn(func, args) => format!(
            "{}({})",
            match func {
                ListFn::Size => "size",
                ListFn::Range => "range",
                ListFn::Length => "length",
                ListFn::Nodes => "nodes",
                ListFn::Relationships => "relationships",
            },
            args.iter().map(r).collect::<Vec<_>>().join(", ")
        ),
        Expr::Case(c) => {
            let mut text = String::from("CASE");
            if let Some(s) = &c.subject {
                let _ = write!(text, " {}", r(s));
            }
            for (w, t) in &c.branches {
                let _ = write!(text, " WHEN {} THEN {}", r(w), r(t));
            }
            if let Some(d) = &c.default {
                let _ = write!(text, " ELSE {}", r(d));
            }
            text + " END"
        }
        Expr::Aggregate {
            func,
            distinct,
            arg,
        } => format!(
            "{:?}({}{})",
            func,
            if *distinct { "DISTINCT " } else { "" },
            arg.as_ref().map_or("*".into(), |a| r(a))
        ),
    }
}

fn labels_text(l: &[Vec<u32>], model: &Model) -> String {
    l.iter()
        .map(|g| {
            let names: Vec<&str> = g
                .iter()
                .map(|&id| model.labels().name(id).unwrap_or("?"))
                .collect();
            format!(":{}", names.join("|"))
        })
        .collect()
}

fn types_text(t: &[u32], model: &Model) -> String {
    if t.is_empty() {
        return "*".into();
    }
    let names: Vec<&str> = t
        .iter()
        .map(|&id| model.rel_types().name(id).unwrap_or("?"))
        .collect();
    format!(":{}", names.join("|"))
}

/// The whole explanation, relationships described as node-isomorphism and homomorphism match them.
pub fn render(q: &BoundQuery, plan: &Plan, model: &Model) -> String {
    render_under(q, plan, model, crate::exec::Semantics::Isomorphism)
}

/// [`render`], relationships described as `semantics` matches them: existence checks, or
/// enumerated (under Cypher semantics every relationship, distinct within its `MATCH`).
pub fn render_under(
    q: &BoundQuery,
    plan: &Plan,
    model: &Model,
    semantics: crate::exec::Semantics,
) -> String {
    let p = &q.pattern;
    let mut o = String::new();
    let _ = writeln!(
        o,
        "pattern: {} nodes, {} relationships",
        p.nodes.len(),
        p.rels.len()
    );
    for (i, n) in p.nodes.iter().enumerate() {
        let _ = writeln!(
            o,
            "  node {i}: ({}{})",
            n.name,
            labels_text(&n.labels, model)
        );
    }
    for (i, rel) in p.rels.iter().enumerate() {
        let _ = writeln!(
            o,
            "  rel {i}: ({})-[{}{}]-{}({}){}",
            p.nodes[rel.src].name,
            if rel.named { rel.name.as_str() } else { "" },
            types_text(&rel.types, model),
            if rel.undirected { "" } else { ">" },
            p.nodes[rel.dst].name,
            if semantics.distinct_edges() {
                format!("  (enumerated, distinct edges in MATCH {})", rel.clause + 1)
            } else if rel.named {
                "  (enumerated)".to_string()
            } else {
                "  (existence)".to_string()
            }
        );
    }
    let _ = writeln!(o, "\ncandidate filter (labels, degrees, unary predicates):");
    for (slot, n) in p.nodes.iter().enumerate() {
        let count = plan
            .steps
            .iter()
            .find(|s| s.node == slot)
            .map_or(0, |s| s.candidates);
        let preds: Vec<String> = plan.unary[slot]
            .iter()
            .map(|&i| expr_text(&q.filter[i], p, model))
            .collect();
        let _ = writeln!(
            o,
            "  {:<12} {:>10} candidates{}",
            n.name,
            count,
            if preds.is_empty() {
                String::new()
            } else {
                format!("  where {}", preds.join(" AND "))
            }
        );
    }
    let _ = writeln!(o, "\nmatching order (phase 1, topology):");
    for (i, s) in plan.steps.iter().enumerate() {
        let name = &p.nodes[s.node].name;
        let how = match s.expand {
            None if i == 0 => format!("pivot: scan {} candidates", s.candidates),
            None => format!("scan {} candidates (new component)", s.candidates),
            Some(x) => {
                let rel = &p.rels[x.rel];
                let dir = match x.dir {
                    Dir::Out => "outgoing",
                    Dir::In => "incoming",
                    Dir::Both => "either direction",
                };
                format!(
                    "expand from {} over {} {} edges",
                    p.nodes[x.from].name,
                    types_text(&rel.types, model),
                    dir
                )
            }
        };
        let _ = writeln!(
            o,
            "  {}. {name}: {how}   (est. {:.0} partial matches)",
            i + 1,
            s.estimate
        );
        for &c in &s.checks {
            let rel = &p.rels[c];
            let _ = writeln!(
                o,
                "       check edge ({})-[{}]-{}({})",
                p.nodes[rel.src].name,
                types_text(&rel.types, model),
                if rel.undirected { "" } else { ">" },
                p.nodes[rel.dst].name
            );
        }
        for &f in &s.filters {
            let _ = writeln!(o, "       filter {}", expr_text(&q.filter[f], p, model));
        }
    }
    let _ = writeln!(
        o,
        "\nattribute phase (phase 2, on complete topological matches):"
    );
    if plan.attribute_filters.is_empty() {
        let _ = writeln!(o, "  (nothing)");
    }
    for &f in &plan.attribute_filters {
        let _ = writeln!(o, "  {}", expr_text(&q.filter[f], p, model));
    }
    let _ = writeln!(o, "\nresult stages:");
    for (i, st) in q.stages.iter().enumerate() {
        let kind = if i + 1 == q.stages.len() {
            "RETURN"
        } else {
            "WITH"
        };
        let items: Vec<String> = st.items.iter().map(|it| it.name.clone()).collect();
        let _ = write!(
            o,
            "  {kind}{} {}",
            if st.distinct { " DISTINCT" } else { "" },
            items.join(", ")
        );
        if st.items.iter().any(|it| it.expr.has_aggregate()) {
            let _ = write!(o, "  (grouped)");
        }
        if let Some(f) = &st.filter {
            let _ = write!(o, "  WHERE {}", expr_text(f, p, model));
        }
        if !st.order_by.is_empty() {
            let _ = write!(o, "  ORDER BY {} keys", st.order_by.len());
        }
        if let Some(s) = st.skip {
            let _ = write!(o, "  SKIP {s}");
        }
        if let Some(l) = st.limit {
            let _ = write!(o, "  LIMIT {l}");
        }
        o.push('\n');
    }
    o
}
