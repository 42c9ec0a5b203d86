//! The structure ARCHITECTURE.md describes, guarded: each rule names the parts
//! of `src/` it applies to and the `crate::` modules they may (or may not) use.
//! The test reads every non-test source file, finds each `crate::NAME` path
//! outside comments, and fails naming the file, the line and the rule broken.

use std::path::{Path, PathBuf};

/// Which `crate::` modules a part may name.
enum Allowed {
    /// Only these.
    Only(&'static [&'static str]),
    /// Any but these.
    Not(&'static [&'static str]),
}

struct Rule {
    what: &'static str,
    /// Paths under `src/` (a file, or a folder ending in `/`).
    parts: &'static [&'static str],
    allowed: Allowed,
}

const RULES: &[Rule] = &[
    Rule {
        what: "the event vocabulary depends on nothing",
        parts: &["event/", "protocol/"],
        allowed: Allowed::Only(&["event", "protocol"]),
    },
    Rule {
        what: "the screen sees only events and sends only Ops",
        parts: &["tui/"],
        allowed: Allowed::Only(&["tui", "event", "protocol", "text", "signals"]),
    },
    Rule {
        what: "the engine knows no screen",
        parts: &[
            "agent/",
            "model/",
            "tools/",
            "policy/",
            "session/",
            "sandbox/",
            "trace/",
            "replay/",
            "config/",
            "ident/",
            "workspace.rs",
            "printer.rs",
            "headless.rs",
            "tool_cli.rs",
            "text.rs",
            "signals.rs",
        ],
        allowed: Allowed::Not(&["tui"]),
    },
    Rule {
        what: "a model client knows no agent",
        parts: &["model/"],
        allowed: Allowed::Not(&[
            "agent",
            "session",
            "tools",
            "policy",
            "sandbox",
            "workspace",
            "trace",
            "replay",
            "config",
            "printer",
            "headless",
            "tool_cli",
        ]),
    },
    Rule {
        what: "the policy and the tools do not know each other",
        parts: &["policy/"],
        allowed: Allowed::Not(&["tools", "agent", "session"]),
    },
    Rule {
        what: "the policy and the tools do not know each other",
        parts: &["tools/"],
        allowed: Allowed::Not(&["policy", "agent", "session"]),
    },
    Rule {
        what: "readers know neither the engine nor the screen",
        parts: &["trace/", "replay/"],
        allowed: Allowed::Not(&["agent", "session", "tools", "policy", "model", "headless"]),
    },
    Rule {
        what: "telemetry reads events, like the readers, and knows no engine or screen",
        parts: &["telemetry/"],
        allowed: Allowed::Not(&[
            "tui", "agent", "session", "tools", "policy", "model", "headless", "config",
        ]),
    },
];

/// Things a reader never does: it returns what it read, and the command prints.
const PRINTING: &[&str] = &[
    "println!",
    "eprintln!",
    "print!(",
    "eprint!(",
    "stdout()",
    "stderr()",
];
const READERS: &[&str] = &["trace/", "replay/", "telemetry/"];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every non-test `.rs` file under `dir`, as its path relative to `src/`.
fn sources(dir: &Path, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            if name != "tests" {
                sources(&path, out);
            }
        } else if name.ends_with(".rs") && !name.ends_with("_tests.rs") && name != "tests.rs" {
            let rel = path.strip_prefix(src()).unwrap();
            out.push(rel.to_string_lossy().into_owned());
        }
    }
}

/// The file's lines before its inline test module, without comments.
fn code_lines(text: &str) -> Vec<(usize, &str)> {
    let mut lines = Vec::new();
    let mut previous = "";
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("mod tests") && previous.trim() == "#[cfg(test)]" {
            break;
        }
        previous = line;
        let code = match line.find("//") {
            Some(at) => &line[..at],
            None => line,
        };
        lines.push((i + 1, code));
    }
    lines
}

/// The `crate::NAME` modules a line names.
fn crate_paths(line: &str) -> Vec<&str> {
    let mut found = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("crate::") {
        let after = &rest[at + "crate::".len()..];
        let end = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(after.len());
        if end > 0 {
            found.push(&after[..end]);
        }
        rest = &after[end..];
    }
    found
}

fn applies(parts: &[&str], file: &str) -> bool {
    parts.iter().any(|part| match part.strip_suffix('/') {
        Some(dir) => file.starts_with(&format!("{dir}/")),
        None => file == *part,
    })
}

#[test]
fn every_part_imports_only_what_its_rule_allows() {
    let mut files = Vec::new();
    sources(&src(), &mut files);
    files.sort();
    assert!(files.len() > 50, "found the sources: {files:?}");
    let mut broken = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(src().join(file)).unwrap();
        for (number, line) in code_lines(&text) {
            for module in crate_paths(line) {
                for rule in RULES.iter().filter(|r| applies(r.parts, file)) {
                    let ok = match rule.allowed {
                        Allowed::Only(names) => names.contains(&module),
                        Allowed::Not(names) => !names.contains(&module),
                    };
                    if !ok {
                        broken.push(format!(
                            "src/{file}:{number}: imports crate::{module}, but {}",
                            rule.what
                        ));
                    }
                }
            }
            if applies(READERS, file) {
                for printing in PRINTING.iter().filter(|p| line.contains(*p)) {
                    broken.push(format!(
                        "src/{file}:{number}: uses {printing}, but readers print nothing"
                    ));
                }
            }
        }
    }
    assert!(broken.is_empty(), "\n{}", broken.join("\n"));
}

#[test]
fn the_checker_sees_what_it_checks() {
    assert_eq!(
        crate_paths("use crate::tui::state::{State}; let x = crate::event::Op::Quit;"),
        ["tui", "event"]
    );
    let text = "use crate::a;\n// crate::b\nfn f() {} // crate::c\n#[cfg(test)]\nmod tests {\n use crate::d;\n}\n";
    let names: Vec<&str> = code_lines(text)
        .into_iter()
        .flat_map(|(_, line)| crate_paths(line))
        .collect();
    assert_eq!(names, ["a"]);
    assert!(applies(&["tui/"], "tui/view/mod.rs"));
    assert!(!applies(&["tui/"], "tuition.rs"));
    assert!(applies(&["event.rs"], "event.rs"));
}
