//! Applying `kg-location`: checkpoint, back up, move the graph beside the palace, swap the HOME
//! path for a link in one rename, read the counts back, and print the line that undoes it.

use std::path::{Path, PathBuf};

use rusqlite::Connection;

use super::apply::{Applied, Change, Verification, refuse_if_held};
use super::backup::{backup_dir, durable_copy, manifest, sh, size};
use super::kg::{Analysis, analyse, describe};
use super::scan::ScanSet;
use super::{Inputs, State};
use mpt_base::error::{MptError, Result};
use mpt_palace::kg::{self, KgStats};
use mpt_palace::landmine::{self, KgVerdict};
use mpt_palace::paths::realpath;
use mpt_palace::sqlite::sidecar;

pub fn apply(inputs: &Inputs, _scan: &ScanSet, yes: bool) -> Result<Applied> {
    let paths = inputs.palace()?;
    let a = analyse(paths)?;
    let changes = plan(&a);
    refuse_if_held(&a.paths, inputs)?;
    let mut out = Applied {
        step: "kg-location",
        dry_run: !yes,
        state_before: a.state,
        state_after: a.state,
        summary: describe(&a),
        changes,
        backup: None,
        verification: None,
        undo: None,
    };
    if !yes {
        return Ok(out);
    }
    let (home, palace) = (a.l.home_kg.clone(), a.l.palace_kg.clone());
    let backup = backup_dir(&a.paths.home, "kg-location")?;
    out.backup = Some(backup.clone());
    // 1. Fold each -wal into its database, then keep a copy of everything that will change.
    if home.is_file() {
        checkpoint(&home)?;
        durable_copy(&home, &backup.join("home-knowledge_graph.sqlite3"))?;
    }
    if palace.is_file() {
        checkpoint(&palace)?;
        durable_copy(&palace, &backup.join("palace-knowledge_graph.sqlite3"))?;
    }
    for (old, _) in &a.legacy {
        let name = old.file_name().unwrap_or_default().to_string_lossy();
        durable_copy(old, &backup.join(format!("legacy-{name}")))?;
    }
    let source = if a.move_home { &home } else { &palace };
    let before = kg::stats(source)?;
    // 2. The graph into the palace: a copy made durable, renamed over the target in one step.
    if a.move_home {
        let dir = palace.parent().unwrap_or(Path::new("/"));
        if !dir.exists() {
            // As MemPalace creates it: private to its owner.
            std::fs::create_dir_all(dir)
                .and_then(|_| {
                    std::fs::set_permissions(
                        dir,
                        std::os::unix::fs::PermissionsExt::from_mode(0o700),
                    )
                })
                .map_err(|e| MptError::io(format!("creating {}", dir.display()), &e))?;
        }
        let tmp = dir.join(".knowledge_graph.sqlite3.mpt-runbook");
        durable_copy(&home, &tmp)?;
        rename(&tmp, &palace)?;
        remove_sidecars(&palace)?;
    }
    // 3. The HOME path becomes a link, swapped in by one rename: it is never absent.
    if a.link {
        let target = realpath(&palace);
        let tmp = home.with_file_name(".knowledge_graph.sqlite3.mpt-link");
        let _ = std::fs::remove_file(&tmp);
        std::os::unix::fs::symlink(&target, &tmp)
            .map_err(|e| MptError::io(format!("linking {}", tmp.display()), &e))?;
        rename(&tmp, &home)?;
        remove_sidecars(&home)?;
    }
    for (old, new) in &a.legacy {
        move_file(old, new)?;
    }
    // 4. Read back: the same counts through both paths, and the landmine now sees one graph.
    out.undo = Some(undo(&a, &backup));
    let after = kg::stats(&palace)?;
    let via_home = kg::stats(&home)?;
    let verdict = landmine::inspect(&a.paths)?.verdict;
    let same = |x: &Option<KgStats>| {
        x.map(|s| (s.triples, s.entities)) == before.map(|s| (s.triples, s.entities))
            || (before.is_none() && x.is_some_and(|s| s.triples == 0 && s.entities == 0))
    };
    let graph_ok = !(a.link || a.move_home || a.drop_home)
        || (same(&after) && same(&via_home) && verdict == KgVerdict::Linked);
    let legacy_ok = a
        .legacy
        .iter()
        .all(|(old, new)| new.is_file() && !old.exists());
    let ok = graph_ok && legacy_ok;
    out.verification = Some(Verification::Graph {
        triples_before: before.map_or(0, |s| s.triples),
        triples_after: after.map_or(0, |s| s.triples),
        triples_via_home_path: via_home.map_or(0, |s| s.triples),
        entities_before: before.map_or(0, |s| s.entities),
        entities_after: after.map_or(0, |s| s.entities),
        verdict,
        legacy_moved: legacy_ok,
        ok,
    });
    out.state_after = if ok { State::Done } else { State::ToDo };
    manifest(&backup, &out)?;
    if !ok {
        return Err(MptError::new(
            mpt_base::error::ErrorKind::Io,
            format!(
                "the read-back does not match: {} triples before, {} after ({:?}); nothing was deleted, the backup is in {}",
                before.map_or(0, |s| s.triples),
                after.map_or(0, |s| s.triples),
                verdict,
                backup.display()
            ),
        )
        .with_hint(format!("undo: {}", out.undo.clone().unwrap_or_default()))
        .with_detail(serde_json::to_value(&out).unwrap_or_default()));
    }
    Ok(out)
}

fn plan(a: &Analysis) -> Vec<Change> {
    let (home, palace) = (&a.l.home_kg, &a.l.palace_kg);
    let mut c = Vec::new();
    if a.move_home {
        c.push(Change {
            action: "move",
            path: home.clone(),
            to: Some(palace.clone()),
            bytes: size(home),
            note: "the database, after a checkpoint folds its -wal into it".into(),
        });
        for s in ["-wal", "-shm"] {
            let f = sidecar(home, s);
            if f.exists() {
                c.push(Change {
                    action: "fold",
                    bytes: size(&f),
                    path: f,
                    to: None,
                    note: format!("{s}: checkpointed into the database, then removed"),
                });
            }
        }
    }
    if a.replace_palace {
        c.push(Change {
            action: "replace",
            path: palace.clone(),
            to: None,
            bytes: size(palace),
            note: "the empty palace-local graph (backed up)".into(),
        });
    }
    if a.drop_home {
        c.push(Change {
            action: "remove",
            path: home.clone(),
            to: None,
            bytes: size(home),
            note: "the empty HOME graph (backed up)".into(),
        });
    }
    if a.link {
        c.push(Change {
            action: "link",
            path: home.clone(),
            to: Some(realpath(palace)),
            bytes: 0,
            note: "processes started without --palace open the palace-local graph".into(),
        });
    }
    for (old, new) in &a.legacy {
        c.push(Change {
            action: "move",
            path: old.clone(),
            to: Some(new.clone()),
            bytes: size(old),
            note: "legacy file MemPalace 3.11 ignores, to where it reads".into(),
        });
    }
    c
}

/// One line that puts it all back: the graph (with anything written since) to the HOME path.
fn undo(a: &Analysis, backup: &Path) -> String {
    let (home, palace) = (&a.l.home_kg, &a.l.palace_kg);
    let mut parts = vec![format!("rm -f {}", sh(home))];
    if a.move_home {
        parts.push(format!(
            "for s in '' -wal -shm; do if [ -e {p}\"$s\" ]; then mv {p}\"$s\" {h}\"$s\"; fi; done",
            p = sh(palace),
            h = sh(home)
        ));
        if a.replace_palace {
            parts.push(format!(
                "cp -p {} {}",
                sh(&backup.join("palace-knowledge_graph.sqlite3")),
                sh(palace)
            ));
        }
    }
    if a.drop_home {
        parts.push(format!(
            "cp -p {} {}",
            sh(&backup.join("home-knowledge_graph.sqlite3")),
            sh(home)
        ));
    }
    for (old, new) in &a.legacy {
        parts.push(format!("mv {} {}", sh(new), sh(old)));
    }
    parts.join(" && ")
}

/// Folds the -wal into the database (TRUNCATE), refusing when a reader or writer is in the way.
fn checkpoint(db: &Path) -> Result<()> {
    let c = Connection::open(db)?;
    let (busy, _, _): (i64, i64, i64) =
        c.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })?;
    drop(c);
    let wal = sidecar(db, "-wal");
    if busy != 0 || size(&wal) > 0 {
        return Err(MptError::refused(format!(
            "cannot checkpoint {}: another connection is using it",
            db.display()
        ))
        .with_hint("stop every process using the knowledge graph, then re-run"));
    }
    Ok(())
}

/// Removes the (empty, after a checkpoint) -wal and -shm beside `db`'s path.
fn remove_sidecars(db: &Path) -> Result<()> {
    for s in ["-wal", "-shm"] {
        let f = sidecar(db, s);
        if f.exists() && size(&f) > 0 && s == "-wal" {
            return Err(MptError::refused(format!(
                "{} is not empty after the checkpoint",
                f.display()
            )));
        }
        if std::fs::symlink_metadata(&f).is_ok() {
            std::fs::remove_file(&f)
                .map_err(|e| MptError::io(format!("removing {}", f.display()), &e))?;
        }
    }
    Ok(())
}

fn rename(from: &Path, to: &Path) -> Result<()> {
    std::fs::rename(from, to).map_err(|e| {
        MptError::io(
            format!("renaming {} to {}", from.display(), to.display()),
            &e,
        )
    })
}

/// A rename, or a durable copy and a removal across filesystems.
fn move_file(from: &Path, to: &PathBuf) -> Result<()> {
    if std::fs::rename(from, to).is_ok() {
        return Ok(());
    }
    durable_copy(from, to)?;
    std::fs::remove_file(from).map_err(|e| MptError::io(format!("removing {}", from.display()), &e))
}
