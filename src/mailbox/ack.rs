//! Answering an ask (`mpt mailbox ack`): sent to the primary, or through the palace's owner; with
//! no owner and the primary unreachable, queued in the outbox (the primary validates it later).

use std::path::PathBuf;

use serde_json::Value;

use mpt_base::error::Result;
use mpt_mcp::{CallError, Deadline, HttpFailure, McpClient};
use mpt_outbox::{NewOp, OpenOptions, Origin, Outbox};

/// The tool an ack is.
pub const TOOL: &str = "mempalace_event_ack";

/// Where an ack waits when nothing can take it now.
pub struct Queue {
    pub path: PathBuf,
    pub opts: OpenOptions,
    pub origin: Origin,
}

/// How an ack went.
#[derive(Debug, Clone, PartialEq)]
pub enum Sent {
    /// The primary (or the owner, for the local palace and the outbox) took it: its event.
    Applied(Value),
    /// Queued in the outbox for the primary. `unconfirmed`: a send may have reached it (the
    /// flush checks the primary before resending).
    Queued { op_id: String, unconfirmed: bool },
}

/// Sends `args` through `client`; `queue` (no owner) takes it when the primary cannot be
/// reached. An owner answers offline itself (applied locally and queued, or queued alone when
/// its log lacks the event).
pub async fn send(client: &McpClient, queue: Option<&Queue>, args: Value) -> Result<Sent> {
    let sent = async {
        client.connect().await?;
        client
            .call_tool(TOOL, args.clone(), Deadline::Default)
            .await
    }
    .await;
    match (sent, queue) {
        (Ok(reply), _) => Ok(Sent::Applied(
            reply.payload.get("event").cloned().unwrap_or(Value::Null),
        )),
        (Err(e), Some(q)) if e.is_transient() => {
            let unconfirmed = may_have_applied(&e);
            let mut store = Outbox::open(&q.path, q.opts)?;
            let done = store.enqueue(
                &q.origin,
                NewOp {
                    tool: TOOL,
                    payload: &args,
                    dedupe_key: None,
                    local_reply: None,
                    maybe_applied: unconfirmed,
                },
            )?;
            Ok(Sent::Queued {
                op_id: done.op_id,
                unconfirmed,
            })
        }
        (Err(e), _) => Err(e.into()),
    }
}

/// A send that got no complete answer may have applied on the primary.
fn may_have_applied(e: &CallError) -> bool {
    e.is_ambiguous()
        || matches!(
            e,
            CallError::Http {
                failure: HttpFailure::Server,
                ..
            }
        )
}
