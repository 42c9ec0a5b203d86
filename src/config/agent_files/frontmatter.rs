//! The front matter of a Markdown agent file: YAML between `---` lines at the
//! top, then the body, which becomes the agent's system prompt.
//!
//! Agent files shared in public collections are often not valid YAML: a
//! `description` written as one plain line full of `Context:` and `user:`, or
//! continued on unindented lines with `<example>` blocks. Claude Code has
//! loaded such files in some versions and skipped them in others. brood reads
//! the YAML first; when that fails it reads the block again as lines of
//! `key: value`, where only the format's own field names start a field and
//! every other line goes on with the field before, and says so.

use yaml_rust2::{Yaml, YamlLoader};

/// A front matter value, as far as agent files need one.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Field {
    Text(String),
    Number(i64),
    Flag(bool),
    List(Vec<Field>),
    Map(Vec<(String, Field)>),
    Empty,
}

impl Field {
    /// The value as text, if it is a scalar.
    pub fn text(&self) -> Option<String> {
        match self {
            Field::Text(s) => Some(s.clone()),
            Field::Number(n) => Some(n.to_string()),
            Field::Flag(b) => Some(b.to_string()),
            Field::List(_) | Field::Map(_) | Field::Empty => None,
        }
    }
}

/// The fields of a front matter in file order, each with the file line its
/// key is on.
#[derive(Debug, Default)]
pub(super) struct Fields {
    pub fields: Vec<(String, Field, usize)>,
}

impl Fields {
    pub fn get(&self, key: &str) -> Option<(&Field, usize)> {
        self.fields
            .iter()
            .find(|(k, ..)| k == key)
            .map(|(_, f, line)| (f, *line))
    }
}

/// An agent file split into its fields and its body.
#[derive(Debug)]
pub(super) struct Document {
    pub fields: Fields,
    pub body: String,
    /// Why the YAML could not be read, when the fields were read as lines.
    pub lenient: Option<String>,
}

/// Why a file has no front matter to read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(super) enum FrontMatterError {
    #[error("line 1: no front matter (the file must start with a `---` line)")]
    Missing,
    #[error("line 1: the front matter opened here is never closed by a `---` line")]
    Unclosed,
    #[error("line {line}: {problem}")]
    Unreadable { line: usize, problem: String },
}

/// Splits `text` (a byte-order mark and CRLF line ends allowed) and reads its
/// front matter; `keys` are the field names the format knows, for the lenient
/// reading.
pub(super) fn parse(text: &str, keys: &[&str]) -> Result<Document, FrontMatterError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let text = text.replace("\r\n", "\n");
    let mut lines = text.split('\n');
    if lines.next().map(str::trim_end) != Some("---") {
        return Err(FrontMatterError::Missing);
    }
    let mut yaml = Vec::new();
    let mut closed = false;
    for line in lines.by_ref() {
        if matches!(line.trim_end(), "---" | "...") {
            closed = true;
            break;
        }
        yaml.push(line);
    }
    if !closed {
        return Err(FrontMatterError::Unclosed);
    }
    let body = lines.collect::<Vec<_>>().join("\n").trim().to_string();
    match strict(&yaml.join("\n")) {
        Ok(fields) => Ok(Document {
            fields: with_lines(fields, &yaml),
            body,
            lenient: None,
        }),
        Err(problem) => {
            let fields = lenient(&yaml, keys);
            if fields.fields.is_empty() {
                return Err(problem);
            }
            let why = problem.to_string();
            Ok(Document {
                fields,
                body,
                lenient: Some(why),
            })
        }
    }
}

/// The front matter read as YAML: a mapping, or nothing at all.
fn strict(yaml: &str) -> Result<Vec<(String, Field)>, FrontMatterError> {
    let docs = YamlLoader::load_from_str(yaml).map_err(|e| FrontMatterError::Unreadable {
        // The front matter starts on the file's second line.
        line: e.marker().line() + 1,
        problem: e.info().to_string(),
    })?;
    match docs.into_iter().next() {
        None | Some(Yaml::Null) => Ok(Vec::new()),
        Some(Yaml::Hash(hash)) => Ok(hash
            .into_iter()
            .filter_map(|(k, v)| Some((scalar(&k)?, field(v))))
            .collect()),
        Some(_) => Err(FrontMatterError::Unreadable {
            line: 2,
            problem: "the front matter is not a list of `key: value` fields".into(),
        }),
    }
}

fn scalar(yaml: &Yaml) -> Option<String> {
    match yaml {
        Yaml::String(s) | Yaml::Real(s) => Some(s.clone()),
        Yaml::Integer(n) => Some(n.to_string()),
        Yaml::Boolean(b) => Some(b.to_string()),
        Yaml::Array(_) | Yaml::Hash(_) | Yaml::Alias(_) | Yaml::Null | Yaml::BadValue => None,
    }
}

fn field(yaml: Yaml) -> Field {
    match yaml {
        Yaml::String(s) | Yaml::Real(s) => Field::Text(s),
        Yaml::Integer(n) => Field::Number(n),
        Yaml::Boolean(b) => Field::Flag(b),
        Yaml::Array(items) => Field::List(items.into_iter().map(field).collect()),
        Yaml::Hash(hash) => Field::Map(
            hash.into_iter()
                .filter_map(|(k, v)| Some((scalar(&k)?, field(v))))
                .collect(),
        ),
        Yaml::Alias(_) | Yaml::Null | Yaml::BadValue => Field::Empty,
    }
}

/// Puts each field on the file line its key starts (the first line at the
/// left margin that names it).
fn with_lines(fields: Vec<(String, Field)>, yaml: &[&str]) -> Fields {
    let line_of = |key: &str| {
        yaml.iter()
            .position(|l| {
                let l = l.trim_start_matches(['"', '\'']);
                l.starts_with(key)
                    && l[key.len()..]
                        .trim_start_matches(['"', '\''])
                        .starts_with(':')
            })
            .map_or(1, |i| i + 2)
    };
    Fields {
        fields: fields
            .into_iter()
            .map(|(k, f)| {
                let line = line_of(&k);
                (k, f, line)
            })
            .collect(),
    }
}

/// The front matter read as lines: `key: value` at the left margin for a
/// key of `keys` starts a field; `- item` lines under an empty one make a
/// list; any other line goes on with the field before.
fn lenient(yaml: &[&str], keys: &[&str]) -> Fields {
    let mut fields: Vec<(String, Vec<String>, usize)> = Vec::new();
    for (i, line) in yaml.iter().enumerate() {
        let starts = line.split_once(':').filter(|(key, rest)| {
            keys.contains(key) && (rest.is_empty() || rest.starts_with([' ', '\t']))
        });
        match (starts, fields.last_mut()) {
            (Some((key, rest)), _) => {
                fields.push((key.to_string(), vec![rest.trim().to_string()], i + 2))
            }
            (None, Some((_, values, _))) => values.push(line.to_string()),
            (None, None) => {}
        }
    }
    Fields {
        fields: fields
            .into_iter()
            .map(|(key, values, line)| (key, lenient_value(values), line))
            .collect(),
    }
}

/// A field read as lines: a list when its first line is empty and the rest
/// are `- item`s, else text (quotes around a one-line value taken off).
fn lenient_value(values: Vec<String>) -> Field {
    let rest: Vec<&str> = values[1..]
        .iter()
        .map(|l| l.trim())
        .filter(|l| !l.is_empty())
        .collect();
    if values[0].is_empty() && !rest.is_empty() && rest.iter().all(|l| l.starts_with("- ")) {
        return Field::List(
            rest.iter()
                .map(|l| Field::Text(unquote(l[2..].trim()).to_string()))
                .collect(),
        );
    }
    let text = values.join("\n").trim().to_string();
    if text.is_empty() {
        return Field::Empty;
    }
    Field::Text(unquote(&text).to_string())
}

fn unquote(s: &str) -> &str {
    for q in ['"', '\''] {
        if s.len() >= 2 && s.starts_with(q) && s.ends_with(q) {
            return &s[1..s.len() - 1];
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEYS: &[&str] = &["name", "description", "tools", "model"];

    #[test]
    fn yaml_front_matter_with_a_body() {
        let doc = parse(
            "\u{feff}---\r\nname: reviewer\r\ntools:\r\n  - Read\r\n  - Grep\r\n---\r\n\r\nYou review.\r\n",
            KEYS,
        )
        .unwrap();
        assert_eq!(doc.lenient, None);
        assert_eq!(doc.body, "You review.");
        assert_eq!(
            doc.fields.get("name"),
            Some((&Field::Text("reviewer".into()), 2))
        );
        assert_eq!(
            doc.fields.get("tools"),
            Some((
                &Field::List(vec![Field::Text("Read".into()), Field::Text("Grep".into())]),
                3
            ))
        );
    }

    /// The shape many public agents have: `: ` inside a plain description,
    /// continued on lines at the left margin.
    #[test]
    fn a_description_that_is_not_yaml_is_read_as_lines() {
        let text = "---\nname: hunter\ndescription: Use this agent after a change. Examples:\n<example>\nContext: a fix was made.\nuser: \"Review it\"\n</example>\ntools: Read, Grep\nmodel: haiku\n---\nBody.\n";
        let doc = parse(text, KEYS).unwrap();
        assert!(
            doc.lenient
                .as_deref()
                .is_some_and(|w| w.starts_with("line 3")),
            "{:?}",
            doc.lenient
        );
        let (description, line) = doc.fields.get("description").unwrap();
        let description = description.text().unwrap();
        assert!(description.starts_with("Use this agent after a change. Examples:\n<example>"));
        assert!(description.contains("user: \"Review it\""), "{description}");
        assert_eq!(line, 3);
        assert_eq!(
            doc.fields.get("tools").map(|(f, _)| f.text()),
            Some(Some("Read, Grep".into()))
        );
        assert_eq!(doc.fields.get("model").map(|(_, l)| l), Some(9));
    }

    #[test]
    fn files_without_front_matter_say_what_is_missing() {
        assert_eq!(
            parse("# Reviewer\n", KEYS).unwrap_err(),
            FrontMatterError::Missing
        );
        assert_eq!(
            parse("---\nname: x\n", KEYS).unwrap_err(),
            FrontMatterError::Unclosed
        );
        let err = parse("---\n[unclosed\n---\n", KEYS).unwrap_err();
        assert!(matches!(err, FrontMatterError::Unreadable { .. }), "{err}");
    }
}
