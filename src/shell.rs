//! Shell formatting of one process block, with the renderer's exact quoting.

use crate::data::{Block, BlockKind};

/// How `nginx` runs when the data gives it no arguments; the data stores the
/// command unquoted (`-g daemon off;`), which a shell would split.
const NGINX_DEFAULT: &str = "nginx -c nginx.conf -g 'daemon off;'";

/// Quotes one word for a POSIX shell:
/// bare when it is made only of `[A-Za-z0-9_@%+=:,./-]`; in double quotes when
/// it also uses `$ { }` (so `$PLACEHOLDER`s still expand); otherwise in single
/// quotes with `'` written as `'\''`.
pub(crate) fn quote(word: &str) -> String {
    fn plain(c: char) -> bool {
        c.is_ascii_alphanumeric() || "_@%+=:,./-".contains(c)
    }
    if !word.is_empty() && word.chars().all(plain) {
        word.to_string()
    } else if !word.is_empty() && word.chars().all(|c| plain(c) || "${}".contains(c)) {
        format!("\"{word}\"")
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// The command text a reader copies: preamble lines, `K=V \` env lines,
/// `cmd \`, then one `  --flag values \` line per argument (the last without
/// the backslash).
pub(crate) fn format_block(block: &Block) -> String {
    let mut lines: Vec<String> = block.preamble.clone();
    let mut continued: Vec<String> = block
        .env
        .iter()
        .map(|(k, v)| format!("{k}={}", quote(v)))
        .collect();
    if block.kind == BlockKind::Nginx && block.args.is_empty() {
        continued.push(NGINX_DEFAULT.to_string());
    } else {
        continued.push(block.cmd.clone());
    }
    for arg in &block.args {
        let mut line = format!("  {}", arg.flag);
        for v in &arg.values {
            line.push(' ');
            line.push_str(&quote(v));
        }
        continued.push(line);
    }
    let last = continued.len() - 1;
    for (i, line) in continued.into_iter().enumerate() {
        if i == last {
            lines.push(line);
        } else {
            lines.push(format!("{line} \\"));
        }
    }
    lines.join("\n")
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
}
