//! An incremental Server-Sent Events decoder. Network chunks split anywhere — in
//! the middle of a line, of a field name, of a multi-byte UTF-8 character — so
//! bytes are buffered until a whole line is there, and only whole lines are
//! decoded. Follows the WHATWG event-stream rules that matter to model APIs:
//! `\n`, `\r\n` and `\r` line ends, `event:` and `data:` fields (several data lines
//! join with `\n`), `:` comments, an optional space after the colon, and dispatch
//! on a blank line.

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` field, if the event had one.
    pub event: Option<String>,
    pub data: String,
}

#[derive(Debug, Default)]
pub struct SseDecoder {
    /// Bytes not yet ending in a line break.
    pending: Vec<u8>,
    /// The previous chunk ended in `\r`; a `\n` starting the next one belongs to it.
    after_cr: bool,
    event: Option<String>,
    data: Option<String>,
}

impl SseDecoder {
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds a chunk; returns the events it completed, in order.
    pub fn push(&mut self, mut chunk: &[u8]) -> Vec<SseEvent> {
        let mut out = Vec::new();
        if self.after_cr {
            self.after_cr = false;
            if let Some(rest) = chunk.strip_prefix(b"\n") {
                chunk = rest;
            }
        }
        let mut start = 0;
        let mut i = 0;
        while i < chunk.len() {
            match chunk[i] {
                b'\n' | b'\r' => {
                    let is_cr = chunk[i] == b'\r';
                    if self.pending.is_empty() {
                        self.line(&chunk[start..i], &mut out);
                    } else {
                        let mut line = std::mem::take(&mut self.pending);
                        line.extend_from_slice(&chunk[start..i]);
                        self.line(&line, &mut out);
                    }
                    i += 1;
                    if is_cr {
                        match chunk.get(i) {
                            Some(b'\n') => i += 1,
                            Some(_) => {}
                            None => self.after_cr = true,
                        }
                    }
                    start = i;
                }
                _ => i += 1,
            }
        }
        self.pending.extend_from_slice(&chunk[start..]);
        out
    }

    /// The end of the stream: a last event not followed by a blank line is still
    /// dispatched (servers that close right after the data line exist).
    pub fn finish(&mut self) -> Option<SseEvent> {
        if !self.pending.is_empty() {
            let line = std::mem::take(&mut self.pending);
            let mut out = Vec::new();
            self.line(&line, &mut out);
            if let Some(event) = out.pop() {
                return Some(event);
            }
        }
        self.dispatch()
    }

    fn line(&mut self, line: &[u8], out: &mut Vec<SseEvent>) {
        if line.is_empty() {
            out.extend(self.dispatch());
            return;
        }
        if line[0] == b':' {
            return;
        }
        let (name, value) = match line.iter().position(|&b| b == b':') {
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &b""[..]),
        };
        let value = String::from_utf8_lossy(value);
        match name {
            b"event" => self.event = Some(value.into_owned()),
            b"data" => match &mut self.data {
                Some(data) => {
                    data.push('\n');
                    data.push_str(&value);
                }
                None => self.data = Some(value.into_owned()),
            },
            _ => {}
        }
    }

    fn dispatch(&mut self) -> Option<SseEvent> {
        let event = self.event.take();
        self.data.take().map(|data| SseEvent { event, data })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_in_pieces(bytes: &[u8], size: usize) -> Vec<SseEvent> {
        let mut decoder = SseDecoder::new();
        let mut out: Vec<SseEvent> = bytes.chunks(size).flat_map(|c| decoder.push(c)).collect();
        out.extend(decoder.finish());
        out
    }

    #[test]
    fn events_survive_every_split_point() {
        let stream = "event: message_start\ndata: {\"a\":\"héllo ✓ 世界\"}\n\n: keep-alive\n\nevent: ping\r\ndata: {}\r\n\r\ndata: line one\ndata:line two\n\n";
        let expected = vec![
            SseEvent {
                event: Some("message_start".into()),
                data: "{\"a\":\"héllo ✓ 世界\"}".into(),
            },
            SseEvent {
                event: Some("ping".into()),
                data: "{}".into(),
            },
            SseEvent {
                event: None,
                data: "line one\nline two".into(),
            },
        ];
        for size in 1..stream.len() {
            assert_eq!(
                decode_in_pieces(stream.as_bytes(), size),
                expected,
                "chunk size {size}"
            );
        }
    }

    #[test]
    fn cr_line_ends_split_across_chunks_do_not_make_blank_lines() {
        let mut decoder = SseDecoder::new();
        assert!(decoder.push(b"data: a\r").is_empty());
        assert!(decoder.push(b"\ndata: b\r").is_empty());
        let events = decoder.push(b"\n\r\n");
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].data, "a\nb");
    }

    #[test]
    fn a_last_event_without_a_blank_line_is_dispatched_at_the_end() {
        let mut decoder = SseDecoder::new();
        assert!(decoder.push(b"data: [DONE]").is_empty());
        assert_eq!(decoder.finish().unwrap().data, "[DONE]");
        assert_eq!(decoder.finish(), None);
    }

    #[test]
    fn invalid_utf8_is_replaced_not_fatal() {
        let events = decode_in_pieces(b"data: \xff\xfe ok\n\n", 3);
        assert_eq!(events.len(), 1);
        assert!(events[0].data.ends_with(" ok"));
    }
}
