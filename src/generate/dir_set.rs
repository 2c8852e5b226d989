//! The generators' output directory written as one set: the four IMDb TSV files (and a small
//! manifest listing them) go to a temporary directory beside the target, which is swapped into
//! place when every file is complete ([`crate::util::safe_dir`], as directory exports do). A kill,
//! a full disk or an error at any moment leaves the old directory (with its old files) or the
//! complete new one, never new files beside old ones. Files of an earlier generation that this
//! one does not write (`.tsv.gz` after a plain run) are removed, so loading the directory never
//! mixes two generations; the user's other files in it are carried over.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::util::safe_dir::SafeDir;
use crate::util::safe_write::WriteOptions;

/// The manifest's file name (an extension no loader reads).
pub const MANIFEST_NAME: &str = "gemp-generated.manifest";

/// The IMDb files a generator writes, without extension.
pub const FILE_STEMS: [&str; 4] = [
    "title.basics",
    "name.basics",
    "title.principals",
    "title.ratings",
];

/// True for a file a generator writes (either variant) and for the manifest: an earlier
/// generation's file, replaced (only with `force`).
fn owned(name: &str) -> bool {
    name == MANIFEST_NAME
        || FILE_STEMS
            .iter()
            .any(|s| name == format!("{s}.tsv") || name == format!("{s}.tsv.gz"))
}

/// A generated directory being written (see the module docs).
pub struct GenDir {
    dir: SafeDir,
    /// (file name, bytes, xxh3) of every finished file.
    done: Vec<(String, u64, u64)>,
}

impl GenDir {
    /// Starts writing `out_dir` (created if missing): without `options.force`, a file of an
    /// earlier generation in it is an [`Error::Refused`] before anything is written.
    pub fn create(out_dir: &Path, options: &WriteOptions) -> Result<GenDir> {
        Ok(GenDir {
            dir: SafeDir::create(out_dir, options, owned)?,
            done: Vec::new(),
        })
    }

    /// A new file `name` of the set.
    pub fn create_file(&self, name: &str) -> Result<crate::util::safe_dir::DirFile> {
        self.dir.create_file(name)
    }

    /// Where `name` will be once the set is committed.
    pub fn final_path(&self, name: &str) -> PathBuf {
        self.dir.final_path(name)
    }

    /// Flushes and syncs a finished file; returns its final path.
    pub fn finish_file(
        &mut self,
        name: &str,
        file: crate::util::safe_dir::DirFile,
    ) -> Result<PathBuf> {
        let (bytes, sum) = file.finish()?;
        self.done.push((name.to_owned(), bytes, sum));
        Ok(self.final_path(name))
    }

    /// Writes the manifest and swaps the directory into place.
    pub fn commit(self) -> Result<()> {
        let mut manifest = Vec::new();
        writeln!(
            manifest,
            "gemp {} generated set: file\tbytes\txxh3",
            env!("CARGO_PKG_VERSION")
        )
        .map_err(|e| Error::io(self.dir.final_path(MANIFEST_NAME), e))?;
        for (name, bytes, sum) in &self.done {
            writeln!(manifest, "{name}\t{bytes}\t{sum:016x}")
                .map_err(|e| Error::io(self.dir.final_path(MANIFEST_NAME), e))?;
        }
        self.dir.commit((MANIFEST_NAME, &manifest))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_variants_and_the_manifest_are_owned_and_nothing_else() {
        assert!(owned("title.basics.tsv"));
        assert!(owned("name.basics.tsv.gz"));
        assert!(owned(MANIFEST_NAME));
        assert!(!owned("title.episode.tsv"));
        assert!(!owned("notes.txt"));
        assert!(!owned("title.basics.tsv.bak"));
    }
}
