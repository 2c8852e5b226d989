//! Python values as query parameters.

use gemp::model::Value;
use gemp::pattern::{ParamValue, Params};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

/// `params` (a mapping of names to values) as gemp parameters.
///
/// `None`, `bool`, `int` (64-bit), `float` and `str` map to null, boolean, integer, float and
/// string; an object with `__index__` (a NumPy integer) is an integer; a list or tuple is a
/// list parameter (`x IN $p`, `UNWIND $p AS x`), a dict with string keys a map parameter
/// (`$p.key`), nested as deep as wanted. Anything else (a set, whose order is arbitrary, bytes,
/// other objects) is refused with `gemp.ParameterError` (a `TypeError`) rather than converted to
/// something else.
pub fn params(py: Python<'_>, params: Option<&Bound<'_, PyAny>>) -> PyResult<Params> {
    let mut out = Params::default();
    let Some(params) = params else {
        return Ok(out);
    };
    if params.is_none() {
        return Ok(out);
    }
    let dict = params.downcast::<PyDict>().map_err(|_| {
        parameter_error(
            py,
            "params must be a dict of parameter names to values".to_string(),
        )
    })?;
    for (k, v) in dict.iter() {
        let name: String = k
            .extract()
            .map_err(|_| parameter_error(py, "parameter names must be strings".into()))?;
        let name = name.strip_prefix('$').unwrap_or(&name).to_owned();
        let value = value(py, &name, &v)?;
        out.insert(name, value);
    }
    Ok(out)
}

fn value(py: Python<'_>, name: &str, v: &Bound<'_, PyAny>) -> PyResult<ParamValue> {
    if let Ok(list) = v.downcast::<PyList>() {
        return list
            .iter()
            .map(|i| value(py, name, &i))
            .collect::<PyResult<_>>()
            .map(ParamValue::List);
    }
    if let Ok(tuple) = v.downcast::<PyTuple>() {
        return tuple
            .iter()
            .map(|i| value(py, name, &i))
            .collect::<PyResult<_>>()
            .map(ParamValue::List);
    }
    if let Ok(dict) = v.downcast::<PyDict>() {
        let mut entries = std::collections::BTreeMap::new();
        for (k, item) in dict.iter() {
            let key: String = k.extract().map_err(|_| {
                parameter_error(
                    py,
                    format!("${name}: the keys of a map parameter are strings"),
                )
            })?;
            entries.insert(key, value(py, name, &item)?);
        }
        return Ok(ParamValue::Map(entries));
    }
    scalar(py, name, v).map(ParamValue::Scalar)
}

fn scalar(py: Python<'_>, name: &str, v: &Bound<'_, PyAny>) -> PyResult<Value> {
    if v.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(b) = v.downcast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if v.is_instance_of::<PyInt>() || (v.hasattr("__index__")? && !v.is_instance_of::<PyFloat>()) {
        return v.extract::<i64>().map(Value::Int).map_err(|_| {
            parameter_error(
                py,
                format!("${name}: the integer does not fit in 64 bits (gemp's integers are i64)"),
            )
        });
    }
    if let Ok(f) = v.downcast::<PyFloat>() {
        return Ok(Value::Float(f.value()));
    }
    if let Ok(s) = v.downcast::<PyString>() {
        return Ok(Value::Str(s.extract::<String>()?));
    }
    let type_name = v.get_type().name()?.to_string();
    let container = ["set", "frozenset"].contains(&type_name.as_str()) || v.hasattr("__iter__")?;
    let why = if container {
        format!(
            "${name}: a list parameter is a list or tuple, not a {type_name} (convert it first, \
             e.g. sorted(value) or list(value))"
        )
    } else {
        format!(
            "${name}: a parameter is None, bool, int, float, str, a list or a dict, not \
             {type_name} (convert it first, e.g. str(value) or float(value))"
        )
    };
    Err(parameter_error(py, why))
}

fn parameter_error(py: Python<'_>, why: String) -> PyErr {
    let build = || -> PyResult<PyErr> {
        let class = py.import("gemp.errors")?.getattr("ParameterError")?;
        Ok(PyErr::from_value(class.call1((why.clone(),))?))
    };
    build().unwrap_or_else(|e| e)
}
