//! Scanning and decoding of number, string and backtick-quoted name literals.

use super::{is_identifier_continue, Lexer, TokenKind};
use crate::pattern::ast::Span;
use crate::pattern::error::QueryError;

impl Lexer<'_> {
    /// A number whose first character (a digit, or `.` followed by a digit) is already consumed.
    pub(super) fn number(&mut self, start: Span) -> Result<TokenKind, QueryError> {
        let first = self.src.get(start.start..self.pos).unwrap_or("");
        if first == "0" && matches!(self.peek(), Some('x' | 'X')) {
            self.bump();
            return self.radix_number(start, 16);
        }
        if first == "0" && self.peek() == Some('o') {
            self.bump();
            return self.radix_number(start, 8);
        }
        let mut is_float = first == ".";
        self.skip_digits();
        if !is_float
            && self.peek() == Some('.')
            && self.peek_nth(1).is_some_and(|c| c.is_ascii_digit())
        {
            self.bump();
            self.skip_digits();
            is_float = true;
        }
        if matches!(self.peek(), Some('e' | 'E')) {
            let exponent_digit_at = if matches!(self.peek_nth(1), Some('+' | '-')) {
                2
            } else {
                1
            };
            if self
                .peek_nth(exponent_digit_at)
                .is_some_and(|c| c.is_ascii_digit())
            {
                for _ in 0..exponent_digit_at {
                    self.bump();
                }
                self.skip_digits();
                is_float = true;
            }
        }
        self.reject_trailing_letters(start)?;
        let text = self.src.get(start.start..self.pos).unwrap_or("");
        if is_float {
            match text.parse::<f64>() {
                Ok(x) if x.is_finite() => Ok(TokenKind::Float(x)),
                _ => Err(QueryError::syntax(
                    format!("floating-point literal `{text}` is out of range"),
                    self.since(start),
                )),
            }
        } else {
            text.parse::<u64>().map(TokenKind::Integer).map_err(|_| {
                QueryError::syntax(
                    format!("integer literal `{text}` is too large"),
                    self.since(start),
                )
            })
        }
    }

    /// The digits of a hexadecimal (after `0x`, `radix` 16) or octal (after `0o`, `radix` 8)
    /// literal.
    fn radix_number(&mut self, start: Span, radix: u32) -> Result<TokenKind, QueryError> {
        let (name, prefix) = if radix == 16 {
            ("hexadecimal", "0x")
        } else {
            ("octal", "0o")
        };
        let digits_start = self.pos;
        while self.peek().is_some_and(|c| c.is_digit(radix)) {
            self.bump();
        }
        let digits = self.src.get(digits_start..self.pos).unwrap_or("");
        if digits.is_empty() {
            return Err(QueryError::syntax(
                format!("expected {name} digits after `{prefix}`"),
                self.since(start),
            ));
        }
        self.reject_trailing_letters(start)?;
        u64::from_str_radix(digits, radix)
            .map(TokenKind::Integer)
            .map_err(|_| {
                QueryError::syntax(format!("{name} literal is too large"), self.since(start))
            })
    }

    fn skip_digits(&mut self) {
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.bump();
        }
    }

    /// `12abc` is one malformed token, not a number followed by a name.
    fn reject_trailing_letters(&mut self, start: Span) -> Result<(), QueryError> {
        if !self.peek().is_some_and(is_identifier_continue) {
            return Ok(());
        }
        while self.peek().is_some_and(is_identifier_continue) {
            self.bump();
        }
        let text = self.src.get(start.start..self.pos).unwrap_or("");
        Err(QueryError::syntax(
            format!("invalid number literal `{text}`"),
            self.since(start),
        ))
    }

    /// A string literal whose opening `quote` is already consumed; returns its decoded value.
    pub(super) fn string(&mut self, start: Span, quote: char) -> Result<String, QueryError> {
        let mut value = String::new();
        loop {
            let escape_start = self.here();
            match self.bump() {
                None => {
                    return Err(QueryError::syntax(
                        "unterminated string literal",
                        Span {
                            end: start.start + 1,
                            ..start
                        },
                    )
                    .with_help(format!("close the string with {quote}")))
                }
                Some(c) if c == quote => return Ok(value),
                Some('\\') => value.push(self.escape(escape_start)?),
                Some(c) => value.push(c),
            }
        }
    }

    /// The character denoted by an escape sequence whose backslash is already consumed.
    fn escape(&mut self, start: Span) -> Result<char, QueryError> {
        let c = match self.bump() {
            Some('n') => '\n',
            Some('t') => '\t',
            Some('r') => '\r',
            Some('b') => '\u{8}',
            Some('f') => '\u{c}',
            Some('\\') => '\\',
            Some('\'') => '\'',
            Some('"') => '"',
            Some('u') => return self.unicode_escape(start, 4),
            Some('U') => return self.unicode_escape(start, 8),
            Some(other) => {
                return Err(QueryError::syntax(
                    format!("unknown escape sequence `\\{}`", other.escape_debug()),
                    self.since(start),
                )
                .with_help(
                    "valid escapes are \\n \\t \\r \\b \\f \\\\ \\' \\\" \\uXXXX \\UXXXXXXXX",
                ))
            }
            None => {
                return Err(QueryError::syntax(
                    "unterminated string literal",
                    self.since(start),
                ))
            }
        };
        Ok(c)
    }

    /// `\uXXXX` (`digits` = 4) or `\UXXXXXXXX` (8); a UTF-16 surrogate pair of two `\u` escapes is accepted.
    fn unicode_escape(&mut self, start: Span, digits: usize) -> Result<char, QueryError> {
        let code = self.hex_digits(start, digits)?;
        let high_surrogate = digits == 4 && (0xD800..0xDC00).contains(&code);
        if high_surrogate && self.peek() == Some('\\') && self.peek_nth(1) == Some('u') {
            self.bump();
            self.bump();
            let low = self.hex_digits(start, 4)?;
            if (0xDC00..0xE000).contains(&low) {
                let combined = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
                if let Some(c) = char::from_u32(combined) {
                    return Ok(c);
                }
            }
        }
        char::from_u32(code).ok_or_else(|| {
            QueryError::syntax(
                "invalid unicode escape: not a unicode scalar value",
                self.since(start),
            )
        })
    }

    fn hex_digits(&mut self, start: Span, digits: usize) -> Result<u32, QueryError> {
        let mut code: u32 = 0;
        for _ in 0..digits {
            match self.peek().and_then(|c| c.to_digit(16)) {
                Some(d) => {
                    self.bump();
                    code = code.saturating_mul(16).saturating_add(d);
                }
                None => {
                    return Err(QueryError::syntax(
                        format!("invalid unicode escape: expected {digits} hexadecimal digits"),
                        self.since(start),
                    ))
                }
            }
        }
        Ok(code)
    }

    /// A backtick-quoted name whose opening backtick is already consumed; ` `` ` stands for one backtick.
    pub(super) fn quoted_identifier(&mut self, start: Span) -> Result<String, QueryError> {
        let mut name = String::new();
        loop {
            match self.bump() {
                None => {
                    return Err(QueryError::syntax(
                        "unterminated quoted name",
                        Span {
                            end: start.start + 1,
                            ..start
                        },
                    )
                    .with_help("close the name with a backtick"))
                }
                Some('`') if self.eat('`') => name.push('`'),
                Some('`') if name.is_empty() => {
                    return Err(QueryError::syntax("empty quoted name", self.since(start)))
                }
                Some('`') => return Ok(name),
                Some(c) => name.push(c),
            }
        }
    }
}
