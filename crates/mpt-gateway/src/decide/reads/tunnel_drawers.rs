//! The drawers a tunnel names, held to the readable ones: a tunnel's end names a wing and, apart,
//! a drawer (an admin's tunnel may name one of another wing), so each drawer's own wing is looked up.

use std::collections::HashMap;

use serde_json::{Value, json};

use super::Caller;
use crate::decide::policy::Reads;
use crate::http::upstream::Failed;

/// Where a tunnel list's items name a drawer: `follow_tunnels`' connections (`drawer_id`, its
/// `drawer_preview` beside it) and `list_tunnels`' ends (`source.drawer_id`, `target.drawer_id`).
const SLOTS: &[&str] = &["", "/source", "/target"];

/// Looks up (`get_drawers`) the wing of each drawer `items` names; one that is hidden or missing
/// is answered as no drawer at all (`drawer_id: null`, as the server writes an end without one,
/// since the id names its wing) and loses its preview. Returns how many were hidden.
pub async fn hold(c: &Caller<'_>, reads: &Reads<'_>, items: &mut Value) -> Result<u64, Failed> {
    let Value::Array(items) = items else {
        return Ok(0);
    };
    let id_at = |item: &Value, slot: &str| {
        item.pointer(&format!("{slot}/drawer_id"))
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    let ids: Vec<String> = items
        .iter()
        .flat_map(|item| SLOTS.iter().filter_map(|s| id_at(item, s)))
        .collect();
    if ids.is_empty() {
        return Ok(0);
    }
    let (_, _, found) = c.call("get_drawers", &json!({"drawer_ids": ids})).await?;
    let wings: HashMap<&str, &str> = found
        .as_ref()
        .and_then(|f| f.get("results"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|r| Some((r.get("drawer_id")?.as_str()?, r.get("wing")?.as_str()?)))
        .collect();
    let mut hidden = 0;
    for item in items.iter_mut() {
        for slot in SLOTS {
            let Some(id) = id_at(item, slot) else {
                continue;
            };
            if wings.get(id.as_str()).is_some_and(|w| reads.sees(w)) {
                continue;
            }
            if let Some(Value::Object(m)) = item.pointer_mut(slot) {
                m.insert("drawer_id".into(), Value::Null);
                if slot.is_empty() {
                    m.shift_remove("drawer_preview");
                }
            }
            hidden += 1;
        }
    }
    Ok(hidden)
}
