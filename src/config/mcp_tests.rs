//! MCP server configuration from Claude Code's files and brood.toml, on real
//! temporary folders.

use super::*;

struct Home {
    _dir: tempfile::TempDir,
    places: Places,
    workspace: PathBuf,
}

fn home() -> Home {
    let dir = tempfile::tempdir().unwrap();
    let claude_dir = dir.path().join(".claude");
    let workspace = dir.path().join("ws");
    std::fs::create_dir_all(&claude_dir).unwrap();
    std::fs::create_dir_all(workspace.join(".claude")).unwrap();
    Home {
        places: Places {
            claude_json: Some(dir.path().join(".claude.json")),
            claude_dir: Some(claude_dir),
        },
        workspace,
        _dir: dir,
    }
}

fn env(name: &str) -> Option<String> {
    match name {
        "GH_TOKEN" => Some("ghp_secret_1234".into()),
        "EMPTY" => Some(String::new()),
        "DOCS_KEY" => Some("docs-key-5678".into()),
        _ => None,
    }
}

fn load_in(home: &Home, tables: &[(PathBuf, BTreeMap<String, CodexServer>)]) -> LoadedMcp {
    load(&home.places, &home.workspace, &home.workspace, tables, &env).unwrap()
}

fn toml_table(text: &str) -> BTreeMap<String, CodexServer> {
    #[derive(Deserialize)]
    struct File {
        mcp_servers: BTreeMap<String, CodexServer>,
    }
    toml::from_str::<File>(text).unwrap().mcp_servers
}

#[test]
fn claude_code_servers_of_every_scope_are_read_and_expanded() {
    let home = home();
    let claude_json = home.places.claude_json.clone().unwrap();
    std::fs::write(
        &claude_json,
        serde_json::json!({
            "mcpServers": {"github": {"command": "npx", "args": ["-y", "@gh/server"],
                                      "env": {"GITHUB_TOKEN": "${GH_TOKEN}"}}},
            "projects": {home.workspace.to_string_lossy(): {"mcpServers": {
                "docs": {"type": "http", "url": "https://docs.example/mcp",
                         "headers": {"Authorization": "Bearer ${DOCS_KEY}"}}}}}
        })
        .to_string(),
    )
    .unwrap();
    let loaded = load_in(&home, &[]);
    assert_eq!(loaded.notes, Vec::<String>::new());
    let names: Vec<_> = loaded.servers.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["github", "docs"]);
    assert_eq!(
        loaded.servers[0].transport,
        McpTransport::Stdio {
            command: "npx".into(),
            args: vec!["-y".into(), "@gh/server".into()],
            env: vec![("GITHUB_TOKEN".into(), Secret("ghp_secret_1234".into()))],
            cwd: None,
        }
    );
    assert_eq!(
        loaded.servers[1].transport,
        McpTransport::Http {
            url: "https://docs.example/mcp".into(),
            headers: vec![(
                "Authorization".into(),
                Secret("Bearer docs-key-5678".into())
            )],
        }
    );
    assert_eq!(loaded.servers[0].startup_timeout, DEFAULT_STARTUP_TIMEOUT);
    assert_eq!(loaded.servers[0].tool_timeout, DEFAULT_TOOL_TIMEOUT);
    // What may not be shown is listed for redaction, and Debug hides it.
    assert_eq!(
        loaded.secrets(),
        ["ghp_secret_1234", "Bearer docs-key-5678"]
    );
    let shown = format!("{loaded:?}");
    assert!(
        !shown.contains("ghp_secret") && !shown.contains("docs-key"),
        "{shown}"
    );
}

#[test]
fn a_workspace_server_waits_for_the_users_yes() {
    let home = home();
    std::fs::write(
        home.workspace.join(".mcp.json"),
        r#"{"mcpServers": {"repo-tool": {"command": "./tools/mcp.sh"},
                           "lint": {"command": "lint-mcp"}}}"#,
    )
    .unwrap();
    let loaded = load_in(&home, &[]);
    assert!(loaded.servers.is_empty(), "{:?}", loaded.servers);
    assert_eq!(loaded.notes.len(), 2);
    assert!(
        loaded.notes[0].contains("`repo-tool` is the workspace's and starts once you allow it")
            && loaded.notes[0].contains("\"enabledMcpjsonServers\": [\"repo-tool\"]"),
        "{:?}",
        loaded.notes
    );
    // The user's local settings say yes to one; the repository's own settings
    // cannot say yes for it.
    std::fs::write(
        home.workspace.join(".claude/settings.json"),
        r#"{"enableAllProjectMcpServers": true}"#,
    )
    .unwrap();
    std::fs::write(
        home.workspace.join(".claude/settings.local.json"),
        r#"{"enabledMcpjsonServers": ["lint"]}"#,
    )
    .unwrap();
    let loaded = load_in(&home, &[]);
    let names: Vec<_> = loaded.servers.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["lint"]);
    assert_eq!(loaded.servers[0].source, ".mcp.json");
}

#[test]
fn brood_toml_uses_codex_field_names_and_comes_last() {
    let home = home();
    std::fs::write(
        home.places
            .claude_dir
            .as_ref()
            .unwrap()
            .join("settings.json"),
        r#"{"mcpServers": {"github": {"command": "old-github"}}}"#,
    )
    .unwrap();
    let user_toml = home.places.claude_dir.as_ref().unwrap().join("brood.toml");
    let tables = toml_table(
        r#"
        [mcp_servers.github]
        url = "https://api.github.example/mcp"
        bearer_token_env_var = "GH_TOKEN"
        http_headers = { "X-Client" = "brood" }
        env_http_headers = { "X-Docs" = "DOCS_KEY" }
        startup_timeout_sec = 5
        tool_timeout_sec = 2.5
        disabled_tools = ["delete_repo"]

        [mcp_servers.files]
        command = "mcp-files"
        args = ["--root", "${HOME_DIR:-/srv}"]
        env = { MODE = "ro" }
        env_vars = ["DOCS_KEY", "NOT_SET"]
        enabled_tools = ["read", "list"]

        [mcp_servers.off]
        command = "never"
        enabled = false
        "#,
    );
    // The user's brood.toml is not the workspace's: no consent needed.
    let in_workspace = (
        home.workspace.join("brood.toml"),
        toml_table("[mcp_servers.ws]\ncommand = \"ws-mcp\"\n"),
    );
    let loaded = load(
        &home.places,
        &home.workspace,
        &home.workspace,
        &[(user_toml, tables), in_workspace],
        &env,
    )
    .unwrap();
    assert!(!loaded.servers.iter().any(|s| s.name == "ws"));
    assert!(
        loaded
            .notes
            .iter()
            .any(|n| n.contains("`ws` is the workspace's")),
        "{:?}",
        loaded.notes
    );
    let github = loaded.servers.iter().find(|s| s.name == "github").unwrap();
    let McpTransport::Http { url, headers } = &github.transport else {
        panic!("{github:?}")
    };
    assert_eq!(url, "https://api.github.example/mcp");
    let headers: Vec<_> = headers
        .iter()
        .map(|(k, v)| (k.as_str(), v.expose()))
        .collect();
    assert_eq!(
        headers,
        [
            ("X-Client", "brood"),
            ("X-Docs", "docs-key-5678"),
            ("Authorization", "Bearer ghp_secret_1234")
        ]
    );
    assert_eq!(github.startup_timeout, Duration::from_secs(5));
    assert_eq!(github.tool_timeout, Duration::from_millis(2500));
    assert!(github.offers("get_issue") && !github.offers("delete_repo"));
    let files = loaded.servers.iter().find(|s| s.name == "files").unwrap();
    let McpTransport::Stdio { args, env, .. } = &files.transport else {
        panic!("{files:?}")
    };
    assert_eq!(args, &["--root", "/srv"]);
    let env: Vec<_> = env.iter().map(|(k, v)| (k.as_str(), v.expose())).collect();
    assert_eq!(env, [("MODE", "ro"), ("DOCS_KEY", "docs-key-5678")]);
    assert!(files.offers("read") && !files.offers("write"));
    assert!(!loaded.servers.iter().any(|s| s.name == "off"));
}

#[test]
fn a_broken_server_is_left_out_with_why_and_the_rest_load() {
    let home = home();
    std::fs::write(
        home.places.claude_json.as_ref().unwrap(),
        r#"{"mcpServers": {
            "needs-token": {"command": "x", "env": {"T": "${MISSING_TOKEN}"}},
            "no-command": {"args": ["a"]},
            "old-sse": {"type": "sse", "url": "http://h/sse"},
            "bad name!": {"command": "x"},
            "fine": {"command": "fine-mcp", "args": ["${EMPTY:-default}", "$PLAIN", "${EMPTY}"]}
        }}"#,
    )
    .unwrap();
    let loaded = load_in(&home, &[]);
    let names: Vec<_> = loaded.servers.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["fine"]);
    let McpTransport::Stdio { args, .. } = &loaded.servers[0].transport else {
        panic!()
    };
    assert_eq!(args, &["default", "$PLAIN", ""]);
    let notes = loaded.notes.join("\n");
    for expected in [
        "`needs-token` left out: ${MISSING_TOKEN} is not set",
        "`no-command` left out: no `command`",
        "`old-sse` left out: the old SSE transport is not supported",
        "`bad name!` left out: a server's name may hold only",
    ] {
        assert!(notes.contains(expected), "{expected}\n{notes}");
    }
}

#[test]
fn a_broken_settings_file_names_itself() {
    let home = home();
    std::fs::write(home.workspace.join(".mcp.json"), "{not json").unwrap();
    let err = load(&home.places, &home.workspace, &home.workspace, &[], &env).unwrap_err();
    assert!(err.to_string().contains(".mcp.json"), "{err}");
}

#[test]
fn expansion_keeps_what_is_not_a_variable() {
    assert_eq!(
        expand("a ${GH_TOKEN} b", &env).unwrap(),
        "a ghp_secret_1234 b"
    );
    assert_eq!(expand("${ unclosed", &env).unwrap(), "${ unclosed");
    assert_eq!(expand("${a-b} $x", &env).unwrap(), "${a-b} $x");
    assert_eq!(expand("${NOPE:-}", &env).unwrap(), "");
    assert!(expand("${NOPE}", &env).is_err());
}
