//! What a responder answers: [`Reply`] (whole bodies, streams cut at chosen
//! bytes, hangs and drops) and helpers that build SSE bodies and nasty cut
//! points. Separate from the server so a test's vocabulary reads on its own.

use std::time::Duration;

/// `data: [DONE]`, the terminator of an OpenAI Chat Completions stream.
pub const SSE_DONE: &str = "data: [DONE]\n\n";

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
    pub(super) fn check(&self) {
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

/// `body` split at `cuts` (checked by [`Reply::check`]), without empty pieces.
pub(super) fn pieces(body: &[u8], mut cuts: Vec<usize>) -> Vec<&[u8]> {
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
