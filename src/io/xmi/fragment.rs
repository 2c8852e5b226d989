//! EMF object addresses: the keys gemp gives XMI elements and the resolution of references
//! written as fragment paths (`//@regions.0/@sensors.1`), `file.xmi#fragment` URIs or ids.
//!
//! A single-root document's root is `/` and its descendants `//@feature.index/…`; in a
//! multi-root document (`<xmi:XMI>` wrapper) the roots are `/0`, `/1`, … and descendants
//! `/1/@feature.index/…`. When several files load into one model, keys are prefixed with the
//! file name and `#` (`railway.xmi#//@routes.0`).

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
    /// A node key (fragment path).
    Key(String),
    /// An id (`xmi:id`) within the file with this key prefix: `(prefix, id)`.
    Id(String, String),
}

/// Resolves `token` written in the file whose key prefix is `prefix` and whose roots are
/// `wrapped` (file names of `uri#` parts map to prefixes through `prefix_of`).
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
    let mut key = root_key(&prefix, wrapped, root_index);
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
        key = child_key(&key, feature, index);
    }
    Some(Target::Key(key))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolve(token: &str, wrapped: bool) -> Option<Target> {
        target(
            token,
            "",
            &|p| (p.is_empty() || p == "b.xmi#").then_some(wrapped),
            &|name| (name == "b.xmi").then(|| "b.xmi#".to_owned()),
        )
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
            Some(Target::Key("//@regions.0/@sensors.1".into()))
        );
        assert_eq!(
            resolve("/0/@a.3", false),
            Some(Target::Key("//@a.3".into()))
        );
        assert_eq!(resolve("#//@a", false), Some(Target::Key("//@a.0".into())));
        assert_eq!(resolve("/", false), Some(Target::Key("/".into())));
        assert_eq!(
            resolve("/1/@a.0", true),
            Some(Target::Key("/1/@a.0".into()))
        );
        assert_eq!(resolve("//@a.0", true), Some(Target::Key("/0/@a.0".into())));
        assert_eq!(resolve("/1/@a.0", false), None);
        assert_eq!(
            resolve("b.xmi#//@x.2", false),
            Some(Target::Key("b.xmi#//@x.2".into()))
        );
        assert_eq!(resolve("c.xmi#//@x.2", false), None);
        assert_eq!(
            resolve("_u1", false),
            Some(Target::Id(String::new(), "_u1".into()))
        );
        assert_eq!(resolve("//x", false), None);
        assert!(looks_like_path("//@a.0") && looks_like_path("f.xmi#/0"));
        assert!(!looks_like_path("_id") && !looks_like_path("12"));
    }
}
