#!/usr/bin/env bash
# Builds each target's seed corpus in fuzz/corpus/TARGET from the project's
# own test data: the SSE recordings, Claude Code samples, a brood trace made
# by the scripted model, the policy's command tables, Markdown from the
# README. Re-runnable; it only adds files (named by their content's hash).
set -euo pipefail
cd "$(dirname "$0")/.."
C=fuzz/corpus
mkdir -p "$C"/{sse_anthropic,sse_openai,trace_reader,classify_command,markdown,import_claude}

seed() {
  local target=$1; shift
  local name
  name=$(printf '%s' "$*" | sha1sum | cut -c1-16)
  printf '%s' "$*" >"$C/$target/$name"
}
file_seed() {
  local target=$1 file=$2 prefix=${3:-}
  local name
  name=$({ printf '%s' "$prefix"; cat "$file"; } | sha1sum | cut -c1-16)
  { printf '%s' "$prefix"; cat "$file"; } >"$C/$target/$name"
}

# SSE: the first byte is the chunk size less one ('?' = 64 bytes).
for f in tests/data/anthropic/*.sse; do file_seed sse_anthropic "$f" '?'; file_seed sse_anthropic "$f" $'\x00'; done
for f in tests/data/openai/*.sse; do file_seed sse_openai "$f" '?'; file_seed sse_openai "$f" $'\x02'; done

# Claude Code sessions: the session file, NUL, a subagent transcript.
agent=$(find tests/data/import/claude -path '*subagents/agent-*.jsonl' | head -1)
for f in $(find tests/data/import/claude -maxdepth 2 -name '*.jsonl' ! -name 'agent-*'); do
  name=$({ cat "$f"; printf '\0'; cat "$agent"; } | sha1sum | cut -c1-16)
  { cat "$f"; printf '\0'; cat "$agent"; } >"$C/import_claude/$name"
done

# A brood trace with two children, made by the scripted model.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/script.json" <<'JSON'
{"agents": {
  "main": [
    {"text": "Two looks.", "tool_calls": [
      {"name": "task", "input": {"prompt": "find main", "description": "find main", "subagent_type": "general"}},
      {"name": "glob", "input": {"pattern": "*"}}]},
    {"text": "Done: **main** is in `a.rs`."}
  ],
  "sub-1": [{"text": "Looking.", "tool_calls": [{"name": "grep", "input": {"pattern": "fn main"}}]}, {"text": "a.rs:1"}]
}}
JSON
mkdir -p "$work/ws" && printf 'fn main() {}\n' >"$work/ws/a.rs"
[ -x "${BROOD:-target/debug/brood}" ] || cargo build -q
"${BROOD:-target/debug/brood}" run --provider scripted --script "$work/script.json" --cwd "$work/ws" \
  --trace "$work/trace.jsonl" "where is main?" >/dev/null 2>&1 || true
[ -s "$work/trace.jsonl" ] && file_seed trace_reader "$work/trace.jsonl"

# Commands from the policy's own tables, one seed each.
grep -ho '("[^"]*", \(Allow\|Ask\|Deny\))' src/policy/*_tests.rs |
  sed -E 's/^\("(.*)", (Allow|Ask|Deny)\)$/\1/' | head -400 |
  while IFS= read -r command; do seed classify_command "$(printf '%b' "$command")"; done ||
  true # head closes the pipe early, on purpose

# Markdown: the README in pieces; the first byte is the width.
split -l 40 README.md "$work/md."
for f in "$work"/md.*; do file_seed markdown "$f" 'P'; done

for t in "$C"/*/; do printf '%s: %s seeds\n' "$(basename "$t")" "$(find "$t" -type f | wc -l)"; done
