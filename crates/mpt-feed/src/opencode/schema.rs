//! Which opencode databases mpt can read: the schema is keyed on opencode's migration journal
//! (its count and the last migration applied); anything else is skipped with the key it found.

use rusqlite::{Connection, OptionalExtension};

/// One migration journal state whose tables mpt was checked against (a real opencode wrote it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Known {
    /// The journal table: `migration` (opencode 1.18) or drizzle's `__drizzle_migrations`.
    pub table: &'static str,
    pub count: i64,
    /// The last migration's id (`migration`) or hash (`__drizzle_migrations`).
    pub last: &'static str,
    /// The opencode release it was observed with.
    pub version: &'static str,
}

/// The schemas read here (docs/research/opencode-sessions.md says how each was learnt).
pub const KNOWN: &[Known] = &[Known {
    table: "migration",
    count: 38,
    last: "20260622202450_simplify_session_input",
    version: "1.18.33",
}];

/// What the journal says, for the known check and for the skip message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Key {
    pub table: String,
    pub count: i64,
    pub last: String,
}

impl std::fmt::Display for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} {} migrations, last {}",
            self.table, self.count, self.last
        )
    }
}

/// The database's journal key, `None` when it has no journal this module knows (not opencode's,
/// or created but not migrated yet).
pub fn key(c: &Connection) -> rusqlite::Result<Option<Key>> {
    let has = |t: &str| -> rusqlite::Result<bool> {
        c.query_row(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?1",
            [t],
            |r| r.get::<_, i64>(0),
        )
        .map(|n| n > 0)
    };
    let (table, sql) = if has("migration")? {
        (
            "migration",
            "SELECT count(*), (SELECT id FROM migration ORDER BY id DESC LIMIT 1) FROM migration",
        )
    } else if has("__drizzle_migrations")? {
        (
            "__drizzle_migrations",
            "SELECT count(*), (SELECT hash FROM __drizzle_migrations ORDER BY created_at DESC, id DESC LIMIT 1) FROM __drizzle_migrations",
        )
    } else {
        return Ok(None);
    };
    c.query_row(sql, [], |r| {
        Ok(Key {
            table: table.to_string(),
            count: r.get(0)?,
            last: r.get::<_, Option<String>>(1)?.unwrap_or_default(),
        })
    })
    .optional()
}

/// The known schema this key names.
pub fn known(k: &Key) -> Option<&'static Known> {
    KNOWN
        .iter()
        .find(|s| s.table == k.table && s.count == k.count && s.last == k.last)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_on_the_journal() {
        let c = Connection::open_in_memory().unwrap();
        assert_eq!(key(&c).unwrap(), None);
        c.execute_batch(
            "CREATE TABLE migration (id TEXT PRIMARY KEY, time_completed INTEGER NOT NULL);",
        )
        .unwrap();
        for i in 0..37 {
            c.execute(
                "INSERT INTO migration VALUES (?1, 0)",
                [format!("2025{i:02}_m")],
            )
            .unwrap();
        }
        c.execute(
            "INSERT INTO migration VALUES ('20260622202450_simplify_session_input', 0)",
            [],
        )
        .unwrap();
        let k = key(&c).unwrap().unwrap();
        assert_eq!(known(&k).map(|s| s.version), Some("1.18.33"));
        c.execute(
            "INSERT INTO migration VALUES ('20990101000000_next', 0)",
            [],
        )
        .unwrap();
        let k = key(&c).unwrap().unwrap();
        assert_eq!(known(&k), None);
        assert_eq!(
            k.to_string(),
            "migration 39 migrations, last 20990101000000_next"
        );
    }
}
