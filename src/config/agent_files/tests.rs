//! Agent folders on real temporary directories: which files become which
//! profiles, in which order, and what is said about the rest.

use std::path::Path;

use super::*;
use crate::policy::PermissionMode;

fn write(dir: &Path, rel: &str, text: &str) {
    let path = dir.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn read_dir(format: AgentFormat, dir: &Path) -> AgentFiles {
    let registry = crate::tools::ToolRegistry::base();
    let tools = registry.available();
    read(&[(format, dir.to_path_buf())], &tools, Some("small-model"))
}

fn only(found: &AgentFiles) -> &AgentProfile {
    assert_eq!(found.profiles.len(), 1, "{found:#?}");
    &found.profiles[0]
}

#[test]
fn no_tools_means_the_parent_s_tools_without_task() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "helper.md",
        "---\ndescription: helps\n---\nYou help.\n",
    );
    let found = read_dir(AgentFormat::ClaudeCode, dir.path());
    let agent = only(&found);
    assert_eq!(
        agent.profile.name, "helper",
        "the file's name when none is given"
    );
    // The parent's tools without `task`: the registry's base tools.
    assert_eq!(
        agent.profile.tools,
        crate::tools::ToolRegistry::base().names()
    );
    assert_eq!(agent.profile.permission_mode, PermissionMode::Normal);
    assert_eq!(agent.profile.system_prompt, "You help.");
}

#[test]
fn read_tools_alone_make_a_read_only_profile_and_plan_mode_keeps_it_so() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "a.md",
        "---\nname: looker\ndescription: looks\ntools: [Read, Glob]\n---\nLook.\n",
    );
    write(
        dir.path(),
        "b.md",
        "---\nname: planner\ndescription: plans\ntools: Read, Edit\npermissionMode: plan\n---\nPlan.\n",
    );
    let found = read_dir(AgentFormat::ClaudeCode, dir.path());
    let looker = &found.profiles[0].profile;
    assert_eq!(looker.tools, ["read_file", "glob"]);
    assert_eq!(looker.permission_mode, PermissionMode::ReadOnly);
    let planner = &found.profiles[1];
    assert_eq!(planner.profile.tools, ["read_file"]);
    assert_eq!(planner.profile.permission_mode, PermissionMode::ReadOnly);
    assert_eq!(planner.warnings, ["read-only: edit_file left out"]);
}

#[test]
fn an_explore_contract_gets_the_answer_format_and_brood_s_budgets() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "scout.md",
        "---\nname: scout\ndescription: scouts\ncontract: explore\ntoken_budget: 9000\n\
         context_budget: 4000\nmodel: inherit\n---\nScout the code.\n",
    );
    let found = read_dir(AgentFormat::ClaudeCode, dir.path());
    let profile = &only(&found).profile;
    assert_eq!(profile.contract, crate::agent::ResultContract::Explore);
    assert!(profile.system_prompt.starts_with("Scout the code.\n\n"));
    assert!(profile.system_prompt.contains("exactly one JSON object"));
    assert_eq!(
        (profile.token_budget, profile.context_budget),
        (Some(9000), Some(4000))
    );
    assert_eq!(profile.model, crate::agent::ModelRole::Main);
    assert_eq!(profile.permission_mode, PermissionMode::ReadOnly);
}

#[test]
fn nested_opencode_agents_are_named_by_their_path() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "team/review.md",
        "---\ndescription: reviews\nmode: all\npermissions:\n  - action: edit\n    resource: \"*\"\n    effect: deny\n---\nReview.\n",
    );
    let found = read_dir(AgentFormat::Opencode, dir.path());
    let agent = only(&found);
    assert_eq!(agent.profile.name, "team/review");
    assert_eq!(agent.profile.tools, ["bash", "read_file", "glob", "grep"]);
}

#[test]
fn what_cannot_be_read_is_left_out_with_the_file_and_why() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "empty-tools.md",
        "---\nname: x\ndescription: y\ntools: WebSearch\n---\nz\n",
    );
    write(dir.path(), "latin1.md", "");
    std::fs::write(dir.path().join("latin1.md"), b"---\nname: caf\xe9\n---\n").unwrap();
    let fifo = dir.path().join("pipe.md");
    let c_path = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path and mode.
    assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0);
    write(dir.path(), "huge.md", &"x".repeat(600 * 1024));
    write(dir.path(), "README.md", "# About these agents\n");
    let found = read_dir(AgentFormat::ClaudeCode, dir.path());
    assert!(found.profiles.is_empty(), "{found:#?}");
    let skipped = found.skipped.join("\n");
    for said in [
        "empty-tools.md: none of its tools is one brood has (WebSearch)",
        "latin1.md: line 2: not UTF-8 text",
        "pipe.md: not a regular file",
        "huge.md: 600 KB, over the 512 KB an agent file may have",
    ] {
        assert!(skipped.contains(said), "{said}:\n{skipped}");
    }
    assert!(!skipped.contains("README"), "{skipped}");
}

#[test]
fn a_codex_agent_without_tools_gets_the_parent_s_and_its_instructions() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "fixer.toml",
        "name = \"fixer\"\ndescription = \"Fixes things.\"\nmodel = \"small-model\"\n\
         developer_instructions = \"Fix it.\"\n",
    );
    write(dir.path(), "bad.toml", "name = \"bad\"\ndescription = [\n");
    let found = read_dir(AgentFormat::Codex, dir.path());
    let agent = only(&found);
    assert_eq!(agent.profile.system_prompt, "Fix it.");
    assert_eq!(agent.profile.model, crate::agent::ModelRole::Light);
    assert_eq!(agent.profile.tools.len(), 6);
    assert!(
        found.skipped[0].contains("bad.toml: line 2"),
        "{:?}",
        found.skipped
    );
}

/// Found by fuzz/agent_file: the first line of the prompt stood in for a
/// missing description at any length, though every request of the parent
/// carries it; a written one was already cut.
#[test]
fn a_description_taken_from_the_prompt_is_cut_like_a_written_one() {
    let dir = tempfile::tempdir().unwrap();
    let long = "x".repeat(5_000);
    write(
        dir.path(),
        "helper.md",
        &format!("---\nname: helper\n---\n{long}\n"),
    );
    let found = read_dir(AgentFormat::ClaudeCode, dir.path());
    let agent = only(&found);
    assert_eq!(agent.profile.description.chars().count(), 1_501);
    assert!(
        agent.warnings.iter().any(|w| w.contains("cut to 1500")),
        "{:?}",
        agent.warnings
    );
}

/// Found by fuzz/agent_file: a name from the file's name was not checked
/// (`my agent.md` offered `my agent`), nor a Codex name with control
/// characters.
#[test]
fn a_name_the_task_tool_cannot_offer_is_never_used() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "my agent.md",
        "---\ndescription: helps\n---\nHelp.\n",
    );
    let found = read_dir(AgentFormat::ClaudeCode, dir.path());
    assert!(found.profiles.is_empty(), "{found:#?}");
    assert!(
        found
            .skipped
            .iter()
            .any(|s| s.contains("my agent.md") && s.contains("cannot be offered")),
        "{:?}",
        found.skipped
    );
    let codex = tempfile::tempdir().unwrap();
    write(
        codex.path(),
        "helper.toml",
        "name = \"bad\\u0007\\u001b[31mred\"\ndescription = \"helps\"\ndeveloper_instructions = \"Help.\"\n",
    );
    let found = read_dir(AgentFormat::Codex, codex.path());
    assert_eq!(
        only(&found).profile.name,
        "helper",
        "the file's name instead"
    );
}
