//! brood: a terminal workbench for LLM coding agents that delegate to subagents.
//! See `DESIGN.md` in the shared folder for the architecture.

pub mod agent;
pub mod event;
pub mod model;
pub mod policy;
pub mod tools;
pub mod trace;
