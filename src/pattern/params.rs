//! Query parameter values (`$name`): a scalar, a list or a map. Lists and maps are bound into the
//! query when it is prepared: `$list` becomes a list literal (so `x IN $list` and
//! `UNWIND $list AS x` work), `$map.key` the map's value for `key` (null when absent). A map
//! anywhere else, or a map inside a list, is refused with an error naming the parameter.

use std::collections::BTreeMap;

use crate::model::Value;

/// The value of one query parameter.
#[derive(Debug, Clone, PartialEq)]
pub enum ParamValue {
    /// Null, a boolean, an integer, a float or a string.
    Scalar(Value),
    /// A list of values.
    List(Vec<ParamValue>),
    /// A map of keys to values (read as `$m.key`).
    Map(BTreeMap<String, ParamValue>),
}

impl ParamValue {
    /// The scalar, if this is one.
    pub fn as_scalar(&self) -> Option<&Value> {
        match self {
            ParamValue::Scalar(v) => Some(v),
            _ => None,
        }
    }

    /// What kind of value this is, for messages: `a list`, `a map` or the scalar's type.
    pub fn kind_name(&self) -> &'static str {
        match self {
            ParamValue::Scalar(Value::Null) => "null",
            ParamValue::Scalar(Value::Bool(_)) => "a boolean",
            ParamValue::Scalar(Value::Int(_)) => "an integer",
            ParamValue::Scalar(Value::Float(_)) => "a float",
            ParamValue::Scalar(Value::Str(_)) => "a string",
            ParamValue::List(_) => "a list",
            ParamValue::Map(_) => "a map",
        }
    }

    /// A list of values.
    pub fn list(items: impl IntoIterator<Item = impl Into<ParamValue>>) -> Self {
        ParamValue::List(items.into_iter().map(Into::into).collect())
    }

    /// A map of keys to values.
    pub fn map<K: Into<String>, V: Into<ParamValue>>(
        entries: impl IntoIterator<Item = (K, V)>,
    ) -> Self {
        ParamValue::Map(
            entries
                .into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect(),
        )
    }
}

impl From<Value> for ParamValue {
    fn from(v: Value) -> Self {
        ParamValue::Scalar(v)
    }
}

impl From<i64> for ParamValue {
    fn from(v: i64) -> Self {
        ParamValue::Scalar(Value::Int(v))
    }
}

impl From<f64> for ParamValue {
    fn from(v: f64) -> Self {
        ParamValue::Scalar(Value::Float(v))
    }
}

impl From<bool> for ParamValue {
    fn from(v: bool) -> Self {
        ParamValue::Scalar(Value::Bool(v))
    }
}

impl From<&str> for ParamValue {
    fn from(v: &str) -> Self {
        ParamValue::Scalar(Value::Str(v.to_owned()))
    }
}

impl From<String> for ParamValue {
    fn from(v: String) -> Self {
        ParamValue::Scalar(Value::Str(v))
    }
}

impl<T: Into<ParamValue>> From<Vec<T>> for ParamValue {
    fn from(v: Vec<T>) -> Self {
        ParamValue::list(v)
    }
}

impl std::fmt::Display for ParamValue {
    /// Cypher's literal syntax: `[1, "a"]`, `{k: 1}`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ParamValue::Scalar(Value::Str(s)) => write!(f, "{s:?}"),
            ParamValue::Scalar(v) => write!(f, "{}", v.as_ref()),
            ParamValue::List(items) => {
                f.write_str("[")?;
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{item}")?;
                }
                f.write_str("]")
            }
            ParamValue::Map(entries) => {
                f.write_str("{")?;
                for (i, (k, v)) in entries.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{k}: {v}")?;
                }
                f.write_str("}")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_and_shows_lists_and_maps() {
        let v = ParamValue::map([("k", ParamValue::list([1i64, 2])), ("s", "x".into())]);
        assert_eq!(v.to_string(), r#"{k: [1, 2], s: "x"}"#);
        assert_eq!(v.kind_name(), "a map");
        assert_eq!(ParamValue::from(3i64).as_scalar(), Some(&Value::Int(3)));
    }
}
