//! Fast external-key lookup for IMDb ids: `tt`/`nm` + digits map through the numeric part to the node
//! id, so the builder's string-keyed hash table is consulted only once per distinct id.

/// What an id's prefix says the node is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum IdKind {
    /// `tt…`: a title.
    Title,
    /// `nm…`: a person.
    Person,
    /// Anything else.
    Other,
}

/// Classifies `key` by prefix and, when it is in canonical IMDb form, returns its number.
///
/// Canonical means `tt`/`nm` followed by at least 7 digits, zero-padded to exactly 7 when the number
/// is below 10^7 and without leading zeros above, and a value that fits a `u32`: then the string and
/// the number determine each other, so the number can stand for the key.
#[inline]
pub(crate) fn classify(key: &str) -> (IdKind, Option<u32>) {
    let bytes = key.as_bytes();
    let kind = match bytes.get(..2) {
        Some(b"tt") => IdKind::Title,
        Some(b"nm") => IdKind::Person,
        _ => return (IdKind::Other, None),
    };
    // Fast paths for the usual 7 and 8 digits: eight digits at a time.
    match bytes.len() {
        9 => {
            // The byte before the 7 digits becomes a leading '0'.
            let word = (word_from(&bytes[1..9]) & !0xff) | u64::from(b'0');
            return (kind, eight_digits(word));
        }
        10 if bytes[2] != b'0' => return (kind, eight_digits(word_from(&bytes[2..10]))),
        _ => {}
    }
    let digits = &bytes[2..];
    if digits.len() < 7 || digits.len() > 10 || (digits.len() > 7 && digits[0] == b'0') {
        return (kind, None);
    }
    let mut v: u64 = 0;
    for &d in digits {
        let digit = d.wrapping_sub(b'0');
        if digit > 9 {
            return (kind, None);
        }
        v = v * 10 + u64::from(digit);
    }
    if v > u64::from(u32::MAX) {
        return (kind, None);
    }
    (kind, Some(v as u32))
}

#[inline(always)]
fn word_from(eight: &[u8]) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(eight);
    u64::from_le_bytes(w)
}

/// The value of eight ASCII digits (first byte most significant), or `None` if one is not a digit.
#[inline(always)]
fn eight_digits(word: u64) -> Option<u32> {
    const HIGH: u64 = 0xf0f0_f0f0_f0f0_f0f0;
    let all_digits = (word & HIGH) | ((word.wrapping_add(0x0606_0606_0606_0606) & HIGH) >> 4)
        == 0x3333_3333_3333_3333;
    if !all_digits {
        return None;
    }
    let v = word.wrapping_sub(0x3030_3030_3030_3030);
    let v = v.wrapping_mul(10).wrapping_add(v >> 8);
    let v = ((v & 0x0000_00ff_0000_00ff).wrapping_mul(100 + (1_000_000 << 32)))
        .wrapping_add(((v >> 16) & 0x0000_00ff_0000_00ff).wrapping_mul(1 + (10_000 << 32)))
        >> 32;
    Some(v as u32)
}

const PAGE_BITS: u32 = 16;
const PAGE: usize = 1 << PAGE_BITS;
const EMPTY: u32 = u32::MAX;

/// A sparse `u32 -> u32` map in 64 Ki-entry pages allocated on first use: dense id ranges cost
/// 4 bytes per number, a stray huge number costs one page.
#[derive(Default)]
pub(crate) struct IdMap {
    pages: Vec<Option<Box<[u32]>>>,
}

impl IdMap {
    /// The node stored for `number`.
    #[inline]
    pub(crate) fn get(&self, number: u32) -> Option<u32> {
        let page = self.pages.get((number >> PAGE_BITS) as usize)?.as_ref()?;
        let id = *page.get(number as usize & (PAGE - 1))?;
        (id != EMPTY).then_some(id)
    }

    /// The raw entry for `number` (`u32::MAX` when absent); a plain load, used to pull entries into
    /// the cache ahead of use.
    #[inline]
    pub(crate) fn peek(&self, number: u32) -> u32 {
        match self.pages.get((number >> PAGE_BITS) as usize) {
            Some(Some(page)) => page
                .get(number as usize & (PAGE - 1))
                .copied()
                .unwrap_or(EMPTY),
            _ => EMPTY,
        }
    }

    /// Stores `node` for `number`.
    pub(crate) fn set(&mut self, number: u32, node: u32) {
        let p = (number >> PAGE_BITS) as usize;
        if p >= self.pages.len() {
            self.pages.resize_with(p + 1, || None);
        }
        let page = self.pages[p].get_or_insert_with(|| vec![EMPTY; PAGE].into_boxed_slice());
        page[number as usize & (PAGE - 1)] = node;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_ids() {
        assert_eq!(classify("tt0000001"), (IdKind::Title, Some(1)));
        assert_eq!(classify("nm9999999"), (IdKind::Person, Some(9_999_999)));
        assert_eq!(classify("tt10000000"), (IdKind::Title, Some(10_000_000)));
        assert_eq!(classify("tt4294967295"), (IdKind::Title, Some(u32::MAX)));
        // Not canonical: short, padded beyond 7 digits, non-digits, too large.
        assert_eq!(classify("tt1"), (IdKind::Title, None));
        assert_eq!(classify("tt00000001"), (IdKind::Title, None));
        assert_eq!(classify("tt000000x"), (IdKind::Title, None));
        assert_eq!(classify("tt4294967296"), (IdKind::Title, None));
        assert_eq!(classify("nm"), (IdKind::Person, None));
        assert_eq!(classify("co0000001"), (IdKind::Other, None));
        assert_eq!(classify("t"), (IdKind::Other, None));
        assert_eq!(classify("ttü000001"), (IdKind::Title, None));
    }

    /// The digit-by-digit definition the fast paths must agree with.
    fn slow(key: &str) -> Option<u32> {
        let digits = key.get(2..)?;
        if !(7..=10).contains(&digits.len())
            || (digits.len() > 7 && digits.starts_with('0'))
            || !digits.bytes().all(|b| b.is_ascii_digit())
        {
            return None;
        }
        digits
            .parse::<u64>()
            .ok()
            .and_then(|v| u32::try_from(v).ok())
    }

    #[test]
    fn fast_paths_agree_with_definition() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut keys: Vec<String> = Vec::new();
        for _ in 0..200_000 {
            let n = next();
            keys.push(format!("tt{:07}", n % 10_000_000));
            keys.push(format!("nm{}", n % 100_000_000));
            // Corrupt one byte of a canonical key.
            let mut k = format!("tt{:07}", n % 10_000_000).into_bytes();
            let at = 2 + (n >> 40) as usize % 7;
            k[at] = [b'/', b':', b'a', b' ', 0x7f, b'0' - 16, b'9' + 16][(n >> 50) as usize % 7];
            keys.push(String::from_utf8(k).unwrap());
        }
        for k in [
            "tt0000000",
            "tt9999999",
            "tt10000000",
            "tt99999999",
            "nm00000000",
            "tt0123456",
        ] {
            keys.push(k.to_string());
        }
        for k in &keys {
            assert_eq!(classify(k).1, slow(k), "{k}");
        }
    }

    #[test]
    fn sparse_map() {
        let mut m = IdMap::default();
        assert_eq!(m.get(5), None);
        m.set(5, 7);
        m.set(u32::MAX, 1);
        assert_eq!(m.get(5), Some(7));
        assert_eq!(m.get(6), None);
        assert_eq!(m.get(u32::MAX), Some(1));
        assert_eq!(m.get(1 << 20), None);
    }
}
