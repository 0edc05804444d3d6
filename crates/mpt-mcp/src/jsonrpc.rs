//! The JSON-RPC 2.0 envelope as raw `serde_json::Value`: building requests and notifications,
//! telling incoming messages apart, and turning a response into a result or a typed error.

use serde_json::{Value, json};

use super::CallError;
use super::call_error::{self, DeniedAnswer};

pub fn request(id: &Value, method: &str, params: Option<Value>) -> Value {
    let mut v = json!({"jsonrpc": "2.0", "id": id, "method": method});
    if let Some(p) = params {
        v["params"] = p;
    }
    v
}

pub fn notification(method: &str, params: Option<Value>) -> Value {
    let mut v = json!({"jsonrpc": "2.0", "method": method});
    if let Some(p) = params {
        v["params"] = p;
    }
    v
}

/// A JSON-RPC error response for `id` (used by whoever serves MCP).
pub fn error_response(id: &Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// What a single incoming JSON value is.
#[derive(Debug, PartialEq)]
pub enum Kind {
    Request,
    Notification,
    Response,
    Invalid(&'static str),
}

pub fn classify(v: &Value) -> Kind {
    let Some(obj) = v.as_object() else {
        return Kind::Invalid("not a JSON object");
    };
    let has_method = obj.get("method").is_some_and(Value::is_string);
    let has_id = obj
        .get("id")
        .is_some_and(|i| i.is_string() || i.is_number() || i.is_null());
    if has_method {
        if obj.contains_key("id") {
            if has_id && !obj["id"].is_null() {
                Kind::Request
            } else {
                Kind::Invalid("request id must be a string or a number")
            }
        } else {
            Kind::Notification
        }
    } else if obj.contains_key("result") || obj.contains_key("error") {
        Kind::Response
    } else {
        Kind::Invalid("neither a request, a notification nor a response")
    }
}

/// A stable key for matching a response to its request (`1` and `"1"` are different ids).
pub fn id_key(id: &Value) -> String {
    id.to_string()
}

/// `result` on success; the `error` object as `CallError::Rpc`; a gateway's refusal (a tool
/// result with `_meta["mpt/denial"]`, or a -31020 error with `data.rule`) as `CallError::Denied`.
pub fn into_result(resp: Value) -> Result<Value, CallError> {
    let mut obj = match resp {
        Value::Object(o) => o,
        other => {
            return Err(CallError::Protocol(format!(
                "a response that is not an object: {other}"
            )));
        }
    };
    if let Some(err) = obj.remove("error") {
        let code = err.get("code").and_then(Value::as_i64).unwrap_or(0);
        let message = err
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or("(no message)")
            .to_string();
        if let Some(fields) = call_error::denial_of_error(code, err.get("data")) {
            return Err(CallError::Denied {
                message,
                fields: Box::new(fields.clone()),
                answer: Box::new(DeniedAnswer::Error(err.clone())),
            });
        }
        return Err(CallError::Rpc {
            code,
            message,
            data: err.get("data").cloned(),
        });
    }
    let result = obj
        .remove("result")
        .ok_or_else(|| CallError::Protocol("a response with neither result nor error".into()))?;
    if let Some(fields) = call_error::denial_of_result(&result) {
        return Err(CallError::Denied {
            message: crate::ToolReply::from_result(&result)
                .failure
                .unwrap_or_else(|| "the gateway refused the call".into()),
            fields: Box::new(fields.clone()),
            answer: Box::new(DeniedAnswer::ToolResult(result)),
        });
    }
    Ok(result)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_each_shape() {
        assert_eq!(
            classify(&json!({"jsonrpc":"2.0","id":1,"method":"ping"})),
            Kind::Request
        );
        assert_eq!(
            classify(&json!({"jsonrpc":"2.0","method":"notifications/initialized"})),
            Kind::Notification
        );
        assert_eq!(
            classify(&json!({"jsonrpc":"2.0","id":1,"result":{}})),
            Kind::Response
        );
        assert!(matches!(classify(&json!([1])), Kind::Invalid(_)));
        assert!(matches!(
            classify(&json!({"id":{},"method":"x"})),
            Kind::Invalid(_)
        ));
    }

    #[test]
    fn error_object_becomes_a_typed_rpc_error() {
        let e = into_result(
            json!({"id":1,"error":{"code":-32602,"message":"Unknown parameter 'qury'"}}),
        )
        .unwrap_err();
        match e {
            CallError::Rpc { code, message, .. } => {
                assert_eq!(code, -32602);
                assert!(message.contains("qury"));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn numeric_and_string_ids_do_not_collide() {
        assert_ne!(id_key(&json!(1)), id_key(&json!("1")));
    }
}
