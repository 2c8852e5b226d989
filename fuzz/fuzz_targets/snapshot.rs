#![no_main]
//! Any byte string given to the snapshot reader is either a model that can be read everywhere or a
//! clean error.

use gemp::model::snapshot::{from_bytes, OpenOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // Without checksums, so that the structural validation itself is exercised.
    let opts = OpenOptions { verify_checksums: false };
    if let Ok(m) = from_bytes(data, &opts) {
        let _ = m.schema();
        for n in 0..m.node_count().min(64) as u32 {
            let _ = m.node_key(n);
            let _ = m.node_labels(n);
            for g in m.groups() {
                for c in &g.columns {
                    let _ = m.node_property(n, &c.name);
                }
            }
            for p in m.out().range(n) {
                let e = m.out().edge_id_at(p);
                let _ = m.edge_source(e);
                for c in m.edge_columns() {
                    let _ = c.get(e as usize);
                }
            }
            for p in m.inc().range(n) {
                let _ = m.edge_target(m.inc().edge_id_at(p));
            }
        }
    }
});
