//! Placeholders (`$NODE_IP`): which a command set uses, in the order the
//! commands first use them (as the cookbook widget lists them), with what to
//! fill in.

use super::model::{ConfigFile, Placeholder, Process};
use crate::data::placeholder_description;

/// `export NAME="<description>"` lines: valid bash that still shows what to
/// fill in. The description is double-quoted with `\`, `"`, `$` and `` ` ``
/// escaped, so an apostrophe or any other character cannot end the string.
pub(crate) fn env_exports(placeholders: &[Placeholder]) -> String {
    placeholders
        .iter()
        .map(|p| {
            format!(
                "export {}=\"<{}>\"\n",
                p.name,
                double_quoted(&p.description)
            )
        })
        .collect()
}

/// Text for inside bash double quotes: the four characters that keep a
/// meaning there are escaped.
fn double_quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(c, '\\' | '"' | '$' | '`') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Every known placeholder (`$NODE_IP`, …; [`placeholder_description`])
/// the commands and files use, with descriptions, in the order of first
/// use: every process's command in launch order, then the config files
/// (each process's, then the loose ones). The widget scans the same way
/// (the commands' text, then the router's files). Other `$NAME`s (refused
/// in commands at load; a file's own, such as nginx's) are never exported:
/// `export PATH=…` at the top of Copy all would break the reader's shell.
pub(super) fn placeholders_in(processes: &[Process], loose: &[ConfigFile]) -> Vec<Placeholder> {
    let commands = processes.iter().map(|p| &*p.command);
    let files = processes
        .iter()
        .flat_map(|p| p.files.iter())
        .chain(loose.iter())
        .map(|f| f.content.as_str());
    let mut found: Vec<Placeholder> = Vec::new();
    for t in commands.chain(files) {
        for name in placeholders_of(t) {
            if found.iter().any(|p| p.name == name) {
                continue;
            }
            if let Some(description) = placeholder_description(&name) {
                found.push(Placeholder { name, description });
            }
        }
    }
    found
}

/// The names `\$[A-Z][A-Z0-9_]*` in `text`, in order, repeats included.
fn placeholders_of(text: &str) -> Vec<String> {
    let mut v = Vec::new();
    scan_placeholders(text, |n| v.push(n.to_string()));
    v
}

fn scan_placeholders<'t>(text: &'t str, mut found: impl FnMut(&'t str)) {
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'$' && i + 1 < b.len() && b[i + 1].is_ascii_uppercase() {
            let start = i + 1;
            let mut j = start;
            while j < b.len()
                && (b[j].is_ascii_uppercase() || b[j].is_ascii_digit() || b[j] == b'_')
            {
                j += 1;
            }
            found(&text[start..j]);
            i = j;
        } else {
            i += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholder_scan() {
        assert_eq!(
            placeholders_of("a $ETCD_IP:2379 $x ${NODE_IP} $DECODE_10_HEAD_IP,$IB_DEVICES $"),
            ["ETCD_IP", "DECODE_10_HEAD_IP", "IB_DEVICES"]
        );
    }

    /// Only placeholders this tool knows are exported: a file's (or,
    /// should loading let one through, a command's) `$PATH` never is.
    #[test]
    fn only_known_names_are_exported() {
        let file = ConfigFile {
            name: "x.conf".into(),
            content: "a $PATH $LD_LIBRARY_PATH $IFS $BASH_ENV $HOME $FRONTEND_0_IP $request_id"
                .into(),
        };
        let found = placeholders_in(&[], &[file]);
        let names: Vec<&str> = found.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["FRONTEND_0_IP"]);
    }

    #[test]
    fn order_of_first_use() {
        assert_eq!(
            placeholders_of("x $ETCD_IP $NODE_RANK $ETCD_IP ${NODE_IP} $DECODE_1_HEAD_IP"),
            ["ETCD_IP", "NODE_RANK", "ETCD_IP", "DECODE_1_HEAD_IP"]
        );
    }

    /// (description, the export line): bash-valid whatever the text holds.
    const EXPORTS: &[(&str, &str)] = &[
        (
            "this node's IP address",
            "export X=\"<this node's IP address>\"\n",
        ),
        (
            "a \"b\" $c `d` \\e",
            "export X=\"<a \\\"b\\\" \\$c \\`d\\` \\\\e>\"\n",
        ),
        ("nœud · ×2", "export X=\"<nœud · ×2>\"\n"),
    ];

    #[test]
    fn exports_quote_and_escape() {
        for (description, line) in EXPORTS {
            let p = Placeholder {
                name: "X".into(),
                description: description.to_string(),
            };
            assert_eq!(env_exports(&[p]), *line, "{description}");
        }
    }
}
