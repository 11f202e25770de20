//! Flink 2.3's rule for sinks with a primary key: an INSERT whose rows
//! carry no upsert key (every INSERT lowwater runs) needs an `ON CONFLICT`
//! clause, or `table.exec.sink.require-on-conflict` = 'false'.

use crate::error::{Loc, Result, SqlError};
use crate::options::Connector;

use super::{IntervalPlan, JoinPlan, Pipeline, TableDef};

/// Flink 2.3 refuses an INSERT into a table with a primary key (an
/// upsert-kafka sink, a jdbc sink with one) when the query's rows have no
/// upsert key equal to it, as an append-only query's rows have none,
/// unless `table.exec.sink.require-on-conflict` is false or the INSERT
/// says what a conflict does (`ON CONFLICT DO ...`). lowwater writes each
/// row as its key's new version, which is `DO DEDUPLICATE` (the last row
/// wins); `DO NOTHING` and `DO ERROR` keep state of every key written and
/// are refused. `ON CONFLICT` into an append-only sink is refused as Flink
/// refuses it.
pub(super) fn upsert_sinks(
    tables: &[TableDef],
    (pipelines, joins, intervals): (&[Pipeline], &[JoinPlan], &[IntervalPlan]),
    conflicts: &[(Loc, crate::ast::Conflict, Loc)],
    require: bool,
) -> Result<()> {
    // A join read by a window aggregation writes through that INSERT.
    let sinks = pipelines
        .iter()
        .map(|p| (p.sink, p.loc))
        .chain(
            joins
                .iter()
                .filter(|j| j.into.is_none())
                .map(|j| (j.sink, j.loc)),
        )
        .chain(
            intervals
                .iter()
                .filter(|j| j.into.is_none())
                .map(|j| (j.sink, j.loc)),
        );
    for (t, at) in sinks {
        let table = &tables[t];
        let clause = conflicts.iter().find(|(insert, ..)| *insert == at);
        // A jdbc table is an upsert sink with a primary key; without one
        // Flink's planner takes it as append-only.
        let upsert_sink = table.upsert()
            || (matches!(table.connector, Connector::Jdbc(_)) && table.primary_key.is_some());
        if let Some((_, strategy, loc)) = clause {
            if !upsert_sink {
                return Err(SqlError::new(
                    *loc,
                    format!(
                        "ON CONFLICT clause is only allowed for upsert sinks. The sink '{}' is \
                         not an upsert sink because it only accepts INSERT (append-only) \
                         changes (as Flink says): remove the clause",
                        table.name
                    ),
                ));
            }
            match strategy {
                crate::ast::Conflict::Deduplicate => continue,
                s => {
                    let (what, does) = match s {
                        crate::ast::Conflict::Nothing => {
                            ("DO NOTHING", "keeps each key's first row")
                        }
                        _ => ("DO ERROR", "fails on a key's second row"),
                    };
                    return Err(SqlError::new(
                        *loc,
                        format!(
                            "ON CONFLICT {what} is not supported yet: Flink {does}, which needs \
                             state of every key ever written; lowwater writes each row as its \
                             key's new version, which is ON CONFLICT DO DEDUPLICATE (the last \
                             row wins): use that"
                        ),
                    ));
                }
            }
        }
        let Some(pk) = table
            .primary_key
            .as_ref()
            .filter(|_| upsert_sink && require)
        else {
            continue;
        };
        let pk: Vec<&str> = pk.iter().map(|&c| table.columns[c].name.as_str()).collect();
        return Err(SqlError::new(
            at,
            format!(
                "the query has an upsert key that differs from the primary key [{}] of the sink \
                 table '{}' (Flink 2.3: its rows are inserts, with no upsert key); Flink refuses \
                 it unless the INSERT ends with ON CONFLICT DO DEDUPLICATE (the last row per \
                 key wins, which is what lowwater writes) or SET \
                 'table.exec.sink.require-on-conflict' = 'false'",
                pk.join(", "),
                table.name
            ),
        ));
    }
    Ok(())
}
