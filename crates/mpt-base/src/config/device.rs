//! A device's own settings, the opt-in (RFC 001 R1): the primary's URL, the device's name and the
//! edge, from the environment, else from the config file (`remote_url`, `device`, `edge`).

use serde::Serialize;

use super::{Env, FileConfig};
use crate::error::{MptError, Result};

/// Where a setting came from (`mpt config` shows it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Origin {
    Env,
    File,
    Unset,
}

/// Where each of the device's settings came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Origins {
    pub remote_url: Origin,
    pub device: Origin,
    pub edge: Origin,
}

/// The device's settings as resolved: the environment wins over the file, a setting at a time.
#[derive(Debug, Clone)]
pub struct DeviceSettings {
    pub remote_url: Option<String>,
    pub device: Option<String>,
    pub edge: bool,
    pub origins: Origins,
}

pub fn resolve(env: &Env, file: &FileConfig) -> Result<DeviceSettings> {
    let (remote_url, url_from) = match (env.get("MEMPALACE_REMOTE_URL"), &file.remote_url) {
        (Some(u), _) => (Some(u.to_string()), Origin::Env),
        (None, Some(u)) if !u.trim().is_empty() => (Some(u.trim().to_string()), Origin::File),
        _ => (None, Origin::Unset),
    };
    let (device, device_from) = match (env.get(super::values::DEVICE_VAR), &file.device) {
        (Some(d), _) => (Some(d.to_string()), Origin::Env),
        (None, Some(d)) => {
            check_name(d)?;
            (Some(d.clone()), Origin::File)
        }
        (None, None) => (None, Origin::Unset),
    };
    // `MEMPALACE_EDGE=0` in the environment wins over the file's `true`, as every setting does.
    let (edge, edge_from) = match (env.get("MEMPALACE_EDGE"), file.edge) {
        (Some(_), _) => (env.edge_opt_in()?, Origin::Env),
        (None, Some(e)) => (e, Origin::File),
        (None, None) => (false, Origin::Unset),
    };
    Ok(DeviceSettings {
        remote_url,
        device,
        edge,
        origins: Origins {
            remote_url: url_from,
            device: device_from,
            edge: edge_from,
        },
    })
}

/// The config's `device`: one word, stamped verbatim (as `MEMPALACE_PI_DEVICE` is held).
fn check_name(name: &str) -> Result<()> {
    if name.is_empty() || name.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(MptError::usage(format!(
            "the config's `device` is '{}': a device name is one word, stamped verbatim into every write and the mailbox's addresses",
            name.escape_debug()
        ))
        .with_hint("set `device` in the mpt config to this machine's name, one word (e.g. \"lap\")"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(json: &str) -> FileConfig {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn the_environment_wins_a_setting_at_a_time_and_each_says_where_it_came_from() {
        let f =
            file(r#"{"remote_url": "https://palace.lan:8443/mcp", "device": "lap", "edge": true}"#);
        let s = resolve(&Env::from_pairs([("HOME", "/h")]), &f).unwrap();
        assert_eq!(s.remote_url.as_deref(), Some("https://palace.lan:8443/mcp"));
        assert_eq!((s.device.as_deref(), s.edge), (Some("lap"), true));
        assert_eq!(s.origins.remote_url, Origin::File);
        let env = Env::from_pairs([
            ("HOME", "/h"),
            ("MEMPALACE_PI_DEVICE", "desk"),
            ("MEMPALACE_EDGE", "0"),
        ]);
        let s = resolve(&env, &f).unwrap();
        assert_eq!((s.device.as_deref(), s.edge), (Some("desk"), false));
        assert_eq!(
            (s.origins.remote_url, s.origins.device, s.origins.edge),
            (Origin::File, Origin::Env, Origin::Env)
        );
        let none = resolve(&Env::from_pairs([("HOME", "/h")]), &FileConfig::default()).unwrap();
        assert_eq!(
            (none.remote_url, none.edge, none.origins.edge),
            (None, false, Origin::Unset)
        );
        let bad = resolve(
            &Env::from_pairs([("HOME", "/h")]),
            &file(r#"{"device": "my lap"}"#),
        );
        assert!(bad.unwrap_err().message.contains("one word"));
    }
}
