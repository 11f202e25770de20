//! The interval flushes of jdbc sinks (`sink.buffer-flush.interval`), on
//! a thread of their own: a server that is away holds that thread, not the
//! monitor.

use lowwater_sql::options::Connector;
use lowwater_sql::plan::JobPlan;

use crate::error::RunError;

/// The thread body that flushes the jdbc sinks with a
/// `sink.buffer-flush.interval` (each at its own interval), until the
/// returned sender is dropped; `None` when no sink has an interval.
pub(crate) fn interval_flusher<'a>(
    plan: &JobPlan,
    shared: &'a crate::shared::Shared,
) -> (
    Option<impl FnOnce() + Send + 'a>,
    std::sync::mpsc::Sender<()>,
) {
    let (stop, stopped) = std::sync::mpsc::channel::<()>();
    let due: Vec<(usize, std::time::Duration)> = shared
        .sinks
        .keys()
        .filter_map(|&t| match &plan.tables[t].connector {
            Connector::Jdbc(j) => j
                .flush_interval
                .map(|i| (t, std::time::Duration::from_millis(i.max(1) as u64))),
            _ => None,
        })
        .collect();
    let Some(tick) = due.iter().map(|(_, i)| *i).min() else {
        return (None, stop);
    };
    let names: Vec<String> = due
        .iter()
        .map(|(t, _)| plan.tables[*t].name.clone())
        .collect();
    let body = move || {
        let mut last: Vec<std::time::Instant> = vec![std::time::Instant::now(); due.len()];
        while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(tick) {
            for (i, (t, interval)) in due.iter().enumerate() {
                if last[i].elapsed() < *interval {
                    continue;
                }
                last[i] = std::time::Instant::now();
                let Some(mut w) = shared.sink(*t) else {
                    continue;
                };
                if let Err(e) = w.flush_buffered() {
                    shared.fail(RunError::Io(format!("writing sink {}: {e}", names[i])));
                    return;
                }
            }
        }
    };
    (Some(body), stop)
}
