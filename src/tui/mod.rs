//! The full-screen workbench: a pure reducer over events, pure views into a
//! ratatui buffer, and the render task that connects them to the terminal.

pub mod app;
pub mod available;
mod child_keys;
mod clipboard;
mod commands;
pub mod diff;
mod export;
pub mod highlight;
pub mod keymap;
pub mod keys;
pub mod markdown;
pub mod picker;
pub mod replay;
pub mod selection;
pub mod slash;
pub mod state;
pub mod terminal;
pub mod theme;
pub mod ui;
pub mod view;
pub mod viewer;
