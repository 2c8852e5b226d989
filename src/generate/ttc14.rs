//! The synthetic models of the TTC 2014 Movie Database Case (T. Horn, C. Krause, M. Tichy: "The
//! TTC 2014 Movie Database Case", Transformation Tool Contest 2014, CEUR-WS Vol-1305), written as
//! an IMDb TSV dump (the four files and formats of [`generate_imdb`](super::generate_imdb)).
//!
//! The case's generator (`createExample(N)`) adds, for each `i` in `0..N`, a *positive* and a
//! *negative* test block (`createPositive(i)`, `createNegative(i)`) of 5 movies and 5 persons each;
//! movie and person `10i + k` belong to block `i`, and movie `j` has the rating `j`. Who plays in
//! which movie of block `i` (local numbers `k` of movies and persons):
//!
//! | movie | persons | | movie | persons |
//! |---|---|---|---|---|
//! | 0 | 0, 1, 2, 3 | | 5 | 5, 6 |
//! | 1 | 0, 1, 2, 3 | | 6 | 5, 6, 7 |
//! | 2 | 1, 2, 3 | | 7 | 6, 7, 8 |
//! | 3 | 1, 2, 3, 4 | | 8 | 7, 8, 9 |
//! | 4 | 1, 2, 3, 4 | | 9 | 8, 9 |
//!
//! Persons 0, 1, 2, 5 and 6 are actors, 3, 4, 7, 8 and 9 actresses. Blocks share nothing, so every
//! count is N times the count of one block: the positive block holds the three couples {1, 2},
//! {1, 3}, {2, 3} (five common movies each) and the one 3-clique {1, 2, 3} (five common movies);
//! every other pair or triple shares at most two movies, and the negative block none with three
//! (see [`Ttc14Counts`]).
//!
//! In the dump, movie `j` is `tt` + `j + 1` (at least 7 digits, as in IMDb), a `movie` titled
//! `m<j>` of 2013 rated `j.0` (with 100 votes), and person `j` is `nm` + `j + 1`, named `a<j>`,
//! whose principals rows have the category `actor` or `actress`.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use super::dir_set::GenDir;
use super::imdb::{
    GenSummary, NAME_BASICS_HEADER, TITLE_BASICS_HEADER, TITLE_PRINCIPALS_HEADER,
    TITLE_RATINGS_HEADER,
};
use crate::error::{Error, Result};
use crate::util::safe_dir::DirFile;
use crate::util::safe_write::WriteOptions;

/// Movies per block (5 positive, 5 negative).
pub const MOVIES_PER_BLOCK: u64 = 10;
/// Persons per block (5 positive, 5 negative).
pub const PERSONS_PER_BLOCK: u64 = 10;
/// Acting credits (person plays in movie) per block: 19 positive, 13 negative.
pub const CREDITS_PER_BLOCK: u64 = 32;
/// Most blocks [`generate_ttc14`] accepts: ids stay below 2^31 (the engines compared in
/// `scripts/bench-peers` read the ids' digits as 32-bit integers).
pub const MAX_BLOCKS: u64 = 100_000_000;

/// The persons (local numbers) of each of a block's ten movies, in credit order.
const CAST: [&[u64]; 10] = [
    &[0, 1, 2, 3],
    &[0, 1, 2, 3],
    &[1, 2, 3],
    &[1, 2, 3, 4],
    &[1, 2, 3, 4],
    &[5, 6],
    &[5, 6, 7],
    &[6, 7, 8],
    &[7, 8, 9],
    &[8, 9],
];
/// Whether each of a block's ten persons is an actress.
const ACTRESS: [bool; 10] = [
    false, false, false, true, true, false, false, true, true, true,
];

/// Configuration of [`generate_ttc14`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ttc14GenConfig {
    /// The case's `N`: the number of (positive, negative) block pairs; 1 to [`MAX_BLOCKS`].
    pub blocks: u64,
}

/// What the case's queries find in a model of `N` blocks (all linear in `N`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ttc14Counts {
    /// Couples (unordered pairs of persons with at least three common movies): `3N`.
    pub couples: u64,
    /// The common movies of all couples together: `15N` (each couple shares five).
    pub couple_movies: u64,
    /// 3-cliques (unordered triples of persons with at least three movies of all three): `N`.
    pub three_cliques: u64,
    /// The common movies of all 3-cliques together: `5N`.
    pub three_clique_movies: u64,
}

impl Ttc14Counts {
    /// The counts of a model of `blocks` blocks.
    pub fn of(blocks: u64) -> Self {
        Ttc14Counts {
            couples: 3 * blocks,
            couple_movies: 15 * blocks,
            three_cliques: blocks,
            three_clique_movies: 5 * blocks,
        }
    }
}

/// Model elements of `blocks` blocks the way the case counts them (the number in the names of its
/// IMDb models, e.g. `imdb-0005000-49930`: movies and persons, not the references between them):
/// `20N`. The graph has `32N` edges besides.
pub fn model_elements(blocks: u64) -> u64 {
    blocks * (MOVIES_PER_BLOCK + PERSONS_PER_BLOCK)
}

/// Writes the case's synthetic model of `config.blocks` blocks into `out_dir` (created if needed)
/// as `title.basics.tsv`, `name.basics.tsv`, `title.principals.tsv` and `title.ratings.tsv`.
/// Deterministic: the same `blocks` always gives the same bytes.
///
/// Errors: [`Error::InvalidArgument`] when `blocks` is 0 or above [`MAX_BLOCKS`], [`Error::Io`]
/// when a file cannot be written.
///
/// Existing files of those names are replaced: [`generate_ttc14_with`] with
/// [`WriteOptions::REPLACE`].
pub fn generate_ttc14(config: &Ttc14GenConfig, out_dir: &Path) -> Result<GenSummary> {
    generate_ttc14_with(config, out_dir, &WriteOptions::REPLACE)
}

/// [`generate_ttc14`], the directory written as one set (see `dir_set`, through
/// [`crate::util::safe_dir`]) with `options`: without `force` an earlier generation's file in it
/// is an [`Error::Refused`] before anything is written; a failed or interrupted run leaves the
/// directory as it was, and a finished one holds exactly the new files (plus the user's own).
pub fn generate_ttc14_with(
    config: &Ttc14GenConfig,
    out_dir: &Path,
    options: &WriteOptions,
) -> Result<GenSummary> {
    let n = config.blocks;
    if n == 0 || n > MAX_BLOCKS {
        return Err(Error::InvalidArgument(format!(
            "blocks must be between 1 and {MAX_BLOCKS} (got {n})"
        )));
    }
    let mut set = GenDir::create(out_dir, options)?;
    let mut basics = Out::create(&set, "title.basics", TITLE_BASICS_HEADER)?;
    let mut names = Out::create(&set, "name.basics", NAME_BASICS_HEADER)?;
    let mut principals = Out::create(&set, "title.principals", TITLE_PRINCIPALS_HEADER)?;
    let mut ratings = Out::create(&set, "title.ratings", TITLE_RATINGS_HEADER)?;
    // The movies of each local person (for knownForTitles), from CAST.
    let mut plays: [Vec<u64>; 10] = Default::default();
    for (movie, cast) in CAST.iter().enumerate() {
        for &p in *cast {
            plays[p as usize].push(movie as u64);
        }
    }
    let mut credits = 0;
    for i in 0..n {
        let base = MOVIES_PER_BLOCK * i;
        for (k, cast) in CAST.iter().enumerate() {
            let j = base + k as u64;
            let t = imdb_id("tt", j);
            basics.line(format_args!(
                "{t}\tmovie\tm{j}\tm{j}\t0\t2013\t\\N\t\\N\t\\N"
            ))?;
            for (ordering, &p) in cast.iter().enumerate() {
                let category = if ACTRESS[p as usize] {
                    "actress"
                } else {
                    "actor"
                };
                let nm = imdb_id("nm", base + p);
                principals.line(format_args!(
                    "{t}\t{}\t{nm}\t{category}\t\\N\t\\N",
                    ordering + 1
                ))?;
                credits += 1;
            }
            ratings.line(format_args!("{t}\t{j}.0\t100"))?;
        }
        for (p, movies) in plays.iter().enumerate() {
            let j = base + p as u64;
            let profession = if ACTRESS[p] { "actress" } else { "actor" };
            // IMDb lists at most four known-for titles.
            let known: Vec<String> = movies
                .iter()
                .take(4)
                .map(|&m| imdb_id("tt", base + m))
                .collect();
            names.line(format_args!(
                "{}\ta{j}\t\\N\t\\N\t{profession}\t{}",
                imdb_id("nm", j),
                known.join(",")
            ))?;
        }
    }
    let mut bytes = 0;
    let mut files = Vec::with_capacity(4);
    for f in [basics, names, principals, ratings] {
        let (path, b) = f.finish(&mut set)?;
        bytes += b;
        files.push(path);
    }
    set.commit()?;
    Ok(GenSummary {
        titles: n * MOVIES_PER_BLOCK,
        persons: n * PERSONS_PER_BLOCK,
        principals: credits,
        ratings: n * MOVIES_PER_BLOCK,
        bytes,
        files,
    })
}

/// The IMDb id of entity `j`: the prefix and `j + 1` in at least 7 digits.
fn imdb_id(prefix: &str, j: u64) -> String {
    format!("{prefix}{:07}", j + 1)
}

/// One TSV file being written.
struct Out {
    /// File name in the set.
    name: String,
    /// Final path (for messages).
    path: PathBuf,
    w: BufWriter<DirFile>,
    bytes: u64,
}

impl Out {
    /// Creates `dir/name.tsv` and writes its header line.
    fn create(set: &GenDir, name: &str, header: &str) -> Result<Out> {
        let name = format!("{name}.tsv");
        let file = set.create_file(&name)?;
        let mut out = Out {
            path: set.final_path(&name),
            name,
            w: BufWriter::with_capacity(1 << 20, file),
            bytes: 0,
        };
        out.line(format_args!("{header}"))?;
        Ok(out)
    }

    /// Writes one line (the newline is added).
    fn line(&mut self, args: std::fmt::Arguments<'_>) -> Result<()> {
        let text = format!("{args}\n");
        self.bytes += text.len() as u64;
        self.w
            .write_all(text.as_bytes())
            .map_err(|e| Error::io(&self.path, e))
    }

    /// Flushes and syncs the file; returns its path and size.
    fn finish(self, set: &mut GenDir) -> Result<(PathBuf, u64)> {
        let file = self
            .w
            .into_inner()
            .map_err(|e| Error::io(&self.path, e.into_error()))?;
        let path = set.finish_file(&self.name, file)?;
        Ok((path, self.bytes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_block_table_matches_the_case() {
        let credits: usize = CAST.iter().map(|c| c.len()).sum();
        assert_eq!(credits as u64, CREDITS_PER_BLOCK);
        assert_eq!(CAST[..5].iter().map(|c| c.len()).sum::<usize>(), 19);
        assert_eq!(ACTRESS.iter().filter(|&&a| a).count(), 5);
    }

    #[test]
    fn ids_are_imdb_like() {
        assert_eq!(imdb_id("tt", 0), "tt0000001");
        assert_eq!(imdb_id("nm", 12_345_678), "nm12345679");
    }

    #[test]
    fn bad_block_counts_are_errors() {
        let dir = std::env::temp_dir().join("gemp-ttc14-bad-blocks");
        for blocks in [0, MAX_BLOCKS + 1] {
            let err = generate_ttc14(&Ttc14GenConfig { blocks }, &dir).unwrap_err();
            assert!(matches!(err, Error::InvalidArgument(_)), "{err}");
        }
    }
}
