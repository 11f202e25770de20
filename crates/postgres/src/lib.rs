//! lowwater's PostgreSQL sink: Flink's `jdbc` connector for
//! `jdbc:postgresql://` URLs.
//!
//! A [`Sink`] checks its table when it opens (see [`schema`]), buffers rows
//! and writes them in one transaction per flush: multi-row `INSERT`s, or
//! with a primary key `INSERT ... ON CONFLICT (key) DO UPDATE` after
//! keeping only each key's last row of the buffer (as Flink's reduced
//! buffer does). A flush happens when `sink.buffer-flush.max-rows` rows were
//! added, and when the caller asks (the interval, a checkpoint, the end).
//!
//! Failures: a lost connection is re-established with backoff for up to
//! `connection.max-retry-timeout`, then the flush fails naming the server;
//! a transient refusal (serialization failure, deadlock, lock or resource
//! shortage) is retried `sink.max-retries` times; any other refusal (a
//! value the column rejects, a constraint) fails at once with the server's
//! message, since writing the same rows again cannot succeed. An append
//! (no key) whose COMMIT a lost connection cut asks the server, by the
//! transaction's id (`txid_status`), whether it committed before writing its
//! rows again.

pub mod schema;
pub mod text;

use std::time::{Duration, Instant};

use hashbrown::HashMap;
use lowwater_core::Value;
use lowwater_sql::jdbc::Jdbc;
use postgres::types::ToSql;
use postgres::{Client, NoTls, Statement};

pub use schema::SinkColumn;
use text::{render, Text};

/// PostgreSQL takes at most this many parameters in one statement.
const MAX_PARAMETERS: usize = 65_535;
/// Rows per statement at most (a statement of a few hundred rows is most
/// of the gain over one row per statement).
const MAX_STATEMENT_ROWS: usize = 512;
/// The longest wait between two attempts to reconnect.
const MAX_BACKOFF: Duration = Duration::from_secs(5);

/// What a sink has done, for its metrics.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SinkStats {
    /// Rows the server committed (with a primary key: after the buffer's
    /// reduction to each key's last row).
    pub rows: u64,
    /// Flushes committed.
    pub flushes: u64,
    /// Connections re-established after one was lost.
    pub reconnects: u64,
    /// Batches tried again after a transient refusal.
    pub retries: u64,
    /// When the last flush committed (ms since the epoch, the system
    /// clock's).
    pub last_commit: Option<i64>,
}

/// A PostgreSQL table being written.
pub struct Sink {
    config: postgres::Config,
    server: String,
    table: String,
    client: Option<Client>,
    key: Option<Vec<usize>>,
    columns: usize,
    shapes: Vec<text::Shape>,
    max_rows: usize,
    max_retries: u32,
    max_retry_timeout: Duration,
    /// `INSERT INTO t (c, ...) VALUES ` and the upsert's `ON CONFLICT`.
    head: String,
    tail: String,
    per_statement: usize,
    /// Prepared statements by their number of rows, on this connection.
    statements: HashMap<usize, Statement>,
    rows: Vec<Vec<Option<String>>>,
    /// With a key: each buffered key's row.
    by_key: HashMap<Vec<Option<String>>, usize>,
    /// Rows pushed since the last flush (before the reduction by key: the
    /// count `sink.buffer-flush.max-rows` is compared with, as Flink counts).
    added: usize,
    /// The error that failed a flush: every later flush returns it.
    failed: Option<String>,
    stats: SinkStats,
}

impl std::fmt::Debug for Sink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sink")
            .field("server", &self.server)
            .field("table", &self.table)
            .field("buffered", &self.rows.len())
            .finish()
    }
}

impl Sink {
    /// Connects to the server of `jdbc` and checks its table for
    /// `columns` (and `key`, positions in `columns`, for an upsert). Any
    /// failure names the server, the table and the column.
    pub fn open(
        jdbc: &Jdbc,
        columns: &[SinkColumn],
        key: Option<&[usize]>,
    ) -> Result<Sink, String> {
        let mut config = postgres::Config::new();
        config
            .host(&jdbc.host)
            .port(jdbc.port)
            .dbname(&jdbc.database)
            .application_name(&jdbc.application_name)
            .connect_timeout(Duration::from_secs(jdbc.connect_timeout_s.max(1)))
            .keepalives(true)
            .keepalives_idle(Duration::from_secs(30));
        if let Some(u) = &jdbc.username {
            config.user(u);
        }
        if let Some(p) = &jdbc.password {
            config.password(p);
        }
        let server = jdbc.server();
        let mut client = config.connect(NoTls).map_err(|e| {
            format!(
                "cannot connect to PostgreSQL for table {}: {}",
                jdbc.qualified(),
                describe(&e, &server)
            )
        })?;
        let checked = schema::check(
            &mut client,
            (jdbc.schema.as_deref(), &jdbc.table),
            columns,
            key,
            &server,
        )?;
        let names: Vec<&str> = checked.columns.iter().map(|(n, _)| n.as_str()).collect();
        let head = format!(
            "INSERT INTO {} ({}) VALUES ",
            checked.table,
            names.join(", ")
        );
        let tail = match key {
            None => String::new(),
            Some(k) => {
                let keys: Vec<&str> = k.iter().filter_map(|&i| names.get(i).copied()).collect();
                let rest: Vec<String> = (0..names.len())
                    .filter(|i| !k.contains(i))
                    .map(|i| format!("{0} = EXCLUDED.{0}", names[i]))
                    .collect();
                match rest.is_empty() {
                    true => format!(" ON CONFLICT ({}) DO NOTHING", keys.join(", ")),
                    false => format!(
                        " ON CONFLICT ({}) DO UPDATE SET {}",
                        keys.join(", "),
                        rest.join(", ")
                    ),
                }
            }
        };
        let per_statement = (MAX_PARAMETERS / columns.len().max(1)).clamp(1, MAX_STATEMENT_ROWS);
        Ok(Sink {
            config,
            server,
            table: jdbc.qualified(),
            client: Some(client),
            key: key.map(<[usize]>::to_vec),
            columns: columns.len(),
            shapes: checked.columns.iter().map(|(_, s)| *s).collect(),
            max_rows: jdbc.max_rows,
            max_retries: jdbc.max_retries,
            max_retry_timeout: Duration::from_millis(jdbc.max_retry_timeout.max(1) as u64),
            head,
            tail,
            per_statement,
            statements: HashMap::new(),
            rows: Vec::new(),
            by_key: HashMap::new(),
            added: 0,
            failed: None,
            stats: SinkStats::default(),
        })
    }

    /// Buffers one row (a value per sink column); flushes when
    /// `sink.buffer-flush.max-rows` rows were added since the last flush.
    pub fn push(&mut self, values: &[Value]) -> Result<(), String> {
        let row: Vec<Option<String>> = (0..self.columns)
            .map(|i| render(values.get(i).unwrap_or(&Value::Null), self.shapes[i]))
            .collect();
        match &self.key {
            Some(k) => {
                // -0.0 and 0.0 are one key to PostgreSQL.
                let key: Vec<Option<String>> = k
                    .iter()
                    .map(|&i| match row[i].as_deref() {
                        Some("-0.0") => Some("0.0".to_string()),
                        _ => row[i].clone(),
                    })
                    .collect();
                match self.by_key.get(&key) {
                    Some(&at) => self.rows[at] = row,
                    None => {
                        self.by_key.insert(key, self.rows.len());
                        self.rows.push(row);
                    }
                }
            }
            None => self.rows.push(row),
        }
        self.added += 1;
        if self.max_rows > 0 && self.added >= self.max_rows {
            self.flush()?;
        }
        Ok(())
    }

    /// Rows buffered, not yet written.
    pub fn buffered(&self) -> usize {
        self.rows.len()
    }

    /// What the sink has done so far.
    pub fn stats(&self) -> SinkStats {
        self.stats
    }

    /// Writes the buffered rows in one transaction, retrying as the module
    /// says; an error names the server, the table and the server's reason.
    /// After an error every later flush fails at once with it (the job is
    /// failing: its stop does not wait out the retries again).
    pub fn flush(&mut self) -> Result<(), String> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        if self.rows.is_empty() {
            return Ok(());
        }
        let result = self.write_buffer();
        match &result {
            Ok(()) => {
                self.stats.rows += self.rows.len() as u64;
                self.stats.flushes += 1;
                self.stats.last_commit = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .ok()
                    .map(|d| d.as_millis() as i64);
                self.rows.clear();
                self.by_key.clear();
                self.added = 0;
            }
            Err(e) => self.failed = Some(e.clone()),
        }
        result
    }

    fn write_buffer(&mut self) -> Result<(), String> {
        let mut lost_since: Option<Instant> = None;
        let mut backoff = Duration::from_millis(100);
        let mut refusals = 0;
        // A transaction whose COMMIT was sent when the connection was lost:
        // it may have committed.
        let mut in_doubt: Option<i64> = None;
        loop {
            if let Some(since) = lost_since {
                if since.elapsed() >= self.max_retry_timeout {
                    return Err(format!(
                        "jdbc sink {}: lost the connection to {} and could not write again \
                         within connection.max-retry-timeout ({} s); {} rows were not written",
                        self.table,
                        self.server,
                        self.max_retry_timeout.as_secs(),
                        self.rows.len()
                    ));
                }
            }
            if self.client.as_ref().is_none_or(Client::is_closed) {
                self.client = None;
                self.statements.clear();
                if lost_since.is_some() {
                    std::thread::sleep(backoff);
                    backoff = (backoff * 2).min(MAX_BACKOFF);
                }
                let since = *lost_since.get_or_insert_with(Instant::now);
                match self.config.connect(NoTls) {
                    Ok(c) => {
                        tracing::info!(
                            "jdbc sink {}: connected to {} again after {:.1} s",
                            self.table,
                            self.server,
                            since.elapsed().as_secs_f64()
                        );
                        self.stats.reconnects += 1;
                        self.client = Some(c);
                    }
                    Err(e) => {
                        tracing::debug!(
                            "jdbc sink {}: connecting again: {}",
                            self.table,
                            describe(&e, &self.server)
                        );
                        continue;
                    }
                }
            }
            let Some(client) = self.client.as_mut() else {
                continue;
            };
            if let Some(xid) = in_doubt {
                match commit_status(client, xid) {
                    Ok(Some(committed)) => {
                        in_doubt = None;
                        if committed {
                            tracing::info!(
                                "jdbc sink {}: the transaction whose COMMIT the lost \
                                 connection cut had committed; its rows are not written again",
                                self.table
                            );
                            return Ok(());
                        }
                    }
                    // Still in progress on the server: look again.
                    Ok(None) => {
                        self.client = None;
                        continue;
                    }
                    Err(e) if connection_lost(&e) => {
                        self.client = None;
                        continue;
                    }
                    Err(e) => {
                        return Err(format!(
                            "jdbc sink {}: after a lost connection, could not learn whether {} \
                             rows were committed: {}",
                            self.table,
                            self.rows.len(),
                            describe(&e, &self.server)
                        ))
                    }
                }
            }
            let outcome = attempt(
                client,
                &self.rows,
                (self.per_statement, &mut self.statements),
                (&self.head, &self.tail, self.columns),
                self.key.is_none(),
            );
            match outcome {
                Ok(()) => return Ok(()),
                Err((e, xid)) if connection_lost(&e) => {
                    if lost_since.is_none() {
                        tracing::warn!(
                            "jdbc sink {}: the connection to {} is lost ({}); connecting again \
                             for up to {} s, {} rows waiting",
                            self.table,
                            self.server,
                            describe(&e, &self.server),
                            self.max_retry_timeout.as_secs(),
                            self.rows.len()
                        );
                    }
                    in_doubt = xid;
                    lost_since.get_or_insert_with(Instant::now);
                    self.client = None;
                }
                Err((e, _)) if transient(&e) && refusals < self.max_retries => {
                    refusals += 1;
                    self.stats.retries += 1;
                    tracing::warn!(
                        "jdbc sink {}: {} refused a batch ({}); retry {refusals} of {}",
                        self.table,
                        self.server,
                        describe(&e, &self.server),
                        self.max_retries
                    );
                    // As Flink's JDBC sink: one second more per retry.
                    std::thread::sleep(Duration::from_secs(u64::from(refusals)));
                }
                Err((e, _)) => {
                    return Err(format!(
                        "jdbc sink {}: writing {} rows failed: {}",
                        self.table,
                        self.rows.len(),
                        describe(&e, &self.server)
                    ))
                }
            }
        }
    }
}

/// Whether transaction `xid` committed (`None`: still in progress), by
/// PostgreSQL's `txid_status`.
fn commit_status(client: &mut Client, xid: i64) -> Result<Option<bool>, postgres::Error> {
    let status: Option<String> = client
        .query_one("SELECT txid_status($1)::text", &[&xid])?
        .get(0);
    Ok(match status.as_deref() {
        Some("committed") => Some(true),
        Some("in progress") => None,
        // Aborted, or too old to know (then it cannot be the one just sent).
        _ => Some(false),
    })
}

/// One try at writing `rows`: one transaction, a statement per
/// `per_statement` rows (prepared statements cached by their number of
/// rows). On an error, the id of the transaction when its COMMIT was what
/// failed (`track`: the id is read first, for an append, whose rows must
/// not be written twice).
fn attempt(
    client: &mut Client,
    rows: &[Vec<Option<String>>],
    (per_statement, statements): (usize, &mut HashMap<usize, Statement>),
    (head, tail, columns): (&str, &str, usize),
    track: bool,
) -> Result<(), (postgres::Error, Option<i64>)> {
    let plain = |e| (e, None);
    let mut tx = client.transaction().map_err(plain)?;
    for chunk in rows.chunks(per_statement) {
        let statement = match statements.get(&chunk.len()) {
            Some(s) => s.clone(),
            None => {
                let sql = statement_sql(head, tail, columns, chunk.len());
                let s = tx.prepare(&sql).map_err(plain)?;
                // Keep the full-size statement and a few remainders.
                if statements.len() < 16 {
                    statements.insert(chunk.len(), s.clone());
                }
                s
            }
        };
        let params: Vec<Text<'_>> = chunk
            .iter()
            .flat_map(|r| r.iter().map(|v| Text(v.as_deref())))
            .collect();
        let refs: Vec<&(dyn ToSql + Sync)> =
            params.iter().map(|p| p as &(dyn ToSql + Sync)).collect();
        tx.execute(&statement, &refs).map_err(plain)?;
    }
    let xid = match track {
        true => Some(
            tx.query_one("SELECT txid_current()", &[])
                .map_err(plain)?
                .get::<_, i64>(0),
        ),
        false => None,
    };
    tx.commit().map_err(|e| (e, xid))
}

/// `head` with `rows` rows of `columns` parameters, then `tail`.
fn statement_sql(head: &str, tail: &str, columns: usize, rows: usize) -> String {
    let mut sql = String::with_capacity(head.len() + tail.len() + rows * columns * 6);
    sql.push_str(head);
    let mut n = 0;
    for r in 0..rows {
        if r > 0 {
            sql.push_str(", ");
        }
        sql.push('(');
        for c in 0..columns {
            n += 1;
            if c > 0 {
                sql.push_str(", ");
            }
            sql.push('$');
            sql.push_str(&n.to_string());
        }
        sql.push(')');
    }
    sql.push_str(tail);
    sql
}

/// Whether `e` lost the connection (the server went away, or cut it):
/// closed, an I/O error, or a connection or shutdown SQLSTATE. Any other
/// error is the server's (or the client's) refusal.
fn connection_lost(e: &postgres::Error) -> bool {
    if e.is_closed() {
        return true;
    }
    match e.code() {
        Some(c) => {
            let c = c.code();
            c.starts_with("08") || ["57P01", "57P02", "57P03"].contains(&c)
        }
        None => std::error::Error::source(e).is_some_and(|s| s.is::<std::io::Error>()),
    }
}

/// Whether the server refused a batch for a reason that may pass: a
/// serialization failure or deadlock, a resource or lock shortage, a
/// cancelled statement, a standby that is read-only during a failover.
fn transient(e: &postgres::Error) -> bool {
    e.code().is_some_and(|c| {
        let c = c.code();
        c.starts_with("40") || c.starts_with("53") || ["55P03", "57014", "25006"].contains(&c)
    })
}

/// The server's words for `e`: its message, detail, hint and the column,
/// or the connection's failure.
pub fn describe(e: &postgres::Error, server: &str) -> String {
    match e.as_db_error() {
        Some(db) => {
            let mut s = format!(
                "{server} answered {} {}: {}",
                db.severity(),
                db.code().code(),
                db.message()
            );
            if let Some(c) = db.column() {
                s.push_str(&format!(" (column {c})"));
            }
            if let Some(d) = db.detail() {
                s.push_str(&format!("; {d}"));
            }
            if let Some(h) = db.hint() {
                s.push_str(&format!("; hint: {h}"));
            }
            s
        }
        None => {
            let mut s = format!("{server}: {e}");
            let mut source = std::error::Error::source(e);
            while let Some(cause) = source {
                let text = cause.to_string();
                if !s.contains(&text) {
                    s.push_str(&format!(": {text}"));
                }
                source = cause.source();
            }
            s
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statements_number_their_parameters() {
        assert_eq!(
            statement_sql(
                "INSERT INTO t (a, b) VALUES ",
                " ON CONFLICT (a) DO NOTHING",
                2,
                2
            ),
            "INSERT INTO t (a, b) VALUES ($1, $2), ($3, $4) ON CONFLICT (a) DO NOTHING"
        );
    }
}
