//! Row handlers: one per IMDb file, each validating a whole row before touching the builder so a
//! malformed row leaves no trace but its report entry.
//!
//! Each file is read in blocks of whole lines (see [`for_each_window`]). The blocks of a window are
//! parsed on the thread pool, each into a [`Chunk`]: its lines split, checked (column count,
//! UTF-8) and their fields parsed (numbers, ids classified; strings kept as [`Span`]s into the
//! block) by the file's `parse` function, which does not see the builder. The chunks are then
//! applied to the builder strictly in file order on one thread, while the next window is parsed:
//! node ids, edge order, duplicates, dangling references and the report (line numbers included)
//! are those of a one-threaded load.

use std::path::Path;

use hashbrown::{HashMap, HashSet};

use super::ids::{classify, IdKind, IdMap};
use super::lines::{
    bool_field, cut_fields, float_field, for_each_window, id_field, int_field, shown, str_field,
    FieldError, Scanner, CHUNK, NULL,
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

/// The most blocks parsed at once (and so the most parsed chunks waiting to be applied).
const MAX_WINDOW: usize = 8;

/// Where a field lies in its block's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Span {
    start: u32,
    end: u32,
}

impl Span {
    /// The span of `field`, a slice of `text`.
    #[inline]
    fn of(text: &str, field: &str) -> Span {
        let start = (field.as_ptr() as usize).wrapping_sub(text.as_ptr() as usize);
        Span {
            start: start as u32,
            end: (start + field.len()) as u32,
        }
    }

    /// The span of a string field (`\N` = null: `None`).
    #[inline]
    fn of_str(text: &str, field: &str) -> Option<Span> {
        str_field(field).map(|f| Span::of(text, f))
    }

    /// The field's text.
    #[inline]
    fn get(self, text: &str) -> &str {
        text.get(self.start as usize..self.end as usize)
            .unwrap_or("")
    }
}

/// An id field, classified on the thread that parsed it.
#[derive(Debug, Clone, Copy)]
struct Key {
    span: Span,
    kind: IdKind,
    number: Option<u32>,
}

impl Key {
    /// The key `field` (a slice of `text`).
    #[inline]
    fn of(text: &str, field: &str) -> Key {
        let (kind, number) = classify(field);
        Key {
            span: Span::of(text, field),
            kind,
            number,
        }
    }
}

/// A block of whole lines, parsed: what one worker hands to the thread that applies rows.
struct Chunk<P> {
    /// The block (invalid UTF-8 in a line, which makes the line malformed, replaced by `?`).
    text: String,
    /// The header check, for the file's first block.
    header: Option<Result<()>>,
    /// Each line (the header excepted), parsed or why it is malformed.
    rows: Vec<std::result::Result<P, String>>,
}

/// Parses a block of whole lines of a `kind` file (`first`: the file's first block, which starts
/// with the header) into a [`Chunk`]: lines with the wrong number of columns or invalid UTF-8 are
/// malformed, the others go to `parse`.
fn parse_chunk<const N: usize, P>(
    mut block: Vec<u8>,
    first: bool,
    kind: ImdbFile,
    path: &Path,
    parse: &(impl Fn(&str, [&str; N]) -> std::result::Result<P, FieldError> + Sync),
) -> Chunk<P> {
    let mut tabs = [0usize; N];
    let mut header = None;
    // Lines (by start offset) that are not UTF-8, with the offset of the first bad byte.
    let mut invalid: Vec<(usize, usize)> = Vec::new();
    let valid = std::str::from_utf8(&block).is_ok();
    if first || !valid {
        let mut scanner = Scanner::new(&block);
        let mut bad = Vec::new();
        let mut at_start = first;
        while let Some(line) = scanner.next_line(&mut tabs) {
            let bytes = &block[line.start..line.end];
            if std::mem::replace(&mut at_start, false) {
                header = Some(check_header(kind, path, bytes));
            }
            if valid {
                break;
            }
            if let Err(e) = std::str::from_utf8(bytes) {
                invalid.push((line.start, e.valid_up_to()));
                bad.push((line.start, line.end));
            }
        }
        // A line is UTF-8 once its non-ASCII bytes are gone; tabs and line ends stay.
        for (start, end) in bad {
            for b in &mut block[start..end] {
                if *b >= 0x80 {
                    *b = b'?';
                }
            }
        }
    }
    let text = String::from_utf8(block)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    let columns = kind.columns();
    let mut rows = Vec::new();
    let mut scanner = Scanner::new(text.as_bytes());
    if first {
        let _ = scanner.next_line(&mut tabs);
    }
    let mut invalid = invalid.into_iter().peekable();
    while let Some(line) = scanner.next_line(&mut tabs) {
        let bad_utf8 = invalid
            .next_if(|&(start, _)| start <= line.start)
            .filter(|&(start, _)| start == line.start);
        let row = if line.tabs + 1 != N {
            Err(format!(
                "expected {N} tab-separated columns ({}), found {}",
                columns.join(" "),
                line.tabs + 1
            ))
        } else if let Some((_, at)) = bad_utf8 {
            Err(format!("invalid UTF-8 at byte {}", at + 1))
        } else {
            let line_text = text.get(line.start..line.end).unwrap_or("");
            parse(&text, cut_fields::<N>(line_text, line.start, &tabs))
        };
        rows.push(row);
    }
    Chunk { text, header, rows }
}

/// The reading position in one file while its chunks are applied.
struct FileState {
    /// Index of the file in the report.
    idx: usize,
    /// Lines applied so far (the header included).
    line_no: u64,
    /// Bytes of text applied so far.
    decoded: usize,
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
        self.node_as(key, kind, number, referenced)
    }

    /// [`Loader::node`] for a key classified when its row was parsed (`text`: its block's).
    #[inline]
    fn node_of(
        &mut self,
        key: Key,
        text: &str,
        referenced: bool,
    ) -> std::result::Result<u32, RowError> {
        self.node_as(key.span.get(text), key.kind, key.number, referenced)
    }

    /// [`Loader::node`] for `key` classified as `kind` with canonical number `number`.
    #[inline]
    fn node_as(
        &mut self,
        key: &str,
        kind: IdKind,
        number: Option<u32>,
        referenced: bool,
    ) -> std::result::Result<u32, RowError> {
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

    /// Reads `path` as a `kind` file: checks the header, parses each data row on the thread pool
    /// with `parse` (which sees only the row's `N` fields and its block's text, never the builder)
    /// and hands the results to `apply` in file order; malformed rows go to the report.
    ///
    /// Rows are applied in batches: first the ids that `touch` gives for each row of the batch are
    /// looked up in the numeric maps in one tight loop of independent loads (so the cache misses of
    /// random ids overlap instead of stalling row by row), then the rows are applied in order.
    fn each_row<const N: usize, P: Send>(
        &mut self,
        kind: ImdbFile,
        path: &Path,
        parse: impl Fn(&str, [&str; N]) -> std::result::Result<P, FieldError> + Sync,
        touch: impl Fn(&P) -> [Option<Key>; 2] + Sync,
        mut apply: impl FnMut(&mut Self, &P, &str) -> RowResult + Send,
    ) -> Result<()> {
        use rayon::prelude::*;
        let mut input = input::open(path)?;
        let idx = self.report.begin_file(path, input.size);
        let columns = kind.columns();
        let mut state = FileState {
            idx,
            line_no: 0,
            decoded: 0,
        };
        let chunk = match self.options.chunk_bytes {
            0 => CHUNK,
            n => n,
        };
        let window = rayon::current_num_threads().clamp(1, MAX_WINDOW);
        let started = std::time::Instant::now();
        // The parsed chunks of the previous window, applied while the next one is parsed.
        let mut parsed: Vec<Chunk<P>> = Vec::new();
        let mut first = true;
        let read = for_each_window(&mut input.reader, path, chunk, window, |blocks| {
            let previous = std::mem::take(&mut parsed);
            let is_first = std::mem::replace(&mut first, false);
            let (applied, next) = rayon::join(
                || {
                    previous
                        .into_iter()
                        .try_for_each(|c| self.apply_chunk(c, &mut state, &touch, &mut apply))
                },
                || {
                    blocks
                        .into_par_iter()
                        .enumerate()
                        .map(|(i, block)| {
                            parse_chunk(block, is_first && i == 0, kind, path, &parse)
                        })
                        .collect::<Vec<_>>()
                },
            );
            applied?;
            parsed = next;
            Ok(())
        });
        // What was read before a read error is applied first (its errors come first).
        for c in parsed {
            self.apply_chunk(c, &mut state, &touch, &mut apply)?;
        }
        read?;
        if state.line_no == 0 {
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
        let decoded = state.decoded;
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

    /// Applies the rows of one parsed chunk, the next in file order.
    fn apply_chunk<P>(
        &mut self,
        chunk: Chunk<P>,
        state: &mut FileState,
        touch: &impl Fn(&P) -> [Option<Key>; 2],
        apply: &mut impl FnMut(&mut Self, &P, &str) -> RowResult,
    ) -> Result<()> {
        if let Some(header) = chunk.header {
            header?;
            state.line_no = 1;
        }
        state.decoded += chunk.text.len();
        let text = chunk.text.as_str();
        let mut rows = chunk.rows;
        for batch in rows.chunks_mut(BATCH) {
            self.report.files[state.idx].rows += batch.len() as u64;
            let mut sink = 0u32;
            for key in batch
                .iter()
                .filter_map(|r| r.as_ref().ok())
                .flat_map(touch)
                .flatten()
            {
                if let Some(n) = key.number {
                    sink ^= match key.kind {
                        IdKind::Title => self.titles.peek(n),
                        IdKind::Person => self.people.peek(n),
                        IdKind::Other => 0,
                    };
                }
            }
            std::hint::black_box(sink);
            for row in batch.iter_mut() {
                state.line_no += 1;
                let outcome = match row {
                    Ok(p) => apply(self, p, text),
                    Err(message) => Err(RowError::Bad(std::mem::take(message))),
                };
                match outcome {
                    Ok(()) => {}
                    Err(RowError::Bad(message)) => {
                        self.report
                            .bad_row(self.options, state.idx, state.line_no, message)?
                    }
                    Err(RowError::Fatal(e)) => return Err(e),
                }
            }
        }
        Ok(())
    }

    fn title_basics(&mut self, path: &Path) -> Result<()> {
        struct Row {
            tconst: Key,
            title_type: Option<Span>,
            primary: Option<Span>,
            original: Option<Span>,
            adult: Option<bool>,
            start: Option<i64>,
            end: Option<i64>,
            runtime: Option<i64>,
            genres: Option<Span>,
        }
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
        self.each_row(
            ImdbFile::TitleBasics,
            path,
            |t, f: [&str; 9]| {
                let [tconst, title_type, primary, original, adult, start, end, runtime, genres] = f;
                let tconst = Key::of(t, id_field(tconst, "tconst")?);
                let adult = bool_field(adult, "isAdult")?;
                let start = int_field(start, "startYear")?;
                let end = int_field(end, "endYear")?;
                let runtime = int_field(runtime, "runtimeMinutes")?;
                Ok(Row {
                    tconst,
                    title_type: Span::of_str(t, title_type),
                    primary: Span::of_str(t, primary),
                    original: Span::of_str(t, original),
                    adult,
                    start,
                    end,
                    runtime,
                    genres: Span::of_str(t, genres),
                })
            },
            |_| [None, None],
            |l, r, t| {
                let node = l.node_of(r.tconst, t, false)?;
                l.define(ImdbFile::TitleBasics, node, "tconst", r.tconst.span.get(t))?;
                let title = l.title_label();
                l.b.add_label(node, title);
                let title_type = r.title_type.map(|s| s.get(t));
                if let Some(ty) = title_type.filter(|ty| !ty.is_empty()) {
                    let label = l.type_label(ty);
                    l.b.add_label(node, label);
                }
                l.set_node(node, p[0], str_value(title_type))?;
                l.set_node(node, p[1], span_value(r.primary, t))?;
                l.set_node(node, p[2], span_value(r.original, t))?;
                l.set_node(node, p[3], r.adult.map_or(ValueRef::Null, ValueRef::Bool))?;
                l.set_node(node, p[4], int_value(r.start))?;
                l.set_node(node, p[5], int_value(r.end))?;
                l.set_node(node, p[6], int_value(r.runtime))?;
                l.set_node(node, p[7], span_value(r.genres, t))?;
                Ok(())
            },
        )
    }

    fn name_basics(&mut self, path: &Path) -> Result<()> {
        struct Row {
            nconst: Key,
            name: Option<Span>,
            birth: Option<i64>,
            death: Option<i64>,
            profession: Option<Span>,
            known_for: Option<Span>,
        }
        let p = [
            "primaryName",
            "birthYear",
            "deathYear",
            "primaryProfession",
            "knownForTitles",
        ]
        .map(|name| self.b.node_property(name));
        self.each_row(
            ImdbFile::NameBasics,
            path,
            |t, f: [&str; 6]| {
                let [nconst, name, birth, death, profession, known_for] = f;
                let nconst = Key::of(t, id_field(nconst, "nconst")?);
                let birth = int_field(birth, "birthYear")?;
                let death = int_field(death, "deathYear")?;
                Ok(Row {
                    nconst,
                    name: Span::of_str(t, name),
                    birth,
                    death,
                    profession: Span::of_str(t, profession),
                    known_for: Span::of_str(t, known_for),
                })
            },
            |_| [None, None],
            |l, r, t| {
                let node = l.node_of(r.nconst, t, false)?;
                l.define(ImdbFile::NameBasics, node, "nconst", r.nconst.span.get(t))?;
                let person = l.person_label();
                l.b.add_label(node, person);
                l.set_node(node, p[0], span_value(r.name, t))?;
                l.set_node(node, p[1], int_value(r.birth))?;
                l.set_node(node, p[2], int_value(r.death))?;
                l.set_node(node, p[3], span_value(r.profession, t))?;
                l.set_node(node, p[4], span_value(r.known_for, t))?;
                Ok(())
            },
        )
    }

    fn title_principals(&mut self, path: &Path) -> Result<()> {
        struct Row {
            tconst: Key,
            ordering: Option<i64>,
            nconst: Key,
            category: Span,
            job: Option<Span>,
            characters: Option<Span>,
        }
        let p = ["ordering", "job", "characters"].map(|name| self.b.edge_property(name));
        self.each_row(
            ImdbFile::TitlePrincipals,
            path,
            |t, f: [&str; 6]| {
                let [tconst, ordering, nconst, category, job, characters] = f;
                let tconst = Key::of(t, id_field(tconst, "tconst")?);
                let ordering = int_field(ordering, "ordering")?;
                let nconst = Key::of(t, id_field(nconst, "nconst")?);
                if category.is_empty() || category == NULL {
                    return Err("column `category`: missing".into());
                }
                Ok(Row {
                    tconst,
                    ordering,
                    nconst,
                    category: Span::of(t, category),
                    job: Span::of_str(t, job),
                    characters: Span::of_str(t, characters),
                })
            },
            |r| [Some(r.tconst), Some(r.nconst)],
            |l, r, t| {
                let title = l.node_of(r.tconst, t, true)?;
                let person = l.node_of(r.nconst, t, true)?;
                let (ty, crew) = l.category(r.category.get(t));
                let edge = l.b.add_edge(person, title, ty)?;
                if crew {
                    if let Some(seen) = &mut l.crew_edges {
                        seen.insert((person, title, ty));
                    }
                }
                l.set_edge(edge, p[0], int_value(r.ordering))?;
                l.set_edge(edge, p[1], span_value(r.job, t))?;
                l.set_edge(edge, p[2], span_value(r.characters, t))?;
                Ok(())
            },
        )
    }

    fn title_ratings(&mut self, path: &Path) -> Result<()> {
        struct Row {
            tconst: Key,
            rating: Option<f64>,
            votes: Option<i64>,
        }
        let p = ["averageRating", "numVotes"].map(|name| self.b.node_property(name));
        self.each_row(
            ImdbFile::TitleRatings,
            path,
            |t, f: [&str; 3]| {
                let [tconst, rating, votes] = f;
                let tconst = Key::of(t, id_field(tconst, "tconst")?);
                let rating = float_field(rating, "averageRating")?;
                let votes = int_field(votes, "numVotes")?;
                Ok(Row {
                    tconst,
                    rating,
                    votes,
                })
            },
            |r| [Some(r.tconst), None],
            |l, r, t| {
                let node = l.node_of(r.tconst, t, true)?;
                l.define(ImdbFile::TitleRatings, node, "tconst", r.tconst.span.get(t))?;
                l.set_node(node, p[0], r.rating.map_or(ValueRef::Null, ValueRef::Float))?;
                l.set_node(node, p[1], int_value(r.votes))?;
                Ok(())
            },
        )
    }

    fn title_crew(&mut self, path: &Path) -> Result<()> {
        struct Row {
            tconst: Key,
            /// The `directors` and `writers` lists (`None` for `\N`).
            lists: [Option<Span>; 2],
        }
        self.each_row(
            ImdbFile::TitleCrew,
            path,
            |t, f: [&str; 3]| {
                let [tconst, directors, writers] = f;
                let tconst = Key::of(t, id_field(tconst, "tconst")?);
                check_id_list(directors, "directors")?;
                check_id_list(writers, "writers")?;
                Ok(Row {
                    tconst,
                    lists: [Span::of_str(t, directors), Span::of_str(t, writers)],
                })
            },
            |r| [Some(r.tconst), None],
            |l, r, t| {
                if r.lists == [None, None] {
                    return Ok(());
                }
                let title = l.node_of(r.tconst, t, true)?;
                for (list, role) in r.lists.iter().zip(["director", "writer"]) {
                    let Some(list) = list else {
                        continue;
                    };
                    let (ty, _) = l.category(role);
                    for nconst in list.get(t).split(',') {
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
            },
        )
    }

    fn title_episode(&mut self, path: &Path) -> Result<()> {
        struct Row {
            tconst: Key,
            parent: Option<Key>,
            season: Option<i64>,
            episode: Option<i64>,
        }
        let p = ["seasonNumber", "episodeNumber"].map(|name| self.b.node_property(name));
        self.each_row(
            ImdbFile::TitleEpisode,
            path,
            |t, f: [&str; 4]| {
                let [tconst, parent, season, episode] = f;
                let tconst = Key::of(t, id_field(tconst, "tconst")?);
                let parent = match parent {
                    NULL => None,
                    other => Some(Key::of(t, id_field(other, "parentTconst")?)),
                };
                let season = int_field(season, "seasonNumber")?;
                let episode = int_field(episode, "episodeNumber")?;
                Ok(Row {
                    tconst,
                    parent,
                    season,
                    episode,
                })
            },
            |r| [Some(r.tconst), r.parent],
            |l, r, t| {
                let node = l.node_of(r.tconst, t, true)?;
                l.define(ImdbFile::TitleEpisode, node, "tconst", r.tconst.span.get(t))?;
                if let Some(parent) = r.parent {
                    let series = l.node_of(parent, t, true)?;
                    let ty = match l.episode_of {
                        Some(ty) => ty,
                        None => *l.episode_of.insert(l.b.rel_type(EPISODE_OF)),
                    };
                    l.b.add_edge(node, series, ty)?;
                }
                l.set_node(node, p[0], int_value(r.season))?;
                l.set_node(node, p[1], int_value(r.episode))?;
                Ok(())
            },
        )
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

/// A string field of a parsed row (`text`: its block's).
#[inline]
fn span_value(v: Option<Span>, text: &str) -> ValueRef<'_> {
    str_value(v.map(|s| s.get(text)))
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
