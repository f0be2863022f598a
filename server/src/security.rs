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

/// The SHA-256 of a token. Tokens are compared by their digests, every
/// byte of both, so the time a comparison takes says nothing about how
/// much of a guess was right.
#[derive(Clone, Copy)]
pub struct TokenDigest([u8; 32]);

impl TokenDigest {
    pub fn of(token: &str) -> Self {
        TokenDigest(Sha256::digest(token.as_bytes()).into())
    }

    pub fn matches(&self, other: &TokenDigest) -> bool {
        self.0.iter().zip(&other.0).fold(0u8, |differ, (a, b)| differ | (a ^ b)) == 0
    }
}

/// Reading needs no token; with a token configured, writing does.
pub async fn require_token_for_writes(
    State(token): State<Option<TokenDigest>>,
    request: Request,
    next: Next,
) -> Response {
    let writes = !matches!(*request.method(), Method::GET | Method::HEAD | Method::OPTIONS);
    if let (true, Some(token)) = (writes, token) {
        let refusal = match bearer_token(request.headers()) {
            None => Some("writing to this server needs its token: send `Authorization: Bearer <token>`"),
            Some(given) if !token.matches(&TokenDigest::of(given)) => Some("that is not this server's token"),
            Some(_) => None,
        };
        if let Some(why) = refusal {
            return unauthorized(why);
        }
    }
    next.run(request).await
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
    fn tokens_match_only_themselves() {
        let token = TokenDigest::of("s3cret");
        assert!(token.matches(&TokenDigest::of("s3cret")));
        for other in ["", "s3cre", "s3cret ", "S3cret", "s3cret2"] {
            assert!(!token.matches(&TokenDigest::of(other)), "{other:?}");
        }
    }
}
