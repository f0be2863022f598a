//! What keeps the server safe to open in a browser and to expose: the
//! headers on every response (a strict Content-Security-Policy, cross-origin
//! isolation, nosniff), and the tokens that writes and agents must send,
//! compared in constant time.

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};
use tower_http::set_header::SetResponseHeaderLayer;

use crate::error::ApiError;

pub mod guesses;
pub mod sessions;

pub use guesses::Guesses;
pub use sessions::Sessions;

/// Every response's security headers, on the whole application.
pub fn with_security_headers(app: Router) -> Router {
    // Cross-origin isolation gives the browser benchmark a fine-grained
    // performance.now(); nosniff keeps uploads from being run as scripts.
    app.layer(SetResponseHeaderLayer::overriding(
        header::HeaderName::from_static("cross-origin-opener-policy"),
        HeaderValue::from_static("same-origin"),
    ))
    .layer(SetResponseHeaderLayer::overriding(
        header::HeaderName::from_static("cross-origin-embedder-policy"),
        HeaderValue::from_static("require-corp"),
    ))
    .layer(SetResponseHeaderLayer::overriding(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    ))
    .layer(SetResponseHeaderLayer::overriding(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CONTENT_SECURITY_POLICY),
    ))
}

/// What a page of this server may load and run, on every response (a
/// worker's script takes its policy from its own response): only this
/// server's files, no inline script or style, no plugins, no framing by
/// other sites. `'wasm-unsafe-eval'` lets the dashboard, the benchmark
/// worker and the peers' worker (`/bench/peers.js`: liboqs-js compiles
/// wasm from bytes) compile WebAssembly without allowing JavaScript's
/// eval. `img-src data:` lets a page show a `data:`
/// image, such as a chart's SVG download; an image runs no script. Charts
/// are inline SVG with presentation attributes, never `style=`, so
/// `style-src` needs no `'unsafe-inline'`. `tests/e2e/security.test.mjs`
/// holds the dashboard and the comparison page to it.
const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; \
     style-src 'self'; img-src 'self' data:; connect-src 'self'; worker-src 'self'; object-src 'none'; \
     base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// The host names this server answers to, so that no other site's page
/// can reach it by DNS rebinding: a page of `attacker.example` whose
/// name the attacker's DNS then points at 127.0.0.1 sends its requests
/// with `Host: attacker.example`, which is refused (421) before any
/// route sees it.
///
/// Always served: an address (`127.0.0.1:8080`, `[::1]`, `192.0.2.7`),
/// since no DNS answer can move one, and `localhost` and its subdomains,
/// which browsers resolve to loopback themselves (RFC 6761). Any other
/// name only when allowed (`pqbench serve --allow-host NAME`).
#[derive(Clone, Debug, Default)]
pub struct ServedHosts {
    names: Vec<String>,
}

impl ServedHosts {
    /// Also serves `name` (a host name, without port; any case).
    pub fn allowing(mut self, name: &str) -> Self {
        self.names.push(name.trim_end_matches('.').to_ascii_lowercase());
        self
    }

    /// Whether a request whose `Host` header is `host` (a name or
    /// address, and maybe a port) is for this server.
    pub fn serves(&self, host: &str) -> bool {
        let Some(name) = host_name(host) else { return false };
        let name = name.trim_end_matches('.').to_ascii_lowercase();
        name.parse::<std::net::IpAddr>().is_ok()
            || name == "localhost"
            || name.ends_with(".localhost")
            || self.names.contains(&name)
    }
}

/// The name or address of a `Host` header's value (RFC 9110's
/// `uri-host [ ":" port ]`), without its port and without an IPv6
/// address's brackets; `None` for one malformed, such as
/// `[::1]attacker.example`, which is refused rather than read as `::1`.
fn host_name(host: &str) -> Option<&str> {
    let is_port = |port: &str| port.len() <= 5 && port.bytes().all(|b| b.is_ascii_digit());
    match host.strip_prefix('[') {
        Some(bracketed) => {
            let (address, after) = bracketed.split_once(']')?;
            let port_ok = after.is_empty() || after.strip_prefix(':').is_some_and(is_port);
            (port_ok && address.parse::<std::net::Ipv6Addr>().is_ok()).then_some(address)
        }
        // One colon is a port's; more are an IPv6 address without brackets.
        None if host.matches(':').count() == 1 => {
            let (name, port) = host.split_once(':')?;
            is_port(port).then_some(name)
        }
        None => Some(host),
    }
}

/// Refuses a request for a host this server does not serve (421), and a
/// write whose `Origin` is another site's (403): a browser sends the
/// page's origin with every cross-site write, and a page of this server
/// has the origin its own `Host` names. A write with no `Origin` (curl,
/// agents, the command line) is no browser's cross-site request.
pub async fn require_served_host_and_origin(
    State(hosts): State<std::sync::Arc<ServedHosts>>,
    request: Request,
    next: Next,
) -> Response {
    let headers = request.headers();
    let host = headers
        .get(header::HOST)
        .and_then(|value| value.to_str().ok())
        .or_else(|| request.uri().authority().map(|authority| authority.as_str()));
    let Some(host) = host.filter(|host| hosts.serves(host)) else {
        let named = host.map_or("no host".to_string(), |host| format!("the host {host:?}"));
        return ApiError::new(
            StatusCode::MISDIRECTED_REQUEST,
            format!(
                "this server does not serve {named}: open it by its address or as localhost, or start it \
                 with --allow-host NAME for a name of your own"
            ),
        )
        .into_response();
    };
    let writes = !matches!(*request.method(), Method::GET | Method::HEAD | Method::OPTIONS);
    if writes && let Some(origin) = headers.get(header::ORIGIN) {
        let origin = origin.to_str().unwrap_or("null");
        let same =
            origin.split_once("://").is_some_and(|(_, authority)| authority.eq_ignore_ascii_case(host));
        if !same {
            return ApiError::new(
                StatusCode::FORBIDDEN,
                format!(
                    "a write from another site's page is refused (Origin {origin:?}, this server is {host:?})"
                ),
            )
            .into_response();
        }
    }
    next.run(request).await
}

/// The SHA-256 of a token. Tokens are compared by their digests, every
/// byte of both, so the time a comparison takes says nothing about how
/// much of a guess was right.
#[derive(Clone, Copy)]
pub struct TokenDigest([u8; 32]);

impl TokenDigest {
    pub fn of(token: &str) -> Self {
        TokenDigest(Sha256::digest(token.as_bytes()).into())
    }

    /// In hex, as the store keeps an agent host's own token.
    pub fn hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }

    pub fn matches(&self, other: &TokenDigest) -> bool {
        self.0.iter().zip(&other.0).fold(0u8, |differ, (a, b)| differ | (a ^ b)) == 0
    }
}

/// A host's own token (`pqbench agent-token add`), which an agent
/// connected with: it may register that host alone, and its connection
/// ends when the token is revoked.
#[derive(Debug, Clone)]
pub struct OwnToken {
    pub host: String,
    /// Hex SHA-256, as the store keeps it.
    pub digest: String,
}

impl OwnToken {
    /// Whether the host's own token is still in the store: a revoked one
    /// (`pqbench agent-token revoke`) ends its agent's connection. While
    /// the store cannot answer, the token is taken to stand.
    pub async fn still_stands(&self, store: &pqbench_store::Store) -> bool {
        match store.agent_token_host(&self.digest).await {
            Ok(host) => host.as_deref() == Some(self.host.as_str()),
            Err(e) => {
                tracing::warn!(host = self.host, "checking the agent's token: {e}");
                true
            }
        }
    }
}

/// The write token, the wrong guesses at it (and at the agents' tokens)
/// by peer, and the dashboard's sessions signed in with it.
#[derive(Clone)]
pub struct WriteGuard {
    pub token: Option<TokenDigest>,
    pub guesses: std::sync::Arc<Guesses>,
    pub sessions: std::sync::Arc<Sessions>,
}

/// What a write's credentials come to.
pub enum Credentials {
    /// No token is needed here, or the one given (as a bearer token or a
    /// session cookie) stands.
    Accepted,
    /// The answer to give instead: 401, or 429 past the peer's guesses.
    Refused(Response),
}

impl WriteGuard {
    /// Checks `given`, a token, against the write token; each try is a
    /// guess from `peer` (`guesses.rs`).
    pub fn check_token(&self, given: &str, peer: Option<std::net::IpAddr>) -> Credentials {
        let Some(token) = self.token else { return Credentials::Accepted };
        let guess = match self.guesses.take(peer) {
            Ok(guess) => guess,
            Err(wait) => return Credentials::Refused(too_many_guesses(wait)),
        };
        if !token.matches(&TokenDigest::of(given)) {
            return Credentials::Refused(unauthorized("that is not this server's token"));
        }
        guess.was_right();
        Credentials::Accepted
    }

    /// A write's credentials: its bearer token, else its session cookie.
    fn check(&self, request: &Request) -> Credentials {
        if self.token.is_none() {
            return Credentials::Accepted;
        }
        let peer = crate::listen::peer_of(request).map(|peer| peer.ip());
        if let Some(given) = bearer_token(request.headers()) {
            return self.check_token(given, peer);
        }
        let Some(session) = sessions::session_of(request.headers()) else {
            return Credentials::Refused(unauthorized(
                "writing to this server needs its token: sign in on the dashboard, or send \
                 `Authorization: Bearer <token>`",
            ));
        };
        // A session id is no easier to guess than the token; a wrong one
        // is a guess all the same.
        let guess = match self.guesses.take(peer) {
            Ok(guess) => guess,
            Err(wait) => return Credentials::Refused(too_many_guesses(wait)),
        };
        if !self.sessions.holds(session) {
            return Credentials::Refused(unauthorized(
                "this dashboard's sign-in has ended (it lasts 12 hours, and a restart of the server ends it): \
                 sign in again",
            ));
        }
        guess.was_right();
        Credentials::Accepted
    }
}

/// Reading needs no token; with a token configured, writing does. A peer
/// past its wrong guesses (`guesses.rs`) is answered 429 unheard.
pub async fn require_token_for_writes(
    State(guard): State<WriteGuard>,
    request: Request,
    next: Next,
) -> Response {
    let writes = !matches!(*request.method(), Method::GET | Method::HEAD | Method::OPTIONS);
    if writes && let Credentials::Refused(answer) = guard.check(&request) {
        return answer;
    }
    next.run(request).await
}

/// The answer to a peer past its wrong guesses: 429, and when to try.
pub fn too_many_guesses(wait: std::time::Duration) -> Response {
    let seconds = wait.as_secs().max(1);
    let why = format!("too many wrong tokens from this address: try again in {seconds} s");
    let mut response = ApiError::new(StatusCode::TOO_MANY_REQUESTS, why).into_response();
    response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(seconds));
    response
}

/// The token of an `Authorization: Bearer <token>` header (the scheme's
/// name is case-insensitive, RFC 9110).
pub fn bearer_token(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
}

/// The answer to a missing or wrong token: 401, saying which scheme.
pub fn unauthorized(why: &str) -> Response {
    let mut response = ApiError::new(StatusCode::UNAUTHORIZED, why).into_response();
    response.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_and_localhost_are_served_and_other_names_only_when_allowed() {
        let hosts = ServedHosts::default().allowing("Bench.Lab.");
        for served in [
            "127.0.0.1:8080",
            "127.0.0.1",
            "[::1]:8080",
            "[::1]",
            "::1",
            "192.0.2.7:80",
            "localhost:8080",
            "LOCALHOST",
            "app.localhost:3000",
            "bench.lab:8443",
            "bench.lab.",
        ] {
            assert!(hosts.serves(served), "{served}");
        }
        for refused in [
            "attacker.example:8080",
            "localhost.attacker.example",
            "127.0.0.1.nip.io",
            "",
            "bench.lab.evil",
            "[::1]attacker.example",
            "[::1]:80attacker.example",
            "[localhost]",
            "127.0.0.1:80x",
            "localhost:8080@attacker.example",
        ] {
            assert!(!hosts.serves(refused), "{refused}");
        }
        assert!(!ServedHosts::default().serves("bench.lab"));
    }

    #[test]
    fn tokens_match_only_themselves() {
        let token = TokenDigest::of("s3cret");
        assert!(token.matches(&TokenDigest::of("s3cret")));
        for other in ["", "s3cre", "s3cret ", "S3cret", "s3cret2"] {
            assert!(!token.matches(&TokenDigest::of(other)), "{other:?}");
        }
    }
}
