//! One page of `list_drawers` or `list_hallways` across a restricted device's readable wings:
//! the wings from `list_wings`, each wing's total, then only the slices the page overlaps.

use serde_json::{Value, json};

use super::Caller;
use crate::decide::policy::Reads;
use crate::http::upstream::Failed;

/// The server's defaults and caps for (`limit`, its cap) of each list.
fn limits(items: &str) -> (u64, u64) {
    if items == "drawers" {
        (20, 100)
    } else {
        (100, 500)
    }
}

/// The page `args` asks for, over the readable wings in `list_wings`'s order, wing by wing:
/// `{items, total, count, offset, limit, mpt_filtered}` (the hidden wings' items counted).
pub async fn across_wings(
    c: &Caller<'_>,
    tool: &str,
    args: &Value,
    items: &str,
    reads: &Reads<'_>,
) -> Result<(u16, Value, Option<Value>), Failed> {
    let (default, cap) = limits(items);
    let limit = args
        .get("limit")
        .and_then(Value::as_u64)
        .unwrap_or(default)
        .clamp(1, cap);
    let offset = args.get("offset").and_then(Value::as_u64).unwrap_or(0);
    let (status, envelope, wings) = c.call("list_wings", &json!({})).await?;
    let Some(Value::Object(all)) = wings.as_ref().and_then(|w| w.get("wings")) else {
        return Ok((status, envelope, wings));
    };
    let with = |wing: Option<&str>, offset: u64, limit: u64| {
        let mut a = args.clone();
        if let Value::Object(m) = &mut a {
            match wing {
                Some(w) => m.insert("wing".into(), json!(w)),
                None => m.remove("wing"),
            };
            m.insert("offset".into(), json!(offset));
            m.insert("limit".into(), json!(limit));
        }
        a
    };
    let total_of = |p: &Value| p.get("total").and_then(Value::as_u64).unwrap_or(0);
    let mut page: Vec<Value> = Vec::new();
    let (mut start, mut shown) = (0u64, 0u64);
    for wing in all.keys().filter(|w| reads.sees(w)) {
        let (s, e, p) = c.call(tool, &with(Some(wing), 0, 1)).await?;
        let Some(p) = p else {
            return Ok((s, e, None));
        };
        if p.get("error").is_some() {
            return Ok((s, e, Some(p)));
        }
        let total = total_of(&p);
        let end = offset + limit;
        if start + total > offset && start < end && (page.len() as u64) < limit {
            let from = offset.saturating_sub(start);
            let want = (end - start.max(offset)).min(total - from);
            let (_, _, slice) = c.call(tool, &with(Some(wing), from, want)).await?;
            if let Some(Value::Array(got)) = slice.as_ref().and_then(|s| s.get(items)) {
                page.extend(got.iter().cloned());
            }
        }
        start += total;
        shown += total;
    }
    let (_, _, everything) = c.call(tool, &with(None, 0, 1)).await?;
    let hidden = everything
        .as_ref()
        .map_or(0, total_of)
        .saturating_sub(shown);
    let count = page.len();
    let payload = json!({items: page, "total": shown, "count": count, "offset": offset,
        "limit": limit, "mpt_filtered": hidden});
    Ok((status, envelope, Some(payload)))
}
