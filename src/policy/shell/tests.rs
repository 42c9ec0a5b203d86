use super::*;

/// Every simple command of a script in source order, substitutions excluded.
fn simples(script: &Script) -> Vec<&SimpleCommand> {
    fn command<'a>(c: &'a Command, out: &mut Vec<&'a SimpleCommand>) {
        match c {
            Command::Simple(s) => out.push(s),
            Command::Subshell { body, .. } | Command::Group { body, .. } => walk(body, out),
            Command::Function { body, .. } => command(body, out),
            Command::Case { arms, .. } => arms.iter().for_each(|a| walk(a, out)),
        }
    }
    fn walk<'a>(s: &'a Script, out: &mut Vec<&'a SimpleCommand>) {
        for item in &s.items {
            for p in &item.pipelines {
                p.commands.iter().for_each(|c| command(c, out));
            }
        }
    }
    let mut out = Vec::new();
    walk(script, &mut out);
    out
}

fn words(cmd: &SimpleCommand) -> Vec<&str> {
    cmd.words.iter().map(|w| w.text.as_str()).collect()
}

fn first_words(input: &str) -> Vec<String> {
    let script = parse(input).unwrap();
    simples(&script)[0]
        .words
        .iter()
        .map(|w| w.text.clone())
        .collect()
}

#[test]
fn quotes_and_escapes_are_removed() {
    assert_eq!(
        first_words(r#"echo 'a b' "c $d" e\ f "x\"y" 'it'\''s'"#),
        ["echo", "a b", "c $d", "e f", "x\"y", "it's"]
    );
    assert_eq!(
        first_words(r"echo $'a\tb\x41\101\'q'"),
        ["echo", "a\tbAA'q"]
    );
    assert_eq!(first_words(r#"echo $"hi there""#), ["echo", "hi there"]);
    assert_eq!(first_words("\\rm x"), ["rm", "x"]);
    assert_eq!(first_words("r\"m\" x"), ["rm", "x"]);
    assert_eq!(first_words("echo a\\\nb"), ["echo", "ab"]);
    let script = parse("\"if\" x").unwrap();
    assert!(simples(&script)[0].words[0].quoted);
}

#[test]
fn lists_and_pipelines_split_on_every_operator() {
    let script = parse("a; b && c || d | e |& f & g\nh").unwrap();
    let names: Vec<_> = simples(&script).iter().map(|s| words(s)[0]).collect();
    assert_eq!(names, ["a", "b", "c", "d", "e", "f", "g", "h"]);
    assert_eq!(script.items.len(), 4);
    assert!(script.items[1].background);
    assert!(!script.items[2].background);
    assert_eq!(script.items[1].pipelines.len(), 3);
    assert_eq!(script.items[1].pipelines[2].commands.len(), 3);
}

#[test]
fn comments_start_only_at_a_word() {
    assert_eq!(first_words("ls # rm x"), ["ls"]);
    assert_eq!(first_words("echo a#b"), ["echo", "a#b"]);
    let script = parse("# only a comment\nls").unwrap();
    assert_eq!(simples(&script).len(), 1);
}

#[test]
fn redirections_are_parsed_with_their_targets() {
    let script = parse("cmd 2>&1 >out <in >>app &>both 3<>rw >|clob arg").unwrap();
    let cmd = simples(&script)[0];
    assert_eq!(words(cmd), ["cmd", "arg"]);
    let ops: Vec<_> = cmd
        .redirects
        .iter()
        .map(|r| (r.fd, r.op, r.target.text.as_str()))
        .collect();
    assert_eq!(
        ops,
        [
            (Some(2), RedirOp::DupOut, "1"),
            (None, RedirOp::Out, "out"),
            (None, RedirOp::In, "in"),
            (None, RedirOp::Append, "app"),
            (None, RedirOp::OutBoth, "both"),
            (Some(3), RedirOp::ReadWrite, "rw"),
            (None, RedirOp::Clobber, "clob"),
        ]
    );
}

#[test]
fn substitutions_are_parsed_recursively() {
    let script =
        parse("echo $(a $(b)) `c` \"$(d)\" \"`e`\" <(f) ${x:-$(g)} $((1 + $(h)))").unwrap();
    let cmd = simples(&script)[0];
    let sub_names: Vec<Vec<&str>> = cmd
        .words
        .iter()
        .map(|w| {
            w.subs
                .iter()
                .flat_map(|s| simples(s))
                .map(|s| words(s)[0])
                .collect()
        })
        .collect();
    assert_eq!(
        sub_names,
        [
            vec![],
            vec!["a"],
            vec!["c"],
            vec!["d"],
            vec!["e"],
            vec!["f"],
            vec!["g"],
            vec!["h"]
        ]
    );
    // The inner `$(b)` hangs off the word `b` is in.
    let inner = &simples(&cmd.words[1].subs[0])[0].words[1];
    assert_eq!(simples(&inner.subs[0]).len(), 1);
    // A `)` inside quotes inside `$(…)` does not close it.
    assert_eq!(
        first_words("echo $(echo ')') x"),
        ["echo", "$(echo ')')", "x"]
    );
}

#[test]
fn heredoc_bodies_are_read_and_expanded_only_when_unquoted() {
    let script = parse("cat <<EOF | wc\nline $(x)\nEOF\necho after").unwrap();
    let all = simples(&script);
    assert_eq!(all.len(), 3);
    let doc = all[0].redirects[0].heredoc.as_ref().unwrap();
    assert_eq!(doc.body, "line $(x)\n");
    assert_eq!(doc.subs.len(), 1);
    assert_eq!(words(all[2]), ["echo", "after"]);

    let script = parse("cat <<'EOF'\n$(x)\nEOF\n").unwrap();
    let doc = simples(&script)[0].redirects[0].heredoc.clone().unwrap();
    assert!(doc.subs.is_empty());

    let script = parse("cat <<-EOF\n\tbody\n\tEOF\nls").unwrap();
    let all = simples(&script);
    assert_eq!(all[0].redirects[0].heredoc.as_ref().unwrap().body, "body\n");
    assert_eq!(words(all[1]), ["ls"]);
}

#[test]
fn assignments_need_an_unquoted_name() {
    let script = parse("A=1 B=\"x y\" C+=z cmd D=2").unwrap();
    let cmd = simples(&script)[0];
    assert_eq!(cmd.assignments.len(), 3);
    assert_eq!(words(cmd), ["cmd", "D=2"]);
    assert_eq!(first_words("\"A\"=1 x"), ["A=1", "x"]);
    assert_eq!(first_words("FOO=rm ls"), ["ls"]);
    let script = parse("arr=(rm -rf x); echo").unwrap();
    assert_eq!(simples(&script)[0].assignments[0].text, "arr=(rm -rf x)");
}

#[test]
fn compound_commands() {
    let script = parse(":(){ :|:& };:").unwrap();
    assert!(
        matches!(&script.items[0].pipelines[0].commands[0], Command::Function { name, .. } if name == ":")
    );
    assert_eq!(simples(&script).len(), 3);

    let script = parse("function f { g; }; f").unwrap();
    assert!(
        matches!(&script.items[0].pipelines[0].commands[0], Command::Function { name, .. } if name == "f")
    );

    let script = parse("case $x in a|b) one;; (c) two;& *) three;;& esac; after").unwrap();
    let names: Vec<_> = simples(&script).iter().map(|s| words(s)[0]).collect();
    assert_eq!(names, ["one", "two", "three", "after"]);

    let script = parse("[[ -f x && $a > $b || ( y ) ]] && z").unwrap();
    let all = simples(&script);
    assert_eq!(words(all[0]).last(), Some(&"]]"));
    assert!(all[0].redirects.is_empty());
    assert_eq!(words(all[1]), ["z"]);

    let script = parse("(( i > 3 )) && echo $(( j << 2 ))").unwrap();
    let all = simples(&script);
    assert_eq!(words(all[0]), ["(("]);
    assert!(all[0].redirects.is_empty());

    let script = parse("if a; then b; elif c; then d; else e; fi\nwhile f; do g; done").unwrap();
    let names: Vec<_> = simples(&script).iter().map(|s| words(s)[0]).collect();
    assert_eq!(names, ["a", "b", "c", "d", "e", "fi", "f", "g", "done"]);

    let script = parse("{ a; b; } > out; ( c ) 2>/dev/null").unwrap();
    assert!(
        matches!(&script.items[0].pipelines[0].commands[0], Command::Group { redirects, .. } if redirects.len() == 1)
    );
    assert!(
        matches!(&script.items[1].pipelines[0].commands[0], Command::Subshell { redirects, .. } if redirects.len() == 1)
    );
}

#[test]
fn malformed_lines_are_errors() {
    let cases = [
        ("echo 'abc", ParseError::UnterminatedSingleQuote),
        ("echo \"abc", ParseError::UnterminatedDoubleQuote),
        ("echo $'abc", ParseError::UnterminatedAnsiQuote),
        ("echo `ls", ParseError::UnterminatedBackquote),
        ("echo \"`ls\"", ParseError::UnterminatedBackquote),
        ("echo $(ls", ParseError::UnterminatedSubstitution),
        ("echo $(ls; (pwd)", ParseError::UnterminatedSubstitution),
        ("echo $( (pwd)", ParseError::UnterminatedSubstitution),
        ("(cd x; (ls)", ParseError::UnclosedParen),
        ("diff <(ls b", ParseError::UnterminatedProcessSubstitution),
        ("echo ${x", ParseError::UnterminatedParameter),
        ("echo $((1 + 2)", ParseError::UnterminatedArithmetic),
        ("(cd x; ls", ParseError::UnclosedParen),
        ("ls )", ParseError::UnexpectedParen),
        ("{ ls; ", ParseError::UnclosedBrace),
        ("ls; }", ParseError::UnexpectedBrace),
        ("case x in a) ls", ParseError::UnterminatedCase),
        ("[[ -f x", ParseError::UnterminatedTest),
        ("cat >", ParseError::MissingRedirectTarget(">".into())),
        ("ls &&", ParseError::Unexpected("end of input".into())),
        ("ls |", ParseError::Unexpected("end of input".into())),
        ("; ls", ParseError::Unexpected("`;`".into())),
        ("ls && && x", ParseError::Unexpected("`&&`".into())),
    ];
    for (input, expected) in cases {
        assert_eq!(parse(input).err(), Some(expected), "{input:?}");
    }
}

#[test]
fn hostile_nesting_fails_instead_of_overflowing() {
    let deep = format!("{}ls{}", "( ".repeat(5000), ")".repeat(5000));
    assert_eq!(parse(&deep).err(), Some(ParseError::TooDeep));
    let deep = format!("{}ls{}", "{ ".repeat(5000), "; }".repeat(5000));
    assert_eq!(parse(&deep).err(), Some(ParseError::TooDeep));
    let deep = format!("echo {}x{}", "$(".repeat(5000), ")".repeat(5000));
    assert_eq!(parse(&deep).err(), Some(ParseError::TooDeep));
    let deep = format!("echo {}x{}", "${a:-".repeat(500), "}".repeat(500));
    assert_eq!(parse(&deep).err(), Some(ParseError::TooDeep));
    // Moderate nesting is fine.
    assert!(parse(&format!("{}ls{}", "(".repeat(20), ")".repeat(20))).is_ok());
}
