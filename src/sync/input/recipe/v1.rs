//! srt-slurm v1 recipes (`backend.sglang_config`, `backend.*_environment`,
//! `resources.<role>_*`) read as the schema-2 `roles:` form they are
//! equivalent to — srt-slurm's own `roles_from_legacy` mapping (docs/sync.md,
//! "v1 recipes") — so that one typed path renders both. What v1 leaves
//! implicit is made explicit: the Dynamo control plane's etcd and NATS
//! services (`infra.nats_max_payload_mb`) and `backend.kv_events_config`.
//! Uses `sync::yaml`.

use crate::sync::input::yaml::{Node, Value};

/// The three roles and their v1 mode names.
const ROLES: [(&str, &str); 3] = [
    ("prefill", "prefill"),
    ("decode", "decode"),
    ("agg", "aggregated"),
];

/// Top-level keys of a v1 recipe this reading knows; the typed recipe checks
/// the schema-2 ones, and `backend`/`infra` are consumed here.
const BACKEND_KEYS: &[&str] = &[
    "aggregated_environment",
    "decode_environment",
    "kv_events_config",
    "prefill_environment",
    "sglang_config",
    "type",
];

/// Whether a resolved variant is a v1 recipe.
pub(in crate::sync) fn is_v1(variant: &Node) -> bool {
    variant.get("backend").is_some() && variant.get("roles").is_none()
}

fn map(entries: Vec<(String, Node)>, line: usize) -> Node {
    Node::new(Value::Map(entries), line)
}

fn entries(n: &Node) -> Vec<(String, Node)> {
    n.as_map().map(<[_]>::to_vec).unwrap_or_default()
}

/// The `roles:` form of a v1 variant; errors name the key and its line.
pub(in crate::sync) fn to_roles(v: &Node) -> Result<Node, String> {
    let backend = v.get("backend").ok_or("no `backend`")?;
    let at = |k: &str, n: &Node| format!("`backend.{k}` (line {})", n.line);
    for (k, n) in entries(backend) {
        if !BACKEND_KEYS.contains(&k.as_str()) {
            return Err(format!("{} is not supported in a v1 recipe", at(&k, &n)));
        }
    }
    match backend
        .get("type")
        .and_then(|t| t.as_str())
        .unwrap_or("sglang")
    {
        "sglang" => {}
        other => {
            return Err(format!(
                "backend type `{other}`: only SGLang recipes are supported"
            ));
        }
    }
    let kv_events = match backend.get("kv_events_config") {
        None => false,
        Some(n) => n
            .as_bool()
            .ok_or_else(|| format!("{} is not true/false", at("kv_events_config", n)))?,
    };
    let resources = v.get("resources").ok_or("the recipe has no `resources`")?;
    let mut out: Vec<(String, Node)> = Vec::new();
    out.push(("schema".into(), Node::new(Value::Int(2), v.line)));
    out.push((
        "engine".into(),
        Node::new(Value::Str("sglang".into()), v.line),
    ));
    let mut kept_resources = Vec::new();
    for (k, n) in entries(resources) {
        if k == "gpu_type" || k == "gpus_per_node" {
            kept_resources.push((k, n));
        } else if !ROLES
            .iter()
            .any(|(r, _)| k.starts_with(&format!("{r}_")) || k == format!("gpus_per_{r}"))
        {
            return Err(format!(
                "`resources.{k}` (line {}) is not supported",
                n.line
            ));
        }
    }
    let mut roles = Vec::new();
    for (name, mode) in ROLES {
        if let Some(spec) = role(v, resources, backend, name, mode, kv_events)? {
            roles.push((name.to_string(), spec));
        }
    }
    for (k, n) in entries(v) {
        match k.as_str() {
            "backend" | "infra" | "schema" | "engine" => {}
            "resources" => out.push((k, map(kept_resources.clone(), n.line))),
            _ => out.push((k, n)),
        }
    }
    out.push(("roles".into(), map(roles, backend.line)));
    if !out.iter().any(|(k, _)| k == "services") && is_dynamo(v) {
        out.push(("services".into(), control_plane(v)));
    }
    Ok(map(out, v.line))
}

fn is_dynamo(v: &Node) -> bool {
    v.get("frontend")
        .and_then(|f| f.get("type"))
        .and_then(|t| t.as_str())
        .unwrap_or("dynamo")
        == "dynamo"
}

/// v1 starts etcd and NATS for a Dynamo front door; NATS's payload limit is
/// `infra.nats_max_payload_mb`.
fn control_plane(v: &Node) -> Node {
    let line = v.get("infra").map_or(v.line, |i| i.line);
    let service = |t: &str, options: Option<Node>| {
        let mut e = vec![("type".to_string(), Node::new(Value::Str(t.into()), line))];
        if let Some(o) = options {
            e.push(("options".into(), o));
        }
        map(e, line)
    };
    let payload = v
        .get("infra")
        .and_then(|i| i.get("nats_max_payload_mb"))
        .map(|p| map(vec![("max_payload_mb".into(), p.clone())], p.line));
    Node::new(
        Value::Seq(vec![service("etcd", None), service("nats", payload)]),
        line,
    )
}

/// One role from `resources.<role>_*`, `backend.<mode>_environment` and
/// `backend.sglang_config.<mode>`; `None` when the recipe has no such role.
fn role(
    v: &Node,
    resources: &Node,
    backend: &Node,
    role: &str,
    mode: &str,
    kv_events: bool,
) -> Result<Option<Node>, String> {
    let nodes = resources.get(&format!("{role}_nodes"));
    let workers = resources.get(&format!("{role}_workers"));
    let gpus = resources.get(&format!("gpus_per_{role}"));
    let env = backend.get(&format!("{mode}_environment"));
    let args = backend.get("sglang_config").and_then(|c| c.get(mode));
    let zero = workers.is_some_and(|w| w.as_int() == Some(0));
    if zero || (nodes.is_none() && workers.is_none() && args.is_none()) {
        return Ok(None);
    }
    let mut spec = Vec::new();
    for (k, n) in [("nodes", nodes), ("workers", workers), ("gpus", gpus)] {
        if let Some(n) = n {
            spec.push((k.to_string(), n.clone()));
        }
    }
    if let Some(e) = env {
        spec.push(("env".into(), e.clone()));
    }
    if let Some(a) = args {
        spec.push(("args".into(), a.clone()));
    }
    if kv_events {
        spec.push((
            "kv_events".into(),
            Node::new(Value::Bool(true), backend.line),
        ));
    }
    Ok(Some(map(spec, v.line)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sync::input::yaml;

    #[test]
    fn a_v1_recipe_reads_as_its_roles_form() {
        let doc = yaml::parse(
            "name: x\nresources: {gpu_type: gb200, gpus_per_node: 4, prefill_nodes: 1, prefill_workers: 1, gpus_per_prefill: 4, decode_nodes: 1, decode_workers: 1, agg_workers: 0}\ninfra: {nats_max_payload_mb: 64}\nfrontend: {type: dynamo}\nbackend:\n  type: sglang\n  kv_events_config: true\n  prefill_environment: {A: '1'}\n  sglang_config:\n    prefill: {tp: 4}\n    decode: {tp: 4}\n",
        )
        .unwrap();
        assert!(is_v1(&doc));
        let r = to_roles(&doc).unwrap();
        assert_eq!(r.get("schema").unwrap().as_int(), Some(2));
        let roles = r.get("roles").unwrap();
        let prefill = roles.get("prefill").unwrap();
        assert_eq!(prefill.get("gpus").unwrap().as_int(), Some(4));
        assert_eq!(
            prefill.get("env").unwrap().get("A").unwrap().as_str(),
            Some("1")
        );
        assert_eq!(prefill.get("kv_events").unwrap().as_bool(), Some(true));
        assert!(roles.get("agg").is_none(), "zero workers: no role");
        assert!(roles.get("decode").unwrap().get("env").is_none());
        let services = r.get("services").unwrap().as_seq().unwrap();
        assert_eq!(services.len(), 2);
        let nats = services[1]
            .get("options")
            .unwrap()
            .get("max_payload_mb")
            .unwrap();
        assert_eq!(nats.as_int(), Some(64));
        assert!(r.get("resources").unwrap().get("prefill_nodes").is_none());
    }

    #[test]
    fn v1_keys_it_does_not_read_are_refused() {
        let doc = yaml::parse(
            "resources: {gpu_type: b200, gpus_per_node: 8, agg_nodes: 1, agg_workers: 1}\nbackend: {type: sglang, aggregated_extra_args: [--x]}\n",
        )
        .unwrap();
        let e = to_roles(&doc).unwrap_err();
        assert!(
            e.contains("`backend.aggregated_extra_args` (line 2)"),
            "{e}"
        );
        let vllm =
            yaml::parse("resources: {gpu_type: b200, gpus_per_node: 8}\nbackend: {type: vllm}\n")
                .unwrap();
        assert!(to_roles(&vllm).unwrap_err().contains("backend type `vllm`"));
    }
}
