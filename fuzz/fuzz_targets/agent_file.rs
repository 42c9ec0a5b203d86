//! Agent files on any bytes: the input written as `helper.md` and
//! `helper.toml` in one folder, read as Claude Code's and opencode's
//! Markdown and as Codex's TOML (`config::agent_files::read`), with the base
//! tools offered. No panic, and every profile read back keeps the hard rules
//! whatever the file asks: a name without spaces, one to six of the offered
//! tools and never `task`, only read tools when read-only (explore always
//! is), at least one step and a positive cost budget when it has them.
#![no_main]

use std::collections::HashSet;

use brood::agent::ResultContract;
use brood::config::agent_files::{AgentFormat, read};
use brood::policy::PermissionMode;
use brood::protocol::ToolKind;
use brood::tools::ToolRegistry;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(dir) = tempfile::tempdir() else {
        return;
    };
    let folder = dir.path().to_path_buf();
    if std::fs::write(folder.join("helper.md"), data).is_err()
        || std::fs::write(folder.join("helper.toml"), data).is_err()
    {
        return;
    }
    let registry = ToolRegistry::base();
    let offered = registry.available();
    let folders = [
        (AgentFormat::ClaudeCode, folder.clone()),
        (AgentFormat::Opencode, folder.clone()),
        (AgentFormat::Codex, folder),
    ];
    let found = read(&folders, &offered, Some("small-model"));
    assert!(
        found.profiles.len() + found.skipped.len() <= folders.len(),
        "three reads gave more: {found:?}"
    );
    for agent in &found.profiles {
        let p = &agent.profile;
        let from = agent.format.as_str();
        assert!(!p.name.is_empty(), "{from}: a profile without a name");
        assert!(
            p.name.len() <= 64 && !p.name.chars().any(|c| c.is_whitespace() || c.is_control()),
            "{from}: the name {:?} cannot be offered by the task tool",
            p.name
        );
        // Every request of the parent carries every description.
        assert!(
            p.description.chars().count() <= 1_501,
            "{from}: a description of {} characters",
            p.description.chars().count()
        );
        assert!(!p.tools.is_empty(), "{from}: {} holds no tools", p.name);
        let mut seen = HashSet::new();
        for tool in &p.tools {
            assert!(seen.insert(tool), "{from}: {tool} twice in {:?}", p.tools);
            let kind = offered
                .iter()
                .find(|(name, _)| name == tool)
                .map(|(_, k)| *k);
            assert!(kind.is_some(), "{from}: {tool} was not offered");
            if p.permission_mode == PermissionMode::ReadOnly {
                assert_eq!(
                    kind,
                    Some(ToolKind::Read),
                    "{from}: read-only {} holds {tool}",
                    p.name
                );
            }
        }
        if p.contract == ResultContract::Explore {
            assert_eq!(
                p.permission_mode,
                PermissionMode::ReadOnly,
                "{from}: explore may write"
            );
        }
        assert_ne!(p.max_steps, Some(0), "{from}: {} may take no step", p.name);
        if let Some(dollars) = p.cost_budget_usd {
            assert!(
                dollars.is_finite() && dollars > 0.0,
                "{from}: budget {dollars}"
            );
        }
    }
});
