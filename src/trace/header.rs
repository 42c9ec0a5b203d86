use serde::{Deserialize, Serialize};

pub const TRACE_FORMAT: &str = "brood-trace";
pub const TRACE_VERSION: u32 = 1;

/// The first line of every trace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TraceHeader {
    pub format: String,
    pub version: u32,
    pub session: String,
    /// RFC 3339, UTC.
    pub started_at: String,
    pub cwd: String,
    pub provider: String,
    pub model: String,
    pub light_model: Option<String>,
    pub brood_version: String,
    /// A word for people about how the session was driven, e.g. that it is a
    /// no-LLM demo.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// What the session's commands ran under; absent in traces of older
    /// brood versions and of other tools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<crate::protocol::SandboxSummary>,
    /// The project instruction files (`AGENTS.md`…) in the parent's prompt.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub instructions: Vec<String>,
}

impl TraceHeader {
    pub fn new(session: &str, cwd: &str, provider: &str, model: &str) -> Self {
        TraceHeader {
            format: TRACE_FORMAT.into(),
            version: TRACE_VERSION,
            session: session.into(),
            started_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            cwd: cwd.into(),
            provider: provider.into(),
            model: model.into(),
            light_model: None,
            brood_version: env!("CARGO_PKG_VERSION").into(),
            note: None,
            sandbox: None,
            instructions: Vec::new(),
        }
    }
}
