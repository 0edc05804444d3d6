//! `mpt paths`: where MemPalace keeps this palace's files (3.11 rules) and what they hold: both
//! knowledge-graph locations with their counts, the embedder, a registered hub, the writer lease.

use clap::Args;

use crate::commands::Ctx;
use crate::commands::PalaceArg;
use mpt_base::error::{Exit, Result};
use mpt_palace::{PalacePaths, files, kg};

/// `mpt paths --json` (`mpt.paths/v1`): its field paths and types pinned by
/// `tests/it/documents.rs`.
#[derive(Debug, serde::Serialize)]
struct PathsDoc<'a> {
    schema: &'static str,
    paths: &'a PalacePaths,
    palace_exists: bool,
    kg: KgDoc<'a>,
    embedder: &'a Option<files::EmbedderIdentity>,
    hub: &'a Option<files::ServerInfo>,
    writer_lease: &'a Option<files::LeaseHolder>,
}

/// Both knowledge-graph locations MemPalace 3.11 may use, with their counts (`None`: absent).
#[derive(Debug, serde::Serialize)]
struct KgDoc<'a> {
    with_palace_flag: &'a Option<kg::KgStats>,
    without_palace_flag: &'a Option<kg::KgStats>,
}

#[derive(Debug, Args)]
pub struct PathsArgs {
    #[command(flatten)]
    pub palace: PalaceArg,
}

pub fn run(ctx: &Ctx, args: PathsArgs) -> Result<Exit> {
    let config = ctx.config()?;
    let p = PalacePaths::chosen(&ctx.env, args.palace.path.as_deref(), Some(&config))?;
    let kg_flag = kg::stats(&p.kg_with_flag)?;
    let kg_home = if p.kg_without_flag == p.kg_with_flag {
        None
    } else {
        kg::stats(&p.kg_without_flag)?
    };
    let embedder = files::embedder_identity(&p.embedder_sidecar)?;
    let hub = files::server_info(&p.serverinfo)?;
    let lease = files::lease_holder(&p.writer_lease)?;
    let doc = PathsDoc {
        schema: mpt_base::schema::PATHS,
        paths: &p,
        palace_exists: p.palace.join("chroma.sqlite3").is_file(),
        kg: KgDoc {
            with_palace_flag: &kg_flag,
            without_palace_flag: &kg_home,
        },
        embedder: &embedder,
        hub: &hub,
        writer_lease: &lease,
    };
    ctx.out.emit_typed(&doc, |w| {
        let row = |w: &mut dyn std::io::Write, k: &str, v: String| writeln!(w, "{k:<22} {v}");
        let counts = |s: &Option<kg::KgStats>| match s {
            None => "absent".to_string(),
            Some(s) => format!(
                "{} triples ({} current), {} entities",
                s.triples, s.current_facts, s.entities
            ),
        };
        row(w, "config dir", p.config_dir.display().to_string())?;
        row(w, "palace", p.palace.display().to_string())?;
        row(
            w,
            "KG (--palace)",
            format!("{}  {}", p.kg_with_flag.display(), counts(&kg_flag)),
        )?;
        row(
            w,
            "KG (no --palace)",
            format!("{}  {}", p.kg_without_flag.display(), counts(&kg_home)),
        )?;
        row(
            w,
            "hallways / tunnels",
            format!("{} / {}", p.hallways.display(), p.tunnels.display()),
        )?;
        row(w, "known entities", p.known_entities.display().to_string())?;
        row(
            w,
            "embedder",
            embedder
                .as_ref()
                .map_or("unknown (no sidecar)".into(), |e| {
                    format!("{} (dimension {})", e.model_name, e.dimension)
                }),
        )?;
        row(
            w,
            "writer lease",
            match &lease {
                None => "no lease file".into(),
                Some(l) if l.held => format!(
                    "held by pid {}",
                    l.pid.map_or("?".into(), |p| p.to_string())
                ),
                Some(_) => "free".into(),
            },
        )?;
        row(
            w,
            "hub",
            match &hub {
                Some(h) if h.alive => format!("{} (pid {})", h.mcp_url(), h.pid),
                Some(h) => format!("stale record (pid {} is gone)", h.pid),
                None => "none registered".into(),
            },
        )?;
        Ok(())
    })?;
    Ok(Exit::Ok)
}
