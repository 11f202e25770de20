//! `lowwater._lowwater`: the native half of the `lowwater` Python package.
//!
//! It wraps the core, it does not reimplement it: the harness is
//! `lowwater_core::harness::Harness`, the watermark generator is the core's
//! `WatermarkGenerator`, replay is `lowwater_replay::replay_observed` and
//! explain is `lowwater_sql::explain`. This layer takes plain values
//! (milliseconds, row values) and gives back plain tuples; the Python half
//! (`python/lowwater/__init__.py`) gives them the API's shape: seconds,
//! `Event`, `Row`, PyFlink's `Duration` and `WatermarkStrategy`.

use pyo3::exceptions::{PyException, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat, PyInt, PyList, PyString, PyTuple};

use lowwater_core::value::Value;

mod harness;
mod replay;
mod strategy;

pyo3::create_exception!(
    _lowwater,
    LowwaterError,
    PyException,
    "An error lowwater reports (a job it refuses, an input it cannot read, a harness misused): the same message as the CLI's."
);

/// A core error as the Python exception the package raises.
pub(crate) fn err(e: impl std::fmt::Display) -> PyErr {
    LowwaterError::new_err(e.to_string())
}

/// A Python value as a row or key value: None, bool, int, float or str.
pub(crate) fn to_value(v: &Bound<'_, PyAny>) -> PyResult<Value> {
    if v.is_none() {
        Ok(Value::Null)
    } else if v.is_instance_of::<PyBool>() {
        Ok(Value::Bool(v.extract()?))
    } else if v.is_instance_of::<PyInt>() {
        let n: i64 = v.extract().map_err(|_| {
            PyValueError::new_err(format!("{v} does not fit in a BIGINT (64-bit integer)"))
        })?;
        Ok(Value::Int(n))
    } else if v.is_instance_of::<PyFloat>() {
        Ok(Value::Double(v.extract()?))
    } else if v.is_instance_of::<PyString>() {
        Ok(Value::from(v.extract::<String>()?.as_str()))
    } else {
        Err(PyValueError::new_err(format!(
            "{} is not a value lowwater aggregates (None, bool, int, float or str)",
            v.repr()
                .map_or_else(|_| "the value".to_string(), |r| r.to_string())
        )))
    }
}

/// A key or row given as one value, or a tuple/list of values.
pub(crate) fn to_values(v: &Bound<'_, PyAny>) -> PyResult<Vec<Value>> {
    if let Ok(t) = v.cast::<PyTuple>() {
        t.iter().map(|x| to_value(&x)).collect()
    } else if let Ok(l) = v.cast::<PyList>() {
        l.iter().map(|x| to_value(&x)).collect()
    } else {
        Ok(vec![to_value(v)?])
    }
}

/// A row or key value as a Python object.
pub(crate) fn from_value<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Int(n) | Value::Timestamp(n) => n.into_pyobject(py)?.into_any(),
        Value::Double(d) => PyFloat::new(py, *d).into_any(),
        Value::Str(s) => PyString::new(py, s).into_any(),
        // Exact: Python's Decimal of the value's text.
        Value::Decimal(..) => py
            .import("decimal")?
            .getattr("Decimal")?
            .call1((v.to_string(),))?,
    })
}

/// The native module. Use the `lowwater` package, not this.
#[pymodule]
mod _lowwater {
    use super::*;

    #[pymodule_export]
    use super::harness::NativeHarness;
    #[pymodule_export]
    use super::replay::{explain, replay};
    #[pymodule_export]
    use super::strategy::{NativeClock, NativeGenerator};

    #[pymodule_init]
    fn init(m: &Bound<'_, PyModule>) -> PyResult<()> {
        m.add("LowwaterError", m.py().get_type::<LowwaterError>())?;
        m.add("MIN_WATERMARK", lowwater_core::time::MIN_WATERMARK)?;
        m.add("MAX_WATERMARK", lowwater_core::time::MAX_WATERMARK)?;
        Ok(())
    }
}
