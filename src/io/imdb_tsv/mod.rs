//! Loader for the official IMDb TSV dumps (<https://datasets.imdbws.com/>): `title.basics`,
//! `name.basics`, `title.principals`, `title.ratings`, `title.crew` and `title.episode`, plain
//! `.tsv` or `.tsv.gz`.
//!
//! The mapping to the graph model (labels, relationship types, property names and types, dangling
//! references) is described in `docs/imdb-mapping.md`. In short:
//!
//! - `Person` nodes keyed by `nconst`; `Title` nodes keyed by `tconst` that also carry their
//!   `titleType` as a label (`tvSeries` → `TvSeries`). The first label is `Title` / `Person`.
//! - `title.principals` rows become `Person -[CATEGORY]-> Title` edges (`actor` → `ACTOR`) with
//!   `ordering`, `job`, `characters`; `title.crew` adds `DIRECTOR` / `WRITER` edges not already
//!   present; `title.episode` adds `EPISODE_OF` edges from episode to series.
//! - `\N` is null (the property is absent); ints, floats and 0/1 booleans are typed.
//! - An id referenced by a row but absent from the basics files still gets a node (labelled `Title`
//!   or `Person` by its `tt`/`nm` prefix, no label otherwise), counted in
//!   [`LoadReport::dangling_nodes`]; with `strict` it is an error naming file and line.
//!
//! Files are loaded in a fixed order (basics first) whatever the order of the arguments, so the
//! resulting model does not depend on it. Rows are split by hand (quotes are not special in IMDb
//! TSV), read in large chunks without per-row allocation, and `tt`/`nm` ids are resolved through a
//! numeric map so the builder's key table is consulted once per distinct id.

mod ids;
mod lines;
mod loader;

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::io::{LoadOptions, LoadReport};
use crate::model::{Model, ModelBuilder};

pub use loader::{EPISODE_OF, PERSON, TITLE};

/// The label a `titleType` value becomes: its first letter upper-cased (`tvMiniSeries` →
/// `TvMiniSeries`, `movie` → `Movie`).
pub fn title_type_label(title_type: &str) -> String {
    loader::camel_case(title_type)
}

/// The relationship type a `title.principals` category becomes: upper-cased, underscores kept
/// (`archive_footage` → `ARCHIVE_FOOTAGE`).
pub fn category_rel_type(category: &str) -> String {
    category.to_uppercase()
}

/// Which IMDb file a path is (detected from its file name: `title.basics.tsv[.gz]` etc.).
///
/// The variant order is the load order: node files first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ImdbFile {
    /// `title.basics.tsv`: titles (`Title` nodes).
    TitleBasics,
    /// `name.basics.tsv`: people (`Person` nodes).
    NameBasics,
    /// `title.principals.tsv`: cast and crew (`Person -[CATEGORY]-> Title` edges).
    TitlePrincipals,
    /// `title.ratings.tsv`: `averageRating` and `numVotes` of titles.
    TitleRatings,
    /// `title.crew.tsv`: directors and writers (`DIRECTOR` / `WRITER` edges).
    TitleCrew,
    /// `title.episode.tsv`: episodes of series (`EPISODE_OF` edges, season and episode numbers).
    TitleEpisode,
}

impl ImdbFile {
    /// Every supported file, in load order.
    pub const ALL: [ImdbFile; 6] = [
        ImdbFile::TitleBasics,
        ImdbFile::NameBasics,
        ImdbFile::TitlePrincipals,
        ImdbFile::TitleRatings,
        ImdbFile::TitleCrew,
        ImdbFile::TitleEpisode,
    ];

    /// The official file name without `.gz`, e.g. `title.basics.tsv`.
    pub fn file_name(self) -> &'static str {
        match self {
            ImdbFile::TitleBasics => "title.basics.tsv",
            ImdbFile::NameBasics => "name.basics.tsv",
            ImdbFile::TitlePrincipals => "title.principals.tsv",
            ImdbFile::TitleRatings => "title.ratings.tsv",
            ImdbFile::TitleCrew => "title.crew.tsv",
            ImdbFile::TitleEpisode => "title.episode.tsv",
        }
    }

    /// The expected header columns, in order.
    pub fn columns(self) -> &'static [&'static str] {
        match self {
            ImdbFile::TitleBasics => &[
                "tconst",
                "titleType",
                "primaryTitle",
                "originalTitle",
                "isAdult",
                "startYear",
                "endYear",
                "runtimeMinutes",
                "genres",
            ],
            ImdbFile::NameBasics => &[
                "nconst",
                "primaryName",
                "birthYear",
                "deathYear",
                "primaryProfession",
                "knownForTitles",
            ],
            ImdbFile::TitlePrincipals => &[
                "tconst",
                "ordering",
                "nconst",
                "category",
                "job",
                "characters",
            ],
            ImdbFile::TitleRatings => &["tconst", "averageRating", "numVotes"],
            ImdbFile::TitleCrew => &["tconst", "directors", "writers"],
            ImdbFile::TitleEpisode => &["tconst", "parentTconst", "seasonNumber", "episodeNumber"],
        }
    }
}

impl std::fmt::Display for ImdbFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.file_name())
    }
}

/// Detects which IMDb file `path` is from its file name (`title.basics.tsv` or `title.basics.tsv.gz`,
/// case-insensitive); `None` for any other name.
pub fn detect_file(path: &Path) -> Option<ImdbFile> {
    let name = path.file_name()?.to_str()?.to_ascii_lowercase();
    let name = name.strip_suffix(".gz").unwrap_or(&name);
    ImdbFile::ALL.into_iter().find(|k| k.file_name() == name)
}

/// The accepted file names, for error messages.
fn expected_names() -> String {
    ImdbFile::ALL
        .iter()
        .map(|k| format!("{}[.gz]", k.file_name()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Expands directories, checks names and existence, and sorts into load order.
fn collect_files(paths: &[PathBuf]) -> Result<Vec<(ImdbFile, PathBuf)>> {
    if paths.is_empty() {
        return Err(Error::InvalidArgument(format!(
            "no IMDb files given (expected {})",
            expected_names()
        )));
    }
    let mut files: Vec<(ImdbFile, PathBuf)> = Vec::new();
    for path in paths {
        if path.is_dir() {
            let mut found: Vec<(ImdbFile, PathBuf)> =
                crate::io::expand::dir_files(path, |p| detect_file(p).is_some())?
                    .into_iter()
                    .filter_map(|p| Some((detect_file(&p)?, p)))
                    .collect();
            found.sort();
            if let Some(w) = found.windows(2).find(|w| w[0].0 == w[1].0) {
                return Err(Error::BadFile {
                    path: path.clone(),
                    message: format!(
                        "directory holds both {} and {}; pass the one to load explicitly",
                        w[0].1.display(),
                        w[1].1.display()
                    ),
                });
            }
            if found.is_empty() {
                return Err(Error::BadFile {
                    path: path.clone(),
                    message: format!(
                        "directory holds no IMDb TSV files (expected {})",
                        expected_names()
                    ),
                });
            }
            files.extend(found);
        } else {
            let Some(kind) = detect_file(path) else {
                return Err(Error::BadFile {
                    path: path.clone(),
                    message: format!(
                        "not an IMDb TSV file name (expected one of {})",
                        expected_names()
                    ),
                });
            };
            std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
            files.push((kind, path.clone()));
        }
    }
    // Load order: by kind, then in the order the command line gives them (a directory's files
    // sorted by name), so that where the files live never changes what is loaded; the same file
    // named twice (by whatever path) loads once, where it is first named.
    let mut seen = std::collections::HashSet::new();
    let mut keyed: Vec<(ImdbFile, PathBuf, PathBuf)> = files
        .into_iter()
        .map(|(kind, p)| {
            (
                kind,
                std::fs::canonicalize(&p).unwrap_or_else(|_| p.clone()),
                p,
            )
        })
        .filter(|(_, canonical, _)| seen.insert(canonical.clone()))
        .collect();
    keyed.sort_by_key(|k| k.0);
    Ok(keyed.into_iter().map(|(kind, _, p)| (kind, p)).collect())
}

/// Loads the given files (any order; a directory is expanded to the IMDb files it contains) into the
/// builder.
///
/// Files are loaded basics first (`title.basics`, `name.basics`, then `title.principals`,
/// `title.ratings`, `title.crew`, `title.episode`; files of one kind by path), so the argument order
/// does not change the result. Malformed rows are counted in `report` (first ones with file and line)
/// or, with [`LoadOptions::strict`], fail the load. A missing file, an unrecognised file name, a wrong
/// header, an empty file or a truncated `.gz` is an error naming the file.
///
/// `title.crew` edges are deduplicated against the `DIRECTOR`/`WRITER` edges of `title.principals`
/// loaded by the same call. After an error the builder may hold part of the data; discard it.
pub fn load_into(
    builder: &mut ModelBuilder,
    paths: &[PathBuf],
    options: &LoadOptions,
    report: &mut LoadReport,
) -> Result<()> {
    let files = collect_files(paths)?;
    let crew = files.iter().any(|(k, _)| *k == ImdbFile::TitleCrew);
    let mut loader = loader::Loader::new(builder, options, report, crew);
    for (kind, path) in &files {
        loader.load_file(*kind, path)?;
    }
    Ok(())
}

/// Convenience: [`load_into`] a new builder, then freeze it.
pub fn load(paths: &[PathBuf], options: &LoadOptions) -> Result<(Model, LoadReport)> {
    let mut builder = ModelBuilder::new();
    let mut report = LoadReport::default();
    load_into(&mut builder, paths, options, &mut report)?;
    let model = builder.freeze()?;
    Ok((model, report))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_names() {
        assert_eq!(
            detect_file(Path::new("/x/title.basics.tsv.gz")),
            Some(ImdbFile::TitleBasics)
        );
        assert_eq!(
            detect_file(Path::new("Name.Basics.TSV")),
            Some(ImdbFile::NameBasics)
        );
        assert_eq!(detect_file(Path::new("title.akas.tsv.gz")), None);
        assert_eq!(detect_file(Path::new("title.basics.tsv.gz.md5")), None);
        assert_eq!(detect_file(Path::new("/")), None);
        for k in ImdbFile::ALL {
            assert_eq!(detect_file(Path::new(k.file_name())), Some(k));
        }
    }
}
