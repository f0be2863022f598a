//! "Run in this browser": the suite in a Web Worker (`/bench/worker.js`,
//! built from `wasm-bench`), or another implementation measured beside it
//! (`/bench/peers.js`: this browser's WebCrypto, the JavaScript libraries),
//! its messages turned into a stream.

use futures::StreamExt;
use futures::channel::{mpsc, oneshot};
use futures::future::Fuse;
use pqbench_types::Algorithm;
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;
use web_sys::{ErrorEvent, Event, MessageEvent, Worker, WorkerOptions, WorkerType};

/// The suite, pqbench's wasm.
pub const SUITE_URL: &str = "/bench/worker.js";
/// Another implementation, named by the request's `implementation`.
pub const PEERS_URL: &str = "/bench/peers.js";

/// What the worker is asked to run; no algorithms: the whole suite.
#[derive(Serialize)]
pub struct Request<'a> {
    /// For the peers' worker: `webcrypto`, `noble` or `liboqs`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub implementation: Option<&'a str>,
    pub algorithms: &'a [Algorithm],
    pub min_iterations: u32,
    pub min_time_ms: u32,
    /// The token every build of one press of "Run in this browser" shares.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub browser_run: Option<&'a str>,
}

/// What the worker says, as `worker.js` posts it.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Message {
    Progress {
        algorithm: String,
        operation: String,
        index: u32,
        total: u32,
    },
    /// The `Upload`, as JSON text for `POST /api/uploads`.
    Done {
        upload: String,
    },
    Error {
        message: String,
    },
}

/// The operation the worker is about to measure.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    pub algorithm: String,
    pub operation: String,
    /// 1-based.
    pub index: u32,
    pub total: u32,
}

/// Why a run that was cancelled has no upload.
pub const CANCELLED: &str = "the browser run was cancelled";

/// Runs the worker at `url` on `request`, calling `on_progress` before
/// each operation; the worker's upload JSON, or why there is none. Firing
/// `cancel` stops the worker at once (the suite cannot be interrupted
/// mid-operation from inside, so the worker is terminated); it is borrowed,
/// so one cancel covers several workers run one after another.
pub async fn run(
    url: &'static str,
    request: &Request<'_>,
    mut on_progress: impl FnMut(Step),
    cancel: &mut Fuse<oneshot::Receiver<()>>,
) -> Result<String, String> {
    let options = WorkerOptions::new();
    options.set_type(WorkerType::Module);
    let worker = Worker::new_with_options(url, &options)
        .map_err(|e| format!("cannot start the benchmark worker: {}", describe(&e)))?;

    let (sender, mut messages) = mpsc::unbounded::<Result<Message, String>>();
    // The closures live until this function returns, as long as the worker.
    let on_message = {
        let sender = sender.clone();
        Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
            let _ = sender.unbounded_send(decode(&event.data()));
        })
    };
    let on_error = Closure::<dyn FnMut(Event)>::new(move |event: Event| {
        let detail = event.dyn_ref::<ErrorEvent>().map(ErrorEvent::message).unwrap_or_default();
        let message = if detail.is_empty() {
            // Most often not built yet: `cargo xtask dev` serves first and
            // builds the browser benchmark right after.
            format!(
                "the benchmark worker failed to load ({url}): is the browser benchmark built? \
                 `cargo xtask dev` builds it just after it starts serving, `cargo xtask build-browser` alone"
            )
        } else {
            format!("the benchmark worker failed: {detail}")
        };
        let _ = sender.unbounded_send(Err(message));
    });
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));

    let outcome = async {
        let request = serde_json::to_string(request)
            .ok()
            .and_then(|json| js_sys::JSON::parse(&json).ok())
            .ok_or("cannot encode the benchmark request")?;
        worker.post_message(&request).map_err(|e| describe(&e))?;
        loop {
            let message = futures::select! {
                message = messages.next() => message,
                fired = &mut *cancel => match fired {
                    Ok(()) => return Err(CANCELLED.to_owned()),
                    // Nobody can cancel any more: run to the end.
                    Err(_) => continue,
                },
            };
            let Some(message) = message else { break };
            match message? {
                Message::Progress { algorithm, operation, index, total } => {
                    on_progress(Step { algorithm, operation, index, total });
                }
                Message::Done { upload } => return Ok(upload),
                Message::Error { message } => return Err(message),
            }
        }
        Err("the benchmark worker stopped without an answer".to_owned())
    }
    .await;
    worker.terminate();
    outcome
}

fn decode(data: &JsValue) -> Result<Message, String> {
    let text = js_sys::JSON::stringify(data)
        .ok()
        .and_then(|s| s.as_string())
        .ok_or("the benchmark worker sent a message that is not JSON")?;
    serde_json::from_str(&text).map_err(|e| format!("the benchmark worker sent an unexpected message: {e}"))
}

fn describe(error: &JsValue) -> String {
    error
        .dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| error.as_string())
        .unwrap_or_else(|| format!("{error:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worker_messages_decode() {
        let progress: Message = serde_json::from_str(
            r#"{"type":"progress","algorithm":"ML-KEM-768","operation":"encaps","index":2,"total":3}"#,
        )
        .unwrap();
        assert!(matches!(progress, Message::Progress { index: 2, total: 3, .. }));
        let done: Message = serde_json::from_str(r#"{"type":"done","upload":"{}"}"#).unwrap();
        assert!(matches!(done, Message::Done { upload } if upload == "{}"));
    }

    #[test]
    fn the_worker_is_asked_by_the_algorithms_names() {
        let request = Request {
            implementation: None,
            algorithms: &[Algorithm::MlKem768, Algorithm::X25519],
            min_iterations: 10,
            min_time_ms: 200,
            browser_run: None,
        };
        assert_eq!(
            serde_json::to_string(&request).unwrap(),
            r#"{"algorithms":["ML-KEM-768","X25519"],"min_iterations":10,"min_time_ms":200}"#
        );
        let peer = Request { implementation: Some("noble"), algorithms: &[Algorithm::MlDsa65], ..request };
        assert_eq!(
            serde_json::to_string(&peer).unwrap(),
            r#"{"implementation":"noble","algorithms":["ML-DSA-65"],"min_iterations":10,"min_time_ms":200}"#
        );
    }
}
