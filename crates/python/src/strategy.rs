//! The core's per-split watermark generator on a manual clock, for
//! testing a watermark strategy the way seed 002's exercise does (no sleep,
//! no wall clock). `lowwater.WatermarkStrategy` (Python) gives it PyFlink's
//! shape; the rules are the core's, which are Flink's.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use lowwater_core::time::{Millis, Timestamp};
use lowwater_core::watermark::generator::{Emit, WatermarkGenerator, WatermarkStrategy};

use crate::err;

/// A processing-time clock that moves only when told (milliseconds).
#[pyclass(module = "lowwater._lowwater", frozen)]
pub struct NativeClock {
    now: Arc<AtomicI64>,
}

#[pymethods]
impl NativeClock {
    #[new]
    fn new(start: Timestamp) -> Self {
        NativeClock {
            now: Arc::new(AtomicI64::new(start)),
        }
    }

    fn now(&self) -> Timestamp {
        self.now.load(Ordering::SeqCst)
    }

    /// Moves the clock forward by `d` and returns the new time.
    fn advance(&self, d: Millis) -> PyResult<Timestamp> {
        if d < 0 {
            return Err(PyValueError::new_err(
                "a clock only moves forward: the duration must not be negative",
            ));
        }
        let t = self.now().saturating_add(d);
        self.now.store(t, Ordering::SeqCst);
        Ok(t)
    }

    /// Sets the clock to `t` (not earlier than now) and returns it.
    fn set(&self, t: Timestamp) -> PyResult<Timestamp> {
        if t < self.now() {
            return Err(PyValueError::new_err(format!(
                "a clock only moves forward: {t} is before its time {}",
                self.now()
            )));
        }
        self.now.store(t, Ordering::SeqCst);
        Ok(t)
    }
}

/// One split's watermark generator. Use `WatermarkStrategy.create_generator`.
#[pyclass(module = "lowwater._lowwater", unsendable)]
pub struct NativeGenerator {
    inner: WatermarkGenerator,
    clock: Arc<AtomicI64>,
}

#[pymethods]
impl NativeGenerator {
    /// `delay` in ms; `sql` picks the SQL form (`ts - INTERVAL`) over the
    /// DataStream one (`max - delay - 1`); `idle_timeout` in ms or None.
    #[new]
    fn new(
        delay: Millis,
        sql: bool,
        idle_timeout: Option<Millis>,
        clock: &NativeClock,
    ) -> PyResult<Self> {
        let mut s = if sql {
            WatermarkStrategy::sql(delay)
        } else {
            WatermarkStrategy::bounded_out_of_orderness(delay)
        };
        s.idle_timeout = idle_timeout;
        s.validate().map_err(err)?;
        Ok(NativeGenerator {
            inner: s.create_generator(),
            clock: Arc::clone(&clock.now),
        })
    }

    /// A record with event time `ts` (ms) was emitted from the split.
    fn on_event(&mut self, ts: Timestamp) {
        self.inner.on_event(ts);
    }

    /// The periodic emit at the clock's time: ("watermark", ts),
    /// ("idle", None) or None (idle, and already said so).
    fn on_periodic_emit(&mut self) -> Option<(&'static str, Option<Timestamp>)> {
        match self
            .inner
            .on_periodic_emit(self.clock.load(Ordering::SeqCst))
        {
            Emit::Nothing => None,
            Emit::Watermark(w) => Some(("watermark", Some(w))),
            Emit::Idle => Some(("idle", None)),
        }
    }

    /// The watermark the next periodic emit would give (ignoring idleness).
    fn current_watermark(&self) -> Timestamp {
        self.inner.current_watermark()
    }

    fn is_idle(&self) -> bool {
        self.inner.is_idle()
    }
}
