//! The shell's history file: `$GEMP_HISTORY` (empty: none), else `<cache dir>/gemp/history`.
//! A file that cannot be read or written costs the history, never the session.

use std::path::PathBuf;

use rustyline::history::DefaultHistory;
use rustyline::Editor;

/// The environment variable naming the history file.
pub const HISTORY_ENV: &str = "GEMP_HISTORY";

/// Where the history is kept, `None` for nowhere (`--no-history`, `GEMP_HISTORY=""`, no cache
/// directory).
pub fn path(disabled: bool) -> Option<PathBuf> {
    if disabled {
        return None;
    }
    match std::env::var_os(HISTORY_ENV) {
        Some(p) if p.is_empty() => None,
        Some(p) => Some(PathBuf::from(p)),
        None => dirs::cache_dir().map(|d| d.join("gemp").join("history")),
    }
}

/// The history of one shell session, written line by line as statements are entered.
pub struct History {
    path: Option<PathBuf>,
}

impl History {
    /// Loads `path` into `editor` (a missing or unreadable file is an empty history).
    pub fn open<H: rustyline::Helper>(
        path: Option<PathBuf>,
        editor: &mut Editor<H, DefaultHistory>,
    ) -> History {
        if let Some(p) = &path {
            if let Err(e) = editor.load_history(p) {
                if p.exists() {
                    log::warn!("history {}: {e}", p.display());
                }
            }
        }
        History { path }
    }

    /// Adds an entry and appends it to the file; on a write error the history stays in memory
    /// only (said once).
    pub fn add<H: rustyline::Helper>(
        &mut self,
        editor: &mut Editor<H, DefaultHistory>,
        entry: &str,
    ) {
        let _ = editor.add_history_entry(entry);
        let Some(path) = &self.path else {
            return;
        };
        if let Some(dir) = path.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        if let Err(e) = editor.append_history(path) {
            log::warn!(
                "history {}: {e}; it is kept for this session only",
                path.display()
            );
            self.path = None;
        }
    }
}
