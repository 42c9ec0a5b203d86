# shellcheck shell=bash
# Helpers shared by benches/compare.sh and benches/resources.sh. Sourced, not run.
#
# Every generated input and every result lives under $WORK (outside the repo):
#   ${BROOD_BENCH_DIR:-/tmp/brood-bench}

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
TOOLS="$REPO/benches/tools"
WORK=${BROOD_BENCH_DIR:-/tmp/brood-bench}
BIN=${BROOD_BIN:-$REPO/target/release/brood}
mkdir -p "$WORK"

log() { printf 'bench: %s\n' "$*" >&2; }
die() { printf 'bench: %s\n' "$*" >&2; exit 1; }

# Installs the Debian packages named as "command:package" pairs whose command is
# missing. One apt-get update, only when something is missing.
ensure_apt() {
  local pair cmd pkg missing=()
  for pair in "$@"; do
    cmd=${pair%%:*} pkg=${pair#*:}
    command -v "$cmd" >/dev/null 2>&1 || [ -x "$cmd" ] || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  log "installing ${missing[*]} (apt-get)"
  local sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
}

# Builds the release binary once, unless BROOD_BIN points at one already, and
# runs a copy of it: target/ may be shared, and a rebuild by someone else in
# the middle of a run must not mix two versions in one table. Other people may
# also hold the cargo lock: cargo waits for it.
build_brood() {
  local built=$BIN
  if [ -n "${BROOD_BIN:-}" ]; then
    [ -x "$BIN" ] || die "BROOD_BIN=$BIN is not an executable"
  else
    log "cargo build --release (may wait for the cargo lock)"
    (cd "$REPO" && cargo build --release --quiet)
  fi
  mkdir -p "$WORK/bin"
  cp "$built" "$WORK/bin/brood.new" && mv "$WORK/bin/brood.new" "$WORK/bin/brood"
  BIN="$WORK/bin/brood"
  BUILT_FROM="$built, $(cd "$REPO" && git rev-parse --short HEAD 2>/dev/null || echo '?')$(cd "$REPO" && git diff --quiet HEAD -- src Cargo.toml Cargo.lock 2>/dev/null || echo ' + uncommitted changes in src/')"
}

# Runs gen_inputs.py with "$@" unless the same generator, with the same
# arguments, already made $target (a stamp file records both). Generation is
# deterministic, so a matching stamp means identical bytes.
generate() {
  local target=$1; shift
  local stamp="$target.stamp" want
  want="$(sha256sum "$TOOLS/gen_inputs.py" | cut -c1-16) $*"
  if [ -e "$target" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    log "reusing $target"
    return
  fi
  rm -f "$stamp"
  python3 "$TOOLS/gen_inputs.py" "$@" >&2
  printf '%s\n' "$want" >"$stamp"
}

# Peak RSS in kB from a `/usr/bin/time -v` report. The kernel's ru_maxrss that
# it prints is the same high-water mark as /proc/PID/status VmHWM, read at exit.
rss_kb() { awk -F: '/Maximum resident set size/ {gsub(/ /, "", $2); print $2}' "$1"; }

# Peak RSS of one run of "$@" (stdout to /dev/null), in kB.
peak_rss() {
  local report
  report=$(mktemp "$WORK/time.XXXXXX")
  /usr/bin/time -v -o "$report" "$@" >/dev/null 2>&1 || { rm -f "$report"; die "failed: $*"; }
  rss_kb "$report"
  rm -f "$report"
}

# "100 MB" (10^6 bytes): the size of a file, or of the files in a folder.
# Files only: a folder's own entries would add tens of MB for a deep tree.
size_mb() { find "$1" -type f -printf '%s\n' | awk '{ s += $1 } END { printf "%.0f MB", s / 1e6 }'; }

# "123 MB" (10^6 bytes) from kB (KiB, as /proc and time -v count).
mb() { awk -v k="$1" 'BEGIN { printf "%.0f MB", k * 1024 / 1e6 }'; }

# One line per fact about the machine, as Markdown list items.
machine() {
  local cpu mem
  cpu=$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)
  mem=$(awk '/^MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)
  echo "- machine: $(nproc) cores ($cpu), $mem RAM, Linux $(uname -r)"
  echo "- load average at start: $(cut -d' ' -f1-3 /proc/loadavg) (other work on the machine adds noise)"
  echo "- brood: ${BUILT_FROM:-$BIN} (copied to $BIN for the run)"
}
