#!/usr/bin/env bash
# Screenshots of the real brood binary in a real terminal, for the README.
#
#   screenshots/make.sh            # re-runnable; rewrites screenshots/*.png
#
# brood runs inside a detached tmux session of a fixed size, in a scratch HOME
# with a fresh copy of this repository; `tmux capture-pane -e` takes the screen with its
# colours at the right moments and screenshots/ansi_to_png.py draws each capture
# as a PNG. Everything comes from Debian packages (tmux, python3-pil,
# fonts-dejavu-core, fonts-dejavu-extra), installed here when missing.
#
# Environment: BROOD=path/to/brood skips `cargo build`; FONT_SIZE (default 30,
# i.e. 2x, so the text stays crisp when GitHub scales the picture down);
# WAIT_SECS (default 120) bounds every wait; KEEP_WORK=1 keeps the scratch folder.
set -euo pipefail
export LC_ALL=C.UTF-8 # grep and sed below match braille and box-drawing characters

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$HERE")
COLS=140
ROWS=42
FONT_SIZE=${FONT_SIZE:-30}
WAIT_SECS=${WAIT_SECS:-120}
PY=/usr/bin/python3 # Debian's python: the one python3-pil is installed for
FONT=/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf
SPINNER='[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]' # brood's spinner frames (src/tui/ui.rs)

die() {
	echo "make.sh: $*" >&2
	exit 1
}

# --- 1. Tools: install what is missing, with one apt-get update. -------------
missing=()
command -v tmux >/dev/null || missing+=(tmux)
{ [ -x "$PY" ] && "$PY" -c 'import PIL' 2>/dev/null; } || missing+=(python3 python3-pil)
[ -f "$FONT" ] || missing+=(fonts-dejavu-core)
[ -f "${FONT%.ttf}-Oblique.ttf" ] || missing+=(fonts-dejavu-extra) # italics (markdown emphasis)
if ((${#missing[@]})); then
	sudo=()
	[ "$(id -u)" -eq 0 ] || sudo=(sudo)
	echo "installing ${missing[*]}"
	"${sudo[@]}" apt-get update -qq || die "apt-get update failed"
	DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "${missing[@]}" ||
		die "apt-get install ${missing[*]} failed"
fi

# --- 2. brood: a debug build is enough for pictures and shares target/. -------
if [ -z "${BROOD:-}" ]; then
	echo "building brood (cargo build)"
	(cd "$ROOT" && cargo build --quiet) || die "cargo build failed"
	BROOD=$ROOT/target/debug/brood
fi
[ -x "$BROOD" ] || die "no brood binary at $BROOD"

# --- 3. A scratch HOME holding a small sample project. -----------------------
WORK=$(mktemp -d "${TMPDIR:-/tmp}/brood-shots.XXXXXX")
SOCK=brood-shots-$$ # a tmux server of our own: the user's sessions are untouched
cleanup() {
	tmux -L "$SOCK" kill-server 2>/dev/null || true
	if [ -n "${KEEP_WORK:-}" ]; then echo "kept $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
HOME_DIR=$WORK/home
PROJECT=$HOME_DIR/brood # shown as ~/brood in the title bar
mkdir -p "$PROJECT"

# The demo runs on what a newcomer runs it on: a fresh copy of this repository
# (its last commit, without target/ or anything uncommitted).
git -C "$ROOT" archive --format=tar HEAD | tar -x -C "$PROJECT" ||
	die "could not copy the repository (git archive HEAD)"

# The scripted model for the approval scene: the parent delegates to a general
# child, which looks at build/ and then asks to delete it.
cat >"$WORK/approval.json" <<'EOF'
{"agents": {
  "main": [
    {"text": "I'll hand the cleanup to a general subagent.", "tool_calls": [{"name": "task", "input": {
      "prompt": "Delete the build output in build/ and say what was removed.",
      "description": "clean the build output", "subagent_type": "general"}}]},
    {"text": "The cleanup was declined, so `build/` is still there."}
  ],
  "sub-1": [
    {"text": "Let me see what is in build/ first.", "tool_calls": [{"name": "bash", "input": {"command": "ls -l build"}}]},
    {"text": "Removing the build output.", "tool_calls": [{"name": "bash", "input": {"command": "rm -rf build/"}}]},
    {"text": "The user declined `rm -rf build/`; nothing was removed."}
  ]
}}
EOF

# --- 4. Driving brood in tmux. ------------------------------------------------
cat >"$WORK/tmux.conf" <<'EOF'
set -g status off
# A brood that exits early leaves its last screen (and error) to capture.
set -g remain-on-exit on
EOF

# start ARGS...: brood ARGS in a fresh session, in the sample project, with a
# clean environment (no API keys, the scratch HOME for config, traces and logs).
# A shell around brood prints its exit status on the pane when it ends (tmux's
# own #{pane_dead_status} is not reliable here).
start() {
	tmux -L "$SOCK" kill-server 2>/dev/null || true
	tmux -L "$SOCK" -u -f "$WORK/tmux.conf" new-session -d -s shot -x "$COLS" -y "$ROWS" -c "$PROJECT" \
		env -i PATH=/usr/bin:/bin HOME="$HOME_DIR" XDG_CONFIG_HOME="$HOME_DIR/.config" \
		XDG_DATA_HOME="$HOME_DIR/.local/share" XDG_CACHE_HOME="$HOME_DIR/.cache" \
		TERM=xterm-256color LANG=C.UTF-8 \
		sh -c '"$@"; printf "\nbrood exited with status %s\n" "$?"' sh "$BROOD" "$@"
	local size
	size=$(tmux -L "$SOCK" display-message -p -t shot '#{pane_width}x#{pane_height}')
	[ "$size" = "${COLS}x${ROWS}" ] || die "tmux pane is $size, expected ${COLS}x${ROWS}"
}
keys() { tmux -L "$SOCK" send-keys -t shot "$@"; }
dead() { [ "$(tmux -L "$SOCK" display-message -p -t shot '#{pane_dead}')" = 1 ]; }

# SCREEN (with colours) and PLAIN (without) hold the latest capture.
snap() {
	SCREEN=$(tmux -L "$SOCK" capture-pane -e -p -t shot)
	# shellcheck disable=SC2001 # a regex, which ${var//…} cannot express
	PLAIN=$(sed 's/\x1b\[[0-9;:]*m//g' <<<"$SCREEN")
}

# wait_for WHAT TEST: polls the screen until the function TEST accepts it twice,
# 0.15 s apart (ratatui writes a frame in pieces; the second look makes a
# half-drawn frame unlikely). Times out with the last screen shown.
wait_for() {
	local what=$1 test=$2 deadline=$((SECONDS + WAIT_SECS)) ended
	while :; do
		ended=0
		dead && ended=1 # checked before the capture, so that capture is the final screen
		snap
		if "$test"; then
			sleep 0.15
			snap
			"$test" && return 0
		fi
		if ((ended)); then
			printf '%s\n' "$PLAIN" >&2
			die "brood exited while waiting for $what (its last screen is above)"
		fi
		if ((SECONDS >= deadline)); then
			printf '%s\n' "$PLAIN" >&2
			die "timed out after ${WAIT_SECS}s waiting for $what (the last screen is above)"
		fi
		sleep 0.1
	done
}

count() { grep -o -- "$1" <<<"$PLAIN" | wc -l; }
# Two or more children with a spinner in the Subagents list, and the live pane
# showing at least three of their tool calls.
children_running() { (($(count "$SPINNER sub-[0-9]") >= 2 && $(count '\[sub-[0-9]*\]') >= 3)); }
# The status bar (last line) says idle: the turn has ended.
idle() { tail -n 1 <<<"$PLAIN" | grep -qE ' idle( |$)'; }
composer_ready() { grep -q 'ask brood' <<<"$PLAIN" && idle; }
help_open() { grep -q ' Keys ' <<<"$PLAIN" && grep -q 'Anywhere' <<<"$PLAIN"; }
help_closed() { ! grep -q ' Keys ' <<<"$PLAIN"; }
approval_open() { grep -q 'approval needed' <<<"$PLAIN" && grep -q 'allow' <<<"$PLAIN"; }
declined() { idle && grep -q 'still there' <<<"$PLAIN"; }
exited() { grep -q 'brood exited with status' <<<"$PLAIN"; }
child_running() { grep -q "$SPINNER sub-1" <<<"$PLAIN"; }
aimed() { grep -q '> message to sub-1' <<<"$PLAIN"; }
message_typed() { grep -q 'focus on u32 overflow' <<<"$PLAIN"; }
diff_shown() { grep -q '@@ ' <<<"$PLAIN" && grep -q 'item.quantity' <<<"$PLAIN"; }

WROTE=()
# shot NAME: the latest capture as screenshots/NAME.png.
shot() {
	printf '%s\n' "$SCREEN" >"$WORK/$1.ans"
	"$PY" "$HERE/ansi_to_png.py" --cols "$COLS" --rows "$ROWS" --size "$FONT_SIZE" \
		"$WORK/$1.ans" "$WORK/$1.png" || die "could not render $1.png"
	mv "$WORK/$1.png" "$HERE/$1.png"
	WROTE+=("$HERE/$1.png")
}

# quit: Ctrl-D on the empty composer, then check brood exited cleanly.
quit() {
	keys C-d
	wait_for "brood to quit" exited
	grep -q 'brood exited with status 0' <<<"$PLAIN" || {
		printf '%s\n' "$PLAIN" >&2
		die "brood did not exit cleanly (its last output is above)"
	}
}

# --- 5. The scenes. -----------------------------------------------------------
echo "demo: children running, the answer, the help overlay"
# --speed 0.3 slows the offline driver so the children are caught mid-run.
start demo --speed 0.3
wait_for "two running children in the demo" children_running
shot demo-children-running
wait_for "the demo to finish" idle
shot demo-done
keys '?'
wait_for "the help overlay" help_open
shot help
keys Escape
wait_for "the help overlay to close" help_closed
quit

echo "scripted run: the approval dialog"
# Build output for the approval scene to (not) delete; binary, so no search
# lists it.
mkdir -p "$PROJECT/build"
head -c 4096 /dev/urandom >"$PROJECT/build/brood-0.1.0.tar.gz"
cp "$PROJECT/build/brood-0.1.0.tar.gz" "$PROJECT/build/brood-0.1.0.crate"
start --provider scripted --script "$WORK/approval.json"
wait_for "the empty workbench" composer_ready
keys -l 'clean the build output'
keys Enter
wait_for "the approval dialog" approval_open
shot approval
keys n Enter # n asks why; Enter with no reason denies
wait_for "the denied run to finish" declined
quit

echo "scripted run: an edit shown as a diff, and a message to a running child"
cat >"$WORK/edits.json" <<'EOF'
{"agents": {
  "main": [
    {"text": "I'll write the cart module, then fix how it counts.", "tool_calls": [{"name": "write_file", "input": {
      "path": "src/cart.rs",
      "content": "pub struct Item {\n    pub price: u32,\n    pub quantity: u32,\n}\n\npub fn total(items: &[Item]) -> u32 {\n    let mut sum = 0;\n    for item in items {\n        sum += item.price;\n    }\n    sum\n}\n"}}]},
    {"text": "Now each item counts by its quantity.", "tool_calls": [{"name": "edit_file", "input": {
      "path": "src/cart.rs", "old_text": "        sum += item.price;\n", "new_text": "        sum += item.price * item.quantity;\n"}}]},
    {"text": "A reviewer checks the change while I wait.", "tool_calls": [{"name": "task", "input": {
      "prompt": "Review src/cart.rs for overflow.", "description": "review the cart total", "subagent_type": "general"}}]},
    {"text": "`total` now multiplies each price by its quantity; the reviewer found no overflow in practice."}
  ],
  "sub-1": [
    {"text": "Reading the cart module and the places that call it, one by one, before I judge the arithmetic.", "chunk_delay_ms": 250,
     "tool_calls": [{"name": "read_file", "input": {"path": "src/cart.rs"}}]},
    {"text": "No overflow for realistic carts; `checked_mul` would make it explicit."}
  ]
}}
EOF
start --provider scripted --script "$WORK/edits.json"
wait_for "the empty workbench" composer_ready
keys -l 'make the cart total count quantities'
keys Enter
wait_for "the reviewer to run" child_running
keys Tab Tab m
wait_for "the composer aimed at the child" aimed
keys -l 'focus on u32 overflow'
wait_for "the message typed" message_typed
shot child-message
keys Enter
wait_for "the turn to end" idle
keys Tab Up Enter
wait_for "the edit's diff" diff_shown
shot edit-diff
keys Escape i
quit

echo "demo at 80x24: the stacked layout"
COLS=80 ROWS=24
start demo --speed 0.3
wait_for "the demo to finish" idle
shot narrow-80x24
quit

printf 'wrote %s\n' "${WROTE[@]}"
