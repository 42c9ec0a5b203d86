//! The OpenAI-compatible stream parser on any bytes, cut into chunks where
//! the fuzzer says: no panic, whatever the server sends.
#![no_main]

use std::borrow::Cow;

use brood::event::AgentId;
use brood::model::drive::{EventParser, Step};
use brood::model::openai::stream::StreamParser;
use brood::model::sse::SseDecoder;
use brood::model::{Message, ModelRequest, StreamSink};
use libfuzzer_sys::fuzz_target;

struct Ignore;

impl StreamSink for Ignore {
    fn text_delta(&mut self, _text: &str) {}
}

fuzz_target!(|data: &[u8]| {
    let Some((&cut, body)) = data.split_first() else {
        return;
    };
    let mut decoder = SseDecoder::new();
    let mut parser = StreamParser::new();
    'read: for chunk in body.chunks(usize::from(cut) + 1) {
        for event in decoder.push(chunk) {
            match parser.handle(&event, &mut Ignore) {
                Ok(Step::Continue) => {}
                Ok(Step::Done) => break 'read,
                Err(_) => return,
            }
        }
    }
    let messages = [Message::user_text("hi")];
    let request = ModelRequest {
        agent: AgentId::Main,
        model: Cow::Borrowed("m"),
        system: Cow::Borrowed(""),
        messages: Cow::Borrowed(&messages),
        tools: Cow::Owned(Vec::new()),
        max_tokens: 100,
    };
    let _ = parser.finish(&request);
});
