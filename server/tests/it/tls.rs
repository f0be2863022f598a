//! HTTPS: `pqbench serve --tls-cert --tls-key`, and agents on `https://`
//! with `--ca`. The certificates are made here (rcgen): a private CA, a
//! server certificate it signs for localhost and 127.0.0.1, and one for
//! another name.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, KeyPair};
use rustls::pki_types::ServerName;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::agents::{Agent, ready};
use crate::common;

const BOARD: &str = "qemu-mps2-an386";

/// A CA, and two server certificates it signed: PEM files in `dir`.
struct Pki {
    ca: PathBuf,
    /// For localhost and 127.0.0.1: (certificate, key).
    right: (PathBuf, PathBuf),
    /// For bench.other.example only.
    wrong: (PathBuf, PathBuf),
}

fn pki(dir: &Path) -> Pki {
    let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params.distinguished_name.push(DnType::CommonName, "pqbench test CA");
    let ca_key = KeyPair::generate().unwrap();
    let ca = params.self_signed(&ca_key).unwrap();
    let write = |name: &str, text: String| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    };
    let issue = |names: &[&str], file: &str| {
        let key = KeyPair::generate().unwrap();
        let params = CertificateParams::new(names.iter().map(|n| n.to_string()).collect::<Vec<_>>()).unwrap();
        let cert = params.signed_by(&key, &ca, &ca_key).unwrap();
        (write(&format!("{file}.crt"), cert.pem()), write(&format!("{file}.key"), key.serialize_pem()))
    };
    Pki {
        right: issue(&["localhost", "127.0.0.1"], "server"),
        wrong: issue(&["bench.other.example"], "other"),
        ca: write("ca.crt", ca.pem()),
    }
}

/// `GET path` over TLS to 127.0.0.1:`port`, trusting `ca`: status and body.
async fn https_get(port: u16, path: &str, ca: &Path) -> (u16, String) {
    let mut roots = rustls::RootCertStore::empty();
    for cert in rustls::pki_types::pem::PemObject::pem_file_iter(ca).unwrap() {
        roots.add(cert.unwrap()).unwrap();
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    let tcp = tokio::net::TcpStream::connect(("127.0.0.1", port)).await.unwrap();
    let name = ServerName::try_from("127.0.0.1").unwrap();
    let mut tls = tokio_rustls::TlsConnector::from(Arc::new(config)).connect(name, tcp).await.unwrap();
    let request = format!("GET {path} HTTP/1.1\r\nhost: 127.0.0.1:{port}\r\nconnection: close\r\n\r\n");
    tls.write_all(request.as_bytes()).await.unwrap();
    let mut response = Vec::new();
    let _ = tls.read_to_end(&mut response).await;
    let text = String::from_utf8_lossy(&response).into_owned();
    let status = text.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let body = text.split_once("\r\n\r\n").map(|(_, b)| b.to_string()).unwrap_or_default();
    (status, body)
}

fn port_of(server: &common::Server) -> u16 {
    server.base.rsplit(':').next().unwrap().parse().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn agents_reach_an_https_server_their_ca_vouches_for_and_no_other() {
    pqbench_test_needs::require!(common::firmware_dist());
    let dir = tempfile::tempdir().unwrap();
    let pki = pki(dir.path());
    let (cert, key) = (pki.right.0.to_str().unwrap(), pki.right.1.to_str().unwrap());
    let server =
        common::start_server(&["--tls-cert", cert, "--tls-key", key, "--agent-token", "agents-token-0451"])
            .await;
    let port = port_of(&server);
    let https = format!("https://127.0.0.1:{port}");
    let ca = pki.ca.to_str().unwrap();

    // The dashboard's API over TLS.
    let (status, body) = https_get(port, "/api/health", &pki.ca).await;
    assert_eq!(status, 200, "{body}");

    // Plain HTTP to the TLS port: a clear answer, not a dead socket.
    let plain = reqwest::get(format!("http://127.0.0.1:{port}/api/boards")).await.unwrap();
    assert_eq!(plain.status(), 400);
    assert!(plain.text().await.unwrap().contains("this server speaks HTTPS (TLS): use https://"));

    // An agent on https:// with the lab's CA connects over wss://.
    let logs = tempfile::tempdir().unwrap();
    let _agent = Agent::start_at(&https, "rack-tls", "agents-token-0451", &["--ca", ca], logs.path());
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let (_, body) = https_get(port, "/api/boards", &pki.ca).await;
        let boards: Vec<pqbench_api::Board> = serde_json::from_str(&body).unwrap();
        if ready(&boards, &format!("rack-tls/{BOARD}")) {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "the TLS agent's board never came: {boards:?}");
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }

    // An agent on plain http:// to the TLS port is told, and stops.
    let mut plain_agent = Agent::start_at(&server.base, "rack-plain", "agents-token-0451", &[], logs.path());
    assert_eq!(plain_agent.ended().await, Some(1));
    assert!(plain_agent.log().contains("this server speaks HTTPS (TLS)"), "{}", plain_agent.log());

    // Without the lab's CA, the certificate is nobody's it trusts.
    let mut untrusting = Agent::start_at(&https, "rack-roots", "agents-token-0451", &[], logs.path());
    assert_eq!(untrusting.ended().await, Some(1));
    assert!(untrusting.log().contains("the TLS connection to"), "{}", untrusting.log());

    // A server whose certificate names another host is refused.
    let (cert, key) = (pki.wrong.0.to_str().unwrap(), pki.wrong.1.to_str().unwrap());
    let other =
        common::start_server(&["--tls-cert", cert, "--tls-key", key, "--agent-token", "agents-token-0451"])
            .await;
    let other_https = format!("https://127.0.0.1:{}", port_of(&other));
    let mut mismatched =
        Agent::start_at(&other_https, "rack-other", "agents-token-0451", &["--ca", ca], logs.path());
    assert_eq!(mismatched.ended().await, Some(1));
    let log = mismatched.log();
    assert!(log.contains("the TLS connection to") && log.contains("not valid for name"), "{log}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ci_run_is_stored_on_an_https_server_its_ca_vouches_for() {
    use crate::regressions::{cli_run, said};
    pqbench_test_needs::require!(common::firmware_dist());
    let dir = tempfile::tempdir().unwrap();
    let pki = pki(dir.path());
    let (cert, key) = (pki.right.0.to_str().unwrap(), pki.right.1.to_str().unwrap());
    let tokens = ["--token", "writes-token-0451", "--agent-token", "agents-token-0451"];
    let server =
        common::start_server(&[&["--tls-cert", cert, "--tls-key", key][..], &tokens[..]].concat()).await;
    let https = format!("https://127.0.0.1:{}", port_of(&server));
    let unused = dir.path().join("unused.db");
    let to_central = |ca: Option<&str>| {
        let mut extra = vec!["--server", &https];
        extra.extend(tokens);
        extra.extend(["--host", "ci-tls"]);
        extra.extend(ca.map(|ca| ["--ca", ca]).into_iter().flatten());
        said(&cli_run(&unused, "opt-s", &extra))
    };

    let (code, out, err) = to_central(Some(pki.ca.to_str().unwrap()));
    assert_eq!(code, Some(0), "{out}{err}");
    let id: i64 = out.trim().parse().unwrap();
    let (status, body) = https_get(port_of(&server), &format!("/api/runs/{id}"), &pki.ca).await;
    assert_eq!(status, 200, "{body}");
    let run: pqbench_types::Run = serde_json::from_str(&body).unwrap();
    assert_eq!((run.host.as_deref(), run.status), (Some("ci-tls"), pqbench_types::RunStatus::Complete));
    assert!(!unused.exists(), "nothing was stored locally");

    // Without the lab's CA the server is nobody's it trusts: said, and no run.
    let (code, _, err) = to_central(None);
    assert_eq!(code, Some(1));
    assert!(err.contains("certificate") || err.contains("https://"), "{err}");
}

#[test]
fn a_key_that_is_not_one_is_refused_before_listening() {
    let dir = tempfile::tempdir().unwrap();
    let pki = pki(dir.path());
    let cert = pki.right.0.to_str().unwrap();
    // The certificate given as its own key.
    let output = common::pqbench(
        &["serve", "--listen", "127.0.0.1:0", "--tls-cert", cert, "--tls-key", cert],
        dir.path().join("p.db"),
    );
    assert!(!output.status.success());
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(err.contains("reading the private key"), "{err}");
}
