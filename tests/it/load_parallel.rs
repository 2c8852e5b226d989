//! Issue 36: the IMDb TSV loader parses blocks of lines on the thread pool and applies them in file
//! order. The snapshot and the report must not depend on the number of threads or on where the
//! blocks end, malformed rows at block boundaries included.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use gemp::generate::imdb::{generate_imdb, ImdbGenConfig};
use gemp::io::format::Format;
use gemp::io::{LoadOptions, LoadReport};
use gemp::model::snapshot;

/// `lines` (each without its end) with `extra` inserted, each `(index, line)` landing at 0-based
/// line `index` of the result (indices ascending); the 1-based line numbers the extra lines get.
fn insert_lines(lines: &[Vec<u8>], extra: &[(usize, Vec<u8>)]) -> (Vec<u8>, Vec<u64>) {
    let mut out = Vec::new();
    let mut numbers = Vec::new();
    let mut extra = extra.iter().peekable();
    let mut original = lines.iter();
    let mut index = 0usize;
    loop {
        let line = match extra.next_if(|(at, _)| *at == index) {
            Some((_, line)) => {
                numbers.push(index as u64 + 1);
                line
            }
            None => match original.next() {
                Some(line) => line,
                None => break,
            },
        };
        out.extend_from_slice(line);
        out.push(b'\n');
        index += 1;
    }
    assert!(extra.next().is_none(), "an index past the end");
    (out, numbers)
}

/// The lines of a file, without their ends.
fn read_lines(path: &Path) -> Vec<Vec<u8>> {
    let bytes = std::fs::read(path).unwrap();
    bytes
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(<[u8]>::to_vec)
        .collect()
}

/// Generates `titles` / `persons` into `dir`, adds crew and episode files, and injects malformed
/// rows (and a few odd but valid ones) into every file. Returns the expected malformed rows
/// `(file name, line, message)` in load order.
fn sample(dir: &Path, titles: u64, persons: u64) -> Vec<(String, u64, String)> {
    let config = ImdbGenConfig {
        titles,
        persons,
        seed: 36,
        ..Default::default()
    };
    generate_imdb(&config, dir).unwrap();
    let mut crew = String::from("tconst\tdirectors\twriters\n");
    for t in 1..=titles.min(500) {
        let d = if t % 4 == 0 {
            "\\N".to_string()
        } else {
            format!("nm{:07}", t * 13 % persons + 1)
        };
        writeln!(crew, "tt{t:07}\t{d}\tnm{:07}", t * 7 % persons + 1).unwrap();
    }
    std::fs::write(dir.join("title.crew.tsv"), crew).unwrap();
    let mut episodes = String::from("tconst\tparentTconst\tseasonNumber\tepisodeNumber\n");
    for t in 1..=titles.min(300) {
        writeln!(episodes, "tt{:07}\ttt{:07}\t1\t{t}", t + 100, t % 7 + 1).unwrap();
    }
    std::fs::write(dir.join("title.episode.tsv"), episodes).unwrap();

    let mut expected = Vec::new();
    let mut inject = |name: &str, extra: Vec<(usize, Vec<u8>)>, messages: Vec<String>| {
        let path = dir.join(name);
        let lines = read_lines(&path);
        let (bytes, numbers) = insert_lines(&lines, &extra);
        std::fs::write(&path, bytes).unwrap();
        for (line, message) in numbers.into_iter().zip(messages) {
            if !message.is_empty() {
                expected.push((name.to_string(), line, message));
            }
        }
    };
    let spread = |n: u64, k: usize| (1..=k).map(move |i| i * n as usize / (k + 1) + 1);

    // title.basics: invalid UTF-8, a bad year, a short row, a duplicate of the first title.
    let basics_first = read_lines(&dir.join("title.basics.tsv"))[1].clone();
    let mut at = spread(titles, 4);
    inject(
        "title.basics.tsv",
        vec![
            (
                at.next().unwrap(),
                b"tt9900001\tmovie\tB\xffd\tBad\t0\t2000\t\\N\t90\tDrama".to_vec(),
            ),
            (
                at.next().unwrap(),
                b"tt9900002\tmovie\tX\tX\t0\t20x0\t\\N\t90\tDrama".to_vec(),
            ),
            (at.next().unwrap(), b"tt9900003\tmovie\tX".to_vec()),
            (at.next().unwrap(), basics_first),
        ],
        vec![
            "invalid UTF-8 at byte 18".into(),
            "column `startYear`: not an integer: `20x0`".into(),
            "expected 9 tab-separated columns (tconst titleType primaryTitle originalTitle \
             isAdult startYear endYear runtimeMinutes genres), found 3"
                .into(),
            "duplicate tconst `tt0000001`: an earlier title.basics.tsv row defines it".into(),
        ],
    );
    // name.basics: a bad year, an empty line, a valid row with a Windows line end.
    let mut at = spread(persons, 3);
    inject(
        "name.basics.tsv",
        vec![
            (
                at.next().unwrap(),
                b"nm9900001\tA\t19x0\t\\N\tactor\t\\N".to_vec(),
            ),
            (at.next().unwrap(), Vec::new()),
            (
                at.next().unwrap(),
                b"nm9900002\tCr Lf\t1950\t\\N\tactor\t\\N\r".to_vec(),
            ),
        ],
        vec![
            "column `birthYear`: not an integer: `19x0`".into(),
            "expected 6 tab-separated columns (nconst primaryName birthYear deathYear \
             primaryProfession knownForTitles), found 1"
                .into(),
            String::new(),
        ],
    );
    // title.principals: a short row, a missing category, two dangling references (valid rows).
    let principals = read_lines(&dir.join("title.principals.tsv")).len() as u64;
    let mut at = spread(principals, 4);
    inject(
        "title.principals.tsv",
        vec![
            (
                at.next().unwrap(),
                b"tt0000001\t1\tnm0000001\tactor\t\\N".to_vec(),
            ),
            (
                at.next().unwrap(),
                b"tt9800001\t1\tnm0000002\tself\t\\N\t\\N".to_vec(),
            ),
            (
                at.next().unwrap(),
                b"tt0000002\t1\tnm0000001\t\\N\t\\N\t\\N".to_vec(),
            ),
            (
                at.next().unwrap(),
                b"tt0000003\t1\tnm9800001\tactor\t\\N\t[\"X\"]".to_vec(),
            ),
        ],
        vec![
            "expected 6 tab-separated columns (tconst ordering nconst category job \
             characters), found 5"
                .into(),
            String::new(),
            "column `category`: missing".into(),
            String::new(),
        ],
    );
    // title.ratings: a duplicate of the first rating, a bad rating.
    let ratings_lines = read_lines(&dir.join("title.ratings.tsv"));
    let ratings_first = ratings_lines[1].clone();
    let first_rated = String::from_utf8(
        ratings_first
            .split(|&b| b == b'\t')
            .next()
            .unwrap()
            .to_vec(),
    )
    .unwrap();
    let mut at = spread(ratings_lines.len() as u64, 2);
    inject(
        "title.ratings.tsv",
        vec![
            (at.next().unwrap(), ratings_first),
            (at.next().unwrap(), b"tt0000005\tnan\t10".to_vec()),
        ],
        vec![
            format!(
                "duplicate tconst `{first_rated}`: an earlier title.ratings.tsv row defines it"
            ),
            "column `averageRating`: not a number: `nan`".into(),
        ],
    );
    // title.crew: an empty id in a list, a dangling director.
    inject(
        "title.crew.tsv",
        vec![
            (100, b"tt0000009\tnm0000001,\t\\N".to_vec()),
            (200, b"tt0000010\tnm9700001\t\\N".to_vec()),
        ],
        vec![
            "column `directors`: empty id in list `nm0000001,`".into(),
            String::new(),
        ],
    );
    // title.episode: a missing parent id, and a last line without its newline.
    let path = dir.join("title.episode.tsv");
    let mut bytes = std::fs::read(&path).unwrap();
    let lines = bytes.iter().filter(|&&b| b == b'\n').count() as u64;
    bytes.extend_from_slice(b"tt9900010\t\t1\t1\ntt9900011\ttt0000001\t2\t2");
    std::fs::write(&path, bytes).unwrap();
    expected.push((
        "title.episode.tsv".into(),
        lines + 1,
        "column `parentTconst`: missing id".into(),
    ));
    expected
}

/// Loads `dir` on a pool of `threads` threads with blocks of `chunk_bytes` (0: the default);
/// the snapshot's bytes and the report.
fn load(
    dir: &Path,
    threads: usize,
    chunk_bytes: usize,
    strict: bool,
) -> gemp::Result<(Vec<u8>, LoadReport)> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let options = LoadOptions {
        strict,
        max_reported: 1000,
        chunk_bytes,
        ..Default::default()
    };
    let (model, report) =
        pool.install(|| gemp::io::load(&[dir.to_path_buf()], Format::Auto, &options))?;
    let out = tempfile::NamedTempFile::new().unwrap();
    snapshot::write(&model, out.path()).unwrap();
    Ok((std::fs::read(out.path()).unwrap(), report))
}

/// The malformed rows of a report as `(file name, line, message)`.
fn malformed(report: &LoadReport) -> Vec<(String, u64, String)> {
    report
        .malformed
        .iter()
        .map(|m| {
            let name = m.file.file_name().unwrap().to_string_lossy().into_owned();
            (name, m.line, m.message.clone())
        })
        .collect()
}

/// Per file: name, rows, malformed rows.
fn counts(report: &LoadReport) -> Vec<(PathBuf, u64, u64)> {
    report
        .files
        .iter()
        .map(|f| (f.file.clone(), f.rows, f.malformed))
        .collect()
}

#[test]
fn one_thread_and_four_give_the_same_snapshot_and_report() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let expected = sample(&data, 20_000, 30_000);
    let (bytes, report) = load(&data, 1, 0, false).unwrap();
    assert_eq!(malformed(&report), expected);
    // Dangling: a title and a person of principals, a director of crew, an episode of episodes.
    assert_eq!(report.dangling_nodes, 4);
    // Default blocks, blocks of about 4 KiB and of about 100 bytes, on one thread and four.
    for (threads, chunk) in [(4, 0), (4, 4096), (1, 4093), (4, 100)] {
        let (other, other_report) = load(&data, threads, chunk, false).unwrap();
        assert!(
            other == bytes,
            "the snapshot differs with {threads} threads and blocks of {chunk} bytes"
        );
        assert_eq!(
            malformed(&other_report),
            expected,
            "{threads} threads, {chunk} bytes"
        );
        assert_eq!(counts(&other_report), counts(&report));
        assert_eq!(other_report.dangling_nodes, report.dangling_nodes);
        assert_eq!(
            other_report.duplicate_edges_skipped,
            report.duplicate_edges_skipped
        );
    }
}

/// Blocks of one line each: every malformed row starts and ends a block. Also through `.gz` files
/// (decompressed on one thread, parsed on four), and with `strict`, whose error names the same
/// first malformed row whatever the threads and blocks.
#[test]
fn one_line_blocks_gzip_and_strict() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let expected = sample(&data, 2_000, 3_000);
    let (bytes, report) = load(&data, 1, 0, false).unwrap();
    assert_eq!(malformed(&report), expected);
    for (threads, chunk) in [(4, 1), (1, 1), (2, 37)] {
        let (other, other_report) = load(&data, threads, chunk, false).unwrap();
        assert!(other == bytes, "{threads} threads, blocks of {chunk} bytes");
        assert_eq!(malformed(&other_report), expected);
        assert_eq!(counts(&other_report), counts(&report));
    }

    let gz = dir.path().join("gz");
    std::fs::create_dir(&gz).unwrap();
    for entry in std::fs::read_dir(&data).unwrap() {
        let path = entry.unwrap().path();
        let name = format!("{}.gz", path.file_name().unwrap().to_string_lossy());
        let file = std::fs::File::create(gz.join(name)).unwrap();
        let mut encoder = flate2::write::GzEncoder::new(file, flate2::Compression::fast());
        encoder.write_all(&std::fs::read(&path).unwrap()).unwrap();
        encoder.finish().unwrap();
    }
    for (threads, chunk) in [(4, 0), (4, 1), (1, 4093)] {
        let (other, other_report) = load(&gz, threads, chunk, false).unwrap();
        assert!(
            other == bytes,
            "gzip, {threads} threads, blocks of {chunk} bytes"
        );
        assert_eq!(malformed(&other_report).len(), expected.len());
    }

    let (file, line, message) = &expected[0];
    for (threads, chunk) in [(1, 0), (4, 0), (4, 1), (3, 64)] {
        let err = load(&data, threads, chunk, true).unwrap_err();
        let at = err.position().expect("a malformed row's location");
        assert_eq!(at.line, *line, "{threads} threads, blocks of {chunk} bytes");
        assert!(at.file.as_ref().is_some_and(|f| f.ends_with(file)));
        assert!(err.to_string().ends_with(message.as_str()), "{err}");
    }
}
