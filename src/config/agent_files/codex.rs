//! Codex custom agents (`.codex/agents/*.toml`): `name`, `description` and
//! `developer_instructions` (the system prompt); `model`; `sandbox_mode`,
//! whose `read-only` makes a read-only profile. Codex gives its agents every
//! tool, so the profile gets the parent's.

use super::draft::Draft;
use super::markdown::Read;

/// Fields Codex has that brood does not use.
const CODEX_ONLY: &[&str] = &[
    "model_reasoning_effort",
    "model_reasoning_summary",
    "nickname_candidates",
    "mcp_servers",
    "skills",
    "web_search",
    "approval_policy",
];

pub(super) fn read(text: &str, stem: &str) -> Result<Read, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let table: toml::Table = toml::from_str(text).map_err(|e| match e.span() {
        Some(span) => format!(
            "line {}: {}",
            text[..span.start.min(text.len())].matches('\n').count() + 1,
            e.message()
        ),
        None => e.message().to_string(),
    })?;
    let text_at = |key: &str| {
        table
            .get(key)
            .and_then(toml::Value::as_str)
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
    };
    let number_at = |key: &str| -> Result<Option<u64>, String> {
        match table.get(key) {
            None => Ok(None),
            Some(toml::Value::Integer(n)) if *n >= 0 => Ok(Some(*n as u64)),
            Some(other) => Err(format!("{key} must be a whole number, not {other}")),
        }
    };
    let name = text_at("name")
        .filter(|n| super::markdown::usable_name(n))
        .unwrap_or_else(|| stem.to_string());
    let mut draft = Draft::new(name);
    draft.description = text_at("description");
    draft.prompt = text_at("developer_instructions").unwrap_or_default();
    draft.model = text_at("model");
    draft.max_steps = number_at("max_steps")?.map(|n| n as u32);
    draft.token_budget = number_at("token_budget")?;
    draft.instructions = match table.get("instructions") {
        None => None,
        Some(toml::Value::Boolean(on)) => Some(*on),
        Some(other) => return Err(format!("instructions must be true or false, not {other}")),
    };
    draft.context_budget = number_at("context_budget")?;
    match text_at("contract").as_deref() {
        None | Some("text") => {}
        Some("explore") => draft.explore = true,
        Some(other) => {
            return Err(format!(
                "contract must be \"text\" or \"explore\", not {other:?}"
            ));
        }
    }
    if let Some(mode) = text_at("sandbox_mode") {
        let (read_only, note) = super::names::read_only_mode(&mode);
        draft.read_only = read_only;
        draft
            .warnings
            .extend(note.map(|n| format!("sandbox_mode {n}")));
    }
    let known = [
        "name",
        "description",
        "developer_instructions",
        "model",
        "sandbox_mode",
        "max_steps",
        "token_budget",
        "context_budget",
        "contract",
        "instructions",
    ];
    let unused: Vec<&str> = table
        .keys()
        .map(String::as_str)
        .filter(|k| !known.contains(k))
        .collect();
    if !unused.is_empty() {
        let codex = unused.iter().all(|k| CODEX_ONLY.contains(k));
        draft.warnings.push(format!(
            "not read{}: {}",
            if codex { " (Codex settings)" } else { "" },
            unused.join(", ")
        ));
    }
    Ok(Read::Agent(Box::new(draft)))
}
