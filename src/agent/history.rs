//! What an agent keeps about its history between requests, so a request's
//! cost does not grow with the conversation: the size estimate of the
//! messages counted so far and the tool-call ids taken. The history only
//! grows between compactions, so each message is counted once; a compaction
//! starts over.

use std::collections::HashSet;
use std::sync::Mutex;

use crate::model::{ContentBlock, Message, block_tokens};

#[derive(Debug, Default)]
pub struct HistoryCache {
    inner: Mutex<Counted>,
}

#[derive(Debug, Default)]
struct Counted {
    /// Messages counted, from the start of the history.
    len: usize,
    tokens: u64,
    ids: HashSet<String>,
}

impl HistoryCache {
    /// The estimated tokens of `messages`, counting only those added since
    /// the last look.
    pub fn tokens(&self, messages: &[Message]) -> u64 {
        let mut counted = self.lock();
        counted.catch_up(messages);
        counted.tokens
    }

    /// Gives `message`'s tool calls ids no call in `history` has (see
    /// [`Message::make_tool_ids_unique`]).
    pub fn make_ids_unique(&self, message: &mut Message, history: &[Message]) {
        let mut counted = self.lock();
        counted.catch_up(history);
        message.make_tool_ids_unique(&counted.ids);
    }

    /// A block was just pushed onto the last message of `messages` (what the
    /// user sent while the agent worked): counted now if that message was
    /// counted already, else with the rest of it at the next look.
    pub fn block_appended(&self, messages: &[Message]) {
        let mut counted = self.lock();
        if counted.len == messages.len()
            && let Some(block) = messages.last().and_then(|m| m.content.last())
        {
            counted.tokens += block_tokens(block);
        }
    }

    /// The history was replaced (compacted): count it again.
    pub fn reset(&self) {
        *self.lock() = Counted::default();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Counted> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Counted {
    fn catch_up(&mut self, messages: &[Message]) {
        // Shorter than counted: replaced behind our back; count it all.
        if messages.len() < self.len {
            *self = Counted::default();
        }
        for message in &messages[self.len..] {
            for block in &message.content {
                self.tokens += block_tokens(block);
                if let ContentBlock::ToolUse { id, .. } = block {
                    self.ids.insert(id.clone());
                }
            }
        }
        self.len = messages.len();
    }
}
