//! The placeholders a reader fills in (`$NODE_IP`, `$PREFILL_0_HEAD_IP`):
//! the only names command text may expand, and the only ones Copy all sets
//! with `export NAME="<what to fill in>"`. Any other name would read the
//! reader's environment (a secret into a URL) or, exported, replace a
//! variable the shell relies on (`PATH`, `LD_LIBRARY_PATH`, `IFS`,
//! `BASH_ENV`), so loading refuses it in commands.

/// What to fill in for `name`, when it is a placeholder this tool knows.
pub(crate) fn placeholder_description(name: &str) -> Option<String> {
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
        return Some(d.to_string());
    }
    for (prefix, word) in [
        ("AGG_", "aggregated"),
        ("PREFILL_", "prefill"),
        ("DECODE_", "decode"),
    ] {
        if let Some(n) = numbered(name, prefix, "_HEAD_IP") {
            return Some(format!("first node of {word} worker {n}"));
        }
    }
    numbered(name, "FRONTEND_", "_IP")
        .map(|n| format!("IP of Dynamo frontend {n}, used in nginx.conf"))
}

/// `n` of `<prefix><n><suffix>`, `n` written in decimal digits only (no
/// sign, no `+`: the name must be one a shell reads the same way).
fn numbered(name: &str, prefix: &str, suffix: &str) -> Option<u32> {
    let digits = name.strip_prefix(prefix)?.strip_suffix(suffix)?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// Names this tool knows, a list of their forms for messages.
pub(crate) const KNOWN_PLACEHOLDERS: &str = "NODE_RANK, NODE_IP, ETCD_IP, NATS_IP, \
     MOONCAKE_MASTER_IP, AGG_HEAD_IP, PREFILL_HEAD_IP, DECODE_HEAD_IP, IB_DEVICES, EFA_DEVICES, \
     AGG_<n>_HEAD_IP, PREFILL_<n>_HEAD_IP, DECODE_<n>_HEAD_IP, FRONTEND_<n>_IP";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_known_names_are_placeholders() {
        for known in [
            "NODE_IP",
            "PREFILL_0_HEAD_IP",
            "DECODE_12_HEAD_IP",
            "FRONTEND_3_IP",
        ] {
            assert!(placeholder_description(known).is_some(), "{known}");
        }
        for other in [
            "PATH",
            "LD_LIBRARY_PATH",
            "LD_PRELOAD",
            "IFS",
            "BASH_ENV",
            "ENV",
            "HOME",
            "PS4",
            "PROMPT_COMMAND",
            "AWS_SECRET_ACCESS_KEY",
            "PREFILL_+1_HEAD_IP",
            "PREFILL__HEAD_IP",
            "node_ip",
        ] {
            assert!(placeholder_description(other).is_none(), "{other}");
        }
    }
}
