#![no_main]
//! The XMI reader never panics, with or without a metamodel, and the Xcore reader never panics
//! on the same bytes.

#[path = "common.rs"]
mod common;

use gemp::io::metamodel::Metamodel;
use gemp::io::{xmi, LoadOptions};
use libfuzzer_sys::fuzz_target;

const XCORE: &str = "package p
abstract class Element { int ^id }
class Root { contains Track[] tracks contains Sensor[] sensors }
abstract class Track extends Element { refers Sensor[] monitoredBy opposite monitors refers Track[] next }
class Segment extends Track { int length boolean ok Kind kind }
class Sensor extends Element { refers Track[] monitors opposite monitoredBy }
enum Kind { A B = 5 C }
";

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = Metamodel::from_xcore(&text);
    let _ = Metamodel::from_ecore(&text);
    let mm = Metamodel::from_xcore(XCORE).expect("the fixed metamodel parses");
    let path = common::input_file("m.xmi", data);
    let options = LoadOptions::default();
    let _ = gemp::io::load_with_metamodel(
        &[path.clone()],
        gemp::io::Format::Xmi,
        None,
        &options,
    );
    let _ = xmi::read_str(&text, Some(&mm), &options);
});
