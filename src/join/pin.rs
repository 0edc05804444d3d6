//! The gateway's certificate pinned across the join (as `kubeadm join` pins its CA): the chain it
//! presents read by a handshake that sends nothing, a certificate in it matched by its SHA-256.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use sha2::{Digest, Sha256};

use mpt_base::error::{ErrorKind, MptError, Result};

/// The pin of a certificate: the SHA-256 of its DER, in hex (`sha256:` in front allowed).
pub fn fingerprint(cert: &[u8]) -> String {
    mpt_base::hex::hex(&Sha256::digest(cert))
}

/// A pin as given: 64 hex digits, an optional `sha256:` before them; exit 2 otherwise.
pub fn parse(pin: &str) -> Result<String> {
    let hex = pin
        .trim()
        .trim_start_matches("sha256:")
        .to_ascii_lowercase();
    if hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Ok(hex);
    }
    Err(MptError::usage(format!(
        "--ca-sha256 '{pin}' is not a SHA-256 (64 hex digits)"
    ))
    .with_hint("copy it whole from the line `mpt gateway invite` printed"))
}

/// The certificates `host:port` presents, leaf first. The handshake is stopped at the
/// certificate: no request is made, nothing is sent.
pub async fn presented(host: &str, port: u16) -> Result<Vec<CertificateDer<'static>>> {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let capture = Capture {
        seen: Arc::clone(&seen),
        schemes: provider
            .signature_verification_algorithms
            .supported_schemes(),
    };
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| MptError::usage(format!("TLS: {e}")))?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(capture))
        .with_no_client_auth();
    let name = ServerName::try_from(host.trim_matches(['[', ']']).to_string())
        .map_err(|e| MptError::usage(format!("'{host}' is not a host name for TLS: {e}")))?;
    let unreachable = |e: &dyn std::fmt::Display| {
        MptError::new(
            ErrorKind::Unavailable,
            format!("cannot reach the gateway at {host}:{port}: {e}"),
        )
        .with_hint("is `mpt gateway serve` running on the primary host, and is this the URL devices reach it at?")
    };
    let tcp = tokio::time::timeout(
        Duration::from_secs(10),
        tokio::net::TcpStream::connect((host.trim_matches(['[', ']']), port)),
    )
    .await
    .map_err(|e| unreachable(&e))?
    .map_err(|e| unreachable(&e))?;
    let connector = tokio_rustls::TlsConnector::from(Arc::new(config));
    // The verifier refuses every chain once it has kept it: the handshake ends there.
    let _ = tokio::time::timeout(Duration::from_secs(10), connector.connect(name, tcp)).await;
    let chain = std::mem::take(&mut *seen.lock().unwrap_or_else(|e| e.into_inner()));
    if chain.is_empty() {
        return Err(MptError::new(
            ErrorKind::Protocol,
            format!("{host}:{port} presented no certificate"),
        )
        .with_hint("is this the gateway's https:// address (`mpt gateway serve --tls-cert`)?"));
    }
    Ok(chain)
}

/// The certificate in `chain` whose fingerprint is `pin`; refused (exit 4) when none is: a
/// gateway that is not the one the invite named gets nothing.
pub fn matching<'a>(
    chain: &'a [CertificateDer<'static>],
    pin: &str,
    at: &str,
) -> Result<&'a CertificateDer<'static>> {
    chain
        .iter()
        .find(|c| fingerprint(c.as_ref()) == pin)
        .ok_or_else(|| {
            let seen: Vec<String> = chain.iter().map(|c| fingerprint(c.as_ref())).collect();
            MptError::refused(format!(
                "the gateway at {at} presents no certificate with the pinned SHA-256 (it presents {}): nothing was sent",
                seen.join(", ")
            ))
            .with_hint("check the URL and the --ca-sha256 the invite printed; if the gateway's certificate changed since, ask for a new invite")
        })
}

/// `cert` as a PEM file at `path` (0644 is fine for a certificate; written whole, atomically).
pub fn write_pem(path: &Path, cert: &CertificateDer<'_>) -> Result<()> {
    let b64 = base64::engine::general_purpose::STANDARD.encode(cert.as_ref());
    let mut pem = String::from("-----BEGIN CERTIFICATE-----\n");
    for line in b64.as_bytes().chunks(64) {
        pem.push_str(&String::from_utf8_lossy(line));
        pem.push('\n');
    }
    pem.push_str("-----END CERTIFICATE-----\n");
    mpt_base::private_fs::write_private(path, pem.as_bytes())
        .map_err(|e| MptError::io(format!("writing {}", path.display()), &e))
}

/// Keeps the chain it is shown and trusts none of it.
#[derive(Debug)]
struct Capture {
    seen: Arc<Mutex<Vec<CertificateDer<'static>>>>,
    schemes: Vec<rustls::SignatureScheme>,
}

impl ServerCertVerifier for Capture {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        _name: &ServerName<'_>,
        _ocsp: &[u8],
        _now: UnixTime,
    ) -> std::result::Result<ServerCertVerified, rustls::Error> {
        let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        seen.push(end_entity.clone().into_owned());
        seen.extend(intermediates.iter().map(|c| c.clone().into_owned()));
        Err(rustls::Error::General(
            "the chain is read, not trusted".into(),
        ))
    }

    fn verify_tls12_signature(
        &self,
        _message: &[u8],
        _cert: &CertificateDer<'_>,
        _dss: &rustls::DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        Err(rustls::Error::General("not reached".into()))
    }

    fn verify_tls13_signature(
        &self,
        _message: &[u8],
        _cert: &CertificateDer<'_>,
        _dss: &rustls::DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        Err(rustls::Error::General("not reached".into()))
    }

    fn supported_verify_schemes(&self) -> Vec<rustls::SignatureScheme> {
        self.schemes.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pin_is_64_hex_digits_with_or_without_its_prefix() {
        let h = "AB".repeat(32);
        assert_eq!(parse(&h).unwrap(), "ab".repeat(32));
        assert_eq!(parse(&format!("sha256:{h}")).unwrap(), "ab".repeat(32));
        assert_eq!(parse("abc").unwrap_err().exit().code(), 2);
    }
}
