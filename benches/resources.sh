#!/usr/bin/env bash
# brood's memory and idle CPU, measured on the real binary:
#
#   replay  replaying a 100 MB trace peaks under 2x the file's size: `brood replay
#           --print` and `--print --json` (peak RSS at exit), and the workbench
#           `brood replay FILE` under tmux played at x64 (six `+` presses) until
#           the end or REPLAY_SECONDS, then `G` (jump to the end, every event
#           applied); VmHWM from /proc/PID/status while it runs.
#   demo    a DEMO_SECONDS (default 600) offline demo at --speed 1 in a generated
#           project, 140x42, with DEMO_QUESTIONS (default 3) more multi-part
#           questions typed into the composer each time brood goes idle, so that
#           at least 8 children run: VmRSS sampled every DEMO_SAMPLE seconds and
#           VmHWM at the end stay under 150 MB.
#   idle    the workbench open and untouched for IDLE_SECONDS (default 10) after
#           `brood demo --speed 1000` has finished uses under 1 % of a core
#           (utime+stime from /proc/PID/stat).
#
# Usage: benches/resources.sh [idle] [replay] [demo]     (default: all three)
# Environment: BROOD_BENCH_DIR (default /tmp/brood-bench), BROOD_BIN, TRACE_MB
# (default 100), REPLAY_SECONDS (default 120), DEMO_SECONDS, DEMO_QUESTIONS,
# DEMO_SAMPLE (default 2), IDLE_SECONDS.
#
# Installs tmux and time with apt-get when missing. tmux runs on its own socket,
# so sessions of other people are never touched.
set -euo pipefail

# shellcheck source=benches/tools/common.sh
. "$(dirname "$0")/tools/common.sh"

TRACE="$WORK/trace.jsonl"
PROJECT="$WORK/project"
ROWS="$WORK/resources.tsv"
SOCK="brood-bench-$$"
TUI_COLS=140 TUI_ROWS=42
CLK_TCK=$(getconf CLK_TCK)

tm() { tmux -L "$SOCK" "$@"; }

# Our tmux server is ours alone; stop it (and the brood it runs) on any exit.
cleanup() { tm kill-server 2>/dev/null || true; }
trap cleanup EXIT

# start_tui NAME DIR COMMAND...: runs COMMAND in a new detached 140x42 session
# and prints its pid (the pane runs it with exec, so the pane's pid is brood's).
start_tui() {
  local name=$1 dir=$2; shift 2
  local cmd
  cmd=$(printf '%q ' "$@")
  tm new-session -d -s "$name" -x "$TUI_COLS" -y "$TUI_ROWS" -c "$dir" "exec $cmd"
  tm set-option -t "$name" remain-on-exit off >/dev/null
  tm display -p -t "$name" '#{pane_pid}'
}

screen() { tm capture-pane -p -t "$1" 2>/dev/null || true; }

# A field of /proc/PID/status in kB. A process that is gone (crashed, killed
# by the OOM killer) ends the run: a 0 must never pass for a small peak.
status_kb() {
  local kb
  kb=$(awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status" 2>/dev/null) || true
  [ -n "$kb" ] || die "brood (pid $1) exited before it was measured"
  echo "$kb"
}

# utime+stime of PID in clock ticks; fields counted after the ")" that ends
# the command name, which may itself hold spaces.
cpu_ticks() { sed 's/^.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'; }

# wait_for NAME REGEX SECONDS: waits until the screen of NAME matches REGEX.
wait_for() {
  local name=$1 regex=$2 limit=$3 waited=0
  until screen "$name" | grep -Eq "$regex"; do
    sleep 0.5
    waited=$((waited + 1))
    [ "$waited" -lt $((limit * 2)) ] || return 1
  done
}

row() { printf '%s\t%s\t%s\t%s\n' "$@" >>"$ROWS"; }
verdict() { if [ "$1" -eq 1 ]; then echo PASS; else echo MISS; fi; }

# (c) Idle CPU: the finished demo's workbench left alone.
measure_idle() {
  local secs=${IDLE_SECONDS:-10} pid t0 t1 pct
  log "idle: brood demo --speed 1000, then ${secs} s untouched"
  local trace="$WORK/idle-trace.jsonl" waited=0
  rm -f "$trace"
  pid=$(start_tui idle "$PROJECT" "$BIN" demo --speed 1000 --trace "$trace")
  # Finished means the parent's turn_end is in the trace (the screen can say
  # idle for a moment before the demo's question starts) and the screen is idle.
  until grep -q '"agent":"main","type":"turn_end"' "$trace" 2>/dev/null; do
    sleep 0.5
    waited=$((waited + 1))
    [ "$waited" -lt 240 ] || die "idle: the demo did not finish within 120 s"
  done
  wait_for idle ' idle · ' 30 || die "idle: the screen does not say idle"
  sleep 2 # let the last frame and the spinner's end settle
  t0=$(cpu_ticks "$pid")
  sleep "$secs"
  t1=$(cpu_ticks "$pid")
  tm kill-session -t idle
  pct=$(awk -v d=$((t1 - t0)) -v hz="$CLK_TCK" -v s="$secs" 'BEGIN { printf "%.2f", d / hz / s * 100 }')
  row "workbench idle ${secs} s after a finished demo: CPU" \
    "${pct} % of a core ($((t1 - t0)) ticks of 1/${CLK_TCK} s)" "< 1 %" \
    "$(verdict "$(awk -v p="$pct" 'BEGIN { print (p < 1) }')")"
}

# (a) Replaying the large trace: printed, and in the workbench.
measure_replay() {
  local size_kb limit pid name=replay secs=${REPLAY_SECONDS:-120}
  size_kb=$(( $(stat -c %s "$TRACE") / 1024 ))
  limit=$((2 * size_kb))
  local goal kb
  goal="< $(mb "$limit") (2x $(size_mb "$TRACE"))"
  for args in "--print" "--print --json"; do
    # shellcheck disable=SC2086 # $args is two words on purpose
    kb=$(peak_rss "$BIN" replay $args "$TRACE")
    row "replay $args of the $(size_mb "$TRACE") trace: peak RSS" "$(mb "$kb")" "$goal" \
      "$(verdict $((kb < limit)))"
  done

  log "replay: the workbench at x64 for up to ${secs} s, then G"
  pid=$(start_tui "$name" "$WORK" "$BIN" replay "$TRACE")
  wait_for "$name" 'event [0-9]+ of [0-9]+' 30 || die "replay: no replay bar on the screen"
  # x1 -> x64: six steps up the player's speed list.
  tm send-keys -t "$name" + + + + + +
  local start=$SECONDS at_end="" hwm=0
  while [ $((SECONDS - start)) -lt "$secs" ]; do
    sleep 1
    hwm=$(status_kb "$pid" VmHWM)
    # "event 150797 of 150797" once everything is loaded and played.
    if screen "$name" | grep -Eq 'event ([0-9]+) of \1 ' && ! screen "$name" | grep -q loading; then
      at_end=$((SECONDS - start))
      break
    fi
  done
  local played
  if [ -n "$at_end" ]; then played="reached the end after ${at_end} s"; else played="${secs} s, not at the end"; fi
  row "workbench replay at x64 ($played): VmHWM" "$(mb "$hwm")" "$goal" "$(verdict $((hwm < limit)))"
  tm send-keys -t "$name" G
  sleep 5
  screen "$name" | grep -Eq 'event ([0-9]+) of \1 ' || log "replay: G did not show the last event within 5 s"
  hwm=$(status_kb "$pid" VmHWM)
  row "workbench replay after G (every event applied): VmHWM" "$(mb "$hwm")" "$goal" "$(verdict $((hwm < limit)))"
  tm send-keys -t "$name" q
  sleep 1
  tm kill-session -t "$name" 2>/dev/null || true
}

# (b) The long demo with follow-up questions.
QUESTIONS=(
  "Where are tokens refreshed, how is the session cache invalidated, and where are request payloads parsed?"
  "Which handlers retry on error, where is the config loaded, and how does the walker skip ignored files?"
  "Where is the trace written, how are budgets enforced for each child, and where does the policy decide?"
  "Where is the glob matched, how does grep report a match, and where are subagent summaries built?"
  "Where does the stream parse events, how are workspace paths checked, and where is the answer rendered?"
)

measure_demo() {
  local secs=${DEMO_SECONDS:-600} sample=${DEMO_SAMPLE:-2} more=${DEMO_QUESTIONS:-3}
  local name=demo trace="$WORK/demo-trace.jsonl" samples="$WORK/demo-rss.tsv"
  rm -f "$trace"
  log "demo: ${secs} s at --speed 1 in $PROJECT, ${more} more questions; RSS every ${sample} s in $samples"
  local pid
  pid=$(start_tui "$name" "$PROJECT" "$BIN" demo --speed 1 --trace "$trace")
  local start=$SECONDS asked=0 peak=0 rss answered
  printf 'seconds\tVmRSS_kB\n' >"$samples"
  while [ $((SECONDS - start)) -lt "$secs" ]; do
    [ -d "/proc/$pid" ] || die "demo: brood exited early: $(screen "$name" | tail -3)"
    rss=$(status_kb "$pid" VmRSS)
    printf '%s\t%s\n' $((SECONDS - start)) "$rss" >>"$samples"
    [ "$rss" -le "$peak" ] || peak=$rss
    # The next question once every question so far has its answer (the
    # parent's turn_end is in the trace) and the screen shows brood idle, like
    # a person reading the answer and asking more.
    answered=$(grep -c '"agent":"main","type":"turn_end"' "$trace" 2>/dev/null || true)
    if [ "$asked" -lt "$more" ] && [ "$answered" -ge $((asked + 1)) ] && screen "$name" | grep -q ' idle · '; then
      tm send-keys -t "$name" -l "${QUESTIONS[asked % ${#QUESTIONS[@]}]}"
      tm send-keys -t "$name" Enter
      asked=$((asked + 1))
      log "demo: question $((asked + 1)) at $((SECONDS - start)) s"
    fi
    sleep "$sample"
  done
  local hwm children
  hwm=$(status_kb "$pid" VmHWM)
  children=$(grep -c '"type":"subagent_start"' "$trace" || true)
  screen "$name" >"$WORK/demo-screen.txt"
  tm kill-session -t "$name"
  row "demo ${secs} s, $((asked + 1)) questions, ${children} children: peak sampled VmRSS" "$(mb "$peak")" "< 150 MB" \
    "$(verdict $((peak < 150 * 1024)))"
  row "demo ${secs} s: VmHWM at the end" "$(mb "$hwm")" "< 150 MB" "$(verdict $((hwm < 150 * 1024)))"
  row "demo: children run over the session" "$children" ">= 8" "$(verdict $((children >= 8)))"
}

main() {
  local parts=("$@")
  [ ${#parts[@]} -gt 0 ] || parts=(idle replay demo)
  ensure_apt tmux:tmux /usr/bin/time:time python3:python3
  build_brood
  # A small project for the demos to explore (a few thousand files, a small
  # ignored target/), and the large trace compare.sh uses too.
  generate "$PROJECT" tree "$PROJECT" --files 3000 --ignored 300 --seed 11
  case " ${parts[*]} " in
    *" replay "*) generate "$TRACE" trace "$TRACE" --mb "${TRACE_MB:-100}" --children 50 ;;
  esac

  printf 'measure\tfigure\ttarget\tresult\n' >"$ROWS"
  local part
  for part in "${parts[@]}"; do
    case $part in
      idle) measure_idle ;;
      replay) measure_replay ;;
      demo) measure_demo ;;
      *) die "unknown part $part (idle, replay, demo)" ;;
    esac
  done

  machine >"$WORK/resources-machine.md"
  echo
  cat "$WORK/resources-machine.md"
  echo
  python3 "$TOOLS/table.py" "$ROWS" --md "$WORK/resources.md" --title "brood resources" \
    --preamble "$WORK/resources-machine.md"
  echo
  log "Markdown table: $WORK/resources.md"
}

main "$@"
