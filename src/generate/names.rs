//! Built-in word lists for the synthetic IMDb generator: first names (by gender, most common first,
//! sampled with Zipf-like weights so that e.g. "Jack" is common), last names, title words and
//! character roles. A few entries are non-ASCII (José, Zoë, Müller, Ólafur…) to exercise UTF-8
//! handling downstream. No entry contains a tab, a newline, a double quote or a backslash.
//!
//! The lists are data files in `words/`, one entry per line in sampling order, embedded with
//! `include_str!` and split into lines once, on first use. Their order is part of the generator's
//! output: reordering, adding or removing an entry changes the bytes generated for a seed.

use std::sync::LazyLock;

/// A word list: the lines of an embedded data file, split once on first use.
pub(crate) type Words = LazyLock<Box<[&'static str]>>;

/// The entries of `text`, one per line (the final newline ends the last entry).
fn lines(text: &'static str) -> Box<[&'static str]> {
    text.lines().collect()
}

/// A [`Words`] list read from `words/<file>`.
macro_rules! words {
    ($file:literal) => {
        LazyLock::new(|| lines(include_str!(concat!("words/", $file))))
    };
}

/// Male first names, roughly most common first (rank decides the sampling weight).
pub(crate) static MALE_FIRST: Words = words!("male_first.txt");

/// Female first names, roughly most common first.
pub(crate) static FEMALE_FIRST: Words = words!("female_first.txt");

/// Last names, roughly most common first.
pub(crate) static LAST: Words = words!("last.txt");

/// Adjectives for generated titles.
pub(crate) static TITLE_ADJ: Words = words!("title_adj.txt");

/// Nouns for generated titles.
pub(crate) static TITLE_NOUN: Words = words!("title_noun.txt");

/// Places for "… in …" titles.
pub(crate) static TITLE_PLACE: Words = words!("title_place.txt");

/// Foreign-language words for original titles (exercise non-ASCII output).
pub(crate) static FOREIGN_TITLE: Words = words!("foreign_title.txt");

/// Character roles used as character names ("Detective", "Nurse" …).
pub(crate) static ROLES: Words = words!("roles.txt");

/// "Self" roles for self credits (rendered as `Self`, `Self - Host` …).
pub(crate) static SELF_ROLES: Words = words!("self_roles.txt");

/// English month names for "Episode dated …" titles.
pub(crate) static MONTHS: Words = words!("months.txt");

/// Writer job descriptions (the `job` column of writer credits).
pub(crate) static WRITER_JOBS: Words = words!("writer_jobs.txt");

/// Producer job descriptions.
pub(crate) static PRODUCER_JOBS: Words = words!("producer_jobs.txt");

/// Cinematographer job descriptions.
pub(crate) static CINEMATOGRAPHER_JOBS: Words = words!("cinematographer_jobs.txt");

/// Extra professions some persons list besides the ones they have principal credits in.
pub(crate) static EXTRA_PROFESSIONS: Words = words!("extra_professions.txt");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_are_clean() {
        let all: [&[&str]; 14] = [
            &MALE_FIRST,
            &FEMALE_FIRST,
            &LAST,
            &TITLE_ADJ,
            &TITLE_NOUN,
            &TITLE_PLACE,
            &FOREIGN_TITLE,
            &ROLES,
            &SELF_ROLES,
            &MONTHS,
            &WRITER_JOBS,
            &PRODUCER_JOBS,
            &CINEMATOGRAPHER_JOBS,
            &EXTRA_PROFESSIONS,
        ];
        for list in all {
            assert!(!list.is_empty());
            for s in list {
                assert!(!s.is_empty());
                assert_eq!(s.trim(), *s, "padded entry");
                assert!(!s.contains(['\t', '\n', '\r', '"', '\\']), "{s}");
            }
        }
        let distinct: [&[&str]; 6] = [
            &MALE_FIRST,
            &FEMALE_FIRST,
            &LAST,
            &TITLE_ADJ,
            &TITLE_NOUN,
            &ROLES,
        ];
        for list in distinct {
            let mut seen = std::collections::HashSet::new();
            assert!(list.iter().all(|s| seen.insert(*s)), "duplicate entry");
        }
        assert!(MALE_FIRST.len() >= 200 && FEMALE_FIRST.len() >= 200 && LAST.len() >= 200);
        assert_eq!(MALE_FIRST[1], "Jack");
        assert!(LAST.iter().any(|s| !s.is_ascii()));
    }

    #[test]
    fn lists_keep_their_sizes() {
        // The generator's bytes for a seed depend on every list's length and order.
        let sizes = [
            MALE_FIRST.len(),
            FEMALE_FIRST.len(),
            LAST.len(),
            TITLE_ADJ.len(),
            TITLE_NOUN.len(),
            TITLE_PLACE.len(),
            FOREIGN_TITLE.len(),
            ROLES.len(),
            SELF_ROLES.len(),
            MONTHS.len(),
            WRITER_JOBS.len(),
            PRODUCER_JOBS.len(),
            CINEMATOGRAPHER_JOBS.len(),
            EXTRA_PROFESSIONS.len(),
        ];
        assert_eq!(
            sizes,
            [281, 252, 312, 80, 145, 42, 47, 74, 12, 12, 10, 9, 3, 20]
        );
    }
}
