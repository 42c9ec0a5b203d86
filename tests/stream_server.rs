//! Tests of the local streaming test server itself, driven by reqwest (the
//! client brood uses) and by raw sockets (to pin the exact wire format), so
//! model-client tests can trust what it sends.

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use common::stream_server::{
    Reply, SSE_DONE, StreamEncoding, StreamServer, char_boundary_cuts, sse_data, sse_event,
};
use futures::StreamExt;
use serde_json::json;

/// A reqwest client that never goes through a proxy from the environment.
fn client() -> reqwest::Client {
    brood::model::http::client_builder()
        .no_proxy()
        .build()
        .expect("building a reqwest client")
}

/// Every piece `bytes_stream` yields, and the error that ended it, if any.
async fn collect(response: reqwest::Response) -> (Vec<Vec<u8>>, Option<reqwest::Error>) {
    let mut stream = response.bytes_stream();
    let mut pieces = Vec::new();
    while let Some(item) = stream.next().await {
        match item {
            Ok(bytes) => pieces.push(bytes.to_vec()),
            Err(e) => return (pieces, Some(e)),
        }
    }
    (pieces, None)
}

/// An SSE body with multi-byte characters of every width (2, 3 and 4 bytes).
fn unicode_sse() -> String {
    let mut body = sse_event("message_start", &json!({"type": "message_start"}));
    for text in ["héllo wörld", " — 世界 ", "🦀🦀", "ünïcödé ✓"] {
        body.push_str(&sse_data(&json!({"delta": {"text": text}})));
    }
    body.push_str(SSE_DONE);
    body
}

/// Sends `request` on a raw socket and reads until the server closes.
fn raw_exchange(server: &StreamServer, request: &[u8]) -> String {
    let addr = server.base_url().trim_start_matches("http://").to_string();
    let mut socket = TcpStream::connect(&addr).expect("connecting to the stream server");
    socket
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("setting a read timeout");
    socket.write_all(request).expect("sending the request");
    let mut response = Vec::new();
    socket
        .read_to_end(&mut response)
        .expect("reading the response until the server closes");
    String::from_utf8(response).expect("response is UTF-8")
}

#[test]
fn helpers_format_sse_and_find_nasty_cuts() {
    assert_eq!(
        sse_event("ping", &json!({"a": 1})),
        "event: ping\ndata: {\"a\":1}\n\n"
    );
    assert_eq!(sse_data(&json!([1, "é"])), "data: [1,\"é\"]\n\n");
    assert_eq!(SSE_DONE, "data: [DONE]\n\n");

    let body = "data: é世🦀\n\nevent: x\r\n";
    let cuts = char_boundary_cuts(body.as_bytes());
    assert!(
        cuts.windows(2).all(|w| w[0] < w[1]),
        "sorted, unique: {cuts:?}"
    );
    assert!(cuts.iter().all(|&c| c > 0 && c < body.len()));
    // Inside each of é (2 bytes), 世 (3 bytes) and 🦀 (4 bytes).
    for ch in ["é", "世", "🦀"] {
        let start = body.find(ch).expect("char in body");
        assert!(cuts.contains(&(start + 1)), "no cut inside {ch}: {cuts:?}");
    }
    assert!(cuts.contains(&3), "mid `data:`: {cuts:?}");
    let blank = body.find("\n\n").expect("event end");
    assert!(
        cuts.contains(&(blank + 1)),
        "between the newlines: {cuts:?}"
    );
    let cr = body.find('\r').expect("CR");
    assert!(cuts.contains(&(cr + 1)), "between CR and LF: {cuts:?}");
}

/// The exact bytes on the wire, from a plain `#[test]` with no runtime.
#[test]
fn raw_socket_sees_exact_chunked_framing() {
    let server = StreamServer::start(|_, _| {
        Reply::sse_cut_at("abcdef", vec![4, 2, 2, 6], Duration::ZERO).with_header("x-id", "7")
    });
    let response = raw_exchange(
        &server,
        b"GET /s HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n",
    );
    let (head, body) = response.split_once("\r\n\r\n").expect("a response head");
    assert!(head.starts_with("HTTP/1.1 200 OK\r\n"), "{head}");
    for line in [
        "content-type: text/event-stream",
        "transfer-encoding: chunked",
        "connection: close",
        "x-id: 7",
    ] {
        assert!(head.lines().any(|l| l == line), "no {line:?} in {head}");
    }
    assert_eq!(body, "2\r\nab\r\n2\r\ncd\r\n2\r\nef\r\n0\r\n\r\n");
}

/// A chunked request body is decoded, and pipelined requests on one
/// kept-alive connection are each answered in order.
#[test]
fn raw_socket_chunked_request_and_keep_alive() {
    let server =
        StreamServer::start(|req, i| Reply::json(200, json!({"i": i, "len": req.body.len()})));
    let response = raw_exchange(
        &server,
        b"POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n\
          4;ext=1\r\n{\"k\"\r\n6\r\n: \"v\"}\r\n0\r\nTrailer: t\r\n\r\n\
          POST /b HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nConnection: close\r\n\r\n[]",
    );
    assert_eq!(
        response.matches("HTTP/1.1 200 OK\r\n").count(),
        2,
        "{response}"
    );
    assert!(response.contains(r#"{"i":0,"len":10}"#), "{response}");
    assert!(response.contains(r#"{"i":1,"len":2}"#), "{response}");
    let requests = server.requests();
    assert_eq!(requests[0].path, "/a");
    assert_eq!(requests[0].json(), json!({"k": "v"}));
    assert_eq!(requests[1].path, "/b");
    assert_eq!(requests[1].json(), json!([]));
    assert_eq!(server.connections(), 1);
}

/// The blocking waits, as a test driving a child process would use them.
#[test]
fn raw_client_leaving_a_hang_is_counted() {
    let server = StreamServer::start(|_, _| Reply::Hang);
    let addr = server.base_url().trim_start_matches("http://").to_string();
    let mut socket = TcpStream::connect(&addr).expect("connecting");
    socket
        .write_all(b"POST /h HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}")
        .expect("sending the request");
    assert_eq!(server.wait_for_requests(1, Duration::from_secs(10)), 1);
    assert_eq!(server.disconnects(), 0);
    drop(socket);
    assert_eq!(server.wait_for_disconnects(1, Duration::from_secs(10)), 1);
}

#[tokio::test]
async fn json_replies_carry_status_headers_and_body() {
    let server = StreamServer::start(|_, i| match i {
        0 => Reply::json(200, json!({"ok": true})),
        _ => Reply::json(429, json!({"error": {"type": "rate_limit_error"}}))
            .with_header("retry-after", "3"),
    });
    let http = client();
    let url = format!("{}/v1/messages", server.base_url());

    let ok = http.get(&url).send().await.expect("first request");
    assert_eq!(ok.status(), 200);
    assert_eq!(ok.headers()["content-type"], "application/json");
    assert_eq!(
        ok.json::<serde_json::Value>().await.unwrap(),
        json!({"ok": true})
    );

    let limited = http.get(&url).send().await.expect("second request");
    assert_eq!(limited.status(), 429);
    assert_eq!(limited.headers()["retry-after"], "3");
    let body: serde_json::Value = limited.json().await.unwrap();
    assert_eq!(body["error"]["type"], "rate_limit_error");
}

#[tokio::test]
async fn requests_are_recorded_with_lowercased_headers_and_json_body() {
    let server = StreamServer::start(|_, i| Reply::json(200, json!({"index": i})));
    let http = client();
    for n in 0..2 {
        let reply: serde_json::Value = http
            .post(format!("{}/v1/messages?beta=true", server.base_url()))
            .header("X-Api-Key", "sk-test")
            .header("Anthropic-Version", "2023-06-01")
            .json(&json!({"model": "m", "n": n, "text": "é🦀"}))
            .send()
            .await
            .expect("request")
            .json()
            .await
            .expect("JSON reply");
        assert_eq!(reply, json!({"index": n}));
    }
    let requests = server.requests();
    assert_eq!(server.request_count(), 2);
    for (n, req) in requests.iter().enumerate() {
        assert_eq!(req.method, "POST");
        assert_eq!(req.path, "/v1/messages?beta=true");
        assert!(
            req.headers
                .iter()
                .all(|(name, _)| *name == name.to_lowercase())
        );
        assert_eq!(req.header("x-api-key"), Some("sk-test"));
        assert_eq!(req.header("ANTHROPIC-VERSION"), Some("2023-06-01"));
        assert_eq!(req.header("content-type"), Some("application/json"));
        assert_eq!(req.json(), json!({"model": "m", "n": n, "text": "é🦀"}));
    }
}

#[tokio::test]
async fn sse_split_inside_utf8_arrives_byte_identical() {
    let body = unicode_sse();
    let cuts = char_boundary_cuts(body.as_bytes());
    assert!(cuts.iter().any(|&c| !body.is_char_boundary(c)));
    let server = {
        let body = body.clone();
        StreamServer::start(move |_, i| match i {
            0 => Reply::sse_cut_at(
                body.clone(),
                char_boundary_cuts(body.as_bytes()),
                Duration::ZERO,
            ),
            _ => Reply::sse(body.clone()),
        })
    };
    let http = client();
    for _ in 0..2 {
        let response = http.get(server.base_url()).send().await.expect("request");
        assert_eq!(response.headers()["content-type"], "text/event-stream");
        assert_eq!(response.content_length(), None, "streamed, not sized");
        let (pieces, error) = collect(response).await;
        assert!(error.is_none(), "stream failed: {error:?}");
        assert_eq!(pieces.concat(), body.as_bytes());
    }
    assert_eq!(server.disconnects(), 0, "no false disconnects");
}

#[tokio::test]
async fn delays_are_honoured_and_pieces_arrive_separately() {
    let body = unicode_sse();
    let cuts: Vec<usize> = (1..=5).map(|k| k * body.len() / 6).collect();
    let delay = Duration::from_millis(50);
    let server = {
        let (body, cuts) = (body.clone(), cuts.clone());
        StreamServer::start(move |_, _| Reply::sse_cut_at(body.clone(), cuts.clone(), delay))
    };
    let started = Instant::now();
    let response = client()
        .get(server.base_url())
        .send()
        .await
        .expect("request");
    let (pieces, error) = collect(response).await;
    assert!(error.is_none(), "stream failed: {error:?}");
    assert_eq!(pieces.concat(), body.as_bytes());
    assert!(pieces.len() >= cuts.len(), "only {} pieces", pieces.len());
    // A lower bound only: the server sleeps before each later piece.
    assert!(started.elapsed() >= delay * cuts.len() as u32);
    assert_eq!(server.disconnects(), 0, "no false disconnects");
}

#[tokio::test]
async fn close_delimited_stream_arrives_whole() {
    let body = unicode_sse();
    let server = {
        let body = body.clone();
        StreamServer::start(move |_, _| Reply::Stream {
            status: 200,
            headers: vec![("content-type".into(), "text/event-stream".into())],
            body: body.clone().into_bytes(),
            cuts: char_boundary_cuts(body.as_bytes()),
            delay: Duration::from_millis(1),
            encoding: StreamEncoding::CloseDelimited,
        })
    };
    let response = client()
        .get(server.base_url())
        .send()
        .await
        .expect("request");
    assert_eq!(response.headers()["connection"], "close");
    let (pieces, error) = collect(response).await;
    assert!(error.is_none(), "stream failed: {error:?}");
    assert_eq!(pieces.concat(), body.as_bytes());
    assert_eq!(server.disconnects(), 0, "no false disconnects");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_requests_each_get_their_own_reply() {
    let in_flight = Arc::new(AtomicUsize::new(0));
    let server = {
        let in_flight = in_flight.clone();
        StreamServer::start(move |req, _| {
            // Proof of concurrency: every responder waits for all three.
            in_flight.fetch_add(1, Ordering::SeqCst);
            let deadline = Instant::now() + Duration::from_secs(10);
            while in_flight.load(Ordering::SeqCst) < 3 && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(5));
            }
            let n = req.json()["n"].as_u64().expect("n in request");
            let together = in_flight.load(Ordering::SeqCst) >= 3;
            let body = sse_data(&json!({"n": n, "together": together})).repeat(5);
            let cuts = char_boundary_cuts(body.as_bytes());
            Reply::sse_cut_at(body, cuts, Duration::from_millis(5))
        })
    };
    let http = client();
    let url = server.base_url();
    let calls = (0..3u64).map(|n| {
        let (http, url) = (http.clone(), url.clone());
        async move {
            let response = http
                .post(url)
                .json(&json!({"n": n}))
                .send()
                .await
                .expect("request");
            let (pieces, error) = collect(response).await;
            assert!(error.is_none(), "stream {n} failed: {error:?}");
            (n, String::from_utf8(pieces.concat()).expect("UTF-8 body"))
        }
    });
    for (n, body) in futures::future::join_all(calls).await {
        let expected = sse_data(&json!({"n": n, "together": true})).repeat(5);
        assert_eq!(body, expected);
    }
    assert_eq!(server.request_count(), 3);
    assert!(server.connections() >= 3);
    assert_eq!(server.disconnects(), 0, "no false disconnects");
}

#[tokio::test]
async fn kept_alive_connections_are_reused_by_reqwest() {
    let body = unicode_sse();
    let server = {
        let body = body.clone();
        StreamServer::start(move |_, i| match i % 2 {
            0 => Reply::sse(body.clone()),
            _ => Reply::json(200, json!({"i": i})),
        })
    };
    let http = client();
    for _ in 0..4 {
        let response = http.get(server.base_url()).send().await.expect("request");
        let (_, error) = collect(response).await;
        assert!(error.is_none(), "request failed: {error:?}");
        // Gives the pool time to take the connection back.
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(server.request_count(), 4);
    assert!(
        server.connections() < 4,
        "{} connections",
        server.connections()
    );
    assert_eq!(server.disconnects(), 0, "no false disconnects");
}

#[tokio::test]
async fn stream_then_drop_breaks_a_chunked_body() {
    let body = unicode_sse();
    let server = {
        let body = body.clone();
        StreamServer::start(move |_, _| Reply::StreamThenDrop {
            status: 200,
            headers: vec![("content-type".into(), "text/event-stream".into())],
            body: body.clone().into_bytes(),
            cuts: char_boundary_cuts(body.as_bytes()),
            delay: Duration::ZERO,
            encoding: StreamEncoding::Chunked,
        })
    };
    let response = client()
        .get(server.base_url())
        .send()
        .await
        .expect("request");
    let (pieces, error) = collect(response).await;
    let received = pieces.concat();
    assert!(
        body.as_bytes().starts_with(&received),
        "not a prefix of the body"
    );
    assert!(error.is_some(), "a chunked body without its end must fail");
}

#[tokio::test]
async fn hang_times_out_and_the_abandoned_request_is_counted() {
    let server = StreamServer::start(|_, _| Reply::Hang);
    let http = brood::model::http::client_builder()
        .no_proxy()
        .timeout(Duration::from_millis(300))
        .build()
        .expect("client");
    let error = http
        .post(server.base_url())
        .json(&json!({"q": 1}))
        .send()
        .await
        .expect_err("a hanging server must time out");
    assert!(error.is_timeout(), "{error:?}");
    assert_eq!(server.requests()[0].json(), json!({"q": 1}));
    drop(http);
    assert_eq!(
        server
            .wait_for_disconnects_async(1, Duration::from_secs(10))
            .await,
        1
    );
}

#[tokio::test]
async fn client_dropping_a_hanging_stream_is_counted() {
    let server = StreamServer::start(|_, _| Reply::StreamThenHang {
        status: 200,
        headers: Vec::new(),
        body: sse_data(&json!({"first": true})).into_bytes(),
        cuts: Vec::new(),
        delay: Duration::ZERO,
        encoding: StreamEncoding::Chunked,
    });
    let http = client();
    let mut stream = http
        .get(server.base_url())
        .send()
        .await
        .expect("request")
        .bytes_stream();
    let first = stream
        .next()
        .await
        .expect("a first piece")
        .expect("first piece ok");
    assert_eq!(&first[..], sse_data(&json!({"first": true})).as_bytes());
    assert_eq!(server.disconnects(), 0);
    drop(stream);
    drop(http);
    assert_eq!(
        server
            .wait_for_disconnects_async(1, Duration::from_secs(10))
            .await,
        1
    );
}

#[tokio::test]
async fn client_dropping_a_slow_stream_is_counted() {
    let body = "data: {}\n\n".repeat(20);
    let cuts: Vec<usize> = (1..20).map(|k| k * 10).collect();
    let server = StreamServer::start(move |_, _| {
        Reply::sse_cut_at(body.clone(), cuts.clone(), Duration::from_millis(100))
    });
    let http = client();
    let mut stream = http
        .get(server.base_url())
        .send()
        .await
        .expect("request")
        .bytes_stream();
    stream
        .next()
        .await
        .expect("a first piece")
        .expect("first piece ok");
    drop(stream);
    drop(http);
    assert_eq!(
        server
            .wait_for_disconnects_async(1, Duration::from_secs(10))
            .await,
        1
    );
}

#[tokio::test]
async fn responder_panics_become_500s_and_fail_the_test_on_drop() {
    let server = StreamServer::start(|req, _| {
        assert_eq!(req.path, "/expected", "wrong path");
        Reply::json(200, json!({}))
    });
    let response = client()
        .get(format!("{}/other", server.base_url()))
        .send()
        .await
        .expect("request");
    assert_eq!(response.status(), 500);
    assert!(response.text().await.unwrap().contains("wrong path"));
    assert_eq!(server.responder_panics().len(), 1);
    let dropped = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| drop(server)));
    let payload = dropped.expect_err("drop must report the responder panic");
    let message = payload.downcast_ref::<String>().expect("a String panic");
    assert!(message.contains("wrong path"), "{message}");
}

#[tokio::test]
async fn drop_releases_hanging_clients_and_closes_the_port() {
    let server = StreamServer::start(|_, _| Reply::Hang);
    let addr = server.base_url().trim_start_matches("http://").to_string();
    let pending = tokio::spawn(client().get(server.base_url()).send());
    assert_eq!(
        server
            .wait_for_requests_async(1, Duration::from_secs(10))
            .await,
        1
    );
    drop(server);
    let outcome = tokio::time::timeout(Duration::from_secs(10), pending)
        .await
        .expect("the hanging request must end when the server is dropped")
        .expect("task ran");
    assert!(outcome.is_err(), "no response was ever sent: {outcome:?}");
    assert!(TcpStream::connect(&addr).is_err(), "port still accepting");
}
