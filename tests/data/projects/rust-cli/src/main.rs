//! logjam: summarise access logs.

mod cli;
mod config;
mod error;
mod parse;
mod summary;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let args = cli::Args::parse();
    match cli::run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("logjam: {err}");
            ExitCode::from(1)
        }
    }
}
