//! The library's layering, checked on the source: each top-level module (and each engine) imports
//! only from the layers below it, so there is no import cycle between them, and the command line
//! (the binary's module) reaches the library only through its public paths.
//!
//! model ← io, generate ← pattern ← exec, gpu ← engines ← session, similarity, trust ← transform,
//! cluster ← api ← cli (see the README's "Layout").

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The layer of each unit (a top-level module, or `engines/<name>`).
fn layer(unit: &str) -> Option<u32> {
    Some(match unit {
        "error" => 0,
        "util" => 1,
        "model" => 2,
        "io" | "generate" => 3,
        "pattern" => 4,
        "exec" | "gpu" => 5,
        "engines/gemp" | "engines/gpsense" => 6,
        "engines/staged" => 7,
        "session" | "similarity" | "trust" => 8,
        "transform" | "cluster" => 9,
        "api" => 10,
        _ => return None,
    })
}

/// Imports allowed within one layer (never both ways).
const SAME_LAYER: &[(&str, &str)] = &[("generate", "io")];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The unit a file under `src/` belongs to.
fn unit_of(relative: &Path) -> String {
    let parts: Vec<String> = relative
        .components()
        .map(|c| {
            c.as_os_str()
                .to_string_lossy()
                .trim_end_matches(".rs")
                .to_owned()
        })
        .collect();
    if parts[0] == "engines" && parts.len() >= 3 {
        format!("engines/{}", parts[1])
    } else {
        parts[0].clone()
    }
}

/// The source without comment lines (doc links may point anywhere).
fn code_of(path: &Path) -> String {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The units `code` imports through `prefix::` paths (`crate::x`, `crate::{x, y::z}`).
fn imported_units(code: &str, prefix: &str) -> Vec<String> {
    let mut found = Vec::new();
    let word = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let head = format!("{prefix}::");
    let mut rest = code;
    while let Some(i) = rest.find(&head) {
        let before = rest[..i].chars().last();
        rest = &rest[i + head.len()..];
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        let mut names = Vec::new();
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find("};").unwrap_or(group.len());
            let mut depth = 0;
            let mut start = 0;
            let body = &group[..end];
            for (j, c) in body.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        names.push(body[start..j].trim().to_owned());
                        start = j + 1;
                    }
                    _ => {}
                }
            }
            names.push(body[start..].trim().to_owned());
        } else {
            names.push(rest.chars().take(80).collect());
        }
        for n in names {
            let first = word(&n);
            if first == "engines" {
                let sub = word(n.trim_start_matches("engines::"));
                if !sub.is_empty() {
                    found.push(format!("engines/{sub}"));
                }
            } else if !first.is_empty() {
                found.push(first);
            }
        }
    }
    found
}

#[test]
fn no_module_imports_from_a_layer_above_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    files.dedup();
    let mut violations = BTreeMap::<String, Vec<String>>::new();
    for file in &files {
        let relative = file.strip_prefix(&src).unwrap();
        let unit = unit_of(relative);
        if ["cli", "main", "lib", "engines"].contains(&unit.as_str()) {
            continue;
        }
        let Some(own) = layer(&unit) else {
            panic!(
                "{}: unit `{unit}` has no layer in this test",
                relative.display()
            );
        };
        for target in imported_units(&code_of(file), "crate") {
            if target == unit || target == "Error" || target == "Result" {
                continue;
            }
            let Some(theirs) = layer(&target) else {
                violations
                    .entry(format!("{}", relative.display()))
                    .or_default()
                    .push(format!("imports unknown unit `{target}`"));
                continue;
            };
            let allowed = theirs < own
                || (theirs == own && SAME_LAYER.contains(&(unit.as_str(), target.as_str())));
            if !allowed {
                violations
                    .entry(format!("{}", relative.display()))
                    .or_default()
                    .push(format!(
                        "{unit} (layer {own}) imports {target} (layer {theirs})"
                    ));
            }
        }
    }
    assert!(
        violations.is_empty(),
        "imports against the layering:\n{violations:#?}"
    );
}

#[test]
fn the_command_line_uses_only_the_librarys_public_paths() {
    let cli = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/cli");
    let mut files = Vec::new();
    rust_files(&cli, &mut files);
    assert!(!files.is_empty());
    for file in files {
        for target in imported_units(&code_of(&file), "crate") {
            assert_eq!(
                target,
                "cli",
                "{}: the binary's module reaches `crate::{target}`",
                file.display()
            );
        }
    }
    let lib =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs")).unwrap();
    assert!(
        !lib.contains("mod cli"),
        "the command line is the binary's module"
    );
}

#[test]
fn the_import_scanner_sees_grouped_and_nested_imports() {
    let code = "use crate::{exec::{Control, Sink}, model::Model};\nfn f() { crate::engines::gemp::count(); }\nlet x = gemp::crate::no;";
    let mut units = imported_units(code, "crate");
    units.sort();
    assert_eq!(units, ["engines/gemp", "exec", "model"]);
}
