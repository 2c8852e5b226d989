//! Row handlers: one per IMDb file, each validating a whole row before touching the builder so a
//! malformed row leaves no trace but its report entry.

use std::path::Path;

use hashbrown::{HashMap, HashSet};

use super::ids::{classify, IdKind, IdMap};
use super::lines::{
    bool_field, cut_fields, float_field, for_each_block, id_field, int_field, shown, str_field,
    FieldError, Scanner, NULL,
};
use super::ImdbFile;
use crate::error::{Error, Result};
use crate::io::input;
use crate::io::{LoadOptions, LoadReport};
use crate::model::{ModelBuilder, ValueRef};

/// Label of every title node (its primary label).
pub const TITLE: &str = "Title";
/// Label of every person node (its primary label).
pub const PERSON: &str = "Person";
/// Relationship type from an episode to its series.
pub const EPISODE_OF: &str = "EPISODE_OF";

/// Why a row was not loaded.
enum RowError {
    /// The row is malformed: counted, reported, skipped (or an error under `strict`).
    Bad(String),
    /// Something that stops the load (builder limits, conflicting property types).
    Fatal(Error),
}

impl From<FieldError> for RowError {
    fn from(message: FieldError) -> Self {
        RowError::Bad(message)
    }
}

impl From<Error> for RowError {
    fn from(e: Error) -> Self {
        RowError::Fatal(e)
    }
}

type RowResult = std::result::Result<(), RowError>;

/// Rows split and looked up together before being applied (see [`Loader::each_row`]).
const BATCH: usize = 64;

/// A split row, or why it could not be split.
enum Slot<'a, const N: usize> {
    Row([&'a str; N]),
    Bad(String),
}

/// A string-keyed lookup for small vocabularies (categories, title types): a linear scan over the
/// first few entries, which beats hashing for a dozen short keys, and a hash map beyond them so a
/// hostile file with millions of distinct values stays linear.
struct Vocabulary<V> {
    few: Vec<(Box<str>, V)>,
    many: HashMap<Box<str>, V>,
}

impl<V> Default for Vocabulary<V> {
    fn default() -> Self {
        Vocabulary {
            few: Vec::new(),
            many: HashMap::new(),
        }
    }
}

impl<V: Copy> Vocabulary<V> {
    /// Entries kept in the scanned list.
    const FEW: usize = 32;

    #[inline]
    fn get(&self, key: &str) -> Option<V> {
        if let Some((_, v)) = self.few.iter().find(|(k, _)| &**k == key) {
            return Some(*v);
        }
        if self.many.is_empty() {
            None
        } else {
            self.many.get(key).copied()
        }
    }

    fn insert(&mut self, key: &str, value: V) {
        if self.few.len() < Self::FEW {
            self.few.push((key.into(), value));
        } else {
            self.many.insert(key.into(), value);
        }
    }
}

/// Node ids (of the builder) that a row of one kind of file has already defined: a growable bit
/// set, one bit per node, so a second row for the same key is found in O(1).
#[derive(Default)]
struct Defined(Vec<u64>);

impl Defined {
    /// Marks `node`; false when it was already marked.
    #[inline]
    fn insert(&mut self, node: u32) -> bool {
        let (word, bit) = (node as usize / 64, 1u64 << (node % 64));
        if word >= self.0.len() {
            self.0.resize((word + 1).next_power_of_two(), 0);
        }
        let fresh = self.0[word] & bit == 0;
        self.0[word] |= bit;
        fresh
    }
}

/// The row for `key` is a second one for it in a `file` (title.basics, title.ratings…): a
/// malformed row like any other (skipped and reported with its file and line; an error under
/// `strict`), so the first row of a key is the one kept and nothing is silently overwritten.
fn duplicate(column: &str, key: &str, file: ImdbFile) -> RowError {
    RowError::Bad(format!(
        "duplicate {column} `{key}`: an earlier {} row defines it",
        file.file_name()
    ))
}

/// The state of one `load_into` call.
pub(crate) struct Loader<'a> {
    b: &'a mut ModelBuilder,
    options: &'a LoadOptions,
    report: &'a mut LoadReport,
    titles: IdMap,
    people: IdMap,
    title_label: Option<u32>,
    person_label: Option<u32>,
    /// titleType value -> label id.
    type_labels: Vocabulary<u32>,
    /// principals category (or crew role) -> (relationship type, is DIRECTOR or WRITER).
    categories: Vocabulary<(u32, bool)>,
    episode_of: Option<u32>,
    /// DIRECTOR/WRITER edges `(person, title, type)` seen so far, kept only when crew files load.
    crew_edges: Option<HashSet<(u32, u32, u32)>>,
    /// The builder started empty, so every node with a canonical id went through the numeric
    /// maps: one missing there is new and needs no key lookup.
    maps_complete: bool,
    /// Nodes defined by a title.basics / name.basics / title.ratings / title.episode row.
    defined: [Defined; 4],
}

impl<'a> Loader<'a> {
    pub(crate) fn new(
        b: &'a mut ModelBuilder,
        options: &'a LoadOptions,
        report: &'a mut LoadReport,
        track_crew_edges: bool,
    ) -> Self {
        let maps_complete = b.node_count() == 0;
        Loader {
            b,
            options,
            report,
            titles: IdMap::default(),
            people: IdMap::default(),
            title_label: None,
            person_label: None,
            type_labels: Vocabulary::default(),
            categories: Vocabulary::default(),
            episode_of: None,
            crew_edges: track_crew_edges.then(HashSet::new),
            maps_complete,
            defined: Default::default(),
        }
    }

    /// Marks `node` as defined by a row of `file` (`file`'s key column `column` holding `key`);
    /// a second row for it is [`duplicate`].
    fn define(&mut self, file: ImdbFile, node: u32, column: &str, key: &str) -> RowResult {
        let set = match file {
            ImdbFile::TitleBasics => 0,
            ImdbFile::NameBasics => 1,
            ImdbFile::TitleRatings => 2,
            _ => 3,
        };
        if self.defined[set].insert(node) {
            Ok(())
        } else {
            Err(duplicate(column, key, file))
        }
    }

    /// Loads one file of kind `kind`.
    pub(crate) fn load_file(&mut self, kind: ImdbFile, path: &Path) -> Result<()> {
        match kind {
            ImdbFile::TitleBasics => self.title_basics(path),
            ImdbFile::NameBasics => self.name_basics(path),
            ImdbFile::TitlePrincipals => self.title_principals(path),
            ImdbFile::TitleRatings => self.title_ratings(path),
            ImdbFile::TitleCrew => self.title_crew(path),
            ImdbFile::TitleEpisode => self.title_episode(path),
        }
    }

    fn title_label(&mut self) -> u32 {
        match self.title_label {
            Some(l) => l,
            None => *self.title_label.insert(self.b.label(TITLE)),
        }
    }

    fn person_label(&mut self) -> u32 {
        match self.person_label {
            Some(l) => l,
            None => *self.person_label.insert(self.b.label(PERSON)),
        }
    }

    /// The label for a titleType value: `tvSeries` -> `TvSeries` (first letter upper-cased).
    fn type_label(&mut self, title_type: &str) -> u32 {
        if let Some(l) = self.type_labels.get(title_type) {
            return l;
        }
        let l = self.b.label(&camel_case(title_type));
        self.type_labels.insert(title_type, l);
        l
    }

    /// The relationship type for a category (`archive_footage` -> `ARCHIVE_FOOTAGE`).
    #[inline]
    fn category(&mut self, category: &str) -> (u32, bool) {
        if let Some(t) = self.categories.get(category) {
            return t;
        }
        let name = super::category_rel_type(category);
        let crew = name == "DIRECTOR" || name == "WRITER";
        let t = (self.b.rel_type(&name), crew);
        self.categories.insert(category, t);
        t
    }

    /// The node for `key`. `referenced`: the key comes from a reference column, so a node created
    /// here is dangling (counted, labelled `Title`/`Person` by its `tt`/`nm` prefix); with
    /// `strict` a dangling reference is a malformed row instead (an error naming file and line).
    #[inline]
    fn node(&mut self, key: &str, referenced: bool) -> std::result::Result<u32, RowError> {
        let (kind, number) = classify(key);
        if let Some(n) = number {
            let map = if kind == IdKind::Title {
                &self.titles
            } else {
                &self.people
            };
            if let Some(id) = map.get(n) {
                return Ok(id);
            }
        }
        if referenced && self.options.strict {
            let missing = (number.is_some() && self.maps_complete) || self.b.node_id(key).is_none();
            if missing {
                let file = match kind {
                    IdKind::Title => "a title.basics file",
                    IdKind::Person => "a name.basics file",
                    IdKind::Other => "a basics file",
                };
                return Err(RowError::Bad(format!(
                    "dangling reference: `{key}` is not in {file}"
                )));
            }
        }
        // A canonical id missing from its numeric map is new: its string form cannot belong to any
        // other node (non-canonical keys differ from every canonical one), so no key lookup.
        let (id, created) = if number.is_some() && self.maps_complete {
            (self.b.push_unique_node(key), true)
        } else {
            self.b.ensure_node(key)
        };
        if let Some(n) = number {
            match kind {
                IdKind::Title => self.titles.set(n, id),
                IdKind::Person => self.people.set(n, id),
                IdKind::Other => {}
            }
        }
        if created && referenced {
            self.report.dangling_nodes += 1;
            match kind {
                IdKind::Title => {
                    let l = self.title_label();
                    self.b.add_label(id, l);
                }
                IdKind::Person => {
                    let l = self.person_label();
                    self.b.add_label(id, l);
                }
                IdKind::Other => {}
            }
        }
        Ok(id)
    }

    #[inline]
    fn set_node(&mut self, node: u32, key: u32, value: ValueRef<'_>) -> Result<()> {
        if value.is_null() {
            return Ok(());
        }
        self.b.set_node_property(node, key, value)
    }

    #[inline]
    fn set_edge(&mut self, edge: u32, key: u32, value: ValueRef<'_>) -> Result<()> {
        if value.is_null() {
            return Ok(());
        }
        self.b.set_edge_property(edge, key, value)
    }

    /// Reads `path` as a `kind` file: checks the header, splits each data row into `N` fields and
    /// hands them to `row` in file order; malformed rows go to the report.
    ///
    /// Rows go in batches: first every row of the batch is split and the ids in its `touch` columns
    /// are looked up in the numeric maps in one tight loop of independent loads (so the cache misses
    /// of random ids overlap instead of stalling row by row), then the rows are applied in order.
    fn each_row<const N: usize>(
        &mut self,
        kind: ImdbFile,
        path: &Path,
        touch: &[usize],
        mut row: impl FnMut(&mut Self, [&str; N]) -> RowResult,
    ) -> Result<()> {
        let mut input = input::open(path)?;
        let idx = self.report.begin_file(path, input.size);
        let columns = kind.columns();
        let mut line_no = 0u64;
        let mut decoded = 0usize;
        let started = std::time::Instant::now();
        for_each_block(&mut input.reader, path, |block| {
            decoded += block.len();
            let mut scanner = Scanner::new(block);
            let mut tabs = [0usize; N];
            if line_no == 0 {
                if let Some(header) = scanner.next_line(&mut tabs) {
                    check_header(kind, path, &block[header.start..header.end])?;
                    line_no = 1;
                }
            }
            // Validate the whole block at once; per line only when it holds invalid UTF-8.
            let base = scanner.position();
            let text = std::str::from_utf8(&block[base..]).ok();
            let mut batch: Vec<(u64, Slot<'_, N>)> = Vec::with_capacity(BATCH);
            let mut ids: Vec<(IdKind, u32)> = Vec::with_capacity(BATCH * touch.len());
            loop {
                batch.clear();
                ids.clear();
                while batch.len() < BATCH {
                    let Some(line) = scanner.next_line(&mut tabs) else {
                        break;
                    };
                    line_no += 1;
                    let slot = if line.tabs + 1 != N {
                        Slot::Bad(format!(
                            "expected {N} tab-separated columns ({}), found {}",
                            columns.join(" "),
                            line.tabs + 1
                        ))
                    } else {
                        let line_text = match text {
                            Some(t) => t.get(line.start - base..line.end - base).ok_or(0),
                            None => std::str::from_utf8(&block[line.start..line.end])
                                .map_err(|e| e.valid_up_to()),
                        };
                        match line_text {
                            Err(at) => Slot::Bad(format!("invalid UTF-8 at byte {}", at + 1)),
                            Ok(line_text) => {
                                let fields = cut_fields::<N>(line_text, line.start, &tabs);
                                for key in touch.iter().filter_map(|&c| fields.get(c)) {
                                    if let (k @ (IdKind::Title | IdKind::Person), Some(n)) =
                                        classify(key)
                                    {
                                        ids.push((k, n));
                                    }
                                }
                                Slot::Row(fields)
                            }
                        }
                    };
                    batch.push((line_no, slot));
                }
                if batch.is_empty() {
                    return Ok(());
                }
                self.report.files[idx].rows += batch.len() as u64;
                let mut sink = 0u32;
                for &(k, n) in &ids {
                    sink ^= match k {
                        IdKind::Title => self.titles.peek(n),
                        _ => self.people.peek(n),
                    };
                }
                std::hint::black_box(sink);
                for (no, slot) in batch.drain(..) {
                    let outcome = match slot {
                        Slot::Row(fields) => row(self, fields),
                        Slot::Bad(message) => Err(RowError::Bad(message)),
                    };
                    match outcome {
                        Ok(()) => {}
                        Err(RowError::Bad(message)) => {
                            self.report.bad_row(self.options, idx, no, message)?
                        }
                        Err(RowError::Fatal(e)) => return Err(e),
                    }
                }
            }
        })?;
        if line_no == 0 {
            return Err(Error::BadFile {
                path: path.to_path_buf(),
                message: format!(
                    "empty file, expected header `{}` (tab-separated) of {}",
                    columns.join(" "),
                    kind.file_name()
                ),
            });
        }
        let seconds = started.elapsed().as_secs_f64().max(1e-9);
        let file = &self.report.files[idx];
        log::info!(
            "{} ({kind}): {} rows, {} malformed; {:.1} MB of text in {seconds:.2}s ({:.0} MB/s, {:.2} M rows/s)",
            path.display(),
            file.rows,
            file.malformed,
            decoded as f64 / 1e6,
            decoded as f64 / 1e6 / seconds,
            file.rows as f64 / 1e6 / seconds
        );
        Ok(())
    }

    fn title_basics(&mut self, path: &Path) -> Result<()> {
        let p = [
            "titleType",
            "primaryTitle",
            "originalTitle",
            "isAdult",
            "startYear",
            "endYear",
            "runtimeMinutes",
            "genres",
        ]
        .map(|name| self.b.node_property(name));
        self.each_row(ImdbFile::TitleBasics, path, &[], |l, f: [&str; 9]| {
            let [tconst, title_type, primary, original, adult, start, end, runtime, genres] = f;
            let tconst = id_field(tconst, "tconst")?;
            let adult = bool_field(adult, "isAdult")?;
            let start = int_field(start, "startYear")?;
            let end = int_field(end, "endYear")?;
            let runtime = int_field(runtime, "runtimeMinutes")?;
            let title_type = str_field(title_type);

            let node = l.node(tconst, false)?;
            l.define(ImdbFile::TitleBasics, node, "tconst", tconst)?;
            let title = l.title_label();
            l.b.add_label(node, title);
            if let Some(t) = title_type.filter(|t| !t.is_empty()) {
                let label = l.type_label(t);
                l.b.add_label(node, label);
            }
            l.set_node(node, p[0], str_value(title_type))?;
            l.set_node(node, p[1], str_value(str_field(primary)))?;
            l.set_node(node, p[2], str_value(str_field(original)))?;
            l.set_node(node, p[3], adult.map_or(ValueRef::Null, ValueRef::Bool))?;
            l.set_node(node, p[4], int_value(start))?;
            l.set_node(node, p[5], int_value(end))?;
            l.set_node(node, p[6], int_value(runtime))?;
            l.set_node(node, p[7], str_value(str_field(genres)))?;
            Ok(())
        })
    }

    fn name_basics(&mut self, path: &Path) -> Result<()> {
        let p = [
            "primaryName",
            "birthYear",
            "deathYear",
            "primaryProfession",
            "knownForTitles",
        ]
        .map(|name| self.b.node_property(name));
        self.each_row(ImdbFile::NameBasics, path, &[], |l, f: [&str; 6]| {
            let [nconst, name, birth, death, profession, known_for] = f;
            let nconst = id_field(nconst, "nconst")?;
            let birth = int_field(birth, "birthYear")?;
            let death = int_field(death, "deathYear")?;

            let node = l.node(nconst, false)?;
            l.define(ImdbFile::NameBasics, node, "nconst", nconst)?;
            let person = l.person_label();
            l.b.add_label(node, person);
            l.set_node(node, p[0], str_value(str_field(name)))?;
            l.set_node(node, p[1], int_value(birth))?;
            l.set_node(node, p[2], int_value(death))?;
            l.set_node(node, p[3], str_value(str_field(profession)))?;
            l.set_node(node, p[4], str_value(str_field(known_for)))?;
            Ok(())
        })
    }

    fn title_principals(&mut self, path: &Path) -> Result<()> {
        let p = ["ordering", "job", "characters"].map(|name| self.b.edge_property(name));
        self.each_row(
            ImdbFile::TitlePrincipals,
            path,
            &[0, 2],
            |l, f: [&str; 6]| {
                let [tconst, ordering, nconst, category, job, characters] = f;
                let tconst = id_field(tconst, "tconst")?;
                let ordering = int_field(ordering, "ordering")?;
                let nconst = id_field(nconst, "nconst")?;
                if category.is_empty() || category == NULL {
                    return Err(RowError::Bad("column `category`: missing".into()));
                }

                let title = l.node(tconst, true)?;
                let person = l.node(nconst, true)?;
                let (ty, crew) = l.category(category);
                let edge = l.b.add_edge(person, title, ty)?;
                if crew {
                    if let Some(seen) = &mut l.crew_edges {
                        seen.insert((person, title, ty));
                    }
                }
                l.set_edge(edge, p[0], int_value(ordering))?;
                l.set_edge(edge, p[1], str_value(str_field(job)))?;
                l.set_edge(edge, p[2], str_value(str_field(characters)))?;
                Ok(())
            },
        )
    }

    fn title_ratings(&mut self, path: &Path) -> Result<()> {
        let p = ["averageRating", "numVotes"].map(|name| self.b.node_property(name));
        self.each_row(ImdbFile::TitleRatings, path, &[0], |l, f: [&str; 3]| {
            let [tconst, rating, votes] = f;
            let tconst = id_field(tconst, "tconst")?;
            let rating = float_field(rating, "averageRating")?;
            let votes = int_field(votes, "numVotes")?;

            let node = l.node(tconst, true)?;
            l.define(ImdbFile::TitleRatings, node, "tconst", tconst)?;
            l.set_node(node, p[0], rating.map_or(ValueRef::Null, ValueRef::Float))?;
            l.set_node(node, p[1], int_value(votes))?;
            Ok(())
        })
    }

    fn title_crew(&mut self, path: &Path) -> Result<()> {
        self.each_row(ImdbFile::TitleCrew, path, &[0], |l, f: [&str; 3]| {
            let [tconst, directors, writers] = f;
            let tconst = id_field(tconst, "tconst")?;
            check_id_list(directors, "directors")?;
            check_id_list(writers, "writers")?;
            if directors == NULL && writers == NULL {
                return Ok(());
            }

            let title = l.node(tconst, true)?;
            for (list, role) in [(directors, "director"), (writers, "writer")] {
                if list == NULL {
                    continue;
                }
                let (ty, _) = l.category(role);
                for nconst in list.split(',') {
                    let person = l.node(nconst, true)?;
                    let fresh = l
                        .crew_edges
                        .get_or_insert_with(HashSet::new)
                        .insert((person, title, ty));
                    if fresh {
                        l.b.add_edge(person, title, ty)?;
                    } else {
                        l.report.duplicate_edges_skipped += 1;
                    }
                }
            }
            Ok(())
        })
    }

    fn title_episode(&mut self, path: &Path) -> Result<()> {
        let p = ["seasonNumber", "episodeNumber"].map(|name| self.b.node_property(name));
        self.each_row(ImdbFile::TitleEpisode, path, &[0, 1], |l, f: [&str; 4]| {
            let [tconst, parent, season, episode] = f;
            let tconst = id_field(tconst, "tconst")?;
            let parent = match parent {
                NULL => None,
                other => Some(id_field(other, "parentTconst")?),
            };
            let season = int_field(season, "seasonNumber")?;
            let episode = int_field(episode, "episodeNumber")?;

            let node = l.node(tconst, true)?;
            l.define(ImdbFile::TitleEpisode, node, "tconst", tconst)?;
            if let Some(parent) = parent {
                let series = l.node(parent, true)?;
                let ty = match l.episode_of {
                    Some(t) => t,
                    None => *l.episode_of.insert(l.b.rel_type(EPISODE_OF)),
                };
                l.b.add_edge(node, series, ty)?;
            }
            l.set_node(node, p[0], int_value(season))?;
            l.set_node(node, p[1], int_value(episode))?;
            Ok(())
        })
    }
}

/// A comma-separated id list (`\N` = none): every element must be a non-empty id.
fn check_id_list(list: &str, column: &str) -> std::result::Result<(), FieldError> {
    if list == NULL {
        return Ok(());
    }
    for id in list.split(',') {
        if id.is_empty() || id == NULL {
            return Err(format!(
                "column `{column}`: empty id in list {}",
                shown(list)
            ));
        }
    }
    Ok(())
}

/// Checks the header line (a UTF-8 byte-order mark is ignored).
fn check_header(kind: ImdbFile, path: &Path, line: &[u8]) -> Result<()> {
    let line = line.strip_prefix("\u{feff}".as_bytes()).unwrap_or(line);
    let columns = kind.columns();
    let matches = line
        .split(|&b| b == b'\t')
        .eq(columns.iter().map(|c| c.as_bytes()));
    if matches {
        return Ok(());
    }
    let found = String::from_utf8_lossy(line);
    let found: String = found.chars().take(200).collect();
    Err(Error::BadFile {
        path: path.to_path_buf(),
        message: format!(
            "wrong header for {}: expected the tab-separated columns `{}`, found {:?}",
            kind.file_name(),
            columns.join(" "),
            found
        ),
    })
}

/// `tvMiniSeries` -> `TvMiniSeries`: the titleType with its first letter upper-cased.
pub(crate) fn camel_case(title_type: &str) -> String {
    let mut chars = title_type.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[inline]
fn int_value(v: Option<i64>) -> ValueRef<'static> {
    v.map_or(ValueRef::Null, ValueRef::Int)
}

#[inline]
fn str_value(v: Option<&str>) -> ValueRef<'_> {
    v.map_or(ValueRef::Null, ValueRef::Str)
}

#[cfg(test)]
mod tests {
    use super::camel_case;

    #[test]
    fn title_type_labels() {
        for (t, l) in [
            ("movie", "Movie"),
            ("short", "Short"),
            ("tvSeries", "TvSeries"),
            ("tvEpisode", "TvEpisode"),
            ("tvMovie", "TvMovie"),
            ("tvMiniSeries", "TvMiniSeries"),
            ("tvSpecial", "TvSpecial"),
            ("tvShort", "TvShort"),
            ("video", "Video"),
            ("videoGame", "VideoGame"),
            ("tvPilot", "TvPilot"),
            ("radioPlay", "RadioPlay"),
            ("ébauche", "Ébauche"),
        ] {
            assert_eq!(camel_case(t), l);
        }
    }
}
