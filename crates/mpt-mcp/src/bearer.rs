//! The bearer an HTTP client sends: the configured token, renewed from its token file after a 401
//! when the file now holds another (a running edge takes a rotated token without a restart).

use std::path::PathBuf;
use std::sync::Mutex;

use mpt_base::config::Secret;
use mpt_base::log_debug;

#[derive(Debug, Default)]
pub struct Bearer {
    token: Mutex<Option<Secret>>,
    /// Where the token came from, when a file (a token given in the environment cannot change
    /// under a running process).
    file: Option<PathBuf>,
}

impl Bearer {
    pub fn new(token: Option<Secret>) -> Bearer {
        Bearer {
            token: Mutex::new(token),
            file: None,
        }
    }

    /// Renewed from `remote`'s token file, when its token came from one.
    pub fn renewing_from(&mut self, remote: &mpt_base::config::Remote) {
        if let Some((_, mpt_base::config::TokenSource::File(p))) = &remote.token {
            self.file = Some(p.clone());
        }
    }

    /// The token to send now.
    /// The token is one `mpt gateway` issued: the primary is reached through that gateway.
    pub fn via_gateway(&self) -> bool {
        self.get().is_some_and(|t| {
            t.expose()
                .starts_with(mpt_base::secrets::GATEWAY_TOKEN_PREFIX)
        })
    }

    pub fn get(&self) -> Option<Secret> {
        self.token.lock().unwrap().clone()
    }

    /// After a 401: the token file read again; whether it holds another token (then used).
    pub fn renew(&self) -> bool {
        let Some(file) = &self.file else {
            return false;
        };
        let Ok(fresh) = mpt_base::config::read_token_file(file) else {
            return false;
        };
        let mut held = self.token.lock().unwrap();
        if held.as_ref().is_some_and(|t| t.expose() == fresh.expose()) {
            return false;
        }
        log_debug!(
            "the primary refused the token; {} holds another: using it",
            file.display()
        );
        *held = Some(fresh);
        true
    }
}
