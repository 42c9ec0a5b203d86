//! What the user tells an agent while it runs (`m` on a child in the
//! workbench): kept until the agent's next model call, then read after the
//! results it was waiting on, in the order it was sent.

use std::sync::Mutex;

use crate::model::{ContentBlock, Message, Role};

/// Messages waiting for an agent's next model call.
#[derive(Debug, Default)]
pub struct Inbox(Mutex<Vec<String>>);

impl Inbox {
    pub fn push(&self, text: String) {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).push(text);
    }

    /// Everything waiting, oldest first; the inbox is left empty.
    pub fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

/// Adds what the user said to the end of `messages` as the model reads it:
/// beside the tool results it waited for when the last message holds them
/// (a request must not carry two user turns in a row), else as a user turn of
/// its own. The loop and a resumed session's rebuild both go through here, so
/// both send the same bytes.
pub fn append_steer(messages: &mut Vec<Message>, text: &str) {
    let block = ContentBlock::Text {
        text: format!("The user sent you this while you were working:\n{text}"),
    };
    match messages.last_mut() {
        Some(Message {
            role: Role::User,
            content,
        }) => content.push(block),
        Some(_) | None => messages.push(Message {
            role: Role::User,
            content: vec![block],
        }),
    }
}
