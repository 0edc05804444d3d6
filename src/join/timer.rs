//! The flush timer a joined device needs (writes made offline leave when the primary is back,
//! not at the next session): a systemd user timer where a user manager runs, else the cron line.

use std::path::{Path, PathBuf};
use std::process::Command;

use mpt_base::config::Env;
use mpt_base::error::{MptError, Result};

/// The units' name.
const UNIT: &str = "mpt-flush";
/// The cron line's marker, as the README's quick start writes it.
pub const CRON_MARK: &str = "# mpt-flush";

/// How the flush runs on this device.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Timer {
    /// `mpt-flush.timer` installed and started in the user's systemd.
    Systemd { service: PathBuf, timer: PathBuf },
    /// No user manager here: the line for the user's crontab, the command that adds it (once,
    /// however often it runs), the one that removes it, and why there is no systemd timer.
    Cron {
        line: String,
        install: String,
        remove: String,
        why: String,
    },
}

/// The command the timer runs: a quiet flush bounded in time (exit 6 and 7 are normal there).
fn flush(mpt: &Path) -> String {
    format!("{} -q outbox flush --deadline 5m", mpt.display())
}

pub fn cron(mpt: &Path, why: String) -> Timer {
    let line = format!("*/10 * * * * {} {CRON_MARK}", flush(mpt));
    Timer::Cron {
        install: format!(
            "(crontab -l 2>/dev/null | grep -v '{CRON_MARK}'; echo '{}') | crontab -",
            line.replace('\'', r"'\''")
        ),
        line,
        remove: format!("crontab -l | grep -v '{CRON_MARK}' | crontab -"),
        why,
    }
}

/// Whether a systemd user manager answers here (`running` or `degraded`), else why not.
fn user_manager() -> std::result::Result<(), String> {
    let out = Command::new("systemctl")
        .args(["--user", "is-system-running"])
        .output()
        .map_err(|e| format!("systemctl cannot run here ({e})"))?;
    let state = String::from_utf8_lossy(&out.stdout).trim().to_string();
    match state.as_str() {
        "running" | "degraded" => Ok(()),
        "" => Err("no systemd user manager answers".into()),
        other => Err(format!("the systemd user manager is {other}")),
    }
}

fn systemctl(args: &[&str]) -> std::result::Result<(), String> {
    let out = Command::new("systemctl")
        .arg("--user")
        .args(args)
        .output()
        .map_err(|e| e.to_string())?;
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).trim().to_string())
    }
}

/// The timer installed where systemd's user manager runs; else the cron line to add.
pub fn install(env: &Env, mpt: &Path) -> Result<Timer> {
    if let Err(why) = user_manager() {
        return Ok(cron(mpt, why));
    }
    let dir = mpt_base::paths::device::systemd_user_units(env)?;
    std::fs::create_dir_all(&dir)
        .map_err(|e| MptError::io(format!("creating {}", dir.display()), &e))?;
    let service = dir.join(format!("{UNIT}.service"));
    let timer = dir.join(format!("{UNIT}.timer"));
    let write = |p: &Path, text: String| {
        std::fs::write(p, text).map_err(|e| MptError::io(format!("writing {}", p.display()), &e))
    };
    write(
        &service,
        format!(
            "[Unit]\nDescription=mpt: send the outbox's queued writes to the primary\n\n[Service]\nType=oneshot\nExecStart={}\nSuccessExitStatus=6 7\n",
            flush(mpt)
        ),
    )?;
    write(
        &timer,
        "[Unit]\nDescription=mpt: flush the outbox every 10 minutes\n\n[Timer]\nOnBootSec=2min\nOnUnitActiveSec=10min\n\n[Install]\nWantedBy=timers.target\n".into(),
    )?;
    let started = systemctl(&["daemon-reload"])
        .and_then(|()| systemctl(&["enable", "--now", &format!("{UNIT}.timer")]));
    match started {
        Ok(()) => Ok(Timer::Systemd { service, timer }),
        Err(why) => {
            let _ = std::fs::remove_file(&service);
            let _ = std::fs::remove_file(&timer);
            Ok(cron(mpt, format!("systemd did not start the timer: {why}")))
        }
    }
}

/// The timer taken away (`mpt join --leave`): the units stopped and removed where they are;
/// the line to remove a cron entry otherwise (mpt does not edit a crontab). What it did, in words.
pub fn remove(env: &Env) -> Result<String> {
    let dir = mpt_base::paths::device::systemd_user_units(env)?;
    let timer = dir.join(format!("{UNIT}.timer"));
    if !timer.exists() {
        return Ok(format!(
            "no systemd timer; a cron entry, if you added one: crontab -l | grep -v '{CRON_MARK}' | crontab -"
        ));
    }
    let _ = systemctl(&["disable", "--now", &format!("{UNIT}.timer")]);
    for p in [&timer, &dir.join(format!("{UNIT}.service"))] {
        match std::fs::remove_file(p) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(MptError::io(format!("removing {}", p.display()), &e));
            }
            _ => {}
        }
    }
    let _ = systemctl(&["daemon-reload"]);
    Ok(format!("{UNIT}.timer stopped and removed"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cron_line_is_marked_and_its_removal_named() {
        let Timer::Cron {
            line,
            install,
            remove,
            ..
        } = cron(Path::new("/b/mpt"), "x".into())
        else {
            panic!()
        };
        assert!(
            install.ends_with(&format!("echo '{line}') | crontab -")),
            "{install}"
        );
        assert_eq!(
            line,
            "*/10 * * * * /b/mpt -q outbox flush --deadline 5m # mpt-flush"
        );
        assert!(remove.contains("grep -v '# mpt-flush'"));
    }
}
