//! TLS for the gateway (rustls, aws-lc-rs): the listener's certificate and key (PEM), and the
//! client side toward an `https://` upstream (the platform's roots plus `MPT_CA_FILE`).

use std::path::Path;
use std::sync::Arc;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::{TlsAcceptor, TlsConnector};

use mpt_base::error::{MptError, Result};

fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::aws_lc_rs::default_provider())
}

fn certs(path: &Path, flag: &str) -> Result<Vec<CertificateDer<'static>>> {
    let certs: Vec<_> = CertificateDer::pem_file_iter(path)
        .and_then(|it| it.collect::<std::result::Result<Vec<_>, _>>())
        .map_err(|e| {
            MptError::usage(format!("{flag} {}: {e}", path.display())).with_hint(format!(
                "point {flag} at a PEM certificate (-----BEGIN CERTIFICATE-----)"
            ))
        })?;
    if certs.is_empty() {
        return Err(MptError::usage(format!(
            "{flag} {} holds no PEM certificate",
            path.display()
        )));
    }
    Ok(certs)
}

/// The listener's TLS from `--tls-cert` and `--tls-key` (TLS 1.2 and 1.3).
pub fn acceptor(cert: &Path, key: &Path) -> Result<TlsAcceptor> {
    let chain = certs(cert, "--tls-cert")?;
    let key = PrivateKeyDer::from_pem_file(key).map_err(|e| {
        MptError::usage(format!("--tls-key {}: {e}", key.display()))
            .with_hint("point --tls-key at the certificate's PEM private key")
    })?;
    let config = rustls::ServerConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .and_then(|b| b.with_no_client_auth().with_single_cert(chain, key))
        .map_err(|e| {
            MptError::usage(format!(
                "the TLS certificate and key do not go together: {e}"
            ))
            .with_hint("give --tls-cert and --tls-key of the same pair")
        })?;
    Ok(TlsAcceptor::from(Arc::new(config)))
}

/// The client side toward an `https://` upstream: the platform's roots, plus `extra_ca`.
pub fn connector(extra_ca: Option<&Path>) -> Result<TlsConnector> {
    let extra = match extra_ca {
        Some(p) => certs(p, "MPT_CA_FILE")?,
        None => Vec::new(),
    };
    let verifier = rustls_platform_verifier::Verifier::new_with_extra_roots(extra, provider())
        .map_err(|e| MptError::usage(format!("the TLS roots cannot be loaded: {e}")))?;
    let config = rustls::ClientConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .map_err(|e| MptError::usage(format!("TLS: {e}")))?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(verifier))
        .with_no_client_auth();
    Ok(TlsConnector::from(Arc::new(config)))
}
