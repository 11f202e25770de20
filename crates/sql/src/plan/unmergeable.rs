//! What Flink 2.3 refuses in the windows that merge accumulators (HOP and
//! CUMULATE share slices, SESSION merges sessions), refused here with its
//! reason, so that a job lowwater runs also runs on Flink.

use lowwater_core::window::aggregate::{AggFunc, AggSpec};

use crate::ast::TvfKind;
use crate::error::{Loc, Result, SqlError};

/// Refuses what Flink 2.3 refuses in a window that merges accumulators
/// (checked on a real Flink in streaming mode): HOP and CUMULATE share
/// slices and SESSION merges sessions, and FIRST_VALUE and LAST_VALUE have
/// no merge ("Could not find an implementation method 'merge' in class
/// FirstValueAggFunction"); HOP's slices merge a DISTINCT aggregate through
/// its retraction, which SUM and LISTAGG do not have ("This function does
/// not support retraction"). lowwater could compute them (it keeps one
/// accumulator per window), but a job Flink cannot run is not a Flink job.
pub(super) fn refuse(kind: TvfKind, aggs: &[AggSpec], loc: Loc) -> Result<()> {
    let window = match kind {
        TvfKind::Tumble => return Ok(()),
        TvfKind::Hop => "HOP",
        TvfKind::Cumulate => "CUMULATE",
        TvfKind::Session => "SESSION",
    };
    let first_last = |a: &&AggSpec| {
        matches!(
            a.func,
            AggFunc::FirstValue | AggFunc::LastValue | AggFunc::LastValueDistinct
        )
    };
    if let Some(a) = aggs.iter().find(first_last) {
        let name = super::agg_name(a.func);
        return Err(SqlError::new(
            loc,
            format!(
                "{name} cannot run in {window} windows: they merge accumulators, and Flink's \
                 FIRST_VALUE and LAST_VALUE have no merge (Flink rejects the job too); use them \
                 with TUMBLE"
            ),
        ));
    }
    // AVG(DISTINCT x) beside a VAR or STDDEV is SUM(DISTINCT x) / COUNT(...)
    // in Flink's plan (its rewrite of AVG for them), so it cannot retract
    // either.
    let variance = aggs.iter().any(|a| {
        matches!(
            a.func.undistinct().unwrap_or(a.func),
            AggFunc::VarPop | AggFunc::VarSamp | AggFunc::StddevPop | AggFunc::StddevSamp
        )
    });
    let unretractable = |a: &&AggSpec| {
        matches!(a.func, AggFunc::SumDistinct | AggFunc::ListAggDistinct)
            || (variance && a.func == AggFunc::AvgDistinct)
    };
    if let (TvfKind::Hop, Some(a)) = (kind, aggs.iter().find(unretractable)) {
        let name = super::agg_name(a.func);
        return Err(SqlError::new(
            loc,
            format!(
                "{name} cannot run in HOP windows: Flink merges a HOP window's slices of a \
                 DISTINCT aggregate by retracting, and its SUM and LISTAGG cannot retract (Flink \
                 rejects the job too); use TUMBLE or CUMULATE, or COUNT/AVG(DISTINCT ...)"
            ),
        ));
    }
    Ok(())
}
