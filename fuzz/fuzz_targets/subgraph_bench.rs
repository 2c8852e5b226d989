#![no_main]
//! The subgraph-benchmark graph reader never panics.

#[path = "common.rs"]
mod common;

use gemp::io::LoadOptions;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = common::input_file("g.graph", data);
    let _ = gemp::io::subgraph_bench::load(&path, &LoadOptions::default());
});
