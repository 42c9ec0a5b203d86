//! What the importer reads of a Claude Code line, and nothing more: each
//! line is read into these types ([`super::super::lax`]), borrowing its text
//! where it can, and the rest of it (a `toolUseResult`'s copy of a whole
//! file, thinking and its signature, file-history backups, the per-line
//! version and branch) is scanned past without being built.

use std::borrow::Cow;
use std::fmt;

use serde::de::value::{MapAccessDeserializer, SeqAccessDeserializer};
use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;

use super::super::lax::{
    Count, Flag, Items, List, Obj, Raw, Stamp, Text, fields, object, others_are, strings_are,
};
use crate::event::{ToolInput, Usage};

fields! {
    /// One line of a session file or a subagent transcript.
    pub(super) struct Line<'a> {
        "type" => kind: Text<'a>,
        "uuid" => uuid: Text<'a>,
        "parentUuid" => parent_uuid: Text<'a>,
        /// A compaction boundary hangs from this instead of `parentUuid`.
        "logicalParentUuid" => logical_parent_uuid: Text<'a>,
        "timestamp" => timestamp: Stamp<'a>,
        "sessionId" => session_id: Text<'a>,
        "cwd" => cwd: Text<'a>,
        "agentId" => agent_id: Text<'a>,
        "isSidechain" => is_sidechain: Flag,
        "isMeta" => is_meta: Flag,
        "isCompactSummary" => is_compact_summary: Flag,
        "isApiErrorMessage" => is_api_error: Flag,
        "message" => message: Obj<Message<'a>>,
        /// What a tool's result says beyond its block; of a `Task`, the child.
        "toolUseResult" => tool_use_result: Obj<TaskOutcome<'a>>,
        /// A `system` line's text.
        "content" => content: Text<'a>,
        "subtype" => subtype: Text<'a>,
        "compactMetadata" => compact: Obj<Compaction<'a>>,
        /// A `progress` line's payload.
        "data" => data: Obj<Progress<'a>>,
        "parentToolUseID" => parent_tool_use_id: Text<'a>,
    }
}

fields! {
    pub(super) struct Message<'a> {
        "id" => id: Text<'a>,
        "model" => model: Text<'a>,
        "content" => content: Content<'a>,
        "usage" => usage: Obj<Counts<'a>>,
        "stop_reason" => stop_reason: Text<'a>,
    }
}

fields! {
    /// One content block of a message.
    pub(super) struct Block<'a> {
        "type" => kind: Text<'a>,
        "text" => text: Text<'a>,
        "id" => id: Text<'a>,
        "name" => name: Text<'a>,
        /// A `tool_use` block's input, kept as its text: the call event
        /// carries it.
        "input" => input: Option<Args<'a>>,
        "tool_use_id" => tool_use_id: Text<'a>,
        /// A `tool_result` block's content: the result event carries its text.
        "content" => content: ResultContent<'a>,
        "is_error" => is_error: Flag,
        "agentId" => agent_id: Text<'a>,
    }
}

fields! {
    /// A message's `usage`.
    pub(super) struct Counts<'a> {
        "input_tokens" => input: Count,
        "output_tokens" => output: Count,
        "cache_read_input_tokens" => cache_read: Count,
        "cache_creation_input_tokens" => cache_write: Count,
    }
}

fields! {
    /// The `toolUseResult` of a line: of a `Task` call, what tells of its child.
    pub(super) struct TaskOutcome<'a> {
        "agentId" => agent_id: Text<'a>,
        "status" => status: Text<'a>,
        "isAsync" => is_async: Flag,
        "totalDurationMs" => duration_ms: Count,
        "usage" => usage: Obj<Counts<'a>>,
    }
}

fields! {
    /// A compaction boundary's `compactMetadata`.
    pub(super) struct Compaction<'a> {
        "trigger" => trigger: Text<'a>,
        "preTokens" => pre_tokens: Count,
    }
}

fields! {
    /// A `progress` line's `data`; of an `agent_progress` line, one message
    /// of a child, or the child's history so far.
    pub(super) struct Progress<'a> {
        "type" => kind: Text<'a>,
        "agentId" => agent_id: Text<'a>,
        "message" => message: Obj<Box<Line<'a>>>,
        "normalizedMessages" => history: List<Line<'a>>,
    }
}

impl<'a> Line<'a> {
    /// Reads one line's text; an error when it is no JSON object.
    pub fn parse(text: &'a [u8]) -> serde_json::Result<Line<'a>> {
        object(text)
    }

    /// The line's type, `(no type)` when it has none.
    pub fn kind(&self) -> &str {
        self.kind.get().unwrap_or("(no type)")
    }

    pub fn content(&self) -> &Content<'a> {
        self.message
            .get()
            .map_or(&Content::None, |message| &message.content)
    }
}

impl Block<'_> {
    /// The block's type; a block without one is text, as the import reads it.
    pub fn kind(&self) -> &str {
        self.kind.get().unwrap_or("text")
    }
}

impl Counts<'_> {
    pub fn usage(&self) -> Usage {
        Usage {
            input_tokens: self.input.0.unwrap_or(0),
            output_tokens: self.output.0.unwrap_or(0),
            cache_read_tokens: self.cache_read.0.unwrap_or(0),
            cache_write_tokens: self.cache_write.0.unwrap_or(0),
            reasoning_tokens: 0,
            estimated: false,
        }
    }
}

/// A `usage` object's counts; `None` when the line carries none (it then
/// changes nothing).
pub(super) fn usage_of(usage: &Obj<Counts<'_>>) -> Option<Usage> {
    usage.get().map(Counts::usage)
}

/// A call's arguments as their text. Nested deeper than brood could read
/// back (`ToolInput::MAX_DEPTH`), they make the line a bad line, as they
/// always did when the line was read whole.
#[derive(Debug, Clone, Copy)]
pub(super) struct Args<'a>(pub &'a RawValue);

impl<'de> Deserialize<'de> for Args<'de> {
    fn deserialize<D: Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        let Raw(raw) = Raw::deserialize(de)?;
        match ToolInput::fits(raw.get()) {
            true => Ok(Args(raw)),
            false => Err(de::Error::custom(
                "recursion limit exceeded in a tool call's input",
            )),
        }
    }
}

/// A `tool_result` block's content: text (most of a session's bytes, so
/// borrowed from the line when it has no escapes, and copied once, into the
/// event), or anything else (blocks of text and images), built whole.
#[derive(Debug, Default)]
pub(super) enum ResultContent<'a> {
    #[default]
    None,
    Text(Cow<'a, str>),
    Other(Value),
}

impl<'de> Deserialize<'de> for ResultContent<'de> {
    fn deserialize<D: Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        de.deserialize_any(ResultContentVisitor)
    }
}

struct ResultContentVisitor;

impl<'de> Visitor<'de> for ResultContentVisitor {
    type Value = ResultContent<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    strings_are!(ResultContent::Text);

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<ResultContent<'de>, A::Error> {
        Value::deserialize(SeqAccessDeserializer::new(seq)).map(ResultContent::Other)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<ResultContent<'de>, A::Error> {
        Value::deserialize(MapAccessDeserializer::new(map)).map(ResultContent::Other)
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<ResultContent<'de>, E> {
        Ok(ResultContent::Other(Value::Bool(v)))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<ResultContent<'de>, E> {
        Ok(ResultContent::Other(Value::from(v)))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<ResultContent<'de>, E> {
        Ok(ResultContent::Other(Value::from(v)))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<ResultContent<'de>, E> {
        Ok(ResultContent::Other(Value::from(v)))
    }

    fn visit_unit<E: de::Error>(self) -> Result<ResultContent<'de>, E> {
        Ok(ResultContent::None)
    }

    fn visit_none<E: de::Error>(self) -> Result<ResultContent<'de>, E> {
        Ok(ResultContent::None)
    }
}

/// A message's `content`: a plain string, or a list of blocks.
#[derive(Debug, Default)]
pub(super) enum Content<'a> {
    #[default]
    None,
    Text(Cow<'a, str>),
    Blocks {
        blocks: Vec<Block<'a>>,
        /// Elements of the list that were not objects.
        others: usize,
    },
}

impl<'a> Content<'a> {
    /// The content as blocks; a plain string is one text block.
    pub fn blocks(&self) -> Vec<BlockRef<'_, 'a>> {
        match self {
            Content::None => Vec::new(),
            Content::Text(text) => vec![BlockRef::Text(text)],
            Content::Blocks { blocks, .. } => blocks.iter().map(BlockRef::Block).collect(),
        }
    }
}

/// One block of [`Content::blocks`].
#[derive(Debug, Clone, Copy)]
pub(super) enum BlockRef<'r, 'a> {
    /// The whole content was this text.
    Text(&'r str),
    Block(&'r Block<'a>),
}

impl BlockRef<'_, '_> {
    pub fn kind(&self) -> &str {
        match self {
            BlockRef::Text(_) => "text",
            BlockRef::Block(block) => block.kind(),
        }
    }

    pub fn text(&self) -> Option<&str> {
        match self {
            BlockRef::Text(text) => Some(text),
            BlockRef::Block(block) => block.text.get(),
        }
    }

    pub fn block(&self) -> Option<&Block<'_>> {
        match self {
            BlockRef::Text(_) => None,
            BlockRef::Block(block) => Some(block),
        }
    }
}

impl<'de> Deserialize<'de> for Content<'de> {
    fn deserialize<D: Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        de.deserialize_any(ContentVisitor)
    }
}

/// A string is text; a list is blocks; anything else is no content.
struct ContentVisitor;

impl<'de> Visitor<'de> for ContentVisitor {
    type Value = Content<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    strings_are!(Content::Text);

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Content<'de>, A::Error> {
        let items = Items::deserialize(SeqAccessDeserializer::new(seq))?;
        Ok(Content::Blocks {
            blocks: items.objects,
            others: items.others,
        })
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Content<'de>, A::Error> {
        IgnoredAny::deserialize(MapAccessDeserializer::new(map)).map(|_| Content::None)
    }

    others_are!(Content::None);
}

#[cfg(test)]
#[path = "wire_tests.rs"]
mod tests;
