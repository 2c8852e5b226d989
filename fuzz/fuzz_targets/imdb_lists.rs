#![no_main]
//! The IMDb plain-text list loader never panics: the first byte picks which list the input is.

#[path = "common.rs"]
mod common;

use gemp::io::LoadOptions;
use libfuzzer_sys::fuzz_target;

const NAMES: [&str; 7] = [
    "actors.list",
    "actresses.list",
    "directors.list",
    "producers.list",
    "writers.list",
    "movies.list",
    "ratings.list",
];

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else { return };
    let path = common::input_file(NAMES[pick as usize % NAMES.len()], rest);
    let _ = gemp::io::imdb_lists::load(&[path], &LoadOptions::default());
});
