//! Serving one connection: requests answered in turn by the responder (a
//! panic becomes a 500), replies streamed piece by piece with pauses,
//! hangs and drops, the client's leaving noticed and counted, and a
//! graceful close. Separate from `http.rs`, which only reads and writes
//! the wire format.

use std::io::{self, Read, Write};
use std::net::Shutdown;
use std::net::TcpStream;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use super::Shared;
use super::http::{Conn, Framing};
use super::reply::{Reply, StreamEncoding, pieces};

/// How often blocked waits look at the socket and the shutdown flag.
const POLL: Duration = Duration::from_millis(20);

/// Why a connection stops being served.
enum End {
    /// Reply done, connection reusable.
    KeepAlive,
    /// Reply done (or impossible); close the connection.
    Close,
}

pub(super) fn serve_connection(stream: TcpStream, shared: &Shared) {
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

/// What the socket looked like while we waited.
enum Watch {
    Elapsed,
    ClientGone,
    Shutdown,
}

fn gone() -> io::Error {
    io::Error::new(io::ErrorKind::ConnectionAborted, "client went away")
}

impl Conn {
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
