//! Tests of the synthetic IMDb dump generator (`gemp::generate`): exact format, referential
//! integrity, determinism, gzip, realistic shape, and the committed sample in `datasets/imdb-sample`.

use std::collections::{HashMap, HashSet};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Instant;

use gemp::generate::{generate_imdb, GenSummary, ImdbGenConfig};
use gemp::Error;

const FILES: [&str; 4] = [
    "title.basics",
    "name.basics",
    "title.principals",
    "title.ratings",
];
const HEADERS: [&str; 4] = [
    "tconst\ttitleType\tprimaryTitle\toriginalTitle\tisAdult\tstartYear\tendYear\truntimeMinutes\tgenres",
    "nconst\tprimaryName\tbirthYear\tdeathYear\tprimaryProfession\tknownForTitles",
    "tconst\tordering\tnconst\tcategory\tjob\tcharacters",
    "tconst\taverageRating\tnumVotes",
];
use gemp::generate::imdb::GENRES;
const TYPES: [&str; 11] = [
    "tvEpisode",
    "short",
    "movie",
    "video",
    "tvSeries",
    "tvMovie",
    "tvMiniSeries",
    "tvSpecial",
    "tvShort",
    "videoGame",
    "tvPilot",
];

fn config(titles: u64, persons: u64, seed: u64) -> ImdbGenConfig {
    ImdbGenConfig {
        titles,
        persons,
        seed,
        ..ImdbGenConfig::default()
    }
}

fn read_bytes(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn all_bytes(dir: &Path, ext: &str) -> Vec<Vec<u8>> {
    FILES
        .iter()
        .map(|f| read_bytes(&dir.join(format!("{f}.{ext}"))))
        .collect()
}

/// A generated dump parsed into rows of fields.
struct Dump {
    summary: Option<GenSummary>,
    /// Header + rows of each file, in FILES order.
    tables: Vec<(String, Vec<Vec<String>>)>,
}

impl Dump {
    fn load(dir: &Path, summary: Option<GenSummary>) -> Dump {
        let tables = FILES
            .iter()
            .map(|f| {
                let bytes = read_bytes(&dir.join(format!("{f}.tsv")));
                let text = String::from_utf8(bytes).expect("valid UTF-8");
                assert!(text.ends_with('\n'), "{f}: missing final newline");
                let mut lines = text.lines();
                let header = lines.next().expect("header").to_string();
                let rows = lines
                    .map(|l| l.split('\t').map(str::to_string).collect())
                    .collect();
                (header, rows)
            })
            .collect();
        Dump { summary, tables }
    }

    fn basics(&self) -> &[Vec<String>] {
        &self.tables[0].1
    }
    fn names(&self) -> &[Vec<String>] {
        &self.tables[1].1
    }
    fn principals(&self) -> &[Vec<String>] {
        &self.tables[2].1
    }
    fn ratings(&self) -> &[Vec<String>] {
        &self.tables[3].1
    }

    /// Credits per person (nconst → count).
    fn credits_per_person(&self) -> HashMap<&str, usize> {
        let mut m = HashMap::new();
        for r in self.principals() {
            *m.entry(r[2].as_str()).or_default() += 1;
        }
        m
    }

    /// Number of titles shared by each pair of persons whose credits in a title fall in the
    /// given category sets (a from `left`, b from `right`, a != b; unordered when left == right).
    fn shared_titles(&self, left: &[&str], right: &[&str]) -> HashMap<(String, String), usize> {
        let mut by_title: HashMap<&str, (Vec<&str>, Vec<&str>)> = HashMap::new();
        for r in self.principals() {
            let e = by_title.entry(r[0].as_str()).or_default();
            if left.contains(&r[3].as_str()) {
                e.0.push(&r[2]);
            }
            if right.contains(&r[3].as_str()) {
                e.1.push(&r[2]);
            }
        }
        let symmetric = left == right;
        let mut pairs: HashMap<(String, String), usize> = HashMap::new();
        for (_, (ls, rs)) in by_title {
            let mut seen = HashSet::new();
            for a in &ls {
                for b in &rs {
                    if a == b || (symmetric && a > b) {
                        continue;
                    }
                    if seen.insert((*a, *b)) {
                        *pairs.entry((a.to_string(), b.to_string())).or_default() += 1;
                    }
                }
            }
        }
        pairs
    }

    /// Movies with at least `min_actors` actors/actresses, one of whom has first name `first`.
    fn movies_with_named_actor(&self, first: &str, min_actors: usize) -> usize {
        let names: HashMap<&str, &str> = self
            .names()
            .iter()
            .map(|r| (r[0].as_str(), r[1].as_str()))
            .collect();
        let movies: HashSet<&str> = self
            .basics()
            .iter()
            .filter(|r| r[1] == "movie")
            .map(|r| r[0].as_str())
            .collect();
        let mut cast: HashMap<&str, Vec<&str>> = HashMap::new();
        for r in self.principals() {
            if movies.contains(r[0].as_str()) && (r[3] == "actor" || r[3] == "actress") {
                cast.entry(&r[0]).or_default().push(&r[2]);
            }
        }
        cast.values()
            .filter(|actors| {
                actors.len() >= min_actors
                    && actors
                        .iter()
                        .any(|n| names[n].split(' ').next() == Some(first))
            })
            .count()
    }
}

fn generate(cfg: &ImdbGenConfig, dir: &Path) -> GenSummary {
    generate_imdb(cfg, dir).unwrap_or_else(|e| panic!("generate: {e}"))
}

/// The mid-size dump shared by several tests (generated once).
fn mid() -> &'static Dump {
    static MID: OnceLock<(tempfile::TempDir, Dump)> = OnceLock::new();
    &MID.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let summary = generate(&config(20_000, 24_000, 7), dir.path());
        let dump = Dump::load(dir.path(), Some(summary));
        (dir, dump)
    })
    .1
}

fn sample_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/imdb-sample")
}

/// The configuration that regenerates the committed sample (see its README).
fn sample_config() -> ImdbGenConfig {
    config(3000, 4000, 42)
}

fn is_id(s: &str, prefix: &str) -> bool {
    s.len() >= 9
        && s.starts_with(prefix)
        && s[2..].bytes().all(|b| b.is_ascii_digit())
        && !s[2..].starts_with("0000000")
}

fn is_null_or_u64(s: &str) -> bool {
    s == "\\N" || (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
}

// ---------------------------------------------------------------------------------------------

#[test]
fn same_seed_gives_identical_bytes_and_other_seeds_differ() {
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    let c = tempfile::tempdir().unwrap();
    let sa = generate(&config(2500, 3000, 11), a.path());
    let sb = generate(&config(2500, 3000, 11), b.path());
    generate(&config(2500, 3000, 12), c.path());
    assert_eq!(
        sa,
        GenSummary {
            files: sa.files.clone(),
            ..sb.clone()
        }
    );
    let (fa, fb, fc) = (
        all_bytes(a.path(), "tsv"),
        all_bytes(b.path(), "tsv"),
        all_bytes(c.path(), "tsv"),
    );
    for i in 0..4 {
        assert!(fa[i] == fb[i], "{} differs for the same seed", FILES[i]);
        assert!(fa[i] != fc[i], "{} equal for different seeds", FILES[i]);
    }
    assert_eq!(sa.bytes, fa.iter().map(|f| f.len() as u64).sum::<u64>());
    // Independent of the thread count: a one-thread pool gives the same bytes.
    let d = tempfile::tempdir().unwrap();
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap()
        .install(|| generate(&config(2500, 3000, 11), d.path()));
    assert!(fa == all_bytes(d.path(), "tsv"));
}

#[test]
fn headers_and_columns_are_exact() {
    let dump = mid();
    let widths = [9, 6, 6, 3];
    for (i, (header, rows)) in dump.tables.iter().enumerate() {
        assert_eq!(header, HEADERS[i]);
        assert!(!rows.is_empty(), "{} is empty", FILES[i]);
        for r in rows {
            assert_eq!(r.len(), widths[i], "{}: bad row {r:?}", FILES[i]);
            assert!(
                r.iter().all(|f| !f.is_empty()),
                "{}: empty field {r:?}",
                FILES[i]
            );
        }
    }
    let s = dump.summary.as_ref().unwrap();
    assert_eq!(s.titles as usize, dump.basics().len());
    assert_eq!(s.persons as usize, dump.names().len());
    assert_eq!(s.principals as usize, dump.principals().len());
    assert_eq!(s.ratings as usize, dump.ratings().len());
    assert_eq!(s.rows(), s.titles + s.persons + s.principals + s.ratings);
    let names: Vec<_> = s
        .files
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        [
            "title.basics.tsv",
            "name.basics.tsv",
            "title.principals.tsv",
            "title.ratings.tsv"
        ]
    );
}

#[test]
fn title_basics_fields_are_well_formed() {
    let dump = mid();
    for r in dump.basics() {
        assert!(TYPES.contains(&r[1].as_str()), "type {r:?}");
        assert!(r[4] == "0" || r[4] == "1");
        for f in [&r[5], &r[6], &r[7]] {
            assert!(is_null_or_u64(f), "{r:?}");
        }
        if r[5] != "\\N" {
            let y: u32 = r[5].parse().unwrap();
            assert!((1890..=2025).contains(&y), "{r:?}");
            if r[6] != "\\N" {
                let e: u32 = r[6].parse().unwrap();
                assert!(e >= y && e <= 2025, "{r:?}");
            }
        } else {
            assert_eq!(r[6], "\\N");
        }
        if r[6] != "\\N" {
            assert!(r[1] == "tvSeries" || r[1] == "tvMiniSeries", "{r:?}");
        }
        if r[8] != "\\N" {
            let gs: Vec<&str> = r[8].split(',').collect();
            assert!((1..=3).contains(&gs.len()), "{r:?}");
            assert!(gs.iter().all(|g| GENRES.contains(g)), "{r:?}");
            assert!(gs.windows(2).all(|w| w[0] < w[1]), "genres unsorted {r:?}");
        }
        assert!(!r[2].is_empty() && !r[3].is_empty());
    }
}

#[test]
fn ids_are_unique_and_references_exist() {
    let dump = mid();
    let titles: HashSet<&str> = dump.basics().iter().map(|r| r[0].as_str()).collect();
    let persons: HashSet<&str> = dump.names().iter().map(|r| r[0].as_str()).collect();
    assert_eq!(titles.len(), dump.basics().len(), "duplicate tconst");
    assert_eq!(persons.len(), dump.names().len(), "duplicate nconst");
    assert!(titles.iter().all(|t| is_id(t, "tt")));
    assert!(persons.iter().all(|n| is_id(n, "nm")));
    assert_eq!(dump.basics()[0][0], "tt0000001");
    assert_eq!(dump.names()[0][0], "nm0000001");
    let mut credited: HashMap<&str, HashSet<&str>> = HashMap::new();
    for r in dump.principals() {
        assert!(titles.contains(r[0].as_str()), "unknown title {r:?}");
        assert!(persons.contains(r[2].as_str()), "unknown person {r:?}");
        credited.entry(&r[2]).or_default().insert(&r[0]);
    }
    let mut rated = HashSet::new();
    for r in dump.ratings() {
        assert!(titles.contains(r[0].as_str()), "unknown rated title {r:?}");
        assert!(rated.insert(r[0].as_str()), "title rated twice {r:?}");
    }
    // knownForTitles: up to 4 sorted tconsts, each one the person is credited in.
    let mut with_known = 0;
    for r in dump.names() {
        if r[5] == "\\N" {
            continue;
        }
        with_known += 1;
        let ks: Vec<&str> = r[5].split(',').collect();
        assert!(ks.len() <= 4, "{r:?}");
        assert!(ks.windows(2).all(|w| w[0] < w[1]), "{r:?}");
        for k in ks {
            assert!(
                credited.get(r[0].as_str()).is_some_and(|s| s.contains(k)),
                "{} known for {k} without a credit",
                r[0]
            );
        }
    }
    assert!(with_known > 0);
    // Everyone credited has knownForTitles.
    for r in dump.names() {
        if credited.contains_key(r[0].as_str()) {
            assert_ne!(r[5], "\\N", "{r:?}");
        }
    }
}

#[test]
fn orderings_are_contiguous_and_credits_unique() {
    let dump = mid();
    let mut seen = HashSet::new();
    let mut done_titles = HashSet::new();
    let mut current = "";
    let mut expect = 1u32;
    for r in dump.principals() {
        if r[0] != current {
            assert!(
                done_titles.insert(r[0].as_str()),
                "title {} not contiguous",
                r[0]
            );
            current = &r[0];
            expect = 1;
        }
        assert_eq!(r[1].parse::<u32>().unwrap(), expect, "{r:?}");
        expect += 1;
        assert!(seen.insert((&r[0], &r[2], &r[3])), "duplicate credit {r:?}");
        let job = &r[4];
        let chars = &r[5];
        assert!(job == "\\N" || !job.contains(['\t', '"']));
        assert!(
            chars == "\\N" || (chars.starts_with("[\"") && chars.ends_with("\"]")),
            "{r:?}"
        );
        if !["actor", "actress", "self", "archive_footage"].contains(&r[3].as_str()) {
            assert_eq!(chars, "\\N", "crew with a character {r:?}");
        }
    }
    // Titles appear in tconst order.
    let order: Vec<&str> = dump
        .principals()
        .iter()
        .map(|r| r[0].as_str())
        .collect::<Vec<_>>();
    assert!(order.windows(2).all(|w| w[0] <= w[1]));
}

#[test]
fn ratings_are_well_formed() {
    let dump = mid();
    for r in dump.ratings() {
        let (int, frac) = r[1].split_once('.').expect("one decimal");
        assert!((1..=2).contains(&int.len()) && frac.len() == 1, "{r:?}");
        let v: f64 = r[1].parse().unwrap();
        assert!((1.0..=10.0).contains(&v), "{r:?}");
        let votes: u64 = r[2].parse().unwrap();
        assert!(votes >= 5, "{r:?}");
    }
    let share = dump.ratings().len() as f64 / dump.basics().len() as f64;
    assert!((0.15..=0.35).contains(&share), "rated share {share}");
    let mut votes: Vec<u64> = dump
        .ratings()
        .iter()
        .map(|r| r[2].parse().unwrap())
        .collect();
    votes.sort_unstable();
    assert!(
        votes[votes.len() - 1] > 100 * votes[votes.len() / 2],
        "numVotes not heavy-tailed"
    );
}

#[test]
fn gzip_output_matches_plain() {
    let plain = tempfile::tempdir().unwrap();
    let gz = tempfile::tempdir().unwrap();
    let gz2 = tempfile::tempdir().unwrap();
    let cfg = config(20_000, 3000, 5);
    let sp = generate(&cfg, plain.path());
    let gcfg = ImdbGenConfig { gzip: true, ..cfg };
    let sg = generate(&gcfg, gz.path());
    generate(&gcfg, gz2.path());
    assert_eq!(sp.principals, sg.principals);
    assert!(sg
        .files
        .iter()
        .all(|f| f.to_string_lossy().ends_with(".tsv.gz")));
    let raw = all_bytes(gz.path(), "tsv.gz");
    assert!(
        raw == all_bytes(gz2.path(), "tsv.gz"),
        "gzip output not deterministic"
    );
    assert_eq!(sg.bytes, raw.iter().map(|f| f.len() as u64).sum::<u64>());
    for (i, f) in FILES.iter().enumerate() {
        let expect = read_bytes(&plain.path().join(format!("{f}.tsv")));
        // A single gzip member: the plain (single-member) decoder reads everything.
        let mut single = Vec::new();
        flate2::read::GzDecoder::new(&raw[i][..])
            .read_to_end(&mut single)
            .unwrap();
        assert!(single == expect, "{f}: gzip content differs");
        let mut multi = Vec::new();
        flate2::read::MultiGzDecoder::new(&raw[i][..])
            .read_to_end(&mut multi)
            .unwrap();
        assert!(multi == expect);
        if f == &"title.principals" {
            assert!(raw[i].len() * 3 < expect.len(), "poor compression");
        }
    }
}

#[test]
fn mid_size_dump_has_a_realistic_shape() {
    let dump = mid();
    let n_titles = dump.basics().len() as f64;

    // Title types: tvEpisode most common (~60 %), movies ~10 %.
    let mut types: HashMap<&str, usize> = HashMap::new();
    for r in dump.basics() {
        *types.entry(r[1].as_str()).or_default() += 1;
    }
    let most = types.iter().max_by_key(|e| e.1).unwrap();
    assert_eq!(*most.0, "tvEpisode");
    let episode_share = types["tvEpisode"] as f64 / n_titles;
    assert!((0.5..=0.7).contains(&episode_share), "{episode_share}");
    let movie_share = types["movie"] as f64 / n_titles;
    assert!((0.07..=0.13).contains(&movie_share), "{movie_share}");
    assert!(types.len() >= 9, "{types:?}");
    let adult = dump.basics().iter().filter(|r| r[4] == "1").count() as f64 / n_titles;
    assert!(adult < 0.05);
    // Recent years dominate.
    let years: Vec<u32> = dump
        .basics()
        .iter()
        .filter_map(|r| r[5].parse().ok())
        .collect();
    let recent = years.iter().filter(|&&y| y >= 2000).count() as f64 / years.len() as f64;
    assert!(recent > 0.45, "{recent}");
    assert!(years.iter().any(|&y| y < 1930));

    // Principals: ~6 per title, actors and actresses the majority, careers heavy-tailed.
    let credits = dump.principals().len() as f64;
    let per_title = credits / n_titles;
    assert!((5.0..=7.0).contains(&per_title), "{per_title}");
    let mut cats: HashMap<&str, usize> = HashMap::new();
    for r in dump.principals() {
        *cats.entry(r[3].as_str()).or_default() += 1;
    }
    let acting = (cats["actor"] + cats["actress"]) as f64 / credits;
    assert!(acting > 0.5, "actor+actress share {acting}");
    for c in [
        "self",
        "director",
        "writer",
        "producer",
        "composer",
        "cinematographer",
        "editor",
        "production_designer",
        "archive_footage",
    ] {
        assert!(cats.get(c).copied().unwrap_or(0) > 0, "no {c} credits");
    }
    assert!(cats["actor"] > cats["director"] * 3);
    let jobs = dump.principals().iter().filter(|r| r[4] != "\\N").count() as f64 / credits;
    assert!(jobs < 0.3, "job share {jobs}");

    let per_person = dump.credits_per_person();
    let mut counts: Vec<usize> = per_person.values().copied().collect();
    counts.sort_unstable();
    let median = counts[counts.len() / 2];
    let max = *counts.last().unwrap();
    assert!(median <= 3, "median credits {median}");
    assert!(max >= 50 * median, "max {max} vs median {median}");
    let few = counts.iter().filter(|&&c| c <= 3).count() as f64 / counts.len() as f64;
    assert!(few > 0.5, "share with 1-3 credits {few}");

    // Names: Jack is common, UTF-8 names exist, birth years mostly null.
    let jacks = dump
        .names()
        .iter()
        .filter(|r| r[1].starts_with("Jack "))
        .count();
    assert!(jacks > dump.names().len() / 100, "{jacks} Jacks");
    assert!(dump.names().iter().any(|r| !r[1].is_ascii()));
    assert!(dump.basics().iter().any(|r| !r[3].is_ascii()));
    let births = dump.names().iter().filter(|r| r[2] != "\\N").count() as f64;
    assert!(births / (dump.names().len() as f64) < 0.4);
    assert!(dump
        .principals()
        .iter()
        .any(|r| r[5].starts_with("[\"Jack ")));

    // Troupes: co-stars and actor–director pairs that recur.
    let acting_cats = ["actor", "actress"];
    let costars = dump.shared_titles(&acting_cats, &acting_cats);
    assert!(costars.values().filter(|&&n| n >= 3).count() >= 20);
    let with_director = dump.shared_titles(&acting_cats, &["director"]);
    assert!(with_director.values().filter(|&&n| n >= 2).count() >= 20);
    assert!(dump.movies_with_named_actor("Jack", 4) >= 10);
}

#[test]
fn principals_target_is_honoured() {
    let dir = tempfile::tempdir().unwrap();
    for (titles, target) in [(4000u64, 12_000u64), (4000, 36_000), (4000, 1_000)] {
        let cfg = ImdbGenConfig {
            principals: Some(target),
            ..config(titles, 5000, 3)
        };
        let s = generate(&cfg, dir.path());
        let ratio = s.principals as f64 / target as f64;
        assert!(
            (0.93..=1.07).contains(&ratio),
            "{target}: got {}",
            s.principals
        );
    }
}

#[test]
fn tiny_configurations_work() {
    let dir = tempfile::tempdir().unwrap();
    for (titles, persons, principals) in [
        (1, 1, None),
        (5, 2, None),
        (3, 3, Some(0)),
        (10, 1, Some(100)),
    ] {
        let cfg = ImdbGenConfig {
            principals,
            ..config(titles, persons, 1)
        };
        let s = generate(&cfg, dir.path());
        assert_eq!((s.titles, s.persons), (titles, persons));
        if principals == Some(0) {
            assert_eq!(s.principals, 0);
        }
        let dump = Dump::load(dir.path(), Some(s));
        assert_eq!(dump.basics().len() as u64, titles);
        assert_eq!(dump.names().len() as u64, persons);
        let unique: HashSet<_> = dump
            .principals()
            .iter()
            .map(|r| (r[0].clone(), r[2].clone(), r[3].clone()))
            .collect();
        assert_eq!(unique.len(), dump.principals().len());
    }
}

#[test]
fn invalid_configurations_are_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let bad = [
        config(0, 10, 1),
        config(10, 0, 1),
        config(1 << 31, 10, 1),
        ImdbGenConfig {
            troupe_probability: 1.5,
            ..config(10, 10, 1)
        },
        ImdbGenConfig {
            rated_fraction: -0.1,
            ..config(10, 10, 1)
        },
        ImdbGenConfig {
            career_exponent: 0.0,
            ..config(10, 10, 1)
        },
        ImdbGenConfig {
            principals: Some(10_000),
            ..config(10, 10, 1)
        },
        ImdbGenConfig {
            gzip_level: 12,
            ..config(10, 10, 1)
        },
    ];
    for cfg in bad {
        match generate_imdb(&cfg, dir.path()) {
            Err(Error::InvalidArgument(_)) => {}
            other => panic!("{cfg:?}: expected InvalidArgument, got {other:?}"),
        }
    }
    // An output path that is a file is refused, naming it (the directory is written as a set).
    let file = dir.path().join("not-a-dir");
    std::fs::write(&file, b"x").unwrap();
    match generate_imdb(&config(10, 10, 1), &file) {
        Err(Error::Refused { path, .. }) => assert_eq!(path, file),
        other => panic!("expected Refused, got {other:?}"),
    }
    assert_eq!(std::fs::read(&file).unwrap(), b"x");
}

#[test]
fn out_dir_is_created() {
    let dir = tempfile::tempdir().unwrap();
    let nested = dir.path().join("a/b/c");
    let s = generate(&config(50, 50, 1), &nested);
    assert!(s.files.iter().all(|f| f.starts_with(&nested) && f.exists()));
}

#[test]
fn committed_sample_is_small_current_and_useful() {
    let dir = sample_dir();
    let mut total = 0;
    for f in FILES {
        let path = dir.join(format!("{f}.tsv"));
        total += std::fs::metadata(&path)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
            .len();
    }
    assert!(total <= 2 * 1024 * 1024, "sample is {total} bytes");
    let readme = std::fs::read_to_string(dir.join("README.md")).unwrap();
    assert!(readme.contains(
        "gemp generate imdb --titles 3000 --persons 4000 --seed 42 -o datasets/imdb-sample"
    ));

    // The committed files are exactly what the generator produces today.
    let fresh = tempfile::tempdir().unwrap();
    generate(&sample_config(), fresh.path());
    for f in FILES {
        let name = format!("{f}.tsv");
        assert!(
            read_bytes(&dir.join(&name)) == read_bytes(&fresh.path().join(&name)),
            "datasets/imdb-sample/{name} is stale: regenerate it (see its README)"
        );
    }

    // Demo queries find results.
    let dump = Dump::load(&dir, None);
    assert!(dump.movies_with_named_actor("Jack", 4) >= 3);
    let acting = ["actor", "actress"];
    assert!(dump
        .shared_titles(&acting, &acting)
        .values()
        .any(|&n| n >= 3));
    assert!(dump
        .shared_titles(&acting, &["director"])
        .values()
        .any(|&n| n >= 2));
}

/// Throughput report (no assertion on time). For a meaningful number run
/// `GEMP_GEN_BENCH_TITLES=1000000 cargo test --release --test generate_imdb throughput -- --nocapture`
/// (add `GEMP_GEN_BENCH_GZIP=6` for gzip at level 6, `GEMP_GEN_BENCH_PRINCIPALS=N` for a target).
#[test]
fn throughput() {
    let titles: u64 = std::env::var("GEMP_GEN_BENCH_TITLES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_000);
    // GEMP_GEN_BENCH_GZIP=<level> writes .tsv.gz at that level.
    let gzip_level: Option<u32> = std::env::var("GEMP_GEN_BENCH_GZIP")
        .ok()
        .and_then(|v| v.parse().ok());
    let gzip = gzip_level.is_some();
    let dir = tempfile::tempdir().unwrap();
    let principals = std::env::var("GEMP_GEN_BENCH_PRINCIPALS")
        .ok()
        .and_then(|v| v.parse().ok());
    let cfg = ImdbGenConfig {
        gzip,
        gzip_level: gzip_level.unwrap_or(1),
        principals,
        ..config(titles, titles * 7 / 6, 1)
    };
    let start = Instant::now();
    let s = generate(&cfg, dir.path());
    let secs = start.elapsed().as_secs_f64();
    println!(
        "generated {} rows ({} titles, {} persons, {} principals, {} ratings), {:.1} MB{} in {:.2} s on {} threads: {:.2} M rows/s",
        s.rows(),
        s.titles,
        s.persons,
        s.principals,
        s.ratings,
        s.bytes as f64 / 1e6,
        if gzip { " gzip" } else { "" },
        secs,
        rayon::current_num_threads(),
        s.rows() as f64 / secs / 1e6
    );
}
