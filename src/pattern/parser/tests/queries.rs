//! Whole queries and clause structure.

use super::*;

const SPEC_EXAMPLE_1: &str = "\
// four actors in the same movie, one of them named Jack
MATCH (a1:Person)-[:ACTOR]->(m:Movie)<-[:ACTOR]-(a2:Person),
      (a3:Person)-[:ACTOR]->(m)<-[:ACTOR]-(a4:Person)
WHERE a1.primaryName CONTAINS 'Jack'
  AND id(a2) < id(a3) AND id(a3) < id(a4)
RETURN m.primaryTitle, a1.primaryName, a2.primaryName, a3.primaryName, a4.primaryName
ORDER BY m.primaryTitle
LIMIT 100
";

const SPEC_EXAMPLE_2: &str = "\
MATCH (p1:Person)-[:ACTOR|ACTRESS]->(t:Movie)<-[:ACTOR|ACTRESS]-(p2:Person)
WHERE id(p1) < id(p2)
WITH p1, p2, count(t) AS shared WHERE shared >= 3
RETURN p1.primaryName, p2.primaryName, shared ORDER BY shared DESC
";

#[test]
fn spec_example_four_actors() {
    let actor = |d| rel("", &["ACTOR"], d);
    let mut expected = query(vec![
        path(
            vec![
                node("a1", &["Person"]),
                node("m", &["Movie"]),
                node("a2", &["Person"]),
            ],
            vec![actor(Direction::Right), actor(Direction::Left)],
        ),
        path(
            vec![
                node("a3", &["Person"]),
                node("m", &[]),
                node("a4", &["Person"]),
            ],
            vec![actor(Direction::Right), actor(Direction::Left)],
        ),
    ]);
    expected.where_clause = Some(bin(
        BinaryOp::And,
        bin(
            BinaryOp::And,
            string_op(StringOp::Contains, vp("a1", "primaryName"), string("Jack")),
            bin(BinaryOp::Lt, id("a2"), id("a3")),
        ),
        bin(BinaryOp::Lt, id("a3"), id("a4")),
    ));
    let mut ret = projection(
        ["m.primaryTitle", "a1", "a2", "a3", "a4"]
            .iter()
            .map(|v| match v.split_once('.') {
                Some((v, key)) => item(vp(v, key), None),
                None => item(vp(v, "primaryName"), None),
            })
            .collect(),
    );
    ret.order_by = vec![sort(vp("m", "primaryTitle"), false)];
    ret.limit = Some(int(100));
    expected.ret = Some(ret);
    assert_same(&parse(SPEC_EXAMPLE_1), &expected);
}

#[test]
fn spec_example_shared_titles() {
    let acts = |d| rel("", &["ACTOR", "ACTRESS"], d);
    let mut expected = query(vec![path(
        vec![
            node("p1", &["Person"]),
            node("t", &["Movie"]),
            node("p2", &["Person"]),
        ],
        vec![acts(Direction::Right), acts(Direction::Left)],
    )]);
    expected.where_clause = Some(bin(BinaryOp::Lt, id("p1"), id("p2")));
    expected.with_clauses = vec![WithClause {
        projection: projection(vec![
            item(var("p1"), None),
            item(var("p2"), None),
            item(call("count", vec![var("t")]), Some("shared")),
        ]),
        where_clause: Some(bin(BinaryOp::Ge, var("shared"), int(3))),
        unwinds: Vec::new(),
    }];
    let mut ret = projection(vec![
        item(vp("p1", "primaryName"), None),
        item(vp("p2", "primaryName"), None),
        item(var("shared"), None),
    ]);
    ret.order_by = vec![sort(var("shared"), true)];
    expected.ret = Some(ret);
    assert_same(&parse(SPEC_EXAMPLE_2), &expected);
}

#[test]
fn query_without_return() {
    let q = parse("MATCH (a)-->(b)");
    assert_same(
        &q,
        &query(vec![path(
            vec![node("a", &[]), node("b", &[])],
            vec![rel("", &[], Direction::Right)],
        )]),
    );
}

#[test]
fn several_match_clauses_form_one_pattern_and_their_filters_are_joined() {
    let q = parse("MATCH (a) WHERE a.x = 1 MATCH (b), (c) WHERE b.y = 2 MATCH (d) RETURN a");
    // Each path remembers its clause (Cypher semantics keeps edges distinct per clause).
    let in_clause = |clause, p: PathPattern| PathPattern { clause, ..p };
    let mut expected = query(vec![
        path(vec![node("a", &[])], vec![]),
        in_clause(1, path(vec![node("b", &[])], vec![])),
        in_clause(1, path(vec![node("c", &[])], vec![])),
        in_clause(2, path(vec![node("d", &[])], vec![])),
    ]);
    expected.where_clause = Some(bin(
        BinaryOp::And,
        bin(BinaryOp::Eq, vp("a", "x"), int(1)),
        bin(BinaryOp::Eq, vp("b", "y"), int(2)),
    ));
    expected.ret = Some(projection(vec![item(var("a"), None)]));
    assert_same(&q, &expected);
    // Printing keeps the clauses apart.
    assert!(
        q.to_string()
            .starts_with("MATCH (a)\nMATCH (b), (c)\nMATCH (d)\nWHERE"),
        "{q}"
    );
}

#[test]
fn return_forms() {
    let q = parse(
        "MATCH (a)-[r]->(b) RETURN DISTINCT a, a.name AS n, r.since, id(b), count(*), \
         count(DISTINCT b) AS c, min(a.age), max(a.age), avg(a.age), sum(a.age)",
    );
    let ret = q.ret.expect("RETURN");
    assert!(ret.distinct);
    assert!(!ret.star);
    let expected = vec![
        item(var("a"), None),
        item(vp("a", "name"), Some("n")),
        item(vp("r", "since"), None),
        item(id("b"), None),
        item(ex(ExprKind::CountStar), None),
        item(
            ex(ExprKind::FunctionCall {
                name: name("count"),
                distinct: true,
                args: vec![var("b")],
            }),
            Some("c"),
        ),
        item(call("min", vec![vp("a", "age")]), None),
        item(call("max", vec![vp("a", "age")]), None),
        item(call("avg", vec![vp("a", "age")]), None),
        item(call("sum", vec![vp("a", "age")]), None),
    ];
    assert_same(&ret.items, &expected);
}

#[test]
fn return_star() {
    let ret = parse("MATCH (a) RETURN *").ret.expect("RETURN");
    assert!(ret.star);
    assert!(ret.items.is_empty());
    let ret = parse("MATCH (a) RETURN *, a.x AS y").ret.expect("RETURN");
    assert!(ret.star);
    assert_same(&ret.items, &vec![item(vp("a", "x"), Some("y"))]);
    let with = &parse("MATCH (a) WITH * WHERE a.x > 1 RETURN a").with_clauses[0];
    assert!(with.projection.star);
    assert!(with.where_clause.is_some());
}

#[test]
fn order_by_skip_limit() {
    let ret = parse(
        "MATCH (a) RETURN a.x AS x, a.y ORDER BY x ASC, a.y DESCENDING, a.z ASCENDING, \
         a.w DESC, id(a) SKIP 5 LIMIT 10",
    )
    .ret
    .expect("RETURN");
    assert_same(
        &ret.order_by,
        &vec![
            sort(var("x"), false),
            sort(vp("a", "y"), true),
            sort(vp("a", "z"), false),
            sort(vp("a", "w"), true),
            sort(id("a"), false),
        ],
    );
    assert_same(&ret.skip, &Some(int(5)));
    assert_same(&ret.limit, &Some(int(10)));

    let ret = parse("MATCH (a) RETURN a SKIP $s LIMIT $l")
        .ret
        .expect("RETURN");
    assert_same(&ret.skip, &Some(param("s")));
    assert_same(&ret.limit, &Some(param("l")));

    let ret = parse("MATCH (a) RETURN a LIMIT 0x10").ret.expect("RETURN");
    assert_same(&ret.limit, &Some(int(16)));
}

#[test]
fn with_clauses_with_ordering_paging_and_filters() {
    let q = parse(
        "MATCH (a)-->(b)
         WITH DISTINCT a, count(b) AS n ORDER BY n DESC SKIP 1 LIMIT 3 WHERE n > 1
         WITH a, n WHERE a.x <> 'y'
         RETURN a, n",
    );
    assert_eq!(q.with_clauses.len(), 2);
    let first = &q.with_clauses[0];
    let mut expected = projection(vec![
        item(var("a"), None),
        item(call("count", vec![var("b")]), Some("n")),
    ]);
    expected.distinct = true;
    expected.order_by = vec![sort(var("n"), true)];
    expected.skip = Some(int(1));
    expected.limit = Some(int(3));
    assert_same(&first.projection, &expected);
    assert_same(
        &first.where_clause,
        &Some(bin(BinaryOp::Gt, var("n"), int(1))),
    );
    assert_same(
        &q.with_clauses[1].where_clause,
        &Some(bin(BinaryOp::Ne, vp("a", "x"), string("y"))),
    );
    assert!(q.ret.is_some());
}

#[test]
fn with_without_return() {
    let q = parse("MATCH (a) WITH a WHERE a.x = 1");
    assert_eq!(q.with_clauses.len(), 1);
    assert!(q.ret.is_none());
}

#[test]
fn keywords_are_case_insensitive() {
    let lower = parse(
        "match (a:Person)-[:KNOWS]->(b) where a.x starts with 'A' and not b.y is null \
         with a, count(b) as n where n > 1 return distinct a order by n desc skip 1 limit 2",
    );
    let upper = parse(
        "MATCH (a:Person)-[:KNOWS]->(b) WHERE a.x STARTS WITH 'A' AND NOT b.y IS NULL \
         WITH a, count(b) AS n WHERE n > 1 RETURN DISTINCT a ORDER BY n DESC SKIP 1 LIMIT 2",
    );
    let mixed = parse(
        "MaTcH (a:Person)-[:KNOWS]->(b) WhErE a.x StArTs WiTh 'A' AnD nOt b.y Is NuLl \
         WiTh a, count(b) As n wHeRe n > 1 ReTuRn DiStInCt a OrDeR bY n DeSc SkIp 1 LiMiT 2",
    );
    assert_same(&lower, &upper);
    assert_same(&mixed, &upper);
    assert_same(&where_expr("a.x = TRUE OR a.y = False OR a.z = NULL"), &{
        let eq = |k, v| bin(BinaryOp::Eq, vp("a", k), v);
        bin(
            BinaryOp::Or,
            bin(
                BinaryOp::Or,
                eq("x", boolean(true)),
                eq("y", boolean(false)),
            ),
            eq("z", null()),
        )
    });
}

#[test]
fn labels_and_keys_keep_their_case_and_may_be_keywords() {
    let q = parse("MATCH (n:Order {limit: 1})-[:MATCH]->(m:`Weird Label`) RETURN n.order, m.`a b`");
    let mut n = node("n", &["Order"]);
    n.props = props(vec![("limit", int(1))]);
    let expected_path = path(
        vec![n, node("m", &["Weird Label"])],
        vec![rel("", &["MATCH"], Direction::Right)],
    );
    assert_same(&q.matches, &vec![expected_path]);
    assert_same(
        &q.ret.expect("RETURN").items,
        &vec![item(vp("n", "order"), None), item(vp("m", "a b"), None)],
    );
}

#[test]
fn backtick_quoted_variables_and_aliases() {
    let q = parse("MATCH (`my node`:L)-[`the rel`]->(`end`) RETURN `my node`.x AS `the x`, `end`");
    assert_same(&q.matches[0].nodes[0].var, &Some(name("my node")));
    assert_same(&q.matches[0].rels[0].var, &Some(name("the rel")));
    assert_same(&q.matches[0].nodes[1].var, &Some(name("end")));
    assert_same(
        &q.ret.expect("RETURN").items,
        &vec![
            item(vp("my node", "x"), Some("the x")),
            item(var("end"), None),
        ],
    );
}

#[test]
fn comments_and_semicolon() {
    let q = parse(
        "// leading comment
         MATCH /* inline */ (a) // trailing
         /* multi
            line */
         RETURN a; // after the semicolon",
    );
    assert_same(
        &q,
        &Query {
            ret: Some(projection(vec![item(var("a"), None)])),
            ..query(vec![path(vec![node("a", &[])], vec![])])
        },
    );
}

#[test]
fn query_and_clause_spans() {
    let src = "  MATCH (a)\nRETURN a.x AS y ORDER BY y LIMIT 3 // done\n";
    let q = parse(src);
    assert_eq!(
        &src[q.span.start..q.span.end],
        "MATCH (a)\nRETURN a.x AS y ORDER BY y LIMIT 3"
    );
    assert_eq!((q.span.line, q.span.column), (1, 3));
    let ret = q.ret.expect("RETURN");
    assert_eq!(
        &src[ret.span.start..ret.span.end],
        "RETURN a.x AS y ORDER BY y LIMIT 3"
    );
    assert_eq!((ret.span.line, ret.span.column), (2, 1));
    let it = &ret.items[0];
    assert_eq!(&src[it.span.start..it.span.end], "a.x AS y");
    assert_eq!(&src[it.expr.span.start..it.expr.span.end], "a.x");
    let alias = it.alias.as_ref().expect("alias");
    assert_eq!((alias.span.line, alias.span.column), (2, 15));
}
