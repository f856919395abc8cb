//! Placeholders (`$NODE_IP`): which a command set uses, in reading order,
//! with what to fill in.

use std::collections::BTreeSet;

use super::*;

/// `export NAME=<description>` lines.
pub(crate) fn env_exports(placeholders: &[Placeholder]) -> String {
    placeholders
        .iter()
        .map(|p| format!("export {}=<{}>\n", p.name, p.description))
        .collect()
}

/// Every `$NAME` the commands and files use, in a fixed reading order, with descriptions.
pub(super) fn placeholders_in(processes: &[Process], loose: &[ConfigFile]) -> Vec<Placeholder> {
    let mut names = BTreeSet::new();
    let texts = processes
        .iter()
        .flat_map(|p| {
            std::iter::once(&*p.command).chain(p.files.iter().map(|f| f.content.as_str()))
        })
        .chain(loose.iter().map(|f| f.content.as_str()));
    for t in texts {
        collect_placeholders(t, &mut names);
    }
    let mut v: Vec<(PlaceholderKey, String)> = names
        .into_iter()
        .map(|n| (placeholder_key(&n), n))
        .collect();
    v.sort();
    v.into_iter()
        .map(|(_, name)| Placeholder {
            description: placeholder_description(&name),
            name,
        })
        .collect()
}

/// Names matching `\$[A-Z][A-Z0-9_]*`.
pub(crate) fn collect_placeholders(text: &str, out: &mut BTreeSet<String>) {
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
            out.insert(text[start..j].to_string());
            i = j;
        } else {
            i += 1;
        }
    }
}

type PlaceholderKey = (u8, u8, u32);

fn placeholder_key(name: &str) -> PlaceholderKey {
    const FIXED: [&str; 8] = [
        "NODE_RANK",
        "NODE_IP",
        "ETCD_IP",
        "NATS_IP",
        "MOONCAKE_MASTER_IP",
        "AGG_HEAD_IP",
        "PREFILL_HEAD_IP",
        "DECODE_HEAD_IP",
    ];
    if let Some(i) = FIXED.iter().position(|f| *f == name) {
        return (0, i as u8, 0);
    }
    for (gi, prefix) in ["AGG_", "PREFILL_", "DECODE_"].iter().enumerate() {
        if let Some(n) = numbered(name, prefix, "_HEAD_IP") {
            return (1, gi as u8, n);
        }
    }
    if let Some(n) = numbered(name, "FRONTEND_", "_IP") {
        return (2, 0, n);
    }
    match name {
        "IB_DEVICES" => (3, 0, 0),
        "EFA_DEVICES" => (3, 1, 0),
        _ => (4, 0, 0),
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
        let mut s = BTreeSet::new();
        collect_placeholders(
            "a $ETCD_IP:2379 $x ${NODE_IP} $DECODE_10_HEAD_IP,$IB_DEVICES $",
            &mut s,
        );
        let v: Vec<_> = s.into_iter().collect();
        assert_eq!(v, vec!["DECODE_10_HEAD_IP", "ETCD_IP", "IB_DEVICES"]);
    }

    #[test]
    fn placeholder_order() {
        let mut names = vec![
            "IB_DEVICES",
            "DECODE_10_HEAD_IP",
            "DECODE_2_HEAD_IP",
            "ETCD_IP",
            "PREFILL_0_HEAD_IP",
            "NODE_RANK",
            "FRONTEND_0_IP",
        ];
        names.sort_by_key(|n| (placeholder_key(n), n.to_string()));
        assert_eq!(
            names,
            vec![
                "NODE_RANK",
                "ETCD_IP",
                "PREFILL_0_HEAD_IP",
                "DECODE_2_HEAD_IP",
                "DECODE_10_HEAD_IP",
                "FRONTEND_0_IP",
                "IB_DEVICES"
            ]
        );
    }
}
