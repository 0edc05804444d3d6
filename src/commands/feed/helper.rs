//! `mempalace-pi-session` (mpt under the pi bridge's feeder name): the bridge's flags read exactly
//! and turned into `mpt feed prepare`; and `mpt feed install-helper`, which makes that name.

use std::ffi::OsString;
use std::path::PathBuf;

use clap::Args;
use clap::Parser;

use crate::commands::Ctx;
use mpt_base::error::{Exit, MptError, Result};
use mpt_feed::dropin::{self, Action, HELPER_NAME};

/// `mpt feed install-helper --json` (`mpt.feed.install_helper/v1`): what was linked where, what it
/// replaced, and whether the bridge's lookup now finds this mpt.
#[derive(serde::Serialize)]
struct HelperDoc<'a> {
    schema: &'static str,
    #[serde(flatten)]
    installed: &'a dropin::Installed,
    bridge_runs_it: bool,
}

#[derive(Debug, Args)]
pub struct FeedInstallHelperArgs {
    /// The folder for the link (else ~/.local/bin); the bridge finds it on PATH or through
    /// MEMPALACE_FEED_BIN
    #[arg(value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Replace another `mempalace-pi-session` there: a file is kept as a numbered backup
    /// (`.mpt-backup-<time>`, never over another), a link replaced; a directory is never moved
    #[arg(long)]
    pub force: bool,
}

/// The flags the pi bridge passes its feeder, and no others.
#[derive(Debug, Parser)]
#[command(
    name = "mempalace-pi-session",
    version,
    about = "mpt's drop-in for the pi bridge's feeder: `mpt feed prepare` under the bridge's flags"
)]
struct BridgeArgs {
    /// Stage the transcripts and print MINE_SOURCE=<path> (the only mode: mining goes through
    /// the bridge's own client, or `mpt feed mine`)
    #[arg(long, required = true)]
    prepare: bool,
    /// The trigger: shutdown, settled, new, resume, fork, ...
    #[arg(long, value_name = "TRIGGER")]
    reason: String,
    /// The wing (else MEMPALACE_FEED_WING, else wing_conversations)
    #[arg(long, value_name = "WING")]
    wing: Option<String>,
}

/// The bridge's argv as mpt's: `mpt feed prepare --reason R [--wing W]`. A flag the bridge does
/// not pass is clap's usage error (exit 2), help and version clap's own.
pub fn bridge_argv(args: &[OsString]) -> std::result::Result<Vec<OsString>, clap::Error> {
    let bridge = BridgeArgs::try_parse_from(args)?;
    let mut argv: Vec<OsString> = ["mpt", "feed", "prepare", "--reason"]
        .into_iter()
        .map(OsString::from)
        .collect();
    argv.push(bridge.reason.into());
    // The bridge is pi's: its drop-in feeds pi's sessions only, whatever else is on the device.
    argv.extend(["--harness".into(), "pi".into()]);
    if let Some(w) = bridge.wing {
        argv.extend(["--wing".into(), w.into()]);
    }
    Ok(argv)
}

pub fn install(ctx: &Ctx, args: FeedInstallHelperArgs) -> Result<Exit> {
    let dir = match args.dir {
        Some(d) => mpt_palace::paths::absolute(&d),
        None => ctx.env.home()?.join(".local/bin"),
    };
    let exe = std::env::current_exe().map_err(|e| MptError::io("finding mpt's own binary", &e))?;
    let done = dropin::install(&dir, &exe, args.force)?;
    let found = dropin::resolve_feed_bin(&ctx.env);
    let bridge_runs_it = found.as_deref().is_some_and(|p| dropin::same_file(p, &exe));
    let doc = HelperDoc {
        schema: mpt_base::schema::FEED_INSTALL_HELPER,
        installed: &done,
        bridge_runs_it,
    };
    ctx.out.emit_typed(&doc, |w| {
        let verb = match done.action {
            Action::Created => "linked",
            Action::Unchanged => "already linked",
            Action::Replaced => "replaced and linked",
        };
        writeln!(w, "{verb}: {} -> {}", done.path.display(), exe.display())?;
        match (&done.replaced, &done.backup) {
            (Some(was), Some(b)) => {
                writeln!(w, "{} was there: kept as {}", was.describe(), b.display())?
            }
            (Some(was), None) => writeln!(w, "{} was there: replaced", was.describe())?,
            _ => {}
        }
        if !bridge_runs_it {
            writeln!(
                w,
                "the bridge does not find it yet: put {} on PATH, or set MEMPALACE_FEED_BIN={}",
                dir.display(),
                done.path.display()
            )?;
        } else {
            writeln!(w, "the pi bridge's {HELPER_NAME} is now mpt")?;
        }
        Ok(())
    })?;
    Ok(Exit::Ok)
}
