//! brood refuses transparent huge pages for its own heap in every command but
//! `replay --print` (`src/heap.rs`), a setting the kernel hands on to every
//! child: the commands it starts get back the setting brood was given.

mod common;

use common::{Sandbox, stdout};

/// The `THP_enabled` line of a process's status, where the kernel has it.
fn thp_enabled(status: &str) -> Option<String> {
    status
        .lines()
        .find(|l| l.starts_with("THP_enabled:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .map(String::from)
}

#[test]
#[cfg(target_os = "linux")]
fn a_command_an_agent_runs_has_the_huge_pages_brood_was_given() {
    let given = thp_enabled(&std::fs::read_to_string("/proc/self/status").unwrap());
    let Some(given) = given else {
        return; // Linux before 5.0: nothing to check.
    };
    let sb = Sandbox::new();
    let script = r#"{"command": "cat /proc/self/status"}"#;
    let out = sb.run(&["tool", "bash", script, "--yes"]);
    let said = stdout(&out);
    assert_eq!(
        thp_enabled(&said).as_deref(),
        Some(given.as_str()),
        "{said}"
    );
}
