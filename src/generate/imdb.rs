//! Synthetic IMDb dump generator: writes the four core files of the official IMDb TSV dump
//! (`title.basics`, `name.basics`, `title.principals`, `title.ratings`), byte-exact in format
//! (UTF-8, header line, tab-separated, `\N` for null), with a realistic shape:
//!
//! * title types, years, runtimes and genres drawn from distributions close to the real dump
//!   (tvEpisode ≈ 60 %, then short, movie ≈ 10 % …; years 1890–2025 skewed recent);
//! * power-law careers: every person gets a heavy-tailed "career weight" and credits are drawn with
//!   probability proportional to it, so a few people have thousands of credits (at full scale) and
//!   most have one to three;
//! * casts of about 1–10 principals (actors and actresses first, then crew), with "troupes": a
//!   title's lead often brings favourite collaborators (co-stars, a director…), so pairs of people
//!   who worked together several times exist, as in the real data;
//! * ratings for about a quarter of the titles, knownForTitles consistent with the credits.
//!
//! Generation is streamed: only O(titles + persons) small integers are kept (alias tables over the
//! persons' career weights and four known-for slots per person), never strings, so the full IMDb
//! scale (12 M titles, 14 M persons, 95 M principals) fits in a few hundred megabytes.
//!
//! Every random decision is drawn from a per-entity stream (seed, stream tag, title or person
//! index), so the output is byte-identical for the same configuration whatever the number of
//! threads, and chunks of titles and persons are generated (and gzip-compressed) in parallel.

use std::io::Write;
use std::path::{Path, PathBuf};

use flate2::{Compress, Compression, Crc, FlushCompress};
use rayon::prelude::*;

use super::dir_set::GenDir;
use super::names::{
    CINEMATOGRAPHER_JOBS, EXTRA_PROFESSIONS, FEMALE_FIRST, FOREIGN_TITLE, LAST, MALE_FIRST, MONTHS,
    PRODUCER_JOBS, ROLES, SELF_ROLES, TITLE_ADJ, TITLE_NOUN, TITLE_PLACE, WRITER_JOBS,
};
use super::rng::{mix64, zipf_weights, AliasTable, Rng, SplitMix64, WeightedValues};
use crate::error::{Error, Result};
use crate::io::input::Progress;
use crate::util::safe_dir::DirFile;
use crate::util::safe_write::WriteOptions;

/// Configuration of [`generate_imdb`].
#[derive(Debug, Clone, PartialEq)]
pub struct ImdbGenConfig {
    /// Number of titles (rows of `title.basics`); at least 1 and below 2^30.
    pub titles: u64,
    /// Number of persons (rows of `name.basics`); at least 1 and below 2^32.
    pub persons: u64,
    /// Target total number of principal credits (rows of `title.principals`); the result is close
    /// to it, not exact. `None` = about 6 per title. At most 40 per title on average.
    pub principals: Option<u64>,
    /// Seed of every random decision: the same configuration always gives byte-identical files.
    pub seed: u64,
    /// Write `*.tsv.gz` (a single gzip member per file) instead of plain `*.tsv`.
    pub gzip: bool,
    /// Gzip compression level, 0–9 (only with `gzip`). The default, 1, is the fastest; 6 makes the
    /// files about 30 % smaller at a quarter of the speed.
    pub gzip_level: u32,
    /// Probability that a title's cast is drawn partly from its lead's favourite collaborators
    /// (higher for TV episodes and series, whose regular cast recurs), in `[0, 1]`.
    pub troupe_probability: f64,
    /// Fraction of titles that get a rating row, in `[0, 1]` (movies and series are rated more
    /// often than episodes).
    pub rated_fraction: f64,
    /// Pareto exponent of the persons' career weights (smaller = heavier tail); must be positive.
    pub career_exponent: f64,
}

impl Default for ImdbGenConfig {
    /// The committed sample's size: 3000 titles, 4000 persons, seed 42, plain TSV.
    fn default() -> Self {
        ImdbGenConfig {
            titles: 3000,
            persons: 4000,
            principals: None,
            seed: 42,
            gzip: false,
            gzip_level: 1,
            troupe_probability: 0.3,
            rated_fraction: 0.25,
            career_exponent: 1.6,
        }
    }
}

/// What [`generate_imdb`] wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GenSummary {
    /// Rows of `title.basics`.
    pub titles: u64,
    /// Rows of `name.basics`.
    pub persons: u64,
    /// Rows of `title.principals`.
    pub principals: u64,
    /// Rows of `title.ratings`.
    pub ratings: u64,
    /// Bytes written to disk, all files together (compressed size with gzip), headers included.
    pub bytes: u64,
    /// The files written: title.basics, name.basics, title.principals, title.ratings.
    pub files: Vec<PathBuf>,
}

impl GenSummary {
    /// Total data rows written (headers excluded).
    pub fn rows(&self) -> u64 {
        self.titles + self.persons + self.principals + self.ratings
    }
}

/// Header of `title.basics.tsv`.
pub const TITLE_BASICS_HEADER: &str =
    "tconst\ttitleType\tprimaryTitle\toriginalTitle\tisAdult\tstartYear\tendYear\truntimeMinutes\tgenres";
/// Header of `name.basics.tsv`.
pub const NAME_BASICS_HEADER: &str =
    "nconst\tprimaryName\tbirthYear\tdeathYear\tprimaryProfession\tknownForTitles";
/// Header of `title.principals.tsv`.
pub const TITLE_PRINCIPALS_HEADER: &str = "tconst\tordering\tnconst\tcategory\tjob\tcharacters";
/// Header of `title.ratings.tsv`.
pub const TITLE_RATINGS_HEADER: &str = "tconst\taverageRating\tnumVotes";

// ---------------------------------------------------------------------------------------------
// Vocabulary and distributions
// ---------------------------------------------------------------------------------------------

/// Stream tags: every kind of decision has its own independent per-entity stream.
const S_TITLE: u64 = 1;
const S_PRINCIPALS: u64 = 2;
const S_RATING: u64 = 3;
const S_PROFILE: u64 = 4;
const S_NAME: u64 = 5;
const S_FAVOURITE: u64 = 16;

/// Title types, in `TYPE_WEIGHTS` order.
const TYPES: [&str; 11] = [
    "tvEpisode",
    "short",
    "movie",
    "video",
    "tvSeries",
    "tvMovie",
    "tvMiniSeries",
    "tvSpecial",
    "tvShort",
    "videoGame",
    "tvPilot",
];
const T_EPISODE: u8 = 0;
const T_SHORT: u8 = 1;
const T_MOVIE: u8 = 2;
const T_VIDEO: u8 = 3;
const T_SERIES: u8 = 4;
const T_TVMOVIE: u8 = 5;
const T_MINISERIES: u8 = 6;
const T_SPECIAL: u8 = 7;
const T_TVSHORT: u8 = 8;
const T_VIDEOGAME: u8 = 9;
const T_PILOT: u8 = 10;
/// Share of each title type.
const TYPE_WEIGHTS: [f64; 11] = [
    0.60, 0.12, 0.10, 0.05, 0.05, 0.035, 0.015, 0.015, 0.005, 0.01, 0.0005,
];
/// Mean cast size (principals per title) per type before calibration to the target.
const TYPE_CAST_MEAN: [f64; 11] = [5.5, 4.0, 7.5, 4.5, 6.0, 6.5, 6.5, 5.0, 3.0, 5.0, 6.0];
/// Relative chance of a rating per type (scaled so that the overall share is `rated_fraction`).
const TYPE_RATED: [f64; 11] = [0.15, 0.25, 0.75, 0.3, 0.55, 0.5, 0.6, 0.3, 0.2, 0.4, 0.2];
/// Chance that a title of the type is non-fiction (documentary, talk show, news…: `self` cast).
const TYPE_NONFICTION: [f64; 11] = [0.2, 0.15, 0.08, 0.2, 0.2, 0.06, 0.15, 0.5, 0.2, 0.0, 0.1];
/// Earliest start year per type.
const TYPE_MIN_YEAR: [u16; 11] = [
    1936, 1890, 1894, 1975, 1936, 1940, 1950, 1940, 1940, 1972, 1940,
];
/// Known-for priority per type (movies and series before shorts and videos before episodes).
const TYPE_KNOWN_FOR: [u32; 11] = [1, 2, 3, 2, 3, 2, 3, 2, 2, 2, 2];
const LATEST_YEAR: u16 = 2025;

/// The 28 genre names of the real dump, in alphabetical order (genres are listed sorted).
/// The 28 genre names of the official dump.
pub const GENRES: [&str; 28] = [
    "Action",
    "Adult",
    "Adventure",
    "Animation",
    "Biography",
    "Comedy",
    "Crime",
    "Documentary",
    "Drama",
    "Family",
    "Fantasy",
    "Film-Noir",
    "Game-Show",
    "History",
    "Horror",
    "Music",
    "Musical",
    "Mystery",
    "News",
    "Reality-TV",
    "Romance",
    "Sci-Fi",
    "Short",
    "Sport",
    "Talk-Show",
    "Thriller",
    "War",
    "Western",
];
const G_ADULT: u8 = 1;
const G_SHORT: u8 = 22;
/// Genre weights of fiction titles.
const FICTION_GENRES: [f64; 28] = [
    6.0, 0.0, 4.0, 4.0, 1.0, 20.0, 6.0, 0.0, 25.0, 4.0, 3.0, 0.2, 0.0, 1.5, 4.0, 1.5, 1.0, 3.0,
    0.0, 0.0, 7.0, 2.5, 0.0, 1.0, 0.0, 5.0, 1.0, 1.0,
];
/// Main genre weights of non-fiction titles.
const NONFICTION_MAIN_GENRES: [f64; 28] = [
    0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 10.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 3.0,
    4.0, 0.0, 0.0, 0.0, 0.0, 4.0, 0.0, 0.0, 0.0,
];
/// Secondary genre weights of non-fiction titles.
const NONFICTION_MORE_GENRES: [f64; 28] = [
    0.0, 0.0, 0.0, 0.0, 3.0, 3.0, 2.0, 1.0, 1.0, 2.0, 0.0, 0.0, 0.5, 3.0, 0.0, 4.0, 0.0, 0.0, 2.0,
    1.0, 0.0, 0.0, 0.0, 3.0, 1.0, 0.0, 0.0, 0.0,
];

/// Person pools (a person's primary profession, and the pool credits of a category draw from).
const P_ACTOR: usize = 0;
const P_ACTRESS: usize = 1;
const P_DIRECTOR: usize = 2;
const P_WRITER: usize = 3;
const P_PRODUCER: usize = 4;
const P_COMPOSER: usize = 5;
const P_CINEMATOGRAPHER: usize = 6;
const P_EDITOR: usize = 7;
const P_DESIGNER: usize = 8;
const P_SELF: usize = 9;
const NPOOLS: usize = 10;
/// Share of persons per primary pool.
const POOL_WEIGHTS: [f64; NPOOLS] = [0.30, 0.22, 0.08, 0.10, 0.09, 0.04, 0.04, 0.04, 0.02, 0.07];
/// primaryProfession name per pool (`None` for the self pool: TV personalities list other things).
const POOL_PROFESSION: [Option<&str>; NPOOLS] = [
    Some("actor"),
    Some("actress"),
    Some("director"),
    Some("writer"),
    Some("producer"),
    Some("composer"),
    Some("cinematographer"),
    Some("editor"),
    Some("production_designer"),
    None,
];
/// Chance of a secondary pool, and its candidates with weights (per primary pool).
const SECONDARY: [(f64, &[(usize, f64)]); NPOOLS] = [
    (
        0.12,
        &[(P_DIRECTOR, 0.35), (P_WRITER, 0.25), (P_PRODUCER, 0.4)],
    ),
    (
        0.10,
        &[(P_DIRECTOR, 0.25), (P_WRITER, 0.3), (P_PRODUCER, 0.45)],
    ),
    (0.55, &[(P_WRITER, 0.6), (P_PRODUCER, 0.3), (P_ACTOR, 0.1)]),
    (0.35, &[(P_PRODUCER, 0.5), (P_DIRECTOR, 0.5)]),
    (0.25, &[(P_DIRECTOR, 0.4), (P_WRITER, 0.6)]),
    (0.05, &[(P_PRODUCER, 1.0)]),
    (0.15, &[(P_DIRECTOR, 0.6), (P_EDITOR, 0.4)]),
    (0.15, &[(P_DIRECTOR, 0.5), (P_PRODUCER, 0.5)]),
    (0.05, &[(P_DIRECTOR, 1.0)]),
    (0.10, &[(P_PRODUCER, 1.0)]),
];
/// Career weight of a person in a secondary pool, relative to the primary one.
const SECONDARY_WEIGHT: f64 = 0.3;

/// Principal categories.
const CATEGORIES: [&str; 11] = [
    "actor",
    "actress",
    "self",
    "archive_footage",
    "director",
    "writer",
    "producer",
    "composer",
    "cinematographer",
    "editor",
    "production_designer",
];
const C_ACTOR: u8 = 0;
const C_ACTRESS: u8 = 1;
const C_SELF: u8 = 2;
const C_ARCHIVE: u8 = 3;
const C_DIRECTOR: u8 = 4;
const C_WRITER: u8 = 5;
const C_PRODUCER: u8 = 6;
const C_COMPOSER: u8 = 7;
const C_CINEMATOGRAPHER: u8 = 8;
const C_EDITOR: u8 = 9;
const C_DESIGNER: u8 = 10;
/// Pseudo-category "cast": actor or actress, decided by `MALE_CAST_SHARE`.
const C_CAST: u8 = 255;
const MALE_CAST_SHARE: f64 = 0.57;
/// Categories of the non-lead slots of a fiction title, with weights.
const FICTION_SLOTS: [(u8, f64); 9] = [
    (C_CAST, 0.62),
    (C_DIRECTOR, 0.085),
    (C_WRITER, 0.115),
    (C_PRODUCER, 0.075),
    (C_COMPOSER, 0.03),
    (C_CINEMATOGRAPHER, 0.03),
    (C_EDITOR, 0.03),
    (C_DESIGNER, 0.008),
    (C_ARCHIVE, 0.007),
];
/// Categories of the non-lead slots of a non-fiction title.
const NONFICTION_SLOTS: [(u8, f64); 8] = [
    (C_SELF, 0.62),
    (C_DIRECTOR, 0.1),
    (C_WRITER, 0.05),
    (C_PRODUCER, 0.11),
    (C_COMPOSER, 0.03),
    (C_CINEMATOGRAPHER, 0.04),
    (C_EDITOR, 0.04),
    (C_ARCHIVE, 0.01),
];
/// Chance that a troupe title takes a slot of the category from the lead's favourites.
const FAVOURITE_CHANCE: [f64; 11] = [0.6, 0.6, 0.6, 0.0, 0.7, 0.4, 0.4, 0.5, 0.4, 0.4, 0.3];
/// Number of favourite collaborators a lead has per pool (cast pools / crew pools).
const FAVOURITES_CAST: u64 = 5;
const FAVOURITES_CREW: u64 = 2;

/// Bits of a known-for slot that hold `title index + 1`; the two bits above hold the priority.
const KNOWN_FOR_BITS: u32 = 30;
const KNOWN_FOR_MASK: u32 = (1 << KNOWN_FOR_BITS) - 1;
const MAX_TITLES: u64 = (1 << KNOWN_FOR_BITS) - 1;
/// Most principals per title on average that `principals` may ask for.
const MAX_MEAN_CAST: f64 = 40.0;

/// Titles per generated chunk (the unit of parallel work and of gzip compression).
const TITLE_CHUNK: u64 = 8192;
/// Persons per generated chunk.
const PERSON_CHUNK: u64 = 16384;

// ---------------------------------------------------------------------------------------------
// Entry point
// ---------------------------------------------------------------------------------------------

/// Generates a synthetic IMDb dump into `out_dir` (created if needed): `title.basics.tsv`,
/// `name.basics.tsv`, `title.principals.tsv` and `title.ratings.tsv` (`.tsv.gz` with
/// `config.gzip`), in the exact format of the official dump. Deterministic: the same configuration
/// gives byte-identical files.
///
/// Errors: [`Error::InvalidArgument`] for an out-of-range configuration (no titles or persons, too
/// many, a probability outside `[0, 1]` …), [`Error::Io`] when a file cannot be written.
///
/// An earlier generation's files are replaced: [`generate_imdb_with`] with
/// [`WriteOptions::REPLACE`].
pub fn generate_imdb(config: &ImdbGenConfig, out_dir: &Path) -> Result<GenSummary> {
    generate_imdb_with(config, out_dir, &WriteOptions::REPLACE)
}

/// [`generate_imdb`], the directory written as one set (see `dir_set`, through
/// [`crate::util::safe_dir`]) with `options`: without `force` an earlier generation's file in it
/// is an [`Error::Refused`] before anything is written; a failed or interrupted run leaves the
/// directory as it was, and a finished one holds exactly the new files (plus the user's own).
pub fn generate_imdb_with(
    config: &ImdbGenConfig,
    out_dir: &Path,
    options: &WriteOptions,
) -> Result<GenSummary> {
    validate(config)?;
    let ext = if config.gzip { "tsv.gz" } else { "tsv" };
    let mut set = GenDir::create(out_dir, options)?;
    let ctx = Ctx::new(config);
    let level = config.gzip.then(|| Compression::new(config.gzip_level));
    let create =
        |name: &str, header: &str| OutFile::create(&set, format!("{name}.{ext}"), level, header);
    let mut basics = create("title.basics", TITLE_BASICS_HEADER)?;
    let mut names = create("name.basics", NAME_BASICS_HEADER)?;
    let mut principals = create("title.principals", TITLE_PRINCIPALS_HEADER)?;
    let mut ratings = create("title.ratings", TITLE_RATINGS_HEADER)?;
    // Progress in uncompressed bytes, against a rough estimate of the total.
    let mean_cast = config.principals.unwrap_or(config.titles * 6) as f64 / config.titles as f64;
    let estimate = config.titles as f64 * (105.0 + 47.0 * mean_cast) + config.persons as f64 * 66.0;
    let mut progress = Progress::new("generating IMDb", estimate as u64);
    let batch = (rayon::current_num_threads() as u64 * 2).max(2);

    // Four known-for slots per person: `priority << 30 | (title + 1)`, the maximum wins (so the
    // result does not depend on the order in which credits are applied).
    let mut known_for = vec![0u32; config.persons as usize * 4];

    // Titles: basics, principals and ratings of a chunk of titles together; each chunk also lists
    // its credits' known-for candidates, applied here (plain loads and stores that overlap their
    // cache misses, rather than atomics from the workers).
    let mut summary_principals = 0;
    let mut summary_ratings = 0;
    let title_chunks = config.titles.div_ceil(TITLE_CHUNK);
    for first in (0..title_chunks).step_by(batch as usize) {
        let last = (first + batch).min(title_chunks);
        let outs: Vec<Result<TitleChunk>> = (first..last)
            .into_par_iter()
            .map(|c| {
                let start = c * TITLE_CHUNK;
                let end = (start + TITLE_CHUNK).min(config.titles);
                ctx.title_chunk(
                    start,
                    end,
                    level,
                    [&basics.path, &principals.path, &ratings.path],
                )
            })
            .collect();
        for out in outs {
            let out = out?;
            summary_principals += out.principals;
            summary_ratings += out.ratings;
            for (person, key) in out.known_for {
                let t = (key & KNOWN_FOR_MASK) as u64 - 1;
                let slot = &mut known_for[person as usize * 4 + known_for_slot(config.seed, t)];
                *slot = (*slot).max(key);
            }
            progress.inc(basics.write(out.basics)? + principals.write(out.credits)?);
            progress.inc(ratings.write(out.rating_rows)?);
        }
    }

    // Persons, once every known-for slot is final.
    let person_chunks = config.persons.div_ceil(PERSON_CHUNK);
    for first in (0..person_chunks).step_by(batch as usize) {
        let last = (first + batch).min(person_chunks);
        let outs: Vec<Result<Encoded>> = (first..last)
            .into_par_iter()
            .map(|c| {
                let start = c * PERSON_CHUNK;
                let end = (start + PERSON_CHUNK).min(config.persons);
                let mut buf = Vec::with_capacity(((end - start) * 80) as usize);
                for p in start..end {
                    let slots = &known_for[p as usize * 4..p as usize * 4 + 4];
                    ctx.name_row(p, slots, &mut buf);
                }
                Encoded::new(buf, level, &names.path)
            })
            .collect();
        for out in outs {
            progress.inc(names.write(out?)?);
        }
    }

    let mut bytes = 0;
    let mut files = Vec::with_capacity(4);
    for f in [basics, names, principals, ratings] {
        let (path, n) = f.finish(&mut set)?;
        bytes += n;
        files.push(path);
    }
    set.commit()?;
    Ok(GenSummary {
        titles: config.titles,
        persons: config.persons,
        principals: summary_principals,
        ratings: summary_ratings,
        bytes,
        files,
    })
}

/// Checks the configuration's ranges.
fn validate(c: &ImdbGenConfig) -> Result<()> {
    let bad = |m: String| Err(Error::InvalidArgument(m));
    if c.titles == 0 || c.titles > MAX_TITLES {
        return bad(format!(
            "titles must be between 1 and {MAX_TITLES} (got {})",
            c.titles
        ));
    }
    if c.persons == 0 || c.persons >= u32::MAX as u64 {
        return bad(format!(
            "persons must be between 1 and {} (got {})",
            u32::MAX - 1,
            c.persons
        ));
    }
    if let Some(k) = c.principals {
        if k as f64 / c.titles as f64 > MAX_MEAN_CAST {
            return bad(format!(
                "principals must be at most {MAX_MEAN_CAST} per title (got {k} for {} titles)",
                c.titles
            ));
        }
    }
    for (name, p) in [
        ("troupe_probability", c.troupe_probability),
        ("rated_fraction", c.rated_fraction),
    ] {
        if !(0.0..=1.0).contains(&p) {
            return bad(format!("{name} must be in [0, 1] (got {p})"));
        }
    }
    if !(c.career_exponent.is_finite() && c.career_exponent > 0.0) {
        return bad(format!(
            "career_exponent must be positive (got {})",
            c.career_exponent
        ));
    }
    if c.gzip_level > 9 {
        return bad(format!("gzip_level must be 0-9 (got {})", c.gzip_level));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Output: plain or single-member gzip, compressed chunk by chunk in parallel
// ---------------------------------------------------------------------------------------------

/// A chunk of rows ready to be appended to a file.
enum Encoded {
    /// Plain bytes.
    Plain(Vec<u8>),
    /// Raw deflate blocks ending on a byte boundary (sync flush), with the CRC of the input.
    Deflated { data: Vec<u8>, crc: Crc, len: u64 },
}

impl Encoded {
    /// Encodes `buf` (compresses it when `level` is set).
    fn new(buf: Vec<u8>, level: Option<Compression>, path: &Path) -> Result<Self> {
        let Some(level) = level else {
            return Ok(Encoded::Plain(buf));
        };
        let mut crc = Crc::new();
        crc.update(&buf);
        let mut c = Compress::new(level, false);
        let mut data = Vec::with_capacity(buf.len() / 2 + 1024);
        loop {
            if data.capacity() - data.len() < 1024 {
                data.reserve(data.capacity().max(4096));
            }
            let consumed = c.total_in() as usize;
            c.compress_vec(&buf[consumed..], &mut data, FlushCompress::Sync)
                .map_err(|e| Error::io(path, std::io::Error::other(e)))?;
            if c.total_in() as usize == buf.len() && data.len() < data.capacity() {
                break;
            }
        }
        Ok(Encoded::Deflated {
            data,
            crc,
            len: buf.len() as u64,
        })
    }
}

/// One output file being written.
struct OutFile {
    /// File name in the set.
    name: String,
    /// Final path (for messages).
    path: PathBuf,
    file: DirFile,
    /// Running CRC and length of the uncompressed content (gzip only).
    gzip: Option<(Crc, u64)>,
    bytes: u64,
}

impl OutFile {
    /// Creates the file and writes the gzip header (if any) and the TSV header line.
    fn create(
        set: &GenDir,
        name: String,
        level: Option<Compression>,
        header: &str,
    ) -> Result<Self> {
        let file = set.create_file(&name)?;
        let mut out = OutFile {
            path: set.final_path(&name),
            name,
            file,
            gzip: None,
            bytes: 0,
        };
        if level.is_some() {
            // Magic, deflate, no flags, mtime 0 (reproducible), no extra flags, OS unknown.
            out.raw(&[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255])?;
            out.gzip = Some((Crc::new(), 0));
        }
        let mut line = header.as_bytes().to_vec();
        line.push(b'\n');
        let chunk = Encoded::new(line, level, &out.path)?;
        out.write(chunk)?;
        Ok(out)
    }

    fn raw(&mut self, data: &[u8]) -> Result<()> {
        self.file
            .write_all(data)
            .map_err(|e| Error::io(&self.path, e))?;
        self.bytes += data.len() as u64;
        Ok(())
    }

    /// Appends a chunk; returns its uncompressed size.
    fn write(&mut self, chunk: Encoded) -> Result<u64> {
        match chunk {
            Encoded::Plain(buf) => {
                self.raw(&buf)?;
                Ok(buf.len() as u64)
            }
            Encoded::Deflated { data, crc, len } => {
                self.raw(&data)?;
                if let Some((total, n)) = &mut self.gzip {
                    total.combine(&crc);
                    *n += len;
                }
                Ok(len)
            }
        }
    }

    /// Ends the gzip stream (final empty block, CRC-32, length mod 2^32), flushes and syncs.
    fn finish(mut self, set: &mut GenDir) -> Result<(PathBuf, u64)> {
        if let Some((crc, len)) = self.gzip.take() {
            let mut trailer = vec![0x03, 0x00];
            trailer.extend_from_slice(&crc.sum().to_le_bytes());
            trailer.extend_from_slice(&(len as u32).to_le_bytes());
            self.raw(&trailer)?;
        }
        let path = set.finish_file(&self.name, self.file)?;
        Ok((path, self.bytes))
    }
}

/// The three outputs of a chunk of titles.
struct TitleChunk {
    basics: Encoded,
    credits: Encoded,
    rating_rows: Encoded,
    principals: u64,
    ratings: u64,
    /// (person, known-for key) of every credit.
    known_for: Vec<(u32, u32)>,
}

// ---------------------------------------------------------------------------------------------
// Generation context: distributions, person pools, known-for slots
// ---------------------------------------------------------------------------------------------

/// What a title's rows are derived from (shared by basics, principals and ratings).
struct TitleCore {
    ttype: u8,
    adult: bool,
    nonfiction: bool,
    start_year: Option<u16>,
    /// Sorted genre indices; `ngenres == 0` means `\N`.
    genres: [u8; 3],
    ngenres: u8,
}

/// A person's stable attributes (recomputed from the person's stream wherever needed).
struct Profile {
    pool: usize,
    secondary: Option<usize>,
    extra: Option<usize>,
    female: bool,
    weight: f64,
}

struct Ctx {
    seed: u64,
    persons: u64,
    troupe_probability: f64,
    career_exponent: f64,
    career_cap: f64,
    rated_scale: f64,
    type_table: AliasTable,
    /// Per title type: cast size distribution over `0..=kmax`.
    cast_tables: Vec<AliasTable>,
    fiction_genres: AliasTable,
    nonfiction_main: AliasTable,
    nonfiction_more: AliasTable,
    fiction_slots: AliasTable,
    nonfiction_slots: AliasTable,
    pool_table: AliasTable,
    male_first: AliasTable,
    female_first: AliasTable,
    last: AliasTable,
    /// Per pool: its members, drawn by career weight (`None` when the pool is empty).
    pools: Vec<Option<WeightedValues>>,
}

fn table(weights: &[f64]) -> AliasTable {
    AliasTable::new(weights).expect("built-in weights are positive")
}

impl Ctx {
    fn new(c: &ImdbGenConfig) -> Self {
        let mean_cast = c
            .principals
            .map(|k| k as f64 / c.titles as f64)
            .unwrap_or(6.0);
        let rated_mean: f64 = TYPE_WEIGHTS
            .iter()
            .zip(TYPE_RATED)
            .map(|(w, r)| w * r)
            .sum::<f64>()
            / TYPE_WEIGHTS.iter().sum::<f64>();
        let mut ctx = Ctx {
            seed: c.seed,
            persons: c.persons,
            troupe_probability: c.troupe_probability,
            career_exponent: c.career_exponent,
            career_cap: (c.persons as f64).sqrt().max(10.0),
            rated_scale: c.rated_fraction / rated_mean,
            type_table: table(&TYPE_WEIGHTS),
            cast_tables: cast_size_tables(mean_cast),
            fiction_genres: table(&FICTION_GENRES),
            nonfiction_main: table(&NONFICTION_MAIN_GENRES),
            nonfiction_more: table(&NONFICTION_MORE_GENRES),
            fiction_slots: table(&FICTION_SLOTS.map(|s| s.1)),
            nonfiction_slots: table(&NONFICTION_SLOTS.map(|s| s.1)),
            pool_table: table(&POOL_WEIGHTS),
            male_first: table(&zipf_weights(MALE_FIRST.len(), 0.8)),
            female_first: table(&zipf_weights(FEMALE_FIRST.len(), 0.8)),
            last: table(&zipf_weights(LAST.len(), 0.6)),
            pools: Vec::new(),
        };
        ctx.pools = ctx.build_pools();
        ctx
    }

    /// Builds one alias table per pool over its members' career weights.
    fn build_pools(&self) -> Vec<Option<WeightedValues>> {
        let mut members: Vec<Vec<u32>> = vec![Vec::new(); NPOOLS];
        let mut weights: Vec<Vec<f64>> = vec![Vec::new(); NPOOLS];
        for p in 0..self.persons {
            let prof = self.profile(p);
            members[prof.pool].push(p as u32);
            weights[prof.pool].push(prof.weight);
            if let Some(s) = prof.secondary {
                members[s].push(p as u32);
                weights[s].push(prof.weight * SECONDARY_WEIGHT);
            }
        }
        members
            .into_iter()
            .zip(weights)
            .map(|(members, weights)| WeightedValues::new(&members, &weights))
            .collect()
    }

    /// A person's stable attributes.
    fn profile(&self, p: u64) -> Profile {
        let mut rng = SplitMix64::for_stream(self.seed, S_PROFILE, p);
        let pool = self.pool_table.sample(&mut rng);
        let female = match pool {
            P_ACTOR => false,
            P_ACTRESS => true,
            P_SELF => rng.bernoulli(0.4),
            _ => rng.bernoulli(0.25),
        };
        let weight = rng.pareto(1.0, self.career_exponent).min(self.career_cap);
        let (chance, candidates) = SECONDARY[pool];
        let secondary = if rng.bernoulli(chance) {
            let mut x = rng.next_f64() * candidates.iter().map(|c| c.1).sum::<f64>();
            let mut s = candidates[candidates.len() - 1].0;
            for &(pool, w) in candidates {
                if x < w {
                    s = pool;
                    break;
                }
                x -= w;
            }
            // An actress's acting secondary is "actress", not "actor".
            Some(if s == P_ACTOR && female { P_ACTRESS } else { s })
        } else {
            None
        };
        let extra_chance = if pool == P_SELF { 0.5 } else { 0.15 };
        let extra = rng
            .bernoulli(extra_chance)
            .then(|| rng.below(EXTRA_PROFESSIONS.len() as u64) as usize);
        Profile {
            pool,
            secondary,
            extra,
            female,
            weight,
        }
    }

    /// A person drawn from `pool` by career weight (uniformly from everyone if the pool is empty).
    #[inline]
    fn person_from(&self, pool: usize, rng: &mut SplitMix64) -> u32 {
        match &self.pools[pool] {
            Some(p) => p.sample(rng),
            None => rng.below(self.persons) as u32,
        }
    }

    /// The `j`-th favourite collaborator of `lead` in `pool` (a fixed, weight-biased choice).
    fn favourite(&self, lead: u32, pool: usize, j: u64) -> u32 {
        let mut rng = SplitMix64::for_stream(
            self.seed,
            S_FAVOURITE + pool as u64,
            ((lead as u64) << 3) | j,
        );
        self.person_from(pool, &mut rng)
    }

    /// The pool a credit of category `cat` is drawn from.
    fn pool_for(&self, cat: u8, rng: &mut SplitMix64) -> usize {
        match cat {
            C_ACTOR => P_ACTOR,
            C_ACTRESS => P_ACTRESS,
            C_SELF => match rng.below(4) {
                0 => P_ACTOR,
                1 => P_ACTRESS,
                _ => P_SELF,
            },
            C_ARCHIVE => {
                if rng.bernoulli(MALE_CAST_SHARE) {
                    P_ACTOR
                } else {
                    P_ACTRESS
                }
            }
            C_DIRECTOR => P_DIRECTOR,
            C_WRITER => P_WRITER,
            C_PRODUCER => P_PRODUCER,
            C_COMPOSER => P_COMPOSER,
            C_CINEMATOGRAPHER => P_CINEMATOGRAPHER,
            C_EDITOR => P_EDITOR,
            _ => P_DESIGNER,
        }
    }

    // -----------------------------------------------------------------------------------------
    // Titles
    // -----------------------------------------------------------------------------------------

    /// The title's core attributes and its stream, positioned for the text of `title.basics`.
    fn title_core(&self, t: u64) -> (TitleCore, SplitMix64) {
        let mut rng = SplitMix64::for_stream(self.seed, S_TITLE, t);
        let ttype = self.type_table.sample(&mut rng) as u8;
        let adult = matches!(ttype, T_MOVIE | T_VIDEO | T_SHORT) && rng.bernoulli(0.025);
        let nonfiction = !adult && rng.bernoulli(TYPE_NONFICTION[ttype as usize]);
        let null_year = if ttype == T_EPISODE { 0.08 } else { 0.03 };
        let start_year = (!rng.bernoulli(null_year)).then(|| {
            let min = TYPE_MIN_YEAR[ttype as usize];
            let span = (LATEST_YEAR - min + 1) as f64;
            let back = (span * rng.next_f64().powi(3)) as u16;
            LATEST_YEAR - back.min(LATEST_YEAR - min)
        });
        let mut genres = [0u8; 3];
        let mut n = 0usize;
        if !rng.bernoulli(0.05) || adult {
            let want = match rng.below(20) {
                0..=8 => 1,
                9..=14 => 2,
                _ => 3,
            };
            let mut push = |g: u8, genres: &mut [u8; 3]| {
                if n < 3 && !genres[..n].contains(&g) {
                    genres[n] = g;
                    n += 1;
                }
            };
            if adult {
                push(G_ADULT, &mut genres);
            }
            if matches!(ttype, T_SHORT | T_TVSHORT) && rng.bernoulli(0.85) {
                push(G_SHORT, &mut genres);
            }
            if nonfiction {
                push(self.nonfiction_main.sample(&mut rng) as u8, &mut genres);
            }
            for _ in 0..want {
                let g = if nonfiction {
                    self.nonfiction_more.sample(&mut rng)
                } else {
                    self.fiction_genres.sample(&mut rng)
                };
                push(g as u8, &mut genres);
            }
            genres[..n].sort_unstable();
        }
        (
            TitleCore {
                ttype,
                adult,
                nonfiction,
                start_year,
                genres,
                ngenres: n as u8,
            },
            rng,
        )
    }

    /// Generates titles `start..end`: their basics, principals and ratings rows.
    fn title_chunk(
        &self,
        start: u64,
        end: u64,
        level: Option<Compression>,
        paths: [&Path; 3],
    ) -> Result<TitleChunk> {
        let n = (end - start) as usize;
        let mut basics = Vec::with_capacity(n * 96);
        let mut credits = Vec::with_capacity(n * 320);
        let mut rating_rows = Vec::with_capacity(n * 8);
        let mut principals = 0;
        let mut ratings = 0;
        let mut scratch = CastScratch::default();
        let mut known_for = Vec::with_capacity(n * 8);
        for t in start..end {
            let mut tconst = [0u8; 16];
            let tlen = id_bytes(&mut tconst, b"tt", t + 1);
            let tconst = &tconst[..tlen];
            let (core, mut rng) = self.title_core(t);
            self.basics_row(tconst, &core, &mut rng, &mut basics);
            principals +=
                self.principal_rows(t, tconst, &core, &mut scratch, &mut known_for, &mut credits);
            ratings += self.rating_row(t, tconst, &core, &mut rating_rows) as u64;
        }
        Ok(TitleChunk {
            basics: Encoded::new(basics, level, paths[0])?,
            credits: Encoded::new(credits, level, paths[1])?,
            rating_rows: Encoded::new(rating_rows, level, paths[2])?,
            principals,
            ratings,
            known_for,
        })
    }

    /// Appends the `title.basics` row.
    fn basics_row(&self, tconst: &[u8], core: &TitleCore, rng: &mut SplitMix64, out: &mut Vec<u8>) {
        let ty = core.ttype;
        out.extend_from_slice(tconst);
        out.push(b'\t');
        out.extend_from_slice(TYPES[ty as usize].as_bytes());
        out.push(b'\t');
        let title_start = out.len();
        self.title_text(core, rng, out);
        let title_end = out.len();
        out.push(b'\t');
        let foreign = if ty == T_EPISODE { 0.01 } else { 0.08 };
        if rng.bernoulli(foreign) {
            out.extend_from_slice(rng.pick(&FOREIGN_TITLE).as_bytes());
        } else {
            out.extend_from_within(title_start..title_end);
        }
        out.extend_from_slice(if core.adult { b"\t1\t" } else { b"\t0\t" });
        push_opt(out, core.start_year.map(u64::from));
        out.push(b'\t');
        let end_year = match (ty, core.start_year) {
            (T_SERIES, Some(y)) if rng.bernoulli(0.45) => {
                Some((y as u64 + rng.power_law(1, 40, 1.3) - 1).min(LATEST_YEAR as u64))
            }
            (T_MINISERIES, Some(y)) if rng.bernoulli(0.7) => {
                Some((y as u64 + rng.below(2)).min(LATEST_YEAR as u64))
            }
            _ => None,
        };
        push_opt(out, end_year);
        out.push(b'\t');
        push_opt(out, self.runtime(ty, rng));
        out.push(b'\t');
        if core.ngenres == 0 {
            out.extend_from_slice(b"\\N");
        } else {
            for (i, &g) in core.genres[..core.ngenres as usize].iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                out.extend_from_slice(GENRES[g as usize].as_bytes());
            }
        }
        out.push(b'\n');
    }

    /// runtimeMinutes by title type (`None` = `\N`).
    fn runtime(&self, ty: u8, rng: &mut SplitMix64) -> Option<u64> {
        let null = match ty {
            T_VIDEOGAME => 0.97,
            T_EPISODE => 0.35,
            _ => 0.2,
        };
        if rng.bernoulli(null) {
            return None;
        }
        let normal = |rng: &mut SplitMix64, m: f64, sd: f64, lo: f64, hi: f64| {
            rng.normal(m, sd).round().clamp(lo, hi) as u64
        };
        Some(match ty {
            T_MOVIE => normal(rng, 95.0, 22.0, 40.0, 320.0),
            T_TVMOVIE => normal(rng, 88.0, 15.0, 45.0, 200.0),
            T_SHORT | T_TVSHORT => normal(rng, 12.0, 8.0, 1.0, 45.0),
            T_VIDEO => normal(rng, 70.0, 30.0, 5.0, 240.0),
            T_SPECIAL => normal(rng, 60.0, 25.0, 10.0, 200.0),
            T_EPISODE | T_SERIES | T_PILOT => {
                rng.pick(&[11, 12, 15, 22, 22, 24, 25, 30, 30, 42, 44, 45, 50, 60, 60])
            }
            T_MINISERIES => rng.pick(&[45, 50, 60, 90, 240, 300, 360, 480]),
            _ => rng.range(5, 120),
        })
    }

    /// Appends a primary title.
    fn title_text(&self, core: &TitleCore, rng: &mut SplitMix64, out: &mut Vec<u8>) {
        if core.ttype == T_EPISODE {
            match rng.below(20) {
                0..=7 => {
                    put(out, "Episode #");
                    push_u64(out, rng.power_law(1, 40, 1.5));
                    out.push(b'.');
                    let episode = if rng.bernoulli(0.85) {
                        rng.range(1, 24)
                    } else {
                        rng.range(25, 250)
                    };
                    push_u64(out, episode);
                    return;
                }
                8..=10 => {
                    put(out, "Episode dated ");
                    push_u64(out, rng.range(1, 28));
                    out.push(b' ');
                    put(out, rng.pick(&MONTHS));
                    out.push(b' ');
                    let y = core.start_year.unwrap_or(2000 + rng.below(25) as u16);
                    push_u64(out, y as u64);
                    return;
                }
                _ => {}
            }
        }
        match rng.below(12) {
            0 | 1 => {
                put(out, "The ");
                put(out, rng.pick(&TITLE_ADJ));
                out.push(b' ');
                put(out, rng.pick(&TITLE_NOUN));
            }
            2 => {
                put(out, rng.pick(&TITLE_NOUN));
                put(out, " of the ");
                put(out, rng.pick(&TITLE_NOUN));
            }
            3 | 4 => {
                put(out, rng.pick(&TITLE_ADJ));
                out.push(b' ');
                put(out, rng.pick(&TITLE_NOUN));
            }
            5 => {
                put(out, "The ");
                put(out, rng.pick(&TITLE_NOUN));
            }
            6 => {
                put(out, MALE_FIRST[self.male_first.sample(rng)]);
                put(out, "'s ");
                put(out, rng.pick(&TITLE_NOUN));
            }
            7 => {
                put(out, rng.pick(&TITLE_NOUN));
                put(out, " in ");
                put(out, rng.pick(&TITLE_PLACE));
            }
            8 => put(out, rng.pick(&TITLE_NOUN)),
            9 => {
                put(out, rng.pick(&TITLE_ADJ));
                out.push(b' ');
                put(out, rng.pick(&TITLE_NOUN));
                out.push(b' ');
                push_u64(out, rng.range(2, 5));
            }
            10 => {
                let first = if rng.bernoulli(0.5) {
                    MALE_FIRST[self.male_first.sample(rng)]
                } else {
                    FEMALE_FIRST[self.female_first.sample(rng)]
                };
                put(out, first);
                out.push(b' ');
                put(out, LAST[self.last.sample(rng)]);
            }
            _ => {
                put(out, rng.pick(&TITLE_NOUN));
                put(out, " and ");
                put(out, rng.pick(&TITLE_NOUN));
            }
        }
    }

    /// Appends the title's `title.principals` rows; returns how many.
    fn principal_rows(
        &self,
        t: u64,
        tconst: &[u8],
        core: &TitleCore,
        scratch: &mut CastScratch,
        known_for: &mut Vec<(u32, u32)>,
        out: &mut Vec<u8>,
    ) -> u64 {
        let mut rng = SplitMix64::for_stream(self.seed, S_PRINCIPALS, t);
        let k = self.cast_tables[core.ttype as usize].sample(&mut rng);
        if k == 0 {
            return 0;
        }
        // Slot categories: the lead, then the others; cast first, then crew in canonical order.
        let cats = &mut scratch.cats;
        cats.clear();
        let cast = |rng: &mut SplitMix64| {
            if rng.bernoulli(MALE_CAST_SHARE) {
                C_ACTOR
            } else {
                C_ACTRESS
            }
        };
        cats.push(if core.nonfiction {
            C_SELF
        } else {
            cast(&mut rng)
        });
        let mut directors = 0;
        for _ in 1..k {
            let mut c = if core.nonfiction {
                NONFICTION_SLOTS[self.nonfiction_slots.sample(&mut rng)].0
            } else {
                FICTION_SLOTS[self.fiction_slots.sample(&mut rng)].0
            };
            if c == C_DIRECTOR {
                directors += 1;
                if directors > 2 {
                    c = C_CAST;
                }
            }
            if c == C_CAST {
                c = if core.nonfiction {
                    C_SELF
                } else {
                    cast(&mut rng)
                };
            }
            cats.push(c);
        }
        cats.sort_by_key(|&c| match c {
            C_ACTOR | C_ACTRESS | C_SELF => 0,
            other => other,
        });

        let episodic = matches!(core.ttype, T_EPISODE | T_SERIES | T_MINISERIES);
        let troupe_p = if episodic {
            (self.troupe_probability * 1.6).min(1.0)
        } else {
            self.troupe_probability
        };
        let troupe = rng.bernoulli(troupe_p);
        let lead_pool = self.pool_for(cats[0], &mut rng);
        let lead = self.person_from(lead_pool, &mut rng);
        let chosen = &mut scratch.chosen;
        chosen.clear();
        let key = (TYPE_KNOWN_FOR[core.ttype as usize] << KNOWN_FOR_BITS) | (t as u32 + 1);
        // First every person (a tight loop, so that the pools' cache misses overlap), then the rows.
        for (i, &cat) in cats.iter().enumerate() {
            if i == 0 {
                chosen.push((lead, cat));
                continue;
            }
            for attempt in 0..12 {
                let pool = self.pool_for(cat, &mut rng);
                let cand = if troupe && attempt < 3 && rng.bernoulli(FAVOURITE_CHANCE[cat as usize])
                {
                    let n = if pool <= P_ACTRESS || pool == P_SELF {
                        FAVOURITES_CAST
                    } else {
                        FAVOURITES_CREW
                    };
                    self.favourite(lead, pool, rng.below(n))
                } else {
                    self.person_from(pool, &mut rng)
                };
                if !chosen.contains(&(cand, cat)) {
                    chosen.push((cand, cat));
                    break;
                }
            }
        }
        for (ordering, &(person, cat)) in chosen.iter().enumerate() {
            known_for.push((person, key));
            out.extend_from_slice(tconst);
            out.push(b'\t');
            push_u64(out, ordering as u64 + 1);
            out.push(b'\t');
            push_id(out, b"nm", person as u64 + 1);
            out.push(b'\t');
            out.extend_from_slice(CATEGORIES[cat as usize].as_bytes());
            out.push(b'\t');
            match job(cat, &mut rng) {
                Some(j) => out.extend_from_slice(j.as_bytes()),
                None => out.extend_from_slice(b"\\N"),
            }
            out.push(b'\t');
            self.characters(cat, &mut rng, out);
            out.push(b'\n');
        }
        chosen.len() as u64
    }

    /// Appends the `characters` column: a JSON list of names, or `\N`.
    fn characters(&self, cat: u8, rng: &mut SplitMix64, out: &mut Vec<u8>) {
        let (p_some, selfish) = match cat {
            C_ACTOR | C_ACTRESS => (0.85, false),
            C_SELF => (0.92, true),
            C_ARCHIVE => (0.7, true),
            _ => (0.0, false),
        };
        if !rng.bernoulli(p_some) {
            out.extend_from_slice(b"\\N");
            return;
        }
        out.extend_from_slice(b"[\"");
        if selfish {
            out.extend_from_slice(rng.pick(&SELF_ROLES).as_bytes());
        } else {
            self.character_name(cat == C_ACTRESS, rng, out);
            if rng.bernoulli(0.03) {
                out.extend_from_slice(b"\",\"");
                self.character_name(cat == C_ACTRESS, rng, out);
            }
        }
        out.extend_from_slice(b"\"]");
    }

    /// Appends one character name ("Jack Ryan", "Detective Smith", "Nurse" …).
    fn character_name(&self, female: bool, rng: &mut SplitMix64, out: &mut Vec<u8>) {
        let first = |rng: &mut SplitMix64| {
            if female {
                FEMALE_FIRST[self.female_first.sample(rng)]
            } else {
                MALE_FIRST[self.male_first.sample(rng)]
            }
        };
        match rng.below(20) {
            0..=8 => {
                out.extend_from_slice(first(rng).as_bytes());
                out.push(b' ');
                out.extend_from_slice(LAST[self.last.sample(rng)].as_bytes());
            }
            9..=12 => out.extend_from_slice(first(rng).as_bytes()),
            13..=17 => out.extend_from_slice(rng.pick(&ROLES).as_bytes()),
            _ => {
                out.extend_from_slice(rng.pick(&ROLES).as_bytes());
                out.push(b' ');
                out.extend_from_slice(LAST[self.last.sample(rng)].as_bytes());
            }
        }
    }

    /// Appends the `title.ratings` row if the title is rated; returns whether it is.
    fn rating_row(&self, t: u64, tconst: &[u8], core: &TitleCore, out: &mut Vec<u8>) -> bool {
        let mut rng = SplitMix64::for_stream(self.seed, S_RATING, t);
        let ty = core.ttype as usize;
        if !rng.bernoulli(TYPE_RATED[ty] * self.rated_scale) {
            return false;
        }
        let alpha = match core.ttype {
            T_MOVIE | T_SERIES | T_MINISERIES => 0.55,
            _ => 0.9,
        };
        let votes = rng.power_law(5, 3_000_000, alpha);
        let mean = if core.ttype == T_EPISODE { 7.3 } else { 6.4 };
        let sd = 0.8 + 2.0 / (votes as f64).ln().max(1.0);
        let tenths = (rng.normal(mean, sd) * 10.0).round().clamp(10.0, 100.0) as u64;
        out.extend_from_slice(tconst);
        out.push(b'\t');
        push_u64(out, tenths / 10);
        out.push(b'.');
        out.push(b'0' + (tenths % 10) as u8);
        out.push(b'\t');
        push_u64(out, votes);
        out.push(b'\n');
        true
    }

    // -----------------------------------------------------------------------------------------
    // Persons
    // -----------------------------------------------------------------------------------------

    /// Appends the `name.basics` row of person `p`.
    fn name_row(&self, p: u64, known_slots: &[u32], out: &mut Vec<u8>) {
        let prof = self.profile(p);
        let mut rng = SplitMix64::for_stream(self.seed, S_NAME, p);
        push_id(out, b"nm", p + 1);
        out.push(b'\t');
        let first = if prof.female {
            FEMALE_FIRST[self.female_first.sample(&mut rng)]
        } else {
            MALE_FIRST[self.male_first.sample(&mut rng)]
        };
        out.extend_from_slice(first.as_bytes());
        if !rng.bernoulli(0.02) {
            if rng.bernoulli(0.06) {
                out.push(b' ');
                out.push(b'A' + rng.below(26) as u8);
                out.push(b'.');
            }
            out.push(b' ');
            out.extend_from_slice(LAST[self.last.sample(&mut rng)].as_bytes());
        }
        out.push(b'\t');
        let birth = rng
            .bernoulli(0.22)
            .then(|| rng.normal(1955.0, 25.0).round().clamp(1850.0, 2012.0) as u64);
        let death = birth.and_then(|b| {
            let p_dead = match b {
                ..=1924 => 0.9,
                1925..=1949 => 0.4,
                _ => 0.05,
            };
            let max_age = (LATEST_YEAR as u64).saturating_sub(b).min(105);
            (max_age >= 20 && rng.bernoulli(p_dead)).then(|| b + rng.range(20, max_age))
        });
        push_opt(out, birth);
        out.push(b'\t');
        push_opt(out, death);
        out.push(b'\t');
        let mut any = false;
        let mut prof_name = |name: &str, out: &mut Vec<u8>| {
            if any {
                out.push(b',');
            }
            out.extend_from_slice(name.as_bytes());
            any = true;
        };
        if let Some(name) = POOL_PROFESSION[prof.pool] {
            prof_name(name, out);
        }
        if let Some(name) = prof.secondary.and_then(|s| POOL_PROFESSION[s]) {
            prof_name(name, out);
        }
        if let Some(e) = prof.extra {
            prof_name(EXTRA_PROFESSIONS[e], out);
        }
        if !any {
            out.extend_from_slice(b"\\N");
        }
        out.push(b'\t');
        let mut known = [0u32; 4];
        let mut n = 0;
        for &v in known_slots {
            if v != 0 {
                known[n] = (v & KNOWN_FOR_MASK) - 1;
                n += 1;
            }
        }
        if n == 0 {
            out.extend_from_slice(b"\\N");
        } else {
            known[..n].sort_unstable();
            for (i, &t) in known[..n].iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                push_id(out, b"tt", t as u64 + 1);
            }
        }
        out.push(b'\n');
    }
}

/// Which of a person's four known-for slots a credit in title `t` competes for.
#[inline]
fn known_for_slot(seed: u64, t: u64) -> usize {
    (mix64(t ^ seed) & 3) as usize
}

/// Reused per-chunk buffers of the cast builder.
#[derive(Default)]
struct CastScratch {
    cats: Vec<u8>,
    chosen: Vec<(u32, u8)>,
}

/// The `job` column of a credit (`None` = `\N`).
fn job(cat: u8, rng: &mut SplitMix64) -> Option<&'static str> {
    match cat {
        C_WRITER if rng.bernoulli(0.55) => Some(rng.pick(&WRITER_JOBS)),
        C_PRODUCER if rng.bernoulli(0.9) => Some(rng.pick(&PRODUCER_JOBS)),
        C_DIRECTOR if rng.bernoulli(0.04) => Some("director"),
        C_CINEMATOGRAPHER if rng.bernoulli(0.15) => Some(rng.pick(&CINEMATOGRAPHER_JOBS)),
        C_COMPOSER if rng.bernoulli(0.05) => Some("original music"),
        C_EDITOR if rng.bernoulli(0.05) => Some("film editor"),
        _ => None,
    }
}

/// Per title type, the distribution of the number of principals over `0..=kmax`, calibrated so
/// that the overall mean is `mean` (1 + a truncated Poisson whose rate scales with the type's base
/// mean; below a mean of 1, titles have 0 or 1 principal).
fn cast_size_tables(mean: f64) -> Vec<AliasTable> {
    if mean < 1.0 {
        let t = if mean <= 0.0 {
            table(&[1.0])
        } else {
            table(&[1.0 - mean, mean])
        };
        return vec![t; TYPES.len()];
    }
    let kmax = ((mean * 1.6).ceil() as usize).max(10);
    let pmf = |lambda: f64| -> Vec<f64> {
        // P(k) for k in 0..=kmax with k = min(1 + Poisson(lambda), kmax).
        let mut p = vec![0.0; kmax + 1];
        let mut term = (-lambda).exp();
        let mut acc = 0.0;
        for (j, slot) in p.iter_mut().enumerate().take(kmax).skip(1) {
            *slot = term;
            acc += term;
            term *= lambda / j as f64;
        }
        p[kmax] = (1.0 - acc).max(0.0);
        p
    };
    let total_w: f64 = TYPE_WEIGHTS.iter().sum();
    let overall = |s: f64| -> f64 {
        TYPE_CAST_MEAN
            .iter()
            .zip(TYPE_WEIGHTS)
            .map(|(&m, w)| {
                let p = pmf((m * s - 1.0).max(0.0));
                w / total_w
                    * p.iter()
                        .enumerate()
                        .map(|(k, &q)| k as f64 * q)
                        .sum::<f64>()
            })
            .sum()
    };
    let (mut lo, mut hi) = (0.0, 64.0);
    for _ in 0..60 {
        let mid = (lo + hi) / 2.0;
        if overall(mid) < mean {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    TYPE_CAST_MEAN
        .iter()
        .map(|&m| table(&pmf((m * hi - 1.0).max(0.0))))
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Hand-rolled number formatting
// ---------------------------------------------------------------------------------------------

/// Appends a string.
#[inline]
fn put(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(s.as_bytes());
}

/// Appends the decimal digits of `n`.
#[inline]
fn push_u64(out: &mut Vec<u8>, mut n: u64) {
    let mut tmp = [0u8; 20];
    let mut i = tmp.len();
    loop {
        i -= 1;
        tmp[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&tmp[i..]);
}

/// Appends `n` or `\N`.
#[inline]
fn push_opt(out: &mut Vec<u8>, n: Option<u64>) {
    match n {
        Some(n) => push_u64(out, n),
        None => out.extend_from_slice(b"\\N"),
    }
}

/// Writes an IMDb id (`tt0000001`: prefix and at least 7 zero-padded digits) into `buf`; returns
/// its length.
#[inline]
fn id_bytes(buf: &mut [u8; 16], prefix: &[u8; 2], mut n: u64) -> usize {
    let mut tmp = [b'0'; 20];
    let mut i = tmp.len();
    while n > 0 {
        i -= 1;
        tmp[i] = b'0' + (n % 10) as u8;
        n /= 10;
    }
    let digits = (tmp.len() - i).max(7);
    buf[..2].copy_from_slice(prefix);
    buf[2..2 + digits].copy_from_slice(&tmp[tmp.len() - digits..]);
    2 + digits
}

/// Appends an IMDb id.
#[inline]
fn push_id(out: &mut Vec<u8>, prefix: &[u8; 2], n: u64) {
    let mut buf = [0u8; 16];
    let len = id_bytes(&mut buf, prefix, n);
    out.extend_from_slice(&buf[..len]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_zero_padded() {
        let mut v = Vec::new();
        push_id(&mut v, b"tt", 1);
        v.push(b' ');
        push_id(&mut v, b"nm", 12_345_678);
        v.push(b' ');
        push_u64(&mut v, 0);
        assert_eq!(v, b"tt0000001 nm12345678 0");
    }

    #[test]
    fn cast_sizes_hit_the_mean() {
        for mean in [0.5, 1.0, 4.0, 6.0, 7.5, 20.0] {
            let tables = cast_size_tables(mean);
            let mut rng = SplitMix64::new(1);
            let types = table(&TYPE_WEIGHTS);
            let n = 100_000;
            let total: usize = (0..n)
                .map(|_| tables[types.sample(&mut rng)].sample(&mut rng))
                .sum();
            let got = total as f64 / n as f64;
            assert!((got - mean).abs() < 0.05 * mean, "{mean}: {got}");
        }
    }
}
