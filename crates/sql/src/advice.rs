//! The idle timeout a stall's explanation suggests, chosen from the data
//! (the holding partition's gaps between records, the windows), with its
//! trade in the same line; and the finding of a watermark held again and
//! again for less than the stall threshold ([`recurring_reason`]). One
//! function for every place lowwater explains a watermark: the live WARN,
//! the API and page, the replay report and `watch --flink`.

use lowwater_core::time::display_duration;
use lowwater_core::Millis;

use crate::stall::{StallContext, StallHolder};

/// The longest idle timeout suggested from the data.
const MAX_ADVICE: Millis = 10 * 60_000;

/// `ms` rounded down to a duration one would write (1, 2, 5, 10, 15, 30 s,
/// 1, 2, 5, 10 min), at least 1 s.
fn round_timeout(ms: Millis) -> Millis {
    const STEPS: [Millis; 10] = [
        1_000, 2_000, 5_000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000,
    ];
    STEPS
        .iter()
        .rev()
        .copied()
        .find(|s| *s <= ms)
        .unwrap_or(1_000)
}

/// The idle timeout a stall held by `h` suggests, as SQL text (`'15 s'`),
/// and one line on why and on its trade. Chosen from the data: below half
/// the longest gap between the partition's records (so it goes idle in
/// each of its quiet spells, not between its ordinary records) and a
/// quarter of how often the windows end (so a window leaves at most that
/// late), at least 1 s, at most 10 min; without a gap it has seen, from the
/// windows alone, and without either the tune command says what fits.
pub fn idle_advice(cx: &StallContext, h: &StallHolder<'_>) -> (String, String) {
    let d = display_duration;
    let tune = "`lowwater tune` measures it on a dump of the topic";
    let (ms, why) = match (h.gap_ms.filter(|g| *g > 0), cx.window) {
        (Some(g), Some(w)) => (
            (g / 2).min(w / 4),
            format!(
                "chosen from its records, at most {} apart before this silence, and windows \
                 every {}",
                d(g),
                d(w)
            ),
        ),
        (Some(g), None) => (
            g / 2,
            format!(
                "chosen from its records, at most {} apart before this silence",
                d(g)
            ),
        ),
        (None, Some(w)) if h.never_had_record => (
            w / 4,
            format!(
                "it has had no record; chosen from the windows, every {}",
                d(w)
            ),
        ),
        (None, Some(w)) => (
            w / 4,
            format!("chosen from the windows, every {}; {tune}", d(w)),
        ),
        (None, None) => (60_000, format!("not chosen from the data; {tune}")),
    };
    let t = round_timeout(ms.clamp(1_000, MAX_ADVICE));
    let trade = match cx.delay {
        Some(delay) => format!(
            "a record of it that comes after more than {} of silence, with an event time over \
             {} behind the other partitions', is then late and counted per partition",
            idle_sql(t),
            d(delay)
        ),
        None => "its records that come after it went idle may then be late: they are counted \
                 per partition"
            .to_string(),
    };
    (format!("'{}'", idle_sql(t)), format!("{why}; {trade}"))
}

/// The idle timeout for a table read by windows that end every `window`,
/// before any data is seen (`explain`): a quarter of it, as
/// [`idle_advice`] chooses without a gap, as SQL text.
pub fn timeout_for_window(window: Millis) -> String {
    format!(
        "'{}'",
        idle_sql(round_timeout((window / 4).clamp(1_000, MAX_ADVICE)))
    )
}

/// A timeout as Flink's duration text: `'15 s'`, `'1 min'`.
fn idle_sql(ms: Millis) -> String {
    if ms % 60_000 == 0 {
        format!("{} min", ms / 60_000)
    } else {
        format!("{} s", ms / 1_000)
    }
}

/// The one line on a recurring hold (see `lowwater_core::recurring`):
/// `h` held the watermark for `percent`% of the last `over_ms`, its longest
/// hold `longest_ms`, each longer than the `slack_ms` a window may wait.
pub fn recurring_reason(
    cx: &StallContext,
    h: &StallHolder<'_>,
    (percent, over_ms, longest_ms, slack_ms): (u32, Millis, Millis, Millis),
) -> String {
    let d = display_duration;
    let what = match (h.topic, h.partition) {
        (Some(t), Some(p)) => format!("partition {p} of {t} (subtask {})", h.subtask),
        _ => format!("subtask {} of {} (no partition)", h.subtask, cx.source),
    };
    let setting = if cx.own_idle_option {
        format!("'scan.watermark.idle-timeout' on table {}", cx.source)
    } else {
        "SET 'table.exec.source.idle-timeout'".to_string()
    };
    let held = format!(
        "{what} held the watermark again and again: its holds, each longer than the {} a window \
         may wait, cover {percent}% of the last {} (the longest {}), so windows leave late though \
         no hold lasts the stall threshold",
        d(slack_ms),
        d(over_ms),
        d(longest_ms)
    );
    let (advice, why) = idle_advice(cx, h);
    match cx.idle_timeout {
        None => format!("{held}; {setting} = {advice} releases it ({why})"),
        Some(t) => format!(
            "{held}; it gets a record more often than the idle-timeout of {} lets it go idle: \
             {setting} = {advice} releases it ({why})",
            d(t)
        ),
    }
}
