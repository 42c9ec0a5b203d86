//! The sandbox on this machine's kernel, through real bubblewrap: what a command
//! can and cannot write, see and reach.

use std::path::Path;
use std::process::Stdio;

use super::*;

/// Runs `script` in `sandbox` from `cwd`: exit code and the two outputs.
async fn run(sandbox: &Sandbox, cwd: &Path, script: &str) -> (i32, String, String) {
    let output = sandbox
        .command(script, cwd)
        .stdin(Stdio::null())
        .output()
        .await
        .expect("the command starts");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// A workspace inside a folder that also holds a sentinel file beside it.
struct Place {
    outer: tempfile::TempDir,
}

impl Place {
    fn new() -> Place {
        let outer = tempfile::tempdir().unwrap();
        std::fs::create_dir(outer.path().join("ws")).unwrap();
        std::fs::write(outer.path().join("sentinel"), "keep").unwrap();
        Place { outer }
    }

    fn ws(&self) -> PathBuf {
        std::fs::canonicalize(self.outer.path().join("ws")).unwrap()
    }

    fn sandbox(&self, settings: SandboxSettings) -> Sandbox {
        let sandbox = Sandbox::prepare(settings, &self.ws()).unwrap();
        assert!(
            sandbox.summary().confined() || sandbox.settings.mode == SandboxMode::Off,
            "the sandbox must work on this machine (install bubblewrap): {:?}",
            sandbox.warning()
        );
        sandbox
    }

    fn sentinel_intact(&self) -> bool {
        std::fs::read_to_string(self.outer.path().join("sentinel")).is_ok_and(|s| s == "keep")
    }
}

#[tokio::test]
async fn workspace_write_writes_only_the_workspace_and_its_temporary_folder() {
    let place = Place::new();
    let sandbox = place.sandbox(SandboxSettings::default());
    let ws = place.ws();
    let (code, out, err) = run(
        &sandbox,
        &ws,
        "echo made > inside.txt && echo t > \"$TMPDIR/t\" && cat \"$TMPDIR/t\"",
    )
    .await;
    assert_eq!((code, out.as_str()), (0, "t\n"), "{err}");
    assert_eq!(
        std::fs::read_to_string(ws.join("inside.txt")).unwrap(),
        "made\n"
    );
    for attack in [
        "rm -rf ../sentinel",
        "echo gone > ../sentinel",
        "touch ~/brood-sandbox-escape",
        "echo x > /etc/brood-sandbox-escape",
        "mv ../sentinel ./taken",
        "touch /tmp/brood-sandbox-escape",
    ] {
        let (code, _, err) = run(&sandbox, &ws, attack).await;
        assert_ne!(code, 0, "{attack} succeeded");
        assert!(err.contains("Read-only file system"), "{attack}: {err}");
    }
    assert!(place.sentinel_intact());
    assert!(!Path::new("/etc/brood-sandbox-escape").exists());
    assert!(!Path::new("/tmp/brood-sandbox-escape").exists());
}

#[tokio::test]
async fn read_only_refuses_the_workspace_too() {
    let place = Place::new();
    let sandbox = place.sandbox(SandboxSettings {
        mode: SandboxMode::ReadOnly,
        ..SandboxSettings::default()
    });
    let (code, _, err) = run(&sandbox, &place.ws(), "touch inside.txt").await;
    assert_ne!(code, 0);
    assert!(err.contains("Read-only file system"), "{err}");
    let (code, out, _) = run(&sandbox, &place.ws(), "ls /; echo ok > \"$TMPDIR/x\"").await;
    assert_eq!(code, 0, "reading and the temporary folder still work");
    assert!(out.contains("usr"), "{out}");
}

#[tokio::test]
async fn added_folders_are_writable() {
    let place = Place::new();
    let extra = tempfile::tempdir().unwrap();
    let sandbox = place.sandbox(SandboxSettings {
        writable: vec![extra.path().to_path_buf()],
        ..SandboxSettings::default()
    });
    let target = std::fs::canonicalize(extra.path()).unwrap().join("cache");
    let script = format!("echo hit > '{}'", target.display());
    let (code, _, err) = run(&sandbox, &place.ws(), &script).await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(std::fs::read_to_string(target).unwrap(), "hit\n");
}

#[tokio::test]
async fn a_command_sees_no_process_but_its_own() {
    let place = Place::new();
    let sandbox = place.sandbox(SandboxSettings::default());
    // The test binary is a process any unconfined command could see.
    let me = std::process::id();
    let script = format!(
        "ls /proc | grep -x '[0-9]*' | wc -l; test -e /proc/{me} && echo visible; \
         tr '\\0' '\\n' < /proc/$PPID/environ | grep -c . ; echo ppid=$PPID"
    );
    let (code, out, err) = run(&sandbox, &place.ws(), &script).await;
    assert_eq!(code, 0, "{err}");
    let count: u32 = out.lines().next().unwrap().trim().parse().unwrap();
    assert!(count < 10, "{count} processes visible: {out}");
    assert!(!out.contains("visible"), "{out}");
    assert!(
        out.contains("ppid=1"),
        "the parent is the sandbox's own init: {out}"
    );
}

#[tokio::test]
async fn the_network_is_off_unless_turned_on() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let script = format!("exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected");
    let place = Place::new();
    let off = place.sandbox(SandboxSettings::default());
    let (code, out, _) = run(&off, &place.ws(), &script).await;
    assert_ne!(code, 0, "reached the host's loopback: {out}");
    let on = place.sandbox(SandboxSettings {
        network: Network::On,
        ..SandboxSettings::default()
    });
    let (code, out, err) = run(&on, &place.ws(), &script).await;
    assert_eq!((code, out.as_str()), (0, "connected\n"), "{err}");
    assert_eq!(on.summary().label(), "sandboxed +net");
}

#[tokio::test]
async fn sockets_on_the_file_system_are_out_of_reach_with_the_network_off() {
    // A socket of the host's, as Docker's or an SSH agent's would be: readable
    // through the read-only mount, so only the filter keeps it out of reach.
    let place = Place::new();
    let socket = place.outer.path().join("agent.sock");
    let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    let script = format!(
        "python3 -c \"import socket; s = socket.socket(socket.AF_UNIX); s.connect('{}'); print('connected')\"",
        socket.display()
    );
    let off = place.sandbox(SandboxSettings::default());
    let (code, out, err) = run(&off, &place.ws(), &script).await;
    assert_ne!(code, 0, "reached the host's socket: {out}");
    assert!(
        err.contains("PermissionError") || err.contains("Operation not permitted"),
        "{err}"
    );
    // Pipes between processes still work.
    let (code, out, err) = run(&off, &place.ws(), "echo piped | cat; python3 -c 'import socket; a, b = socket.socketpair(); a.send(b\"x\"); print(b.recv(1))'").await;
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("piped") && out.contains("b'x'"), "{out}");
    let on = place.sandbox(SandboxSettings {
        network: Network::On,
        ..SandboxSettings::default()
    });
    let (code, out, err) = run(&on, &place.ws(), &script).await;
    assert_eq!((code, out.as_str()), (0, "connected\n"), "{err}");
}

#[tokio::test]
async fn no_terminal_no_capabilities_no_new_namespaces() {
    let place = Place::new();
    let sandbox = place.sandbox(SandboxSettings::default());
    let (_, out, _) = run(
        &sandbox,
        &place.ws(),
        "grep CapEff /proc/self/status; (exec 3<>/dev/tty) 2>/dev/null && echo tty; \
         mount -o remount,rw / 2>/dev/null && echo remounted; \
         unshare -U true 2>/dev/null && echo userns",
    )
    .await;
    assert!(out.contains("CapEff:\t0000000000000000"), "{out}");
    for escaped in ["tty", "remounted", "userns"] {
        assert!(!out.lines().any(|l| l == escaped), "{escaped}: {out}");
    }
}

#[tokio::test]
async fn without_bubblewrap_it_says_so_and_runs_with_the_policy_alone() {
    let place = Place::new();
    let sandbox = Sandbox::prepare_with(SandboxSettings::default(), &place.ws(), None).unwrap();
    assert!(!sandbox.summary().confined());
    assert_eq!(sandbox.summary().label(), "NO SANDBOX");
    let warning = sandbox.warning().unwrap();
    assert!(warning.contains("bubblewrap"), "{warning}");
    assert!(warning.contains("policy alone"), "{warning}");
    let (code, out, _) = run(&sandbox, &place.ws(), "echo ran").await;
    assert_eq!((code, out.as_str()), (0, "ran\n"));
}

#[tokio::test]
async fn a_bubblewrap_that_cannot_work_is_named_in_the_warning() {
    let place = Place::new();
    let broken = place.outer.path().join("bwrap");
    std::fs::write(
        &broken,
        "#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&broken, std::fs::Permissions::from_mode(0o755)).unwrap();
    let sandbox =
        Sandbox::prepare_with(SandboxSettings::default(), &place.ws(), Some(broken)).unwrap();
    assert!(!sandbox.summary().confined());
    let warning = sandbox.warning().unwrap();
    assert!(
        warning.contains("No permissions to create new namespace"),
        "{warning}"
    );
}

#[tokio::test]
async fn mode_off_is_named_and_unconfined() {
    let place = Place::new();
    let sandbox = place.sandbox(SandboxSettings {
        mode: SandboxMode::Off,
        ..SandboxSettings::default()
    });
    assert_eq!(sandbox.summary().label(), "SANDBOX OFF");
    assert!(sandbox.warning().unwrap().contains("--sandbox off"));
    let (code, _, err) = run(&sandbox, &place.ws(), "echo changed > ../sentinel").await;
    assert_eq!(code, 0, "{err}");
    assert!(!place.sentinel_intact());
}

#[test]
fn the_summary_round_trips_through_the_trace_header() {
    let summary = SandboxSummary {
        mode: SandboxMode::ReadOnly,
        network: Network::Off,
        enforced_by: Some("bubblewrap".into()),
        missing: None,
    };
    let text = serde_json::to_string(&summary).unwrap();
    assert_eq!(
        text,
        r#"{"mode":"read-only","network":"off","enforced_by":"bubblewrap"}"#
    );
    assert_eq!(
        serde_json::from_str::<SandboxSummary>(&text).unwrap(),
        summary
    );
}
