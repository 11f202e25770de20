//! Per-split watermark generators, exactly as Flink computes them.
//!
//! Two forms of bounded out-of-orderness exist and differ by one millisecond,
//! which decides whether a window fires:
//! - the DataStream form (`BoundedOutOfOrdernessWatermarks.java`) emits
//!   `max_ts - delay - 1`; its state starts at `MIN + delay + 1` so that the
//!   first watermark is exactly `MIN`;
//! - the SQL form (`WATERMARK FOR ts AS ts - INTERVAL 'd'`) evaluates
//!   `ts - delay` per row, without the `- 1`, starting at `MIN`, and emits the
//!   value of the *last* row seen (Flink's `GeneratedWatermarkGeneratorSupplier
//!   .DefaultWatermarkGenerator` assigns, it does not take a maximum). The
//!   split's watermark still never goes back: the combiner keeps the maximum
//!   per split, exactly as Flink's `PartialWatermark` does. So rows 9999 then
//!   1000 within one interval yield 1000 - d, not 9999 - d.
//!
//! By default a generator does nothing on an event but remember it; it
//! speaks only on a periodic emit (every `pipeline.auto-watermark-interval`).
//! With FLIP-296's `'scan.watermark.emit.strategy' = 'on-event'` it speaks
//! instead right after every `gap`-th record of its split (Flink's
//! `DefaultWatermarkGenerator` counts events and emits on the immediate
//! output, which the multiplexer combines at once; the count and emission
//! are in [`crate::source::SourceSubtask`]), and periodic emits only
//! evaluate idleness. With an idle timeout it is wrapped by the idleness rule
//! of [`super::idleness`], which is evaluated first on every periodic emit.

use crate::error::{Error, Result};
use crate::time::{Millis, Timestamp, MIN_WATERMARK};
use serde::{Deserialize, Serialize};

use super::idleness::IdlenessTimer;

/// Flink's default `pipeline.auto-watermark-interval`.
pub const DEFAULT_EMIT_INTERVAL: Millis = 200;

/// How a split turns event times into a watermark.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum WatermarkExpr {
    /// DataStream `forBoundedOutOfOrderness(delay)`: `max_ts - delay - 1`.
    /// `delay = 0` is `forMonotonousTimestamps()`.
    BoundedOutOfOrderness {
        /// The tolerated out-of-orderness in ms.
        delay: Millis,
    },
    /// SQL `WATERMARK FOR ts AS ts - INTERVAL 'delay'`: the last row's
    /// `ts - delay` (the split keeps the maximum it has emitted).
    SqlDelay {
        /// The interval subtracted from each row's time, in ms.
        delay: Millis,
    },
}

impl WatermarkExpr {
    /// DataStream `forMonotonousTimestamps()`.
    pub const fn monotonous() -> Self {
        WatermarkExpr::BoundedOutOfOrderness { delay: 0 }
    }

    /// The delay between the largest event time and the watermark it yields,
    /// including the DataStream form's extra millisecond.
    pub fn lag(&self) -> Millis {
        match *self {
            WatermarkExpr::BoundedOutOfOrderness { delay } => delay.saturating_add(1),
            WatermarkExpr::SqlDelay { delay } => delay,
        }
    }
}

/// When a split's watermark is emitted (FLIP-296's
/// `scan.watermark.emit.strategy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum EmitStrategy {
    /// 'on-periodic' (Flink's default): on every periodic emit.
    #[default]
    Periodic,
    /// 'on-event': right after every `gap`-th record of the split
    /// (`scan.watermark.emit.on-event.gap`, default 1).
    OnEvent {
        /// Records between two emissions.
        gap: u32,
    },
}

/// Everything that decides a split's watermarks: the expression, the idle
/// timeout (`None` = idleness disabled, Flink's default), the periodic
/// emission interval (0 = no periodic emission at all) and when to emit.
#[derive(Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct WatermarkStrategy {
    /// How event times become a watermark.
    pub expr: WatermarkExpr,
    /// `withIdleness(t)` / `table.exec.source.idle-timeout`; `None` = disabled.
    pub idle_timeout: Option<Millis>,
    /// `pipeline.auto-watermark-interval`; 0 disables periodic emission.
    pub emit_interval: Millis,
    /// Periodic (default) or on-event emission. Not in checkpoints (their
    /// layout predates it): a restored source gets it from the job again
    /// ([`crate::source::SourceSubtask::reconfigure`]), and the job identity
    /// stored with a checkpoint names it, so it cannot change unnoticed.
    #[serde(skip)]
    pub emit: EmitStrategy,
}

/// The periodic strategy is written as it was before `emit` existed: a
/// job's identity (stored with its checkpoints) includes this text, so a
/// job that does not use on-event emission keeps restoring its checkpoints.
impl std::fmt::Debug for WatermarkStrategy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut d = f.debug_struct("WatermarkStrategy");
        d.field("expr", &self.expr)
            .field("idle_timeout", &self.idle_timeout)
            .field("emit_interval", &self.emit_interval);
        if self.emit != EmitStrategy::Periodic {
            d.field("emit", &self.emit);
        }
        d.finish()
    }
}

impl WatermarkStrategy {
    /// DataStream bounded out-of-orderness with the default interval and no idleness.
    pub fn bounded_out_of_orderness(delay: Millis) -> Self {
        WatermarkStrategy {
            expr: WatermarkExpr::BoundedOutOfOrderness { delay },
            idle_timeout: None,
            emit_interval: DEFAULT_EMIT_INTERVAL,
            emit: EmitStrategy::Periodic,
        }
    }

    /// SQL `ts - INTERVAL 'delay'` with the default interval and no idleness.
    pub fn sql(delay: Millis) -> Self {
        WatermarkStrategy {
            expr: WatermarkExpr::SqlDelay { delay },
            idle_timeout: None,
            emit_interval: DEFAULT_EMIT_INTERVAL,
            emit: EmitStrategy::Periodic,
        }
    }

    /// The same strategy emitting after every `gap`-th record of a split
    /// instead of periodically.
    pub fn on_event(mut self, gap: u32) -> Self {
        self.emit = EmitStrategy::OnEvent { gap };
        self
    }

    /// The same strategy with `withIdleness(timeout)`.
    pub fn with_idleness(mut self, timeout: Millis) -> Self {
        self.idle_timeout = Some(timeout);
        self
    }

    /// The same strategy with another periodic emission interval.
    pub fn with_emit_interval(mut self, interval: Millis) -> Self {
        self.emit_interval = interval;
        self
    }

    /// Checks the strategy as Flink does: the idle timeout must be positive,
    /// delays and the interval must not be negative.
    pub fn validate(&self) -> Result<()> {
        let delay = match self.expr {
            WatermarkExpr::BoundedOutOfOrderness { delay } | WatermarkExpr::SqlDelay { delay } => {
                delay
            }
        };
        if delay < 0 {
            return Err(Error::InvalidStrategy(format!(
                "the out-of-orderness must not be negative, got {delay} ms"
            )));
        }
        if let Some(t) = self.idle_timeout {
            if t <= 0 {
                return Err(Error::InvalidStrategy(format!(
                    "the idle timeout must be greater than zero, got {t} ms; \
                     leave it unset to disable idleness"
                )));
            }
        }
        if self.emit == (EmitStrategy::OnEvent { gap: 0 }) {
            return Err(Error::InvalidStrategy(
                "the on-event gap must be at least 1 record".into(),
            ));
        }
        if self.emit_interval < 0 {
            return Err(Error::InvalidStrategy(format!(
                "the watermark emit interval must not be negative, got {} ms",
                self.emit_interval
            )));
        }
        Ok(())
    }

    /// A fresh generator for one split.
    pub fn create_generator(&self) -> WatermarkGenerator {
        WatermarkGenerator::new(self)
    }
}

/// What a generator says on a periodic emit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Emit {
    /// Nothing (the split is idle and already said so).
    Nothing,
    /// The split's current watermark (possibly unchanged: deduplication
    /// happens in the combiner, as in Flink).
    Watermark(Timestamp),
    /// The split has just become idle.
    Idle,
}

/// The watermark generator of one split: bounded out-of-orderness in one of
/// its two forms, optionally wrapped with idleness detection.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WatermarkGenerator {
    expr: WatermarkExpr,
    /// DataStream form: `maxTimestamp`; SQL form: the last row's watermark.
    state: Timestamp,
    idleness: Option<IdlenessTimer>,
    idle_now: bool,
    /// Not checkpointed: set from the job on restore. (On-event emission
    /// itself is counted by the source subtask, on the split's records.)
    #[serde(skip)]
    emit: EmitStrategy,
}

impl WatermarkGenerator {
    /// A generator in its initial state. The strategy should have been
    /// validated; an invalid idle timeout (<= 0) is treated as disabled.
    pub fn new(strategy: &WatermarkStrategy) -> Self {
        let state = match strategy.expr {
            WatermarkExpr::BoundedOutOfOrderness { delay } => {
                MIN_WATERMARK.saturating_add(delay).saturating_add(1)
            }
            WatermarkExpr::SqlDelay { .. } => MIN_WATERMARK,
        };
        WatermarkGenerator {
            expr: strategy.expr,
            state,
            idleness: strategy
                .idle_timeout
                .filter(|t| *t > 0)
                .map(IdlenessTimer::new),
            idle_now: false,
            emit: strategy.emit,
        }
    }

    /// A record with event time `ts` was emitted from the split.
    pub fn on_event(&mut self, ts: Timestamp) {
        match self.expr {
            WatermarkExpr::BoundedOutOfOrderness { .. } => self.state = self.state.max(ts),
            WatermarkExpr::SqlDelay { delay } => self.state = ts.saturating_sub(delay),
        }
        if let Some(timer) = &mut self.idleness {
            timer.activity();
        }
        self.idle_now = false;
    }

    /// The split is known to have records not read yet (lag-aware
    /// idleness): it counts as active, exactly as if a record had arrived,
    /// without moving the watermark. Its idleness countdown starts again,
    /// so it can go idle only `timeout` after it was last behind.
    pub fn on_backlog(&mut self) {
        if let Some(timer) = &mut self.idleness {
            timer.activity();
        }
        self.idle_now = false;
    }

    /// Takes the job's strategy after a restore: the delay, the idle
    /// timeout and the emission hold no state, so they change while the
    /// state stays (the last event time, an idleness countdown going on).
    /// Another kind of expression (SQL vs DataStream) keeps the restored
    /// one: its state means another thing (a job's identity refuses it).
    pub fn reconfigure(&mut self, strategy: &WatermarkStrategy) {
        self.expr = match (self.expr, strategy.expr) {
            (WatermarkExpr::SqlDelay { .. }, e @ WatermarkExpr::SqlDelay { .. })
            | (
                WatermarkExpr::BoundedOutOfOrderness { .. },
                e @ WatermarkExpr::BoundedOutOfOrderness { .. },
            ) => e,
            (kept, _) => kept,
        };
        self.idleness = match (
            self.idleness.take(),
            strategy.idle_timeout.filter(|t| *t > 0),
        ) {
            (Some(mut timer), Some(timeout)) => {
                timer.set_timeout(timeout);
                Some(timer)
            }
            (None, Some(timeout)) => Some(IdlenessTimer::new(timeout)),
            (_, None) => None,
        };
        if self.idleness.is_none() {
            self.idle_now = false;
        }
        self.emit = strategy.emit;
    }

    /// The periodic emit at processing time `now`: idleness is checked first
    /// (Flink's `WatermarksWithIdleness`); while idle the inner generator is
    /// silent.
    pub fn on_periodic_emit(&mut self, now: Timestamp) -> Emit {
        if let Some(timer) = &mut self.idleness {
            if timer.check_if_idle(now) {
                if self.idle_now {
                    return Emit::Nothing;
                }
                self.idle_now = true;
                return Emit::Idle;
            }
        }
        if self.emit != EmitStrategy::Periodic {
            return Emit::Nothing;
        }
        Emit::Watermark(self.current_watermark())
    }

    /// The watermark the next periodic emit would produce (ignoring idleness).
    pub fn current_watermark(&self) -> Timestamp {
        match self.expr {
            WatermarkExpr::BoundedOutOfOrderness { delay } => {
                self.state.saturating_sub(delay).saturating_sub(1)
            }
            WatermarkExpr::SqlDelay { .. } => self.state,
        }
    }

    /// Whether the idleness rule currently holds the split idle.
    pub fn is_idle(&self) -> bool {
        self.idle_now
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::secs;

    #[test]
    fn first_datastream_watermark_is_exactly_min() {
        let mut g = WatermarkStrategy::bounded_out_of_orderness(secs(5)).create_generator();
        assert_eq!(g.on_periodic_emit(0), Emit::Watermark(MIN_WATERMARK));
        let mut s = WatermarkStrategy::sql(secs(5)).create_generator();
        assert_eq!(s.on_periodic_emit(0), Emit::Watermark(MIN_WATERMARK));
    }

    #[test]
    fn datastream_keeps_the_maximum_sql_keeps_the_last_row() {
        let mut g = WatermarkStrategy::bounded_out_of_orderness(10).create_generator();
        g.on_event(100);
        g.on_event(50);
        assert_eq!(g.current_watermark(), 89);
        let mut s = WatermarkStrategy::sql(10).create_generator();
        s.on_event(100);
        s.on_event(50);
        assert_eq!(
            s.current_watermark(),
            40,
            "Flink assigns the last row's value"
        );
    }

    #[test]
    fn on_event_generators_only_check_idleness_periodically() {
        let mut g = WatermarkStrategy::sql(10).on_event(2).create_generator();
        g.on_event(100);
        assert_eq!(g.on_periodic_emit(200), Emit::Nothing);
        let mut idle = WatermarkStrategy::sql(10)
            .on_event(1)
            .with_idleness(100)
            .create_generator();
        idle.on_event(5);
        assert_eq!(idle.on_periodic_emit(0), Emit::Nothing);
        assert_eq!(
            idle.on_periodic_emit(101),
            Emit::Nothing,
            "first quiet probe"
        );
        assert_eq!(
            idle.on_periodic_emit(202),
            Emit::Idle,
            "idleness still runs"
        );
        assert!(WatermarkStrategy::sql(1).on_event(0).validate().is_err());
        assert_eq!(
            format!("{:?}", WatermarkStrategy::sql(1)),
            "WatermarkStrategy { expr: SqlDelay { delay: 1 }, idle_timeout: None, emit_interval: 200 }",
            "the periodic text is the one job identities have"
        );
    }

    #[test]
    fn absurd_timestamps_saturate_instead_of_wrapping() {
        let mut g = WatermarkStrategy::sql(secs(5)).create_generator();
        g.on_event(i64::MIN + 3);
        assert_eq!(g.current_watermark(), MIN_WATERMARK);
        let mut d = WatermarkStrategy::bounded_out_of_orderness(i64::MAX).create_generator();
        d.on_event(i64::MAX);
        assert_eq!(d.current_watermark(), -1);
    }

    #[test]
    fn invalid_strategies_are_rejected_with_a_reason() {
        let zero_idle = WatermarkStrategy::sql(0).with_idleness(0).validate();
        assert!(
            matches!(zero_idle, Err(Error::InvalidStrategy(m)) if m.contains("greater than zero"))
        );
        assert!(WatermarkStrategy::sql(-1).validate().is_err());
        assert!(WatermarkStrategy::sql(1)
            .with_emit_interval(-5)
            .validate()
            .is_err());
        assert!(WatermarkStrategy::sql(1)
            .with_idleness(1)
            .validate()
            .is_ok());
    }
}
