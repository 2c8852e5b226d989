//! The interface every input format's loader implements ([`Loader`]), and what a loader is given:
//! the files to detect a format from ([`Candidate`]) and, to load, the options and metamodel
//! shared by all loaders ([`LoadContext`]). The loaders themselves are listed in
//! [`super::registry`].

use std::path::{Path, PathBuf};

use super::expand;
use super::metamodel::Metamodel;
use super::report::{LoadOptions, LoadReport};
use super::Format;
use crate::error::Result;
use crate::model::ModelBuilder;

/// What a load is given besides its inputs: the options common to every loader (strictness, the
/// malformed-row report, the Neo4j CSV options in [`LoadOptions::neo4j`]) and the metamodel read
/// from the `.ecore` / `.xcore` files (XMI, Neo4j CSV and JSON use it; the others ignore it).
#[derive(Debug, Clone, Copy)]
pub struct LoadContext<'a> {
    /// The load options.
    pub options: &'a LoadOptions,
    /// The merged metamodel, when one was given.
    pub metamodel: Option<&'a Metamodel>,
}

/// One input file considered by format detection (directories already expanded to all their
/// files).
#[derive(Debug, Clone)]
pub struct Candidate {
    /// The file.
    pub path: PathBuf,
    /// Its lower-cased file name.
    pub name: String,
    /// True for a metamodel file (`.ecore`, `.xcore`), which is not data of any format.
    pub metamodel: bool,
}

impl Candidate {
    /// The candidate for `path`.
    pub fn new(path: PathBuf) -> Candidate {
        Candidate {
            name: expand::lower_name(&path),
            metamodel: super::is_metamodel_file(&path),
            path,
        }
    }

    /// True when the lower-cased name ends with one of `suffixes`.
    pub fn ends_with_any(&self, suffixes: &[&str]) -> bool {
        suffixes.iter().any(|s| self.name.ends_with(s))
    }
}

/// A loader of one input format. Loaders are stateless and listed once, in detection priority
/// order, by [`super::registry::loaders`]; detection and [`super::load_with_metamodel`] go
/// through that list.
pub trait Loader: Sync {
    /// The format this loader reads.
    fn format(&self) -> Format;

    /// How the format's inputs are named in the message of a failed detection (`.xmi`,
    /// `IMDb lists (actors.list[.gz], …)`).
    fn description(&self) -> &'static str;

    /// The lower-cased endings (with their dot) of this format's file names: `.xmi`, `.xmi.gz`.
    fn extensions(&self) -> &'static [&'static str];

    /// Whether a file found in a directory is one this loader reads: by default, whether its
    /// lower-cased name ends with one of [`Loader::extensions`]. Files named explicitly are
    /// passed to [`Loader::load`] whatever their name.
    fn accepts(&self, path: &Path) -> bool {
        expand::has_suffix(path, self.extensions())
    }

    /// Whether `inputs` (every file of the inputs, metamodel files flagged) are in this format.
    /// Detection asks the loaders in registry order and takes the first that says yes; the
    /// content may be looked at (Neo4j CSV reads the header line).
    fn detect(&self, inputs: &[Candidate]) -> bool;

    /// Loads `paths` (files and directories, the metamodel files already taken out) into
    /// `builder`, counting malformed rows in `report`. Directories are expanded with
    /// [`expand::dir_files`] and [`Loader::accepts`] (or the loader's own file-name test).
    fn load(
        &self,
        paths: &[PathBuf],
        context: &LoadContext<'_>,
        builder: &mut ModelBuilder,
        report: &mut LoadReport,
    ) -> Result<()>;
}
