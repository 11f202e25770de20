//! Flink's REST answers as lowwater's types, parsed without I/O: a job and
//! its vertices (which read Kafka, which write which sink, where the
//! windows are), and the metric ids of a Kafka source's splits (FLIP-513's
//! per-split watermark gauges, Flink >= 2.1, and the reader's offsets).
//! Every shape here was read off a real Flink 2.3 cluster; the tests use
//! answers recorded from it.

use lowwater_core::{Millis, Timestamp, MIN_WATERMARK};
use sonic_rs::{JsonContainerTrait, JsonValueTrait, Value};

use crate::FlinkError;

/// A job of `/jobs/overview`.
#[derive(Debug, Clone, PartialEq)]
pub struct JobSummary {
    /// Job id (32 hex digits).
    pub id: String,
    /// Its name (`insert-into_default_catalog.default_database.dashboard`
    /// for a SQL INSERT).
    pub name: String,
    /// RUNNING, FINISHED, FAILED, CANCELED, ...
    pub state: String,
    /// Start time, epoch ms.
    pub start_time: Timestamp,
}

/// A vertex (a chain of operators run as one task) of a job.
#[derive(Debug, Clone, PartialEq)]
pub struct Vertex {
    /// Vertex id.
    pub id: String,
    /// Its name: the operators of the chain, `->` between them.
    pub name: String,
    /// Subtasks.
    pub parallelism: usize,
    /// The vertices it reads from.
    pub inputs: Vec<String>,
    /// The plan's description of its operators (window sizes are there).
    pub description: String,
}

impl Vertex {
    /// The table a `Source: KafkaSource-<catalog>.<db>.<table>` vertex
    /// reads, or `None` for a vertex that is no Kafka source.
    pub fn kafka_table(&self) -> Option<String> {
        let first = self.name.split(" -> ").next()?;
        let rest = first.strip_prefix("Source: KafkaSource-")?;
        Some(rest.rsplit('.').next().unwrap_or(rest).to_string())
    }

    /// Whether it is a source (of any connector).
    pub fn is_source(&self) -> bool {
        self.name.starts_with("Source: ")
    }

    /// The sink tables it writes (`<table>[7]: Writer`, or `Sink: <table>`).
    pub fn sinks(&self) -> Vec<String> {
        let mut out = Vec::new();
        for op in self.name.split(" -> ") {
            let name = if let Some(w) = op.strip_suffix(": Writer") {
                w
            } else if let Some(s) = op.strip_prefix("Sink: ") {
                s
            } else {
                continue;
            };
            let name = name.split('[').next().unwrap_or(name).trim();
            let name = name.rsplit('.').next().unwrap_or(name).to_string();
            if !out.contains(&name) {
                out.push(name);
            }
        }
        out
    }

    /// The largest window size of its operators (`size=[10 s]`), if any.
    pub fn window_size(&self) -> Option<Millis> {
        let mut best = None;
        let mut rest = self.description.as_str();
        while let Some(i) = rest.find("size=[") {
            rest = &rest[i + 6..];
            let Some(end) = rest.find(']') else { break };
            if let Ok(d) = lowwater_sql::types::parse_duration(&rest[..end]) {
                best = best.max(Some(d));
            }
        }
        best
    }
}

/// A job as `/jobs/:id` describes it.
#[derive(Debug, Clone, PartialEq)]
pub struct Job {
    /// Id, name, state, start.
    pub summary: JobSummary,
    /// Its vertices, in the job's order (sources first).
    pub vertices: Vec<Vertex>,
}

fn str_of(v: &Value, key: &str) -> String {
    v.get(key)
        .and_then(|x| x.as_str())
        .unwrap_or("")
        .to_string()
}

fn num_of(v: &Value, key: &str) -> i64 {
    v.get(key)
        .and_then(|x| x.as_i64().or_else(|| x.as_f64().map(|f| f as i64)))
        .unwrap_or(0)
}

fn protocol(url: &str, message: impl Into<String>) -> FlinkError {
    FlinkError::Protocol {
        url: url.to_string(),
        message: message.into(),
    }
}

/// `/jobs/overview`.
pub fn parse_overview(v: &Value, url: &str) -> Result<Vec<JobSummary>, FlinkError> {
    let jobs = v
        .get("jobs")
        .and_then(|j| j.as_array())
        .ok_or_else(|| protocol(url, "no \"jobs\" list"))?;
    Ok(jobs
        .iter()
        .map(|j| JobSummary {
            id: str_of(j, "jid"),
            name: str_of(j, "name"),
            state: str_of(j, "state"),
            start_time: num_of(j, "start-time"),
        })
        .collect())
}

/// `/jobs/:id`.
pub fn parse_job(v: &Value, url: &str) -> Result<Job, FlinkError> {
    let vertices = v
        .get("vertices")
        .and_then(|x| x.as_array())
        .ok_or_else(|| protocol(url, "no \"vertices\" list"))?;
    let nodes: Vec<&Value> = v
        .get("plan")
        .and_then(|p| p.get("nodes"))
        .and_then(|n| n.as_array())
        .map(|a| a.iter().collect())
        .unwrap_or_default();
    let node = |id: &str| nodes.iter().find(|n| str_of(n, "id") == id).copied();
    let vertices = vertices
        .iter()
        .map(|x| {
            let id = str_of(x, "id");
            let n = node(&id);
            Vertex {
                inputs: n
                    .and_then(|n| n.get("inputs"))
                    .and_then(|i| i.as_array())
                    .map(|a| a.iter().map(|i| str_of(i, "id")).collect())
                    .unwrap_or_default(),
                description: n.map(|n| str_of(n, "description")).unwrap_or_default(),
                name: str_of(x, "name"),
                parallelism: num_of(x, "parallelism").max(1) as usize,
                id,
            }
        })
        .collect();
    Ok(Job {
        summary: JobSummary {
            id: str_of(v, "jid"),
            name: str_of(v, "name"),
            state: str_of(v, "state"),
            start_time: num_of(v, "start-time"),
        },
        vertices,
    })
}

/// A metric value as Flink's REST API gives it: a string for one subtask
/// (`"-9223372036854775808"`), a JSON number (a double) in aggregates.
/// Watermarks are whole milliseconds; a double of Long.MIN_VALUE comes back
/// as -9.223372036854776e18, which saturates to MIN.
pub fn metric_value(v: &Value) -> Option<f64> {
    if let Some(s) = v.as_str() {
        return s.parse::<f64>().ok();
    }
    v.as_i64().map(|n| n as f64).or_else(|| v.as_f64())
}

/// A watermark metric as a timestamp.
pub fn watermark_value(v: f64) -> Timestamp {
    if v <= MIN_WATERMARK as f64 {
        MIN_WATERMARK
    } else {
        v as Timestamp
    }
}

/// What one metric id of a Kafka source says about one partition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SplitMetric {
    /// The topic.
    pub topic: String,
    /// The partition.
    pub partition: i32,
    /// Which quantity.
    pub kind: SplitQuantity,
}

/// The per-partition quantities lowwater reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SplitQuantity {
    /// `split.<topic>-<p>.watermark.currentWatermark` (FLIP-513).
    Watermark,
    /// `split.<topic>-<p>.watermark.idleTimeMsPerSecond` (FLIP-513).
    IdleMsPerSecond,
    /// `KafkaSourceReader.topic.<topic>.partition.<p>.currentOffset`: the
    /// offset of the last record read, -1 before the first.
    CurrentOffset,
}

/// Reads a metric id of a source subtask: `<operator>.split.<topic>-<p>.
/// watermark.currentWatermark` and the like, or `<operator>.
/// KafkaSourceReader.topic.<topic>.partition.<p>.currentOffset`. Topics may
/// hold `.` and `-`: the partition is the last number.
pub fn split_metric(id: &str) -> Option<SplitMetric> {
    if let Some(i) = id.find(".split.") {
        let rest = &id[i + 7..];
        let (split, q) = rest.rsplit_once(".watermark.")?;
        let kind = match q {
            "currentWatermark" => SplitQuantity::Watermark,
            "idleTimeMsPerSecond" => SplitQuantity::IdleMsPerSecond,
            _ => return None,
        };
        let (topic, p) = split.rsplit_once('-')?;
        return Some(SplitMetric {
            topic: topic.to_string(),
            partition: p.parse().ok()?,
            kind,
        });
    }
    let i = id.find(".KafkaSourceReader.topic.")?;
    let rest = &id[i + 25..];
    let rest = rest.strip_suffix(".currentOffset")?;
    let (topic, p) = rest.rsplit_once(".partition.")?;
    Some(SplitMetric {
        topic: topic.to_string(),
        partition: p.parse().ok()?,
        kind: SplitQuantity::CurrentOffset,
    })
}

/// The ids of a metric list answer (`[{"id": ...}, ...]`).
pub fn metric_ids(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| a.iter().map(|m| str_of(m, "id")).collect())
        .unwrap_or_default()
}

/// `(id, value)` of a metric answer: `value` for one subtask, `min` (or
/// `sum`, or `max`) of an aggregate, in the order asked for.
pub fn metric_values(v: &Value, field: &str) -> Vec<(String, f64)> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|m| Some((str_of(m, "id"), metric_value(m.get(field)?)?)))
                .collect()
        })
        .unwrap_or_default()
}
