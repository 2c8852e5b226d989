//! Scaffolding shared by the integration tests: the OpenCL device (or a skip), a deterministic
//! random source, common projections and the bundled data sets.
//!
//! Each test binary uses only part of it.
#![allow(dead_code)]

pub mod cypher;
pub mod grouped_queries;
pub mod random_graphs;
pub mod semantic_graphs;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use gemp::io::{Format, LoadOptions};
use gemp::model::Model;
use gemp::pattern::ir::{AggFn, Expr, ProjItem, Projection};

/// The shared OpenCL device, or `None` (after a skip message naming `test`) when the machine has
/// no OpenCL platform. Opening a device on a machine that has a platform must work.
#[cfg(feature = "opencl")]
pub fn gpu(test: &str) -> Option<std::sync::Arc<gemp::gpu::Gpu>> {
    use gemp::gpu::{self, DeviceSelector, Gpu};
    use std::sync::Arc;
    static GPU: OnceLock<Option<Arc<Gpu>>> = OnceLock::new();
    let gpu = GPU.get_or_init(|| match gpu::platform_count() {
        Ok(0) => None,
        Ok(_) => Some(Arc::new(
            Gpu::new(DeviceSelector::Auto).expect("opening the OpenCL device"),
        )),
        Err(e) => {
            eprintln!("OpenCL platform query failed: {e}");
            None
        }
    });
    if gpu.is_none() {
        eprintln!("skipping {test}: no OpenCL platform found");
    }
    gpu.clone()
}

/// splitmix64: deterministic test data without extra dependencies.
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// True with the given probability in percent.
    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

/// `RETURN count(*)`.
pub fn count_star() -> Projection {
    projection(vec![ProjItem {
        expr: Expr::Aggregate {
            func: AggFn::Count,
            distinct: false,
            arg: None,
        },
        name: "count(*)".into(),
    }])
}

/// Rows of integers (anything else as -1), sorted: result sets compared regardless of order.
pub fn sorted_ids(rows: &[Vec<gemp::exec::eval::Val<'_>>]) -> Vec<Vec<i64>> {
    let mut v: Vec<Vec<i64>> = rows
        .iter()
        .map(|r| {
            r.iter()
                .map(|v| match v {
                    gemp::exec::eval::Val::Int(i) => *i,
                    _ => -1,
                })
                .collect()
        })
        .collect();
    v.sort();
    v
}

/// `RETURN id(n0), …, id(n{k-1})`: the node bindings as rows.
pub fn id_rows(k: usize) -> Projection {
    projection(
        (0..k)
            .map(|i| ProjItem {
                expr: Expr::Id(Box::new(Expr::Node(i))),
                name: format!("n{i}"),
            })
            .collect(),
    )
}

/// A plain projection of `items`.
pub fn projection(items: Vec<ProjItem>) -> Projection {
    Projection {
        items,
        distinct: false,
        filter: None,
        order_by: vec![],
        skip: None,
        limit: None,
    }
}

/// The repository root.
pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The bundled IMDb sample (`datasets/imdb-sample`), loaded once per test binary.
pub fn sample_model() -> &'static Model {
    static M: OnceLock<Model> = OnceLock::new();
    M.get_or_init(|| {
        let dir = root().join("datasets/imdb-sample");
        gemp::io::load(&[dir], Format::ImdbTsv, &LoadOptions::default())
            .expect("loading the bundled sample")
            .0
    })
}

/// `../shared/data/hprd`, or `None` (after a skip message naming `test`) when it is absent.
pub fn hprd_dir(test: &str) -> Option<PathBuf> {
    let d = root().join("../shared/data/hprd");
    if d.join("HPRD.graph").is_file() {
        Some(d)
    } else {
        eprintln!("skipping {test}: ../shared/data/hprd not found");
        None
    }
}

/// `../shared/data/trainbenchmark` (or `$GEMP_SHARED_DATA/trainbenchmark`), or `None` (after a
/// skip message naming `test`) when it is absent.
pub fn trainbenchmark_dir(test: &str) -> Option<PathBuf> {
    let candidates = [
        std::env::var_os("GEMP_SHARED_DATA").map(PathBuf::from),
        Some(root().join("../shared/data")),
    ];
    for c in candidates.into_iter().flatten() {
        let d = c.join("trainbenchmark");
        if d.join("railway.xcore").is_file() {
            return Some(d);
        }
    }
    eprintln!("skipping {test}: ../shared/data/trainbenchmark not found (set GEMP_SHARED_DATA)");
    None
}

/// Runs the `gemp` binary built for these tests with `args`.
pub fn gemp(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gemp"))
        .args(args)
        .output()
        .expect("running gemp")
}

/// `gemp generate ttc14 --blocks N` into `dir/data` through the binary; returns that directory.
pub fn generate_ttc14(dir: &Path, blocks: u64) -> PathBuf {
    let data = dir.join("data");
    let out = gemp(&[
        "-q",
        "generate",
        "ttc14",
        "--blocks",
        &blocks.to_string(),
        "-o",
        data.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    data
}

/// `gemp generate imdb --titles T --persons P` into `dir/data`, loaded as `dir/model.gemp`;
/// returns the snapshot's path.
pub fn generated_imdb(dir: &Path, titles: u32, persons: u32) -> PathBuf {
    let data = dir.join("data");
    let out = gemp(&[
        "-q",
        "generate",
        "imdb",
        "--titles",
        &titles.to_string(),
        "--persons",
        &persons.to_string(),
        "-o",
        data.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    load_snapshot(dir, &data)
}

/// `gemp load DATA -o dir/model.gemp` through the binary; returns the snapshot's path.
pub fn load_snapshot(dir: &Path, data: &Path) -> PathBuf {
    let snap = dir.join("model.gemp");
    let out = gemp(&[
        "-q",
        "load",
        data.to_str().unwrap(),
        "-o",
        snap.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    snap
}

/// The temporary files of unfinished snapshot writes in `dir` (of process `pid` only, if given).
pub fn temps(dir: &Path, pid: Option<u32>) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            name.ends_with(".gemp-tmp") && pid.is_none_or(|pid| name.contains(&format!(".{pid}.")))
        })
        .collect()
}

/// Waits until `child` has a temporary file in `dir` (mid-write: true) or has exited (false; the
/// child is then reaped and must not be signalled); panics naming `what` after `limit`.
pub fn wait_for_temp(
    child: &mut std::process::Child,
    dir: &Path,
    limit: std::time::Duration,
    what: &str,
) -> bool {
    let deadline = std::time::Instant::now() + limit;
    while std::time::Instant::now() < deadline {
        if !temps(dir, Some(child.id())).is_empty() {
            return true;
        }
        if child.try_wait().unwrap().is_some() {
            return false;
        }
    }
    panic!("{what} neither wrote nor exited in {limit:?}");
}
