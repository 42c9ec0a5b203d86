//! Compaction: when the parent's next request would fill too much of the
//! model's window, the model summarises the conversation so far and the
//! history becomes that summary and the last turns. The summary is asked for
//! with the same system prompt and tools as every request (so the provider's
//! cache serves the prefix), with the instruction as a last user message.
//! A `compacted` event carries the summary and how many messages were kept,
//! so a resumed session rebuilds the same history ([`apply`]).

use tokio_util::sync::CancellationToken;

use super::Agent;
use crate::event::{EventKind, Usage};
use crate::model::{ContentBlock, Message, ModelError, RetryNotice, Role, StreamSink};

/// What the model is asked for.
const INSTRUCTION: &str = "Your context is nearly full, so this conversation is being compacted. \
Write a summary that will replace everything above, for you to continue from. Keep: what the user \
asked for and every decision taken (with the reasons given); the work done and its results; the \
open tasks and what to do next; every file path, function and command that matters, with line \
numbers; what each subagent found (its conclusions and evidence, not its steps); errors met and \
how they were handled. Leave out greetings and tool output that no longer matters. Do not call \
any tool: answer with the summary only.";

/// How the summary opens the new history.
const PREFIX: &str = "This conversation was compacted to fit the context window. A summary of \
the earlier turns:\n\n";

/// What starts a compaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trigger {
    /// The next request would pass the share of the window.
    Auto,
    /// The user asked (`/compact`).
    Asked,
}

impl Trigger {
    pub fn as_str(self) -> &'static str {
        match self {
            Trigger::Auto => "auto",
            Trigger::Asked => "asked",
        }
    }
}

/// The history after a compaction: the summary as a user message, then the
/// last `kept` messages.
pub fn apply(messages: &mut Vec<Message>, summary: &str, kept: usize) {
    let tail = messages.split_off(messages.len().saturating_sub(kept));
    messages.clear();
    messages.push(Message::user_text(format!("{PREFIX}{summary}")));
    messages.extend(tail);
}

/// How many of the last messages to keep: the longest tail within `budget`
/// tokens that starts where a history may go on after a user message (an
/// answer, or a prompt), so no result is parted from its call. At least the
/// last answer and its results when nothing fits; none when the history
/// has no answer.
fn tail_to_keep(messages: &[Message], budget: u64) -> usize {
    let mut size = 0;
    let mut best = None;
    for i in (0..messages.len()).rev() {
        size += message_tokens(&messages[i]);
        let starts_cleanly = match messages[i].role {
            Role::Assistant => true,
            Role::User => is_prompt(&messages[i]),
        };
        if !starts_cleanly {
            continue;
        }
        if size > budget {
            return best.unwrap_or(messages.len() - i);
        }
        best = Some(messages.len() - i);
    }
    // Everything fits: keep all but what the summary replaces, the first turn.
    best.map_or(0, |n| n.min(messages.len().saturating_sub(1)))
}

fn is_prompt(message: &Message) -> bool {
    message
        .content
        .iter()
        .all(|b| matches!(b, ContentBlock::Text { .. }))
}

fn message_tokens(message: &Message) -> u64 {
    message.content.iter().map(crate::model::block_tokens).sum()
}

/// The summary's text as it streams: kept, not shown as an answer.
#[derive(Default)]
struct Quiet;

impl StreamSink for Quiet {
    fn text_delta(&mut self, _text: &str) {}
    fn retry(&mut self, _notice: &RetryNotice) {}
}

impl Agent {
    /// Whether the next request should compact first: past the profile's
    /// threshold (by the estimate or by what the provider last counted),
    /// with enough before the kept turns to be worth a summary. A history
    /// that a summary would not shrink is sent as it is, and a child's
    /// context budget ends it instead.
    pub(super) fn needs_compaction(
        &self,
        messages: &[Message],
        estimate: u64,
        last_context: u64,
    ) -> bool {
        let Some(limit) = self.profile.compact_at else {
            return false;
        };
        if estimate.max(last_context) <= limit {
            return false;
        }
        let kept = tail_to_keep(messages, limit / 4);
        let replaced: u64 = messages[..messages.len() - kept]
            .iter()
            .map(message_tokens)
            .sum();
        replaced >= limit / 8
    }

    /// Compacts `messages` (see the module's comment); what the summary
    /// request used. The history is left as it was when it fails.
    pub async fn compact(
        &self,
        messages: &mut Vec<Message>,
        trigger: Trigger,
        cancel: &CancellationToken,
    ) -> Result<Usage, ModelError> {
        let mut request = self.request(messages);
        let before = self.estimate(&request);
        // The one copy of the history: a compaction is rare.
        request
            .messages
            .to_mut()
            .push(Message::user_text(INSTRUCTION));
        let mut quiet = Quiet;
        let response = tokio::select! {
            biased;
            _ = cancel.cancelled() => Err(ModelError::Cancelled),
            r = self.model.complete(&request, &mut quiet, cancel) => r,
        }?;
        let summary = response.message.text();
        if summary.trim().is_empty() {
            return Err(ModelError::Stream(
                "the model answered the compaction with no summary".into(),
            ));
        }
        // The last turns stay as they were: up to a quarter of the threshold
        // (what `needs_compaction` weighed), or when asked, of the history.
        let budget = match trigger {
            Trigger::Auto => self.profile.compact_at.unwrap_or(before) / 4,
            Trigger::Asked => messages.iter().map(message_tokens).sum::<u64>() / 4,
        };
        let kept = tail_to_keep(messages, budget);
        apply(messages, &summary, kept);
        self.history.reset();
        let after = self.estimate(&self.request(messages));
        self.publish(EventKind::Compacted {
            trigger: trigger.as_str().to_string(),
            before_tokens: before,
            after_tokens: after,
            kept_messages: kept,
            summary,
            usage: Box::new(response.usage),
        });
        Ok(response.usage)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn answer_with_call(id: &str) -> Message {
        Message::assistant(
            String::new(),
            vec![ContentBlock::ToolUse {
                id: id.into(),
                name: "read_file".into(),
                input: json!({"path": "a"}),
            }],
        )
    }

    fn result(id: &str, size: usize) -> Message {
        Message {
            role: Role::User,
            content: vec![ContentBlock::ToolResult {
                tool_use_id: id.into(),
                content: "x".repeat(size),
                is_error: false,
            }],
        }
    }

    #[test]
    fn the_kept_tail_never_parts_a_result_from_its_call() {
        let messages = vec![
            Message::user_text("first question"),
            answer_with_call("a"),
            result("a", 4000),
            answer_with_call("b"),
            result("b", 400),
            answer_with_call("c"),
            result("c", 400),
        ];
        // 400 characters are 100 tokens: two calls and their results fit 250.
        let kept = tail_to_keep(&messages, 250);
        assert_eq!(kept, 4);
        let mut compacted = messages.clone();
        apply(&mut compacted, "the summary", kept);
        assert_eq!(compacted.len(), 5);
        assert!(compacted[0].text().ends_with("the summary"));
        assert_eq!(compacted[1], messages[3]);
        // Nothing fits: the last call and its result still stay.
        assert_eq!(tail_to_keep(&messages, 10), 2);
        // A history that fits whole keeps all but its first prompt.
        assert_eq!(tail_to_keep(&messages, 100_000), 6);
        assert_eq!(tail_to_keep(&[Message::user_text("hi")], 100), 0);
    }
}
