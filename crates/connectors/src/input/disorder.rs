//! How far out of arrival order a dump is, measured in the first pass: the
//! window (in records) a sliding sort needs to put it in order.
//!
//! A dump is rarely in arrival order, but rarely far from it: `lowwater
//! dump` and kcat write each partition in offset order, interleaving the
//! partitions a fetched batch at a time. A sliding sort (a min-heap that
//! emits its smallest record once it holds more than `W`) puts a dump in
//! order when no record has more than `W` later-arriving records above
//! it. The tracker bounds that count by the distance to the first line
//! above with a later arrival time (all the later-arriving lines above are
//! below that one), found through the points where the running maximum
//! rose (increasing, so a binary search), kept for the last `cap` records
//! only. A bound, not the count: a window can be larger than needed, never
//! smaller. A record further out of place than `cap` makes the dump "too
//! far out of order"; it is then sorted in spilled runs.

use std::collections::VecDeque;

/// The first pass's tracker for one dump.
#[derive(Debug)]
pub(crate) struct Disorder {
    cap: usize,
    /// (index, arrival) where the running maximum rose, within `cap`.
    rises: VecDeque<(usize, i64)>,
    /// The largest maximum dropped from `rises`.
    dropped: Option<i64>,
    next: usize,
    window: usize,
    too_far: bool,
}

impl Disorder {
    /// Tracks windows up to `cap` records.
    pub(crate) fn new(cap: usize) -> Self {
        Disorder {
            cap,
            rises: VecDeque::new(),
            dropped: None,
            next: 0,
            window: 0,
            too_far: false,
        }
    }

    /// The next record's arrival time.
    pub(crate) fn push(&mut self, ts: i64) {
        let i = self.next;
        self.next += 1;
        while self.rises.front().is_some_and(|&(at, _)| at + self.cap < i) {
            let (_, max) = self.rises.pop_front().unwrap_or_default();
            self.dropped = Some(max);
        }
        let max = self.rises.back().map(|&(_, m)| m).or(self.dropped);
        match max {
            Some(m) if ts < m => {
                if self.dropped.is_some_and(|d| d > ts) {
                    self.too_far = true;
                    return;
                }
                // The first kept rise above `ts`: that line must still be
                // in the window when this one is read.
                let k = self.rises.partition_point(|&(_, m)| m <= ts);
                if let Some(&(at, _)) = self.rises.get(k) {
                    self.window = self.window.max(i - at);
                }
            }
            Some(m) if ts == m => {}
            _ => self.rises.push_back((i, ts)),
        }
    }

    /// The window the dump needs, or `None` if it is out of order by more
    /// than `cap` records.
    pub(crate) fn window(&self) -> Option<usize> {
        (!self.too_far).then_some(self.window)
    }
}

#[cfg(test)]
mod tests {
    use super::Disorder;

    /// The smallest window with which a sliding sort orders `ts`, by trying.
    fn needed(ts: &[i64]) -> usize {
        (0..=ts.len())
            .find(|&w| {
                let mut heap = std::collections::BinaryHeap::new();
                let mut out = Vec::new();
                for (i, &t) in ts.iter().enumerate() {
                    heap.push(std::cmp::Reverse((t, i)));
                    if heap.len() > w {
                        out.extend(heap.pop().map(|std::cmp::Reverse(x)| x));
                    }
                }
                while let Some(std::cmp::Reverse(x)) = heap.pop() {
                    out.push(x);
                }
                out.windows(2).all(|p| p[0] <= p[1])
            })
            .unwrap_or(ts.len())
    }

    fn measured(ts: &[i64], cap: usize) -> Option<usize> {
        let mut d = Disorder::new(cap);
        for &t in ts {
            d.push(t);
        }
        d.window()
    }

    #[test]
    fn the_window_sorts_the_dump() {
        let cases: Vec<Vec<i64>> = vec![
            vec![],
            vec![1, 2, 3],
            vec![3, 2, 1],
            vec![1, 5, 2, 3, 4, 6],
            vec![5, 5, 1, 5],
            // Four partitions, batches of three, interleaved.
            (0..48)
                .map(|i| (i % 3) + 3 * (i / 12) + 100 * ((i / 3) % 4))
                .collect(),
        ];
        for ts in &cases {
            let w = measured(ts, 1000).expect("within the cap");
            assert!(w >= needed(ts), "{ts:?}: {w}");
        }
        assert_eq!(measured(&[1, 2, 2, 3], 1000), Some(0));
        assert_eq!(measured(&[3, 2, 1], 1000), Some(2));
        assert_eq!(measured(&[1, 5, 2, 3, 4, 6], 1000), Some(3));
        // Pseudo-random ones: the window always suffices.
        let mut x = 7u64;
        for n in 1..80 {
            let ts: Vec<i64> = (0..n)
                .map(|i| {
                    x = x
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    i as i64 + (x >> 59) as i64
                })
                .collect();
            let w = measured(&ts, 1000).expect("within the cap");
            assert!(w >= needed(&ts), "{ts:?}: {w}");
        }
    }

    #[test]
    fn beyond_the_cap_is_too_far() {
        let mut ts: Vec<i64> = (0..100).collect();
        ts.push(-1);
        assert_eq!(measured(&ts, 10), None);
        assert_eq!(measured(&ts, 200), Some(100));
    }
}
