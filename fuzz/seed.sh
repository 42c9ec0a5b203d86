#!/usr/bin/env bash
# Builds each target's seed corpus in fuzz/corpus/TARGET from the project's
# own test data: the SSE recordings, Claude Code, Codex and MyCodeAgent
# samples, a brood trace made by the scripted model, the policy's command
# tables, Markdown from the README, and the tests' own tool inputs, agent
# files and settings. Re-runnable; it only adds files (named by their
# content's hash).
set -euo pipefail
cd "$(dirname "$0")/.."
C=fuzz/corpus
mkdir -p "$C"/{sse_anthropic,sse_openai,trace_reader,classify_command,markdown,import_claude}
mkdir -p "$C"/{import_codex,import_mycodeagent,tool_input,agent_file,settings}

seed() {
  local target=$1; shift
  local name
  name=$(printf '%s' "$*" | sha1sum | cut -c1-16)
  printf '%s' "$*" >"$C/$target/$name"
}
# Two files as one input: the first, NUL, the second.
pair_seed() {
  local target=$1 first=$2 second=$3
  local name
  name=$({ cat "$first"; printf '\0'; cat "$second"; } | sha1sum | cut -c1-16)
  { cat "$first"; printf '\0'; cat "$second"; } >"$C/$target/$name"
}
# Text with backslash escapes (`\n`, `\xe9`) written out; with two, the
# first, NUL, the second.
escaped_seed() {
  local target=$1 first=$2 second=${3-}
  local name
  name=$({ printf '%b' "$first"; [ $# -lt 3 ] || { printf '\0'; printf '%b' "$second"; }; } | sha1sum | cut -c1-16)
  { printf '%b' "$first"; [ $# -lt 3 ] || { printf '\0'; printf '%b' "$second"; }; } >"$C/$target/$name"
}
# The string literals of Rust files that start with $1 (a grep pattern),
# one a line, still escaped; `\` line continuations joined.
rust_strings() {
  local start=$1; shift
  for f in "$@"; do sed ':a;/\\$/{N;s/\\\n[[:space:]]*//;ta}' "$f"; done |
    grep -o "\"$start\\([^\"\\\\]\\|\\\\.\\)*\"" | sed 's/^"//; s/"$//; s/\\"/"/g' || true
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

# Codex rollouts: the session, NUL, a sub-agent's rollout (the first child
# of the session that spawns two, or no child).
codex=tests/data/import/codex/sessions/2026/02
for f in $(find tests/data/import/codex -name 'rollout-*.jsonl'); do
  pair_seed import_codex "$f" "$codex/11/rollout-2026-02-11T23-50-30-019c4d11-0b2c-7d3e-9f40-5a6b7c8d9e01.jsonl"
  pair_seed import_codex "$f" /dev/null
done
pair_seed import_codex "$codex/11/rollout-2026-02-11T23-50-12-019c4d10-2a3b-7e4f-8a1b-3c5d7e9f0a12.jsonl" \
  "$codex/12/rollout-2026-02-12T00-01-05-019c4d13-6e7f-7a80-b1c2-d3e4f5a6b7c8.jsonl"

# MyCodeAgent: a trace or a transcript, NUL, its child's.
mca=tests/data/import/mycodeagent
pair_seed import_mycodeagent "$mca/trace-s-20260103-201533-a3f2.jsonl" "$mca/trace-s-20260103-201536-c1d2.jsonl"
pair_seed import_mycodeagent "$mca/shop/memory/traces/trace-s-20260714-101500-7a3c.jsonl" \
  "$mca/shop/memory/traces/trace-s-20260714-101504-b4e1.jsonl"
pair_seed import_mycodeagent "$mca/shop/memory/transcripts/transcript-s-20260714-101500-7a3c.jsonl" \
  "$mca/shop/memory/transcripts/transcript-subagent-s-20260714-101504-b4e1.jsonl"
for f in $(find "$mca" -name '*.jsonl'); do pair_seed import_mycodeagent "$f" /dev/null; done

# Tool inputs: the registry's and the tools' tests' own, and arguments as
# models send them (empty, null, encoded twice, cut off).
grep -ho 'json!(\({[^()]*}\|\[[^()]*\]\))' src/tools/tests/*.rs | sed 's/^json!(//; s/)$//' | sort -u |
  while IFS= read -r input; do seed tool_input "$input"; done
for input in '' 'null' '"{\"command\": \"ls\"}"' '{"path": "a.rs", "offset": 3.0, "limit": 1e3}' \
  '{"pattern": "fn main", "output_mode": "count"' '{"path": "a", "old_text": null, "new_text": ""}'; do
  seed tool_input "$input"
done

# Agent files: the tests' Markdown and TOML ones.
for start in '---\\n' 'name = \\"'; do
  rust_strings "$start" src/config/agent_files/*.rs tests/cli_agent_files.rs |
    while IFS= read -r text; do escaped_seed agent_file "$text"; done
done

# Settings: the tests' .claude/settings.json files, alone or, after a NUL,
# with the tests' brood.toml tables.
settings=(
  '{"permissions": {"allow": ["Bash(npm run test:*)"], "ask": ["Bash(npm run build)"], "deny": ["Bash(git push:*)"]}}'
  '{"permissions": {"allow": ["Bash"], "deny": ["Bash(curl:*)"]}}'
  '{"permissions": {"deny": ["Read(./secrets/**)", "Read(./.env)"]}}'
  '{"permissions": {"deny": ["Bash(rm:*)"],}'
  '{"hooks": {"SubagentStop": [{"hooks": [{"type": "command", "command": "exit 2"}]}]}}'
  '{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true", "timeout": 30}]}]}, "model": "opus"}'
)
for json in "${settings[@]}"; do seed settings "$json"; done
rust_strings '\[' src/config/mod.rs tests/cli_hooks.rs tests/cli_permission_rules.rs |
  while IFS= read -r text; do escaped_seed settings '{}' "$text"; done
escaped_seed settings "${settings[0]}" '[sandbox]\nmode = "off"\nnetwork = true\nwritable = ["/"]\n
[permissions]\nallow = ["Bash(cargo test:*)"]\ndeny = ["Bash(git push)", "Edit(./.git/**)"]\n'

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
