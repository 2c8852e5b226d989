//! [`Slab`]: a read-only array that is either owned (built in memory) or a view into a snapshot's
//! bytes (read into private, read-only anonymous memory: see `snapshot`'s docs for why it is not
//! a mapping of the file). Frozen models are made of slabs, so opening a snapshot costs no
//! parsing and no per-array copying.

use std::ops::Deref;
use std::ptr::NonNull;
use std::sync::Arc;

use bytemuck::Pod;
use memmap2::Mmap;

/// A read-only array of plain-old-data values, owned or memory-mapped.
///
/// The element pointer and length are resolved once, when the slab is made, so reading one is a
/// plain slice access: adjacency and columns are read millions of times per query, and resolving
/// a mapped window (bounds, alignment) on every read cost more than the read.
pub struct Slab<T: Pod> {
    /// First element: into `owner`'s vector or mapping, which never moves or changes.
    ptr: NonNull<T>,
    /// Number of elements.
    len: usize,
    /// Keeps the memory `ptr` points into alive (never read).
    _owner: Owner<T>,
}

/// What a [`Slab`]'s elements live in; shared, so that a cloned slab (a model folded from another,
/// see `transform::fold`) points into the same memory.
#[derive(Clone)]
enum Owner<T> {
    /// Built in memory (never mutated or reallocated after the slab is made).
    Owned(#[allow(dead_code)] Arc<Vec<T>>),
    /// A window of a snapshot's bytes (anonymous read-only memory), shared by all slabs of that
    /// snapshot.
    Mapped(#[allow(dead_code)] Arc<Mmap>),
}

// SAFETY: a slab only hands out shared `&[T]` to memory it owns (a vector it never mutates, or a
// read-only mapping kept alive by an `Arc`); it is as thread-safe as `Vec<T>` / `&[T]`.
unsafe impl<T: Pod + Send> Send for Slab<T> {}
// SAFETY: see `Send`; `&Slab<T>` only gives `&[T]`.
unsafe impl<T: Pod + Sync> Sync for Slab<T> {}

impl<T: Pod> Slab<T> {
    /// The window of `len` elements at byte `offset` of `map`; `None` when it does not fit in the
    /// mapping or is not aligned for `T`.
    pub fn mapped(map: Arc<Mmap>, offset: usize, len: usize) -> Option<Self> {
        let bytes = len
            .checked_mul(std::mem::size_of::<T>())
            .and_then(|n| offset.checked_add(n))
            .and_then(|end| map.get(offset..end))?;
        let elems: &[T] = bytemuck::try_cast_slice(bytes).ok()?;
        let ptr = NonNull::new(elems.as_ptr().cast_mut())?;
        Some(Slab {
            ptr,
            len,
            _owner: Owner::Mapped(map),
        })
    }

    /// The elements as a slice.
    #[inline]
    pub fn as_slice(&self) -> &[T] {
        // SAFETY: `ptr..ptr + len` lies inside `_owner` (checked when the slab was made), is
        // aligned for `T`, and is never written while the slab exists.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }

    /// The elements as raw bytes (what the snapshot writer and the OpenCL uploads use).
    pub fn as_bytes(&self) -> &[u8] {
        bytemuck::cast_slice(self.as_slice())
    }
}

/// A second handle on the same elements (no copy).
impl<T: Pod> Clone for Slab<T> {
    fn clone(&self) -> Self {
        Slab {
            ptr: self.ptr,
            len: self.len,
            _owner: self._owner.clone(),
        }
    }
}

impl<T: Pod> Default for Slab<T> {
    fn default() -> Self {
        Vec::new().into()
    }
}

impl<T: Pod> Deref for Slab<T> {
    type Target = [T];
    #[inline]
    fn deref(&self) -> &[T] {
        self.as_slice()
    }
}

impl<T: Pod> From<Vec<T>> for Slab<T> {
    fn from(mut v: Vec<T>) -> Self {
        // A vector's buffer pointer is never null (dangling but aligned when empty).
        let ptr = NonNull::new(v.as_mut_ptr()).unwrap_or(NonNull::dangling());
        Slab {
            ptr,
            len: v.len(),
            _owner: Owner::Owned(Arc::new(v)),
        }
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
#[derive(Debug, Default, Clone)]
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
