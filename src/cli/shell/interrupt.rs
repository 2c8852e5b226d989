//! Ctrl-C in the shell: while a query runs, SIGINT raises that query's [`CancelFlag`] (the run
//! stops at its next deadline check and the shell goes on); at the prompt the line editor reads
//! Ctrl-C as a key, so no signal comes. Outside a query, a SIGINT ends a non-interactive shell
//! (status 130) and is ignored by an interactive one.

use std::sync::{Arc, Mutex};

use gemp::api::CancelFlag;

/// Routes SIGINT to the running query's cancel flag.
#[derive(Debug, Clone)]
pub struct Interrupts {
    /// The flag of the query running now, if any.
    running: Arc<Mutex<Option<CancelFlag>>>,
}

impl Interrupts {
    /// Installs the SIGINT handler (a thread reading signals; unix only: elsewhere Ctrl-C keeps
    /// its default and ends the shell). `interactive`: whether a SIGINT outside a query is
    /// ignored (else it ends the process with status 130).
    pub fn install(interactive: bool) -> Interrupts {
        let running: Arc<Mutex<Option<CancelFlag>>> = Arc::default();
        #[cfg(unix)]
        {
            let shared = Arc::clone(&running);
            match signal_hook::iterator::Signals::new([signal_hook::consts::SIGINT]) {
                Ok(mut signals) => {
                    let spawned = std::thread::Builder::new()
                        .name("gemp-shell-sigint".into())
                        .spawn(move || {
                            for _ in signals.forever() {
                                let running = shared.lock().unwrap_or_else(|e| e.into_inner());
                                match running.as_ref() {
                                    Some(flag) => flag.cancel(),
                                    None if interactive => {}
                                    None => std::process::exit(130),
                                }
                            }
                        });
                    if let Err(e) = spawned {
                        log::warn!("Ctrl-C will end the shell, not a query: {e}");
                    }
                }
                Err(e) => log::warn!("Ctrl-C will end the shell, not a query: {e}"),
            }
        }
        #[cfg(not(unix))]
        let _ = interactive;
        Interrupts { running }
    }

    /// Runs `f` (a query) with a fresh cancel flag that Ctrl-C raises; returns its result and
    /// whether it was cancelled.
    pub fn run<R>(&self, f: impl FnOnce(&CancelFlag) -> R) -> (R, bool) {
        let flag = CancelFlag::new();
        self.set(Some(flag.clone()));
        let result = flag.scope(|| f(&flag));
        self.set(None);
        let cancelled = flag.is_cancelled();
        (result, cancelled)
    }

    fn set(&self, flag: Option<CancelFlag>) {
        *self.running.lock().unwrap_or_else(|e| e.into_inner()) = flag;
    }
}
