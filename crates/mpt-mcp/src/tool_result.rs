//! Reading a `tools/call` result: the payload is the LAST text content block parsed as JSON, and
//! `isError`, `success:false` or an `error` field inside a good reply is a failure, not a success.

use serde_json::Value;

/// A parsed tool reply. `failure` is set when the reply reports one, whatever the transport said.
#[derive(Debug, Clone)]
pub struct ToolReply {
    pub payload: Value,
    pub failure: Option<String>,
}

impl ToolReply {
    pub fn from_result(result: &Value) -> ToolReply {
        let is_error = result
            .get("isError")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let last_text = result
            .get("content")
            .and_then(Value::as_array)
            .and_then(|blocks| {
                blocks
                    .iter()
                    .rev()
                    .find(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            })
            .and_then(|b| b.get("text").and_then(Value::as_str));
        let payload = match last_text {
            Some(t) => serde_json::from_str(t).unwrap_or_else(|_| Value::String(t.to_string())),
            None => result
                .get("structuredContent")
                .cloned()
                .unwrap_or(Value::Null),
        };
        let failure = failure_of(&payload, is_error);
        ToolReply { payload, failure }
    }

    pub fn ok(&self) -> bool {
        self.failure.is_none()
    }
}

fn failure_of(payload: &Value, is_error: bool) -> Option<String> {
    let error_text = payload
        .get("error")
        .filter(|e| !e.is_null())
        .map(|e| match e {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        });
    if payload.get("success").and_then(Value::as_bool) == Some(false) {
        return Some(error_text.unwrap_or_else(|| "the tool reported success:false".into()));
    }
    if let Some(e) = error_text {
        return Some(e);
    }
    if is_error {
        return Some(match payload {
            Value::String(s) => s.clone(),
            Value::Null => "the tool reported isError with no text".into(),
            other => other.to_string(),
        });
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn text(t: &str) -> Value {
        json!({"content": [{"type": "text", "text": t}]})
    }

    #[test]
    fn success_false_inside_a_good_reply_is_a_failure() {
        let r = ToolReply::from_result(&text(
            r#"{"success":false,"error":"[Errno -2] Name or service not known in upsert."}"#,
        ));
        assert_eq!(
            r.failure.as_deref(),
            Some("[Errno -2] Name or service not known in upsert.")
        );
    }

    #[test]
    fn an_error_field_is_a_failure_even_with_results() {
        let r = ToolReply::from_result(&text(r#"{"error":"Search error: boom","results":[]}"#));
        assert!(!r.ok());
    }

    #[test]
    fn the_last_text_block_is_the_payload() {
        let r = ToolReply::from_result(&json!({"content": [
            {"type": "text", "text": "[mempalace] MemPalace is running WITHOUT its shared hub"},
            {"type": "text", "text": "{\"total_drawers\": 3}"}
        ]}));
        assert!(r.ok());
        assert_eq!(r.payload["total_drawers"], 3);
    }

    #[test]
    fn is_error_is_a_failure() {
        let r = ToolReply::from_result(
            &json!({"isError": true, "content": [{"type":"text","text":"model missing"}]}),
        );
        assert_eq!(r.failure.as_deref(), Some("model missing"));
    }

    #[test]
    fn a_plain_success_is_ok() {
        let r = ToolReply::from_result(&text(r#"{"success":true,"drawer_id":"d1"}"#));
        assert!(r.ok());
        assert_eq!(r.payload["drawer_id"], "d1");
    }
}
