//! The edge's outbox when it cannot be opened at start (a full disk): the edge serves all the
//! same, and each replicated write tries to open it again or fails loudly (`not_queued`).

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use serde_json::Value;

use super::proxy::WriteLog;
use super::replicate::OutboxLog;
use mpt_base::error::{MptError, Result};
use mpt_base::log_warn;
use mpt_outbox::{OpenOptions, Origin};

/// Opens the edge's outbox: the log its flusher drains (when it opened) and the write log the
/// proxy records into (always, when a primary is configured).
pub fn open(
    path: PathBuf,
    opts: OpenOptions,
    origin: Origin,
    palace: PathBuf,
) -> (Option<Arc<OutboxLog>>, Arc<dyn WriteLog>) {
    match OutboxLog::open(path.clone(), opts, origin.clone(), &palace) {
        Ok(log) => {
            let log = Arc::new(log);
            (Some(Arc::clone(&log)), log)
        }
        Err(e) => {
            log_warn!(
                "the outbox {} cannot be opened ({}): the edge serves, but replicated writes fail until it can be (`mpt doctor`); once it opens, `mpt outbox flush` or an edge restart sends what is queued",
                path.display(),
                e.message
            );
            let late = UnopenedOutbox {
                path,
                opts,
                origin,
                palace,
                opened: Mutex::new(None),
            };
            (None, Arc::new(late))
        }
    }
}

/// Tries the outbox again at each write.
struct UnopenedOutbox {
    path: PathBuf,
    opts: OpenOptions,
    origin: Origin,
    palace: PathBuf,
    opened: Mutex<Option<OutboxLog>>,
}

impl UnopenedOutbox {
    /// The outbox, opened now if it could not be before.
    fn with_log<T>(
        &self,
        f: impl FnOnce(&OutboxLog) -> Result<T, MptError>,
    ) -> Result<T, MptError> {
        let mut opened = self.opened.lock().unwrap_or_else(|e| e.into_inner());
        if opened.is_none() {
            let log = OutboxLog::open(
                self.path.clone(),
                self.opts,
                self.origin.clone(),
                &self.palace,
            )
            .map_err(|e| {
                MptError::new(
                    e.kind,
                    format!(
                        "the outbox {} cannot be opened: {}",
                        self.path.display(),
                        e.message
                    ),
                )
            })?;
            *opened = Some(log);
        }
        f(opened.as_ref().expect("opened above"))
    }
}

impl WriteLog for UnopenedOutbox {
    fn intend(&self, tool: &str, args: &Value, maybe_applied: bool) -> Result<i64, MptError> {
        self.with_log(|log| log.intend(tool, args, maybe_applied))
    }

    fn confirm(&self, intent: i64, local_reply: Option<&Value>) -> Result<String, MptError> {
        self.with_log(|log| log.confirm(intent, local_reply))
    }

    fn cancel(&self, intent: i64) -> Result<(), MptError> {
        self.with_log(|log| log.cancel(intent))
    }

    fn confirm_failed(&self, intent: i64, error: &Value) -> Result<String, MptError> {
        self.with_log(|log| log.confirm_failed(intent, error))
    }

    fn intents(&self) -> Result<Vec<mpt_outbox::intent::Intent>, MptError> {
        self.with_log(|log| log.intents())
    }

    /// With no outbox there is no id map: the arguments go as they are.
    fn resolve(&self, args: &mut Value) -> Result<bool, MptError> {
        Ok(self.with_log(|log| log.resolve(args)).unwrap_or(true))
    }

    fn landed(&self, local_id: &str) -> Option<String> {
        self.with_log(|log| Ok(log.landed(local_id))).ok().flatten()
    }
}
