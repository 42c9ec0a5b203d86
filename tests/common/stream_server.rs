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

use std::collections::HashMap;
use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// `data: [DONE]`, the terminator of an OpenAI Chat Completions stream.
pub const SSE_DONE: &str = "data: [DONE]\n\n";

/// How often blocked waits look at the socket and the shutdown flag.
const POLL: Duration = Duration::from_millis(20);
/// Largest accepted request head (request line plus headers).
const MAX_HEAD: usize = 1 << 20;

/// `event: NAME\ndata: JSON\n\n` (Anthropic style; JSON on one line).
pub fn sse_event(event: &str, data: &serde_json::Value) -> String {
    format!("event: {event}\ndata: {data}\n\n")
}

/// `data: JSON\n\n` (OpenAI style; JSON on one line).
pub fn sse_data(data: &serde_json::Value) -> String {
    format!("data: {data}\n\n")
}

/// Nasty split points for `body`: inside every multi-byte UTF-8 character
/// (after its first byte), three bytes into every line longer than that (so
/// `data:`/`event:` are torn), between the `\r` and `\n` of every CRLF and
/// between the two newlines that end an event. Sorted, deduplicated, and
/// strictly inside the body.
pub fn char_boundary_cuts(body: &[u8]) -> Vec<usize> {
    let mut cuts = Vec::new();
    let mut line_start = 0;
    for (i, &b) in body.iter().enumerate() {
        // A UTF-8 lead byte of a multi-byte character.
        if b >= 0xC0 {
            cuts.push(i + 1);
        }
        if b == b'\n' {
            if i >= line_start + 3 {
                cuts.push(line_start + 3);
            }
            if i > 0 && matches!(body[i - 1], b'\n' | b'\r') {
                cuts.push(i);
            }
            line_start = i + 1;
        }
    }
    if body.len() > line_start + 3 {
        cuts.push(line_start + 3);
    }
    cuts.retain(|&c| c > 0 && c < body.len());
    cuts.sort_unstable();
    cuts.dedup();
    cuts
}

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

/// How a streamed body is framed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamEncoding {
    /// `Transfer-Encoding: chunked`, one chunk per piece, then `0\r\n\r\n`.
    Chunked,
    /// No length at all: the body ends when the server closes the socket.
    CloseDelimited,
}

/// What the server does with one request. Framing headers
/// (`content-length`, `transfer-encoding`, `connection`) are the server's
/// business: given ones are dropped and the right ones written.
#[derive(Debug, Clone)]
pub enum Reply {
    /// A whole response with `Content-Length`; the connection stays open.
    Body {
        status: u16,
        headers: Vec<(String, String)>,
        body: Vec<u8>,
    },
    /// `body` sent in pieces split at the byte offsets `cuts` (sorted and
    /// deduplicated; out-of-range offsets panic), each written and flushed
    /// on its own with `delay` between pieces. Chunked keeps the connection
    /// open afterwards, close-delimited closes it.
    Stream {
        status: u16,
        headers: Vec<(String, String)>,
        body: Vec<u8>,
        cuts: Vec<usize>,
        delay: Duration,
        encoding: StreamEncoding,
    },
    /// Like `Stream` without the end (no `0` chunk, no close): the
    /// connection then stays silent until the client leaves (counted in
    /// [`StreamServer::disconnects`]) or the server is dropped.
    StreamThenHang {
        status: u16,
        headers: Vec<(String, String)>,
        body: Vec<u8>,
        cuts: Vec<usize>,
        delay: Duration,
        encoding: StreamEncoding,
    },
    /// Like `Stream`, then the socket is closed without the terminating
    /// chunk: a chunked client sees an incomplete body. (With
    /// `CloseDelimited` this is indistinguishable from a normal end, which is
    /// the point of testing it.) A plain FIN, not a reset, so the client
    /// still gets every byte before the break.
    StreamThenDrop {
        status: u16,
        headers: Vec<(String, String)>,
        body: Vec<u8>,
        cuts: Vec<usize>,
        delay: Duration,
        encoding: StreamEncoding,
    },
    /// The request is read and recorded, then nothing is ever sent: not
    /// even a status line. Ends when the client leaves (counted as a
    /// disconnect) or the server is dropped.
    Hang,
}

impl Reply {
    /// A whole JSON response with `content-type: application/json`.
    pub fn json(status: u16, value: serde_json::Value) -> Reply {
        Reply::Body {
            status,
            headers: vec![("content-type".into(), "application/json".into())],
            body: value.to_string().into_bytes(),
        }
    }

    /// A 200 `text/event-stream`, chunked, cut every 7 bytes with no delay
    /// so that every kind of chunk boundary gets exercised.
    pub fn sse(body: impl Into<Vec<u8>>) -> Reply {
        let body = body.into();
        let cuts = (7..body.len()).step_by(7).collect();
        Reply::sse_cut_at(body, cuts, Duration::ZERO)
    }

    /// A 200 `text/event-stream`, chunked, one piece per event (`\n\n`),
    /// `delay` apart.
    pub fn sse_per_event(body: &str, delay: Duration) -> Reply {
        let mut cuts: Vec<usize> = body
            .match_indices("\n\n")
            .map(|(at, sep)| at + sep.len())
            .collect();
        cuts.retain(|&at| at < body.len());
        Reply::sse_cut_at(body, cuts, delay)
    }

    /// A 200 `text/event-stream`, chunked, cut at `cuts` with `delay`.
    pub fn sse_cut_at(body: impl Into<Vec<u8>>, cuts: Vec<usize>, delay: Duration) -> Reply {
        Reply::Stream {
            status: 200,
            headers: vec![("content-type".into(), "text/event-stream".into())],
            body: body.into(),
            cuts,
            delay,
            encoding: StreamEncoding::Chunked,
        }
    }

    /// Adds a response header; panics on [`Reply::Hang`], which sends none.
    pub fn with_header(mut self, name: &str, value: &str) -> Reply {
        match &mut self {
            Reply::Body { headers, .. }
            | Reply::Stream { headers, .. }
            | Reply::StreamThenHang { headers, .. }
            | Reply::StreamThenDrop { headers, .. } => {
                headers.push((name.to_string(), value.to_string()));
            }
            Reply::Hang => panic!("Reply::Hang sends no headers; cannot add {name}"),
        }
        self
    }
}

impl Reply {
    /// Panics (as a responder panic, reported on drop) on cuts past the end.
    fn check(&self) {
        if let Reply::Stream { body, cuts, .. }
        | Reply::StreamThenHang { body, cuts, .. }
        | Reply::StreamThenDrop { body, cuts, .. } = self
            && let Some(bad) = cuts.iter().find(|&&c| c > body.len())
        {
            panic!(
                "stream_server: cut {bad} is past the end of a {}-byte body",
                body.len()
            );
        }
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

/// Why a connection stops being served.
enum End {
    /// Reply done, connection reusable.
    KeepAlive,
    /// Reply done (or impossible); close the connection.
    Close,
}

fn serve_connection(stream: TcpStream, shared: &Shared) {
    let _ = stream.set_nodelay(true);
    let mut conn = Conn {
        stream,
        buf: Vec::new(),
    };
    loop {
        let request = match conn.read_request() {
            Ok(Some(request)) => request,
            Ok(None) => return,
            Err(e) => {
                let status = if e.kind() == io::ErrorKind::InvalidData {
                    400
                } else {
                    return;
                };
                let body = format!("stream_server: bad request: {e}");
                let _ = conn.write_head(status, &[], Framing::Length(body.len()), true);
                let _ = conn.stream.write_all(body.as_bytes());
                return;
            }
        };
        let wants_close = request
            .header("connection")
            .is_some_and(|v| v.eq_ignore_ascii_case("close"));
        let index = {
            let mut requests = shared.requests.lock().unwrap();
            requests.push(request.clone());
            requests.len() - 1
        };
        let respond = || {
            let reply = (shared.responder)(&request, index);
            reply.check();
            reply
        };
        let reply = match catch_unwind(AssertUnwindSafe(respond)) {
            Ok(reply) => reply,
            Err(payload) => {
                let message = payload
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_else(|| "non-string panic".into());
                shared.panics.lock().unwrap().push(message.clone());
                let body = format!("stream_server: responder panicked: {message}").into_bytes();
                Reply::Body {
                    status: 500,
                    headers: Vec::new(),
                    body,
                }
            }
        };
        match conn.send(reply, wants_close, shared) {
            Ok(End::KeepAlive) if !wants_close => continue,
            Ok(_) => {
                conn.close_gracefully(shared);
                return;
            }
            Err(_) => {
                // The client went away mid-response (unless we are the ones
                // who shut the socket down).
                if !shared.shutdown.load(Ordering::SeqCst) {
                    shared.disconnects.fetch_add(1, Ordering::SeqCst);
                }
                return;
            }
        }
    }
}

/// What happens after the last piece of a stream.
#[derive(PartialEq, Eq)]
enum Ending {
    Finish,
    Hang,
    Drop,
}

enum Framing {
    Length(usize),
    Chunked,
    None,
}

/// What the socket looked like while we waited.
enum Watch {
    Elapsed,
    ClientGone,
    Shutdown,
}

struct Conn {
    stream: TcpStream,
    /// Bytes read but not yet consumed (keep-alive / pipelining leftovers).
    buf: Vec<u8>,
}

fn invalid(msg: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, msg.into())
}

fn gone() -> io::Error {
    io::Error::new(io::ErrorKind::ConnectionAborted, "client went away")
}

impl Conn {
    /// Reads more bytes into `buf`; `Ok(0)` at end of stream.
    fn fill(&mut self) -> io::Result<usize> {
        let mut tmp = [0u8; 8192];
        let n = loop {
            match self.stream.read(&mut tmp) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                other => break other?,
            }
        };
        self.buf.extend_from_slice(&tmp[..n]);
        Ok(n)
    }

    /// Takes one CRLF-terminated line (without the CRLF) off the buffer.
    fn line(&mut self) -> io::Result<Vec<u8>> {
        loop {
            if let Some(i) = self.buf.windows(2).position(|w| w == b"\r\n") {
                let line = self.buf[..i].to_vec();
                self.buf.drain(..i + 2);
                return Ok(line);
            }
            if self.buf.len() > MAX_HEAD {
                return Err(invalid("line too long"));
            }
            if self.fill()? == 0 {
                return Err(invalid("connection closed mid-request"));
            }
        }
    }

    /// Takes exactly `n` bytes off the buffer.
    fn take(&mut self, n: usize) -> io::Result<Vec<u8>> {
        while self.buf.len() < n {
            if self.fill()? == 0 {
                return Err(invalid("connection closed mid-body"));
            }
        }
        Ok(self.buf.drain(..n).collect())
    }

    /// The next request, or `None` if the client closed between requests.
    fn read_request(&mut self) -> io::Result<Option<RecordedRequest>> {
        loop {
            while self.buf.starts_with(b"\r\n") {
                self.buf.drain(..2);
            }
            if self.buf.windows(2).any(|w| w == b"\r\n") {
                break;
            }
            if self.buf.len() > MAX_HEAD {
                return Err(invalid("request line too long"));
            }
            match self.fill() {
                Ok(0) if self.buf.is_empty() => return Ok(None),
                Ok(0) => return Err(invalid("connection closed mid-request")),
                Ok(_) => {}
                Err(_) if self.buf.is_empty() => return Ok(None),
                Err(e) => return Err(e),
            }
        }
        let line =
            String::from_utf8(self.line()?).map_err(|_| invalid("non-UTF-8 request line"))?;
        let mut parts = line.split(' ');
        let (Some(method), Some(path), Some(version), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(invalid(format!("malformed request line {line:?}")));
        };
        if !version.starts_with("HTTP/1.") {
            return Err(invalid(format!("unsupported version {version:?}")));
        }
        let mut headers = Vec::new();
        loop {
            let line = self.line()?;
            if line.is_empty() {
                break;
            }
            let line = String::from_utf8_lossy(&line);
            let (name, value) = line
                .split_once(':')
                .ok_or_else(|| invalid(format!("malformed header {line:?}")))?;
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
        }
        if version == "HTTP/1.0" && !headers.iter().any(|(n, _)| n == "connection") {
            headers.push(("connection".into(), "close".into()));
        }
        let mut request = RecordedRequest {
            method: method.to_string(),
            path: path.to_string(),
            headers,
            body: Vec::new(),
        };
        if request
            .header("expect")
            .is_some_and(|v| v.eq_ignore_ascii_case("100-continue"))
        {
            self.stream.write_all(b"HTTP/1.1 100 Continue\r\n\r\n")?;
        }
        let chunked = request
            .header("transfer-encoding")
            .is_some_and(|v| v.to_ascii_lowercase().contains("chunked"));
        if chunked {
            request.body = self.chunked_body()?;
        } else if let Some(len) = request.header("content-length") {
            let len = len
                .parse()
                .map_err(|_| invalid(format!("bad content-length {len:?}")))?;
            request.body = self.take(len)?;
        }
        Ok(Some(request))
    }

    fn chunked_body(&mut self) -> io::Result<Vec<u8>> {
        let mut body = Vec::new();
        loop {
            let line = String::from_utf8_lossy(&self.line()?).into_owned();
            let size = line.split(';').next().unwrap_or("").trim();
            let size = usize::from_str_radix(size, 16)
                .map_err(|_| invalid(format!("bad chunk size {line:?}")))?;
            if size == 0 {
                // Trailers, up to the empty line.
                while !self.line()?.is_empty() {}
                return Ok(body);
            }
            body.extend(self.take(size)?);
            if self.take(2)? != b"\r\n" {
                return Err(invalid("chunk not followed by CRLF"));
            }
        }
    }

    fn write_head(
        &mut self,
        status: u16,
        headers: &[(String, String)],
        framing: Framing,
        close: bool,
    ) -> io::Result<()> {
        let mut head = format!("HTTP/1.1 {status} {}\r\n", reason(status));
        for (name, value) in headers {
            let lower = name.to_ascii_lowercase();
            if !matches!(
                lower.as_str(),
                "content-length" | "transfer-encoding" | "connection"
            ) {
                head.push_str(&format!("{name}: {value}\r\n"));
            }
        }
        match framing {
            Framing::Length(n) => head.push_str(&format!("content-length: {n}\r\n")),
            Framing::Chunked => head.push_str("transfer-encoding: chunked\r\n"),
            Framing::None => {}
        }
        if close {
            head.push_str("connection: close\r\n");
        }
        head.push_str("\r\n");
        self.stream.write_all(head.as_bytes())?;
        self.stream.flush()
    }

    /// Writes `reply`; `Err` means the client went away mid-response.
    fn send(&mut self, reply: Reply, close: bool, shared: &Shared) -> io::Result<End> {
        let ending = match &reply {
            Reply::Body {
                status,
                headers,
                body,
            } => {
                self.write_head(*status, headers, Framing::Length(body.len()), close)?;
                self.stream.write_all(body)?;
                self.stream.flush()?;
                return Ok(End::KeepAlive);
            }
            Reply::Hang => {
                return match self.watch(None, shared) {
                    Watch::ClientGone => Err(gone()),
                    _ => Ok(End::Close),
                };
            }
            Reply::Stream { .. } => Ending::Finish,
            Reply::StreamThenHang { .. } => Ending::Hang,
            Reply::StreamThenDrop { .. } => Ending::Drop,
        };
        let (Reply::Stream {
            status,
            headers,
            body,
            cuts,
            delay,
            encoding,
        }
        | Reply::StreamThenHang {
            status,
            headers,
            body,
            cuts,
            delay,
            encoding,
        }
        | Reply::StreamThenDrop {
            status,
            headers,
            body,
            cuts,
            delay,
            encoding,
        }) = reply
        else {
            unreachable!("bodies and hangs were answered above")
        };
        let chunked = encoding == StreamEncoding::Chunked;
        let close = close || !chunked || ending != Ending::Finish;
        let framing = if chunked {
            Framing::Chunked
        } else {
            Framing::None
        };
        self.write_head(status, &headers, framing, close)?;
        for (i, piece) in pieces(&body, cuts).into_iter().enumerate() {
            let pause = if i == 0 { Duration::ZERO } else { delay };
            match self.watch(Some(pause), shared) {
                Watch::Elapsed => {}
                Watch::ClientGone => return Err(gone()),
                Watch::Shutdown => return Ok(End::Close),
            }
            if chunked {
                // One write per chunk, so a chunk is never torn by us.
                let mut chunk = format!("{:x}\r\n", piece.len()).into_bytes();
                chunk.extend_from_slice(piece);
                chunk.extend_from_slice(b"\r\n");
                self.stream.write_all(&chunk)?;
            } else {
                self.stream.write_all(piece)?;
            }
            self.stream.flush()?;
        }
        match ending {
            Ending::Finish if chunked => {
                self.stream.write_all(b"0\r\n\r\n")?;
                self.stream.flush()?;
                Ok(End::KeepAlive)
            }
            Ending::Finish => Ok(End::Close),
            Ending::Hang => match self.watch(None, shared) {
                Watch::ClientGone => Err(gone()),
                _ => Ok(End::Close),
            },
            Ending::Drop => {
                let _ = self.stream.shutdown(Shutdown::Both);
                Ok(End::Close)
            }
        }
    }

    /// Waits `limit` (forever if `None`; a single non-blocking look if
    /// zero) while watching for the client closing and for shutdown.
    fn watch(&mut self, limit: Option<Duration>, shared: &Shared) -> Watch {
        let deadline = limit.map(|d| Instant::now() + d);
        let mut byte = [0u8; 1];
        let result = loop {
            if shared.shutdown.load(Ordering::SeqCst) {
                break Watch::Shutdown;
            }
            let left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
            let slice = left.map_or(POLL, |l| l.min(POLL));
            let peeked = if slice.is_zero() {
                let _ = self.stream.set_nonblocking(true);
                let peeked = self.stream.peek(&mut byte);
                let _ = self.stream.set_nonblocking(false);
                peeked
            } else {
                let _ = self.stream.set_read_timeout(Some(slice));
                self.stream.peek(&mut byte)
            };
            match peeked {
                // The peer closed (or reset) its side.
                Ok(0) => break Watch::ClientGone,
                // Unexpected bytes (pipelining?): the client is still there.
                Ok(_) => std::thread::sleep(slice),
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock
                            | io::ErrorKind::TimedOut
                            | io::ErrorKind::Interrupted
                    ) => {}
                Err(_) => break Watch::ClientGone,
            }
            if deadline.is_some_and(|d| Instant::now() >= d) {
                break Watch::Elapsed;
            }
        };
        let _ = self.stream.set_read_timeout(None);
        match result {
            Watch::ClientGone if shared.shutdown.load(Ordering::SeqCst) => Watch::Shutdown,
            other => other,
        }
    }

    /// Half-closes and drains briefly, so the client sees FIN, not RST.
    fn close_gracefully(&mut self, shared: &Shared) {
        let _ = self.stream.shutdown(Shutdown::Write);
        let _ = self.stream.set_read_timeout(Some(POLL));
        let deadline = Instant::now() + Duration::from_millis(500);
        let mut sink = [0u8; 4096];
        while Instant::now() < deadline && !shared.shutdown.load(Ordering::SeqCst) {
            match self.stream.read(&mut sink) {
                Ok(0) => break,
                Ok(_) => {}
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                    ) => {}
                Err(_) => break,
            }
        }
    }
}

/// `body` split at `cuts` (checked by [`Reply::check`]), without empty pieces.
fn pieces(body: &[u8], mut cuts: Vec<usize>) -> Vec<&[u8]> {
    cuts.sort_unstable();
    cuts.dedup();
    let mut out = Vec::new();
    let mut start = 0;
    for cut in cuts.into_iter().chain([body.len()]) {
        if cut > start {
            out.push(&body[start..cut]);
            start = cut;
        }
    }
    out
}

/// A reason phrase; clients ignore it, but a real one reads better in logs.
fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        529 => "Overloaded",
        _ => "Status",
    }
}
