//! `GET /sync/version_vector` for a non-admin: `replica_id`, the vector and the embedder
//! (`profile.accelerator.embedder`, what an edge's merge gate and doctor read), nothing else.

use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::Full;
use hyper::Request;
use serde_json::{Map, Value, json};

use crate::http::forward::Done;
use crate::http::forward::{self, MAX_BODY};
use crate::http::upstream::Upstream;
use crate::record::audit::Event;

const WAIT: Duration = Duration::from_secs(30);

/// Sends `up` and answers with the trimmed vector (any other answer as it came).
pub async fn trimmed(
    upstream: &Upstream,
    up: Request<Full<Bytes>>,
    request: Event,
    started: Instant,
) -> Done {
    let (status, bytes) = match forward::fetch(upstream, up, WAIT, MAX_BODY).await {
        Ok(r) => r,
        Err(f) => return forward::failed(upstream, request, started, f),
    };
    let out = match serde_json::from_slice::<Value>(&bytes) {
        Ok(v) if status == 200 => crate::decide::reads::pyjson::compact(&trim(&v)),
        _ => bytes.to_vec(),
    };
    forward::answered(
        request,
        status,
        started,
        "application/json; charset=utf-8",
        out,
    )
}

/// The fields a device needs of the primary's vector.
pub fn trim(v: &Value) -> Value {
    let mut out = Map::new();
    for k in ["replica_id", "version_vector"] {
        if let Some(x) = v.get(k) {
            out.insert(k.into(), x.clone());
        }
    }
    if let Some(e) = v.pointer("/profile/accelerator/embedder") {
        out.insert("profile".into(), json!({"accelerator": {"embedder": e}}));
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hardware_and_the_relayed_profiles_go() {
        let v = json!({"replica_id": "rep_1", "version_vector": {"rep_1": 3},
            "profile": {"hardware": {"platform": "Linux-6"}, "accelerator": {"embedder": {"model": "m"}, "device": "cpu"}},
            "profiles": {"rep_2": {}}});
        assert_eq!(
            trim(&v),
            json!({"replica_id": "rep_1", "version_vector": {"rep_1": 3},
                "profile": {"accelerator": {"embedder": {"model": "m"}}}})
        );
    }
}
