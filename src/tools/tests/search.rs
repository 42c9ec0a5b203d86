//! glob and grep on real folder trees.

use serde_json::json;

use super::Fixture;
use crate::tools::{GlobTool, GrepTool};

/// A small project: sources, an ignored build folder, a hidden folder, a log.
fn project() -> Fixture {
    let fx = Fixture::new();
    fx.write(".gitignore", "target/\n*.log\n");
    fx.write("README.md", "# demo\nfn main is in src\n");
    fx.write("src/main.rs", "fn main() {\n    helper();\n}\n");
    fx.write(
        "src/util/helper.rs",
        "pub fn helper() {}\n// TODO: Main cleanup\n",
    );
    fx.write("target/debug/gen.rs", "fn main() {}\n");
    fx.write("debug.log", "fn main crashed\n");
    fx.write(".hidden/secret.rs", "fn main() {}\n");
    fx
}

#[tokio::test]
async fn glob_lists_matching_files_sorted_and_relative() {
    let fx = project();
    let all = fx.ok(&GlobTool, json!({"pattern": "**/*.rs"})).await;
    assert_eq!(all, "src/main.rs\nsrc/util/helper.rs");
    let top = fx.ok(&GlobTool, json!({"pattern": "src/*.rs"})).await;
    assert_eq!(top, "src/main.rs");
    let under = fx
        .ok(&GlobTool, json!({"pattern": "*.rs", "path": "src/util"}))
        .await;
    assert_eq!(under, "src/util/helper.rs");
    let dotted = fx.ok(&GlobTool, json!({"pattern": "./*.md"})).await;
    assert_eq!(dotted, "README.md");
}

#[tokio::test]
async fn glob_honours_gitignore_and_skips_hidden_files() {
    let fx = project();
    let out = fx.ok(&GlobTool, json!({"pattern": "**/*"})).await;
    assert_eq!(out, "README.md\nsrc/main.rs\nsrc/util/helper.rs");
}

#[tokio::test]
async fn glob_no_match_and_bad_places() {
    let fx = project();
    let none = fx.ok(&GlobTool, json!({"pattern": "*.rs"})).await;
    assert_eq!(none, "no files match *.rs");
    let none_in = fx
        .ok(&GlobTool, json!({"pattern": "*.zig", "path": "src"}))
        .await;
    assert_eq!(none_in, "no files match *.zig in src");
    let missing = fx
        .err(&GlobTool, json!({"pattern": "*", "path": "nope"}))
        .await;
    assert_eq!(missing, "folder not found: nope");
    let file = fx
        .err(&GlobTool, json!({"pattern": "*", "path": "README.md"}))
        .await;
    assert!(file.contains("README.md is a file"), "{file}");
    let bad = fx.err(&GlobTool, json!({"pattern": "src/[*.rs"})).await;
    assert!(bad.starts_with("invalid glob pattern"), "{bad}");
}

#[tokio::test]
async fn glob_caps_at_200_with_a_count() {
    let fx = Fixture::new();
    for i in 0..250 {
        fx.write(&format!("d/f{i:03}.txt"), "");
    }
    let out = fx.ok(&GlobTool, json!({"pattern": "**/*.txt"})).await;
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 201);
    assert_eq!(lines[0], "d/f000.txt");
    assert_eq!(lines[199], "d/f199.txt");
    assert_eq!(
        lines[200],
        "[... 50 more matches not shown; narrow the pattern]"
    );
}

#[tokio::test]
async fn grep_reports_path_line_text_sorted() {
    let fx = project();
    let out = fx.ok(&GrepTool, json!({"pattern": "fn \\w+"})).await;
    assert_eq!(
        out,
        "README.md:2:fn main is in src\n\
         src/main.rs:1:fn main() {\n\
         src/util/helper.rs:1:pub fn helper() {}"
    );
}

#[tokio::test]
async fn grep_case_insensitive_glob_and_single_file() {
    let fx = project();
    let sensitive = fx
        .ok(&GrepTool, json!({"pattern": "main", "glob": "*.rs"}))
        .await;
    assert_eq!(sensitive, "src/main.rs:1:fn main() {");
    let insensitive = fx
        .ok(
            &GrepTool,
            json!({"pattern": "main", "glob": "*.rs", "case_insensitive": true}),
        )
        .await;
    assert_eq!(
        insensitive,
        "src/main.rs:1:fn main() {\nsrc/util/helper.rs:2:// TODO: Main cleanup"
    );
    let by_path = fx
        .ok(&GrepTool, json!({"pattern": "fn", "glob": "src/util/*.rs"}))
        .await;
    assert_eq!(by_path, "src/util/helper.rs:1:pub fn helper() {}");
    let one = fx
        .ok(
            &GrepTool,
            json!({"pattern": "helper", "path": "src/main.rs"}),
        )
        .await;
    assert_eq!(one, "src/main.rs:2:    helper();");
    // A file named explicitly is searched even when .gitignore excludes it, as rg does.
    let ignored = fx
        .ok(&GrepTool, json!({"pattern": "crash", "path": "debug.log"}))
        .await;
    assert_eq!(ignored, "debug.log:1:fn main crashed");
}

#[tokio::test]
async fn grep_skips_binary_files() {
    let fx = Fixture::new();
    fx.write("text.txt", "needle here\n");
    let mut binary = b"needle in a binary\n".to_vec();
    binary.extend_from_slice(&[0u8; 64]);
    fx.write("blob.bin", binary);
    let out = fx.ok(&GrepTool, json!({"pattern": "needle"})).await;
    assert_eq!(out, "text.txt:1:needle here");
}

#[tokio::test]
async fn grep_no_match_and_invalid_regex() {
    let fx = project();
    let none = fx.ok(&GrepTool, json!({"pattern": "zzz+"})).await;
    assert_eq!(none, "no matches for zzz+");
    let bad = fx.err(&GrepTool, json!({"pattern": "fn (main"})).await;
    assert!(bad.starts_with("invalid regex:"), "{bad}");
    assert!(bad.contains("unclosed group"), "{bad}");
    let missing = fx
        .err(&GrepTool, json!({"pattern": "x", "path": "nope"}))
        .await;
    assert_eq!(missing, "not found: nope");
}

#[tokio::test]
async fn grep_caps_at_200_keeping_the_first_by_path_and_line() {
    let fx = Fixture::new();
    // Many files so several walker threads each see some; 600 matches in all.
    for f in 0..60 {
        let text: String = (0..10).map(|i| format!("match {i}\nother\n")).collect();
        fx.write(&format!("d{}/f{f:02}.txt", f % 4), text);
    }
    let out = fx.ok(&GrepTool, json!({"pattern": "^match"})).await;
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 201);
    let mut expected: Vec<String> = (0..60).map(|f| format!("d{}/f{f:02}.txt", f % 4)).collect();
    expected.sort();
    let expected: Vec<String> = expected
        .iter()
        .flat_map(|path| (0..10).map(move |i| format!("{path}:{}:match {i}", 2 * i + 1)))
        .take(200)
        .collect();
    assert_eq!(lines[..200], expected[..]);
    assert_eq!(
        lines[200],
        "[... 400 more matches not shown; 600 matching lines in 60 files]"
    );
}

#[tokio::test]
async fn grep_cuts_long_lines_at_300_characters() {
    let fx = Fixture::new();
    fx.write("min.js", format!("var a = \"{}\";\n", "q".repeat(5000)));
    let out = fx.ok(&GrepTool, json!({"pattern": "var a"})).await;
    let text = out.strip_prefix("min.js:1:").unwrap();
    assert!(text.ends_with(" [...]"), "{text}");
    assert_eq!(text.chars().count(), 300 + " [...]".len());
}

#[tokio::test]
async fn glob_can_ignore_case() {
    let fx = project();
    fx.write("src/Main.java", "class Main {}\n");
    let exact = fx.ok(&GlobTool, json!({"pattern": "**/*main*"})).await;
    assert_eq!(exact, "src/main.rs");
    let any_case = fx
        .ok(
            &GlobTool,
            json!({"pattern": "**/*{main,helper}*", "case_insensitive": true}),
        )
        .await;
    assert_eq!(any_case, "src/Main.java\nsrc/main.rs\nsrc/util/helper.rs");
}

#[tokio::test]
async fn grep_count_mode_lists_every_file_most_matches_first() {
    let fx = project();
    fx.write("src/many.rs", "main\nmain\nmain\n");
    let counts = fx
        .ok(
            &GrepTool,
            json!({"pattern": "(?i)main", "output_mode": "count"}),
        )
        .await;
    assert_eq!(
        counts,
        "src/many.rs:3\nREADME.md:1\nsrc/main.rs:1\nsrc/util/helper.rs:1"
    );
    let bad = fx
        .err(&GrepTool, json!({"pattern": "x", "output_mode": "files"}))
        .await;
    assert!(bad.contains("output_mode"), "{bad}");
}

#[tokio::test]
async fn grep_count_mode_caps_the_files_listed_but_counts_them_all() {
    let fx = Fixture::new();
    for i in 0..250 {
        fx.write(&format!("f{i:03}.txt"), "needle\n");
    }
    fx.write("z_most.txt", "needle\nneedle\n");
    let out = fx
        .ok(
            &GrepTool,
            json!({"pattern": "needle", "output_mode": "count"}),
        )
        .await;
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "z_most.txt:2", "the most matches come first");
    assert_eq!(lines.len(), 201);
    assert_eq!(
        lines[200],
        "[... 51 more files not shown; 252 matching lines in 251 files]"
    );
}

#[tokio::test]
async fn grep_identifiers_match_on_identifier_boundaries_in_any_case() {
    let fx = Fixture::new();
    fx.write(
        "a.py",
        "def runMain():\n    pass\nDOMAINS = 1\nremaining = 2\nif __name__ == \"__main__\":\n",
    );
    fx.write("b.rs", "fn main_loop() {}\nfn parse_line() {}\n");
    let out = fx
        .ok(
            &GrepTool,
            json!({"pattern": "main|pars*", "identifiers": true, "case_insensitive": true}),
        )
        .await;
    assert_eq!(
        out,
        "a.py:1:def runMain():\na.py:5:if __name__ == \"__main__\":\nb.rs:1:fn main_loop() {}\nb.rs:2:fn parse_line() {}"
    );
    let bad = fx
        .err(
            &GrepTool,
            json!({"pattern": "fn\\s+main", "identifiers": true}),
        )
        .await;
    assert!(bad.contains("is not a word"), "{bad}");
}

#[tokio::test]
async fn grep_definitions_lists_only_lines_that_define_the_words() {
    let fx = Fixture::new();
    fx.write(
        "src/config.rs",
        "pub struct Config {}\nfn load_config() -> Config {\n    let config = Config {};\n    config\n}\n",
    );
    fx.write(
        "app.js",
        "// config lives here\nexport function loadConfig() {}\nloadConfig();\n",
    );
    let out = fx
        .ok(&GrepTool, json!({"pattern": "config", "definitions": true}))
        .await;
    assert_eq!(
        out,
        "app.js:2:export function loadConfig() {}\nsrc/config.rs:1:pub struct Config {}\nsrc/config.rs:2:fn load_config() -> Config {"
    );
}
