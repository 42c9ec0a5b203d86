#!/usr/bin/env python3
"""Follow latency: the time from a line's write to its event on the output of
`brood watch --json`, next to `tail -F` on the same file (the plain line
latency a user gets without brood), and brood's peak memory while the
followed session grows.

For each case the session file already holds a big session when the follower
starts; the driver waits for the catch-up to end, then appends LINES lines one
at a time, GAP seconds apart, each with a marker the output is searched for.

  follow_latency.py BROOD CASE SESSION [--lines N] [--gap S] [--grow-mb MB]

CASE is `claude` (Claude Code assistant lines with one tool_use each, in the
session file, then in a subagent file created while following) or `brood`
(brood trace event lines). Prints one JSON object with the latencies in ms
(median, p90, max) of brood and of tail, and brood's VmHWM in MB; with
--grow-mb, it first appends filler until the session has grown by that many
MB and reports the peak memory against the file's size. The filler is whole
turns (--filler turns: an assistant line with text and a Read call, then the
user line with its 1-8 KB result, as a working session grows) or bare calls
(--filler calls: assistant lines of one tool_use each and no results, the
most events per byte a session can have).
"""

import argparse
import json
import os
import queue
import random
import statistics
import subprocess
import sys
import threading
import time


def reader(stream, out):
    for line in iter(stream.readline, b""):
        out.put((time.monotonic(), line))
    out.put((time.monotonic(), None))


def vm_hwm_mb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def claude_line(i, session_id, agent=None, parent_uuid=None):
    call = f"toolu_bench_{i:06d}"
    line = {
        "parentUuid": parent_uuid,
        "isSidechain": agent is not None,
        "userType": "external",
        "cwd": "/home/dev/shop",
        "sessionId": session_id,
        "version": "2.0.50",
        "type": "assistant",
        "uuid": f"bench-{i:06d}",
        "timestamp": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime()),
        "message": {
            "id": f"msg_bench_{i:06d}",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5-20250929",
            "content": [
                {"type": "tool_use", "id": call, "name": "Grep", "input": {"pattern": f"marker{i}"}}
            ],
            "stop_reason": "tool_use",
            "usage": {"input_tokens": 10, "output_tokens": 5},
        },
    }
    if agent:
        line["agentId"] = agent
    return json.dumps(line) + "\n", call


CODE = [
    "def handle(request, *, retries=3):",
    "    for attempt in range(retries):",
    "        response = client.send(request, timeout=30)",
    "        if response.status == 200:",
    "            return response.json()",
    "    raise TransportError(f\"gave up after {retries} attempts\")",
]


def claude_turn(i, session_id, rng):
    """An assistant line with text and a Read call, and the result's line."""
    call = f"toolu_turn_{i:06d}"
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime())
    common = {"isSidechain": False, "userType": "external", "cwd": "/home/dev/shop",
              "sessionId": session_id, "version": "2.0.50", "timestamp": stamp}
    ask = dict(common, type="assistant", parentUuid=f"turn-r-{i - 1:06d}", uuid=f"turn-a-{i:06d}",
               message={"id": f"msg_turn_{i:06d}", "type": "message", "role": "assistant",
                        "model": "claude-sonnet-4-5-20250929",
                        "content": [{"type": "text", "text": f"Reading handler {i} next."},
                                    {"type": "tool_use", "id": call, "name": "Read",
                                     "input": {"file_path": f"/home/dev/shop/h{i}.py"}}],
                        "stop_reason": "tool_use",
                        "usage": {"input_tokens": 1200, "output_tokens": 40}})
    lines = [f"{n:6d}\u2192{rng.choice(CODE)}" for n in range(1, rng.randint(25, 200))]
    result = dict(common, type="user", parentUuid=f"turn-a-{i:06d}", uuid=f"turn-r-{i:06d}",
                  message={"role": "user", "content": [
                      {"type": "tool_result", "tool_use_id": call, "content": "\n".join(lines)}]},
                  toolUseResult={"type": "text", "file": {"filePath": f"/home/dev/shop/h{i}.py",
                                                          "numLines": len(lines)}})
    return json.dumps(ask) + "\n" + json.dumps(result) + "\n"


def brood_line(seq, i):
    call = f"bench_{i:06d}"
    event = {
        "seq": seq,
        "t_ms": seq * 10,
        "agent": "main",
        "type": "tool_call",
        "call_id": call,
        "name": "grep",
        "input": {"pattern": f"marker{i}"},
        "summary": f"grep marker{i}",
    }
    return json.dumps(event) + "\n", call


def last_seq(path):
    seq = 0
    with open(path, "rb") as f:
        f.seek(max(0, os.path.getsize(path) - 1_000_000))
        for line in f:
            try:
                seq = max(seq, json.loads(line).get("seq", 0))
            except (ValueError, AttributeError):
                pass
    return seq


def session_id_of(path):
    with open(path) as f:
        for line in f:
            try:
                sid = json.loads(line).get("sessionId")
            except ValueError:
                continue
            if sid:
                return sid
    return "bench"


def drain_until_quiet(q, quiet=1.0, limit=120.0):
    """Reads output until nothing came for `quiet` seconds (catch-up done)."""
    start = time.monotonic()
    last = start
    count = 0
    while time.monotonic() - start < limit:
        try:
            _, line = q.get(timeout=0.1)
            if line is None:
                break
            count += 1
            last = time.monotonic()
        except queue.Empty:
            if count and time.monotonic() - last >= quiet:
                break
    return count, time.monotonic() - start


def wait_for(q, marker, timeout=10.0):
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        try:
            at, line = q.get(timeout=left)
        except queue.Empty:
            return None
        if line is None:
            return None
        if marker in line:
            return at


def summary(ms):
    ms = sorted(ms)
    if not ms:
        return {"median": None, "p90": None, "max": None, "n": 0}
    return {
        "median": round(statistics.median(ms), 1),
        "p90": round(ms[int(len(ms) * 0.9) - 1 if len(ms) >= 10 else -1], 1),
        "max": round(ms[-1], 1),
        "n": len(ms),
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("brood")
    ap.add_argument("case", choices=["claude", "brood"])
    ap.add_argument("session")
    ap.add_argument("--lines", type=int, default=30)
    ap.add_argument("--gap", type=float, default=0.3)
    ap.add_argument("--grow-mb", type=float, default=0)
    ap.add_argument("--filler", choices=["turns", "calls"], default="turns")
    args = ap.parse_args()
    rng = random.Random(7)

    env = dict(os.environ)
    watch = subprocess.Popen(
        [args.brood, "watch", "--json", args.session],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    tail = subprocess.Popen(
        ["tail", "-n0", "-F", args.session], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    wq, tq = queue.Queue(), queue.Queue()
    threading.Thread(target=reader, args=(watch.stdout, wq), daemon=True).start()
    threading.Thread(target=reader, args=(tail.stdout, tq), daemon=True).start()
    caught_up, catch_up_s = drain_until_quiet(wq)

    sid = session_id_of(args.session) if args.case == "claude" else None
    seq = last_seq(args.session) if args.case == "brood" else 0
    i = 0

    grown_to = os.path.getsize(args.session)
    if args.grow_mb > 0:
        # Filler: whole turns of the same shape, appended in bursts.
        target = grown_to + int(args.grow_mb * 1024 * 1024)
        with open(args.session, "a") as f:
            while os.path.getsize(args.session) < target:
                for _ in range(200):
                    i += 1
                    if args.case == "claude" and args.filler == "turns":
                        text = claude_turn(i, sid, rng)
                    elif args.case == "claude":
                        text, _ = claude_line(i, sid)
                    else:
                        seq += 1
                        text, _ = brood_line(seq, i)
                    f.write(text)
                f.flush()
                time.sleep(0.02)
        grown_to = os.path.getsize(args.session)
        drain_until_quiet(wq, quiet=2.0, limit=600)
        drain_until_quiet(tq, quiet=0.5, limit=60)

    brood_ms, tail_ms, missing = [], [], 0
    for _ in range(args.lines):
        i += 1
        if args.case == "claude":
            text, marker = claude_line(i, sid)
        else:
            seq += 1
            text, marker = brood_line(seq, i)
        with open(args.session, "a") as f:
            f.write(text)
            f.flush()
        written = time.monotonic()
        at = wait_for(wq, marker.encode())
        if at is None:
            missing += 1
        else:
            brood_ms.append((at - written) * 1000)
        t_at = wait_for(tq, marker.encode(), timeout=5)
        if t_at is not None:
            tail_ms.append((t_at - written) * 1000)
        # Jittered, so the writes do not lock onto brood's polling phase.
        time.sleep(args.gap * random.uniform(0.5, 1.5))

    hwm = vm_hwm_mb(watch.pid)
    watch.kill()
    tail.kill()
    print(
        json.dumps(
            {
                "case": args.case,
                "session_mb": round(grown_to / 1024 / 1024, 1),
                "filler": args.filler if args.grow_mb > 0 else None,
                "catch_up_events": caught_up,
                "catch_up_s": round(catch_up_s, 2),
                "brood_ms": summary(brood_ms),
                "tail_ms": summary(tail_ms),
                "missing": missing,
                "brood_peak_mb": round(hwm, 1),
            }
        )
    )
    return 0 if missing == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
