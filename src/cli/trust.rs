//! `gemp trust` (TruST inexact matching) and `gemp generate trust` (its random inputs).

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;

use gemp::io::format::Format;
use gemp::model::snapshot;
use gemp::trust::generate::{generate as generate_instance, TrustGenConfig};
use gemp::trust::levenshtein::to_f64;
use gemp::trust::{
    run_host, SearchParams, TrustGraph, TrustParams, TrustResult, DEFAULT_BEAM, DEFAULT_K0,
    DEFAULT_TOP, DEFAULT_VALUE_PROPERTY,
};
use gemp::util::safe_write::{self, WriteOptions};

/// Arguments of `gemp trust`.
#[derive(Debug, Args)]
#[command(
    after_help = "Node values: the string property named by --value-property (default `value`);
a non-string value is compared as its text; a node without the property uses its key.
Edges are taken as undirected; types, self-loops and repeats are ignored.
k0 and --beam accept `all` (exhaustive over edge-preserving injective mappings).

Examples:
  gemp generate trust --data-nodes 10000 --data-edges 40000 --template-nodes 7 --template-edges 20 -o trust-data
  gemp trust --template trust-data/template.gemp --data trust-data/data.gemp
  gemp trust --template t.gemp --data d.gemp --k0 8 --beam 32 --top 3 --backend opencl --json"
)]
pub struct TrustArgs {
    /// Template graph (any input `gemp load` reads, or a .gemp snapshot).
    #[arg(long)]
    pub template: PathBuf,
    /// Data graph (any input `gemp load` reads, or a .gemp snapshot).
    #[arg(long)]
    pub data: PathBuf,
    /// Input format of both graphs.
    #[arg(long, value_enum, default_value = "auto")]
    pub format: Format,
    /// Node property holding each node's value.
    #[arg(long, default_value = DEFAULT_VALUE_PROPERTY)]
    pub value_property: String,
    /// Pairs kept at level 1 (a number or `all`).
    #[arg(long, default_value_t = DEFAULT_K0, value_parser = parse_limit)]
    pub k0: usize,
    /// Search range β: states kept per level (a number or `all`).
    #[arg(long, default_value_t = DEFAULT_BEAM, value_parser = parse_limit)]
    pub beam: usize,
    /// Levels to run (default: the number of template nodes).
    #[arg(long)]
    pub depth: Option<usize>,
    /// Matchings to report.
    #[arg(long, default_value_t = DEFAULT_TOP)]
    pub top: usize,
    /// Where to run.
    #[arg(long, value_enum, default_value = "host")]
    pub backend: gemp::gpu::Backend,
    /// The OpenCL device for opencl and auto (an index from `gemp devices`; default:
    /// $GEMP_DEVICE, else the first GPU).
    #[arg(long, value_name = "N")]
    pub device: Option<usize>,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `gemp generate trust`.
#[derive(Debug, Args)]
#[command(
    after_help = "Writes template.gemp, data.gemp and (with a plant) planted.json, the data node key of
each template node t0, t1, ...

Examples:
  gemp generate trust --data-nodes 400 --data-edges 1000 --template-nodes 4 --template-edges 6 -o trust-small
  gemp generate trust --data-nodes 10000 --data-edges 40000 --template-nodes 7 --template-edges 20 --noise 0.2 -o trust-big"
)]
pub struct GenerateTrustArgs {
    /// Data graph nodes.
    #[arg(long, default_value_t = 400)]
    pub data_nodes: usize,
    /// Data graph edges.
    #[arg(long, default_value_t = 1000)]
    pub data_edges: usize,
    /// Template nodes.
    #[arg(long, default_value_t = 4)]
    pub template_nodes: usize,
    /// Template edges (the template is connected).
    #[arg(long, default_value_t = 6)]
    pub template_edges: usize,
    /// Do not plant a noisy copy of the template in the data graph.
    #[arg(long)]
    pub no_plant: bool,
    /// Per-character edit probability of the planted values.
    #[arg(long, default_value_t = 0.1)]
    pub noise: f64,
    /// Random seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Output directory.
    #[arg(short, long)]
    pub output: PathBuf,
    /// Replace existing output files (only regular files: a device, FIFO or directory is never
    /// replaced).
    #[arg(long)]
    pub force: bool,
}

/// `all` (unbounded) or a positive integer.
fn parse_limit(s: &str) -> Result<usize, String> {
    if s == "all" {
        return Ok(usize::MAX);
    }
    match s.parse::<usize>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!("expected a positive number or `all`, got `{s}`")),
    }
}

fn load_graph(
    path: &PathBuf,
    format: Format,
    property: &str,
    what: &str,
) -> anyhow::Result<TrustGraph> {
    let (model, _) = super::load::load_model(std::slice::from_ref(path), format, false)
        .with_context(|| format!("loading the {what} graph {}", path.display()))?;
    let (graph, sources) = TrustGraph::from_model(&model, property)?;
    if sources.fallback > 0 {
        log::warn!(
            "{what}: {} of {} nodes have no property `{property}`; their keys are used as values",
            sources.fallback,
            graph.node_count()
        );
    }
    Ok(graph)
}

/// `gemp trust`.
pub fn trust(args: TrustArgs) -> anyhow::Result<()> {
    let template = load_graph(
        &args.template,
        args.format,
        &args.value_property,
        "template",
    )?;
    let data = load_graph(&args.data, args.format, &args.value_property, "data")?;
    let params = TrustParams {
        search: SearchParams {
            k0: args.k0,
            beam: args.beam,
            depth: args.depth,
        },
        top: args.top,
    };
    let device = gemp::gpu::device_for(args.backend, gemp::gpu::selector(args.device), "trust")?;
    let result = match device {
        None => run_host(&template, &data, &params)?,
        Some(selector) => run_opencl(selector, &template, &data, &params)?,
    };
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&gemp::trust::report::to_json(&template, &data, &result))?
        );
    } else {
        print!("{}", render(&template, &data, &result));
    }
    let t = result.timings;
    log::info!(
        "similarity {:.3?}, one-hop {:.3?}, search {:.3?}, total {:.3?}",
        t.similarity,
        t.one_hop,
        t.search,
        t.total()
    );
    Ok(())
}

#[cfg(feature = "opencl")]
fn run_opencl(
    selector: gemp::gpu::DeviceSelector,
    template: &TrustGraph,
    data: &TrustGraph,
    params: &TrustParams,
) -> anyhow::Result<TrustResult> {
    let gpu = gemp::gpu::Gpu::new(selector)?;
    log::info!("TruST on {}", gpu.info().summary());
    Ok(gemp::trust::device::run_device(
        &gpu, template, data, params,
    )?)
}

#[cfg(not(feature = "opencl"))]
fn run_opencl(
    _: gemp::gpu::DeviceSelector,
    _: &TrustGraph,
    _: &TrustGraph,
    _: &TrustParams,
) -> anyhow::Result<TrustResult> {
    anyhow::bail!(
        "gemp was built without OpenCL support (rebuild with the default cargo feature `opencl`)"
    )
}

/// The result as text: one block per matching, one line per template node.
pub fn render(template: &TrustGraph, data: &TrustGraph, result: &TrustResult) -> String {
    let mut out = String::new();
    if result.matchings.is_empty() {
        out.push_str("no matching\n");
    }
    for (k, m) in result.matchings.iter().enumerate() {
        out.push_str(&format!("#{} score {:.4}\n", k + 1, m.score()));
        for n in &m.nodes {
            let (dname, dvalue) = match n.data {
                Some(x) => (data.name(x).to_string(), format!("{:?}", data.value(x))),
                None => ("-".to_string(), String::new()),
            };
            out.push_str(&format!(
                "  {} {:?} -> {} {}  S {:.3}  OH {:.3}\n",
                template.name(n.template),
                template.value(n.template),
                dname,
                dvalue,
                to_f64(u64::from(n.similarity)),
                to_f64(u64::from(n.one_hop)),
            ));
        }
    }
    out
}

/// `gemp generate trust`.
pub fn generate(args: GenerateTrustArgs) -> anyhow::Result<()> {
    let config = TrustGenConfig {
        data_nodes: args.data_nodes,
        data_edges: args.data_edges,
        template_nodes: args.template_nodes,
        template_edges: args.template_edges,
        plant: !args.no_plant,
        noise: args.noise,
        seed: args.seed,
        ..Default::default()
    };
    let write_options = WriteOptions::force(args.force);
    let template = args.output.join("template.gemp");
    let data = args.output.join("data.gemp");
    let planted_path = args.output.join("planted.json");
    let inst = generate_instance(&config)?;
    for p in [&template, &data, &planted_path] {
        safe_write::check(p, &write_options)?;
    }
    std::fs::create_dir_all(&args.output)
        .with_context(|| format!("creating {}", args.output.display()))?;
    snapshot::write_with(&inst.template, &template, &write_options)?;
    snapshot::write_with(&inst.data, &data, &write_options)?;
    if let Some(planted) = &inst.planted {
        let text = serde_json::to_string_pretty(planted)?;
        safe_write::write(&planted_path, text.as_bytes(), &write_options)?;
    }
    eprintln!(
        "wrote {} ({} nodes, {} edges) and {} ({} nodes, {} edges){}",
        template.display(),
        inst.template.node_count(),
        inst.template.edge_count(),
        data.display(),
        inst.data.node_count(),
        inst.data.edge_count(),
        if inst.planted.is_some() {
            ", planted.json"
        } else {
            ""
        }
    );
    Ok(())
}
