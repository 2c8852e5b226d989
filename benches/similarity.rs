//! Similarity benchmark over all query × case pairs of the bundled 40-recipe case base
//! (`datasets/recipes`): A*II against A*III-RMS on the host (Zeyen & Bergmann's Figure 3
//! comparison: completed searches, time, expansions, maximum queue size), and AMonG against the
//! host on every `SIM_BENCH_DEVICE_EVERY`-th pair.
//!
//! Environment: `SIM_BENCH_LIMIT` seconds per search (default 0.1; the paper used 120 s),
//! `SIM_BENCH_DEVICE_EVERY` (default 37, coprime to 40 so queries and cases vary; 0 = no device
//! runs), `SIM_BENCH_DEVICE_LIMIT` seconds per device/host search there (default
//! `SIM_BENCH_LIMIT`), `SIM_BENCH_INSTANCES` (AMonG n, default 16), `SIM_BENCH_SKIP_HOST=1` (only
//! the device comparison), `SIM_BENCH_SAMPLE` (every n-th pair only, default 1),
//! `SIM_BENCH_MAX_QUEUE` (give up a search past this many queued solutions, to bound memory on long
//! limits; default none). Prints a Markdown report. Run with `scripts/bench-similarity`.

use std::path::Path;
use std::time::Duration;

use gemp::similarity::load::load_graphs;
use gemp::similarity::{
    search, variant_name, Algorithm, Improvements, Outcome, Problem, SearchOptions,
    SimilarityModel, StopReason,
};
use rayon::prelude::*;

fn env_f64(name: &str, default: f64) -> f64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// One search's figures: (finished, time s, expansions, max queue, similarity, why it stopped).
type Run = (bool, f64, u64, usize, f64, Option<StopReason>);

fn figures(o: &Outcome) -> Run {
    let s = o.stats();
    let (sim, stop) = match o {
        Outcome::Done(r) => (r.similarity, None),
        Outcome::Stopped { reason, .. } => (f64::NAN, Some(*reason)),
    };
    (
        matches!(o, Outcome::Done(_)),
        s.time.as_secs_f64(),
        s.expansions,
        s.max_queue,
        sim,
        stop,
    )
}

fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn row(name: &str, runs: &[Run]) -> String {
    let done: Vec<&Run> = runs.iter().filter(|r| r.0).collect();
    let mut times: Vec<f64> = done.iter().map(|r| r.1 * 1e3).collect();
    let mean_t = times.iter().sum::<f64>() / times.len().max(1) as f64;
    let med_t = median(&mut times);
    let mean_exp = done.iter().map(|r| r.2 as f64).sum::<f64>() / done.len().max(1) as f64;
    let mut exps: Vec<f64> = done.iter().map(|r| r.2 as f64).collect();
    let med_exp = median(&mut exps);
    let mean_q = done.iter().map(|r| r.3 as f64).sum::<f64>() / done.len().max(1) as f64;
    let mut qs: Vec<f64> = done.iter().map(|r| r.3 as f64).collect();
    let med_q = median(&mut qs);
    format!(
        "| {name} | {}/{} | {med_t:.2} | {mean_t:.2} | {med_exp:.0} | {mean_exp:.0} | {med_q:.0} | {mean_q:.0} |",
        done.len(),
        runs.len()
    )
}

const HEADER: &str = "| variant | completed | median ms | mean ms | median expansions | mean expansions | median max queue | mean max queue |\n|---|---|---|---|---|---|---|---|";

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/recipes");
    let cases = load_graphs(&root.join("cases.json")).expect("datasets/recipes/cases.json");
    let model =
        SimilarityModel::load(&root.join("model.json")).expect("datasets/recipes/model.json");
    let limit = Duration::from_secs_f64(env_f64("SIM_BENCH_LIMIT", 0.1));
    let device_limit =
        Duration::from_secs_f64(env_f64("SIM_BENCH_DEVICE_LIMIT", limit.as_secs_f64()));
    let skip_host = std::env::var("SIM_BENCH_SKIP_HOST").is_ok_and(|v| v == "1");
    let every = env_f64("SIM_BENCH_DEVICE_EVERY", 37.0) as usize;
    let sample = (env_f64("SIM_BENCH_SAMPLE", 1.0) as usize).max(1);
    let max_queue = env_f64("SIM_BENCH_MAX_QUEUE", 0.0) as usize;
    let pairs: Vec<(usize, usize)> = (0..cases.len())
        .flat_map(|q| (0..cases.len()).map(move |c| (q, c)))
        .step_by(sample)
        .collect();
    let problems: Vec<Problem> = pairs
        .par_iter()
        .map(|&(q, c)| Problem::new(&cases[q], &cases[c], &model).expect("problem"))
        .collect();
    let variants = [
        (Algorithm::AStarII, Improvements::default()),
        (Algorithm::AStarIII, Improvements::ALL),
    ];
    println!(
        "{} pairs, time limit {:.3} s per search, {} rayon threads\n",
        pairs.len(),
        limit.as_secs_f64(),
        rayon::current_num_threads()
    );
    let mut results: Vec<Vec<Run>> = Vec::new();
    if !skip_host {
        host_variants(&problems, &variants, limit, max_queue, &mut results);
    }
    #[cfg(feature = "opencl")]
    if every > 0 {
        device(&problems, every, device_limit);
    }
    #[cfg(not(feature = "opencl"))]
    let _ = (every, device_limit);
}

fn host_variants(
    problems: &[Problem],
    variants: &[(Algorithm, Improvements)],
    limit: Duration,
    max_queue: usize,
    results: &mut Vec<Vec<Run>>,
) {
    println!("{HEADER}");
    for &(algorithm, improvements) in variants {
        let options = SearchOptions {
            algorithm,
            improvements,
            time_limit: Some(limit),
            max_queue: (max_queue > 0).then_some(max_queue),
            ..Default::default()
        };
        let runs: Vec<Run> = problems
            .par_iter()
            .map(|p| figures(&search(p, &options).expect("search")))
            .collect();
        println!("{}", row(&variant_name(algorithm, improvements), &runs));
        results.push(runs);
    }
    completion_curve(variants, results, limit);
    println!("\nSearches that did not finish:\n");
    println!(
        "| variant | at the time limit | at the queue bound | median max queue when stopped |"
    );
    println!("|---|---|---|---|");
    for (&(algorithm, improvements), runs) in variants.iter().zip(results.iter()) {
        let stopped = |why: StopReason| runs.iter().filter(|r| r.5 == Some(why)).count();
        let mut queues: Vec<f64> = runs.iter().filter(|r| !r.0).map(|r| r.3 as f64).collect();
        println!(
            "| {} | {} | {} | {:.0} |",
            variant_name(algorithm, improvements),
            stopped(StopReason::TimeLimit),
            stopped(StopReason::QueueCapacity),
            median(&mut queues)
        );
    }
    let both: Vec<usize> = (0..problems.len())
        .filter(|&i| results[0][i].0 && results[1][i].0)
        .collect();
    let mismatches = both
        .iter()
        .filter(|&&i| (results[0][i].4 - results[1][i].4).abs() > 1e-9)
        .count();
    let t0: f64 = both.iter().map(|&i| results[0][i].1).sum();
    let t1: f64 = both.iter().map(|&i| results[1][i].1).sum();
    let q0: f64 = both.iter().map(|&i| results[0][i].3 as f64).sum();
    let q1: f64 = both.iter().map(|&i| results[1][i].3 as f64).sum();
    println!(
        "\nOn the {} pairs both finished (similarities differing: {mismatches}): A*II / A*III-RMS \
         total time ratio {:.2}, total max-queue ratio {:.2}.",
        both.len(),
        t0 / t1.max(1e-12),
        q0 / q1.max(1.0)
    );
}

/// How many searches each variant finished within fractions of the limit (the paper's Figure 3
/// line chart, at the time scales this run covers).
fn completion_curve(variants: &[(Algorithm, Improvements)], results: &[Vec<Run>], limit: Duration) {
    let steps: Vec<f64> = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0]
        .iter()
        .map(|f| f * limit.as_secs_f64())
        .collect();
    println!("\nCompleted within t seconds:\n");
    let head: Vec<String> = steps.iter().map(|t| format!("≤ {t:.3} s")).collect();
    println!("| variant | {} |", head.join(" | "));
    println!("|---|{}", "---|".repeat(steps.len()));
    for (&(algorithm, improvements), runs) in variants.iter().zip(results) {
        let counts: Vec<String> = steps
            .iter()
            .map(|&t| runs.iter().filter(|r| r.0 && r.1 <= t).count().to_string())
            .collect();
        println!(
            "| {} | {} |",
            variant_name(algorithm, improvements),
            counts.join(" | ")
        );
    }
}

#[cfg(feature = "opencl")]
fn device(problems: &[Problem], every: usize, limit: Duration) {
    use gemp::gpu::{self, DeviceSelector, Gpu};
    use gemp::similarity::among::{among_search, race, AmongOptions};
    if gpu::platform_count().unwrap_or(0) == 0 {
        println!("\nno OpenCL platform: AMonG not measured");
        return;
    }
    let gpu = Gpu::new(DeviceSelector::Auto).expect("OpenCL device");
    let instances = env_f64("SIM_BENCH_INSTANCES", 16.0) as usize;
    let subset: Vec<usize> = (0..problems.len()).step_by(every).collect();
    let host_options = SearchOptions {
        algorithm: Algorithm::AStarIII,
        improvements: Improvements {
            orientation: false,
            ..Improvements::ALL
        },
        time_limit: Some(limit),
        ..Default::default()
    };
    let among_options = AmongOptions {
        instances,
        queue_capacity: 16384,
        time_limit: Some(limit),
        ..AmongOptions::from_search(&host_options).expect("options")
    };
    // Warm the program cache (kernel build is not part of a search).
    let _ = among_search(&gpu, &problems[0], &among_options);
    let mut host = Vec::new();
    let mut dev = Vec::new();
    let mut raced = Vec::new();
    let mut errors = 0;
    for &i in &subset {
        host.push(figures(
            &search(&problems[i], &host_options).expect("search"),
        ));
        let o = among_search(&gpu, &problems[i], &among_options).expect("AMonG");
        if let Outcome::Stopped {
            reason: gemp::similarity::StopReason::QueueCapacity,
            ..
        } = o
        {
            errors += 1;
        }
        dev.push(figures(&o));
        let (o, _) = race(&gpu, &problems[i], &host_options, &among_options).expect("race");
        raced.push(figures(&o));
    }
    let agree = (0..subset.len())
        .filter(|&j| host[j].0 && dev[j].0)
        .filter(|&j| (host[j].4 - dev[j].4).abs() < 1e-5)
        .count();
    let both = (0..subset.len()).filter(|&j| host[j].0 && dev[j].0).count();
    println!(
        "\nAMonG ({} instances, Eval_3, Ins_2, h_III, R, S) against the host on every {every}th pair \
         ({} pairs, time limit {:.3} s; {} device {}):\n",
        instances,
        subset.len(),
        limit.as_secs_f64(),
        gpu.info().name,
        if errors > 0 { format!("{errors} queue overflows") } else { "no overflows".into() }
    );
    println!("{HEADER}");
    println!("{}", row("host A*III-RS (query-oriented)", &host));
    println!("{}", row("AMonG A*III-RS", &dev));
    println!("{}", row("race (host vs AMonG)", &raced));
    println!(
        "\nBoth finished on {both} pairs; AMonG equals the host similarity on {agree} of them."
    );
    // The paper's strategy comparison (H1: Ins_1 vs Ins_2, H2: Eval_1..3) on the pairs both
    // finished.
    let finished: Vec<usize> = (0..subset.len())
        .filter(|&j| host[j].0 && dev[j].0)
        .map(|j| subset[j])
        .collect();
    if finished.is_empty() {
        return;
    }
    println!(
        "\nAMonG strategies on those {} pairs ({} instances, same limit):\n",
        finished.len(),
        instances
    );
    println!("{HEADER}");
    use gemp::similarity::among::{EvalStrategy, InsertStrategy};
    for eval in [EvalStrategy::One, EvalStrategy::Two, EvalStrategy::Three] {
        for insert in [InsertStrategy::One, InsertStrategy::Two] {
            let o = AmongOptions {
                eval,
                insert,
                ..among_options.clone()
            };
            let runs: Vec<Run> = finished
                .iter()
                .map(|&i| figures(&among_search(&gpu, &problems[i], &o).expect("AMonG")))
                .collect();
            println!("{}", row(&format!("{eval:?} / {insert:?}"), &runs));
        }
    }
}
