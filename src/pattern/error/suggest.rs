//! "Did you mean ...?" suggestions: the known names closest to a misspelt one.

/// The names among `candidates` closest to `name`, best first, at most `max` of them.
///
/// Distance is the optimal-string-alignment edit distance (insertions, deletions, substitutions and
/// swaps of adjacent characters each cost 1), computed case-insensitively. Only candidates within
/// `max(len, 3) / 3` edits are returned (`len` = characters in `name`), so a name of up to five characters
/// gets suggestions one edit away, six to eight characters two edits away, and so on. Ties are broken
/// alphabetically; duplicates are returned once.
pub fn nearest_names<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
    max: usize,
) -> Vec<&'a str> {
    let target: Vec<char> = name.chars().flat_map(char::to_lowercase).collect();
    let limit = (target.len().max(3) / 3).max(1);
    let mut scored: Vec<(usize, &'a str)> = candidates
        .into_iter()
        .filter_map(|candidate| {
            let lowered: Vec<char> = candidate.chars().flat_map(char::to_lowercase).collect();
            // The length difference is a lower bound on the distance: skip hopeless candidates cheaply.
            if lowered.len().abs_diff(target.len()) > limit {
                return None;
            }
            let distance = edit_distance(&target, &lowered);
            (distance <= limit).then_some((distance, candidate))
        })
        .collect();
    scored.sort_unstable();
    scored.dedup_by(|a, b| a.1 == b.1);
    scored.into_iter().take(max).map(|(_, c)| c).collect()
}

/// Optimal string alignment distance between `a` and `b`.
fn edit_distance(a: &[char], b: &[char]) -> usize {
    // Three rolling rows: two rows back (for swaps), previous and current.
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    let mut current: Vec<usize> = vec![0; b.len() + 1];
    for (i, &ca) in a.iter().enumerate() {
        current[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != cb);
            let mut best = substitution.min(previous[j + 1] + 1).min(current[j] + 1);
            if i > 0 && j > 0 && a[i - 1] == cb && ca == b[j - 1] {
                best = best.min(before[j - 1] + 1);
            }
            current[j + 1] = best;
        }
        std::mem::swap(&mut before, &mut previous);
        std::mem::swap(&mut previous, &mut current);
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn distance(a: &str, b: &str) -> usize {
        let a: Vec<char> = a.chars().collect();
        let b: Vec<char> = b.chars().collect();
        edit_distance(&a, &b)
    }

    #[test]
    fn edit_distances() {
        assert_eq!(distance("", ""), 0);
        assert_eq!(distance("abc", ""), 3);
        assert_eq!(distance("", "abc"), 3);
        assert_eq!(distance("kitten", "sitting"), 3);
        assert_eq!(distance("Persn", "Person"), 1);
        assert_eq!(distance("Moive", "Movie"), 1);
        assert_eq!(distance("ab", "ba"), 1);
        assert_eq!(distance("ca", "abc"), 3);
    }

    #[test]
    fn suggests_close_names_best_first() {
        let known = ["Person", "Movie", "Persona", "Company"];
        assert_eq!(nearest_names("Persn", known, 3), vec!["Person"]);
        assert_eq!(
            nearest_names("persons", known, 3),
            vec!["Person", "Persona"]
        );
        assert_eq!(nearest_names("Moive", known, 3), vec!["Movie"]);
        assert_eq!(nearest_names("PERSON", known, 1), vec!["Person"]);
        assert_eq!(nearest_names("Person", known, 0), Vec::<&str>::new());
    }

    #[test]
    fn ignores_distant_names_and_duplicates() {
        assert!(nearest_names("Actor", ["Movie", "Genre"], 5).is_empty());
        assert!(nearest_names("", ["Movie"], 5).is_empty());
        assert_eq!(nearest_names("ag", ["age", "age", "name"], 5), vec!["age"]);
        assert_eq!(
            nearest_names("x", ["y", "a", "xx"], 5),
            vec!["a", "xx", "y"]
        );
    }
}
