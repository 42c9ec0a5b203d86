//! Commands that replace or remove a file as a side effect of their job: a
//! copy or move onto a file that exists, `ln -f`, an archive written over a
//! file, `gzip` replacing its input, `sort -o`, a download saved over a file,
//! `sed`'s `w` and `e` commands. Each asks, unless (where brood can tell) no
//! file is there yet, so nothing is lost.

use super::command::Walker;
use super::rules::{short_has, show};
use super::shell::Word;
use crate::event::Decision;

impl Walker {
    /// `cp`/`mv`/`install SRC… DEST` (or `-t DEST SRC…`): asks when DEST, or
    /// DEST/NAME for a folder, already holds a file.
    pub(super) fn copies_over(&mut self, words: &[Word], name: &str) {
        let rest = &words[1..];
        let target_flag = rest
            .iter()
            .position(|w| w.text == "-t" || w.text == "--target-directory")
            .and_then(|i| rest.get(i + 1))
            .map(|w| w.text.clone())
            .or_else(|| {
                rest.iter()
                    .find_map(|w| w.text.strip_prefix("--target-directory="))
                    .map(str::to_string)
            });
        let positional: Vec<&Word> = positional(
            rest,
            &[
                "-t",
                "--target-directory",
                "-S",
                "--suffix",
                "-m",
                "--mode",
                "-o",
                "--owner",
                "-g",
                "--group",
            ],
        );
        let (target, sources): (String, Vec<&Word>) = match target_flag {
            Some(target) => (target, positional),
            None if positional.len() >= 2 => {
                let (last, sources) = positional
                    .split_last()
                    .map_or((None, Vec::new()), |(l, s)| (Some(*l), s.to_vec()));
                match last {
                    Some(last) => (last.text.clone(), sources),
                    None => return,
                }
            }
            None => return,
        };
        let no_clobber = rest.iter().any(|w| {
            w.text == "--no-clobber" || w.text == "--update=none" || short_has(&w.text, &['n'])
        });
        if no_clobber {
            return;
        }
        let names = sources.iter().map(|w| base_name(&w.text)).collect();
        let what = format!("`{name} … {target}`");
        self.overwrites(
            &target,
            names,
            format!("{what} replaces what is at {target} if anything is"),
        );
    }

    /// `ln -f`/`ln -sf TARGET… LINK`: the link replaces what is there.
    pub(super) fn links_over(&mut self, words: &[Word]) {
        let rest = &words[1..];
        let force = rest
            .iter()
            .any(|w| w.text == "--force" || short_has(&w.text, &['f']));
        let positional = positional(rest, &["-t", "--target-directory", "-S", "--suffix"]);
        if !force || positional.len() < 2 {
            return;
        }
        if let Some((link, targets)) = positional.split_last() {
            let names = targets.iter().map(|w| base_name(&w.text)).collect();
            self.overwrites(
                &link.text,
                names,
                format!(
                    "`ln -f … {}` replaces {} if it exists",
                    link.text, link.text
                ),
            );
        }
    }

    /// `tar` writing an archive over a file, or extracting over files.
    pub(super) fn archives(&mut self, words: &[Word]) {
        let rest = &words[1..];
        let Some(first) = rest.first() else {
            return;
        };
        // The first argument may be a bundle without a dash (`tar czf x.tgz`).
        let bundle = first.text.trim_start_matches('-');
        let bundled =
            !first.text.starts_with("--") && bundle.chars().all(|c| c.is_ascii_alphabetic());
        let has = |letter: char, long: &str| {
            (bundled && bundle.contains(letter))
                || rest
                    .iter()
                    .any(|w| w.text == long || short_has(&w.text, &[letter]))
        };
        let file = rest
            .iter()
            .position(|w| {
                w.text == "-f"
                    || w.text == "--file"
                    || (bundled && w.text == first.text && bundle.ends_with('f'))
            })
            .and_then(|i| rest.get(i + 1))
            .map(|w| w.text.clone())
            .or_else(|| {
                rest.iter()
                    .find_map(|w| w.text.strip_prefix("--file="))
                    .map(str::to_string)
            });
        if has('c', "--create") {
            if let Some(file) = file.filter(|f| f != "-") {
                let path = self.in_cwd(&file);
                self.empties(
                    &path,
                    format!("`tar -c` writes the archive {file} over it if it exists"),
                );
            }
        } else if has('x', "--extract")
            && !has('k', "--keep-old-files")
            && !rest
                .iter()
                .any(|w| matches!(w.text.as_str(), "--skip-old-files" | "--keep-newer-files"))
        {
            self.add(
                Decision::Ask,
                format!("`{}` may overwrite files where it extracts", show(words)),
                Some(words),
            );
        }
    }

    /// `gzip FILE` and friends replace FILE by its compressed (or expanded)
    /// copy; `zip -m` deletes what it archives.
    pub(super) fn compresses(&mut self, words: &[Word], name: &str) {
        let rest = &words[1..];
        let keeps = rest.iter().any(|w| {
            matches!(
                w.text.as_str(),
                "--stdout" | "--to-stdout" | "--keep" | "--list" | "--test"
            ) || short_has(&w.text, &['c', 'k', 'l', 't'])
        });
        let removes = match name {
            // zstd and lz4 keep their input unless told.
            "zstd" | "unzstd" | "lz4" => rest.iter().any(|w| w.text == "--rm"),
            "zip" => rest
                .iter()
                .any(|w| w.text == "--move" || short_has(&w.text, &['m'])),
            _ => !keeps,
        };
        let files = positional(rest, &["-S", "--suffix", "-b", "-L", "-n", "-T", "-#"]).len();
        if removes && files > 0 {
            self.add(
                Decision::Ask,
                format!(
                    "`{}` replaces or deletes the files it is given",
                    show(words)
                ),
                Some(words),
            );
        }
    }

    /// `sort -o FILE`, `curl -o FILE`, `wget -O FILE`: the output replaces the
    /// file; a download named by the server (`curl -O`) asks.
    pub(super) fn saves_to(&mut self, words: &[Word], name: &str) {
        let rest = &words[1..];
        let flags: &[&str] = match name {
            "sort" => &["-o", "--output"],
            "curl" => &["-o", "--output"],
            _ => &["-O", "--output-document"],
        };
        let mut targets: Vec<String> = rest
            .windows(2)
            .filter(|pair| flags.contains(&pair[0].text.as_str()))
            .map(|pair| pair[1].text.clone())
            .collect();
        for word in rest {
            for flag in flags.iter().filter(|f| f.starts_with("--")) {
                if let Some(value) = word.text.strip_prefix(&format!("{flag}=")) {
                    targets.push(value.to_string());
                }
            }
        }
        for target in targets.into_iter().filter(|t| t != "-" && t != "/dev/null") {
            let path = self.in_cwd(&target);
            self.empties(
                &path,
                format!("`{name}` writes its output over {target} if it exists"),
            );
        }
        if name == "curl"
            && rest.iter().any(|w| {
                w.text == "--remote-name" || w.text == "--remote-name-all" || w.text == "-O"
            })
        {
            self.add(
                Decision::Ask,
                format!(
                    "`{}` saves a file under a name the server picks",
                    show(words)
                ),
                Some(words),
            );
        }
    }

    /// `sed`'s `w FILE`/`W FILE` commands write files, and `e` runs its text as
    /// a command: neither is the stream editing `sed` is allowed for.
    pub(super) fn sed_script(&mut self, words: &[Word], name: &str) {
        let scripts = sed_scripts(&words[1..]);
        for script in scripts {
            if writes_or_runs(&script) {
                self.add(
                    Decision::Ask,
                    format!(
                        "the `{name}` script `{}` writes files or runs commands (`w`, `W`, `e`)",
                        script.trim()
                    ),
                    Some(words),
                );
                return;
            }
        }
    }

    /// Asks unless `target` holds no file, nor (as a folder) a file of any of
    /// `names`.
    fn overwrites(&mut self, target: &str, names: Vec<String>, reason: String) {
        let target = self.in_cwd(target);
        let mut candidates = vec![target.clone()];
        candidates.extend(
            names
                .into_iter()
                .map(|n| format!("{}/{n}", target.trim_end_matches('/'))),
        );
        self.replaces(candidates, reason);
    }
}

/// The words that are not options, skipping the values of `with_value` options.
fn positional<'a>(rest: &'a [Word], with_value: &[&str]) -> Vec<&'a Word> {
    let mut out = Vec::new();
    let mut skip = false;
    let mut options_done = false;
    for word in rest {
        if skip {
            skip = false;
            continue;
        }
        let text = word.text.as_str();
        if !options_done && text == "--" {
            options_done = true;
            continue;
        }
        if !options_done && text.starts_with('-') && text != "-" {
            skip = with_value.contains(&text);
            continue;
        }
        out.push(word);
    }
    out
}

/// The last component of a path as written.
fn base_name(path: &str) -> String {
    path.trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or(path)
        .to_string()
}

/// The scripts a `sed` call runs: `-e`/`--expression` values, else the first
/// non-option argument.
fn sed_scripts(rest: &[Word]) -> Vec<String> {
    let mut scripts: Vec<String> = rest
        .windows(2)
        .filter(|pair| matches!(pair[0].text.as_str(), "-e" | "--expression"))
        .map(|pair| pair[1].text.clone())
        .collect();
    scripts.extend(
        rest.iter()
            .filter_map(|w| w.text.strip_prefix("--expression=").map(str::to_string)),
    );
    if scripts.is_empty()
        && !rest
            .iter()
            .any(|w| w.text == "-f" || w.text.starts_with("--file"))
    {
        scripts.extend(
            positional(
                rest,
                &[
                    "-e",
                    "--expression",
                    "-f",
                    "--file",
                    "-l",
                    "--line-length",
                    "-s",
                ],
            )
            .first()
            .map(|w| w.text.clone()),
        );
    }
    scripts
}

/// Whether a sed script has a `w`/`W` or `e` command, or an `s` command with
/// the `w` or `e` flag. A command letter follows the start, `;`, a newline,
/// `{`, `}`, an address (a digit, `$`, or the `/` that closes a regex).
fn writes_or_runs(script: &str) -> bool {
    let chars: Vec<char> = script.chars().collect();
    for (i, c) in chars.iter().enumerate() {
        if !matches!(c, 'w' | 'W' | 'e') {
            continue;
        }
        let before = chars[..i].iter().rev().find(|c| !c.is_whitespace());
        let after = chars.get(i + 1);
        let starts_command = match before {
            None => true,
            Some(b) => {
                matches!(b, ';' | '{' | '}' | '$' | '/' | '!') || b.is_ascii_digit() || *b == '\n'
            }
        };
        let ends_word = after.is_none_or(|a| a.is_whitespace() || *a == ';' || *a == '}');
        if starts_command && ends_word {
            return true;
        }
    }
    false
}
