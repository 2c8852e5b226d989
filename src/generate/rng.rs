//! Small, fast, deterministic pseudo-random number generation for the synthetic data generators.
//!
//! No external `rand` crate: [`SplitMix64`] (one `u64` of state; used for seeding and for the cheap
//! per-entity streams that make generation order-independent and parallel), [`Xoshiro256StarStar`]
//! (a long-period general-purpose generator), the [`Rng`] trait with the usual helpers (uniform
//! ranges, Bernoulli, Pareto / bounded power-law, Poisson, normal, small weighted choice) and an
//! [`AliasTable`] for O(1) weighted sampling over millions of items.
//!
//! Everything here is bit-for-bit reproducible across platforms: the same seed gives the same stream.

/// The golden-ratio increment used by SplitMix64.
const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

/// The SplitMix64 output function: a strong 64-bit mixer (bijective).
#[inline]
pub fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Hashes a seed, a stream tag and an index into a well-mixed 64-bit value: the seed of the
/// independent stream for entity `index` of kind `stream`.
#[inline]
pub fn stream_seed(seed: u64, stream: u64, index: u64) -> u64 {
    mix64(
        mix64(seed ^ stream.wrapping_mul(GOLDEN)).wrapping_add(index.wrapping_mul(GOLDEN)) ^ stream,
    )
}

/// A source of uniformly distributed 64-bit words, with derived sampling helpers.
pub trait Rng {
    /// The next uniformly distributed 64-bit word.
    fn next_u64(&mut self) -> u64;

    /// A uniform `f64` in `[0, 1)` with 53 bits of precision.
    #[inline]
    fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// A uniform `f64` in `(0, 1]` (never zero: safe for logarithms and negative powers).
    #[inline]
    fn next_f64_nonzero(&mut self) -> f64 {
        ((self.next_u64() >> 11) + 1) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// A uniform integer in `[0, n)`; `n == 0` returns 0. Lemire's multiply-shift (bias below
    /// 2^-32 for the sizes used here, far below anything observable).
    #[inline]
    fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// A uniform integer in the inclusive range `[lo, hi]` (`hi < lo` returns `lo`).
    #[inline]
    fn range(&mut self, lo: u64, hi: u64) -> u64 {
        if hi <= lo {
            lo
        } else {
            lo + self.below(hi - lo + 1)
        }
    }

    /// True with probability `p` (clamped to `[0, 1]`).
    #[inline]
    fn bernoulli(&mut self, p: f64) -> bool {
        self.next_f64() < p
    }

    /// A uniformly chosen element of a non-empty slice.
    #[inline]
    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u64) as usize]
    }

    /// A continuous Pareto sample: `P(X > x) = (xmin / x)^alpha` for `x >= xmin` (inverse CDF).
    #[inline]
    fn pareto(&mut self, xmin: f64, alpha: f64) -> f64 {
        xmin * self.next_f64_nonzero().powf(-1.0 / alpha)
    }

    /// A discrete power-law integer in `[min, max]`: the floor of a Pareto(`min`, `alpha`) sample
    /// truncated to the range by inverting the truncated CDF (no rejection loop).
    fn power_law(&mut self, min: u64, max: u64, alpha: f64) -> u64 {
        let min = min.max(1);
        if max <= min {
            return min;
        }
        let lo = min as f64;
        let hi = (max + 1) as f64;
        // Truncated Pareto on [lo, hi): F(x) = (1 - (lo/x)^a) / (1 - (lo/hi)^a).
        let tail = (lo / hi).powf(alpha);
        let u = self.next_f64();
        let x = lo * (1.0 - u * (1.0 - tail)).powf(-1.0 / alpha);
        (x as u64).clamp(min, max)
    }

    /// A standard normal sample (Box–Muller; one of the pair is discarded for simplicity).
    fn normal(&mut self, mean: f64, sd: f64) -> f64 {
        let u1 = self.next_f64_nonzero();
        let u2 = self.next_f64();
        mean + sd * (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    }

    /// A Poisson sample with mean `lambda` (Knuth's product method; meant for `lambda` below ~30,
    /// larger means use a rounded normal approximation).
    fn poisson(&mut self, lambda: f64) -> u64 {
        if lambda <= 0.0 {
            return 0;
        }
        if lambda > 30.0 {
            return self.normal(lambda, lambda.sqrt()).round().max(0.0) as u64;
        }
        let limit = (-lambda).exp();
        let mut k = 0u64;
        let mut p = self.next_f64();
        while p > limit {
            k += 1;
            p *= self.next_f64();
        }
        k
    }

    /// An index into `weights` chosen with probability proportional to its weight (linear scan:
    /// for short lists; use [`AliasTable`] for long ones). Returns 0 when all weights are zero.
    fn weighted(&mut self, weights: &[f64]) -> usize {
        let total: f64 = weights.iter().sum();
        let mut x = self.next_f64() * total;
        for (i, &w) in weights.iter().enumerate() {
            if x < w {
                return i;
            }
            x -= w;
        }
        weights.iter().rposition(|&w| w > 0.0).unwrap_or(0)
    }
}

/// SplitMix64 (Steele, Lea & Flood): one word of state, passes BigCrush, ideal for seeding and for
/// short per-entity streams.
#[derive(Debug, Clone)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator starting from `seed`.
    #[inline]
    pub fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    /// The independent stream for entity `index` of kind `stream` under `seed`
    /// (see [`stream_seed`]).
    #[inline]
    pub fn for_stream(seed: u64, stream: u64, index: u64) -> Self {
        SplitMix64::new(stream_seed(seed, stream, index))
    }
}

impl Rng for SplitMix64 {
    #[inline]
    fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(GOLDEN);
        mix64(self.state)
    }
}

/// xoshiro256** (Blackman & Vigna): 256 bits of state, period 2^256 - 1, very fast.
#[derive(Debug, Clone)]
pub struct Xoshiro256StarStar {
    s: [u64; 4],
}

impl Xoshiro256StarStar {
    /// A generator whose state is filled from SplitMix64(`seed`), as the authors recommend.
    pub fn new(seed: u64) -> Self {
        let mut sm = SplitMix64::new(seed);
        let s = [sm.next_u64(), sm.next_u64(), sm.next_u64(), sm.next_u64()];
        Xoshiro256StarStar { s }
    }
}

impl Rng for Xoshiro256StarStar {
    #[inline]
    fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let result = s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }
}

/// Zipf-like rank weights `1 / rank^s` for ranks `1..=n`, for use with [`AliasTable`].
pub fn zipf_weights(n: usize, s: f64) -> Vec<f64> {
    (1..=n).map(|r| (r as f64).powf(-s)).collect()
}

/// Walker / Vose alias table: O(1) sampling of an index with probability proportional to its
/// weight. Memory: 8 bytes per entry (a 32-bit threshold and a 32-bit alias, side by side so that
/// a draw touches one cache line).
#[derive(Debug, Clone)]
pub struct AliasTable {
    /// Per slot: acceptance threshold scaled to 2^32 (`u32::MAX` = always accept), and the index
    /// taken when the threshold test fails.
    entries: Vec<(u32, u32)>,
}

impl AliasTable {
    /// Builds the table from non-negative weights (at most `u32::MAX` of them). Returns `None` when
    /// the list is empty or every weight is zero (or not finite).
    pub fn new(weights: &[f64]) -> Option<Self> {
        let n = weights.len();
        if n == 0 || n > u32::MAX as usize {
            return None;
        }
        let clean = |w: f64| if w.is_finite() && w > 0.0 { w } else { 0.0 };
        let total: f64 = weights.iter().map(|&w| clean(w)).sum();
        if total <= 0.0 || !total.is_finite() {
            return None;
        }
        let scale = n as f64 / total;
        let mut scaled: Vec<f64> = weights.iter().map(|&w| clean(w) * scale).collect();
        let mut small: Vec<u32> = Vec::new();
        let mut large: Vec<u32> = Vec::new();
        for (i, &p) in scaled.iter().enumerate() {
            if p < 1.0 {
                small.push(i as u32);
            } else {
                large.push(i as u32);
            }
        }
        let mut entries: Vec<(u32, u32)> = (0..n as u32).map(|i| (u32::MAX, i)).collect();
        while let (Some(&s), Some(&l)) = (small.last(), large.last()) {
            small.pop();
            entries[s as usize] = (to_threshold(scaled[s as usize]), l);
            let rest = (scaled[l as usize] + scaled[s as usize]) - 1.0;
            scaled[l as usize] = rest;
            if rest < 1.0 {
                large.pop();
                small.push(l);
            }
        }
        // Whatever is left (numerical leftovers) is accepted with certainty.
        for i in small.into_iter().chain(large) {
            entries[i as usize] = (u32::MAX, i);
        }
        Some(AliasTable { entries })
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when the table has no entries (never, for a table built by [`AliasTable::new`]).
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Draws an index with probability proportional to its weight (one 64-bit draw).
    #[inline]
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> usize {
        let x = rng.next_u64();
        let slot = (((x >> 32) * self.entries.len() as u64) >> 32) as usize;
        let (threshold, alias) = self.entries[slot];
        if (x as u32) < threshold || threshold == u32::MAX {
            slot
        } else {
            alias as usize
        }
    }
}

/// An alias table over 32-bit values (e.g. person ids) rather than indices: each slot stores its
/// threshold, its own value and its alias's value, so a draw costs a single memory access even
/// when the table is far larger than the caches. Memory: 12 bytes per value.
#[derive(Debug, Clone)]
pub struct WeightedValues {
    entries: Vec<[u32; 3]>,
}

impl WeightedValues {
    /// Builds the sampler; `values` and `weights` have the same length. Returns `None` when the
    /// lengths differ or no weight is positive (see [`AliasTable::new`]).
    pub fn new(values: &[u32], weights: &[f64]) -> Option<Self> {
        if values.len() != weights.len() {
            return None;
        }
        let table = AliasTable::new(weights)?;
        let entries = table
            .entries
            .iter()
            .enumerate()
            .map(|(i, &(threshold, alias))| [threshold, values[i], values[alias as usize]])
            .collect();
        Some(WeightedValues { entries })
    }

    /// Number of values.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when there are no values (never, for a sampler built by [`WeightedValues::new`]).
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Draws a value with probability proportional to its weight (one 64-bit draw).
    #[inline]
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> u32 {
        let x = rng.next_u64();
        let slot = (((x >> 32) * self.entries.len() as u64) >> 32) as usize;
        let [threshold, own, alias] = self.entries[slot];
        if (x as u32) < threshold || threshold == u32::MAX {
            own
        } else {
            alias
        }
    }
}

/// Maps a probability in `[0, 1]` to a 32-bit acceptance threshold.
fn to_threshold(p: f64) -> u32 {
    if p >= 1.0 {
        u32::MAX
    } else if p <= 0.0 {
        0
    } else {
        (p * 4_294_967_296.0) as u32
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    #[test]
    fn splitmix_reference_values() {
        // Reference outputs of SplitMix64 seeded with 1234567 (from the published C code).
        let mut r = SplitMix64::new(1234567);
        assert_eq!(r.next_u64(), 6457827717110365317);
        assert_eq!(r.next_u64(), 3203168211198807973);
    }

    #[test]
    fn below_and_range_stay_in_bounds() {
        let mut r = Xoshiro256StarStar::new(7);
        for _ in 0..10_000 {
            assert!(r.below(13) < 13);
            let x = r.range(5, 9);
            assert!((5..=9).contains(&x));
        }
        assert_eq!(r.below(0), 0);
        assert_eq!(r.range(4, 4), 4);
    }

    #[test]
    fn alias_table_matches_weights() {
        let w = [1.0, 0.0, 3.0, 6.0];
        let t = AliasTable::new(&w).unwrap();
        let mut r = SplitMix64::new(99);
        let mut counts = [0u32; 4];
        let n = 200_000;
        for _ in 0..n {
            counts[t.sample(&mut r)] += 1;
        }
        assert_eq!(counts[1], 0);
        for (i, &wi) in w.iter().enumerate() {
            let expect = wi / 10.0;
            let got = counts[i] as f64 / n as f64;
            assert!((got - expect).abs() < 0.01, "{i}: {got} vs {expect}");
        }
        assert!(AliasTable::new(&[]).is_none());
        let v = WeightedValues::new(&[10, 20, 30, 40], &w).unwrap();
        let mut counts = HashMap::new();
        for _ in 0..n {
            *counts.entry(v.sample(&mut r)).or_insert(0u32) += 1;
        }
        assert!(!counts.contains_key(&20));
        assert!((counts[&40] as f64 / n as f64 - 0.6).abs() < 0.01);
        assert!(WeightedValues::new(&[1], &[1.0, 2.0]).is_none());
        assert!(AliasTable::new(&[0.0, 0.0]).is_none());
    }

    #[test]
    fn power_law_is_heavy_tailed_and_bounded() {
        let mut r = SplitMix64::new(3);
        let mut xs: Vec<u64> = (0..50_000).map(|_| r.power_law(1, 10_000, 1.2)).collect();
        xs.sort_unstable();
        assert!(xs.iter().all(|&x| (1..=10_000).contains(&x)));
        assert!(xs[xs.len() / 2] <= 2);
        assert!(*xs.last().unwrap() > 1000);
    }

    #[test]
    fn poisson_mean() {
        let mut r = SplitMix64::new(5);
        let n = 50_000;
        let mean = (0..n).map(|_| r.poisson(4.5)).sum::<u64>() as f64 / n as f64;
        assert!((mean - 4.5).abs() < 0.05, "{mean}");
    }
}
