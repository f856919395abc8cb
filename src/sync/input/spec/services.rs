//! A recipe's `services:` list, typed: etcd, NATS (with its payload size),
//! and a Mooncake store (its master and the standalone store processes).
//! Every other service type is refused by name. Uses `data` (roles) and
//! `sync::yaml`.

use super::{MAX_COUNT, map_of};
use crate::data::Role;
use crate::sync::input::yaml::{Node, Value};

/// The services of a recipe variant.
#[derive(Debug, Clone, Default)]
pub(in crate::sync) struct Services {
    pub etcd: bool,
    /// `Some(max_payload_mb)` when a NATS service runs.
    pub nats: Option<Option<u64>>,
    pub mooncake: Option<Mooncake>,
}

/// A Mooncake store: its master, and standalone store processes when the
/// recipe runs them.
#[derive(Debug, Clone, Default)]
pub(in crate::sync) struct Mooncake {
    /// The master's own arguments (`--name=value` or `--name value` items), in order.
    pub master_args: Vec<String>,
    /// Standalone stores, in recipe order.
    pub stores: Vec<Store>,
}

/// One `mooncake-store` service.
#[derive(Debug, Clone)]
pub(in crate::sync) struct Store {
    /// The role whose nodes run the store (`placement.node`).
    pub role: Role,
    pub args: Vec<String>,
    /// The store's `--port`.
    pub port: String,
    pub env: Vec<(String, Node)>,
    /// Shell lines run before the store (`ulimit …`).
    pub preamble: Vec<String>,
    pub line: usize,
}

const STORE_KEYS: &[&str] = &[
    "args",
    "env",
    "name",
    "placement",
    "preamble",
    "readiness",
    "type",
];
const MASTER_KEYS: &[&str] = &["args", "name", "placement", "type"];
const SIMPLE_KEYS: &[&str] = &["name", "options", "placement", "type"];

/// Types the `services` list (and v1's implied etcd and NATS, see `recipe::v1`).
pub(in crate::sync) fn parse(s: Option<&Node>) -> Result<Services, String> {
    let mut out = Services::default();
    let Some(s) = s else { return Ok(out) };
    let mut master = false;
    for svc in s.as_seq().ok_or("`services` is not a list")? {
        let kind = svc
            .get("type")
            .and_then(|t| t.as_str())
            .ok_or_else(|| format!("a service (line {}) has no `type`", svc.line))?;
        let keys = match kind {
            "mooncake-store" => STORE_KEYS,
            "mooncake-master" => MASTER_KEYS,
            _ => SIMPLE_KEYS,
        };
        if let Some((k, n)) = map_of(svc, "service")?
            .iter()
            .find(|(k, _)| !keys.contains(&k.as_str()))
        {
            return Err(format!(
                "service `{kind}` key `{k}` (line {}) is not supported",
                n.line
            ));
        }
        match kind {
            "etcd" => out.etcd = true,
            "nats" => out.nats = Some(nats_payload(svc)?),
            "mooncake-master" => {
                master = true;
                let m = out.mooncake.get_or_insert_with(Mooncake::default);
                m.master_args = strings(svc.get("args"), "mooncake-master args")?;
            }
            "mooncake-store" => {
                let store = store(svc)?;
                out.mooncake
                    .get_or_insert_with(Mooncake::default)
                    .stores
                    .push(store);
            }
            other => {
                return Err(format!(
                    "service type `{other}` (line {}) is not supported",
                    svc.line
                ));
            }
        }
    }
    if out.mooncake.is_some() && !master {
        return Err("mooncake-store services without a mooncake-master".into());
    }
    Ok(out)
}

fn nats_payload(svc: &Node) -> Result<Option<u64>, String> {
    svc.get("options")
        .and_then(|o| o.get("max_payload_mb"))
        .map(|p| {
            p.as_int()
                .filter(|i| (1..=MAX_COUNT).contains(i))
                .and_then(|i| u64::try_from(i).ok())
                .ok_or_else(|| format!("`max_payload_mb` (line {}) is not a size", p.line))
        })
        .transpose()
}

/// A list of scalars as text (`["--port", "8800"]`, `[--x=1]`).
fn strings(n: Option<&Node>, what: &str) -> Result<Vec<String>, String> {
    let Some(n) = n else { return Ok(Vec::new()) };
    n.as_seq()
        .ok_or_else(|| format!("`{what}` (line {}) is not a list", n.line))?
        .iter()
        .map(|i| {
            i.python_str()
                .ok_or_else(|| format!("`{what}` (line {}) holds {}", i.line, i.kind()))
        })
        .collect()
}

fn store(svc: &Node) -> Result<Store, String> {
    let here = |what: &str| format!("mooncake-store (line {}): {what}", svc.line);
    let role = match svc
        .get("placement")
        .and_then(|p| p.get("node"))
        .and_then(|n| n.as_str())
    {
        Some("decode") => Role::Decode,
        Some("prefill") => Role::Prefill,
        Some("agg") => Role::Agg,
        other => {
            return Err(here(&format!(
                "placement.node {other:?}: only stores on the worker nodes of a role are supported"
            )));
        }
    };
    let args = strings(svc.get("args"), "mooncake-store args")?;
    let port = match args.as_slice() {
        [flag, port] if flag == "--port" => port.clone(),
        _ => return Err(here("args other than `[--port, <port>]` are not supported")),
    };
    let env = match svc.get("env") {
        None => Vec::new(),
        Some(e) => map_of(e, "mooncake-store env")?.to_vec(),
    };
    let preamble = match svc.get("preamble").map(|p| &p.value) {
        None => Vec::new(),
        Some(Value::Str(text)) => text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(str::to_string)
            .collect(),
        Some(_) => return Err(here("`preamble` is not text")),
    };
    Ok(Store {
        role,
        args,
        port,
        env,
        preamble,
        line: svc.line,
    })
}
