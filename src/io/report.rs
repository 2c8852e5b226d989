//! Load options and the load report: malformed rows are counted and the first few reported with file
//! and line; `strict` turns the first one into an error. Nothing is dropped silently.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::error::{Error, Result};

/// Options shared by all loaders.
#[derive(Debug, Clone)]
pub struct LoadOptions {
    /// Fail on the first malformed row instead of counting and skipping it.
    pub strict: bool,
    /// How many malformed rows to keep (with location) per file for the report.
    pub max_reported: usize,
    /// How Neo4j bulk-import CSV is read (delimiters, quote, id type, `--nodes` /
    /// `--relationships` groups); the other formats ignore it.
    pub neo4j: crate::io::neo4j_csv::CsvOptions,
    /// Bytes of decompressed text the IMDb TSV loader parses as one unit on the thread pool
    /// (whole lines: a longer line makes a longer unit); 0: the default, 2 MiB. The result does
    /// not depend on it; tiny units put many unit boundaries into a small file, for tests.
    pub chunk_bytes: usize,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            strict: false,
            max_reported: 10,
            neo4j: Default::default(),
            chunk_bytes: 0,
        }
    }
}

/// One malformed row.
#[derive(Debug, Clone, Serialize)]
pub struct Malformed {
    /// The file.
    pub file: PathBuf,
    /// 1-based line number.
    pub line: u64,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for Malformed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: {}", self.file.display(), self.line, self.message)
    }
}

/// Per-file counts.
#[derive(Debug, Clone, Serialize, Default)]
pub struct FileReport {
    /// The file.
    pub file: PathBuf,
    /// Data rows (or entries) read.
    pub rows: u64,
    /// Rows skipped as malformed.
    pub malformed: u64,
    /// Bytes read from disk.
    pub bytes: u64,
}

/// What a load did: rows read per file, malformed rows, nodes created for dangling references.
#[derive(Debug, Clone, Serialize, Default)]
pub struct LoadReport {
    /// Per-file counts, in load order.
    pub files: Vec<FileReport>,
    /// The first malformed rows (up to `max_reported` per file).
    pub malformed: Vec<Malformed>,
    /// Nodes that exist only because an edge referenced an id absent from the node files.
    pub dangling_nodes: u64,
    /// Edges not added because an identical one was already present (e.g. crew vs principals).
    pub duplicate_edges_skipped: u64,
}

impl LoadReport {
    /// Total malformed rows.
    pub fn malformed_count(&self) -> u64 {
        self.files.iter().map(|f| f.malformed).sum()
    }

    /// Starts the report of a file; returns its index for [`LoadReport::bad_row`] and row counts.
    pub fn begin_file(&mut self, file: &Path, bytes: u64) -> usize {
        self.files.push(FileReport {
            file: file.to_path_buf(),
            bytes,
            ..Default::default()
        });
        self.files.len() - 1
    }

    /// Records a malformed row of file `index`; with `strict`, returns it as an error instead.
    pub fn bad_row(
        &mut self,
        options: &LoadOptions,
        index: usize,
        line: u64,
        message: impl Into<String>,
    ) -> Result<()> {
        let Some(f) = self.files.get_mut(index) else {
            return Err(Error::InvalidArgument("bad_row before begin_file".into()));
        };
        let message = message.into();
        if options.strict {
            return Err(Error::parse(Some(f.file.clone()), line, 0, message));
        }
        f.malformed += 1;
        if f.malformed as usize <= options.max_reported {
            self.malformed.push(Malformed {
                file: f.file.clone(),
                line,
                message,
            });
        }
        Ok(())
    }

    /// Like [`LoadReport::bad_row`], with the column (1-based; 0: unknown) of the malformed
    /// entry for the error `strict` gives.
    pub fn bad_row_at(
        &mut self,
        options: &LoadOptions,
        index: usize,
        line: u64,
        column: u64,
        message: impl Into<String>,
    ) -> Result<()> {
        if options.strict {
            let file = self.files.get(index).map(|f| f.file.clone());
            return Err(Error::parse(file, line, column, message.into()));
        }
        self.bad_row(options, index, line, message)
    }

    /// Logs a summary (warnings for malformed rows and dangling references).
    pub fn log_summary(&self) {
        for f in &self.files {
            log::info!("{}: {} rows", f.file.display(), f.rows);
        }
        let bad = self.malformed_count();
        if bad > 0 {
            log::info!("{bad} malformed rows skipped (use --strict to fail instead); first ones:");
            for m in &self.malformed {
                log::info!("  {m}");
            }
        }
        if self.dangling_nodes > 0 {
            log::info!(
                "{} nodes were referenced but absent from the node files; they carry only their id",
                self.dangling_nodes
            );
        }
    }
}
