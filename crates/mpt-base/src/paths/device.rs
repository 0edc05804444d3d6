//! The files `mpt join` keeps on a device, in mpt's config folder (`$XDG_CONFIG_HOME/mpt`): its
//! token, the gateway certificate it pinned, its record for `--leave`; and the user's systemd units.

use std::path::PathBuf;

use crate::config::{Env, Xdg};
use crate::error::Result;

/// The device's gateway token (0600): `<device>.token`, as every printed fix names it.
pub fn token_file(env: &Env, device: &str) -> Result<PathBuf> {
    Ok(env.mpt_dir(Xdg::Config)?.join(format!("{device}.token")))
}

/// The gateway certificate `mpt join --ca-sha256` pinned: `<host>-ca.pem` (the host made safe
/// for a file name).
pub fn pinned_ca(env: &Env, host: &str) -> Result<PathBuf> {
    let name: String = host
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    Ok(env.mpt_dir(Xdg::Config)?.join(format!("{name}-ca.pem")))
}

/// What `mpt join` changed, for `--leave`: `joined.json`.
pub fn join_record(env: &Env) -> Result<PathBuf> {
    Ok(env.mpt_dir(Xdg::Config)?.join("joined.json"))
}

/// The user's systemd units (`$XDG_CONFIG_HOME/systemd/user`), where the flush timer goes.
pub fn systemd_user_units(env: &Env) -> Result<PathBuf> {
    let mpt = env.mpt_dir(Xdg::Config)?;
    Ok(mpt
        .parent()
        .map(|config| config.join("systemd/user"))
        .unwrap_or_default())
}
