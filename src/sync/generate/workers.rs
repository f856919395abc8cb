//! Worker blocks from recipe roles: the fixed lead flags with placeholder
//! addresses, then the role's arguments through the rules table (sorted as the
//! decoder sorts them), the role's env through the same table, GPU pinning for
//! workers sharing a node. Uses `data`, `decode` (the lead order) and `sync::*`.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::fmt;

use crate::data::{Arg, Block, BlockKind, Env, Role};
use crate::decode::sort_worker_args;
use crate::sync::input::spec::{FrontDoor, Recipe, RoleSpec};
use crate::sync::input::yaml::{Node, Value};
use crate::sync::rules::{Rule, Rules, Scope};

/// Ports and placeholders every generated worker uses (docs/sync.md, "Workers").
pub(in crate::sync) const WORKER_PORT: &str = "30000";
pub(in crate::sync) const BOOTSTRAP_PORT: &str = "8998";
pub(in crate::sync) const KV_EVENTS: &str =
    r#"{"publisher":"zmq","topic":"kv-events","endpoint":"tcp://*:5557"}"#;
pub(in crate::sync) const ETCD_ENDPOINTS: &str = "http://$ETCD_IP:2379";
pub(in crate::sync) const NATS_SERVER: &str = "nats://$NATS_IP:4222";

/// Why a recipe could not be turned into commands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(in crate::sync) enum Problem {
    /// Something the generator refuses, with the reason.
    Refused(String),
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::Refused(why) => f.write_str(why),
        }
    }
}

impl From<String> for Problem {
    fn from(s: String) -> Problem {
        Problem::Refused(s)
    }
}

/// A name the rules table does not classify, where a recipe used it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(in crate::sync) struct Unclassified {
    /// `path@commit` of the recipe.
    pub file: String,
    pub line: usize,
    pub variant: String,
    pub scope: Scope,
    pub key: String,
}

/// What the builders need to know besides the recipe.
pub(in crate::sync) struct Ctx<'a> {
    pub rules: &'a Rules,
    /// The master config's Hugging Face id: `--model-path`.
    pub model: &'a str,
    /// Env the lane's cluster exports into every worker (from the manifest).
    pub cluster_env: &'a Env,
    /// `path@commit` of the recipe, for messages.
    pub file: &'a str,
    pub variant: &'a str,
    /// Config files of `--previous`, whose text a generated file of the same
    /// directives takes.
    pub known_files: &'a super::doors::nginx::KnownFiles,
    /// Names the rules table does not classify, as they are met.
    pub unclassified: RefCell<Vec<Unclassified>>,
    /// Disclosures of what the rules dropped (`chat-template`).
    pub disclosures: RefCell<BTreeSet<String>>,
    /// Config files worker arguments name: `(name, text)`.
    pub files: RefCell<Vec<(String, String)>>,
}

impl<'a> Ctx<'a> {
    /// A context with nothing collected yet.
    pub(in crate::sync) fn new(
        rules: &'a Rules,
        model: &'a str,
        cluster_env: &'a Env,
        file: &'a str,
        variant: &'a str,
        known_files: &'a super::doors::nginx::KnownFiles,
    ) -> Ctx<'a> {
        Ctx {
            rules,
            model,
            cluster_env,
            file,
            variant,
            known_files,
            unclassified: RefCell::new(Vec::new()),
            disclosures: RefCell::new(BTreeSet::new()),
            files: RefCell::new(Vec::new()),
        }
    }

    pub(in crate::sync) fn disclose(&self, id: &str) {
        self.disclosures.borrow_mut().insert(id.to_string());
    }

    /// Applies the rules table. A name it does not classify is recorded (the
    /// sync reports every one of a run at once, then writes nothing) and
    /// treated as dropped, so that the rest of the recipe is still read.
    pub(in crate::sync) fn rule(&self, scope: Scope, key: &str, line: usize) -> Rule {
        match self.rules.classify(scope, key) {
            Some(r) => r.clone(),
            None => {
                self.unclassified.borrow_mut().push(Unclassified {
                    file: self.file.to_string(),
                    line,
                    variant: self.variant.to_string(),
                    scope,
                    key: key.to_string(),
                });
                Rule::Drop("unclassified".into())
            }
        }
    }
}

/// One worker block of a role, for the submitted front door.
pub(in crate::sync) fn worker(
    spec: &RoleSpec,
    recipe: &Recipe,
    door: FrontDoor,
    ctx: &Ctx<'_>,
) -> Result<Block, Problem> {
    let cmd = match door {
        FrontDoor::Dynamo => "python3 -m dynamo.sglang",
        FrontDoor::Sglang | FrontDoor::SglangRouter => "python3 -m sglang.launch_server",
    };
    let mut b = Block::new(BlockKind::Worker, cmd);
    b.role = Some(spec.role);
    b.workers = Some(spec.workers);
    let per_node = recipe.gpus_per_node;
    let nodes_per_worker = if spec.gpus > per_node {
        spec.gpus / per_node
    } else {
        1
    };
    b.nodes_per_worker = Some(nodes_per_worker);
    b.gpu_pinning = pinning(spec.workers, spec.gpus, per_node);
    b.args = lead_args(spec, recipe, door, nodes_per_worker, ctx);
    b.args.extend(role_args(spec, ctx)?);
    sort_worker_args(&mut b.args);
    b.env = env(&spec.env, ctx)?;
    b.env.extend(ctx.cluster_env.clone());
    if recipe.mooncake.is_some() {
        b.env.extend(super::doors::mooncake::client_env());
    }
    if door == FrontDoor::Dynamo {
        b.env.insert("DYN_REQUEST_PLANE".into(), "tcp".into());
        b.env.insert("ETCD_ENDPOINTS".into(), ETCD_ENDPOINTS.into());
        if recipe.nats.is_some() {
            b.env.insert("NATS_SERVER".into(), NATS_SERVER.into());
        }
    }
    Ok(b)
}

/// Workers sharing a node get consecutive GPU ids: `[["0,1"], ["2,3"]]`.
/// Fitted to the three cases the real data shows (docs/sync.md, "Workers").
fn pinning(workers: u32, gpus: u32, per_node: u32) -> Option<Vec<Vec<String>>> {
    if workers <= 1 || gpus >= per_node {
        return None;
    }
    let groups = workers.min(per_node / gpus);
    Some(
        (0..groups)
            .map(|g| {
                let ids: Vec<String> = (g * gpus..(g + 1) * gpus).map(|i| i.to_string()).collect();
                vec![ids.join(",")]
            })
            .collect(),
    )
}

fn lead_args(
    spec: &RoleSpec,
    recipe: &Recipe,
    door: FrontDoor,
    nodes_per_worker: u32,
    ctx: &Ctx<'_>,
) -> Vec<Arg> {
    let served = served_name(recipe, spec).unwrap_or_else(|| ctx.model.to_string());
    let mut args = vec![
        Arg::new("--model-path", &[ctx.model]),
        Arg::new("--served-model-name", &[&served]),
        Arg::new("--host", &["0.0.0.0"]),
        Arg::new("--port", &[WORKER_PORT]),
    ];
    if spec.role != Role::Agg {
        args.push(Arg::new("--disaggregation-mode", &[spec.role.id()]));
    }
    if spec.role == Role::Prefill {
        args.push(Arg::new(
            "--disaggregation-bootstrap-port",
            &[BOOTSTRAP_PORT],
        ));
    }
    if nodes_per_worker > 1 {
        let head = format!("${}_HEAD_IP:20000", spec.role.id().to_ascii_uppercase());
        args.push(Arg::new("--dist-init-addr", &[&head]));
        args.push(Arg::new("--nnodes", &[&nodes_per_worker.to_string()]));
        args.push(Arg::new("--node-rank", &["$NODE_RANK"]));
    }
    if door == FrontDoor::Dynamo {
        args.push(Arg::new("--request-plane", &["tcp"]));
        if spec.kv_events {
            args.push(Arg::new("--kv-events-config", &[KV_EVENTS]));
        }
    }
    args
}

/// srtctl's served name: the role's own, else the first role that sets one.
fn served_name(recipe: &Recipe, spec: &RoleSpec) -> Option<String> {
    let find = |s: &RoleSpec| {
        s.args
            .iter()
            .find(|(k, _)| k == "served-model-name" || k == "served_model_name")
            .and_then(|(_, v)| v.python_str())
    };
    find(spec).or_else(|| {
        [Role::Prefill, Role::Agg, Role::Decode]
            .into_iter()
            .filter_map(|r| recipe.role(r))
            .find_map(find)
    })
}

/// The role's arguments through the rules table, as srtctl writes them.
fn role_args(spec: &RoleSpec, ctx: &Ctx<'_>) -> Result<Vec<Arg>, Problem> {
    let mut out = Vec::new();
    for (key, value) in &spec.args {
        let name = key.replace('_', "-");
        match ctx.rule(Scope::WorkerArg, &name, value.line) {
            Rule::Keep => out.extend(cli_arg(&name, value, ctx)?),
            Rule::Lead | Rule::Drop(_) => {}
            Rule::Disclose(d) => ctx.disclose(&d),
            Rule::Placeholder(text) => out.push(Arg::new(&format!("--{name}"), &[&text])),
            Rule::File => out.push(file_arg(&name, value, ctx)?),
        }
    }
    Ok(out)
}

/// A worker argument naming a config file on the cluster: the command names
/// the file by its base name, and the file's text comes from `--previous`.
fn file_arg(name: &str, value: &Node, ctx: &Ctx<'_>) -> Result<Arg, Problem> {
    let path = value.python_str().unwrap_or_default();
    let base = path.rsplit('/').next().unwrap_or_default().to_string();
    let content = ctx.known_files.by_name(&base).ok_or_else(|| {
        Problem::Refused(format!(
            "{}:{}: variant {}: `{name}` names {path}, a file on SemiAnalysis's cluster; no page \
             of --previous holds one {base} (or they differ), so its text is unknown",
            ctx.file, value.line, ctx.variant
        ))
    })?;
    ctx.files.borrow_mut().push((base.clone(), content));
    Ok(Arg::new(&format!("--{name}"), &[&base]))
}

/// srtctl's `_config_to_cli_args` for one key: `true` is a bare flag, `false`
/// and null drop it, a list gives one value per item, anything else `str()`.
fn cli_arg(name: &str, value: &Node, ctx: &Ctx<'_>) -> Result<Option<Arg>, Problem> {
    let flag = format!("--{name}");
    let values = match &value.value {
        Value::Bool(true) => Vec::new(),
        Value::Bool(false) | Value::Null => return Ok(None),
        Value::Seq(items) => items
            .iter()
            .map(|i| {
                i.python_str().ok_or_else(|| {
                    Problem::Refused(format!(
                        "{}:{}: variant {}: `{name}` holds a nested list",
                        ctx.file, value.line, ctx.variant
                    ))
                })
            })
            .collect::<Result<Vec<_>, _>>()?,
        Value::Map(_) => {
            return Err(Problem::Refused(format!(
                "{}:{}: variant {}: `{name}` is a mapping; srtctl would print a Python dict",
                ctx.file, value.line, ctx.variant
            )));
        }
        _ => vec![value.python_str().unwrap_or_default()],
    };
    Ok(Some(Arg { flag, values }))
}

/// Env pairs through the rules table, values as strings.
pub(in crate::sync) fn env(pairs: &[(String, Node)], ctx: &Ctx<'_>) -> Result<Env, Problem> {
    let mut out = Env::new();
    for (key, value) in pairs {
        let text = match &value.value {
            Value::Str(_) | Value::Int(_) | Value::Float(_) => {
                value.python_str().unwrap_or_default()
            }
            _ => {
                return Err(Problem::Refused(format!(
                    "{}:{}: variant {}: env `{key}` is {}; quote its value",
                    ctx.file,
                    value.line,
                    ctx.variant,
                    value.kind()
                )));
            }
        };
        match ctx.rule(Scope::Env, key, value.line) {
            Rule::Keep => {
                out.insert(key.clone(), text);
            }
            Rule::Lead | Rule::Drop(_) => {}
            Rule::Disclose(d) => ctx.disclose(&d),
            Rule::Placeholder(p) => {
                out.insert(key.clone(), p.clone());
            }
            Rule::File => {
                return Err(Problem::Refused(format!(
                    "{}:{}: variant {}: env `{key}` is classified as a file; only worker \
                     arguments may name files",
                    ctx.file, value.line, ctx.variant
                )));
            }
        }
    }
    Ok(out)
}

/// Whether a worker runs DP attention (`--enable-dp-attention`).
pub(in crate::sync) fn dp_attention(b: &Block) -> bool {
    b.args.iter().any(|a| a.flag == "--enable-dp-attention")
}

/// The value of a worker flag, when it has exactly one.
pub(in crate::sync) fn arg_value<'a>(b: &'a Block, flag: &str) -> Option<&'a str> {
    b.args
        .iter()
        .find(|a| a.flag == flag)
        .and_then(|a| match a.values.as_slice() {
            [v] => Some(v.as_str()),
            _ => None,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pinning_groups_consecutive_gpus() {
        assert_eq!(pinning(1, 2, 4), None);
        assert_eq!(pinning(2, 4, 4), None);
        assert_eq!(
            pinning(2, 2, 4),
            Some(vec![vec!["0,1".to_string()], vec!["2,3".to_string()]])
        );
        assert_eq!(pinning(8, 1, 4).unwrap().len(), 4);
    }
}
