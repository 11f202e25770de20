//! What may change between the job that took a checkpoint and the job that
//! restores it.
//!
//! A checkpoint stores the job's identity (`crate::identity::identity`): a
//! line per part of the job its state depends on. Some of what a source
//! table's line says holds no state, though: the watermark delay (the state
//! is keyed by window, not by delay), the idle timeout, the periodic
//! watermark interval and the emission strategy. Flink restores a savepoint
//! across all of them, and the fix the stall warning itself proposes (an idle
//! timeout) must not cost the open windows. So a restore compares a source's
//! line without them: when only they changed, the job restores, takes the new
//! settings (`SourceSubtask::reconfigure`) and says in words what changed
//! and what follows from it. Anything else that changed still refuses the
//! checkpoint, named part by part in words.
//!
//! The line's text is the one lowwater has always written (checkpoints of an
//! earlier version restore unchanged): `topics [..], watermark
//! Some(WatermarkStrategy { expr: SqlDelay { delay: 5000 }, idle_timeout:
//! None, emit_interval: 200[, emit: OnEvent { gap: 1 }] })[, files [..]]`.

use crate::identity::IN_SQL;
use lowwater_core::checkpoint::{Difference, JobIdentity};
use lowwater_core::time::display_duration;

/// The comparison of a checkpoint's identity with the job's.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Comparison {
    /// Changes that refuse the checkpoint, one line each, in words.
    pub refused: Vec<String>,
    /// Changes of settings without state, restored across, in words.
    pub free: Vec<String>,
    /// `parallelism.default` changed (was, now): the state is regrouped
    /// (`crate::rescale`).
    pub rescale: Option<(String, String)>,
}

/// What a source line says, split: the part its state depends on, and the
/// settings without state.
#[derive(Debug, PartialEq, Eq)]
struct SourceLine {
    stateful: String,
    delay: Option<i64>,
    idle: String,
    interval: String,
    emit: String,
}

fn between<'a>(text: &'a str, from: &str, to: &str) -> Option<(&'a str, &'a str, &'a str)> {
    let (head, rest) = text.split_once(from)?;
    let (mid, tail) = rest.split_once(to)?;
    Some((head, mid, tail))
}

fn source_line(text: &str) -> Option<SourceLine> {
    const OPEN: &str = "WatermarkStrategy {";
    let at = text.find(OPEN)?;
    let (head, body) = (&text[..at], &text[at + OPEN.len()..]);
    // The strategy's fields, split at the commas outside braces, up to its
    // closing brace.
    let (mut fields, mut depth, mut from, mut end) = (Vec::new(), 0i32, 0, None);
    for (i, c) in body.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => {
                fields.push(body[from..i].trim());
                end = Some(i + 1);
                break;
            }
            '}' => depth -= 1,
            ',' if depth == 0 => {
                fields.push(body[from..i].trim());
                from = i + 1;
            }
            _ => {}
        }
    }
    let tail = &body[end?..];
    let field = |name: &str| fields.iter().find_map(|f| f.strip_prefix(name));
    let expr = field("expr: ")?;
    let kind = expr.split(' ').next()?;
    let delay = between(expr, "delay: ", " }").and_then(|(_, d, _)| d.parse().ok());
    Some(SourceLine {
        stateful: format!("{head}{kind}{tail}"),
        delay,
        idle: field("idle_timeout: ")?.to_string(),
        interval: field("emit_interval: ")?.to_string(),
        emit: field("emit: ").unwrap_or("Periodic").to_string(),
    })
}

/// `None` / `Some(10000)` as the SQL setting would say it.
fn idle_words(text: &str) -> String {
    match text
        .strip_prefix("Some(")
        .and_then(|t| t.strip_suffix(')'))
        .and_then(|t| t.parse::<i64>().ok())
    {
        Some(ms) if ms > 0 => display_duration(ms),
        _ => "disabled".to_string(),
    }
}

/// `Periodic` / `OnEvent { gap: 3 }` as the table options say them.
fn emit_words(text: &str) -> String {
    match between(text, "gap: ", " }") {
        Some((_, "1", _)) => "'on-event'".to_string(),
        Some((_, gap, _)) => format!("'on-event' every {gap} records"),
        None => "'on-periodic'".to_string(),
    }
}

fn interval_words(text: &str) -> String {
    match text.parse::<i64>() {
        Ok(0) => "0 (no periodic watermarks)".to_string(),
        Ok(ms) => display_duration(ms),
        Err(_) => text.to_string(),
    }
}

/// The free changes of source `name` from `then` to `now`, in words.
fn free_changes(name: &str, then: &SourceLine, now: &SourceLine) -> Vec<String> {
    let table = name
        .split_once("(table ")
        .and_then(|(_, t)| t.strip_suffix(')'))
        .unwrap_or(name);
    let mut out = Vec::new();
    if then.idle != now.idle {
        out.push(format!(
            "table {table}: table.exec.source.idle-timeout was {}, now {}",
            idle_words(&then.idle),
            idle_words(&now.idle)
        ));
    }
    if then.interval != now.interval {
        out.push(format!(
            "pipeline.auto-watermark-interval (table {table}) was {}, now {}",
            interval_words(&then.interval),
            interval_words(&now.interval)
        ));
    }
    if then.emit != now.emit {
        out.push(format!(
            "table {table}: scan.watermark.emit.strategy was {}, now {}",
            emit_words(&then.emit),
            emit_words(&now.emit)
        ));
    }
    if then.delay != now.delay {
        let (was, is) = (then.delay.unwrap_or(0), now.delay.unwrap_or(0));
        let consequence = if is < was {
            format!(
                "the restored watermark stays where it is; from the next records on it trails \
                 event time by {} less, so records up to {} later than before count as late",
                display_duration(was - is),
                display_duration(was - is)
            )
        } else {
            "the restored watermark stays where it is (it never goes back) until event time \
             passes it by the new delay; windows fire that much later"
                .to_string()
        };
        out.push(format!(
            "table {table}: watermark delay was {}, now {}: {consequence}",
            display_duration(was),
            display_duration(is)
        ));
    }
    out
}

/// An INSERT's clauses that changed, as written (`Pipeline::words`, a line
/// per clause: `window ...`, `select ...`, `WHERE ...`, `GROUP BY ...`,
/// `HAVING ...`).
fn sql_change(name: &str, then: &str, now: &str) -> String {
    let clause = |line: &str| -> (String, String) {
        let (head, rest) = match line.split_once(' ') {
            Some((h, r)) => (h.to_string(), r.to_string()),
            None => (line.to_string(), String::new()),
        };
        // `GROUP BY x`: the clause is two words.
        match (head.as_str(), rest.strip_prefix("BY ")) {
            ("GROUP", Some(r)) => ("GROUP BY".to_string(), r.to_string()),
            _ => (head, rest),
        }
    };
    let a: Vec<(String, String)> = then.lines().map(clause).collect();
    let b: Vec<(String, String)> = now.lines().map(clause).collect();
    let mut what = Vec::new();
    for (k, was) in &a {
        match b.iter().find(|(k2, _)| k2 == k) {
            Some((_, is)) if is != was => what.push(format!("{k}: was {was}, now {is}")),
            Some(_) => {}
            None => what.push(format!("{k}: was {was}, now none")),
        }
    }
    for (k, is) in &b {
        if !a.iter().any(|(k2, _)| k2 == k) {
            what.push(format!("{k}: was none, now {is}"));
        }
    }
    format!("{name}: {}", what.join("; "))
}

/// The parts of an INSERT's line that changed, named.
fn insert_change(name: &str, then: &str, now: &str) -> String {
    let sections = |t: &str| -> Vec<(String, String)> {
        t.split("; ")
            .map(|s| match s.split_once(' ') {
                Some((k, v)) => (k.to_string(), v.to_string()),
                None => (s.to_string(), String::new()),
            })
            .collect()
    };
    let (a, b) = (sections(then), sections(now));
    let what: Vec<String> = a
        .iter()
        .zip(&b)
        .filter(|(x, y)| x != y)
        .map(|(x, y)| {
            let label = match x.0.as_str() {
                "window" => "its window or aggregates",
                "keys" => "its GROUP BY keys",
                "WHERE" => "its WHERE",
                "aggregate" => "its aggregate arguments",
                "FROM" => "its source table",
                "rank" => "its ranking",
                other => other,
            };
            format!("{label} (was {}, now {})", x.1, y.1)
        })
        .collect();
    if what.is_empty() || a.len() != b.len() {
        return format!("{name} changed: was {then}, now {now}");
    }
    format!("{name}: {}", what.join("; "))
}

/// Compares the identity `now` of the job with `stored`, a checkpoint's.
pub(crate) fn compare(now: &JobIdentity, stored: &JobIdentity) -> Comparison {
    let mut c = Comparison::default();
    let words = |id: &JobIdentity, name: &str| {
        let key = format!("{name}{IN_SQL}");
        id.parts()
            .find(|(n, _)| *n == key)
            .map(|(_, v)| v.to_string())
    };
    let identities = (stored, now);
    for Difference { name, was, now } in now.differences(stored) {
        if name.ends_with(IN_SQL) {
            continue;
        }
        let (then, is) = match (was, now) {
            (Some(then), Some(is)) => (then, is),
            (Some(_), None) => {
                c.refused.push(format!("{name} is no longer in the job"));
                continue;
            }
            (None, _) => {
                c.refused
                    .push(format!("{name} is new (not in the checkpoint)"));
                continue;
            }
        };
        if name == "parallelism.default" {
            c.rescale = Some((then.to_string(), is.to_string()));
            continue;
        }
        match (source_line(then), source_line(is)) {
            (Some(a), Some(b)) if a.stateful == b.stateful => {
                c.free.extend(free_changes(name, &a, &b));
            }
            _ if name.starts_with("INSERT ") => {
                let sql = words(identities.0, name).zip(words(identities.1, name));
                c.refused.push(match sql {
                    Some((a, b)) if a != b => sql_change(name, &a, &b),
                    _ => insert_change(name, then, is),
                })
            }
            (Some(a), Some(b)) if name.starts_with("source ") => c.refused.push(format!(
                "{name}: its topics or files were {}, now {} (each partition's state is read \
                 from its own, so they cannot change under a checkpoint)",
                a.stateful
                    .split(", watermark")
                    .next()
                    .unwrap_or(&a.stateful),
                b.stateful
                    .split(", watermark")
                    .next()
                    .unwrap_or(&b.stateful)
            )),
            _ => c
                .refused
                .push(format!("{name} changed: was {then}, now {is}")),
        }
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(idle: &str, interval: i64, delay: i64, emit: &str) -> String {
        format!(
            "topics [\"clicks\"], watermark Some(WatermarkStrategy {{ expr: SqlDelay {{ delay: \
             {delay} }}, idle_timeout: {idle}, emit_interval: {interval}{emit} }})"
        )
    }

    /// Issue 34: adding the idle timeout the stall warning proposes refused
    /// the checkpoint with a Rust Debug dump.
    #[test]
    fn settings_without_state_restore_and_are_said_in_words() {
        let then = JobIdentity::new()
            .with("parallelism.default", "8")
            .with("source 1 (table clicks)", line("None", 200, 5000, ""));
        let now = JobIdentity::new().with("parallelism.default", "8").with(
            "source 1 (table clicks)",
            line("Some(10000)", 100, 2000, ", emit: OnEvent { gap: 1 }"),
        );
        let c = compare(&now, &then);
        assert_eq!(c.refused, Vec::<String>::new());
        assert_eq!(
            c.free,
            vec![
                "table clicks: table.exec.source.idle-timeout was disabled, now 10s".to_string(),
                "pipeline.auto-watermark-interval (table clicks) was 200ms, now 100ms".to_string(),
                "table clicks: scan.watermark.emit.strategy was 'on-periodic', now 'on-event'"
                    .to_string(),
                "table clicks: watermark delay was 5s, now 2s: the restored watermark stays where \
                 it is; from the next records on it trails event time by 3s less, so records up \
                 to 3s later than before count as late"
                    .to_string(),
            ]
        );
        assert_eq!(compare(&then, &then), Comparison::default());
    }

    #[test]
    fn what_holds_state_still_refuses_and_is_named() {
        let then = JobIdentity::new()
            .with("source 1 (table clicks)", line("None", 200, 5000, ""))
            .with(
                "INSERT 1 INTO d",
                "FROM clicks; window W1; keys [K]; WHERE None; aggregate arguments []",
            );
        let now = JobIdentity::new()
            .with(
                "source 1 (table clicks)",
                line("None", 200, 5000, "").replace("clicks\"]", "clicks\", \"more\"]"),
            )
            .with(
                "INSERT 1 INTO d",
                "FROM clicks; window W2; keys [K]; WHERE None; aggregate arguments []",
            );
        let c = compare(&now, &then);
        assert_eq!(c.free, Vec::<String>::new());
        assert_eq!(c.refused.len(), 2, "{:?}", c.refused);
        assert_eq!(
            c.refused[0],
            "INSERT 1 INTO d: its window or aggregates (was W1, now W2)"
        );
        assert_eq!(
            c.refused[1],
            "source 1 (table clicks): its topics or files were topics [\"clicks\"], now topics \
             [\"clicks\", \"more\"] (each partition's state is read from its own, so they \
             cannot change under a checkpoint)"
        );
    }

    /// The job of issue 34's trial, as a user would change it.
    fn job(parallelism: u32, select: &str, filter: &str, group: &str, size: &str) -> String {
        format!(
            "SET 'parallelism.default' = '{parallelism}';
CREATE TABLE clicks (user_id STRING, url STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
WITH ('connector' = 'kafka', 'topic' = 'clicks', 'properties.bootstrap.servers' = 'b:9092',
      'format' = 'json');
CREATE TABLE dash (window_start TIMESTAMP(3), window_end TIMESTAMP(3), user_id STRING,
  clicks BIGINT, users BIGINT)
WITH ('connector' = 'print');
INSERT INTO dash (window_start, window_end, user_id, clicks{users}) SELECT window_start, window_end, {select}
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '{size}' MINUTE)){filter}
GROUP BY window_start, window_end{group};
",
            users = if select.contains("users") { ", users" } else { "" }
        )
    }

    fn refused(then: &str, now: &str) -> Vec<String> {
        let plan = |sql: &str| lowwater_sql::plan::JobPlan::from_sql(sql).expect("plans");
        let (a, b) = (plan(then), plan(now));
        let c = compare(
            &crate::identity::identity(&b),
            &crate::identity::identity(&a),
        );
        c.refused
    }

    /// Issue 34 item 4: every refusal names the change in SQL words (it
    /// was the plan's Debug text), and a parallelism change is a rescale,
    /// not a refusal.
    #[test]
    fn refusals_name_the_change_in_sql_golden_text() {
        let base = job(8, "user_id, COUNT(*) AS clicks", "", ", user_id", "1");
        assert_eq!(
            refused(
                &base,
                &job(
                    8,
                    "user_id, COUNT(*) AS clicks, COUNT(DISTINCT user_id) AS users",
                    "",
                    ", user_id",
                    "1"
                )
            ),
            vec![
                "INSERT 1 INTO dash: select: was window_start, window_end, user_id, COUNT(*) AS \
                  clicks, now window_start, window_end, user_id, COUNT(*) AS clicks, \
                  COUNT(DISTINCT user_id) AS users"
                    .to_string()
            ]
        );
        assert_eq!(
            refused(
                &base,
                &job(
                    8,
                    "user_id, COUNT(*) AS clicks",
                    " WHERE url <> '/health'",
                    ", user_id",
                    "1"
                )
            ),
            vec!["INSERT 1 INTO dash: WHERE: was none, now url <> '/health'".to_string()]
        );
        assert_eq!(
            refused(
                &base,
                &job(8, "user_id, COUNT(*) AS clicks", "", ", user_id", "5")
            ),
            vec![
                "INSERT 1 INTO dash: window: was TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL \
                  '1' MINUTE), now TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '5' MINUTE)"
                    .to_string()
            ]
        );
        assert_eq!(
            refused(
                &base,
                &job(8, "url AS user_id, COUNT(*) AS clicks", "", ", url", "1")
            ),
            vec![
                "INSERT 1 INTO dash: select: was window_start, window_end, user_id, COUNT(*) AS \
                  clicks, now window_start, window_end, url AS user_id, COUNT(*) AS clicks; \
                  GROUP BY: was window_start, window_end, user_id, now window_start, \
                  window_end, url"
                    .to_string()
            ]
        );
        let plan = |sql: &str| lowwater_sql::plan::JobPlan::from_sql(sql).expect("plans");
        let rescaled = compare(
            &crate::identity::identity(&plan(&job(
                4,
                "user_id, COUNT(*) AS clicks",
                "",
                ", user_id",
                "1",
            ))),
            &crate::identity::identity(&plan(&base)),
        );
        assert!(rescaled.refused.is_empty(), "{:?}", rescaled.refused);
        assert_eq!(rescaled.rescale, Some(("8".to_string(), "4".to_string())));
    }
}
