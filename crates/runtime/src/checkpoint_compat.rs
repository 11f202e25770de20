//! The layouts of older checkpoint formats, read and restored as this
//! build's (`JobSnapshot::decode`): a restart after an upgrade needs no
//! `--reset-state`.

use super::*;

/// A source subtask's part before format 4 (no rebuild offsets).
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(test, derive(Serialize))]
pub(super) struct SourcePart {
    pub(super) sub: SourceSubtask,
    pub(super) positions: Vec<(SplitId, Option<i64>)>,
    pub(super) records: u64,
    pub(super) filtered: u64,
    pub(super) skipped: BTreeMap<SplitId, u64>,
    pub(super) nulled: BTreeMap<SplitId, u64>,
}

impl From<SourcePart> for super::SourcePart {
    fn from(p: SourcePart) -> Self {
        super::SourcePart {
            sub: p.sub,
            positions: p.positions,
            records: p.records,
            filtered: p.filtered,
            skipped: p.skipped,
            nulled: p.nulled,
            rebuild_from: Vec::new(),
            covers: None,
        }
    }
}

fn sources(parts: Vec<Vec<SourcePart>>) -> Vec<Vec<super::SourcePart>> {
    parts
        .into_iter()
        .map(|p| p.into_iter().map(Into::into).collect())
        .collect()
}

/// The layout of format 3 (before rebuild offsets): read, and restored
/// as the same job; its open windows cannot be rebuilt.
pub(super) mod v3 {
    use super::super::*;

    #[derive(Deserialize)]
    #[cfg_attr(test, derive(Serialize))]
    pub(in super::super) struct JobSnapshot {
        pub(in super::super) identity: JobIdentity,
        pub(in super::super) taken_at: Timestamp,
        pub(in super::super) splits: Vec<SplitKey>,
        pub(in super::super) sources: Vec<Vec<super::SourcePart>>,
        pub(in super::super) windows: Vec<Vec<WindowPart>>,
        pub(in super::super) joins: Vec<Vec<JoinPart>>,
    }

    impl From<JobSnapshot> for super::super::JobSnapshot {
        fn from(s: JobSnapshot) -> Self {
            super::super::JobSnapshot {
                identity: s.identity,
                taken_at: s.taken_at,
                splits: s.splits,
                sources: super::sources(s.sources),
                windows: s.windows,
                joins: s.joins,
            }
        }
    }
}

/// The layout of format 2 (before joins): read, and restored as the same
/// job with no join.
pub(super) mod v2 {
    use super::super::*;

    #[derive(Deserialize)]
    #[cfg_attr(test, derive(Serialize))]
    pub(in super::super) struct JobSnapshot {
        pub(in super::super) identity: JobIdentity,
        pub(in super::super) taken_at: Timestamp,
        pub(in super::super) splits: Vec<SplitKey>,
        pub(in super::super) sources: Vec<Vec<super::SourcePart>>,
        pub(in super::super) windows: Vec<Vec<super::WindowPart>>,
    }

    impl From<JobSnapshot> for super::JobSnapshot {
        fn from(s: JobSnapshot) -> Self {
            super::JobSnapshot {
                identity: s.identity,
                taken_at: s.taken_at,
                splits: s.splits,
                sources: super::sources(s.sources),
                windows: s.windows,
                joins: Vec::new(),
            }
        }
    }
}

/// The layout of format 1 (before cascading windows): read, and restored
/// as the same job with no chained aggregation.
pub(super) mod v1 {
    use super::super::*;

    #[derive(Deserialize)]
    #[cfg_attr(test, derive(Serialize))]
    pub(in super::super) struct WindowPart {
        pub(in super::super) valve: ChannelValve,
        pub(in super::super) op: WindowOperator,
    }

    #[derive(Deserialize)]
    #[cfg_attr(test, derive(Serialize))]
    pub(in super::super) struct JobSnapshot {
        pub(in super::super) identity: JobIdentity,
        pub(in super::super) taken_at: Timestamp,
        pub(in super::super) splits: Vec<SplitKey>,
        pub(in super::super) sources: Vec<Vec<super::SourcePart>>,
        pub(in super::super) windows: Vec<Vec<WindowPart>>,
    }

    impl From<JobSnapshot> for super::JobSnapshot {
        fn from(s: JobSnapshot) -> Self {
            super::JobSnapshot {
                identity: s.identity,
                taken_at: s.taken_at,
                splits: s.splits,
                sources: super::sources(s.sources),
                windows: s
                    .windows
                    .into_iter()
                    .map(|parts| {
                        parts
                            .into_iter()
                            .map(|p| super::WindowPart {
                                valve: p.valve,
                                op: p.op,
                                chain: Vec::new(),
                            })
                            .collect()
                    })
                    .collect(),
                joins: Vec::new(),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use lowwater_core::checkpoint::encode;
    use lowwater_core::watermark::generator::WatermarkStrategy;
    use lowwater_core::window::assigner::WindowAssigner;
    use lowwater_core::window::batch::InputRef;
    use lowwater_core::window::operator::WindowSpec;
    use lowwater_core::Value;

    use super::*;

    #[test]
    fn a_checkpoint_of_format_1_restores_with_no_chained_aggregation() {
        let mut op = WindowOperator::new(WindowSpec::count(WindowAssigner::tumbling(1_000)))
            .expect("a window");
        let key = [Value::Int(7)];
        let input = InputRef {
            ts: 100,
            split: 0,
            key: &key,
            row: &[],
        };
        op.process_ref(input, &mut Vec::new()).expect("placed");
        let old = v1::JobSnapshot {
            identity: JobIdentity::new().with("INSERT 1", "the job"),
            taken_at: 5,
            splits: vec![SplitKey {
                table: "clicks".into(),
                topic: "clicks".into(),
                partition: 0,
            }],
            sources: vec![vec![SourcePart {
                sub: SourceSubtask::new(WatermarkStrategy::sql(0)).expect("a strategy"),
                positions: vec![(0, Some(7))],
                records: 1,
                filtered: 0,
                skipped: BTreeMap::new(),
                nulled: BTreeMap::new(),
            }]],
            windows: vec![vec![v1::WindowPart {
                valve: ChannelValve::new(1),
                op,
            }]],
        };
        let mut bytes = encode(4, &old).expect("encodes");
        // The header's version is not under the checksum.
        bytes[4..8].copy_from_slice(&1u32.to_le_bytes());
        let (id, snap) = JobSnapshot::decode(&bytes).expect("format 1 is read");
        assert_eq!(id, 4);
        assert_eq!(snap.open_windows(), 1);
        assert!(snap.windows[0][0].chain.is_empty());
        assert_eq!(snap.positions().into_values().collect::<Vec<_>>(), vec![7]);
        // The same bytes read as this build's layout do not decode, so a
        // file is never mistaken for the other layout.
        assert!(lowwater_core::checkpoint::decode::<JobSnapshot>(&bytes).is_err());
        bytes[4..8].copy_from_slice(&2u32.to_le_bytes());
        assert!(JobSnapshot::decode(&bytes).is_err());
    }

    #[test]
    fn a_checkpoint_of_format_3_restores_without_rebuild_offsets() {
        let old = v3::JobSnapshot {
            identity: JobIdentity::new().with("INSERT 1", "the job"),
            taken_at: 5,
            splits: vec![SplitKey {
                table: "clicks".into(),
                topic: "clicks".into(),
                partition: 0,
            }],
            sources: vec![vec![SourcePart {
                sub: SourceSubtask::new(WatermarkStrategy::sql(0)).expect("a strategy"),
                positions: vec![(0, Some(9))],
                records: 3,
                filtered: 0,
                skipped: BTreeMap::new(),
                nulled: BTreeMap::new(),
            }]],
            windows: vec![Vec::new()],
            joins: Vec::new(),
        };
        let mut bytes = encode(6, &old).expect("encodes");
        bytes[4..8].copy_from_slice(&3u32.to_le_bytes());
        let (id, snap) = JobSnapshot::decode(&bytes).expect("format 3 is read");
        assert_eq!(id, 6);
        let part = &snap.sources[0][0];
        assert_eq!((part.records, part.covers), (3, None));
        assert!(part.rebuild_from.is_empty());
        assert_eq!(snap.positions().into_values().collect::<Vec<_>>(), vec![9]);
        // Read as format 4 (one field more per source part), it is refused.
        bytes[4..8].copy_from_slice(&4u32.to_le_bytes());
        assert!(JobSnapshot::decode(&bytes).is_err());
    }
}
