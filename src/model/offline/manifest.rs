//! What package manifests say the entry point is: package.json's `bin` and
//! `main`, pyproject's `[project.scripts]` and setup files' console scripts,
//! Cargo's `path` and, by convention, `src/bin/<name>/main.rs`.

use super::rank::is_auxiliary_folder;
use super::results::Hit;

/// What being named by a package manifest's entry field counts: the manifest
/// says what the entry point is, so this outweighs everything else.
const MANIFEST_EXECUTABLE: f64 = 100.0;
/// A library's entry (`"main"` in package.json) counts a little less than an
/// executable's (`"bin"`, `[project.scripts]`, `[[bin]] path`).
const MANIFEST_LIBRARY: f64 = 80.0;

/// The files the manifests in `lines` name as entry points and that are
/// worth reading when no search found them: executables first, from manifests
/// outside tests and fixtures, named by an explicit path (a Python module may
/// sit in two layouts and a conventional path may not exist: those count only
/// once a search has seen them).
pub(super) fn entry_files(lines: &[Hit]) -> Vec<String> {
    let mut entries: Vec<Entry> = entries(lines)
        .into_iter()
        .filter(|e| e.source == EntrySource::Path && manifest_factor(&e.line.path) >= 0.5)
        .collect();
    entries.sort_by_key(|e| match e.kind {
        EntryKind::Executable => 0,
        EntryKind::Library => 1,
    });
    let mut out: Vec<String> = Vec::new();
    for entry in entries {
        if !out.contains(&entry.target) {
            out.push(entry.target);
        }
    }
    out
}

/// How much a manifest's word counts: the root manifest's fully, a nested
/// one's (a workspace member, a tool) less, one in tests, fixtures or examples
/// hardly.
fn manifest_factor(path: &str) -> f64 {
    let folders: Vec<String> = path
        .to_lowercase()
        .split('/')
        .rev()
        .skip(1)
        .map(String::from)
        .collect();
    if folders.iter().any(|f| is_auxiliary_folder(f)) {
        return 0.1;
    }
    match folders.len() {
        0 => 1.0,
        _ => 0.6,
    }
}

/// package.json keys that name a library's entry rather than a command.
const LIBRARY_KEYS: &[&str] = &[
    "main", "module", "exports", "default", "import", "require", "node", "browser", "types",
];

/// What a manifest's entry field names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum EntryKind {
    Executable,
    Library,
}

impl EntryKind {
    fn value(self) -> f64 {
        match self {
            EntryKind::Executable => MANIFEST_EXECUTABLE,
            EntryKind::Library => MANIFEST_LIBRARY,
        }
    }
}

/// A source file a package manifest names as an entry point.
#[derive(Debug, Clone)]
pub(super) struct Entry {
    /// The file, from the workspace root.
    pub target: String,
    /// The manifest line that names it.
    pub line: Hit,
    kind: EntryKind,
    source: EntrySource,
}

impl Entry {
    /// What this entry counts in the ranking: the root manifest's most, a
    /// test fixture's hardly at all.
    pub fn weight(&self) -> f64 {
        self.kind.value() * manifest_factor(&self.line.path)
    }
}

/// How a manifest line names its entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum EntrySource {
    /// A path, as written.
    Path,
    /// A Python module, which may be a file or a package, flat or in `src/`.
    Module,
    /// Only where Cargo looks by convention (`name = "x"` → `src/bin/x.rs`).
    Convention,
}

/// The source files package manifests name as entry points, each with the
/// manifest line naming it: `"bin": "bin/cli.js"`, `path = "src/bin/x.rs"`,
/// `tool = "pkg.cli:main"` (a module, so `pkg/cli.py`).
pub(super) fn entries(lines: &[Hit]) -> Vec<Entry> {
    let mut out = Vec::new();
    for hit in lines {
        let key = hit.text.trim_start().trim_start_matches(['"', '\'']);
        let kind = match LIBRARY_KEYS
            .iter()
            .any(|k| key.starts_with(&format!("{k}\"")))
        {
            true => EntryKind::Library,
            false => EntryKind::Executable,
        };
        // A manifest's paths are relative to its own folder.
        let folder = hit.path.rsplit_once('/').map(|(dir, _)| dir);
        let mut push = |target: String, source: EntrySource| {
            let target = match folder {
                Some(dir) => format!("{dir}/{target}"),
                None => target,
            };
            out.push(Entry {
                target,
                line: hit.clone(),
                kind,
                source,
            })
        };
        // Cargo's `name = "x"` of a package or a `[[bin]]` without a path:
        // the binary is where Cargo looks for it.
        let cargo = hit.path == "Cargo.toml" || hit.path.ends_with("/Cargo.toml");
        if cargo && let Some(name) = cargo_name(&hit.text) {
            push("src/main.rs".to_string(), EntrySource::Convention);
            push(format!("src/bin/{name}.rs"), EntrySource::Convention);
            push(format!("src/bin/{name}/main.rs"), EntrySource::Convention);
            continue;
        }
        for quoted in hit.text.split(['"', '\'']).skip(1).step_by(2) {
            let target = quoted.trim().trim_start_matches("./");
            let target = target.split_whitespace().last().unwrap_or(target);
            if let Some((module, _function)) = target.split_once(':')
                && !module.is_empty()
                && module
                    .chars()
                    .all(|c| c.is_alphanumeric() || c == '_' || c == '.')
            {
                // A module: a file or a package, in a flat or a `src/` layout.
                let module = module.replace('.', "/");
                for layout in ["", "src/"] {
                    push(format!("{layout}{module}.py"), EntrySource::Module);
                    push(format!("{layout}{module}/__init__.py"), EntrySource::Module);
                }
            } else if is_source_path(target) {
                push(target.to_string(), EntrySource::Path);
            }
        }
    }
    out
}

/// `name = "cargo"` → `cargo`.
fn cargo_name(line: &str) -> Option<&str> {
    let value = line
        .trim()
        .strip_prefix("name")?
        .trim_start()
        .strip_prefix('=')?;
    let name = value.trim().strip_prefix('"')?.strip_suffix('"')?;
    (!name.is_empty()).then_some(name)
}

fn is_source_path(text: &str) -> bool {
    const SOURCE: &[&str] = &[
        ".js", ".mjs", ".cjs", ".ts", ".mts", ".rs", ".py", ".go", ".rb",
    ];
    !text.contains(' ') && !text.ends_with(".d.ts") && SOURCE.iter().any(|ext| text.ends_with(ext))
}

/// The grep pattern for manifests' entry fields, and the files it searches.
pub(super) const MANIFEST_PATTERN: &str = r#"^name\s*=\s*"[\w.-]+"|^\s*"(?:main|bin|module|exports)"\s*:|^\s*"[\w@./-]+"\s*:\s*"\.?/?[\w@./-]+\.(?:m?js|cjs|ts)"|^\s*path\s*=|^\s*[\w.-]+\s*=\s*["'][\w.]+:[\w.]+["']|["'][\w.-]+\s*=\s*[\w.]+:[\w.]+["']"#;
pub(super) const MANIFEST_GLOB: &str =
    "{package.json,Cargo.toml,pyproject.toml,setup.py,setup.cfg}";

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(path: &str, line: u64, text: &str) -> Hit {
        Hit {
            path: path.into(),
            line,
            text: text.into(),
        }
    }

    #[test]
    fn manifests_name_entry_files() {
        let found = entries(&[
            hit("package.json", 5, r#"    "mytool": "./bin/mytool.js""#),
            hit("package.json", 3, r#"  "main": "lib/index.js","#),
            hit("pyproject.toml", 9, r#"mytool = "mytool.cli:main""#),
        ]);
        let targets: Vec<&str> = found.iter().map(|e| e.target.as_str()).collect();
        assert_eq!(
            targets,
            [
                "bin/mytool.js",
                "lib/index.js",
                "mytool/cli.py",
                "mytool/cli/__init__.py",
                "src/mytool/cli.py",
                "src/mytool/cli/__init__.py"
            ]
        );
        let kinds: Vec<EntryKind> = found.iter().map(|e| e.kind).collect();
        use EntryKind::{Executable, Library};
        assert_eq!(kinds[..3], [Executable, Library, Executable]);
        let cargo = entries(&[hit("Cargo.toml", 2, r#"name = "cargo""#)]);
        let targets: Vec<&str> = cargo.iter().map(|e| e.target.as_str()).collect();
        assert_eq!(
            targets,
            ["src/main.rs", "src/bin/cargo.rs", "src/bin/cargo/main.rs"]
        );
        assert!(entry_files(&[hit("Cargo.toml", 2, r#"name = "cargo""#)]).is_empty());
        let files = entry_files(&[
            hit("pkg/package.json", 3, r#"  "main": "lib/index.js","#),
            hit("package.json", 3, r#"  "bin": "cli.js","#),
            hit("tests/fixture/package.json", 3, r#"  "bin": "x.js","#),
            hit("pyproject.toml", 9, r#"mytool = "mytool.cli:main""#),
        ]);
        assert_eq!(files, ["cli.js", "pkg/lib/index.js"]);
    }
}
