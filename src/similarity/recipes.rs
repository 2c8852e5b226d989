//! Generator of recipe case bases: sandwich-style NEST workflows with the element statistics of
//! Zeyen & Bergmann's Table 1 (size 30–148, median 72; one workflow node, 4–20 task and 4–17 data
//! nodes, 8–37 part-of, 3–19 control-flow and 10–54 data-flow edges), an ingredient and a task
//! taxonomy, and the matching similarity model.
//!
//! Counts follow piecewise-linear quantile functions through Table 1's minimum, median and
//! maximum (one quantile per recipe, spread evenly, shuffled), so a case base of 40 recipes hits
//! the minima and maxima exactly and the medians within one.

use std::path::Path;

use serde_json::{json, Value};

use super::graph::{SemanticGraph, CONTROL_FLOW, DATA, DATA_FLOW, PART_OF, TASK, WORKFLOW};
use super::load::to_case_base_json;
use super::sim_model::SimilarityModel;
use super::taxonomy::Taxonomy;
use crate::error::{Error, Result};
use crate::generate::rng::{Rng, SplitMix64};
use crate::util::safe_write::WriteOptions;

/// The ingredient taxonomy (concept, parent), root first.
const INGREDIENTS: &[(&str, &str)] = &[
    ("ingredient", ""),
    ("bread", "ingredient"),
    ("baguette", "bread"),
    ("ciabatta", "bread"),
    ("toast bread", "bread"),
    ("rye bread", "bread"),
    ("bun", "bread"),
    ("cheese", "ingredient"),
    ("hard cheese", "cheese"),
    ("cheddar", "hard cheese"),
    ("gouda", "hard cheese"),
    ("parmesan", "hard cheese"),
    ("soft cheese", "cheese"),
    ("mozzarella", "soft cheese"),
    ("brie", "soft cheese"),
    ("feta", "soft cheese"),
    ("cream cheese", "soft cheese"),
    ("meat", "ingredient"),
    ("poultry", "meat"),
    ("chicken", "poultry"),
    ("turkey", "poultry"),
    ("pork", "meat"),
    ("ham", "pork"),
    ("bacon", "pork"),
    ("salami", "pork"),
    ("roast beef", "meat"),
    ("seafood", "ingredient"),
    ("tuna", "seafood"),
    ("salmon", "seafood"),
    ("shrimp", "seafood"),
    ("vegetable", "ingredient"),
    ("salad vegetable", "vegetable"),
    ("lettuce", "salad vegetable"),
    ("cucumber", "salad vegetable"),
    ("tomato", "salad vegetable"),
    ("rucola", "salad vegetable"),
    ("allium", "vegetable"),
    ("onion", "allium"),
    ("red onion", "allium"),
    ("garlic", "allium"),
    ("avocado", "vegetable"),
    ("bell pepper", "vegetable"),
    ("sauce", "ingredient"),
    ("mayonnaise", "sauce"),
    ("mustard", "sauce"),
    ("ketchup", "sauce"),
    ("pesto", "sauce"),
    ("butter", "sauce"),
    ("egg", "ingredient"),
    ("spice", "ingredient"),
    ("salt", "spice"),
    ("pepper", "spice"),
    ("basil", "spice"),
    ("oregano", "spice"),
];

/// The task taxonomy (concept, parent), root first.
const TASKS: &[(&str, &str)] = &[
    ("task", ""),
    ("cutting", "task"),
    ("cut", "cutting"),
    ("slice", "cutting"),
    ("dice", "cutting"),
    ("chop", "cutting"),
    ("halve", "cutting"),
    ("heating", "task"),
    ("toast", "heating"),
    ("grill", "heating"),
    ("fry", "heating"),
    ("bake", "heating"),
    ("combining", "task"),
    ("spread", "combining"),
    ("layer", "combining"),
    ("mix", "combining"),
    ("stack", "combining"),
    ("sprinkle", "combining"),
    ("season", "combining"),
    ("finishing", "task"),
    ("serve", "finishing"),
    ("wrap", "finishing"),
    ("close", "finishing"),
];

const UNITS: &[&str] = &["g", "ml", "piece", "slice", "tbsp", "tsp"];

/// The ingredient taxonomy.
pub fn ingredient_taxonomy() -> Taxonomy {
    Taxonomy::from_pairs(INGREDIENTS).expect("the built-in ingredient taxonomy is well-formed")
}

/// The task taxonomy.
pub fn task_taxonomy() -> Taxonomy {
    Taxonomy::from_pairs(TASKS).expect("the built-in task taxonomy is well-formed")
}

/// The similarity model document for recipe case bases (taxonomy files named relative to it).
pub fn similarity_model_json() -> Value {
    json!({
        "taxonomies": {"ingredients": "ingredients.taxonomy.json", "tasks": "tasks.taxonomy.json"},
        "types": {
            WORKFLOW: {"measure": "object", "attributes": {
                "servings": {"measure": "linear", "max_distance": 4},
                "calories": {"measure": "exponential", "lambda": 0.002}}},
            TASK: {"measure": "object", "attributes": {
                "name": {"measure": "taxonomy", "taxonomy": "tasks", "weight": 3},
                "duration": {"measure": "linear", "max_distance": 20}}},
            DATA: {"measure": "object", "attributes": {
                "name": {"measure": "taxonomy", "taxonomy": "ingredients", "weight": 3},
                "amount": {"measure": "linear", "max_distance": 200},
                "unit": {"measure": "levenshtein", "weight": 0.5}}}
        },
        "default": {"measure": "object"}
    })
}

/// The recipe similarity model with the built-in taxonomies (the same as the files written by
/// [`write_case_base`]).
pub fn similarity_model() -> SimilarityModel {
    inline_model().expect("the built-in similarity model is well-formed")
}

fn inline_model() -> Result<SimilarityModel> {
    let mut doc = similarity_model_json();
    doc["taxonomies"] = json!({
        "ingredients": ingredient_taxonomy().to_json(),
        "tasks": task_taxonomy().to_json()
    });
    SimilarityModel::from_json(&doc, Path::new("."))
}

/// Table 1 quantiles: (min, median, max) of tasks, data nodes and data-flow edges.
const TASK_Q: (f64, f64, f64) = (4.0, 8.0, 20.0);
const DATA_Q: (f64, f64, f64) = (4.0, 12.0, 17.0);
const DATA_FLOW_Q: (f64, f64, f64) = (10.0, 24.0, 54.0);

fn quantile((lo, mid, hi): (f64, f64, f64), p: f64) -> usize {
    let v = if p <= 0.5 {
        lo + (mid - lo) * p / 0.5
    } else {
        mid + (hi - mid) * (p - 0.5) / 0.5
    };
    v.round() as usize
}

/// `count` recipes generated from `seed` (deterministic).
pub fn generate_recipes(count: usize, seed: u64) -> Vec<SemanticGraph> {
    let mut rng = SplitMix64::new(seed);
    let mut order: Vec<usize> = (0..count).collect();
    for i in (1..count).rev() {
        order.swap(i, rng.below(i as u64 + 1) as usize);
    }
    let ingredients: Vec<&str> = ingredient_taxonomy_leaves();
    let tasks: Vec<&str> = TASKS
        .iter()
        .map(|p| p.0)
        .filter(|c| !TASKS.iter().any(|p| p.1 == *c))
        .collect();
    (0..count)
        .map(|r| {
            let p = if count <= 1 {
                0.5
            } else {
                order[r] as f64 / (count - 1) as f64
            };
            let t = quantile(TASK_Q, p);
            let d = quantile(DATA_Q, p);
            let df = quantile(DATA_FLOW_Q, p).clamp(t.max(d), 2 * t * d);
            recipe(
                &mut rng,
                &format!("recipe-{:02}", r + 1),
                t,
                d,
                df,
                &ingredients,
                &tasks,
            )
        })
        .collect()
}

fn ingredient_taxonomy_leaves() -> Vec<&'static str> {
    INGREDIENTS
        .iter()
        .map(|p| p.0)
        .filter(|c| !INGREDIENTS.iter().any(|p| p.1 == *c))
        .collect()
}

fn recipe(
    rng: &mut SplitMix64,
    name: &str,
    tasks: usize,
    data: usize,
    data_flow: usize,
    ingredient_names: &[&str],
    task_names: &[&str],
) -> SemanticGraph {
    let mut g = SemanticGraph::new(name);
    let w = g.add_node(
        "w",
        WORKFLOW,
        json!({"name": name, "servings": 1 + rng.below(4), "calories": 200 + 25 * rng.below(30)}),
    );
    let task_nodes: Vec<usize> = (0..tasks)
        .map(|i| {
            g.add_node(
                format!("t{}", i + 1),
                TASK,
                json!({"name": rng.pick(task_names), "duration": 1 + rng.below(15)}),
            )
        })
        .collect();
    let data_nodes: Vec<usize> = (0..data)
        .map(|i| {
            g.add_node(
                format!("d{}", i + 1),
                DATA,
                json!({"name": rng.pick(ingredient_names), "amount": 10 * (1 + rng.below(30)),
                       "unit": rng.pick(UNITS)}),
            )
        })
        .collect();
    let add = |g: &mut SemanticGraph, s: usize, t: usize, kind: &str| {
        g.add_edge(s, t, kind, json!({}))
            .expect("generated edges join existing nodes");
    };
    for &n in task_nodes.iter().chain(&data_nodes) {
        add(&mut g, n, w, PART_OF);
    }
    for pair in task_nodes.windows(2) {
        add(&mut g, pair[0], pair[1], CONTROL_FLOW);
    }
    // Data flow: every data node is consumed by (or produced by) one task, every task touches
    // data; then random further flows without duplicates.
    let mut seen = std::collections::HashSet::new();
    let mut flows = 0;
    let mut flow = |g: &mut SemanticGraph, task: usize, datum: usize, produce: bool| -> bool {
        let (s, t) = if produce {
            (task, datum)
        } else {
            (datum, task)
        };
        if seen.insert((s, t)) {
            add(g, s, t, DATA_FLOW);
            true
        } else {
            false
        }
    };
    for (i, &d) in data_nodes.iter().enumerate() {
        let t = task_nodes[i % tasks];
        if flow(&mut g, t, d, false) {
            flows += 1;
        }
    }
    for (i, &t) in task_nodes.iter().enumerate().skip(data) {
        let d = data_nodes[rng.below(data as u64) as usize];
        if flow(&mut g, t, d, i % 2 == 1) {
            flows += 1;
        }
    }
    while flows < data_flow {
        let t = task_nodes[rng.below(tasks as u64) as usize];
        let d = data_nodes[rng.below(data as u64) as usize];
        if flow(&mut g, t, d, rng.bernoulli(0.4)) {
            flows += 1;
        }
    }
    g
}

/// Element statistics of a case base in Table 1's terms: per column (size, workflow, task, data
/// nodes, part-of, control-flow, data-flow edges) the (min, median, max, mean).
pub fn table1_statistics(graphs: &[SemanticGraph]) -> Vec<(&'static str, [f64; 4])> {
    type Count = Box<dyn Fn(&SemanticGraph) -> usize>;
    let columns: [(&'static str, Count); 7] = [
        ("size", Box::new(|g| g.size())),
        ("workflow nodes", Box::new(|g| g.count_nodes(WORKFLOW))),
        ("task nodes", Box::new(|g| g.count_nodes(TASK))),
        ("data nodes", Box::new(|g| g.count_nodes(DATA))),
        ("part-of edges", Box::new(|g| g.count_edges(PART_OF))),
        (
            "control-flow edges",
            Box::new(|g| g.count_edges(CONTROL_FLOW)),
        ),
        ("data-flow edges", Box::new(|g| g.count_edges(DATA_FLOW))),
    ];
    columns
        .iter()
        .map(|(name, f)| {
            let mut v: Vec<f64> = graphs.iter().map(|g| f(g) as f64).collect();
            v.sort_by(f64::total_cmp);
            let n = v.len();
            let stats = if n == 0 {
                [0.0; 4]
            } else {
                let median = if n % 2 == 1 {
                    v[n / 2]
                } else {
                    (v[n / 2 - 1] + v[n / 2]) / 2.0
                };
                [v[0], median, v[n - 1], v.iter().sum::<f64>() / n as f64]
            };
            (*name, stats)
        })
        .collect()
}

/// Writes `cases.json` (the case base), `model.json` (the similarity model) and the two
/// taxonomy files into `dir` (created if missing), replacing existing files of those names:
/// [`write_case_base_with`] with [`WriteOptions::REPLACE`].
pub fn write_case_base(dir: &Path, graphs: &[SemanticGraph]) -> Result<()> {
    write_case_base_with(dir, graphs, &WriteOptions::REPLACE)
}

/// [`write_case_base`], each file written through [`crate::util::safe_write`] with `options`: without
/// `force` an existing file of one of the names is an [`Error::Refused`] before anything is
/// written.
pub fn write_case_base_with(
    dir: &Path,
    graphs: &[SemanticGraph],
    options: &WriteOptions,
) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|source| Error::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    let files = [
        ("cases.json", to_case_base_json(graphs)),
        ("model.json", similarity_model_json()),
        ("ingredients.taxonomy.json", ingredient_taxonomy().to_json()),
        ("tasks.taxonomy.json", task_taxonomy().to_json()),
    ];
    for (name, _) in &files {
        crate::util::safe_write::check(&dir.join(name), options)?;
    }
    for (name, doc) in files {
        let path = dir.join(name);
        let text = serde_json::to_string_pretty(&doc)
            .map_err(|e| Error::InvalidArgument(format!("serialising {name}: {e}")))?;
        crate::util::safe_write::write(&path, (text + "\n").as_bytes(), options)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forty_recipes_have_table1_statistics() {
        let graphs = generate_recipes(40, 2020);
        let stats = table1_statistics(&graphs);
        let get = |name: &str| stats.iter().find(|s| s.0 == name).unwrap().1;
        // (min, median, max) of Table 1; medians within one.
        for (name, min, median, max) in [
            ("size", 30.0, 72.0, 148.0),
            ("workflow nodes", 1.0, 1.0, 1.0),
            ("task nodes", 4.0, 8.0, 20.0),
            ("data nodes", 4.0, 12.0, 17.0),
            ("part-of edges", 8.0, 20.0, 37.0),
            ("control-flow edges", 3.0, 7.0, 19.0),
            ("data-flow edges", 10.0, 24.0, 54.0),
        ] {
            let s = get(name);
            assert_eq!(s[0], min, "{name} min");
            assert_eq!(s[2], max, "{name} max");
            assert!((s[1] - median).abs() <= 1.0, "{name} median {}", s[1]);
        }
        assert_eq!(generate_recipes(40, 2020), graphs, "deterministic");
        let m = similarity_model();
        assert!(m.taxonomy("ingredients").unwrap().contains("cheddar"));
    }
}
