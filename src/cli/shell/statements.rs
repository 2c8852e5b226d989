//! Splits what the shell reads into statements: each ends with a `;` outside string literals,
//! quoted names and comments, and may span lines.

/// Where the scanner stands in the pending text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Scan {
    /// Plain query text.
    #[default]
    Code,
    /// Inside a literal or quoted name opened by this character (`'`, `"` or `` ` ``).
    Quoted(char),
    /// Just after a backslash inside a `'` or `"` literal.
    Escaped(char),
    /// Inside a `//` comment (up to the end of the line).
    LineComment,
    /// Inside a `/* … */` comment.
    BlockComment,
}

/// The text read so far that does not yet end a statement.
#[derive(Debug, Default)]
pub struct StatementBuffer {
    pending: String,
    scan: Scan,
}

impl StatementBuffer {
    /// An empty buffer.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one line; returns the statements it completed (without their `;`, trimmed, empty
    /// ones dropped). What follows the last `;` stays pending.
    pub fn push_line(&mut self, line: &str) -> Vec<String> {
        let mut done = Vec::new();
        let mut chars = line.chars().chain(std::iter::once('\n')).peekable();
        while let Some(c) = chars.next() {
            let next = chars.peek().copied();
            self.scan = match (self.scan, c) {
                (Scan::Code, ';') => {
                    let statement = std::mem::take(&mut self.pending);
                    let statement = statement.trim();
                    if !statement.is_empty() {
                        done.push(statement.to_owned());
                    }
                    continue;
                }
                (Scan::Code, '\'' | '"' | '`') => Scan::Quoted(c),
                (Scan::Code, '/') if next == Some('/') => Scan::LineComment,
                (Scan::Code, '/') if next == Some('*') => {
                    self.pending.push(c);
                    self.pending.push('*');
                    chars.next();
                    self.scan = Scan::BlockComment;
                    continue;
                }
                (Scan::Code, _) => Scan::Code,
                (Scan::Quoted(q), '\\') if q != '`' => Scan::Escaped(q),
                (Scan::Quoted(q), c) if c == q => Scan::Code,
                (Scan::Quoted(q), _) | (Scan::Escaped(q), _) => Scan::Quoted(q),
                (Scan::LineComment, '\n') => Scan::Code,
                (Scan::LineComment, _) => Scan::LineComment,
                (Scan::BlockComment, '*') if next == Some('/') => {
                    self.pending.push(c);
                    self.pending.push('/');
                    chars.next();
                    self.scan = Scan::Code;
                    continue;
                }
                (Scan::BlockComment, _) => Scan::BlockComment,
            };
            self.pending.push(c);
        }
        done
    }

    /// True when nothing but white space is pending (the next line starts a statement).
    pub fn is_empty(&self) -> bool {
        self.pending.trim().is_empty()
    }

    /// Drops what is pending (Ctrl-C at the prompt).
    pub fn clear(&mut self) {
        self.pending.clear();
        self.scan = Scan::Code;
    }

    /// At the end of the input: what is pending, as a last statement without its `;`.
    pub fn finish(&mut self) -> Option<String> {
        let rest = std::mem::take(&mut self.pending);
        self.scan = Scan::Code;
        let rest = rest.trim();
        (!rest.is_empty()).then(|| rest.to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_statement_may_span_lines_and_ends_at_its_semicolon() {
        let mut b = StatementBuffer::new();
        assert!(b.push_line("MATCH (p:Person)").is_empty());
        assert!(!b.is_empty());
        assert_eq!(
            b.push_line("RETURN count(*);"),
            ["MATCH (p:Person)\nRETURN count(*)"]
        );
        assert!(b.is_empty());
        // Two on one line, and the start of a third.
        assert_eq!(
            b.push_line("RETURN 1; RETURN 2 ; MATCH (x)"),
            ["RETURN 1", "RETURN 2"]
        );
        assert_eq!(b.finish().as_deref(), Some("MATCH (x)"));
        assert_eq!(b.finish(), None);
        // Empty statements are dropped.
        assert!(b.push_line(" ; ;").is_empty());
    }

    #[test]
    fn semicolons_in_literals_names_and_comments_do_not_end_a_statement() {
        let mut b = StatementBuffer::new();
        assert!(b
            .push_line("MATCH (p {name: 'a;b'}) // a comment;")
            .is_empty());
        assert!(b
            .push_line("WHERE p.x = \"it\\\";s\" /* and ; this */")
            .is_empty());
        assert!(b.push_line("RETURN p.`odd;name`").is_empty());
        let done = b.push_line(";");
        assert_eq!(done.len(), 1);
        assert!(done[0].starts_with("MATCH (p {name: 'a;b'}) // a comment;\nWHERE"));
        assert!(done[0].ends_with("RETURN p.`odd;name`"));
        // A block comment spans lines.
        assert!(b.push_line("/* one;").is_empty());
        assert_eq!(
            b.push_line("two; */ RETURN 1;"),
            ["/* one;\ntwo; */ RETURN 1"]
        );
    }

    #[test]
    fn clearing_forgets_an_open_literal() {
        let mut b = StatementBuffer::new();
        assert!(b.push_line("RETURN 'open").is_empty());
        b.clear();
        assert!(b.is_empty());
        assert_eq!(b.push_line("RETURN 1;"), ["RETURN 1"]);
    }
}
