//! Scripted model.
