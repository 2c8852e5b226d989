//! Errors: unsupported Cypher, syntax error positions, rendering, nesting limits.

use super::*;
use crate::pattern::parser::MAX_DEPTH;

/// Asserts `src` fails as unsupported, naming `what`, and returns the error.
#[track_caller]
fn unsupported(src: &str, what: &str) -> QueryError {
    let e = parse_err_kind(src, QueryErrorKind::Unsupported);
    assert_eq!(
        e.message,
        format!("unsupported: {what} is not supported by gemp (see docs/query-language.md)"),
        "{src:?}"
    );
    e
}

/// Asserts `src` fails with a syntax error at `line:column` whose message contains `needle`.
#[track_caller]
fn syntax_at(src: &str, line: u32, column: u32, needle: &str) -> QueryError {
    let e = parse_err_kind(src, QueryErrorKind::Syntax);
    let span = e.span.expect("a span");
    assert_eq!((span.line, span.column), (line, column), "{src:?}: {e}");
    assert!(e.message.contains(needle), "{src:?}: {e}");
    e
}

#[test]
fn writing_clauses_are_unsupported() {
    unsupported("CREATE (n:Person)", "CREATE");
    unsupported("MATCH (n) SET n.x = 1", "SET");
    unsupported("MATCH (n) DELETE n", "DELETE");
    unsupported("MATCH (n) DETACH DELETE n", "DETACH DELETE");
    unsupported("MERGE (n:Person {name: 'x'})", "MERGE");
    unsupported("MATCH (n) WHERE n.x = 1 REMOVE n.x", "REMOVE");
    unsupported("MATCH (n) WITH n CREATE (m)", "CREATE");
    unsupported("MATCH (n) RETURN n SET n.x = 1", "SET");
    unsupported("MATCH (n) FOREACH (x IN [1] | SET n.x = x)", "FOREACH");
}

#[test]
fn reading_features_outside_the_subset_are_unsupported() {
    let e = unsupported("CALL db.labels()", "CALL");
    assert_eq!(e.span.map(|s| (s.start, s.end)), Some((0, 4)));
    unsupported("MATCH (a) CALL { MATCH (b) RETURN b } RETURN a", "CALL");
    unsupported(
        "LOAD CSV FROM 'file:///x.csv' AS row RETURN row",
        "LOAD CSV",
    );
    unsupported(
        "MATCH (a) WITH a MATCH (a)-->(b) RETURN b",
        "MATCH after WITH",
    );
}

#[test]
fn unsupported_patterns() {
    unsupported(
        "MATCH p = shortestPath((a)-[*]-(b)) RETURN p",
        "`shortestPath`",
    );
    unsupported("MATCH shortestPath((a)-->(b)) RETURN a", "`shortestPath`");
    unsupported(
        "MATCH (a), (b) RETURN allShortestPaths((a)-->(b))",
        "`allShortestPaths`",
    );
    unsupported(
        "MATCH (n $props) RETURN n",
        "a parameter as a property map in a pattern",
    );
}

const COMPREHENSION: &str = "a list comprehension, pattern comprehension or list predicate";

#[test]
fn unsupported_expressions() {
    // Pattern comprehensions are still refused (list comprehensions and predicates parse).
    unsupported("MATCH (a) RETURN [(a)-->(b) | b.name]", COMPREHENSION);
    unsupported(
        "MATCH (a:Person WHERE a.age > 30) RETURN a",
        "WHERE inside a node or relationship pattern",
    );
    unsupported(
        "MATCH (a)-[r:T WHERE r.x > 1]->(b) RETURN a",
        "WHERE inside a node or relationship pattern",
    );
    unsupported(
        "MATCH (a) WHERE COUNT { (a)-->() } > 1 RETURN a",
        "a COUNT { ... } or COLLECT { ... } subquery",
    );
    unsupported(
        "MATCH (a) RETURN apoc.coll.sum(a.xs)",
        "a namespaced or user-defined function",
    );
}

#[test]
fn syntax_error_positions() {
    syntax_at(
        "MATCH (a:Person-[:ACTOR]->(m)",
        1,
        16,
        "expected ')' after node pattern, found `-`",
    );
    syntax_at(
        "MATCH (a)\nWHERE a.x =\nRETURN a",
        3,
        1,
        "expected an expression, found keyword `RETURN`",
    );
    syntax_at(
        "// header\nMATCH (a)\n  RETURN a.name AS",
        3,
        19,
        "expected a column name after AS, found end of input",
    );
    syntax_at(
        "MATCH (a)\n\tWHERE a.x = 'abc",
        2,
        14,
        "unterminated string literal",
    );
    syntax_at("MATCH (a) WHERE a.x # 1", 1, 21, "unexpected character `#`");
    syntax_at("CASE", 1, 1, "expected MATCH, found keyword `CASE`");
    syntax_at("", 1, 1, "expected MATCH, found end of input");
    syntax_at(
        "  // only a comment\n",
        1,
        1,
        "expected MATCH, found end of input",
    );
    syntax_at(
        "MATCH (a) RETURN a b",
        1,
        20,
        "expected end of query, found identifier `b`",
    );
    syntax_at(
        "MATCH (a)-[:A:B]->(b)",
        1,
        14,
        "a relationship has exactly one type",
    );
    syntax_at(
        "MATCH (a)-(b)",
        1,
        11,
        "expected '-' or '[' in relationship pattern",
    );
    syntax_at("MATCH (a)-[r]>(b)", 1, 14, "expected '-' after ']'");
    syntax_at("MATCH (a)-[]>(b)", 1, 13, "expected '-' after ']'");
    syntax_at(
        "MATCH (a) RETURN a; MATCH (b)",
        1,
        21,
        "expected end of input after `;`",
    );
    syntax_at("MATCH (a) WHERE a.x = NOT a.y", 1, 23, "NOT cannot appear");
    syntax_at(
        "MATCH (a) RETURN a LIMIT -1",
        1,
        26,
        "expected a non-negative integer",
    );
    syntax_at(
        "MATCH (a) RETURN a ORDER a",
        1,
        26,
        "expected BY after ORDER",
    );
    syntax_at(
        "MATCH (a) WHERE a.x STARTS 'b'",
        1,
        28,
        "expected WITH after STARTS",
    );
    syntax_at(
        "MATCH (a) WHERE a.x IS 1",
        1,
        24,
        "expected NULL or NOT after IS",
    );
    syntax_at("MATCH (a {x 1})", 1, 13, "expected ':' after property key");
    syntax_at(
        "MATCH (a) RETURN f(1",
        1,
        21,
        "expected ',' or ')' in function call",
    );
    syntax_at(
        "MATCH (a) WHERE EXISTS { (a) LIMIT 1 }",
        1,
        30,
        "expected '}'",
    );
    // A clause keyword where gemp does not take it is a refusal, not a syntax error.
    let e = parse_err_kind(
        "MATCH (a) WHERE EXISTS { (a) RETURN a }",
        QueryErrorKind::Unsupported,
    );
    assert_eq!((e.span.unwrap().line, e.span.unwrap().column), (1, 30));
    assert_eq!(e.class, None);
    syntax_at(
        "MATCH (a) RETURN 9223372036854775808",
        1,
        18,
        "does not fit in 64 bits",
    );
    syntax_at(
        "MATCH (a) RETURN 12abc",
        1,
        18,
        "invalid number literal `12abc`",
    );
    syntax_at("MATCH (a) RETURN 1e999", 1, 18, "out of range");
    syntax_at(
        r"MATCH (a) RETURN 'a\qb'",
        1,
        20,
        r"unknown escape sequence `\q`",
    );
    syntax_at(r"MATCH (a) RETURN '\u12'", 1, 19, "invalid unicode escape");
    syntax_at(
        r"MATCH (a) RETURN '\uD800'",
        1,
        19,
        "invalid unicode escape",
    );
    syntax_at(
        "MATCH (a) RETURN `unterminated",
        1,
        18,
        "unterminated quoted name",
    );
    syntax_at(
        "MATCH (a) /* never closed",
        1,
        11,
        "unterminated block comment",
    );
    syntax_at("MATCH (a) RETURN $", 1, 18, "expected a parameter name");
}

#[test]
fn earlier_parse_errors_win_over_later_lexical_errors() {
    syntax_at(
        "MATCH (a RETURN 'unterminated",
        1,
        10,
        "expected ')' after node pattern",
    );
    syntax_at(
        "MATCH (a) RETURN a.x, 'unterminated",
        1,
        23,
        "unterminated string",
    );
}

#[test]
fn reserved_words_as_names_get_a_hint() {
    let e = syntax_at("MATCH (end) RETURN 1", 1, 8, "found keyword `END`");
    assert!(e.help.as_deref().unwrap_or("").contains("`end`"), "{e:?}");
    let e = syntax_at(
        "MATCH (a) RETURN a AS order",
        1,
        23,
        "expected a column name after AS",
    );
    assert!(e.help.as_deref().unwrap_or("").contains("`order`"), "{e:?}");
    syntax_at("MATCH (a)-[desc]->(b)", 1, 12, "found keyword `DESC`");
}

#[test]
fn render_puts_the_caret_under_the_offending_token() {
    let src = "// find actors\nMATCH (m:Movie)\nMATCH (a:Person-[:ACTOR]->(m)\nRETURN a";
    let e = parse_err(src);
    assert_eq!(
        e.render(src, Some("query.cypher")),
        "error: expected ')' after node pattern, found `-`
 --> query.cypher:3:16
  |
3 | MATCH (a:Person-[:ACTOR]->(m)
  |                ^"
    );
    assert_eq!(
        e.to_string(),
        "line 3, column 16: expected ')' after node pattern, found `-`"
    );
}

#[test]
fn render_underlines_the_whole_token_and_shows_help() {
    let src = "MATCH (a)\nLOAD CSV FROM 'x' AS row\nRETURN b";
    let e = parse_err(src);
    assert_eq!(
        e.render(src, None),
        "error: unsupported: LOAD CSV is not supported by gemp (see docs/query-language.md)
 --> 2:1
  |
2 | LOAD CSV FROM 'x' AS row
  | ^^^^^^^^
  = help: load data with `gemp` loaders instead"
    );
}

#[test]
fn render_handles_end_of_input_tabs_and_wide_gutters() {
    let src = "MATCH (a)\n\n\n\n\n\n\n\n\nRETURN a.name AS";
    let e = parse_err(src);
    let rendered = e.render(src, Some("q.cypher"));
    assert_eq!(
        rendered,
        "error: expected a column name after AS, found end of input
  --> q.cypher:10:17
   |
10 | RETURN a.name AS
   |                 ^"
    );
    let src = "MATCH (a)\n\tWHERE a.x = 'abc";
    let rendered = parse_err(src).render(src, None);
    assert!(
        rendered.contains("\n2 |     WHERE a.x = 'abc\n  |                 ^\n"),
        "{rendered}"
    );
}

#[test]
fn render_never_panics_on_mismatched_sources() {
    let e = parse_err("MATCH (a)\n\nRETURN a b");
    for src in ["", "x", "ünï\ncödé", "\n\n\n\n\n"] {
        let _ = e.render(src, None);
    }
    let no_span = QueryError {
        span: None,
        ..QueryError::semantic("something is off", None).with_help("fix it")
    };
    assert_eq!(
        no_span.render("", None),
        "error: something is off\nhelp: fix it"
    );
    let wild = QueryError::syntax(
        "wild",
        Span {
            start: 3,
            end: 1,
            line: 900,
            column: u32::MAX,
        },
    );
    assert_eq!(
        wild.render("abc", None),
        "error: wild\n   --> 900:4294967295"
    );
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let deep = 10 * MAX_DEPTH;
    let cases = [
        format!("MATCH (a) WHERE {}a{}", "(".repeat(deep), ")".repeat(deep)),
        format!("MATCH (a) WHERE {}a", "NOT ".repeat(deep)),
        format!("MATCH (a) RETURN {}1", "- ".repeat(deep)),
        format!("MATCH (a) RETURN {}1{}", "[".repeat(deep), "]".repeat(deep)),
        format!(
            "MATCH (a) RETURN {}1{}",
            "f(".repeat(deep),
            ")".repeat(deep)
        ),
        format!("MATCH (a) RETURN a{}", ".b".repeat(deep)),
        format!("MATCH (a) WHERE a{}", " AND a".repeat(deep)),
        format!("MATCH (a) WHERE a{}", " IS NULL".repeat(deep)),
        format!(
            "MATCH (a) WHERE {}(a){}",
            "EXISTS { MATCH (a) WHERE ".repeat(deep),
            " }".repeat(deep)
        ),
        format!("MATCH (a {}", "{x: (b)-->(c ".repeat(deep)),
        format!("MATCH (a) WHERE {}", "(a)-->(b {x: ".repeat(deep)),
        format!("MATCH (a) RETURN {}", "(".repeat(deep * 10)),
    ];
    for src in &cases {
        let e = parse_err(src);
        assert_eq!(e.message, "expression nested too deeply", "{}", &src[..40]);
    }
}

#[test]
fn nesting_up_to_the_limit_is_fine() {
    let depth = MAX_DEPTH - 2;
    let src = format!(
        "MATCH (a) WHERE {}a{}",
        "(".repeat(depth),
        ")".repeat(depth)
    );
    let q = parse(&src);
    // The deepest tree the parser builds can be printed, serialised, compared and dropped.
    assert_eq!(q.to_string(), "MATCH (a)\nWHERE a");
    let src = format!("MATCH (a) RETURN {}a", "- ".repeat(depth));
    let q = parse(&src);
    // Nested negations print parenthesised (`--a` after `(…) <` would read as an arrow).
    assert!(q.to_string().contains("-(-(-a))"), "{q}");
    assert_eq!(shape(&q), shape(&q.clone()));
    parse(&format!(
        "MATCH (a) WHERE a{}",
        " AND a".repeat(MAX_DEPTH / 2)
    ));
    parse(&format!(
        "MATCH (a) WHERE {}a",
        "NOT ".repeat(MAX_DEPTH / 2)
    ));
    let many = format!("MATCH (a) WHERE a.x IN [{}0]", "1, ".repeat(10_000));
    parse(&many);
    let many = format!("MATCH {}(z)", "(a)-->".repeat(10_000));
    assert_eq!(parse(&many).matches[0].rels.len(), 10_000);
}
