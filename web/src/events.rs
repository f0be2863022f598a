//! A run's live progress from the server: `GET /api/runs/{id}/events`,
//! read with the browser's `EventSource`.

use futures::StreamExt;
use futures::channel::mpsc;
use pqbench_api::{RunEnd, RunProgress};
use wasm_bindgen::prelude::*;
use web_sys::{EventSource, MessageEvent};

enum Event {
    Progress(RunProgress),
    End(RunEnd),
    Lost,
}

/// Calls `on_progress` for each progress event of run `id` until the run
/// ends; the error is why it could not be followed, or why the run did not
/// complete.
pub async fn follow(id: i64, mut on_progress: impl FnMut(RunProgress)) -> Result<(), String> {
    let source = EventSource::new(&format!("/api/runs/{id}/events"))
        .map_err(|_| "the run's progress cannot be followed in this browser".to_string())?;
    let (sender, mut events) = mpsc::unbounded::<Event>();

    let data = |event: &MessageEvent| event.data().as_string().unwrap_or_default();
    let progress = {
        let sender = sender.clone();
        Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
            // A malformed event is skipped; the next one or the end says more.
            if let Ok(progress) = serde_json::from_str(&data(&event)) {
                let _ = sender.unbounded_send(Event::Progress(progress));
            }
        })
    };
    let end = {
        let sender = sender.clone();
        Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
            let ended = serde_json::from_str(&data(&event)).map_or(Event::Lost, Event::End);
            let _ = sender.unbounded_send(ended);
        })
    };
    // The browser reconnects on its own after a dropped connection; only a
    // source it has given up on (CLOSED) is lost.
    let error = {
        let source = source.clone();
        Closure::<dyn FnMut(web_sys::Event)>::new(move |_| {
            if source.ready_state() == EventSource::CLOSED {
                let _ = sender.unbounded_send(Event::Lost);
            }
        })
    };
    let listen = |name: &str, f: &Closure<dyn FnMut(MessageEvent)>| {
        source.add_event_listener_with_callback(name, f.as_ref().unchecked_ref())
    };
    let attached = listen("progress", &progress).and_then(|()| listen("end", &end));
    source.set_onerror(Some(error.as_ref().unchecked_ref()));
    if attached.is_err() {
        source.close();
        return Err("the run's progress cannot be followed in this browser".into());
    }

    let outcome = loop {
        match events.next().await {
            Some(Event::Progress(progress)) => on_progress(progress),
            Some(Event::End(end)) => {
                break match end.error {
                    Some(error) => Err(format!("run {id} ended {}: {error}", end.status.as_str())),
                    None => Ok(()),
                };
            }
            Some(Event::Lost) | None => break Err(format!("lost the progress of run {id}")),
        }
    };
    source.close();
    // The closures must live until the source is closed.
    drop((progress, end, error));
    outcome
}
