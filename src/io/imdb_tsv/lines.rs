//! Byte-level TSV plumbing: a chunked line reader (no per-line copy or allocation), tab splitting into
//! a fixed number of fields, and hand-written parsers for the IMDb value formats.

use std::io::{ErrorKind, Read};
use std::path::Path;

use crate::error::{Error, Result};
use crate::io::input::read_error;

/// Bytes read from the decompressed stream at a time.
const CHUNK: usize = 4 << 20;

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

/// Position of the first `\n` in `hay`, eight bytes at a time.
#[inline]
pub(crate) fn find_newline(hay: &[u8]) -> Option<usize> {
    let pattern = LO * u64::from(b'\n');
    let mut chunks = hay.chunks_exact(8);
    let mut base = 0usize;
    for chunk in chunks.by_ref() {
        let found = byte_mask(word_at(chunk), pattern);
        if found != 0 {
            return Some(base + (found.trailing_zeros() / 8) as usize);
        }
        base += 8;
    }
    chunks
        .remainder()
        .iter()
        .position(|&b| b == b'\n')
        .map(|p| base + p)
}

/// Hands `f` the content of `reader` in blocks of whole lines (each block ends with `\n`, except the
/// last one of a file without a final newline), reading large chunks with no per-line copy.
/// Read errors (truncated or corrupt .gz included) become errors naming `path`.
pub(crate) fn for_each_block<R: Read + ?Sized>(
    reader: &mut R,
    path: &Path,
    mut f: impl FnMut(&[u8]) -> Result<()>,
) -> Result<()> {
    let mut buf = vec![0u8; CHUNK];
    let (mut start, mut end) = (0usize, 0usize);
    loop {
        let n = loop {
            match reader.read(&mut buf[end..]) {
                Ok(n) => break n,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) => return Err(read_error(path, e)),
            }
        };
        // Only the new bytes can hold a newline (the carried tail had none).
        let fresh = end;
        end += n;
        if n == 0 {
            if start < end {
                f(&buf[start..end])?;
            }
            return Ok(());
        }
        if let Some(last) = buf[fresh..end].iter().rposition(|&b| b == b'\n') {
            let stop = fresh + last + 1;
            f(&buf[start..stop])?;
            start = stop;
        }
        // Move the incomplete last line to the front; grow when one line fills the buffer.
        if start > 0 {
            buf.copy_within(start..end, 0);
            end -= start;
            start = 0;
        }
        if end == buf.len() {
            if buf.len() >= MAX_LINE {
                return Err(Error::BadFile {
                    path: path.to_path_buf(),
                    message: format!(
                        "a line is longer than {} MiB; not an IMDb TSV file?",
                        MAX_LINE >> 20
                    ),
                });
            }
            buf.resize(buf.len() * 2, 0);
        }
    }
}

/// The lines of a block from [`for_each_block`], as `(start, end)` byte ranges without the `\n` and
/// without the `\r` of a Windows line ending.
pub(crate) struct Lines<'a> {
    block: &'a [u8],
    pos: usize,
}

impl<'a> Lines<'a> {
    /// Lines of `block`.
    pub(crate) fn new(block: &'a [u8]) -> Self {
        Lines { block, pos: 0 }
    }

    /// Offset of the first line not yet returned.
    pub(crate) fn position(&self) -> usize {
        self.pos
    }
}

impl Iterator for Lines<'_> {
    type Item = (usize, usize);

    #[inline]
    fn next(&mut self) -> Option<(usize, usize)> {
        let rest = self.block.get(self.pos..).filter(|r| !r.is_empty())?;
        let start = self.pos;
        let (mut end, next) = match find_newline(rest) {
            Some(p) => (start + p, start + p + 1),
            None => (self.block.len(), self.block.len()),
        };
        if end > start && self.block[end - 1] == b'\r' {
            end -= 1;
        }
        self.pos = next;
        Some((start, end))
    }
}

/// Splits `line` on tabs into exactly `N` fields; `Err(count)` gives the actual number of fields.
#[inline]
pub(crate) fn split_fields<const N: usize>(line: &str) -> Result<[&str; N], usize> {
    let bytes = line.as_bytes();
    let pattern = LO * u64::from(b'\t');
    let mut out = [""; N];
    let mut count = 0usize;
    let mut start = 0usize;
    // Tabs are ASCII, so every cut below is at a character boundary.
    let mut cut = |i: usize, count: &mut usize, start: &mut usize| {
        if let Some(slot) = out.get_mut(*count) {
            *slot = line.get(*start..i).unwrap_or("");
        }
        *count += 1;
        *start = i + 1;
    };
    let mut chunks = bytes.chunks_exact(8);
    let mut base = 0usize;
    for chunk in chunks.by_ref() {
        let mut found = byte_mask(word_at(chunk), pattern);
        while found != 0 {
            cut(
                base + (found.trailing_zeros() / 8) as usize,
                &mut count,
                &mut start,
            );
            found &= found - 1;
        }
        base += 8;
    }
    for (k, &b) in chunks.remainder().iter().enumerate() {
        if b == b'\t' {
            cut(base + k, &mut count, &mut start);
        }
    }
    cut(bytes.len(), &mut count, &mut start);
    if count == N {
        Ok(out)
    } else {
        Err(count)
    }
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

    #[test]
    fn newline_search_matches_naive() {
        let text = b"abc\tdef\nxyz\n\n0123456789abcdef\n0123456\n";
        for s in 0..text.len() {
            for e in s..=text.len() {
                let hay = &text[s..e];
                assert_eq!(
                    find_newline(hay),
                    hay.iter().position(|&b| b == b'\n'),
                    "{s}..{e}"
                );
            }
        }
    }

    fn collect_lines(data: &[u8]) -> Vec<Vec<u8>> {
        let mut got = Vec::new();
        for_each_block(&mut &data[..], Path::new("t"), |block| {
            assert!(block.ends_with(b"\n") || !block.contains(&b'\n') || !data.ends_with(b"\n"));
            for (s, e) in Lines::new(block) {
                got.push(block[s..e].to_vec());
            }
            Ok(())
        })
        .unwrap();
        got
    }

    #[test]
    fn lines_across_chunks_and_endings() {
        let mut long = vec![b'x'; CHUNK + 10];
        long.extend_from_slice(b"\r\nshort\n\nlast");
        let got = collect_lines(&long);
        let lens: Vec<usize> = got.iter().map(Vec::len).collect();
        assert_eq!(lens, vec![CHUNK + 10, 5, 0, 4]);
        assert_eq!(collect_lines(b""), Vec::<Vec<u8>>::new());
        assert_eq!(
            collect_lines(b"a\r\nb\n"),
            vec![b"a".to_vec(), b"b".to_vec()]
        );
        // Many short lines across chunk boundaries.
        let text: String = (0..500_000).map(|i| format!("{i}\n")).collect();
        let got = collect_lines(text.as_bytes());
        assert_eq!(got.len(), 500_000);
        assert_eq!(got[499_999], b"499999".to_vec());
    }

    #[test]
    fn split_counts_fields() {
        assert_eq!(split_fields::<3>("a\tb\tc"), Ok(["a", "b", "c"]));
        assert_eq!(split_fields::<3>("a\t\t"), Ok(["a", "", ""]));
        assert_eq!(split_fields::<3>("a\tb"), Err(2));
        assert_eq!(split_fields::<3>("a\tb\tc\td\te"), Err(5));
        assert_eq!(split_fields::<1>(""), Ok([""]));
        let long = "tt0000001\t1\tnm0000001\tself\t\\N\t[\"Self\"]";
        assert_eq!(
            split_fields::<6>(long),
            Ok(["tt0000001", "1", "nm0000001", "self", "\\N", "[\"Self\"]"])
        );
        // Bytes one above a tab (0x0a) next to tabs are not tabs.
        assert_eq!(
            split_fields::<3>("\t\u{8}\u{8}\t\u{8}\u{8}\u{8}\u{8}\u{8}"),
            Ok(["", "\u{8}\u{8}", "\u{8}\u{8}\u{8}\u{8}\u{8}"])
        );
        assert_eq!(
            split_fields::<2>("ab\t\n\n\n\n\n\n\n\n"),
            Ok(["ab", "\n\n\n\n\n\n\n\n"])
        );
    }

    #[test]
    fn split_matches_naive_on_random_lines() {
        let alphabet = ["\t", "\t", "a", "\u{8}", "\n", "\r", "é", "\\N", "x"];
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..20_000 {
            let mut line = String::new();
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let len = (state % 40) as usize;
            for _ in 0..len {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                line.push_str(alphabet[(state % alphabet.len() as u64) as usize]);
            }
            let naive: Vec<&str> = line.split('\t').collect();
            match split_fields::<4>(&line) {
                Ok(fields) => assert_eq!(fields.to_vec(), naive, "{line:?}"),
                Err(count) => {
                    assert_ne!(naive.len(), 4, "{line:?}");
                    assert_eq!(count, naive.len(), "{line:?}");
                }
            }
            let bytes = line.as_bytes();
            assert_eq!(find_newline(bytes), bytes.iter().position(|&b| b == b'\n'));
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
