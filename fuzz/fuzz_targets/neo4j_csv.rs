#![no_main]
//! The Neo4j-CSV reader never panics: the input is split at its first NUL byte into a node file
//! and a relationship file, loaded together (with a metamodel for half of the inputs); a third of
//! the inputs are also loaded as one neo4j-admin group with other delimiters and integer ids.

#[path = "common.rs"]
mod common;

use gemp::io::neo4j_csv::{CsvOptions, GroupKind, IdType, InputGroup};
use gemp::io::{Format, LoadOptions};
use libfuzzer_sys::fuzz_target;

const XCORE: &str = "package p
abstract class Element { int ^id }
class Node extends Element { int n refers Node[] REL opposite BACK refers Node[] BACK opposite REL }
";

fuzz_target!(|data: &[u8]| {
    let (nodes, rels) = match data.iter().position(|&b| b == 0) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &[][..]),
    };
    let n = common::input_file("x-Node.csv", nodes);
    let r = common::input_file("x-REL.csv", rels);
    let mm = common::input_file("m.xcore", XCORE.as_bytes());
    let mut paths = vec![n, r];
    if data.len() % 2 == 0 {
        paths.push(mm);
    }
    let _ = gemp::io::load(&paths, Format::Neo4jCsv, &LoadOptions::default());
    // neo4j-admin's options: `|` fields, `'` quotes, integer ids, and the two files as one group
    // (the node file's first line heading both).
    if data.len() % 3 == 0 {
        let kind = if data.len() % 2 == 0 {
            GroupKind::Nodes
        } else {
            GroupKind::Relationships
        };
        let options = LoadOptions {
            neo4j: CsvOptions {
                delimiter: b'|',
                array_delimiter: ',',
                quote: if data.len() % 5 == 0 { b'\'' } else { b'"' },
                id_type: IdType::Integer,
                groups: vec![InputGroup {
                    kind,
                    names: vec!["T".into()],
                    files: paths[..2].to_vec(),
                }],
            },
            ..LoadOptions::default()
        };
        let _ = gemp::io::load(&[], Format::Neo4jCsv, &options);
    }
});
