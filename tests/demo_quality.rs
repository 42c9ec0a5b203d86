//! The offline demo, through the binary, on sample projects laid out as real
//! ones are (`tests/data/projects/`: a Rust binary crate, a Python package, a
//! Go module and a Node CLI, each with tests, docs and a changelog that use the
//! same words) and on brood's own tree: the right file is the first evidence
//! for each part of the built-in question and for two free questions each, and
//! the answer names that file and what it defines.

use std::path::{Path, PathBuf};
use std::process::Command;

/// One part of the demo's answer: its heading, the summary line and the
/// evidence locations, in order.
#[derive(Debug)]
struct Part {
    heading: String,
    summary: String,
    evidence: Vec<String>,
}

fn projects() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/projects")
}

/// Runs `brood demo --headless` on `dir`, asking `question` (or the built-in
/// question), and reads the parts of the final answer.
fn demo(dir: &Path, question: Option<&str>) -> Vec<Part> {
    let home = tempfile::tempdir().expect("temp home");
    let mut command = Command::new(env!("CARGO_BIN_EXE_brood"));
    command
        .args([
            "demo",
            "--headless",
            "--speed",
            "1000",
            "--no-trace",
            "--cwd",
        ])
        .arg(dir)
        .env("HOME", home.path())
        .env("XDG_DATA_HOME", home.path().join("data"))
        .env("XDG_CONFIG_HOME", home.path().join("config"))
        .env_remove("BROOD_PROVIDER");
    if let Some(question) = question {
        command.arg(question);
    }
    let output = command.output().expect("brood runs");
    let stdout = String::from_utf8_lossy(&output.stdout).to_string();
    assert!(
        output.status.success(),
        "brood demo failed: {stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // The final answer is printed last, after the live lines.
    let answer = stdout
        .rsplit_once("Offline demo driver (no LLM): this answer")
        .map(|(_, answer)| answer)
        .unwrap_or_else(|| panic!("no final answer in {stdout}"));
    answer
        .split("\n### ")
        .skip(1)
        .map(|section| {
            let mut lines = section.lines();
            let heading = lines.next().unwrap_or_default().to_string();
            let summary = lines.next().unwrap_or_default().to_string();
            let evidence = lines
                .filter_map(|l| l.strip_prefix("- `")?.strip_suffix('`'))
                .map(String::from)
                .collect();
            Part {
                heading,
                summary,
                evidence,
            }
        })
        .collect()
}

fn first_file(part: &Part) -> &str {
    let first = part
        .evidence
        .first()
        .unwrap_or_else(|| panic!("no evidence for {part:?}"));
    first
        .rsplit_once(':')
        .map_or(first.as_str(), |(path, _)| path)
}

/// The built-in question's three parts answer from `expected`, in order, and
/// each summary names the file.
fn assert_built_in(project: &str, expected: [&str; 3]) {
    let parts = demo(&projects().join(project), None);
    let headings: Vec<&str> = parts.iter().map(|p| p.heading.as_str()).collect();
    assert_eq!(
        headings,
        [
            "Where is the entry point of this project",
            "How is configuration loaded",
            "How are errors handled"
        ],
        "{parts:#?}"
    );
    for (part, file) in parts.iter().zip(expected) {
        assert_eq!(first_file(part), file, "{project}: {part:#?}");
        assert!(
            part.summary.starts_with(&format!("`{file}` ")),
            "the answer names the file: {part:#?}"
        );
    }
}

fn assert_free(project: &str, question: &str, file: &str, defines: &str) {
    let parts = demo(&projects().join(project), Some(question));
    assert_eq!(parts.len(), 1, "{parts:#?}");
    assert_eq!(
        first_file(&parts[0]),
        file,
        "{project}: {question}: {parts:#?}"
    );
    assert!(
        parts[0].summary.contains(&format!("defines `{defines}`")),
        "the answer names the definition: {parts:#?}"
    );
}

#[test]
fn rust_binary_crate() {
    assert_built_in("rust-cli", ["src/main.rs", "src/config.rs", "src/error.rs"]);
    assert_free(
        "rust-cli",
        "how are log lines parsed?",
        "src/parse.rs",
        "parse_log",
    );
    assert_free(
        "rust-cli",
        "where is the summary printed?",
        "src/summary.rs",
        "print_summary",
    );
}

#[test]
fn python_package() {
    assert_built_in(
        "python-pkg",
        [
            "src/weatherly/cli.py",
            "src/weatherly/config.py",
            "src/weatherly/exceptions.py",
        ],
    );
    assert_free(
        "python-pkg",
        "where are forecasts cached?",
        "src/weatherly/cache.py",
        "ForecastCache",
    );
    assert_free(
        "python-pkg",
        "how is the temperature converted to fahrenheit?",
        "src/weatherly/units.py",
        "celsius_to_fahrenheit",
    );
}

#[test]
fn go_module() {
    assert_built_in(
        "go-module",
        [
            "cmd/linkcheck/main.go",
            "internal/config/config.go",
            "internal/checker/errors.go",
        ],
    );
    assert_free(
        "go-module",
        "how are links checked?",
        "internal/checker/checker.go",
        "Check",
    );
    assert_free(
        "go-module",
        "where is the report written?",
        "internal/report/report.go",
        "Write",
    );
}

#[test]
fn node_cli() {
    assert_built_in(
        "node-cli",
        ["bin/mdtoc.js", "lib/config.js", "lib/errors.js"],
    );
    assert_free(
        "node-cli",
        "how are headings parsed?",
        "lib/headings.js",
        "parseHeadings",
    );
    assert_free(
        "node-cli",
        "where is the toc rendered?",
        "lib/toc.js",
        "renderToc",
    );
}

/// Point 2 of the first-impression issue: on brood's own tree the entry point
/// is `src/main.rs`, configuration `src/config/`, errors an error type.
#[test]
fn brood_itself() {
    let parts = demo(Path::new(env!("CARGO_MANIFEST_DIR")), None);
    assert_eq!(parts.len(), 3, "{parts:#?}");
    assert_eq!(first_file(&parts[0]), "src/main.rs", "{parts:#?}");
    assert!(parts[0].summary.contains("defines `main`"), "{parts:#?}");
    assert!(
        first_file(&parts[1]).starts_with("src/config/"),
        "{parts:#?}"
    );
    let errors = &parts[2];
    assert!(first_file(errors).starts_with("src/"), "{errors:#?}");
    let defined = errors
        .summary
        .split('`')
        .nth(3)
        .unwrap_or_else(|| panic!("no definition named: {errors:#?}"));
    assert!(
        defined.ends_with("Error"),
        "the first evidence is an error type: {errors:#?}"
    );
}
