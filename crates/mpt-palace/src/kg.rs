//! Reading a MemPalace knowledge graph, strictly read-only: counts and current facts, also from a
//! WAL database whose `-shm` is missing (copied aside and opened there, the original untouched).

use std::path::Path;

use super::sqlite::with_reader;
use mpt_base::error::Result;

/// What `kg_stats` reports, computed the way the server computes it (`knowledge_graph.py:933`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct KgStats {
    pub triples: u64,
    pub current_facts: u64,
    pub entities: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Fact {
    pub subject: String,
    pub predicate: String,
    pub object: String,
    pub valid_from: Option<String>,
}

/// Counts for the KG at `path`; `None` when there is no file.
pub fn stats(path: &Path) -> Result<Option<KgStats>> {
    with_reader(path, |c| {
        let count = |sql: &str| {
            c.query_row(sql, [], |r| r.get::<_, i64>(0))
                .map(|n| n as u64)
        };
        Ok(KgStats {
            triples: count("SELECT COUNT(*) FROM triples")?,
            current_facts: count("SELECT COUNT(*) FROM triples WHERE valid_to IS NULL")?,
            entities: count("SELECT COUNT(*) FROM entities")?,
        })
    })
}

/// Up to `limit` current facts (valid_to unset), newest first, with entity names.
pub fn current_facts(path: &Path, limit: u32) -> Result<Option<Vec<Fact>>> {
    with_reader(path, |c| {
        let mut st = c.prepare(
            "SELECT COALESCE(s.name, t.subject), t.predicate, COALESCE(o.name, t.object), t.valid_from
             FROM triples t LEFT JOIN entities s ON s.id = t.subject LEFT JOIN entities o ON o.id = t.object
             WHERE t.valid_to IS NULL ORDER BY t.rowid DESC LIMIT ?1",
        )?;
        let rows = st.query_map([limit], |r| {
            Ok(Fact {
                subject: r.get(0)?,
                predicate: r.get(1)?,
                object: r.get(2)?,
                valid_from: r.get(3)?,
            })
        })?;
        rows.collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCHEMA: &str = "CREATE TABLE entities(id TEXT PRIMARY KEY, name TEXT, type TEXT DEFAULT 'unknown', properties TEXT DEFAULT '{}', created_at TEXT);
        CREATE TABLE triples(id TEXT PRIMARY KEY, subject TEXT, predicate TEXT, object TEXT, valid_from TEXT, valid_to TEXT, confidence REAL, source_closet TEXT, source_file TEXT, source_drawer_id TEXT, adapter_name TEXT, extracted_at TEXT);";

    use super::super::sqlite::{nanos, sidecar};
    use rusqlite::Connection;
    use std::path::PathBuf;

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!(
            "mpt-kg-test-{name}-{}-{}",
            std::process::id(),
            nanos()
        ));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn absent_file_is_none() {
        assert_eq!(
            stats(Path::new("/nonexistent-mpt/kg.sqlite3")).unwrap(),
            None
        );
    }

    #[test]
    fn reads_uncheckpointed_wal_without_shm() {
        let d = scratch("wal");
        let live = d.join("live.sqlite3");
        let c = Connection::open(&live).unwrap();
        c.pragma_update(None, "journal_mode", "WAL").unwrap();
        c.pragma_update(None, "wal_autocheckpoint", 0).unwrap();
        c.execute_batch(SCHEMA).unwrap();
        c.execute_batch(
            "INSERT INTO entities(id,name) VALUES ('alice','Alice'),('mpt','mpt');
             INSERT INTO triples(id,subject,predicate,object) VALUES ('t1','alice','maintains','mpt');
             INSERT INTO triples(id,subject,predicate,object,valid_to) VALUES ('t2','alice','used','mpt','2026-01-01');",
        )
        .unwrap();
        // Copy the db and its -wal while the writer is still open: a WAL database with no -shm.
        let frozen = d.join("frozen").join("knowledge_graph.sqlite3");
        std::fs::create_dir_all(frozen.parent().unwrap()).unwrap();
        std::fs::copy(&live, &frozen).unwrap();
        std::fs::copy(sidecar(&live, "-wal"), sidecar(&frozen, "-wal")).unwrap();
        assert!(!sidecar(&frozen, "-shm").exists());
        let before = std::fs::read(&frozen).unwrap();

        let s = stats(&frozen).unwrap().unwrap();
        assert_eq!(
            s,
            KgStats {
                triples: 2,
                current_facts: 1,
                entities: 2
            }
        );
        let facts = current_facts(&frozen, 10).unwrap().unwrap();
        assert_eq!(facts.len(), 1);
        assert_eq!(
            (facts[0].subject.as_str(), facts[0].object.as_str()),
            ("Alice", "mpt")
        );
        assert_eq!(
            std::fs::read(&frozen).unwrap(),
            before,
            "the original is never written"
        );
        drop(c);
        std::fs::remove_dir_all(&d).unwrap();
    }
}
