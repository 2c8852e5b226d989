//! Loader for the old IMDb plain-text lists (`actors.list`, `actresses.list`, `directors.list`,
//! `producers.list`, `writers.list`, `movies.list`, `ratings.list`, each optionally `.gz`): the
//! "text file-based database" of the GEMP paper.
//!
//! The lists map onto the same labels and relationship types as the IMDb TSV loader:
//!
//! - `Person` nodes, keyed `name:` + the name as written (`name:Bacon, Kevin (I)`), with
//!   `primaryName` (`Kevin Bacon`: "Surname, Firstname (I)" reordered, the roman-numeral
//!   disambiguator dropped) and `listName` (the name as written).
//! - `Title` nodes, keyed `title:` + the canonical title (`title:"Saturday Night Live" (1975) {Tom
//!   Hanks/Aerosmith (#13.11)}`), with a second label from the title's form ([`TitleKind`]) and
//!   `primaryTitle`, `startYear`, `endYear`, `seasonNumber`, `episodeNumber`, `suspended`,
//!   `numVotes`, `averageRating`, `votesDistribution`.
//! - `ACTOR`, `ACTRESS`, `DIRECTOR`, `PRODUCER`, `WRITER` edges Person → Title with `characters`,
//!   `ordering`, `job` and `attributes`; `EPISODE_OF` edges episode → series.
//!
//! Encoding: the historical lists are ISO-8859-1 (Latin-1), later copies are often UTF-8. Each line
//! is decoded on its own: a line that is valid UTF-8 is taken as UTF-8, any other line as Latin-1
//! (byte `0xNN` → `U+00NN`). See `docs/imdb-lists.md` for the full format description and the
//! decisions taken on its ambiguous corners.

use std::borrow::Cow;
use std::io::BufRead;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::io::input;
use crate::io::report::{LoadOptions, LoadReport};
use crate::model::{Model, ModelBuilder, ValueRef};

/// One of the recognised list files, detected by file name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ListFile {
    /// `actors.list`: `ACTOR` edges.
    Actors,
    /// `actresses.list`: `ACTRESS` edges.
    Actresses,
    /// `directors.list`: `DIRECTOR` edges.
    Directors,
    /// `producers.list`: `PRODUCER` edges.
    Producers,
    /// `writers.list`: `WRITER` edges.
    Writers,
    /// `movies.list`: titles with their years.
    Movies,
    /// `ratings.list`: votes, rating and vote distribution of titles.
    Ratings,
}

impl ListFile {
    /// Every list, in the order [`load_into`] loads them (titles first, ratings last).
    pub const ALL: [ListFile; 7] = [
        ListFile::Movies,
        ListFile::Actors,
        ListFile::Actresses,
        ListFile::Directors,
        ListFile::Producers,
        ListFile::Writers,
        ListFile::Ratings,
    ];

    /// The file name of the list (without `.gz`), e.g. `actors.list`.
    pub fn file_name(self) -> &'static str {
        match self {
            ListFile::Actors => "actors.list",
            ListFile::Actresses => "actresses.list",
            ListFile::Directors => "directors.list",
            ListFile::Producers => "producers.list",
            ListFile::Writers => "writers.list",
            ListFile::Movies => "movies.list",
            ListFile::Ratings => "ratings.list",
        }
    }

    /// The header line that starts the list proper (everything before it is preamble).
    pub fn header(self) -> &'static str {
        match self {
            ListFile::Actors => "THE ACTORS LIST",
            ListFile::Actresses => "THE ACTRESSES LIST",
            ListFile::Directors => "THE DIRECTORS LIST",
            ListFile::Producers => "THE PRODUCERS LIST",
            ListFile::Writers => "THE WRITERS LIST",
            ListFile::Movies => "MOVIES LIST",
            ListFile::Ratings => "MOVIE RATINGS REPORT",
        }
    }

    /// The relationship type of the edges a person list creates (`None` for movies and ratings).
    pub fn rel_type(self) -> Option<&'static str> {
        match self {
            ListFile::Actors => Some("ACTOR"),
            ListFile::Actresses => Some("ACTRESS"),
            ListFile::Directors => Some("DIRECTOR"),
            ListFile::Producers => Some("PRODUCER"),
            ListFile::Writers => Some("WRITER"),
            ListFile::Movies | ListFile::Ratings => None,
        }
    }

    /// True for the crew lists, whose parenthesised notes (`(producer)`) are the job.
    fn is_crew(self) -> bool {
        matches!(
            self,
            ListFile::Directors | ListFile::Producers | ListFile::Writers
        )
    }

    fn load_rank(self) -> usize {
        ListFile::ALL
            .iter()
            .position(|&k| k == self)
            .unwrap_or(ListFile::ALL.len())
    }
}

impl std::fmt::Display for ListFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.file_name())
    }
}

/// The list a file holds, from its name (`actors.list`, `actors.list.gz`, case-insensitive).
pub fn detect_file(path: &Path) -> Option<ListFile> {
    let name = path.file_name()?.to_str()?.to_ascii_lowercase();
    let name = name.strip_suffix(".gz").unwrap_or(&name);
    ListFile::ALL.into_iter().find(|k| k.file_name() == name)
}

/// The files to load for `paths`, in load order: each path must be a recognised list file or a
/// directory (which expands to the recognised list files directly inside it). Within one kind the
/// given order is kept; movies are loaded first and ratings last.
pub fn resolve_files(paths: &[PathBuf]) -> Result<Vec<(ListFile, PathBuf)>> {
    if paths.is_empty() {
        return Err(Error::InvalidArgument("no IMDb list files given".into()));
    }
    let mut files: Vec<(ListFile, PathBuf)> = Vec::new();
    for path in paths {
        if path.is_dir() {
            files.extend(expand_dir(path)?);
        } else {
            match detect_file(path) {
                Some(kind) => files.push((kind, path.clone())),
                None => {
                    return Err(Error::BadFile {
                        path: path.clone(),
                        message: format!(
                            "not a recognised IMDb list file name (expected {})",
                            known_names()
                        ),
                    })
                }
            }
        }
    }
    files.sort_by_key(|(kind, _)| kind.load_rank());
    Ok(files)
}

fn known_names() -> String {
    let names: Vec<&str> = ListFile::ALL.iter().map(|k| k.file_name()).collect();
    format!("{}, optionally .gz", names.join(", "))
}

/// The recognised list files in `dir`, sorted by name; of `x.list` and `x.list.gz` only the
/// uncompressed one is taken (with a warning).
fn expand_dir(dir: &Path) -> Result<Vec<(ListFile, PathBuf)>> {
    // Sorted by path.
    let found: Vec<(ListFile, PathBuf)> =
        crate::io::expand::dir_files(dir, |p| detect_file(p).is_some())?
            .into_iter()
            .filter_map(|p| Some((detect_file(&p)?, p)))
            .collect();
    let mut out: Vec<(ListFile, PathBuf)> = Vec::new();
    for (kind, path) in found {
        let gz = is_gz_name(&path);
        if let Some(pos) = out.iter().position(|(k, _)| *k == kind) {
            let keep_new = is_gz_name(&out[pos].1) && !gz;
            let (kept, dropped) = if keep_new {
                (path.clone(), out[pos].1.clone())
            } else {
                (out[pos].1.clone(), path.clone())
            };
            log::warn!(
                "{}: both {} and {} present; loading only {}",
                dir.display(),
                kept.display(),
                dropped.display(),
                kept.display()
            );
            out[pos].1 = kept;
        } else {
            out.push((kind, path));
        }
    }
    if out.is_empty() {
        return Err(Error::BadFile {
            path: dir.to_path_buf(),
            message: format!("directory holds no IMDb list files ({})", known_names()),
        });
    }
    Ok(out)
}

fn is_gz_name(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("gz"))
}

/// Decodes one line: as UTF-8 when it is valid UTF-8, otherwise as Latin-1 (each byte `0xNN`
/// becomes `U+00NN`). Borrowed when the line is valid UTF-8.
pub fn decode_line(bytes: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => Cow::Owned(bytes.iter().map(|&b| char::from(b)).collect()),
    }
}

/// The form of a title, from its quotes and markers; each kind is also a node label.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TitleKind {
    /// A plain `Title (Year)`.
    Movie,
    /// `"Series" (Year)`.
    TvSeries,
    /// `"Series" (Year) (mini)` (older lists).
    TvMiniSeries,
    /// `"Series" (Year) {Episode}`.
    TvEpisode,
    /// `Title (Year) (TV)`.
    TvMovie,
    /// `Title (Year) (V)`.
    Video,
    /// `Title (Year) (VG)`.
    VideoGame,
}

impl TitleKind {
    /// The node label, e.g. `TvEpisode`.
    pub fn label(self) -> &'static str {
        match self {
            TitleKind::Movie => "Movie",
            TitleKind::TvSeries => "TvSeries",
            TitleKind::TvMiniSeries => "TvMiniSeries",
            TitleKind::TvEpisode => "TvEpisode",
            TitleKind::TvMovie => "TvMovie",
            TitleKind::Video => "Video",
            TitleKind::VideoGame => "VideoGame",
        }
    }
}

/// A medium marker after the year: `(TV)`, `(V)`, `(VG)` or `(mini)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KindMarker {
    /// `(TV)`: made for television.
    Tv,
    /// `(V)`: direct to video.
    Video,
    /// `(VG)`: video game.
    VideoGame,
    /// `(mini)`: mini-series.
    Mini,
}

impl KindMarker {
    /// The marker text inside the parentheses.
    pub fn as_str(self) -> &'static str {
        match self {
            KindMarker::Tv => "TV",
            KindMarker::Video => "V",
            KindMarker::VideoGame => "VG",
            KindMarker::Mini => "mini",
        }
    }
}

/// A title as the lists write it: `Name (Year[/Roman])[ (TV|V|VG|mini)][ {Episode}][ {{SUSPENDED}}]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedTitle<'a> {
    /// The name as written, with the quotes of a series (`"Saturday Night Live"`).
    pub name: &'a str,
    /// What is inside the year parentheses: `1995`, `1995/I`, `????`, `????/II`.
    pub year_tag: &'a str,
    /// The year, `None` for `????`.
    pub year: Option<i64>,
    /// The medium marker after the year, if any.
    pub marker: Option<KindMarker>,
    /// The text inside the episode braces, e.g. `Tom Hanks/Aerosmith (#13.11)`.
    pub episode: Option<&'a str>,
    /// True when the title carries the `{{SUSPENDED}}` marker.
    pub suspended: bool,
}

impl ParsedTitle<'_> {
    /// True when the name is in double quotes (a TV series or one of its episodes).
    pub fn is_quoted(&self) -> bool {
        self.name.len() >= 2 && self.name.starts_with('"') && self.name.ends_with('"')
    }

    /// The title's kind (and second label).
    pub fn kind(&self) -> TitleKind {
        if self.is_quoted() {
            if self.episode.is_some() {
                TitleKind::TvEpisode
            } else if self.marker == Some(KindMarker::Mini) {
                TitleKind::TvMiniSeries
            } else {
                TitleKind::TvSeries
            }
        } else {
            match self.marker {
                None => TitleKind::Movie,
                Some(KindMarker::Tv) => TitleKind::TvMovie,
                Some(KindMarker::Video) => TitleKind::Video,
                Some(KindMarker::VideoGame) => TitleKind::VideoGame,
                Some(KindMarker::Mini) => TitleKind::TvMiniSeries,
            }
        }
    }

    /// Appends the canonical form (components separated by single spaces) to `out`.
    pub fn write_canonical(&self, out: &mut String) {
        out.push_str(self.name);
        out.push_str(" (");
        out.push_str(self.year_tag);
        out.push(')');
        if let Some(m) = self.marker {
            out.push_str(" (");
            out.push_str(m.as_str());
            out.push(')');
        }
        if let Some(ep) = self.episode {
            out.push_str(" {");
            out.push_str(ep);
            out.push('}');
        }
        if self.suspended {
            out.push_str(" {{SUSPENDED}}");
        }
    }

    /// The canonical form, e.g. `"Series" (1975) {Ep (#1.2)}`; node keys are `title:` + this.
    pub fn canonical(&self) -> String {
        let mut s = String::new();
        self.write_canonical(&mut s);
        s
    }

    /// For an episode, the series it belongs to (the same title without the episode braces).
    pub fn series(&self) -> Option<Self> {
        self.episode.map(|_| ParsedTitle {
            episode: None,
            ..self.clone()
        })
    }

    /// `(season, episode)` from a trailing `(#S.E)` in the episode braces.
    pub fn season_episode(&self) -> Option<(i64, i64)> {
        let (_, s, e) = split_episode_number(self.episode?)?;
        Some((s, e))
    }

    /// The `primaryTitle` property: the name without quotes for movies and series; for episodes the
    /// episode title without its `(#S.E)` number, or `Episode #S.E` when the braces hold only the
    /// number.
    pub fn primary_title(&self) -> String {
        if let Some(ep) = self.episode {
            return match split_episode_number(ep) {
                Some(("", s, e)) => format!("Episode #{s}.{e}"),
                Some((rest, _, _)) => rest.to_owned(),
                None => ep.trim().to_owned(),
            };
        }
        if self.is_quoted() {
            self.name[1..self.name.len() - 1].to_owned()
        } else {
            self.name.to_owned()
        }
    }
}

/// Splits `Title (#S.E)` into (`Title`, S, E).
fn split_episode_number(ep: &str) -> Option<(&str, i64, i64)> {
    let body = ep.trim_end().strip_suffix(')')?;
    let open = body.rfind("(#")?;
    let (s, e) = body.get(open + 2..)?.split_once('.')?;
    if s.is_empty()
        || e.is_empty()
        || !s.bytes().all(|b| b.is_ascii_digit())
        || !e.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    Some((body[..open].trim(), s.parse().ok()?, e.parse().ok()?))
}

/// Parses a year tag `1995`, `1995/I`, `????`, `????/II`: `Some(year)` when valid (`year` is `None`
/// for `????`).
fn parse_year_tag(tag: &str) -> Option<Option<i64>> {
    let (year, roman) = match tag.split_once('/') {
        Some((y, r)) => (y, Some(r)),
        None => (tag, None),
    };
    if let Some(r) = roman {
        if !is_roman(r) {
            return None;
        }
    }
    parse_year(year)
}

/// `????` → `Some(None)`, four digits → `Some(Some(y))`, anything else → `None`.
fn parse_year(y: &str) -> Option<Option<i64>> {
    if y == "????" {
        Some(None)
    } else if y.len() == 4 && y.bytes().all(|b| b.is_ascii_digit()) {
        y.parse().ok().map(Some)
    } else {
        None
    }
}

fn is_roman(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b"IVXLCDM".contains(&b))
}

/// Parses a title (see [`ParsedTitle`]); surrounding whitespace is ignored. The error says what is
/// missing.
pub fn parse_title(text: &str) -> std::result::Result<ParsedTitle<'_>, String> {
    let mut rest = text.trim();
    if rest.is_empty() {
        return Err("empty title".into());
    }
    let mut suspended = false;
    if let Some(r) = rest.strip_suffix("{{SUSPENDED}}") {
        suspended = true;
        rest = r.trim_end();
    }
    let mut episode = None;
    if rest.ends_with('}') {
        let bytes = rest.as_bytes();
        let mut depth = 0usize;
        let mut open = None;
        for (i, &b) in bytes.iter().enumerate().rev() {
            if b == b'}' {
                depth += 1;
            } else if b == b'{' {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    open = Some(i);
                    break;
                }
            }
        }
        let Some(open) = open else {
            return Err("unbalanced `{` `}` in the episode part".into());
        };
        let before = &rest[..open];
        if !before.ends_with(char::is_whitespace) {
            return Err("expected a space before the episode `{`".into());
        }
        let ep = &rest[open + 1..rest.len() - 1];
        if ep.trim().is_empty() {
            return Err("empty episode braces `{}`".into());
        }
        episode = Some(ep);
        rest = before.trim_end();
    }
    let mut marker = None;
    for m in [
        KindMarker::Tv,
        KindMarker::Video,
        KindMarker::VideoGame,
        KindMarker::Mini,
    ] {
        let text = match m {
            KindMarker::Tv => "(TV)",
            KindMarker::Video => "(V)",
            KindMarker::VideoGame => "(VG)",
            KindMarker::Mini => "(mini)",
        };
        if let Some(r) = rest.strip_suffix(text) {
            if r.ends_with(char::is_whitespace) {
                marker = Some(m);
                rest = r.trim_end();
                break;
            }
        }
    }
    let Some(body) = rest.strip_suffix(')') else {
        return Err("missing `(year)` after the title name".into());
    };
    let Some(open) = body.rfind('(') else {
        return Err("missing `(year)` after the title name".into());
    };
    let year_tag = &body[open + 1..];
    let Some(year) = parse_year_tag(year_tag) else {
        return Err(format!(
            "`({year_tag})` is not a year (expected `(1995)`, `(1995/I)` or `(????)`)"
        ));
    };
    let before = &body[..open];
    if !before.ends_with(char::is_whitespace) {
        return Err("expected a space before `(year)`".into());
    }
    let name = before.trim_end();
    if name.is_empty() {
        return Err("empty title name".into());
    }
    let title = ParsedTitle {
        name,
        year_tag,
        year,
        marker,
        episode,
        suspended,
    };
    if title.episode.is_some() && !title.is_quoted() {
        return Err("episode braces `{…}` on a title that is not a \"quoted\" series".into());
    }
    Ok(title)
}

/// One title line of a person list: the title and what follows it.
#[derive(Debug, Clone, PartialEq)]
pub struct Credit<'a> {
    /// The title.
    pub title: ParsedTitle<'a>,
    /// The text inside `[...]` (several groups joined with ` / `).
    pub characters: Option<String>,
    /// The billing position from `<n>` (the first number of the writers' `<a,b,c>`).
    pub ordering: Option<i64>,
    /// Crew lists only: the parenthesised notes that are not attributes, without parentheses
    /// (`producer`, `co-director`), several joined with `, `.
    pub job: Option<String>,
    /// The other notes as written, e.g. `(uncredited) (voice)`, joined with single spaces; also any
    /// text that is not in brackets.
    pub attributes: Option<String>,
}

/// Parenthesised notes that are attributes of a credit, not a job, in the crew lists.
const ATTRIBUTE_PREFIXES: [&str; 17] = [
    "as ",
    "also as ",
    "uncredited",
    "voice",
    "singing voice",
    "archive",
    "credit only",
    "scenes deleted",
    "unconfirmed",
    "unverified",
    "rumored",
    "rumoured",
    "segment",
    "attached",
    "in talks",
    "announced",
    "credited",
];

fn is_attribute_note(inner: &str) -> bool {
    let lower = inner.trim_start().to_lowercase();
    ATTRIBUTE_PREFIXES.iter().any(|p| lower.starts_with(p))
}

/// Parses the part of a person-list line after the name and tabs: `Title  [Character]  <n>  (note)`.
/// The title ends at the first tab or double space outside episode braces. `crew` selects whether
/// parenthesised notes are a job (directors, producers, writers) or attributes (actors).
pub fn parse_credit(text: &str, crew: bool) -> std::result::Result<Credit<'_>, String> {
    let text = text.trim();
    let (title_text, mut rest) = split_title(text);
    let title =
        parse_title(title_text).map_err(|e| format!("{e} in title `{}`", snippet(title_text)))?;
    let mut characters: Vec<&str> = Vec::new();
    let mut ordering = None;
    let mut jobs: Vec<&str> = Vec::new();
    let mut attributes: Vec<&str> = Vec::new();
    loop {
        rest = rest.trim_start();
        let Some(&first) = rest.as_bytes().first() else {
            break;
        };
        let close = match first {
            b'[' => rest.find(']'),
            b'<' => rest.find('>'),
            b'(' => matching_paren(rest),
            _ => None,
        };
        let Some(close) = close else {
            // Plain text or an unterminated group: keep it as an attribute, up to the next
            // whitespace (or all of it when unterminated).
            let end = if matches!(first, b'[' | b'<' | b'(') {
                rest.len()
            } else {
                rest.find(char::is_whitespace).unwrap_or(rest.len())
            };
            attributes.push(&rest[..end]);
            rest = &rest[end..];
            continue;
        };
        let group = &rest[..=close];
        let inner = &rest[1..close];
        match first {
            b'[' => characters.push(inner.trim()),
            b'<' => {
                let n = inner
                    .split(',')
                    .next()
                    .and_then(|n| n.trim().parse::<i64>().ok());
                match n {
                    Some(n) if ordering.is_none() => ordering = Some(n),
                    _ => attributes.push(group),
                }
            }
            _ => {
                if crew && !is_attribute_note(inner) && !inner.trim().is_empty() {
                    jobs.push(inner.trim());
                } else {
                    attributes.push(group);
                }
            }
        }
        rest = &rest[close + 1..];
    }
    let join = |v: Vec<&str>, sep: &str| (!v.is_empty()).then(|| v.join(sep));
    Ok(Credit {
        title,
        characters: join(characters, " / "),
        ordering,
        job: join(jobs, ", "),
        attributes: join(attributes, " "),
    })
}

/// Splits a credit into the title and the rest at the first tab or double space outside braces.
fn split_title(text: &str) -> (&str, &str) {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'{' => depth += 1,
            b'}' => depth = depth.saturating_sub(1),
            b'\t' if depth == 0 => return (&text[..i], &text[i..]),
            b' ' if depth == 0 && bytes.get(i + 1) == Some(&b' ') => {
                return (&text[..i], &text[i..])
            }
            _ => {}
        }
    }
    (text, "")
}

/// The index of the `)` matching the `(` at the start of `s`.
fn matching_paren(s: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (i, b) in s.bytes().enumerate() {
        match b {
            b'(' => depth += 1,
            b')' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// The `primaryName` of a list name: `Surname, Firstname (I)` → `Firstname Surname` (split at the
/// first `, `; a trailing roman-numeral disambiguator is dropped); names without `, ` stay as they
/// are.
pub fn person_display_name(raw: &str) -> String {
    let mut s = raw.trim();
    if let Some(body) = s.strip_suffix(')') {
        if let Some(open) = body.rfind(" (") {
            if is_roman(&body[open + 2..]) {
                s = body[..open].trim_end();
            }
        }
    }
    match s.split_once(", ") {
        Some((last, first)) if !last.trim().is_empty() && !first.trim().is_empty() => {
            format!("{} {}", first.trim(), last.trim())
        }
        _ => s.to_owned(),
    }
}

/// One line of `movies.list`: `Title<TABs>Year` (or `Year-Year`, `Year-????`, `????`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MovieRow<'a> {
    /// The title.
    pub title: ParsedTitle<'a>,
    /// First year of the year column (`None` for `????`).
    pub start_year: Option<i64>,
    /// Second year of a `Year-Year` range (`None` when absent or `????`).
    pub end_year: Option<i64>,
}

/// Parses a `movies.list` line.
pub fn parse_movie_row(line: &str) -> std::result::Result<MovieRow<'_>, String> {
    let Some((title_text, years)) = line.split_once('\t') else {
        return Err(format!(
            "expected `Title<TAB>Year`, got `{}`",
            snippet(line)
        ));
    };
    let title =
        parse_title(title_text).map_err(|e| format!("{e} in title `{}`", snippet(title_text)))?;
    let years = years.trim();
    let bad = || format!("`{}` is not a year or year range", snippet(years));
    let (start, end) = match years.split_once('-') {
        Some((a, b)) => (
            parse_year(a).ok_or_else(bad)?,
            parse_year(b).ok_or_else(bad)?,
        ),
        None => (parse_year(years).ok_or_else(bad)?, None),
    };
    Ok(MovieRow {
        title,
        start_year: start,
        end_year: end,
    })
}

/// One row of the `MOVIE RATINGS REPORT` in `ratings.list`:
/// `[New]  Distribution  Votes  Rank  Title`.
#[derive(Debug, Clone, PartialEq)]
pub struct RatingRow<'a> {
    /// The ten-character vote distribution, e.g. `0000000125`.
    pub distribution: &'a str,
    /// Number of votes.
    pub votes: i64,
    /// Average rating.
    pub rank: f64,
    /// The title.
    pub title: ParsedTitle<'a>,
}

fn is_distribution(s: &str) -> bool {
    s.len() == 10
        && s.bytes()
            .all(|b| b.is_ascii_digit() || b == b'.' || b == b'*')
}

/// The first whitespace-separated field of `s` and the rest after it.
fn next_field(s: &str) -> Option<(&str, &str)> {
    let s = s.trim_start();
    if s.is_empty() {
        return None;
    }
    let end = s.find(char::is_whitespace).unwrap_or(s.len());
    Some((&s[..end], &s[end..]))
}

/// Parses a ratings-report row; a non-distribution first field (the "New" column) is skipped.
pub fn parse_rating_row(line: &str) -> std::result::Result<RatingRow<'_>, String> {
    let Some((mut distribution, mut rest)) = next_field(line) else {
        return Err("empty ratings row".into());
    };
    if !is_distribution(distribution) {
        match next_field(rest) {
            Some((d, r)) if is_distribution(d) => {
                distribution = d;
                rest = r;
            }
            _ => {
                return Err(format!(
                    "expected `Distribution Votes Rank Title`, got `{}`",
                    snippet(line)
                ))
            }
        }
    }
    let votes =
        next_field(rest).and_then(|(v, r)| Some((v.parse::<i64>().ok().filter(|&v| v >= 0)?, r)));
    let Some((votes, rest)) = votes else {
        return Err(format!("missing or bad vote count in `{}`", snippet(line)));
    };
    let rank = next_field(rest)
        .and_then(|(v, r)| Some((v.parse::<f64>().ok().filter(|x| x.is_finite())?, r)));
    let Some((rank, rest)) = rank else {
        return Err(format!("missing or bad rating in `{}`", snippet(line)));
    };
    let title =
        parse_title(rest).map_err(|e| format!("{e} in title `{}`", snippet(rest.trim())))?;
    Ok(RatingRow {
        distribution,
        votes,
        rank,
        title,
    })
}

/// At most 60 characters of `s`, for messages.
fn snippet(s: &str) -> String {
    let mut out: String = s.chars().take(60).collect();
    if s.chars().nth(60).is_some() {
        out.push('…');
    }
    out
}

/// A line consisting of at least three `c` characters and nothing else (after trimming).
fn is_rule(line: &str, c: char) -> bool {
    let t = line.trim();
    t.len() >= 3 && t.chars().all(|x| x == c)
}

/// Lines of a file, decoded with [`decode_line`], without their line terminator.
struct Lines<'p> {
    reader: Box<dyn BufRead + Send>,
    path: &'p Path,
    buf: Vec<u8>,
    line: u64,
}

impl Lines<'_> {
    fn next_line(&mut self) -> Result<Option<(u64, Cow<'_, str>)>> {
        self.buf.clear();
        let n = self
            .reader
            .read_until(b'\n', &mut self.buf)
            .map_err(|e| input::read_error(self.path, e))?;
        if n == 0 {
            return Ok(None);
        }
        self.line += 1;
        let mut bytes = &self.buf[..];
        if let Some(b) = bytes.strip_suffix(b"\n") {
            bytes = b;
        }
        if let Some(b) = bytes.strip_suffix(b"\r") {
            bytes = b;
        }
        Ok(Some((self.line, decode_line(bytes))))
    }
}

/// Property keys, interned once.
struct Keys {
    primary_title: u32,
    start_year: u32,
    end_year: u32,
    season: u32,
    episode: u32,
    suspended: u32,
    primary_name: u32,
    list_name: u32,
    num_votes: u32,
    average_rating: u32,
    votes_distribution: u32,
    characters: u32,
    ordering: u32,
    job: u32,
    attributes: u32,
}

struct Loader<'b> {
    b: &'b mut ModelBuilder,
    keys: Keys,
    key: String,
}

impl<'b> Loader<'b> {
    fn new(b: &'b mut ModelBuilder) -> Self {
        let keys = Keys {
            primary_title: b.node_property("primaryTitle"),
            start_year: b.node_property("startYear"),
            end_year: b.node_property("endYear"),
            season: b.node_property("seasonNumber"),
            episode: b.node_property("episodeNumber"),
            suspended: b.node_property("suspended"),
            primary_name: b.node_property("primaryName"),
            list_name: b.node_property("listName"),
            num_votes: b.node_property("numVotes"),
            average_rating: b.node_property("averageRating"),
            votes_distribution: b.node_property("votesDistribution"),
            characters: b.edge_property("characters"),
            ordering: b.edge_property("ordering"),
            job: b.edge_property("job"),
            attributes: b.edge_property("attributes"),
        };
        Loader {
            b,
            keys,
            key: String::new(),
        }
    }

    /// The node of title `t`, created with its labels and derived properties when new. `with_year`:
    /// set `startYear` from the title's year (not for episodes, whose title year is the series').
    fn ensure_title(&mut self, t: &ParsedTitle<'_>, with_year: bool) -> Result<u32> {
        self.key.clear();
        self.key.push_str("title:");
        t.write_canonical(&mut self.key);
        let (id, created) = self.b.ensure_node(&self.key);
        if !created {
            return Ok(id);
        }
        let title = self.b.label("Title");
        self.b.add_label(id, title);
        let kind = t.kind();
        let kind_label = self.b.label(kind.label());
        self.b.add_label(id, kind_label);
        self.b.set_node_property(
            id,
            self.keys.primary_title,
            ValueRef::Str(&t.primary_title()),
        )?;
        if with_year && kind != TitleKind::TvEpisode {
            if let Some(y) = t.year {
                self.b
                    .set_node_property(id, self.keys.start_year, ValueRef::Int(y))?;
            }
        }
        if t.suspended {
            self.b
                .set_node_property(id, self.keys.suspended, ValueRef::Bool(true))?;
        }
        if let Some((s, e)) = t.season_episode() {
            self.b
                .set_node_property(id, self.keys.season, ValueRef::Int(s))?;
            self.b
                .set_node_property(id, self.keys.episode, ValueRef::Int(e))?;
        }
        if let Some(series) = t.series() {
            let sid = self.ensure_title(&series, true)?;
            let ty = self.b.rel_type("EPISODE_OF");
            self.b.add_edge(id, sid, ty)?;
        }
        Ok(id)
    }

    fn ensure_person(&mut self, raw: &str) -> Result<u32> {
        self.key.clear();
        self.key.push_str("name:");
        self.key.push_str(raw);
        let (id, created) = self.b.ensure_node(&self.key);
        if created {
            let person = self.b.label("Person");
            self.b.add_label(id, person);
            self.b.set_node_property(
                id,
                self.keys.primary_name,
                ValueRef::Str(&person_display_name(raw)),
            )?;
            self.b
                .set_node_property(id, self.keys.list_name, ValueRef::Str(raw))?;
        }
        Ok(id)
    }

    fn load_file(
        &mut self,
        kind: ListFile,
        path: &Path,
        options: &LoadOptions,
        report: &mut LoadReport,
    ) -> Result<()> {
        let input = input::open(path)?;
        let index = report.begin_file(path, input.size);
        let mut lines = Lines {
            reader: input.reader,
            path,
            buf: Vec::new(),
            line: 0,
        };
        find_header(&mut lines, kind)?;
        match kind {
            ListFile::Movies => self.load_movies(&mut lines, options, report, index),
            ListFile::Ratings => self.load_ratings(&mut lines, options, report, index),
            _ => self.load_people(kind, &mut lines, options, report, index),
        }
    }

    fn load_people(
        &mut self,
        kind: ListFile,
        lines: &mut Lines<'_>,
        options: &LoadOptions,
        report: &mut LoadReport,
        index: usize,
    ) -> Result<()> {
        let ty_name = kind.rel_type().unwrap_or("CREDIT");
        let ty = self.b.rel_type(ty_name);
        let crew = kind.is_crew();
        let mut started = false;
        let mut expect_underline = false;
        let mut name: Option<String> = None;
        let mut person: Option<u32> = None;
        while let Some((no, line)) = lines.next_line()? {
            if line.trim().is_empty() {
                name = None;
                person = None;
                continue;
            }
            if !started {
                let tokens: Vec<&str> = line.split_whitespace().collect();
                if is_rule(&line, '=') {
                    continue;
                }
                if tokens == ["Name", "Titles"] {
                    expect_underline = true;
                    continue;
                }
                if expect_underline && tokens.iter().all(|t| t.chars().all(|c| c == '-')) {
                    expect_underline = false;
                    continue;
                }
            }
            if is_rule(&line, '-') {
                break;
            }
            started = true;
            report.files[index].rows += 1;
            let credit_text = if line.starts_with([' ', '\t']) {
                if name.is_none() {
                    report.bad_row(
                        options,
                        index,
                        no,
                        "title line without a person name before it",
                    )?;
                    continue;
                }
                line.trim_start()
            } else {
                let Some((n, rest)) = line.split_once('\t') else {
                    name = None;
                    person = None;
                    report.bad_row(
                        options,
                        index,
                        no,
                        format!("expected `Name<TAB>Title`, got `{}`", snippet(&line)),
                    )?;
                    continue;
                };
                name = Some(n.trim().to_owned());
                person = None;
                rest.trim_start()
            };
            let credit = match parse_credit(credit_text, crew) {
                Ok(c) => c,
                Err(e) => {
                    report.bad_row(options, index, no, e)?;
                    continue;
                }
            };
            let pid = match (person, &name) {
                (Some(p), _) => p,
                (None, Some(n)) => {
                    let p = self.ensure_person(n)?;
                    person = Some(p);
                    p
                }
                (None, None) => continue,
            };
            let tid = self.ensure_title(&credit.title, true)?;
            let edge = self.b.add_edge(pid, tid, ty)?;
            if let Some(c) = &credit.characters {
                self.b
                    .set_edge_property(edge, self.keys.characters, ValueRef::Str(c))?;
            }
            if let Some(o) = credit.ordering {
                self.b
                    .set_edge_property(edge, self.keys.ordering, ValueRef::Int(o))?;
            }
            if let Some(j) = &credit.job {
                self.b
                    .set_edge_property(edge, self.keys.job, ValueRef::Str(j))?;
            }
            if let Some(a) = &credit.attributes {
                self.b
                    .set_edge_property(edge, self.keys.attributes, ValueRef::Str(a))?;
            }
        }
        Ok(())
    }

    fn load_movies(
        &mut self,
        lines: &mut Lines<'_>,
        options: &LoadOptions,
        report: &mut LoadReport,
        index: usize,
    ) -> Result<()> {
        let mut started = false;
        while let Some((no, line)) = lines.next_line()? {
            if line.trim().is_empty() {
                continue;
            }
            if !started && is_rule(&line, '=') {
                continue;
            }
            if is_rule(&line, '-') {
                break;
            }
            started = true;
            report.files[index].rows += 1;
            let row = match parse_movie_row(&line) {
                Ok(r) => r,
                Err(e) => {
                    report.bad_row(options, index, no, e)?;
                    continue;
                }
            };
            let id = self.ensure_title(&row.title, false)?;
            let start = match row.start_year {
                Some(y) => Some(y),
                None if row.title.episode.is_none() => row.title.year,
                None => None,
            };
            if let Some(y) = start {
                self.b
                    .set_node_property(id, self.keys.start_year, ValueRef::Int(y))?;
            }
            if let Some(y) = row.end_year {
                self.b
                    .set_node_property(id, self.keys.end_year, ValueRef::Int(y))?;
            }
        }
        Ok(())
    }

    fn load_ratings(
        &mut self,
        lines: &mut Lines<'_>,
        options: &LoadOptions,
        report: &mut LoadReport,
        index: usize,
    ) -> Result<()> {
        let mut seen_row = false;
        let mut after_blank = false;
        while let Some((no, line)) = lines.next_line()? {
            if line.trim().is_empty() {
                after_blank = true;
                continue;
            }
            if is_rule(&line, '-') {
                break;
            }
            if !seen_row
                && (is_rule(&line, '=')
                    || line.split_whitespace().eq([
                        "New",
                        "Distribution",
                        "Votes",
                        "Rank",
                        "Title",
                    ]))
            {
                continue;
            }
            match parse_rating_row(&line) {
                Ok(row) => {
                    seen_row = true;
                    after_blank = false;
                    report.files[index].rows += 1;
                    let id = self.ensure_title(&row.title, true)?;
                    let k = &self.keys;
                    let (votes, rating, dist) =
                        (k.num_votes, k.average_rating, k.votes_distribution);
                    self.b
                        .set_node_property(id, votes, ValueRef::Int(row.votes))?;
                    self.b
                        .set_node_property(id, rating, ValueRef::Float(row.rank))?;
                    self.b
                        .set_node_property(id, dist, ValueRef::Str(row.distribution))?;
                }
                // A blank line and then text that is no row: the report has ended.
                Err(_) if seen_row && after_blank => break,
                Err(e) => {
                    report.files[index].rows += 1;
                    report.bad_row(options, index, no, e)?;
                }
            }
        }
        Ok(())
    }
}

/// Skips the preamble up to and including the header line of `kind`.
fn find_header(lines: &mut Lines<'_>, kind: ListFile) -> Result<()> {
    let path = lines.path;
    let mut any = false;
    while let Some((_, line)) = lines.next_line()? {
        any = true;
        if line.trim() == kind.header() {
            return Ok(());
        }
    }
    let message = if any {
        format!(
            "not an IMDb {} file: header line `{}` not found",
            kind.file_name(),
            kind.header()
        )
    } else {
        format!(
            "file is empty (expected an IMDb {} with header line `{}`)",
            kind.file_name(),
            kind.header()
        )
    };
    Err(Error::BadFile {
        path: path.to_path_buf(),
        message,
    })
}

/// Loads the list files `paths` (files or directories, see [`resolve_files`]) into `builder`.
/// Malformed lines are counted in `report` (or fail the load with `options.strict`); a file whose
/// header is missing, an empty file or an unrecognised file name fails the load.
pub fn load_into(
    builder: &mut ModelBuilder,
    paths: &[PathBuf],
    options: &LoadOptions,
    report: &mut LoadReport,
) -> Result<()> {
    let files = resolve_files(paths)?;
    let mut loader = Loader::new(builder);
    for (kind, path) in &files {
        loader.load_file(*kind, path, options, report)?;
    }
    Ok(())
}

/// Loads the list files `paths` into a new model; see [`load_into`].
pub fn load(paths: &[PathBuf], options: &LoadOptions) -> Result<(Model, LoadReport)> {
    let mut builder = ModelBuilder::new();
    let mut report = LoadReport::default();
    load_into(&mut builder, paths, options, &mut report)?;
    Ok((builder.freeze()?, report))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn title_movie() {
        let t = parse_title("Apollo 13 (1995)").unwrap();
        assert_eq!(t.name, "Apollo 13");
        assert_eq!(t.year_tag, "1995");
        assert_eq!(t.year, Some(1995));
        assert_eq!(t.marker, None);
        assert_eq!(t.episode, None);
        assert!(!t.suspended);
        assert_eq!(t.kind(), TitleKind::Movie);
        assert_eq!(t.primary_title(), "Apollo 13");
        assert_eq!(t.canonical(), "Apollo 13 (1995)");
        assert_eq!(t.series(), None);
    }

    #[test]
    fn title_episode() {
        let t = parse_title("\"Series\" (1975) {Ep (#1.2)}").unwrap();
        assert_eq!(
            t,
            ParsedTitle {
                name: "\"Series\"",
                year_tag: "1975",
                year: Some(1975),
                marker: None,
                episode: Some("Ep (#1.2)"),
                suspended: false,
            }
        );
        assert_eq!(t.kind(), TitleKind::TvEpisode);
        assert_eq!(t.season_episode(), Some((1, 2)));
        assert_eq!(t.primary_title(), "Ep");
        let s = t.series().unwrap();
        assert_eq!(s.canonical(), "\"Series\" (1975)");
        assert_eq!(s.kind(), TitleKind::TvSeries);
        assert_eq!(s.primary_title(), "Series");
    }

    #[test]
    fn title_episode_forms() {
        let t = parse_title("\"S\" (2005) {(#3.14)}").unwrap();
        assert_eq!(t.primary_title(), "Episode #3.14");
        assert_eq!(t.season_episode(), Some((3, 14)));
        let t = parse_title("\"S\" (2005) {(2005-03-14)}").unwrap();
        assert_eq!(t.primary_title(), "(2005-03-14)");
        assert_eq!(t.season_episode(), None);
        let t = parse_title("\"S\" (1975) {Best of (2000) (#2.1)}").unwrap();
        assert_eq!(t.year, Some(1975));
        assert_eq!(t.primary_title(), "Best of (2000)");
        let t = parse_title("\"S\" (2005) {Pilot} {{SUSPENDED}}").unwrap();
        assert!(t.suspended);
        assert_eq!(t.episode, Some("Pilot"));
        assert_eq!(
            t.series().unwrap().canonical(),
            "\"S\" (2005) {{SUSPENDED}}"
        );
    }

    #[test]
    fn title_markers_and_years() {
        let cases = [
            ("Foo (1995) (TV)", TitleKind::TvMovie),
            ("Foo (1995) (V)", TitleKind::Video),
            ("Foo (1995) (VG)", TitleKind::VideoGame),
            ("\"Foo\" (1995) (mini)", TitleKind::TvMiniSeries),
            ("\"Foo\" (1995)", TitleKind::TvSeries),
            ("V (1983) (TV)", TitleKind::TvMovie),
        ];
        for (text, kind) in cases {
            let t = parse_title(text).unwrap();
            assert_eq!(t.kind(), kind, "{text}");
            assert_eq!(t.canonical(), text);
        }
        let t = parse_title("Crash (2004/I)").unwrap();
        assert_eq!((t.year, t.year_tag), (Some(2004), "2004/I"));
        let t = parse_title("Untitled (????/II)").unwrap();
        assert_eq!((t.year, t.year_tag), (None, "????/II"));
        let t = parse_title("(500) Days of Summer (2009)").unwrap();
        assert_eq!(t.name, "(500) Days of Summer");
        let t = parse_title("Summer (2008) (2010)").unwrap();
        assert_eq!((t.name, t.year), ("Summer (2008)", Some(2010)));
        let t = parse_title("  Foo (1999) {{SUSPENDED}} ").unwrap();
        assert!(t.suspended);
        assert_eq!(t.kind(), TitleKind::Movie);
    }

    #[test]
    fn title_errors() {
        for bad in [
            "",
            "Foo",
            "Foo (19x5)",
            "Foo (1995/i)",
            "(1995)",
            "Foo(1995)",
            "Foo (1995) {Ep}",
            "\"S\" (1995) {Ep",
            "\"S\" (1995) {}",
            "\"S\" (1995){Ep}",
        ] {
            assert!(parse_title(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn credit_actor() {
        let c = parse_credit("Apollo 13 (1995)  [Jim Lovell]  <1>", false).unwrap();
        assert_eq!(c.title.canonical(), "Apollo 13 (1995)");
        assert_eq!(c.characters.as_deref(), Some("Jim Lovell"));
        assert_eq!(c.ordering, Some(1));
        assert_eq!(c.job, None);
        assert_eq!(c.attributes, None);
        let c = parse_credit(
            "\"Saturday Night Live\" (1975) {Tom Hanks/Aerosmith (#13.11)}  [Himself - Host]",
            false,
        )
        .unwrap();
        assert_eq!(c.title.episode, Some("Tom Hanks/Aerosmith (#13.11)"));
        assert_eq!(c.characters.as_deref(), Some("Himself - Host"));
        let c = parse_credit(
            "Toy Story (1995)  (voice)  (as T. Hanks (I))  [Woody]  <1>",
            false,
        )
        .unwrap();
        assert_eq!(c.attributes.as_deref(), Some("(voice) (as T. Hanks (I))"));
        assert_eq!(c.job, None);
    }

    #[test]
    fn credit_crew() {
        let c = parse_credit("Big (1988)  (executive producer)  (uncredited)", true).unwrap();
        assert_eq!(c.job.as_deref(), Some("executive producer"));
        assert_eq!(c.attributes.as_deref(), Some("(uncredited)"));
        let c = parse_credit("Big (1988)\t(screenplay)  <1,2,3>", true).unwrap();
        assert_eq!(c.job.as_deref(), Some("screenplay"));
        assert_eq!(c.ordering, Some(1));
        let c = parse_credit("Big (1988)  stray  [A]  [B]", true).unwrap();
        assert_eq!(c.attributes.as_deref(), Some("stray"));
        assert_eq!(c.characters.as_deref(), Some("A / B"));
        let c = parse_credit("Big (1988)  [unterminated", true).unwrap();
        assert_eq!(c.attributes.as_deref(), Some("[unterminated"));
        assert!(parse_credit("Big 1988  [A]", false).is_err());
    }

    #[test]
    fn names() {
        assert_eq!(person_display_name("Hanks, Tom"), "Tom Hanks");
        assert_eq!(person_display_name("Bacon, Kevin (I)"), "Kevin Bacon");
        assert_eq!(person_display_name("Madonna"), "Madonna");
        assert_eq!(person_display_name("Madonna (II)"), "Madonna");
        assert_eq!(person_display_name("Davis Jr., Sammy"), "Sammy Davis Jr.");
        assert_eq!(person_display_name("$, Claw"), "Claw $");
        assert_eq!(person_display_name("Foo (Bar)"), "Foo (Bar)");
    }

    #[test]
    fn movie_rows() {
        let r = parse_movie_row("\"#1 Single\" (2006)\t\t\t2006-????").unwrap();
        assert_eq!((r.start_year, r.end_year), (Some(2006), None));
        let r = parse_movie_row("\"!Next?\" (1994)\t\t1994-1995").unwrap();
        assert_eq!((r.start_year, r.end_year), (Some(1994), Some(1995)));
        let r = parse_movie_row("Foo (????)\t????").unwrap();
        assert_eq!((r.start_year, r.end_year), (None, None));
        assert!(parse_movie_row("Foo (1995) 1995").is_err());
        assert!(parse_movie_row("Foo (1995)\t19x5").is_err());
    }

    #[test]
    fn rating_rows() {
        let r =
            parse_rating_row("      0000000125  1735921   9.2  The Shawshank Redemption (1994)")
                .unwrap();
        assert_eq!(r.distribution, "0000000125");
        assert_eq!(r.votes, 1735921);
        assert_eq!(r.rank, 9.2);
        assert_eq!(r.title.canonical(), "The Shawshank Redemption (1994)");
        let r =
            parse_rating_row("  *   ..00.1.2*1       12   5.0  \"S\" (2001) {E (#1.1)}").unwrap();
        assert_eq!(r.distribution, "..00.1.2*1");
        assert_eq!(r.title.kind(), TitleKind::TvEpisode);
        assert!(parse_rating_row("BOTTOM 10 MOVIES").is_err());
        assert!(parse_rating_row("      0000000125  -5   9.2  Foo (1994)").is_err());
        assert!(parse_rating_row("      0000000125  5   NaN  Foo (1994)").is_err());
    }

    #[test]
    fn decoding() {
        assert_eq!(decode_line(b"D\xe9pardieu"), "Dépardieu");
        assert_eq!(decode_line("Dépardieu".as_bytes()), "Dépardieu");
        assert!(matches!(decode_line(b"plain"), Cow::Borrowed(_)));
    }

    #[test]
    fn detection() {
        assert_eq!(
            detect_file(Path::new("/x/actors.list")),
            Some(ListFile::Actors)
        );
        assert_eq!(
            detect_file(Path::new("ACTRESSES.LIST.gz")),
            Some(ListFile::Actresses)
        );
        assert_eq!(
            detect_file(Path::new("ratings.list.gz")),
            Some(ListFile::Ratings)
        );
        assert_eq!(detect_file(Path::new("actors.txt")), None);
        assert_eq!(detect_file(Path::new("myactors.list")), None);
    }

    proptest! {
        #[test]
        fn parsers_never_panic(s in "\\PC{0,80}") {
            let _ = parse_title(&s);
            let _ = parse_credit(&s, true);
            let _ = parse_credit(&s, false);
            let _ = parse_movie_row(&s);
            let _ = parse_rating_row(&s);
            let _ = person_display_name(&s);
        }

        #[test]
        fn structured_lines_never_panic(s in "[\"(){}\\[\\]<>#.?/ \tIV0-9aé,]{0,60}") {
            if let Ok(t) = parse_title(&s) {
                // The canonical form parses back to the same title.
                let c = t.canonical();
                prop_assert_eq!(parse_title(&c).map(|t| t.canonical()), Ok(c.clone()));
                let _ = t.primary_title();
                let _ = t.season_episode();
            }
            let _ = parse_credit(&s, true);
            let _ = parse_movie_row(&s);
            let _ = parse_rating_row(&s);
        }
    }
}
