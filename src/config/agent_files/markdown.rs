//! Markdown agent files: Claude Code's (`.claude/agents/*.md`) and opencode's
//! (`.opencode/agent/*.md`): front matter for the fields, the body for the
//! system prompt. The two differ in their fields: Claude Code lists the tools
//! an agent gets, opencode switches tools off and denies permissions.

use super::draft::{Draft, Tools};
use super::frontmatter::{self, Document, Field, Fields};

/// brood's own fields, in every format.
const BROOD_KEYS: &[&str] = &[
    "token_budget",
    "context_budget",
    "cost_budget_usd",
    "contract",
    "instructions",
];

const CLAUDE_KEYS: &[&str] = &[
    "name",
    "description",
    "tools",
    "disallowedTools",
    "model",
    "color",
    "maxTurns",
    "permissionMode",
    "mcpServers",
];

/// Claude Code fields brood does not read: known, so that a file read as
/// lines starts a field at them, and said to be left out.
const CLAUDE_UNREAD: &[&str] = &[
    "hooks",
    "skills",
    "memory",
    "isolation",
    "background",
    "effort",
    "initialPrompt",
];

const OPENCODE_KEYS: &[&str] = &[
    "name",
    "description",
    "mode",
    "model",
    "tools",
    "permission",
    "permissions",
    "prompt",
    "color",
    "maxSteps",
    "steps",
    "disable",
    "hidden",
    "temperature",
    "top_p",
];

/// An agent file that is not a subagent at all (opencode's primary agents,
/// disabled ones): left out without being a problem.
#[derive(Debug, Clone)]
pub(super) enum Read {
    Agent(Box<Draft>),
    NotASubagent(String),
}

/// A Claude Code agent file named `stem`.
pub(super) fn claude(text: &str, stem: &str) -> Result<Read, String> {
    let keys = [CLAUDE_KEYS, BROOD_KEYS].concat();
    let known = [CLAUDE_KEYS, BROOD_KEYS, CLAUDE_UNREAD].concat();
    let doc = frontmatter::parse(text, &known).map_err(|e| e.to_string())?;
    let name = text_of(&doc.fields, "name")
        .filter(|n| usable_name(n))
        .unwrap_or_else(|| stem.to_string());
    let mut draft = common(Draft::new(name), &doc)?;
    let fields = &doc.fields;
    if let Some((field, _)) = fields.get("tools") {
        draft.tools = Tools::Only(list(field));
    }
    if let Some((field, _)) = fields.get("disallowedTools") {
        draft.disallowed = list(field);
    }
    // Servers by name; a server defined inline is not read.
    if let Some((field, _)) = fields.get("mcpServers") {
        match field {
            Field::Map(defined) => draft.warnings.push(format!(
                "mcpServers defined inline are not read (name them in .mcp.json instead): {}",
                defined
                    .iter()
                    .map(|(k, _)| k.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
            other => draft.mcp_servers = list(other),
        }
    }
    draft.max_steps = number(fields, "maxTurns")?.map(|n| n as u32);
    if let Some(mode) = text_of(fields, "permissionMode") {
        let (read_only, note) = super::names::read_only_mode(&mode);
        draft.read_only = read_only;
        draft
            .warnings
            .extend(note.map(|n| format!("permissionMode {n}")));
    }
    ignored(&mut draft, &doc.fields, &keys);
    Ok(Read::Agent(Box::new(draft)))
}

/// An opencode agent file whose path under its agents folder, without the
/// extension, is `id` (`review` or `team/review`).
pub(super) fn opencode(text: &str, id: &str) -> Result<Read, String> {
    let keys = [OPENCODE_KEYS, BROOD_KEYS].concat();
    let doc = frontmatter::parse(text, &keys).map_err(|e| e.to_string())?;
    let fields = &doc.fields;
    if fields
        .get("disable")
        .is_some_and(|(f, _)| *f == Field::Flag(true))
    {
        return Ok(Read::NotASubagent("disabled (`disable: true`)".into()));
    }
    if text_of(fields, "mode").as_deref() == Some("primary") {
        return Ok(Read::NotASubagent(
            "an opencode primary agent, not a subagent (`mode: primary`)".into(),
        ));
    }
    let name = text_of(fields, "name")
        .filter(|n| usable_name(n))
        .unwrap_or_else(|| id.to_string());
    let mut draft = common(Draft::new(name), &doc)?;
    if draft.prompt.is_empty()
        && let Some(prompt) = text_of(fields, "prompt")
    {
        draft.prompt = prompt;
    }
    // `tools: {write: false, bash: true}` switches the parent's tools off.
    if let Some((Field::Map(switches), _)) = fields.get("tools") {
        for (tool, on) in switches {
            if *on == Field::Flag(false) && !tool.contains('*') {
                draft.disallowed.push(tool.clone());
            }
        }
    }
    for (action, effect) in permissions(fields) {
        if effect == "deny" {
            match action.as_str() {
                "edit" => draft.disallowed.extend(["edit".into(), "write".into()]),
                "bash" | "shell" => draft.disallowed.push("bash".into()),
                _ => {}
            }
        }
    }
    draft.max_steps = match number(fields, "maxSteps")? {
        Some(n) => Some(n as u32),
        None => number(fields, "steps")?.map(|n| n as u32),
    };
    for unused in ["temperature", "top_p"] {
        if fields.get(unused).is_some() {
            draft.warnings.push(format!("{unused} is not used"));
        }
    }
    ignored(&mut draft, &doc.fields, &keys);
    Ok(Read::Agent(Box::new(draft)))
}

/// The permission actions an opencode agent sets, with their effect: v1's
/// `permission: {edit: deny, bash: ask}` and v2's `permissions:` list of
/// `{action, resource, effect}` (only rules on every resource count).
fn permissions(fields: &Fields) -> Vec<(String, String)> {
    let mut out = Vec::new();
    if let Some((Field::Map(map), _)) = fields.get("permission") {
        for (action, effect) in map {
            if let Some(effect) = effect.text() {
                out.push((action.clone(), effect));
            }
        }
    }
    if let Some((Field::List(rules), _)) = fields.get("permissions") {
        for rule in rules {
            let Field::Map(rule) = rule else { continue };
            let get = |key: &str| {
                rule.iter()
                    .find(|(k, _)| k == key)
                    .and_then(|(_, v)| v.text())
            };
            if let (Some(action), Some(effect)) = (get("action"), get("effect"))
                && get("resource").is_none_or(|r| r == "*")
            {
                out.push((action, effect));
            }
        }
    }
    out
}

/// The fields both formats share: description, model, color, the body, and
/// brood's own extensions.
fn common(mut draft: Draft, doc: &Document) -> Result<Draft, String> {
    let fields = &doc.fields;
    if let Some(why) = &doc.lenient {
        draft.warnings.push(format!(
            "front matter is not valid YAML ({why}); read as `key: value` lines"
        ));
    }
    draft.description = text_of(fields, "description");
    draft.model = text_of(fields, "model");
    draft.color = text_of(fields, "color");
    draft.prompt = doc.body.clone();
    draft.instructions = match fields.get("instructions") {
        Some((Field::Flag(on), _)) => Some(*on),
        Some((other, line)) => match other.text().as_deref() {
            Some("true") => Some(true),
            Some("false") => Some(false),
            _ => return Err(format!("line {line}: instructions must be true or false")),
        },
        None => None,
    };
    draft.token_budget = number(fields, "token_budget")?;
    draft.context_budget = number(fields, "context_budget")?;
    draft.cost_budget_usd = dollars(fields, "cost_budget_usd")?;
    match text_of(fields, "contract").as_deref() {
        None | Some("text") => {}
        Some("explore") => draft.explore = true,
        Some(other) => {
            let line = fields.get("contract").map_or(1, |(_, l)| l);
            return Err(format!(
                "line {line}: contract must be \"text\" or \"explore\", not {other:?}"
            ));
        }
    }
    Ok(draft)
}

/// A field's text, trimmed, if it has any.
fn text_of(fields: &Fields, key: &str) -> Option<String> {
    let (field, _) = fields.get(key)?;
    field
        .text()
        .map(|t| t.trim().to_string())
        .filter(|t| !t.is_empty())
}

/// A whole number field; an error naming the line when it is something else.
/// A sum of money: a number above zero, `0.5` or `2`.
fn dollars(fields: &Fields, key: &str) -> Result<Option<f64>, String> {
    let Some((field, line)) = fields.get(key) else {
        return Ok(None);
    };
    let parsed = match field {
        Field::Number(n) => Some(*n as f64),
        Field::Text(t) => t.trim().trim_start_matches('$').parse::<f64>().ok(),
        Field::Empty => return Ok(None),
        Field::Flag(_) | Field::List(_) | Field::Map(_) => None,
    };
    match parsed.filter(|d| d.is_finite() && *d > 0.0) {
        Some(d) => Ok(Some(d)),
        None => Err(format!(
            "line {line}: {key} must be an amount of US dollars above 0, such as 0.50"
        )),
    }
}

fn number(fields: &Fields, key: &str) -> Result<Option<u64>, String> {
    let Some((field, line)) = fields.get(key) else {
        return Ok(None);
    };
    let parsed = match field {
        Field::Number(n) => u64::try_from(*n).ok(),
        Field::Text(t) => t.trim().parse().ok(),
        Field::Empty => return Ok(None),
        Field::Flag(_) | Field::List(_) | Field::Map(_) => None,
    };
    match parsed {
        Some(n) => Ok(Some(n)),
        None => Err(format!(
            "line {line}: {key} must be a whole number, not {}",
            field.text().unwrap_or_else(|| "a list".into())
        )),
    }
}

/// A tool list: `Read, Grep` (commas or spaces), or a YAML list.
fn list(field: &Field) -> Vec<String> {
    match field {
        Field::List(items) => items.iter().filter_map(Field::text).collect(),
        Field::Text(text) => split_names(text),
        Field::Map(map) => map
            .iter()
            .filter(|(_, on)| *on != Field::Flag(false))
            .map(|(k, _)| k.clone())
            .collect(),
        Field::Number(_) | Field::Flag(_) | Field::Empty => Vec::new(),
    }
}

/// `Read, Grep Glob` → the names, keeping `Bash(git diff:*)` whole.
fn split_names(text: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut current = String::new();
    let mut depth = 0usize;
    for c in text.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ => {}
        }
        if depth == 0 && (c == ',' || c.is_whitespace()) {
            if !current.trim().is_empty() {
                names.push(current.trim().to_string());
            }
            current.clear();
        } else {
            current.push(c);
        }
    }
    if !current.trim().is_empty() {
        names.push(current.trim().to_string());
    }
    names
}

/// A name the `task` tool can offer: no spaces or control characters.
pub(super) fn usable_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && !name.chars().any(|c| c.is_whitespace() || c.is_control())
}

/// Says which fields of the file brood does not read.
fn ignored(draft: &mut Draft, fields: &Fields, known: &[&str]) {
    let unknown: Vec<&str> = fields
        .fields
        .iter()
        .map(|(k, ..)| k.as_str())
        .filter(|k| !known.contains(k))
        .collect();
    if !unknown.is_empty() {
        draft
            .warnings
            .push(format!("not read: {}", unknown.join(", ")));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_lists_are_split_on_commas_and_spaces() {
        assert_eq!(
            split_names("Read, Grep,Glob  Bash(git diff:*), Write"),
            ["Read", "Grep", "Glob", "Bash(git diff:*)", "Write"]
        );
    }
}
