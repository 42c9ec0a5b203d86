//! brood's trace reader on any bytes: no panic, and every event it reads,
//! written into a trace again, reads back the same.
#![no_main]

use std::path::Path;

use brood::trace::TraceReader;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(mut reader) = TraceReader::new(Path::new("fuzz.jsonl"), data) else {
        return;
    };
    let mut events = Vec::new();
    // A bad line ends the reading as the reader reports it; what came
    // before is what was read.
    while let Ok(Some(event)) = reader.next_event() {
        events.push(event);
    }
    let header = data.split(|b| *b == b'\n').next().unwrap_or_default();
    let mut again = header.to_vec();
    again.push(b'\n');
    for event in &events {
        again.extend(serde_json::to_vec(event).expect("an event serializes"));
        again.push(b'\n');
    }
    let mut reader = TraceReader::new(Path::new("again.jsonl"), &again[..])
        .expect("the header read once reads again");
    for event in &events {
        let back = reader.next_event().expect("a written event reads").expect("one per event");
        assert_eq!(&back, event);
    }
});
