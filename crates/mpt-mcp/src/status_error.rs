//! What an error status from the primary says: a JSON-RPC error in its body, a gateway's word
//! (a 401's refused token, a 429's `Retry-After`), else the status and the body's first line.

use serde_json::Value;

use super::{CallError, HttpFailure, TokenRefusal, body};

/// Error bodies are read only this far (an HTML 401 page is not worth more).
const ERROR_BODY_LIMIT: usize = 2048;

/// The failure an HTTP `status` from the primary at `url` is, read from its body `resp`.
pub(super) async fn read(status: u16, resp: reqwest::Response, url: &str) -> CallError {
    let retry_after_s = resp
        .headers()
        .get(reqwest::header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    // Read past the limit and scrubbed before it is cut: a cut through an echoed token would
    // leave a piece of it.
    let mut body =
        mpt_base::secrets::scrubbed(body::read_prefix(resp, ERROR_BODY_LIMIT + 64 * 1024).await);
    if body.len() > ERROR_BODY_LIMIT {
        let mut cut = ERROR_BODY_LIMIT;
        while !body.is_char_boundary(cut) {
            cut -= 1;
        }
        body.truncate(cut);
    }
    let parsed = serde_json::from_str::<Value>(&body).ok();
    // A JSON-RPC error in a 4xx body (400 parse error, 413 too large) says more than the status;
    // a gateway's own refusals (`{"error": "rate_limited"}`) are a word, not a JSON-RPC error.
    if let Some(err) = parsed.as_ref().and_then(|v| v.get("error"))
        && err.is_object()
        && ![401, 403, 413, 429].contains(&status)
    {
        return CallError::Rpc {
            code: err.get("code").and_then(Value::as_i64).unwrap_or(0),
            message: err
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string(),
            data: err.get("data").cloned(),
        };
    }
    let word = parsed
        .as_ref()
        .and_then(|v| v.get("error"))
        .and_then(Value::as_str);
    let (failure, detail) = match status {
        401 => match word.and_then(TokenRefusal::parse) {
            Some(why) => (
                HttpFailure::Unauthorized(Some(why)),
                format!(
                    "the gateway at {url} refused this device's token ({}): {}",
                    why.as_str(),
                    why.says()
                ),
            ),
            None => (
                HttpFailure::Unauthorized(None),
                format!("the primary at {url} answered 401 Unauthorized: the token was refused"),
            ),
        },
        403 => (
            HttpFailure::Forbidden,
            format!("the primary at {url} answered 403 Forbidden"),
        ),
        404 => (
            HttpFailure::NotFound,
            format!("the primary answered 404 Not Found for {url}"),
        ),
        413 => (
            HttpFailure::TooLarge,
            "the primary answered 413: request too large".to_string(),
        ),
        429 => (
            HttpFailure::RateLimited { retry_after_s },
            format!(
                "the primary at {url} answered 429 Too Many Requests: this device is past its rate; retry after {}",
                retry_after_s.map_or("a moment (no Retry-After given)".into(), |s| format!(
                    "{s} s (Retry-After)"
                ))
            ),
        ),
        500..=599 => (
            HttpFailure::Server,
            format!("the primary answered {status}: {}", first_line(&body)),
        ),
        _ => (
            HttpFailure::Status,
            format!("the primary answered HTTP {status}: {}", first_line(&body)),
        ),
    };
    CallError::Http {
        failure,
        status: Some(status),
        detail,
    }
}

fn first_line(s: &str) -> &str {
    s.lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim()
}
