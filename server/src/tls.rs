//! `pqbench serve --tls-cert --tls-key`: the server over HTTPS, with
//! rustls (its `ring` provider: no OpenSSL, no C toolchain beyond `cc`).
//! HTTP/1.1 only, as the agents' WebSocket upgrade needs it. The
//! connections themselves are `listen.rs`'s, as plain HTTP's are.
//!
//! A client that speaks plain HTTP to the TLS port (an agent given
//! `http://`) gets a plain `400` saying to use `https://`, instead of a
//! handshake that fails without a word: the first byte of every TLS
//! connection is a handshake record's, 0x16, and of no HTTP request.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;
use tokio_rustls::TlsAcceptor;

/// A TLS record of type handshake begins every TLS connection.
const TLS_HANDSHAKE: u8 = 0x16;
/// How long a client has to finish its handshake: a connection that
/// never does holds a task and a socket.
const HANDSHAKE_WITHIN: Duration = Duration::from_secs(10);

#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    #[error("reading the certificate chain {path}: {why}")]
    Certificate { path: PathBuf, why: String },
    #[error("{path} holds no certificate (PEM `BEGIN CERTIFICATE`)")]
    NoCertificate { path: PathBuf },
    #[error("reading the private key {path}: {why}")]
    Key { path: PathBuf, why: String },
    #[error("the certificate and key do not make a TLS server: {0}")]
    Config(#[from] rustls::Error),
}

/// The server's TLS configuration from PEM files: the certificate chain
/// (the server's first) and its private key (PKCS#8, PKCS#1 or SEC1).
pub fn server_config(cert: &Path, key: &Path) -> Result<Arc<rustls::ServerConfig>, TlsError> {
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(cert)
        .and_then(|certs| certs.collect())
        .map_err(|e| TlsError::Certificate { path: cert.into(), why: e.to_string() })?;
    if chain.is_empty() {
        return Err(TlsError::NoCertificate { path: cert.into() });
    }
    let key = PrivateKeyDer::from_pem_file(key)
        .map_err(|e| TlsError::Key { path: key.into(), why: e.to_string() })?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .with_no_client_auth()
        .with_single_cert(chain, key)?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}

/// The TLS stream of a new connection, or None: a plain-HTTP client is
/// told to use `https://`, a failed handshake is logged.
pub(crate) async fn handshake(
    mut stream: TcpStream,
    acceptor: &TlsAcceptor,
) -> Option<tokio_rustls::server::TlsStream<TcpStream>> {
    let mut first = [0u8; 1];
    match tokio::time::timeout(HANDSHAKE_WITHIN, stream.peek(&mut first)).await {
        Ok(Ok(1)) if first[0] != TLS_HANDSHAKE => {
            let body = r#"{"error":"this server speaks HTTPS (TLS): use https:// (or wss:// for an agent)"}"#;
            let response = format!(
                "HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = stream.write_all(response.as_bytes()).await;
            let _ = stream.shutdown().await;
            return None;
        }
        Ok(Ok(1)) => {}
        _ => return None,
    }
    match tokio::time::timeout(HANDSHAKE_WITHIN, acceptor.accept(stream)).await {
        Ok(Ok(tls)) => Some(tls),
        Ok(Err(e)) => {
            tracing::info!("a TLS handshake failed: {e}");
            None
        }
        Err(_) => None,
    }
}
