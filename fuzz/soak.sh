#!/usr/bin/env bash
# Runs every fuzz target until each has had GOAL_MIN minutes of CPU time,
# round-robin in slices, with WORKERS fuzzers at once at nice 19 (so builds and
# tests at normal priority go first, and the fuzzers get what is left).
#
# Each worker takes the target with the least CPU time so far, fuzzes it for
# one slice on its corpus copy (SLICE seconds, or less when it lacks less of
# the goal), and adds the slice's CPU seconds (user + sys of the fuzzer, read
# from /proc every few seconds, so never more than it used) to the ledger.
# The ledger, corpus copies, logs and any crash live in $SOAK_DIR,
# so a run that is stopped (touch $SOAK_DIR/stop, or kill the workers) goes on
# where it left off. A target that crashes is not run again until its
# `crashed.TARGET` file is removed; its input is in $SOAK_DIR/artifacts/.
#
# Usage: bash fuzz/soak.sh            start the workers in the background
#        bash fuzz/soak.sh status     minutes, runs and coverage per target
# Environment: SOAK_DIR (default target/fuzz-soak), GOAL_MIN (60), WORKERS (2),
#              SLICE (600 s). The targets must be built: cargo +nightly fuzz build -O
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
DIR=${SOAK_DIR:-$ROOT/target/fuzz-soak}
BIN=$ROOT/fuzz/target/x86_64-unknown-linux-gnu/release
GOAL=$((${GOAL_MIN:-60} * 60))
SLICE=${SLICE:-600}
mkdir -p "$DIR"/{corpus,artifacts,logs}

targets() { (cd fuzz && cargo +nightly fuzz list); }

init() {
  touch "$DIR/ledger"
  local t
  for t in $(targets); do
    grep -q "^$t " "$DIR/ledger" || echo "$t 0" >>"$DIR/ledger"
    mkdir -p "$DIR/corpus/$t"
    cp -n "fuzz/corpus/$t/"* "$DIR/corpus/$t/" 2>/dev/null || true
  done
}

# The target with the least CPU time that no worker holds, has not crashed and
# is under the goal; empty when none is left.
pick() {
  sort -k2 -n "$DIR/ledger" | while read -r t secs; do
    [ -f "$DIR/held.$t" ] || [ -f "$DIR/crashed.$t" ] || [ "$secs" -ge "$GOAL" ] || {
      echo "$t"
      break
    }
  done
}

# One slice of `target`: SLICE seconds, or what it lacks of the goal (a
# little over, as a fuzzer starved by other work gets less CPU than wall
# time), so a target's last slice does not run on far past its hour.
slice() {
  awk -v t="$1" -v goal="$GOAL" -v max="$SLICE" \
    '$1==t { left = goal - $2 + 15; if (left < 30) left = 30; print (left < max ? left : max) }' \
    "$DIR/ledger"
}

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null; }

worker() {
  local n=$1 target log pid ticks cpu secs rc stats
  while [ ! -f "$DIR/stop" ]; do
    exec 9>"$DIR/lock"
    flock 9
    target=$(pick)
    [ -n "$target" ] && touch "$DIR/held.$target"
    flock -u 9
    [ -z "$target" ] && break
    local dict=()
    [ -f "fuzz/dict/$target.dict" ] && dict=("-dict=fuzz/dict/$target.dict")
    log="$DIR/logs/$target.$(date +%Y%m%d-%H%M%S).log"
    nice -n 19 "$BIN/$target" "$DIR/corpus/$target" -max_total_time="$(slice "$target")" -max_len=65536 \
      -rss_limit_mb=2048 -artifact_prefix="$DIR/artifacts/$target-" "${dict[@]}" >"$log" 2>&1 &
    pid=$!
    cpu=0
    while kill -0 "$pid" 2>/dev/null; do
      ticks=$(cpu_ticks "$pid") && cpu=$ticks
      sleep 5
    done
    rc=0
    wait "$pid" || rc=$?
    secs=$((${cpu%.*} / $(getconf CLK_TCK)))
    flock 9
    awk -v t="$target" -v s="$secs" '$1==t{$2=$2+s}1' "$DIR/ledger" >"$DIR/ledger.new"
    mv "$DIR/ledger.new" "$DIR/ledger"
    rm -f "$DIR/held.$target"
    flock -u 9
    stats=$(grep -aoE '^#[0-9]+.*cov: [0-9]+ ft: [0-9]+' "$log" | tail -1 || true)
    echo "$(date +%FT%T) worker $n $target rc=$rc cpu=${secs}s $stats" >>"$DIR/log"
    if [ "$rc" -ne 0 ] && [ ! -f "$DIR/stop" ]; then
      touch "$DIR/crashed.$target"
      echo "$(date +%FT%T) CRASH $target: $log" >>"$DIR/log"
    fi
  done
}

status() {
  printf '%-20s %8s %12s %7s\n' target minutes runs cov
  sort "$DIR/ledger" | while read -r t secs; do
    local runs=0 cov="" r c f
    for f in "$DIR/logs/$t".*.log; do
      [ -f "$f" ] || continue
      r=$(grep -aoE '^#[0-9]+' "$f" | tail -1 | tr -d '#' || true)
      runs=$((runs + ${r:-0}))
      c=$(grep -aoE 'cov: [0-9]+' "$f" | tail -1 | cut -d' ' -f2 || true)
      [ -n "$c" ] && cov=$c
    done
    printf '%-20s %8.1f %12s %7s%s\n' "$t" "$(awk -v s="$secs" 'BEGIN { print s / 60 }')" "$runs" "${cov:--}" \
      "$([ -f "$DIR/crashed.$t" ] && echo '  CRASHED' || true)"
  done
}

case "${1:-start}" in
  status) status ;;
  start)
    all=$(targets)
    [ -x "$BIN/${all%%$'\n'*}" ] || { echo "soak: build the targets first: cargo +nightly fuzz build -O" >&2; exit 1; }
    init
    rm -f "$DIR/stop" "$DIR"/held.*
    for n in $(seq "${WORKERS:-2}"); do
      setsid nohup "$0" worker "$n" >/dev/null 2>&1 &
    done
    echo "soak: ${WORKERS:-2} workers on $(wc -l <<<"$all") targets until each has ${GOAL_MIN:-60} CPU minutes; '$0 status' to see, 'touch $DIR/stop' to stop after the slices running"
    ;;
  worker) worker "$2" ;;
  *) echo "usage: $0 [start|status]" >&2; exit 2 ;;
esac
