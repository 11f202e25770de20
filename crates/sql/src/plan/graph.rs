//! The job as a dataflow graph: operators (nodes) with input ports, and
//! the edges between them with how records are distributed.
//!
//! Today every INSERT is one path (source -> calc -> window aggregation ->
//! sink), and INSERTs reading one table share its source node, as the
//! runtime shares the source subtasks. The graph is what `explain` shows
//! and what decides how the exchange routes records to window subtasks;
//! operators with several inputs (joins) and operators over operators
//! (cascading windows) are new nodes and edges of the same graph.

use std::fmt::Write as _;

use lowwater_core::time::display_duration;
use lowwater_core::window::assigner::WindowAssigner;

use super::{JobPlan, OutputKind, Pipeline};

/// What an operator does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeKind {
    /// Reads a table's splits and generates their watermarks.
    Source {
        /// Table index.
        table: usize,
    },
    /// An INSERT's WHERE, group keys and aggregate arguments, evaluated per
    /// record, chained to the source (no exchange between them).
    Calc {
        /// Pipeline index.
        pipeline: usize,
    },
    /// An INSERT's window aggregation (with its HAVING and Top-N), or its
    /// window function rows without GROUP BY. Cascading windows have one
    /// per aggregation, each reading the rows of the one before.
    Window {
        /// Pipeline index.
        pipeline: usize,
        /// Which aggregation of the INSERT (0: the one reading the
        /// records; see [`Pipeline::stages`]).
        stage: usize,
    },
    /// An INSERT's event-time temporal join: port 0 the probe table's
    /// rows, port 1 the versioned table's, both hashed by the join key; its
    /// select list and WHERE are chained to it.
    TemporalJoin {
        /// Index in [`JobPlan::joins`].
        join: usize,
    },
    /// An INSERT's event-time interval join: port 0 the left table's rows,
    /// port 1 the right table's, both hashed by the join key.
    IntervalJoin {
        /// Index in [`JobPlan::intervals`].
        join: usize,
    },
    /// Writes a table.
    Sink {
        /// Table index.
        table: usize,
    },
}

/// How records cross an edge to the downstream operator's subtasks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Distribution {
    /// Subtask i to subtask i, in the same thread (chained).
    Forward,
    /// By a hash of these positions of the upstream's key: every record of
    /// a key (or of a Top-N partition) reaches the same subtask.
    Hash(Vec<usize>),
    /// Every record to one subtask (a global aggregate, a global Top-N).
    Single,
}

/// An operator of the graph.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    /// What it does.
    pub kind: NodeKind,
    /// Its number of input ports.
    pub ports: usize,
    /// Its subtasks.
    pub parallelism: usize,
}

/// An edge: `from`'s output into port `port` of `to`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edge {
    /// Upstream node index.
    pub from: usize,
    /// Downstream node index.
    pub to: usize,
    /// The downstream's input port.
    pub port: usize,
    /// How records are distributed.
    pub distribution: Distribution,
}

/// A job's graph.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Graph {
    /// The operators, sources first, then each INSERT's in order.
    pub nodes: Vec<Node>,
    /// The edges.
    pub edges: Vec<Edge>,
}

/// How the rows of aggregation `up` reach the aggregation `next` reading
/// them (cascading windows): forward (chained in the same subtask) when
/// `next` groups by `up`'s keys, in their order (a key's rows are in the
/// subtask of its hash already), else by `next`'s own keys.
pub fn chain_distribution(up: &Pipeline, next: &Pipeline) -> Distribution {
    let same_keys = up.rank.is_none()
        && next.rank.is_none()
        && up.keys.len() == next.keys.len()
        && next.keys.iter().enumerate().all(|(j, k)| {
            matches!(k, crate::expr::Expr::Column(c)
                if up.outputs.get(*c).is_some_and(|o| o.kind == OutputKind::Key(j)))
        });
    if same_keys {
        return Distribution::Forward;
    }
    window_distribution(next)
}

/// How pipeline `pl`'s records reach its window subtasks.
pub fn window_distribution(pl: &Pipeline) -> Distribution {
    let keys = match &pl.rank {
        // A Top-N partition's rows fire in one subtask.
        Some(rank) => rank.partition.clone(),
        None => (0..pl.keys.len()).collect(),
    };
    match keys.is_empty() {
        true => Distribution::Single,
        false => Distribution::Hash(keys),
    }
}

impl Graph {
    /// The graph of `plan`.
    pub fn of(plan: &JobPlan) -> Graph {
        let p = plan.settings.parallelism;
        let mut g = Graph {
            nodes: Vec::new(),
            edges: Vec::new(),
        };
        let mut source = vec![None; plan.tables.len()];
        let mut sink = vec![None; plan.tables.len()];
        let mut join_node = vec![None; plan.joins.len()];
        for (pi, pl) in plan.pipelines.iter().enumerate() {
            // A window over a temporal join reads the join's rows.
            let s = match (pl.first().join, pl.first().interval) {
                (Some(ji), _) => match join_node[ji] {
                    Some(n) => n,
                    None => {
                        let n = g.join(plan, ji, &mut source);
                        join_node[ji] = Some(n);
                        n
                    }
                },
                (None, Some(ii)) => g.interval(plan, ii, &mut source),
                (None, None) => *source[pl.source]
                    .get_or_insert_with(|| g.node(NodeKind::Source { table: pl.source }, 0, p)),
            };
            let calc = g.node(NodeKind::Calc { pipeline: pi }, 1, p);
            g.edge(s, calc, Distribution::Forward);
            let stages = pl.stages();
            let mut w = g.node(
                NodeKind::Window {
                    pipeline: pi,
                    stage: 0,
                },
                1,
                p,
            );
            g.edge(calc, w, window_distribution(stages[0]));
            for (i, pair) in stages.windows(2).enumerate() {
                let next = g.node(
                    NodeKind::Window {
                        pipeline: pi,
                        stage: i + 1,
                    },
                    1,
                    p,
                );
                g.edge(w, next, chain_distribution(pair[0], pair[1]));
                w = next;
            }
            let late = plan.tables[pl.source].late_data_sink;
            for t in std::iter::once(pl.sink).chain(late) {
                let k = *sink[t].get_or_insert_with(|| g.node(NodeKind::Sink { table: t }, 1, p));
                if !g.edges.iter().any(|e| e.from == w && e.to == k) {
                    g.edge(w, k, Distribution::Forward);
                }
            }
        }
        for (ji, j) in plan.joins.iter().enumerate() {
            if j.into.is_some() {
                continue;
            }
            let n = g.join(plan, ji, &mut source);
            let k =
                *sink[j.sink].get_or_insert_with(|| g.node(NodeKind::Sink { table: j.sink }, 1, p));
            g.edge(n, k, Distribution::Forward);
        }
        for (ii, j) in plan.intervals.iter().enumerate() {
            if j.into.is_some() {
                continue;
            }
            let n = g.interval(plan, ii, &mut source);
            let k =
                *sink[j.sink].get_or_insert_with(|| g.node(NodeKind::Sink { table: j.sink }, 1, p));
            g.edge(n, k, Distribution::Forward);
        }
        g
    }

    /// Interval join `ii`'s node, with its sides' sources (added when new)
    /// hashed by the join key into its two ports (one subtask without a
    /// key).
    fn interval(&mut self, plan: &JobPlan, ii: usize, source: &mut [Option<usize>]) -> usize {
        let p = plan.settings.parallelism;
        let j = &plan.intervals[ii];
        let mut side = |t: usize, g: &mut Graph| {
            *source[t].get_or_insert_with(|| g.node(NodeKind::Source { table: t }, 0, p))
        };
        let left = side(j.left, self);
        let right = side(j.right, self);
        let n = self.node(NodeKind::IntervalJoin { join: ii }, 2, p);
        let key: Vec<usize> = (0..j.left_key.len()).collect();
        let d = match key.is_empty() {
            true => Distribution::Single,
            false => Distribution::Hash(key),
        };
        self.edge(left, n, d.clone());
        self.edge(right, n, d);
        if let Some(e) = self.edges.last_mut() {
            e.port = 1;
        }
        n
    }

    /// Join `ji`'s node, with its sides' sources (added when new) hashed
    /// by the join key into its two ports.
    fn join(&mut self, plan: &JobPlan, ji: usize, source: &mut [Option<usize>]) -> usize {
        let p = plan.settings.parallelism;
        let j = &plan.joins[ji];
        let mut side = |t: usize, g: &mut Graph| {
            *source[t].get_or_insert_with(|| g.node(NodeKind::Source { table: t }, 0, p))
        };
        let probe = side(j.probe, self);
        let build = side(j.build, self);
        let n = self.node(NodeKind::TemporalJoin { join: ji }, 2, p);
        let key: Vec<usize> = (0..j.probe_key.len()).collect();
        self.edge(probe, n, Distribution::Hash(key.clone()));
        self.edge(build, n, Distribution::Hash(key));
        if let Some(e) = self.edges.last_mut() {
            e.port = 1;
        }
        n
    }

    fn node(&mut self, kind: NodeKind, ports: usize, parallelism: usize) -> usize {
        self.nodes.push(Node {
            kind,
            ports,
            parallelism,
        });
        self.nodes.len() - 1
    }

    fn edge(&mut self, from: usize, to: usize, distribution: Distribution) {
        self.edges.push(Edge {
            from,
            to,
            port: 0,
            distribution,
        });
    }

    /// The edges into node `n`, by port.
    pub fn inputs(&self, n: usize) -> Vec<&Edge> {
        let mut v: Vec<&Edge> = self.edges.iter().filter(|e| e.to == n).collect();
        v.sort_by_key(|e| e.port);
        v
    }

    /// Node `n`'s upstream nodes, walked to the sources (what the
    /// explanation of a stall at `n` follows), nearest first.
    pub fn upstream(&self, n: usize) -> Vec<usize> {
        let mut out = Vec::new();
        let mut todo = vec![n];
        while let Some(x) = todo.pop() {
            for e in self.inputs(x) {
                if !out.contains(&e.from) {
                    out.push(e.from);
                    todo.push(e.from);
                }
            }
        }
        out
    }

    /// The graph in words, one operator per line with its inputs.
    pub fn text(&self, plan: &JobPlan) -> String {
        let mut s = String::new();
        for (i, n) in self.nodes.iter().enumerate() {
            let _ = write!(s, "  [{}] {}", i + 1, describe(plan, n.kind));
            let _ = write!(s, ", parallelism {}", n.parallelism);
            let ins = self.inputs(i);
            if !ins.is_empty() {
                let from: Vec<String> = ins
                    .iter()
                    .map(|e| {
                        let d = match &e.distribution {
                            Distribution::Forward => "forward".to_string(),
                            Distribution::Single => "single subtask".to_string(),
                            Distribution::Hash(keys) => {
                                format!("hash({})", self.key_names(plan, e, keys).join(", "))
                            }
                        };
                        format!("port {} <- [{}] {d}", e.port, e.from + 1)
                    })
                    .collect();
                let _ = write!(s, "; {}", from.join("; "));
            }
            s.push('\n');
        }
        s
    }
}

fn describe(plan: &JobPlan, kind: NodeKind) -> String {
    match kind {
        NodeKind::Source { table } => format!("source {}", plan.tables[table].name),
        NodeKind::Calc { pipeline } => {
            let pl = plan.pipelines[pipeline].first();
            let mut parts = Vec::new();
            if pl.filter.is_some() {
                parts.push("WHERE");
            }
            parts.push("keys and arguments");
            format!("calc of INSERT {} ({})", pipeline + 1, parts.join(", "))
        }
        NodeKind::Window { pipeline, stage } => {
            let stages = plan.pipelines[pipeline].stages();
            let pl = stages[stage];
            let what = match (pl.project, pl.rank.is_some()) {
                (true, _) => "window rows",
                (false, true) => "window aggregate + Top-N",
                (false, false) => "window aggregate",
            };
            // A chained aggregation computes its WHERE, keys and arguments
            // from the rows of the one before.
            let over = match (stage, pl.filter.is_some()) {
                (0, _) => String::new(),
                (_, true) => " over the rows before (WHERE, keys and arguments)".to_string(),
                (_, false) => " over the rows before (keys and arguments)".to_string(),
            };
            format!(
                "{what} {}{over} of INSERT {}",
                assigner_text(&pl.window.assigner),
                pipeline + 1
            )
        }
        NodeKind::TemporalJoin { join } => {
            let j = &plan.joins[join];
            format!(
                "temporal join {} (line {}, {}): each row of {} with the version of {} valid at \
                 its rowtime, once both inputs' watermark passes it{}{}",
                join + 1,
                j.loc.line,
                if j.left { "LEFT" } else { "INNER" },
                plan.tables[j.probe].name,
                match &j.view {
                    Some(v) => format!(
                        "view {v} (last row per key of {})",
                        plan.tables[j.build].name
                    ),
                    None => plan.tables[j.build].name.clone(),
                },
                if j.residual.is_some() {
                    ", ON beyond the key"
                } else {
                    ""
                },
                if j.filter.is_some() { ", WHERE" } else { "" }
            )
        }
        NodeKind::IntervalJoin { join } => {
            let j = &plan.intervals[join];
            if let Some(w) = &j.window {
                return format!(
                    "window join {} (line {}, {}): {} with {} in the windows of {}; a window's \
                     rows are joined when the watermark reaches its last instant (its end less \
                     1 ms), a row for a window it reached is dropped as late; its watermark is \
                     its inputs'",
                    join + 1,
                    j.loc.line,
                    format!("{:?}", j.spec.kind).to_ascii_uppercase(),
                    plan.tables[j.left].name,
                    plan.tables[j.right].name,
                    crate::windows::window_text(&w.assigner)
                );
            }
            format!(
                "interval join {} (line {}, {}): {} with {} where {}.rowtime - {}.rowtime is \
                 in [{}, {}]; pairs at once, unmatched rows when the watermark passes their \
                 range; its watermark trails its inputs' by {}",
                join + 1,
                j.loc.line,
                format!("{:?}", j.spec.kind).to_ascii_uppercase(),
                plan.tables[j.left].name,
                plan.tables[j.right].name,
                plan.tables[j.left].name,
                plan.tables[j.right].name,
                display_duration(j.spec.lower),
                display_duration(j.spec.upper),
                display_duration(j.spec.lower.saturating_neg().max(j.spec.upper))
            )
        }
        NodeKind::Sink { table } => format!("sink {}", plan.tables[table].name),
    }
}

impl Graph {
    /// The names of key positions `keys` of edge `e`'s records (a calc's
    /// key is its INSERT's GROUP BY keys, a join's its ON equalities).
    fn key_names(&self, plan: &JobPlan, e: &Edge, keys: &[usize]) -> Vec<String> {
        if let Some(NodeKind::IntervalJoin { join }) = self.nodes.get(e.to).map(|n| n.kind) {
            let j = &plan.intervals[join];
            let (exprs, t) = match e.port {
                0 => (&j.left_key, j.left),
                _ => (&j.right_key, j.right),
            };
            return keys
                .iter()
                .map(|&k| match exprs.get(k) {
                    Some(crate::expr::Expr::Column(c)) => plan.tables[t].columns[*c].name.clone(),
                    _ => format!("key {}", k + 1),
                })
                .collect();
        }
        if let Some(NodeKind::TemporalJoin { join }) = self.nodes.get(e.to).map(|n| n.kind) {
            let j = &plan.joins[join];
            let (exprs, names): (_, Vec<String>) = match e.port {
                0 => (
                    &j.probe_key,
                    plan.tables[j.probe]
                        .columns
                        .iter()
                        .map(|c| c.name.clone())
                        .collect(),
                ),
                _ => (
                    &j.build_key,
                    j.build_names.iter().map(|c| c.0.clone()).collect(),
                ),
            };
            return keys
                .iter()
                .map(|&k| match exprs.get(k) {
                    Some(crate::expr::Expr::Column(c)) => names[*c].clone(),
                    _ => format!("key {}", k + 1),
                })
                .collect();
        }
        // The key of the aggregation the edge leads to.
        let pipeline = match self.nodes.get(e.to).map(|n| n.kind) {
            Some(NodeKind::Window { pipeline, stage }) => {
                plan.pipelines[pipeline].stages().get(stage).copied()
            }
            _ => None,
        };
        keys.iter()
            .map(|&k| {
                pipeline
                    .and_then(|pl| {
                        pl.outputs
                            .iter()
                            .find(|o| o.kind == OutputKind::Key(k))
                            .map(|o| o.name.clone())
                    })
                    .unwrap_or_else(|| format!("key {}", k + 1))
            })
            .collect()
    }
}

fn assigner_text(a: &WindowAssigner) -> String {
    let d = display_duration;
    match *a {
        WindowAssigner::Tumbling { size, .. } => format!("TUMBLE {}", d(size)),
        WindowAssigner::Hopping { size, slide, .. } => {
            format!("HOP {} every {}", d(size), d(slide))
        }
        WindowAssigner::Cumulate { step, max_size, .. } => {
            format!("CUMULATE {} up to {}", d(step), d(max_size))
        }
        WindowAssigner::Session { gap } => format!("SESSION gap {}", d(gap)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TABLES: &str = "
        CREATE TABLE events (user_id STRING, page STRING, ts TIMESTAMP(3),
          WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
          WITH ('connector' = 'kafka', 'topic' = 'events',
                'properties.bootstrap.servers' = 'localhost:9092', 'format' = 'json');
        CREATE TABLE per_page (page STRING, window_start TIMESTAMP(3), n BIGINT)
          WITH ('connector' = 'print');
        CREATE TABLE total (window_start TIMESTAMP(3), n BIGINT)
          WITH ('connector' = 'print');
    ";

    fn plan(inserts: &str) -> JobPlan {
        JobPlan::from_sql(&format!(
            "SET 'parallelism.default' = '2';\n{TABLES}{inserts}"
        ))
        .expect("the job plans")
    }

    #[test]
    fn two_inserts_of_one_table_share_its_source() {
        let p = plan(
            "INSERT INTO per_page SELECT page, window_start, COUNT(*) FROM
               TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
               WHERE page <> '' GROUP BY window_start, window_end, page;
             INSERT INTO total SELECT window_start, COUNT(*) FROM
               TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
               GROUP BY window_start, window_end;",
        );
        let g = Graph::of(&p);
        let sources = g
            .nodes
            .iter()
            .filter(|n| matches!(n.kind, NodeKind::Source { .. }))
            .count();
        assert_eq!(sources, 1);
        assert_eq!(g.nodes.len(), 7, "source, 2 x (calc, window, sink)");
        let windows: Vec<&Edge> = g
            .edges
            .iter()
            .filter(|e| matches!(g.nodes[e.to].kind, NodeKind::Window { .. }))
            .collect();
        assert_eq!(windows[0].distribution, Distribution::Hash(vec![0]));
        assert_eq!(windows[1].distribution, Distribution::Single);
        // The second window's upstream: its calc, then the shared source.
        let w2 = windows[1].to;
        assert_eq!(g.upstream(w2), vec![w2 - 1, 0]);
        let text = g.text(&p);
        assert!(text.contains("[1] source events, parallelism 2"), "{text}");
        assert!(
            text.contains("[2] calc of INSERT 1 (WHERE, keys and arguments), parallelism 2; port 0 <- [1] forward"),
            "{text}"
        );
        assert!(
            text.contains("[3] window aggregate TUMBLE 1m 0s of INSERT 1, parallelism 2; port 0 <- [2] hash(page)"),
            "{text}"
        );
        assert!(text.contains("<- [5] single subtask"), "{text}");
    }
}
