//! [`Slab`]: a read-only array that is either owned (built in memory) or a view into a memory-mapped
//! snapshot. Frozen models are made of slabs, so opening a snapshot costs no parsing and no copying.

use std::ops::Deref;
use std::sync::Arc;

use bytemuck::Pod;
use memmap2::Mmap;

/// A read-only array of plain-old-data values, owned or memory-mapped.
pub enum Slab<T: Pod> {
    /// Built in memory.
    Owned(Vec<T>),
    /// A window `[offset, offset + len * size_of::<T>())` of a mapped snapshot, aligned for `T`
    /// (checked when the snapshot is opened).
    Mapped {
        /// The mapping, shared by all slabs of one snapshot.
        map: Arc<Mmap>,
        /// Byte offset of the first element.
        offset: usize,
        /// Number of elements.
        len: usize,
    },
}

impl<T: Pod> Slab<T> {
    /// The elements as a slice.
    pub fn as_slice(&self) -> &[T] {
        match self {
            Slab::Owned(v) => v,
            Slab::Mapped { map, offset, len } => {
                let bytes = &map[*offset..*offset + *len * std::mem::size_of::<T>()];
                bytemuck::cast_slice(bytes)
            }
        }
    }

    /// The elements as raw bytes (what the snapshot writer and the OpenCL uploads use).
    pub fn as_bytes(&self) -> &[u8] {
        bytemuck::cast_slice(self.as_slice())
    }
}

impl<T: Pod> Default for Slab<T> {
    fn default() -> Self {
        Slab::Owned(Vec::new())
    }
}

impl<T: Pod> Deref for Slab<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        self.as_slice()
    }
}

impl<T: Pod> From<Vec<T>> for Slab<T> {
    fn from(v: Vec<T>) -> Self {
        Slab::Owned(v)
    }
}

impl<T: Pod + std::fmt::Debug> std::fmt::Debug for Slab<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = self.as_slice();
        if s.len() <= 16 {
            write!(f, "{s:?}")
        } else {
            write!(f, "[{} elements]", s.len())
        }
    }
}

/// Strings stored as one byte heap plus `len + 1` offsets (GEMP Fig. 4 layout, also what the
/// attribute kernel receives).
#[derive(Debug, Default)]
pub struct StringHeap {
    /// `offsets[i]..offsets[i + 1]` is string `i` in `bytes`; `offsets.len() == len + 1` (or 0 when empty).
    pub offsets: Slab<u64>,
    /// UTF-8 bytes of all strings, concatenated.
    pub bytes: Slab<u8>,
}

impl StringHeap {
    /// Builds a heap from owned strings.
    pub fn from_strings<S: AsRef<str>>(items: impl IntoIterator<Item = S>) -> Self {
        let mut offsets = vec![0u64];
        let mut bytes = Vec::new();
        for s in items {
            bytes.extend_from_slice(s.as_ref().as_bytes());
            offsets.push(bytes.len() as u64);
        }
        StringHeap {
            offsets: offsets.into(),
            bytes: bytes.into(),
        }
    }

    /// Number of strings.
    pub fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// True when the heap holds no string.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// String `i`; `None` when out of range. Invalid UTF-8 (impossible for validated data) yields "".
    pub fn get(&self, i: usize) -> Option<&str> {
        let start = *self.offsets.get(i)? as usize;
        let end = *self.offsets.get(i + 1)? as usize;
        let b = self.bytes.get(start..end)?;
        Some(std::str::from_utf8(b).unwrap_or(""))
    }

    /// Iterates over all strings in order.
    pub fn iter(&self) -> impl Iterator<Item = &str> + '_ {
        (0..self.len()).map(move |i| self.get(i).unwrap_or(""))
    }
}
