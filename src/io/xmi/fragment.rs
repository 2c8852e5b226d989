//! EMF object addresses: the keys gemp gives XMI elements and the resolution of references
//! written as fragment paths (`//@regions.0/@sensors.1`), `file.xmi#fragment` URIs or ids.
//!
//! A single-root document's root is `/` and its descendants `//@feature.index/…`; in a
//! multi-root document (`<xmi:XMI>` wrapper) the roots are `/0`, `/1`, … and descendants
//! `/1/@feature.index/…`. When several files load into one model, keys are prefixed with the
//! file name and `#` (`railway.xmi#//@routes.0`).
//!
//! A path grows with the depth of its element, so keys made of whole paths would cost memory
//! (and snapshot space) quadratic in the nesting depth. A path longer than [`MAX_PATH_KEY`] bytes
//! is therefore not used as a key: such an element (and so every element below it) gets the
//! short key `prefix/~<n>`, `n` being its position in document order among the file's elements
//! (counted from 0). References written as paths still resolve at any depth: they are followed
//! step by step from the root (see [`Target::Path`]), never through the keys.

/// The longest fragment path kept as a key (bytes, the file prefix included).
pub const MAX_PATH_KEY: usize = 256;

/// The key of an element whose path is longer than [`MAX_PATH_KEY`]: `prefix/~<ordinal>`, the
/// `ordinal`-th element of its file in document order. No path has this form.
pub fn compact_key(prefix: &str, ordinal: u64) -> String {
    format!("{prefix}/~{ordinal}")
}

/// The key of a root element: `prefix/` for a single root, `prefix/<index>` in a wrapper.
pub fn root_key(prefix: &str, wrapped: bool, index: usize) -> String {
    if wrapped {
        format!("{prefix}/{index}")
    } else {
        format!("{prefix}/")
    }
}

/// The key of the `index`-th child of `parent` in containment feature `feature`.
pub fn child_key(parent: &str, feature: &str, index: usize) -> String {
    format!("{parent}/@{feature}.{index}")
}

/// True when a reference token is a fragment path (possibly behind a `uri#`).
pub fn looks_like_path(token: &str) -> bool {
    let frag = token.rsplit_once('#').map_or(token, |(_, f)| f);
    frag.starts_with('/')
}

/// What a reference token points at.
#[derive(Debug, PartialEq, Eq)]
pub enum Target {
    /// An element addressed by its fragment path: in the file with key prefix `prefix`, root
    /// number `root` (0 for a single-root file), then each step's containment feature and index.
    Path {
        /// The key prefix of the file.
        prefix: String,
        /// The root's index (0 unless the file has an `<xmi:XMI>` wrapper).
        root: usize,
        /// `(feature, index)` for each step down from the root.
        steps: Vec<(String, usize)>,
    },
    /// An id (`xmi:id`) within the file with this key prefix: `(prefix, id)`.
    Id(String, String),
}

impl Target {
    /// The element's key when its path is short enough to be one (see [`MAX_PATH_KEY`]); for
    /// tests and messages. `wrapped`: the file has an `<xmi:XMI>` wrapper.
    pub fn path_key(&self, wrapped: bool) -> Option<String> {
        let Target::Path {
            prefix,
            root,
            steps,
        } = self
        else {
            return None;
        };
        let mut key = root_key(prefix, wrapped, *root);
        for (feature, index) in steps {
            key = child_key(&key, feature, *index);
        }
        Some(key)
    }
}

/// Resolves `token` written in the file whose key prefix is `prefix` and whose roots are
/// `wrapped` (file names of `uri#` parts map to prefixes through `prefix_of`). The result's size
/// is linear in the token's.
pub fn target(
    token: &str,
    prefix: &str,
    wrapped_of: &dyn Fn(&str) -> Option<bool>,
    prefix_of: &dyn Fn(&str) -> Option<String>,
) -> Option<Target> {
    let (uri, frag) = match token.rsplit_once('#') {
        Some((u, f)) => (u, f),
        None => ("", token),
    };
    let prefix = if uri.is_empty() {
        prefix.to_owned()
    } else {
        let name = uri.rsplit(['/', '\\']).next().unwrap_or(uri);
        prefix_of(name)?
    };
    let Some(path) = frag.strip_prefix('/') else {
        return Some(Target::Id(prefix, frag.to_owned()));
    };
    let wrapped = wrapped_of(&prefix)?;
    let mut segments = path.split('/');
    let root = segments.next().unwrap_or("");
    let root_index: usize = if root.is_empty() {
        0
    } else {
        root.parse().ok()?
    };
    if !wrapped && root_index != 0 {
        return None;
    }
    let mut steps = Vec::new();
    for seg in segments {
        let seg = seg.strip_prefix('@')?;
        let (feature, index) = match seg.rsplit_once('.') {
            Some((f, i)) if i.bytes().all(|b| b.is_ascii_digit()) && !i.is_empty() => {
                (f, i.parse().ok()?)
            }
            _ => (seg, 0usize),
        };
        if feature.is_empty() {
            return None;
        }
        steps.push((feature.to_owned(), index));
    }
    Some(Target::Path {
        prefix,
        root: root_index,
        steps,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The token's target: a path as the key it spells, an id as `id <prefix>|<id>`.
    fn resolve(token: &str, wrapped: bool) -> Option<String> {
        let t = target(
            token,
            "",
            &|p| (p.is_empty() || p == "b.xmi#").then_some(wrapped),
            &|name| (name == "b.xmi").then(|| "b.xmi#".to_owned()),
        )?;
        Some(match t {
            Target::Id(p, id) => format!("id {p}|{id}"),
            path => path.path_key(wrapped)?,
        })
    }

    #[allow(non_snake_case)]
    fn Key(k: &str) -> String {
        k.to_owned()
    }

    #[test]
    fn keys_and_paths_agree() {
        let root = root_key("", false, 0);
        assert_eq!(root, "/");
        let region = child_key(&root, "regions", 0);
        assert_eq!(region, "//@regions.0");
        assert_eq!(child_key(&region, "sensors", 1), "//@regions.0/@sensors.1");
        assert_eq!(child_key(&root_key("", true, 2), "a", 0), "/2/@a.0");
        assert_eq!(
            resolve("//@regions.0/@sensors.1", false),
            Some(Key("//@regions.0/@sensors.1"))
        );
        assert_eq!(resolve("/0/@a.3", false), Some(Key("//@a.3")));
        assert_eq!(resolve("#//@a", false), Some(Key("//@a.0")));
        assert_eq!(resolve("/", false), Some(Key("/")));
        assert_eq!(resolve("/1/@a.0", true), Some(Key("/1/@a.0")));
        assert_eq!(resolve("//@a.0", true), Some(Key("/0/@a.0")));
        assert_eq!(resolve("/1/@a.0", false), None);
        assert_eq!(resolve("b.xmi#//@x.2", false), Some(Key("b.xmi#//@x.2")));
        assert_eq!(resolve("c.xmi#//@x.2", false), None);
        assert_eq!(resolve("_u1", false), Some("id |_u1".to_owned()));
        assert_eq!(resolve("//x", false), None);
        assert!(looks_like_path("//@a.0") && looks_like_path("f.xmi#/0"));
        assert_eq!(compact_key("b.xmi#", 7), "b.xmi#/~7");
        assert!(!looks_like_path("_id") && !looks_like_path("12"));
    }
}
