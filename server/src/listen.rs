//! Every connection the server takes, over plain HTTP or TLS, and the
//! bounds on each: what keeps one client, or a few, from holding the
//! server a lab leaves running.
//!
//! - **Connections** are capped in all and per peer address
//!   ([`Limits::max_connections`], [`Limits::max_per_peer`]); one past a
//!   cap is answered `503` (plain HTTP) or closed (TLS, as answering would
//!   need the handshake the cap saves) at once. HTTP/1.1 only, so each SSE
//!   stream and each agent's WebSocket holds a connection of its own, and
//!   the caps bound them too.
//! - **The request head** must arrive within [`Limits::header_within`] of
//!   the connection opening or of the previous answer (hyper's header read
//!   timeout, which runs while a kept-alive connection waits too): a
//!   connection that sends nothing, trickles its headers or idles is
//!   closed.
//! - **The request body** must arrive whole within [`Limits::body_within`]
//!   of the head ([`DeadlineBody`]): a body sent a byte a second fails, and
//!   the connection with it.
//!
//! Each request carries its peer's address (`ConnectInfo`) for the access
//! log and for slowing a peer's wrong tokens (`security.rs`).

use std::collections::HashMap;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::ConnectInfo;
use hyper::body::{Body as HttpBody, Frame, SizeHint};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio_rustls::TlsAcceptor;
use tower::ServiceExt;

/// The bounds on connections; README's lab section lists the defaults.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub max_connections: usize,
    pub max_per_peer: usize,
    pub header_within: Duration,
    pub body_within: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            // A dashboard opens a handful (a browser keeps 6 per host), an
            // agent one, a live run's page one SSE stream: a lab of tens of
            // people and boards fits well within.
            max_connections: 512,
            max_per_peer: 64,
            header_within: Duration::from_secs(10),
            // The largest body, an 8 MiB log, takes under 2 s at 50 Mbit/s.
            body_within: Duration::from_secs(30),
        }
    }
}

/// Serves `app` on `listener` (over TLS with `tls`) until `shutdown`
/// resolves; then takes no more connections, lets each finish the request
/// it is serving, and waits for them.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    tls: Option<TlsAcceptor>,
    limits: Limits,
    shutdown: impl Future<Output = ()>,
) -> io::Result<()> {
    let slots = Slots::new(limits);
    let stopping = tokio_util::sync::CancellationToken::new();
    let mut connections = tokio::task::JoinSet::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        // Reap the connections that have ended.
        while connections.try_join_next().is_some() {}
        let (mut stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                // Out of file descriptors, or a connection reset before it
                // was taken: the listener itself is fine.
                Err(e) => {
                    tracing::warn!("accepting a connection: {e}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let slot = match slots.take(peer.ip()) {
            Ok(slot) => slot,
            Err(full) => {
                tracing::warn!(%peer, "refused a connection: {full}");
                if tls.is_none() {
                    // Answered from here, not a task: a flood of refusals
                    // spawns nothing. A peer that does not read cannot stall
                    // the loop, as the write is bounded.
                    let answer = full.answer();
                    let _ =
                        tokio::time::timeout(Duration::from_millis(100), stream.write_all(answer.as_bytes()))
                            .await;
                }
                drop(stream);
                continue;
            }
        };
        let app = app.clone();
        let tls = tls.clone();
        let stopping = stopping.clone();
        connections.spawn(async move {
            let _slot = slot;
            match tls {
                None => serve_connection(stream, peer, false, app, limits, stopping).await,
                Some(acceptor) => {
                    let Some(stream) = crate::tls::handshake(stream, &acceptor).await else { return };
                    serve_connection(stream, peer, true, app, limits, stopping).await;
                }
            }
        });
    }
    stopping.cancel();
    while connections.join_next().await.is_some() {}
    Ok(())
}

/// One connection's requests, HTTP/1.1 with upgrades (an agent's
/// WebSocket), each told its peer and whether it came over TLS, and given
/// its body's deadline.
async fn serve_connection<S>(
    stream: S,
    peer: SocketAddr,
    over_tls: bool,
    app: Router,
    limits: Limits,
    stopping: tokio_util::sync::CancellationToken,
) where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let service = app.map_request(move |mut request: hyper::Request<hyper::body::Incoming>| {
        request.extensions_mut().insert(ConnectInfo(peer));
        request.extensions_mut().insert(OverTls(over_tls));
        request.map(|body| Body::new(DeadlineBody::new(Body::new(body), limits.body_within)))
    });
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder.timer(TokioTimer::new()).header_read_timeout(limits.header_within);
    let connection =
        builder.serve_connection(TokioIo::new(stream), TowerToHyperService::new(service)).with_upgrades();
    let mut connection = std::pin::pin!(connection);
    let served = tokio::select! {
        served = connection.as_mut() => served,
        () = stopping.cancelled() => {
            connection.as_mut().graceful_shutdown();
            connection.await
        }
    };
    if let Err(e) = served {
        tracing::debug!(%peer, "connection: {e}");
    }
}

/// The connections open, in all and by peer address.
struct Slots {
    limits: Limits,
    open: Arc<Mutex<Open>>,
}

#[derive(Default)]
struct Open {
    total: usize,
    by_peer: HashMap<IpAddr, usize>,
}

/// Why a connection was refused.
#[derive(Debug, thiserror::Error)]
enum Full {
    #[error("{0} connections are open, the most this server takes (--max-connections)")]
    Total(usize),
    #[error("this address has {0} connections open, the most one address may (--max-connections-per-peer)")]
    Peer(usize),
}

impl Full {
    /// A whole HTTP/1.1 answer, closing the connection.
    fn answer(&self) -> String {
        let body = serde_json::json!({ "error": self.to_string() }).to_string();
        format!(
            "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nretry-after: 5\r\n\
             content-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        )
    }
}

impl Slots {
    fn new(limits: Limits) -> Slots {
        Slots { limits, open: Arc::default() }
    }

    fn take(&self, peer: IpAddr) -> Result<Slot, Full> {
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        if open.total >= self.limits.max_connections {
            return Err(Full::Total(open.total));
        }
        let of_peer = open.by_peer.entry(peer).or_default();
        if *of_peer >= self.limits.max_per_peer {
            return Err(Full::Peer(*of_peer));
        }
        *of_peer += 1;
        open.total += 1;
        Ok(Slot { peer, open: self.open.clone() })
    }
}

/// One connection's place, given back when it ends.
struct Slot {
    peer: IpAddr,
    open: Arc<Mutex<Open>>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        open.total = open.total.saturating_sub(1);
        if let Some(count) = open.by_peer.get_mut(&self.peer) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                open.by_peer.remove(&self.peer);
            }
        }
    }
}

/// A request body that must arrive whole within a time of its head: a
/// per-frame timeout would let a byte a second through.
pub struct DeadlineBody {
    inner: Body,
    deadline: Pin<Box<tokio::time::Sleep>>,
    within: Duration,
}

impl DeadlineBody {
    pub fn new(inner: Body, within: Duration) -> DeadlineBody {
        DeadlineBody { inner, deadline: Box::pin(tokio::time::sleep(within)), within }
    }
}

/// What a body too slow fails with; the JSON extractor's 400 says it.
#[derive(Debug, thiserror::Error)]
#[error("the request body did not arrive within {} s", .0.as_secs())]
struct TooSlow(Duration);

impl HttpBody for DeadlineBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        if let Poll::Ready(frame) = Pin::new(&mut self.inner).poll_frame(cx) {
            return Poll::Ready(frame);
        }
        if self.deadline.as_mut().poll(cx).is_ready() {
            return Poll::Ready(Some(Err(axum::Error::new(TooSlow(self.within)))));
        }
        Poll::Pending
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// Whether a request came over TLS (`serve --tls-cert`).
#[derive(Debug, Clone, Copy)]
pub struct OverTls(pub bool);

/// Whether a request `serve` took came over TLS.
pub fn over_tls<B>(request: &axum::http::Request<B>) -> bool {
    request.extensions().get::<OverTls>().is_some_and(|tls| tls.0)
}

/// The peer of a request `serve` took; `None` for one served otherwise
/// (a test's `axum::serve`).
pub fn peer_of<B>(request: &axum::http::Request<B>) -> Option<SocketAddr> {
    request.extensions().get::<ConnectInfo<SocketAddr>>().map(|info| info.0)
}
