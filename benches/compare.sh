#!/usr/bin/env bash
# brood against the tools people would otherwise use, on generated inputs:
#
#   brood tool grep            vs  rg -n             (many matches, few matches)   brood <= 1.5x rg
#   brood tool glob            vs  fdfind --glob                                   brood <= 1.5x fd
#   brood replay --print       vs  claude-code-log -f md  (a Claude Code session)  brood >= 50x faster
#   brood replay --print --json vs jq -c .            (a 100 MB brood trace)       brood <= 2x jq
#
# Times are hyperfine medians (warmups, then BENCH_RUNS runs, JSON exports kept in
# $WORK/hyperfine/); peak memory is `/usr/bin/time -v`'s maximum resident set size
# of one more run of each command. Prints one table and writes it, with the
# machine's description, to $WORK/results.md.
#
# Usage: benches/compare.sh
# Environment:
#   BROOD_BENCH_DIR  work folder for inputs and results (default /tmp/brood-bench)
#   BROOD_BIN        a brood binary to use instead of building target/release/brood
#   BENCH_RUNS       measured runs per command (default 30, at least 5: a
#                    replay of 16 ms on a shared 2-core machine has a slow
#                    mode, and the median of 10 runs falls on either side)
#   BENCH_WARMUP     warmup runs per command (default 2)
#   TREE_FILES       files in the generated source tree (default 55000)
#   TRACE_MB         size of the generated brood trace (default 100)
#   CLAUDE_MB        size of the generated Claude Code session, main file and
#                    subagents together (default 36: a 21 MB main file)
#   RG, FD           the ripgrep and fd binaries (default: Debian's rg, fdfind)
#   RG_LATEST=1      build the current ripgrep from crates.io into $WORK/cargo
#                    (cargo install, a few minutes) and compare against it:
#                    Debian's rg 13 walks a tree more slowly than the ignore
#                    crate brood links, which flatters brood's grep ratio
#
# Installs what it lacks: ripgrep, fd-find, jq, hyperfine and time with apt-get,
# claude-code-log from PyPI into $WORK/venv.
set -euo pipefail

# shellcheck source=benches/tools/common.sh
. "$(dirname "$0")/tools/common.sh"

RUNS=${BENCH_RUNS:-30}
WARMUP=${BENCH_WARMUP:-2}
[ "$RUNS" -ge 5 ] || die "BENCH_RUNS must be at least 5"

TREE="$WORK/tree"
TRACE="$WORK/trace.jsonl"
CLAUDE_DIR="$WORK/claude"
SESSION="$CLAUDE_DIR/-home-dev-shop/5e55a0b1-c0de-4bee-8a11-000000000001.jsonl"
CCL="$WORK/venv/bin/claude-code-log"
RG=${RG:-rg}
FD=${FD:-fdfind}
OUT="$WORK/out"
ROWS="$WORK/compare.tsv"

install_peers() {
  ensure_apt rg:ripgrep fdfind:fd-find jq:jq hyperfine:hyperfine /usr/bin/time:time python3:python3
  if [ "${RG_LATEST:-0}" = 1 ]; then
    if [ ! -x "$WORK/cargo/bin/rg" ]; then
      log "building the current ripgrep from crates.io into $WORK/cargo"
      CARGO_TARGET_DIR="$WORK/cargo-target" cargo install -q ripgrep --locked --root "$WORK/cargo"
      rm -rf "$WORK/cargo-target"
    fi
    RG="$WORK/cargo/bin/rg"
  fi
  if [ ! -x "$CCL" ]; then
    log "installing claude-code-log into $WORK/venv (pip)"
    python3 -m venv "$WORK/venv" || die "python3 -m venv failed (Debian: apt-get install python3-venv)"
    "$WORK/venv/bin/pip" install -q claude-code-log
  fi
}

generate_inputs() {
  generate "$TREE" tree "$TREE" --files "${TREE_FILES:-55000}"
  generate "$TRACE" trace "$TRACE" --mb "${TRACE_MB:-100}" --children 50
  generate "$CLAUDE_DIR" claude "$CLAUDE_DIR" --mb "${CLAUDE_MB:-36}" --children 40
  mkdir -p "$OUT" "$WORK/hyperfine"
}

# Checks that each pair does the same work before timing it, so a fast wrong
# answer cannot pass: same match and file counts, identical JSON lines, and a
# session that both tools read with its subagents.
check_same_work() {
  local pattern brood_total peer_total
  for pattern in "$GREP_MANY" "$GREP_FEW"; do
    brood_total=$(grep_total "$pattern")
    peer_total=$("$RG" -n "$pattern" "$TREE" | wc -l)
    [ "$brood_total" = "$peer_total" ] ||
      die "grep $pattern: brood counts $brood_total matching lines, rg prints $peer_total"
    log "grep $pattern: $brood_total matching lines in both"
  done
  brood_total=$("$BIN" tool glob "{\"pattern\":\"$GLOB_BROOD\"}" --cwd "$TREE" | count_listing)
  peer_total=$("$FD" --glob "$GLOB_FD" --base-directory "$TREE" | wc -l)
  [ "$brood_total" = "$peer_total" ] || die "glob: brood finds $brood_total files, fd $peer_total"
  log "glob: $brood_total files in both"
  cmp -s <("$BIN" replay --print --json "$TRACE") <(tail -n +2 "$TRACE") ||
    die "replay --json output is not the trace's event lines"
  log "replay --json: output equals the trace's event lines"
  local notes
  notes=$("$BIN" replay --print "$SESSION" 2>&1 >/dev/null | grep -c -v '^brood: not shown:' || true)
  [ "$notes" -eq 0 ] || die "brood replay reported problems with the Claude session: $("$BIN" replay --print "$SESSION" 2>&1 >/dev/null | head -3)"
  local children
  children=$("$BIN" replay --print --json "$SESSION" 2>/dev/null | grep -c '"type":"subagent_start"')
  log "claude session: brood reads $children subagents"
  "$CCL" "$SESSION" -f md -o "$OUT/ccl.md" --no-cache >"$OUT/ccl.log" 2>&1 ||
    die "claude-code-log failed on the session: $(tail -3 "$OUT/ccl.log")"
  log "claude session: claude-code-log loaded $(grep -c 'Loading agent file' "$OUT/ccl.log" || true) agent files," \
    "wrote $(du -h "$OUT/ccl.md" | cut -f1) of Markdown"
}

# brood grep's total: the marker line says "N matching lines" when capped,
# otherwise every line printed is a match.
grep_total() {
  local out
  out=$("$BIN" tool grep "{\"pattern\":\"$1\"}" --cwd "$TREE")
  if [[ $out =~ ([0-9]+)\ matching\ lines ]]; then
    echo "${BASH_REMATCH[1]}"
  else
    printf '%s\n' "$out" | grep -c ':'
  fi
}

# brood glob's total: listed paths plus the "N more" of the marker line.
count_listing() {
  awk '/^\[\.\.\. [0-9]+ more/ { more = $2; next } NF { n++ } END { print n + more }'
}

q() { printf '%q' "$1"; }

# compare NAME TARGET_OP TARGET BROOD_CMD PEER_CMD
# Times both shell commands with hyperfine, measures their peak RSS and appends
# a row. TARGET_OP "le": ratio brood/peer must be <= TARGET; "faster": brood
# must be at least TARGET times faster (ratio <= 1/TARGET).
compare() {
  local name=$1 op=$2 target=$3 brood_cmd=$4 peer_cmd=$5
  local json
  json="$WORK/hyperfine/$(printf '%s' "$name" | tr -c 'a-zA-Z0-9' '_').json"
  log "timing: $name"
  # Without a shell (-N): the commands are plain words, and hyperfine's
  # estimate of a shell's start-up, taken off every run, is noise as large as
  # a replay of 16 ms itself.
  hyperfine -N --style basic --warmup "$WARMUP" --runs "$RUNS" --export-json "$json" \
    -n brood "$brood_cmd" -n peer "$peer_cmd" >&2
  local b p brss prss
  b=$(jq '.results[0].median' "$json")
  p=$(jq '.results[1].median' "$json")
  brss=$(peak_rss bash -c "$brood_cmd")
  prss=$(peak_rss bash -c "$peer_cmd")
  awk -v name="$name" -v b="$b" -v p="$p" -v op="$op" -v t="$target" \
      -v brss="$(mb "$brss")" -v prss="$(mb "$prss")" 'BEGIN {
    r = b / p
    if (op == "le") { goal = sprintf("<= %gx", t); ok = r <= t }
    else { goal = sprintf(">= %gx faster (<= %.2fx)", t, 1 / t); ok = r <= 1 / t }
    f = "%.3f s"; if (b < 1 && p < 1) f = "%.0f ms"
    bs = (f == "%.0f ms") ? sprintf(f, b * 1000) : sprintf(f, b)
    ps = (f == "%.0f ms") ? sprintf(f, p * 1000) : sprintf(f, p)
    printf "%s\t%s\t%s\t%.2fx\t%s\t%s\t%s\t%s\n", name, bs, ps, r, goal, ok ? "PASS" : "MISS", brss, prss
  }' >>"$ROWS"
}

main() {
  install_peers
  build_brood
  generate_inputs

  # Patterns: a common word (about 575k matching lines in 43k files) and a rare
  # marker planted in 37 files; both plain regexes rg and brood (grep-regex,
  # the same engine) handle alike.
  GREP_MANY=error
  GREP_FEW='XYZZY_NEEDLE_[0-9]+'
  GLOB_BROOD='**/*.rs' GLOB_FD='*.rs'
  check_same_work

  # Warm the page cache so every tool reads from memory alike.
  cat "$TRACE" "$SESSION" >/dev/null
  tar -cf - -C "$TREE" . 2>/dev/null | cat >/dev/null

  printf 'comparison\tbrood median\tpeer median\tratio (brood/peer)\ttarget\tresult\tbrood peak RSS\tpeer peak RSS\n' >"$ROWS"
  local tree bin
  tree=$(q "$TREE") bin=$(q "$BIN")
  compare "grep '$GREP_MANY' vs rg -n (many matches)" le 1.5 \
    "$bin tool grep $(q "{\"pattern\":\"$GREP_MANY\"}") --cwd $tree" \
    "$(q "$RG") -n $(q "$GREP_MANY") $tree"
  compare "grep '$GREP_FEW' vs rg -n (few matches)" le 1.5 \
    "$bin tool grep $(q "{\"pattern\":\"$GREP_FEW\"}") --cwd $tree" \
    "$(q "$RG") -n $(q "$GREP_FEW") $tree"
  compare "glob '$GLOB_BROOD' vs fdfind --glob '$GLOB_FD'" le 1.5 \
    "$bin tool glob $(q "{\"pattern\":\"$GLOB_BROOD\"}") --cwd $tree" \
    "$(q "$FD") --glob $(q "$GLOB_FD") --base-directory $tree"
  compare "replay --print Claude session ($(size_mb "$CLAUDE_DIR")) vs claude-code-log -f md" faster 50 \
    "$bin replay --print $(q "$SESSION")" \
    "$(q "$CCL") $(q "$SESSION") -f md -o $(q "$OUT/ccl.md") --no-cache"
  compare "replay --print --json trace ($(size_mb "$TRACE")) vs jq -c ." le 2 \
    "$bin replay --print --json $(q "$TRACE")" \
    "jq -c . $(q "$TRACE")"

  {
    machine
    echo "- peers: $("$RG" --version | head -1) ($(command -v "$RG")), $("$FD" --version), jq $(jq --version), $(hyperfine --version), claude-code-log $("$CCL" --version 2>/dev/null | awk '{print $NF}')"
    local all ignored agents
    all=$(find "$TREE" -type f -not -path '*/.git/*' | wc -l)
    ignored=$(find "$TREE/target" "$TREE/build.log" -type f | wc -l)
    agents=$(find "$CLAUDE_DIR" -name 'agent-*.jsonl' | wc -l)
    echo "- tree: $all files, $(size_mb "$TREE"), of which $ignored files, $(size_mb "$TREE/target") are .gitignored; made by \`gen_inputs.py $(cut -d' ' -f2- "$TREE.stamp")\`"
    echo "- brood trace: $(size_mb "$TRACE"); Claude Code session: main file $(size_mb "$SESSION"), $(size_mb "$CLAUDE_DIR") with its $agents subagent files"
    echo "- hyperfine: $WARMUP warmups, $RUNS runs, medians; output to /dev/null (claude-code-log writes its .md file); peak RSS by /usr/bin/time -v"
  } >"$WORK/machine.md"

  echo
  cat "$WORK/machine.md"
  echo
  python3 "$TOOLS/table.py" "$ROWS" --md "$WORK/results.md" --title "brood vs peers" --preamble "$WORK/machine.md"
  echo
  log "Markdown table: $WORK/results.md; hyperfine JSON: $WORK/hyperfine/"
}

main "$@"
