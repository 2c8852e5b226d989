//! The snapshot `gemp load -o` writes for an IMDb TSV dump is byte-for-byte fixed: the loader and
//! the freeze may change how they work (issue 36: memory, parallelism), never what they produce.
//!
//! The input is the committed sample (`datasets/imdb-sample`, four files) plus a second directory
//! with a second `title.principals` file, `title.ratings`, `title.crew` and `title.episode` files
//! holding duplicates, dangling references, malformed rows (wrong column counts, bad numbers,
//! invalid UTF-8, missing ids), a CRLF line and a vote count beyond 32 bits. The expected length
//! and digest are those of the file `gemp load … -o` wrote before the changes to the freeze
//! (commit 0e270f0, with the sample's directory sorting before the extra one; the new binary's
//! output compared equal to it with `cmp`); a change to them is a format change, which must be
//! versioned instead. Files of one kind load in the order the command line names them, wherever
//! they live (the load order once depended on the absolute paths, so that the same command gave
//! other bytes in another temporary directory).

use std::path::{Path, PathBuf};

use gemp::io::{Format, LoadOptions};
use gemp::model::snapshot;

/// Length in bytes of the expected snapshot.
const EXPECTED_LEN: usize = 1_814_208;
/// xxh3-64 of the expected snapshot's bytes.
const EXPECTED_XXH3: u64 = 0xa49a_2fbe_0482_0f09;

const EXTRA_PRINCIPALS: &[u8] = b"tconst\tordering\tnconst\tcategory\tjob\tcharacters\n\
tt0000001\t90\tnm0000002\tactor\t\\N\t[\"Extra\"]\n\
tt0000001\t91\tnm9999998\tdirector\t\\N\t\\N\n\
tt9999999\t1\tnm0000003\tactress\tlead\t[\"Ghost\"]\n\
tt0000002\tnot-a-number\tnm0000004\tactor\t\\N\t\\N\n\
tt0000002\t5\tnm0000004\tactor\n\
tt0000003\t2\tnm0000005\t\\N\t\\N\t\\N\n\
\\N\t2\tnm0000005\tactor\t\\N\t\\N\n\
tt0000004\t3\tnm0000006\tcomposer\t\xff\xfe\t\\N\n\
tt0000004\t4\tnm0000006\tcomposer\tmusic\t[\"\xc3\xa9t\xc3\xa9\"]\r\n\
tt0000005\t1\tco0000001\tself\t\\N\t\\N\n\
tt0000005\t2\tnm0000007\twriter\tstory\t\\N\n";

const EXTRA_RATINGS: &[u8] = b"tconst\taverageRating\tnumVotes\n\
tt0000010\t7.5\t120\n\
tt0000010\t7.6\t121\n\
tt0000011\tnan\t3\n\
tt0000012\t6.0\t-\n\
tt0000013\t6.5\t5000000000\n\
tt8888888\t9.9\t9\n";

const EXTRA_CREW: &[u8] = b"tconst\tdirectors\twriters\n\
tt0000005\tnm0000007,nm0000008\tnm0000007\n\
tt0000006\t\\N\t\\N\n\
tt0000007\tnm0000009,\t\\N\n\
tt0000001\tnm9999998\tnm0000002\n";

const EXTRA_EPISODES: &[u8] = b"tconst\tparentTconst\tseasonNumber\tepisodeNumber\n\
tt0000020\ttt0000021\t1\t1\n\
tt0000020\ttt0000021\t1\t2\n\
tt0000022\t\\N\t\\N\t\\N\n\
tt0000023\ttt7777777\tx\t1\n\
tt0000024\ttt0000021\t2\n";

/// The sample plus the extra files, in a temporary directory that lives as long as the result.
fn inputs() -> (tempfile::TempDir, Vec<PathBuf>) {
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/imdb-sample");
    let extra = tempfile::tempdir().unwrap();
    write_extra(extra.path());
    let paths = vec![sample, extra.path().to_path_buf()];
    (extra, paths)
}

/// Writes the extra files into `dir`.
fn write_extra(dir: &Path) {
    for (name, content) in [
        ("title.principals.tsv", EXTRA_PRINCIPALS),
        ("title.ratings.tsv", EXTRA_RATINGS),
        ("title.crew.tsv", EXTRA_CREW),
        ("title.episode.tsv", EXTRA_EPISODES),
    ] {
        std::fs::write(dir.join(name), content).unwrap();
    }
}

fn snapshot_bytes(paths: &[PathBuf]) -> Vec<u8> {
    let (model, report) = gemp::io::load(paths, Format::ImdbTsv, &LoadOptions::default())
        .unwrap_or_else(|e| panic!("load: {e}"));
    // The extra files' defects were seen (and skipped), not silently accepted: 5 principals, 3
    // ratings, 1 crew and 3 episode rows; nm9999998, tt9999999, co0000001 and tt8888888 dangle;
    // the crew's nm9999998 director of tt0000001 and nm0000007 writer of tt0000005 are already
    // principals.
    assert_eq!(report.malformed_count(), 12, "{report:?}");
    assert_eq!(report.dangling_nodes, 4, "{report:?}");
    assert_eq!(report.duplicate_edges_skipped, 2, "{report:?}");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("m.gemp");
    snapshot::write(&model, &out).unwrap();
    std::fs::read(&out).unwrap()
}

#[test]
fn imdb_snapshot_bytes_are_unchanged() {
    let (_keep, paths) = inputs();
    let bytes = snapshot_bytes(&paths);
    let digest = xxhash_rust::xxh3::xxh3_64(&bytes);
    assert_eq!(
        (bytes.len(), digest),
        (EXPECTED_LEN, EXPECTED_XXH3),
        "the snapshot of the sample changed: {} bytes, xxh3 {digest:#018x}",
        bytes.len()
    );
    // And it opens to the same graph.
    let model = snapshot::from_bytes(&bytes, &snapshot::OpenOptions::default()).unwrap();
    assert!(model.node_count() > 7000);
}

#[test]
fn loading_twice_gives_the_same_bytes() {
    let (_keep, paths) = inputs();
    assert!(snapshot_bytes(&paths) == snapshot_bytes(&paths));
}

#[test]
fn where_the_files_live_does_not_change_the_bytes() {
    // The sample and the extra files, named in that order, in directories whose paths sort one
    // way and then the other: the same bytes (the load order once followed the paths).
    let (_keep, paths) = inputs();
    let moved = tempfile::tempdir().unwrap();
    let layout = |sample_dir: &str, extra_dir: &str| {
        let (sample, extra) = (moved.path().join(sample_dir), moved.path().join(extra_dir));
        std::fs::create_dir(&extra).unwrap();
        std::fs::create_dir(&sample).unwrap();
        write_extra(&extra);
        for entry in std::fs::read_dir(&paths[0]).unwrap() {
            let entry = entry.unwrap();
            std::fs::copy(entry.path(), sample.join(entry.file_name())).unwrap();
        }
        snapshot_bytes(&[sample, extra])
    };
    assert!(layout("a-sample", "z-extra") == layout("z-sample", "a-extra"));
}
