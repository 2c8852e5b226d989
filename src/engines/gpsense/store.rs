//! The compressed graph on disk, beside the model's snapshot (`model.gemp.gpsense`), so the
//! offline compression runs once per model and budget.
//!
//! Layout (little-endian): magic `GEMPGPSC`, format version (u32), the model's
//! [`fingerprint`] (u64), the budget (u64), the level count (u32) and
//! per level `δ` (f64 bits), nodes, edges and bytes (u64 each), then the node mapping (count u32,
//! then one u32 per original node). Hyper-edges, weights and mapping lists are rebuilt from the
//! mapping and the model on load (one pass over the edges), which keeps the file small and always
//! consistent with the model it is checked against.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::model::Model;

use super::compress::{fingerprint, Compressed, LevelStats};

/// File magic.
pub const MAGIC: &[u8; 8] = b"GEMPGPSC";
/// Format version.
pub const VERSION: u32 = 1;

/// Where the compressed graph of a model loaded from `inputs` is kept: beside a single snapshot
/// (`<snapshot>.gpsense`); none for other inputs (they are compressed in memory each run).
pub fn cache_path(inputs: &[PathBuf]) -> Option<PathBuf> {
    match inputs {
        [one] if crate::model::snapshot::is_snapshot(one) => {
            let mut p = one.clone().into_os_string();
            p.push(".gpsense");
            Some(PathBuf::from(p))
        }
        _ => None,
    }
}

/// Writes `c` to `path` through [`crate::util::safe_write`]. The file is a cache that gemp owns, so an
/// existing regular file there is replaced; anything else (a device, FIFO, directory) is refused.
pub fn save(c: &Compressed, path: &Path) -> Result<()> {
    let mut bytes = Vec::with_capacity(64 + 4 * c.node_of.len());
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&VERSION.to_le_bytes());
    bytes.extend_from_slice(&c.fingerprint.to_le_bytes());
    bytes.extend_from_slice(&c.budget.to_le_bytes());
    bytes.extend_from_slice(&(c.levels.len() as u32).to_le_bytes());
    for l in &c.levels {
        bytes.extend_from_slice(&l.delta.to_bits().to_le_bytes());
        bytes.extend_from_slice(&l.nodes.to_le_bytes());
        bytes.extend_from_slice(&l.edges.to_le_bytes());
        bytes.extend_from_slice(&l.bytes.to_le_bytes());
    }
    bytes.extend_from_slice(&(c.node_of.len() as u32).to_le_bytes());
    for &h in &c.node_of {
        bytes.extend_from_slice(&h.to_le_bytes());
    }
    crate::util::safe_write::write(
        path,
        &bytes,
        &crate::util::safe_write::WriteOptions::REPLACE,
    )
}

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
    path: &'a Path,
}

impl Reader<'_> {
    fn bad(&self, message: impl Into<String>) -> Error {
        Error::BadFile {
            path: self.path.to_path_buf(),
            message: message.into(),
        }
    }

    fn take(&mut self, n: usize) -> Result<&[u8]> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.bytes.len());
        let Some(end) = end else {
            return Err(self.bad(format!("truncated at byte {}", self.pos)));
        };
        let s = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(s)
    }

    fn u32(&mut self) -> Result<u32> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn u64(&mut self) -> Result<u64> {
        let b = self.take(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }
}

/// Reads a compressed graph saved for `model`; an error when the file is damaged, of another
/// version, or built from another model.
pub fn load(path: &Path, model: &Model) -> Result<Compressed> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    let mut r = Reader {
        bytes: &bytes,
        pos: 0,
        path,
    };
    if r.take(8)? != MAGIC {
        return Err(r.bad("not a GpSense compressed graph (bad magic)"));
    }
    let version = r.u32()?;
    if version != VERSION {
        return Err(r.bad(format!(
            "format version {version}, this gemp reads {VERSION}"
        )));
    }
    let fp = r.u64()?;
    if fp != fingerprint(model) {
        return Err(r.bad("built from another model (fingerprint differs)"));
    }
    let budget = r.u64()?;
    let count = r.u32()? as usize;
    if count == 0 || count > 1024 {
        return Err(r.bad(format!("implausible level count {count}")));
    }
    let mut levels = Vec::with_capacity(count);
    for _ in 0..count {
        levels.push(LevelStats {
            delta: f64::from_bits(r.u64()?),
            nodes: r.u64()?,
            edges: r.u64()?,
            bytes: r.u64()?,
        });
    }
    let n = r.u32()? as usize;
    if n != model.node_count() {
        return Err(r.bad(format!(
            "maps {n} nodes, the model has {}",
            model.node_count()
        )));
    }
    let raw = r.take(4 * n)?;
    let node_of: Vec<u32> = raw
        .chunks_exact(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    if r.pos != bytes.len() {
        return Err(r.bad("trailing bytes"));
    }
    let hyper = levels.last().map_or(0, |l| l.nodes) as usize;
    if node_of.iter().any(|&h| h as usize >= hyper) {
        return Err(r.bad("node mapping out of range"));
    }
    let mut seen = vec![false; hyper];
    node_of.iter().for_each(|&h| seen[h as usize] = true);
    if seen.iter().any(|s| !s) {
        return Err(r.bad("a hyper-node has no members"));
    }
    Ok(Compressed::from_mapping(model, fp, budget, levels, node_of))
}
