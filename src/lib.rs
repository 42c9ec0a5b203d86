//! brood: a terminal workbench for LLM coding agents that delegate to subagents.
//! See `DESIGN.md` in the shared folder for the architecture.

pub mod agent;
pub mod config;
pub mod event;
pub mod headless;
pub mod huge_pages;
pub mod ident;
pub mod mcp;
pub mod model;
pub mod policy;
pub mod printer;
pub mod protocol;
pub mod replay;
pub mod sandbox;
pub mod session;
pub mod signals;
pub mod telemetry;
pub mod text;
pub mod tool_cli;
pub mod tools;
pub mod trace;
pub mod tui;
pub mod workspace;
