//! The openCypher TCK (Technology Compatibility Kit) run on gemp: every scenario of the feature
//! files under `GEMP_TCK_FEATURES` (default `../shared/tck/features` from the repository root) on a
//! fresh graph, its result, side effects and expected errors compared with what gemp gives.
//!
//! An expected error passes only when gemp's error has the openCypher class the scenario names
//! (`gemp::Error::cypher_class`); a refusal of an unsupported construct never does. Prints the pass
//! count per directory, the totals by outcome and the commonest reasons, writes the same report to
//! `target/tck-report.md`, and fails when fewer scenarios pass than `tests/tck/floor.txt` says or
//! when a scenario gives a wrong result that `tests/tck/known-wrong.txt` does not list.
//!
//! Run it with `cargo test --profile ci --test tck`; `GEMP_TCK_FILTER=text` runs the scenarios
//! whose id contains `text` and prints each one's outcome; `GEMP_TCK_AUDIT=1` prints gemp's message
//! for every expected error that passes (to check it fails for the scenario's reason).

mod exec;
mod graphs;
mod scenario;
mod values;

use std::collections::{BTreeMap, BTreeSet};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use exec::Outcome;
use scenario::{Expect, Scenario};
use values::TVal;

/// How one scenario went.
#[derive(Debug, Clone, PartialEq)]
enum Verdict {
    /// As expected.
    Pass,
    /// gemp gave a result, but not the expected one (or none where an error was expected).
    Wrong(String),
    /// The expected error class was not the one gemp raised.
    ClassMismatch(String),
    /// gemp refused the query (or a setup statement).
    Unsupported(String),
    /// The scenario could not be run (a named graph or procedures the runner lacks).
    NotRun(String),
    /// gemp panicked.
    Panic(String),
}

fn main() {
    let root = std::env::var_os("GEMP_TCK_FEATURES")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/tck/features"));
    if !root.is_dir() {
        println!(
            "tck: no feature files at {} (set GEMP_TCK_FEATURES); nothing to run",
            root.display()
        );
        return;
    }
    if let Err(e) = values::self_check() {
        eprintln!("tck: {e}");
        std::process::exit(1);
    }
    let filter = std::env::var("GEMP_TCK_FILTER").ok();
    // gemp's own panics are caught per scenario and reported; keep their default messages quiet.
    std::panic::set_hook(Box::new(|_| {}));
    let mut results: Vec<(Scenario, Verdict)> = Vec::new();
    for path in scenario::feature_files(&root) {
        let rel = path
            .strip_prefix(&root)
            .unwrap_or(&path)
            .with_extension("")
            .to_string_lossy()
            .replace('\\', "/");
        let scenarios = match scenario::read_feature(&path, &rel) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("tck: {e}");
                std::process::exit(1);
            }
        };
        for sc in scenarios {
            if filter.as_deref().is_some_and(|f| !sc.id.contains(f)) {
                continue;
            }
            let verdict = match catch_unwind(AssertUnwindSafe(|| judge(&sc))) {
                Ok(v) => v,
                Err(p) => Verdict::Panic(panic_text(&p)),
            };
            if filter.is_some() {
                println!("{}: {verdict:?}", sc.id);
            }
            results.push((sc, verdict));
        }
    }
    let report = report(&results);
    print!("{report}");
    let target = Path::new(env!("CARGO_MANIFEST_DIR")).join("target");
    let _ = std::fs::create_dir_all(&target);
    if let Err(e) = std::fs::write(target.join("tck-report.md"), &report) {
        eprintln!("tck: cannot write target/tck-report.md: {e}");
    }
    if filter.is_some() {
        return;
    }
    let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tck");
    let floor: usize = std::fs::read_to_string(here.join("floor.txt"))
        .ok()
        .and_then(|t| t.trim().parse().ok())
        .unwrap_or(0);
    let known: BTreeSet<String> = std::fs::read_to_string(here.join("known-wrong.txt"))
        .unwrap_or_default()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| l.split_whitespace().next().unwrap_or("").to_string())
        .collect();
    let passed = results.iter().filter(|(_, v)| *v == Verdict::Pass).count();
    let mut failed = false;
    if passed < floor {
        eprintln!("tck: {passed} scenarios pass, below the floor of {floor} (tests/tck/floor.txt)");
        failed = true;
    }
    for (sc, v) in &results {
        if let Verdict::Wrong(why) | Verdict::Panic(why) = v {
            if !known.contains(&sc.id) {
                eprintln!(
                    "tck: wrong result not in known-wrong.txt: {} — {why}",
                    sc.id
                );
                failed = true;
            }
        }
    }
    if failed {
        std::process::exit(1);
    }
}

fn panic_text(p: &Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic".to_string()
    }
}

/// A reason reduced to its kind: quoted names and numbers blanked, so alike refusals count
/// together.
fn bucket(reason: &str) -> String {
    let mut out = String::new();
    let mut in_tick = false;
    for c in reason.chars() {
        match c {
            '`' if !in_tick => {
                in_tick = true;
                out.push_str("`…");
            }
            '`' => {
                in_tick = false;
                out.push('`');
            }
            _ if in_tick => {}
            c if c.is_ascii_digit() => {
                if !out.ends_with('N') {
                    out.push('N');
                }
            }
            c => out.push(c),
        }
    }
    let out = out.split(" (see ").next().unwrap_or(&out).to_string();
    out.chars().take(110).collect()
}

/// Runs one scenario and judges it.
fn judge(sc: &Scenario) -> Verdict {
    let named = match &sc.named_graph {
        Some(g) => match graphs::named(g) {
            Some(create) => Some(create),
            None => return Verdict::NotRun(format!("graph missing: {g}")),
        },
        None => None,
    };
    if sc.needs_procedures {
        return Verdict::NotRun("procedures declared by the scenario".into());
    }
    if let Some(s) = &sc.unknown_step {
        return Verdict::NotRun(format!("unknown step: {s}"));
    }
    if sc.steps.is_empty() {
        return Verdict::NotRun("no query".into());
    }
    let params = match exec::params(&sc.params) {
        Ok(p) => p,
        Err(what) => return Verdict::Unsupported(format!("parameter: {what}")),
    };
    let mut graph = match exec::empty_graph() {
        Ok(g) => g,
        Err(e) => return Verdict::Panic(format!("empty graph: {e}")),
    };
    for s in named.iter().chain(&sc.setup) {
        if let Outcome::Error(_, msg) = exec::run(&mut graph, s, &Default::default()) {
            return Verdict::Unsupported(format!("setup: {msg}"));
        }
    }
    for (i, step) in sc.steps.iter().enumerate() {
        let before = exec::state(graph.model());
        let (outcome, rels) = exec::run_counting(&mut graph, &step.query, &params);
        let control = if i == 0 { "" } else { "control query: " };
        let v = match (&step.expect, outcome) {
            (None, _) => Verdict::NotRun("no expectation".into()),
            (Some(Expect::Error { class, detail }), Outcome::Error(got, msg)) => match got {
                Some(c) if c == class => {
                    if std::env::var_os("GEMP_TCK_AUDIT").is_some() {
                        println!("audit {}: expected {class} ({detail}); gemp: {msg}", sc.id);
                    }
                    Verdict::Pass
                }
                Some(c) => {
                    Verdict::ClassMismatch(format!("expected {class} ({detail}), got {c}: {msg}"))
                }
                None => Verdict::Unsupported(msg),
            },
            (Some(Expect::Error { class, detail }), Outcome::Rows(_, rows)) => {
                Verdict::Wrong(format!(
                    "{control}expected {class} ({detail}), got {} rows",
                    rows.len()
                ))
            }
            (Some(_), Outcome::Error(_, msg)) => Verdict::Unsupported(format!("{control}{msg}")),
            (Some(Expect::Empty), Outcome::Rows(_, rows)) => {
                if rows.is_empty() {
                    Verdict::Pass
                } else {
                    Verdict::Wrong(format!("{control}expected no rows, got {}", rows.len()))
                }
            }
            (Some(Expect::Rows { .. }), Outcome::Rows(..)) if step.query.is_empty() => {
                Verdict::NotRun("empty query".into())
            }
            (
                Some(Expect::Rows {
                    ordered,
                    lists_unordered,
                    header,
                    rows,
                }),
                Outcome::Rows(columns, got),
            ) => match compare(*ordered, *lists_unordered, header, rows, &columns, &got) {
                Ok(()) => Verdict::Pass,
                Err(Cmp::Bad(e)) => return Verdict::NotRun(format!("expected value: {e}")),
                Err(Cmp::Differs(why)) => Verdict::Wrong(format!("{control}{why}")),
            },
        };
        if v != Verdict::Pass {
            return v;
        }
        if let Some(expected) = &step.side_effects {
            let got = exec::side_effects(&before, &exec::state(graph.model()), rels);
            let want: BTreeMap<String, i64> =
                expected.iter().filter(|(_, n)| *n != 0).cloned().collect();
            if got != want {
                return Verdict::Wrong(format!("{control}side effects {got:?}, expected {want:?}"));
            }
        }
    }
    Verdict::Pass
}

enum Cmp {
    /// The expected table could not be read.
    Bad(String),
    /// The result differs.
    Differs(String),
}

fn compare(
    ordered: bool,
    lists_unordered: bool,
    header: &[String],
    rows: &[Vec<String>],
    columns: &[String],
    got: &[Vec<TVal>],
) -> Result<(), Cmp> {
    let mut want: Vec<Vec<TVal>> = Vec::new();
    for r in rows {
        let mut row = Vec::new();
        for c in r {
            let v = values::parse(c).map_err(Cmp::Bad)?;
            row.push(if lists_unordered { v.lists_sorted() } else { v });
        }
        want.push(row);
    }
    if header != columns {
        return Err(Cmp::Differs(format!(
            "columns {columns:?}, expected {header:?}"
        )));
    }
    let got: Vec<Vec<TVal>> = got
        .iter()
        .map(|r| {
            r.iter()
                .map(|v| {
                    if lists_unordered {
                        v.lists_sorted()
                    } else {
                        v.clone()
                    }
                })
                .collect()
        })
        .collect();
    let show = |rows: &[Vec<TVal>]| -> String {
        let shown: Vec<String> = rows
            .iter()
            .take(6)
            .map(|r| {
                let cells: Vec<String> = r.iter().map(|v| v.to_string()).collect();
                format!("[{}]", cells.join(", "))
            })
            .collect();
        let more = if rows.len() > 6 { ", …" } else { "" };
        format!("{}{more}", shown.join(" "))
    };
    let same = if ordered {
        got == want
    } else {
        let mut left: Vec<Option<&Vec<TVal>>> = want.iter().map(Some).collect();
        got.len() == want.len()
            && got.iter().all(
                |g| match left.iter().position(|w| w.is_some_and(|w| w == g)) {
                    Some(i) => {
                        left[i] = None;
                        true
                    }
                    None => false,
                },
            )
    };
    if same {
        Ok(())
    } else {
        Err(Cmp::Differs(format!(
            "rows {} ({}), expected {} ({})",
            show(&got),
            got.len(),
            show(&want),
            want.len()
        )))
    }
}

/// The report: passes per directory, totals by outcome, the wrong results, the commonest reasons.
fn report(results: &[(Scenario, Verdict)]) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let mut dirs: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut tops: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for (sc, v) in results {
        let pass = usize::from(*v == Verdict::Pass);
        let d = dirs.entry(&sc.dir).or_default();
        d.0 += pass;
        d.1 += 1;
        let top = sc.dir.split('/').next().unwrap_or("");
        let t = tops.entry(top).or_default();
        t.0 += pass;
        t.1 += 1;
    }
    let pct = |p: usize, n: usize| {
        if n == 0 {
            0.0
        } else {
            100.0 * p as f64 / n as f64
        }
    };
    let _ = writeln!(out, "# openCypher TCK on gemp\n");
    let _ = writeln!(out, "| directory | passed | scenarios |\n|---|---|---|");
    for (d, (p, n)) in &dirs {
        let _ = writeln!(out, "| {d} | {p} | {n} |");
    }
    let _ = writeln!(
        out,
        "\n| top-level | passed | scenarios | % |\n|---|---|---|---|"
    );
    for (d, (p, n)) in &tops {
        let _ = writeln!(out, "| {d} | {p} | {n} | {:.1} |", pct(*p, *n));
    }
    let count = |f: fn(&Verdict) -> bool| results.iter().filter(|(_, v)| f(v)).count();
    let total = results.len();
    let passed = count(|v| *v == Verdict::Pass);
    let temporal = |sc: &Scenario| sc.dir.contains("temporal");
    let (mut tp, mut tn, mut op, mut on) = (0, 0, 0, 0);
    for (sc, v) in results {
        let p = usize::from(*v == Verdict::Pass);
        if temporal(sc) {
            tp += p;
            tn += 1;
        } else {
            op += p;
            on += 1;
        }
    }
    let _ = writeln!(out, "\n| outcome | scenarios |\n|---|---|");
    let _ = writeln!(out, "| passed | {passed} ({:.1} %) |", pct(passed, total));
    let _ = writeln!(
        out,
        "| failed: wrong result | {} |",
        count(|v| matches!(v, Verdict::Wrong(_)))
    );
    let _ = writeln!(
        out,
        "| failed: panic | {} |",
        count(|v| matches!(v, Verdict::Panic(_)))
    );
    let _ = writeln!(
        out,
        "| error-class mismatch | {} |",
        count(|v| matches!(v, Verdict::ClassMismatch(_)))
    );
    let _ = writeln!(
        out,
        "| unsupported (refused) | {} |",
        count(|v| matches!(v, Verdict::Unsupported(_)))
    );
    let _ = writeln!(
        out,
        "| not run | {} |",
        count(|v| matches!(v, Verdict::NotRun(_)))
    );
    let _ = writeln!(out, "| total | {total} |");
    let _ = writeln!(
        out,
        "\nNon-temporal: {op}/{on} ({:.1} %); temporal: {tp}/{tn} ({:.1} %).",
        pct(op, on),
        pct(tp, tn)
    );
    let wrong: Vec<&(Scenario, Verdict)> = results
        .iter()
        .filter(|(_, v)| matches!(v, Verdict::Wrong(_) | Verdict::Panic(_)))
        .collect();
    if !wrong.is_empty() {
        let _ = writeln!(out, "\n## Wrong results and panics\n");
        for (sc, v) in wrong {
            let _ = writeln!(out, "- `{}`: {v:?}", sc.id);
        }
    }
    let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
    for (_, v) in results {
        let r = match v {
            Verdict::Pass => continue,
            Verdict::Wrong(r) => format!("wrong: {}", bucket(r)),
            Verdict::ClassMismatch(r) => format!("class: {}", bucket(r)),
            Verdict::Unsupported(r) => format!("refused: {}", bucket(r)),
            Verdict::NotRun(r) => format!("not run: {}", bucket(r)),
            Verdict::Panic(r) => format!("panic: {}", bucket(r)),
        };
        *reasons.entry(r).or_default() += 1;
    }
    let mut reasons: Vec<(String, usize)> = reasons.into_iter().collect();
    reasons.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let _ = writeln!(
        out,
        "\n## Top failure reasons\n\n| scenarios | reason |\n|---|---|"
    );
    for (r, n) in reasons.iter().take(15) {
        let _ = writeln!(out, "| {n} | {} |", r.replace('|', "\\|"));
    }
    out
}
