//! Signing the dashboard in to a token-protected server: the token given
//! once (`POST /api/session`), a session cookie after it, which the
//! browser sends with every write and no script can read.

use alloc::string::String;
use core::fmt;

use serde::{Deserialize, Serialize};

/// The body of `POST /api/session`: the server's write token (its
/// `--token`).
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewSession {
    pub token: String,
}

/// Never the token itself, should a request be logged.
impl fmt::Debug for NewSession {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NewSession").field("token", &"(not shown)").finish()
    }
}

/// What `GET /api/session` answers, and `POST`/`DELETE` after signing in
/// or out: whether writes need the token here, and whether this browser's
/// session cookie stands for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Session {
    pub token_required: bool,
    pub signed_in: bool,
}
