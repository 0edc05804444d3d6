//! What every command is handed from the invocation: the output (text or `--json`), the
//! environment snapshot and `--mpt-config`, and the configuration they load.

use mpt_base::config::{Config, Env};
use mpt_base::error::Result;
use mpt_base::output::Output;

/// Everything a command needs from the invocation.
pub struct Ctx {
    pub out: Output,
    pub env: Env,
    pub config_flag: Option<std::path::PathBuf>,
}

impl Ctx {
    pub fn config(&self) -> Result<Config> {
        Config::load(&self.env, self.config_flag.as_deref())
    }

    /// The configuration an edge serving a harness runs with (`Config::load_serving`).
    pub fn config_serving(&self) -> Result<Config> {
        Config::load_serving(&self.env, self.config_flag.as_deref())
    }
}
