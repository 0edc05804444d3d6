//! How opencode's remote entry carries the token: a `{file:<path>}` or `{env:<VAR>}` reference
//! in its `Authorization` header (never the token), written by `edge wire`, resolved as opencode does.

use std::path::{Path, PathBuf};

use mpt_base::config::TokenSource;
use mpt_base::error::{MptError, Result};

/// The variable a token from the environment is referenced by.
pub const ENV_VAR: &str = "MEMPALACE_REMOTE_TOKEN";

/// What an entry's `Authorization` header takes the token from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenRef {
    /// `{env:VAR}`: the variable in opencode's own environment (unset: an empty token).
    Env(String),
    /// `{file:PATH}` as written: opencode reads and trims that file, and refuses its whole
    /// config when it does not exist.
    File(String),
    /// The token itself, written into the config file.
    Literal,
    /// No header, or `Bearer` with nothing after it.
    Missing,
}

/// The header `mpt edge wire` writes for a token from `source`: a token file by its absolute path
/// (opencode resolves `~` and relative paths against its own config folder), else the variable.
pub fn header(source: Option<&TokenSource>) -> Result<String> {
    match source {
        Some(TokenSource::File(p)) => {
            let shown = p.display().to_string();
            if !p.is_absolute() || shown.contains('}') {
                return Err(MptError::usage(format!(
                    "the token file {shown} cannot be referenced from opencode's config: `{{file:…}}` needs an absolute path without a `}}`"
                ))
                .with_hint("move the token file to a plain absolute path and point MPT_TOKEN_FILE at it"));
            }
            Ok(format!("Bearer {{file:{shown}}}"))
        }
        _ => Ok(format!("Bearer {{env:{ENV_VAR}}}")),
    }
}

/// What `header` (an entry's `Authorization` value) references.
pub fn parse(header: Option<&str>) -> TokenRef {
    let Some(h) = header else {
        return TokenRef::Missing;
    };
    for (open, make) in [
        ("{env:", TokenRef::Env as fn(String) -> TokenRef),
        ("{file:", TokenRef::File),
    ] {
        if let Some(start) = h.find(open)
            && let Some(len) = h[start + open.len()..].find('}')
        {
            let inner = &h[start + open.len()..start + open.len() + len];
            return make(inner.trim().to_string());
        }
    }
    let value = h.trim();
    let value = value
        .strip_prefix("Bearer")
        .or_else(|| value.strip_prefix("bearer"))
        .unwrap_or(value);
    if value.trim().is_empty() {
        TokenRef::Missing
    } else {
        TokenRef::Literal
    }
}

/// Where opencode reads `{file:written}` for an entry in `config_file`: `~/` from HOME, a
/// relative path from the config file's folder, an absolute one as it is.
pub fn file_path(written: &str, config_file: &Path, home: Option<&Path>) -> PathBuf {
    if let (Some(rest), Some(home)) = (written.strip_prefix("~/"), home) {
        return home.join(rest);
    }
    let p = Path::new(written);
    if p.is_absolute() {
        return p.to_path_buf();
    }
    config_file
        .parent()
        .map_or_else(|| p.to_path_buf(), |d| d.join(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_file_is_referenced_by_its_absolute_path_and_the_variable_otherwise() {
        let file = TokenSource::File(PathBuf::from("/home/me/.config/mpt/token"));
        assert_eq!(
            header(Some(&file)).unwrap(),
            "Bearer {file:/home/me/.config/mpt/token}"
        );
        for source in [None, Some(&TokenSource::Env)] {
            assert_eq!(
                header(source).unwrap(),
                "Bearer {env:MEMPALACE_REMOTE_TOKEN}"
            );
        }
        let odd = TokenSource::File(PathBuf::from("/a}b/token"));
        assert_eq!(header(Some(&odd)).unwrap_err().exit().code(), 2);
    }

    #[test]
    fn a_header_is_read_back_as_opencode_resolves_it() {
        assert_eq!(
            parse(Some("Bearer {env:MEMPALACE_REMOTE_TOKEN}")),
            TokenRef::Env(ENV_VAR.into())
        );
        assert_eq!(
            parse(Some("Bearer {file:~/tok}")),
            TokenRef::File("~/tok".into())
        );
        assert_eq!(parse(Some("Bearer abc123")), TokenRef::Literal);
        assert_eq!(parse(Some("Bearer ")), TokenRef::Missing);
        assert_eq!(parse(None), TokenRef::Missing);
        let cfg = Path::new("/h/.config/opencode/opencode.json");
        let home = Some(Path::new("/h"));
        assert_eq!(file_path("~/t", cfg, home), PathBuf::from("/h/t"));
        assert_eq!(
            file_path("t", cfg, home),
            PathBuf::from("/h/.config/opencode/t")
        );
        assert_eq!(file_path("/abs/t", cfg, home), PathBuf::from("/abs/t"));
    }
}
