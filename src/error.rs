//! Library error type. Every fallible operation in the library returns [`Result`]; nothing panics on
//! bad input.

use std::path::PathBuf;

/// Where in an input file something went wrong (1-based line and column; column 0 = unknown).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// The file, when the input came from one.
    pub file: Option<PathBuf>,
    /// 1-based line number.
    pub line: u64,
    /// 1-based column, 0 when unknown.
    pub column: u64,
}

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(file) = &self.file {
            write!(f, "{}:", file.display())?;
        }
        write!(f, "{}", self.line)?;
        if self.column > 0 {
            write!(f, ":{}", self.column)?;
        }
        Ok(())
    }
}

/// Everything that can go wrong in gemp.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An I/O error on a named file.
    #[error("{path}: {source}")]
    Io {
        /// The file involved.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// Malformed input data at a location.
    #[error("{location}: {message}")]
    Parse {
        /// Where.
        location: Location,
        /// What.
        message: String,
    },
    /// An input file that cannot be used at all (wrong header, unknown format, empty when it must not be).
    #[error("{path}: {message}")]
    BadFile {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        message: String,
    },
    /// A snapshot file that is truncated, corrupted or of another version.
    #[error("snapshot {path}: {message}")]
    Snapshot {
        /// The snapshot file.
        path: PathBuf,
        /// What is wrong with it.
        message: String,
    },
    /// A graph that breaks the model's invariants or limits (too many nodes, conflicting property types…).
    #[error("model: {0}")]
    Model(String),
    /// A query that does not parse, does not fit the model, or fails while it runs; with its
    /// openCypher error class when gemp knows it ([`Error::cypher_class`]).
    #[error("{0}")]
    Query(QueryMessage),
    /// A query the OpenCL matcher cannot take (pattern larger than the kernel's fixed limits,
    /// buffers over 4 G entries): a valid query, which the host runs (`--backend auto` falls back
    /// to it with a log line).
    #[error("{0}")]
    DeviceLimit(String),
    /// An OpenCL failure (no platform, kernel build error with its log, enqueue failure…).
    #[error("OpenCL: {0}")]
    OpenCl(String),
    /// A write refused to protect what is at its target: something that is not a regular file, or
    /// an existing file without `force` (see [`crate::util::safe_write`]).
    #[error("{path}: {message}")]
    Refused {
        /// The path named by the caller.
        path: PathBuf,
        /// What is there and why it was not replaced.
        message: String,
    },
    /// The heap in use passed `--memory-limit` while a query ran (see [`crate::util::memory`]).
    #[error(
        "memory limit of {} reached in {stage}; raise --memory-limit, or narrow the query \
         (a LIMIT, fewer grouping keys or DISTINCT columns)",
        human_bytes(*limit)
    )]
    MemoryLimit {
        /// The stage that found the limit passed (e.g. "the result stage's grouping state").
        stage: String,
        /// The limit in bytes.
        limit: u64,
    },
    /// The time limit (`--timeout`) ran out before there was a result to report as partial: while
    /// a query was parsed, bound or planned, or while a transform ran (which then changes
    /// nothing).
    #[error("timed out after {limit:?} while {stage}")]
    Timeout {
        /// What was running (e.g. "planning the query", "running statement 2 (line 3); the
        /// model is unchanged").
        stage: String,
        /// The time limit.
        limit: std::time::Duration,
    },
    /// A caller passed an argument that is out of range or inconsistent.
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// A distributed run failed: a process that died or cannot be reached, a partition set that
    /// does not match, a query the distributed plan cannot run.
    #[error("cluster: {0}")]
    Cluster(String),
}

/// The openCypher error classes, as the TCK names them (`SyntaxError`, `TypeError`, …): what kind
/// of mistake a query error is in Cypher's terms. A refusal of something gemp does not support has
/// no class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CypherClass {
    /// The query is malformed, or names something wrongly (an undefined variable, a wrong number
    /// of arguments): found before it runs.
    SyntaxError,
    /// Meaningless in context (e.g. a `MERGE` reading its own writes).
    SemanticError,
    /// A value of the wrong type (at compile time or while running).
    TypeError,
    /// An argument out of a function's domain.
    ArgumentError,
    /// Integer overflow, integer division by zero.
    ArithmeticError,
    /// A graph constraint broken by a change (deleting a node that keeps relationships).
    ConstraintVerificationFailed,
    /// A deleted node or relationship used.
    EntityNotFound,
    /// A parameter without a value.
    ParameterMissing,
    /// An unknown procedure or a bad procedure call.
    ProcedureError,
}

impl CypherClass {
    /// The class's name as openCypher writes it.
    pub fn name(self) -> &'static str {
        match self {
            CypherClass::SyntaxError => "SyntaxError",
            CypherClass::SemanticError => "SemanticError",
            CypherClass::TypeError => "TypeError",
            CypherClass::ArgumentError => "ArgumentError",
            CypherClass::ArithmeticError => "ArithmeticError",
            CypherClass::ConstraintVerificationFailed => "ConstraintVerificationFailed",
            CypherClass::EntityNotFound => "EntityNotFound",
            CypherClass::ParameterMissing => "ParameterMissing",
            CypherClass::ProcedureError => "ProcedureError",
        }
    }
}

impl std::fmt::Display for CypherClass {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The text of an [`Error::Query`] (the report shown to users), its openCypher class when gemp
/// knows it, and where in the query it is when known. Reads as the text (`Deref<Target = str>`,
/// `Display`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryMessage {
    /// The message (for parse and binding errors, the rendered report with the source line).
    pub text: String,
    /// The openCypher class; `None` for refusals of unsupported constructs and engine limits.
    pub class: Option<CypherClass>,
    /// Where in the query (its file when read from one; 1-based line and column, the column
    /// counting characters); `None` when unknown (most errors found while a query runs).
    pub location: Option<Location>,
}

impl QueryMessage {
    /// A message with a class.
    pub fn classed(text: impl Into<String>, class: Option<CypherClass>) -> Self {
        QueryMessage {
            text: text.into(),
            class,
            location: None,
        }
    }

    /// The same message at `location`.
    pub fn at(mut self, location: Option<Location>) -> Self {
        self.location = location;
        self
    }
}

/// What kind of thing went wrong ([`Error::kind`]): one value per [`Error`] variant, for callers
/// that branch on it (an embedding's exception classes, exit codes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// An I/O error on a named file ([`Error::Io`]).
    Io,
    /// Malformed input data at a location ([`Error::Parse`]).
    Parse,
    /// An input file that cannot be used at all ([`Error::BadFile`]).
    File,
    /// A truncated, corrupted or other-version snapshot ([`Error::Snapshot`]).
    Snapshot,
    /// A graph beyond the model's invariants or limits ([`Error::Model`]).
    Model,
    /// A query that does not parse, does not fit the model, or fails while running
    /// ([`Error::Query`]).
    Query,
    /// A query beyond the OpenCL matcher's limits ([`Error::DeviceLimit`]).
    DeviceLimit,
    /// An OpenCL failure ([`Error::OpenCl`]).
    Device,
    /// A write refused to protect its target ([`Error::Refused`]).
    Refused,
    /// The memory limit was reached ([`Error::MemoryLimit`]).
    Memory,
    /// A caller's argument out of range or inconsistent ([`Error::InvalidArgument`]).
    InvalidArgument,
    /// The time limit ran out before there was a result ([`Error::Timeout`]).
    Timeout,
    /// A distributed run failed ([`Error::Cluster`]).
    Cluster,
}

impl ErrorKind {
    /// A short lowercase name (`io`, `parse`, `query`, …), as the Python package spells it.
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::Io => "io",
            ErrorKind::Parse => "parse",
            ErrorKind::File => "file",
            ErrorKind::Snapshot => "snapshot",
            ErrorKind::Model => "model",
            ErrorKind::Query => "query",
            ErrorKind::DeviceLimit => "device_limit",
            ErrorKind::Device => "device",
            ErrorKind::Refused => "refused",
            ErrorKind::Memory => "memory",
            ErrorKind::InvalidArgument => "invalid_argument",
            ErrorKind::Timeout => "timeout",
            ErrorKind::Cluster => "cluster",
        }
    }
}

impl std::fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::fmt::Display for QueryMessage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

impl std::ops::Deref for QueryMessage {
    type Target = str;
    fn deref(&self) -> &str {
        &self.text
    }
}

impl From<String> for QueryMessage {
    /// An unclassified message.
    fn from(text: String) -> Self {
        QueryMessage {
            text,
            class: None,
            location: None,
        }
    }
}

impl From<&str> for QueryMessage {
    /// An unclassified message.
    fn from(text: &str) -> Self {
        QueryMessage {
            text: text.to_string(),
            class: None,
            location: None,
        }
    }
}

impl Error {
    /// What kind of error this is.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::Io { .. } => ErrorKind::Io,
            Error::Parse { .. } => ErrorKind::Parse,
            Error::BadFile { .. } => ErrorKind::File,
            Error::Snapshot { .. } => ErrorKind::Snapshot,
            Error::Model(_) => ErrorKind::Model,
            Error::Query(_) => ErrorKind::Query,
            Error::DeviceLimit(_) => ErrorKind::DeviceLimit,
            Error::OpenCl(_) => ErrorKind::Device,
            Error::Refused { .. } => ErrorKind::Refused,
            Error::MemoryLimit { .. } => ErrorKind::Memory,
            Error::InvalidArgument(_) => ErrorKind::InvalidArgument,
            Error::Timeout { .. } => ErrorKind::Timeout,
            Error::Cluster(_) => ErrorKind::Cluster,
        }
    }

    /// Where the error is, when it knows: the file (when the input came from one), 1-based line
    /// and column (column 0: unknown) — for malformed input data ([`Error::Parse`]) and query
    /// errors found while parsing or binding ([`Error::Query`]).
    pub fn position(&self) -> Option<&Location> {
        match self {
            Error::Parse { location, .. } => Some(location),
            Error::Query(m) => m.location.as_ref(),
            _ => None,
        }
    }

    /// The file the error concerns, when it names one (the input of a parse or query error,
    /// the path of a file error).
    pub fn file(&self) -> Option<&std::path::Path> {
        match self {
            Error::Io { path, .. }
            | Error::BadFile { path, .. }
            | Error::Snapshot { path, .. }
            | Error::Refused { path, .. } => Some(path),
            _ => self.position().and_then(|l| l.file.as_deref()),
        }
    }

    /// The openCypher class of a query error (`SyntaxError`, `TypeError`, …), when gemp knows
    /// it; `None` for every other error and for refusals of unsupported constructs.
    pub fn cypher_class(&self) -> Option<CypherClass> {
        match self {
            Error::Query(m) => m.class,
            _ => None,
        }
    }

    /// Wraps an I/O error with the path it concerns.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }

    /// A parse error at `file:line[:column]`.
    pub fn parse(
        file: Option<PathBuf>,
        line: u64,
        column: u64,
        message: impl Into<String>,
    ) -> Self {
        Error::Parse {
            location: Location { file, line, column },
            message: message.into(),
        }
    }
}

/// Result alias used across the library.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// A byte count for people, as messages print it (here so that errors need nothing above them;
/// [`crate::util::human_bytes`] is the same function): `512 B`, `12.5 KiB`, `1.2 GiB`.
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}
