//! `mpt mailbox notify [--test]`: which road a mailbox notification takes to the human (OSC 99,
//! OSC 777, through tmux, or nowhere and why), and with `--test` a test notification sent on it.

use crate::commands::Ctx;
use crate::mailbox::tmux::Passthrough;
use crate::mailbox::{self, NOTIFY_VAR, Notification, NotifyMode, Route, docs};
use mpt_base::error::{Exit, MptError, Result};

/// `MEMPALACE_MAILBOX_NOTIFY`, or exit 2 naming the value.
pub fn mode(ctx: &Ctx) -> Result<NotifyMode> {
    NotifyMode::from_env(ctx.env.get(NOTIFY_VAR)).map_err(|m| {
        MptError::usage(m).with_hint(format!(
            "unset {NOTIFY_VAR}, or set it to desktop (desktop-tmux in a container under tmux)"
        ))
    })
}

pub fn run(ctx: &Ctx, test: bool) -> Result<Exit> {
    let mode = mode(ctx)?;
    let route = Route::choose(mode, &ctx.env);
    let verdict = mailbox::verdict(mode, route.as_ref(), ctx.out.terminal_attached());
    let reaches = verdict.path != "nowhere";
    let mut written = 0;
    if let (true, true, Some(r)) = (test, reaches, &route) {
        let bytes = r.bytes(&Notification::test());
        ctx.out.to_terminal(&bytes);
        written = bytes.len();
    }
    let doc = mpt_base::schema::to_document(&docs::Notify {
        schema: mpt_base::schema::MAILBOX_NOTIFY,
        mode: mode.as_str(),
        test,
        path: verdict.path,
        route: route.as_ref(),
        written_bytes: written,
        reason: verdict.reason.as_deref(),
        fix: verdict.fix.as_deref(),
        note: verdict.note.as_deref(),
    })?;
    ctx.out.emit(&doc, |w| {
        match (&route, reaches) {
            (Some(r), true) => {
                let done = if test {
                    format!("sent a test notification ({written} bytes on stderr)")
                } else {
                    "a notification would take".to_owned()
                };
                writeln!(w, "{done}: {}", r.describe())?;
                if let Some(leg) = &r.tmux {
                    writeln!(
                        w,
                        "tmux allow-passthrough: {}",
                        passthrough(&leg.allow_passthrough)
                    )?;
                }
            }
            _ => writeln!(
                w,
                "nowhere: {}",
                verdict.reason.as_deref().unwrap_or_default()
            )?,
        }
        if let Some(fix) = &verdict.fix {
            writeln!(w, "fix: {fix}")?;
        }
        if let Some(note) = &verdict.note {
            writeln!(w, "note: {note}")?;
        }
        Ok(())
    })?;
    Ok(if reaches { Exit::Ok } else { Exit::CheckFailed })
}

fn passthrough(p: &Passthrough) -> String {
    match p {
        Passthrough::Allowed { value, scope } => format!("{value} ({})", scope.label()),
        Passthrough::Off { scope } => format!("off ({})", scope.label()),
        Passthrough::Unconditional => "not an option before tmux 3.3 (always through)".into(),
        Passthrough::Unknown { .. } => "unknown (see the note)".into(),
    }
}
