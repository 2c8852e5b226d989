//! [`Schema`]: what a model contains — labels, relationship types, properties and their types, counts
//! and degree statistics. Used by `gemp info`, the query binder and the planner.

use serde::Serialize;

use super::{Model, PropType, NO_LABEL};

/// A label and how many nodes carry it.
#[derive(Debug, Clone, Serialize)]
pub struct LabelInfo {
    /// Label name.
    pub name: String,
    /// Nodes carrying it.
    pub count: usize,
}

/// A relationship type and how many edges have it.
#[derive(Debug, Clone, Serialize)]
pub struct RelTypeInfo {
    /// Type name.
    pub name: String,
    /// Edges of this type.
    pub count: usize,
}

/// A property column.
#[derive(Debug, Clone, Serialize)]
pub struct PropertyInfo {
    /// The primary label of the nodes holding it (`None` for edge properties and unlabelled nodes).
    pub label: Option<String>,
    /// Property name.
    pub name: String,
    /// Value type.
    #[serde(rename = "type")]
    pub prop_type: PropType,
    /// Number of non-null values.
    pub count: usize,
    /// Dictionary-encoded.
    pub dictionary: bool,
}

/// Degree statistics of one direction.
#[derive(Debug, Clone, Serialize, Default)]
pub struct DegreeStats {
    /// Largest degree.
    pub max: usize,
    /// Mean degree.
    pub mean: f64,
    /// Median degree.
    pub median: usize,
    /// 99th percentile.
    pub p99: usize,
}

/// Summary of a model's contents.
#[derive(Debug, Clone, Serialize)]
pub struct Schema {
    /// Number of nodes.
    pub nodes: usize,
    /// Number of edges.
    pub edges: usize,
    /// Labels, most frequent first.
    pub labels: Vec<LabelInfo>,
    /// Relationship types, most frequent first.
    pub rel_types: Vec<RelTypeInfo>,
    /// Node property columns.
    pub node_properties: Vec<PropertyInfo>,
    /// Edge property columns.
    pub edge_properties: Vec<PropertyInfo>,
    /// Nodes without any label (created for dangling references).
    pub unlabelled_nodes: usize,
    /// Out-degree statistics.
    pub out_degree: DegreeStats,
    /// In-degree statistics.
    pub in_degree: DegreeStats,
}

impl Schema {
    /// Computes the schema of `model`.
    pub fn of(model: &Model) -> Schema {
        let mut labels: Vec<LabelInfo> = model
            .labels()
            .names()
            .iter()
            .enumerate()
            .map(|(i, n)| LabelInfo {
                name: n.clone(),
                count: model.label_count(i as u32),
            })
            .collect();
        labels.sort_by(|a, b| b.count.cmp(&a.count).then(a.name.cmp(&b.name)));
        let mut rel_types: Vec<RelTypeInfo> = model
            .rel_types()
            .names()
            .iter()
            .enumerate()
            .map(|(i, n)| RelTypeInfo {
                name: n.clone(),
                count: model.type_count(i as u32),
            })
            .collect();
        rel_types.sort_by(|a, b| b.count.cmp(&a.count).then(a.name.cmp(&b.name)));
        let mut node_properties = Vec::new();
        let mut unlabelled_nodes = 0;
        for g in model.groups() {
            let label = (g.label != NO_LABEL)
                .then(|| model.labels().name(g.label).map(str::to_owned))
                .flatten();
            if g.label == NO_LABEL {
                unlabelled_nodes += (g.end - g.start) as usize;
            }
            for c in &g.columns {
                node_properties.push(PropertyInfo {
                    label: label.clone(),
                    name: c.name.clone(),
                    prop_type: c.prop_type(),
                    count: c.non_null_count(),
                    dictionary: matches!(c.data, super::ColumnData::Dict { .. }),
                });
            }
        }
        let edge_properties = model
            .edge_columns()
            .iter()
            .map(|c| PropertyInfo {
                label: None,
                name: c.name.clone(),
                prop_type: c.prop_type(),
                count: c.non_null_count(),
                dictionary: matches!(c.data, super::ColumnData::Dict { .. }),
            })
            .collect();
        Schema {
            nodes: model.node_count(),
            edges: model.edge_count(),
            labels,
            rel_types,
            node_properties,
            edge_properties,
            unlabelled_nodes,
            out_degree: degree_stats(&model.out().offsets),
            in_degree: degree_stats(&model.inc().offsets),
        }
    }

    /// The property columns only — names and types of node and edge properties, as the query
    /// binder needs them — without counting values or computing degree statistics (a pass over
    /// every node's adjacency, ~25 ms on a million-node model, that a query never reads). Counts
    /// are 0, the other fields empty.
    pub fn properties_of(model: &Model) -> Schema {
        let column = |label: Option<String>, c: &super::Column| PropertyInfo {
            label,
            name: c.name.clone(),
            prop_type: c.prop_type(),
            count: 0,
            dictionary: matches!(c.data, super::ColumnData::Dict { .. }),
        };
        let mut node_properties = Vec::new();
        for g in model.groups() {
            let label = (g.label != NO_LABEL)
                .then(|| model.labels().name(g.label).map(str::to_owned))
                .flatten();
            node_properties.extend(g.columns.iter().map(|c| column(label.clone(), c)));
        }
        Schema {
            nodes: model.node_count(),
            edges: model.edge_count(),
            labels: Vec::new(),
            rel_types: Vec::new(),
            node_properties,
            edge_properties: model
                .edge_columns()
                .iter()
                .map(|c| column(None, c))
                .collect(),
            unlabelled_nodes: 0,
            out_degree: DegreeStats::default(),
            in_degree: DegreeStats::default(),
        }
    }

    /// The node property columns named `name` (one per primary label holding it).
    pub fn node_property<'a>(
        &'a self,
        name: &'a str,
    ) -> impl Iterator<Item = &'a PropertyInfo> + 'a {
        self.node_properties.iter().filter(move |p| p.name == name)
    }
}

fn degree_stats(offsets: &[u32]) -> DegreeStats {
    let mut deg: Vec<usize> = offsets.windows(2).map(|w| (w[1] - w[0]) as usize).collect();
    if deg.is_empty() {
        return DegreeStats::default();
    }
    let sum: usize = deg.iter().sum();
    let mean = sum as f64 / deg.len() as f64;
    let mid = deg.len() / 2;
    let median = *deg.select_nth_unstable(mid).1;
    let p = ((deg.len() - 1) * 99) / 100;
    let p99 = *deg.select_nth_unstable(p).1;
    let max = deg.iter().copied().max().unwrap_or(0);
    DegreeStats {
        max,
        mean,
        median,
        p99,
    }
}
