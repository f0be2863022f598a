//! The agent's TLS (`--server https://`): rustls with ring, trusting the
//! lab's own CA (`--ca`) or, without it, the Mozilla roots
//! (`webpki-roots`), and checking that the certificate names the server.

use std::path::Path;
use std::sync::Arc;

use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;
use tokio_tungstenite::Connector;

use crate::client::{AgentError, AgentOptions};

/// The connector for `options.server`: rustls for `https://`/`wss://`,
/// plain TCP otherwise (None).
pub fn connector(options: &AgentOptions) -> Result<Option<Connector>, AgentError> {
    let config = client_config(&options.server, options.ca.as_deref())?;
    Ok(config.map(|config| Connector::Rustls(Arc::new(config))))
}

/// The TLS client configuration for `server`: rustls trusting `ca` (or
/// the Mozilla roots) for `https://`/`wss://`; None for plain HTTP, which
/// takes no `ca`. `pqbench run --server` speaks to the server's API with
/// it too.
pub fn client_config(server: &str, ca: Option<&Path>) -> Result<Option<rustls::ClientConfig>, AgentError> {
    let secure = server.starts_with("https://") || server.starts_with("wss://");
    if !secure {
        if ca.is_some() {
            return Err(AgentError::Refused("--ca is for an https:// server".into()));
        }
        return Ok(None);
    }
    let mut roots = rustls::RootCertStore::empty();
    match ca {
        Some(path) => {
            let refused = |why: String| AgentError::Refused(format!("--ca {}: {why}", path.display()));
            let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(path)
                .and_then(|certs| certs.collect())
                .map_err(|e| refused(e.to_string()))?;
            if certs.is_empty() {
                return Err(refused("no certificate in it (PEM `BEGIN CERTIFICATE`)".into()));
            }
            for cert in certs {
                roots.add(cert).map_err(|e| refused(e.to_string()))?;
            }
        }
        None => roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned()),
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| AgentError::Refused(format!("TLS: {e}")))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(Some(config))
}
