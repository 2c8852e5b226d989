//! gemp's errors as the Python exceptions of `gemp/errors.py` (`gemp.Error` and its subclasses),
//! with their structure as attributes: a query error's line, column, kind and hint, a parse
//! error's file, line and column, a file error's path.

use gemp::api::QueryError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use pyo3::IntoPyObjectExt;

/// An instance of `gemp.errors.<class>(text, **attributes)` as a `PyErr`.
fn raise(py: Python<'_>, class: &str, text: &str, attributes: &[(&str, PyObject)]) -> PyErr {
    let build = || -> PyResult<PyErr> {
        let module = py.import("gemp.errors")?;
        let kwargs = PyDict::new(py);
        for (k, v) in attributes {
            kwargs.set_item(*k, v)?;
        }
        let exc = module.getattr(class)?.call((text,), Some(&kwargs))?;
        Ok(PyErr::from_value(exc))
    };
    build().unwrap_or_else(|e| e)
}

fn obj<'py, T: IntoPyObject<'py>>(py: Python<'py>, v: T) -> PyObject {
    v.into_py_any(py).unwrap_or_else(|_| py.None())
}

/// A gemp error as its Python exception.
pub fn to_py(py: Python<'_>, e: gemp::Error) -> PyErr {
    use gemp::Error as E;
    let text = e.to_string();
    let kind = obj(py, e.kind().name());
    match e {
        E::Query(report) => {
            let (message, read) = read_report(&report);
            // The library's position when it kept one, else what the report shows.
            let position = report
                .location
                .as_ref()
                .map(|l| (l.line, l.column))
                .or(read);
            let file = report
                .location
                .as_ref()
                .and_then(|l| l.file.as_ref())
                .map(|f| f.display().to_string());
            raise(
                py,
                "QueryError",
                &text,
                &[
                    ("message", obj(py, message)),
                    ("file", obj(py, file)),
                    ("line", obj(py, position.map(|p| p.0))),
                    ("column", obj(py, position.map(|p| p.1))),
                ],
            )
        }
        E::Parse { location, message } => raise(
            py,
            "ParseError",
            &text,
            &[
                (
                    "file",
                    obj(py, location.file.map(|f| f.display().to_string())),
                ),
                ("line", obj(py, location.line)),
                (
                    "column",
                    obj(py, (location.column > 0).then_some(location.column)),
                ),
                ("message", obj(py, message)),
                ("kind", kind),
            ],
        ),
        E::Io { path, .. }
        | E::BadFile { path, .. }
        | E::Snapshot { path, .. }
        | E::Refused { path, .. } => raise(
            py,
            "FileError",
            &text,
            &[
                ("path", obj(py, path.display().to_string())),
                ("kind", kind),
            ],
        ),
        E::OpenCl(_) | E::DeviceLimit(_) => raise(py, "DeviceError", &text, &[("kind", kind)]),
        E::MemoryLimit { .. } => raise(py, "MemoryLimitError", &text, &[("kind", kind)]),
        E::InvalidArgument(_) => raise(py, "InvalidArgumentError", &text, &[("kind", kind)]),
        _ => raise(py, "Error", &text, &[("kind", kind)]),
    }
}

/// The message and position of a query error the library rendered to text (errors found while
/// a query or rule runs: `gemp::Error::Query` holds the report, not its parts). The report is
/// rustc style: `error: <message>` then ` --> [file:]line:column`; a one-line summary reads
/// `line L, column C: <message>`. Anything else is the message, without a position.
fn read_report(report: &str) -> (String, Option<(u64, u64)>) {
    let mut lines = report.lines();
    let first = lines.next().unwrap_or("");
    if let Some(message) = first.strip_prefix("error: ") {
        let position = lines.next().and_then(|l| {
            let at = l.trim_start().strip_prefix("--> ")?;
            let mut parts = at.rsplitn(3, ':');
            let column = parts.next()?.parse().ok()?;
            let line = parts.next()?.parse().ok()?;
            Some((line, column))
        });
        return (message.to_owned(), position);
    }
    if let Some(rest) = first.strip_prefix("line ") {
        let summary = rest.split_once(", column ").and_then(|(l, rest)| {
            let (c, message) = rest.split_once(": ")?;
            Some((message.to_owned(), (l.parse().ok()?, c.parse().ok()?)))
        });
        if let Some((message, position)) = summary {
            return (message, Some(position));
        }
    }
    (report.to_owned(), None)
}

/// A query error with its position: `str()` is the rendered report (the source line with a
/// caret), the attributes its parts.
pub fn query_to_py(py: Python<'_>, e: &QueryError, source: &str) -> PyErr {
    let kind = match e.kind {
        gemp::api::embedding::QueryErrorKind::Syntax => "syntax",
        gemp::api::embedding::QueryErrorKind::Unsupported => "unsupported",
        gemp::api::embedding::QueryErrorKind::Semantic => "semantic",
    };
    raise(
        py,
        "QueryError",
        &e.render(source, None),
        &[
            ("message", obj(py, e.message.clone())),
            ("line", obj(py, e.span.map(|s| s.line))),
            ("column", obj(py, e.span.map(|s| s.column))),
            ("kind", obj(py, kind)),
            ("help", obj(py, e.help.clone())),
        ],
    )
}

/// A failure inside the package itself.
pub fn internal(what: &str) -> PyErr {
    Python::with_gil(|py| raise(py, "Error", &format!("internal error: {what}"), &[]))
}

/// `gemp.InvalidArgumentError` (also a `ValueError`).
pub fn invalid(py: Python<'_>, what: &str) -> PyErr {
    raise(py, "InvalidArgumentError", what, &[])
}

#[cfg(test)]
mod tests {
    #[test]
    fn reads_the_position_of_a_rendered_report() {
        let report = "error: integer division by zero\n --> rules.cypher:2:31\n  |\n2 | x\n";
        assert_eq!(
            super::read_report(report),
            ("integer division by zero".into(), Some((2, 31)))
        );
        assert_eq!(
            super::read_report("line 3, column 7: unknown label `X`"),
            ("unknown label `X`".into(), Some((3, 7)))
        );
        assert_eq!(
            super::read_report("no position"),
            ("no position".into(), None)
        );
    }
}
