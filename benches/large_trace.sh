#!/usr/bin/env bash
# Large-trace benchmark for `brood replay`.
#
# Builds brood in release mode, generates a realistic ~100 MB brood trace (a
# parent that streams text and calls tools with multi-KB outputs, 50 explore
# children with their own tool calls, strictly increasing seq and t_ms), then
# measures:
#   - time to the workbench's first frame (`brood replay --exit-after-first-frame`
#     under a pseudo-terminal made by `script`), and that run's peak RSS;
#   - peak RSS of a workbench replay that jumps to the end (`G`) once loaded,
#     i.e. with every event and the full state in memory;
#   - peak RSS and time of `brood replay --print FILE >/dev/null`;
#   - peak RSS, time and throughput of `brood replay --print --json FILE`;
#   - `jq -c . FILE >/dev/null` for comparison.
# and prints each figure against its target, PASS or MISS.
#
# Usage: benches/large_trace.sh [SIZE_MB]     (default 100)
# Needs: python3, script (util-linux), /usr/bin/time (Debian `time`), jq; the
# last two are installed with apt-get when missing.
set -euo pipefail
cd "$(dirname "$0")/.."

SIZE_MB=${1:-100}
WORK=${BROOD_BENCH_DIR:-${TMPDIR:-/tmp}/brood-large-trace}
mkdir -p "$WORK"
TRACE="$WORK/large.jsonl"

need=()
[ -x /usr/bin/time ] || need+=(time)
command -v jq >/dev/null 2>&1 || need+=(jq)
command -v script >/dev/null 2>&1 || need+=(util-linux)
if [ ${#need[@]} -gt 0 ]; then
  echo "bench: installing ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq "${need[@]}" >/dev/null
fi

echo "bench: cargo build --release"
cargo build --release --quiet
BIN="$PWD/target/release/brood"

echo "bench: generating a ${SIZE_MB} MB trace in $TRACE"
python3 - "$TRACE" "$SIZE_MB" <<'PY'
import json, random, sys

path, size_mb = sys.argv[1], int(sys.argv[2])
target = size_mb * 1024 * 1024
rng = random.Random(7)
WORDS = ("the config loader reads brood toml then the environment and flags win "
         "handler token refresh session cache error retry parse request stream "
         "subagent explore evidence summary workspace policy trace event ünïcode ✓").split()
CODE = [
    "fn {n}(ctx: &Context, input: &str) -> Result<Value, Error> {{",
    "    let parsed = serde_json::from_str::<Request>(input)?;",
    "    if parsed.items.is_empty() {{ return Err(Error::Empty(\"{n}\".into())); }}",
    "    for (i, item) in parsed.items.iter().enumerate() {{",
    "        tracing::debug!(index = i, \"handling {{}}\", item.name);",
    "    }}",
    "    // refresh the token when it is older than {k} seconds",
    "    Ok(Value::Null)",
    "}}",
]
out = open(path, "w", encoding="utf-8")
written = 0
seq = 0
t = 0
call = 0

def emit(agent, kind, **fields):
    global seq, t, written
    seq += 1
    t += rng.randint(1, 40)
    ev = {"seq": seq, "t_ms": t, "agent": agent, "type": kind}
    ev.update(fields)
    line = json.dumps(ev, ensure_ascii=False, separators=(",", ":")) + "\n"
    out.write(line)
    written += len(line.encode("utf-8"))

def words(n):
    return " ".join(rng.choice(WORDS) for _ in range(n))

def stream(agent, sentences):
    text = []
    for _ in range(sentences):
        for _ in range(rng.randint(2, 5)):
            piece = words(rng.randint(2, 6)) + " "
            text.append(piece)
            emit(agent, "text_delta", text=piece)
    return "".join(text)

def code(kb):
    lines, size, n = [], 0, 0
    while size < kb * 1024:
        n += 1
        line = f"src/mod_{n % 37}.rs:{n}:" + rng.choice(CODE).format(n=f"handler_{n}", k=n % 300)
        lines.append(line)
        size += len(line) + 1
    return "\n".join(lines)

def usage(i, o):
    return {"input_tokens": i, "output_tokens": o}

def tool(agent, name, inp, kb):
    global call, t
    call += 1
    cid = f"toolu_{call:06d}"
    emit(agent, "tool_call", call_id=cid, name=name, input=inp)
    emit(agent, "permission_decision", call_id=cid, decision="allow", reason="read-only tool", by="policy")
    t += rng.randint(5, 400)
    emit(agent, "tool_result", call_id=cid, name=name, is_error=False, content=code(kb), duration_ms=rng.randint(2, 900))

def child(n):
    global call
    call += 1
    cid = f"toolu_{call:06d}"
    desc = f"part {n}: " + words(3)
    prompt = "Find where " + words(8)
    emit("main", "tool_call", call_id=cid, name="task", input={"prompt": prompt, "description": desc, "subagent_type": "explore"})
    emit("main", "permission_decision", call_id=cid, decision="allow", reason="task", by="policy")
    sub = f"sub-{n}"
    emit(sub, "subagent_start", parent="main", parent_call_id=cid, profile="explore", model="light",
         model_name="claude-haiku-4-5", description=desc, prompt=prompt, max_steps=12, token_budget=32000, context_budget=16000)
    emit(sub, "user_message", text=prompt)
    steps = rng.randint(3, 6)
    for step in range(1, steps + 1):
        emit(sub, "model_request", step=step, model="claude-haiku-4-5", messages=step * 2 - 1, tools=3)
        text = stream(sub, 1)
        emit(sub, "assistant_message", text=text, tool_calls=1, usage=usage(700 * step, 60), stop_reason="tool_use")
        name = rng.choice(["grep", "read_file", "glob"])
        tool(sub, name, {"pattern": words(1)} if name != "read_file" else {"path": f"src/mod_{step}.rs"}, rng.randint(2, 8))
    result = {"status": "completed", "summary": "Found it in " + words(6), "findings": [words(8)],
              "evidence": [f"src/mod_{n % 37}.rs:{n}"], "unresolved_questions": []}
    text = json.dumps(result)
    emit(sub, "model_request", step=steps + 1, model="claude-haiku-4-5", messages=steps * 2 + 1, tools=3)
    emit(sub, "text_delta", text=text)
    total = usage(5000 + 700 * steps, 400)
    emit(sub, "assistant_message", text=text, tool_calls=0, usage=usage(900, 120), stop_reason="end_turn")
    emit(sub, "turn_end", reason="completed", steps=steps + 1, usage=total)
    emit(sub, "subagent_end", reason="completed", summary=result["summary"], steps=steps + 1,
         tool_usage={"grep": steps}, usage=total, elapsed_ms=rng.randint(3000, 30000))
    envelope = {"status": "completed", "child_id": sub, "profile": "explore", "terminal_reason": "completed",
                "text": result["summary"], "result": result, "tool_usage": {"grep": steps},
                "tokens": total["input_tokens"] + total["output_tokens"], "steps": steps + 1,
                "model": "light", "model_name": "claude-haiku-4-5", "elapsed_ms": 4242}
    emit("main", "tool_result", call_id=cid, name="task", is_error=False, content=json.dumps(envelope), duration_ms=4242)

out.write(json.dumps({"format": "brood-trace", "version": 1, "session": "bench-large",
                      "started_at": "2026-01-01T00:00:00.000Z", "cwd": "/work/shop", "provider": "anthropic",
                      "model": "claude-sonnet-4-5", "light_model": "claude-haiku-4-5", "brood_version": "0.1.0"},
                     separators=(",", ":")) + "\n")
emit("main", "user_message", text="Where is auth handled, and how do tokens refresh? " + words(20))
children, step = 0, 0
per_child = target // 51
while written < target - 64 * 1024:
    step += 1
    emit("main", "model_request", step=step, model="claude-sonnet-4-5", messages=step * 2 - 1, tools=7)
    text = stream("main", rng.randint(1, 4))
    if children < 50 and written >= (children + 1) * per_child:
        children += 1
        emit("main", "assistant_message", text=text, tool_calls=1, usage=usage(2000 + step * 300, 80), stop_reason="tool_use")
        child(children)
        continue
    emit("main", "assistant_message", text=text, tool_calls=2, usage=usage(2000 + step * 300, 120), stop_reason="tool_use")
    tool("main", "read_file", {"path": f"src/mod_{step % 37}.rs"}, rng.randint(2, 16))
    tool("main", "bash", {"command": "cargo test -q " + words(1)}, rng.randint(1, 6))
emit("main", "model_request", step=step + 1, model="claude-sonnet-4-5", messages=step * 2 + 1, tools=7)
text = stream("main", 3)
emit("main", "assistant_message", text=text, tool_calls=0, usage=usage(9000, 300), stop_reason="end_turn")
emit("main", "turn_end", reason="completed", steps=step + 1, usage=usage(900000, 20000))
out.close()
print(f"bench: {written / 1e6:.1f} MB of events, {seq} events, {children} children")
PY

BYTES=$(stat -c %s "$TRACE")
MB=$(python3 -c "print(f'{$BYTES/1e6:.1f}')")

now_ms() { date +%s%3N; }
# Peak RSS in kB from a `/usr/bin/time -v` report.
rss_kb() { awk -F: '/Maximum resident set size/ {gsub(/ /, "", $2); print $2}' "$1"; }

# Warm the page cache so every tool reads from memory alike.
cat "$TRACE" >/dev/null

echo "bench: first frame"
FF_MS=""
FF_WALL=""
for _ in 1 2 3; do
  # script's input is held open: at its end script would send the end of
  # input on, which the workbench takes as a key and quits before a frame.
  OUT=$(script -qec "stty cols 130 rows 40; s=\$(date +%s%3N); /usr/bin/time -v -o '$WORK/ff.time' '$BIN' replay --exit-after-first-frame '$TRACE'; echo whole process \$((\$(date +%s%3N) - s)) ms" /dev/null < <(sleep 5) | tr -d '\r')
  MS=$(printf '%s\n' "$OUT" | sed -n 's/.*first frame after \([0-9]*\) ms.*/\1/p' | tail -1)
  if [ -z "$MS" ]; then echo "bench: no first-frame time in the output:"; printf '%s\n' "$OUT" | tail -5; exit 1; fi
  if [ -z "$FF_MS" ] || [ "$MS" -lt "$FF_MS" ]; then FF_MS=$MS; fi
  # brood's own run, start to exit, timed in script's shell: the held-open
  # input keeps script itself running after brood has quit.
  wall=$(printf '%s\n' "$OUT" | sed -n 's/.*whole process \([0-9]*\) ms.*/\1/p' | tail -1)
  if [ -z "$FF_WALL" ] || [ "$wall" -lt "$FF_WALL" ]; then FF_WALL=$wall; fi
done
FF_RSS=$(rss_kb "$WORK/ff.time")

echo "bench: workbench replay, loaded while playing at x1, then q"
( sleep "${BROOD_BENCH_LOAD_SECS:-8}"; printf 'q'; sleep 1 ) |
  script -qec "stty cols 130 rows 40; /usr/bin/time -v -o '$WORK/load.time' '$BIN' replay '$TRACE'" /dev/null >/dev/null
LOAD_RSS=$(rss_kb "$WORK/load.time")

echo "bench: workbench replay, loaded and at the end (G), then q"
# Wait for the whole file to load (a few seconds), jump to the end, then quit.
( sleep "${BROOD_BENCH_LOAD_SECS:-8}"; printf 'G'; sleep 3; printf 'q'; sleep 1 ) |
  script -qec "stty cols 130 rows 40; /usr/bin/time -v -o '$WORK/full.time' '$BIN' replay '$TRACE'" /dev/null >/dev/null
FULL_RSS=$(rss_kb "$WORK/full.time")

best_ms() { # best wall time of three runs of "$@" with stdout to /dev/null
  local best="" start end
  for _ in 1 2 3; do
    start=$(now_ms); "$@" >/dev/null; end=$(now_ms)
    if [ -z "$best" ] || [ $((end - start)) -lt "$best" ]; then best=$((end - start)); fi
  done
  echo "$best"
}

echo "bench: --print"
/usr/bin/time -v -o "$WORK/print.time" "$BIN" replay --print "$TRACE" >/dev/null
PRINT_RSS=$(rss_kb "$WORK/print.time")
PRINT_MS=$(best_ms "$BIN" replay --print "$TRACE")

echo "bench: --print --json"
/usr/bin/time -v -o "$WORK/json.time" "$BIN" replay --print --json "$TRACE" >/dev/null
JSON_RSS=$(rss_kb "$WORK/json.time")
JSON_MS=$(best_ms "$BIN" replay --print --json "$TRACE")
# The output must be the trace's event lines, exactly.
if ! "$BIN" replay --print --json "$TRACE" | cmp -s - <(tail -n +2 "$TRACE"); then
  echo "bench: --json output differs from the trace's event lines"; exit 1
fi

echo "bench: jq -c ."
JQ_MS=$(best_ms jq -c . "$TRACE")

echo "bench: brood traces on the large trace and 300 small ones"
rm -rf "$WORK/many" && mkdir -p "$WORK/many"
ln "$TRACE" "$WORK/many/large.jsonl" 2>/dev/null || cp "$TRACE" "$WORK/many/large.jsonl"
head -c 200000 "$TRACE" >"$WORK/many/small-0.jsonl"
for i in $(seq 1 299); do cp "$WORK/many/small-0.jsonl" "$WORK/many/small-$i.jsonl"; done
TRACES_MS=$(best_ms "$BIN" traces "$WORK/many")

python3 - "$BYTES" "$FF_MS" "$FF_WALL" "$FF_RSS" "$LOAD_RSS" "$FULL_RSS" "$PRINT_RSS" "$PRINT_MS" "$JSON_RSS" "$JSON_MS" "$JQ_MS" "$TRACES_MS" <<'PY'
import sys
size, ff, ff_wall, ff_rss, load_rss, full_rss, p_rss, p_ms, j_rss, j_ms, jq_ms, traces_ms = map(int, sys.argv[1:])
mb = size / 1e6
lim = 2 * size / 1024  # kB
rows = [
    ("first frame (brood's own clock)", f"{ff} ms", "< 500 ms", ff < 500),
    ("first frame, whole process (start to exit)", f"{ff_wall} ms", "< 500 ms", ff_wall < 500),
    ("peak RSS, first frame", f"{ff_rss / 1024:.0f} MB", f"< {2 * mb:.0f} MB", ff_rss < lim),
    ("peak RSS, workbench loaded, playing x1", f"{load_rss / 1024:.0f} MB", f"< {2 * mb:.0f} MB", load_rss < lim),
    ("peak RSS, workbench at end (G)", f"{full_rss / 1024:.0f} MB", f"< {2 * mb:.0f} MB", full_rss < lim),
    ("peak RSS, --print", f"{p_rss / 1024:.0f} MB", f"< {2 * mb:.0f} MB", p_rss < lim),
    ("peak RSS, --print --json", f"{j_rss / 1024:.0f} MB", f"< {2 * mb:.0f} MB", j_rss < lim),
    ("--print time", f"{p_ms} ms ({mb / max(p_ms, 1) * 1000:.0f} MB/s)", "-", None),
    ("--print --json time", f"{j_ms} ms ({mb / max(j_ms, 1) * 1000:.0f} MB/s)", f"<= 2 x jq = {2 * jq_ms} ms", j_ms <= 2 * jq_ms),
    ("jq -c . time", f"{jq_ms} ms ({mb / max(jq_ms, 1) * 1000:.0f} MB/s)", "-", None),
    ("brood traces, large + 300 x 200 KB", f"{traces_ms} ms", "-", None),
]
print(f"\ntrace: {mb:.1f} MB\n")
w = [max(len(r[i]) for r in rows) for i in range(3)]
print(f"{'measure':<{w[0]}}  {'value':<{w[1]}}  {'target':<{w[2]}}  result")
for name, value, target, ok in rows:
    verdict = "" if ok is None else ("PASS" if ok else "MISS")
    print(f"{name:<{w[0]}}  {value:<{w[1]}}  {target:<{w[2]}}  {verdict}")
PY
