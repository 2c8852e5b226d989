//! TruST on the paper's 16 size combinations (data 40/80 … 10,000/40,000 nodes/edges × templates
//! 3/3 … 7/20), each with a planted noisy copy of the template: the host pipeline (rayon, all
//! cores) against the same pipeline on a one-thread pool (the baseline, same run) and the OpenCL
//! pipeline (PoCL on the CPU where there is no GPU) when a platform exists. Each backend's best
//! matching is checked against the host's and against the plant before it is timed. Then the
//! k0/β trade-off on the largest size with short values and heavy noise: time and accuracy over
//! several seeds. The per-phase split shown is the last run's, the totals are medians.
//!
//! `cargo bench --bench trust` — prints Markdown tables. `TRUST_BENCH_RUNS` (default 9) runs per
//! cell, the median is reported; `TRUST_BENCH_SEEDS` (default 10) seeds per trade-off cell.

use std::time::{Duration, Instant};

use gemp::trust::generate::{generate, TrustGenConfig, PAPER_DATA_SIZES, PAPER_TEMPLATE_SIZES};
use gemp::trust::{run_host, SearchParams, TrustGraph, TrustParams, TrustResult};

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn instance(
    (dn, de, tn, te): (usize, usize, usize, usize),
    noise: f64,
    value_len: (usize, usize),
    seed: u64,
) -> (TrustGraph, TrustGraph, Vec<u32>) {
    let inst = generate(&TrustGenConfig {
        data_nodes: dn,
        data_edges: de,
        template_nodes: tn,
        template_edges: te,
        plant: true,
        noise,
        value_len,
        seed,
    })
    .expect("generating");
    let (t, _) = TrustGraph::from_model(&inst.template, "value").expect("template");
    let (d, _) = TrustGraph::from_model(&inst.data, "value").expect("data");
    let planted = inst.planted_mapping(&t, &d).expect("planted");
    (t, d, planted)
}

/// Median wall time of `runs` calls (after one warm-up call), and the last result.
fn median(runs: usize, mut f: impl FnMut() -> TrustResult) -> (Duration, TrustResult) {
    let mut last = f();
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        let start = Instant::now();
        last = f();
        times.push(start.elapsed());
    }
    times.sort();
    (times[times.len() / 2], last)
}

fn ms(d: Duration) -> String {
    format!("{:.2}", d.as_secs_f64() * 1e3)
}

fn main() {
    // `cargo bench` passes `--bench`; ignore arguments.
    let runs = env_usize("TRUST_BENCH_RUNS", 9).max(1);
    let seeds = env_usize("TRUST_BENCH_SEEDS", 10).max(1);
    let params = TrustParams::default();
    let one_thread = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("pool");
    #[cfg(feature = "opencl")]
    let gpu = match gemp::gpu::platform_count() {
        Ok(n) if n > 0 => {
            Some(gemp::gpu::Gpu::new(gemp::gpu::DeviceSelector::Auto).expect("device"))
        }
        _ => None,
    };
    #[cfg(feature = "opencl")]
    if let Some(g) = &gpu {
        println!("OpenCL device: {}", g.info().summary());
    }
    println!(
        "host threads: {}; medians of {runs} runs; k0 {}, beam {}; times in ms\n",
        rayon::current_num_threads(),
        params.search.k0,
        params.search.beam
    );
    println!("| data | template | host total | (S / OH bounds / search) | host 1 thread | device total | (S / OH / search) | planted found |");
    println!("|---|---|---|---|---|---|---|---|");
    for &(dn, de) in &PAPER_DATA_SIZES {
        for &(tn, te) in &PAPER_TEMPLATE_SIZES {
            let (t, d, planted) = instance((dn, de, tn, te), 0.1, (5, 10), 7);
            let (host, hr) = median(runs, || run_host(&t, &d, &params).expect("host"));
            let (single, sr) =
                one_thread.install(|| median(runs, || run_host(&t, &d, &params).expect("host")));
            assert_eq!(sr.matchings, hr.matchings);
            let found = hr.matchings.first().map(|m| m.mapping()) == Some(planted.clone());
            let ht = hr.timings;
            #[allow(unused_mut)]
            let mut device_cols = ("-".to_string(), "-".to_string());
            #[cfg(feature = "opencl")]
            if let Some(g) = &gpu {
                let (dev, dr) = median(runs, || {
                    gemp::trust::device::run_device(g, &t, &d, &params).expect("device")
                });
                assert_eq!(dr.matchings, hr.matchings, "device and host differ");
                let dt = dr.timings;
                device_cols = (
                    ms(dev),
                    format!(
                        "{} / {} / {}",
                        ms(dt.similarity),
                        ms(dt.one_hop),
                        ms(dt.search)
                    ),
                );
            }
            println!(
                "| {dn}/{de} | {tn}/{te} | {} | {} / {} / {} | {} | {} | {} | {} |",
                ms(host),
                ms(ht.similarity),
                ms(ht.one_hop),
                ms(ht.search),
                ms(single),
                device_cols.0,
                device_cols.1,
                if found { "yes" } else { "no" }
            );
        }
    }

    // k0 / β trade-off: largest size, short values (many near-duplicates) and heavy noise, so
    // that values alone do not single out the plant and the search can go wrong.
    let noise = 0.5;
    let value_len = (2, 4);
    println!("\nk0/β trade-off, data 10000/40000, template 7/20, values of {}–{} letters, noise {noise}, {seeds} seeds: host median ms / planted matchings recovered / mean fraction of template nodes mapped as planted\n", value_len.0, value_len.1);
    println!("| k0 \\ β | 1 | 8 | 32 | 128 | 512 |");
    println!("|---|---|---|---|---|---|");
    let instances: Vec<_> = (0..seeds)
        .map(|s| instance((10_000, 40_000, 7, 20), noise, value_len, 1000 + s as u64))
        .collect();
    for k0 in [1usize, 4, 32, 128] {
        let mut row = format!("| {k0} |");
        for beam in [1usize, 8, 32, 128, 512] {
            let p = TrustParams {
                search: SearchParams {
                    k0,
                    beam,
                    depth: None,
                },
                top: 1,
            };
            let mut times = Vec::new();
            let mut found = 0;
            let mut nodes = 0.0;
            for (t, d, planted) in &instances {
                let start = Instant::now();
                let r = run_host(t, d, &p).expect("host");
                times.push(start.elapsed());
                let m = r.matchings.first().map(|m| m.mapping()).unwrap_or_default();
                if m == *planted {
                    found += 1;
                }
                nodes += planted.iter().zip(&m).filter(|(a, b)| a == b).count() as f64
                    / planted.len() as f64;
            }
            times.sort();
            row.push_str(&format!(
                " {} / {found}/{seeds} / {:.2} |",
                ms(times[times.len() / 2]),
                nodes / seeds as f64
            ));
        }
        println!("{row}");
    }
}
