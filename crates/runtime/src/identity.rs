//! What a job is, for its checkpoints: the identity a checkpoint stores
//! and a restore compares (`crate::evolve`), and the names of its parts.

use std::path::PathBuf;

use lowwater_core::checkpoint::JobIdentity;
use lowwater_sql::plan::JobPlan;

/// The suffix of an INSERT's identity part that holds its clauses in SQL
/// (`Pipeline::words`): not compared (the state does not depend on how a
/// clause is written), read to name a refused change in the user's words.
pub(crate) const IN_SQL: &str = " (in SQL)";

/// What a job is, for its checkpoints: parallelism, each source table's
/// topics and watermark, each INSERT's source, window, keys, filter and
/// aggregates. Connection properties are left out on purpose.
pub(crate) fn identity(plan: &JobPlan) -> JobIdentity {
    let mut id = JobIdentity::new()
        .with("parallelism.default", plan.settings.parallelism.to_string())
        // The key exchange: a key's state is in the subtask this names.
        .with(
            "key routing",
            "FNV-1a over the key (lowwater-core route, v1)",
        );
    // The window aggregations' sources first, then the joins' (the order
    // of the parts; a job without joins names the same sources as before).
    let sources = plan.source_tables();
    // Parts are stored by position: statement and source numbers are in
    // the names, so reordering INSERTs is a change, not a silent swap.
    for (si, &t) in sources.iter().enumerate() {
        let src = &plan.tables[t];
        id = id.with(
            format!("source {} (table {})", si + 1, src.name),
            format!(
                "topics {:?}, watermark {:?}{}",
                src.topics(),
                src.strategy(&plan.settings),
                files(src)
            ),
        );
    }
    for (pi, pl) in plan.pipelines.iter().enumerate() {
        // Not compared: what a refusal names in SQL (`crate::evolve`).
        id = id.with(
            format!(
                "INSERT {} INTO {}{}",
                pi + 1,
                plan.tables[pl.sink].name,
                IN_SQL
            ),
            &pl.words,
        );
        id = id.with(
            format!("INSERT {} INTO {}", pi + 1, plan.tables[pl.sink].name),
            format!(
                "FROM {}; window {:?}; keys {:?}; WHERE {:?}; aggregate arguments {:?}{}",
                plan.tables[pl.source].name,
                pl.window,
                pl.keys,
                pl.filter,
                pl.agg_args,
                // A Window Top-N routes keys by its partition.
                pl.rank.as_ref().map_or(String::new(), |r| format!(
                    "; rank partition {:?}",
                    r.partition
                )) + &cascade(pl)
            ),
        );
    }
    for (j, which) in crate::joins::joins(plan).into_iter().enumerate() {
        let shape = match which {
            crate::joins::JoinRef::Temporal(t) => {
                let j = &plan.joins[t];
                format!(
                    "temporal join of {} with {}{}; keys {:?} = {:?}; LEFT {}; ON {:?}",
                    plan.tables[j.probe].name,
                    plan.tables[j.build].name,
                    match &j.view {
                        Some(v) => format!(" (view {v}, by {:?})", j.dedup_key),
                        None if j.normalize => format!(" (upsert, by {:?})", j.dedup_key),
                        None => String::new(),
                    },
                    j.probe_key,
                    j.build_key,
                    j.left,
                    j.residual
                )
            }
            crate::joins::JoinRef::Interval(i) => {
                let j = &plan.intervals[i];
                let windows = j.window.as_ref().map_or(String::new(), |w| {
                    format!(
                        "; {:?}; sides {:?} WHERE {:?}",
                        w.assigner, w.columns, w.filters
                    )
                });
                format!(
                    "{} of {} with {}; {:?}; keys {:?} = {:?}; ON {:?}{windows}",
                    j.what(),
                    plan.tables[j.left].name,
                    plan.tables[j.right].name,
                    j.spec,
                    j.left_key,
                    j.right_key,
                    j.residual
                )
            }
        };
        let sink = &plan.tables[which.sides(plan).sink].name;
        id = id.with(format!("join {} INTO {sink}", j + 1), shape);
    }
    id
}

/// A filesystem source's files: their positions are lines read, by file,
/// so another set of files is another job.
fn files(table: &lowwater_sql::plan::TableDef) -> String {
    let lowwater_sql::options::Connector::Filesystem { path } = &table.connector else {
        return String::new();
    };
    let root = PathBuf::from(path);
    let mut names: Vec<String> = match std::fs::read_dir(&root) {
        Ok(d) => d
            .filter_map(|e| e.ok())
            .filter(|e| e.path().is_file())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect(),
        Err(_) => vec![path.clone()],
    };
    names.sort();
    format!(", files {names:?}")
}

/// The aggregations an INSERT of cascading windows reads, in its identity
/// (empty for any other INSERT, whose identity stays as it was).
pub(crate) fn cascade(pl: &lowwater_sql::plan::Pipeline) -> String {
    pl.stages()[..pl.stages().len() - 1]
        .iter()
        .map(|up| {
            format!(
                "; over window {:?}; keys {:?}; WHERE {:?}; aggregate arguments {:?}; HAVING {:?}; outputs {:?}",
                up.window, up.keys, up.filter, up.agg_args, up.having, up.outputs
            )
        })
        .collect()
}
