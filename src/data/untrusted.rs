//! What a data string may hold, by what it becomes. Commands and config
//! files reach a reader's shell through Copy all; everything reaches a
//! terminal through `decode` and error messages. Each rule says why; the
//! caller prefixes the JSON path.
//!
//! - Every string: no C0 control character but tab and line breaks, no DEL,
//!   no C1 control (`U+0080`–`U+009F`: a terminal may read `U+009B` as the
//!   start of an escape sequence, as it reads ESC).
//! - Command text (`cmd`, `preamble`, env values, argument values, setup
//!   and install lines, anywhere in blocks, patches and donors): no CR (the
//!   page shows it as a line break, the shell does not), no U+2028/U+2029
//!   (the same), no bidirectional control (it reorders how the command is
//!   shown, so what a reader reads is not what runs), no backtick (command
//!   substitution when the text is not quoted), and `$` only as `$NAME` or
//!   `${NAME}` of a placeholder this tool knows (see
//!   [`super::placeholders`]): `${X:=…}`, `$(…)` and `$HOME` would assign,
//!   run or read the reader's environment.
//! - Config files (`files.*.content`): no U+2028/U+2029 and no bidirectional
//!   control; CR and CRLF line breaks are taken as line breaks (`decode`
//!   writes them as `\n`, as the page shows them); `$` is the file's own
//!   (the here-document that writes it is quoted).

use super::placeholders::{KNOWN_PLACEHOLDERS, placeholder_description};

/// What a string of the data becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TextKind {
    /// Part of a command a reader runs.
    Command,
    /// The text of a config file a here-document writes.
    File,
    /// Anything else: labels, ids, notes, URLs (escaped into Markdown).
    Text,
}

/// Checks `s` against the rules of `kind` (see the module documentation).
pub(crate) fn check_string(s: &str, kind: TextKind) -> Result<(), String> {
    for (i, c) in s.chars().enumerate() {
        if let Some(why) = refused_char(c, kind) {
            return Err(format!("{} at character {}: {why}", char_name(c), i + 1));
        }
    }
    if kind == TextKind::Command {
        check_expansions(s)?;
    }
    Ok(())
}

/// Why `c` may not be in a string of `kind`, if it may not.
fn refused_char(c: char, kind: TextKind) -> Option<&'static str> {
    let command = kind == TextKind::Command;
    match c {
        '\t' | '\n' => None,
        '\r' if command => Some(
            "a command's lines end with `\\n`; a carriage return is shown as a line break that \
             the reader's shell does not read as one",
        ),
        '\r' => None,
        '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}' => Some(
            "control characters are not text (a terminal acts on them when `decode` or an error \
             message prints them, and a shell when a reader pastes them); remove it",
        ),
        '\u{2028}' | '\u{2029}' if kind != TextKind::Text => {
            Some("a page shows it as a line break that a shell does not read as one; use `\\n`")
        }
        '\u{61c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
            if kind != TextKind::Text =>
        {
            Some(
                "a bidirectional control reorders how the text is shown, so what a reader reads \
                 is not what runs; remove it",
            )
        }
        '`' if command => Some(
            "a backtick runs the text between two of them in the reader's shell (command \
             substitution) wherever the command is not quoted; remove it",
        ),
        _ => None,
    }
}

/// `U+001B`, or the character itself when it is visible.
fn char_name(c: char) -> String {
    if c.is_control()
        || matches!(c, '\u{2028}' | '\u{2029}' | '\u{61c}' | '\u{200e}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    {
        format!("U+{:04X}", c as u32)
    } else if c == '`' {
        "`` ` ``".to_string()
    } else {
        format!("`{c}`")
    }
}

/// Every `$` of command text begins `$NAME` or `${NAME}` of a known
/// placeholder.
fn check_expansions(s: &str) -> Result<(), String> {
    let b = s.as_bytes();
    let mut from = 0;
    while let Some(i) = s[from..].find('$').map(|i| from + i) {
        let braced = b.get(i + 1) == Some(&b'{');
        let start = i + 1 + usize::from(braced);
        let len = name_len(&s[start..]);
        let end = start + len;
        let closed = !braced || b.get(end) == Some(&b'}');
        let name = &s[start..end];
        if len == 0 || !closed {
            // Up to the first character that is not a name's.
            let next = s[end..].chars().next().map_or(0, char::len_utf8);
            let shown = &s[i..end + next];
            return Err(format!(
                "`{shown}…` is shell expansion other than `$NAME` or `${{NAME}}`: in a reader's \
                 shell it would run a command, assign or read a variable; a command may only \
                 name placeholders ({KNOWN_PLACEHOLDERS})"
            ));
        }
        if placeholder_description(name).is_none() {
            return Err(format!(
                "`${name}` is not a placeholder this tool knows ({KNOWN_PLACEHOLDERS}): a \
                 reader's shell would read it from their environment (or Copy all would export \
                 it); write the value itself"
            ));
        }
        from = end;
    }
    Ok(())
}

/// Length of the shell name (`[A-Za-z_][A-Za-z0-9_]*`) at the start of `s`.
fn name_len(s: &str) -> usize {
    let b = s.as_bytes();
    if !b
        .first()
        .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_')
    {
        return 0;
    }
    b.iter()
        .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use TextKind::{Command, File, Text};

    /// (text, kind, the start of the refusal or `None` when accepted).
    const TABLE: &[(&str, TextKind, Option<&str>)] = &[
        ("http://$ETCD_IP:2379", Command, None),
        ("${NODE_IP}:8700", Command, None),
        ("$PREFILL_0_HEAD_IP,$IB_DEVICES", Command, None),
        ("a\tb\nc", Command, None),
        ("é ✓ 中文", Command, None),
        (
            "${NODE_IP:=1.2.3.4}",
            Command,
            Some("`${NODE_IP:…` is shell expansion"),
        ),
        (
            "${NODE_IP",
            Command,
            Some("`${NODE_IP…` is shell expansion"),
        ),
        ("$(curl x|sh)", Command, Some("`$(…` is shell expansion")),
        ("$1", Command, Some("`$1…` is shell expansion")),
        ("a$", Command, Some("`$…` is shell expansion")),
        (
            "$HOME/models",
            Command,
            Some("`$HOME` is not a placeholder"),
        ),
        ("$PATH", Command, Some("`$PATH` is not a placeholder")),
        (
            "${LD_LIBRARY_PATH}",
            Command,
            Some("`$LD_LIBRARY_PATH` is not a placeholder"),
        ),
        (
            "$NODE_IPs",
            Command,
            Some("`$NODE_IPs` is not a placeholder"),
        ),
        ("`id`", Command, Some("`` ` `` at character 1")),
        ("a\rEOF\rrm -rf ~", Command, Some("U+000D at character 2")),
        ("a\r\nb", Command, Some("U+000D at character 2")),
        ("a\u{2028}b", Command, Some("U+2028 at character 2")),
        ("x\u{202e}y", Command, Some("U+202E at character 2")),
        ("x\u{1b}[2K", Command, Some("U+001B at character 2")),
        ("\u{0}", Text, Some("U+0000 at character 1")),
        ("\u{7f}", Text, Some("U+007F at character 1")),
        ("\u{9b}2K", Text, Some("U+009B at character 1")),
        ("\u{85}", File, Some("U+0085 at character 1")),
        ("label with $HOME and `code`", Text, None),
        ("line\r\nbreaks\ra\u{2028}b \u{202e}", Text, None),
        ("server $FRONTEND_0_IP;\r\nset $x `y`;\r", File, None),
        ("a\u{2029}b", File, Some("U+2029 at character 2")),
        ("a\u{2066}b", File, Some("U+2066 at character 2")),
    ];

    #[test]
    fn strings_by_kind() {
        for (s, kind, want) in TABLE {
            match (check_string(s, *kind), want) {
                (Ok(()), None) => {}
                (Err(e), Some(w)) => assert!(e.starts_with(w), "{s:?}: {e}"),
                (got, _) => panic!("{s:?} as {kind:?}: {got:?}, want {want:?}"),
            }
        }
    }
}
