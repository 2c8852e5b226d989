//! Neo4j-style CSV, as `neo4j-admin database import` and Kùzu's `COPY` read it.
//!
//! - **Inputs** come two ways. A plain input (a file, or a directory's `.csv` / `.csv.gz` files)
//!   carries its own header on its first line. A **group** ([`InputGroup`], `gemp load
//!   --nodes=[Label1:Label2=]f1,f2,…` / `--relationships=[TYPE=]f1,f2,…`) shares one header: the
//!   first record of its first file, which may hold nothing else (a header file); the other files
//!   of the group are data only, and their line numbers count from their first line.
//! - **Node files** have an `:ID` column (`id:ID`, `:ID`, `id:ID(Space)`). The part before the
//!   colon (if any) is also stored as a property. Labels come from a `:LABEL` column (several
//!   separated by the array delimiter; an empty field is no label) plus, in a group, the labels
//!   the group names; a plain input without a `:LABEL` column takes its label from the file name:
//!   the stem after its last `-` (`railway-inject-1-Segment.csv` → `Segment`, `Person.csv` →
//!   `Person`). A group never takes labels from file names.
//! - **Relationship files** have `:START_ID` and `:END_ID` columns; the type comes from a
//!   `:TYPE` column, else from the group's type, else (plain inputs) from the file name the same
//!   way (`railway-inject-1-monitoredBy.csv` → `monitoredBy`). A group row with neither is a
//!   malformed row.
//! - **Typed headers** `name:TYPE` (case-insensitive): `INT`, `LONG`, `SHORT`, `BYTE`
//!   (integers), `FLOAT`, `DOUBLE`, `BOOLEAN`, `STRING`, `CHAR`; the temporal and spatial types
//!   `DATE`, `LOCALTIME`, `TIME`, `LOCALDATETIME`, `DATETIME`, `DURATION`, `POINT` are kept as
//!   the text given, **not validated**; neo4j-admin's column options (`{timezone:…}`) are
//!   dropped; `:IGNORE` columns are skipped. An array type (`INT[]`) splits on the array
//!   delimiter and is stored as JSON array text. Untyped columns are strings, unless a
//!   metamodel types the property for the node's class. An empty field is no value.
//! - **Options** ([`CsvOptions`], in [`LoadOptions::neo4j`]): the field delimiter (default `,`,
//!   any ASCII character, `TAB`), the array delimiter (default `;`), the quote (default `"`), the
//!   id type. A header of one column that holds another common delimiter (`|`, `;`, tab, `,`)
//!   is reported as a wrong delimiter, naming the likely one, with file, line and column.
//! - **ID spaces** (`:ID(Person)`, `:START_ID(Person)`): node keys become `Person:<id>`.
//! - **Id type** ([`IdType`]): `string` compares ids as text; `integer` reads every `:ID`,
//!   `:START_ID` and `:END_ID` field as a signed 64-bit decimal integer (spaces around, a sign and
//!   leading zeros allowed), so `007` and `7` are one node, keyed `7`; another id is a malformed
//!   row; the id property is then an integer.
//! - Node files are read before relationship files, so an id named only by a relationship is a
//!   dangling reference (see below). A metamodel adds superclass labels and completes opposite
//!   references.
//!
//! - **Quotes**: a field may be quoted (`"a, b"`, `""` for a quote) and a quoted field may span
//!   lines. A quote that does not close is a malformed row naming the line where it opened (an
//!   error with `--strict`): the field is taken to be unterminated when it runs to the end of the
//!   file, when it would span more than [`MAX_RECORD_LINES`] lines or [`MAX_RECORD_BYTES`] bytes,
//!   or when, after spanning lines, it closes somewhere a field cannot end (not before a
//!   delimiter or the end of a line) or leaves the record with a number of fields other than the
//!   header's. Only the line where the quote opened is skipped: reading resumes at the next line,
//!   so the rows after a stray quote are not lost.
//! - **References**: a relationship naming an id that no node file defines is a dangling
//!   reference. With `--strict` it is an error (file and line); otherwise the edge is kept, to a
//!   node that carries only its id, and counted in the report.
//!
//! Not taken from neo4j-admin: file-name regular expressions in groups, `--id-type actual`,
//! `--ignore-empty-strings`, `--trim-strings`, `--multiline-fields` (quoted line breaks are
//! always accepted), `--skip-duplicate-nodes` / `--skip-bad-relationships` (gemp's counterparts
//! are the malformed-row report and `--strict`).

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::io::export_manifest;
use crate::io::metamodel::{AttrType, Metamodel, Opposites};
use crate::io::report::{LoadOptions, LoadReport};
use crate::model::{ModelBuilder, Value};

/// How node and relationship ids are compared (`--id-type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[cfg_attr(feature = "cli", value(rename_all = "lower"))]
pub enum IdType {
    /// Ids are strings, compared byte for byte (`007` and `7` are two nodes).
    #[default]
    String,
    /// Ids are 64-bit signed integers, written in decimal with an optional sign, leading zeros
    /// and surrounding spaces (`007`, ` 7`, `+7` are one node, keyed `7`); another id is a
    /// malformed row. The id property (`personId:ID`) is then an integer.
    Integer,
}

/// Whether a group of files given on the command line holds nodes or relationships.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GroupKind {
    /// `--nodes`.
    Nodes,
    /// `--relationships`.
    Relationships,
}

/// A group of files as `neo4j-admin database import` takes them: `--nodes=[Label1:Label2=]f1,f2`
/// or `--relationships=[TYPE=]f1,f2`. The header is the first record of the first file (which
/// may hold nothing else: a header file); the other files hold data only.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputGroup {
    /// Nodes or relationships.
    pub kind: GroupKind,
    /// The labels given to every node of the group, or the relationship type (at most one).
    pub names: Vec<String>,
    /// The files, header first.
    pub files: Vec<PathBuf>,
}

impl InputGroup {
    /// Parses `[NAME[:NAME…]=]FILE[,FILE…]`. The text before the first `=` is the label list (or
    /// type), unless the whole text names an existing file.
    pub fn parse(kind: GroupKind, spec: &str) -> std::result::Result<Self, String> {
        let flag = match kind {
            GroupKind::Nodes => "--nodes",
            GroupKind::Relationships => "--relationships",
        };
        let (names, files) = match spec.split_once('=') {
            Some((n, f)) if !Path::new(spec).exists() => (n, f),
            _ => ("", spec),
        };
        let names: Vec<String> = names
            .split(':')
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .map(str::to_owned)
            .collect();
        if kind == GroupKind::Relationships && names.len() > 1 {
            return Err(format!(
                "{flag}={spec}: a relationship has one type, not {}",
                names.join(":")
            ));
        }
        let files: Vec<PathBuf> = files
            .split(',')
            .filter(|f| !f.is_empty())
            .map(PathBuf::from)
            .collect();
        if files.is_empty() {
            return Err(format!("{flag}={spec}: no file given"));
        }
        Ok(InputGroup { kind, names, files })
    }
}

/// The options of `neo4j-admin database import` that the loader takes, in one place (the
/// command line's `--nodes`, `--relationships`, `--delimiter`, `--array-delimiter`, `--quote`,
/// `--id-type` fill it; [`LoadOptions::neo4j`] carries it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CsvOptions {
    /// The field delimiter (one ASCII byte; default `,`).
    pub delimiter: u8,
    /// The separator of array items and of labels in a `:LABEL` field (default `;`).
    pub array_delimiter: char,
    /// The quote character (one ASCII byte; default `"`).
    pub quote: u8,
    /// How ids are compared.
    pub id_type: IdType,
    /// File groups given as `--nodes` / `--relationships`, loaded besides the plain inputs.
    pub groups: Vec<InputGroup>,
}

impl Default for CsvOptions {
    fn default() -> Self {
        CsvOptions {
            delimiter: b',',
            array_delimiter: ';',
            quote: b'"',
            id_type: IdType::String,
            groups: Vec::new(),
        }
    }
}

/// Parses a delimiter or quote character as neo4j-admin writes it: one ASCII character, or
/// `TAB` / `\t` for a tab.
pub fn parse_delimiter(text: &str) -> std::result::Result<u8, String> {
    if text.eq_ignore_ascii_case("tab") || text == "\\t" || text == "\t" {
        return Ok(b'\t');
    }
    match text.as_bytes() {
        [b] if b.is_ascii() && *b != b'\n' && *b != b'\r' => Ok(*b),
        _ => Err(format!(
            "`{text}`: expected one ASCII character (or TAB), not a line break"
        )),
    }
}

/// Parses the array delimiter: one character, or `TAB` / `\t`.
pub fn parse_array_delimiter(text: &str) -> std::result::Result<char, String> {
    if text.eq_ignore_ascii_case("tab") || text == "\\t" || text == "\t" {
        return Ok('\t');
    }
    let mut chars = text.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) if c != '\n' && c != '\r' => Ok(c),
        _ => Err(format!("`{text}`: expected one character (or TAB)")),
    }
}

/// How a delimiter is named in messages.
fn delimiter_name(d: u8) -> String {
    match d {
        b'\t' => "TAB".into(),
        d => (d as char).to_string(),
    }
}

/// The type of a CSV column.
#[derive(Debug, Clone, PartialEq, Eq)]
enum ColType {
    Int,
    Float,
    Bool,
    Str,
}

/// What one header column means.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Column {
    /// The node id; the optional property name and ID space.
    Id(Option<String>, Option<String>),
    /// `:START_ID` with its ID space.
    Start(Option<String>),
    /// `:END_ID` with its ID space.
    End(Option<String>),
    /// `:LABEL`.
    Label,
    /// `:TYPE`.
    Type,
    /// `:IGNORE`.
    Ignore,
    /// A property: name, type, explicitly typed, array.
    Property {
        name: String,
        ty: ColType,
        typed: bool,
        array: bool,
    },
}

/// A parsed header.
#[derive(Debug)]
struct Header {
    columns: Vec<Column>,
    is_node_file: bool,
}

fn id_space(rest: &str, keyword: &str) -> Option<Option<String>> {
    let r = rest.strip_prefix(keyword)?;
    if r.is_empty() {
        return Some(None);
    }
    let inner = r.strip_prefix('(')?.strip_suffix(')')?;
    Some((!inner.is_empty()).then(|| inner.to_owned()))
}

fn parse_column(col: &str) -> std::result::Result<Column, String> {
    // neo4j-admin's column options (`at:datetime{timezone:Europe/Stockholm}`) are dropped.
    let core = match col
        .trim_end()
        .strip_suffix('}')
        .and_then(|c| c.rsplit_once('{'))
    {
        Some((core, _)) if core.contains(':') => core,
        _ => col,
    };
    let Some((name, kind)) = core.rsplit_once(':') else {
        return Ok(Column::Property {
            name: col.to_owned(),
            ty: ColType::Str,
            typed: false,
            array: false,
        });
    };
    let upper = kind.trim().to_ascii_uppercase();
    let name_opt = (!name.is_empty()).then(|| name.to_owned());
    if let Some(space) = id_space(&upper, "ID") {
        let space = space.map(|_| kind.trim()[3..kind.trim().len() - 1].to_owned());
        return Ok(Column::Id(name_opt, space));
    }
    if let Some(space) = id_space(&upper, "START_ID") {
        let space = space.map(|_| kind.trim()[9..kind.trim().len() - 1].to_owned());
        return Ok(Column::Start(space));
    }
    if let Some(space) = id_space(&upper, "END_ID") {
        let space = space.map(|_| kind.trim()[7..kind.trim().len() - 1].to_owned());
        return Ok(Column::End(space));
    }
    match upper.as_str() {
        "LABEL" => return Ok(Column::Label),
        "TYPE" => return Ok(Column::Type),
        "IGNORE" => return Ok(Column::Ignore),
        _ => {}
    }
    let (base, array) = match upper.strip_suffix("[]") {
        Some(b) => (b, true),
        None => (upper.as_str(), false),
    };
    let ty = match base {
        "INT" | "LONG" | "SHORT" | "BYTE" => ColType::Int,
        "FLOAT" | "DOUBLE" => ColType::Float,
        "BOOLEAN" => ColType::Bool,
        "STRING" | "CHAR" | "DATE" | "LOCALTIME" | "TIME" | "LOCALDATETIME" | "DATETIME"
        | "DURATION" | "POINT" => ColType::Str,
        _ => return Err(format!("column `{col}`: unknown type `{kind}`")),
    };
    if name.is_empty() {
        return Err(format!("column `{col}` has a type but no name"));
    }
    Ok(Column::Property {
        name: name.to_owned(),
        ty,
        typed: true,
        array,
    })
}

fn parse_header(fields: &[String]) -> std::result::Result<Header, String> {
    let columns = fields
        .iter()
        .enumerate()
        .map(|(i, f)| {
            parse_column(if i == 0 {
                f.trim_start_matches('\u{feff}')
            } else {
                f
            })
        })
        .collect::<std::result::Result<Vec<_>, _>>()?;
    let ids = columns
        .iter()
        .filter(|c| matches!(c, Column::Id(..)))
        .count();
    let starts = columns
        .iter()
        .filter(|c| matches!(c, Column::Start(_)))
        .count();
    let ends = columns
        .iter()
        .filter(|c| matches!(c, Column::End(_)))
        .count();
    if ids == 1 && starts == 0 && ends == 0 {
        return Ok(Header {
            columns,
            is_node_file: true,
        });
    }
    if ids == 0 && starts == 1 && ends == 1 {
        return Ok(Header {
            columns,
            is_node_file: false,
        });
    }
    Err(
        "the header names neither a node file (one `:ID` column) nor a relationship file \
         (one `:START_ID` and one `:END_ID` column)"
            .into(),
    )
}

/// True when `path` starts with a Neo4j import header (an `:ID` or `:START_ID` column), with
/// the default delimiter and quote, or has a one-column header naming `:ID` or `:START_ID` (most
/// likely another delimiter: loading it says which).
pub fn has_neo4j_header(path: &Path) -> bool {
    let options = CsvOptions::default();
    let Ok(Some((_, fields))) = read_header_fields(path, &options) else {
        return false;
    };
    if parse_header(&fields).is_ok() {
        return true;
    }
    let upper = fields
        .first()
        .map(|f| f.to_ascii_uppercase())
        .unwrap_or_default();
    fields.len() == 1 && (upper.contains(":ID") || upper.contains(":START_ID"))
}

/// The first record of `path` (the header) with its line, or `None` for a file without one.
fn read_header_fields(path: &Path, options: &CsvOptions) -> Result<Option<(u64, Vec<String>)>> {
    let input = super::input::open(path)?;
    let mut lines = Lines::start(input.reader, path)?;
    let mut parser = RecordParser::new(options);
    match next_record(&mut lines, &mut parser, usize::MAX, path)? {
        None => Ok(None),
        Some(Record::Unterminated(line, column)) => Err(Error::parse(
            Some(path.to_path_buf()),
            line,
            column,
            "the header's quote never closes",
        )),
        Some(Record::Fields(line, fields)) => {
            let fields = fields
                .into_iter()
                .enumerate()
                .map(|(i, f)| {
                    String::from_utf8(f).map_err(|e| {
                        Error::parse(
                            Some(path.to_path_buf()),
                            line,
                            0,
                            format!("invalid UTF-8 in header field {}: {e}", i + 1),
                        )
                    })
                })
                .collect::<Result<Vec<_>>>()?;
            Ok(Some((line, fields)))
        }
    }
}

/// Reads and parses the header of `path`; a one-column header holding another common delimiter
/// is diagnosed as a wrong delimiter.
fn read_header(path: &Path, options: &CsvOptions) -> Result<(u64, Header)> {
    let Some((line, fields)) = read_header_fields(path, options)? else {
        return Err(Error::BadFile {
            path: path.to_path_buf(),
            message: "empty file: expected a header row".into(),
        });
    };
    if let [only] = &fields[..] {
        // The most frequent; on a tie the first of `|`, `;`, tab, `,` (`max_by_key` keeps the
        // last of equals, hence the reversed order).
        let guess = [b'|', b';', b'\t', b',']
            .into_iter()
            .rev()
            .filter(|&d| d != options.delimiter)
            .map(|d| (only.bytes().filter(|&b| b == d).count(), d))
            .filter(|&(n, _)| n > 0)
            .max_by_key(|&(n, _)| n);
        if let Some((_, d)) = guess {
            let column = only
                .bytes()
                .position(|b| b == d)
                .map_or(0, |i| i as u64 + 1);
            let name = delimiter_name(d);
            let shown = if d == b'\t' {
                "a tab".to_owned()
            } else {
                format!("`{name}`")
            };
            return Err(Error::parse(
                Some(path.to_path_buf()),
                line,
                column,
                format!(
                    "the header of {} has one column; is the delimiter {shown}? \
                     (use --delimiter '{name}')",
                    path.display()
                ),
            ));
        }
    }
    let header =
        parse_header(&fields).map_err(|m| Error::parse(Some(path.to_path_buf()), line, 0, m))?;
    Ok((line, header))
}

/// The label or type a file name gives: the stem (without `.csv[.gz]`) after its last `-`.
pub fn name_from_file(path: &Path) -> String {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let lower = name.to_ascii_lowercase();
    let stem = if lower.ends_with(".csv.gz") {
        &name[..name.len() - 7]
    } else if lower.ends_with(".csv") {
        &name[..name.len() - 4]
    } else {
        name.rsplit_once('.').map_or(name.as_str(), |(s, _)| s)
    };
    stem.rsplit('-').next().unwrap_or(stem).to_owned()
}

/// The node key of `id` in ID space `space`: with [`IdType::Integer`] the id's decimal value.
fn key_of(
    space: &Option<String>,
    id: &str,
    id_type: IdType,
) -> std::result::Result<String, String> {
    let id = match id_type {
        IdType::String => std::borrow::Cow::Borrowed(id),
        IdType::Integer => std::borrow::Cow::Owned(integer_id(id)?.to_string()),
    };
    Ok(match space {
        Some(s) => format!("{s}:{id}"),
        None => id.into_owned(),
    })
}

/// An id read as an integer (`--id-type integer`).
fn integer_id(id: &str) -> std::result::Result<i64, String> {
    id.trim()
        .parse::<i64>()
        .map_err(|_| format!("id `{id}` is not an integer (--id-type integer)"))
}

/// Files that share one header: a plain input (its own header), or a `--nodes` /
/// `--relationships` group (the header from its first file).
struct Source {
    header: Header,
    /// Each file, and whether its first record is the header.
    files: Vec<(PathBuf, bool)>,
    /// The labels or type the group names; `None` for a plain input (labels and types then come
    /// from the file name when the header has no `:LABEL` / `:TYPE` column).
    names: Option<Vec<String>>,
}

/// The lower-cased endings of CSV file names: a directory's files with these are loaded.
pub const EXTENSIONS: &[&str] = &[".csv", ".csv.gz"];

/// Loads Neo4j-style CSV files and directories, and the groups of `options.neo4j`, into
/// `builder`.
pub fn load_into(
    builder: &mut ModelBuilder,
    paths: &[PathBuf],
    metamodel: Option<&Metamodel>,
    options: &LoadOptions,
    report: &mut LoadReport,
) -> Result<()> {
    let csv = &options.neo4j;
    verify_exports(paths)?;
    let files = super::expand::expand_paths_with(paths, EXTENSIONS)?;
    let mut nodes = Vec::new();
    let mut rels = Vec::new();
    for f in files {
        let (_, header) = read_header(&f, csv)?;
        let source = Source {
            header,
            files: vec![(f, true)],
            names: None,
        };
        if source.header.is_node_file {
            nodes.push(source);
        } else {
            rels.push(source);
        }
    }
    for g in &csv.groups {
        let first = &g.files[0];
        let (line, header) = read_header(first, csv)?;
        let (flag, expected) = match g.kind {
            GroupKind::Nodes => ("--nodes", "a node header (one `:ID` column)"),
            GroupKind::Relationships => (
                "--relationships",
                "a relationship header (`:START_ID` and `:END_ID` columns)",
            ),
        };
        if header.is_node_file != (g.kind == GroupKind::Nodes) {
            return Err(Error::parse(
                Some(first.clone()),
                line,
                0,
                format!("given with {flag}, but its first line is not {expected}"),
            ));
        }
        for f in &g.files[1..] {
            if !f.is_file() {
                return Err(Error::io(
                    f,
                    std::io::Error::new(std::io::ErrorKind::NotFound, "no such file"),
                ));
            }
        }
        let source = Source {
            header,
            files: g
                .files
                .iter()
                .enumerate()
                .map(|(i, f)| (f.clone(), i == 0))
                .collect(),
            names: Some(g.names.clone()),
        };
        match g.kind {
            GroupKind::Nodes => nodes.push(source),
            GroupKind::Relationships => rels.push(source),
        }
    }
    let mut state = CsvState {
        builder,
        metamodel,
        options,
        report,
        class_of: Vec::new(),
        defined: Vec::new(),
        opposites: Opposites::new(metamodel),
    };
    for source in &nodes {
        for (f, has_header) in &source.files {
            state.read_nodes(f, *has_header, source)?;
        }
    }
    for source in &rels {
        for (f, has_header) in &source.files {
            state.read_relationships(f, *has_header, source)?;
        }
    }
    let CsvState {
        builder, opposites, ..
    } = state;
    opposites.finish(builder)?;
    Ok(())
}

/// The most lines one record (a quoted field with line breaks) may span.
pub const MAX_RECORD_LINES: usize = 10_000;
/// The most bytes one record may hold.
pub const MAX_RECORD_BYTES: usize = 16 << 20;

/// Where the record parser is within a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum QuoteState {
    /// At the start of a field.
    FieldStart,
    /// In an unquoted field.
    Unquoted,
    /// In a quoted field.
    Quoted,
    /// Just after a quote inside a quoted field: the field's end, or half of `""`.
    QuoteInQuoted,
}

/// One record being parsed from one or more physical lines (the `csv` crate's rules, with the
/// delimiter and quote of [`CsvOptions`]: the delimiter separates, the quote quotes a field that
/// starts with it, a doubled quote inside is a quote, text after a closing quote is kept).
struct RecordParser {
    delimiter: u8,
    quote: u8,
    fields: Vec<Vec<u8>>,
    field: Vec<u8>,
    state: Option<QuoteState>,
    /// 1-based column (in bytes) of the quote that opened the current quoted field.
    quote_column: u64,
    /// Set when a quoted field that spanned lines closed where a field cannot end.
    bad_close: bool,
    lines: usize,
    bytes: usize,
}

impl RecordParser {
    fn new(options: &CsvOptions) -> Self {
        RecordParser {
            delimiter: options.delimiter,
            quote: options.quote,
            fields: Vec::new(),
            field: Vec::new(),
            state: None,
            quote_column: 0,
            bad_close: false,
            lines: 0,
            bytes: 0,
        }
    }

    fn clear(&mut self) {
        self.fields.clear();
        self.field.clear();
        self.state = None;
        self.quote_column = 0;
        self.bad_close = false;
        self.lines = 0;
        self.bytes = 0;
    }

    /// Feeds one physical line (its terminator included, if any); returns true while a quoted
    /// field is still open at its end.
    fn feed(&mut self, line: &[u8]) -> bool {
        let continued = self.lines > 0;
        self.lines += 1;
        self.bytes += line.len();
        let body = line
            .strip_suffix(b"\n")
            .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
            .or_else(|| line.strip_suffix(b"\r"));
        let mut state = self.state.unwrap_or(QuoteState::FieldStart);
        let (delimiter, quote) = (self.delimiter, self.quote);
        for (i, &b) in line.iter().enumerate() {
            let at_terminator = body.is_some_and(|body| i >= body.len());
            state = match state {
                QuoteState::FieldStart | QuoteState::Unquoted if at_terminator => break,
                QuoteState::FieldStart if b == quote => {
                    self.quote_column = i as u64 + 1;
                    QuoteState::Quoted
                }
                QuoteState::FieldStart | QuoteState::Unquoted if b == delimiter => {
                    self.fields.push(std::mem::take(&mut self.field));
                    QuoteState::FieldStart
                }
                QuoteState::FieldStart | QuoteState::Unquoted => {
                    self.field.push(b);
                    QuoteState::Unquoted
                }
                QuoteState::Quoted if b == quote => QuoteState::QuoteInQuoted,
                QuoteState::Quoted => {
                    self.field.push(b);
                    QuoteState::Quoted
                }
                QuoteState::QuoteInQuoted if b == quote => {
                    self.field.push(quote);
                    QuoteState::Quoted
                }
                QuoteState::QuoteInQuoted if at_terminator => break,
                QuoteState::QuoteInQuoted if b == delimiter => {
                    self.fields.push(std::mem::take(&mut self.field));
                    QuoteState::FieldStart
                }
                QuoteState::QuoteInQuoted => {
                    // Text after a closing quote: kept, as the csv crate does; but a field
                    // that spanned lines and closes here was most likely never meant to close.
                    self.bad_close |= continued;
                    self.field.push(b);
                    QuoteState::Unquoted
                }
            };
        }
        if state == QuoteState::Quoted {
            self.state = Some(state);
            return true;
        }
        self.state = None;
        false
    }

    /// Ends the record: its fields.
    fn finish(&mut self) -> Vec<Vec<u8>> {
        self.fields.push(std::mem::take(&mut self.field));
        std::mem::take(&mut self.fields)
    }
}

/// A physical line source with lines pushed back for a second reading.
struct Lines<R> {
    reader: R,
    /// The number of the next line read from `reader`.
    next: u64,
    back: std::collections::VecDeque<(u64, Vec<u8>)>,
    /// The rest of a chunk read up to `\n` after a bare carriage return (see `next_line`).
    rest: Vec<u8>,
}

impl<R: std::io::BufRead> Lines<R> {
    /// The lines of `reader`, a byte-order mark at its start dropped.
    fn start(reader: R, path: &Path) -> Result<Self> {
        let mut lines = Lines {
            reader,
            next: 1,
            back: Default::default(),
            rest: Vec::new(),
        };
        if let Some((no, mut first)) = lines.next_line(path)? {
            if first.starts_with("\u{feff}".as_bytes()) {
                first.drain(..3);
            }
            lines.back.push_front((no, first));
        }
        Ok(lines)
    }

    fn next_line(&mut self, path: &Path) -> Result<Option<(u64, Vec<u8>)>> {
        if let Some(l) = self.back.pop_front() {
            return Ok(Some(l));
        }
        let mut buf = std::mem::take(&mut self.rest);
        if buf.is_empty() {
            let n = self
                .reader
                .read_until(b'\n', &mut buf)
                .map_err(|e| super::input::read_error(path, e))?;
            if n == 0 {
                return Ok(None);
            }
        }
        // A carriage return not followed by a line feed ends a line too (classic Mac line
        // endings, which some spreadsheets still write): without this a CR-only file was one
        // line, its header swallowing the data ("unknown type `LABEL1`").
        let bare_cr =
            memchr::memchr_iter(b'\r', &buf).find(|&i| i + 1 < buf.len() && buf[i + 1] != b'\n');
        if let Some(i) = bare_cr {
            self.rest = buf.split_off(i + 1);
        }
        self.next += 1;
        Ok(Some((self.next - 1, buf)))
    }
}

/// What reading one record gave.
enum Record {
    /// The fields of a record starting at this line.
    Fields(u64, Vec<Vec<u8>>),
    /// A quote opened at (line, column) that does not close sensibly: that line is skipped.
    Unterminated(u64, u64),
}

/// Reads the next record (skipping blank lines); `columns` is the header's field count.
fn next_record<R: std::io::BufRead>(
    lines: &mut Lines<R>,
    parser: &mut RecordParser,
    columns: usize,
    path: &Path,
) -> Result<Option<Record>> {
    loop {
        let Some((start, first)) = lines.next_line(path)? else {
            return Ok(None);
        };
        if first.iter().all(|&b| b == b'\n' || b == b'\r') {
            continue;
        }
        parser.clear();
        if !parser.feed(&first) {
            return Ok(Some(Record::Fields(start, parser.finish())));
        }
        // A quoted field with a line break: read on until it closes, keeping the lines in
        // case it never does.
        let column = parser.quote_column;
        let mut taken: Vec<(u64, Vec<u8>)> = Vec::new();
        let closed = loop {
            if parser.lines >= MAX_RECORD_LINES || parser.bytes > MAX_RECORD_BYTES {
                break false;
            }
            let Some((no, line)) = lines.next_line(path)? else {
                break false;
            };
            let open = parser.feed(&line);
            taken.push((no, line));
            if !open {
                break true;
            }
        };
        let fields = if closed && !parser.bad_close {
            let f = parser.finish();
            (f.len() == columns).then_some(f)
        } else {
            None
        };
        if let Some(f) = fields {
            return Ok(Some(Record::Fields(start, f)));
        }
        for l in taken.into_iter().rev() {
            lines.back.push_front(l);
        }
        return Ok(Some(Record::Unterminated(start, column)));
    }
}

struct CsvState<'a> {
    builder: &'a mut ModelBuilder,
    metamodel: Option<&'a Metamodel>,
    options: &'a LoadOptions,
    report: &'a mut LoadReport,
    /// The class (first label) each node was defined with, for metamodel look-ups.
    class_of: Vec<Option<String>>,
    /// Whether a node file defined the node (to catch duplicate ids).
    defined: Vec<bool>,
    opposites: Opposites,
}

/// Converts a field to a value of `ty` (`None`: malformed).
fn typed(text: &str, ty: &ColType) -> Option<Value> {
    let t = text.trim();
    match ty {
        ColType::Int => t.parse().ok().map(Value::Int),
        ColType::Float => t.parse().ok().map(Value::Float),
        ColType::Bool => match t.to_ascii_lowercase().as_str() {
            "true" => Some(Value::Bool(true)),
            "false" => Some(Value::Bool(false)),
            _ => None,
        },
        ColType::Str => Some(Value::Str(text.to_owned())),
    }
}

/// An array field (items separated by `delimiter`) as JSON array text.
fn typed_array(text: &str, ty: &ColType, delimiter: char) -> Option<Value> {
    let mut items = Vec::new();
    for part in text.split(delimiter) {
        items.push(match typed(part, ty)? {
            Value::Int(i) => serde_json::Value::from(i),
            Value::Float(f) => serde_json::Value::from(f),
            Value::Bool(b) => serde_json::Value::from(b),
            Value::Str(s) => serde_json::Value::from(s),
            Value::Null => serde_json::Value::Null,
        });
    }
    Some(Value::Str(serde_json::Value::Array(items).to_string()))
}

impl CsvState<'_> {
    fn grow(&mut self) {
        let n = self.builder.node_count();
        if self.class_of.len() < n {
            self.class_of.resize(n, None);
            self.defined.resize(n, false);
        }
    }

    /// The value of property `name` of a node of `class` from `field`, typed by the column or
    /// else by the metamodel.
    fn value(
        &self,
        class: Option<&str>,
        name: &str,
        ty: &ColType,
        typed_col: bool,
        array: bool,
        field: &str,
    ) -> std::result::Result<Value, String> {
        if array {
            return typed_array(field, ty, self.options.neo4j.array_delimiter)
                .ok_or_else(|| format!("`{field}` is not an array of {ty:?}"));
        }
        if !typed_col {
            if let (Some(mm), Some(class)) = (self.metamodel, class) {
                if let Some(attr) = mm.attribute(class, name) {
                    return mm.convert(&attr.ty, field).ok_or_else(|| {
                        let t = match &attr.ty {
                            AttrType::Enum(e) => format!("literal of {e}"),
                            other => format!("{other:?}").to_lowercase(),
                        };
                        format!("`{field}` is not a valid {t} for `{name}`")
                    });
                }
            }
        }
        typed(field, ty).ok_or_else(|| {
            format!(
                "`{field}` is not a valid {} for `{name}`",
                format!("{ty:?}").to_lowercase()
            )
        })
    }

    /// Reads the node records of `path`, one file of `source` (`has_header`: its first record
    /// is the header).
    fn read_nodes(&mut self, path: &Path, has_header: bool, source: &Source) -> Result<()> {
        let header = &source.header;
        let id_type = self.options.neo4j.id_type;
        let array_delimiter = self.options.neo4j.array_delimiter;
        let file_label = name_from_file(path);
        let id_col = header
            .columns
            .iter()
            .position(|c| matches!(c, Column::Id(..)))
            .unwrap_or(0);
        let has_label_column = header.columns.contains(&Column::Label);
        let space = match &header.columns[id_col] {
            Column::Id(_, s) => s.clone(),
            _ => None,
        };
        self.each_record(path, header, has_header, |this, line, record| {
            let id = record.get(id_col).unwrap_or("");
            if id.is_empty() {
                return Ok(Err("empty id".into()));
            }
            let key = match key_of(&space, id, id_type) {
                Ok(k) => k,
                Err(m) => return Ok(Err(m)),
            };
            let mut labels: Vec<String> = Vec::new();
            for (c, field) in header.columns.iter().zip(record.iter()) {
                if *c == Column::Label {
                    labels.extend(
                        field
                            .split(array_delimiter)
                            .filter(|l| !l.is_empty())
                            .map(str::to_owned),
                    );
                }
            }
            match &source.names {
                Some(names) => {
                    for n in names {
                        if !labels.contains(n) {
                            labels.push(n.clone());
                        }
                    }
                }
                None if !has_label_column => labels.push(file_label.clone()),
                None => {}
            }
            let class = labels.first().cloned().unwrap_or_default();
            // Check every property before creating the node, so a bad row leaves no trace.
            let mut values: Vec<(String, Value)> = Vec::new();
            let mut bad = None;
            for (c, field) in header.columns.iter().zip(record.iter()) {
                let (name, ty, typed_col, array) = match c {
                    Column::Property {
                        name,
                        ty,
                        typed,
                        array,
                    } => (name.as_str(), ty, *typed, *array),
                    Column::Id(Some(name), _) if id_type == IdType::Integer => {
                        (name.as_str(), &ColType::Int, true, false)
                    }
                    Column::Id(Some(name), _) => (name.as_str(), &ColType::Str, false, false),
                    _ => continue,
                };
                if field.is_empty() {
                    continue;
                }
                match this.value(Some(&class), name, ty, typed_col, array, field) {
                    Ok(v) => values.push((name.to_owned(), v)),
                    Err(m) => {
                        bad = Some(m);
                        break;
                    }
                }
            }
            if let Some(m) = bad {
                return Ok(Err(m));
            }
            let (node, _) = this.builder.ensure_node(&key);
            this.grow();
            if this.defined[node as usize] {
                return Ok(Err(format!("duplicate node id `{id}`")));
            }
            this.defined[node as usize] = true;
            this.class_of[node as usize] = (!class.is_empty()).then(|| class.clone());
            let all_labels = match this.metamodel {
                Some(mm) => labels
                    .iter()
                    .flat_map(|l| mm.labels_of(l))
                    .collect::<Vec<_>>(),
                None => labels,
            };
            for l in &all_labels {
                let lid = this.builder.label(l);
                this.builder.add_label(node, lid);
            }
            for (name, v) in values {
                let k = this.builder.node_property(&name);
                this.builder
                    .set_node_property(node, k, v.as_ref())
                    .map_err(|e| Error::parse(Some(path.to_path_buf()), line, 0, e.to_string()))?;
            }
            Ok(Ok(()))
        })
    }

    /// Reads the relationship records of `path`, one file of `source`.
    fn read_relationships(&mut self, path: &Path, has_header: bool, source: &Source) -> Result<()> {
        let header = &source.header;
        let id_type = self.options.neo4j.id_type;
        // The type when the record has no `:TYPE`: the group's, else (plain inputs) the file
        // name's; none for a group that names no type.
        let default_type = match &source.names {
            Some(names) => names.first().cloned().unwrap_or_default(),
            None => name_from_file(path),
        };
        let mut start = (0, None);
        let mut end = (0, None);
        for (i, c) in header.columns.iter().enumerate() {
            match c {
                Column::Start(s) => start = (i, s.clone()),
                Column::End(s) => end = (i, s.clone()),
                _ => {}
            }
        }
        self.each_record(path, header, has_header, |this, line, record| {
            let (s, e) = (
                record.get(start.0).unwrap_or(""),
                record.get(end.0).unwrap_or(""),
            );
            if s.is_empty() || e.is_empty() {
                return Ok(Err("empty start or end id".into()));
            }
            let mut ty_name = default_type.clone();
            let mut values: Vec<(String, Value)> = Vec::new();
            let mut bad = None;
            for (c, field) in header.columns.iter().zip(record.iter()) {
                match c {
                    Column::Type if !field.is_empty() => ty_name = field.to_owned(),
                    Column::Property {
                        name,
                        ty,
                        typed: t,
                        array,
                    } if !field.is_empty() => match this.value(None, name, ty, *t, *array, field) {
                        Ok(v) => values.push((name.clone(), v)),
                        Err(m) => {
                            bad = Some(m);
                            break;
                        }
                    },
                    _ => {}
                }
            }
            if let Some(m) = bad {
                return Ok(Err(m));
            }
            if ty_name.is_empty() {
                return Ok(Err(
                    "no relationship type: give one as --relationships=TYPE=FILE or in a \
                     `:TYPE` column"
                        .into(),
                ));
            }
            let keys =
                key_of(&start.1, s, id_type).and_then(|a| Ok((a, key_of(&end.1, e, id_type)?)));
            let (src_key, dst_key) = match keys {
                Ok(k) => k,
                Err(m) => return Ok(Err(m)),
            };
            if this.options.strict {
                for (key, column) in [(&src_key, ":START_ID"), (&dst_key, ":END_ID")] {
                    if this.builder.node_id(key).is_none() {
                        return Ok(Err(format!(
                            "dangling reference: {column} `{key}` is not defined by a node file"
                        )));
                    }
                }
            }
            let (src, src_new) = this.builder.ensure_node(&src_key);
            let (dst, dst_new) = this.builder.ensure_node(&dst_key);
            this.report.dangling_nodes += u64::from(src_new) + u64::from(dst_new);
            this.grow();
            let ty = this.builder.rel_type(&ty_name);
            let edge = this.builder.add_edge(src, dst, ty)?;
            for (name, v) in values {
                let k = this.builder.edge_property(&name);
                this.builder
                    .set_edge_property(edge, k, v.as_ref())
                    .map_err(|e| Error::parse(Some(path.to_path_buf()), line, 0, e.to_string()))?;
            }
            let opposite = this
                .metamodel
                .and_then(|mm| mm.opposite(this.class_of[src as usize].as_deref(), &ty_name));
            this.opposites
                .record(this.builder, (src, &ty_name, ty, dst), opposite);
            Ok(Ok(()))
        })
    }

    /// Reads the data records of `path` (with `has_header`, its first record is the header,
    /// already parsed into `header`; else every record is data) and hands each one with its line
    /// number to `row`. A record with the wrong number of fields, or one that `row` calls
    /// malformed (`Ok(Err(reason))`), is reported with its line and skipped; a loaded one is
    /// counted.
    fn each_record(
        &mut self,
        path: &Path,
        header: &Header,
        has_header: bool,
        mut row: impl FnMut(&mut Self, u64, &csv::StringRecord) -> Result<RowOutcome>,
    ) -> Result<()> {
        let input = super::input::open(path)?;
        let file = self.report.begin_file(path, input.size);
        let mut lines = Lines::start(input.reader, path)?;
        let mut parser = RecordParser::new(&self.options.neo4j);
        let mut record = csv::StringRecord::new();
        let columns = header.columns.len();
        if has_header {
            // The header, already parsed.
            next_record(&mut lines, &mut parser, columns, path)?;
        }
        while let Some(r) = next_record(&mut lines, &mut parser, columns, path)? {
            let (line, fields) = match r {
                Record::Fields(line, fields) => (line, fields),
                Record::Unterminated(line, column) => {
                    self.report.bad_row(
                        self.options,
                        file,
                        line,
                        format!(
                            "the quote at column {column} never closes (skipped this line; \
                             reading goes on at the next one)"
                        ),
                    )?;
                    continue;
                }
            };
            record.clear();
            let mut utf8 = Ok(());
            for f in &fields {
                match std::str::from_utf8(f) {
                    Ok(t) => record.push_field(t),
                    Err(e) => {
                        utf8 = Err(format!("invalid UTF-8 in field {}: {e}", record.len() + 1));
                        break;
                    }
                }
            }
            let outcome = if let Err(m) = utf8 {
                Err(m)
            } else if record.len() != columns {
                Err(format!(
                    "{} fields, the header has {}",
                    record.len(),
                    columns
                ))
            } else {
                row(self, line, &record)?
            };
            match outcome {
                Ok(()) => self.report.files[file].rows += 1,
                Err(reason) => self.report.bad_row(self.options, file, line, reason)?,
            }
        }
        Ok(())
    }
}

/// What a row handler says of one record: loaded, or malformed for the reason given.
type RowOutcome = std::result::Result<(), String>;

/// A file-name-safe version of a label or type.
fn file_part(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

fn header_type(t: crate::model::PropType) -> &'static str {
    match t {
        crate::model::PropType::Int => "LONG",
        crate::model::PropType::Float => "DOUBLE",
        crate::model::PropType::Bool => "BOOLEAN",
        crate::model::PropType::Str => "STRING",
    }
}

fn field(v: crate::model::ValueRef<'_>) -> String {
    match v {
        crate::model::ValueRef::Null => String::new(),
        other => other.to_string(),
    }
}

/// Writes `model` as Neo4j-style CSV into directory `dir`: one node file per primary label
/// (`nodes-<n>-<Label>.csv`: `:ID`, `:LABEL` and typed property columns), one relationship file
/// per type (`rels-<n>-<TYPE>.csv`: `:START_ID`, `:END_ID`, `:TYPE` and typed property columns)
/// and the manifest [`export_manifest::MANIFEST_NAME`] (rows, sizes and checksums of the
/// files). Node ids are the model's keys; reading the directory back gives the same graph (an
/// empty string property reads back as no value). Returns the data files written (not the
/// manifest). An earlier export in `dir` is replaced: [`write_dir_with`] with
/// [`crate::util::safe_write::WriteOptions::REPLACE`].
pub fn write_dir(model: &crate::model::Model, dir: &Path) -> Result<Vec<PathBuf>> {
    write_dir_with(model, dir, &crate::util::safe_write::WriteOptions::REPLACE)
}

/// True when `name` is a file name [`write_dir`] writes: `nodes-<n>-<part>.csv` or
/// `rels-<n>-<part>.csv`, `<n>` decimal digits and `<part>` letters, digits and `_`.
pub fn is_export_file_name(name: &str) -> bool {
    let Some(rest) = name
        .strip_prefix("nodes-")
        .or_else(|| name.strip_prefix("rels-"))
        .and_then(|r| r.strip_suffix(".csv"))
    else {
        return false;
    };
    let Some((n, part)) = rest.split_once('-') else {
        return false;
    };
    !n.is_empty()
        && n.bytes().all(|b| b.is_ascii_digit())
        && part.chars().all(|c| c.is_alphanumeric() || c == '_')
}

/// What an export directory's write owns: its data files and its manifest.
fn owned_by_export(name: &str) -> bool {
    is_export_file_name(name) || name == export_manifest::MANIFEST_NAME
}

/// True when `name` is a file the loader reads from a directory (`.csv`, `.csv.gz`).
fn is_data_file_name(name: &str) -> bool {
    let lower = name.to_lowercase();
    EXTENSIONS.iter().any(|e| lower.ends_with(e))
}

/// Checks every directory among `paths` that holds an export manifest against it
/// ([`export_manifest::verify`]): a mixed or incomplete export is an error naming the file.
pub fn verify_exports(paths: &[PathBuf]) -> Result<()> {
    for p in paths.iter().filter(|p| p.is_dir()) {
        if let Some(m) = export_manifest::verify(p, is_data_file_name)? {
            log::debug!(
                "{}: a complete export ({} files, {} nodes, {} edges)",
                p.display(),
                m.files.len(),
                m.nodes,
                m.edges
            );
        }
    }
    Ok(())
}

/// [`write_dir`], the directory written as a whole through [`crate::util::safe_dir`] with
/// `options`: into a temporary directory beside `dir`, each file synced, the manifest last, then
/// swapped into place, so that `dir` holds either the complete earlier export or the complete
/// new one at every moment (a crash, a kill, a full disk included); see that module for the exact
/// sequence. Without `force` an earlier export in `dir` (any file named like an export's, or a
/// manifest) is refused before anything is written.
///
/// The directory then holds exactly this export: the files of an earlier export that this one
/// does not write (a label or relationship type the model no longer has) are gone, so reading
/// the directory back never brings back deleted elements. The user's other files in `dir` are
/// carried over (the same files, hard-linked); a subdirectory in `dir` is refused.
pub fn write_dir_with(
    model: &crate::model::Model,
    dir: &Path,
    options: &crate::util::safe_write::WriteOptions,
) -> Result<Vec<PathBuf>> {
    use crate::util::safe_dir::{DirFile, SafeDir};
    use export_manifest::{FileKind, Manifest, ManifestFile};
    let out = SafeDir::create(dir, options, owned_by_export)?;
    let node_name = |gi: usize, g: &crate::model::PropertyGroup| {
        let label = model.labels().name(g.label).unwrap_or("nolabel");
        format!("nodes-{gi}-{}.csv", file_part(label))
    };
    let rel_name = |ti: usize, ty: &str| format!("rels-{ti}-{}.csv", file_part(ty));
    let mut files = Vec::new();
    let csv_err = |p: &Path, e: csv::Error| match e.into_kind() {
        csv::ErrorKind::Io(e) => Error::io(p, e),
        other => Error::BadFile {
            path: p.to_path_buf(),
            message: format!("writing CSV: {other:?}"),
        },
    };
    let finish = |w: csv::Writer<DirFile>, name: String, kind: FileKind, rows: u64| {
        let file = w.into_inner().map_err(|e| {
            let error = e.error();
            let error = std::io::Error::new(error.kind(), error.to_string());
            Error::io(e.into_inner().get_ref().path(), error)
        })?;
        let (bytes, sum) = file.finish()?;
        Ok::<_, Error>(ManifestFile {
            name,
            kind,
            rows,
            bytes,
            xxh3: export_manifest::hex(sum),
        })
    };
    for (gi, g) in model.groups().iter().enumerate() {
        let name = node_name(gi, g);
        let path = out.final_path(&name);
        let mut w = csv::Writer::from_writer(out.create_file(&name)?);
        let mut header = vec![":ID".to_owned(), ":LABEL".to_owned()];
        header.extend(
            g.columns
                .iter()
                .map(|c| format!("{}:{}", c.name, header_type(c.prop_type()))),
        );
        w.write_record(&header).map_err(|e| csv_err(&path, e))?;
        for n in g.start..g.end {
            let labels = crate::io::json_graph::label_names(model, n);
            let mut row = vec![model.node_key(n).unwrap_or("").to_owned(), labels.join(";")];
            row.extend(
                g.columns
                    .iter()
                    .map(|c| field(c.get((n - g.start) as usize))),
            );
            w.write_record(&row).map_err(|e| csv_err(&path, e))?;
        }
        let rows = u64::from(g.end - g.start);
        files.push(finish(w, name, FileKind::Nodes, rows)?);
    }
    let adj = model.out();
    for (ti, ty) in model.rel_types().names().iter().enumerate() {
        let ti = ti as u32;
        if model.type_count(ti) == 0 {
            continue;
        }
        let edges: Vec<(u32, usize)> = (0..model.node_count() as u32)
            .flat_map(|s| adj.range_of_type(s, ti).map(move |e| (s, e)))
            .collect();
        let columns: Vec<&crate::model::Column> = model
            .edge_columns()
            .iter()
            .filter(|c| edges.iter().any(|&(_, e)| c.is_valid(e)))
            .collect();
        let name = rel_name(ti as usize, ty);
        let path = out.final_path(&name);
        let mut w = csv::Writer::from_writer(out.create_file(&name)?);
        let mut header = vec![
            ":START_ID".to_owned(),
            ":END_ID".to_owned(),
            ":TYPE".to_owned(),
        ];
        header.extend(
            columns
                .iter()
                .map(|c| format!("{}:{}", c.name, header_type(c.prop_type()))),
        );
        w.write_record(&header).map_err(|e| csv_err(&path, e))?;
        for &(s, e) in &edges {
            let mut row = vec![
                model.node_key(s).unwrap_or("").to_owned(),
                model.node_key(adj.neighbors[e]).unwrap_or("").to_owned(),
                ty.clone(),
            ];
            row.extend(columns.iter().map(|c| field(c.get(e))));
            w.write_record(&row).map_err(|e| csv_err(&path, e))?;
        }
        files.push(finish(
            w,
            name,
            FileKind::Relationships,
            edges.len() as u64,
        )?);
    }
    let manifest = Manifest::new("neo4j-csv", files);
    let written: Vec<PathBuf> = manifest
        .files
        .iter()
        .map(|f| out.final_path(&f.name))
        .collect();
    out.commit((export_manifest::MANIFEST_NAME, &manifest.to_json()))?;
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_columns() {
        assert_eq!(
            parse_column("id:ID"),
            Ok(Column::Id(Some("id".into()), None))
        );
        assert_eq!(
            parse_column(":ID(Person)"),
            Ok(Column::Id(None, Some("Person".into())))
        );
        assert_eq!(
            parse_column(":START_ID(Person)"),
            Ok(Column::Start(Some("Person".into())))
        );
        assert_eq!(parse_column("id:END_ID"), Ok(Column::End(None)));
        assert_eq!(parse_column(":LABEL"), Ok(Column::Label));
        assert_eq!(
            parse_column("length:INT"),
            Ok(Column::Property {
                name: "length".into(),
                ty: ColType::Int,
                typed: true,
                array: false
            })
        );
        assert_eq!(
            parse_column("tags:string[]"),
            Ok(Column::Property {
                name: "tags".into(),
                ty: ColType::Str,
                typed: true,
                array: true
            })
        );
        assert!(parse_column("x:FOO").unwrap_err().contains("unknown type"));
        assert_eq!(
            name_from_file(Path::new("d/railway-inject-1-Segment.csv")),
            "Segment"
        );
        assert_eq!(name_from_file(Path::new("ACTED_IN.csv.gz")), "ACTED_IN");
        assert_eq!(
            typed_array("1;2;3", &ColType::Int, ';'),
            Some(Value::Str("[1,2,3]".into()))
        );
        assert_eq!(
            typed_array("1|2", &ColType::Int, '|'),
            Some(Value::Str("[1,2]".into()))
        );
        // neo4j-admin's column options are dropped; temporal types are strings.
        assert_eq!(
            parse_column("at:datetime{timezone:Europe/Stockholm}"),
            Ok(Column::Property {
                name: "at".into(),
                ty: ColType::Str,
                typed: true,
                array: false
            })
        );
        for t in [
            "date",
            "localdatetime",
            "time",
            "duration",
            "LocalTime",
            "point",
        ] {
            assert!(
                matches!(
                    parse_column(&format!("x:{t}")),
                    Ok(Column::Property {
                        ty: ColType::Str,
                        ..
                    })
                ),
                "{t}"
            );
        }
    }

    #[test]
    fn admin_options() {
        assert_eq!(parse_delimiter("|"), Ok(b'|'));
        assert_eq!(parse_delimiter("TAB"), Ok(b'\t'));
        assert_eq!(parse_delimiter("\\t"), Ok(b'\t'));
        assert_eq!(parse_delimiter("\t"), Ok(b'\t'));
        assert!(parse_delimiter("||").is_err());
        assert!(parse_delimiter("é").is_err());
        assert!(parse_delimiter("\n").is_err());
        assert_eq!(parse_array_delimiter("é"), Ok('é'));
        assert_eq!(
            InputGroup::parse(GroupKind::Nodes, "Person:Admin=h.csv,a.csv"),
            Ok(InputGroup {
                kind: GroupKind::Nodes,
                names: vec!["Person".into(), "Admin".into()],
                files: vec!["h.csv".into(), "a.csv".into()],
            })
        );
        assert_eq!(
            InputGroup::parse(GroupKind::Relationships, "r.csv").map(|g| g.names),
            Ok(vec![])
        );
        assert!(InputGroup::parse(GroupKind::Relationships, "A:B=r.csv")
            .unwrap_err()
            .contains("one type"));
        assert!(InputGroup::parse(GroupKind::Nodes, "Person=").is_err());
        assert_eq!(key_of(&None, "007", IdType::String), Ok("007".into()));
        assert_eq!(key_of(&None, " 007", IdType::Integer), Ok("7".into()));
        assert_eq!(
            key_of(&Some("P".into()), "+7", IdType::Integer),
            Ok("P:7".into())
        );
        assert!(key_of(&None, "7a", IdType::Integer).is_err());
    }
}
