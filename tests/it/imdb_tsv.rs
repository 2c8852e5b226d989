//! IMDb TSV loader: tiny hand-written dumps in a temporary directory, exact expected models.

use std::io::Write;
use std::path::{Path, PathBuf};

use gemp::io::imdb_tsv::{self, detect_file, ImdbFile};
use gemp::io::{LoadOptions, LoadReport};
use gemp::model::{Model, ModelBuilder, Value, ValueRef};
use gemp::Error;

const BASICS: &str = "tconst\ttitleType\tprimaryTitle\toriginalTitle\tisAdult\tstartYear\tendYear\truntimeMinutes\tgenres\n\
tt0000001\tshort\tCarmencita\tCarmencita\t0\t1894\t\\N\t1\tDocumentary,Short\n\
tt0000002\tmovie\tThe \"Quoted\" Film\tLe \"film\"\t1\t1990\t\\N\t\\N\tDrama\n\
tt0000003\ttvSeries\tA Show\tA Show\t0\t2000\t2005\t30\tComedy\n\
tt0000004\ttvEpisode\tPilot\tPilot\t0\t2000\t\\N\t\\N\t\\N\n\
tt0000005\tradioPlay\tOdd\t\t0\t\\N\t\\N\t\\N\t\\N\n";

const NAMES: &str =
    "nconst\tprimaryName\tbirthYear\tdeathYear\tprimaryProfession\tknownForTitles\n\
nm0000001\tFred Astaire\t1899\t1987\tsoundtrack,actor,miscellaneous\ttt0000002,tt0000001\n\
nm0000002\tLauren Bacall\t1924\t2014\tactress,soundtrack\t\\N\n\
nm0000003\tDir Ector\t\\N\t\\N\tdirector\ttt0000003\n";

const PRINCIPALS: &str = "tconst\tordering\tnconst\tcategory\tjob\tcharacters\n\
tt0000001\t1\tnm0000001\tself\t\\N\t[\"Self\"]\n\
tt0000002\t1\tnm0000002\tactress\t\\N\t[\"Jane \"J\" Doe\"]\n\
tt0000002\t2\tnm0000003\tdirector\t\\N\t\\N\n\
tt0000003\t1\tnm0000001\tarchive_footage\t\\N\t\\N\n\
tt0000002\t3\tnm0000001\tproducer\tproducer\t\\N\n";

const RATINGS: &str = "tconst\taverageRating\tnumVotes\n\
tt0000001\t5.7\t2000\n\
tt0000002\t8\t15\n";

const CREW: &str = "tconst\tdirectors\twriters\n\
tt0000002\tnm0000003\tnm0000003,nm0000001\n\
tt0000001\t\\N\t\\N\n";

const EPISODES: &str = "tconst\tparentTconst\tseasonNumber\tepisodeNumber\n\
tt0000004\ttt0000003\t1\t2\n";

const ALL: [(&str, &str); 6] = [
    ("title.basics.tsv", BASICS),
    ("name.basics.tsv", NAMES),
    ("title.principals.tsv", PRINCIPALS),
    ("title.ratings.tsv", RATINGS),
    ("title.crew.tsv", CREW),
    ("title.episode.tsv", EPISODES),
];

fn write(dir: &Path, name: &str, content: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, content).unwrap();
    p
}

fn gzip(content: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(content).unwrap();
    enc.finish().unwrap()
}

fn write_gz(dir: &Path, name: &str, content: &str) -> PathBuf {
    let p = dir.join(format!("{name}.gz"));
    std::fs::write(&p, gzip(content.as_bytes())).unwrap();
    p
}

fn write_all(dir: &Path) -> Vec<PathBuf> {
    ALL.iter().map(|(n, c)| write(dir, n, c)).collect()
}

fn load(paths: &[PathBuf]) -> (Model, LoadReport) {
    imdb_tsv::load(paths, &LoadOptions::default()).unwrap()
}

fn load_err(paths: &[PathBuf], options: &LoadOptions) -> String {
    match imdb_tsv::load(paths, options) {
        Ok(_) => panic!("expected an error"),
        Err(e) => e.to_string(),
    }
}

fn node(m: &Model, key: &str) -> u32 {
    m.node_by_key(key)
        .unwrap_or_else(|| panic!("no node {key}"))
}

fn labels(m: &Model, key: &str) -> Vec<String> {
    let mut l: Vec<String> = m
        .node_labels(node(m, key))
        .iter()
        .map(|&l| m.labels().name(l).unwrap().to_owned())
        .collect();
    l.sort();
    l
}

/// The primary label (that of the node's property group).
fn primary(m: &Model, key: &str) -> Option<String> {
    let g = m.group_of(node(m, key)).unwrap();
    m.labels().name(g.label).map(str::to_owned)
}

fn prop(m: &Model, key: &str, name: &str) -> Value {
    m.node_property(node(m, key), name).to_owned()
}

/// All non-null node properties of `key`, sorted by name.
fn props(m: &Model, key: &str) -> Vec<(String, Value)> {
    let v = node(m, key);
    let g = m.group_of(v).unwrap();
    let mut out: Vec<(String, Value)> = g
        .columns
        .iter()
        .map(|c| (c.name.clone(), c.get((v - g.start) as usize).to_owned()))
        .filter(|(_, val)| *val != Value::Null)
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// Every edge as (source key, type, target key, non-null properties sorted by name), sorted.
/// (source key, type, target key, non-null properties sorted by name).
type Edge = (String, String, String, Vec<(String, Value)>);

fn edges(m: &Model) -> Vec<Edge> {
    let mut out = Vec::new();
    for v in 0..m.node_count() as u32 {
        for pos in m.out().range(v) {
            let e = pos as u32;
            let (dst, ty) = m.edge_target(e).unwrap();
            let mut p: Vec<(String, Value)> = m
                .edge_columns()
                .iter()
                .map(|c| (c.name.clone(), m.edge_property(e, &c.name).to_owned()))
                .filter(|(_, val)| *val != Value::Null)
                .collect();
            p.sort_by(|a, b| a.0.cmp(&b.0));
            out.push((
                m.node_key(v).unwrap().to_owned(),
                m.rel_types().name(ty).unwrap().to_owned(),
                m.node_key(dst).unwrap().to_owned(),
                p,
            ));
        }
    }
    out.sort_by(|a, b| format!("{a:?}").cmp(&format!("{b:?}")));
    out
}

fn edge(src: &str, ty: &str, dst: &str, p: &[(&str, Value)]) -> Edge {
    (
        src.into(),
        ty.into(),
        dst.into(),
        p.iter().map(|(k, v)| (k.to_string(), v.clone())).collect(),
    )
}

/// The whole model, node ids included, as text (for order-independence checks).
fn dump(m: &Model) -> Vec<String> {
    let mut out = Vec::new();
    for v in 0..m.node_count() as u32 {
        let key = m.node_key(v).unwrap();
        out.push(format!(
            "node {v} {key} {:?} primary={:?} {:?}",
            labels(m, key),
            primary(m, key),
            props(m, key)
        ));
        for pos in m.out().range(v) {
            let (dst, ty) = m.edge_target(pos as u32).unwrap();
            let p: Vec<String> = m
                .edge_columns()
                .iter()
                .map(|c| format!("{}={:?}", c.name, c.get(pos)))
                .collect();
            out.push(format!(
                "edge {pos} {v} -{}-> {dst} {p:?}",
                m.rel_types().name(ty).unwrap()
            ));
        }
    }
    out.push(format!("labels {:?}", m.labels().names()));
    out.push(format!("types {:?}", m.rel_types().names()));
    out
}

fn s(x: &str) -> Value {
    Value::Str(x.into())
}

fn i(x: i64) -> Value {
    Value::Int(x)
}

fn expect_full_model(m: &Model) {
    assert_eq!(m.node_count(), 8);
    let mut keys: Vec<String> = (0..8).map(|v| m.node_key(v).unwrap().to_owned()).collect();
    keys.sort();
    assert_eq!(
        keys,
        [
            "nm0000001",
            "nm0000002",
            "nm0000003",
            "tt0000001",
            "tt0000002",
            "tt0000003",
            "tt0000004",
            "tt0000005"
        ]
    );
    for (key, l) in [
        ("tt0000001", vec!["Short", "Title"]),
        ("tt0000002", vec!["Movie", "Title"]),
        ("tt0000003", vec!["Title", "TvSeries"]),
        ("tt0000004", vec!["Title", "TvEpisode"]),
        ("tt0000005", vec!["RadioPlay", "Title"]),
        ("nm0000001", vec!["Person"]),
        ("nm0000002", vec!["Person"]),
        ("nm0000003", vec!["Person"]),
    ] {
        assert_eq!(labels(m, key), l, "{key}");
        let expected_primary = if key.starts_with("tt") {
            "Title"
        } else {
            "Person"
        };
        assert_eq!(primary(m, key).as_deref(), Some(expected_primary), "{key}");
    }

    assert_eq!(
        props(m, "tt0000001"),
        vec![
            ("averageRating".into(), Value::Float(5.7)),
            ("genres".into(), s("Documentary,Short")),
            ("isAdult".into(), Value::Bool(false)),
            ("numVotes".into(), i(2000)),
            ("originalTitle".into(), s("Carmencita")),
            ("primaryTitle".into(), s("Carmencita")),
            ("runtimeMinutes".into(), i(1)),
            ("startYear".into(), i(1894)),
            ("titleType".into(), s("short")),
        ]
    );
    assert_eq!(
        props(m, "tt0000002"),
        vec![
            ("averageRating".into(), Value::Float(8.0)),
            ("genres".into(), s("Drama")),
            ("isAdult".into(), Value::Bool(true)),
            ("numVotes".into(), i(15)),
            ("originalTitle".into(), s("Le \"film\"")),
            ("primaryTitle".into(), s("The \"Quoted\" Film")),
            ("startYear".into(), i(1990)),
            ("titleType".into(), s("movie")),
        ]
    );
    assert_eq!(
        props(m, "tt0000003"),
        vec![
            ("endYear".into(), i(2005)),
            ("genres".into(), s("Comedy")),
            ("isAdult".into(), Value::Bool(false)),
            ("originalTitle".into(), s("A Show")),
            ("primaryTitle".into(), s("A Show")),
            ("runtimeMinutes".into(), i(30)),
            ("startYear".into(), i(2000)),
            ("titleType".into(), s("tvSeries")),
        ]
    );
    assert_eq!(
        props(m, "tt0000004"),
        vec![
            ("episodeNumber".into(), i(2)),
            ("isAdult".into(), Value::Bool(false)),
            ("originalTitle".into(), s("Pilot")),
            ("primaryTitle".into(), s("Pilot")),
            ("seasonNumber".into(), i(1)),
            ("startYear".into(), i(2000)),
            ("titleType".into(), s("tvEpisode")),
        ]
    );
    // An empty field is an empty string, not null.
    assert_eq!(
        props(m, "tt0000005"),
        vec![
            ("isAdult".into(), Value::Bool(false)),
            ("originalTitle".into(), s("")),
            ("primaryTitle".into(), s("Odd")),
            ("titleType".into(), s("radioPlay")),
        ]
    );
    assert_eq!(
        props(m, "nm0000001"),
        vec![
            ("birthYear".into(), i(1899)),
            ("deathYear".into(), i(1987)),
            ("knownForTitles".into(), s("tt0000002,tt0000001")),
            ("primaryName".into(), s("Fred Astaire")),
            (
                "primaryProfession".into(),
                s("soundtrack,actor,miscellaneous")
            ),
        ]
    );
    assert_eq!(
        props(m, "nm0000002"),
        vec![
            ("birthYear".into(), i(1924)),
            ("deathYear".into(), i(2014)),
            ("primaryName".into(), s("Lauren Bacall")),
            ("primaryProfession".into(), s("actress,soundtrack")),
        ]
    );
    assert_eq!(
        props(m, "nm0000003"),
        vec![
            ("knownForTitles".into(), s("tt0000003")),
            ("primaryName".into(), s("Dir Ector")),
            ("primaryProfession".into(), s("director")),
        ]
    );
    // Keys are not properties.
    assert_eq!(prop(m, "tt0000001", "tconst"), Value::Null);
    assert_eq!(prop(m, "nm0000001", "nconst"), Value::Null);

    let mut expected = vec![
        edge(
            "nm0000001",
            "SELF",
            "tt0000001",
            &[("characters", s("[\"Self\"]")), ("ordering", i(1))],
        ),
        edge(
            "nm0000002",
            "ACTRESS",
            "tt0000002",
            &[
                ("characters", s("[\"Jane \"J\" Doe\"]")),
                ("ordering", i(1)),
            ],
        ),
        edge("nm0000003", "DIRECTOR", "tt0000002", &[("ordering", i(2))]),
        edge(
            "nm0000001",
            "ARCHIVE_FOOTAGE",
            "tt0000003",
            &[("ordering", i(1))],
        ),
        edge(
            "nm0000001",
            "PRODUCER",
            "tt0000002",
            &[("job", s("producer")), ("ordering", i(3))],
        ),
        edge("nm0000003", "WRITER", "tt0000002", &[]),
        edge("nm0000001", "WRITER", "tt0000002", &[]),
        edge("tt0000004", "EPISODE_OF", "tt0000003", &[]),
    ];
    expected.sort_by(|a, b| format!("{a:?}").cmp(&format!("{b:?}")));
    assert_eq!(edges(m), expected);

    // Property types.
    let schema_types = |name: &str| {
        m.groups()
            .iter()
            .filter_map(|g| g.column(name))
            .map(|c| c.prop_type())
            .collect::<Vec<_>>()
    };
    use gemp::model::PropType;
    assert_eq!(schema_types("startYear"), vec![PropType::Int]);
    assert_eq!(schema_types("averageRating"), vec![PropType::Float]);
    assert_eq!(schema_types("isAdult"), vec![PropType::Bool]);
    assert_eq!(schema_types("genres"), vec![PropType::Str]);
    let ordering = m
        .edge_columns()
        .iter()
        .find(|c| c.name == "ordering")
        .unwrap();
    assert_eq!(ordering.prop_type(), PropType::Int);
}

#[test]
fn full_dump_exact_model_and_report() {
    let dir = tempfile::tempdir().unwrap();
    let paths = write_all(dir.path());
    let (m, report) = load(&paths);
    expect_full_model(&m);
    assert_eq!(report.dangling_nodes, 0);
    assert_eq!(
        report.duplicate_edges_skipped, 1,
        "DIRECTOR nm3 -> tt2 is in principals and crew"
    );
    assert_eq!(report.malformed_count(), 0);
    let rows: Vec<(String, u64)> = report
        .files
        .iter()
        .map(|f| {
            (
                f.file.file_name().unwrap().to_string_lossy().into_owned(),
                f.rows,
            )
        })
        .collect();
    assert_eq!(
        rows,
        vec![
            ("title.basics.tsv".to_string(), 5),
            ("name.basics.tsv".to_string(), 3),
            ("title.principals.tsv".to_string(), 5),
            ("title.ratings.tsv".to_string(), 2),
            ("title.crew.tsv".to_string(), 2),
            ("title.episode.tsv".to_string(), 1),
        ],
        "files load basics first"
    );
}

#[test]
fn gzip_and_directory_give_the_same_model() {
    let plain = tempfile::tempdir().unwrap();
    let gz = tempfile::tempdir().unwrap();
    let paths = write_all(plain.path());
    let gz_paths: Vec<PathBuf> = ALL.iter().map(|(n, c)| write_gz(gz.path(), n, c)).collect();
    let (a, _) = load(&paths);
    let (b, _) = load(&gz_paths);
    let (c, report) = load(&[gz.path().to_path_buf()]);
    expect_full_model(&b);
    assert_eq!(dump(&a), dump(&b));
    assert_eq!(dump(&a), dump(&c));
    assert_eq!(report.files.len(), 6);
    // A mix of plain and gzip files in any order.
    let mixed = vec![
        gz_paths[2].clone(),
        paths[0].clone(),
        gz_paths[1].clone(),
        paths[5].clone(),
        paths[3].clone(),
        gz_paths[4].clone(),
    ];
    let (d, _) = load(&mixed);
    assert_eq!(dump(&a), dump(&d));
}

#[test]
fn argument_order_does_not_change_the_model() {
    let dir = tempfile::tempdir().unwrap();
    let paths = write_all(dir.path());
    let reference = dump(&load(&paths).0);
    let orders: [[usize; 6]; 4] = [
        [5, 4, 3, 2, 1, 0],
        [2, 0, 4, 1, 5, 3],
        [3, 2, 5, 0, 4, 1],
        [1, 5, 0, 3, 2, 4],
    ];
    for order in orders {
        let permuted: Vec<PathBuf> = order.iter().map(|&k| paths[k].clone()).collect();
        assert_eq!(dump(&load(&permuted).0), reference, "order {order:?}");
    }
    // The same file twice (also under another spelling, or via its directory) loads once.
    let mut twice = paths.clone();
    twice.push(paths[2].clone());
    twice.push(dir.path().join(".").join("title.principals.tsv"));
    twice.push(dir.path().to_path_buf());
    assert_eq!(dump(&load(&twice).0), reference);
    // Principals without basics, then the same with basics, in both orders: same result.
    let partial = [paths[2].clone(), paths[1].clone()];
    let swapped = [paths[1].clone(), paths[2].clone()];
    assert_eq!(dump(&load(&partial).0), dump(&load(&swapped).0));
}

#[test]
fn malformed_rows_are_counted_and_reported_with_lines() {
    let dir = tempfile::tempdir().unwrap();
    let principals = write(
        dir.path(),
        "title.principals.tsv",
        "tconst\tordering\tnconst\tcategory\tjob\tcharacters\n\
         tt0000001\t1\tnm0000001\tself\t\\N\t[\"Self\"]\n\
         tt0000001\t2\tnm0000002\tactor\t\\N\n\
         tt0000001\tx2\tnm0000002\tactor\t\\N\t\\N\n\
         tt0000001\t3\t\\N\tactor\t\\N\t\\N\n\
         \n\
         tt0000001\t4\tnm0000002\t\\N\t\\N\t\\N\n\
         tt0000001\t5\tnm0000002\tactor\t\\N\t\\N\textra\n\
         tt0000001\t6\tnm0000003\tactor\t\\N\t\\N\n",
    );
    let mut basics_bytes = BASICS.as_bytes().to_vec();
    basics_bytes.extend_from_slice(b"tt0000006\tmovie\tA\tA\t2\t\\N\t\\N\t\\N\t\\N\n");
    basics_bytes.extend_from_slice(b"tt0000007\tmovie\tA\tA\t0\t19x5\t\\N\t\\N\t\\N\n");
    basics_bytes.extend_from_slice(b"tt0000008\tmovie\t\xff\xfe\tA\t0\t\\N\t\\N\t\\N\t\\N\n");
    basics_bytes.extend_from_slice(b"tt0000009\tmovie\tB\tB\t0\t\\N\t\\N\t\\N\t\\N\n");
    let basics = dir.path().join("title.basics.tsv");
    std::fs::write(&basics, &basics_bytes).unwrap();
    let ratings = write(
        dir.path(),
        "title.ratings.tsv",
        "tconst\taverageRating\tnumVotes\ntt0000001\tNaN\t5\ntt0000002\t7.5\t1.5\ntt0000003\t7.5\t10\n",
    );
    let crew = write(
        dir.path(),
        "title.crew.tsv",
        "tconst\tdirectors\twriters\ntt0000001\tnm0000001,,nm0000002\t\\N\ntt0000002\tnm0000001\t\\N\n",
    );
    let paths = vec![
        principals.clone(),
        basics.clone(),
        ratings.clone(),
        crew.clone(),
    ];
    let (m, report) = imdb_tsv::load(&paths, &LoadOptions::default()).unwrap();

    let got: Vec<(String, u64, String)> = report
        .malformed
        .iter()
        .map(|b| {
            (
                b.file.file_name().unwrap().to_string_lossy().into_owned(),
                b.line,
                b.message.clone(),
            )
        })
        .collect();
    let expected: Vec<(&str, u64, &str)> = vec![
        ("title.basics.tsv", 7, "column `isAdult`: expected 0 or 1, found `2`"),
        ("title.basics.tsv", 8, "column `startYear`: not an integer: `19x5`"),
        ("title.basics.tsv", 9, "invalid UTF-8 at byte 17"),
        ("title.principals.tsv", 3, "expected 6 tab-separated columns (tconst ordering nconst category job characters), found 5"),
        ("title.principals.tsv", 4, "column `ordering`: not an integer: `x2`"),
        ("title.principals.tsv", 5, "column `nconst`: missing id"),
        ("title.principals.tsv", 6, "expected 6 tab-separated columns (tconst ordering nconst category job characters), found 1"),
        ("title.principals.tsv", 7, "column `category`: missing"),
        ("title.principals.tsv", 8, "expected 6 tab-separated columns (tconst ordering nconst category job characters), found 7"),
        ("title.ratings.tsv", 2, "column `averageRating`: not a number: `NaN`"),
        ("title.ratings.tsv", 3, "column `numVotes`: not an integer: `1.5`"),
        ("title.crew.tsv", 2, "column `directors`: empty id in list `nm0000001,,nm0000002`"),
    ];
    let expected: Vec<(String, u64, String)> = expected
        .into_iter()
        .map(|(f, l, m)| (f.to_string(), l, m.to_string()))
        .collect();
    assert_eq!(got, expected);
    assert_eq!(report.malformed_count(), 12);
    let per_file: Vec<(u64, u64)> = report.files.iter().map(|f| (f.rows, f.malformed)).collect();
    assert_eq!(per_file, vec![(9, 3), (8, 6), (3, 2), (2, 1)]);

    // Skipped rows leave nothing behind; good rows load.
    assert_eq!(m.node_by_key("tt0000006"), None);
    assert_eq!(m.node_by_key("tt0000007"), None);
    assert_eq!(m.node_by_key("tt0000008"), None);
    assert_eq!(labels(&m, "tt0000009"), vec!["Movie", "Title"]);
    assert_eq!(prop(&m, "tt0000003", "averageRating"), Value::Float(7.5));
    assert_eq!(prop(&m, "tt0000001", "averageRating"), Value::Null);
    assert_eq!(prop(&m, "tt0000002", "numVotes"), Value::Null);
    assert_eq!(
        edges(&m),
        vec![
            edge("nm0000001", "DIRECTOR", "tt0000002", &[]),
            edge(
                "nm0000001",
                "SELF",
                "tt0000001",
                &[("characters", s("[\"Self\"]")), ("ordering", i(1))]
            ),
            edge("nm0000003", "ACTOR", "tt0000001", &[("ordering", i(6))]),
        ]
    );
    // nm0000003 is not in a name.basics file here: dangling.
    assert_eq!(labels(&m, "nm0000003"), vec!["Person"]);
    assert_eq!(report.dangling_nodes, 2, "nm0000001 and nm0000003");

    // max_reported limits the kept entries, not the counts.
    let few = LoadOptions {
        strict: false,
        max_reported: 1,
        ..Default::default()
    };
    let (_, report) = imdb_tsv::load(&paths, &few).unwrap();
    assert_eq!(report.malformed.len(), 4);
    assert_eq!(report.malformed_count(), 12);

    // strict: the first malformed row (in load order) is an error with file:line.
    let strict = LoadOptions {
        strict: true,
        max_reported: 10,
        ..Default::default()
    };
    let err = load_err(&paths, &strict);
    assert_eq!(
        err,
        format!(
            "{}:7: column `isAdult`: expected 0 or 1, found `2`",
            basics.display()
        )
    );
    // Without the basics files, the first row's ids are dangling references: an error too.
    let err = load_err(std::slice::from_ref(&principals), &strict);
    assert_eq!(
        err,
        format!(
            "{}:2: dangling reference: `tt0000001` is not in a title.basics file",
            principals.display()
        )
    );
    match imdb_tsv::load(&[principals], &strict) {
        Err(Error::Parse { location, .. }) => assert_eq!(location.line, 2),
        other => panic!("expected a parse error, got {:?}", other.map(|_| ())),
    }
}

#[test]
fn wrong_or_missing_header_is_an_error_naming_file_and_header() {
    let dir = tempfile::tempdir().unwrap();
    // Missing column.
    let p = write(
        dir.path(),
        "title.ratings.tsv",
        "tconst\taverageRating\ntt0000001\t5.0\n",
    );
    let err = load_err(std::slice::from_ref(&p), &LoadOptions::default());
    assert!(err.starts_with(&p.display().to_string()), "{err}");
    assert!(err.contains("tconst averageRating numVotes"), "{err}");
    assert!(err.contains("wrong header"), "{err}");
    // Another file's header.
    let p = write(dir.path(), "name.basics.tsv", BASICS);
    let err = load_err(std::slice::from_ref(&p), &LoadOptions::default());
    assert!(err.starts_with(&p.display().to_string()), "{err}");
    assert!(
        err.contains("nconst primaryName birthYear deathYear primaryProfession knownForTitles"),
        "{err}"
    );
    // No header (data on the first line).
    let p = write(dir.path(), "title.crew.tsv", "tt0000001\tnm0000001\t\\N\n");
    let err = load_err(&[p], &LoadOptions::default());
    assert!(
        err.contains("expected the tab-separated columns `tconst directors writers`"),
        "{err}"
    );
    // Comma-separated instead of tabs.
    let p = write(
        dir.path(),
        "title.episode.tsv",
        "tconst,parentTconst,seasonNumber,episodeNumber\n",
    );
    assert!(load_err(&[p], &LoadOptions::default()).contains("wrong header"));
}

#[test]
fn empty_file_is_an_error_header_only_is_fine() {
    let dir = tempfile::tempdir().unwrap();
    let empty = write(dir.path(), "title.principals.tsv", "");
    let err = load_err(std::slice::from_ref(&empty), &LoadOptions::default());
    assert_eq!(
        err,
        format!(
            "{}: empty file, expected header `tconst ordering nconst category job characters` (tab-separated) of title.principals.tsv",
            empty.display()
        )
    );
    // Also when compressed.
    let gz = dir.path().join("title.ratings.tsv.gz");
    std::fs::write(&gz, gzip(b"")).unwrap();
    assert!(load_err(&[gz], &LoadOptions::default()).contains("empty file, expected header"));

    // Header only (with and without newline, with CRLF and a BOM): zero rows.
    let d2 = tempfile::tempdir().unwrap();
    write(
        d2.path(),
        "title.basics.tsv",
        &BASICS[..BASICS.find('\n').unwrap()],
    );
    write(
        d2.path(),
        "name.basics.tsv",
        &NAMES[..NAMES.find('\n').unwrap() + 1].replace('\n', "\r\n"),
    );
    write(
        d2.path(),
        "title.ratings.tsv",
        "\u{feff}tconst\taverageRating\tnumVotes\n",
    );
    let (m, report) = load(&[d2.path().to_path_buf()]);
    assert_eq!(m.node_count(), 0);
    assert_eq!(m.edge_count(), 0);
    assert_eq!(report.files.len(), 3);
    assert!(report.files.iter().all(|f| f.rows == 0 && f.malformed == 0));
}

#[test]
fn windows_line_endings_and_missing_final_newline() {
    let plain = tempfile::tempdir().unwrap();
    let crlf = tempfile::tempdir().unwrap();
    let paths = write_all(plain.path());
    for (n, c) in ALL {
        let c = c.replace('\n', "\r\n");
        write(crlf.path(), n, c.trim_end_matches("\r\n"));
    }
    let (a, _) = load(&paths);
    let (b, report) = load(&[crlf.path().to_path_buf()]);
    assert_eq!(report.malformed_count(), 0);
    assert_eq!(dump(&a), dump(&b));
    expect_full_model(&b);
}

#[test]
fn dangling_ids_get_nodes_with_only_their_id() {
    let dir = tempfile::tempdir().unwrap();
    let basics = write(dir.path(), "title.basics.tsv", BASICS);
    let principals = write(
        dir.path(),
        "title.principals.tsv",
        "tconst\tordering\tnconst\tcategory\tjob\tcharacters\n\
         tt0000001\t1\tnm0000009\tactor\t\\N\t\\N\n\
         tt0000099\t1\tnm0000009\tactor\t\\N\t\\N\n\
         tt0000099\t2\tzz42\tcomposer\t\\N\t\\N\n\
         tt12345678\t1\tnm10000000\tactor\t\\N\t\\N\n",
    );
    let ratings = write(
        dir.path(),
        "title.ratings.tsv",
        "tconst\taverageRating\tnumVotes\ntt0000077\t6.5\t12\n",
    );
    let episodes = write(
        dir.path(),
        "title.episode.tsv",
        "tconst\tparentTconst\tseasonNumber\tepisodeNumber\ntt0000088\ttt0000003\t\\N\t3\ntt0000089\t\\N\t1\t\\N\n",
    );
    let (m, report) = load(&[principals, basics, ratings, episodes]);
    assert_eq!(report.dangling_nodes, 8);
    for (key, l, p) in [
        ("nm0000009", vec!["Person"], Some("Person")),
        ("tt0000099", vec!["Title"], Some("Title")),
        ("zz42", vec![], None),
        ("tt12345678", vec!["Title"], Some("Title")),
        ("nm10000000", vec!["Person"], Some("Person")),
        ("tt0000077", vec!["Title"], Some("Title")),
        ("tt0000088", vec!["Title"], Some("Title")),
        ("tt0000089", vec!["Title"], Some("Title")),
        ("tt0000003", vec!["Title", "TvSeries"], Some("Title")),
    ] {
        assert_eq!(labels(&m, key), l, "{key}");
        assert_eq!(primary(&m, key).as_deref(), p, "{key}");
    }
    assert_eq!(props(&m, "nm0000009"), vec![]);
    assert_eq!(props(&m, "tt0000099"), vec![]);
    assert_eq!(
        props(&m, "tt0000077"),
        vec![
            ("averageRating".into(), Value::Float(6.5)),
            ("numVotes".into(), i(12))
        ]
    );
    assert_eq!(props(&m, "tt0000088"), vec![("episodeNumber".into(), i(3))]);
    assert_eq!(props(&m, "tt0000089"), vec![("seasonNumber".into(), i(1))]);
    let mut expected = vec![
        edge("nm0000009", "ACTOR", "tt0000001", &[("ordering", i(1))]),
        edge("nm0000009", "ACTOR", "tt0000099", &[("ordering", i(1))]),
        edge("zz42", "COMPOSER", "tt0000099", &[("ordering", i(2))]),
        edge("nm10000000", "ACTOR", "tt12345678", &[("ordering", i(1))]),
        edge("tt0000088", "EPISODE_OF", "tt0000003", &[]),
    ];
    expected.sort_by(|a, b| format!("{a:?}").cmp(&format!("{b:?}")));
    assert_eq!(edges(&m), expected);
    assert_eq!(m.node_count(), 5 + 8);
}

#[test]
fn non_canonical_ids_resolve_to_the_same_node() {
    let dir = tempfile::tempdir().unwrap();
    let basics = write(
        dir.path(),
        "title.basics.tsv",
        "tconst\ttitleType\tprimaryTitle\toriginalTitle\tisAdult\tstartYear\tendYear\truntimeMinutes\tgenres\n\
         tt1\tmovie\tShort id\tShort id\t0\t\\N\t\\N\t\\N\t\\N\n\
         tt0000001\tmovie\tPadded id\tPadded id\t0\t\\N\t\\N\t\\N\t\\N\n\
         tt00000001\tmovie\tOver-padded id\tOver-padded id\t0\t\\N\t\\N\t\\N\t\\N\n",
    );
    let principals = write(
        dir.path(),
        "title.principals.tsv",
        "tconst\tordering\tnconst\tcategory\tjob\tcharacters\n\
         tt1\t1\tnm1\tactor\t\\N\t\\N\n\
         tt0000001\t1\tnm1\tactor\t\\N\t\\N\n\
         tt00000001\t1\tnm1\tactor\t\\N\t\\N\n",
    );
    let (m, report) = load(&[principals, basics]);
    assert_eq!(m.node_count(), 4);
    assert_eq!(report.dangling_nodes, 1, "only nm1");
    assert_eq!(prop(&m, "tt1", "primaryTitle"), s("Short id"));
    assert_eq!(prop(&m, "tt0000001", "primaryTitle"), s("Padded id"));
    assert_eq!(prop(&m, "tt00000001", "primaryTitle"), s("Over-padded id"));
    assert_eq!(
        edges(&m),
        vec![
            edge("nm1", "ACTOR", "tt00000001", &[("ordering", i(1))]),
            edge("nm1", "ACTOR", "tt0000001", &[("ordering", i(1))]),
            edge("nm1", "ACTOR", "tt1", &[("ordering", i(1))]),
        ]
    );
}

#[test]
fn crew_edges_already_in_principals_are_skipped_and_counted() {
    let dir = tempfile::tempdir().unwrap();
    let principals = write(
        dir.path(),
        "title.principals.tsv",
        "tconst\tordering\tnconst\tcategory\tjob\tcharacters\n\
         tt0000001\t1\tnm0000001\tdirector\t\\N\t\\N\n\
         tt0000001\t2\tnm0000002\twriter\tscreenplay\t\\N\n\
         tt0000001\t3\tnm0000003\tactor\t\\N\t\\N\n",
    );
    let crew = write(
        dir.path(),
        "title.crew.tsv",
        "tconst\tdirectors\twriters\n\
         tt0000001\tnm0000001,nm0000003\tnm0000002,nm0000001,nm0000002\n\
         tt0000002\t\\N\tnm0000003\n\
         tt0000003\t\\N\t\\N\n",
    );
    let (m, report) = load(&[crew.clone(), principals.clone()]);
    // Skipped: DIRECTOR nm1 (principals), WRITER nm2 (principals), WRITER nm2 again (same row).
    assert_eq!(report.duplicate_edges_skipped, 3);
    let mut expected = vec![
        edge("nm0000001", "DIRECTOR", "tt0000001", &[("ordering", i(1))]),
        edge(
            "nm0000002",
            "WRITER",
            "tt0000001",
            &[("job", s("screenplay")), ("ordering", i(2))],
        ),
        edge("nm0000003", "ACTOR", "tt0000001", &[("ordering", i(3))]),
        edge("nm0000003", "DIRECTOR", "tt0000001", &[]),
        edge("nm0000001", "WRITER", "tt0000001", &[]),
        edge("nm0000003", "WRITER", "tt0000002", &[]),
    ];
    expected.sort_by(|a, b| format!("{a:?}").cmp(&format!("{b:?}")));
    assert_eq!(edges(&m), expected);
    // A crew row without directors or writers creates nothing.
    assert_eq!(m.node_by_key("tt0000003"), None);
    assert_eq!(report.dangling_nodes, 5);

    // Crew alone: every edge is added.
    let (m, report) = load(&[crew]);
    assert_eq!(report.duplicate_edges_skipped, 1);
    assert_eq!(m.edge_count(), 5);
}

#[test]
fn episodes_link_to_their_series() {
    let dir = tempfile::tempdir().unwrap();
    let paths = write_all(dir.path());
    let (m, _) = load(&paths);
    let ep = node(&m, "tt0000004");
    let series = node(&m, "tt0000003");
    let out: Vec<(u32, &str)> = m
        .out()
        .range(ep)
        .map(|pos| {
            let (dst, ty) = m.edge_target(pos as u32).unwrap();
            (dst, m.rel_types().name(ty).unwrap())
        })
        .collect();
    assert_eq!(out, vec![(series, "EPISODE_OF")]);
    assert_eq!(m.node_property(ep, "seasonNumber"), ValueRef::Int(1));
    assert_eq!(m.node_property(ep, "episodeNumber"), ValueRef::Int(2));
    assert_eq!(m.node_property(series, "seasonNumber"), ValueRef::Null);
}

#[test]
fn truncated_gzip_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let mut big = String::from(PRINCIPALS);
    for k in 0..20_000 {
        big.push_str(&format!(
            "tt{:07}\t1\tnm{:07}\tactor\t\\N\t[\"Role {k}\"]\n",
            k % 977,
            k
        ));
    }
    let bytes = gzip(big.as_bytes());
    let p = dir.path().join("title.principals.tsv.gz");
    std::fs::write(&p, &bytes[..bytes.len() / 2]).unwrap();
    let err = load_err(std::slice::from_ref(&p), &LoadOptions::default());
    assert!(err.starts_with(&p.display().to_string()), "{err}");
    assert!(err.contains("truncated"), "{err}");
    // Intact, it loads.
    std::fs::write(&p, &bytes).unwrap();
    let (m, report) = load(&[p]);
    assert_eq!(report.files[0].rows, 20_005);
    assert_eq!(m.edge_count(), 20_005);
}

#[test]
fn file_names_and_missing_files() {
    let dir = tempfile::tempdir().unwrap();
    let odd = write(dir.path(), "title.akas.tsv", "titleId\tordering\n");
    let err = load_err(std::slice::from_ref(&odd), &LoadOptions::default());
    assert!(err.starts_with(&odd.display().to_string()), "{err}");
    for name in [
        "title.basics.tsv[.gz]",
        "name.basics.tsv[.gz]",
        "title.principals.tsv[.gz]",
        "title.ratings.tsv[.gz]",
        "title.crew.tsv[.gz]",
        "title.episode.tsv[.gz]",
    ] {
        assert!(err.contains(name), "{err}");
    }
    let missing = dir.path().join("title.basics.tsv.gz");
    let err = load_err(std::slice::from_ref(&missing), &LoadOptions::default());
    assert!(err.starts_with(&missing.display().to_string()), "{err}");

    // A directory ignores other files but needs at least one IMDb file.
    let err = load_err(&[dir.path().to_path_buf()], &LoadOptions::default());
    assert!(err.contains("holds no IMDb TSV files"), "{err}");
    write(dir.path(), "README.txt", "hello");
    write(dir.path(), "title.ratings.tsv", RATINGS);
    let (m, report) = load(&[dir.path().to_path_buf()]);
    assert_eq!(report.files.len(), 1);
    assert_eq!(m.node_count(), 2);
    // Both plain and compressed of one kind in a directory is ambiguous.
    write_gz(dir.path(), "title.ratings.tsv", RATINGS);
    let err = load_err(&[dir.path().to_path_buf()], &LoadOptions::default());
    assert!(err.contains("title.ratings.tsv.gz"), "{err}");

    assert!(load_err(&[], &LoadOptions::default()).contains("no IMDb files given"));

    assert_eq!(
        detect_file(Path::new("data/title.episode.tsv.gz")),
        Some(ImdbFile::TitleEpisode)
    );
    assert_eq!(detect_file(Path::new("data/title.episode.csv")), None);
}

#[test]
fn load_into_an_existing_builder() {
    let dir = tempfile::tempdir().unwrap();
    let paths = write_all(dir.path());
    let mut b = ModelBuilder::new();
    // A node that exists before the load is found by key, not duplicated or counted as dangling.
    let pre = b.add_node("nm0000009", &["Person"]);
    let other = b.add_node("x", &["Other"]);
    let knows = b.rel_type("KNOWS");
    b.add_edge(pre, other, knows).unwrap();
    let principals = write(
        dir.path(),
        "title.principals.tsv",
        "tconst\tordering\tnconst\tcategory\tjob\tcharacters\ntt0000001\t1\tnm0000009\tactor\t\\N\t\\N\n",
    );
    let mut report = LoadReport::default();
    imdb_tsv::load_into(
        &mut b,
        &[paths[0].clone(), principals],
        &LoadOptions::default(),
        &mut report,
    )
    .unwrap();
    assert_eq!(report.dangling_nodes, 0);
    let m = b.freeze().unwrap();
    assert_eq!(m.node_count(), 7);
    assert_eq!(
        edges(&m),
        vec![
            edge("nm0000009", "ACTOR", "tt0000001", &[("ordering", i(1))]),
            edge("nm0000009", "KNOWS", "x", &[]),
        ]
    );
}

#[test]
fn loading_into_a_builder_that_already_holds_ids_merges_into_those_nodes() {
    let dir = tempfile::tempdir().unwrap();
    let paths = vec![
        write(dir.path(), "title.basics.tsv", BASICS),
        write(dir.path(), "title.principals.tsv", PRINCIPALS),
    ];
    let mut builder = ModelBuilder::new();
    let existing = builder.add_node("tt0000002", &["Title"]);
    let extra = builder.add_node("nm0000003", &["Person"]);
    let mut report = LoadReport::default();
    imdb_tsv::load_into(&mut builder, &paths, &LoadOptions::default(), &mut report).unwrap();
    assert_eq!(builder.node_id("tt0000002"), Some(existing));
    assert_eq!(builder.node_id("nm0000003"), Some(extra));
    let m = builder.freeze().unwrap();
    // 5 titles and 3 people, each once: the two nodes added before the load were reused.
    assert_eq!(m.node_count(), 8);
    assert_eq!(
        prop(&m, "tt0000002", "primaryTitle"),
        s("The \"Quoted\" Film")
    );
    assert_eq!(report.dangling_nodes, 2, "nm0000001 and nm0000002 only");
}

#[test]
fn strict_loads_fail_on_a_dangling_reference() {
    let dir = tempfile::tempdir().unwrap();
    let basics = write(dir.path(), "title.basics.tsv", BASICS);
    let principals = write(
        dir.path(),
        "title.principals.tsv",
        "tconst\tordering\tnconst\tcategory\tjob\tcharacters\n\
         tt0000001\t1\tnm0000009\tactor\t\\N\t\\N\n",
    );
    let strict = LoadOptions {
        strict: true,
        ..LoadOptions::default()
    };
    let paths = [basics.clone(), principals.clone()];
    let err = load_err(&paths, &strict);
    assert_eq!(
        err,
        format!(
            "{}:2: dangling reference: `nm0000009` is not in a name.basics file",
            principals.display()
        )
    );
    // Not strict: the edge loads, to a node counted as dangling.
    let (m, report) = load(&paths);
    assert_eq!((m.edge_count(), report.dangling_nodes), (1, 1));
    let ratings = write(
        dir.path(),
        "title.ratings.tsv",
        "tconst\taverageRating\tnumVotes\ntt0000001\t5.0\t3\ntt7654321\t5.0\t3\n",
    );
    let err = load_err(&[basics, ratings.clone()], &strict);
    assert_eq!(
        err,
        format!(
            "{}:3: dangling reference: `tt7654321` is not in a title.basics file",
            ratings.display()
        )
    );
}

/// Issue 31, item 7: a second row for a key (tconst in title.basics, title.ratings and
/// title.episode; nconst in name.basics) is a malformed row reported with its file and line, and
/// the first row is kept (it silently overwrote the first); `--strict` makes it an error there.
#[test]
fn duplicate_keys_are_malformed_rows_and_the_first_row_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let basics = write(
        dir.path(),
        "title.basics.tsv",
        &format!("{BASICS}tt0000002\tshort\tImpostor\tImpostor\t0\t2020\t\\N\t\\N\tDrama\n"),
    );
    let names = write(
        dir.path(),
        "name.basics.tsv",
        &format!("{NAMES}nm0000001\tSomeone Else\t1950\t\\N\t\\N\t\\N\n"),
    );
    let ratings = write(
        dir.path(),
        "title.ratings.tsv",
        &format!("{RATINGS}tt0000001\t1.0\t99\n"),
    );
    let episodes = write(
        dir.path(),
        "title.episode.tsv",
        &format!("{EPISODES}tt0000004\ttt0000001\t9\t9\n"),
    );
    let paths = vec![basics.clone(), names, ratings, episodes];
    let (m, report) = load(&paths);
    let got: Vec<(String, u64, String)> = report
        .malformed
        .iter()
        .map(|b| {
            (
                b.file.file_name().unwrap().to_string_lossy().into_owned(),
                b.line,
                b.message.clone(),
            )
        })
        .collect();
    let expected = [
        (
            "title.basics.tsv",
            7,
            "duplicate tconst `tt0000002`: an earlier title.basics.tsv row defines it",
        ),
        (
            "name.basics.tsv",
            5,
            "duplicate nconst `nm0000001`: an earlier name.basics.tsv row defines it",
        ),
        (
            "title.ratings.tsv",
            4,
            "duplicate tconst `tt0000001`: an earlier title.ratings.tsv row defines it",
        ),
        (
            "title.episode.tsv",
            3,
            "duplicate tconst `tt0000004`: an earlier title.episode.tsv row defines it",
        ),
    ]
    .map(|(f, l, s)| (f.to_string(), l, s.to_string()));
    assert_eq!(got, expected);
    assert_eq!(report.malformed_count(), 4);
    // The first rows' values and labels, not the duplicates'.
    assert_eq!(
        prop(&m, "tt0000002", "primaryTitle"),
        Value::Str("The \"Quoted\" Film".into())
    );
    assert_eq!(labels(&m, "tt0000002"), vec!["Movie", "Title"]);
    assert_eq!(prop(&m, "nm0000001", "birthYear"), Value::Int(1899));
    assert_eq!(prop(&m, "tt0000001", "numVotes"), Value::Int(2000));
    assert_eq!(prop(&m, "tt0000004", "seasonNumber"), Value::Int(1));
    let episode_of = m.rel_types().get("EPISODE_OF").unwrap();
    let ep = m.node_by_key("tt0000004").unwrap();
    assert_eq!(m.out().neighbors_of_type(ep, episode_of).len(), 1);

    let strict = LoadOptions {
        strict: true,
        ..Default::default()
    };
    assert_eq!(
        load_err(&paths, &strict),
        format!(
            "{}:7: duplicate tconst `tt0000002`: an earlier title.basics.tsv row defines it",
            basics.display()
        )
    );
}
