//! Swappable stages (`--filter/--order/--join`, `gemp::engines::staged`): every one of the eight
//! combinations of GEMP's and GpSense's filter, order and join equals a brute-force enumeration
//! on random labelled multigraphs × random connected patterns (node-isomorphism and
//! homomorphism, `RETURN count(*)` and the node bindings as rows); equals the default engine on
//! patterns with named relationships and id-order, value and string conjuncts; and the CLI runs
//! a stage choice on the bundled sample with the default's rows, refusing it with GpSense's
//! engine or the OpenCL backend.

use crate::common;
use common::grouped_queries::{bind, brute, pattern};
use common::random_graphs::{build, build_with_properties, graph, pattern_vars, rel_specs};
use common::{count_star, gemp, id_rows, root, sorted_ids};

use gemp::engines::gemp::execute;
use gemp::engines::staged::{self, StageChoice};
use gemp::exec::eval::Val;
use gemp::exec::{MatchOptions, Semantics};
use gemp::model::Value;
use gemp::pattern::ir::*;
use proptest::prelude::*;

fn count_of(rows: &[Vec<Val<'_>>]) -> i64 {
    match rows {
        [row] => match row.first() {
            Some(Val::Int(n)) => *n,
            other => panic!("count(*) gave {other:?}"),
        },
        _ => panic!("count(*) gave {} rows", rows.len()),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn every_stage_combination_equals_brute_force(g in graph(8, 22), p in pattern(), homo in any::<bool>()) {
        let m = build(&g);
        let sem = if homo { Semantics::Homomorphism } else { Semantics::Isomorphism };
        let mut q = bind(&m, &p);
        let want: Vec<Vec<i64>> = {
            let mut v: Vec<Vec<i64>> = brute(&m, &q, sem)
                .into_iter()
                .map(|a| a.into_iter().map(i64::from).collect())
                .collect();
            v.sort();
            v
        };
        let opts = MatchOptions { semantics: sem, ..Default::default() };
        let k = q.pattern.nodes.len();
        for choice in StageChoice::all() {
            q.stages = vec![count_star()];
            let out = staged::execute(&m, &q, &opts, choice).unwrap();
            prop_assert_eq!(count_of(&out.rows), want.len() as i64, "{} count(*)", choice);
            prop_assert!(!out.partial);
            q.stages = vec![id_rows(k)];
            let out = staged::execute(&m, &q, &opts, choice).unwrap();
            prop_assert_eq!(out.count, want.len() as u64, "{} rows", choice);
            prop_assert_eq!(&sorted_ids(&out.rows), &want, "{} rows", choice);
            // The plan that ran binds every node once, in the order stage's order.
            let mut nodes: Vec<usize> = out.plan.steps.iter().map(|s| s.node).collect();
            nodes.sort_unstable();
            prop_assert_eq!(nodes, (0..k).collect::<Vec<_>>());
        }
    }
}

fn node(s: usize) -> Box<Expr> {
    Box::new(Expr::Node(s))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]
    #[test]
    fn every_stage_combination_equals_the_default_engine_with_conjuncts_and_named_rels(
        g in graph(10, 26),
        k in 1usize..5,
        seed in any::<u64>(),
        homo in any::<bool>(),
    ) {
        // Labels, relationships (a quarter named) and conjuncts drawn from `seed`.
        let mut rng = common::Rng(seed);
        let labels: Vec<Option<u8>> = (0..k)
            .map(|_| rng.chance(50).then(|| rng.below(2) as u8))
            .collect();
        let rels: Vec<common::random_graphs::RandomRel> = (0..rng.below(5))
            .map(|_| (rng.below(k), rng.below(k), rng.chance(50).then(|| rng.below(2) as u8),
                      rng.chance(30), rng.chance(25)))
            .collect();
        let m = build_with_properties(&g);
        let mut filter = Vec::new();
        if rng.chance(50) {
            filter.push(Expr::Compare(
                CmpOp::Lt,
                Box::new(Expr::Id(node(rng.below(k)))),
                Box::new(Expr::Id(node(rng.below(k)))),
            ));
        }
        if rng.chance(50) {
            filter.push(Expr::Compare(
                CmpOp::Ne,
                Box::new(Expr::Property(node(rng.below(k)), "v".into())),
                Box::new(Expr::Literal(Value::Int(rng.below(3) as i64))),
            ));
        }
        if rng.chance(50) {
            filter.push(Expr::Str(
                StrOp::Contains,
                Box::new(Expr::Property(node(rng.below(k)), "s".into())),
                Box::new(Expr::Literal(Value::Str("lph".into()))),
            ));
        }
        let q = BoundQuery {
            pattern: pattern_vars(&m, &labels, &rel_specs(&rels)),
            filter,
            stages: vec![id_rows(k)],
            clauses: None,
        };
        let sem = if homo { Semantics::Homomorphism } else { Semantics::Isomorphism };
        let opts = MatchOptions { semantics: sem, ..Default::default() };
        let want = sorted_ids(&execute(&m, &q, &opts).unwrap().rows);
        for choice in StageChoice::all() {
            let out = staged::execute(&m, &q, &opts, choice).unwrap();
            prop_assert_eq!(&sorted_ids(&out.rows), &want, "{}", choice);
            let counted = staged::execute(&m, &q, &MatchOptions { count_only: true, ..opts.clone() }, choice).unwrap();
            prop_assert_eq!(counted.count, want.len() as u64, "{} --count", choice);
        }
    }
}

#[test]
fn cypher_semantics_and_clauses_are_refused_where_a_stage_cannot_run_them() {
    let m = common::sample_model();
    let cypher = MatchOptions {
        semantics: Semantics::Cypher,
        ..Default::default()
    };
    let q = gemp::pattern::compile(
        "MATCH (p:Person)-[:ACTOR]->(t:Title) RETURN count(*)",
        m,
        &Default::default(),
    )
    .unwrap();
    let gps_join = StageChoice::parse("join=gpsense").unwrap();
    let err = staged::execute(m, &q, &cypher, gps_join).unwrap_err();
    assert!(matches!(err, gemp::Error::Query(_)), "{err}");
    assert!(err.to_string().contains("--join gemp"), "{err}");
    // GEMP's join runs Cypher semantics, whatever filter and order.
    let want = execute(m, &q, &cypher).unwrap();
    let all_gps_but_join = StageChoice::parse("filter=gpsense,order=gpsense").unwrap();
    let got = staged::execute(m, &q, &cypher, all_gps_but_join).unwrap();
    assert_eq!(count_of(&got.rows), count_of(&want.rows));
    let optional = gemp::pattern::compile(
        "MATCH (p:Person) OPTIONAL MATCH (p)-[:ACTOR]->(t:Title) RETURN count(*)",
        m,
        &Default::default(),
    )
    .unwrap();
    let err = staged::execute(
        m,
        &optional,
        &MatchOptions::default(),
        StageChoice::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("OPTIONAL MATCH") && err.contains("--filter/--order/--join"),
        "{err}"
    );
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn sorted_lines(out: &std::process::Output) -> Vec<String> {
    assert!(out.status.success(), "{}", text(&out.stderr));
    let mut lines: Vec<String> = text(&out.stdout).lines().map(str::to_owned).collect();
    lines.sort();
    lines
}

#[test]
fn cli_runs_a_stage_choice_with_the_default_rows_and_refuses_other_engines() {
    let query = root().join("datasets/queries/four-actors-jack.cypher");
    let query = query.to_str().unwrap();
    let default = gemp(&["match", query, "--backend", "host", "--format", "csv"]);
    let want = sorted_lines(&default);
    assert!(want.len() > 2, "{want:?}");
    let staged = gemp(&[
        "match",
        query,
        "--filter",
        "gpsense",
        "--order",
        "gemp",
        "--join",
        "gpsense",
        "--format",
        "csv",
        "--timings",
    ]);
    assert_eq!(sorted_lines(&staged), want);
    let timings = text(&staged.stderr);
    assert!(
        timings.contains("host stages filter=gpsense order=gemp join=gpsense")
            && timings.contains(" order ")
            && timings.contains(" join "),
        "{timings}"
    );
    let explain = gemp(&["explain", query, "--order", "gpsense"]);
    let plan = text(&explain.stdout);
    assert!(explain.status.success(), "{}", text(&explain.stderr));
    assert!(
        plan.contains("stages: filter=gemp order=gpsense join=gemp")
            && plan.contains("filter (gemp): candidates")
            && plan.contains("order (gpsense): "),
        "{plan}"
    );
    for (args, says) in [
        (
            &["--backend", "opencl", "--join", "gpsense"][..],
            "host only",
        ),
        (
            &["--engine", "gpsense", "--filter", "gemp"][..],
            "--engine gpsense",
        ),
        (&["--join", "fast"][..], "invalid value 'fast'"),
    ] {
        let mut all = vec!["match", query];
        all.extend_from_slice(args);
        let out = gemp(&all);
        assert!(!out.status.success(), "{args:?} ran");
        let err = text(&out.stderr);
        assert!(err.contains(says), "{args:?}: {err}");
    }
}
