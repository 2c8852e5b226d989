//! Property tests: the parser never panics, and whatever it accepts prints back to the same tree.

use proptest::prelude::*;

use super::roundtrip::CORPUS;
use super::*;

/// Fragments that random "token soups" are made of: keywords, punctuation, names and literals.
const FRAGMENTS: &[&str] = &[
    "MATCH",
    "OPTIONAL",
    "WHERE",
    "WITH",
    "RETURN",
    "DISTINCT",
    "AS",
    "ORDER",
    "BY",
    "ASC",
    "DESC",
    "SKIP",
    "LIMIT",
    "AND",
    "OR",
    "XOR",
    "NOT",
    "IN",
    "IS",
    "NULL",
    "TRUE",
    "false",
    "CONTAINS",
    "STARTS",
    "ENDS",
    "EXISTS",
    "CREATE",
    "SET",
    "DELETE",
    "UNION",
    "CALL",
    "UNWIND",
    "CASE",
    "END",
    "count",
    "id",
    "shortestPath",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ",",
    ".",
    ":",
    "|",
    ";",
    "=",
    "<>",
    "!=",
    "<",
    "<=",
    ">",
    ">=",
    "=~",
    "+",
    "-",
    "*",
    "/",
    "%",
    "->",
    "<-",
    "-->",
    "<--",
    "--",
    "..",
    "a",
    "b",
    "r",
    "Person",
    ":KNOWS",
    "`q n`",
    "$p",
    "$1",
    "0",
    "1",
    "42",
    "0x1f",
    "1.5",
    ".5",
    "1e3",
    "'s'",
    "\"d\"",
    "'\\n'",
    "//c\n",
    "/*c*/",
    "\n",
    "\t",
    "(a)",
    "(b:L)",
    "-[:T]->",
    "<-[r]-",
    "{x: 1}",
    "count(*)",
    "id(a)",
    "a.x",
    "9223372036854775808",
    "'",
    "`",
    "$",
    "/*",
];

fn token_soup() -> impl Strategy<Value = String> {
    (
        any::<bool>(),
        prop::collection::vec(prop::sample::select(FRAGMENTS), 0..40),
        prop::sample::select(&["", " ", "  "][..]),
    )
        .prop_map(|(start_with_match, tokens, separator)| {
            let body = tokens.join(separator);
            if start_with_match {
                format!("MATCH {body}")
            } else {
                body
            }
        })
}

/// A corpus query with a random slice of it replaced by random fragments.
fn mutated_query() -> impl Strategy<Value = String> {
    (
        prop::sample::select(CORPUS),
        any::<prop::sample::Index>(),
        0usize..12,
        prop::collection::vec(prop::sample::select(FRAGMENTS), 0..4),
    )
        .prop_map(|(query, at, removed, inserted)| {
            let chars: Vec<char> = query.chars().collect();
            let at = at.index(chars.len() + 1);
            let end = (at + removed).min(chars.len());
            let mut out: String = chars[..at].iter().collect();
            out.push_str(&inserted.join(" "));
            out.extend(&chars[end..]);
            out
        })
}

/// Parses `src`; an accepted query must print back to the same tree, a rejected one must render.
fn check(src: &str) -> Result<(), TestCaseError> {
    match parse_query(src) {
        Ok(query) => {
            let printed = query.to_string();
            let reparsed = parse_query(&printed).map_err(|e| {
                TestCaseError::fail(format!(
                    "{src:?} printed as {printed:?} does not parse: {e}"
                ))
            })?;
            prop_assert_eq!(
                shape(&query),
                shape(&reparsed),
                "{:?} printed as {:?}",
                src,
                printed
            );
        }
        Err(e) => {
            let rendered = e.render(src, Some("fuzz.cypher"));
            prop_assert!(rendered.starts_with("error: "));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn arbitrary_strings_never_panic(src in any::<String>()) {
        check(&src)?;
    }

    #[test]
    fn cypher_like_characters_never_panic(
        src in "[()\\[\\]{}:|,.;<>=~!$'\"`a-zA-Z0-9_ \n\t*/+%-]{0,120}"
    ) {
        check(&src)?;
    }

    #[test]
    fn token_soups_never_panic(src in token_soup()) {
        check(&src)?;
    }

    #[test]
    fn mutated_queries_never_panic(src in mutated_query()) {
        check(&src)?;
    }
}
