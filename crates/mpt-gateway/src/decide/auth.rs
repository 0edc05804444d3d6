//! Who is asking: the headers refused before anything (duplicated or non-ASCII Host, Origin,
//! Authorization), then the bearer token parsed, looked up by id and compared by digest.

use std::sync::Arc;

use hyper::header::{self, HeaderMap, HeaderName};

use crate::http::reply::Unauthorized;
use crate::keys::token;
use crate::keys::tokens::{TokenFile, TokenState};

/// A device whose token the gateway let in.
#[derive(Debug, Clone)]
pub struct Who {
    pub device: String,
    pub token_id: String,
    pub expires: Option<String>,
}

/// A refused token, with its id when the token was well-formed (ids are not secret).
#[derive(Debug, Clone)]
pub struct Refused {
    pub why: Unauthorized,
    pub token_id: Option<String>,
}

/// The first of Host and Origin that is duplicated or not visible ASCII (the gateway answers
/// 400 itself: `serve` takes the first of two, and a proxy must not let the two disagree).
pub fn bad_header(h: &HeaderMap) -> Option<&'static str> {
    [(header::HOST, "host"), (header::ORIGIN, "origin")]
        .into_iter()
        .find(|(name, _)| !single_visible(h, name).unwrap_or(true))
        .map(|(_, label)| label)
}

/// `None` when absent; `Some(true)` when there is exactly one value and it is visible ASCII.
fn single_visible(h: &HeaderMap, name: &HeaderName) -> Option<bool> {
    let mut values = h.get_all(name).iter();
    let first = values.next()?;
    Some(values.next().is_none() && visible(first.as_bytes()))
}

fn visible(bytes: &[u8]) -> bool {
    bytes.iter().all(|b| (0x20..0x7f).contains(b))
}

/// The token of the one `Authorization: Bearer <token>` header.
pub(crate) fn bearer(h: &HeaderMap) -> Option<&str> {
    match single_visible(h, &header::AUTHORIZATION) {
        Some(true) => {}
        _ => return None,
    }
    let value = h.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim())
        .filter(|t| !t.is_empty())
}

/// The device behind the request's token. Missing, duplicated, non-ASCII or not of the token
/// format: malformed; a good format whose id or digest is not in `tokens.json` (`tokens_for`
/// reads it again first: a token used the instant it is issued works): unknown.
pub fn authenticate(
    h: &HeaderMap,
    now_s: i64,
    tokens_for: impl FnOnce(&str) -> Arc<TokenFile>,
) -> Result<Who, Refused> {
    let refused = |why, id: Option<&str>| Refused {
        why,
        token_id: id.map(str::to_string),
    };
    let token = bearer(h).ok_or_else(|| refused(Unauthorized::Malformed, None))?;
    let id = token::parse(token).ok_or_else(|| refused(Unauthorized::Malformed, None))?;
    let file = tokens_for(id);
    let entry = file
        .find(id)
        .ok_or_else(|| refused(Unauthorized::UnknownToken, Some(id)))?;
    if !token::same_digest(&entry.sha256, &token::digest(token)) {
        return Err(refused(Unauthorized::UnknownToken, Some(id)));
    }
    match entry.state(now_s) {
        TokenState::Revoked => Err(refused(Unauthorized::Revoked, Some(id))),
        TokenState::Expired => Err(refused(Unauthorized::Expired, Some(id))),
        _ => Ok(Who {
            device: entry.device.clone(),
            token_id: entry.id.clone(),
            expires: entry.expires.clone(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hyper::header::HeaderValue;

    fn headers(pairs: &[(&str, &[u8])]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(
                HeaderName::from_bytes(k.as_bytes()).unwrap(),
                HeaderValue::from_bytes(v).unwrap(),
            );
        }
        h
    }

    #[test]
    fn host_and_origin_must_be_single_and_ascii() {
        assert_eq!(bad_header(&headers(&[("host", b"a:1")])), None);
        assert_eq!(bad_header(&headers(&[])), None);
        assert_eq!(
            bad_header(&headers(&[("host", b"a"), ("host", b"b")])),
            Some("host")
        );
        assert_eq!(
            bad_header(&headers(&[("origin", b"http://caf\xc3\xa9")])),
            Some("origin")
        );
    }

    #[test]
    fn the_bearer_is_one_visible_ascii_header() {
        assert_eq!(
            bearer(&headers(&[("authorization", b"Bearer abc")])),
            Some("abc")
        );
        assert_eq!(
            bearer(&headers(&[("authorization", b"bearer abc")])),
            Some("abc")
        );
        assert_eq!(bearer(&headers(&[("authorization", b"Basic abc")])), None);
        assert_eq!(
            bearer(&headers(&[("authorization", b"Bearer \xe2\x82\xac")])),
            None
        );
        assert_eq!(
            bearer(&headers(&[
                ("authorization", b"Bearer a"),
                ("authorization", b"Bearer a")
            ])),
            None
        );
        assert_eq!(bearer(&headers(&[])), None);
    }
}
