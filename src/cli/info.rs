//! `gemp info`: schema, counts, degree statistics, top labels and types.

use std::path::PathBuf;

use clap::Args;

use gemp::io::format::Format;
use gemp::model::Schema;

/// Arguments of `gemp info`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:
  gemp info imdb.gemp
  gemp info datasets/imdb-sample --json")]
pub struct InfoArgs {
    /// A .gemp snapshot or anything `gemp load` reads (default: the bundled sample, as `match`).
    pub inputs: Vec<PathBuf>,
    /// Input format.
    #[arg(long, value_enum, default_value = "auto")]
    pub format: Format,
    /// Print the schema as JSON.
    #[arg(long)]
    pub json: bool,
    /// Skip verifying a snapshot's section checksums (structure is still validated).
    #[arg(long)]
    pub no_verify: bool,
    /// How many labels and types to list.
    #[arg(long, default_value_t = 20)]
    pub top: usize,
}

/// `gemp info`.
pub fn info(args: InfoArgs) -> anyhow::Result<()> {
    let inputs = super::query::model_inputs(&args.inputs)?;
    let (model, _) = super::load::load_model_with(&inputs, args.format, false, !args.no_verify)?;
    let schema = model.schema();
    if args.json {
        println!("{}", serde_json::to_string_pretty(&schema)?);
    } else {
        print!("{}", render(&schema, args.top));
    }
    Ok(())
}

/// Human-readable schema summary.
pub fn render(s: &Schema, top: usize) -> String {
    let mut o = String::new();
    o += &format!("nodes: {}\nedges: {}\n", s.nodes, s.edges);
    if s.unlabelled_nodes > 0 {
        o += &format!("unlabelled nodes: {}\n", s.unlabelled_nodes);
    }
    o += &format!(
        "out-degree: max {} mean {:.2} median {} p99 {}\n",
        s.out_degree.max, s.out_degree.mean, s.out_degree.median, s.out_degree.p99
    );
    o += &format!(
        "in-degree:  max {} mean {:.2} median {} p99 {}\n",
        s.in_degree.max, s.in_degree.mean, s.in_degree.median, s.in_degree.p99
    );
    o += &format!("\nlabels ({}):\n", s.labels.len());
    for l in s.labels.iter().take(top) {
        o += &format!("  {:<24} {:>12}\n", l.name, l.count);
    }
    o += &format!("\nrelationship types ({}):\n", s.rel_types.len());
    for t in s.rel_types.iter().take(top) {
        o += &format!("  {:<24} {:>12}\n", t.name, t.count);
    }
    o += "\nnode properties:\n";
    for p in &s.node_properties {
        o += &format!(
            "  {:<24} {:<8} {:>12} non-null{}\n",
            format!("{}.{}", p.label.as_deref().unwrap_or("(none)"), p.name),
            p.prop_type.name(),
            p.count,
            if p.dictionary { "  (dictionary)" } else { "" }
        );
    }
    if !s.edge_properties.is_empty() {
        o += "\nedge properties:\n";
        for p in &s.edge_properties {
            o += &format!(
                "  {:<24} {:<8} {:>12} non-null{}\n",
                p.name,
                p.prop_type.name(),
                p.count,
                if p.dictionary { "  (dictionary)" } else { "" }
            );
        }
    }
    o
}
