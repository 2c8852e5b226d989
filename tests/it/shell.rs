//! `gemp shell` end to end: through a pseudo-terminal (line editing, a multi-line statement, a
//! meta-command, Ctrl-C during a long query with the session surviving, history, `:quit`), and
//! with statements piped on standard input.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

/// The statement whose answer the tests know: the bundled sample's Mathilde Stone has six acting
/// credits (also checked by `cli::dot_output_draws_each_node_and_relationship_once`).
const CREDITS: [&str; 3] = [
    "MATCH (p:Person {primaryName: 'Mathilde Stone'})",
    "      -[r:ACTOR|ACTRESS]->(t:Title)",
    "RETURN count(*) AS credits;",
];

/// A query that runs for minutes on the sample (4,000³ person triples, a predicate over all
/// three): only Ctrl-C ends it in a test.
const LONG: &str = "MATCH (a:Person), (b:Person), (c:Person) \
                    WHERE a.birthYear + b.birthYear + c.birthYear = 1 RETURN count(*) AS n;";

fn sample() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("datasets/imdb-sample")
}

/// `gemp shell` on the sample, on the host, with `stdin` piped.
fn piped(input: &str) -> std::process::Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_gemp"))
        .args(["-q", "shell", "--backend", "host", "--model"])
        .arg(sample())
        .env("GEMP_HISTORY", "")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("running gemp shell");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

/// Statements piped on stdin: the same rows as at the terminal, no prompt, no row counts; an
/// error is reported with its position, later statements still run, and the status says one
/// failed.
#[test]
fn statements_piped_on_stdin_run_in_order() {
    let input = format!(
        "{}\n:format csv\nMATCH (t:Title) RETURN count(*) AS n; MATCH (t:Title\nRETURN t;\n\
         :params\nMATCH (p:Person) RETURN count(*) AS persons",
        CREDITS.join("\n")
    );
    let out = piped(&input);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    // The table (one column: header, rule, value), then CSV; the last statement needs no `;`.
    assert_eq!(
        stdout, "credits\n-------\n6\nn\n3000\npersons\n4000\n",
        "{stderr}"
    );
    // The syntax error points into the statement: line 2, where `RETURN` comes before `)`.
    assert!(stderr.contains("error:"), "{stderr}");
    assert!(
        stderr.contains("--> 2:1"),
        "the position of the error: {stderr}"
    );
    // Four statements and two meta-commands.
    assert!(
        stderr.contains("1 of 6 statements and meta-commands failed"),
        "{stderr}"
    );
    assert_eq!(out.status.code(), Some(1));

    // Parameters, `:semantics`, a meta-command error; all statements fine: status 0.
    let out = piped(
        ":param name = 'Mathilde Stone'\n:param name=\"Mathilde Stone\"\n:format jsonl\n\
         MATCH (p:Person {primaryName: $name}) RETURN p.primaryName AS name;\n:quit\nRETURN nothing;",
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stdout, "{\"name\":\"Mathilde Stone\"}\n", "{stderr}");
    // The first :param is a string with quotes in it (not JSON): a string all the same, which
    // the second replaces; :quit ends the input before the last statement.
    assert_eq!(out.status.code(), Some(0), "{stderr}");
}

#[cfg(unix)]
mod pty {
    use super::*;

    /// The shell in a pseudo-terminal, on the host, with its history in `history`.
    fn spawn(history: &std::path::Path) -> rexpect::session::PtySession {
        let mut command = Command::new(env!("CARGO_BIN_EXE_gemp"));
        command
            .args(["shell", "--backend", "host", "--model"])
            .arg(sample())
            .env("GEMP_HISTORY", history)
            .env("TERM", "xterm")
            .env_remove("NO_COLOR");
        rexpect::session::spawn_command(command, Some(120_000)).expect("a pty")
    }

    /// A multi-line statement, `:format csv` and `:schema`, Ctrl-C during a long query (the
    /// query stops, the session answers the next one), Ctrl-C at the prompt, `:quit` with status
    /// 0 and the statements in the history file.
    #[test]
    fn the_shell_in_a_terminal() {
        let dir = tempfile::tempdir().unwrap();
        let history = dir.path().join("history");
        let mut p = spawn(&history);
        p.exp_string("gemp> ").unwrap();

        // A statement over three lines: the continuation prompt, then the answer.
        p.send_line(CREDITS[0]).unwrap();
        p.exp_string("  ... ").unwrap();
        p.send_line(CREDITS[1]).unwrap();
        p.exp_string("  ... ").unwrap();
        p.send_line(CREDITS[2]).unwrap();
        let answer = p.exp_string("1 row").unwrap();
        assert!(answer.contains("-------\r\n6\r\n"), "{answer:?}");
        p.exp_string("gemp> ").unwrap();

        // Meta-commands.
        p.send_line(":schema").unwrap();
        let schema = p.exp_string("edges: 17827").unwrap();
        assert!(schema.contains("nodes: 7000"), "{schema:?}");
        p.exp_string("gemp> ").unwrap();
        p.send_line(":format csv").unwrap();
        p.exp_string("format csv").unwrap();
        p.exp_string("gemp> ").unwrap();

        // Ctrl-C during a long query: the query stops, the session goes on.
        p.send_line(LONG).unwrap();
        // The spinner shows once the search has run a second.
        p.exp_string("searching").unwrap();
        p.send_control('c').unwrap();
        p.exp_string("query cancelled").unwrap();
        p.exp_string("gemp> ").unwrap();
        p.send_line("MATCH (t:Title) RETURN count(*) AS titles;")
            .unwrap();
        let answer = p.exp_string("1 row").unwrap();
        assert!(answer.contains("titles\r\n3000\r\n"), "{answer:?}");
        p.exp_string("gemp> ").unwrap();

        // Ctrl-C at the prompt drops the statement being typed.
        p.send("MATCH (x) RETURN").unwrap();
        p.flush().unwrap();
        p.exp_string("RETURN").unwrap();
        p.send_control('c').unwrap();
        // The editor drops what is typed before it reads again: wait for its prompt.
        p.exp_string("gemp> ").unwrap();
        p.send_line("MATCH (p:Person) RETURN count(*) AS persons;")
            .unwrap();
        let answer = p.exp_string("1 row").unwrap();
        assert!(answer.contains("persons\r\n4000\r\n"), "{answer:?}");
        p.exp_string("gemp> ").unwrap();

        p.send_line(":quit").unwrap();
        p.exp_eof().unwrap();
        let status = p.process().wait().unwrap();
        assert!(format!("{status:?}").ends_with(", 0)"), "{status:?}");

        let kept = std::fs::read_to_string(&history).unwrap();
        assert!(kept.contains(":schema"), "{kept}");
        assert!(kept.contains("titles"), "{kept}");
        assert!(
            !kept.contains("MATCH (x) RETURN\n"),
            "the interrupted line is not kept: {kept}"
        );
    }

    /// Ctrl-D at the prompt leaves with status 0; an unwritable history costs nothing.
    #[test]
    fn ctrl_d_leaves_and_an_unwritable_history_is_no_failure() {
        let dir = tempfile::tempdir().unwrap();
        // A directory where the file should be: it can be neither read nor written.
        let history = dir.path().join("history");
        std::fs::create_dir(&history).unwrap();
        let mut p = spawn(&history);
        p.exp_string("gemp> ").unwrap();
        p.send_line("MATCH (t:Title) RETURN count(*) AS n;")
            .unwrap();
        let answer = p.exp_string("1 row").unwrap();
        assert!(answer.contains("3000"), "{answer:?}");
        p.exp_string("gemp> ").unwrap();
        p.send_control('d').unwrap();
        p.exp_eof().unwrap();
        let status = p.process().wait().unwrap();
        assert!(format!("{status:?}").ends_with(", 0)"), "{status:?}");
    }
}
