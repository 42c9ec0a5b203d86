//! Command-line arguments and the run of one invocation.

use std::path::PathBuf;

use clap::Parser;

use crate::config::Config;
use crate::error::Result;
use crate::{parse, summary};

/// Summarise a web server access log.
#[derive(Debug, Parser)]
pub struct Args {
    /// The access log to read.
    pub log: PathBuf,
    /// How many paths to list.
    #[arg(long)]
    pub top: Option<usize>,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Read this config file instead of the default ones.
    #[arg(long)]
    pub config: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<()> {
    let mut config = Config::load(args.config.as_deref())?;
    if let Some(top) = args.top {
        config.top = top;
    }
    let text = std::fs::read_to_string(&args.log)?;
    let entries = parse::parse_log(&text);
    let report = summary::summarise(&entries.parsed, &config);
    summary::print_summary(&report, args.json);
    if entries.skipped > 0 {
        eprintln!("logjam: skipped {} lines that did not parse", entries.skipped);
    }
    Ok(())
}
