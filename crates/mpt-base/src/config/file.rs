//! Which config file this process reads (`--mpt-config`, else `MPT_CONFIG`, else
//! `$XDG_CONFIG_HOME/mpt/config.json`), and reading it: a named file must be there, a default one may not.

use std::path::{Path, PathBuf};

use super::{Env, FileConfig, Xdg, parse_file, read, values};
use crate::error::Result;

/// The config file's name in mpt's config folder.
pub const FILE_NAME: &str = "config.json";

/// Where the config file is when neither `--mpt-config` nor `MPT_CONFIG` names one:
/// `$XDG_CONFIG_HOME/mpt/config.json`; `None` without HOME (and no absolute XDG_CONFIG_HOME).
/// `paths::config_file` is this, for whoever asks where mpt keeps things.
pub fn default_file(env: &Env) -> Option<PathBuf> {
    env.mpt_dir(Xdg::Config).ok().map(|d| d.join(FILE_NAME))
}

/// The config file a process reads, and what named it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chosen {
    /// `--mpt-config`, `MPT_CONFIG` or `the config file`, for messages.
    pub setting: &'static str,
    pub path: PathBuf,
    /// Named by nobody: the default, which need not exist (`mpt join` writes it).
    pub by_default: bool,
}

/// `--mpt-config`, else `MPT_CONFIG`, else the default (`None` without HOME).
pub fn chosen_file(env: &Env, flag_path: Option<&Path>) -> Result<Option<Chosen>> {
    let named = |setting, path| Chosen {
        setting,
        path,
        by_default: false,
    };
    Ok(match flag_path {
        Some(p) => Some(named("--mpt-config", p.to_path_buf())),
        None => match values::env_path(env, "MPT_CONFIG")? {
            Some(p) => Some(named("MPT_CONFIG", p)),
            None => default_file(env).map(|path| Chosen {
                setting: "the config file",
                path,
                by_default: true,
            }),
        },
    })
}

/// The file's settings and its path; none (and no path) for a default file that is not there.
pub(super) fn load_file(
    env: &Env,
    flag_path: Option<&Path>,
) -> Result<(FileConfig, Option<PathBuf>)> {
    let Some(chosen) = chosen_file(env, flag_path)?.filter(|c| !c.by_default || c.path.exists())
    else {
        return Ok((FileConfig::default(), None));
    };
    let path = chosen.path;
    let named = read::Named {
        setting: chosen.setting,
        path: &path,
    };
    let bytes = read::read_regular(&named, read::CONFIG_FILE_LIMIT)?;
    let mut file = parse_file(&read::config_text(&bytes, &path)?, &path)?;
    values::check_file_paths(&mut file, &path, env)?;
    Ok((file, Some(path)))
}
