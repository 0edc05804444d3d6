//! `GET /whoami` on the primary's front: which device `mpt gateway` takes this token for, and its
//! role. A plain `mempalace serve` has no such route (404): then there is no gateway to ask.

use serde_json::Value;

use super::http::HttpClient;
use super::{CallError, Deadline};

/// The gateway's answer (`mpt.gateway.whoami/v1`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Whoami {
    pub device: String,
    pub role: Option<String>,
    pub token_id: String,
    /// RFC 3339, or `None`: the token never expires.
    pub expires: Option<String>,
    /// The device's own share of the gateway's policy (a gateway before 0.2 sends none).
    pub policy: Option<Value>,
}

impl Whoami {
    fn from_json(v: &Value) -> Option<Whoami> {
        if v.get("schema").and_then(Value::as_str) != Some(mpt_base::schema::GATEWAY_WHOAMI) {
            return None;
        }
        let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
        Some(Whoami {
            device: s("device")?,
            role: s("role"),
            token_id: s("token_id").unwrap_or_default(),
            expires: s("expires"),
            policy: v.get("policy").filter(|p| p.is_object()).cloned(),
        })
    }

    /// Why this identity is not the one this device stamps with (`MEMPALACE_PI_DEVICE`): the
    /// provenance stamps, the replay checks and the mailbox would all use the wrong name.
    pub fn mismatch(&self, device: Option<&str>) -> Option<String> {
        match device {
            Some(d) if d == self.device => None,
            Some(d) => Some(format!(
                "the gateway takes this token for device '{}', but MEMPALACE_PI_DEVICE is '{d}'",
                self.device
            )),
            None => Some(format!(
                "the gateway takes this token for device '{}', but MEMPALACE_PI_DEVICE is unset",
                self.device
            )),
        }
    }

    /// The fix for a mismatch: one name on both sides.
    /// `device`: this device's own name (`MEMPALACE_PI_DEVICE`), when set.
    pub fn mismatch_fix(&self, device: Option<&str>) -> String {
        let own = match device {
            Some(d) => {
                let file = mpt_base::config::device_token_file(d);
                format!(
                    "give this device the token issued to its own name (`mpt gateway token issue {d} --out {file}` on the primary host, copied to this device's MPT_TOKEN_FILE)"
                )
            }
            None => "give this device a token issued to its own name".to_string(),
        };
        format!(
            "set MEMPALACE_PI_DEVICE={} on this device (stamps, replay checks and the mailbox use it), or {own}",
            self.device
        )
    }

    /// `device (role), token id, expires …` for people.
    pub fn describe(&self) -> String {
        format!(
            "device '{}' ({}), token {}, {}",
            self.device,
            self.role.as_deref().unwrap_or("not in the policy"),
            self.token_id,
            self.expires
                .as_deref()
                .map_or("never expires".to_string(), |e| format!("expires {e}"))
        )
    }

    /// Who the gateway takes this device for, as `mpt edge status --json` shows it.
    pub fn doc(&self) -> WhoamiDoc {
        WhoamiDoc {
            device: self.device.clone(),
            role: self.role.clone(),
            token_id: self.token_id.clone(),
            expires: self.expires.clone(),
        }
    }
}

/// The gateway's answer without the policy: `primary.gateway` of `mpt edge status --json`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct WhoamiDoc {
    pub device: String,
    pub role: Option<String>,
    pub token_id: String,
    pub expires: Option<String>,
}

/// Asks the primary's front who this token is. `Ok(None)`: no gateway answers there (a plain
/// `serve`, or anything else); a token the gateway refuses is its typed 401 (and why).
pub async fn ask(http: &HttpClient, deadline: Deadline) -> Result<Option<Whoami>, CallError> {
    let (status, body) = http.get_refusing("/whoami", deadline).await?;
    if status != 200 {
        return Ok(None);
    }
    Ok(serde_json::from_str::<Value>(&body)
        .ok()
        .as_ref()
        .and_then(Whoami::from_json))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_gateways_answer_and_a_name_that_differs() {
        let w = Whoami::from_json(&json!({"schema": mpt_base::schema::GATEWAY_WHOAMI, "device": "lap", "role": "member", "token_id": "K7Q2X9ZPA1", "expires": null})).unwrap();
        assert_eq!(w.mismatch(Some("lap")), None);
        assert!(w.mismatch(Some("desk")).unwrap().contains("'lap'"));
        assert!(w.mismatch(None).unwrap().contains("unset"));
        assert!(w.describe().contains("never expires"));
        assert!(
            Whoami::from_json(&json!({"device": "lap"})).is_none(),
            "not the gateway's schema"
        );
    }
}
