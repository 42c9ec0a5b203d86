//! The sessions the snapshots show, as scripts of events with fixed times.

use serde_json::{Value, json};

use super::fixtures::{MAIN, Script, sub, usage};
use crate::event::{EventKind, TerminalReason};

pub(super) fn task_input(description: &str, profile: &str) -> Value {
    json!({"prompt": format!("{description}. Report path:line evidence."), "description": description, "subagent_type": profile})
}

/// A parent turn that started three children in parallel, mid-run: sub-1
/// searching, sub-2 finished, sub-3 streaming its answer.
pub(super) fn three_children() -> Script {
    let mut s = Script::default();
    s.user(
        0,
        MAIN,
        "Where is auth handled, and how do tokens refresh? Check the tests too.",
    )
    .request(100, MAIN, 1)
    .delta(900, MAIN, "I'll look at both in parallel.")
    .say(
        1_000,
        MAIN,
        "I'll look at both in parallel.",
        3,
        usage(40_100, 900),
    )
    .call(
        1_000,
        MAIN,
        "t1",
        "task",
        task_input("find auth entry points", "explore"),
    )
    .call(
        1_000,
        MAIN,
        "t2",
        "task",
        task_input("token refresh flow", "explore"),
    )
    .call(
        1_000,
        MAIN,
        "t3",
        "task",
        task_input("run the auth tests", "general"),
    )
    .start(1_050, 1, "t1", "explore", "find auth entry points")
    .start(1_060, 2, "t2", "explore", "token refresh flow")
    .start(1_070, 3, "t3", "general", "run the auth tests");
    for step in 1..=7 {
        s.request(1_100 + step * 1_400, sub(1), step as u32);
    }
    s.call(2_000, sub(1), "a1", "glob", json!({"pattern": "**/*.py"}))
        .result(2_100, sub(1), "a1", "glob", &files(214), false)
        .call(
            2_600,
            sub(1),
            "a2",
            "grep",
            json!({"pattern": "def login|jwt"}),
        )
        .result(
            2_900,
            sub(1),
            "a2",
            "grep",
            "auth/login.py:12:def login(request):\nauth/jwt.py:4:import jwt\n9 matches in 4 files",
            false,
        )
        .call(
            4_000,
            sub(1),
            "a3",
            "read_file",
            json!({"path": "auth/login.py", "offset": 1, "limit": 120}),
        )
        .result(
            4_100,
            sub(1),
            "a3",
            "read_file",
            "1\timport jwt\n2\tfrom .tokens import refresh",
            false,
        )
        .call(
            11_000,
            sub(1),
            "a4",
            "grep",
            json!({"pattern": "refresh", "path": "auth/"}),
        )
        .say(10_900, sub(1), "", 1, usage(4_200, 4_900));
    s.request(1_200, sub(2), 1)
        .call(1_800, sub(2), "b1", "grep", json!({"pattern": "refresh_token"}))
        .result(1_900, sub(2), "b1", "grep", "auth/tokens.py:88:def refresh_token(old):", false)
        .say(8_000, sub(2), "{\"status\":\"completed\"}", 0, usage(2_900, 3_100))
        .end(9_060, 2, TerminalReason::Completed, "Refresh happens in auth/tokens.py:88 via refresh_token(), called by the middleware on 401.", 5, usage(2_900, 3_100), 8_000)
        .result(9_070, MAIN, "t2", "task", "{\"text\":\"Refresh happens in auth/tokens.py:88.\"}", false);
    s.request(1_300, sub(3), 1)
        .call(
            1_500,
            sub(3),
            "c1",
            "bash",
            json!({"command": "pytest tests/auth -q"}),
        )
        .result(
            6_500,
            sub(3),
            "c1",
            "bash",
            "F.F..\n2 failed, 3 passed in 4.1s",
            true,
        )
        .request(6_600, sub(3), 2)
        .delta(7_000, sub(3), "Two tests fail: test_refresh_expired and ")
        .delta(7_100, sub(3), "test_login_locked. Both expect");
    s
}

/// `n` file paths, one a line.
fn files(n: usize) -> String {
    (0..n)
        .map(|i| format!("src/m{i}.py"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A pending approval from child sub-2 for a destructive command.
pub(super) fn approval_from_child() -> Script {
    let mut s = Script::default();
    s.user(0, MAIN, "Clean the build and rerun the tests.")
        .call(
            500,
            MAIN,
            "t1",
            "task",
            task_input("clean and test", "general"),
        )
        .call(
            500,
            MAIN,
            "t2",
            "task",
            task_input("check the docs build", "general"),
        )
        .start(600, 1, "t1", "general", "clean and test")
        .start(610, 2, "t2", "general", "check the docs build")
        .request(700, sub(2), 1)
        .call(
            1_500,
            sub(2),
            "x1",
            "bash",
            json!({"command": "rm -rf build/docs && make docs"}),
        )
        .push(
            1_510,
            sub(2),
            EventKind::ApprovalRequested(Box::new(crate::event::ApprovalAsk {
                id: 1,
                call_id: "x1".into(),
                tool: "bash".into(),
                summary: "rm -rf build/docs && make docs".into(),
                reason: "rm deletes files".into(),
                session_rule: crate::policy::command_prefix("rm -rf build/docs && make docs"),
            })),
        )
        .push(
            1_600,
            sub(1),
            EventKind::ApprovalRequested(Box::new(crate::event::ApprovalAsk {
                id: 2,
                call_id: "y1".into(),
                tool: "bash".into(),
                summary: "rm -rf target".into(),
                reason: "rm deletes files".into(),
                session_rule: crate::policy::command_prefix("rm -rf target"),
            })),
        );
    s
}
