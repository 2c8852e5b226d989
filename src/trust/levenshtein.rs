//! Levenshtein distance and the normalised similarity TruST uses, in fixed point.
//!
//! **Choice.** `S(a, b) = 1 − d(a, b) / max(|a|, |b|)` where `d` is the Levenshtein distance
//! (unit-cost insertions, deletions, substitutions) over Unicode code points, and `S = 1` for two
//! empty strings. It lies in `[0, 1]`, is 1 exactly for equal strings and does not depend on which
//! side is the template.
//!
//! **Fixed point.** Scores are integers in units of `1 / SCALE` ([`SCALE`] = 2^16), rounded to
//! nearest (half up): `S_q = ⌊(2·SCALE·(m − d) + m) / (2m)⌋`. Integer arithmetic makes the host and
//! the OpenCL kernels agree bit for bit (OpenCL does not promise correctly rounded float
//! division), so device and host results can be compared for equality.

/// One unit of score: a similarity of 1.0 is `SCALE`.
pub const SCALE: u32 = 1 << 16;

/// The Levenshtein distance between `a` and `b`, using `row` as scratch (resized as needed; pass
/// the same vector again to avoid allocating).
pub fn distance(a: &[u32], b: &[u32], row: &mut Vec<u32>) -> u32 {
    if a.is_empty() {
        return b.len() as u32;
    }
    if b.is_empty() {
        return a.len() as u32;
    }
    row.clear();
    row.extend(0..=a.len() as u32);
    for (j, &cb) in b.iter().enumerate() {
        let mut diag = row[0];
        row[0] = j as u32 + 1;
        for (i, &ca) in a.iter().enumerate() {
            let up = row[i + 1];
            let sub = diag + u32::from(ca != cb);
            let best = sub.min(up + 1).min(row[i] + 1);
            diag = up;
            row[i + 1] = best;
        }
    }
    row[a.len()]
}

/// A value of at most 64 code points prepared for Myers' bit-parallel edit distance (Hyyrö's
/// formulation): one 64-bit match mask per character. The host computes most distances with it
/// (one word operation per text character); the result is the exact Levenshtein distance, the
/// same number the dynamic programme of [`distance`] and the device kernel give.
#[derive(Debug, Clone)]
pub struct Pattern {
    len: usize,
    ascii: [u64; 128],
    other: Vec<(u32, u64)>,
}

impl Pattern {
    /// The pattern for `a`, or `None` when it is longer than 64 code points.
    pub fn new(a: &[u32]) -> Option<Pattern> {
        if a.len() > 64 {
            return None;
        }
        let mut p = Pattern {
            len: a.len(),
            ascii: [0; 128],
            other: Vec::new(),
        };
        for (i, &c) in a.iter().enumerate() {
            let bit = 1u64 << i;
            if c < 128 {
                p.ascii[c as usize] |= bit;
            } else if let Some(e) = p.other.iter_mut().find(|e| e.0 == c) {
                e.1 |= bit;
            } else {
                p.other.push((c, bit));
            }
        }
        Some(p)
    }

    fn peq(&self, c: u32) -> u64 {
        if c < 128 {
            self.ascii[c as usize]
        } else {
            self.other.iter().find(|e| e.0 == c).map_or(0, |e| e.1)
        }
    }

    /// The Levenshtein distance between the pattern and `b`.
    pub fn distance(&self, b: &[u32]) -> u32 {
        let m = self.len;
        if m == 0 {
            return b.len() as u32;
        }
        let high = 1u64 << (m - 1);
        let (mut pv, mut mv) = (!0u64, 0u64);
        let mut score = m as u32;
        for &c in b {
            let eq = self.peq(c);
            let xv = eq | mv;
            let xh = ((eq & pv).wrapping_add(pv) ^ pv) | eq;
            let mut ph = mv | !(xh | pv);
            let mut mh = pv & xh;
            if ph & high != 0 {
                score += 1;
            } else if mh & high != 0 {
                score -= 1;
            }
            ph = (ph << 1) | 1;
            mh <<= 1;
            pv = mh | !(xv | ph);
            mv = ph & xv;
        }
        score
    }

    /// The fixed-point similarity of the pattern and `b` (equal to [`similarity`]).
    pub fn similarity(&self, b: &[u32]) -> u32 {
        similarity_from_distance(self.distance(b), self.len, b.len())
    }
}

/// The fixed-point similarity for distance `d` between strings of lengths `la` and `lb`.
pub fn similarity_from_distance(d: u32, la: usize, lb: usize) -> u32 {
    let m = la.max(lb) as u64;
    if m == 0 {
        return SCALE;
    }
    let same = m - u64::from(d).min(m);
    ((2 * u64::from(SCALE) * same + m) / (2 * m)) as u32
}

/// The fixed-point similarity `S(a, b)` (see the module docs).
pub fn similarity(a: &[u32], b: &[u32], row: &mut Vec<u32>) -> u32 {
    if a == b {
        return SCALE;
    }
    similarity_from_distance(distance(a, b, row), a.len(), b.len())
}

/// A fixed-point score as a float in `[0, 1]` (for display).
pub fn to_f64(q: u64) -> f64 {
    q as f64 / f64::from(SCALE)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cp(s: &str) -> Vec<u32> {
        s.chars().map(u32::from).collect()
    }

    #[test]
    fn known_distances() {
        let mut row = Vec::new();
        for (a, b, d) in [
            ("kitten", "sitting", 3),
            ("flaw", "lawn", 2),
            ("", "abc", 3),
            ("abc", "", 3),
            ("same", "same", 0),
            ("héllo", "hello", 1),
            ("intention", "execution", 5),
        ] {
            assert_eq!(distance(&cp(a), &cp(b), &mut row), d, "{a} / {b}");
            assert_eq!(distance(&cp(b), &cp(a), &mut row), d, "{b} / {a}");
        }
    }

    proptest::proptest! {
        #[test]
        fn myers_equals_dynamic_programme(a in "[abcé]{0,70}", b in "[abcdé]{0,40}") {
            let (a, b) = (cp(&a), cp(&b));
            let mut row = Vec::new();
            if let Some(p) = Pattern::new(&a) {
                proptest::prop_assert_eq!(p.distance(&b), distance(&a, &b, &mut row));
                proptest::prop_assert_eq!(p.similarity(&b), similarity(&a, &b, &mut row));
            } else {
                proptest::prop_assert!(a.len() > 64);
            }
        }
    }

    #[test]
    fn similarity_rounding() {
        let mut row = Vec::new();
        assert_eq!(similarity(&cp(""), &cp(""), &mut row), SCALE);
        assert_eq!(similarity(&cp("abc"), &cp("xyz"), &mut row), 0);
        // kitten/sitting: 1 - 3/7 = 4/7 of 65536 = 37449.14… → 37449.
        assert_eq!(similarity(&cp("kitten"), &cp("sitting"), &mut row), 37449);
        // 1 - 1/3 = 2/3 → 43690.67 → 43691 (rounded to nearest).
        assert_eq!(similarity(&cp("abc"), &cp("abd"), &mut row), 43691);
    }
}
