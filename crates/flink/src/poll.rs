//! Reading a Flink job over REST, cheaply: finding the job, learning once
//! which metrics exist and which subtask reads which partition (one metric
//! list per source subtask), then per poll one request for the job, one
//! aggregated metric request per source vertex (more only when its metric
//! names exceed Flink's 4096-byte request line, about a dozen partitions a
//! request) and one per vertex that writes a sink. The set of partitions is
//! looked at every poll while readers may still be registering theirs (a
//! subtask without a partition while partitions are left for it, or a count
//! that changed at the last look), then again every [`REDISCOVER_EVERY`]
//! polls (partitions added, a restart that moved them).

use std::collections::BTreeMap;

use crate::model::{self, Job, JobSummary, SplitQuantity};
use crate::rest::{encode, Rest, MAX_REQUEST_LINE};
use crate::watch::{Poll, SinkSample, SplitSample};
use crate::FlinkError;

/// Polls between two looks at which partitions exist.
pub const REDISCOVER_EVERY: u64 = 12;

/// Which job to watch: an id (32 hex digits) or a name (exact, or the one
/// running job whose name contains it).
pub fn find_job(rest: &Rest, selector: Option<&str>) -> Result<JobSummary, FlinkError> {
    let jobs = model::parse_overview(&rest.get("/jobs/overview")?, "/jobs/overview")?;
    let list = |jobs: &[JobSummary]| {
        if jobs.is_empty() {
            "none".to_string()
        } else {
            // The newest first, ten at most.
            let mut newest: Vec<&JobSummary> = jobs.iter().collect();
            newest.sort_by_key(|j| std::cmp::Reverse(j.start_time));
            let mut s = newest
                .iter()
                .take(10)
                .map(|j| format!("{} '{}' ({})", j.id, j.name, j.state))
                .collect::<Vec<_>>()
                .join(", ");
            if jobs.len() > 10 {
                s.push_str(&format!(" and {} more", jobs.len() - 10));
            }
            s
        }
    };
    let running: Vec<JobSummary> = jobs
        .iter()
        .filter(|j| j.state == "RUNNING")
        .cloned()
        .collect();
    let Some(sel) = selector else {
        return match running.as_slice() {
            [one] => Ok(one.clone()),
            [] => Err(FlinkError::User(format!(
                "no job is running on {}; its jobs: {}",
                rest.base(),
                list(&jobs)
            ))),
            many => Err(FlinkError::User(format!(
                "{} jobs are running on {}; say which with --job ID or --job NAME: {}",
                many.len(),
                rest.base(),
                list(many)
            ))),
        };
    };
    if let Some(j) = jobs.iter().find(|j| j.id == sel) {
        return Ok(j.clone());
    }
    // By name: SQL jobs are named after their sink, so a name repeats over
    // resubmissions; only a running job is chosen, and only if one matches.
    let exact: Vec<&JobSummary> = running.iter().filter(|j| j.name == sel).collect();
    let by_part: Vec<&JobSummary> = running.iter().filter(|j| j.name.contains(sel)).collect();
    let found = if exact.is_empty() { by_part } else { exact };
    match found.as_slice() {
        [one] => Ok((*one).clone()),
        [] => Err(FlinkError::User(format!(
            "no job '{sel}' on {} (by id, or by name among the running ones); its jobs: {}",
            rest.base(),
            list(&jobs)
        ))),
        many => Err(FlinkError::User(format!(
            "{} running jobs on {} match '{sel}'; say which with --job ID: {}",
            many.len(),
            rest.base(),
            list(&many.iter().map(|j| (*j).clone()).collect::<Vec<_>>())
        ))),
    }
}

/// What a poll of one source vertex asks for.
#[derive(Debug, Clone)]
struct SourceVertex {
    id: String,
    table: String,
    parallelism: usize,
    /// (topic, partition) -> subtask.
    owner: BTreeMap<(String, i32), usize>,
    /// `get=` lists, each short enough for one request.
    queries: Vec<String>,
}

/// What a poll of one sink vertex asks for.
#[derive(Debug, Clone)]
struct SinkVertex {
    id: String,
    late: Vec<String>,
    rows: Vec<String>,
    query: String,
}

/// A job's REST reader.
#[derive(Debug)]
pub struct Poller {
    rest: Rest,
    job_id: String,
    sources: Vec<SourceVertex>,
    sinks: Vec<SinkVertex>,
    polls: u64,
    last_requests: u64,
    last_state: Option<String>,
    /// Partitions known after the discovery before the last one: a count
    /// still changing means readers are still registering theirs.
    discovered: Option<usize>,
}

/// Whether source `s`'s readers may still be registering their partitions
/// (a reader registers a partition's metrics as it gets its split): no
/// metric yet, or fewer subtasks read a partition than there are
/// partitions for them to read.
fn registering(s: &SourceVertex) -> bool {
    let readers: std::collections::BTreeSet<usize> = s.owner.values().copied().collect();
    s.queries.is_empty() || readers.len() < s.parallelism.min(s.owner.len())
}

impl Poller {
    /// A reader of job `job_id`.
    pub fn new(rest: Rest, job_id: &str) -> Self {
        Poller {
            rest,
            job_id: job_id.to_string(),
            sources: Vec::new(),
            sinks: Vec::new(),
            polls: 0,
            last_requests: 0,
            last_state: None,
            discovered: None,
        }
    }

    /// REST requests the last poll made (its discovery included, when it
    /// looked again at which partitions exist).
    pub fn last_requests(&self) -> u64 {
        self.last_requests
    }

    /// The job as it is now.
    pub fn job(&self) -> Result<Job, FlinkError> {
        let path = format!("/jobs/{}", self.job_id);
        match self.rest.get(&path) {
            Err(FlinkError::Status { status: 404, .. }) => Err(FlinkError::User(format!(
                "Flink at {} has no job {} any more (the JobManager restarted without it, or its \
                 history expired); lowwater watch --flink {} lists the jobs it has",
                self.rest.base(),
                self.job_id,
                self.rest.base()
            ))),
            other => model::parse_job(&other?, &path),
        }
    }

    /// One poll: the job, then its vertices' metrics.
    pub fn poll(&mut self) -> Result<Poll, FlinkError> {
        let before = self.rest.requests();
        let poll = self.poll_inner();
        self.last_requests = self.rest.requests() - before;
        poll
    }

    fn poll_inner(&mut self) -> Result<Poll, FlinkError> {
        let job = self.job()?;
        // Running again after a restart, or rescaled: the partitions may
        // have moved to other subtasks; learn who reads which afresh.
        let back = self.last_state.as_deref().is_some_and(|s| s != "RUNNING")
            && job.summary.state == "RUNNING";
        let rescaled = self.sources.iter().any(|s| {
            job.vertices
                .iter()
                .find(|v| v.id == s.id)
                .is_none_or(|v| v.parallelism != s.parallelism)
        });
        if back || rescaled {
            self.sources.clear();
        }
        self.last_state = Some(job.summary.state.clone());
        // A job that just started registers its split metrics as readers
        // get their splits: look again until every source has some.
        let known = |sources: &[SourceVertex]| sources.iter().map(|s| s.owner.len()).sum();
        let incomplete = self.sources.is_empty()
            || self.sources.iter().any(registering)
            || self.discovered != Some(known(&self.sources));
        if self.polls.is_multiple_of(REDISCOVER_EVERY) || incomplete {
            let before = known(&self.sources);
            self.discover(&job)?;
            // Settled once a look finds what the one before found.
            self.discovered = Some(before);
        }
        self.polls += 1;
        let mut splits = Vec::new();
        for s in &self.sources {
            let mut values: BTreeMap<String, f64> = BTreeMap::new();
            for q in &s.queries {
                let path = format!(
                    "/jobs/{}/vertices/{}/subtasks/metrics?get={q}&agg=min",
                    self.job_id, s.id
                );
                values.extend(model::metric_values(&self.rest.get(&path)?, "min"));
            }
            splits.extend(samples(s, &values));
        }
        let mut sinks = Vec::new();
        for k in &self.sinks {
            let path = format!(
                "/jobs/{}/vertices/{}/subtasks/metrics?get={}&agg=min,sum",
                self.job_id, k.id, k.query
            );
            let v = self.rest.get(&path)?;
            let min: BTreeMap<String, f64> = model::metric_values(&v, "min").into_iter().collect();
            let sum: BTreeMap<String, f64> = model::metric_values(&v, "sum").into_iter().collect();
            let total = |ids: &[String]| ids.iter().filter_map(|i| sum.get(i)).sum::<f64>() as u64;
            sinks.push(SinkSample {
                vertex: k.id.clone(),
                watermark: min
                    .get("currentInputWatermark")
                    .map(|w| model::watermark_value(*w)),
                late_dropped: total(&k.late),
                // `dashboard[7]__Writer.numRecordsSend`: the sink's rows.
                rows: k
                    .rows
                    .iter()
                    .map(|id| {
                        let sink = id.split('[').next().unwrap_or(id).to_string();
                        (sink, sum.get(id).copied().unwrap_or(0.0) as u64)
                    })
                    .collect(),
            });
        }
        Ok(Poll { job, splits, sinks })
    }

    fn metric_list(&self, vertex: &str, subtask: Option<usize>) -> Result<Vec<String>, FlinkError> {
        let path = match subtask {
            Some(i) => format!(
                "/jobs/{}/vertices/{vertex}/subtasks/{i}/metrics",
                self.job_id
            ),
            None => format!("/jobs/{}/vertices/{vertex}/subtasks/metrics", self.job_id),
        };
        Ok(model::metric_ids(&self.rest.get(&path)?))
    }

    /// Learns the metric ids and who reads which partition. The per-subtask
    /// lists are read again only when the set of partitions changed.
    fn discover(&mut self, job: &Job) -> Result<(), FlinkError> {
        let mut sources = Vec::new();
        for v in &job.vertices {
            let Some(table) = v.kafka_table() else {
                continue;
            };
            let (ids, keys): (Vec<String>, Vec<(String, i32)>) = self
                .metric_list(&v.id, None)?
                .into_iter()
                .filter_map(|i| {
                    let m = model::split_metric(&i)?;
                    Some((i, (m.topic, m.partition)))
                })
                .unzip();
            let known = self.sources.iter().find(|s| s.id == v.id);
            let owner = match known {
                Some(s) if keys.iter().all(|k| s.owner.contains_key(k)) => s.owner.clone(),
                _ => {
                    let mut owner = BTreeMap::new();
                    for i in 0..v.parallelism {
                        for id in self.metric_list(&v.id, Some(i))? {
                            if let Some(m) = model::split_metric(&id) {
                                owner.insert((m.topic, m.partition), i);
                            }
                        }
                    }
                    owner
                }
            };
            sources.push(SourceVertex {
                id: v.id.clone(),
                table,
                parallelism: v.parallelism,
                owner,
                queries: chunks(
                    &ids,
                    &format!(
                        "/jobs/{}/vertices/{}/subtasks/metrics?get=&agg=min",
                        self.job_id, v.id
                    ),
                ),
            });
        }
        let mut sinks = Vec::new();
        for v in job
            .vertices
            .iter()
            .filter(|v| !v.sinks().is_empty() && !v.is_source())
        {
            let ids = self.metric_list(&v.id, None)?;
            let late: Vec<String> = ids
                .iter()
                .filter(|i| i.ends_with(".numLateRecordsDropped"))
                .cloned()
                .collect();
            let rows: Vec<String> = ids
                .iter()
                .filter(|i| i.ends_with("__Writer.numRecordsSend"))
                .cloned()
                .collect();
            let mut all = vec!["currentInputWatermark".to_string()];
            all.extend(late.iter().cloned());
            all.extend(rows.iter().cloned());
            sinks.push(SinkVertex {
                id: v.id.clone(),
                query: all.iter().map(|i| encode(i)).collect::<Vec<_>>().join(","),
                late,
                rows,
            });
        }
        self.sources = sources;
        self.sinks = sinks;
        Ok(())
    }
}

/// The ids as `get=` values, split so that no request line exceeds Flink's
/// limit (`base` is the rest of the request's path).
fn chunks(ids: &[String], base: &str) -> Vec<String> {
    // "GET " + path + " HTTP/1.1", and room for the host part of the URL.
    let room = MAX_REQUEST_LINE.saturating_sub(base.len() + 64);
    let mut out: Vec<String> = Vec::new();
    let mut cur = String::new();
    for id in ids {
        let e = encode(id);
        if !cur.is_empty() && cur.len() + 1 + e.len() > room {
            out.push(std::mem::take(&mut cur));
        }
        if !cur.is_empty() {
            cur.push(',');
        }
        cur.push_str(&e);
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

fn samples(s: &SourceVertex, values: &BTreeMap<String, f64>) -> Vec<SplitSample> {
    split_samples(&s.table, &s.owner, values)
}

/// A source vertex's metric values as one sample per partition; `owner`
/// says which subtask reads each (from the subtasks' metric lists).
pub fn split_samples(
    table: &str,
    owner: &BTreeMap<(String, i32), usize>,
    values: &BTreeMap<String, f64>,
) -> Vec<SplitSample> {
    let mut by: BTreeMap<(String, i32), SplitSample> = BTreeMap::new();
    for (id, v) in values {
        let Some(m) = model::split_metric(id) else {
            continue;
        };
        let key = (m.topic.clone(), m.partition);
        let subtask = owner.get(&key).copied().unwrap_or(0);
        let e = by.entry(key).or_insert_with(|| SplitSample {
            table: table.to_string(),
            topic: m.topic.clone(),
            partition: m.partition,
            subtask,
            watermark: None,
            idle_ms_per_s: None,
            offset: None,
        });
        match m.kind {
            SplitQuantity::Watermark => e.watermark = Some(model::watermark_value(*v)),
            SplitQuantity::IdleMsPerSecond => e.idle_ms_per_s = Some(*v),
            SplitQuantity::CurrentOffset => e.offset = Some(*v as i64),
        }
    }
    by.into_values().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vertex(parallelism: usize, owners: &[(i32, usize)]) -> SourceVertex {
        SourceVertex {
            id: "v".into(),
            table: "clickstream".into(),
            parallelism,
            owner: owners
                .iter()
                .map(|&(p, s)| (("clickstream".to_string(), p), s))
                .collect(),
            queries: vec!["ids".into()],
        }
    }

    /// Issue 37 item 9: a watch started while Flink's readers register
    /// their partitions kept the partial view for 12 polls (a minute).
    #[test]
    fn readers_still_registering_are_looked_at_again() {
        // 16 partitions, 8 readers: only readers 0-3 registered yet.
        let half: Vec<(i32, usize)> = (0..8).map(|p| (p, p as usize % 4)).collect();
        assert!(registering(&vertex(8, &half)));
        let all: Vec<(i32, usize)> = (0..16).map(|p| (p, p as usize % 8)).collect();
        assert!(!registering(&vertex(8, &all)));
        // More readers than partitions: the rest never register.
        assert!(!registering(&vertex(8, &[(0, 3), (1, 4)])));
        let mut none = vertex(2, &[]);
        none.queries.clear();
        assert!(registering(&none));
    }

    #[test]
    fn metric_queries_stay_under_the_request_line_limit() {
        let ids: Vec<String> = (0..64)
            .map(|p| format!("Source__KafkaSource-default_catalog_default_database_clickstream.split.clickstream-{p}.watermark.currentWatermark"))
            .collect();
        let base = "/jobs/cf8adc15dd93fead06bd4093bac330a9/vertices/cbc357ccb763df2852fee8c4fc7d55f2/subtasks/metrics?get=&agg=min";
        let q = chunks(&ids, base);
        assert!(q.len() >= 2, "64 long ids need more than one request");
        assert!(q
            .iter()
            .all(|c| base.len() + c.len() + 64 <= MAX_REQUEST_LINE));
        let back: Vec<&str> = q.iter().flat_map(|c| c.split(',')).collect();
        assert_eq!(back.len(), 64, "every id asked once");
    }
}
