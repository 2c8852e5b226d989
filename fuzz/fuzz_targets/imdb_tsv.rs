#![no_main]
//! The IMDb TSV loader never panics: the first byte picks which file the rest of the input is.

#[path = "common.rs"]
mod common;

use gemp::io::LoadOptions;
use libfuzzer_sys::fuzz_target;

const NAMES: [&str; 6] = [
    "title.basics.tsv",
    "name.basics.tsv",
    "title.principals.tsv",
    "title.ratings.tsv",
    "title.crew.tsv",
    "title.episode.tsv",
];

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else { return };
    let path = common::input_file(NAMES[pick as usize % NAMES.len()], rest);
    let _ = gemp::io::imdb_tsv::load(&[path], &LoadOptions::default());
});
