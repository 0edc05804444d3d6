//! Reply bodies read with a bound: at most `REPLY_LIMIT` bytes of a primary's reply are taken in,
//! so an endless or huge body (JSON or SSE) fails as a typed error instead of exhausting memory.

use super::{CallError, HttpFailure};

/// Four times MemPalace's own 16 MiB request cap: no honest reply comes near it.
pub const REPLY_LIMIT: usize = 64 * 1024 * 1024;

/// The error for a reply that passed `REPLY_LIMIT`.
pub fn too_large(status: u16) -> CallError {
    CallError::Http {
        failure: HttpFailure::ReplyTooLarge,
        status: Some(status),
        detail: format!(
            "the primary's reply passed {} MiB (four times MemPalace's own 16 MiB request cap) and was not read further",
            REPLY_LIMIT >> 20
        ),
    }
}

/// Counts the bytes of one reply against `REPLY_LIMIT`.
#[derive(Debug, Default)]
pub struct Budget {
    taken: usize,
}

impl Budget {
    /// Takes `n` more bytes; an error once the reply passes the limit.
    pub fn take(&mut self, n: usize, status: u16) -> Result<(), CallError> {
        self.taken = self.taken.saturating_add(n);
        if self.taken > REPLY_LIMIT {
            return Err(too_large(status));
        }
        Ok(())
    }
}

/// The whole body, or `too_large` as soon as it passes the limit (a declared length past it
/// fails before anything is read).
pub async fn read_capped(mut resp: reqwest::Response) -> Result<Vec<u8>, CallError> {
    let status = resp.status().as_u16();
    if resp
        .content_length()
        .is_some_and(|n| n > REPLY_LIMIT as u64)
    {
        return Err(too_large(status));
    }
    let mut budget = Budget::default();
    let mut body = Vec::new();
    while let Some(chunk) = resp.chunk().await.map_err(|e| dropped(&e))? {
        budget.take(chunk.len(), status)?;
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// The body's first `limit` bytes (the rest is never read), for error pages; a failure mid-body
/// leaves what came before it.
pub async fn read_prefix(mut resp: reqwest::Response, limit: usize) -> String {
    let mut body = Vec::new();
    while body.len() < limit {
        match resp.chunk().await {
            Ok(Some(chunk)) => body.extend_from_slice(&chunk),
            _ => break,
        }
    }
    body.truncate(limit);
    String::from_utf8_lossy(&body).into_owned()
}

/// The reply broke off mid-body: a dropped connection, ambiguous (the server may have applied it).
pub(super) fn dropped(e: &reqwest::Error) -> CallError {
    CallError::Http {
        failure: HttpFailure::Dropped,
        status: None,
        detail: format!(
            "the connection dropped mid-reply: {}",
            super::send_error::plain_cause(e)
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_allows_exactly_the_limit() {
        let mut b = Budget::default();
        b.take(REPLY_LIMIT - 1, 200).unwrap();
        b.take(1, 200).unwrap();
        let e = b.take(1, 200).unwrap_err();
        assert!(e.to_string().contains("64 MiB"), "{e}");
        assert!(e.to_string().contains("16 MiB request cap"), "{e}");
    }
}
