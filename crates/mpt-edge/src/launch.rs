//! The three ways `mpt edge` runs one palace's edge: the shim (starting a detached owner on
//! demand), the owner serving shims on its socket, and `--standalone` in-process on stdio.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use super::identity::Identity;
use super::inflight::Deadlines;
use super::owner::{self, OwnerPaths};
use super::stamp::Stamper;
use super::{quiet_io, replicate, serve, setup, shim};
use mpt_base::config::{Config, Env};
use mpt_base::error::{ErrorKind, MptError, Result};
use mpt_base::lock::PidLock;
use mpt_base::log::verbosity;
use mpt_base::paths::edge::{EdgeDir, Place};
use mpt_base::private_fs;
use mpt_base::{log_debug, log_warn};

/// One palace's edge as this invocation sees it.
pub struct Launch<'a> {
    pub config: &'a Config,
    pub env: &'a Env,
    /// `--mpt-config`, passed on to a spawned owner.
    pub config_flag: Option<&'a Path>,
    pub paths: OwnerPaths,
    /// Where `paths` live: HOME's state folder, the palace's (a read-only HOME), or nowhere.
    pub state: EdgeDir,
    pub palace: PathBuf,
    /// `--child`: the MemPalace server to run instead of the configured one.
    pub child: Option<PathBuf>,
}

impl Launch<'_> {
    /// The shim a harness runs: relays stdio to the owner, starting it when none runs. With no
    /// folder to keep an owner's state in and no primary, it serves in this process instead.
    pub async fn run_shim(&self, harness: &str) -> Result<()> {
        if !self.usable_state()? {
            return self.serve_here(harness, None).await;
        }
        private_fs::prepare_socket_dir(&self.paths.socket)?;
        let wait = self
            .config
            .mcp
            .init_timeout
            .unwrap_or(Duration::from_secs(300))
            + Duration::from_secs(10);
        let start = || self.spawn_owner();
        let identity = Identity::of(self.config, self.env, &self.palace)?;
        let deadlines = Deadlines::new(self.config.mcp.timeout, self.config.edge.read_deadline);
        shim::run(&self.paths, harness, &identity, start, wait, deadlines).await
    }

    /// The owner: serves shims until idle or SIGTERM, then lingers to flush the outbox.
    pub async fn run_owner(&self) -> Result<()> {
        private_fs::prepare_socket_dir(&self.paths.socket)?;
        let Some(lock) = owner::take_lock(&self.paths)? else {
            return Err(MptError::new(
                ErrorKind::Busy,
                "another edge owner serves this palace",
            ));
        };
        let (grace, linger) = (self.config.edge.grace, self.config.edge.linger);
        let (proxy, log) = setup::start(self.config, self.env, &self.paths, self.options()).await?;
        log_debug!("edge owner ready on {}", self.paths.socket.display());
        let tools = proxy.handshake.tools.clone();
        let identity = Identity::of(self.config, self.env, &self.palace)?;
        let ended = owner::run(
            proxy,
            &self.paths,
            grace,
            |h| stamper_for(self.config, &tools, h),
            &identity,
        )
        .await?;
        // The child is stopped and the socket gone: a new `mpt edge` starts a new owner, whose
        // flusher takes turns with this one on the flush lock.
        drop(lock);
        if ended == owner::Ended::Idle
            && let Some(log) = log
            && let Some(_lingering) =
                private_fs::take_pid_lock(&self.paths.linger, "edge owner lingering")?
        {
            replicate::linger(&log, linger).await;
        }
        Ok(())
    }

    /// `--standalone`: the edge in this process, on stdio, for one harness.
    pub async fn run_standalone(&self, harness: &str) -> Result<()> {
        if !self.usable_state()? {
            return self.serve_here(harness, None).await;
        }
        let Some(lock) = owner::take_lock(&self.paths)? else {
            return Err(MptError::new(
                ErrorKind::Busy,
                "an edge owner already serves this palace: one writer per palace",
            )
            .with_hint("run `mpt edge` without --standalone to share it"));
        };
        self.serve_here(harness, Some(lock)).await
    }

    /// Whether the state folder can hold an owner's lock and log: warns once when it is the
    /// palace's (a read-only HOME) or none at all. None with a primary is an error: its queued
    /// writes need a folder that outlives the container; without one the edge is a plain
    /// pass-through with no outbox, served in this process (`false`).
    fn usable_state(&self) -> Result<bool> {
        let Some(note) = self.state.note() else {
            return Ok(true);
        };
        if self.state.place != Place::Nowhere {
            log_warn!("{note}");
            return Ok(true);
        }
        if self.config.remote.is_some() {
            return Err(MptError::new(ErrorKind::Io, format!(
                "{note}, and with MEMPALACE_REMOTE_URL set it queues writes for the primary that must outlive the process"
            ))
            .with_hint(format!(
                "make the palace's folder {} writable (a volume: never a tmpfs, where queued writes die with the container), or HOME's ~/.mempalace",
                self.palace.display()
            )));
        }
        log_warn!(
            "{note}: serving the palace as a plain pass-through in this process (no primary, so no outbox), not shared with other sessions"
        );
        Ok(false)
    }

    /// The edge in this process, on stdio, holding the owner lock when it could be taken.
    async fn serve_here(&self, harness: &str, _lock: Option<PidLock>) -> Result<()> {
        let (proxy, _) = setup::start(self.config, self.env, &self.paths, self.options()).await?;
        let stamper = stamper_for(self.config, &proxy.handshake.tools, harness);
        // A harness's pipes are read and written in place (`quiet_io`); a terminal or a file
        // goes through tokio's stdio (a blocking-pool thread per read and write).
        match quiet_io::stdio() {
            Some((input, output, _restored_when_served)) => {
                serve::serve(Arc::clone(&proxy), stamper, input, output, None).await
            }
            None => {
                let (input, output) = (tokio::io::stdin(), tokio::io::stdout());
                serve::serve(Arc::clone(&proxy), stamper, input, output, None).await
            }
        }
        proxy.child.shutdown().await;
        Ok(())
    }

    fn options(&self) -> setup::EdgeOptions {
        setup::EdgeOptions {
            palace: self.palace.clone(),
            child: self.child.clone(),
            show_stderr: verbosity() >= 1,
        }
    }

    /// Starts the owner detached (its own process group, stderr to its log) with this process's
    /// env.
    fn spawn_owner(&self) -> std::io::Result<std::process::Child> {
        let exe = std::env::current_exe()?;
        if let Some(d) = self.paths.log.parent() {
            private_fs::create_private_dir(d)?;
        }
        let log = private_fs::open_private_log(&self.paths.log)?;
        let mut cmd = Command::new(exe);
        if verbosity() >= 1 {
            cmd.arg("-v");
        }
        if let Some(c) = self.config_flag {
            cmd.arg("--mpt-config").arg(c);
        }
        cmd.args(["edge", "--owner", "--palace"]).arg(&self.palace);
        if let Some(c) = &self.child {
            cmd.arg("--child").arg(c);
        }
        cmd.stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::from(log));
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        cmd.spawn()
    }
}

fn stamper_for(config: &Config, tools: &[serde_json::Value], harness: &str) -> Option<Stamper> {
    let identity = config.stamp_identity_for(harness);
    Stamper::new(identity, config.device.as_deref(), tools)
}
