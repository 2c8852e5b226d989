//! Pattern queries end to end (parse → bind → plan → match → results) on a small hand-built movie
//! graph whose answers were computed by hand. Includes GEMP's own test list: empty results,
//! overlapping matches and error handling. Every query also runs through the OpenCL pipeline
//! (PoCL here) with tiny result buffers when a platform exists, and must give the host's rows.

use crate::common;

use gemp::engines::gemp::execute;
use gemp::exec::eval::Val;
use gemp::exec::{MatchOptions, Semantics};
use gemp::model::{Model, ModelBuilder, Value, ValueRef};
use gemp::pattern::{compile, Params, QueryErrorKind};

/// Movies m1 (1999, rating 8.5), m2 (2005, 6.0), m3 (2010, no rating); a TV series s1.
/// Actors: Jack Black (j), Anna (a), Bob (b), Carl (c), Dora (d, ACTRESS), Eve (e, director only).
///   m1: j, a, b, c act; e directs            -> 4 actors incl. Jack
///   m2: j, a, b act; d acts (ACTRESS); e directs; a also directs
///   m3: a, b act; j directs
///   s1: a, b, c act
fn movies() -> Model {
    let mut b = ModelBuilder::new();
    let actor = b.rel_type("ACTOR");
    let actress = b.rel_type("ACTRESS");
    let director = b.rel_type("DIRECTOR");
    let name = b.node_property("primaryName");
    let title = b.node_property("primaryTitle");
    let year = b.node_property("startYear");
    let rating = b.node_property("averageRating");
    let ord = b.edge_property("ordering");
    let title_node =
        |b: &mut ModelBuilder, key: &str, kind: &str, t: &str, y: i64, r: Option<f64>| {
            let n = b.add_node(key, &["Title", kind]);
            b.set_node_property(n, title, ValueRef::Str(t)).unwrap();
            b.set_node_property(n, year, ValueRef::Int(y)).unwrap();
            if let Some(r) = r {
                b.set_node_property(n, rating, ValueRef::Float(r)).unwrap();
            }
            n
        };
    let m1 = title_node(&mut b, "m1", "Movie", "Alpha", 1999, Some(8.5));
    let m2 = title_node(&mut b, "m2", "Movie", "Beta", 2005, Some(6.0));
    let m3 = title_node(&mut b, "m3", "Movie", "Gamma", 2010, None);
    let s1 = title_node(&mut b, "s1", "TvSeries", "Delta", 2001, Some(7.0));
    let person = |b: &mut ModelBuilder, key: &str, n: &str| {
        let p = b.add_node(key, &["Person"]);
        b.set_node_property(p, name, ValueRef::Str(n)).unwrap();
        p
    };
    let j = person(&mut b, "j", "Jack Black");
    let a = person(&mut b, "a", "Anna");
    let bo = person(&mut b, "b", "Bob");
    let c = person(&mut b, "c", "Carl");
    let d = person(&mut b, "d", "Dora");
    let e = person(&mut b, "e", "Eve");
    let edge = |b: &mut ModelBuilder, p, t, ty, o: i64| {
        let x = b.add_edge(p, t, ty).unwrap();
        b.set_edge_property(x, ord, ValueRef::Int(o)).unwrap();
    };
    for (i, p) in [j, a, bo, c].into_iter().enumerate() {
        edge(&mut b, p, m1, actor, i as i64 + 1);
    }
    edge(&mut b, e, m1, director, 5);
    for (i, p) in [j, a, bo].into_iter().enumerate() {
        edge(&mut b, p, m2, actor, i as i64 + 1);
    }
    edge(&mut b, d, m2, actress, 4);
    edge(&mut b, e, m2, director, 5);
    edge(&mut b, a, m2, director, 6);
    edge(&mut b, a, m3, actor, 1);
    edge(&mut b, bo, m3, actor, 2);
    edge(&mut b, j, m3, director, 3);
    for p in [a, bo, c] {
        edge(&mut b, p, s1, actor, 1);
    }
    b.freeze().unwrap()
}

fn run(model: &Model, q: &str) -> Vec<Vec<String>> {
    run_with(model, q, &Params::new(), Semantics::Isomorphism)
}

/// Runs `q` on the host matcher and, where an OpenCL platform exists, also through GEMP's device
/// pipeline with a result buffer of a few rows and at most three work-items per round (so results
/// overflow and resume across many rounds); both must give the same rows (in the same order when
/// the query orders them). Returns the host's rows.
fn run_with(model: &Model, q: &str, params: &Params, semantics: Semantics) -> Vec<Vec<String>> {
    let bound = compile(q, model, params).unwrap_or_else(|e| panic!("{}", e.render(q, None)));
    let options = MatchOptions {
        semantics,
        ..Default::default()
    };
    let host = render(model, &execute(model, &bound, &options).unwrap().rows);
    #[cfg(feature = "opencl")]
    if let Some(gpu) = common::gpu("queries (device half)") {
        use gemp::engines::gemp::device::{DeviceConfig, DeviceMatcher};
        let config = DeviceConfig {
            result_buffer_words: 48,
            initial_threads: Some(1),
            max_threads: 3,
            ..Default::default()
        };
        let device = DeviceMatcher::new(gpu, model, config).unwrap();
        let mut on_device = render(model, &device.execute(&bound, &options).unwrap().rows);
        let mut expected = host.clone();
        if !q.contains("ORDER BY") {
            on_device.sort();
            expected.sort();
        }
        assert_eq!(on_device, expected, "device and host differ on {q}");
    }
    host
}

/// Rows as strings; nodes by key.
fn render(model: &Model, rows: &[Vec<Val<'_>>]) -> Vec<Vec<String>> {
    rows.iter()
        .map(|r| {
            r.iter()
                .map(|v| match v {
                    Val::Node(n) => model.node_key(*n).unwrap().to_owned(),
                    other => other.to_string(),
                })
                .collect()
        })
        .collect()
}

fn rows(v: &[&[&str]]) -> Vec<Vec<String>> {
    v.iter()
        .map(|r| r.iter().map(|s| s.to_string()).collect())
        .collect()
}

#[test]
fn four_actors_with_jack() {
    let m = movies();
    // m1 has actors j,a,b,c: a1=Jack, {a2,a3,a4} = {a,b,c} in id order -> one row.
    // m2 has actors j,a,b only (Dora is ACTRESS): no row.
    let q = "MATCH (a1:Person)-[:ACTOR]->(m:Movie)<-[:ACTOR]-(a2:Person),
                   (a3:Person)-[:ACTOR]->(m)<-[:ACTOR]-(a4:Person)
             WHERE a1.primaryName CONTAINS 'Jack' AND id(a2) < id(a3) AND id(a3) < id(a4)
             RETURN m.primaryTitle, a1.primaryName, a2.primaryName, a3.primaryName, a4.primaryName";
    assert_eq!(
        run(&m, q),
        rows(&[&["Alpha", "Jack Black", "Anna", "Bob", "Carl"]])
    );
    let count = "MATCH (a1:Person)-[:ACTOR]->(m:Movie)<-[:ACTOR]-(a2:Person),
                   (a3:Person)-[:ACTOR]->(m)<-[:ACTOR]-(a4:Person)
             WHERE a1.primaryName CONTAINS 'Jack' AND id(a2) < id(a3) AND id(a3) < id(a4)
             RETURN count(*)";
    assert_eq!(run(&m, count), rows(&[&["1"]]));
}

#[test]
fn empty_result_is_not_an_error() {
    let m = movies();
    assert_eq!(
        run(&m, "MATCH (p:Person)-[:DIRECTOR]->(s:TvSeries) RETURN p"),
        Vec::<Vec<String>>::new()
    );
    assert_eq!(
        run(
            &m,
            "MATCH (p:Person) WHERE p.primaryName = 'Nobody' RETURN count(*)"
        ),
        rows(&[&["0"]])
    );
    assert_eq!(
        run(
            &m,
            "MATCH (p:Person) WHERE 1 = 2 RETURN p.primaryName, count(*)"
        ),
        Vec::<Vec<String>>::new()
    );
}

#[test]
fn overlapping_matches_are_all_reported() {
    let m = movies();
    // Pairs of co-actors (ACTOR only) in m1: 4 actors -> 12 ordered pairs; m2: 3 -> 6; m3: 2 -> 2;
    // s1 is not a Movie. Overlapping matches share nodes and edges; each is reported once.
    assert_eq!(
        run(
            &m,
            "MATCH (x:Person)-[:ACTOR]->(t:Movie)<-[:ACTOR]-(y:Person) RETURN count(*)"
        ),
        rows(&[&["20"]])
    );
    // Homomorphic matching adds x = y: + (4 + 3 + 2).
    assert_eq!(
        run_with(
            &m,
            "MATCH (x:Person)-[:ACTOR]->(t:Movie)<-[:ACTOR]-(y:Person) RETURN count(*)",
            &Params::new(),
            Semantics::Homomorphism
        ),
        rows(&[&["29"]])
    );
}

#[test]
fn label_alternatives_types_directions() {
    let m = movies();
    let q = "MATCH (p:Person)-[:ACTOR|ACTRESS]->(:Movie {primaryTitle: 'Beta'}) RETURN p.primaryName ORDER BY p.primaryName";
    assert_eq!(
        run(&m, q),
        rows(&[&["Anna"], &["Bob"], &["Dora"], &["Jack Black"]])
    );
    let q = "MATCH (t:Movie|TvSeries)<-[:ACTOR]-(:Person {primaryName: 'Carl'}) RETURN t.primaryTitle ORDER BY t.primaryTitle";
    assert_eq!(run(&m, q), rows(&[&["Alpha"], &["Delta"]]));
    // Undirected and untyped: Eve is connected to m1 and m2 only.
    let q =
        "MATCH (e:Person {primaryName: 'Eve'})--(t) RETURN t.primaryTitle ORDER BY t.primaryTitle";
    assert_eq!(run(&m, q), rows(&[&["Alpha"], &["Beta"]]));
    let q = "MATCH (t:Title {primaryTitle: 'Gamma'})<--(p) RETURN count(p)";
    assert_eq!(run(&m, q), rows(&[&["3"]]));
    // A repeated type does not multiply the edges of a named relationship.
    let once = run(&m, "MATCH (p)-[r:ACTOR]->(t) RETURN count(r)");
    assert_eq!(
        run(&m, "MATCH (p)-[r:ACTOR|ACTOR]->(t) RETURN count(r)"),
        once
    );
}

#[test]
fn where_operators() {
    let m = movies();
    let titles = |q: &str| {
        run(&m, q)
            .into_iter()
            .map(|r| r[0].clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(titles("MATCH (t:Movie) WHERE t.startYear >= 2005 RETURN t.primaryTitle ORDER BY t.primaryTitle"), ["Beta", "Gamma"]);
    assert_eq!(
        titles("MATCH (t:Movie) WHERE t.averageRating IS NULL RETURN t.primaryTitle"),
        ["Gamma"]
    );
    assert_eq!(titles("MATCH (t:Movie) WHERE t.averageRating IS NOT NULL AND NOT t.averageRating < 7 RETURN t.primaryTitle"), ["Alpha"]);
    assert_eq!(titles("MATCH (t:Title) WHERE t.primaryTitle STARTS WITH 'G' OR t.primaryTitle ENDS WITH 'ta' RETURN t.primaryTitle ORDER BY t.primaryTitle"), ["Beta", "Delta", "Gamma"]);
    assert_eq!(titles("MATCH (t:Title) WHERE t.primaryTitle =~ '[AB].*a' RETURN t.primaryTitle ORDER BY t.primaryTitle"), ["Alpha", "Beta"]);
    // =~ matches the whole string.
    assert_eq!(
        titles("MATCH (t:Title) WHERE t.primaryTitle =~ 'lph' RETURN t.primaryTitle"),
        Vec::<String>::new()
    );
    assert_eq!(titles("MATCH (t:Title) WHERE t.startYear IN [1999, 2010] RETURN t.primaryTitle ORDER BY t.primaryTitle"), ["Alpha", "Gamma"]);
    assert_eq!(titles("MATCH (t:Title) WHERE (t.startYear > 2000) XOR (t.averageRating > 6.5) RETURN t.primaryTitle ORDER BY t.primaryTitle"), ["Alpha", "Beta"]);
    // Null comparisons are not true: Gamma (no rating) is in neither.
    assert_eq!(titles("MATCH (t:Movie) WHERE t.averageRating > 0 OR t.averageRating <= 0 RETURN t.primaryTitle ORDER BY t.primaryTitle"), ["Alpha", "Beta"]);
    // Relationship properties.
    assert_eq!(
        titles("MATCH (p:Person)-[r:ACTOR]->(t:Movie) WHERE r.ordering = 4 RETURN p.primaryName"),
        ["Carl"]
    );
    // Ordering 1: Jack in m1 and m2, Anna in m3, and Anna, Bob and Carl in s1.
    assert_eq!(titles("MATCH (p:Person)-[r:ACTOR {ordering: 1}]->(t:Title) RETURN t.primaryTitle ORDER BY t.primaryTitle"), ["Alpha", "Beta", "Delta", "Delta", "Delta", "Gamma"]);
    assert_eq!(titles("MATCH (p:Person)-[r:ACTOR {ordering: 1}]->(t:Title) RETURN DISTINCT t.primaryTitle ORDER BY t.primaryTitle"), ["Alpha", "Beta", "Delta", "Gamma"]);
}

#[test]
fn negative_and_positive_application_conditions() {
    let m = movies();
    // Directors who do not act in the movie they direct: Eve (m1, m2), Jack (m3); Anna acts in m2.
    let q = "MATCH (d:Person)-[:DIRECTOR]->(t:Movie) WHERE NOT (d)-[:ACTOR|ACTRESS]->(t)
             RETURN d.primaryName, t.primaryTitle ORDER BY d.primaryName, t.primaryTitle";
    assert_eq!(
        run(&m, q),
        rows(&[
            &["Eve", "Alpha"],
            &["Eve", "Beta"],
            &["Jack Black", "Gamma"]
        ])
    );
    // Directors who never acted anywhere: Eve only.
    let q = "MATCH (d:Person)-[:DIRECTOR]->(:Movie) WHERE NOT EXISTS { MATCH (d)-[:ACTOR|ACTRESS]->(:Title) }
             RETURN DISTINCT d.primaryName";
    assert_eq!(run(&m, q), rows(&[&["Eve"]]));
    // Positive EXISTS with a WHERE inside: actors of a TV series made after 2000.
    let q = "MATCH (p:Person) WHERE EXISTS { MATCH (p)-[:ACTOR]->(s:TvSeries) WHERE s.startYear > 2000 }
             RETURN p.primaryName ORDER BY p.primaryName";
    assert_eq!(run(&m, q), rows(&[&["Anna"], &["Bob"], &["Carl"]]));
}

#[test]
fn aggregation_with_and_paging() {
    let m = movies();
    // Couples sharing >= 2 titles (ACTOR|ACTRESS): a-b share m1,m2,m3,s1 = 4; j-a m1,m2 = 2;
    // j-b 2; a-c m1,s1 = 2; b-c 2; j-c 1; d-* 1.
    let q = "MATCH (p1:Person)-[:ACTOR|ACTRESS]->(t:Title)<-[:ACTOR|ACTRESS]-(p2:Person)
             WHERE p1.primaryName < p2.primaryName
             WITH p1, p2, count(t) AS shared WHERE shared >= 2
             RETURN p1.primaryName, p2.primaryName, shared ORDER BY shared DESC, p1.primaryName, p2.primaryName";
    assert_eq!(
        run(&m, q),
        rows(&[
            &["Anna", "Bob", "4"],
            &["Anna", "Carl", "2"],
            &["Anna", "Jack Black", "2"],
            &["Bob", "Carl", "2"],
            &["Bob", "Jack Black", "2"]
        ])
    );
    let q = "MATCH (p:Person)-[r:ACTOR|ACTRESS]->(t:Title)
             RETURN p.primaryName AS name, count(t) AS n, min(t.startYear) AS first, max(t.startYear) AS last,
                    avg(r.ordering) AS avg_order, sum(t.averageRating) AS rating_sum
             ORDER BY n DESC, name SKIP 1 LIMIT 2";
    // Anna and Bob act in m1, m2, m3, s1 (4 each); Carl (m1, s1) and Jack (m1, m2) in 2; ties by name.
    // SKIP 1 drops Anna. Bob: orderings 3, 3, 2, 1 -> 2.25; ratings 8.5 + 6.0 + 7.0 (m3 has none).
    // Carl: orderings 4, 1 -> 2.5; ratings 8.5 + 7.0.
    assert_eq!(
        run(&m, q),
        rows(&[
            &["Bob", "4", "1999", "2010", "2.25", "21.5"],
            &["Carl", "2", "1999", "2001", "2.5", "15.5"]
        ])
    );
    assert_eq!(
        run(
            &m,
            "MATCH (p:Person)-[:ACTOR]->(t) RETURN count(DISTINCT p), count(*)"
        ),
        rows(&[&["4", "12"]])
    );
    assert_eq!(
        run(
            &m,
            "MATCH (t:Movie) RETURN DISTINCT t.startYear > 2000 AS recent ORDER BY recent"
        ),
        rows(&[&["false"], &["true"]])
    );
}

#[test]
fn parameters_ids_and_default_return() {
    let m = movies();
    let mut p = Params::new();
    p.insert("year".into(), Value::Int(2001).into());
    p.insert("names".into(), Value::Str("Anna".into()).into());
    let q = "MATCH (t:Title) WHERE t.startYear >= $year RETURN t.primaryTitle ORDER BY t.primaryTitle LIMIT $lim";
    p.insert("lim".into(), Value::Int(2).into());
    assert_eq!(
        run_with(&m, q, &p, Semantics::Isomorphism),
        rows(&[&["Beta"], &["Delta"]])
    );
    let q = "MATCH (x:Person {primaryName: $names}) RETURN id(x) = id(x), labels(x)";
    assert_eq!(
        run_with(&m, q, &p, Semantics::Isomorphism),
        rows(&[&["true", "[Person]"]])
    );
    // No RETURN: every match as its bound nodes.
    let q = "MATCH (d:Person)-[:DIRECTOR]->(t:Movie {primaryTitle: 'Gamma'})";
    let ids = |k: &str| m.node_by_key(k).unwrap().to_string();
    assert_eq!(run(&m, q), vec![vec![ids("j"), ids("m3")]]);
    let q =
        "MATCH (p:Person)-[r]->(t:Movie {primaryTitle: 'Gamma'}) RETURN type(r) ORDER BY type(r)";
    assert_eq!(run(&m, q), rows(&[&["ACTOR"], &["ACTOR"], &["DIRECTOR"]]));
}

#[test]
fn error_handling() {
    let m = movies();
    let err = |q: &str| compile(q, &m, &Params::new()).unwrap_err();
    let e = err("MATCH (p:Persn) RETURN p");
    assert_eq!(e.kind, QueryErrorKind::Semantic);
    assert!(e.message.contains("unknown label `Persn`"), "{}", e.message);
    assert!(
        e.help.as_deref().unwrap_or("").contains("`Person`"),
        "{:?}",
        e.help
    );
    let rendered = e.render("MATCH (p:Persn) RETURN p", Some("q.cypher"));
    assert!(rendered.contains("q.cypher:1:10"), "{rendered}");
    let e = err("MATCH (p)-[:ACTRO]->(t) RETURN p");
    assert!(
        e.message.contains("unknown relationship type `ACTRO`")
            && e.help.unwrap().contains("ACTOR")
    );
    let e = err("MATCH (p:Person) RETURN p.primaryNme");
    assert!(
        e.message.contains("unknown node property `primaryNme`")
            && e.help.unwrap().contains("primaryName")
    );
    let e = err("MATCH (p:Person) RETURN q");
    assert!(e.message.contains("variable `q` is not defined"));
    let e = err("MATCH (p:Person) WHERE p.startYear > $y RETURN p");
    assert!(e.message.contains("$y") && e.help.unwrap().contains("--param y="));
    let e = err("MATCH (p:Person) WHERE p.primaryName =~ '(' RETURN p");
    assert!(e.message.contains("invalid regular expression"));
    let e = err("MATCH (p:Person)-[:ACTOR*1..33]->(t) RETURN p");
    assert!(e.message.contains("0 <= min <= max <= 32"), "{}", e.message);
    let e = err("MATCH (p:Person) CALL db.labels() RETURN p");
    assert_eq!(e.kind, QueryErrorKind::Unsupported);
    let e = err("MATCH (p:Person) WHERE count(*) > 1 RETURN p");
    assert!(e.message.contains("only allowed in WITH and RETURN"));
    let e = err("MATCH (p:Person) RETURN percentileCont(p.primaryName, 0.5) + 1");
    assert_eq!(e.kind, QueryErrorKind::Unsupported);
    let e = err("MATCH (p:Person RETURN p");
    assert_eq!(e.kind, QueryErrorKind::Syntax);
}
