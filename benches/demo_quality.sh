#!/usr/bin/env bash
# Runs the offline demo headless on each folder given and prints, per part of
# the question, the summary and the top evidence, so a person can judge whether
# the driver found what an engineer would.
#
#   bash benches/demo_quality.sh DIR...                 # the built-in question
#   QUESTION="where are tokens refreshed?" bash benches/demo_quality.sh DIR...
#
# Uses target/release/brood when it exists (BROOD_BIN overrides), else builds
# the debug binary. Writes nothing but brood's own (disabled) trace: --no-trace.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BIN=${BROOD_BIN:-}
if [ -z "$BIN" ]; then
  if [ -x "$REPO/target/release/brood" ]; then
    BIN="$REPO/target/release/brood"
  else
    (cd "$REPO" && cargo build --quiet)
    BIN="$REPO/target/debug/brood"
  fi
fi
[ $# -gt 0 ] || { echo "usage: $0 DIR..." >&2; exit 2; }
TOP=${TOP:-3}

for dir in "$@"; do
  [ -d "$dir" ] || { echo "demo_quality: not a folder: $dir" >&2; exit 2; }
  echo "== $dir"
  args=(demo --headless --speed 1000 --no-trace --cwd "$dir")
  [ -n "${QUESTION:-}" ] && args+=("$QUESTION")
  start=$(date +%s%N)
  out=$("$BIN" "${args[@]}" 2>&1) || { echo "$out" | tail -5; echo "   (brood failed)"; continue; }
  ms=$(( ($(date +%s%N) - start) / 1000000 ))
  # The final answer: everything after its first line; each part is a
  # `### heading`, a summary line, then `- \`path:line\`` evidence lines.
  printf '%s\n' "$out" |
    awk -v top="$TOP" '
      /^Offline demo driver \(no LLM\): this answer/ { answer = 1; next }
      !answer { next }
      /^### / { sub(/^### /, ""); printf "  %s\n", $0; part = 1; shown = 0; next }
      part == 1 && NF { printf "    %s\n", $0; part = 2; next }
      /^- `/ && shown < top { gsub(/^- `|`$/, ""); printf "      %d. %s\n", ++shown, $0 }
      /^tokens:/ { printf "  %s\n", $0 }'
  echo "  (${ms} ms)"
done
