//! Planning an INSERT over an event-time temporal join: the probe table,
//! the versioned side (a table with a primary key, or a deduplicated view
//! of one), the join key from the ON condition's equalities and the rest of
//! the condition, the select list and WHERE over the joined row, and the
//! sink. Flink's refusals are kept, in words that say what to write.

use sqlparser::ast::{BinaryOperator, Expr as AstExpr};

use crate::ast::{expr_loc, JoinInsert, ViewSource};
use crate::compile::compile;
use crate::error::{Loc, Result, SqlError};
use crate::expr::Expr;
use crate::types::SqlType;
use lowwater_core::join::node::TemporalJoinNode;
use lowwater_core::join::temporal::{Joined, PROBE};

use super::join_scope::{
    conjuncts, find_table, joined_columns, joined_sink_values, one_side, outputs, readable, unify,
    where_clause, JoinScope, Side,
};
use super::{Output, TableDef};

/// One INSERT over an event-time temporal join: `FROM probe [LEFT] JOIN
/// build FOR SYSTEM_TIME AS OF probe.rowtime ON ...`. Each probe row joins
/// the version of its key valid at its rowtime, once the watermark of both
/// sides has passed that time (Flink's TemporalRowTimeJoinOperator).
#[derive(Debug, Clone, PartialEq)]
pub struct JoinPlan {
    /// Where the INSERT starts.
    pub loc: Loc,
    /// The probe table.
    pub probe: usize,
    /// The versioned side's table.
    pub build: usize,
    /// The versioned view the join names (its rows deduplicated: each
    /// key's last on rowtime), or `None` for a table with a primary key.
    pub view: Option<String>,
    /// The build row: the build table's columns in the view's order
    /// (`None`: the view's row number, always 1).
    pub build_columns: Vec<Option<usize>>,
    /// The build row's column names and types.
    pub build_names: Vec<(String, SqlType)>,
    /// A versioned view's key (its PARTITION BY columns, positions in the
    /// build row): its deduplication keeps each such key's last row, which
    /// may be a coarser key than the join's (empty for a table).
    pub dedup_key: Vec<usize>,
    /// An `upsert-kafka` versioned table that the job reads a metadata
    /// column of: Flink 2.3 then keeps the ChangelogNormalize before the
    /// join (keyed by the primary key, `dedup_key` here; its planner removes
    /// it when no metadata column is read): a record equal to its key's
    /// last is dropped, and a tombstone deletes the key's last version at
    /// that version's time. Set when the job is planned
    /// ([`super::plan`]), which knows the columns read.
    pub normalize: bool,
    /// The join key over the probe row (the probe table's row).
    pub probe_key: Vec<Expr>,
    /// The join key over the build row, pairwise equal to `probe_key`.
    pub build_key: Vec<Expr>,
    /// `LEFT JOIN`: unmatched probe rows are written with NULLs.
    pub left: bool,
    /// The ON condition beyond the key, over the joined row (the probe
    /// row, then the build row).
    pub residual: Option<Expr>,
    /// `WHERE`, over the joined row.
    pub filter: Option<Expr>,
    /// The select list, over the joined row.
    pub outputs: Vec<Output>,
    /// Sink table index.
    pub sink: usize,
    /// `outputs[i]` is written to sink column `sink_columns[i]`.
    pub sink_columns: Vec<usize>,
    /// The sink's column types.
    pub sink_types: Vec<SqlType>,
    /// A join read by a window function (a view of it): the INSERT
    /// (pipeline index) whose window aggregation its rows feed, instead of
    /// the sink; its "sink row" is then its select list, in order, and
    /// `sink` is that INSERT's.
    pub into: Option<usize>,
}

impl JoinPlan {
    /// The columns of table `t` this join reads into `cols` (the probe
    /// table's key, select list, conditions; the build table's through the
    /// build row), `probe_width` the probe table's column count.
    pub fn columns_read(&self, t: usize, probe_width: usize, cols: &mut Vec<usize>) {
        let joined = joined_columns(self.residual.as_ref(), self.filter.as_ref(), &self.outputs);
        if t == self.probe {
            for e in &self.probe_key {
                e.columns(cols);
            }
            cols.extend(joined.iter().filter(|&&c| c < probe_width));
        }
        if t == self.build {
            let mut build = Vec::new();
            for e in &self.build_key {
                e.columns(&mut build);
            }
            build.extend(&self.dedup_key);
            build.extend(joined.iter().filter_map(|&c| c.checked_sub(probe_width)));
            cols.extend(build.iter().filter_map(|&c| *self.build_columns.get(c)?));
        }
    }

    /// The node of one subtask of this join over `probe` and `build`
    /// channels, with at most `limit` rows waiting while its watermark
    /// stands still for longer than `grace`: a view deduplicates before
    /// the build port, an upsert table's changelog is normalized there.
    pub fn node(
        &self,
        probe: usize,
        build: usize,
        limit: u64,
        grace: lowwater_core::Millis,
    ) -> TemporalJoinNode {
        match self.normalize {
            true => TemporalJoinNode::upserting(probe, build, limit, grace),
            false => TemporalJoinNode::new(probe, build, self.view.is_some(), limit, grace),
        }
    }

    /// A build row `row` (from [`JoinPlan::side_input`], join key `key`)
    /// into `node` at `ts`: a version, or with `delete` an upsert table's
    /// tombstone (its row holds the primary key only; normalized, it
    /// deletes the key's last version, else it is a deletion at its own
    /// time `ts`). Returns whether what reached the join is late (a
    /// normalized deletion is not: it belongs to the version it deletes).
    /// Replay and `run` both feed the build side through this.
    pub fn build_into(
        &self,
        node: &mut TemporalJoinNode,
        ts: lowwater_core::Timestamp,
        key: &[lowwater_core::Value],
        row: &[lowwater_core::Value],
        delete: bool,
    ) -> bool {
        let dedup = self.dedup_values(row);
        match delete {
            true => node.upsert(ts, &dedup, key, None),
            false if self.normalize => node.upsert(ts, &dedup, key, Some(row)),
            false => node.build(ts, &dedup, key, row),
        }
    }

    /// The build row of a build table row.
    pub fn build_row(
        &self,
        table_row: &[lowwater_core::Value],
        out: &mut Vec<lowwater_core::Value>,
    ) {
        out.clear();
        out.extend(self.build_columns.iter().map(|c| {
            match c {
                Some(c) => table_row
                    .get(*c)
                    .cloned()
                    .unwrap_or(lowwater_core::Value::Null),
                None => lowwater_core::Value::Int(1),
            }
        }));
    }

    /// The sink row of a joined row; `None` when WHERE drops it.
    pub fn sink_values(
        &self,
        joined: &[lowwater_core::Value],
        width: usize,
    ) -> std::result::Result<Option<Vec<lowwater_core::Value>>, String> {
        let sink = (&self.sink_columns[..], &self.sink_types[..]);
        joined_sink_values(self.filter.as_ref(), &self.outputs, sink, joined, width)
    }

    /// A table row's input to side `port` ([`PROBE`] or [`BUILD`]): its
    /// join key, with the side's row in `side` (the probe table's row as it
    /// is; the build row of a versioned table or view). Replay and `run`
    /// both feed the join node through this.
    pub fn side_input(
        &self,
        port: usize,
        table_row: &[lowwater_core::Value],
        side: &mut Vec<lowwater_core::Value>,
    ) -> std::result::Result<lowwater_core::Row, String> {
        let exprs = if port == PROBE {
            side.clear();
            side.extend_from_slice(table_row);
            &self.probe_key
        } else {
            self.build_row(table_row, side);
            &self.build_key
        };
        exprs
            .iter()
            .map(|e| e.eval(side))
            .collect::<std::result::Result<_, _>>()
            .map_err(|m| format!("the join key: {m}"))
    }

    /// The positions of the join key a live join routes both sides by: of a
    /// versioned view, those that are the view's deduplication key (its
    /// PARTITION BY, which the join key must include), so that every version
    /// of a view key meets in one subtask, where its deduplication is exact,
    /// and a probe row still meets its key's versions; `None`: the whole key.
    pub fn route_positions(&self) -> Option<Vec<usize>> {
        if self.view.is_none() && !self.normalize {
            return None;
        }
        // A key column may be cast to the probe side's type: the routing
        // hashes the values both sides compute, so the cast one is it too.
        let positions: Vec<usize> = self
            .build_key
            .iter()
            .enumerate()
            .filter(|(_, e)| key_column(e).is_some_and(|c| self.dedup_key.contains(&c)))
            .map(|(i, _)| i)
            .collect();
        let covered = self.dedup_key.iter().all(|d| {
            positions
                .iter()
                .any(|&i| key_column(&self.build_key[i]) == Some(*d))
        });
        (covered && positions.len() < self.build_key.len()).then_some(positions)
    }

    /// How a versioned view's deduplication key routes as the join does
    /// (a restore at another parallelism moves each view key's last
    /// rowtime where its build rows go): the positions, in the view key,
    /// of the values the join's routing hashes, in its order (those of
    /// [`JoinPlan::route_positions`], else the whole join key). `None`
    /// when the join key is not made of the view key's columns.
    pub fn dedup_route_order(&self) -> Option<Vec<usize>> {
        let hashed: Vec<usize> = match self.route_positions() {
            Some(ps) => ps,
            None => (0..self.build_key.len()).collect(),
        };
        hashed
            .iter()
            .map(|&i| match self.build_key.get(i)? {
                Expr::Column(c) => self.dedup_key.iter().position(|d| d == c),
                _ => None,
            })
            .collect()
    }

    /// The normalization of an upsert table is decided by the columns the
    /// job reads of it (`metadata`: one of them is a metadata column, which
    /// keeps Flink's ChangelogNormalize); without it each record is a
    /// version of its own, as for a table with a primary key.
    pub fn decide_normalize(&mut self, metadata: bool) {
        if self.normalize && !metadata {
            self.normalize = false;
            self.dedup_key.clear();
        }
    }

    /// The view's deduplication key of a build row.
    pub fn dedup_values(&self, build: &[lowwater_core::Value]) -> lowwater_core::Row {
        self.dedup_key
            .iter()
            .map(|&c| build.get(c).cloned().unwrap_or(lowwater_core::Value::Null))
            .collect()
    }

    /// A probe row the watermark released, as the join writes it: the
    /// joined row when its version matches the ON condition's other terms,
    /// the probe row padded with NULLs for a LEFT join, else `None` (an
    /// inner join writes nothing for it).
    pub fn joined_row(&self, j: Joined) -> std::result::Result<Option<lowwater_core::Row>, String> {
        let matches = |row: &lowwater_core::Row| -> std::result::Result<bool, String> {
            let Some(r) = &self.residual else {
                return Ok(true);
            };
            Ok(crate::expr::truth(&r.eval(row)?) == Some(true))
        };
        j.into_row(self.build_columns.len(), self.left, matches)
    }
}

/// Plans an INSERT over a temporal join, or with `into` (sink, pipeline)
/// a view of one that the window aggregation of INSERT `pipeline` reads.
pub(super) fn join(
    ins: &JoinInsert,
    tables: &[TableDef],
    into: Option<(usize, usize)>,
) -> Result<JoinPlan> {
    let j = &ins.join;
    let sink = match into {
        Some((sink, _)) => sink,
        None => find_table(tables, &ins.sink, ins.loc)?,
    };
    let probe = find_table(tables, &j.probe.name, j.probe.loc)?;
    let pt = &tables[probe];
    readable(pt, j.probe.loc)?;
    let Some(pwm) = pt.watermark else {
        return Err(SqlError::new(
            j.probe.loc,
            format!(
                "table '{}' has no WATERMARK clause: an event-time temporal join needs the probe \
                 side's rowtime (lowwater runs no processing-time join; add WATERMARK FOR <col> AS \
                 <col> - INTERVAL '5' SECOND)",
                pt.name
            ),
        ));
    };
    // The versioned side: a view's table and columns, or a table's.
    let (build, view, build_columns, key_names, build_loc) = match &ins.view {
        Some(v) => {
            let b = find_table(tables, &v.table.name, v.table.loc)?;
            let bt = &tables[b];
            let mut cols: Vec<(String, Option<usize>)> = Vec::new();
            for (name, src) in &v.columns {
                match src {
                    ViewSource::All => cols.extend(
                        bt.columns
                            .iter()
                            .enumerate()
                            .map(|(i, c)| (c.name.clone(), Some(i))),
                    ),
                    ViewSource::RowNumber => cols.push((name.clone(), None)),
                    ViewSource::Column(c) => {
                        let i = bt.column(c).ok_or_else(|| {
                            SqlError::new(
                                v.loc,
                                format!(
                                    "view '{}': table '{}' has no column '{c}'",
                                    v.name, bt.name
                                ),
                            )
                        })?;
                        cols.push((name.clone(), Some(i)));
                    }
                }
            }
            if let Some(names) = &v.names {
                if names.len() != cols.len() {
                    return Err(SqlError::new(
                        v.loc,
                        format!(
                            "view '{}' names {} columns but selects {}",
                            v.name,
                            names.len(),
                            cols.len()
                        ),
                    ));
                }
                for (c, n) in cols.iter_mut().zip(names) {
                    c.0 = n.clone();
                }
            }
            let Some(wm) = bt.watermark else {
                return Err(no_rowtime(&v.name, v.loc));
            };
            if bt.column(&v.time) != Some(wm.column) {
                return Err(SqlError::new(
                    v.time_loc,
                    format!(
                        "view '{}' orders by '{}', but the rowtime of '{}' is '{}': a versioned \
                         view keeps each key's last row on the rowtime (ORDER BY {} DESC)",
                        v.name,
                        v.time,
                        bt.name,
                        bt.columns[wm.column].name,
                        bt.columns[wm.column].name
                    ),
                ));
            }
            if !cols.iter().any(|c| c.1 == Some(wm.column)) {
                return Err(no_rowtime(&v.name, v.loc));
            }
            // The key as the view's columns name it.
            let mut key = Vec::new();
            for k in &v.key {
                let i = bt.column(k).ok_or_else(|| {
                    SqlError::new(
                        v.time_loc,
                        format!("view '{}': table '{}' has no column '{k}'", v.name, bt.name),
                    )
                })?;
                let at = cols.iter().position(|c| c.1 == Some(i)).ok_or_else(|| {
                    SqlError::new(
                        v.loc,
                        format!(
                            "view '{}' must select its PARTITION BY column '{k}' (the versioned \
                             table's key, which the join matches)",
                            v.name
                        ),
                    )
                })?;
                key.push(Some(at));
            }
            (b, Some(v.name.clone()), cols, key, v.loc)
        }
        None => {
            let b = find_table(tables, &j.build.name, j.build.loc)?;
            let bt = &tables[b];
            if bt.watermark.is_none() {
                return Err(no_rowtime(&bt.name, j.build.loc));
            }
            let Some(pk) = &bt.primary_key else {
                return Err(SqlError::new(
                    j.build.loc,
                    format!(
                        "Temporal Table Join requires primary key in versioned table, but no primary \
                         key can be found: give '{}' a PRIMARY KEY (...) NOT ENFORCED, or join a \
                         view that keeps each key's last row (SELECT ... FROM (SELECT *, \
                         ROW_NUMBER() OVER (PARTITION BY key ORDER BY rowtime DESC) AS rownum \
                         FROM t) WHERE rownum = 1)",
                        bt.name
                    ),
                ));
            };
            let cols: Vec<(String, Option<usize>)> = bt
                .columns
                .iter()
                .enumerate()
                .map(|(i, c)| (c.name.clone(), Some(i)))
                .collect();
            (
                b,
                None,
                cols,
                pk.iter().map(|&i| Some(i)).collect(),
                j.build.loc,
            )
        }
    };
    let bt = &tables[build];
    readable(bt, build_loc)?;
    let build_names: Vec<(String, SqlType)> = build_columns
        .iter()
        .map(|(n, c)| (n.clone(), c.map_or(SqlType::BigInt, |c| bt.columns[c].ty)))
        .collect();
    let probe_q = j.probe.qualifier();
    let build_q = j.build.qualifier();
    if probe_q.eq_ignore_ascii_case(build_q) {
        return Err(SqlError::new(
            j.build.loc,
            format!(
                "both sides of the join are named '{probe_q}': give them different aliases \
                 (FROM {} AS o JOIN {} FOR SYSTEM_TIME AS OF ... AS r)",
                j.probe.name, j.build.name
            ),
        ));
    }
    let scope = JoinScope {
        probe_q,
        probe: pt.columns.iter().map(|c| (c.name.clone(), c.ty)).collect(),
        build_q,
        build: &build_names,
        side: Side::Both,
    };
    // FOR SYSTEM_TIME AS OF the probe side's rowtime.
    let as_of = compile(&j.as_of, &scope.with(Side::Probe), j.loc).ok();
    if as_of.map(|t| t.expr) != Some(Expr::Column(pwm.column)) {
        return Err(SqlError::new(
            expr_loc(&j.as_of, j.loc),
            format!(
                "FOR SYSTEM_TIME AS OF must name the probe side's rowtime, {}.{} (Flink's rule: \
                 a temporal join is AS OF the left table's time attribute)",
                probe_q, pt.columns[pwm.column].name
            ),
        ));
    }
    // The ON condition: equalities between the sides are the key.
    let mut terms = Vec::new();
    conjuncts(&j.on, &mut terms);
    let (mut probe_key, mut build_key, mut build_refs) = (Vec::new(), Vec::new(), Vec::new());
    let mut residual: Option<Expr> = None;
    for t in terms {
        let at = expr_loc(t, j.loc);
        if let AstExpr::BinaryOp {
            left,
            op: BinaryOperator::Eq,
            right,
        } = t
        {
            // An ambiguous name is an error here too, not a key.
            compile(left, &scope, at)?;
            compile(right, &scope, at)?;
            let pair = |a: &AstExpr, b: &AstExpr| {
                Some((
                    one_side(a, &scope.with(Side::Probe), at)?,
                    one_side(b, &scope.with(Side::Build), at)?,
                ))
            };
            if let Some((p, b)) = pair(left, right).or_else(|| pair(right, left)) {
                if let Expr::Column(c) = b.expr {
                    build_refs.push(c);
                }
                let (p, b) = unify(p, b, at)?;
                probe_key.push(p);
                build_key.push(b);
                continue;
            }
        }
        let c = compile(t, &scope, at)?;
        if !matches!(c.ty, None | Some(SqlType::Boolean)) {
            return Err(SqlError::new(
                at,
                "ON needs a BOOLEAN condition: join on equalities between the sides (o.k = r.k), \
                 with other conditions ANDed",
            ));
        }
        residual = Some(match residual {
            None => c.expr,
            Some(r) => Expr::And(Box::new(r), Box::new(c.expr)),
        });
    }
    // Flink's rule: the versioned side's key is among the equalities.
    let covered = key_names
        .iter()
        .all(|k| k.is_some_and(|k| build_refs.contains(&k)));
    if !covered {
        let key: Vec<String> = key_names
            .iter()
            .map(|k| k.map_or("?".to_string(), |k| build_names[k].0.clone()))
            .collect();
        return Err(SqlError::new(
            expr_loc(&j.on, j.loc),
            format!(
                "the versioned side's primary key [{}] must be in the join's equalities (Flink: \
                 \"Temporal table's primary key must be included in the equivalence condition of \
                 temporal join\"): join ON {}",
                key.join(", "),
                key.iter()
                    .map(|k| format!("{probe_q}.<col> = {build_q}.{k}"))
                    .collect::<Vec<_>>()
                    .join(" AND ")
            ),
        ));
    }
    let upsert = tables[build].upsert();
    if upsert && view.is_some() {
        return Err(SqlError::new(
            build_loc,
            format!(
                "a versioned view over the 'upsert-kafka' table '{}' is not supported yet: join \
                 the table itself (FOR SYSTEM_TIME AS OF), it is versioned by its primary key",
                tables[build].name
            ),
        ));
    }
    let filter = where_clause(ins.filter.as_ref(), &scope, ins.loc)?;
    let outputs = outputs(&ins.items, ins.loc, &scope)?;
    let (sink_columns, sink_types) = match into {
        Some(_) => (
            (0..outputs.len()).collect(),
            outputs.iter().map(|o| o.ty).collect(),
        ),
        None => (
            super::sink::sink_mapping(ins.loc, ins.sink_columns.as_ref(), &tables[sink], &outputs)?,
            tables[sink].columns.iter().map(|c| c.ty).collect(),
        ),
    };
    Ok(JoinPlan {
        loc: ins.loc,
        probe,
        build,
        view,
        build_columns: build_columns.iter().map(|c| c.1).collect(),
        build_names,
        dedup_key: match ins.view {
            Some(_) => key_names.iter().flatten().copied().collect(),
            None if upsert => key_names.iter().flatten().copied().collect(),
            None => Vec::new(),
        },
        normalize: upsert,
        probe_key,
        build_key,
        left: j.left,
        residual,
        filter,
        outputs,
        sink,
        sink_columns,
        sink_types,
        into: into.map(|(_, pi)| pi),
    })
}

/// The build row's column a join key term is, when it is one (possibly
/// cast to the probe side's type).
fn key_column(e: &Expr) -> Option<usize> {
    match e {
        Expr::Column(c) => Some(*c),
        Expr::Cast(a, _) => key_column(a),
        _ => None,
    }
}

fn no_rowtime(name: &str, loc: Loc) -> SqlError {
    SqlError::new(
        loc,
        format!(
            "Event-Time Temporal Table Join requires both primary key and row time attribute in \
             versioned table, but no row time attribute can be found in '{name}': give its table \
             a WATERMARK and keep the rowtime column among its columns"
        ),
    )
}
