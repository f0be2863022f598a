//! The dashboard signed in to a token-protected server: the token given
//! once, a cookie no script or other site can use after it, writes with
//! that cookie, and the `Origin` check still in force.

use reqwest::Method;
use serde_json::{Value, json};

use crate::common;

const TOKEN: &str = "lab-write-token-0451";

fn report() -> Value {
    json!({"view": {"runs": [1], "filter": {"families": [], "algorithms": ["ML-KEM-768"], "operations": []}}})
}

/// `method path` with `body`, and these cookies and Origin: status, the
/// `Set-Cookie` it answered with, the body.
async fn send(
    server: &common::Server,
    method: Method,
    path: &str,
    body: Option<Value>,
    cookie: Option<&str>,
    origin: Option<&str>,
) -> (u16, Option<String>, Value) {
    let mut request = reqwest::Client::new().request(method, format!("{}{path}", server.base));
    if let Some(body) = body {
        request = request.json(&body);
    }
    if let Some(cookie) = cookie {
        request = request.header("cookie", cookie);
    }
    if let Some(origin) = origin {
        request = request.header("origin", origin);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let set = response.headers().get("set-cookie").map(|v| v.to_str().unwrap().to_owned());
    (status, set, response.json().await.unwrap_or(Value::Null))
}

#[tokio::test]
async fn a_dashboard_signs_in_with_the_token_once_and_writes_with_its_cookie() {
    let server = common::start_server(&["--token", TOKEN]).await;
    let (status, _, state) = send(&server, Method::GET, "/api/session", None, None, None).await;
    assert_eq!(status, 200);
    assert_eq!(state, json!({"token_required": true, "signed_in": false}));
    let (status, _, refused) = send(&server, Method::POST, "/api/reports", Some(report()), None, None).await;
    assert_eq!(status, 401, "{refused}");
    assert!(refused["error"].as_str().unwrap().contains("sign in on the dashboard"), "{refused}");

    // A wrong token signs nobody in.
    let wrong = json!({"token": "not-the-token-at-all"});
    let (status, set, _) = send(&server, Method::POST, "/api/session", Some(wrong), None, None).await;
    assert_eq!((status, set), (401, None));

    let right = json!({"token": TOKEN});
    let (status, set, state) = send(&server, Method::POST, "/api/session", Some(right), None, None).await;
    assert_eq!(status, 201, "{state}");
    assert_eq!(state, json!({"token_required": true, "signed_in": true}));
    let set = set.expect("a session cookie");
    for part in ["HttpOnly", "SameSite=Strict", "Path=/api", "Max-Age=43200"] {
        assert!(set.contains(part), "{set}");
    }
    assert!(!set.contains("Secure"), "plain HTTP cannot keep a Secure cookie: {set}");
    let id = set.split(';').next().unwrap().strip_prefix("pqbench_session=").unwrap().to_owned();
    assert!(!id.contains(TOKEN) && id.len() == 43, "the cookie is a session id, not the token: {id}");
    let cookie = format!("theme=dark; pqbench_session={id}");

    let (status, _, state) = send(&server, Method::GET, "/api/session", None, Some(&cookie), None).await;
    assert_eq!((status, state["signed_in"].clone()), (200, json!(true)));
    let (status, _, created) =
        send(&server, Method::POST, "/api/reports", Some(report()), Some(&cookie), Some(&server.base)).await;
    assert_eq!(status, 201, "{created}");
    // The Origin check still applies: another site's page cannot write.
    let (status, _, refused) = send(
        &server,
        Method::POST,
        "/api/reports",
        Some(report()),
        Some(&cookie),
        Some("http://attacker.example"),
    )
    .await;
    assert_eq!(status, 403, "{refused}");
    // A cookie nobody was given is no session.
    let made_up = "pqbench_session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
    let (status, _, _) =
        send(&server, Method::POST, "/api/reports", Some(report()), Some(made_up), None).await;
    assert_eq!(status, 401);

    // Signed out, the cookie is dropped and stands for nothing.
    let (status, set, state) = send(&server, Method::DELETE, "/api/session", None, Some(&cookie), None).await;
    assert_eq!((status, state["signed_in"].clone()), (200, json!(false)));
    assert!(set.unwrap().contains("Max-Age=0"));
    let (status, _, refused) =
        send(&server, Method::POST, "/api/reports", Some(report()), Some(&cookie), None).await;
    assert_eq!(status, 401, "{refused}");
    assert!(refused["error"].as_str().unwrap().contains("sign in again"), "{refused}");
}

#[tokio::test]
async fn a_server_without_a_token_has_nothing_to_sign_in_to() {
    let server = common::start_server(&[]).await;
    let (status, _, state) = send(&server, Method::GET, "/api/session", None, None, None).await;
    assert_eq!((status, state), (200, json!({"token_required": false, "signed_in": false})));
    let token = json!({"token": TOKEN});
    let (status, set, refused) = send(&server, Method::POST, "/api/session", Some(token), None, None).await;
    assert_eq!((status, set), (400, None));
    assert!(refused["error"].as_str().unwrap().contains("nothing to sign in to"), "{refused}");
}
