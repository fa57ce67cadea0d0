//! A progress bar per phase (on stderr, hidden when stderr is not a terminal) and a one-line
//! summary when the phase ends, so stdout carries only the markdown tables.

use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A phase: its name is the bar's prefix, its start the bar's.
pub struct Phase {
    bar: ProgressBar,
}

impl Phase {
    /// A phase of `total` units of work (filters, steps, runs).
    pub fn start(name: &str, total: u64) -> Phase {
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template(
                "{prefix:>22} [{bar:30}] {pos:>3}/{len:3} {elapsed:>4} {wide_msg}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
        );
        bar.set_prefix(name.to_string());
        bar.enable_steady_tick(Duration::from_millis(200));
        Phase { bar }
    }

    pub fn message(&self, msg: impl Into<String>) {
        self.bar.set_message(msg.into());
    }

    pub fn inc(&self) {
        self.bar.inc(1);
    }

    /// Ends the phase with its one-line summary.
    pub fn finish(self, summary: &str) {
        self.bar.finish_and_clear();
        eprintln!(
            "[{:>5.1} s] {}: {summary}",
            self.bar.elapsed().as_secs_f64(),
            self.bar.prefix()
        );
    }
}
