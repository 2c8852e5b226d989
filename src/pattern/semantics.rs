//! Which bindings of a pattern count as distinct matches: a property of the query language, set by
//! `--semantics`, a query file's `// gemp: semantics=…` line or the API.

/// Which bindings of a pattern count as distinct matches (`--semantics`; see "Matching
/// semantics" in `docs/query-language.md`).
///
/// Under [`Isomorphism`](Self::Isomorphism) and [`Homomorphism`](Self::Homomorphism) a
/// relationship without a variable is an existence check (parallel edges do not multiply
/// matches) and named relationships are enumerated edge by edge with no distinctness between
/// them. Under [`Cypher`](Self::Cypher) every relationship is enumerated edge by edge and the
/// relationships of one `MATCH` clause bind distinct edges.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum Semantics {
    /// Node-injective (subgraph monomorphism): distinct pattern nodes bind distinct data nodes.
    #[default]
    Isomorphism,
    /// No injectivity constraint on nodes or edges.
    Homomorphism,
    /// Cypher's relationship isomorphism (Neo4j, Memgraph, Kùzu): within one `MATCH` clause,
    /// distinct pattern relationships bind distinct edges; nodes may repeat. Host matcher only.
    #[cfg_attr(
        feature = "cli",
        value(name = "cypher", alias = "relationship-isomorphism")
    )]
    Cypher,
}

impl Semantics {
    /// The name `--semantics` takes and the output prints (`isomorphism`, `homomorphism`,
    /// `cypher`).
    pub fn name(self) -> &'static str {
        match self {
            Semantics::Isomorphism => "isomorphism",
            Semantics::Homomorphism => "homomorphism",
            Semantics::Cypher => "cypher",
        }
    }

    /// A one-line description of what the mode does, for `gemp explain` and `-v`.
    pub fn describe(self) -> &'static str {
        match self {
            Semantics::Isomorphism => {
                "node-isomorphism: distinct pattern nodes bind distinct nodes; relationships \
                 without a variable are existence checks"
            }
            Semantics::Homomorphism => {
                "homomorphism: nodes and edges may repeat; relationships without a variable are \
                 existence checks"
            }
            Semantics::Cypher => {
                "cypher (relationship-isomorphism): the relationships of one MATCH bind \
                 distinct edges, every relationship edge by edge; nodes may repeat"
            }
        }
    }

    /// Parses a name as `--semantics` and a query file's `// gemp: semantics=…` line accept
    /// it (aliases included, case-insensitive).
    pub fn parse(name: &str) -> Option<Semantics> {
        match name.trim().to_ascii_lowercase().as_str() {
            "isomorphism" => Some(Semantics::Isomorphism),
            "homomorphism" => Some(Semantics::Homomorphism),
            "cypher" | "relationship-isomorphism" => Some(Semantics::Cypher),
            _ => None,
        }
    }

    /// True when every pattern relationship is enumerated edge by edge, with the
    /// relationships of one `MATCH` binding distinct edges.
    pub fn distinct_edges(self) -> bool {
        self == Semantics::Cypher
    }
}

impl std::fmt::Display for Semantics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
