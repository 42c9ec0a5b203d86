//! The HTTP/1.1 wire format on one connection: reading a request (request
//! line, headers, `Content-Length` or chunked body, `100-continue`) and
//! writing a response head with the server's own framing headers. Separate
//! from `connection.rs`, which decides what to send and when.

use std::io::{self, Read, Write};
use std::net::TcpStream;

use super::RecordedRequest;

/// Largest accepted request head (request line plus headers).
const MAX_HEAD: usize = 1 << 20;

pub(super) enum Framing {
    Length(usize),
    Chunked,
    None,
}

pub(super) struct Conn {
    pub(super) stream: TcpStream,
    /// Bytes read but not yet consumed (keep-alive / pipelining leftovers).
    pub(super) buf: Vec<u8>,
}

fn invalid(msg: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, msg.into())
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
    pub(super) fn read_request(&mut self) -> io::Result<Option<RecordedRequest>> {
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

    pub(super) fn write_head(
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
