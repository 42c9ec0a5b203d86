//! brood's spans handed to the OpenTelemetry SDK: as `SpanData` (with the
//! ids and recorded times the mapper chose), sent by the official OTLP
//! exporter over HTTP/protobuf or gRPC, or written as OTLP/JSON.

use std::io::Write;
use std::path::Path;
use std::time::{Duration, UNIX_EPOCH};

use opentelemetry::trace::{
    SpanContext, SpanId, SpanKind as OtelKind, Status as OtelStatus, TraceFlags, TraceId,
    TraceState,
};
use opentelemetry::{Array, InstrumentationScope, KeyValue, StringValue, Value};
use opentelemetry_otlp::{Protocol as OtlpProtocol, WithExportConfig};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::trace::{SpanData, SpanEvents, SpanExporter as _, SpanLinks};

use super::TelemetryError;
use super::settings::{Protocol, Settings};
use super::spans::{Attr, Span, SpanKind, Status};

/// The instrumentation scope of every span brood makes.
pub fn scope() -> InstrumentationScope {
    InstrumentationScope::builder("brood")
        .with_version(env!("CARGO_PKG_VERSION"))
        .build()
}

/// The resource: `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES` as the
/// SDK reads them, with `service.name` = `brood` when neither names one.
pub fn resource(settings: &Settings) -> Resource {
    let from_env = Resource::builder().build();
    let named = from_env
        .get(&opentelemetry::Key::from_static_str("service.name"))
        .is_some_and(|v| !v.as_str().starts_with("unknown_service"));
    match named {
        true => from_env,
        false => Resource::builder()
            .with_service_name(settings.service_name.clone())
            .build(),
    }
}

/// One span as the SDK holds a finished one.
pub fn span_data(span: &Span, scope: &InstrumentationScope) -> SpanData {
    SpanData {
        span_context: SpanContext::new(
            TraceId::from_bytes(span.trace_id),
            SpanId::from_bytes(span.span_id),
            TraceFlags::SAMPLED,
            false,
            TraceState::default(),
        ),
        parent_span_id: span.parent.map_or(SpanId::INVALID, SpanId::from_bytes),
        parent_span_is_remote: false,
        span_kind: match span.kind {
            SpanKind::Internal => OtelKind::Internal,
            SpanKind::Client => OtelKind::Client,
        },
        name: span.name.clone().into(),
        start_time: UNIX_EPOCH + Duration::from_millis(span.start_ms),
        end_time: UNIX_EPOCH + Duration::from_millis(span.end_ms),
        attributes: span
            .attributes
            .iter()
            .map(|(key, value)| KeyValue::new(*key, value_of(value)))
            .collect(),
        dropped_attributes_count: 0,
        events: SpanEvents::default(),
        links: SpanLinks::default(),
        status: match &span.status {
            Status::Unset => OtelStatus::Unset,
            Status::Error(message) => OtelStatus::error(message.clone()),
        },
        instrumentation_scope: scope.clone(),
    }
}

fn value_of(attr: &Attr) -> Value {
    match attr {
        Attr::Str(s) => Value::String(s.clone().into()),
        Attr::Int(n) => Value::I64(*n),
        Attr::Float(f) => Value::F64(*f),
        Attr::Bool(b) => Value::Bool(*b),
        Attr::Strs(list) => Value::Array(Array::String(
            list.iter().map(|s| StringValue::from(s.clone())).collect(),
        )),
    }
}

/// The OTLP exporter the settings (and the standard variables) describe.
/// gRPC needs a Tokio runtime entered while it is built and used.
pub fn exporter(settings: &Settings) -> Result<opentelemetry_otlp::SpanExporter, TelemetryError> {
    // reqwest panics on a client built before a TLS provider is chosen.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let built = match settings.protocol {
        Protocol::HttpProtobuf => {
            let mut builder = opentelemetry_otlp::SpanExporter::builder()
                .with_http()
                .with_protocol(OtlpProtocol::HttpBinary);
            if let Some(endpoint) = settings.endpoint_for_code() {
                builder = builder.with_endpoint(endpoint);
            }
            builder.build()
        }
        Protocol::Grpc => {
            let mut builder = opentelemetry_otlp::SpanExporter::builder().with_tonic();
            if let Some(endpoint) = settings.endpoint_for_code() {
                builder = builder.with_endpoint(endpoint);
            }
            builder.build()
        }
    };
    built.map_err(|e| TelemetryError::Exporter(e.to_string()))
}

/// Sends `spans` to the OTLP endpoint and waits for the answer: for a
/// saved session, whose export should say whether it arrived.
pub fn send(spans: &[Span], settings: &Settings) -> Result<(), TelemetryError> {
    let scope = scope();
    let resource = resource(settings);
    let batches: Vec<Vec<SpanData>> = spans
        .chunks(512)
        .map(|chunk| chunk.iter().map(|s| span_data(s, &scope)).collect())
        .collect();
    let run = |mut exporter: opentelemetry_otlp::SpanExporter| -> Result<(), TelemetryError> {
        exporter.set_resource(&resource);
        for batch in batches {
            futures::executor::block_on(exporter.export(batch))
                .map_err(|e| TelemetryError::Export(e.to_string()))?;
        }
        let _ = exporter.shutdown();
        Ok(())
    };
    match settings.protocol {
        // The blocking HTTP client must not run inside a runtime: a thread
        // of its own.
        Protocol::HttpProtobuf => {
            let exporter = std::thread::scope(|s| s.spawn(|| exporter(settings)).join())
                .map_err(|_| TelemetryError::Exporter("building the exporter panicked".into()))??;
            std::thread::scope(|s| s.spawn(|| run(exporter)).join())
                .map_err(|_| TelemetryError::Export("the export panicked".into()))?
        }
        Protocol::Grpc => {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .enable_all()
                .build()
                .map_err(|e| TelemetryError::Exporter(e.to_string()))?;
            let _entered = runtime.enter();
            let exporter = exporter(settings)?;
            runtime.block_on(async {
                let mut exporter = exporter;
                exporter.set_resource(&resource);
                for chunk in spans.chunks(512) {
                    let batch = chunk.iter().map(|s| span_data(s, &scope)).collect();
                    exporter
                        .export(batch)
                        .await
                        .map_err(|e| TelemetryError::Export(e.to_string()))?;
                }
                let _ = exporter.shutdown();
                Ok(())
            })
        }
    }
}

/// Writes `spans` as one OTLP/JSON `ExportTraceServiceRequest` (the
/// protobuf JSON mapping: hex ids, nanoseconds as strings), for backends
/// that import files.
pub fn write_json(spans: &[Span], settings: &Settings, out: &Path) -> Result<(), TelemetryError> {
    use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
    use opentelemetry_proto::transform::common::tonic::ResourceAttributesWithSchema;
    use opentelemetry_proto::transform::trace::tonic::group_spans_by_resource_and_scope;

    let scope = scope();
    let resource = resource(settings);
    let data: Vec<SpanData> = spans.iter().map(|s| span_data(s, &scope)).collect();
    let request = ExportTraceServiceRequest {
        resource_spans: group_spans_by_resource_and_scope(
            data,
            &ResourceAttributesWithSchema::from(&resource),
        ),
    };
    let io = |source| TelemetryError::Write {
        path: out.to_path_buf(),
        source,
    };
    let mut file = std::io::BufWriter::new(std::fs::File::create(out).map_err(io)?);
    serde_json::to_writer(&mut file, &request).map_err(|e| io(e.into()))?;
    file.write_all(b"\n").map_err(io)?;
    file.flush().map_err(io)
}
