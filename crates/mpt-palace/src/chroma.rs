//! The drawer count of a palace read straight from its `chroma.sqlite3` (read-only, no MemPalace
//! process started): what the `mempalace` CLI on this machine would report.

use std::path::Path;

use super::files::DRAWERS_COLLECTION;
use super::sqlite::with_reader;
use mpt_base::error::Result;

/// Drawers in the palace at `palace`; `None` when it has no `chroma.sqlite3`.
pub fn drawer_count(palace: &Path) -> Result<Option<u64>> {
    with_reader(&palace.join("chroma.sqlite3"), |c| {
        c.query_row(
            "SELECT COUNT(*) FROM embeddings e JOIN segments s ON e.segment_id = s.id
             JOIN collections c ON s.collection = c.id WHERE c.name = ?1 AND s.scope = 'METADATA'",
            [DRAWERS_COLLECTION],
            |r| r.get::<_, i64>(0),
        )
        .map(|n| n as u64)
    })
}
