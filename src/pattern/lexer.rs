//! Tokenizer: turns query text into [`Token`]s with their [`Span`]s.
//!
//! Whitespace, `// line` and `/* block */` comments are skipped. Reserved words become
//! [`TokenKind::Keyword`] (case-insensitively); other words are [`TokenKind::Ident`], and backtick-quoted
//! words are always [`TokenKind::QuotedIdent`], never keywords. Number and string literals are decoded here.
//! The lexer never panics: malformed input is a [`QueryError`] of kind `Syntax`.

use super::ast::Span;
use super::error::QueryError;

mod literals;
#[cfg(test)]
mod tests;

/// One token and where it was written.
#[derive(Debug, Clone, PartialEq)]
pub struct Token {
    /// What it is.
    pub kind: TokenKind,
    /// Where it is. The final [`TokenKind::Eof`] has an empty span just after the last token.
    pub span: Span,
}

/// The kinds of tokens.
#[derive(Debug, Clone, PartialEq)]
pub enum TokenKind {
    /// A word that is not a reserved keyword.
    Ident(String),
    /// A backtick-quoted name, quotes removed and doubled backticks undone.
    QuotedIdent(String),
    /// A reserved keyword.
    Keyword(Keyword),
    /// A parameter `$name` (the name without `$`).
    Param(String),
    /// An unsigned integer literal (decimal or `0x` hexadecimal); a leading `-` is a separate token.
    Integer(u64),
    /// A floating-point literal (finite).
    Float(f64),
    /// A string literal, escapes resolved.
    String(String),
    /// `(`
    LParen,
    /// `)`
    RParen,
    /// `[`
    LBracket,
    /// `]`
    RBracket,
    /// `{`
    LBrace,
    /// `}`
    RBrace,
    /// `,`
    Comma,
    /// `.`
    Dot,
    /// `:`
    Colon,
    /// `|`
    Pipe,
    /// `;`
    Semicolon,
    /// `=`
    Eq,
    /// `<>` or `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `=~`
    RegexMatch,
    /// `+`
    Plus,
    /// `-`
    Minus,
    /// `*`
    Star,
    /// `/`
    Slash,
    /// `%`
    Percent,
    /// End of input.
    Eof,
}

impl TokenKind {
    /// A short description for error messages ("`)`", "keyword `MATCH`", "end of input"...).
    pub fn describe(&self) -> String {
        let symbol = match self {
            TokenKind::Ident(name) => return format!("identifier `{name}`"),
            TokenKind::QuotedIdent(name) => return format!("identifier `{name}`"),
            TokenKind::Keyword(kw) => return format!("keyword `{}`", kw.as_str()),
            TokenKind::Param(name) => return format!("parameter `${name}`"),
            TokenKind::Integer(i) => return format!("number `{i}`"),
            TokenKind::Float(x) => return format!("number `{x:?}`"),
            TokenKind::String(_) => return "a string literal".to_string(),
            TokenKind::Eof => return "end of input".to_string(),
            TokenKind::LParen => "(",
            TokenKind::RParen => ")",
            TokenKind::LBracket => "[",
            TokenKind::RBracket => "]",
            TokenKind::LBrace => "{",
            TokenKind::RBrace => "}",
            TokenKind::Comma => ",",
            TokenKind::Dot => ".",
            TokenKind::Colon => ":",
            TokenKind::Pipe => "|",
            TokenKind::Semicolon => ";",
            TokenKind::Eq => "=",
            TokenKind::Ne => "<>",
            TokenKind::Lt => "<",
            TokenKind::Le => "<=",
            TokenKind::Gt => ">",
            TokenKind::Ge => ">=",
            TokenKind::RegexMatch => "=~",
            TokenKind::Plus => "+",
            TokenKind::Minus => "-",
            TokenKind::Star => "*",
            TokenKind::Slash => "/",
            TokenKind::Percent => "%",
        };
        format!("`{symbol}`")
    }
}

macro_rules! keywords {
    ($($variant:ident => $text:literal,)*) => {
        /// Reserved words. They are matched case-insensitively and cannot name a variable unless
        /// backtick-quoted; after `:` or `.` and as map keys they are ordinary names.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Keyword {
            $(
                #[doc = concat!("`", $text, "`")]
                $variant,
            )*
        }

        impl Keyword {
            /// The keyword in upper case.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Keyword::$variant => $text,)*
                }
            }

            /// The keyword spelled `word`, in any case.
            pub fn from_word(word: &str) -> Option<Keyword> {
                $(
                    if word.eq_ignore_ascii_case($text) {
                        return Some(Keyword::$variant);
                    }
                )*
                None
            }
        }
    };
}

keywords! {
    And => "AND",
    As => "AS",
    Asc => "ASC",
    Ascending => "ASCENDING",
    By => "BY",
    Case => "CASE",
    Contains => "CONTAINS",
    Create => "CREATE",
    Delete => "DELETE",
    Desc => "DESC",
    Descending => "DESCENDING",
    Detach => "DETACH",
    Distinct => "DISTINCT",
    Else => "ELSE",
    End => "END",
    Ends => "ENDS",
    Exists => "EXISTS",
    False => "FALSE",
    In => "IN",
    Is => "IS",
    Limit => "LIMIT",
    Match => "MATCH",
    Merge => "MERGE",
    Not => "NOT",
    Null => "NULL",
    Optional => "OPTIONAL",
    Or => "OR",
    Order => "ORDER",
    Remove => "REMOVE",
    Return => "RETURN",
    Set => "SET",
    Skip => "SKIP",
    Starts => "STARTS",
    Then => "THEN",
    True => "TRUE",
    Union => "UNION",
    Unwind => "UNWIND",
    When => "WHEN",
    Where => "WHERE",
    With => "WITH",
    Xor => "XOR",
}

/// True when `c` may start an unquoted identifier.
pub fn is_identifier_start(c: char) -> bool {
    c == '_' || c.is_alphabetic()
}

/// True when `c` may continue an unquoted identifier.
pub fn is_identifier_continue(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

/// True when `s` can be written without backticks (keywords aside).
pub fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(is_identifier_start) && chars.all(is_identifier_continue)
}

/// Splits `source` into tokens, ending with [`TokenKind::Eof`]; stops at the first malformed token.
pub fn tokenize(source: &str) -> Result<Vec<Token>, QueryError> {
    Lexer::new(source).collect()
}

/// A streaming tokenizer. Yields tokens up to and including [`TokenKind::Eof`], or up to the first error,
/// then `None`.
#[derive(Debug, Clone)]
pub struct Lexer<'a> {
    src: &'a str,
    /// Byte offset of the next character.
    pos: usize,
    /// Line and column of the next character.
    line: u32,
    column: u32,
    /// Where the last token ended (the end-of-input token goes there).
    last_end: (usize, u32, u32),
    done: bool,
}

impl<'a> Lexer<'a> {
    /// A lexer over `src`. A byte-order mark at its start (which some Windows editors write) is
    /// skipped: it is not part of the query, and line 1, column 1 is the character after it.
    pub fn new(src: &'a str) -> Self {
        let pos = if src.starts_with('\u{feff}') {
            '\u{feff}'.len_utf8()
        } else {
            0
        };
        Lexer {
            src,
            pos,
            line: 1,
            column: 1,
            last_end: (pos, 1, 1),
            done: false,
        }
    }

    fn rest(&self) -> &'a str {
        self.src.get(self.pos..).unwrap_or("")
    }

    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    fn peek_nth(&self, n: usize) -> Option<char> {
        self.rest().chars().nth(n)
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        if c == '\n' {
            self.line = self.line.saturating_add(1);
            self.column = 1;
        } else {
            self.column = self.column.saturating_add(1);
        }
        Some(c)
    }

    /// Consumes the next character when it is `c`.
    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.bump();
            true
        } else {
            false
        }
    }

    /// An empty span at the current position.
    fn here(&self) -> Span {
        Span {
            start: self.pos,
            end: self.pos,
            line: self.line,
            column: self.column,
        }
    }

    /// The span from `start` to the current position.
    fn since(&self, start: Span) -> Span {
        Span {
            end: self.pos,
            ..start
        }
    }

    /// Skips whitespace and comments.
    fn skip_trivia(&mut self) -> Result<(), QueryError> {
        loop {
            match (self.peek(), self.peek_nth(1)) {
                (Some(c), _) if c.is_whitespace() => {
                    self.bump();
                }
                (Some('/'), Some('/')) => {
                    while self.peek().is_some_and(|c| c != '\n') {
                        self.bump();
                    }
                }
                (Some('/'), Some('*')) => {
                    let start = self.here();
                    self.bump();
                    self.bump();
                    loop {
                        match self.bump() {
                            Some('*') if self.eat('/') => break,
                            Some(_) => {}
                            None => {
                                return Err(QueryError::syntax(
                                    "unterminated block comment",
                                    Span {
                                        end: start.start + 2,
                                        ..start
                                    },
                                )
                                .with_help("close the comment with `*/`"))
                            }
                        }
                    }
                }
                _ => return Ok(()),
            }
        }
    }

    fn next_token(&mut self) -> Result<Token, QueryError> {
        self.skip_trivia()?;
        let start = self.here();
        let Some(c) = self.bump() else {
            let (pos, line, column) = self.last_end;
            return Ok(Token {
                kind: TokenKind::Eof,
                span: Span {
                    start: pos,
                    end: pos,
                    line,
                    column,
                },
            });
        };
        let kind = match c {
            '(' => TokenKind::LParen,
            ')' => TokenKind::RParen,
            '[' => TokenKind::LBracket,
            ']' => TokenKind::RBracket,
            '{' => TokenKind::LBrace,
            '}' => TokenKind::RBrace,
            ',' => TokenKind::Comma,
            ':' => TokenKind::Colon,
            '|' => TokenKind::Pipe,
            ';' => TokenKind::Semicolon,
            '+' => TokenKind::Plus,
            '-' => TokenKind::Minus,
            '*' => TokenKind::Star,
            '/' => TokenKind::Slash,
            '%' => TokenKind::Percent,
            '=' if self.eat('~') => TokenKind::RegexMatch,
            '=' => TokenKind::Eq,
            '<' if self.eat('=') => TokenKind::Le,
            '<' if self.eat('>') => TokenKind::Ne,
            '<' => TokenKind::Lt,
            '>' if self.eat('=') => TokenKind::Ge,
            '>' => TokenKind::Gt,
            '!' if self.eat('=') => TokenKind::Ne,
            // `..5` (a slice or hop bound) is two dots and an integer, not a dot and `.5`.
            '.' if self.peek().is_some_and(|c| c.is_ascii_digit())
                && !self.src[..start.start].ends_with('.') =>
            {
                self.number(start)?
            }
            '.' => TokenKind::Dot,
            '0'..='9' => self.number(start)?,
            '\'' | '"' => TokenKind::String(self.string(start, c)?),
            '`' => TokenKind::QuotedIdent(self.quoted_identifier(start)?),
            '$' => TokenKind::Param(self.parameter(start)?),
            c if is_identifier_start(c) => {
                while self.peek().is_some_and(is_identifier_continue) {
                    self.bump();
                }
                let word = self.src.get(start.start..self.pos).unwrap_or("");
                match Keyword::from_word(word) {
                    Some(kw) => TokenKind::Keyword(kw),
                    None => TokenKind::Ident(word.to_string()),
                }
            }
            c => {
                return Err(QueryError::syntax(
                    format!("unexpected character `{}`", c.escape_debug()),
                    self.since(start),
                ))
            }
        };
        self.last_end = (self.pos, self.line, self.column);
        Ok(Token {
            kind,
            span: self.since(start),
        })
    }

    /// The name after `$` (already consumed): an identifier or a number.
    fn parameter(&mut self, start: Span) -> Result<String, QueryError> {
        let name_start = self.pos;
        if self.peek().is_some_and(is_identifier_start) {
            while self.peek().is_some_and(is_identifier_continue) {
                self.bump();
            }
        } else {
            while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                self.bump();
            }
        }
        match self.src.get(name_start..self.pos) {
            Some(name) if !name.is_empty() => Ok(name.to_string()),
            _ => Err(QueryError::syntax(
                "expected a parameter name after `$`",
                self.since(start),
            )),
        }
    }
}

impl Iterator for Lexer<'_> {
    type Item = Result<Token, QueryError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let token = self.next_token();
        self.done = !matches!(&token, Ok(t) if t.kind != TokenKind::Eof);
        Some(token)
    }
}
