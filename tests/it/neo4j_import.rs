//! Neo4j bulk-import CSV laid out as `neo4j-admin database import` takes it: header files apart
//! from data files, labels and types given on the command line (`--nodes=Person=…`,
//! `--relationships=KNOWS=…`), a `|` delimiter, a custom array delimiter, ID spaces and integer
//! ids; loaded with `gemp load` and queried with `gemp match --count`. Every expected number is
//! counted by hand from the files below.

use crate::common;
use common::gemp;

use std::path::Path;
use std::process::Output;

use gemp::io::neo4j_csv::{CsvOptions, GroupKind, IdType, InputGroup};
use gemp::io::{Format, LoadOptions};

fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).unwrap()
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_string_lossy().into_owned()
}

/// The social network, in files:
/// - persons-header.csv (header only) + persons-1.csv, persons-2.csv (data only): persons 1, 2,
///   003 (= 3 with integer ids) and 4; Bob's name holds the delimiter inside quotes; tags are
///   arrays split on `,`.
/// - admins.csv (its own header, a `:LABEL` column): person 5, labels Admin and Moderator (split
///   on the array delimiter) besides Person from the flag.
/// - companies.csv (its own header, ID space Company): companies 1 and 2 (distinct from persons
///   1 and 2).
/// - knows-header.csv + knows.csv: 1→2, 2→03 (= 3), 3→1, 4→1 (4 KNOWS).
/// - works.csv (its own header, Person → Company): 1→1, 2→1, 3→2 (3 WORKS_AT).
///
/// Nodes: 5 persons + 2 companies = 7; edges: 4 + 3 = 7.
fn social(d: &Path) -> Vec<String> {
    let ph = write(
        d,
        "persons-header.csv",
        "personId:ID(Person)|name|age:int|score:double|active:boolean|tags:string[]|born:date\n",
    );
    let p1 = write(
        d,
        "persons-1.csv",
        "1|Alice|30|1.5|true|a,b|1990-01-01\n\
         2|\"Bob|Builder\"|40|2.5|false|x|1980-05-05\n",
    );
    let p2 = write(
        d,
        "persons-2.csv",
        "003|Carol|25||true||\n4|Dave|35|0.5||c,d,e|\n",
    );
    let admins = write(
        d,
        "admins.csv",
        "personId:ID(Person)|name|:LABEL\n5|Eve|Admin,Moderator\n",
    );
    let companies = write(
        d,
        "companies.csv",
        "companyId:ID(Company)|name\n1|Acme\n2|Globex\n",
    );
    let kh = write(
        d,
        "knows-header.csv",
        ":START_ID(Person)|:END_ID(Person)|since:int\n",
    );
    let k = write(d, "knows.csv", "1|2|2010\n2|03|2011\n3|1|2012\n4|1|2013\n");
    let works = write(
        d,
        "works.csv",
        ":START_ID(Person)|:END_ID(Company)\n1|1\n2|1\n3|2\n",
    );
    vec![
        format!("--nodes=Person={ph},{p1},{p2}"),
        format!("--nodes=Person={admins}"),
        format!("--nodes=Company={companies}"),
        format!("--relationships=KNOWS={kh},{k}"),
        format!("--relationships=WORKS_AT={works}"),
    ]
}

fn count(d: &Path, snap: &str, name: &str, query: &str) -> u64 {
    let q = write(d, &format!("{name}.cypher"), query);
    let out = ok(&gemp(&[
        "match",
        "-m",
        snap,
        &q,
        "--count",
        "--backend",
        "host",
    ]));
    out.trim()
        .parse()
        .unwrap_or_else(|_| panic!("{name}: not a count: {out}"))
}

#[test]
fn neo4j_admin_layout_loads_with_exact_counts_and_properties() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let groups = social(d);
    let snap = d.join("social.gemp").to_string_lossy().into_owned();
    let mut args: Vec<String> = [
        "load",
        "--format",
        "neo4j-csv",
        "--strict",
        "--delimiter",
        "|",
        "--array-delimiter",
        ",",
        "--id-type",
        "integer",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.extend(groups);
    args.extend(["-o".to_string(), snap.clone()]);
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = gemp(&argv);
    ok(&out);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("loaded 7 nodes, 7 edges"), "{err}");

    let c = |name: &str, q: &str| count(d, &snap, name, q);
    assert_eq!(c("persons", "MATCH (p:Person) RETURN p"), 5);
    assert_eq!(c("companies", "MATCH (c:Company) RETURN c"), 2);
    assert_eq!(c("admins", "MATCH (p:Person:Admin:Moderator) RETURN p"), 1);
    assert_eq!(
        c("knows", "MATCH (a:Person)-[:KNOWS]->(b:Person) RETURN a, b"),
        4
    );
    assert_eq!(
        c(
            "works",
            "MATCH (p:Person)-[:WORKS_AT]->(c:Company) RETURN p, c"
        ),
        3
    );
    // The quoted field holding the delimiter is one value.
    assert_eq!(
        c("bob", "MATCH (p:Person {name: 'Bob|Builder'}) RETURN p"),
        1
    );
    // `03` in knows.csv is person `003`: integer ids.
    assert_eq!(
        c(
            "bob_knows_carol",
            "MATCH (a:Person {name: 'Bob|Builder'})-[:KNOWS]->(b:Person {name: 'Carol'}) RETURN a"
        ),
        1
    );
    assert_eq!(
        c(
            "carol_by_id",
            "MATCH (p:Person) WHERE p.personId = 3 RETURN p"
        ),
        1
    );
    // Typed columns.
    assert_eq!(c("age", "MATCH (p:Person) WHERE p.age > 28 RETURN p"), 3);
    assert_eq!(
        c("score", "MATCH (p:Person) WHERE p.score >= 1.5 RETURN p"),
        2
    );
    assert_eq!(
        c("active", "MATCH (p:Person) WHERE p.active = true RETURN p"),
        2
    );
    assert_eq!(
        c(
            "since",
            "MATCH (a:Person)-[k:KNOWS]->(b:Person) WHERE k.since >= 2012 RETURN a"
        ),
        2
    );
    assert_eq!(
        c(
            "acme",
            "MATCH (p:Person)-[:WORKS_AT]->(c:Company {name: 'Acme'}) RETURN p"
        ),
        2
    );

    // The property values themselves: arrays split on `,`, dates kept as text.
    let q = write(
        d,
        "values.cypher",
        "MATCH (p:Person {name: 'Alice'}) RETURN p.tags AS tags, p.born AS born, p.age AS age",
    );
    let rows = ok(&gemp(&[
        "match",
        "-m",
        &snap,
        &q,
        "--format",
        "jsonl",
        "--backend",
        "host",
    ]));
    let row: serde_json::Value = serde_json::from_str(rows.lines().next().unwrap()).unwrap();
    assert_eq!(row["tags"], r#"["a","b"]"#, "{rows}");
    assert_eq!(row["born"], "1990-01-01", "{rows}");
    assert_eq!(row["age"], 30, "{rows}");
}

#[test]
fn a_wrong_delimiter_is_named_with_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let f = write(d, "persons.csv", "\npersonId:ID|name|age:int\n1|Alice|30\n");
    let out = gemp(&["load", "--format", "neo4j-csv", &f]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!(
            "{f}:2:12: the header of {f} has one column; is the delimiter `|`? \
             (use --delimiter '|')"
        )),
        "{err}"
    );
    // Detected as Neo4j CSV without --format, and the same message.
    let out = gemp(&["load", &f]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("is the delimiter `|`?"), "{err}");

    // Tab-separated, read with the default `,`.
    let t = write(d, "t.csv", ":ID\tname\n1\tA\n");
    let out = gemp(&["load", "--format", "neo4j-csv", &t]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("is the delimiter a tab? (use --delimiter 'TAB')"),
        "{err}"
    );
    // … and with it.
    let out = gemp(&["load", "--delimiter", "TAB", &t]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("loaded 1 nodes, 0 edges"), "{err}");
    // A `,` file read with `--delimiter '|'`.
    let c = write(d, "c.csv", ":ID,name\n1,A\n");
    let out = gemp(&["load", "--delimiter", "|", &c]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("is the delimiter `,`? (use --delimiter ',')"),
        "{err}"
    );
    // The most frequent candidate wins; a tie goes to the first of `|`, `;`, tab, `,`.
    let m = write(d, "m.csv", ":ID;a;b|c\n");
    let err = String::from_utf8_lossy(&gemp(&["load", &m]).stderr).into_owned();
    assert!(err.contains("is the delimiter `;`?"), "{err}");
    let t = write(d, "tie.csv", ":ID;a|b\n");
    let err = String::from_utf8_lossy(&gemp(&["load", &t]).stderr).into_owned();
    assert!(err.contains(&format!("{t}:1:6: ")), "{err}");
    assert!(err.contains("is the delimiter `|`?"), "{err}");
}

#[test]
fn header_only_file_then_data_files_keep_their_own_line_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let h = write(d, "h.csv", ":ID|name:string\n");
    let a = write(d, "a.csv", "1|x\n2|y\n");
    let b = write(d, "b.csv", "3|z\nfour|w\n");
    let groups = vec![InputGroup {
        kind: GroupKind::Nodes,
        names: vec!["Thing".into(), "Item".into()],
        files: vec![h.clone().into(), a.into(), b.clone().into()],
    }];
    let mut options = LoadOptions {
        neo4j: CsvOptions {
            delimiter: b'|',
            id_type: IdType::Integer,
            groups,
            ..Default::default()
        },
        ..Default::default()
    };
    let (model, report) = gemp::io::load(&[], Format::Neo4jCsv, &options).unwrap();
    // `four` is not an integer id: line 2 of b.csv (no header there) is skipped.
    assert_eq!(model.node_count(), 3);
    assert_eq!(report.malformed_count(), 1);
    assert_eq!(report.malformed[0].line, 2);
    assert!(report.malformed[0].file.ends_with("b.csv"));
    assert!(report.malformed[0].message.contains("not an integer"));
    let thing = model.labels().get("Thing").unwrap();
    let item = model.labels().get("Item").unwrap();
    assert_eq!(model.label_count(thing), 3);
    assert_eq!(model.label_count(item), 3);
    // No label from the file names in a group.
    assert!(model.labels().get("h").is_none());

    options.strict = true;
    let err = gemp::io::load(&[], Format::Neo4jCsv, &options)
        .unwrap_err()
        .to_string();
    assert!(err.starts_with(&format!("{b}:2:")), "{err}");

    // The same group from the command line, and a group whose header is not a node header.
    let out = gemp(&[
        "load",
        "--delimiter",
        "|",
        &format!("--nodes=Thing={h},{}", d.join("a.csv").display()),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("loaded 2 nodes, 0 edges"), "{err}");
    let out = gemp(&[
        "load",
        "--delimiter",
        "|",
        &format!("--relationships=R={h}"),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("given with --relationships, but its first line is not a relationship header"),
        "{err}"
    );
}

#[test]
fn a_relationship_group_without_a_type_names_the_missing_type() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let n = write(d, "n.csv", ":ID\n1\n2\n");
    let r = write(d, "r.csv", ":START_ID,:END_ID,:TYPE\n1,2,\n2,1,BACK\n");
    let out = gemp(&[
        "load",
        "--strict",
        &format!("--nodes={n}"),
        &format!("--relationships={r}"),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains(&format!("{r}:2: no relationship type")),
        "{err}"
    );
    let out = gemp(&[
        "load",
        "--strict",
        &format!("--nodes={n}"),
        &format!("--relationships=FWD={r}"),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("loaded 2 nodes, 2 edges"), "{err}");
}

/// A small deterministic fuzz of the options the fuzz target does not vary: random header and
/// data bytes over the characters that matter, read as a header-only group and as plain files,
/// with `|` or tab delimiters, `'` quotes and integer ids. Nothing panics; errors are errors.
#[test]
fn odd_inputs_with_the_admin_options_never_panic() {
    const BYTES: &[u8] = b"|,;\t\"'\n\r:ID()START_END_TYPELABELint[]x07 -+\xef\xbb\xbf{}";
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut seed = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let header_starts: [&[u8]; 4] = [
        b":ID|",
        b":START_ID|:END_ID|",
        b"id:ID(P)\t:LABEL\ta:int[]\t",
        b"'a|b':ID|",
    ];
    for round in 0..300 {
        let mut text = |n: u64| -> Vec<u8> {
            let len = next() % n;
            (0..len)
                .map(|_| BYTES[(next() % BYTES.len() as u64) as usize])
                .collect()
        };
        let mut header = header_starts[round % 4].to_vec();
        header.extend(text(12));
        std::fs::write(d.join("h.csv"), &header).unwrap();
        std::fs::write(d.join("a.csv"), text(80)).unwrap();
        std::fs::write(d.join("b.csv"), text(80)).unwrap();
        let files: Vec<std::path::PathBuf> = ["h.csv", "a.csv", "b.csv"]
            .iter()
            .map(|f| d.join(f))
            .collect();
        let kind = if round % 2 == 0 {
            GroupKind::Nodes
        } else {
            GroupKind::Relationships
        };
        for strict in [false, true] {
            let options = LoadOptions {
                strict,
                neo4j: CsvOptions {
                    delimiter: if round % 3 == 0 { b'\t' } else { b'|' },
                    array_delimiter: if round % 5 == 0 { '|' } else { ';' },
                    quote: if round % 7 == 0 { b'\'' } else { b'"' },
                    id_type: if round % 2 == 0 {
                        IdType::Integer
                    } else {
                        IdType::String
                    },
                    groups: vec![InputGroup {
                        kind,
                        names: vec!["T".into()],
                        files: files.clone(),
                    }],
                },
                ..Default::default()
            };
            let _ = gemp::io::load(&[], Format::Neo4jCsv, &options);
            let _ = gemp::io::load(&files, Format::Neo4jCsv, &options);
        }
    }
}

/// Issue 31, item 16: a CSV with classic Mac line endings (a bare carriage return ends each line)
/// loads like its LF twin (it was one line, its header swallowing the data: "unknown type
/// `LABEL1`"), a quoted carriage return staying inside its field; malformed rows are reported at
/// their CR-separated line. A byte-order mark before the header is skipped.
#[test]
fn cr_only_line_endings_and_a_bom_load_like_lf() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let lf = "id:ID,name,age:int,:LABEL\n1,\"a\rb\",3,Label1\n2,c,x,Label1\n3,d,5,Label1\n";
    let rels = ":START_ID,:END_ID,:TYPE\n1,3,KNOWS\n";
    std::fs::create_dir(d.join("cr")).unwrap();
    std::fs::create_dir(d.join("lf")).unwrap();
    write(&d.join("lf"), "nodes.csv", lf);
    write(&d.join("lf"), "rels.csv", rels);
    write(
        &d.join("cr"),
        "nodes.csv",
        &format!("\u{feff}{}", lf.replace('\n', "\r")),
    );
    write(&d.join("cr"), "rels.csv", &rels.replace('\n', "\r"));
    let load =
        |sub: &str| gemp::io::load(&[d.join(sub)], Format::Auto, &LoadOptions::default()).unwrap();
    let ((cr, cr_report), (lf, _)) = (load("cr"), load("lf"));
    // Node 2's age is not an integer: a malformed row, skipped in both.
    assert_eq!((cr.node_count(), cr.edge_count()), (2, 1));
    assert_eq!((lf.node_count(), lf.edge_count()), (2, 1));
    let row = |m: &gemp::model::Model, key: &str| {
        let n = m.node_by_key(key).unwrap();
        format!(
            "{:?} {:?} {:?}",
            m.node_property(n, "name"),
            m.node_property(n, "age"),
            m.node_labels(n)
                .iter()
                .map(|&l| m.labels().name(l).unwrap())
                .collect::<Vec<_>>()
        )
    };
    for key in ["1", "3"] {
        assert_eq!(row(&cr, key), row(&lf, key), "node {key}");
    }
    assert_eq!(cr.node_by_key("2"), None);
    assert_eq!(row(&cr, "1"), r#"Str("a\rb") Int(3) ["Label1"]"#);
    let bad: Vec<(u64, String)> = cr_report
        .malformed
        .iter()
        .map(|m| (m.line, m.message.clone()))
        .collect();
    assert_eq!(bad.len(), 1, "{bad:?}");
    assert_eq!(bad[0].0, 4, "{bad:?}");
}
