#![no_main]
//! The query front end never panics: any text is parsed; what parses prints back to text that parses
//! to the same tree, and is bound against a small model (errors allowed, panics not).

use std::sync::OnceLock;

use gemp::model::{Model, ModelBuilder, ValueRef};
use gemp::pattern::{compile, parse_query, Params};
use libfuzzer_sys::fuzz_target;

fn model() -> &'static Model {
    static M: OnceLock<Model> = OnceLock::new();
    M.get_or_init(|| {
        let mut b = ModelBuilder::new();
        let t = b.rel_type("ACTOR");
        let name = b.node_property("primaryName");
        let p = b.add_node("p", &["Person"]);
        let m = b.add_node("m", &["Title", "Movie"]);
        b.set_node_property(p, name, ValueRef::Str("Jack")).unwrap();
        b.add_edge(p, m, t).unwrap();
        b.freeze().unwrap()
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(q) = parse_query(text) {
        let printed = q.to_string();
        let again = parse_query(&printed).expect("printed query must parse");
        assert_eq!(again.to_string(), printed);
        if let Ok(bound) = compile(text, model(), &Params::new()) {
            let _ = gemp::engines::gemp::execute(model(), &bound, &Default::default());
        }
    }
});
