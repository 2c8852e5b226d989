//! Printing a tree back as Cypher and parsing the text again gives the same tree.

use super::*;

/// Queries covering every construct the printer handles.
pub(super) const CORPUS: &[&str] = &[
    // Found by fuzzing: a negated number literal must print with parentheses.
    "MATCH (a) WHERE a.x - --0 = ---1.5 RETURN a",
    "MATCH (a1:Person)-[:ACTOR]->(m:Movie)<-[:ACTOR]-(a2:Person), (a3:Person)-[:ACTOR]->(m)<-[:ACTOR]-(a4:Person) \
     WHERE a1.primaryName CONTAINS 'Jack' AND id(a2) < id(a3) AND id(a3) < id(a4) \
     RETURN m.primaryTitle, a1.primaryName ORDER BY m.primaryTitle LIMIT 100",
    "MATCH (p1:Person)-[:ACTOR|ACTRESS]->(t:Movie)<-[:ACTOR|ACTRESS]-(p2:Person) WHERE id(p1) < id(p2) \
     WITH p1, p2, count(t) AS shared WHERE shared >= 3 RETURN p1.primaryName, p2.primaryName, shared ORDER BY shared DESC",
    "MATCH (a)-->(b)<--(c)--(d)<-->(e)",
    "MATCH (:A:B|C {x: 1, y: 'two', z: [1, 2.5, null], w: $w})-[r:T1|T2 {since: -3}]-() RETURN r.since",
    "MATCH (`weird var`:`Weird Label`)-[`r r`:`WEIRD TYPE`]->(`end`) RETURN `weird var`.`a b` AS `c d`, `end`",
    "MATCH (n:Order {limit: 1}) RETURN n.order, n.desc AS d",
    "MATCH (a) WHERE a OR b AND NOT c XOR d RETURN a",
    "MATCH (a) WHERE (a OR b) AND NOT (c XOR d) RETURN a",
    "MATCH (a) WHERE NOT a.x = 1 AND (NOT a.y) = false RETURN a",
    "MATCH (a) WHERE a.x + a.y * 2 - -a.z % 3 / (4 - 1) > -1.5e-7 RETURN -(a.x + 1), - -a.x, (-1).x",
    "MATCH (a) WHERE a.s STARTS WITH 'x' AND a.s ENDS WITH \"y\" OR a.s =~ '.*\\\\d' XOR a.s CONTAINS 'it\\'s' RETURN a",
    "MATCH (a) WHERE a.x IN [1, 2] AND a.y IN $ys AND a.z IS NULL AND a.w IS NOT NULL RETURN a",
    "MATCH (a) WHERE (a.x IN [1]) = true AND (a.s CONTAINS 'b') <> false RETURN a",
    "MATCH (a) WHERE NOT (a)-[:KNOWS]->(:Person {name: 'Bob'}) AND (a)<--() RETURN a",
    "MATCH (a) WHERE NOT EXISTS { MATCH (a)-[:T]->(x:L) WHERE x.p > 1 AND EXISTS { (x)--() } } RETURN a",
    "MATCH (a) WHERE a:Person|Actor:Living OR a:Movie RETURN a",
    "MATCH (a) RETURN DISTINCT a, count(*), count(DISTINCT a.x) AS n, min(a.x), toLower(a.s), rand(), exists(a.p) \
     ORDER BY n DESC, a SKIP $skip LIMIT 10",
    "MATCH (a) WITH * WHERE a.x > 1 WITH DISTINCT a ORDER BY a.x SKIP 1 LIMIT 2 RETURN *, a.y",
    "MATCH (a) RETURN 'tab\\there', 'line\\nbreak', 'back\\\\slash', 'ctrl\\u0001', '\\u00e9', '😀', 1.0, 1e300, 0.1, -0.0",
    "MATCH (a) RETURN -9223372036854775808, 9223372036854775807, 0x7fffffffffffffff",
    "MATCH (a) WHERE a.x = 1 MATCH (b) WHERE b.y = 2 RETURN a, b",
    "MATCH (a) RETURN `match`(a), `count`(*)",
    "MATCH (a) WHERE CASE a.x WHEN 1 THEN true WHEN 2 THEN a.y ELSE false END \
     RETURN CASE WHEN a.x > 1 THEN 'big' END AS size, sum(CASE WHEN a:L THEN 1 ELSE 0 END) AS n \
     ORDER BY CASE size WHEN 'big' THEN 0 ELSE 1 END",
    "UNWIND [1, 2] AS x UNWIND $ys AS y MATCH (a)-[r:T*1..3]->(b)-[*2]-(c)<-[:U*..4 {w: 1}]-(d) WHERE a.v = x \
     OPTIONAL MATCH (a)-->(e), (e)--(f) WHERE e.x > y UNWIND range(1, 3) AS z \
     WITH a, collect(e) AS es UNWIND es AS e2 RETURN a, e2 \
     UNION MATCH (a) RETURN a, a AS e2 UNION MATCH (b) RETURN b AS a, 1 AS e2",
    "OPTIONAL MATCH (a:L) RETURN a UNION ALL UNWIND [null] AS a RETURN a",
];

#[test]
fn printed_queries_parse_back_to_the_same_tree() {
    for src in CORPUS {
        let first = parse(src);
        let printed = first.to_string();
        let second = parse_query(&printed).unwrap_or_else(|e| {
            panic!(
                "{src}\nprinted as\n{printed}\nfails: {}",
                e.render(&printed, None)
            )
        });
        assert_eq!(
            shape(&first),
            shape(&second),
            "{src}\nprinted as\n{printed}"
        );
        assert_eq!(second.to_string(), printed, "printing is not stable");
    }
}

#[test]
fn expressions_print_as_cypher() {
    for (input, printed) in [
        ("a.x+1", "a.x + 1"),
        ("a OR b AND NOT c XOR d", "a OR b AND NOT c XOR d"),
        ("(a OR b) AND c", "(a OR b) AND c"),
        ("a - (b - c)", "a - (b - c)"),
        ("(a - b) - c", "a - b - c"),
        ("- (1)", "-(1)"),
        ("a - -1", "a - (-1)"),
        ("a - -b", "a - (-b)"),
        ("-(a)", "-a"),
        ("NOT (a = b)", "NOT a = b"),
        ("a != b", "a <> b"),
        ("id(a)", "id(a)"),
        ("COUNT(*)", "count(*)"),
        ("Count(Distinct a)", "Count(DISTINCT a)"),
        ("a.x starts with \"b\"", "a.x STARTS WITH 'b'"),
        ("a.x is not null", "a.x IS NOT NULL"),
        ("[1,2.0,'x',null,TRUE]", "[1, 2.0, 'x', null, true]"),
        ("$p", "$p"),
        ("`my var`.`my key`", "`my var`.`my key`"),
        ("a.`order`", "a.order"),
        ("`a``b`", "`a``b`"),
        ("(a)-[r:T {x: 1}]->(:L)", "(a)-[r:T {x: 1}]->(:L)"),
        ("exists { (a)-->(b) }", "EXISTS { MATCH (a)-->(b) }"),
    ] {
        assert_eq!(return_expr(input).to_string(), printed, "{input}");
    }
}

#[test]
fn patterns_and_clauses_print_as_cypher() {
    let q = parse(
        "match (a:A|B:C {x: 1})-[r:T|U]->(b)<--(), (c) where a.x > 1 \
         with a, count(r) as n order by n desc skip 1 limit 2 where n > 0 \
         return distinct a.x as x, n order by x",
    );
    assert_eq!(
        q.to_string(),
        "MATCH (a:A|B:C {x: 1})-[r:T|U]->(b)<--(), (c)\n\
         WHERE a.x > 1\n\
         WITH a, count(r) AS n ORDER BY n DESC SKIP 1 LIMIT 2 WHERE n > 0\n\
         RETURN DISTINCT a.x AS x, n ORDER BY x"
    );
}
