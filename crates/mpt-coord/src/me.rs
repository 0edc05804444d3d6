//! Whom a device's mailbox answers for: by default every `<name>@<device>` identity on it (the
//! edge stamps `pi@lap`, `opencode@lap`, …), or the one identity `--as` names.

/// The identities a mailbox owes for, and the one it shows as `me`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Me {
    /// `me` in the output: the stamp identity (`<harness>@<device>`) or `--as`.
    pub shown: String,
    /// `Some(device)`: any `*@<device>`; `None`: `shown` alone.
    device: Option<String>,
}

impl Me {
    /// One identity exactly (`--as`).
    pub fn one(identity: &str) -> Me {
        Me {
            shown: identity.to_string(),
            device: None,
        }
    }

    /// Every `*@<device>` identity, shown as `shown`.
    pub fn device(device: &str, shown: &str) -> Me {
        Me {
            shown: shown.to_string(),
            device: Some(device.to_string()),
        }
    }

    /// `agent` is one of these identities.
    pub fn is(&self, agent: &str) -> bool {
        match &self.device {
            None => agent == self.shown,
            Some(d) => agent
                .strip_suffix(d.as_str())
                .and_then(|h| h.strip_suffix('@'))
                .is_some_and(|name| !name.is_empty()),
        }
    }

    /// The one identity, when there is exactly one (`--as`): the server's `to_agent`/`writer`
    /// filters can then do the matching (they match exactly).
    pub fn exact(&self) -> Option<&str> {
        self.device.is_none().then_some(self.shown.as_str())
    }

    /// For people: `*@<device>`, or the one identity.
    pub fn label(&self) -> String {
        match &self.device {
            Some(d) => format!("*@{d}"),
            None => self.shown.clone(),
        }
    }

    /// The device every identity is on (`None` for `--as`).
    pub fn device_name(&self) -> Option<&str> {
        self.device.as_deref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_device_owes_for_every_name_on_it_and_as_for_one() {
        let me = Me::device("lap", "mcp@lap");
        for yes in ["pi@lap", "opencode@lap", "mcp@lap", "a@b@lap"] {
            assert!(me.is(yes), "{yes}");
        }
        for no in ["@lap", "pi@laptop", "pi@xlap", "lap", "*", "pi@desk"] {
            assert!(!me.is(no), "{no}");
        }
        assert_eq!(me.exact(), None);
        let one = Me::one("pi@lap");
        assert!(one.is("pi@lap") && !one.is("opencode@lap"));
        assert_eq!(one.exact(), Some("pi@lap"));
    }
}
