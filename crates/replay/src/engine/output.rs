//! What the replay engine writes: fired windows and late rows into the
//! sinks, with their counters.

use lowwater_connectors::sink::SinkFormat;
use lowwater_core::window::operator::WindowOutput;
use lowwater_core::{Timestamp, Value};
use lowwater_sql::plan::{JobPlan, LateReason};

use super::{Engine, Sink, SinkOutput};

impl Engine<'_> {
    pub(super) fn emit(&mut self, pi: usize, now: Timestamp, with_row: bool) {
        let plan = self.plan;
        let pl = &plan.pipelines[pi];
        let outs = std::mem::take(&mut self.buf);
        // Window Top-N: the rows of a window fire together and are ranked.
        let ranks = match pl.ranks(&outs, Some(now)) {
            Ok(r) => r,
            Err(e) => {
                self.sink_error.get_or_insert(format!(
                    "ranking the windows of INSERT INTO {}: {e}",
                    plan.tables[pl.sink].name
                ));
                Vec::new()
            }
        };
        for (i, o) in outs.into_iter().enumerate() {
            match o {
                WindowOutput::Fired(r) => {
                    let rank = ranks.get(i).map_or(&[][..], Vec::as_slice);
                    let width = plan.tables[pl.sink].columns.len();
                    let values = match pl.sink_values(&r, rank, width, now) {
                        Ok(Some(v)) => v,
                        // HAVING filtered the window's row out.
                        Ok(None) => continue,
                        Err(e) => {
                            self.sink_error.get_or_insert(format!(
                                "the window [{}, {}) of INSERT INTO {}: {e}",
                                lowwater_core::time::display_time(r.window.start),
                                lowwater_core::time::display_time(r.window.end),
                                plan.tables[pl.sink].name
                            ));
                            continue;
                        }
                    };
                    let lag = now.saturating_sub(r.window.end);
                    if let Some(s) = self.sinks.get_mut(&pl.sink) {
                        if let Err(e) = s.write(&values, now) {
                            self.sink_error.get_or_insert(e);
                        }
                        s.out.window_rows += 1;
                        s.out.early_rows += u64::from(r.early);
                        s.out.max_emission_lag =
                            Some(s.out.max_emission_lag.map_or(lag, |m| m.max(lag)));
                        *s.out.lags.entry(lag).or_insert(0) += 1;
                    }
                }
                WindowOutput::Late(_) if with_row => {
                    if let Some(late) = &self.pipes[pi].late_map {
                        let values = late.values(&self.row, LateReason::Late);
                        self.write_late(late.sink, &values, now);
                    }
                }
                WindowOutput::Late(_) => {}
            }
        }
    }

    /// Writes a row to a late-data sink and counts it there.
    pub(super) fn write_late(&mut self, sink: usize, values: &[Value], now: Timestamp) {
        if let Some(s) = self.sinks.get_mut(&sink) {
            if let Err(e) = s.write(values, now) {
                self.sink_error.get_or_insert(e);
            }
            s.out.late_rows += 1;
        }
    }
}

pub(super) fn sink(plan: &JobPlan, table: usize) -> Result<Sink, String> {
    Ok(Sink {
        // Replay looks an avro-confluent sink's schema up; it never
        // registers one (it must not change a production registry).
        format: SinkFormat::new(
            &plan.tables[table],
            lowwater_connectors::avro::Registration::LookUp,
        )?,
        out: SinkOutput::default(),
        keep: true,
    })
}

impl Sink {
    pub(super) fn write(&mut self, values: &[Value], now: Timestamp) -> Result<(), String> {
        let offset = self.out.rows as i64;
        self.out.rows += 1;
        if self.format.discards() {
            return Ok(());
        }
        // Encoded even when not kept: a row that does not fit the sink's
        // format fails the replay either way.
        let r = self.format.dump_record(values, offset, now)?;
        if self.keep {
            self.out.records.push(r);
        }
        Ok(())
    }
}
