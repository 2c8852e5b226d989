//! A `BufRead` adapter that tracks the line and column of the next unread byte, so a streaming
//! XML parser's events and errors can be placed in the file.

use std::io::{BufRead, Read};

/// Wraps a reader and counts lines in the bytes consumed through it.
pub struct LineTracker<R> {
    inner: R,
    line: u64,
    column: u64,
}

impl<R: BufRead> LineTracker<R> {
    /// Starts at line 1, column 1.
    pub fn new(inner: R) -> Self {
        LineTracker {
            inner,
            line: 1,
            column: 1,
        }
    }

    /// `(line, column)` of the next unread byte (1-based; the column counts bytes).
    pub fn position(&self) -> (u64, u64) {
        (self.line, self.column)
    }

    fn count(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if b == b'\n' {
                self.line += 1;
                self.column = 1;
            } else {
                self.column += 1;
            }
        }
    }
}

impl<R: BufRead> Read for LineTracker<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count(&buf[..n]);
        Ok(n)
    }
}

impl<R: BufRead> BufRead for LineTracker<R> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        self.inner.fill_buf()
    }

    fn consume(&mut self, amt: usize) {
        // A second fill_buf without consume returns the same buffered bytes (no I/O).
        let (mut lines, mut last_newline, mut total) = (0u64, None::<u64>, 0u64);
        if let Ok(buf) = self.inner.fill_buf() {
            let part = &buf[..amt.min(buf.len())];
            total = part.len() as u64;
            for (i, &b) in part.iter().enumerate() {
                if b == b'\n' {
                    lines += 1;
                    last_newline = Some(i as u64 + 1);
                }
            }
        }
        match last_newline {
            Some(after) => {
                self.line += lines;
                self.column = 1 + (total - after);
            }
            None => self.column += total,
        }
        self.inner.consume(amt);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tracks_lines_and_columns_through_consume_and_read() {
        let mut t = LineTracker::new(std::io::Cursor::new(b"ab\ncde\nf".to_vec()));
        let _ = t.fill_buf().unwrap();
        t.consume(2);
        assert_eq!(t.position(), (1, 3));
        t.consume(3);
        assert_eq!(t.position(), (2, 3));
        let mut rest = Vec::new();
        t.read_to_end(&mut rest).unwrap();
        assert_eq!(rest, b"e\nf");
        assert_eq!(t.position(), (3, 2));
    }
}
