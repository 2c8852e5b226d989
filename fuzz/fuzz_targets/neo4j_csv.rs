#![no_main]
//! The Neo4j-CSV reader never panics: the input is split at its first NUL byte into a node file
//! and a relationship file, loaded together (with a metamodel for half of the inputs).

#[path = "common.rs"]
mod common;

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
});
