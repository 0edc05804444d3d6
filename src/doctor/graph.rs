//! Checks `kg-path` (the landmine: a split or stranded knowledge graph) and `embedder` (both
//! palaces' embedder identities: merged reads compare distances only within one model).

use std::time::Duration;

use serde_json::Value;

use super::{Check, Inputs, Status};
use mpt_base::error::MptError;
use mpt_mcp::Deadline;
use mpt_mcp::http::{HttpClient, HttpOptions};
use mpt_palace::files;
use mpt_palace::kg::KgStats;
use mpt_palace::landmine::{self, KgVerdict};

pub fn kg_path(inputs: &Inputs) -> Check {
    let id = "kg-path";
    let paths = match inputs.palace() {
        Ok(p) => p,
        Err(e) => return Check::new(id, Status::Skip, e.message),
    };
    let l = match landmine::inspect(&paths) {
        Ok(l) => l,
        Err(e) => return Check::new(id, Status::Fail, e.message),
    };
    let show = |s: &Option<KgStats>| {
        s.map_or("absent".to_string(), |s| {
            format!("{} triples ({} current)", s.triples, s.current_facts)
        })
    };
    let c = Check::new(id, Status::Ok, "")
        .evidence(format!(
            "with --palace (serve, mpt): {}  {}",
            l.palace_kg.display(),
            show(&l.palace_stats)
        ))
        .evidence(format!(
            "without --palace: {}  {}",
            l.home_kg.display(),
            show(&l.home_stats)
        ));
    let fix = "`mpt runbook phase0` moves the HOME graph beside the palace (step kg-location) with a backup; merging two graphs is a decision it leaves to you";
    let triples = |s: &Option<KgStats>| s.map_or(0, |s| s.triples);
    match l.verdict {
        KgVerdict::Clean if l.palace_stats.is_none() && l.home_stats.is_none() => Check { summary: "no knowledge graph yet".into(), ..c },
        KgVerdict::Clean => Check { summary: format!("one knowledge graph, palace-local: {}", show(&l.palace_stats)), ..c },
        KgVerdict::Linked => Check { summary: "the HOME path links to the palace-local graph: one knowledge graph".into(), ..c },
        // The runbook's kg-location step is "to do" in this very state: one verdict for both.
        KgVerdict::Unlinked => Check {
            status: Status::Warn,
            summary: format!(
                "one knowledge graph, palace-local ({}), but no link at {}: a process started without --palace would open a new, empty graph there and split the KG",
                show(&l.palace_stats),
                l.home_kg.display()
            ),
            ..c
        }
        .fix(link_fix(&inputs.env, &paths)),
        KgVerdict::Split => Check {
            status: Status::Fail,
            summary: format!(
                "two knowledge graphs: {} palace-local and {} under HOME; kg_query answers depend on which process you ask",
                triples(&l.palace_stats),
                triples(&l.home_stats)
            ),
            ..c
        }
        .fix(fix),
        KgVerdict::Stranded => Check {
            status: Status::Fail,
            summary: format!(
                "the palace-local graph is {} while {} holds {} triples: the primary and every --palace process see an empty KG",
                if l.palace_stats.is_some() { "empty" } else { "absent" },
                l.home_kg.display(),
                triples(&l.home_stats)
            ),
            ..c
        }
        .fix(fix),
    }
}

/// The runbook's step that leaves the link; it refuses while MemPalace holds the palace, so when
/// mpt's own edge owner is the holder, stopping it comes first.
fn link_fix(env: &mpt_base::config::Env, paths: &mpt_palace::PalacePaths) -> String {
    let apply = "`mpt runbook apply kg-location --yes` leaves the link (a backup is kept; a dry run without --yes)";
    match mpt_edge::stop::OwnerHold::of(env, &paths.home, &paths.palace) {
        Some(o) => format!(
            "the palace is held by {}: {}",
            o.described(),
            o.fix(&paths.palace, apply)
        ),
        None => apply.to_string(),
    }
}

pub async fn embedder(inputs: &Inputs) -> Check {
    let id = "embedder";
    let paths = match inputs.palace() {
        Ok(p) => p,
        Err(e) => return Check::new(id, Status::Skip, e.message),
    };
    let local = match files::embedder_identity(&paths.embedder_sidecar) {
        Ok(Some(l)) => l,
        Ok(None) => {
            return Check::new(
                id,
                Status::Skip,
                "no local palace embedder recorded yet (written on the first write)",
            );
        }
        Err(e) => return Check::new(id, Status::Warn, e.message),
    };
    let mut c = Check::new(id, Status::Ok, "").evidence(format!(
        "local: {} ({})",
        local.model_name,
        paths.embedder_sidecar.display()
    ));
    if local.dimension == 0 {
        c = c.evidence("local dimension 0: unknown, and MemPalace's own check skips it");
    } else {
        c = c.evidence(format!("local dimension {}", local.dimension));
    }
    let Ok(config) = &inputs.config else {
        return Check {
            summary: format!("local embedder {}", local.model_name),
            ..c
        };
    };
    let Some(remote) = &config.remote else {
        return Check {
            summary: format!(
                "local embedder {} (solitary: nothing to merge with)",
                local.model_name
            ),
            ..c
        };
    };
    let mut primary: Option<(String, &str)> = None;
    let mut unreachable = None;
    let mut refused = None;
    if !inputs.offline
        && let Ok(http) = HttpClient::new(HttpOptions {
            timeout: Some(Duration::from_secs(10)),
            init_timeout: None,
            connect_timeout: Duration::from_secs(5),
            ..HttpOptions::for_remote(remote, config)
        })
    {
        match http.get("/sync/version_vector", Deadline::Default).await {
            Ok((200, body)) => {
                if let Some(name) = serde_json::from_str::<Value>(&body).ok().and_then(|v| {
                    v.pointer("/profile/accelerator/embedder")
                        .and_then(Value::as_str)
                        .map(str::to_string)
                }) {
                    primary = Some((name, "GET /sync/version_vector"));
                }
            }
            // The token refused: the endpoint is not to blame (issue 56, item 8).
            Ok((401, _)) => refused = Some("the primary refused this device's token".to_string()),
            Ok(_) => {}
            Err(e) if e.is_transient() => unreachable = Some(MptError::from(e).message),
            Err(_) => {}
        }
    }
    if primary.is_none()
        && let Some(declared) = &config.file.primary_embedder
    {
        primary = Some((declared.clone(), "declared in the mpt config"));
    }
    match primary {
        None if refused.is_some() => Check {
            status: Status::Skip,
            summary: format!(
                "not compared: {}; `transport` says why and how to fix it",
                refused.unwrap_or_default()
            ),
            ..c
        },
        // Not the endpoint's fault: with the primary away there is nothing to compare yet.
        None if unreachable.is_some() => Check {
            status: Status::Skip,
            summary: format!(
                "not compared: the primary is unreachable ({}); `transport` says why",
                unreachable.unwrap_or_default()
            ),
            ..c
        },
        None => Check {
            status: Status::Warn,
            summary: "the primary's embedder is unknown: merged reads stay off until it is known".into(),
            ..c
        }
        .fix("expose /sync/version_vector on the primary, or declare `primary_embedder` in the mpt config"),
        Some((name, source)) if name == local.model_name => Check {
            summary: format!("both palaces embed with {name}"),
            ..c.evidence(format!("primary: {name} ({source})"))
        },
        Some((name, source)) => Check {
            status: Status::Fail,
            summary: format!("local palace embeds with {} but the primary with {name}: merged reads would compare distances across models", local.model_name),
            ..c.evidence(format!("primary: {name} ({source})"))
        }
        .fix("use one embedding model fleet-wide (MEMPALACE_EMBEDDING_MODEL), re-embedding the odd palace out; until then the edge answers primary-first without merging"),
    }
}
