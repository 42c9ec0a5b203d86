//! `brood agents`: the subagent profiles a session offers, one line each,
//! with where each came from and what its file lost on the way.

use std::path::Path;

use super::{LoadedConfig, ProfileSource};
use crate::agent::{ModelRole, Profile, ResultContract};
use crate::policy::PermissionMode;
use crate::text::visible;

/// The table: name, source, tools, model, limits; each warning on a line of
/// its own under its profile, then the files left out. Paths under `home`
/// are shown from `~`.
pub fn render_profiles(config: &LoadedConfig, home: Option<&Path>) -> String {
    let rows = profile_rows(config, home);
    let header = ["NAME", "FROM", "TOOLS", "MODEL", "LIMITS"];
    let mut widths = header.map(str::len);
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: [&str; 5]| {
        let mut out = String::new();
        for (i, (cell, w)) in cells.iter().zip(widths).enumerate() {
            match i {
                4 => out.push_str(cell),
                _ => out.push_str(&format!("{cell:<w$}  ")),
            }
        }
        out.trim_end().to_string() + "\n"
    };
    let mut out = line(header);
    for (profile, row) in config.profiles.iter().zip(&rows) {
        out.push_str(&line(row.each_ref().map(String::as_str)));
        for warning in config
            .sources
            .get(&profile.name)
            .map(|s| s.warnings.as_slice())
            .unwrap_or_default()
        {
            out.push_str(&format!("  ! {}\n", visible(warning)));
        }
    }
    if !config.skipped_agents.is_empty() {
        out.push_str("\nleft out:\n");
        for skipped in &config.skipped_agents {
            out.push_str(&format!("  {}\n", visible(skipped)));
        }
    }
    out
}

/// Each profile as the table shows it: name, where it came from, tools,
/// model and limits (`brood agents`, and `/agents` in the workbench).
pub fn profile_rows(config: &LoadedConfig, home: Option<&Path>) -> Vec<[String; 5]> {
    config
        .profiles
        .iter()
        .map(|p| {
            let source = config.sources.get(&p.name);
            [
                visible(&p.name).into_owned(),
                source.map_or("built in".into(), |s| origin(s, home)),
                tools(p),
                model(p).to_string(),
                limits(p),
            ]
        })
        .collect()
}

/// One profile as a JSON object, for `brood agents --json`.
pub fn profile_json(profile: &Profile, source: Option<&ProfileSource>) -> serde_json::Value {
    serde_json::json!({
        "name": profile.name,
        "description": profile.description,
        "source": source.map_or("built in", |s| s.kind),
        "file": source.and_then(|s| s.file.as_ref()).map(|f| f.display().to_string()),
        "tools": profile.tools,
        "read_only": profile.permission_mode == PermissionMode::ReadOnly,
        "model": model(profile),
        "contract": match profile.contract {
            ResultContract::Text => "text",
            ResultContract::Explore => "explore",
        },
        "max_steps": profile.max_steps,
        "token_budget": profile.token_budget,
        "context_budget": profile.context_budget,
        "color": profile.color,
        "warnings": source.map(|s| s.warnings.clone()).unwrap_or_default(),
    })
}

fn origin(source: &ProfileSource, home: Option<&Path>) -> String {
    let Some(file) = &source.file else {
        return source.kind.to_string();
    };
    let shown = match home.and_then(|h| file.strip_prefix(h).ok()) {
        Some(rest) => format!("~/{}", rest.display()),
        None => file.display().to_string(),
    };
    format!("{} {}", source.kind, visible(&shown))
}

fn tools(profile: &Profile) -> String {
    let list = profile.tools.join(", ");
    match profile.permission_mode {
        PermissionMode::ReadOnly => format!("{list} (read-only)"),
        PermissionMode::Normal => list,
    }
}

fn model(profile: &Profile) -> &'static str {
    match profile.model {
        ModelRole::Main => "main",
        ModelRole::Light => "light",
    }
}

fn limits(profile: &Profile) -> String {
    let mut parts = Vec::new();
    if let Some(steps) = profile.max_steps {
        parts.push(format!("{steps} steps"));
    }
    if let Some(tokens) = profile.token_budget {
        parts.push(format!("{tokens} tokens"));
    }
    if let Some(context) = profile.context_budget {
        parts.push(format!("{context} context"));
    }
    if profile.contract == ResultContract::Explore {
        parts.push("JSON answer".into());
    }
    match parts.is_empty() {
        true => "none".into(),
        false => parts.join(", "),
    }
}
