//! The dashboard's sessions on a token-protected server. A person gives
//! the write token once (`POST /api/session`); the server answers with a
//! random session id in a cookie that is `HttpOnly` (no script on the page
//! can read it), `SameSite=Strict` (no other site's page can make the
//! browser send it) and `Path=/api`, and `Secure` over HTTPS. Writes then
//! pass the token check with that cookie instead of an `Authorization`
//! header; the `Origin` check still applies to them.
//!
//! Sessions live in this process only, keyed by the SHA-256 of their id:
//! a restart signs everyone out, and the server's memory never holds an
//! id a leaked dump could replay.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use axum::http::{HeaderMap, HeaderValue, header};

use super::TokenDigest;

/// The session cookie's name.
pub const COOKIE: &str = "pqbench_session";
/// How long a session stands from sign-in: a working day.
pub const LIFETIME: Duration = Duration::from_secs(12 * 60 * 60);
/// Sessions held at once; signing in past it ends the session nearest its
/// end, so that sign-ins cannot grow the map without end.
pub const MAX_SESSIONS: usize = 256;

#[derive(Default)]
pub struct Sessions {
    /// By the digest of its id: when each session ends.
    live: Mutex<HashMap<[u8; 32], Instant>>,
}

impl Sessions {
    fn live(&self) -> std::sync::MutexGuard<'_, HashMap<[u8; 32], Instant>> {
        // Every change is one insert or removal under the lock.
        self.live.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A new session: its id, for the cookie.
    pub fn open(&self) -> Result<String, pqbench_store::secrets::RandomError> {
        let id = pqbench_store::secrets::new_session_id()?;
        let now = Instant::now();
        let mut live = self.live();
        live.retain(|_, ends| *ends > now);
        if live.len() >= MAX_SESSIONS
            && let Some(nearest) = live.iter().min_by_key(|(_, ends)| **ends).map(|(key, _)| *key)
        {
            live.remove(&nearest);
        }
        live.insert(key(&id), now + LIFETIME);
        Ok(id)
    }

    /// Whether `id` is a session that stands now.
    pub fn holds(&self, id: &str) -> bool {
        self.live().get(&key(id)).is_some_and(|ends| *ends > Instant::now())
    }

    pub fn close(&self, id: &str) {
        self.live().remove(&key(id));
    }
}

fn key(id: &str) -> [u8; 32] {
    TokenDigest::of(id).0
}

/// The session id a request's `Cookie` headers carry, if any.
pub fn session_of(headers: &HeaderMap) -> Option<&str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|cookies| cookies.split(';'))
        .find_map(|cookie| cookie.trim().strip_prefix(COOKIE)?.strip_prefix('='))
        .filter(|id| !id.is_empty())
}

/// The `Set-Cookie` that gives the browser session `id` (None: ends it).
pub fn set_cookie(id: Option<&str>, over_tls: bool) -> HeaderValue {
    let secure = if over_tls { "; Secure" } else { "" };
    let text = match id {
        Some(id) => format!(
            "{COOKIE}={id}; Path=/api; HttpOnly; SameSite=Strict; Max-Age={}{secure}",
            LIFETIME.as_secs()
        ),
        None => format!("{COOKIE}=; Path=/api; HttpOnly; SameSite=Strict; Max-Age=0{secure}"),
    };
    // Base62 ids and fixed text: always a valid header value.
    HeaderValue::from_str(&text).unwrap_or_else(|_| HeaderValue::from_static("pqbench_session=; Max-Age=0"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_stands_until_closed_and_sign_ins_cannot_grow_the_map_without_end() {
        let sessions = Sessions::default();
        let id = sessions.open().unwrap();
        assert_eq!(id.len(), 43);
        assert!(sessions.holds(&id));
        assert!(!sessions.holds("not-a-session"));
        assert!(!sessions.holds(&id[..42]));
        sessions.close(&id);
        assert!(!sessions.holds(&id));
        let ids: Vec<String> = (0..MAX_SESSIONS + 10).map(|_| sessions.open().unwrap()).collect();
        assert_eq!(sessions.live().len(), MAX_SESSIONS);
        assert!(sessions.holds(ids.last().unwrap()), "the newest stands");
    }

    #[test]
    fn the_cookie_is_found_among_others_and_set_as_no_script_or_other_site_may_use_it() {
        let mut headers = HeaderMap::new();
        headers.append(header::COOKIE, HeaderValue::from_static("theme=dark; pqbench_session_x=1"));
        headers.append(header::COOKIE, HeaderValue::from_static("a=b;  pqbench_session=abc123 ; c=d"));
        assert_eq!(session_of(&headers), Some("abc123"));
        headers.clear();
        headers.append(header::COOKIE, HeaderValue::from_static("pqbench_session="));
        assert_eq!(session_of(&headers), None);
        let set = set_cookie(Some("abc123"), false);
        let set = set.to_str().unwrap();
        for part in ["pqbench_session=abc123", "HttpOnly", "SameSite=Strict", "Path=/api", "Max-Age=43200"] {
            assert!(set.contains(part), "{set}");
        }
        assert!(!set.contains("Secure"), "{set}");
        assert!(set_cookie(Some("abc123"), true).to_str().unwrap().ends_with("; Secure"));
        assert!(set_cookie(None, false).to_str().unwrap().contains("Max-Age=0"));
    }
}
