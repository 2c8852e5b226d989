//! The `.gemp` snapshot: a frozen [`Model`] written so that opening it is one read plus
//! validation, with no parsing of graph data: the arrays are used in place.
//!
//! Layout (all integers little-endian):
//!
//! | bytes | content |
//! |---|---|
//! | 0..8 | magic `GEMPSNAP` |
//! | 8..12 | format version ([`FORMAT_VERSION`]) |
//! | 12..16 | number of sections `S` |
//! | 16..24 | length of the JSON metadata block |
//! | 24..32 | xxh3 checksum of bytes 0..24, the section table and the metadata |
//! | 32.. | section table: `S` entries of 32 bytes (offset, length in bytes, xxh3 checksum, element size, reserved) |
//! | then | metadata (JSON: interners, group and column descriptors naming sections by index) |
//! | then | zero padding to a multiple of 4096 bytes (the head is rewritten in whole blocks) |
//! | then | sections, each starting at a multiple of 64 bytes |
//!
//! **Opening reads the file into private memory** (anonymous pages, read-only once filled, read
//! with parallel positioned reads) instead of mapping it. A mapped file is shared with every other
//! program: one that truncates it (`gemp load -o` does not — it renames a new file into place —
//! but `cp`, `>` and editors do) makes the next touch of a vanished page kill the reader with
//! SIGBUS, and one that overwrites it in place changes bytes after they were validated, so the
//! structural checks below would no longer hold. A private copy is immune to both: whatever
//! happens to the file after `open` returns, the model answers from the bytes that were checked
//! (a file that shrinks *while* it is read is a clean error, one overwritten meanwhile fails the
//! checksums). The cost is small next to what opening already did: the checksums and the
//! structural validation read every byte anyway, so the copy adds one memory-speed pass, and the
//! memory is anonymous rather than page cache (resident once read, as a mapped snapshot is after
//! its checksums are verified; but under memory pressure it is swapped rather than dropped and
//! read again, so a snapshot needs that much memory). Informally (`gemp -vv info`, a 2-core machine under a load of
//! about 9, so noisy): a 49 MB snapshot opened in about 0.12–0.15 s either way; a 417 MB one in
//! 1.5–2.6 s mapped and 2.0–3.8 s read, validation dominating both. The
//! alternatives were weighed: `MAP_PRIVATE` does not help (Linux still shows the file's changes in
//! pages not yet copied, and a truncation still raises SIGBUS), and a SIGBUS handler could only
//! turn the crash into an exit, not into an answer, and would have to be installed by every
//! program embedding the library (the Python module included).
//!
//! A part of a partition set ([`write_part`], [`open_part`]; [`super::part::Part`]) uses the same
//! layout under the magic `GEMPPART`, its metadata naming three more sections (the owned nodes'
//! global ids and their out- and in-lists); [`open`] refuses it and [`open_part`] refuses a plain
//! snapshot, each saying what the file is.
//!
//! Opening checks the magic, version, header checksum, that every section lies inside the file and is
//! aligned, every section checksum (in parallel; can be skipped with [`OpenOptions::verify_checksums`]),
//! and then every structural invariant of the model (offsets monotone, ids in range, UTF-8), so a
//! truncated, bit-flipped or hostile file is a clean [`Error::Snapshot`], never undefined behaviour.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use bytemuck::Pod;
use memmap2::Mmap;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::xxh3_64;

use super::direct_file::{SequentialFile, BLOCK};
use super::part::Part;
use super::{
    Adjacency, Column, ColumnData, Interner, Model, ModelParts, PropertyGroup, Slab, StringHeap,
};
use crate::error::{Error, Result};
use crate::util::safe_write::{SafeFile, WriteOptions};

/// File magic.
pub const MAGIC: &[u8; 8] = b"GEMPSNAP";
/// The magic of one part of a partition set ([`write_part`], [`open_part`]): the snapshot layout
/// with the part's own sections (owned ids, out- and in-lists), which a plain [`open`] refuses
/// (and a gemp that predates parts sized to their nodes refuses as "not a gemp snapshot").
pub const PART_MAGIC: &[u8; 8] = b"GEMPPART";
/// Why a part's file does not open as a model.
const PART_IS_NOT_A_MODEL: &str = "a part of a partition set (`gemp partition`), not a model: \
    run queries on the set with `--parts DIR`";
/// Why a plain snapshot does not open as a part.
const MODEL_IS_NOT_A_PART: &str = "a plain snapshot, not a part of a partition set of this \
    format (a set written by an older gemp?): partition the model again with `gemp partition`";
/// Current format version; files of another version are rejected with a clear message.
pub const FORMAT_VERSION: u32 = 1;
const HEADER_LEN: usize = 32;
const ENTRY_LEN: usize = 32;
const ALIGN: usize = 64;

#[derive(Serialize, Deserialize)]
struct Meta {
    labels: Vec<String>,
    rel_types: Vec<String>,
    node_label_offsets: usize,
    node_labels: usize,
    label_index_offsets: usize,
    label_index: usize,
    out: AdjMeta,
    inc: AdjMeta,
    keys: HeapMeta,
    groups: Vec<GroupMeta>,
    edge_columns: Vec<ColumnMeta>,
    /// Only in a part's file ([`PART_MAGIC`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    part: Option<PartMeta>,
}

/// What a part's file adds to a snapshot's metadata: its place in the set and its own sections.
#[derive(Serialize, Deserialize)]
struct PartMeta {
    index: u32,
    parts: u32,
    global_nodes: u64,
    ids: usize,
    out: AdjMeta,
    inc: AdjMeta,
}

#[derive(Serialize, Deserialize)]
struct AdjMeta {
    offsets: usize,
    neighbors: usize,
    types: usize,
    edge_ids: usize,
}

#[derive(Serialize, Deserialize)]
struct HeapMeta {
    offsets: usize,
    bytes: usize,
}

#[derive(Serialize, Deserialize)]
struct GroupMeta {
    label: u32,
    start: u32,
    end: u32,
    columns: Vec<ColumnMeta>,
}

#[derive(Serialize, Deserialize)]
struct ColumnMeta {
    name: String,
    len: usize,
    kind: ColumnKind,
    data: usize,
    heap: Option<HeapMeta>,
    validity: usize,
}

#[derive(Serialize, Deserialize, Clone, Copy)]
#[serde(rename_all = "lowercase")]
enum ColumnKind {
    Int,
    Float,
    Bool,
    Str,
    Dict,
}

/// Collects the byte sections of a model in write order.
struct SectionList<'a> {
    sections: Vec<(&'a [u8], u32)>,
}

impl<'a> SectionList<'a> {
    fn add<T: Pod>(&mut self, slab: &'a Slab<T>) -> usize {
        self.sections
            .push((slab.as_bytes(), std::mem::size_of::<T>() as u32));
        self.sections.len() - 1
    }

    fn heap(&mut self, h: &'a StringHeap) -> HeapMeta {
        HeapMeta {
            offsets: self.add(&h.offsets),
            bytes: self.add(&h.bytes),
        }
    }

    fn adjacency(&mut self, a: &'a Adjacency) -> AdjMeta {
        AdjMeta {
            offsets: self.add(&a.offsets),
            neighbors: self.add(&a.neighbors),
            types: self.add(&a.types),
            edge_ids: self.add(&a.edge_ids),
        }
    }

    fn column(&mut self, c: &'a Column) -> ColumnMeta {
        let (kind, data, heap) = match &c.data {
            ColumnData::Int(v) => (ColumnKind::Int, self.add(v), None),
            ColumnData::Float(v) => (ColumnKind::Float, self.add(v), None),
            ColumnData::Bool(v) => (ColumnKind::Bool, self.add(v), None),
            ColumnData::Str(h) => {
                let hm = self.heap(h);
                (ColumnKind::Str, hm.offsets, Some(hm))
            }
            ColumnData::Dict { codes, dict } => {
                let d = self.add(codes);
                (ColumnKind::Dict, d, Some(self.heap(dict)))
            }
        };
        ColumnMeta {
            name: c.name.clone(),
            len: c.len,
            kind,
            data,
            heap,
            validity: self.add(&c.validity),
        }
    }
}

/// Writes `model` to `path`, replacing an existing regular file: [`write_with`] with
/// [`WriteOptions::REPLACE`].
pub fn write(model: &Model, path: &Path) -> Result<()> {
    write_with(model, path, &WriteOptions::REPLACE)
}

/// Writes `model` to `path` through [`crate::util::safe_write`]: into a temporary file beside it,
/// synced and then renamed into place, so `path` holds either its old content or the complete
/// snapshot. Refuses a `path` that is not a regular file (a device, FIFO, directory…), and an
/// existing file unless `options.force` ([`Error::Refused`]).
pub fn write_with(model: &Model, path: &Path, options: &WriteOptions) -> Result<()> {
    if model.node_ids.is_some() {
        return Err(Error::Model(
            "a part's node model is written with its part (write_part)".into(),
        ));
    }
    write_file(model, None, path, options)
}

/// Writes one part of a partition set to `path` ([`PART_MAGIC`]; safely, as [`write_with`]):
/// its node model's sections, then the owned ids and the out- and in-lists.
pub fn write_part(part: &Part, path: &Path, options: &WriteOptions) -> Result<()> {
    write_file(part.nodes(), Some(part), path, options)
}

/// Writes `model` (and, for a part, the part's own sections) to `path`.
fn write_file(
    model: &Model,
    part: Option<&Part>,
    path: &Path,
    options: &WriteOptions,
) -> Result<()> {
    let mut list = SectionList {
        sections: Vec::new(),
    };
    let mut meta = Meta {
        labels: model.labels.names().to_vec(),
        rel_types: model.rel_types.names().to_vec(),
        node_label_offsets: list.add(&model.node_label_offsets),
        node_labels: list.add(&model.node_labels),
        label_index_offsets: list.add(&model.label_index_offsets),
        label_index: list.add(&model.label_index),
        out: list.adjacency(&model.out),
        inc: list.adjacency(&model.inc),
        keys: list.heap(&model.keys),
        groups: model
            .groups
            .iter()
            .map(|g| GroupMeta {
                label: g.label,
                start: g.start,
                end: g.end,
                columns: g.columns.iter().map(|c| list.column(c)).collect(),
            })
            .collect(),
        edge_columns: model.edge_columns.iter().map(|c| list.column(c)).collect(),
        part: None,
    };
    let no_ids = Slab::default();
    if let Some(p) = part {
        meta.part = Some(PartMeta {
            index: p.index(),
            parts: p.parts(),
            global_nodes: p.global_nodes(),
            ids: list.add(model.node_ids.as_ref().unwrap_or(&no_ids)),
            out: list.adjacency(p.out()),
            inc: list.adjacency(p.inc()),
        });
    }
    let meta_json = serde_json::to_vec(&meta).map_err(|e| Error::Model(e.to_string()))?;
    let sections = list.sections;

    // Layout: the head (header, table, metadata) padded to whole blocks, then the sections. The
    // section checksums are computed while the sections stream out; the head is written with
    // zero checksums first and rewritten once they are known.
    let table_len = sections.len() * ENTRY_LEN;
    let head_len = (HEADER_LEN + table_len + meta_json.len()).next_multiple_of(BLOCK);
    let mut offsets = Vec::with_capacity(sections.len());
    let mut offset = head_len;
    for (bytes, _) in &sections {
        offsets.push(offset);
        offset = align_up(offset + bytes.len());
    }
    let end = offset;

    let out = SafeFile::create(path, options)?;
    let tmp = out.temp_path();
    let io = |e| Error::io(path, e);
    let mut w = SequentialFile::create(tmp, true).map_err(io)?;
    w.write_zeros(head_len).map_err(io)?;
    let mut checksums = Vec::with_capacity(sections.len());
    for ((bytes, _), &off) in sections.iter().zip(&offsets) {
        w.write_zeros(off - w.position() as usize).map_err(io)?;
        // Hash and copy each piece while it is in cache.
        let mut hasher = xxhash_rust::xxh3::Xxh3::new();
        for piece in bytes.chunks(1 << 16) {
            hasher.update(piece);
            w.write_all(piece).map_err(io)?;
        }
        checksums.push(hasher.digest());
    }
    w.write_zeros(end - w.position() as usize).map_err(io)?;

    let mut table = Vec::with_capacity(table_len);
    for (((bytes, elem), sum), &off) in sections.iter().zip(&checksums).zip(&offsets) {
        table.extend_from_slice(&(off as u64).to_le_bytes());
        table.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
        table.extend_from_slice(&sum.to_le_bytes());
        table.extend_from_slice(&elem.to_le_bytes());
        table.extend_from_slice(&0u32.to_le_bytes());
    }
    let mut head = Vec::with_capacity(head_len);
    head.extend_from_slice(if part.is_some() { PART_MAGIC } else { MAGIC });
    head.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    head.extend_from_slice(&(sections.len() as u32).to_le_bytes());
    head.extend_from_slice(&(meta_json.len() as u64).to_le_bytes());
    let header_sum = header_checksum(&head, &table, &meta_json);
    head.extend_from_slice(&header_sum.to_le_bytes());
    head.extend_from_slice(&table);
    head.extend_from_slice(&meta_json);
    head.resize(head_len, 0);
    log::debug!(
        "{}: {end} bytes written{}",
        tmp.display(),
        if w.is_direct() {
            " directly (O_DIRECT)"
        } else {
            " through the page cache"
        }
    );
    drop(w.finish(Some(&head)).map_err(io)?);
    out.commit()
}

fn header_checksum(first24: &[u8], table: &[u8], meta: &[u8]) -> u64 {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    h.update(&first24[..24]);
    h.update(table);
    h.update(meta);
    h.digest()
}

fn align_up(x: usize) -> usize {
    x.div_ceil(ALIGN) * ALIGN
}

/// The sections of snapshot `bytes` by what they hold (`label_index`, `out.offsets`,
/// `group0.startYear.validity`…), each with its byte range and element size, in file order. Reads
/// only the header, table and metadata (no checksum is verified). For tests and fuzzing, which
/// mutate a section's contents and then [`reseal`] the file so that the mutation reaches the
/// structural validation instead of stopping at a checksum.
#[doc(hidden)]
pub fn section_map(bytes: &[u8]) -> Result<Vec<(String, std::ops::Range<usize>, usize)>> {
    let (table_end, meta_end) = head_bounds(bytes)?;
    let meta: Meta = serde_json::from_slice(&bytes[table_end..meta_end])
        .map_err(|e| Error::Model(format!("bad metadata: {e}")))?;
    let mut names: Vec<(usize, String)> = Vec::new();
    let mut name = |i: usize, n: String| names.push((i, n));
    name(meta.node_label_offsets, "node_label_offsets".into());
    name(meta.node_labels, "node_labels".into());
    name(meta.label_index_offsets, "label_index_offsets".into());
    name(meta.label_index, "label_index".into());
    for (a, d) in [(&meta.out, "out"), (&meta.inc, "inc")] {
        name(a.offsets, format!("{d}.offsets"));
        name(a.neighbors, format!("{d}.neighbors"));
        name(a.types, format!("{d}.types"));
        name(a.edge_ids, format!("{d}.edge_ids"));
    }
    name(meta.keys.offsets, "keys.offsets".into());
    name(meta.keys.bytes, "keys.bytes".into());
    let columns = meta
        .groups
        .iter()
        .enumerate()
        .flat_map(|(g, gm)| gm.columns.iter().map(move |c| (format!("group{g}"), c)))
        .chain(meta.edge_columns.iter().map(|c| ("edges".to_string(), c)));
    for (owner, c) in columns {
        let base = format!("{owner}.{}", c.name);
        if let Some(h) = &c.heap {
            name(h.offsets, format!("{base}.offsets"));
            name(h.bytes, format!("{base}.bytes"));
        }
        if !matches!(c.kind, ColumnKind::Str) {
            name(c.data, format!("{base}.data"));
        }
        name(c.validity, format!("{base}.validity"));
    }
    let mut out = Vec::new();
    for (i, n) in names {
        let e = HEADER_LEN + i * ENTRY_LEN;
        if e + ENTRY_LEN > table_end {
            return Err(Error::Model(format!("metadata names missing section {i}")));
        }
        let offset = u64_le(bytes, e) as usize;
        let len = u64_le(bytes, e + 8) as usize;
        let elem = u32_le(bytes, e + 24) as usize;
        if offset.checked_add(len).is_none_or(|end| end > bytes.len()) {
            return Err(Error::Model(format!("section {i} lies outside the file")));
        }
        out.push((n, offset..offset + len, elem));
    }
    out.sort_by_key(|(_, r, _)| r.start);
    Ok(out)
}

/// Recomputes every checksum of snapshot `bytes` (each section's, then the header's) after the
/// caller changed section contents in place: what a file built to be wrong looks like, which only
/// the structural validation can refuse. For tests and fuzzing.
#[doc(hidden)]
pub fn reseal(bytes: &mut [u8]) -> Result<()> {
    let (table_end, meta_end) = head_bounds(bytes)?;
    let count = (table_end - HEADER_LEN) / ENTRY_LEN;
    for i in 0..count {
        let e = HEADER_LEN + i * ENTRY_LEN;
        let offset = u64_le(bytes, e) as usize;
        let len = u64_le(bytes, e + 8) as usize;
        let Some(section) = offset
            .checked_add(len)
            .and_then(|end| bytes.get(offset..end))
        else {
            return Err(Error::Model(format!("section {i} lies outside the file")));
        };
        let sum = xxh3_64(section);
        bytes[e + 16..e + 24].copy_from_slice(&sum.to_le_bytes());
    }
    let sum = header_checksum(
        &bytes[..24],
        &bytes[HEADER_LEN..table_end],
        &bytes[table_end..meta_end],
    );
    bytes[24..32].copy_from_slice(&sum.to_le_bytes());
    Ok(())
}

fn u32_le(b: &[u8], o: usize) -> u32 {
    u32::from_le_bytes(b[o..o + 4].try_into().unwrap_or([0; 4]))
}

fn u64_le(b: &[u8], o: usize) -> u64 {
    u64::from_le_bytes(b[o..o + 8].try_into().unwrap_or([0; 8]))
}

/// The ends of the section table and of the metadata of snapshot `bytes` (magic and bounds
/// checked, nothing else).
fn head_bounds(bytes: &[u8]) -> Result<(usize, usize)> {
    if bytes.len() < HEADER_LEN || &bytes[..8] != MAGIC {
        return Err(Error::Model("not a gemp snapshot".into()));
    }
    let count = u32_le(bytes, 12) as usize;
    let table_end = HEADER_LEN + count * ENTRY_LEN;
    let meta_end = usize::try_from(u64_le(bytes, 16))
        .ok()
        .and_then(|m| table_end.checked_add(m));
    match meta_end {
        Some(m) if m <= bytes.len() => Ok((table_end, m)),
        _ => Err(Error::Model("snapshot head extends past the end".into())),
    }
}

/// File size (bytes) from which the sections' checksums are verified on all cores.
const PARALLEL_CHECKSUMS_FROM: usize = 8 << 20;

/// Options for [`open_with`].
#[derive(Debug, Clone)]
pub struct OpenOptions {
    /// Verify every section's checksum (default true). Structural validation always runs.
    pub verify_checksums: bool,
}

impl Default for OpenOptions {
    fn default() -> Self {
        OpenOptions {
            verify_checksums: true,
        }
    }
}

/// True when `path` starts with the snapshot magic.
pub fn is_snapshot(path: &Path) -> bool {
    use std::io::Read;
    let mut buf = [0u8; 8];
    File::open(path)
        .and_then(|mut f| f.read_exact(&mut buf))
        .map(|_| &buf == MAGIC)
        .unwrap_or(false)
}

/// Opens a snapshot with default options.
pub fn open(path: &Path) -> Result<Model> {
    open_with(path, &OpenOptions::default())
}

/// Opens a snapshot: reads it into private memory and validates it (see the module docs: why it
/// is read, not mapped).
pub fn open_with(path: &Path, options: &OpenOptions) -> Result<Model> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let (map, len) = read_private(&file, path)?;
    from_mmap(Arc::new(map), len, path.to_path_buf(), options)
}

/// Bytes read per positioned read (and per parallel task) by [`read_private`].
const READ_CHUNK: usize = 8 << 20;

/// The whole of `file` copied into anonymous, read-only, page-aligned memory (parallel positioned
/// reads on Unix), with its length. A file that shrinks while it is read is a clean
/// [`Error::Snapshot`]; one overwritten meanwhile fails the checksums afterwards.
fn read_private(file: &File, path: &Path) -> Result<(Mmap, usize)> {
    let size = file.metadata().map_err(|e| Error::io(path, e))?.len();
    let len = usize::try_from(size).map_err(|_| Error::Snapshot {
        path: path.to_path_buf(),
        message: format!("{size} bytes do not fit in this machine's address space"),
    })?;
    let mut anon = memmap2::MmapMut::map_anon(len.max(1)).map_err(|e| Error::io(path, e))?;
    // Huge pages where the kernel offers them: far fewer page faults while the copy fills the
    // memory, and fewer TLB misses for the queries (a hint; ignored where unsupported).
    #[cfg(target_os = "linux")]
    let _ = anon.advise(memmap2::Advice::HugePage);
    let read = |chunk: &mut [u8], at: usize| -> std::io::Result<()> {
        #[cfg(unix)]
        {
            std::os::unix::fs::FileExt::read_exact_at(file, chunk, at as u64)
        }
        #[cfg(not(unix))]
        {
            use std::io::{Read, Seek};
            let mut f = file;
            f.seek(std::io::SeekFrom::Start(at as u64))?;
            f.read_exact(chunk)
        }
    };
    let copied = if len <= READ_CHUNK {
        // One read on this thread (handing a small file to the pool costs more than reading it).
        read(&mut anon[..len], 0)
    } else {
        let chunks = anon[..len].par_chunks_mut(READ_CHUNK).enumerate();
        #[cfg(not(unix))]
        let chunks = chunks.with_max_len(usize::MAX).with_min_len(usize::MAX);
        chunks.try_for_each(|(i, chunk)| read(chunk, i * READ_CHUNK))
    };
    copied.map_err(|e| match e.kind() {
        std::io::ErrorKind::UnexpectedEof => Error::Snapshot {
            path: path.to_path_buf(),
            message: "the file shrank while it was read (changed by another program?)".into(),
        },
        _ => Error::io(path, e),
    })?;
    let map = anon.make_read_only().map_err(|e| Error::io(path, e))?;
    Ok((map, len))
}

/// Opens one part of a partition set written by [`write_part`]: read into private memory, every
/// checksum verified, the node model and the part validated ([`Part::new`]). A plain snapshot is
/// refused (so is a part file of an older format).
pub fn open_part(path: &Path) -> Result<Part> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let (map, len) = read_private(&file, path)?;
    Reader {
        map: Arc::new(map),
        len,
        path: path.to_path_buf(),
        sections: Vec::new(),
    }
    .read_part(&OpenOptions::default())
}

/// Reads a snapshot from bytes (copied into an anonymous mapping). Used by tests and fuzzing.
pub fn from_bytes(bytes: &[u8], options: &OpenOptions) -> Result<Model> {
    let path = PathBuf::from("<memory>");
    let mut anon =
        memmap2::MmapMut::map_anon(bytes.len().max(1)).map_err(|e| Error::io(&path, e))?;
    anon[..bytes.len()].copy_from_slice(bytes);
    let map = anon.make_read_only().map_err(|e| Error::io(&path, e))?;
    let map = Arc::new(map);
    let len = bytes.len();
    Reader {
        map: map.clone(),
        len,
        path,
        sections: Vec::new(),
    }
    .read(options)
}

fn from_mmap(map: Arc<Mmap>, len: usize, path: PathBuf, options: &OpenOptions) -> Result<Model> {
    Reader {
        map,
        len,
        path,
        sections: Vec::new(),
    }
    .read(options)
}

struct Section {
    offset: usize,
    len: usize,
    checksum: u64,
    elem: usize,
}

struct Reader {
    map: Arc<Mmap>,
    len: usize,
    path: PathBuf,
    sections: Vec<Section>,
}

impl Reader {
    fn err(&self, message: impl Into<String>) -> Error {
        Error::Snapshot {
            path: self.path.clone(),
            message: message.into(),
        }
    }

    fn bytes(&self) -> &[u8] {
        &self.map[..self.len]
    }

    fn read(mut self, options: &OpenOptions) -> Result<Model> {
        let meta = self.head(options, MAGIC)?;
        if meta.part.is_some() {
            return Err(self.err("a plain snapshot's metadata describes a part"));
        }
        let (parts, _) = self.parts(meta)?;
        Model::from_parts(parts, true).map_err(|e| self.model_err(e))
    }

    /// Reads a part's file ([`PART_MAGIC`]).
    fn read_part(mut self, options: &OpenOptions) -> Result<Part> {
        let meta = self.head(options, PART_MAGIC)?;
        let (parts, part) = self.parts(meta)?;
        let Some(p) = part else {
            return Err(self.err("a part's metadata lacks the part's sections"));
        };
        let ids: Slab<u32> = self.slab(p.ids)?;
        let nodes = Model::from_part_parts(parts, ids, true).map_err(|e| self.model_err(e))?;
        let (out, inc) = (self.adjacency(&p.out)?, self.adjacency(&p.inc)?);
        Part::new(p.index, p.parts, p.global_nodes, nodes, out, inc).map_err(|e| self.model_err(e))
    }

    fn model_err(&self, e: Error) -> Error {
        match e {
            Error::Model(message) => self.err(message),
            e => self.err(e.to_string()),
        }
    }

    /// Checks the head (magic `magic`, version, header checksum, section table and, per
    /// `options`, the section checksums) and returns the metadata.
    fn head(&mut self, options: &OpenOptions, magic: &[u8; 8]) -> Result<Meta> {
        let data = self.bytes();
        if data.len() < HEADER_LEN {
            return Err(self.err("file is too short to be a snapshot (truncated?)"));
        }
        if &data[..8] != magic {
            return Err(self.err(if &data[..8] == PART_MAGIC {
                PART_IS_NOT_A_MODEL
            } else if &data[..8] == MAGIC {
                MODEL_IS_NOT_A_PART
            } else {
                "not a gemp snapshot (bad magic)"
            }));
        }
        let u32_at = |o: usize| u32::from_le_bytes(data[o..o + 4].try_into().unwrap_or([0; 4]));
        let u64_at = |o: usize| u64::from_le_bytes(data[o..o + 8].try_into().unwrap_or([0; 8]));
        let version = u32_at(8);
        if version != FORMAT_VERSION {
            return Err(self.err(format!(
                "format version {version}, this gemp reads version {FORMAT_VERSION}: re-create it with `gemp load`"
            )));
        }
        let count = u32_at(12) as usize;
        let meta_len = u64_at(16);
        let table_end = count
            .checked_mul(ENTRY_LEN)
            .and_then(|t| t.checked_add(HEADER_LEN))
            .filter(|&e| e <= data.len());
        let Some(table_end) = table_end else {
            return Err(self.err("section table extends past the end of the file (truncated?)"));
        };
        let meta_end = usize::try_from(meta_len)
            .ok()
            .and_then(|m| table_end.checked_add(m))
            .filter(|&e| e <= data.len());
        let Some(meta_end) = meta_end else {
            return Err(self.err("metadata extends past the end of the file (truncated?)"));
        };
        let expected = u64_at(24);
        let actual = header_checksum(
            &data[..24],
            &data[HEADER_LEN..table_end],
            &data[table_end..meta_end],
        );
        if expected != actual {
            return Err(self.err("header checksum mismatch (corrupted file)"));
        }
        let mut sections = Vec::with_capacity(count);
        for i in 0..count {
            let e = HEADER_LEN + i * ENTRY_LEN;
            let (offset, len) = (u64_at(e), u64_at(e + 8));
            let elem = u32_at(e + 24) as usize;
            let end = offset.checked_add(len).filter(|&x| x <= data.len() as u64);
            if end.is_none() {
                return Err(self.err(format!(
                    "section {i} extends past the end of the file (truncated?)"
                )));
            }
            let (offset, len) = (offset as usize, len as usize);
            if offset % 8 != 0 || !matches!(elem, 1 | 4 | 8) || len % elem != 0 {
                return Err(self.err(format!(
                    "section {i} is misaligned or has a bad element size"
                )));
            }
            sections.push(Section {
                offset,
                len,
                checksum: u64_at(e + 16),
                elem,
            });
        }
        if options.verify_checksums {
            // On all cores only for files big enough to pay for waking the thread pool.
            let corrupt = |s: &Section| xxh3_64(&data[s.offset..s.offset + s.len]) != s.checksum;
            let bad = if data.len() >= PARALLEL_CHECKSUMS_FROM {
                sections.par_iter().position_any(corrupt)
            } else {
                sections.iter().position(corrupt)
            };
            if let Some(i) = bad {
                return Err(self.err(format!("checksum mismatch in section {i} (corrupted file)")));
            }
        }
        let meta: Meta = serde_json::from_slice(&data[table_end..meta_end])
            .map_err(|e| self.err(format!("bad metadata: {e}")))?;
        self.sections = sections;
        Ok(meta)
    }

    fn slab<T: Pod>(&self, index: usize) -> Result<Slab<T>> {
        let s = self
            .sections
            .get(index)
            .ok_or_else(|| self.err(format!("metadata names missing section {index}")))?;
        let size = std::mem::size_of::<T>();
        if s.elem != size || s.offset % std::mem::align_of::<T>() != 0 {
            return Err(self.err(format!("section {index} has the wrong element type")));
        }
        Slab::mapped(self.map.clone(), s.offset, s.len / size)
            .ok_or_else(|| self.err(format!("section {index} lies outside the file")))
    }

    fn heap(&self, h: &HeapMeta) -> Result<StringHeap> {
        Ok(StringHeap {
            offsets: self.slab(h.offsets)?,
            bytes: self.slab(h.bytes)?,
        })
    }

    fn adjacency(&self, a: &AdjMeta) -> Result<Adjacency> {
        Ok(Adjacency {
            offsets: self.slab(a.offsets)?,
            neighbors: self.slab(a.neighbors)?,
            types: self.slab(a.types)?,
            edge_ids: self.slab(a.edge_ids)?,
        })
    }

    fn column(&self, c: &ColumnMeta) -> Result<Column> {
        let heap = || {
            c.heap
                .as_ref()
                .ok_or_else(|| self.err(format!("column `{}` lacks its string heap", c.name)))
                .and_then(|h| self.heap(h))
        };
        let data = match c.kind {
            ColumnKind::Int => ColumnData::Int(self.slab(c.data)?),
            ColumnKind::Float => ColumnData::Float(self.slab(c.data)?),
            ColumnKind::Bool => ColumnData::Bool(self.slab(c.data)?),
            ColumnKind::Str => ColumnData::Str(heap()?),
            ColumnKind::Dict => ColumnData::Dict {
                codes: self.slab(c.data)?,
                dict: heap()?,
            },
        };
        Ok(Column {
            name: c.name.clone(),
            len: c.len,
            data,
            validity: self.slab(c.validity)?,
        })
    }

    /// The model's parts the metadata describes (and a part's own metadata, if any).
    fn parts(&self, meta: Meta) -> Result<(ModelParts, Option<PartMeta>)> {
        let groups = meta
            .groups
            .iter()
            .map(|g| {
                Ok(PropertyGroup {
                    label: g.label,
                    start: g.start,
                    end: g.end,
                    columns: g
                        .columns
                        .iter()
                        .map(|c| self.column(c))
                        .collect::<Result<_>>()?,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        for (names, what) in [
            (&meta.labels, "label"),
            (&meta.rel_types, "relationship type"),
        ] {
            let mut seen = std::collections::HashSet::with_capacity(names.len());
            if let Some(dup) = names.iter().find(|n| !seen.insert(n.as_str())) {
                return Err(self.err(format!("{what} `{dup}` is named twice")));
            }
        }
        for g in &groups {
            if g.label != super::NO_LABEL && g.label as usize >= meta.labels.len() {
                return Err(self.err("group label out of range"));
            }
        }
        let parts = ModelParts {
            labels: Interner::from_names(meta.labels),
            rel_types: Interner::from_names(meta.rel_types),
            node_label_offsets: self.slab(meta.node_label_offsets)?,
            node_labels: self.slab(meta.node_labels)?,
            label_index_offsets: self.slab(meta.label_index_offsets)?,
            label_index: self.slab(meta.label_index)?,
            out: self.adjacency(&meta.out)?,
            inc: self.adjacency(&meta.inc)?,
            keys: self.heap(&meta.keys)?,
            groups,
            edge_columns: meta
                .edge_columns
                .iter()
                .map(|c| self.column(c))
                .collect::<Result<_>>()?,
        };
        Ok((parts, meta.part))
    }
}
