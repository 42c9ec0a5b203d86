//! `brood agents` and `brood mcp`: what the user's setup configures, listed.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use brood::config::load_setup;
use brood::tools::ToolRegistry;

/// `brood mcp`: starts the configured servers, lists them, stops them.
pub(crate) fn mcp(cwd: Option<PathBuf>, json: bool) -> anyhow::Result<ExitCode> {
    let workspace = match cwd {
        Some(dir) => dir,
        None => std::env::current_dir().context("cannot read the current folder")?,
    };
    let config = load_setup(&workspace, &ToolRegistry::base().available())?;
    for note in &config.mcp.notes {
        eprintln!("brood: {}", brood::text::visible(note));
    }
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    let status = runtime.block_on(async {
        brood::mcp::McpHub::start(config.mcp.servers.clone(), None)
            .await
            .status()
    });
    let mut out = std::io::stdout().lock();
    match json {
        true => {
            for server in &status {
                writeln!(out, "{}", brood::mcp::status_json(server))?;
            }
        }
        false => write!(out, "{}", brood::mcp::render_status(&status))?,
    }
    Ok(ExitCode::SUCCESS)
}

/// `brood agents`: every profile, with the file it came from.
pub(crate) fn agents(cwd: Option<PathBuf>, json: bool) -> anyhow::Result<ExitCode> {
    let workspace = match cwd {
        Some(dir) => dir,
        None => std::env::current_dir().context("cannot read the current folder")?,
    };
    let config = load_setup(&workspace, &ToolRegistry::base().available())?;
    let mut out = std::io::stdout().lock();
    if json {
        for profile in &config.profiles {
            let line = brood::config::profile_json(profile, config.sources.get(&profile.name));
            writeln!(out, "{line}")?;
        }
        for skipped in &config.skipped_agents {
            writeln!(out, "{}", serde_json::json!({ "left_out": skipped }))?;
        }
    } else {
        let home = std::env::var_os("HOME").map(PathBuf::from);
        write!(
            out,
            "{}",
            brood::config::render_profiles(&config, home.as_deref())
        )?;
    }
    Ok(ExitCode::SUCCESS)
}
