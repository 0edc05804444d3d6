//! How a restricted device's read goes upstream: the wing forced when its globs name one, a
//! search over-fetched to be filtered, a count answered from the taxonomy, a list wing by wing.

use serde_json::{Value, json};

use crate::decide::policy::{Reads, StreamGlobs};
use mpt_palace::catalog::{self, Reveals};

/// Search's own cap on `limit` (`_MAX_RESULTS`): what an over-fetch asks.
pub const OVER_FETCH: u64 = 100;
/// Search's default `limit`.
const SEARCH_LIMIT: u64 = 5;

/// The upstream calls a read needs.
#[derive(Debug, Clone, PartialEq)]
pub enum Fetch {
    /// The call itself, with the planned arguments.
    One,
    /// `status` and `get_taxonomy`: the counts recomputed over the readable wings.
    WithTaxonomy,
    /// `get_taxonomy` alone: `list_rooms` over every readable wing.
    Taxonomy,
    /// `list_drawers`, `list_hallways` naming no wing: one page across the readable wings,
    /// wing by wing (`items` is the reply's list).
    WingByWing { items: &'static str },
}

#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// The arguments sent upstream.
    pub args: Value,
    pub fetch: Fetch,
    /// A search over-fetched: the client's own limit, the filtered results cut to it.
    pub cut_to: Option<u64>,
    /// A filtered search or list: the reply says how much it hid (`mpt_filtered`).
    pub counted: bool,
}

/// What to send for `reveals` with the client's `args`, or the rule refusing it. `reads` is
/// `None` for a device that reads every wing (only `status`'s paths are then hidden), `streams`
/// for one that reads every stream.
pub fn plan(
    reveals: Reveals,
    reads: Option<Reads>,
    streams: Option<StreamGlobs>,
    args: &Value,
) -> Result<Plan, String> {
    let mut plan = Plan {
        args: args.clone(),
        fetch: Fetch::One,
        cut_to: None,
        counted: false,
    };
    let named = |k: &str| {
        args.get(k)
            .and_then(Value::as_str)
            .is_some_and(|s| !catalog::py_strip(s).is_empty())
    };
    if reveals == Reveals::Events {
        // Held to `streams.read`: a stream named was checked; none: the one, or filtered.
        plan.counted = streams.is_some();
        if !named("stream")
            && let Some(only) = streams.and_then(|g| g.only())
        {
            set(&mut plan.args, "stream", json!(only));
        }
        return Ok(plan);
    }
    let Some(reads) = reads else {
        return Ok(plan);
    };
    let force = |plan: &mut Plan| match reads.only() {
        Some(w) => {
            set(&mut plan.args, "wing", json!(w));
            true
        }
        None => false,
    };
    match reveals {
        Reveals::Status => plan.fetch = Fetch::WithTaxonomy,
        Reveals::WingCounts | Reveals::Taxonomy | Reveals::Tunnels => plan.counted = true,
        Reveals::RoomCounts if !named("wing") => {
            plan.fetch = Fetch::Taxonomy;
            plan.counted = true;
        }
        Reveals::Search => {
            // Plain text (`cli_output`): nothing the gateway can filter. The server tests it by
            // Python truthiness (`1`, `"yes"`, `[1]` all turn it on): only absent, `null` or
            // `false` leave the reply a filterable shape.
            if !matches!(
                args.get("cli_compatible"),
                None | Some(Value::Null) | Some(Value::Bool(false))
            ) {
                return Err("wings.read:cli_compatible".into());
            }
            plan.counted = true;
            if !named("wing") && !force(&mut plan) {
                let limit = args
                    .get("limit")
                    .and_then(Value::as_u64)
                    .unwrap_or(SEARCH_LIMIT)
                    .clamp(1, OVER_FETCH);
                set(&mut plan.args, "limit", json!(OVER_FETCH));
                plan.cut_to = Some(limit);
            }
        }
        Reveals::DrawerList | Reveals::Hallways => {
            plan.counted = true;
            if !named("wing") && !force(&mut plan) {
                let items = if reveals == Reveals::DrawerList {
                    "drawers"
                } else {
                    "hallways"
                };
                plan.fetch = Fetch::WingByWing { items };
            }
        }
        Reveals::Diary if !named("wing") => {
            // Entries carry no wing: the read is held to the derived one (checked readable).
            if let Some(w) = catalog::sent("diary_read", args).pop() {
                set(&mut plan.args, "wing", json!(w.value));
            }
        }
        _ => {}
    }
    Ok(plan)
}

fn set(args: &mut Value, key: &str, v: Value) {
    if let Value::Object(m) = args {
        m.insert(key.to_string(), v);
    }
}
