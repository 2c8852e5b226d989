//! The one path expander of the loaders: the inputs a command line names (files and
//! directories) become the files to read. A directory gives the regular files directly inside
//! it (not recursively) that a loader accepts, sorted by path; a file named explicitly is kept
//! whatever its name. Every loader expands its inputs here, each with its own file-name test.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// The lower-cased file name of `path` (empty when it has none).
pub fn lower_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().to_lowercase())
        .unwrap_or_default()
}

/// True when the lower-cased file name of `path` ends with one of `suffixes` (given lower-case,
/// with their dot: `.xmi`, `.xmi.gz`).
pub fn has_suffix(path: &Path, suffixes: &[&str]) -> bool {
    let name = lower_name(path);
    suffixes.iter().any(|s| name.ends_with(s))
}

/// The regular files directly inside `dir` that `accept` takes, sorted by path. An unreadable
/// directory or entry is an error naming `dir`.
pub fn dir_files(dir: &Path, accept: impl Fn(&Path) -> bool) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))? {
        let path = entry.map_err(|e| Error::io(dir, e))?.path();
        if path.is_file() && accept(&path) {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

/// Expands `paths` in order: a directory to its files that `accept` takes ([`dir_files`]), an
/// existing file to itself (whatever its name); a path that does not exist is an error naming it.
pub fn expand_paths_by(paths: &[PathBuf], accept: impl Fn(&Path) -> bool) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            out.extend(dir_files(p, &accept)?);
        } else if p.exists() {
            out.push(p.clone());
        } else {
            return Err(Error::io(
                p,
                std::io::Error::new(std::io::ErrorKind::NotFound, "no such file or directory"),
            ));
        }
    }
    Ok(out)
}

/// Expands directories to all the files they contain (see [`expand_paths_by`]).
pub fn expand_paths(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    expand_paths_by(paths, |_| true)
}

/// Like [`expand_paths`], but a directory gives only its files whose lower-cased name ends with
/// one of `suffixes` (files named explicitly are kept whatever their name).
pub fn expand_paths_with(paths: &[PathBuf], suffixes: &[&str]) -> Result<Vec<PathBuf>> {
    expand_paths_by(paths, |p| has_suffix(p, suffixes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directories_give_accepted_files_sorted() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        for n in ["b.XMI", "a.xmi.gz", "c.json", "notes.txt"] {
            std::fs::write(d.join(n), "x").unwrap();
        }
        std::fs::create_dir(d.join("sub.xmi")).unwrap();
        let extra = d.join("notes.txt");
        let got = expand_paths_with(&[d.to_path_buf(), extra.clone()], &[".xmi", ".xmi.gz"]);
        assert_eq!(
            got.unwrap(),
            vec![d.join("a.xmi.gz"), d.join("b.XMI"), extra.clone()]
        );
        assert_eq!(expand_paths(&[d.to_path_buf()]).unwrap().len(), 4);
        let missing = expand_paths(&[d.join("missing.xmi")]).unwrap_err();
        assert!(missing.to_string().contains("missing.xmi"), "{missing}");
    }
}
