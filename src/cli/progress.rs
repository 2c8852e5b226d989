//! Progress on stderr drawn with `indicatif`: the library says what to show
//! ([`gemp::io::input::ProgressDisplay`]), this draws it.

use std::sync::Arc;
use std::time::Duration;

use gemp::io::input::{ProgressBar, ProgressDisplay};

/// Draws the library's bars and spinners with `indicatif`.
pub struct IndicatifDisplay;

/// One `indicatif` bar.
struct Bar(indicatif::ProgressBar);

impl ProgressDisplay for IndicatifDisplay {
    fn bar(&self, length: Option<u64>, template: &str, elapsed: Duration) -> Arc<dyn ProgressBar> {
        let bar = match length {
            Some(n) => indicatif::ProgressBar::new(n),
            None => indicatif::ProgressBar::new_spinner(),
        };
        let style = indicatif::ProgressStyle::with_template(template)
            .map(|s| s.progress_chars("=> "))
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
        Arc::new(Bar(bar.with_style(style).with_elapsed(elapsed)))
    }
}

impl ProgressBar for Bar {
    fn set_message(&self, message: String) {
        self.0.set_message(message);
    }
    fn set_prefix(&self, prefix: String) {
        self.0.set_prefix(prefix);
    }
    fn set_position(&self, position: u64) {
        self.0.set_position(position);
    }
    fn tick(&self) {
        self.0.tick();
    }
    fn finish_and_clear(&self) {
        self.0.finish_and_clear();
    }
    fn suspend(&self, f: &mut dyn FnMut()) {
        self.0.suspend(f);
    }
}
