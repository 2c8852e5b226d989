#![no_main]
//! The JSON graph reader never panics: from memory (strict and not, with and without a
//! metamodel) and from a file through format detection; a model it loads exports and reads back.

#[path = "common.rs"]
mod common;

use gemp::io::metamodel::Metamodel;
use gemp::io::{json_graph, Format, LoadOptions};
use libfuzzer_sys::fuzz_target;

const XCORE: &str = "package p
abstract class Element { int ^id }
class Task extends Element { int n refers Task[] NEXT opposite PREV refers Task[] PREV opposite NEXT }
";

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mm = Metamodel::from_xcore(XCORE).expect("the fixed metamodel parses");
    let strict = LoadOptions {
        strict: true,
        ..LoadOptions::default()
    };
    let _ = json_graph::read_str_with(&text, None, &strict);
    let _ = json_graph::read_str_with(&text, Some(&mm), &strict);
    if let Ok((model, _)) = json_graph::read_str(&text, None) {
        let mut out = Vec::new();
        json_graph::write(&model, &mut out).expect("writing to memory");
        let again = String::from_utf8(out).expect("the export is UTF-8");
        let (back, _) = json_graph::read_str(&again, None).expect("the export reads back");
        assert_eq!(back.node_count(), model.node_count());
        assert_eq!(back.edge_count(), model.edge_count());
    }
    let path = common::input_file("g.json", data);
    let _ = gemp::io::load(&[path], Format::Auto, &LoadOptions::default());
});
