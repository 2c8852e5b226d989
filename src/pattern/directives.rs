//! Options a query file declares about itself, in `// gemp:` comment lines before the query:
//!
//! ```text
//! // Co-actors, as Neo4j counts them.
//! // gemp: semantics=cypher
//! MATCH (a:Person)-[:ACTOR]->(m)<-[:ACTOR]-(b:Person) RETURN count(*)
//! ```
//!
//! Only the leading lines count: blank lines and `//` comments up to the first other line. A
//! directive line holds `key=value` items separated by spaces or commas (spaces around `=` are
//! allowed); the one key is
//! `semantics` (`isomorphism`, `homomorphism`, `cypher`, alias `relationship-isomorphism`). An
//! unknown key or value, or two different values for one key, is an error naming the line.
//! To the query parser these lines are ordinary comments.
//!
//! ```
//! use gemp::exec::Semantics;
//! use gemp::pattern::directives;
//!
//! let d = directives::parse("// gemp: semantics=cypher\nMATCH (a)-->(b) RETURN count(*)")?;
//! assert_eq!(d.semantics, Some((Semantics::Cypher, 1)));
//! assert!(directives::parse("// gemp: semantics=trails\nMATCH (a)").is_err());
//! # Ok::<(), gemp::Error>(())
//! ```

use crate::error::{Error, Result};
use crate::pattern::semantics::Semantics;

/// What a query file's leading `// gemp:` lines declare.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Directives {
    /// The declared semantics and the (1-based) line that declares it.
    pub semantics: Option<(Semantics, usize)>,
}

/// The prefix of a directive line, after `//` and optional spaces.
const PREFIX: &str = "gemp:";

/// Reads the directives of `source` (see the module documentation). Errors are
/// [`Error::Query`]s starting with `line N:`.
pub fn parse(source: &str) -> Result<Directives> {
    let mut found = Directives::default();
    // A byte-order mark is not part of the first line (the lexer skips it too).
    let source = source.strip_prefix('\u{feff}').unwrap_or(source);
    for (i, line) in source.lines().enumerate() {
        let number = i + 1;
        let text = line.trim();
        if text.is_empty() {
            continue;
        }
        let Some(comment) = text.strip_prefix("//") else {
            break;
        };
        let Some(items) = comment.trim_start().strip_prefix(PREFIX) else {
            continue;
        };
        // Spaces around `=` belong to neither side.
        let items: Vec<&str> = items.split('=').map(str::trim).collect();
        let items = items.join("=");
        for item in items
            .split(|c: char| c.is_whitespace() || c == ',')
            .filter(|s| !s.is_empty())
        {
            let Some((key, value)) = item.split_once('=') else {
                return Err(line_error(
                    number,
                    format!("`{item}` is not `key=value` (e.g. `semantics=cypher`)"),
                ));
            };
            if !key.trim().eq_ignore_ascii_case("semantics") {
                return Err(line_error(
                    number,
                    format!("unknown gemp option `{key}` (the one option is `semantics`)"),
                ));
            }
            let Some(semantics) = Semantics::parse(value) else {
                return Err(line_error(
                    number,
                    format!(
                        "unknown semantics `{value}` (isomorphism, homomorphism, cypher or \
                         relationship-isomorphism)"
                    ),
                ));
            };
            match found.semantics {
                Some((earlier, at)) if earlier != semantics => {
                    return Err(line_error(
                        number,
                        format!(
                            "semantics={semantics} contradicts semantics={earlier} on line {at}"
                        ),
                    ));
                }
                Some(_) => {}
                None => found.semantics = Some((semantics, number)),
            }
        }
    }
    Ok(found)
}

fn line_error(line: usize, message: String) -> Error {
    Error::Query(format!("line {line}: {message}").into())
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_byte_order_mark_does_not_hide_the_first_line() {
        let d = parse("\u{feff}// gemp: semantics=cypher\nMATCH (a) RETURN a").unwrap();
        assert_eq!(d.semantics, Some((Semantics::Cypher, 1)));
    }

    use super::*;

    fn semantics(source: &str) -> Option<(Semantics, usize)> {
        parse(source).unwrap().semantics
    }

    #[test]
    fn leading_comment_lines_declare() {
        assert_eq!(semantics("MATCH (a) RETURN a"), None);
        assert_eq!(
            semantics("\n// about this query\n  //gemp: semantics=cypher\nMATCH (a)"),
            Some((Semantics::Cypher, 3))
        );
        assert_eq!(
            semantics("// gemp: semantics = homomorphism\nMATCH (a)"),
            Some((Semantics::Homomorphism, 1))
        );
        assert_eq!(
            semantics("// GEMP is not the prefix\n// gemp: Semantics=Relationship-Isomorphism"),
            Some((Semantics::Cypher, 2))
        );
        // The same value twice is fine.
        assert_eq!(
            semantics("// gemp: semantics=cypher, semantics=cypher\nMATCH (a)"),
            Some((Semantics::Cypher, 1))
        );
    }

    #[test]
    fn only_the_leading_lines_count() {
        assert_eq!(
            semantics("MATCH (a)\n// gemp: semantics=cypher\nRETURN a"),
            None
        );
        assert_eq!(
            semantics("/* block */\n// gemp: semantics=cypher\nMATCH (a)"),
            None
        );
    }

    #[test]
    fn bad_directives_name_their_line() {
        let err = |s: &str| parse(s).unwrap_err().to_string();
        assert_eq!(
            err("// gemp: semantics=trail"),
            "line 1: unknown semantics `trail` (isomorphism, homomorphism, cypher or \
             relationship-isomorphism)"
        );
        assert_eq!(
            err("\n// gemp: mode=fast"),
            "line 2: unknown gemp option `mode` (the one option is `semantics`)"
        );
        assert_eq!(
            err("// gemp: cypher"),
            "line 1: `cypher` is not `key=value` (e.g. `semantics=cypher`)"
        );
        assert_eq!(
            err("// gemp: semantics=cypher\n// gemp: semantics=isomorphism"),
            "line 2: semantics=isomorphism contradicts semantics=cypher on line 1"
        );
    }
}
