//! End-to-end tests of the binary: main, config and errors.

use std::process::Command;

fn logjam() -> Command {
    Command::new(env!("CARGO_BIN_EXE_logjam"))
}

#[test]
fn main_prints_a_summary() {
    let out = logjam().arg("tests/data/access.log").output().unwrap();
    assert!(out.status.success());
}

#[test]
fn main_exits_with_an_error_for_a_missing_log() {
    let out = logjam().arg("missing.log").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("error") || err.contains("cannot read"));
}

#[test]
fn config_error_names_the_config_file() {
    let out = logjam()
        .args(["--config", "tests/data/bad_config.toml", "tests/data/access.log"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad_config.toml"), "config error: {err}");
}

#[test]
fn config_from_env_is_loaded() {
    let out = logjam()
        .env("LOGJAM_CONFIG", "tests/data/top3_config.toml")
        .arg("tests/data/access.log")
        .output()
        .unwrap();
    assert!(out.status.success(), "config error");
}
