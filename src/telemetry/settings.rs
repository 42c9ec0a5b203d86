//! Where spans go and what they hold: the standard OpenTelemetry variables
//! first, then `[telemetry]` in `brood.toml`. Headers (which carry keys)
//! come only from the environment (`OTEL_EXPORTER_OTLP_HEADERS`), which the
//! exporter reads itself.

use serde::Deserialize;

use super::TelemetryError;
use super::spans::Content;

/// `[telemetry]` in `brood.toml`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TelemetryTable {
    /// The collector's base URL (`http://localhost:4318`); the variables win.
    pub endpoint: Option<String>,
    /// `http/protobuf` or `grpc`.
    pub protocol: Option<String>,
    /// `service.name` when `OTEL_SERVICE_NAME` does not say.
    pub service_name: Option<String>,
    /// Messages, tool arguments and results in spans (off unless true).
    pub capture_content: Option<bool>,
    /// Export every session when an endpoint is set (on unless false).
    pub enabled: Option<bool>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    HttpProtobuf,
    Grpc,
}

/// Everything the export needs to know.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    pub protocol: Protocol,
    /// From `brood.toml`, used only when no variable names an endpoint.
    pub config_endpoint: Option<String>,
    /// An endpoint variable is set.
    pub env_endpoint: bool,
    pub service_name: String,
    pub content: Content,
    /// Export is turned off (`OTEL_SDK_DISABLED`, `OTEL_TRACES_EXPORTER=none`,
    /// `enabled = false`).
    pub disabled: bool,
}

/// Values of the variable `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`
/// that turn capture on: `true` as most instrumentations read it, and the
/// modes of `opentelemetry-util-genai` that put content on spans.
const CAPTURE_ON: [&str; 4] = ["true", "1", "span_only", "span_and_event"];

impl Settings {
    /// The settings from the variables `env` gives and the config's table.
    pub fn resolve(
        table: Option<&TelemetryTable>,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Settings, TelemetryError> {
        let var = |name: &str| {
            env(name)
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty())
        };
        let table = table.cloned().unwrap_or_default();
        let protocol_text = var("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
            .or_else(|| var("OTEL_EXPORTER_OTLP_PROTOCOL"))
            .or(table.protocol.clone());
        let protocol = match protocol_text
            .as_deref()
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            None | Some("http/protobuf") => Protocol::HttpProtobuf,
            Some("grpc") => Protocol::Grpc,
            Some(other) => return Err(TelemetryError::Protocol(other.to_string())),
        };
        let content = match var("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT") {
            Some(v) if CAPTURE_ON.contains(&v.to_ascii_lowercase().as_str()) => Content::Captured,
            Some(_) => Content::Omitted,
            None => match table.capture_content {
                Some(true) => Content::Captured,
                Some(false) | None => Content::Omitted,
            },
        };
        let disabled = var("OTEL_SDK_DISABLED").is_some_and(|v| v.eq_ignore_ascii_case("true"))
            || var("OTEL_TRACES_EXPORTER").is_some_and(|v| v.eq_ignore_ascii_case("none"))
            || table.enabled == Some(false);
        Ok(Settings {
            protocol,
            config_endpoint: table.endpoint.clone().filter(|e| !e.trim().is_empty()),
            env_endpoint: var("OTEL_EXPORTER_OTLP_ENDPOINT").is_some()
                || var("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT").is_some(),
            service_name: table.service_name.clone().unwrap_or_else(|| "brood".into()),
            content,
            disabled,
        })
    }

    /// The settings from this process's environment.
    pub fn from_env(table: Option<&TelemetryTable>) -> Result<Settings, TelemetryError> {
        Settings::resolve(table, &|name| std::env::var(name).ok())
    }

    /// Whether a live session exports: an endpoint is set and nothing turned
    /// export off.
    pub fn live(&self) -> bool {
        !self.disabled && (self.env_endpoint || self.config_endpoint.is_some())
    }

    /// The endpoint to hand the exporter in code: only the config's, and only
    /// when no variable names one (the exporter reads those itself). For
    /// HTTP a base URL gets the traces path, as the variable would.
    pub fn endpoint_for_code(&self) -> Option<String> {
        if self.env_endpoint {
            return None;
        }
        let base = self
            .config_endpoint
            .as_deref()?
            .trim()
            .trim_end_matches('/');
        match self.protocol {
            Protocol::Grpc => Some(base.to_string()),
            Protocol::HttpProtobuf if base.ends_with("/v1/traces") => Some(base.to_string()),
            Protocol::HttpProtobuf => Some(format!("{base}/v1/traces")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(
        vars: &[(&str, &str)],
        table: Option<&TelemetryTable>,
    ) -> Result<Settings, TelemetryError> {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Settings::resolve(table, &move |name| {
            vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
        })
    }

    #[test]
    fn nothing_set_exports_nothing_and_captures_nothing() {
        let s = with(&[], None).unwrap();
        assert!(!s.live());
        assert_eq!(s.protocol, Protocol::HttpProtobuf);
        assert_eq!(s.content, Content::Omitted);
        assert_eq!(s.service_name, "brood");
    }

    #[test]
    fn the_variables_win_over_the_config() {
        let table = TelemetryTable {
            endpoint: Some("http://collector:4318/".into()),
            protocol: Some("grpc".into()),
            capture_content: Some(true),
            ..TelemetryTable::default()
        };
        let s = with(&[], Some(&table)).unwrap();
        assert!(s.live());
        assert_eq!(s.protocol, Protocol::Grpc);
        assert_eq!(
            s.endpoint_for_code().as_deref(),
            Some("http://collector:4318")
        );
        assert_eq!(s.content, Content::Captured);
        let s = with(
            &[
                ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318"),
                ("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf"),
                (
                    "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT",
                    "false",
                ),
            ],
            Some(&table),
        )
        .unwrap();
        assert_eq!(s.protocol, Protocol::HttpProtobuf);
        assert_eq!(
            s.endpoint_for_code(),
            None,
            "the exporter reads the variable"
        );
        assert_eq!(s.content, Content::Omitted);
    }

    #[test]
    fn an_http_base_url_from_the_config_gets_the_traces_path() {
        let table = TelemetryTable {
            endpoint: Some("http://localhost:4318".into()),
            ..TelemetryTable::default()
        };
        let s = with(&[], Some(&table)).unwrap();
        assert_eq!(
            s.endpoint_for_code().as_deref(),
            Some("http://localhost:4318/v1/traces")
        );
    }

    #[test]
    fn capture_and_off_switches_read_as_the_ecosystem_writes_them() {
        for on in ["true", "TRUE", "1", "SPAN_ONLY", "span_and_event"] {
            let s = with(
                &[("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", on)],
                None,
            );
            assert_eq!(s.unwrap().content, Content::Captured, "{on}");
        }
        for off in [
            ("OTEL_SDK_DISABLED", "true"),
            ("OTEL_TRACES_EXPORTER", "none"),
        ] {
            let s = with(
                &[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://x:4318"), off],
                None,
            );
            assert!(!s.unwrap().live(), "{off:?}");
        }
    }

    #[test]
    fn an_unknown_protocol_is_an_error_that_names_the_ones_read() {
        let e = with(&[("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json")], None).unwrap_err();
        let said = e.to_string();
        assert!(
            said.contains("http/json") && said.contains("http/protobuf") && said.contains("grpc"),
            "{said}"
        );
    }
}
