//! Opening the outbox to read only (`mpt outbox`, `list`, `show`): no write, no schema change,
//! so a full disk never stops an operator from seeing what is queued.

use std::fs::OpenOptions as FsOpen;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use rusqlite::{Connection, OpenFlags};

use super::schema::{SCHEMA_VERSION, sql};
use super::store::{OpenOptions, Outbox, sidecar};
use mpt_base::error::{ErrorKind, MptError, Result};

impl Outbox {
    /// Opens an existing outbox read-only; `None` when it holds no schema yet (nothing was ever
    /// queued). Tried first as SQLite's ordinary read-only connection; when that cannot size
    /// the shared-memory file (a full disk), with a read-only one, which SQLite then keeps in
    /// heap memory while it still reads the write-ahead log.
    pub fn open_read_only(path: &Path, opts: OpenOptions) -> Result<Option<Outbox>> {
        let conn = match connect(path, false, opts) {
            Ok(c) => c,
            Err(first) => {
                // `readonly_shm` needs the file to exist; an empty one takes no space.
                let shm = sidecar(path, "-shm");
                let _ = FsOpen::new()
                    .write(true)
                    .create(true)
                    .truncate(false)
                    .mode(0o600)
                    .open(&shm);
                connect(path, true, opts).map_err(|_| first)?
            }
        };
        let version: i64 = conn
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .map_err(|e| sql(&format!("reading the outbox {}", path.display()), &e))?;
        match version {
            0 => Ok(None),
            SCHEMA_VERSION => Ok(Some(Outbox::from_connection(conn, path, opts))),
            // Made by an older mpt: upgraded in place once (the one write a reader makes).
            older if older < SCHEMA_VERSION => {
                drop(conn);
                Outbox::open(path, opts).map(Some).map_err(|e| {
                    MptError::new(
                        e.kind,
                        format!(
                            "the outbox {} has schema version {older} and could not be upgraded to {SCHEMA_VERSION}: {}",
                            path.display(),
                            e.message
                        ),
                    )
                    .with_hint("free some disk space, then run the command again")
                })
            }
            newer => Err(MptError::new(
                ErrorKind::Io,
                format!("the outbox has schema version {newer}; this mpt knows {SCHEMA_VERSION}"),
            )
            .with_hint("a newer mpt wrote this outbox: use that version (never edit it by hand)")),
        }
    }
}

/// The outbox the edge of `palace` queues in, opened read-only (`None`: none exists yet).
pub fn existing(
    env: &mpt_base::config::Env,
    config: &mpt_base::config::Config,
    palace: Option<&Path>,
) -> Result<Option<Outbox>> {
    let path = mpt_palace::edge_outbox(env, config, palace)?;
    if !path.exists() {
        return Ok(None);
    }
    Outbox::open_read_only(&path, super::open_options(env)?)
}

/// A read-only connection that has read the schema version (the first read is where a
/// connection that cannot set up its shared memory fails).
fn connect(path: &Path, readonly_shm: bool, opts: OpenOptions) -> Result<Connection> {
    let mut uri = url_path(path);
    uri.push_str("?mode=ro");
    if readonly_shm {
        uri.push_str("&readonly_shm=1");
    }
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
        | OpenFlags::SQLITE_OPEN_URI
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let what = format!("opening the outbox {} to read", path.display());
    let conn = Connection::open_with_flags(&uri, flags).map_err(|e| sql(&what, &e))?;
    conn.busy_timeout(opts.busy_timeout)
        .map_err(|e| sql(&what, &e))?;
    conn.query_row("SELECT count(*) FROM sqlite_schema", [], |r| {
        r.get::<_, i64>(0)
    })
    .map_err(|e| sql(&what, &e))?;
    Ok(conn)
}

/// `file:` URI for `path`, with the characters a URI gives meaning to escaped.
fn url_path(path: &Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    let mut out = String::from("file:");
    for &b in path.as_os_str().as_bytes() {
        match b {
            b'?' | b'#' | b'%' => out.push_str(&format!("%{b:02X}")),
            _ if b.is_ascii() && !b.is_ascii_control() => out.push(b as char),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{NewOp, Origin};
    use serde_json::json;

    #[test]
    fn an_outbox_is_read_read_only_and_a_path_with_uri_characters_works() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("odd ?#% name.sqlite3");
        let origin = Origin {
            device: "d".into(),
            host: "h".into(),
            inbox: None,
        };
        {
            let mut o = Outbox::open(&path, OpenOptions::default()).unwrap();
            o.enqueue(
                &origin,
                NewOp {
                    tool: "mempalace_kg_add",
                    payload: &json!({"subject": "a", "predicate": "b", "object": "c"}),
                    dedupe_key: None,
                    local_reply: None,
                    maybe_applied: false,
                },
            )
            .unwrap();
        }
        let r = Outbox::open_read_only(&path, OpenOptions::default())
            .unwrap()
            .expect("a schema");
        assert_eq!(r.list(&[], 10, true).unwrap().len(), 1);
    }

    #[test]
    fn an_empty_file_reads_as_no_outbox() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("outbox.sqlite3");
        std::fs::write(&path, b"").unwrap();
        assert!(
            Outbox::open_read_only(&path, OpenOptions::default())
                .unwrap()
                .is_none()
        );
    }
}
