//! Flink's watermark alignment options on a source table (FLIP-182 and
//! FLIP-217): `scan.watermark.alignment.group`, `.max-drift` and
//! `.update-interval`. The partitions of every table in one group are
//! paused while their watermark runs more than the drift ahead of the
//! group's slowest partition, which bounds the state a catch-up can pile up.

use std::collections::BTreeMap;

use lowwater_core::watermark::alignment::DEFAULT_ALIGNMENT_UPDATE_INTERVAL;
use lowwater_core::Millis;

use crate::ast::CreateTable;
use crate::error::{Result, SqlError};
use crate::types::parse_duration;

use super::table::option_loc;

const GROUP: &str = "scan.watermark.alignment.group";
const DRIFT: &str = "scan.watermark.alignment.max-drift";
const INTERVAL: &str = "scan.watermark.alignment.update-interval";

/// A source table's watermark alignment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AlignmentDef {
    /// `scan.watermark.alignment.group`: tables of one group align together.
    pub group: String,
    /// `scan.watermark.alignment.max-drift`: how far a partition's watermark
    /// may run ahead of the group's slowest before it is paused.
    pub max_drift: Millis,
    /// `scan.watermark.alignment.update-interval` (default 1 s): how often
    /// the group's slowest watermark is taken again.
    pub update_interval: Millis,
}

/// The table's alignment, if its options set one. As in Flink, the group and
/// the drift are both required once any of the three is set.
pub(super) fn alignment(
    ct: &CreateTable,
    raw: &BTreeMap<String, String>,
) -> Result<Option<AlignmentDef>> {
    let (group, drift, interval) = (raw.get(GROUP), raw.get(DRIFT), raw.get(INTERVAL));
    let (group, drift) = match (group, drift) {
        (None, None) if interval.is_none() => return Ok(None),
        (Some(g), Some(d)) if !g.trim().is_empty() => (g.trim().to_string(), d),
        _ => {
            let at = [GROUP, DRIFT, INTERVAL]
                .into_iter()
                .find(|k| raw.contains_key(*k))
                .map_or(ct.loc, |k| option_loc(ct, k));
            return Err(SqlError::new(
                at,
                format!(
                    "table '{}': '{GROUP}' and '{DRIFT}' must be set when configuring watermark \
                     alignment (as Flink requires)",
                    ct.name
                ),
            ));
        }
    };
    let positive = |key: &str, v: &str| {
        parse_duration(v).ok().filter(|d| *d > 0).ok_or_else(|| {
            SqlError::new(
                option_loc(ct, key),
                format!(
                    "table '{}': {key} '{v}' is not a positive duration (Flink applies no \
                     alignment with a drift of 0); write e.g. '1 min'",
                    ct.name
                ),
            )
        })
    };
    Ok(Some(AlignmentDef {
        group,
        max_drift: positive(DRIFT, drift)?,
        update_interval: match interval {
            Some(v) => positive(INTERVAL, v)?,
            None => DEFAULT_ALIGNMENT_UPDATE_INTERVAL,
        },
    }))
}
