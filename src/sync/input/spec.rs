//! A resolved schema-2 recipe variant, typed: resources, front door,
//! services, Dynamo install and the worker roles. Every section that could
//! change a command is either understood here or refused by name. Uses
//! `data` (roles) and `sync::yaml`.

mod services;

use super::yaml::{Node, Value};
use crate::data::Role;
pub(in crate::sync) use services::Mooncake;

/// Top-level recipe keys that only drive the benchmark harness or Slurm.
const HARNESS_KEYS: &[&str] = &[
    "benchmark",
    "health_check",
    "identity",
    "infra",
    "name",
    "sbatch_directives",
    "slurm",
    "srun_options",
];

const FRONTEND_KEYS: &[&str] = &[
    "args",
    "enable_multiple_frontends",
    "env",
    "nginx_container",
    "nginx_keepalive_timeout",
    "nginx_session_affinity",
    "nginx_session_affinity_header",
    "num_additional_frontends",
    "type",
];

const ROLE_KEYS: &[&str] = &["args", "env", "gpus", "kv_events", "nodes", "workers"];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::sync) enum FrontDoor {
    Dynamo,
    /// `frontend.type: sglang`: the worker serves clients itself.
    Sglang,
    /// `frontend.type: sglang-router`: an SGLang router in front of the
    /// worker, started with the frontend's arguments.
    SglangRouter,
}

#[derive(Debug, Clone)]
pub(in crate::sync) struct Frontend {
    pub door: FrontDoor,
    pub multiple: bool,
    pub num_additional: u32,
    pub session_affinity: bool,
    /// The header nginx hashes sessions by (`X-Dynamo-Session-ID` by default).
    pub affinity_header: String,
    /// nginx's `keepalive_timeout` (`600s` unless the recipe says).
    pub nginx_keepalive_timeout: String,
    /// In recipe order.
    pub args: Vec<(String, Node)>,
    pub env: Vec<(String, Node)>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(in crate::sync) enum DynamoInstall {
    /// `install: false`: the image's own Dynamo.
    Bundled,
    /// `source.wheel`: a pip install of that version.
    Wheel(String),
    /// `source.hash` / `hash`: built from that commit.
    Source(String),
}

#[derive(Debug, Clone)]
pub(in crate::sync) struct RoleSpec {
    pub role: Role,
    pub nodes: u32,
    pub workers: u32,
    /// GPUs per worker.
    pub gpus: u32,
    pub kv_events: bool,
    pub args: Vec<(String, Node)>,
    pub env: Vec<(String, Node)>,
}

#[derive(Debug, Clone)]
pub(in crate::sync) struct Recipe {
    pub gpu_type: String,
    pub gpus_per_node: u32,
    /// `identity.container.image`, or `model.container` when it is an image reference.
    pub image: Option<String>,
    pub frontend: Frontend,
    pub etcd: bool,
    /// `Some(max_payload_mb)` when a NATS service runs.
    pub nats: Option<Option<u64>>,
    /// A Mooncake store the workers' KV cache reaches through the external linker.
    pub mooncake: Option<Mooncake>,
    pub dynamo: Option<DynamoInstall>,
    /// Roles in prefill, decode, agg order.
    pub roles: Vec<RoleSpec>,
}

impl Recipe {
    pub(in crate::sync) fn role(&self, role: Role) -> Option<&RoleSpec> {
        self.roles.iter().find(|r| r.role == role)
    }

    pub(in crate::sync) fn is_pd(&self) -> bool {
        self.role(Role::Agg).is_none()
    }

    /// Nodes of all roles: what the lane allocates.
    pub(in crate::sync) fn nodes(&self) -> u32 {
        self.roles.iter().map(|r| r.nodes).sum()
    }
}

fn map_of<'a>(node: &'a Node, what: &str) -> Result<&'a [(String, Node)], String> {
    node.as_map()
        .ok_or_else(|| format!("`{what}` (line {}) is not a mapping", node.line))
}

/// Counts (nodes, workers, GPUs, frontends, MiB) are capped so that products
/// of them cannot overflow; no real deployment comes near the cap.
const MAX_COUNT: i64 = 4096;

fn uint(node: &Node, what: &str) -> Result<u32, String> {
    node.as_int()
        .filter(|i| (0..=MAX_COUNT).contains(i))
        .and_then(|i| u32::try_from(i).ok())
        .ok_or_else(|| {
            format!(
                "`{what}` (line {}) is {}, not a count of at most {MAX_COUNT}",
                node.line,
                node.kind()
            )
        })
}

fn flag(node: Option<&Node>, what: &str, default: bool) -> Result<bool, String> {
    match node {
        None => Ok(default),
        Some(n) => n
            .as_bool()
            .ok_or_else(|| format!("`{what}` (line {}) is not true/false", n.line)),
    }
}

/// Types a resolved variant. Errors name the key (and its line).
pub(in crate::sync) fn parse(v: &Node) -> Result<Recipe, String> {
    let top = map_of(v, "recipe")?;
    for (k, node) in top {
        let known = HARNESS_KEYS.contains(&k.as_str())
            || matches!(
                k.as_str(),
                "schema"
                    | "model"
                    | "resources"
                    | "frontend"
                    | "services"
                    | "dynamo"
                    | "engine"
                    | "roles"
                    | "observability"
            );
        if !known {
            let why = if k == "backend" {
                "`roles:` and v1's `backend:` together; srt-slurm refuses that mix".to_string()
            } else {
                format!("the generator does not know whether `{k}` changes the commands")
            };
            return Err(format!("recipe key `{k}` (line {}): {why}", node.line));
        }
    }
    check_schema(v)?;
    check_observability(v)?;
    let resources = v.get("resources").ok_or("the recipe has no `resources`")?;
    let gpus_per_node = uint(
        resources
            .get("gpus_per_node")
            .ok_or("`resources.gpus_per_node` is missing")?,
        "resources.gpus_per_node",
    )?;
    let gpu_type = resources
        .get("gpu_type")
        .and_then(|g| g.as_str())
        .ok_or("`resources.gpu_type` is missing")?
        .to_string();
    if let Some((k, n)) = map_of(resources, "resources")?
        .iter()
        .find(|(k, _)| k != "gpu_type" && k != "gpus_per_node")
    {
        return Err(format!(
            "`resources.{k}` (line {}) is not supported",
            n.line
        ));
    }
    let services = services::parse(v.get("services"))?;
    let roles = roles(v, gpus_per_node)?;
    Ok(Recipe {
        gpu_type,
        gpus_per_node,
        image: image(v),
        frontend: frontend(v.get("frontend"))?,
        etcd: services.etcd,
        nats: services.nats,
        mooncake: services.mooncake,
        dynamo: dynamo(v.get("dynamo"))?,
        roles,
    })
}

fn check_schema(v: &Node) -> Result<(), String> {
    match v.get("schema").and_then(|s| s.as_int()) {
        Some(2) => {}
        _ => return Err("not a schema-2 recipe (`schema: 2` is missing)".into()),
    }
    match v.get("engine").and_then(|e| e.as_str()) {
        Some("sglang") => Ok(()),
        Some(other) => Err(format!(
            "engine `{other}`: only SGLang recipes are supported"
        )),
        None => Err("the recipe has no `engine`".into()),
    }
}

fn check_observability(v: &Node) -> Result<(), String> {
    let Some(o) = v.get("observability") else {
        return Ok(());
    };
    if flag(o.get("enabled"), "observability.enabled", false)? {
        return Err(format!(
            "`observability.enabled` (line {}) is true: srtctl then adds tracing to the commands",
            o.line
        ));
    }
    Ok(())
}

fn image(v: &Node) -> Option<String> {
    let identity = v
        .get("identity")
        .and_then(|i| i.get("container"))
        .and_then(|c| c.get("image"))
        .and_then(|i| i.as_str());
    let container = v
        .get("model")
        .and_then(|m| m.get("container"))
        .and_then(|c| c.as_str())
        .filter(|c| c.contains(':') || c.contains('/'));
    identity.or(container).map(str::to_string)
}

fn frontend(f: Option<&Node>) -> Result<Frontend, String> {
    let empty = Node::new(Value::Map(Vec::new()), 0);
    let f = f.unwrap_or(&empty);
    let map = map_of(f, "frontend")?;
    if let Some((k, n)) = map
        .iter()
        .find(|(k, _)| !FRONTEND_KEYS.contains(&k.as_str()))
    {
        return Err(format!("`frontend.{k}` (line {}) is not supported", n.line));
    }
    let door = match f.get("type").and_then(|t| t.as_str()).unwrap_or("dynamo") {
        "dynamo" => FrontDoor::Dynamo,
        "sglang" => FrontDoor::Sglang,
        "sglang-router" => FrontDoor::SglangRouter,
        other => return Err(format!("frontend type `{other}` is not supported")),
    };
    let pairs = |k: &str| -> Result<Vec<(String, Node)>, String> {
        match f.get(k) {
            None => Ok(Vec::new()),
            Some(n) if n.is_null() => Ok(Vec::new()),
            Some(n) => Ok(map_of(n, &format!("frontend.{k}"))?.to_vec()),
        }
    };
    Ok(Frontend {
        door,
        // srt-slurm's defaults: several frontends behind nginx, 9 beyond the first.
        multiple: flag(
            f.get("enable_multiple_frontends"),
            "frontend.enable_multiple_frontends",
            true,
        )?,
        num_additional: match f.get("num_additional_frontends") {
            Some(n) => uint(n, "frontend.num_additional_frontends")?,
            None => 9,
        },
        session_affinity: flag(
            f.get("nginx_session_affinity"),
            "frontend.nginx_session_affinity",
            false,
        )?,
        affinity_header: f
            .get("nginx_session_affinity_header")
            .and_then(|h| h.as_str())
            .unwrap_or("X-Dynamo-Session-ID")
            .to_string(),
        nginx_keepalive_timeout: f
            .get("nginx_keepalive_timeout")
            .and_then(|h| h.python_str())
            .unwrap_or_else(|| "600s".to_string()),
        args: pairs("args")?,
        env: pairs("env")?,
    })
}

fn dynamo(d: Option<&Node>) -> Result<Option<DynamoInstall>, String> {
    let Some(d) = d else { return Ok(None) };
    if !flag(d.get("install"), "dynamo.install", true)? {
        return Ok(Some(DynamoInstall::Bundled));
    }
    let source = d.get("source");
    let text = |n: Option<&Node>| n.and_then(|n| n.python_str()).filter(|s| !s.is_empty());
    // `source.wheel` (schema 2) or `wheel` (srt-slurm's DynamoConfig): the
    // ai-dynamo version installed from staged wheels, with its runtime.
    if let Some(w) = text(source.and_then(|s| s.get("wheel")).or(d.get("wheel"))) {
        return Ok(Some(DynamoInstall::Wheel(w)));
    }
    if let Some(h) = text(source.and_then(|s| s.get("hash")).or(d.get("hash"))) {
        return Ok(Some(DynamoInstall::Source(h)));
    }
    Err(format!(
        "`dynamo` (line {}) installs Dynamo without a `wheel` or `hash`: which version ran is \
         unknown (srt-slurm's `version` default is not rendered)",
        d.line
    ))
}

fn roles(v: &Node, gpus_per_node: u32) -> Result<Vec<RoleSpec>, String> {
    let roles = v.get("roles").ok_or("the recipe has no `roles`")?;
    let map = map_of(roles, "roles")?;
    let mut out = Vec::new();
    for (name, spec) in map {
        let role = match name.as_str() {
            "agg" => Role::Agg,
            "prefill" => Role::Prefill,
            "decode" => Role::Decode,
            other => return Err(format!("unknown role `{other}` (line {})", spec.line)),
        };
        out.push(role_spec(role, spec, gpus_per_node).map_err(|e| format!("roles.{name}: {e}"))?);
    }
    let has = |r: Role| out.iter().any(|s: &RoleSpec| s.role == r);
    let ok = (has(Role::Agg) && out.len() == 1)
        || (has(Role::Prefill) && has(Role::Decode) && out.len() == 2);
    if !ok {
        return Err("roles must be `agg` alone, or `prefill` and `decode`".into());
    }
    out.sort_by_key(|r| match r.role {
        Role::Prefill => 0,
        Role::Decode => 1,
        Role::Agg => 2,
    });
    Ok(out)
}

fn role_spec(role: Role, spec: &Node, gpus_per_node: u32) -> Result<RoleSpec, String> {
    let map = map_of(spec, "role")?;
    if let Some((k, n)) = map.iter().find(|(k, _)| !ROLE_KEYS.contains(&k.as_str())) {
        return Err(format!("`{k}` (line {}) is not supported", n.line));
    }
    let nodes = uint(spec.get("nodes").ok_or("`nodes` is missing")?, "nodes")?;
    let workers = uint(
        spec.get("workers").ok_or("`workers` is missing")?,
        "workers",
    )?;
    if nodes == 0 || workers == 0 {
        return Err("`nodes` and `workers` must be at least 1".into());
    }
    let gpus = match spec.get("gpus") {
        Some(g) => uint(g, "gpus")?,
        None if (nodes * gpus_per_node).is_multiple_of(workers) => nodes * gpus_per_node / workers,
        None => {
            return Err(format!(
                "{nodes} nodes do not split evenly into {workers} workers"
            ));
        }
    };
    if gpus == 0 || (gpus > gpus_per_node && !gpus.is_multiple_of(gpus_per_node)) {
        return Err(format!(
            "{gpus} GPUs per worker do not fit {gpus_per_node}-GPU nodes"
        ));
    }
    let pairs = |k: &str| -> Result<Vec<(String, Node)>, String> {
        match spec.get(k) {
            None => Ok(Vec::new()),
            Some(n) => Ok(map_of(n, k)?.to_vec()),
        }
    };
    Ok(RoleSpec {
        role,
        nodes,
        workers,
        gpus,
        // A recipe that writes the kv-events config itself publishes KV events
        // (the generator writes its own, fixed endpoint).
        kv_events: flag(spec.get("kv_events"), "kv_events", false)?
            || spec
                .get("args")
                .is_some_and(|a| a.get("kv-events-config").is_some()),
        args: pairs("args")?,
        env: pairs("env")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sync::input::{lane_manifest, recipe, yaml};

    const RECIPE: &str = include_str!(
        "../../../tests/fixtures/sync/snapshot/a1b2c3d4/inferencex-e2e/benchmarks/multi_node/srt-slurm-recipes/demo/sglang/b200-fp8/disagg.yaml"
    );
    const MANIFEST: &str = include_str!("../../../tests/fixtures/sync/demo-lanes.toml");

    /// Every prefix, and the text without each of its lines, parses or fails
    /// with a message; nothing panics.
    fn mutations(text: &str) -> Vec<String> {
        let lines: Vec<&str> = text.lines().collect();
        let mut out: Vec<String> = (0..lines.len())
            .map(|i| {
                let mut l = lines.clone();
                l.remove(i);
                l.join("\n")
            })
            .collect();
        out.extend(
            text.char_indices()
                .step_by(5)
                .map(|(i, _)| text[..i].to_string()),
        );
        out
    }

    #[test]
    fn mangled_recipes_and_manifests_never_panic() {
        let mut typed = 0;
        for text in mutations(RECIPE) {
            let Ok(doc) = yaml::parse(&text) else {
                continue;
            };
            let Ok(variants) = recipe::variants(&doc) else {
                continue;
            };
            for v in variants {
                typed += usize::from(parse(&v.node).is_ok());
            }
        }
        assert!(typed > 0, "some mutations still type");
        for text in mutations(MANIFEST) {
            let _ = lane_manifest::parse(&text, std::path::Path::new("m.toml"));
        }
    }
}
