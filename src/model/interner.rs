//! String interning for labels, relationship types and dictionary-encoded property values.

use hashbrown::HashMap;

/// Maps strings to dense `u32` ids and back.
#[derive(Debug, Default, Clone)]
pub struct Interner {
    names: Vec<String>,
    ids: HashMap<String, u32>,
}

impl Interner {
    /// An empty interner.
    pub fn new() -> Self {
        Self::default()
    }

    /// Builds an interner whose ids are the positions in `names` (duplicates keep their first id).
    pub fn from_names(names: Vec<String>) -> Self {
        let mut ids = HashMap::with_capacity(names.len());
        for (i, n) in names.iter().enumerate() {
            ids.entry(n.clone()).or_insert(i as u32);
        }
        Interner { names, ids }
    }

    /// The id of `name`, creating it if needed.
    pub fn intern(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = self.names.len() as u32;
        self.names.push(name.to_owned());
        self.ids.insert(name.to_owned(), id);
        id
    }

    /// The id of `name`, if interned.
    pub fn get(&self, name: &str) -> Option<u32> {
        self.ids.get(name).copied()
    }

    /// The name of `id`, if in range.
    pub fn name(&self, id: u32) -> Option<&str> {
        self.names.get(id as usize).map(String::as_str)
    }

    /// Number of interned strings.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// True when nothing is interned.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// All names in id order.
    pub fn names(&self) -> &[String] {
        &self.names
    }
}
