//! The scalar, string and list functions (`head`, `toInteger`, `substring`…), list indexing
//! `l[i]` and slicing `l[a..b]`, over evaluated arguments. A null argument gives null (except in
//! `coalesce`); an argument of the wrong type is an [`EvalError`], which fails the query rather
//! than reading as null.

use std::borrow::Cow;

use super::eval::{kind_name, shown, EvalError, Val};
use crate::pattern::ir::Func;

fn type_error<T>(what: &str, v: &Val<'_>) -> Result<T, EvalError> {
    Err(EvalError(format!(
        "{what} cannot take {} ({})",
        kind_name(v),
        shown(v)
    )))
}

/// A list position from an index that may count from the end; `None` when out of range.
fn position(len: usize, i: i64) -> Option<usize> {
    let len = len as i64;
    let p = if i < 0 { len + i } else { i };
    (0..len).contains(&p).then_some(p as usize)
}

/// `base[i]`: a list element (null out of range), or a node's or relationship's property by name
/// (`prop_node`, `prop_rel`).
pub fn index<'m>(
    base: Val<'m>,
    i: Val<'m>,
    prop_node: impl Fn(u32, &str) -> Val<'m>,
    prop_rel: impl Fn(u32, &str) -> Val<'m>,
) -> Result<Val<'m>, EvalError> {
    match (base, i) {
        (Val::Null, _) | (_, Val::Null) => Ok(Val::Null),
        (Val::List(items), Val::Int(i)) => Ok(position(items.len(), i)
            .and_then(|p| items.into_iter().nth(p))
            .unwrap_or(Val::Null)),
        (Val::Node(n), Val::Str(k)) => Ok(prop_node(n, &k)),
        (Val::Rel(r), Val::Str(k)) => Ok(prop_rel(r, &k)),
        (Val::Map(entries), Val::Str(k)) => Ok(entries
            .into_iter()
            .find(|(key, _)| *key == *k)
            .map_or(Val::Null, |(_, v)| v)),
        (Val::List(_), other) => type_error("a list index", &other),
        (other, _) => type_error("indexing (`x[i]`)", &other),
    }
}

/// A slice bound: clamped to `0..=len`, negative counting from the end.
fn bound(len: usize, i: i64) -> usize {
    let len = len as i64;
    let p = if i < 0 { len + i } else { i };
    p.clamp(0, len) as usize
}

/// `base[from..to]`: null when the list or a given bound is null.
pub fn slice<'m>(
    base: Val<'m>,
    from: Option<Val<'m>>,
    to: Option<Val<'m>>,
) -> Result<Val<'m>, EvalError> {
    let items = match base {
        Val::Null => return Ok(Val::Null),
        Val::List(items) => items,
        other => return type_error("slicing (`x[a..b]`)", &other),
    };
    let len = items.len();
    let mut ends = [0, len];
    for (k, b) in [from, to].into_iter().enumerate() {
        match b {
            None => {}
            Some(Val::Null) => return Ok(Val::Null),
            Some(Val::Int(i)) => ends[k] = bound(len, i),
            Some(other) => return type_error("a slice bound", &other),
        }
    }
    let [a, b] = ends;
    if a >= b {
        return Ok(Val::List(Vec::new()));
    }
    Ok(Val::List(items.into_iter().skip(a).take(b - a).collect()))
}

/// A float as Cypher prints it: always with a fraction (`1.0`); `None` for a number whose Cypher
/// text gemp does not reproduce (exponents, NaN, infinities).
fn float_text(x: f64) -> Option<String> {
    let t = format!("{x:?}");
    (x.is_finite() && !t.contains('e') && !t.contains('E')).then_some(t)
}

fn string_arg<'a>(f: &str, v: &'a Val<'_>) -> Result<&'a str, EvalError> {
    match v {
        Val::Str(s) => Ok(s),
        other => type_error(f, other),
    }
}

fn int_arg(f: &str, v: &Val<'_>) -> Result<i64, EvalError> {
    match v {
        Val::Int(i) => Ok(*i),
        other => type_error(f, other),
    }
}

/// A count of characters from an integer argument (negative is an error).
fn count_arg(f: &str, v: &Val<'_>) -> Result<usize, EvalError> {
    let i = int_arg(f, v)?;
    usize::try_from(i).map_err(|_| EvalError(format!("{f} cannot take a negative length ({i})")))
}

fn str_val<'m>(s: String) -> Val<'m> {
    Val::Str(Cow::Owned(s))
}

/// Calls `func` on evaluated arguments (their number is checked when the query is bound).
pub fn call<'m>(func: Func, args: Vec<Val<'m>>) -> Result<Val<'m>, EvalError> {
    if let Func::Temporal(t) = func {
        return super::temporal::call(t, args);
    }
    if func == Func::Coalesce {
        return Ok(args.into_iter().find(|v| !v.is_null()).unwrap_or(Val::Null));
    }
    if func == Func::Rand {
        return Ok(Val::Float(fastrand::f64()));
    }
    if args.iter().any(Val::is_null) {
        return Ok(Val::Null);
    }
    let mut args = args.into_iter();
    let a = args.next().unwrap_or(Val::Null);
    let rest: Vec<Val<'m>> = args.collect();
    let name = format!("{func:?}");
    let name = name.as_str();
    Ok(match func {
        Func::Coalesce | Func::Temporal(_) | Func::Rand => unreachable!("handled above"),
        Func::Head | Func::Last | Func::Tail => {
            let Val::List(mut items) = a else {
                return type_error(name, &a);
            };
            match func {
                Func::Head => items.into_iter().next().unwrap_or(Val::Null),
                Func::Last => items.pop().unwrap_or(Val::Null),
                _ => Val::List(items.into_iter().skip(1).collect()),
            }
        }
        Func::Reverse => match a {
            Val::List(mut items) => {
                items.reverse();
                Val::List(items)
            }
            Val::Str(s) => str_val(s.chars().rev().collect()),
            other => return type_error(name, &other),
        },
        Func::ToString => match a {
            Val::Str(s) => Val::Str(s),
            Val::Int(i) => str_val(i.to_string()),
            Val::Bool(b) => str_val(b.to_string()),
            Val::Temporal(t) => str_val(t.to_string()),
            Val::Float(x) => match float_text(x) {
                Some(t) => str_val(t),
                None => {
                    return Err(EvalError(format!(
                        "toString({x}): gemp does not print this float as Cypher does"
                    )))
                }
            },
            other => return type_error(name, &other),
        },
        Func::ToInteger => match a {
            Val::Int(i) => Val::Int(i),
            Val::Float(x) => float_to_int(x)?,
            Val::Str(s) => {
                let t = s.trim();
                match t.parse::<i64>() {
                    Ok(i) => Val::Int(i),
                    Err(_) => match t.parse::<f64>() {
                        Ok(x) if x.is_finite() && !t.chars().any(char::is_alphabetic) => {
                            float_to_int(x)?
                        }
                        _ if t
                            .chars()
                            .all(|c| c.is_ascii_digit() || c == '-' || c == '+')
                            && !t.is_empty() =>
                        {
                            return Err(EvalError(format!("toInteger('{s}'): out of range")))
                        }
                        _ => Val::Null,
                    },
                }
            }
            other => return type_error(name, &other),
        },
        Func::ToFloat => match a {
            Val::Int(i) => Val::Float(i as f64),
            Val::Float(x) => Val::Float(x),
            Val::Str(s) => {
                let t = s.trim();
                match t.parse::<f64>() {
                    // Rust also reads `inf`, `NaN` and `infinity`, which Cypher does not.
                    Ok(x) if !t.chars().any(|c| c.is_alphabetic() && c != 'e' && c != 'E') => {
                        Val::Float(x)
                    }
                    _ => Val::Null,
                }
            }
            other => return type_error(name, &other),
        },
        Func::ToBoolean => match a {
            Val::Bool(b) => Val::Bool(b),
            Val::Str(s) => match s.trim().to_ascii_lowercase().as_str() {
                "true" => Val::Bool(true),
                "false" => Val::Bool(false),
                _ => Val::Null,
            },
            other => return type_error(name, &other),
        },
        Func::Abs => match a {
            Val::Int(i) => Val::Int(
                i.checked_abs()
                    .ok_or_else(|| EvalError(format!("integer overflow in abs({i})")))?,
            ),
            Val::Float(x) => Val::Float(x.abs()),
            other => return type_error(name, &other),
        },
        Func::Sign => match a {
            Val::Int(i) => Val::Int(i.signum()),
            Val::Float(x) if x.is_nan() => Val::Float(x),
            Val::Float(x) => Val::Int(if x > 0.0 {
                1
            } else if x < 0.0 {
                -1
            } else {
                0
            }),
            other => return type_error(name, &other),
        },
        Func::Ceil | Func::Floor | Func::Sqrt | Func::Round => {
            let x = match a {
                Val::Int(i) => i as f64,
                Val::Float(x) => x,
                other => return type_error(name, &other),
            };
            Val::Float(match func {
                Func::Ceil => x.ceil(),
                Func::Floor => x.floor(),
                Func::Sqrt => x.sqrt(),
                // Half-way values: Cypher's rounding differs between versions; refuse them.
                _ if (x - x.trunc()).abs() == 0.5 => {
                    return Err(EvalError(format!(
                        "round({x}): gemp does not round half-way values"
                    )))
                }
                _ => x.round(),
            })
        }
        Func::Split => {
            let s = string_arg(name, &a)?;
            let sep = string_arg(name, &rest[0])?;
            if sep.is_empty() {
                Val::List(s.chars().map(|c| str_val(c.to_string())).collect())
            } else {
                Val::List(s.split(sep).map(|p| str_val(p.to_string())).collect())
            }
        }
        Func::Substring => {
            let s = string_arg(name, &a)?;
            let start = count_arg(name, &rest[0])?;
            let chars = s.chars().skip(start);
            match rest.get(1) {
                Some(len) => str_val(chars.take(count_arg(name, len)?).collect()),
                None => str_val(chars.collect()),
            }
        }
        Func::Left => {
            let s = string_arg(name, &a)?;
            str_val(s.chars().take(count_arg(name, &rest[0])?).collect())
        }
        Func::Right => {
            let s = string_arg(name, &a)?;
            let n = count_arg(name, &rest[0])?;
            let len = s.chars().count();
            str_val(s.chars().skip(len.saturating_sub(n)).collect())
        }
        Func::Trim => str_val(string_arg(name, &a)?.trim().to_string()),
        Func::LTrim => str_val(string_arg(name, &a)?.trim_start().to_string()),
        Func::RTrim => str_val(string_arg(name, &a)?.trim_end().to_string()),
        Func::ToUpper => str_val(string_arg(name, &a)?.to_uppercase()),
        Func::ToLower => str_val(string_arg(name, &a)?.to_lowercase()),
        Func::Keys => match a {
            Val::Map(entries) => Val::List(entries.into_iter().map(|(k, _)| str_val(k)).collect()),
            other => return type_error(name, &other),
        },
        // Nodes and relationships are read by the evaluator, which has the model.
        Func::Properties => match a {
            Val::Map(entries) => Val::Map(entries),
            other => return type_error(name, &other),
        },
        Func::Replace => {
            let s = string_arg(name, &a)?;
            let from = string_arg(name, &rest[0])?;
            let to = string_arg(name, &rest[1])?;
            str_val(s.replace(from, to))
        }
    })
}

/// A float truncated toward zero; an error beyond 64-bit integers.
fn float_to_int<'m>(x: f64) -> Result<Val<'m>, EvalError> {
    let t = x.trunc();
    if (-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&t) {
        Ok(Val::Int(t as i64))
    } else {
        Err(EvalError(format!("toInteger({x}): beyond 64-bit integers")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(v: &[i64]) -> Val<'static> {
        Val::List(v.iter().map(|&i| Val::Int(i)).collect())
    }

    #[test]
    fn indexing_counts_from_either_end_and_is_null_out_of_range() {
        let none = |_: u32, _: &str| Val::Null;
        assert_eq!(
            index(ints(&[1, 2, 3]), Val::Int(0), none, none),
            Ok(Val::Int(1))
        );
        assert_eq!(
            index(ints(&[1, 2, 3]), Val::Int(-1), none, none),
            Ok(Val::Int(3))
        );
        assert_eq!(
            index(ints(&[1, 2, 3]), Val::Int(3), none, none),
            Ok(Val::Null)
        );
        assert_eq!(
            index(ints(&[1, 2, 3]), Val::Null, none, none),
            Ok(Val::Null)
        );
        assert!(index(ints(&[1]), Val::Float(0.0), none, none).is_err());
    }

    #[test]
    fn slices_clamp_their_bounds() {
        let s = |a: Option<i64>, b: Option<i64>| {
            slice(ints(&[1, 2, 3, 4]), a.map(Val::Int), b.map(Val::Int))
        };
        assert_eq!(s(Some(1), Some(3)), Ok(ints(&[2, 3])));
        assert_eq!(s(None, Some(-1)), Ok(ints(&[1, 2, 3])));
        assert_eq!(s(Some(-2), None), Ok(ints(&[3, 4])));
        assert_eq!(s(Some(3), Some(1)), Ok(ints(&[])));
        assert_eq!(s(Some(0), Some(10)), Ok(ints(&[1, 2, 3, 4])));
    }

    #[test]
    fn conversions_keep_integers_and_floats_apart() {
        let one = |f, v| call(f, vec![v]);
        assert_eq!(one(Func::ToInteger, Val::Float(2.9)), Ok(Val::Int(2)));
        assert_eq!(one(Func::ToInteger, str_val("42".into())), Ok(Val::Int(42)));
        assert_eq!(one(Func::ToInteger, str_val("x".into())), Ok(Val::Null));
        assert_eq!(one(Func::ToFloat, Val::Int(3)), Ok(Val::Float(3.0)));
        assert_eq!(
            one(Func::ToString, Val::Float(1.0)),
            Ok(str_val("1.0".into()))
        );
        assert_eq!(one(Func::Abs, Val::Int(-4)), Ok(Val::Int(4)));
        assert_eq!(one(Func::Floor, Val::Int(3)), Ok(Val::Float(3.0)));
        assert!(one(Func::ToUpper, Val::Int(1)).is_err());
    }
}
