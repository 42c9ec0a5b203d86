//! Sessions as OpenTelemetry GenAI traces: a live session's spans go to
//! the team's OTLP backend as they end (a [`Recorder`] on the bus, batched
//! off the hot path), and a saved one (a brood trace, a Claude Code session
//! with its subagents, a Codex rollout) is sent or written as OTLP/JSON
//! with its recorded times. `spans/` makes the tree, `otlp.rs` hands it
//! to the official SDK, `settings.rs` reads the variables and `[telemetry]`.

mod otlp;
pub mod settings;
pub mod spans;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use opentelemetry::InstrumentationScope;
use opentelemetry_sdk::trace::{
    BatchConfigBuilder, BatchSpanProcessor, SpanData, SpanExporter, SpanProcessor,
};
use thiserror::Error;

use crate::event::{Event, Recorder};
use crate::protocol::{PriceTable, SideWarning};
use crate::trace::TraceHeader;
pub use settings::{Settings, TelemetryTable};
use spans::{Mapper, SessionMeta, Span};

#[derive(Debug, Error)]
pub enum TelemetryError {
    #[error(
        "OTLP protocol {0:?} is not one brood sends: use http/protobuf or grpc (OTEL_EXPORTER_OTLP_PROTOCOL)"
    )]
    Protocol(String),
    #[error("cannot set up the OTLP exporter: {0}")]
    Exporter(String),
    #[error("the OTLP endpoint did not take the spans: {0}")]
    Export(String),
    #[error("cannot write {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Read(#[from] crate::replay::ReplayError),
}

/// `gen_ai.provider.name` for a trace header's provider: the API the
/// session's model was reached through.
pub fn provider_name(provider: &str) -> &str {
    match provider {
        "claude-code" => "anthropic",
        "codex" => "openai",
        other => other,
    }
}

/// What every span of a session shares, from its header.
pub fn session_meta(header: &TraceHeader) -> SessionMeta {
    let started_ms = chrono::DateTime::parse_from_rfc3339(&header.started_at)
        .map(|t| u64::try_from(t.timestamp_millis()).unwrap_or(0))
        .unwrap_or(0);
    SessionMeta {
        session: header.session.clone(),
        provider: provider_name(&header.provider).to_string(),
        model: header.model.clone(),
        started_ms,
        agent: match header.provider.as_str() {
            name @ ("claude-code" | "codex" | "mycodeagent") => name.to_string(),
            _ => "brood".to_string(),
        },
    }
}

/// A saved session's spans: every event of the file through the mapper.
pub fn saved_spans(path: &Path, settings: &Settings) -> Result<Vec<Span>, TelemetryError> {
    let mut source = crate::replay::open(path)?;
    let meta = session_meta(source.header());
    let mut mapper = Mapper::new(meta, settings.content, PriceTable::default());
    let mut spans = Vec::new();
    while let Some(item) = source.next_item()? {
        match item {
            crate::replay::Item::Event(event) => mapper.event(&event, &mut spans),
            crate::replay::Item::Skipped(_) | crate::replay::Item::Rewind { .. } => {}
        }
    }
    mapper.finish(&mut spans);
    Ok(spans)
}

/// Where `brood export` sends a saved session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Destination {
    /// The OTLP endpoint of the settings and variables.
    Endpoint,
    /// An OTLP/JSON file.
    File(PathBuf),
}

/// Sends or writes a saved session's spans; returns how many.
pub fn export_saved(
    path: &Path,
    destination: &Destination,
    settings: &Settings,
) -> Result<usize, TelemetryError> {
    let spans = saved_spans(path, settings)?;
    match destination {
        Destination::Endpoint => otlp::send(&spans, settings)?,
        Destination::File(out) => otlp::write_json(&spans, settings, out)?,
    }
    Ok(spans.len())
}

/// The live export of a session: a recorder for the bus, and the handle
/// that flushes it when the session ends.
pub struct LiveExport {
    shared: Arc<Mutex<Live>>,
    /// gRPC's own runtime: the channel needs a reactor, whatever thread the
    /// session started on, for as long as the export runs.
    runtime: Option<tokio::runtime::Runtime>,
}

impl Drop for LiveExport {
    fn drop(&mut self) {
        // Dropped where blocking may not be allowed (inside the session's
        // runtime): let its threads end on their own.
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

struct Live {
    mapper: Mapper,
    processor: BatchSpanProcessor,
    scope: InstrumentationScope,
    failures: Arc<Mutex<Failures>>,
}

/// What the exporter could not send, told when the session ends.
#[derive(Debug, Default)]
struct Failures {
    batches: u64,
    last: Option<String>,
}

/// The OTLP exporter, counting what it could not send: a backend that is
/// down costs the session a warning, nothing more.
#[derive(Debug)]
struct Counted<E> {
    inner: E,
    failures: Arc<Mutex<Failures>>,
    /// Said on the status line while exports fail; cleared by one that works.
    warning: SideWarning,
}

impl<E: SpanExporter> SpanExporter for Counted<E> {
    async fn export(&self, batch: Vec<SpanData>) -> opentelemetry_sdk::error::OTelSdkResult {
        let result = self.inner.export(batch).await;
        match &result {
            Err(e) => {
                tracing::warn!("telemetry export failed: {e}");
                if let Ok(mut f) = self.failures.lock() {
                    f.batches += 1;
                    f.last = Some(e.to_string());
                }
                self.warning
                    .set("telemetry: spans are not reaching the OTLP endpoint".into());
            }
            Ok(()) => self.warning.clear(),
        }
        result
    }

    fn shutdown_with_timeout(&self, timeout: Duration) -> opentelemetry_sdk::error::OTelSdkResult {
        self.inner.shutdown_with_timeout(timeout)
    }

    fn set_resource(&mut self, resource: &opentelemetry_sdk::Resource) {
        self.inner.set_resource(resource);
    }
}

impl LiveExport {
    /// Starts the exporter for a session with `header`, when the settings
    /// name an endpoint; `warning` says on the status line when exports
    /// fail. Call inside the Tokio runtime (gRPC needs it).
    pub fn start(
        header: &TraceHeader,
        settings: &Settings,
        warning: SideWarning,
    ) -> Result<Option<LiveExport>, TelemetryError> {
        if !settings.live() {
            return Ok(None);
        }
        let failures = Arc::new(Mutex::new(Failures::default()));
        let runtime = match settings.protocol {
            settings::Protocol::Grpc => Some(
                tokio::runtime::Builder::new_multi_thread()
                    .worker_threads(1)
                    .thread_name("brood-otlp")
                    .enable_all()
                    .build()
                    .map_err(|e| TelemetryError::Exporter(e.to_string()))?,
            ),
            settings::Protocol::HttpProtobuf => None,
        };
        let inner = {
            let _entered = runtime.as_ref().map(tokio::runtime::Runtime::enter);
            otlp::exporter(settings)?
        };
        let mut exporter = Counted {
            inner,
            failures: failures.clone(),
            warning,
        };
        exporter.set_resource(&otlp::resource(settings));
        // A bounded queue: when the backend falls behind, spans are dropped
        // (and counted by the SDK), never waited for.
        let config = BatchConfigBuilder::default()
            .with_scheduled_delay(Duration::from_secs(2))
            .build();
        let processor = BatchSpanProcessor::builder(exporter)
            .with_batch_config(config)
            .build();
        let mapper = Mapper::new(
            session_meta(header),
            settings.content,
            PriceTable::default(),
        );
        Ok(Some(LiveExport {
            shared: Arc::new(Mutex::new(Live {
                mapper,
                processor,
                scope: otlp::scope(),
                failures,
            })),
            runtime,
        }))
    }

    /// The recorder to add to the session's bus.
    pub fn recorder(&self) -> Box<dyn Recorder> {
        Box::new(LiveRecorder {
            shared: self.shared.clone(),
        })
    }

    /// Ends what is still open, sends what is queued (waiting at most
    /// `timeout`), and says what could not be sent, if anything.
    pub fn finish(&self, timeout: Duration) -> Option<String> {
        let Ok(mut live) = self.shared.lock() else {
            return Some("telemetry: the exporter's state was lost".into());
        };
        let mut done = Vec::new();
        live.mapper.finish(&mut done);
        live.hand_over(done);
        // Shutting down sends what is queued, within `timeout`; a separate
        // flush first would wait on a backend that does not answer for the
        // exporter's own timeout before this one even started.
        let sent = live.processor.shutdown_with_timeout(timeout);
        let failures = live.failures.lock().ok()?;
        match (&failures.last, sent) {
            (Some(last), _) => Some(format!(
                "telemetry: {} of the session's span batches did not reach the OTLP endpoint ({last})",
                failures.batches
            )),
            (None, Err(e)) => Some(format!("telemetry: the last spans were not sent ({e})")),
            (None, Ok(())) => None,
        }
    }
}

impl Live {
    fn hand_over(&mut self, spans: Vec<Span>) {
        for span in spans {
            self.processor.on_end(otlp::span_data(&span, &self.scope));
        }
    }
}

/// The bus's side of a live export: maps each event as it is published;
/// a span that ends goes into the batch queue without waiting.
struct LiveRecorder {
    shared: Arc<Mutex<Live>>,
}

impl Recorder for LiveRecorder {
    fn record(&mut self, event: &Event) -> Result<(), String> {
        // Telemetry never fails the session: a poisoned lock skips export.
        let Ok(mut live) = self.shared.lock() else {
            return Ok(());
        };
        let mut done = Vec::new();
        live.mapper.event(event, &mut done);
        live.hand_over(done);
        Ok(())
    }
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
