//! POSIX shell words both ways: formatting a process block with the
//! renderer's exact quoting, and splitting such text back into commands of
//! words (for `check`).
//!
//! May use: `data`.

use crate::data::{Block, BlockKind};

/// How `nginx` runs when the data gives it no arguments; the data stores the
/// command unquoted (`-g daemon off;`), which a shell would split.
const NGINX_DEFAULT: &str = "nginx -c nginx.conf -g 'daemon off;'";

/// Quotes one word for a POSIX shell:
/// bare when it is made only of `[A-Za-z0-9_@%+=:,./-]`; in double quotes when
/// it also uses `{ }` and `$`, each `$` beginning exactly `$NAME` or
/// `${NAME}` (so `$PLACEHOLDER`s still expand, and nothing else does:
/// `${NAME:=x}` would assign, `$(…)` run); otherwise in single quotes with
/// `'` written as `'\''`.
pub(crate) fn quote(word: &str) -> String {
    let mut out = String::with_capacity(word.len() + 2);
    push_quoted(&mut out, word);
    out
}

/// [`quote`] onto the end of `out`.
fn push_quoted(out: &mut String, word: &str) {
    fn plain(c: char) -> bool {
        c.is_ascii_alphanumeric() || "_@%+=:,./-".contains(c)
    }
    if !word.is_empty() && word.chars().all(plain) {
        out.push_str(word);
    } else if !word.is_empty()
        && word.chars().all(|c| plain(c) || "${}".contains(c))
        && only_plain_expansions(word)
    {
        out.push('"');
        out.push_str(word);
        out.push('"');
    } else {
        out.push('\'');
        out.push_str(&word.replace('\'', r"'\''"));
        out.push('\'');
    }
}

/// Whether every `$` of `word` begins `$NAME` or `${NAME}`
/// (`NAME` = `[A-Za-z_][A-Za-z0-9_]*`).
fn only_plain_expansions(word: &str) -> bool {
    let b = word.as_bytes();
    let name_at = |i: usize| {
        let first = b
            .get(i)
            .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_');
        let len = b[i.min(b.len())..]
            .iter()
            .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
            .count();
        if first { len } else { 0 }
    };
    b.iter()
        .enumerate()
        .filter(|(_, c)| **c == b'$')
        .all(|(i, _)| {
            if b.get(i + 1) == Some(&b'{') {
                let len = name_at(i + 2);
                len > 0 && b.get(i + 2 + len) == Some(&b'}')
            } else {
                name_at(i + 1) > 0
            }
        })
}

/// The command text a reader copies: preamble lines, `K=V \` env lines,
/// `cmd \`, then one `  --flag values \` line per argument (the last without
/// the backslash).
///
/// Written into one buffer: decoding formats every process of every set,
/// and a `String` per line was the build's most frequent allocation.
pub(crate) fn format_block(block: &Block) -> String {
    let mut out = String::with_capacity(64 * (block.args.len() + block.env.len() + 2));
    for line in &block.preamble {
        out.push_str(line);
        out.push('\n');
    }
    // Every continued line but the first ends the one before it with ` \`.
    let mut first = true;
    let mut next_line = |out: &mut String| {
        if !first {
            out.push_str(" \\\n");
        }
        first = false;
    };
    for (k, v) in &block.env {
        next_line(&mut out);
        out.push_str(k);
        out.push('=');
        push_quoted(&mut out, v);
    }
    next_line(&mut out);
    if block.kind == BlockKind::Nginx && block.args.is_empty() {
        out.push_str(NGINX_DEFAULT);
    } else {
        out.push_str(&block.cmd);
    }
    for arg in &block.args {
        next_line(&mut out);
        out.push_str("  ");
        out.push_str(&arg.flag);
        for v in &arg.values {
            out.push(' ');
            push_quoted(&mut out, v);
        }
    }
    out
}

/// Splits shell text into commands (one per logical line) of words, the way
/// a POSIX shell reads the blocks this tool prints: quotes, backslash escapes,
/// `\`-newline continuations and `#` comments.
pub(crate) fn shell_commands(text: &str) -> Vec<Vec<String>> {
    let mut commands = Vec::new();
    let mut words: Vec<String> = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = text.chars().peekable();
    let end_word = |words: &mut Vec<String>, word: &mut String, in_word: &mut bool| {
        if *in_word {
            words.push(std::mem::take(word));
            *in_word = false;
        }
    };
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => end_word(&mut words, &mut word, &mut in_word),
            '\n' | ';' => {
                end_word(&mut words, &mut word, &mut in_word);
                if !words.is_empty() {
                    commands.push(std::mem::take(&mut words));
                }
            }
            '#' if !in_word => {
                while chars.peek().is_some_and(|c| *c != '\n') {
                    chars.next();
                }
            }
            '\\' => match chars.next() {
                Some('\n') => {}
                Some(n) => {
                    word.push(n);
                    in_word = true;
                }
                None => {}
            },
            '\'' => {
                in_word = true;
                for n in chars.by_ref() {
                    if n == '\'' {
                        break;
                    }
                    word.push(n);
                }
            }
            '"' => {
                in_word = true;
                while let Some(n) = chars.next() {
                    match n {
                        '"' => break,
                        '\\' => match chars.peek() {
                            Some('$' | '`' | '"' | '\\') => {
                                word.push(chars.next().expect("peeked"))
                            }
                            Some('\n') => {
                                chars.next();
                            }
                            _ => word.push('\\'),
                        },
                        other => word.push(other),
                    }
                }
            }
            other => {
                word.push(other);
                in_word = true;
            }
        }
    }
    end_word(&mut words, &mut word, &mut in_word);
    if !words.is_empty() {
        commands.push(words);
    }
    commands
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::Arg;

    #[test]
    fn quoting_table() {
        let cases: &[(&str, &str)] = &[
            ("30000", "30000"),
            (
                "RadixArk/Qwen3.8-Flash-Next-NVFP4",
                "RadixArk/Qwen3.8-Flash-Next-NVFP4",
            ),
            ("expandable_segments:True", "expandable_segments:True"),
            ("a,b+c=d@e%f", "a,b+c=d@e%f"),
            ("http://$ETCD_IP:2379", "\"http://$ETCD_IP:2379\""),
            ("$NODE_IP", "\"$NODE_IP\""),
            ("${NODE_IP}:8700", "\"${NODE_IP}:8700\""),
            ("", "''"),
            ("two words", "'two words'"),
            ("it's", r"'it'\''s'"),
            ("$HOME and more", "'$HOME and more'"),
            // Only `$NAME` and `${NAME}` expand; any other use of `$` is
            // kept literal, so nothing runs or assigns in the reader's shell.
            ("${NODE_IP:=1.2.3.4}", "'${NODE_IP:=1.2.3.4}'"),
            ("${NODE_IP}${ETCD_IP}x", "\"${NODE_IP}${ETCD_IP}x\""),
            ("{x}", "\"{x}\""),
            ("${NODE_IP", "'${NODE_IP'"),
            ("${}", "'${}'"),
            ("$1", "'$1'"),
            ("a$", "'a$'"),
            ("$$", "'$$'"),
            ("${#NODE_IP}", "'${#NODE_IP}'"),
            (
                r#"{"enable_group_semantics":true}"#,
                r#"'{"enable_group_semantics":true}'"#,
            ),
            ("tcp://*:5557", "'tcp://*:5557'"),
            ("daemon off;", "'daemon off;'"),
            ("None", "None"),
            ("a\"b", "'a\"b'"),
            ("naïve", "'naïve'"),
        ];
        for (input, want) in cases {
            assert_eq!(&quote(input), want, "quote({input:?})");
        }
    }

    fn block(kind: BlockKind, cmd: &str) -> Block {
        Block::new(kind, cmd)
    }

    #[test]
    fn argless_blocks() {
        assert_eq!(
            format_block(&block(BlockKind::Nats, "nats-server -js -sd /tmp/nats")),
            "nats-server -js -sd /tmp/nats"
        );
        assert_eq!(
            format_block(&block(
                BlockKind::Nginx,
                "nginx -c nginx.conf -g daemon off;"
            )),
            "nginx -c nginx.conf -g 'daemon off;'"
        );
        let mut b = block(BlockKind::Nats, "nats-server -c nats.conf");
        b.env.insert("A".into(), "1".into());
        assert_eq!(format_block(&b), "A=1 \\\nnats-server -c nats.conf");
    }

    #[test]
    fn preamble_env_args() {
        let mut b = block(
            BlockKind::MooncakeStore,
            "python -m mooncake.mooncake_store_service",
        );
        b.preamble = vec!["ulimit -n 1048576".into(), "ulimit -l unlimited".into()];
        b.env.insert("Z".into(), "$NODE_IP".into());
        b.env.insert("A".into(), "x y".into());
        b.args = vec![
            Arg::new("--port", &["8800"]),
            Arg::new("--multi", &["a", "b c"]),
        ];
        assert_eq!(
            format_block(&b),
            "ulimit -n 1048576\nulimit -l unlimited\nA='x y' \\\nZ=\"$NODE_IP\" \\\n\
             python -m mooncake.mooncake_store_service \\\n  --port 8800 \\\n  --multi a 'b c'"
        );
    }

    #[test]
    fn shell_words() {
        let text = "A=1 \\\nB=\"http://$X:1\" \\\npython3 -m sglang.launch_server \\\n  --a '{\"k\":true}' \\\n  --b 'it'\\''s' \\\n  --c \"\" x\\ y\nulimit -n 1 # comment\n";
        let cmds = shell_commands(text);
        assert_eq!(
            cmds,
            vec![
                vec![
                    "A=1",
                    "B=http://$X:1",
                    "python3",
                    "-m",
                    "sglang.launch_server",
                    "--a",
                    "{\"k\":true}",
                    "--b",
                    "it's",
                    "--c",
                    "",
                    "x y"
                ],
                vec!["ulimit", "-n", "1"],
            ]
        );
        let nginx = shell_commands("nginx -c nginx.conf -g 'daemon off;'");
        assert_eq!(
            nginx,
            vec![vec!["nginx", "-c", "nginx.conf", "-g", "daemon off;"]]
        );
    }
}
