//! What prompt caching saves: a scripted 30-turn session with two children,
//! run through the real binary against a loopback Anthropic server, once with
//! caching (the default) and once with `BROOD_PROMPT_CACHE=off`.
//!
//! The server plays the model and the cache. It keeps the prefixes each
//! request marked with `cache_control` (tools, then system, then message
//! blocks, in the API's order) and, as the API does, reads back the longest
//! one found at a block boundary up to 20 blocks before a breakpoint, writes
//! the rest up to the last breakpoint, and bills what follows at full price;
//! a prefix under 1,024 tokens is not cached. Tokens are estimated at four
//! bytes of JSON each. It reports input tokens billed at full price either
//! way; the target is a fall of at least 70 %.
//!
//! Run: `cargo bench --bench prompt_cache` (the turns are `brood run`
//! processes, each continuing the last with `--continue`).

#[path = "../tests/common/stream_server/mod.rs"]
#[allow(dead_code)]
mod stream_server;

use std::collections::HashSet;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use stream_server::{Reply, StreamServer, sse_event};

const TURNS: usize = 30;
/// The turns whose prompt asks for a child.
const DELEGATING: [usize; 2] = [8, 21];
const LOOKBACK: usize = 20;
const MIN_CACHED: u64 = 1024;

/// What the server billed, summed over every request.
#[derive(Debug, Default, Clone, Copy)]
struct Bill {
    requests: u64,
    full_price: u64,
    cache_write: u64,
    cache_read: u64,
}

#[derive(Default)]
struct Cache {
    prefixes: HashSet<u64>,
    bill: Bill,
}

fn tokens_of(v: &Value) -> u64 {
    (v.to_string().len() as u64).div_ceil(4)
}

/// The request's blocks in prefix order, each without its breakpoint, and
/// whether it carried one.
fn blocks(body: &Value) -> Vec<(Value, bool)> {
    let mut out = Vec::new();
    let mut take = |v: &Value| {
        let mut v = v.clone();
        let marked = v
            .as_object_mut()
            .and_then(|o| o.remove("cache_control"))
            .is_some();
        out.push((v, marked));
    };
    for tool in body["tools"].as_array().into_iter().flatten() {
        take(tool);
    }
    match &body["system"] {
        Value::String(text) => take(&json!({"type": "text", "text": text})),
        Value::Array(items) => items.iter().for_each(&mut take),
        _ => {}
    }
    for message in body["messages"].as_array().into_iter().flatten() {
        // The role is part of what is cached: a block is keyed with it.
        for block in message["content"].as_array().into_iter().flatten() {
            let mut keyed = block.clone();
            if let Some(o) = keyed.as_object_mut() {
                o.insert("role".into(), message["role"].clone());
            }
            take(&keyed);
        }
    }
    out
}

fn hash_prefix(blocks: &[(Value, bool)]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for (b, _) in blocks {
        b.to_string().hash(&mut h);
    }
    h.finish()
}

impl Cache {
    /// Bills one request and remembers what it wrote: (uncached, written, read).
    fn bill(&mut self, body: &Value) -> (u64, u64, u64) {
        let blocks = blocks(body);
        let sizes: Vec<u64> = blocks.iter().map(|(b, _)| tokens_of(b)).collect();
        let upto = |i: usize| sizes[..i].iter().sum::<u64>();
        let marks: Vec<usize> = (0..blocks.len())
            .filter(|&i| blocks[i].1)
            .map(|i| i + 1)
            .collect();
        let total = upto(blocks.len());
        let Some(&last) = marks.last() else {
            self.add(total, 0, 0);
            return (total, 0, 0);
        };
        let mut read_to = 0;
        for &mark in &marks {
            for end in (mark.saturating_sub(LOOKBACK)..=mark).rev() {
                if end > read_to && self.prefixes.contains(&hash_prefix(&blocks[..end])) {
                    read_to = end;
                    break;
                }
            }
        }
        let read = upto(read_to);
        let written = match upto(last) >= MIN_CACHED {
            true => upto(last) - read,
            false => 0,
        };
        let full = total - read - written;
        for &mark in &marks {
            if upto(mark) >= MIN_CACHED {
                self.prefixes.insert(hash_prefix(&blocks[..mark]));
            }
        }
        self.add(full, written, read);
        (full, written, read)
    }

    fn add(&mut self, full: u64, written: u64, read: u64) {
        self.bill.requests += 1;
        self.bill.full_price += full;
        self.bill.cache_write += written;
        self.bill.cache_read += read;
    }
}

/// One answer streamed in the Messages API's events.
fn stream(usage: (u64, u64, u64), text: &str, call: Option<(&str, &str, Value)>) -> String {
    let (input, written, read) = usage;
    let mut out = sse_event(
        "message_start",
        &json!({"type": "message_start", "message": {"id": "msg_1", "type": "message",
            "role": "assistant", "model": "claude-sonnet-4-5", "content": [],
            "usage": {"input_tokens": input, "output_tokens": 1,
                "cache_creation_input_tokens": written, "cache_read_input_tokens": read}}}),
    );
    out += &sse_event(
        "content_block_start",
        &json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
    );
    out += &sse_event(
        "content_block_delta",
        &json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}}),
    );
    out += &sse_event(
        "content_block_stop",
        &json!({"type": "content_block_stop", "index": 0}),
    );
    let stop = match call {
        Some((id, name, input)) => {
            out += &sse_event(
                "content_block_start",
                &json!({"type": "content_block_start", "index": 1, "content_block":
                    {"type": "tool_use", "id": id, "name": name, "input": {}}}),
            );
            out += &sse_event(
                "content_block_delta",
                &json!({"type": "content_block_delta", "index": 1, "delta":
                    {"type": "input_json_delta", "partial_json": input.to_string()}}),
            );
            out += &sse_event(
                "content_block_stop",
                &json!({"type": "content_block_stop", "index": 1}),
            );
            "tool_use"
        }
        None => "end_turn",
    };
    out += &sse_event(
        "message_delta",
        &json!({"type": "message_delta", "delta": {"stop_reason": stop}, "usage": {"output_tokens": 60}}),
    );
    out + &sse_event("message_stop", &json!({"type": "message_stop"}))
}

/// The model: a prompt gets a file read (or, when it asks, a child), the
/// result gets an answer; a child reads once and answers.
fn answer(body: &Value, usage: (u64, u64, u64)) -> String {
    let is_parent = body["tools"]
        .as_array()
        .is_some_and(|t| t.iter().any(|t| t["name"] == "task"));
    let messages = body["messages"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    let last = messages.last().cloned().unwrap_or_default();
    let after_results = last["content"]
        .as_array()
        .is_some_and(|c| c.iter().any(|b| b["type"] == "tool_result"));
    let text = "Here is what I found, with the file and line of each point. ".repeat(4);
    let n = messages.len();
    match (is_parent, after_results) {
        (_, true) => stream(usage, &text, None),
        (false, false) => stream(
            usage,
            "Reading.",
            Some(("toolu_child", "read_file", json!({"path": "notes/0.txt"}))),
        ),
        (true, false) => {
            let prompt = last["content"][0]["text"].as_str().unwrap_or_default();
            let call = match prompt.contains("delegate") {
                true => (
                    "task",
                    json!({"prompt": "look through the notes",
                    "description": "notes", "subagent_type": "general"}),
                ),
                false => (
                    "read_file",
                    json!({"path": format!("notes/{}.txt", n % 10)}),
                ),
            };
            stream(
                usage,
                "Let me look.",
                Some((&format!("toolu_{n}"), call.0, call.1)),
            )
        }
    }
}

/// Runs the 30 turns against a fresh server and cache; what it billed.
fn session(bin: &Path, caching: bool) -> Bill {
    let cache = Arc::new(Mutex::new(Cache::default()));
    let server = {
        let cache = cache.clone();
        StreamServer::start(move |request, _| {
            let body = request.json();
            let usage = cache.lock().unwrap().bill(&body);
            Reply::sse(answer(&body, usage))
        })
    };
    let root = tempfile::tempdir().unwrap();
    let ws = root.path().join("ws");
    std::fs::create_dir_all(ws.join("notes")).unwrap();
    for i in 0..10 {
        let line =
            format!("note {i}: the retry policy backs off exponentially, see src/retry.rs:{i}\n");
        std::fs::write(ws.join(format!("notes/{i}.txt")), line.repeat(30)).unwrap();
    }
    for turn in 0..TURNS {
        let prompt = match DELEGATING.contains(&turn) {
            true => format!("turn {turn}: delegate a look at the notes"),
            false => format!("turn {turn}: what do the notes say about retries?"),
        };
        let mut cmd = Command::new(bin);
        cmd.args(["run", "--provider", "anthropic"]);
        if turn > 0 {
            cmd.arg("--continue");
        }
        let out = cmd
            .arg(&prompt)
            .current_dir(&ws)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", root.path())
            .env("XDG_DATA_HOME", root.path().join("data"))
            .env("XDG_CONFIG_HOME", root.path().join("config"))
            .env("ANTHROPIC_BASE_URL", server.base_url())
            .env("ANTHROPIC_API_KEY", "test-key-not-real")
            .env("BROOD_PROMPT_CACHE", if caching { "on" } else { "off" })
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "turn {turn}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let bill = cache.lock().unwrap().bill;
    drop(server);
    bill
}

fn main() {
    let bin = Path::new(env!("CARGO_BIN_EXE_brood"));
    let with = session(bin, true);
    let without = session(bin, false);
    let fall = 100.0 * (1.0 - with.full_price as f64 / without.full_price as f64);
    println!(
        "prompt caching, {TURNS} turns with 2 children, {} requests",
        with.requests
    );
    println!(
        "  without caching: {:>9} input tokens at full price",
        without.full_price
    );
    println!(
        "  with caching:    {:>9} at full price, {} written to the cache, {} read from it",
        with.full_price, with.cache_write, with.cache_read
    );
    println!(
        "  full-price input falls by {fall:.1} % (target: at least 70 %) {}",
        if fall >= 70.0 { "PASS" } else { "MISS" }
    );
    // What the input costs at Anthropic's rates: writes at 1.25x, reads at 0.1x.
    let cost =
        with.full_price as f64 + 1.25 * with.cache_write as f64 + 0.1 * with.cache_read as f64;
    println!(
        "  input cost, writes and reads weighed at their rates: {:.1} % of the uncached",
        100.0 * cost / without.full_price as f64
    );
}
