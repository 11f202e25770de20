//! The window aggregation as a node of a job's graph: its input gate, its
//! operator and the guard on its open states, driven alike by the replay's
//! virtual-time stepper and by a live window task.
//!
//! What a driver still does itself is what differs between them: where
//! records come from (a replay's decoded record, a live batch from the
//! exchange), where rows go (a replay's sink output, a live sink writer)
//! and the time (`now` is handed in).

use crate::error::Result;
use crate::source::SplitId;
use crate::time::{Millis, Timestamp};
use crate::value::Value;
use crate::watermark::valve::ChannelValve;
use crate::watermark::Progress;
use crate::window::batch::InputRef;
use crate::window::limit::{OpenStateGuard, Verdict};
use crate::window::operator::{WindowOperator, WindowOutput, WindowResult, WindowSpec};

use super::gate::InputGate;

/// How often (in records) the open (window, key) states are counted
/// against `lowwater.state.max-open-windows`.
pub const OPEN_CHECK_EVERY: u32 = 4_096;

/// The split a chained aggregation's input is counted under (its rows come
/// from the aggregation before it, not from a split).
pub const CHAINED_SPLIT: SplitId = SplitId::MAX;

/// Cascading windows: how a result of one window aggregation becomes the
/// input of the next, chained in the same node (the plan's expressions:
/// the result row, the next one's WHERE, keys and aggregate arguments).
pub trait Link {
    /// The input of the aggregation after aggregation `stage` (0: the
    /// node's first) from its result `r`: the key into `key` and the
    /// aggregate arguments into `args` (both emptied first). `Ok(false)`:
    /// the row is filtered out. Its event time is `r`'s window_time.
    fn input(
        &self,
        stage: usize,
        r: &WindowResult,
        key: &mut Vec<Value>,
        args: &mut Vec<Value>,
    ) -> std::result::Result<bool, String>;
}

/// A node without chained aggregations links nothing.
pub struct Unlinked;

impl Link for Unlinked {
    fn input(
        &self,
        stage: usize,
        _: &WindowResult,
        _: &mut Vec<Value>,
        _: &mut Vec<Value>,
    ) -> std::result::Result<bool, String> {
        Err(format!(
            "no window aggregation is chained after stage {stage}"
        ))
    }
}

/// What counting the open states decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpenCheck {
    /// Nothing to do (within the limit, or over it while catching up).
    Within,
    /// Over 80% of the limit.
    Near,
    /// Over the limit while the watermark stood still: this node's oldest
    /// windows fired early (`lowwater.state.on-limit` = 'fire-oldest'),
    /// this many rows.
    FiredEarly(usize),
    /// Over the limit while the watermark stood still: the job stops.
    Over {
        /// How long the watermark has stood still (`None`: never moved).
        still_for: Option<Millis>,
    },
}

/// A window aggregation node of one subtask: its first aggregation reads
/// the gate's input; with cascading windows, each chained one reads the
/// results of the one before (through a [`Link`]), fired by the same
/// watermark, before that watermark reaches it. A chain needs no exchange
/// when every aggregation of it keys by the same columns, or runs in one
/// subtask; its watermark is the first one's.
#[derive(Debug, Clone)]
pub struct WindowNode {
    gate: InputGate,
    op: WindowOperator,
    guard: OpenStateGuard,
    since_check: u32,
    chain: Vec<WindowOperator>,
    /// A chained input's key and arguments (reused).
    key: Vec<Value>,
    args: Vec<Value>,
}

impl WindowNode {
    /// A node computing `spec` over `channels` input channels, guarding
    /// `limit` open states with `grace` (see [`OpenStateGuard`]).
    pub fn new(spec: WindowSpec, channels: usize, limit: u64, grace: Millis) -> Result<Self> {
        Ok(WindowNode {
            gate: InputGate::new(&[channels]),
            op: WindowOperator::new(spec)?,
            guard: OpenStateGuard::new(limit, grace),
            since_check: 0,
            chain: Vec::new(),
            key: Vec::new(),
            args: Vec::new(),
        })
    }

    /// The node with aggregations `specs` chained after its first, in
    /// order (cascading windows).
    pub fn chained(mut self, specs: Vec<WindowSpec>) -> Result<Self> {
        self.chain = specs
            .into_iter()
            .map(WindowOperator::new)
            .collect::<Result<_>>()?;
        Ok(self)
    }

    /// The chained aggregations' operators, in order (what a checkpoint
    /// keeps of them).
    pub fn chain(&self) -> &[WindowOperator] {
        &self.chain
    }

    /// Continues the chained aggregations from a checkpoint (as many as
    /// the node chains, in order).
    pub fn restore_chain(&mut self, ops: Vec<WindowOperator>) {
        if ops.len() == self.chain.len() {
            self.chain = ops;
        }
    }

    /// Open (window, key) states of every aggregation of the node.
    pub fn pending(&self) -> usize {
        self.op.pending()
            + self
                .chain
                .iter()
                .map(WindowOperator::pending)
                .sum::<usize>()
    }

    /// Estimated bytes of the state of every aggregation of the node.
    pub fn state_bytes(&self) -> usize {
        self.op.state_bytes()
            + self
                .chain
                .iter()
                .map(WindowOperator::state_bytes)
                .sum::<usize>()
    }

    /// Continues from a checkpoint's valve and operator. A restore counts
    /// as a move of the watermark: the restored windows get the grace
    /// period to fire before the state limit acts.
    pub fn restore(&mut self, valve: ChannelValve, op: WindowOperator) {
        self.gate = InputGate::single(valve);
        self.op = op;
        self.guard
            .restored(self.op.watermark(), self.op.pending() as u64);
    }

    /// Continues exactly where a replay snapshot left: valve, operator and
    /// guard as they were (the same future as a replay that never stopped).
    pub fn resume(&mut self, valve: ChannelValve, op: WindowOperator, guard: OpenStateGuard) {
        self.gate = InputGate::single(valve);
        self.op = op;
        self.guard = guard;
    }

    /// The open-state guard.
    pub fn guard(&self) -> &OpenStateGuard {
        &self.guard
    }

    /// What a checkpoint keeps of it: the valve and the operator.
    pub fn parts(&self) -> (ChannelValve, WindowOperator) {
        let valve = self
            .gate
            .port(0)
            .cloned()
            .unwrap_or_else(|| ChannelValve::new(0));
        (valve, self.op.clone())
    }

    /// The operator.
    pub fn op(&self) -> &WindowOperator {
        &self.op
    }

    /// The operator, to feed it records.
    pub fn op_mut(&mut self) -> &mut WindowOperator {
        &mut self.op
    }

    /// The input gate.
    pub fn gate(&self) -> &InputGate {
        &self.gate
    }

    /// The input gate, for barriers.
    pub fn gate_mut(&mut self) -> &mut InputGate {
        &mut self.gate
    }

    /// Input channel `ch` sent `p` at `now`: every window the new
    /// watermark reaches fires into `out`, handed to `take` every `chunk`
    /// results (see [`WindowOperator::on_watermark_in_chunks`]). Returns
    /// the operator's new watermark, if it moved.
    /// With cascading windows the chained aggregations' results come out
    /// (the first one's late rows too), the results linked by `link`; an
    /// error of the link (an expression that cannot be computed) stops at
    /// that result.
    #[allow(clippy::too_many_arguments)]
    pub fn progress(
        &mut self,
        ch: usize,
        p: Progress,
        now: Timestamp,
        out: &mut Vec<WindowOutput>,
        chunk: usize,
        take: &mut dyn FnMut(&mut Vec<WindowOutput>),
        link: &dyn Link,
    ) -> std::result::Result<Option<Timestamp>, String> {
        let mut moved = None;
        for step in self.gate.input(0, ch, p) {
            if let Some(wm) = step.watermark {
                self.advance(wm, now, out, chunk, take, link)?;
                moved = Some(wm);
            }
        }
        Ok(moved)
    }

    /// The gate's watermark reached `wm` at `now` (a driver that handles
    /// each of the gate's steps itself): the windows it reaches fire, and
    /// with cascading windows their results go through the chain (see
    /// [`WindowNode::progress`]).
    #[allow(clippy::too_many_arguments)]
    pub fn advance(
        &mut self,
        wm: Timestamp,
        now: Timestamp,
        out: &mut Vec<WindowOutput>,
        chunk: usize,
        take: &mut dyn FnMut(&mut Vec<WindowOutput>),
        link: &dyn Link,
    ) -> std::result::Result<(), String> {
        self.guard.on_watermark(wm, now);
        if self.chain.is_empty() {
            self.op.on_watermark_in_chunks(wm, out, chunk, take);
            return Ok(());
        }
        let mut fired = Vec::new();
        self.op.on_watermark(wm, &mut fired);
        for stage in 0..self.chain.len() {
            let mut next = Vec::new();
            for o in fired {
                let r = match o {
                    WindowOutput::Fired(r) => r,
                    // The first aggregation's late rows (its side output).
                    late @ WindowOutput::Late(_) => {
                        out.push(late);
                        continue;
                    }
                };
                if !link.input(stage, &r, &mut self.key, &mut self.args)? {
                    continue;
                }
                let input = InputRef {
                    ts: r.window.max_timestamp(),
                    split: CHAINED_SPLIT,
                    key: &self.key,
                    row: &self.args,
                };
                self.chain[stage]
                    .process_ref(input, &mut next)
                    .map_err(|e| e.to_string())?;
            }
            self.chain[stage].on_watermark(wm, &mut next);
            fired = next;
        }
        out.append(&mut fired);
        if out.len() >= chunk {
            take(out);
        }
        Ok(())
    }

    /// `n` records went in: whether the open states are due to be counted
    /// (every [`OPEN_CHECK_EVERY`] records).
    pub fn due(&mut self, n: u32) -> bool {
        self.since_check = self.since_check.saturating_add(n);
        if self.since_check < OPEN_CHECK_EVERY {
            return false;
        }
        self.since_check = 0;
        true
    }

    /// The INSERT holds `open` states at `now` (every subtask's): the
    /// guard's verdict. Over the limit with `fire_oldest` set to the
    /// number of subtasks sharing the INSERT, this node's oldest windows
    /// fire early into `out` until its share of 80% of the limit is left.
    pub fn check_open(
        &mut self,
        open: u64,
        now: Timestamp,
        fire_oldest: Option<usize>,
        out: &mut Vec<WindowOutput>,
    ) -> OpenCheck {
        match self.guard.check(open, now) {
            Verdict::Within | Verdict::CatchingUp => OpenCheck::Within,
            Verdict::Near => OpenCheck::Near,
            Verdict::Over { still_for } => match fire_oldest {
                Some(subtasks) => {
                    let share = (self.guard.limit() / 5 * 4) / subtasks.max(1) as u64;
                    OpenCheck::FiredEarly(self.op.fire_oldest(share as usize, out))
                }
                None => OpenCheck::Over { still_for },
            },
        }
    }

    /// The limit on open states.
    pub fn limit(&self) -> u64 {
        self.guard.limit()
    }

    /// The guard's grace period.
    pub fn grace(&self) -> Millis {
        self.guard.grace()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::secs;
    use crate::value::Value;
    use crate::window::assigner::WindowAssigner;
    use crate::window::batch::InputRef;

    fn node(limit: u64) -> WindowNode {
        let spec = WindowSpec::count(WindowAssigner::tumbling(secs(1)));
        WindowNode::new(spec, 1, limit, secs(5)).expect("a valid window")
    }

    fn feed(n: &mut WindowNode, keys: i64, ts: Timestamp) {
        let mut out = Vec::new();
        for k in 0..keys {
            let key = [Value::Int(k)];
            let input = InputRef {
                ts,
                split: 0,
                key: &key,
                row: &[],
            };
            n.op_mut().process_ref(input, &mut out).expect("placed");
        }
    }

    fn wm(w: Timestamp) -> Progress {
        Progress {
            watermark: Some(w),
            ..Progress::NONE
        }
    }

    #[test]
    fn a_watermark_fires_and_moves_the_guard() {
        let mut n = node(10);
        feed(&mut n, 12, 100);
        let mut out = Vec::new();
        // Never moved: over the limit is over at once.
        assert_eq!(
            n.check_open(12, 0, None, &mut out),
            OpenCheck::Over { still_for: None }
        );
        let moved = n
            .progress(
                0,
                wm(secs(1) - 1),
                1_000,
                &mut out,
                usize::MAX,
                &mut |_| {},
                &Unlinked,
            )
            .expect("no chain");
        assert_eq!(moved, Some(secs(1) - 1));
        assert_eq!(out.len(), 12);
        feed(&mut n, 12, secs(2));
        // Moved 3 s ago, within the grace: catching up.
        assert_eq!(n.check_open(12, 4_000, None, &mut out), OpenCheck::Within);
        assert_eq!(
            n.check_open(12, 7_000, None, &mut out),
            OpenCheck::Over {
                still_for: Some(6_000)
            }
        );
        out.clear();
        // Fire-oldest over two subtasks: this one keeps at most 4, and a
        // window fires whole (its 12 keys).
        feed(&mut n, 3, secs(3));
        let fired = n.check_open(15, 7_000, Some(2), &mut out);
        assert_eq!(fired, OpenCheck::FiredEarly(12));
        assert_eq!(n.op().pending(), 3);
        assert_eq!(n.check_open(9, 7_000, None, &mut out), OpenCheck::Near);
    }

    /// A chained aggregation's input: the first one's key, and its count
    /// as the argument (a roll-up of counts).
    struct Rollup;

    impl Link for Rollup {
        fn input(
            &self,
            stage: usize,
            r: &WindowResult,
            key: &mut Vec<Value>,
            args: &mut Vec<Value>,
        ) -> std::result::Result<bool, String> {
            assert_eq!(stage, 0);
            key.clone_from(&r.key);
            args.clear();
            args.push(r.values[0].clone());
            // A HAVING of the first: windows of key 2 are left out.
            Ok(r.key != [Value::Int(2)])
        }
    }

    #[test]
    fn a_chained_aggregation_reads_the_results_the_same_watermark_fired() {
        use crate::window::aggregate::{AggFunc, AggSpec};
        let sum = WindowSpec {
            aggregates: vec![AggSpec::on(AggFunc::Sum, 0)],
            ..WindowSpec::count(WindowAssigner::tumbling(secs(5)))
        };
        let mut n = node(1_000).chained(vec![sum]).expect("a valid chain");
        let mut out = Vec::new();
        // Three keys, one record each, in each of seconds 0..7.
        for s in 0..7 {
            feed(&mut n, 3, secs(s) + 10);
        }
        assert_eq!(n.pending(), 21);
        // 4.999 s: the 1-second windows of seconds 0..4 fire into the
        // 5-second windows, whose first is not yet due.
        n.advance(secs(5) - 1, 0, &mut out, usize::MAX, &mut |_| {}, &Rollup)
            .expect("linked");
        // The watermark fires the 5-second window [0, 5) in the same step:
        // its inputs (window_time 0.999 .. 4.999) came first.
        let rows: Vec<(Value, Value)> = out
            .iter()
            .map(|o| match o {
                WindowOutput::Fired(r) => (r.key[0].clone(), r.values[0].clone()),
                WindowOutput::Late(_) => panic!("no late row"),
            })
            .collect();
        assert_eq!(
            rows,
            vec![
                (Value::Int(0), Value::Int(5)),
                (Value::Int(1), Value::Int(5))
            ]
        );
        // Seconds 5 and 6 stay open in the first; none in the second.
        assert_eq!(n.pending(), 6);
        assert_eq!(n.chain()[0].watermark(), secs(5) - 1);
        out.clear();
        // The chain is part of a restore.
        let (valve, op) = n.parts();
        let chain = n.chain().to_vec();
        let mut r = node(1_000)
            .chained(vec![n.chain()[0].spec().clone()])
            .expect("a valid chain");
        r.restore(valve, op);
        r.restore_chain(chain);
        r.advance(secs(10) - 1, 0, &mut out, usize::MAX, &mut |_| {}, &Rollup)
            .expect("linked");
        assert_eq!(out.len(), 2, "keys 0 and 1 of [5, 10): {out:?}");
        assert_eq!(r.pending(), 0);
        // Without a chain, a link is never asked.
        let mut plain = node(10);
        feed(&mut plain, 1, 100);
        out.clear();
        plain
            .advance(secs(1), 0, &mut out, usize::MAX, &mut |_| {}, &Unlinked)
            .expect("no chain");
        assert_eq!(out.len(), 1);
    }

    #[test]
    fn the_open_states_are_counted_every_few_thousand_records() {
        let mut n = node(10);
        assert!(!n.due(OPEN_CHECK_EVERY - 1));
        assert!(n.due(1));
        assert!(!n.due(1));
    }

    #[test]
    fn a_restore_gives_the_restored_windows_the_grace_period() {
        let mut n = node(10);
        feed(&mut n, 12, 100);
        let (valve, op) = n.parts();
        let mut r = node(10);
        r.restore(valve, op);
        let mut out = Vec::new();
        assert_eq!(r.check_open(12, 50_000, None, &mut out), OpenCheck::Within);
        assert_eq!(r.op().pending(), 12);
    }
}
