//! Node and relationship pattern forms.

use super::*;

/// The single path of `MATCH {pattern}`.
fn single_path(pattern: &str) -> PathPattern {
    let mut q = parse(&format!("MATCH {pattern}"));
    assert_eq!(q.matches.len(), 1);
    q.matches.remove(0)
}

/// The single node of `MATCH {pattern}`.
fn single_node(pattern: &str) -> NodePattern {
    let mut p = single_path(pattern);
    assert!(p.rels.is_empty());
    p.nodes.remove(0)
}

/// The relationship of `MATCH (a){rel}(b)`.
fn single_rel(rel: &str) -> RelPattern {
    let mut p = single_path(&format!("(a){rel}(b)"));
    assert_eq!(p.nodes.len(), 2);
    p.rels.remove(0)
}

#[test]
fn node_forms() {
    assert_same(&single_node("(v)"), &node("v", &[]));
    assert_same(&single_node("()"), &node("", &[]));
    assert_same(&single_node("(:Person)"), &node("", &["Person"]));
    assert_same(&single_node("(v:Person)"), &node("v", &["Person"]));
    assert_same(
        &single_node("(v:Person|Movie)"),
        &node("v", &["Person", "Movie"]),
    );
    assert_same(
        &single_node("(v:Person|:Movie)"),
        &node("v", &["Person", "Movie"]),
    );
    assert_same(
        &single_node("(v:A:B)"),
        &NodePattern {
            labels: labels(&[&["A"], &["B"]]),
            ..node("v", &[])
        },
    );
    assert_same(
        &single_node("(v:A|B:C)"),
        &NodePattern {
            labels: labels(&[&["A", "B"], &["C"]]),
            ..node("v", &[])
        },
    );
}

#[test]
fn node_properties() {
    let expected = NodePattern {
        props: props(vec![
            ("name", string("Tom")),
            ("born", int(1956)),
            ("score", float(-0.5)),
            ("alive", boolean(true)),
            ("nick", null()),
            ("id", param("id")),
            ("tags", list(vec![int(1), string("a")])),
        ]),
        has_map: true,
        ..node("v", &["Person"])
    };
    assert_same(
        &single_node(
            "(v:Person {name: 'Tom', born: 1956, score: -0.5, alive: true, nick: null, \
             id: $id, tags: [1, 'a']})",
        ),
        &expected,
    );
    assert_same(
        &single_node("({x: 1})"),
        &NodePattern {
            props: props(vec![("x", int(1))]),
            has_map: true,
            ..node("", &[])
        },
    );
    assert_same(
        &single_node("(v {})"),
        &NodePattern {
            has_map: true,
            ..node("v", &[])
        },
    );
}

#[test]
fn relationship_forms() {
    use Direction::*;
    assert_same(&single_rel("-[:T]->"), &rel("", &["T"], Right));
    assert_same(&single_rel("<-[:T]-"), &rel("", &["T"], Left));
    assert_same(&single_rel("-[:T]-"), &rel("", &["T"], Both));
    assert_same(&single_rel("-->"), &rel("", &[], Right));
    assert_same(&single_rel("<--"), &rel("", &[], Left));
    assert_same(&single_rel("--"), &rel("", &[], Both));
    assert_same(&single_rel("<-->"), &rel("", &[], Both));
    assert_same(&single_rel("-[]->"), &rel("", &[], Right));
    assert_same(&single_rel("-[r]->"), &rel("r", &[], Right));
    assert_same(&single_rel("<-[r]-"), &rel("r", &[], Left));
    assert_same(&single_rel("-[r:T1|T2]->"), &rel("r", &["T1", "T2"], Right));
    assert_same(
        &single_rel("-[r:T1|:T2|T3]-"),
        &rel("r", &["T1", "T2", "T3"], Both),
    );
    assert_same(&single_rel("- [ r : T ] - >"), &rel("r", &["T"], Right));
    assert_same(
        &single_rel("-[r:T1|T2 {since: 1999, w: $w}]->"),
        &RelPattern {
            props: props(vec![("since", int(1999)), ("w", param("w"))]),
            ..rel("r", &["T1", "T2"], Right)
        },
    );
    assert_same(
        &single_rel("<-[{x: 'y'}]-"),
        &RelPattern {
            props: props(vec![("x", string("y"))]),
            ..rel("", &[], Left)
        },
    );
}

#[test]
fn long_paths_and_several_paths() {
    let q = parse("MATCH (a)-[:X]->(b)<-[:Y]-(c)--(d)-->(e), (f)<--(a)");
    assert_same(
        &q.matches,
        &vec![
            path(
                vec![
                    node("a", &[]),
                    node("b", &[]),
                    node("c", &[]),
                    node("d", &[]),
                    node("e", &[]),
                ],
                vec![
                    rel("", &["X"], Direction::Right),
                    rel("", &["Y"], Direction::Left),
                    rel("", &[], Direction::Both),
                    rel("", &[], Direction::Right),
                ],
            ),
            path(
                vec![node("f", &[]), node("a", &[])],
                vec![rel("", &[], Direction::Left)],
            ),
        ],
    );
}

#[test]
fn pattern_spans() {
    let src = "MATCH (a:Person)-[r:KNOWS]->(b),\n      (c)";
    let q = parse(src);
    let text = |s: Span| &src[s.start..s.end];
    let p = &q.matches[0];
    assert_eq!(text(p.span), "(a:Person)-[r:KNOWS]->(b)");
    assert_eq!(text(p.nodes[0].span), "(a:Person)");
    assert_eq!(text(p.nodes[0].labels.all_of[0][0].span), "Person");
    assert_eq!(text(p.rels[0].span), "-[r:KNOWS]->");
    assert_eq!(text(p.rels[0].types[0].span), "KNOWS");
    assert_eq!(text(p.nodes[1].span), "(b)");
    let c = &q.matches[1].nodes[0];
    assert_eq!((c.span.line, c.span.column), (2, 7));
    assert_eq!(text(c.var.as_ref().expect("var").span), "c");
}

#[test]
fn named_paths_keep_their_variable_and_print_it() {
    let p = single_path("p = (a)-->(b)");
    assert_eq!(p.name.as_ref().map(|n| n.name.as_str()), Some("p"));
    assert_eq!((p.nodes.len(), p.rels.len()), (2, 1));
    assert_eq!(p.to_string(), "p = (a)-->(b)");
    assert_eq!(single_path("(a)-->(b)").name, None);
}
