//! Rule files: statements with updating clauses.

use crate::pattern::ast::{RemoveItem, SetItem, UpdateKind};
use crate::pattern::error::QueryErrorKind;
use crate::pattern::parser::parse_rules;

#[test]
fn every_updating_clause_parses() {
    let src = "MATCH (a:A)-[r:T]->(b) WHERE a.x > 1\n\
               CREATE (a)-[:U {w: 2}]->(c:C:D {name: 'c'})\n\
               SET a.x = a.x + 1, b:B:E, b += {k: 1, l: 'x'}\n\
               REMOVE a.y, b:F\n\
               DELETE r\n\
               DETACH DELETE b;\n\
               MERGE (s:Sensor {name: 'x'});\n\
               MATCH (a:A) WITH a, count(*) AS n WHERE n > 1 SET a.n = n;";
    let rules = parse_rules(src).unwrap_or_else(|e| panic!("{}", e.render(src, None)));
    assert_eq!(rules.len(), 3);
    let kinds: Vec<&UpdateKind> = rules[0].updates.iter().map(|u| &u.kind).collect();
    assert!(matches!(kinds[0], UpdateKind::Create(p) if p.len() == 1 && p[0].nodes.len() == 2));
    match kinds[1] {
        UpdateKind::Set(items) => {
            assert!(
                matches!(&items[0], SetItem::Property { var, key, .. } if var.name == "a" && key.name == "x")
            );
            assert!(matches!(&items[1], SetItem::Labels { labels, .. } if labels.len() == 2));
            assert!(matches!(&items[2], SetItem::MergeMap { entries, .. } if entries.len() == 2));
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(kinds[2], UpdateKind::Remove(items)
        if matches!(&items[0], RemoveItem::Property { .. }) && matches!(&items[1], RemoveItem::Labels { .. })));
    assert!(
        matches!(kinds[3], UpdateKind::Delete { detach: false, targets } if targets[0].name == "r")
    );
    assert!(matches!(kinds[4], UpdateKind::Delete { detach: true, .. }));
    assert!(rules[1].matches.is_empty());
    assert!(matches!(&rules[1].updates[0].kind, UpdateKind::Merge(_)));
    assert_eq!(rules[2].with_clauses.len(), 1);
}

#[test]
fn errors_have_positions() {
    let e = parse_rules("MATCH (n:A)\nRETURN n").unwrap_err();
    assert_eq!(e.kind, QueryErrorKind::Unsupported);
    assert_eq!(e.span.map(|s| (s.line, s.column)), Some((2, 1)));

    let r = parse_rules("MATCH (n:A) SET n = {x: 1}, n += $m MERGE (b:B) ON CREATE SET b.c = 1 ON MATCH SET b.m = 1 RETURN n").unwrap();
    assert!(matches!(&r[0].updates[0].kind, UpdateKind::Set(items)
        if matches!(&items[0], SetItem::Map { replace: true, .. }) && matches!(&items[1], SetItem::Map { replace: false, .. })));
    assert!(matches!(&r[0].updates[2].kind, UpdateKind::OnCreate(_)));
    assert!(matches!(&r[0].updates[3].kind, UpdateKind::OnMatch(_)));
    assert!(r[0].tail.is_some());

    let e = parse_rules("MATCH (n:A) SET n.x 1").unwrap_err();
    assert_eq!(e.kind, QueryErrorKind::Syntax);
    assert_eq!(e.span.map(|s| s.column), Some(21));

    let e = parse_rules("MATCH (n:A) DETACH n").unwrap_err();
    assert!(e.message.contains("DELETE after DETACH"), "{e}");

    let e = parse_rules("MATCH (n:A) SET n.x = 1 MATCH (m) DELETE m").unwrap_err();
    assert_eq!(e.kind, QueryErrorKind::Unsupported);

    let e = parse_rules("MERGE (a)-[:T]->(b) ON DELETE SET a.x = 1").unwrap_err();
    assert_eq!(e.kind, QueryErrorKind::Syntax);
    let e = parse_rules("CREATE (a) WITH a").unwrap_err();
    assert_eq!(e.kind, QueryErrorKind::Unsupported);

    assert!(parse_rules("  ;\n// nothing\n").is_err());
    assert!(parse_rules("MATCH (n) SET n.x = 1 DELETE n.x").is_err());
}

#[test]
fn queries_still_reject_updates() {
    let e = crate::pattern::parse_query("MATCH (a) SET a.x = 1").unwrap_err();
    assert_eq!(e.kind, QueryErrorKind::Unsupported);
    assert!(e.help.unwrap_or_default().contains("gemp transform"));
}

#[test]
fn every_prefix_of_a_rule_file_parses_or_fails_cleanly() {
    let src = "MATCH (a:A)-[r:T]->(b) WHERE a.x > 1 CREATE (a)-[:U {w: 2}]->(c:C {n: 'c'}) \
               SET a.x = -a.x + 1, b:B, b += {k: 1} REMOVE a.y, b:F DELETE r DETACH DELETE b; \
               MERGE (s:S {n: $p}); MATCH (a) WITH a, count(*) AS n WHERE n > 1 MERGE (a)-[:R]->(a)";
    assert!(parse_rules(src).is_ok());
    for (i, _) in src.char_indices() {
        if let Err(e) = parse_rules(&src[..i]) {
            let span = e.span.expect("errors point at the text");
            assert!(span.start <= i, "{i}: {e}");
        }
    }
}
