//! The core's test harness for Python: times in milliseconds, keys and
//! rows as Python values. `lowwater.Harness` (Python) wraps it in seconds.

use std::collections::BTreeMap;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use lowwater_core::harness::{Event, Harness};
use lowwater_core::time::{Millis, Timestamp, MIN_WATERMARK};
use lowwater_core::window::aggregate::{AggFunc, AggSpec, Narrow};
use lowwater_core::window::assigner::WindowAssigner;

use crate::{err, from_value, to_values};

/// A fired window: (start, end, key values, aggregate values, emitted at).
type FiredTuple<'py> = (
    Timestamp,
    Timestamp,
    Vec<Bound<'py, PyAny>>,
    Vec<Bound<'py, PyAny>>,
    Timestamp,
);

/// Who holds the watermark: (subtask, partition, watermark, silent for,
/// never had a record, why).
type HolderTuple = (usize, Option<i32>, Timestamp, Millis, bool, String);

fn agg_func(name: &str) -> PyResult<AggFunc> {
    Ok(match name.to_ascii_lowercase().as_str() {
        "count" => AggFunc::Count,
        "count_distinct" => AggFunc::CountDistinct,
        "sum" => AggFunc::Sum,
        "min" => AggFunc::Min,
        "max" => AggFunc::Max,
        "avg" => AggFunc::Avg,
        "first_value" => AggFunc::FirstValue,
        "last_value" => AggFunc::LastValue,
        "listagg" => AggFunc::ListAgg,
        "var_pop" => AggFunc::VarPop,
        "var_samp" => AggFunc::VarSamp,
        "stddev_pop" => AggFunc::StddevPop,
        "stddev_samp" => AggFunc::StddevSamp,
        other => {
            return Err(PyValueError::new_err(format!(
                "unknown aggregate '{other}': use count, count_distinct, sum, min, max, avg, \
                 first_value, last_value, listagg, var_pop, var_samp, stddev_pop or stddev_samp"
            )))
        }
    })
}

/// The native harness. Use `lowwater.Harness`.
#[pyclass(module = "lowwater._lowwater", unsendable)]
pub struct NativeHarness {
    inner: Harness,
}

#[pymethods]
impl NativeHarness {
    /// `window` is tumble, hop, cumulate or session; `size` is the window
    /// size (the session gap, the cumulate maximum); `slide` the hop slide
    /// or the cumulate step. `aggregates` are (name, value position), with
    /// `("count", None)` for COUNT(*). All times in milliseconds.
    #[new]
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (window, size, slide, delay, sql_watermark, idle_timeout, partitions,
                        parallelism, allowed_lateness, aggregates, emit_interval, topic,
                        late_side_output))]
    fn new(
        window: &str,
        size: Millis,
        slide: Option<Millis>,
        delay: Millis,
        sql_watermark: bool,
        idle_timeout: Option<Millis>,
        partitions: usize,
        parallelism: usize,
        allowed_lateness: Millis,
        aggregates: Vec<(String, Option<usize>)>,
        emit_interval: Millis,
        topic: &str,
        late_side_output: bool,
    ) -> PyResult<Self> {
        let need_slide = |what: &str| {
            slide.ok_or_else(|| {
                PyValueError::new_err(format!("window='{window}' needs {what} (slide_seconds)"))
            })
        };
        let assigner = match window {
            "tumble" => WindowAssigner::tumbling(size),
            "hop" => WindowAssigner::hopping(size, need_slide("the slide")?),
            "cumulate" => WindowAssigner::cumulate(need_slide("the step")?, size),
            "session" => WindowAssigner::session(size),
            other => {
                return Err(PyValueError::new_err(format!(
                    "window='{other}': use 'tumble', 'hop', 'cumulate' or 'session'"
                )))
            }
        };
        if partitions == 0 || parallelism == 0 {
            return Err(PyValueError::new_err(
                "partitions and parallelism must be at least 1",
            ));
        }
        let mut h = Harness::new(assigner);
        h = if sql_watermark {
            h.sql_watermark(delay)
        } else {
            h.out_of_orderness(delay)
        };
        h = h
            .idle_timeout(idle_timeout)
            .emit_interval(emit_interval)
            .partitions(partitions)
            .parallelism(parallelism)
            .topic(topic)
            .allowed_lateness(allowed_lateness);
        if late_side_output {
            h = h.late_side_output();
        }
        for (name, column) in aggregates {
            let func = agg_func(&name)?;
            let spec = match (func, column) {
                (AggFunc::Count, None) => AggSpec::count_star(),
                (_, None) => {
                    return Err(PyValueError::new_err(format!(
                        "aggregate '{name}' needs a value position"
                    )))
                }
                (func, Some(c)) => AggSpec {
                    func,
                    column: Some(c),
                    narrow: Narrow::None,
                },
            };
            h = h.aggregate(spec);
        }
        h.try_build().map_err(err)?;
        Ok(NativeHarness { inner: h })
    }

    /// Feeds a record at the current processing time.
    fn process(
        &mut self,
        key: &Bound<'_, PyAny>,
        ts: Timestamp,
        partition: i32,
        row: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let e = event(key, ts, partition, row)?;
        self.inner.try_process(e).map_err(err)
    }

    /// Runs the ticks before `at`, then feeds the record there.
    fn process_at(
        &mut self,
        at: Timestamp,
        key: &Bound<'_, PyAny>,
        ts: Timestamp,
        partition: i32,
        row: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let e = event(key, ts, partition, row)?;
        self.inner.try_process_at(at, e).map_err(err)
    }

    fn advance_processing_time(&mut self, d: Millis) -> PyResult<()> {
        if d < 0 {
            return Err(PyValueError::new_err(
                "processing time only moves forward: the duration must not be negative",
            ));
        }
        self.inner.advance_processing_time(d);
        Ok(())
    }

    fn set_processing_time(&mut self, t: Timestamp) {
        self.inner.set_processing_time(t);
    }

    fn end_of_input(&mut self) {
        self.inner.end_of_input();
    }

    fn add_partition(&mut self) -> i32 {
        self.inner.add_partition()
    }

    fn now(&self) -> Timestamp {
        self.inner.now()
    }

    /// The job's watermark (`None` before the first: MIN).
    fn watermark(&self) -> Option<Timestamp> {
        Some(self.inner.watermark()).filter(|w| *w != MIN_WATERMARK)
    }

    fn is_idle(&self) -> bool {
        self.inner.is_idle()
    }

    fn output<'py>(&self, py: Python<'py>) -> PyResult<Vec<FiredTuple<'py>>> {
        self.inner
            .output()
            .iter()
            .map(|f| {
                Ok((
                    f.window.start,
                    f.window.end,
                    f.key
                        .iter()
                        .map(|v| from_value(py, v))
                        .collect::<PyResult<_>>()?,
                    f.values
                        .iter()
                        .map(|v| from_value(py, v))
                        .collect::<PyResult<_>>()?,
                    f.emitted_at,
                ))
            })
            .collect()
    }

    /// Late records dropped and routed, per partition.
    fn late(&self) -> (BTreeMap<u32, u64>, BTreeMap<u32, u64>) {
        let l = self.inner.late();
        (l.dropped, l.routed)
    }

    /// Late records routed to the side output: (key, ts, partition, row).
    #[allow(clippy::type_complexity)]
    fn late_records<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<
        Vec<(
            Vec<Bound<'py, PyAny>>,
            Timestamp,
            i32,
            Vec<Bound<'py, PyAny>>,
        )>,
    > {
        self.inner
            .late_records()
            .iter()
            .map(|e| {
                Ok((
                    e.key
                        .iter()
                        .map(|v| from_value(py, v))
                        .collect::<PyResult<_>>()?,
                    e.ts,
                    e.partition,
                    e.row
                        .iter()
                        .map(|v| from_value(py, v))
                        .collect::<PyResult<_>>()?,
                ))
            })
            .collect()
    }

    fn held_by(&self) -> Option<HolderTuple> {
        self.inner.held_by_explained().map(|(h, why)| {
            (
                h.subtask,
                h.partition,
                h.watermark,
                h.silent_for,
                h.never_had_record,
                why,
            )
        })
    }

    /// Per partition: (partition, subtask, watermark or None, idle,
    /// records, largest event time).
    #[allow(clippy::type_complexity)]
    fn partitions(&self) -> Vec<(i32, usize, Option<Timestamp>, bool, u64, Option<Timestamp>)> {
        (0..)
            .map_while(|p| self.inner.partition(p).map(|v| (p, v)))
            .map(|(p, (subtask, v))| {
                (
                    p,
                    subtask,
                    Some(v.watermark).filter(|w| *w != MIN_WATERMARK),
                    v.idle,
                    v.records,
                    v.max_event_time,
                )
            })
            .collect()
    }

    /// (processing time, watermark) at every advance of the job's watermark.
    fn watermark_timeline(&self) -> Vec<(Timestamp, Timestamp)> {
        self.inner.watermark_timeline().to_vec()
    }

    fn checkpoint<'py>(&mut self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.inner.checkpoint())
    }

    fn restore(&mut self, bytes: &[u8]) -> PyResult<()> {
        self.inner.restore(bytes).map_err(err)
    }
}

fn event(
    key: &Bound<'_, PyAny>,
    ts: Timestamp,
    partition: i32,
    row: &Bound<'_, PyAny>,
) -> PyResult<Event> {
    let mut e = Event::keyed(to_values(key)?, ts).partition(partition);
    if !row.is_none() {
        e.row = to_values(row)?;
    }
    Ok(e)
}
