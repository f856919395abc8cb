//! Search tokens: how text becomes the whole, lower-case words the search
//! index stores, and which words of a command line a reader searches for
//! (flags, environment names, programs).
//!
//! The browser normalizes each query word with the same rule as
//! `normalize_into` (`assets/builder/book.js`, `normalizeWord`): keep the two in step.

/// Characters that end a word: space, punctuation around words in titles
/// and commands (quotes, brackets, separators such as `·` and `»`).
fn is_word_break(c: char) -> bool {
    c.is_whitespace()
        || matches!(
            c,
            ',' | ';'
                | '('
                | ')'
                | '['
                | ']'
                | '{'
                | '}'
                | '<'
                | '>'
                | '"'
                | '\''
                | '`'
                | '|'
                | '·'
                | '»'
                | '—'
                | '–'
                | '+'
                | '*'
                | '!'
                | '?'
                | '\\'
                | '✓'
                | '◐'
        )
}

/// Characters inside a word that separate its parts (`deepseek-v4.1` →
/// `deepseek`, `v4`, `1`).
fn is_part_break(c: char) -> bool {
    matches!(c, '-' | '_' | '/' | '.' | '=' | ':' | '#' | '$' | '@')
}

/// One word as the index and the query compare it: lower-case, without
/// leading `-`, `$`, `#` and trailing `.`, `:`, `=`, `,`.
#[cfg(test)]
pub(crate) fn normalize(word: &str) -> String {
    let mut out = String::new();
    normalize_into(word, &mut out);
    out
}

/// [`normalize`] into a reused buffer: the index normalizes every word of
/// every page, and a fresh `String` for each was a visible cost of a build.
fn normalize_into(word: &str, out: &mut String) {
    out.clear();
    let word = word
        .trim_start_matches(['-', '$', '#'])
        .trim_end_matches(['.', ':', '=', ',']);
    if word.is_ascii() {
        out.push_str(word);
        out.make_ascii_lowercase();
    } else {
        out.push_str(&word.to_lowercase());
    }
}

/// The tokens of a text: every word whole, its parts, its parts that keep
/// a `#n` (`agg#1`), and the word without a `#n` suffix (a cell id with or
/// without its number). Duplicates are left in; the caller dedups.
#[cfg(test)]
pub(crate) fn tokens(text: &str, out: &mut Vec<String>) {
    for_each_token(text, &mut String::new(), &mut |t| out.push(t.to_string()));
}

/// Hands each token of `text` (see [`tokens`]) to `f`, borrowed: the
/// caller keeps only the words it has not seen. `word` is scratch space,
/// reused across calls.
pub(crate) fn for_each_token(text: &str, word: &mut String, f: &mut impl FnMut(&str)) {
    for raw in text.split(is_word_break) {
        normalize_into(raw, word);
        if word.is_empty() {
            continue;
        }
        word_tokens(word, f);
    }
}

fn word_tokens(word: &str, f: &mut impl FnMut(&str)) {
    f(word);
    if !word.contains(is_part_break) {
        return;
    }
    for part in word.split(is_part_break).filter(|p| !p.is_empty()) {
        f(part);
    }
    if let Some((base, n)) = word.rsplit_once('#') {
        if !base.is_empty() && n.chars().all(|c| c.is_ascii_digit()) {
            f(base);
        }
        let coarse = |c: char| is_part_break(c) && c != '#';
        for part in word
            .split(coarse)
            .filter(|p| p.contains('#') && p.len() > 1)
        {
            f(part);
        }
    }
    // `--flag=value`: the flag on its own.
    if let Some((name, _)) = word.split_once('=')
        && !name.is_empty()
    {
        f(name);
    }
}

/// The words of a command a reader would search for: every flag (`--tp`,
/// `-m`), every environment name set or read (`ETCD_IP=…`, `$NODE_RANK`,
/// `${X}`), each line's program and a `-m` module (`dynamo.frontend`).
/// Comment lines are skipped.
pub(crate) fn command_words(command: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in logical_lines(command) {
        let words: Vec<&str> = line.split_whitespace().collect();
        let mut program_seen = false;
        for (i, w) in words.iter().enumerate() {
            env_references(w, &mut out);
            if let Some(name) = env_assignment(w) {
                out.push(name.to_string());
            } else if w.starts_with('-') && w.len() > 1 {
                let flag = w.split('=').next().unwrap_or(w);
                if flag
                    .trim_start_matches('-')
                    .starts_with(char::is_alphabetic)
                {
                    out.push(flag.to_string());
                }
                if *w == "-m"
                    && let Some(module) = words.get(i + 1)
                {
                    out.push(module.to_string());
                }
            } else if !program_seen && *w != "export" {
                program_seen = true;
                if w.starts_with(char::is_alphabetic) {
                    out.push(w.to_string());
                }
            }
        }
    }
    out
}

/// The command's lines with `\`-continued lines joined, comments left out.
fn logical_lines(command: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    for line in command.lines() {
        let t = line.trim();
        if current.is_empty() && t.starts_with('#') {
            continue;
        }
        match t.strip_suffix('\\') {
            Some(head) => {
                current.push_str(head);
                current.push(' ');
            }
            None => {
                current.push_str(t);
                out.push(std::mem::take(&mut current));
            }
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// `NAME=value` → `NAME` (upper-case shell names only).
fn env_assignment(word: &str) -> Option<&str> {
    let (name, _) = word.split_once('=')?;
    is_env_name(name).then_some(name)
}

/// Every `$NAME` and `${NAME}` in a word.
fn env_references(word: &str, out: &mut Vec<String>) {
    for (i, _) in word.match_indices('$') {
        let rest = word[i + 1..].trim_start_matches('{');
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == '_')
            .collect();
        if is_env_name(&name) {
            out.push(name);
        }
    }
}

fn is_env_name(s: &str) -> bool {
    s.len() > 1
        && s.starts_with(|c: char| c.is_ascii_uppercase() || c == '_')
        && s.chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(text: &str) -> Vec<String> {
        let mut v = Vec::new();
        tokens(text, &mut v);
        v.sort();
        v.dedup();
        v
    }

    /// (text, tokens it must give, tokens it must not give)
    const TOKENS: &[(&str, &[&str], &[&str])] = &[
        (
            "DeepSeek-V4.1",
            &["deepseek-v4.1", "deepseek", "v4", "1"],
            &["deepseek-v4"],
        ),
        (
            "c16 · Dynamo + SGLang · No KV offload",
            &["c16", "dynamo", "sglang", "no", "kv", "offload"],
            &["c1", "c160", "+"],
        ),
        ("c1 / c4", &["c1", "c4"], &["c16"]),
        (
            "dsv41-fp4-gb200-dynamo-sglang-agentic-agg#1",
            &[
                "dsv41-fp4-gb200-dynamo-sglang-agentic-agg#1",
                "dsv41-fp4-gb200-dynamo-sglang-agentic-agg",
                "agg#1",
                "gb200",
                "fp4",
                "agg",
                "1",
            ],
            &["agg#0"],
        ),
        (
            "--enable-hierarchical-cache",
            &[
                "enable-hierarchical-cache",
                "enable",
                "hierarchical",
                "cache",
            ],
            &["--enable-hierarchical-cache"],
        ),
        (
            "--hicache-ratio=2",
            &["hicache-ratio", "hicache-ratio=2", "hicache", "ratio"],
            &[],
        ),
        ("$ETCD_IP", &["etcd_ip", "etcd", "ip"], &["$etcd_ip"]),
        (
            "HiCache (host DRAM)",
            &["hicache", "host", "dram"],
            &["(host"],
        ),
        (
            "PR #4174, pending merge",
            &["pr", "4174", "pending", "merge"],
            &["#4174"],
        ),
        ("Ünïcode — Straße", &["ünïcode", "straße"], &["—"]),
        (
            "Muse Spark Open",
            &["muse", "spark", "open"],
            &["muse spark open"],
        ),
    ];

    #[test]
    fn tokens_of_titles_ids_and_flags() {
        for (text, want, not) in TOKENS {
            let got = toks(text);
            for w in *want {
                assert!(got.iter().any(|g| g == w), "{text}: no `{w}` in {got:?}");
            }
            for n in *not {
                assert!(!got.iter().any(|g| g == n), "{text}: `{n}` in {got:?}");
            }
        }
    }

    #[test]
    fn the_query_rule_matches_the_index_rule() {
        // A query word is normalized alone; it must equal the whole token.
        for (query, text) in [
            (
                "--enable-hierarchical-cache",
                "--enable-hierarchical-cache \\",
            ),
            ("hicache-ratio", "--hicache-ratio 0.5"),
            ("ETCD_IP", "\"http://$ETCD_IP:2379\""),
            ("#4174", "(PR #4174, pending merge)"),
            ("c16", "c16 · SGLang"),
        ] {
            let q = normalize(query);
            let mut v = Vec::new();
            tokens(text, &mut v);
            for w in command_words(text) {
                tokens(&w, &mut v);
            }
            assert!(v.contains(&q), "{query} → {q} not in {v:?}");
        }
    }

    #[test]
    fn words_of_commands() {
        let cmd = "# comment --not-a-flag\nexport NODE_RANK=0\nETCD_ENDPOINTS=\"http://$ETCD_IP:2379\" \\\nMC_TCP=1 python3 -m dynamo.sglang \\\n  --model-path deepseek-ai/DeepSeek-V4.1 \\\n  --tp 4 --enable-x=true -5 \\\n  --dist-init-addr \"${HEAD_IP}:5000\"\netcd --data-dir /tmp/etcd";
        let words = command_words(cmd);
        for w in [
            "NODE_RANK",
            "ETCD_ENDPOINTS",
            "ETCD_IP",
            "MC_TCP",
            "python3",
            "-m",
            "dynamo.sglang",
            "--model-path",
            "--tp",
            "--enable-x",
            "--dist-init-addr",
            "HEAD_IP",
            "etcd",
            "--data-dir",
        ] {
            assert!(words.iter().any(|x| x == w), "{w} missing from {words:?}");
        }
        for w in [
            "--not-a-flag",
            "-5",
            "export",
            "deepseek-ai/DeepSeek-V4.1",
            "4",
        ] {
            assert!(!words.iter().any(|x| x == w), "{w} in {words:?}");
        }
    }
}
