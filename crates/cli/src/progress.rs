//! The replay's progress bar: on a terminal only (standard error), never
//! when piped, with `-q` or with JSON logs. Reading shows bytes of the
//! dumps; replaying shows records, the rate and the virtual time reached.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use lowwater_replay::Progress;

/// A progress bar, or nothing.
pub struct Bar {
    bar: Option<ProgressBar>,
    replaying: bool,
}

impl Bar {
    /// A bar when standard error is a terminal and the logs are text and
    /// not quietened.
    pub fn new(quiet: bool, json_logs: bool) -> Self {
        let show = !quiet && !json_logs && std::io::stderr().is_terminal();
        Bar {
            bar: show.then(|| {
                let b = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
                b.set_style(
                    ProgressStyle::with_template(
                        "reading  {bar:30} {binary_bytes}/{binary_total_bytes} ({binary_bytes_per_sec}, {eta} left)",
                    )
                    .unwrap_or_else(|_| ProgressStyle::default_bar()),
                );
                b
            }),
            replaying: false,
        }
    }

    /// Shows how far the replay is.
    pub fn update(&mut self, p: Progress) {
        let Some(b) = &self.bar else {
            return;
        };
        match p {
            Progress::Reading { bytes, total } => {
                b.set_length(total);
                b.set_position(bytes);
            }
            Progress::Replaying {
                records,
                total,
                now,
            } => {
                if !self.replaying {
                    self.replaying = true;
                    b.reset();
                    b.set_style(
                        ProgressStyle::with_template(
                            "replaying {bar:30} {human_pos}/{human_len} records ({per_sec}, {eta} left), virtual time {msg}",
                        )
                        .unwrap_or_else(|_| ProgressStyle::default_bar()),
                    );
                }
                b.set_length(total);
                b.set_position(records);
                b.set_message(lowwater_core::time::format_timestamp(now, ' '));
            }
        }
    }

    /// Removes the bar before the summary is printed.
    pub fn finish(self) {
        if let Some(b) = self.bar {
            b.finish_and_clear();
        }
    }
}
