//! A dump put in order as it is parsed, through a window of the few
//! records the first pass found it needs.

use std::cmp::Reverse;
use std::collections::binary_heap::PeekMut;
use std::collections::BinaryHeap;

use super::{DumpReader, InputError, Loaded, Order, Topics};

/// A dump parsed as it is read and put in order while at most `window`
/// records wait (what the first pass measured it needs). The waiting
/// records are kept in lanes, each in order: a partition's records join
/// its lane while they keep arriving in order (they nearly always do), and
/// start a new lane when one does not. The smallest lane head comes next:
/// a heap of a few lanes, not of every waiting record.
pub(crate) struct Sliding {
    reader: DumpReader,
    topics: Topics,
    /// The topics the first pass found.
    known: usize,
    window: usize,
    lanes: Vec<std::collections::VecDeque<Loaded>>,
    /// Per lane, the partition whose next records it takes, if any.
    owner: Vec<Option<(u32, i32)>>,
    current: hashbrown::HashMap<(u32, i32), usize>,
    /// The last record's partition and its lane: a dump's partitions come
    /// a fetched batch at a time, so mostly the next record's too.
    recent: Option<((u32, i32), usize)>,
    idle: Vec<usize>,
    /// One entry per lane with records: its first record's place.
    heads: BinaryHeap<Reverse<(Order, usize)>>,
    held: usize,
    last: Option<Order>,
    ended: bool,
}

impl Sliding {
    pub(crate) fn new(reader: DumpReader, topics: Topics, known: usize, window: usize) -> Self {
        Sliding {
            reader,
            topics,
            known,
            window,
            lanes: Vec::new(),
            owner: Vec::new(),
            current: hashbrown::HashMap::new(),
            recent: None,
            idle: Vec::new(),
            heads: BinaryHeap::new(),
            held: 0,
            last: None,
            ended: false,
        }
    }

    fn hold(&mut self, r: Loaded) {
        let part = (r.topic, r.partition);
        let key = r.order();
        let current = match self.recent {
            Some((p, l)) if p == part => Some(l),
            _ => self.current.get(&part).copied(),
        };
        let lane = match current {
            Some(l) if self.lanes[l].back().is_none_or(|b| b.order() <= key) => l,
            other => {
                if let Some(old) = other {
                    self.owner[old] = None;
                }
                let l = self.idle.pop().unwrap_or_else(|| {
                    self.lanes.push(std::collections::VecDeque::new());
                    self.owner.push(None);
                    self.lanes.len() - 1
                });
                self.owner[l] = Some(part);
                self.current.insert(part, l);
                l
            }
        };
        self.recent = Some((part, lane));
        if self.lanes[lane].is_empty() {
            self.heads.push(Reverse((key, lane)));
        }
        self.lanes[lane].push_back(r);
        self.held += 1;
    }

    pub(crate) fn next(&mut self) -> Result<Option<Loaded>, InputError> {
        if self.window == 0 {
            // A dump in arrival order: each record comes next as it is read.
            return match self.reader.next(&mut self.topics)? {
                Some(r) if r.topic as usize >= self.known => Err(self.reader.changed()),
                Some(r) => self.checked(r).map(Some),
                None => Ok(None),
            };
        }
        while !self.ended && self.held <= self.window {
            match self.reader.next(&mut self.topics)? {
                Some(r) if r.topic as usize >= self.known => return Err(self.reader.changed()),
                Some(r) => self.hold(r),
                None => self.ended = true,
            }
        }
        let Some(mut top) = self.heads.peek_mut() else {
            return Ok(None);
        };
        let lane = top.0 .1;
        let Some(r) = self.lanes[lane].pop_front() else {
            return Ok(None);
        };
        self.held -= 1;
        match self.lanes[lane].front() {
            // The lane's next record takes its place in the heap (one sift
            // down when the guard drops, not a pop and a push).
            Some(f) => {
                top.0 = (f.order(), lane);
                drop(top);
            }
            // An empty lane gives back what a long batch grew; one no
            // partition writes to any more is free again.
            None => {
                PeekMut::pop(top);
                if self.lanes[lane].capacity() > 1024 {
                    self.lanes[lane].shrink_to(64);
                }
                if self.owner[lane].is_none() {
                    self.idle.push(lane);
                }
            }
        }
        self.checked(r).map(Some)
    }

    /// `r`, coming next, if it is in order.
    fn checked(&mut self, r: Loaded) -> Result<Loaded, InputError> {
        // The first pass measured the window on the headers; a record that
        // reads differently now (the dump changed while it was read) may
        // not fit it.
        if self.last.is_some_and(|l| l > r.order()) {
            return Err(self.reader.changed());
        }
        self.last = Some(r.order());
        Ok(r)
    }
}
