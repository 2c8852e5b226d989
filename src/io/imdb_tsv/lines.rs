//! Byte-level TSV plumbing: a chunked block reader (whole lines, no per-line copy or allocation),
//! a one-pass line and tab scanner, and hand-written parsers for the IMDb value formats.

use std::io::{ErrorKind, Read};
use std::path::Path;

use crate::error::{Error, Result};
use crate::io::input::read_error;

/// Bytes of decompressed text parsed as one unit by default (whole lines; see
/// [`crate::io::LoadOptions::chunk_bytes`]).
pub(crate) const CHUNK: usize = 2 << 20;

/// Largest unit accepted from the options (so offsets within a block fit a `u32`).
const MAX_CHUNK: usize = 1 << 30;

/// Longest line accepted; a longer one means the file is not a TSV dump (or is corrupt).
const MAX_LINE: usize = 256 << 20;

/// The IMDb null marker.
pub(crate) const NULL: &str = "\\N";

const LO: u64 = 0x0101_0101_0101_0101;
const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;

/// High bit of each byte of `word` set where that byte equals the byte repeated in `pattern`
/// (exact: no false positives from borrows between bytes).
#[inline(always)]
fn byte_mask(word: [u8; 8], pattern: u64) -> u64 {
    let x = u64::from_le_bytes(word) ^ pattern;
    !(((x & LOW7) + LOW7) | x | LOW7)
}

#[inline(always)]
fn word_at(chunk: &[u8]) -> [u8; 8] {
    let mut word = [0u8; 8];
    word.copy_from_slice(chunk);
    word
}

/// Hands `f` the content of `reader` as owned blocks of whole lines (each block ends with `\n`,
/// except the last one of a file without a final newline), up to `window` blocks per call, in file
/// order.
///
/// A helper thread reads (and decompresses, for `.gz`) blocks of about `chunk` bytes (more when a
/// line is longer) into a channel that holds at most `window` of them, so that it reads ahead while
/// `f` works, and at most about `3 × window` blocks exist at once: the ones `f` holds, the ones in
/// the channel and the one being read. Read errors (truncated or corrupt .gz included) become errors
/// naming `path`; the blocks read before one still go to `f` first.
pub(crate) fn for_each_window<R: Read + Send + ?Sized>(
    reader: &mut R,
    path: &Path,
    chunk: usize,
    window: usize,
    mut f: impl FnMut(Vec<Vec<u8>>) -> Result<()>,
) -> Result<()> {
    use std::sync::mpsc::sync_channel;
    let chunk = chunk.clamp(1, MAX_CHUNK);
    let window = window.max(1);
    let (tx, rx) = sync_channel::<Result<Vec<u8>>>(window);
    std::thread::scope(|scope| {
        let reader_thread = scope.spawn(move || {
            // Bytes read but not sent yet: the incomplete last line of the previous block.
            let mut pending: Vec<u8> = Vec::new();
            loop {
                // `pending` holds no newline before `scanned`.
                let scanned = pending.len();
                let target = if scanned < chunk {
                    chunk
                } else {
                    scanned + chunk
                };
                let mut eof = false;
                while pending.len() < target {
                    let filled = pending.len();
                    pending.resize(target, 0);
                    match reader.read(&mut pending[filled..]) {
                        Ok(0) => {
                            pending.truncate(filled);
                            eof = true;
                            break;
                        }
                        Ok(n) => pending.truncate(filled + n),
                        Err(e) if e.kind() == ErrorKind::Interrupted => pending.truncate(filled),
                        Err(e) => {
                            let _ = tx.send(Err(read_error(path, e)));
                            return;
                        }
                    }
                }
                let last = pending[scanned..].iter().rposition(|&b| b == b'\n');
                if last.is_none() && pending.len() > MAX_LINE {
                    let _ = tx.send(Err(Error::BadFile {
                        path: path.to_path_buf(),
                        message: format!(
                            "a line is longer than {} MiB; not an IMDb TSV file?",
                            MAX_LINE >> 20
                        ),
                    }));
                    return;
                }
                if eof {
                    if !pending.is_empty() {
                        let _ = tx.send(Ok(pending));
                    }
                    return;
                }
                if let Some(last) = last {
                    let rest = pending.split_off(scanned + last + 1);
                    if tx.send(Ok(pending)).is_err() {
                        return;
                    }
                    pending = rest;
                }
            }
        });
        let result = (|| loop {
            let mut blocks = Vec::with_capacity(window);
            let mut end = None;
            while blocks.len() < window {
                match rx.recv() {
                    Ok(Ok(block)) => blocks.push(block),
                    Ok(Err(e)) => {
                        end = Some(Err(e));
                        break;
                    }
                    Err(_) => {
                        end = Some(Ok(()));
                        break;
                    }
                }
            }
            if !blocks.is_empty() {
                f(blocks)?;
            }
            if let Some(end) = end {
                return end;
            }
        })();
        // Unblocks and stops the reader if it is still running.
        drop(rx);
        // Joined explicitly: the scope's own wait can return before the thread has finished
        // (its thread-local destructors still running), which leak checkers report as leaks.
        // The reader cannot panic; its errors come through the channel.
        let _ = reader_thread.join();
        result
    })
}

/// Walks the lines of a block from [`for_each_window`] in one pass per line that finds the line end
/// and the tabs together, eight bytes at a time.
pub(crate) struct Scanner<'a> {
    block: &'a [u8],
    pos: usize,
}

/// One line found by [`Scanner::next_line`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Line {
    /// Offset of the first byte in the block.
    pub start: usize,
    /// Offset one past the last byte, without the `\n` and the `\r` of a Windows line ending.
    pub end: usize,
    /// Number of tabs in the line (fields - 1).
    pub tabs: usize,
}

impl<'a> Scanner<'a> {
    /// The lines of `block`.
    pub(crate) fn new(block: &'a [u8]) -> Self {
        Scanner { block, pos: 0 }
    }

    /// The next line, with the block offsets of its first `N` tabs in `tabs`.
    #[inline]
    pub(crate) fn next_line<const N: usize>(&mut self, tabs: &mut [usize; N]) -> Option<Line> {
        let block = self.block;
        let start = self.pos;
        if start >= block.len() {
            return None;
        }
        let tab_pattern = LO * u64::from(b'\t');
        let newline_pattern = LO * u64::from(b'\n');
        let mut count = 0usize;
        let mut newline = None;
        let mut i = start;
        while let Some(chunk) = block.get(i..i + 8) {
            let word = word_at(chunk);
            let nl = byte_mask(word, newline_pattern);
            let mut tab = byte_mask(word, tab_pattern);
            if nl != 0 {
                // Only the tabs before the newline.
                tab &= (nl & nl.wrapping_neg()) - 1;
            }
            while tab != 0 {
                if let Some(slot) = tabs.get_mut(count) {
                    *slot = i + (tab.trailing_zeros() / 8) as usize;
                }
                count += 1;
                tab &= tab - 1;
            }
            if nl != 0 {
                newline = Some(i + (nl.trailing_zeros() / 8) as usize);
                break;
            }
            i += 8;
        }
        if newline.is_none() {
            for (k, &b) in block.get(i..).unwrap_or(&[]).iter().enumerate() {
                if b == b'\n' {
                    newline = Some(i + k);
                    break;
                }
                if b == b'\t' {
                    if let Some(slot) = tabs.get_mut(count) {
                        *slot = i + k;
                    }
                    count += 1;
                }
            }
        }
        let (mut end, next) = match newline {
            Some(p) => (p, p + 1),
            None => (block.len(), block.len()),
        };
        if end > start && block[end - 1] == b'\r' {
            end -= 1;
        }
        self.pos = next;
        Some(Line {
            start,
            end,
            tabs: count,
        })
    }
}

/// Cuts a line with exactly `N - 1` tabs into its fields. `line` is the line's text, which starts at
/// block offset `offset`; `tabs` holds the block offsets of its tabs (from [`Scanner::next_line`]).
#[inline]
pub(crate) fn cut_fields<'t, const N: usize>(
    line: &'t str,
    offset: usize,
    tabs: &[usize; N],
) -> [&'t str; N] {
    let mut out = [""; N];
    let mut from = 0usize;
    for (k, field) in out.iter_mut().enumerate() {
        let to = if k + 1 < N {
            tabs[k].saturating_sub(offset)
        } else {
            line.len()
        };
        // Tabs are ASCII, so every cut is at a character boundary.
        *field = line.get(from..to).unwrap_or("");
        from = to + 1;
    }
    out
}

/// Why a field does not parse; turned into a bad-row message with the column name.
pub(crate) type FieldError = String;

/// A value for the message, shortened when long.
pub(crate) fn shown(value: &str) -> String {
    const MAX: usize = 40;
    if value.chars().count() <= MAX {
        format!("`{value}`")
    } else {
        let head: String = value.chars().take(MAX).collect();
        format!("`{head}…`")
    }
}

/// An integer column (`\N` = null).
#[inline]
pub(crate) fn int_field(value: &str, column: &str) -> Result<Option<i64>, FieldError> {
    if value == NULL {
        return Ok(None);
    }
    parse_int(value.as_bytes())
        .map(Some)
        .ok_or_else(|| format!("column `{column}`: not an integer: {}", shown(value)))
}

/// Parses an optionally negative decimal integer without overflow.
#[inline]
pub(crate) fn parse_int(bytes: &[u8]) -> Option<i64> {
    let (negative, digits) = match bytes.split_first() {
        Some((b'-', rest)) => (true, rest),
        Some((b'+', rest)) => (false, rest),
        _ => (false, bytes),
    };
    if digits.is_empty() {
        return None;
    }
    let mut v: i64 = 0;
    for &d in digits {
        let digit = d.wrapping_sub(b'0');
        if digit > 9 {
            return None;
        }
        v = v.checked_mul(10)?.checked_add(i64::from(digit))?;
    }
    Some(if negative { -v } else { v })
}

/// A float column (`\N` = null); NaN and infinities are rejected.
pub(crate) fn float_field(value: &str, column: &str) -> Result<Option<f64>, FieldError> {
    if value == NULL {
        return Ok(None);
    }
    let bad = || format!("column `{column}`: not a number: {}", shown(value));
    let plain = !value.is_empty()
        && value
            .bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'-' | b'+' | b'e' | b'E'));
    if !plain {
        return Err(bad());
    }
    match value.parse::<f64>() {
        Ok(x) if x.is_finite() => Ok(Some(x)),
        _ => Err(bad()),
    }
}

/// A 0/1 boolean column (`\N` = null).
pub(crate) fn bool_field(value: &str, column: &str) -> Result<Option<bool>, FieldError> {
    match value {
        NULL => Ok(None),
        "0" => Ok(Some(false)),
        "1" => Ok(Some(true)),
        _ => Err(format!(
            "column `{column}`: expected 0 or 1, found {}",
            shown(value)
        )),
    }
}

/// A string column (`\N` = null; the empty string is a value).
#[inline]
pub(crate) fn str_field(value: &str) -> Option<&str> {
    if value == NULL {
        None
    } else {
        Some(value)
    }
}

/// An id column that must be present (`tt…`, `nm…` or any other non-empty key).
#[inline]
pub(crate) fn id_field<'a>(value: &'a str, column: &str) -> Result<&'a str, FieldError> {
    if value.is_empty() || value == NULL {
        Err(format!("column `{column}`: missing id"))
    } else {
        Ok(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`for_each_window`] one block at a time (windows of two).
    fn for_each_block_in(
        reader: &mut &[u8],
        path: &Path,
        chunk: usize,
        mut f: impl FnMut(&[u8]) -> Result<()>,
    ) -> Result<()> {
        for_each_window(reader, path, chunk, 2, |blocks| {
            assert!((1..=2).contains(&blocks.len()));
            blocks.iter().try_for_each(|b| f(b))
        })
    }

    /// Every line of `data` as (text, fields) via `for_each_window`, `Scanner` and `cut_fields`;
    /// fields are only cut when there are exactly 3.
    fn scan(data: &[u8]) -> Vec<(Vec<u8>, usize, Option<[String; 3]>)> {
        scan_in(data, 61)
    }

    fn scan_in(data: &[u8], chunk: usize) -> Vec<(Vec<u8>, usize, Option<[String; 3]>)> {
        let mut got = Vec::new();
        for_each_block_in(&mut &data[..], Path::new("t"), chunk, |block| {
            let mut scanner = Scanner::new(block);
            let mut tabs = [0usize; 3];
            while let Some(line) = scanner.next_line(&mut tabs) {
                let bytes = &block[line.start..line.end];
                let fields = match (line.tabs, std::str::from_utf8(bytes)) {
                    (2, Ok(text)) => {
                        Some(cut_fields::<3>(text, line.start, &tabs).map(str::to_owned))
                    }
                    _ => None,
                };
                got.push((bytes.to_vec(), line.tabs + 1, fields));
            }
            Ok(())
        })
        .unwrap();
        got
    }

    #[test]
    fn tiny_chunks_give_the_same_lines() {
        let text = "a\tb\tc\n\nlong line without tabs here\r\nx\ty\tz\nlast\tno\tnewline";
        let mut reference: Vec<Vec<u8>> = Vec::new();
        for_each_block_in(&mut text.as_bytes(), Path::new("t"), 1 << 20, |block| {
            reference.push(block.to_vec());
            Ok(())
        })
        .unwrap();
        assert_eq!(reference.concat(), text.as_bytes());
        assert_eq!(
            reference.len(),
            1,
            "one block when the chunk holds the file"
        );
        for chunk in 1..40 {
            let mut joined = Vec::new();
            for_each_block_in(&mut text.as_bytes(), Path::new("t"), chunk, |block| {
                assert!(!block.is_empty());
                // Every block but the file's last ends a line.
                assert!(block.ends_with(b"\n") || joined.len() + block.len() == text.len());
                joined.extend_from_slice(block);
                Ok(())
            })
            .unwrap();
            assert_eq!(joined, text.as_bytes(), "chunk {chunk}");
        }
        // An error from the callback stops the reading.
        let err = for_each_block_in(&mut text.as_bytes(), Path::new("t"), 4, |_| {
            Err(Error::InvalidArgument("stop".into()))
        });
        assert!(err.is_err());
    }

    #[test]
    fn lines_across_chunks_and_endings() {
        let mut long = vec![b'x'; CHUNK + 10];
        long.extend_from_slice(b"\r\nshort\n\nlast");
        let got = scan_in(&long, CHUNK);
        let lens: Vec<usize> = got.iter().map(|l| l.0.len()).collect();
        assert_eq!(lens, vec![CHUNK + 10, 5, 0, 4]);
        assert!(scan(b"").is_empty());
        let got = scan(b"a\r\nb\n");
        assert_eq!(got.len(), 2);
        assert_eq!(
            (got[0].0.as_slice(), got[1].0.as_slice()),
            (&b"a"[..], &b"b"[..])
        );
        // Many short lines across chunk boundaries.
        let text: String = (0..500_000).map(|i| format!("{i}\t{i}\tz\n")).collect();
        let got = scan_in(text.as_bytes(), 1 << 16);
        assert_eq!(got.len(), 500_000);
        assert_eq!(
            got[499_999].2,
            Some(["499999".into(), "499999".into(), "z".into()])
        );
    }

    #[test]
    fn fields_are_cut_exactly() {
        let got = scan("a\tb\tc\na\t\t\na\tb\na\tb\tc\td\te\n\n\t\u{8}\u{8}\t\u{8}\u{8}\u{8}\u{8}\u{8}\nab\t\u{b}\u{b}\u{b}\u{b}\u{b}\u{b}\u{b}\u{b}\tx\r\n".as_bytes());
        let fields: Vec<(usize, Option<[String; 3]>)> =
            got.into_iter().map(|l| (l.1, l.2)).collect();
        let f = |a: &str, b: &str, c: &str| Some([a.to_string(), b.to_string(), c.to_string()]);
        assert_eq!(
            fields,
            vec![
                (3, f("a", "b", "c")),
                (3, f("a", "", "")),
                (2, None),
                (5, None),
                (1, None),
                // Bytes next to the tab value (0x08, 0x0b) are not tabs.
                (3, f("", "\u{8}\u{8}", "\u{8}\u{8}\u{8}\u{8}\u{8}")),
                (3, f("ab", "\u{b}\u{b}\u{b}\u{b}\u{b}\u{b}\u{b}\u{b}", "x")),
            ]
        );
    }

    #[test]
    fn scanner_matches_naive_split_on_random_text() {
        let alphabet = [
            "\t", "\t", "a", "\u{8}", "\n", "\r", "é", "\\N", "xyz", "\u{b}",
        ];
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..3_000 {
            let len = (next() % 200) as usize;
            let text: String = (0..len)
                .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
                .collect();
            let mut expected: Vec<&str> = text.split('\n').collect();
            if text.ends_with('\n') || text.is_empty() {
                expected.pop();
            }
            let got = scan(text.as_bytes());
            assert_eq!(got.len(), expected.len(), "{text:?}");
            for (line, want) in got.iter().zip(&expected) {
                let want = want.strip_suffix('\r').unwrap_or(want);
                assert_eq!(line.0, want.as_bytes(), "{text:?}");
                let parts: Vec<&str> = want.split('\t').collect();
                assert_eq!(line.1, parts.len(), "{text:?}");
                if parts.len() == 3 {
                    assert_eq!(
                        line.2.as_ref().map(|f| f.to_vec()),
                        Some(parts.iter().map(|p| p.to_string()).collect()),
                        "{text:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn ints() {
        assert_eq!(parse_int(b"2019"), Some(2019));
        assert_eq!(parse_int(b"-5"), Some(-5));
        assert_eq!(parse_int(b""), None);
        assert_eq!(parse_int(b"-"), None);
        assert_eq!(parse_int(b"12a"), None);
        assert_eq!(parse_int(b"99999999999999999999"), None);
        assert_eq!(int_field("\\N", "x"), Ok(None));
        assert!(float_field("nan", "x").is_err());
        assert!(float_field("inf", "x").is_err());
        assert_eq!(float_field("5.7", "x"), Ok(Some(5.7)));
    }
}
