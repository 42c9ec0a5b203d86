//! The Anthropic stream parser on any bytes, cut into chunks where the
//! fuzzer says: no panic, and what streamed as text is the answer's text
//! when the stream completes.
#![no_main]

use brood::model::anthropic::stream::StreamParser;
use brood::model::drive::{EventParser, Step};
use brood::model::sse::SseDecoder;
use brood::model::StreamSink;
use libfuzzer_sys::fuzz_target;

#[derive(Default)]
struct Collect(String);

impl StreamSink for Collect {
    fn text_delta(&mut self, text: &str) {
        self.0.push_str(text);
    }
}

fuzz_target!(|data: &[u8]| {
    // The first byte says where to cut: every (n+1)-th byte starts a chunk.
    let Some((&cut, body)) = data.split_first() else {
        return;
    };
    let mut decoder = SseDecoder::new();
    let mut parser = StreamParser::new();
    let mut sink = Collect::default();
    let mut done = false;
    'read: for chunk in body.chunks(usize::from(cut) + 1) {
        for event in decoder.push(chunk) {
            match parser.handle(&event, &mut sink) {
                Ok(Step::Continue) => {}
                Ok(Step::Done) => {
                    done = true;
                    break 'read;
                }
                Err(_) => return,
            }
        }
    }
    if !done {
        if let Some(event) = decoder.finish() {
            let _ = parser.handle(&event, &mut sink);
        }
    }
    if let Ok(response) = parser.finish(0) {
        let text = response.message.text();
        assert!(
            text.is_empty() || sink.0.contains(text.trim()) || text.contains(sink.0.trim()),
            "the answer {text:?} is not what streamed {:?}",
            sink.0
        );
    }
});
