#!/usr/bin/env python3
"""Deterministic inputs for benches/compare.sh and benches/resources.sh.

    gen_inputs.py tree   DIR    [--files N] [--seed S]
    gen_inputs.py trace  FILE   [--mb M]    [--children C] [--seed S]
    gen_inputs.py claude DIR    [--mb M]    [--children C] [--seed S]

Everything comes from one seeded `random.Random`, so the same arguments give
byte-identical output on every machine (no clock, no hash-order dependence).
Each command writes into a fresh path and prints one summary line.

Speed matters more than realism of every byte: text is assembled from small
pools of pre-built lines and blocks, so 300 MB of tree or 100 MB of trace take
seconds, not minutes.
"""

import argparse
import json
import os
import random
import shutil
import sys

# ---------------------------------------------------------------------------
# Shared text pools
# ---------------------------------------------------------------------------

WORDS = (
    "the config loader reads brood toml then the environment and flags win handler "
    "token refresh session cache error retry parse request stream subagent explore "
    "evidence summary workspace policy trace event budget child parent answer "
    "ünïcode ✓ path line match walker glob grep"
).split()

# Per-language line templates. `{n}` is a number, `{w}` a word. "error" shows
# up in a good share of lines, which is what the many-matches grep looks for.
LANG_LINES = {
    "rs": [
        "fn handle_{w}_{n}(ctx: &Context, input: &str) -> Result<Value, Error> {{",
        "    let parsed = serde_json::from_str::<Request>(input)?;",
        "    if parsed.items.is_empty() {{ return Err(Error::Empty(\"{w}\".into())); }}",
        "    for (i, item) in parsed.items.iter().enumerate() {{",
        "        tracing::debug!(index = i, \"handling {{}}\", item.name);",
        "    }}",
        "    // refresh the {w} when it is older than {n} seconds",
        "    .map_err(|e| Error::Io(format!(\"{w}: {{e}}\")))?;",
        "    Ok(Value::Null)",
        "}}",
        "#[derive(Debug, Clone, PartialEq)]",
        "pub struct {W}{n} {{ pub id: u64, pub name: String }}",
        "use crate::{w}::{{Config, Session}};",
    ],
    "py": [
        "def handle_{w}_{n}(request, *, retries={n}):",
        "    \"\"\"Handle one {w} request; raise on error.\"\"\"",
        "    try:",
        "        payload = json.loads(request.body)",
        "    except ValueError as error:",
        "        log.error(\"bad {w} payload: %s\", error)",
        "        raise",
        "    return {{\"status\": \"ok\", \"{w}\": payload.get(\"{w}\")}}",
        "class {W}{n}(BaseModel):",
        "    name: str = \"{w}\"",
        "import {w}_utils as utils  # noqa: F401",
        "",
    ],
    "ts": [
        "export async function handle{W}{n}(req: Request): Promise<Response> {{",
        "  const body = await req.json() as {W}Payload;",
        "  if (!body.{w}) throw new Error(\"missing {w}\");",
        "  return new Response(JSON.stringify({{ ok: true, n: {n} }}));",
        "}}",
        "import {{ {w}Client }} from \"../lib/{w}\";",
        "// TODO: retry the {w} call when the error is transient",
        "export interface {W}Payload {{ {w}: string; count: number }}",
        "  console.error(`{w} failed after ${{attempt}} tries`, err);",
    ],
    "go": [
        "func Handle{W}{n}(ctx context.Context, in []byte) (*Result, error) {{",
        "\tvar req Request",
        "\tif err := json.Unmarshal(in, &req); err != nil {{",
        "\t\treturn nil, fmt.Errorf(\"{w}: %w\", err)",
        "\t}}",
        "\treturn &Result{{Name: \"{w}\", N: {n}}}, nil",
        "}}",
        "// {W}{n} refreshes the {w} cache every {n} seconds.",
        "type {W}{n} struct {{ ID int64; Name string }}",
    ],
    "c": [
        "static int handle_{w}_{n}(struct ctx *c, const char *in, size_t len)",
        "{{",
        "    if (len == 0) return -EINVAL; /* error: empty {w} */",
        "    for (size_t i = 0; i < len; i++) c->sum += (unsigned char)in[i];",
        "    return {n};",
        "}}",
        "#include \"{w}.h\"",
        "#define {W}_LIMIT {n}",
    ],
    "md": [
        "## {W} {n}",
        "The {w} step reads the config and reports any error with its path and line.",
        "- `{w}`: see section {n}",
        "",
        "```sh\nbrood run \"where is {w} handled?\"\n```",
    ],
    "json": [
        "  \"{w}_{n}\": {{\"enabled\": true, \"retries\": {n}}},",
        "  \"{w}\": \"{w} error handler\",",
    ],
}

# Where each language lives in the tree, and its share of files (weights).
LAYOUT = [
    ("crates/{a}/src/{b}", "rs", 30),
    ("services/{a}/{b}", "py", 20),
    ("web/src/{a}/{b}", "ts", 20),
    ("cmd/{a}/internal/{b}", "go", 12),
    ("native/{a}/{b}", "c", 8),
    ("docs/{a}", "md", 6),
    ("config/{a}", "json", 4),
]
EXT = {"rs": ".rs", "py": ".py", "ts": ".tsx", "go": ".go", "c": ".c", "md": ".md", "json": ".json"}


def make_blocks(rng, lang, count, lines_per_block):
    """`count` text blocks of a language, each `lines_per_block` lines."""
    pool = LANG_LINES[lang]
    blocks = []
    for _ in range(count):
        out = []
        for _ in range(lines_per_block):
            w = rng.choice(WORDS)
            out.append(rng.choice(pool).format(n=rng.randint(1, 9999), w=w, W=w.capitalize()))
        blocks.append("\n".join(out) + "\n")
    return blocks


# ---------------------------------------------------------------------------
# tree: a monorepo-like source tree
# ---------------------------------------------------------------------------

NEEDLE_FILES = 37  # files that hold the rare string the few-matches grep looks for


def gen_tree(root, files, seed, ignored_files=3000):
    rng = random.Random(seed)
    if os.path.exists(root):
        shutil.rmtree(root)
    os.makedirs(root)
    # A `.git` folder makes rg and fd honour .gitignore as brood does (brood
    # sets require_git(false); rg/fd need a repository by default).
    os.makedirs(os.path.join(root, ".git"))
    with open(os.path.join(root, ".git", "HEAD"), "w") as f:
        f.write("ref: refs/heads/main\n")
    with open(os.path.join(root, ".gitignore"), "w") as f:
        f.write("/target/\nnode_modules/\n*.log\n")

    blocks = {lang: make_blocks(rng, lang, 300, 12) for lang in LANG_LINES}
    weights = [w for _, _, w in LAYOUT]
    a_names = [f"{rng.choice(WORDS).strip('✓')}_{i}" for i in range(40)]
    b_names = [f"{rng.choice(WORDS).strip('✓')}{i}" for i in range(25)]
    needle_at = set(rng.sample(range(files), NEEDLE_FILES))
    made_dirs = set()
    total = 0
    binaries = 0

    def write(path, data, mode="w"):
        nonlocal total
        d = os.path.dirname(path)
        if d not in made_dirs:
            os.makedirs(d, exist_ok=True)
            made_dirs.add(d)
        with open(path, mode, **({} if mode == "wb" else {"encoding": "utf-8"})) as f:
            f.write(data)
        total += len(data) if mode == "wb" else len(data.encode("utf-8"))

    for i in range(files):
        # One file in 50 is binary (an image or a compiled object with NUL bytes
        # and text after them, so skipping binary files changes the counts).
        if i % 50 == 49:
            sub = f"assets/{rng.choice(a_names)}/{rng.choice(b_names)}"
            ext = rng.choice([".png", ".so", ".bin"])
            body = rng.randbytes(rng.randint(2_000, 60_000)) + b"\0 error handler \0" * 8
            write(os.path.join(root, sub, f"blob_{i}{ext}"), body, "wb")
            binaries += 1
            continue
        tmpl, lang, _ = rng.choices(LAYOUT, weights)[0]
        # Nesting: most files 3-5 levels down, some deeper.
        sub = tmpl.format(a=rng.choice(a_names), b=rng.choice(b_names))
        if rng.random() < 0.3:
            sub += f"/{rng.choice(b_names)}/{rng.choice(a_names)}"
        n_blocks = max(1, int(rng.expovariate(1 / 6)))  # long-tailed file sizes
        body = f"// file {i}: {lang}\n" + "".join(rng.choice(blocks[lang]) for _ in range(n_blocks))
        if i in needle_at:
            body += f"// XYZZY_NEEDLE_{i:05d} marks this file for the rare-match benchmark\n"
        write(os.path.join(root, sub, f"{rng.choice(WORDS).strip('✓')}_{i}{EXT[lang]}"), body)

    # The ignored build folder: big object files and text `.d` files full of
    # the same words, so a tool that did not honour .gitignore would be slow
    # and would report far more matches.
    ignored = 0
    big = rng.randbytes(1 << 20)
    for i in range(ignored_files):
        kind = i % 3
        path = os.path.join(root, "target", "release", "deps" if kind else "build", f"unit_{i}")
        if kind == 0:
            write(path + ".d", "".join(rng.choice(blocks["rs"]) for _ in range(20)))
        else:
            off = rng.randrange(0, len(big) - 70_000)
            write(path + ".rlib", big[off:off + rng.randint(30_000, 70_000)], "wb")
        ignored += 1
    write(os.path.join(root, "build.log"), "error: ignored log\n" * 5000)
    print(f"tree: {files} files ({binaries} binary) + {ignored + 1} ignored, "
          f"{total / 1e6:.0f} MB in {root}")


# ---------------------------------------------------------------------------
# trace: a brood trace (see src/event.rs and src/trace/header.rs)
# ---------------------------------------------------------------------------

class TraceWriter:
    def __init__(self, path, rng):
        self.out = open(path, "w", encoding="utf-8")
        self.rng = rng
        self.seq = 0
        self.t = 0
        self.written = 0
        self.call = 0

    def header(self, **fields):
        self._line(fields)

    def emit(self, agent, kind, **fields):
        self.seq += 1
        self.t += self.rng.randint(1, 40)
        ev = {"seq": self.seq, "t_ms": self.t, "agent": agent, "type": kind}
        ev.update(fields)
        self._line(ev)

    def _line(self, obj):
        line = json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n"
        self.out.write(line)
        self.written += len(line.encode("utf-8"))

    def call_id(self):
        self.call += 1
        return f"toolu_{self.call:06d}"


def gen_trace(path, mb, children, seed):
    rng = random.Random(seed)
    target = int(mb * 1e6)
    w = TraceWriter(path, rng)
    code = make_blocks(rng, "rs", 400, 1)  # single lines of tool output
    code = [line.rstrip("\n") for line in code]

    def words(n):
        return " ".join(rng.choice(WORDS) for _ in range(n))

    def usage(i, o):
        return {"input_tokens": i, "output_tokens": o}

    def stream(agent, pieces):
        text = []
        for _ in range(pieces):
            piece = words(rng.randint(2, 7)) + " "
            text.append(piece)
            w.emit(agent, "text_delta", text=piece)
        return "".join(text)

    def output(kb):
        lines, size, n = [], 0, 0
        while size < kb * 1024:
            n += 1
            line = f"src/mod_{n % 37}.rs:{n}:{rng.choice(code)}"
            lines.append(line)
            size += len(line) + 1
        return "\n".join(lines)

    def tool(agent, name, inp, kb):
        cid = w.call_id()
        w.emit(agent, "tool_call", call_id=cid, name=name, input=inp)
        w.emit(agent, "permission_decision", call_id=cid, decision="allow",
               reason="read-only tool", by="policy")
        w.emit(agent, "tool_result", call_id=cid, name=name, is_error=rng.random() < 0.03,
               content=output(kb), duration_ms=rng.randint(2, 900))

    def child(n):
        cid = w.call_id()
        desc = f"part {n}: " + words(3)
        prompt = "Find where " + words(10)
        w.emit("main", "tool_call", call_id=cid, name="task",
               input={"prompt": prompt, "description": desc, "subagent_type": "explore"})
        w.emit("main", "permission_decision", call_id=cid, decision="allow", reason="task", by="policy")
        sub = f"sub-{n}"
        w.emit(sub, "subagent_start", parent="main", parent_call_id=cid, profile="explore",
               model="light", model_name="claude-haiku-4-5", description=desc, prompt=prompt,
               max_steps=12, token_budget=32000, context_budget=16000)
        w.emit(sub, "user_message", text=prompt)
        steps = rng.randint(3, 7)
        for step in range(1, steps + 1):
            w.emit(sub, "model_request", step=step, model="claude-haiku-4-5",
                   messages=step * 2 - 1, tools=3)
            text = stream(sub, rng.randint(3, 12))
            w.emit(sub, "assistant_message", text=text, tool_calls=1,
                   usage=usage(700 * step, 60), stop_reason="tool_use")
            name = rng.choice(["grep", "read_file", "glob"])
            inp = {"path": f"src/mod_{step}.rs"} if name == "read_file" else {"pattern": words(1)}
            tool(sub, name, inp, rng.randint(2, 10))
        result = {"status": "completed", "summary": "Found it in " + words(6),
                  "findings": [words(8)], "evidence": [f"src/mod_{n % 37}.rs:{n}"],
                  "unresolved_questions": []}
        text = json.dumps(result)
        w.emit(sub, "model_request", step=steps + 1, model="claude-haiku-4-5",
               messages=steps * 2 + 1, tools=3)
        w.emit(sub, "text_delta", text=text)
        total = usage(5000 + 700 * steps, 400)
        w.emit(sub, "assistant_message", text=text, tool_calls=0, usage=usage(900, 120),
               stop_reason="end_turn")
        w.emit(sub, "turn_end", reason="completed", steps=steps + 1, usage=total)
        w.emit(sub, "subagent_end", reason="completed", summary=result["summary"],
               steps=steps + 1, tool_usage={"grep": steps}, usage=total,
               elapsed_ms=rng.randint(3000, 30000))
        envelope = {"status": "completed", "child_id": sub, "profile": "explore",
                    "terminal_reason": "completed", "text": result["summary"], "result": result,
                    "tool_usage": {"grep": steps}, "tokens": 5400 + 700 * steps,
                    "steps": steps + 1, "model": "light", "model_name": "claude-haiku-4-5",
                    "elapsed_ms": 4242}
        w.emit("main", "tool_result", call_id=cid, name="task", is_error=False,
               content=json.dumps(envelope), duration_ms=4242)

    w.header(format="brood-trace", version=1, session="bench-large",
             started_at="2026-01-01T00:00:00.000Z", cwd="/work/shop", provider="anthropic",
             model="claude-sonnet-4-5", light_model="claude-haiku-4-5", brood_version="0.1.0",
             note="generated by benches/tools/gen_inputs.py")
    w.emit("main", "user_message", text="Where is auth handled, and how do tokens refresh? " + words(20))
    done, step = 0, 0
    per_child = target // (children + 1)
    while w.written < target - 64 * 1024:
        step += 1
        w.emit("main", "model_request", step=step, model="claude-sonnet-4-5",
               messages=step * 2 - 1, tools=7)
        text = stream("main", rng.randint(4, 30))
        if done < children and w.written >= (done + 1) * per_child:
            done += 1
            w.emit("main", "assistant_message", text=text, tool_calls=1,
                   usage=usage(2000 + step * 300, 80), stop_reason="tool_use")
            child(done)
            continue
        w.emit("main", "assistant_message", text=text, tool_calls=2,
               usage=usage(2000 + step * 300, 120), stop_reason="tool_use")
        tool("main", "read_file", {"path": f"src/mod_{step % 37}.rs"}, rng.randint(2, 16))
        tool("main", "bash", {"command": "cargo test -q " + words(1)}, rng.randint(1, 6))
    while done < children:  # a tiny --mb still gets every child
        done += 1
        child(done)
    w.emit("main", "model_request", step=step + 1, model="claude-sonnet-4-5",
           messages=step * 2 + 1, tools=7)
    text = stream("main", 12)
    w.emit("main", "assistant_message", text=text, tool_calls=0, usage=usage(9000, 300),
           stop_reason="end_turn")
    w.emit("main", "turn_end", reason="completed", steps=step + 1, usage=usage(900000, 20000))
    w.out.close()
    print(f"trace: {w.written / 1e6:.1f} MB, {w.seq} events, {done} children in {path}")


# ---------------------------------------------------------------------------
# claude: a Claude Code project folder (see tests/data/import/claude/)
# ---------------------------------------------------------------------------

SESSION = "5e55a0b1-c0de-4bee-8a11-000000000001"
CWD = "/home/dev/shop"


class ClaudeWriter:
    """One `.jsonl` file of Claude Code lines, chained by parentUuid."""

    def __init__(self, path, rng, agent_id=None, clock=0):
        self.out = open(path, "w", encoding="utf-8")
        self.rng = rng
        self.agent_id = agent_id
        self.parent = None
        self.written = 0
        self.clock = clock  # ms since the session's start
        self.uuids = 0

    def _uuid(self):
        self.uuids += 1
        # Deterministic, well-formed UUIDs: agent id (or 0) + a counter.
        prefix = (self.agent_id or "0000000").rjust(8, "0")[:8]
        return f"{prefix}-0000-4000-8000-{self.uuids:012d}"

    def _ts(self):
        self.clock += self.rng.randint(50, 4000)
        s, ms = divmod(self.clock, 1000)
        m, s = divmod(s, 60)
        h, m = divmod(m, 60)
        return f"2026-03-02T{10 + h:02d}:{m:02d}:{s:02d}.{ms:03d}Z"

    def line(self, kind, message, **extra):
        uuid = self._uuid()
        obj = {"parentUuid": self.parent, "isSidechain": self.agent_id is not None,
               "userType": "external", "cwd": CWD, "sessionId": SESSION, "version": "2.0.76",
               "gitBranch": "main"}
        if self.agent_id:
            obj["agentId"] = self.agent_id
        obj["type"] = kind
        obj.update(extra)
        obj["message"] = message
        obj["uuid"] = uuid
        obj["timestamp"] = self._ts()
        self.raw(obj)
        self.parent = uuid

    def raw(self, obj):
        text = json.dumps(obj, ensure_ascii=False) + "\n"
        self.out.write(text)
        self.written += len(text.encode("utf-8"))

    def user(self, content, **extra):
        self.line("user", {"role": "user", "content": content}, **extra)

    def assistant(self, msg_id, model, blocks, out_tokens):
        """One API message split over one line per content block, sharing message.id,
        as Claude Code writes them; only the last line has a stop_reason."""
        for k, block in enumerate(blocks):
            last = k == len(blocks) - 1
            stop = None
            if last:
                stop = "tool_use" if block["type"] == "tool_use" else "end_turn"
            self.line("assistant", {
                "model": model, "id": msg_id, "type": "message", "role": "assistant",
                "content": [block], "stop_reason": stop, "stop_sequence": None,
                "usage": {"input_tokens": 3, "cache_creation_input_tokens": 900,
                          "cache_read_input_tokens": 12000,
                          "output_tokens": out_tokens if last else 8, "service_tier": "standard"},
            }, requestId="req_" + msg_id[4:])

    def close(self):
        self.out.close()


def gen_claude(root, mb, children, seed):
    rng = random.Random(seed)
    target = int(mb * 1e6)
    if os.path.exists(root):
        shutil.rmtree(root)
    project = os.path.join(root, "-home-dev-shop")
    subdir = os.path.join(project, SESSION, "subagents")
    os.makedirs(subdir)
    code = [line.rstrip("\n") for line in make_blocks(rng, "py", 400, 1)]
    msgs = 0

    def words(n):
        return " ".join(rng.choice(WORDS) for _ in range(n))

    def msg_id():
        nonlocal msgs
        msgs += 1
        return f"msg_01{msgs:020d}"

    def file_lines(kb):
        lines, size = [], 0
        while size < kb * 1024:
            line = rng.choice(code)
            lines.append(line)
            size += len(line) + 8
        return lines

    def numbered(lines):
        return "\n".join(f"{n:6d}→{line}" for n, line in enumerate(lines, 1))

    def tool_use_result(name, lines):
        """What Claude Code writes beside a result: the output again, in the
        tool's own shape (a Read's file, a command's stdout, grep's matches)."""
        text = "\n".join(lines)
        if name == "Read":
            return {"type": "text", "file": {"filePath": f"{CWD}/x.py", "content": text,
                                             "numLines": len(lines), "startLine": 1,
                                             "totalLines": len(lines)}}
        if name == "Bash":
            return {"stdout": text, "stderr": "", "interrupted": False, "isImage": False}
        if name == "Grep":
            return {"mode": "content", "numFiles": 0, "filenames": [], "content": text,
                    "numLines": len(lines)}
        return {"filenames": [f"{CWD}/services/{i}.py" for i in range(len(lines))],
                "durationMs": rng.randint(5, 80), "numFiles": len(lines), "truncated": False}

    def tool_round(w, model, agent_tag):
        """An assistant message (thinking?, text, 1-3 tool calls) and their results."""
        mid = msg_id()
        blocks = []
        if rng.random() < 0.3:
            blocks.append({"type": "thinking", "thinking": words(rng.randint(20, 80)),
                           "signature": "EpMCCkYICxgCKkDg"})
        blocks.append({"type": "text", "text": words(rng.randint(10, 60))})
        calls = []
        for _ in range(rng.randint(1, 3)):
            tid = f"toolu_01{agent_tag}{msgs:08d}{len(calls)}"
            name = rng.choice(["Read", "Grep", "Bash", "Glob"])
            if name == "Read":
                inp = {"file_path": f"{CWD}/services/{rng.choice(WORDS)}/handler_{rng.randint(1, 500)}.py"}
            elif name == "Grep":
                inp = {"pattern": rng.choice(WORDS), "path": "services", "output_mode": "content"}
            elif name == "Glob":
                inp = {"pattern": "**/*.py"}
            else:
                inp = {"command": f"pytest tests/{rng.choice(WORDS)} -q", "description": "Run the tests"}
            blocks.append({"type": "tool_use", "id": tid, "name": name, "input": inp})
            calls.append((tid, name))
        w.assistant(mid, model, blocks, rng.randint(40, 400))
        for tid, name in calls:
            kb = rng.randint(2, 24)
            failed = name == "Bash" and rng.random() < 0.2
            lines = file_lines(kb)
            content = numbered(lines) if name == "Read" else "\n".join(lines)
            block = {"tool_use_id": tid, "type": "tool_result", "content": content}
            if failed:
                block["is_error"] = True
            w.user([block], toolUseResult=tool_use_result(name, lines))

    main = ClaudeWriter(os.path.join(project, SESSION + ".jsonl"), rng)
    main.raw({"type": "summary", "summary": "Auth entry points and token refresh",
              "leafUuid": "00000000-0000-4000-8000-000000000001"})
    main.user("Where is auth handled, and how do tokens refresh? " + words(30))
    # Share of the target for the main file; the rest goes to the children.
    main_target = target * 0.6
    per_child = (target - main_target) / children
    turns = 0
    child_n = 0
    sub_bytes = 0
    every = max(1, int(main_target / (children + 1) / 40_000))  # tool rounds between Task calls
    while main.written < main_target or child_n < children:
        turns += 1
        if turns % every == 0 and child_n < children:
            # A Task call (sometimes two in one message) and its subagent file(s).
            mid = msg_id()
            n_tasks = min(children - child_n, 2 if rng.random() < 0.3 else 1)
            tasks = []
            for _ in range(n_tasks):
                child_n += 1
                agent = f"a{child_n:06x}"
                prompt = f"Find where {words(12)}. Report file paths with line numbers."
                tasks.append((f"toolu_01Task{child_n:06d}", agent, prompt,
                              f"part {child_n}: {words(3)}"))
            blocks = [{"type": "text", "text": "I'll delegate: " + words(12)}]
            blocks += [{"type": "tool_use", "id": tid, "name": "Task",
                        "input": {"description": desc, "prompt": prompt,
                                  "subagent_type": rng.choice(["Explore", "general-purpose"])}}
                       for tid, _, prompt, desc in tasks]
            main.assistant(mid, "claude-opus-4-5-20251101", blocks, 220)
            for tid, agent, prompt, desc in tasks:
                sub = ClaudeWriter(os.path.join(subdir, f"agent-{agent}.jsonl"), rng,
                                   agent_id=agent, clock=main.clock)
                sub.user(prompt)
                while sub.written < per_child:
                    tool_round(sub, "claude-haiku-4-5-20251001", "S")
                answer = "Findings:\n" + "\n".join(
                    f"- services/{rng.choice(WORDS)}/x.py:{rng.randint(1, 400)} {words(8)}"
                    for _ in range(6))
                sub.assistant(msg_id(), "claude-haiku-4-5-20251001",
                              [{"type": "text", "text": answer}], 200)
                sub.close()
                sub_bytes += sub.written
                with open(os.path.join(subdir, f"agent-{agent}.meta.json"), "w") as f:
                    json.dump({"agentType": "Explore", "description": desc, "spawnDepth": 1,
                               "toolUseId": tid}, f)
                main.clock = max(main.clock, sub.clock)
                main.user([{"tool_use_id": tid, "type": "tool_result", "content": [
                    {"type": "text", "text": answer},
                    {"type": "text", "text": f"agentId: {agent} (for resuming to continue this agent's work if needed)"}]}],
                    toolUseResult={"status": "completed", "prompt": prompt, "agentId": agent,
                                   "content": [{"type": "text", "text": answer}],
                                   "totalDurationMs": rng.randint(5000, 60000),
                                   "totalTokens": rng.randint(5000, 40000),
                                   "totalToolUseCount": rng.randint(2, 20)})
            continue
        if turns % 25 == 0:
            main.user(f"Thanks. Now {words(15)}?")
        tool_round(main, "claude-opus-4-5-20251101", "M")
    main.assistant(msg_id(), "claude-opus-4-5-20251101",
                   [{"type": "text", "text": "**Summary**: " + words(80)}], 300)
    main.close()
    print(f"claude: main {main.written / 1e6:.1f} MB + {children} subagents "
          f"{sub_bytes / 1e6:.1f} MB in {project}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("tree")
    t.add_argument("dir")
    t.add_argument("--files", type=int, default=55_000)
    t.add_argument("--ignored", type=int, default=3000, help="files in the ignored target/")
    t.add_argument("--seed", type=int, default=7)
    r = sub.add_parser("trace")
    r.add_argument("file")
    r.add_argument("--mb", type=float, default=100)
    r.add_argument("--children", type=int, default=50)
    r.add_argument("--seed", type=int, default=7)
    c = sub.add_parser("claude")
    c.add_argument("dir")
    c.add_argument("--mb", type=float, default=36)
    c.add_argument("--children", type=int, default=40)
    c.add_argument("--seed", type=int, default=7)
    a = ap.parse_args()
    if a.cmd == "tree":
        gen_tree(a.dir, a.files, a.seed, a.ignored)
    elif a.cmd == "trace":
        gen_trace(a.file, a.mb, a.children, a.seed)
    else:
        gen_claude(a.dir, a.mb, a.children, a.seed)


if __name__ == "__main__":
    sys.exit(main())
