//! A tiny HTTP/1.1 server on 127.0.0.1 for testing the streaming model
//! clients against the real wire format (status lines, chunked framing,
//! close-delimited bodies, broken and stalled streams).
//!
//! It is plain `std::net` with one thread per connection, so it works the
//! same from `#[test]`, from `#[tokio::test]` (it never needs the caller's
//! runtime) and when the client is a `brood` child process. Connections are
//! kept alive after complete replies, so a pooling client (reqwest) can reuse
//! them; every reply that cannot leave the connection usable closes it.
//!
//! Dropping the [`StreamServer`] shuts every connection down and joins every
//! thread. If a responder panicked (say, an `assert!` on the request body),
//! the client got a 500 and the drop panics with the message, so the test
//! fails even when the client swallowed the error.
//!
//! This file is the server's handle and its acceptor; `reply.rs` holds what a
//! responder answers ([`Reply`]) and the SSE helpers, `http.rs` the HTTP/1.1
//! wire format (reading requests, writing a response head), and
//! `connection.rs` serving one connection over time (streaming, pauses,
//! hangs, noticing the client leave).

mod connection;
mod http;
mod reply;

use std::collections::HashMap;
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use connection::serve_connection;
// Not every test uses every helper, as `#![allow(dead_code)]` in common/ says of items.
#[allow(unused_imports)]
pub use reply::{Reply, SSE_DONE, StreamEncoding, char_boundary_cuts, sse_data, sse_event};

/// One request as the server read it off the wire.
#[derive(Debug, Clone)]
pub struct RecordedRequest {
    /// `GET`, `POST`, ...
    pub method: String,
    /// The request target as sent, query string included (`/v1/messages`).
    pub path: String,
    /// Headers in arrival order, names lowercased, values trimmed.
    pub headers: Vec<(String, String)>,
    /// The body, with chunked transfer coding already removed.
    pub body: Vec<u8>,
}

impl RecordedRequest {
    /// The first header called `name` (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The body as UTF-8 text (lossy).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The body parsed as JSON; panics with the body if it is not JSON.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!(
                "request {} {} has no JSON body ({e}): {:?}",
                self.method,
                self.path,
                self.text()
            )
        })
    }
}

type Responder = dyn Fn(&RecordedRequest, usize) -> Reply + Send + Sync;

/// State shared by the acceptor, the connections and the handle.
struct Shared {
    responder: Box<Responder>,
    requests: Mutex<Vec<RecordedRequest>>,
    disconnects: AtomicUsize,
    connections: AtomicUsize,
    panics: Mutex<Vec<String>>,
    shutdown: AtomicBool,
    /// Live connections (so drop can shut them down) and their threads;
    /// `None` once the server is shutting down.
    live: Mutex<Option<Live>>,
}

#[derive(Default)]
struct Live {
    next_id: u64,
    sockets: HashMap<u64, TcpStream>,
    threads: Vec<JoinHandle<()>>,
}

/// A local HTTP/1.1 server answering every request with its responder.
pub struct StreamServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    acceptor: Option<JoinHandle<()>>,
}

impl StreamServer {
    /// Binds 127.0.0.1 on a free port and starts serving. The responder gets
    /// each request and its 0-based index on this server; it may be called
    /// from several threads at once.
    pub fn start(
        responder: impl Fn(&RecordedRequest, usize) -> Reply + Send + Sync + 'static,
    ) -> StreamServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("stream_server: bind 127.0.0.1:0");
        let addr = listener.local_addr().expect("stream_server: local_addr");
        let shared = Arc::new(Shared {
            responder: Box::new(responder),
            requests: Mutex::new(Vec::new()),
            disconnects: AtomicUsize::new(0),
            connections: AtomicUsize::new(0),
            panics: Mutex::new(Vec::new()),
            shutdown: AtomicBool::new(false),
            live: Mutex::new(Some(Live::default())),
        });
        let acceptor = {
            let shared = shared.clone();
            std::thread::Builder::new()
                .name("stream_server-accept".into())
                .spawn(move || accept_loop(listener, shared))
                .expect("stream_server: spawn acceptor")
        };
        StreamServer {
            addr,
            shared,
            acceptor: Some(acceptor),
        }
    }

    /// `http://127.0.0.1:PORT`, without a trailing slash.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Every request received so far, in arrival order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.shared.requests.lock().unwrap().clone()
    }

    /// How many requests were received so far.
    pub fn request_count(&self) -> usize {
        self.shared.requests.lock().unwrap().len()
    }

    /// How many TCP connections were accepted (shows keep-alive reuse).
    pub fn connections(&self) -> usize {
        self.shared.connections.load(Ordering::SeqCst)
    }

    /// How many responses the client abandoned: a write failed, or the
    /// client closed while a stream was paused or hanging.
    pub fn disconnects(&self) -> usize {
        self.shared.disconnects.load(Ordering::SeqCst)
    }

    /// Blocks up to `timeout` for at least `n` disconnects (they are noticed
    /// within ~20 ms of the client closing); returns the count at the end.
    /// For a client in another process or thread. In a `#[tokio::test]`
    /// use [`Self::wait_for_disconnects_async`]: blocking the test's
    /// runtime would stop reqwest from ever closing its connection.
    pub fn wait_for_disconnects(&self, n: usize, timeout: Duration) -> usize {
        wait_until(timeout, || self.disconnects() >= n);
        self.disconnects()
    }

    /// [`Self::wait_for_disconnects`] that yields to the tokio runtime.
    pub async fn wait_for_disconnects_async(&self, n: usize, timeout: Duration) -> usize {
        wait_until_async(timeout, || self.disconnects() >= n).await;
        self.disconnects()
    }

    /// Blocks up to `timeout` for at least `n` requests (for a client in
    /// another process or thread); returns the count at the end. In a
    /// `#[tokio::test]` use [`Self::wait_for_requests_async`].
    pub fn wait_for_requests(&self, n: usize, timeout: Duration) -> usize {
        wait_until(timeout, || self.request_count() >= n);
        self.request_count()
    }

    /// [`Self::wait_for_requests`] that yields to the tokio runtime.
    pub async fn wait_for_requests_async(&self, n: usize, timeout: Duration) -> usize {
        wait_until_async(timeout, || self.request_count() >= n).await;
        self.request_count()
    }

    /// Panic messages of responders so far (each also got the client a 500).
    pub fn responder_panics(&self) -> Vec<String> {
        self.shared.panics.lock().unwrap().clone()
    }
}

impl Drop for StreamServer {
    fn drop(&mut self) {
        self.shared.shutdown.store(true, Ordering::SeqCst);
        let live = self.shared.live.lock().unwrap().take().unwrap_or_default();
        for socket in live.sockets.values() {
            let _ = socket.shutdown(Shutdown::Both);
        }
        // Wake the acceptor; if that fails it is left behind, not waited on.
        if TcpStream::connect_timeout(&self.addr, Duration::from_secs(1)).is_ok()
            && let Some(acceptor) = self.acceptor.take()
        {
            let _ = acceptor.join();
        }
        for thread in live.threads {
            let _ = thread.join();
        }
        let panics = self.responder_panics();
        if !panics.is_empty() && !std::thread::panicking() {
            panic!("stream_server: responder panicked: {panics:?}");
        }
    }
}

fn wait_until(timeout: Duration, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + timeout;
    while !done() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
}

async fn wait_until_async(timeout: Duration, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + timeout;
    while !done() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

fn accept_loop(listener: TcpListener, shared: Arc<Shared>) {
    for stream in listener.incoming() {
        let Ok(stream) = stream else { continue };
        let mut live = shared.live.lock().unwrap();
        // Checked under the lock drop takes, so no connection escapes it.
        let Some(live) = live.as_mut() else { return };
        let Ok(clone) = stream.try_clone() else {
            continue;
        };
        let id = live.next_id;
        live.next_id += 1;
        live.sockets.insert(id, clone);
        shared.connections.fetch_add(1, Ordering::SeqCst);
        let conn_shared = shared.clone();
        let thread = std::thread::Builder::new()
            .name(format!("stream_server-conn-{id}"))
            .spawn(move || {
                serve_connection(stream, &conn_shared);
                if let Some(live) = conn_shared.live.lock().unwrap().as_mut() {
                    live.sockets.remove(&id);
                }
            })
            .expect("stream_server: spawn connection thread");
        live.threads.push(thread);
    }
}
