//! mpt's own XDG folders, from config's environment snapshot: `$XDG_CONFIG_HOME/mpt` and
//! `$XDG_STATE_HOME/mpt` (a relative value ignored, as the XDG spec says), else under HOME.

// MemPalace's rules (`palace/paths.rs`) and opencode's (`harness/opencode.rs`) differ on purpose
// and stay beside the code that mirrors each program.

use std::path::PathBuf;

use super::Env;
use crate::error::Result;

/// Which XDG base folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Xdg {
    /// `$XDG_CONFIG_HOME`, else `~/.config`.
    Config,
    /// `$XDG_STATE_HOME`, else `~/.local/state`.
    State,
}

impl Xdg {
    fn var(self) -> &'static str {
        match self {
            Xdg::Config => "XDG_CONFIG_HOME",
            Xdg::State => "XDG_STATE_HOME",
        }
    }

    fn under_home(self) -> &'static str {
        match self {
            Xdg::Config => ".config",
            Xdg::State => ".local/state",
        }
    }
}

impl Env {
    /// mpt's folder in the `kind` base (`…/mpt`); without an absolute XDG value and without HOME,
    /// the usage error naming HOME.
    pub fn mpt_dir(&self, kind: Xdg) -> Result<PathBuf> {
        let base = match self.get(kind.var()).map(PathBuf::from) {
            Some(x) if x.is_absolute() => x,
            _ => self.home()?.join(kind.under_home()),
        };
        Ok(base.join("mpt"))
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    #[test]
    fn an_absolute_xdg_value_wins_a_relative_one_is_ignored() {
        let env = Env::from_pairs([
            ("HOME", "/h"),
            ("XDG_STATE_HOME", "/s"),
            ("XDG_CONFIG_HOME", "rel"),
        ]);
        assert_eq!(env.mpt_dir(Xdg::State).unwrap(), Path::new("/s/mpt"));
        assert_eq!(
            env.mpt_dir(Xdg::Config).unwrap(),
            Path::new("/h/.config/mpt")
        );
        let env = Env::from_pairs([("HOME", "/h")]);
        assert_eq!(
            env.mpt_dir(Xdg::State).unwrap(),
            Path::new("/h/.local/state/mpt")
        );
        assert_eq!(
            Env::default()
                .mpt_dir(Xdg::Config)
                .unwrap_err()
                .exit()
                .code(),
            2
        );
    }
}
