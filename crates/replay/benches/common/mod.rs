//! The dump the replay and tune benches share: clickstream records over 16
//! partitions, the seed 000 shape.

use std::io::Write;
use std::path::Path;

const DAY: i64 = 1_757_808_000_000;

fn sql_ts(ms: i64) -> String {
    lowwater_core::time::format_timestamp(ms, ' ')
}

/// Writes `records` clickstream records (~333 a second across 16
/// partitions, event times up to 2 s out of order) to `path`. With
/// `quiet`, that partition gets no record in the middle half of the dump
/// (an incident: its producer stopped for a while).
pub fn generate(path: &Path, records: usize, quiet: Option<usize>) {
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).expect("create dump"));
    let mut offsets = [0i64; 16];
    for i in 0..records {
        let p = i % 16;
        if quiet == Some(p) && (records / 4..records * 3 / 4).contains(&i) {
            continue;
        }
        let at = DAY + (i as i64) * 3; // ~333 records per second across the topic
        let event = at - (i as i64 * 389) % 2_000;
        let payload = format!(
            r#"{{\"user_id\":\"u{}\",\"url\":\"/p/{}\",\"event_time\":\"{}\"}}"#,
            i % 5_000,
            i % 97,
            sql_ts(event)
        );
        writeln!(
            f,
            r#"{{"topic":"clickstream","partition":{p},"offset":{},"tstype":"create","ts":{at},"key":null,"payload":"{payload}"}}"#,
            offsets[p]
        )
        .expect("write dump");
        offsets[p] += 1;
    }
}
