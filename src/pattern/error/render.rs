//! The multi-line, rustc-style report of a [`QueryError`] with the offending source line and a caret.

use super::QueryError;

/// Width of a tab in the displayed source line.
const TAB_WIDTH: usize = 4;

/// Display width of `c` in the snippet (tabs are expanded).
fn width(c: char) -> usize {
    if c == '\t' {
        TAB_WIDTH
    } else {
        1
    }
}

/// See [`QueryError::render`]. The result has no trailing newline.
pub(super) fn render(err: &QueryError, source: &str, file_name: Option<&str>) -> String {
    let mut lines = vec![format!("error: {}", err.message)];
    let Some(span) = err.span else {
        if let Some(help) = &err.help {
            lines.push(format!("help: {help}"));
        }
        return lines.join("\n");
    };

    let line_no = span.line.max(1);
    let column = span.column.max(1);
    let gutter = " ".repeat(line_no.to_string().len());
    lines.push(match file_name {
        Some(name) => format!("{gutter}--> {name}:{line_no}:{column}"),
        None => format!("{gutter}--> {line_no}:{column}"),
    });

    let source_line = source
        .split('\n')
        .nth(line_no as usize - 1)
        .map(|l| l.strip_suffix('\r').unwrap_or(l));
    if let Some(text) = source_line {
        let shown: String = text
            .chars()
            .map(|c| {
                if c == '\t' {
                    " ".repeat(TAB_WIDTH)
                } else {
                    c.to_string()
                }
            })
            .collect();
        let before = column as usize - 1;
        // A column past the end of the line (end of input) points just after its last character.
        let indent: usize = text.chars().take(before).map(width).sum::<usize>()
            + before.saturating_sub(text.chars().count()).min(1);
        let underline = source
            .get(span.start..span.end)
            .map(|s| s.split('\n').next().unwrap_or("").chars().map(width).sum())
            .unwrap_or(0)
            .max(1);
        lines.push(format!("{gutter} |"));
        lines.push(format!("{line_no} | {shown}"));
        lines.push(format!(
            "{gutter} | {}{}",
            " ".repeat(indent),
            "^".repeat(underline)
        ));
    }
    if let Some(help) = &err.help {
        lines.push(format!("{gutter} = help: {help}"));
    }
    lines.join("\n")
}
