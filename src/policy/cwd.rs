//! The folder each command of a line runs in, as far as the text tells:
//! `cd / && rm -rf *` deletes `/*`, not `./*`.

use super::command::Walker;
use super::shell::Word;

/// The folder the commands of a line run in, as far as the text tells.
#[derive(Debug, Clone, Default)]
pub(super) enum Cwd {
    /// The workspace root, or a folder below it reached by relative `cd`s.
    #[default]
    Workspace,
    /// An absolute or home-relative folder (`cd /`, `cd ~`, `cd`).
    Known(String),
    /// Somewhere a `cd` took it that the text does not tell.
    Unknown,
}

impl Walker {
    /// Records where `cd`/`pushd`/`popd` with `args` goes.
    pub(super) fn change_dir(&mut self, name: &str, args: &[Word]) {
        let target = args
            .iter()
            .find(|w| !w.text.starts_with('-') || w.text == "-");
        let literal = target
            .filter(|w| name != "popd" && w.subs.is_empty() && w.text != "-")
            .map(|w| w.text.clone());
        self.dir_changes.push(literal);
        self.cwd = match (name, target) {
            ("popd", _) => Cwd::Unknown,
            ("cd", None) => Cwd::Known("~".into()),
            (_, None) => Cwd::Unknown,
            (_, Some(word)) => {
                let home = word.text == "$HOME" || word.text.starts_with("$HOME/");
                if word.text == "-" || (word.is_expanded() && !home) {
                    Cwd::Unknown
                } else if word.text.starts_with(['/', '~']) || home {
                    Cwd::Known(word.text.clone())
                } else {
                    match &self.cwd {
                        Cwd::Known(dir) => Cwd::Known(format!("{dir}/{}", word.text)),
                        Cwd::Workspace if word.text.starts_with("..") => Cwd::Unknown,
                        Cwd::Workspace => Cwd::Workspace,
                        Cwd::Unknown => Cwd::Unknown,
                    }
                }
            }
        };
    }

    /// A path argument as it resolves from the folder the command runs in,
    /// when that is known: after `cd /`, `*` is `/*`.
    pub(super) fn in_cwd(&self, path: &str) -> String {
        match &self.cwd {
            Cwd::Known(dir) if !path.starts_with(['/', '~', '$']) => format!("{dir}/{path}"),
            Cwd::Known(_) | Cwd::Workspace | Cwd::Unknown => path.to_string(),
        }
    }
}
