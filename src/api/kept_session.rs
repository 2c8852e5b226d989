//! The session a [`Graph`](super::Graph) keeps between queries, so that a second query on one graph
//! opens no second device context and uploads the model no second time.
//!
//! A [`Session`] borrows the model it runs on; the graph owns that model in a `Box` (a fixed heap
//! address) and keeps the session beside it. The one `unsafe` here extends the session's borrow to
//! the slot's lifetime, which is sound because the graph upholds three rules:
//! the session is dropped before the model (field order in `Graph`), the slot is [`cleared`]
//! before the model is replaced or changed (every `&mut` path that touches the model), and the
//! session is only ever lent out for the lifetime of a shared borrow of the graph.
//!
//! [`cleared`]: SessionSlot::clear

use std::sync::Mutex;

use crate::engines::staged::StageChoice;
use crate::error::{Error, Result};
use crate::model::Model;
use crate::session::{Backend, EngineKind, Session, SessionOptions};

/// What a kept session was opened for: a query asking for other options opens another.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct SessionKey {
    /// Where queries run.
    pub backend: Backend,
    /// The engine.
    pub engine: EngineKind,
    /// Stage algorithms, if any.
    pub stages: Option<StageChoice>,
}

impl SessionKey {
    fn options(&self) -> SessionOptions {
        SessionOptions {
            backend: self.backend,
            engine: self.engine,
            stages: self.stages,
            ..Default::default()
        }
    }
}

/// The kept session (at most one: the last options asked for).
#[derive(Debug, Default)]
pub(super) struct SessionSlot {
    kept: Mutex<Option<(SessionKey, Session<'static>)>>,
}

impl SessionSlot {
    /// Runs `f` with the session for `key` on `model`, opening it when none is kept for `key`.
    /// Queries on one graph run one at a time.
    ///
    /// # Safety
    ///
    /// `model` is the graph's boxed model, which stays where it is and unchanged until
    /// [`SessionSlot::clear`] is called or the slot is dropped (see the module documentation).
    pub(super) unsafe fn with<'g, R>(
        &'g self,
        model: &'g Model,
        key: SessionKey,
        f: impl FnOnce(&Session<'g>) -> Result<R>,
    ) -> Result<R> {
        let mut kept = self.kept.lock().map_err(|_| {
            Error::InvalidArgument("an earlier query on this graph panicked".into())
        })?;
        if kept.as_ref().is_none_or(|(k, _)| *k != key) {
            *kept = None;
            let session = Session::new(model, &key.options())?;
            // SAFETY: the caller guarantees `model` outlives the kept session (see above).
            let session: Session<'static> = unsafe { std::mem::transmute(session) };
            *kept = Some((key, session));
        }
        let (_, session) = kept.as_ref().expect("a session was just kept");
        // SAFETY: shortening the borrow back to the graph's: the session was opened on `model`.
        let session: &Session<'g> = unsafe { std::mem::transmute(session) };
        f(session)
    }

    /// Drops the kept session (before the graph's model changes).
    pub(super) fn clear(&mut self) {
        if let Ok(kept) = self.kept.get_mut() {
            *kept = None;
        }
    }
}
