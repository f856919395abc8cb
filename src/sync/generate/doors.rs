//! Front doors: the submitted one (Dynamo: etcd, NATS, nginx, frontends,
//! Mooncake services, workers; SGLang: the worker alone, or behind an SGLang
//! router) and the other router, derived (docs/sync.md, "Front doors").
//! Config files are keyed `<name>#<sha256[:8]>`. Uses `data`, `decode` (the
//! lead order) and `sync::*`.

mod derive;
mod dynamo;
pub(in crate::sync) mod mooncake;
pub(in crate::sync) mod nginx;

use std::collections::BTreeMap;

use sha2::{Digest, Sha256};

use super::workers::{self, Ctx, ETCD_ENDPOINTS, Problem};
use crate::data::{Arg, Block, BlockKind, Router};
use crate::sync::input::spec::{FrontDoor, Recipe};
use crate::sync::rules::{Rule, Scope};

/// The blocks of one router, with the install lines and config files it uses.
#[derive(Debug, Clone, PartialEq)]
pub(in crate::sync) struct RouterSetup {
    pub install: Vec<String>,
    /// `(key, name, content)` of each config file, by key.
    pub files: Vec<(String, String, String)>,
    pub blocks: Vec<Block>,
}

/// Both routers of one variant.
#[derive(Debug, Clone, PartialEq)]
pub(in crate::sync) struct Routers {
    pub submitted: Router,
    pub by_router: BTreeMap<Router, RouterSetup>,
}

/// Builds the submitted front door and derives the other.
pub(in crate::sync) fn build(
    recipe: &Recipe,
    frontends: Option<u32>,
    ctx: &Ctx<'_>,
) -> Result<Routers, Problem> {
    let door = recipe.frontend.door;
    let workers = recipe
        .roles
        .iter()
        .map(|r| workers::worker(r, recipe, door, ctx))
        .collect::<Result<Vec<Block>, Problem>>()?;
    let mut by_router = BTreeMap::new();
    let submitted = match door {
        FrontDoor::Dynamo => {
            let dynamo = dynamo::door(recipe, workers, frontends, ctx)?;
            let sglang = derive::sglang_from_dynamo(&dynamo.blocks, recipe.is_pd())?;
            by_router.insert(Router::Dynamo, dynamo);
            by_router.insert(Router::Sglang, sglang);
            Router::Dynamo
        }
        FrontDoor::Sglang | FrontDoor::SglangRouter => {
            let [worker] = workers.as_slice() else {
                return Err(refused_sglang_router());
            };
            if recipe.is_pd() || worker.workers != Some(1) || recipe.mooncake.is_some() {
                return Err(refused_sglang_router());
            }
            let mut blocks = workers.clone();
            if door == FrontDoor::SglangRouter {
                blocks.push(router(recipe, worker, ctx)?);
            } else if workers::dp_attention(worker) {
                return Err(Problem::Refused(
                    "an SGLang front door of DP-attention ranks without a router \
                     (`frontend.type: sglang-router`) is not rendered: which router flags ran is \
                     unknown"
                        .into(),
                ));
            }
            by_router.insert(Router::Dynamo, derive::dynamo_from_sglang(worker));
            by_router.insert(Router::Sglang, setup(Vec::new(), blocks));
            Router::Sglang
        }
    };
    for r in by_router.values_mut() {
        attach_files(r, ctx);
    }
    Ok(Routers {
        submitted,
        by_router,
    })
}

fn setup(install: Vec<String>, blocks: Vec<Block>) -> RouterSetup {
    RouterSetup {
        install,
        files: Vec::new(),
        blocks,
    }
}

fn refused_sglang_router() -> Problem {
    Problem::Refused(
        "an SGLang front door with several workers, PD roles or a Mooncake store needs router \
         blocks no verified rule covers yet"
            .into(),
    )
}

/// The submitted SGLang router (`frontend.type: sglang-router`): host and
/// port, the recipe's router arguments in recipe order (`true` a bare flag,
/// `false`/null left out), then the worker's URL.
fn router(recipe: &Recipe, worker: &Block, ctx: &Ctx<'_>) -> Result<Block, Problem> {
    let mut b = Block::new(
        BlockKind::SglangRouter,
        "python3 -m sglang_router.launch_router",
    );
    b.args.push(Arg::new("--host", &["0.0.0.0"]));
    b.args.push(Arg::new("--port", &["8000"]));
    for (key, value) in &recipe.frontend.args {
        if let Some(arg) = frontend_arg(Scope::RouterArg, key, value, ctx)? {
            b.args.push(arg);
        }
    }
    b.args
        .push(Arg::new("--worker-urls", &[worker_url(worker)]));
    b.env = workers::env(&recipe.frontend.env, ctx)?;
    Ok(b)
}

/// Where a router reaches an aggregated worker.
fn worker_url(w: &Block) -> &'static str {
    if w.nodes_per_worker.unwrap_or(1) > 1 {
        "http://$AGG_0_HEAD_IP:30000"
    } else {
        "http://127.0.0.1:30000"
    }
}

/// One frontend or router argument through the rules table, written as
/// srt-slurm's frontends write them.
fn frontend_arg(
    scope: Scope,
    key: &str,
    value: &crate::sync::input::yaml::Node,
    ctx: &Ctx<'_>,
) -> Result<Option<Arg>, Problem> {
    let flag = format!("--{key}");
    match ctx.rule(scope, key, value.line) {
        Rule::Keep => {}
        Rule::Lead | Rule::Drop(_) => return Ok(None),
        Rule::Disclose(d) => {
            ctx.disclose(&d);
            return Ok(None);
        }
        Rule::Placeholder(p) => return Ok(Some(Arg::new(&flag, &[&p]))),
        Rule::File => {
            return Err(Problem::Refused(format!(
                "{}:{}: variant {}: {scope} `{key}` names a file; only worker arguments may",
                ctx.file, value.line, ctx.variant
            )));
        }
    }
    match (value.as_bool(), value.is_null(), value.python_str()) {
        (Some(true), _, _) => Ok(Some(Arg::new(&flag, &[]))),
        (Some(false), _, _) | (_, true, _) => Ok(None),
        (_, _, Some(text)) => Ok(Some(Arg::new(&flag, &[&text]))),
        (_, _, None) => Err(Problem::Refused(format!(
            "{}:{}: variant {}: {scope} `{key}` is {}",
            ctx.file,
            value.line,
            ctx.variant,
            value.kind()
        ))),
    }
}

fn etcd() -> Block {
    let mut b = Block::new(BlockKind::Etcd, "etcd");
    b.count_nodes = Some(1);
    b.args = vec![
        Arg::new("--data-dir", &["/tmp/etcd"]),
        Arg::new("--listen-client-urls", &["http://0.0.0.0:2379"]),
        Arg::new("--advertise-client-urls", &[ETCD_ENDPOINTS]),
    ];
    b
}

fn file_key(name: &str, content: &str) -> String {
    let digest = Sha256::digest(content.as_bytes());
    let hex: String = digest.iter().take(4).map(|b| format!("{b:02x}")).collect();
    format!("{name}#{hex}")
}

/// Adds the config files a worker argument names (`--deepep-config
/// deepep_config.json`) to each router whose blocks use them, and orders a
/// router's files by key, as the real pages do.
fn attach_files(r: &mut RouterSetup, ctx: &Ctx<'_>) {
    for (name, content) in ctx.files.borrow().iter() {
        let used = r
            .blocks
            .iter()
            .any(|b| b.args.iter().any(|a| a.values.iter().any(|v| v == name)));
        let key = file_key(name, content);
        if used && !r.files.iter().any(|(k, _, _)| *k == key) {
            r.files.push((key, name.clone(), content.clone()));
        }
    }
    r.files.sort_by(|a, b| a.0.cmp(&b.0));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_keys_are_sha256_prefixes() {
        // The key the real GLM-5.2 data file uses for this nats.conf.
        let mut files = Vec::new();
        dynamo::nats(Some(64), &mut files);
        assert_eq!(files[0].0, "nats.conf#7d9e9ee1");
    }
}
