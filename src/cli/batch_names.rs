//! Result-file names of `gemp batch`: one distinct name per query file, so two results never go
//! to one path.

use std::collections::HashSet;
use std::path::PathBuf;

/// The result name (file stem) of each query, in order: the query file's stem, or for a stem an
/// earlier query already has (`a/q.cypher`, `b/q.cypher`) the stem with the smallest suffix
/// `-2`, `-3`, … that no query file's own stem and no earlier result uses. Deterministic, and
/// names that differ only in case count as the same (case-insensitive file systems). The second
/// value of each pair is true where the name was changed.
pub fn result_names(queries: &[PathBuf]) -> Vec<(String, bool)> {
    let stem = |q: &PathBuf| {
        q.file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let natural: HashSet<String> = queries.iter().map(|q| stem(q).to_lowercase()).collect();
    let mut used: HashSet<String> = HashSet::new();
    let mut names = Vec::with_capacity(queries.len());
    for q in queries {
        let s = stem(q);
        if used.insert(s.to_lowercase()) {
            names.push((s, false));
            continue;
        }
        let mut n = 2u64;
        let name = loop {
            let candidate = format!("{s}-{n}");
            let key = candidate.to_lowercase();
            if !natural.contains(&key) && used.insert(key) {
                break candidate;
            }
            n += 1;
        };
        names.push((name, true));
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(paths: &[&str]) -> Vec<String> {
        let paths: Vec<PathBuf> = paths.iter().map(PathBuf::from).collect();
        result_names(&paths).into_iter().map(|(n, _)| n).collect()
    }

    #[test]
    fn same_stems_get_numbered_suffixes() {
        assert_eq!(
            names(&["a/q.cypher", "b/q.cypher", "c/q.cypher", "r.cypher"]),
            ["q", "q-2", "q-3", "r"]
        );
    }

    #[test]
    fn suffixes_avoid_other_queries_own_names() {
        assert_eq!(
            names(&["a/q.cypher", "b/q.cypher", "q-2.cypher"]),
            ["q", "q-3", "q-2"]
        );
        assert_eq!(names(&["Q.cypher", "q.cypher"]), ["Q", "q-2"]);
    }

    #[test]
    fn changed_names_are_flagged() {
        let paths = [PathBuf::from("a/q.cypher"), PathBuf::from("b/q.cypher")];
        assert_eq!(
            result_names(&paths),
            [("q".to_owned(), false), ("q-2".to_owned(), true)]
        );
    }
}
