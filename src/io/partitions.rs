//! A partition set on disk: `gemp partition M.gemp --parts N -o DIR` writes `part-0.gemp` …
//! `part-{N-1}.gemp` (each a part file, [`crate::model::snapshot::write_part`], of
//! [`crate::model::partition::part_of`]: sized to the part's owned nodes) and the manifest
//! `partitions.json` last, as one atomic directory write ([`crate::util::safe_dir`]).
//!
//! The manifest names the part count, the owner function, the source snapshot's checksum, a
//! set id (a hash of the source checksum, the part count and the time of writing) and each part
//! file's size and xxh3 checksum. [`PartitionSet::open`] refuses a directory whose manifest is
//! missing, of another format or version (a set written before parts were sized to their owned
//! nodes is version 1: it is refused with the advice to partition again), or whose part files are missing or differ from what it lists (a
//! part copied in from another set), before any query starts; a cluster also compares the set
//! ids of all its processes.

use std::io::Read;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::Xxh3;

use crate::error::{Error, Result};
use crate::model::part::Part;
use crate::model::partition::part_of;
use crate::model::{snapshot, Model};
use crate::util::safe_dir::SafeDir;
use crate::util::safe_write::WriteOptions;

/// The manifest's file name.
pub const MANIFEST: &str = "partitions.json";
/// The manifest's `format` field.
pub const FORMAT: &str = "gemp-partitions";
/// The manifest's version: 2 since each part holds only its owned nodes' data by local index
/// (version 1 parts were snapshots over the whole model's node ids).
pub const VERSION: u32 = 2;
/// How nodes are assigned to parts (written into the manifest, checked on open).
pub const OWNER: &str = "xxh3_64(node id as 4 little-endian bytes) mod parts";

/// One part file in the manifest.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct PartFile {
    /// The part's index.
    pub index: u32,
    /// Its file name in the directory.
    pub name: String,
    /// Its size in bytes.
    pub bytes: u64,
    /// The xxh3 checksum of its bytes (16 hex digits).
    pub xxh3: String,
    /// The nodes the part owns.
    pub owned_nodes: u64,
    /// The edges it stores (those with an owned end).
    pub edges: u64,
}

/// The manifest of a partition set.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Manifest {
    /// Always [`FORMAT`].
    pub format: String,
    /// [`VERSION`].
    pub version: u32,
    /// The number of parts.
    pub parts: u32,
    /// The set id every process of a cluster must agree on (16 hex digits).
    pub set_id: String,
    /// The owner function ([`OWNER`]).
    pub owner: String,
    /// The xxh3 checksum of the source snapshot's bytes.
    pub source_xxh3: String,
    /// The whole model's node count.
    pub nodes: u64,
    /// The whole model's edge count.
    pub edges: u64,
    /// The part files, by index.
    pub files: Vec<PartFile>,
}

/// The xxh3 checksum of a file's bytes, as 16 hex digits.
pub fn file_checksum(path: &Path) -> Result<String> {
    let mut file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let mut hasher = Xxh3::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = file.read(&mut buf).map_err(|e| Error::io(path, e))?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(format!("{:016x}", hasher.digest()))
}

fn owned_by_set(name: &str) -> bool {
    name == MANIFEST || (name.starts_with("part-") && name.ends_with(".gemp"))
}

/// Writes `model` (read from the snapshot whose checksum is `source_xxh3`) as `parts` parts into
/// `dir`, atomically; an existing set is replaced only with `options.force`.
pub fn write(
    model: &Model,
    source_xxh3: &str,
    parts: u32,
    dir: &Path,
    options: &WriteOptions,
) -> Result<Manifest> {
    if parts == 0 {
        return Err(Error::InvalidArgument("--parts must be at least 1".into()));
    }
    let out = SafeDir::create(dir, options, owned_by_set)?;
    let mut files = Vec::new();
    for index in 0..parts {
        let part = part_of(model, parts, index)?;
        let name = format!("part-{index}.gemp");
        let path = out.temp_path().join(&name);
        snapshot::write_part(&part, &path, &WriteOptions::REPLACE)?;
        let bytes = std::fs::metadata(&path)
            .map_err(|e| Error::io(&path, e))?
            .len();
        let owned_nodes = part.owned_count() as u64;
        files.push(PartFile {
            index,
            name,
            bytes,
            xxh3: file_checksum(&path)?,
            owned_nodes,
            edges: part.edge_count() as u64,
        });
    }
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let set_id = xxhash_rust::xxh3::xxh3_64(format!("{source_xxh3}/{parts}/{nanos}").as_bytes());
    let manifest = Manifest {
        format: FORMAT.into(),
        version: VERSION,
        parts,
        set_id: format!("{set_id:016x}"),
        owner: OWNER.into(),
        source_xxh3: source_xxh3.into(),
        nodes: model.node_count() as u64,
        edges: model.edge_count() as u64,
        files,
    };
    let text = serde_json::to_vec_pretty(&manifest)
        .map_err(|e| Error::Model(format!("partition manifest: {e}")))?;
    out.commit((MANIFEST, &text))?;
    Ok(manifest)
}

/// A partition set's directory and checked manifest.
#[derive(Debug, Clone)]
pub struct PartitionSet {
    /// The directory.
    pub dir: PathBuf,
    /// Its manifest.
    pub manifest: Manifest,
}

impl PartitionSet {
    /// Reads and checks `dir`'s manifest (format, version, owner function, one file per index).
    pub fn open(dir: &Path) -> Result<PartitionSet> {
        let path = dir.join(MANIFEST);
        let bad = |message: String| Error::BadFile {
            path: path.clone(),
            message,
        };
        let text = std::fs::read(&path).map_err(|e| Error::io(&path, e))?;
        let manifest: Manifest = serde_json::from_slice(&text)
            .map_err(|e| bad(format!("not a partition manifest: {e}")))?;
        if manifest.format != FORMAT {
            return Err(bad(format!(
                "format {} (expected {FORMAT})",
                manifest.format
            )));
        }
        if manifest.version != VERSION {
            return Err(bad(format!(
                "partition set version {} (this gemp reads version {VERSION}, whose parts hold \
                 only their owned nodes): partition the model again with `gemp partition`",
                manifest.version
            )));
        }
        if manifest.owner != OWNER {
            return Err(bad(format!("unknown owner function `{}`", manifest.owner)));
        }
        if manifest.parts == 0
            || manifest.files.len() != manifest.parts as usize
            || manifest
                .files
                .iter()
                .enumerate()
                .any(|(i, f)| f.index as usize != i || f.name.contains(['/', '\\']))
        {
            return Err(bad(format!(
                "the manifest lists {} files for {} parts, or not one per index",
                manifest.files.len(),
                manifest.parts
            )));
        }
        Ok(PartitionSet {
            dir: dir.to_path_buf(),
            manifest,
        })
    }

    /// Opens part `index`: its file's size and checksum must be the manifest's (else the set is
    /// incomplete or mixed), then it opens as a part file (section checksums, validation) whose
    /// index, part count and model size must be the manifest's.
    pub fn open_part(&self, index: u32) -> Result<Part> {
        let Some(file) = self.manifest.files.get(index as usize) else {
            return Err(Error::Cluster(format!(
                "{}: the set has {} parts, no part {index}",
                self.dir.display(),
                self.manifest.parts
            )));
        };
        let path = self.dir.join(&file.name);
        let bytes = std::fs::metadata(&path)
            .map_err(|e| Error::io(&path, e))?
            .len();
        let sum = file_checksum(&path)?;
        if bytes != file.bytes || sum != file.xxh3 {
            return Err(Error::Cluster(format!(
                "{}: is not the part {index} of the set {} (size {bytes}, checksum {sum}; the \
                 manifest says {} and {}): the partition set is mixed or incomplete; partition again",
                path.display(),
                self.manifest.set_id,
                file.bytes,
                file.xxh3
            )));
        }
        let part = snapshot::open_part(&path)?;
        if part.index() != index
            || part.parts() != self.manifest.parts
            || part.global_nodes() != self.manifest.nodes
            || part.owned_count() as u64 != file.owned_nodes
        {
            return Err(Error::Cluster(format!(
                "{}: holds part {} of {} of a model of {} nodes ({} owned), the manifest part \
                 {index} of {} of {} nodes ({} owned): partition again",
                path.display(),
                part.index(),
                part.parts(),
                part.global_nodes(),
                part.owned_count(),
                self.manifest.parts,
                self.manifest.nodes,
                file.owned_nodes
            )));
        }
        Ok(part)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ModelBuilder;

    fn small() -> Model {
        let mut b = ModelBuilder::new();
        let t = b.rel_type("T");
        let v: Vec<u32> = (0..6)
            .map(|i| b.add_node(&format!("n{i}"), &["N"]))
            .collect();
        for i in 0..6 {
            b.add_edge(v[i], v[(i + 1) % 6], t).unwrap();
        }
        b.freeze().unwrap()
    }

    #[test]
    fn a_written_set_opens_and_a_foreign_part_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        let m = small();
        let ma = write(&m, "00", 2, &a, &WriteOptions::REPLACE).unwrap();
        write(&m, "01", 3, &b, &WriteOptions::REPLACE).unwrap();
        let set = PartitionSet::open(&a).unwrap();
        assert_eq!(set.manifest, ma);
        assert_eq!(
            set.manifest
                .files
                .iter()
                .map(|f| f.owned_nodes)
                .sum::<u64>(),
            6
        );
        for i in 0..2 {
            let part = set.open_part(i).unwrap();
            assert_eq!(part.global_nodes(), 6);
            assert_eq!(
                part.owned_count() as u64,
                set.manifest.files[i as usize].owned_nodes
            );
        }
        std::fs::copy(b.join("part-1.gemp"), a.join("part-1.gemp")).unwrap();
        let e = set.open_part(1).unwrap_err().to_string();
        assert!(e.contains("mixed or incomplete"), "{e}");
        std::fs::remove_file(a.join("part-0.gemp")).unwrap();
        assert!(set.open_part(0).is_err());
    }

    /// A graph of `n` nodes (labels `A`/`B`, an integer and a string property) and `4 n` edges.
    fn generated(n: u32) -> Model {
        let mut b = ModelBuilder::new();
        let t = b.rel_type("T");
        let (x, name) = (b.node_property("x"), b.node_property("name"));
        let v: Vec<u32> = (0..n)
            .map(|i| b.add_node(&format!("n{i}"), &[if i % 3 == 0 { "A" } else { "B" }]))
            .collect();
        for (i, &id) in v.iter().enumerate() {
            b.set_node_property(id, x, crate::model::ValueRef::Int(i as i64))
                .unwrap();
            let text = format!("person {}", i % 97);
            b.set_node_property(id, name, crate::model::ValueRef::Str(&text))
                .unwrap();
        }
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for i in 0..4 * n as usize {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let j = (state >> 33) as usize % n as usize;
            b.add_edge(v[i % n as usize], v[j], t).unwrap();
        }
        b.freeze().unwrap()
    }

    #[test]
    fn parts_are_sized_to_their_owned_nodes() {
        let dir = tempfile::tempdir().unwrap();
        let m = generated(20_000);
        let full = dir.path().join("full.gemp");
        snapshot::write(&m, &full).unwrap();
        let full_bytes = std::fs::metadata(&full).unwrap().len();
        let set = dir.path().join("set");
        let manifest = write(&m, "00", 4, &set, &WriteOptions::REPLACE).unwrap();
        let opened = PartitionSet::open(&set).unwrap();
        for f in &manifest.files {
            // Each of 4 parts well under half the whole model's snapshot.
            assert!(
                f.bytes * 10 < full_bytes * 4,
                "part {} has {} bytes, the whole model {full_bytes}",
                f.index,
                f.bytes
            );
            let part = opened.open_part(f.index).unwrap();
            let owned = part.owned_count();
            assert_eq!(owned as u64, f.owned_nodes);
            assert!(owned < 20_000 / 3, "{owned} nodes owned by one of 4 parts");
            // Every node-indexed array has the owned nodes' length.
            let nodes = part.nodes();
            assert_eq!(nodes.node_count(), owned);
            assert_eq!(nodes.keys().len(), owned);
            assert_eq!(nodes.node_label_csr().0.len(), owned + 1);
            assert_eq!(part.out().offsets.len(), owned + 1);
            assert_eq!(part.inc().offsets.len(), owned + 1);
            let rows: usize = nodes
                .groups()
                .iter()
                .flat_map(|g| g.columns.iter().map(|c| c.len))
                .sum();
            assert_eq!(rows, 2 * owned);
        }
        let total: u64 = manifest.files.iter().map(|f| f.bytes).sum();
        assert!(
            total < full_bytes,
            "{total} bytes in parts, {full_bytes} whole"
        );
    }

    #[test]
    fn a_set_of_an_older_version_or_format_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a");
        let m = small();
        write(&m, "00", 2, &a, &WriteOptions::REPLACE).unwrap();
        let path = a.join(MANIFEST);
        let text = std::fs::read_to_string(&path).unwrap();
        let old = text.replace("\"version\": 2", "\"version\": 1");
        assert_ne!(old, text);
        std::fs::write(&path, &old).unwrap();
        let e = PartitionSet::open(&a).unwrap_err().to_string();
        assert!(
            e.contains("version 1") && e.contains("partition the model again"),
            "{e}"
        );
        // A version 1 part (a plain snapshot over the whole model's ids) listed by a current
        // manifest is refused when opened.
        std::fs::write(&path, &text).unwrap();
        let part0 = a.join("part-0.gemp");
        snapshot::write(&m, &part0).unwrap();
        let mut manifest: Manifest = serde_json::from_str(&text).unwrap();
        manifest.files[0].bytes = std::fs::metadata(&part0).unwrap().len();
        manifest.files[0].xxh3 = file_checksum(&part0).unwrap();
        std::fs::write(&path, serde_json::to_vec(&manifest).unwrap()).unwrap();
        let set = PartitionSet::open(&a).unwrap();
        let e = set.open_part(0).unwrap_err().to_string();
        assert!(e.contains("partition the model again"), "{e}");
        assert!(set.open_part(1).is_ok());
    }
}
