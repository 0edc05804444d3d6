//! Reading drawers from a palace over MCP: its wings, every drawer of a wing in id order
//! (list_drawers pages), their whole content in bounded batches (get_drawers reassembles chunks).

use std::collections::{HashMap, HashSet};

use serde_json::{Value, json};

use super::{Kind, items, read};
use mpt_base::error::Result;
use mpt_mcp::McpClient;

/// list_drawers' own maximum page.
const PAGE: usize = 100;
/// get_drawers takes at most 500 ids; fewer keep one reply small (a drawer is up to 100,000 chars).
const FETCH_IDS: usize = 50;
/// MemPalace's default chunk size: a listed drawer's `chunks` times this estimates its size.
const CHUNK_CHARS: usize = 800;
const FETCH_CHARS: usize = 2_000_000;

/// A drawer as list_drawers shows it (metadata of its first chunk).
#[derive(Debug, Clone)]
pub(super) struct Listed {
    pub(super) id: String,
    pub(super) wing: String,
    pub(super) room: String,
    pub(super) meta: Value,
    pub(super) chunks: usize,
}

impl Listed {
    pub(super) fn is_diary(&self) -> bool {
        self.meta["type"] == "diary_entry"
    }

    pub(super) fn kind(&self) -> Kind {
        if self.is_diary() {
            Kind::Diary
        } else {
            Kind::Drawer
        }
    }
}

/// The palace's wings (list_wings), sorted; none when it has no drawers yet.
pub(super) async fn wings(client: &McpClient) -> Result<Vec<String>> {
    let p = read(client, "mempalace_list_wings", json!({})).await?;
    if missing_palace(&p) {
        return Ok(Vec::new());
    }
    let Some(wings) = p["wings"].as_object() else {
        return Err(items(&p, "mempalace_list_wings", "wings").unwrap_err());
    };
    let mut w: Vec<String> = wings.keys().cloned().collect();
    w.sort();
    Ok(w)
}

/// Every drawer of `wing` (of `room` when given), paged in id order until `total`.
pub(super) async fn list(
    client: &McpClient,
    wing: &str,
    room: Option<&str>,
) -> Result<Vec<Listed>> {
    let mut out: Vec<Listed> = Vec::new();
    let mut seen = HashSet::new();
    let mut offset = 0usize;
    loop {
        let mut args = json!({"wing": wing, "limit": PAGE, "offset": offset});
        if let Some(r) = room {
            args["room"] = json!(r);
        }
        let p = read(client, "mempalace_list_drawers", args).await?;
        if missing_palace(&p) {
            break;
        }
        let page = items(&p, "mempalace_list_drawers", "drawers")?;
        let total = p["total"].as_u64().unwrap_or(0) as usize;
        let n = page.len();
        for d in page {
            let id = d["drawer_id"].as_str().unwrap_or("").to_string();
            // A drawer inserted before our offset shows one row twice.
            if id.is_empty() || !seen.insert(id.clone()) {
                continue;
            }
            let meta = d.get("metadata").cloned().unwrap_or(Value::Null);
            out.push(Listed {
                wing: d["wing"].as_str().unwrap_or(wing).to_string(),
                room: d["room"].as_str().unwrap_or("").to_string(),
                chunks: d["chunks"].as_u64().unwrap_or(1).max(1) as usize,
                id,
                meta,
            });
        }
        offset += n;
        if n == 0 || offset >= total {
            break;
        }
    }
    Ok(out)
}

/// Consecutive runs of drawers whose content fits one get_drawers reply.
pub(super) fn batches(drawers: &[Listed]) -> Vec<&[Listed]> {
    let mut out = Vec::new();
    let (mut start, mut chars) = (0usize, 0usize);
    for (i, d) in drawers.iter().enumerate() {
        let size = d.chunks * CHUNK_CHARS;
        if i > start && (i - start >= FETCH_IDS || chars + size > FETCH_CHARS) {
            out.push(&drawers[start..i]);
            (start, chars) = (i, 0);
        }
        chars += size;
    }
    if start < drawers.len() {
        out.push(&drawers[start..]);
    }
    out
}

/// The whole content of each drawer (get_drawers reassembles chunks); a missing one is absent.
pub(super) async fn fetch(
    client: &McpClient,
    drawers: &[Listed],
) -> Result<HashMap<String, String>> {
    let ids: Vec<&str> = drawers.iter().map(|d| d.id.as_str()).collect();
    let p = read(client, "mempalace_get_drawers", json!({"drawer_ids": ids})).await?;
    if missing_palace(&p) {
        return Ok(HashMap::new());
    }
    Ok(items(&p, "mempalace_get_drawers", "results")?
        .iter()
        .filter(|r| r.get("error").is_none())
        .filter_map(|r| {
            Some((
                r["drawer_id"].as_str()?.to_string(),
                r["content"].as_str()?.to_string(),
            ))
        })
        .collect())
}

/// A palace with no drawer store yet answers reads with this error: it holds nothing.
pub(super) fn missing_palace(p: &Value) -> bool {
    p.get("error")
        .and_then(Value::as_str)
        .is_some_and(|e| e.contains("database missing") || e.contains("No palace"))
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    pub(crate) fn listed(id: &str, meta: Value, chunks: usize) -> Listed {
        Listed {
            id: id.into(),
            wing: "w".into(),
            room: "r".into(),
            meta,
            chunks,
        }
    }

    #[test]
    fn batches_bound_ids_and_size() {
        let small: Vec<Listed> = (0..120)
            .map(|i| listed(&format!("d{i:03}"), Value::Null, 1))
            .collect();
        let b = batches(&small);
        assert_eq!(b.iter().map(|b| b.len()).collect::<Vec<_>>(), [50, 50, 20]);
        let big: Vec<Listed> = (0..3)
            .map(|i| listed(&format!("d{i}"), Value::Null, 2000))
            .collect();
        assert_eq!(batches(&big).len(), 3, "1.6 M chars each: one a reply");
        assert!(batches(&[]).is_empty());
    }
}
