#!/usr/bin/env bash
# `brood watch` follow latency and memory, side by side with `tail -F`:
#
#   latency  the time from a line's write to its event on `brood watch --json`
#            (median, p90, max of LINES lines, GAP s apart), for a brood trace of
#            TRACE_MB (default 100) and a Claude Code session of CLAUDE_MB
#            (default 36, 40 subagent files) that brood follows from their end;
#            `tail -F` on the same file gives the plain line latency. Target: a
#            median under 250 ms.
#   memory   brood's peak RSS (VmHWM) while a Claude Code session it follows
#            grows by GROW_MB (default 64): the session file from 21 to about
#            85 MB (100 MB with its subagents' files; GROW_MB=80 takes the file
#            itself to 100 MB). Target: under 2x the session file.
#            Grown twice: by whole turns (a call and its 1-8 KB result, as a
#            working session grows) and by bare calls (the most events per MB).
#
# Usage: benches/follow_latency.sh [latency] [memory]    (default: both)
# Environment: BROOD_BENCH_DIR (default /tmp/brood-bench), BROOD_BIN, LINES
# (default 30), GAP (default 0.3), TRACE_MB, CLAUDE_MB, GROW_MB.
set -euo pipefail

# shellcheck source=benches/tools/common.sh
. "$(dirname "$0")/tools/common.sh"

LINES=${LINES:-30}
GAP=${GAP:-0.3}
ROWS="$WORK/follow.tsv"

# A fresh copy of a generated input: following appends to it.
fresh() { rm -rf "$2" && cp -r "$1" "$2"; }

row() {
  # row NAME JSON
  jq -r --arg name "$1" '[$name, (.session_mb|tostring) + " MB",
    (.brood_ms.median|tostring) + " ms", (.brood_ms.p90|tostring) + " ms", (.brood_ms.max|tostring) + " ms",
    (.tail_ms.median|tostring) + " ms", (.brood_peak_mb|tostring) + " MB",
    (if .brood_ms.median != null and .brood_ms.median < 250 then "PASS" else "MISS" end)] | @tsv' <<<"$2" >>"$ROWS"
}

latency() {
  generate "$WORK/trace.jsonl" trace "$WORK/trace.jsonl" --mb "${TRACE_MB:-100}" --children 50
  generate "$WORK/claude" claude "$WORK/claude" --mb "${CLAUDE_MB:-36}" --children 40
  fresh "$WORK/trace.jsonl" "$WORK/follow-trace.jsonl"
  log "following the brood trace"
  row "brood trace" "$(python3 "$TOOLS/follow_latency.py" "$BIN" brood "$WORK/follow-trace.jsonl" --lines "$LINES" --gap "$GAP")"
  fresh "$WORK/claude" "$WORK/follow-claude"
  local session
  session=$(find "$WORK/follow-claude" -maxdepth 2 -name '*.jsonl' ! -name 'agent-*' -printf '%s %p\n' | sort -n | tail -1 | cut -d' ' -f2)
  log "following the Claude Code session $session"
  row "Claude Code session" "$(python3 "$TOOLS/follow_latency.py" "$BIN" claude "$session" --lines "$LINES" --gap "$GAP")"
}

memory() {
  generate "$WORK/claude" claude "$WORK/claude" --mb "${CLAUDE_MB:-36}" --children 40
  local filler session out
  # Whole turns grow a session as work does; bare calls are the most events
  # a megabyte can hold.
  for filler in turns calls; do
    fresh "$WORK/claude" "$WORK/grow-claude"
    session=$(find "$WORK/grow-claude" -maxdepth 2 -name '*.jsonl' ! -name 'agent-*' -printf '%s %p\n' | sort -n | tail -1 | cut -d' ' -f2)
    log "following $session while it grows by ${GROW_MB:-64} MB of $filler"
    out=$(python3 "$TOOLS/follow_latency.py" "$BIN" claude "$session" --lines 5 --gap 0.3 --grow-mb "${GROW_MB:-64}" --filler "$filler")
    row "Claude Code session, grown ($filler)" "$out"
    jq -r '"memory (\(.filler)): peak \(.brood_peak_mb) MB following a session of \(.session_mb) MB: " +
      (if .brood_peak_mb < 2 * .session_mb then "PASS (under 2x)" else "MISS (over 2x)" end)' <<<"$out" >&2
  done
}
main() {
  ensure_apt jq:jq
  build_brood
  printf 'session\tsize\tbrood median\tbrood p90\tbrood max\ttail -F median\tbrood peak RSS\tmedian < 250 ms\n' >"$ROWS"
  local modes=("$@")
  [ ${#modes[@]} -eq 0 ] && modes=(latency memory)
  for mode in "${modes[@]}"; do
    case $mode in
      latency) latency ;;
      memory) memory ;;
      *) die "unknown mode $mode (latency, memory)" ;;
    esac
  done
  column -t -s $'\t' "$ROWS"
}

main "$@"
