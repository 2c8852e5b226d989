//! The manifest of a directory export (`gemp-export.json`): what makes a directory of files one
//! complete export that a reader can tell from a mixed or incomplete one.
//!
//! The writer ([`crate::io::neo4j_csv::write_dir_with`]) writes the manifest last, into a
//! temporary directory that is then swapped into place ([`crate::util::safe_dir`]). It lists
//! every data file with its data rows (the header not counted), size and xxh3 checksum, and the
//! node and edge totals. A reader of a directory with a manifest ([`verify`]) checks, before
//! loading anything, that every listed file is there with its size, checksum and row count, that
//! the totals add up, and that no data file the manifest does not list is in the directory (a file
//! of another export, which would be loaded with this one). A directory without a manifest (CSV
//! files made by hand or by Neo4j) is read as before.
//!
//! Checking costs one read of the files (hashed at memory speed, in parallel) before they are
//! parsed.

use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// The manifest's file name, in the export directory.
pub const MANIFEST_NAME: &str = "gemp-export.json";

/// The manifest layout version this gemp writes and reads.
pub const MANIFEST_VERSION: u32 = 1;

/// A directory export's manifest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// Layout version ([`MANIFEST_VERSION`]).
    pub gemp_export: u32,
    /// The export format (`neo4j-csv`).
    pub format: String,
    /// The gemp version that wrote it.
    pub gemp_version: String,
    /// Nodes in the export (the sum of the node files' rows).
    pub nodes: u64,
    /// Edges in the export (the sum of the relationship files' rows).
    pub edges: u64,
    /// Every data file of the export.
    pub files: Vec<ManifestFile>,
}

/// One data file of an export.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ManifestFile {
    /// File name, in the export directory.
    pub name: String,
    /// `nodes` or `relationships`.
    pub kind: FileKind,
    /// Data rows (records after the header line).
    pub rows: u64,
    /// Size in bytes.
    pub bytes: u64,
    /// xxh3-64 checksum of the whole file, 16 lower-case hex digits.
    pub xxh3: String,
}

/// What a data file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FileKind {
    /// Node rows.
    Nodes,
    /// Relationship rows.
    Relationships,
}

impl Manifest {
    /// A manifest of `format` over `files`, with the totals summed from them.
    pub fn new(format: &str, files: Vec<ManifestFile>) -> Self {
        let total = |k: FileKind| files.iter().filter(|f| f.kind == k).map(|f| f.rows).sum();
        Manifest {
            gemp_export: MANIFEST_VERSION,
            format: format.to_owned(),
            gemp_version: env!("CARGO_PKG_VERSION").to_owned(),
            nodes: total(FileKind::Nodes),
            edges: total(FileKind::Relationships),
            files,
        }
    }

    /// The manifest as pretty JSON (what is written).
    pub fn to_json(&self) -> Vec<u8> {
        let mut v = serde_json::to_vec_pretty(self).unwrap_or_default();
        v.push(b'\n');
        v
    }
}

/// Formats a checksum as the manifest writes it.
pub fn hex(sum: u64) -> String {
    format!("{sum:016x}")
}

/// True when directory `dir` holds an export manifest.
pub fn has_manifest(dir: &Path) -> bool {
    dir.is_dir() && dir.join(MANIFEST_NAME).is_file()
}

/// Reads `dir`'s manifest: `None` when there is none; an error naming the file when it is not one.
pub fn read(dir: &Path) -> Result<Option<Manifest>> {
    let path = dir.join(MANIFEST_NAME);
    let text = match std::fs::read(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io(&path, e)),
    };
    let bad = |message: String| Error::BadFile {
        path: path.clone(),
        message,
    };
    let m: Manifest = serde_json::from_slice(&text).map_err(|e| {
        bad(format!(
            "not a gemp export manifest ({e}); the export is damaged"
        ))
    })?;
    if m.gemp_export != MANIFEST_VERSION {
        return Err(bad(format!(
            "manifest version {}, this gemp reads version {MANIFEST_VERSION}",
            m.gemp_export
        )));
    }
    Ok(Some(m))
}

/// The records of CSV `bytes` as written by the export (records end with `\n` outside quotes;
/// a quote inside a quoted field is doubled, so counting quotes tells inside from outside).
fn count_lines(bytes: &[u8], in_quotes: &mut bool) -> u64 {
    let mut n = 0;
    for i in memchr::memchr2_iter(b'"', b'\n', bytes) {
        if bytes[i] == b'"' {
            *in_quotes = !*in_quotes;
        } else if !*in_quotes {
            n += 1;
        }
    }
    n
}

/// Size, xxh3 checksum and data rows of file `path` (streamed).
fn measure(path: &Path) -> std::io::Result<(u64, u64, u64)> {
    use std::io::Read;
    let mut f = std::fs::File::open(path)?;
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    let mut buf = vec![0u8; 1 << 20];
    let (mut bytes, mut lines, mut in_quotes) = (0u64, 0u64, false);
    loop {
        let n = f.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
        lines += count_lines(&buf[..n], &mut in_quotes);
        bytes += n as u64;
    }
    // The header line is not a data row.
    Ok((bytes, hasher.digest(), lines.saturating_sub(1)))
}

/// Checks directory `dir` against its manifest (see the module docs); `is_data_file(name)`
/// tells the files a loader of the format would read. Returns the manifest, or `None` when the
/// directory has none (nothing is checked then). The error names the first offending file and
/// says what is wrong with it.
pub fn verify(dir: &Path, is_data_file: impl Fn(&str) -> bool) -> Result<Option<Manifest>> {
    let Some(m) = read(dir)? else {
        return Ok(None);
    };
    let manifest = dir.join(MANIFEST_NAME);
    let bad = |path: PathBuf, message: String| Error::BadFile { path, message };
    let mut listed = std::collections::HashSet::new();
    for f in &m.files {
        let plain =
            !f.name.is_empty() && !f.name.contains(['/', '\\']) && f.name != "." && f.name != "..";
        if !plain || !listed.insert(f.name.as_str()) {
            return Err(bad(
                manifest.clone(),
                format!(
                    "lists `{}` twice or as a path; the export is damaged",
                    f.name
                ),
            ));
        }
    }
    let total =
        |k: FileKind| -> u64 { m.files.iter().filter(|f| f.kind == k).map(|f| f.rows).sum() };
    if total(FileKind::Nodes) != m.nodes || total(FileKind::Relationships) != m.edges {
        return Err(bad(
            manifest.clone(),
            format!(
                "says {} nodes and {} edges, but its files hold {} and {}; the export is damaged",
                m.nodes,
                m.edges,
                total(FileKind::Nodes),
                total(FileKind::Relationships)
            ),
        ));
    }
    let mut unlisted: Vec<PathBuf> = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))? {
        let entry = entry.map_err(|e| Error::io(dir, e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if is_data_file(&name) && !listed.contains(name.as_str()) {
            unlisted.push(entry.path());
        }
    }
    unlisted.sort();
    if let Some(first) = unlisted.first() {
        return Err(bad(
            first.clone(),
            format!(
                "is not part of the export that {} describes (a file of another export?); \
                 remove it or export again",
                manifest.display()
            ),
        ));
    }
    let problems: Vec<(usize, Error)> = m
        .files
        .par_iter()
        .enumerate()
        .filter_map(|(i, f)| {
            let path = dir.join(&f.name);
            let problem = match measure(&path) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some(format!(
                    "is missing, but {MANIFEST_NAME} lists it: the directory is not a complete \
                     export; export again"
                )),
                Err(e) => return Some((i, Error::io(&path, e))),
                Ok((bytes, _, _)) if bytes != f.bytes => Some(format!(
                    "holds {bytes} bytes, but {MANIFEST_NAME} says {}: the file was changed or \
                     belongs to another export",
                    f.bytes
                )),
                Ok((_, sum, _)) if hex(sum) != f.xxh3 => Some(format!(
                    "does not match its checksum in {MANIFEST_NAME}: the file was changed or \
                     belongs to another export"
                )),
                Ok((_, _, rows)) if rows != f.rows => Some(format!(
                    "holds {rows} rows, but {MANIFEST_NAME} says {}",
                    f.rows
                )),
                Ok(_) => None,
            };
            problem.map(|message| (i, bad(path, message)))
        })
        .collect();
    if let Some((_, e)) = problems.into_iter().min_by_key(|(i, _)| *i) {
        return Err(e);
    }
    Ok(Some(m))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_records_outside_quotes() {
        let mut q = false;
        assert_eq!(count_lines(b"a,b\n1,\"x\ny\"\n2,\"\"\"\"\n", &mut q), 3);
        assert!(!q);
        // A quoted field split across two reads.
        let mut q = false;
        assert_eq!(count_lines(b"h\n\"a\n", &mut q), 1);
        assert!(q);
        assert_eq!(count_lines(b"b\"\n", &mut q), 1);
        assert!(!q);
    }

    #[test]
    fn a_manifest_round_trips_and_totals_are_summed() {
        let files = vec![
            ManifestFile {
                name: "nodes-0-A.csv".into(),
                kind: FileKind::Nodes,
                rows: 3,
                bytes: 10,
                xxh3: hex(0xabc),
            },
            ManifestFile {
                name: "rels-0-R.csv".into(),
                kind: FileKind::Relationships,
                rows: 2,
                bytes: 8,
                xxh3: hex(1),
            },
        ];
        let m = Manifest::new("neo4j-csv", files);
        assert_eq!((m.nodes, m.edges), (3, 2));
        assert_eq!(m.files[0].xxh3, "0000000000000abc");
        let back: Manifest = serde_json::from_slice(&m.to_json()).unwrap();
        assert_eq!(back, m);
    }
}
