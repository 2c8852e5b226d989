//! The TCK's named graphs (`Given the binary-tree-1 graph`), as the `CREATE` statement that
//! builds each one.

/// The two binary trees: root `a:A` KNOWS `b1`, `b2` and FOLLOWS `b3`, `b4`; each `bi` has two
/// FRIEND children `ci1`, `ci2`; the `b`s form a FRIEND cycle `b1 → b2 → b3 → b4 → b1`. Every node
/// is `:X` with its `name`, except in binary-tree-2 the second child of each `b`, which is `:Y`.
fn binary_tree(second_child_label: &str) -> String {
    let mut nodes = vec!["(a:A {name: 'a'})".to_string()];
    let mut rels = Vec::new();
    for b in 1..=4 {
        nodes.push(format!("(b{b}:X {{name: 'b{b}'}})"));
    }
    for b in 1..=4 {
        for c in 1..=2 {
            let label = if c == 2 { second_child_label } else { "X" };
            nodes.push(format!("(c{b}{c}:{label} {{name: 'c{b}{c}'}})"));
            rels.push(format!("(b{b})-[:FRIEND]->(c{b}{c})"));
        }
    }
    for (b, ty) in [(1, "KNOWS"), (2, "KNOWS"), (3, "FOLLOWS"), (4, "FOLLOWS")] {
        rels.push(format!("(a)-[:{ty}]->(b{b})"));
    }
    for b in 1..=4 {
        rels.push(format!("(b{b})-[:FRIEND]->(b{})", b % 4 + 1));
    }
    format!("CREATE {}, {}", nodes.join(", "), rels.join(", "))
}

/// The statement that builds the named graph `name`, when the runner knows it.
pub fn named(name: &str) -> Option<String> {
    match name {
        "binary-tree-1" => Some(binary_tree("X")),
        "binary-tree-2" => Some(binary_tree("Y")),
        _ => None,
    }
}
