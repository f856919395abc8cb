//! Placeholders (`$NODE_IP`): which a command set uses, in the order the
//! commands first use them (as the cookbook widget lists them), with what to
//! fill in.

use super::model::{ConfigFile, Placeholder, Process};

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

/// Every `$NAME` the commands and files use, with descriptions, in the order
/// of first use: every process's command in launch order, then the config
/// files (each process's, then the loose ones). The widget scans the same
/// way (the commands' text, then the router's files).
pub(super) fn placeholders_in(processes: &[Process], loose: &[ConfigFile]) -> Vec<Placeholder> {
    let commands = processes.iter().map(|p| &*p.command);
    let files = processes
        .iter()
        .flat_map(|p| p.files.iter())
        .chain(loose.iter())
        .map(|f| f.content.as_str());
    let mut names: Vec<String> = Vec::new();
    for t in commands.chain(files) {
        for n in placeholders_of(t) {
            if !names.contains(&n) {
                names.push(n);
            }
        }
    }
    names
        .into_iter()
        .map(|name| Placeholder {
            description: placeholder_description(&name),
            name,
        })
        .collect()
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

fn numbered(name: &str, prefix: &str, suffix: &str) -> Option<u32> {
    name.strip_prefix(prefix)?
        .strip_suffix(suffix)?
        .parse()
        .ok()
}

fn placeholder_description(name: &str) -> String {
    let fixed = match name {
        "NODE_RANK" => Some("this node's rank within its worker, 0 on the worker's first node"),
        "NODE_IP" => Some("this node's IP address"),
        "ETCD_IP" => Some("IP of the node running etcd"),
        "NATS_IP" => Some("IP of the node running the NATS server"),
        "MOONCAKE_MASTER_IP" => Some("IP of the node running mooncake_master"),
        "AGG_HEAD_IP" => Some("first node of this aggregated worker"),
        "PREFILL_HEAD_IP" => Some("first node of this prefill worker"),
        "DECODE_HEAD_IP" => Some("first node of this decode worker"),
        "IB_DEVICES" => Some("RDMA NICs to use, comma-separated, e.g. mlx5_0,mlx5_1"),
        "EFA_DEVICES" => Some("EFA devices to use, comma-separated"),
        _ => None,
    };
    if let Some(d) = fixed {
        return d.to_string();
    }
    for (prefix, word) in [
        ("AGG_", "aggregated"),
        ("PREFILL_", "prefill"),
        ("DECODE_", "decode"),
    ] {
        if let Some(n) = numbered(name, prefix, "_HEAD_IP") {
            return format!("first node of {word} worker {n}");
        }
    }
    if let Some(n) = numbered(name, "FRONTEND_", "_IP") {
        return format!("IP of Dynamo frontend {n}, used in nginx.conf");
    }
    "value for your cluster".to_string()
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
