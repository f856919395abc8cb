//! Front doors: the submitted one (Dynamo: etcd, NATS, frontends, nginx,
//! workers; SGLang: the worker alone) and the other router, derived
//! (research/generator.md §2.4). Config files are keyed `<name>#<sha256[:8]>`.
//! Uses `data`, `decode` (the lead order) and `sync::*`.

use std::collections::BTreeMap;

use sha2::{Digest, Sha256};

use super::rules::{Rule, Scope};
use super::spec::{DynamoInstall, FrontDoor, Recipe};
use super::workers::{self, Ctx, ETCD_ENDPOINTS, NATS_SERVER, Problem};
use crate::data::{Arg, Block, BlockKind, Role, Router};
use crate::decode::sort_worker_args;

/// The blocks of one router, with the install lines and config files it uses.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct RouterSetup {
    pub install: Vec<String>,
    /// `(key, name, content)` of each config file, in block order.
    pub files: Vec<(String, String, String)>,
    pub blocks: Vec<Block>,
}

/// Both routers of one variant.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Routers {
    pub submitted: Router,
    pub by_router: BTreeMap<Router, RouterSetup>,
}

/// Builds the submitted front door and derives the other.
pub(super) fn build(
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
            let dynamo = dynamo_door(recipe, workers, frontends, ctx)?;
            let sglang = sglang_from_dynamo(&dynamo.blocks, recipe.is_pd())?;
            by_router.insert(Router::Dynamo, dynamo);
            by_router.insert(Router::Sglang, sglang);
            Router::Dynamo
        }
        FrontDoor::Sglang => {
            let [worker] = workers.as_slice() else {
                return Err(refused_sglang_router());
            };
            if recipe.is_pd() || worker.workers != Some(1) || workers::dp_attention(worker) {
                return Err(refused_sglang_router());
            }
            by_router.insert(Router::Dynamo, dynamo_from_sglang(worker));
            by_router.insert(
                Router::Sglang,
                RouterSetup {
                    install: Vec::new(),
                    files: Vec::new(),
                    blocks: workers,
                },
            );
            Router::Sglang
        }
    };
    Ok(Routers {
        submitted,
        by_router,
    })
}

fn refused_sglang_router() -> Problem {
    Problem::Refused(
        "an SGLang front door with several workers, PD roles or DP attention needs a router \
         block, and no verified rule for it exists yet"
            .into(),
    )
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

fn nats(max_payload_mb: Option<u64>, files: &mut Vec<(String, String, String)>) -> Block {
    let cmd = match max_payload_mb {
        Some(mb) => {
            let content = format!(
                "max_payload: {}\njetstream {{ store_dir: \"/tmp/nats\" }}\n",
                mb * 1024 * 1024
            );
            files.push((file_key("nats.conf", &content), "nats.conf".into(), content));
            "nats-server -c nats.conf"
        }
        None => "nats-server -js -sd /tmp/nats",
    };
    let mut b = Block::new(BlockKind::Nats, cmd);
    b.count_nodes = Some(1);
    b
}

/// The submitted Dynamo front door: etcd, NATS, frontend(s), nginx, workers.
fn dynamo_door(
    recipe: &Recipe,
    workers: Vec<Block>,
    frontends: Option<u32>,
    ctx: &Ctx<'_>,
) -> Result<RouterSetup, Problem> {
    if !recipe.etcd {
        return Err(Problem::Refused(
            "a Dynamo front door without an etcd service is not supported".into(),
        ));
    }
    let install = match &recipe.dynamo {
        Some(DynamoInstall::Bundled) => Vec::new(),
        Some(DynamoInstall::Wheel(v)) => vec![format!(
            "pip install --pre --extra-index-url https://pypi.nvidia.com \"ai-dynamo-runtime=={v}\" \"ai-dynamo=={v}\""
        )],
        Some(DynamoInstall::Source(h)) => vec![format!(
            "# Dynamo built from source at https://github.com/ai-dynamo/dynamo/commit/{h}"
        )],
        None => {
            return Err(Problem::Refused(
                "the recipe runs a Dynamo front door but has no `dynamo` section: which Dynamo ran is unknown".into(),
            ));
        }
    };
    let mut files = Vec::new();
    let mut blocks = vec![etcd()];
    if let Some(payload) = recipe.nats {
        blocks.push(nats(payload, &mut files));
    }
    let count = frontend_count(recipe, frontends);
    blocks.push(frontend(recipe, count, ctx)?);
    if count > 1 {
        let content = nginx_conf(count, recipe);
        files.push((
            file_key("nginx.conf", &content),
            "nginx.conf".into(),
            content,
        ));
        let mut nginx = Block::new(BlockKind::Nginx, "nginx -c nginx.conf -g daemon off;");
        nginx.env.clear();
        blocks.push(nginx);
    }
    blocks.extend(workers);
    Ok(RouterSetup {
        install,
        files,
        blocks,
    })
}

/// srt-slurm runs one frontend unless several are enabled and the job spans
/// several nodes; then `min(num_additional + 1, worker nodes + 1)`. The second
/// bound is fitted to the two lanes the real data shows (3 frontends for 2
/// worker nodes, 6 for 5) and can be overridden per lane with `frontends`.
fn frontend_count(recipe: &Recipe, frontends: Option<u32>) -> u32 {
    if let Some(n) = frontends {
        return n.max(1);
    }
    let nodes = recipe.nodes();
    if !recipe.frontend.multiple || nodes <= 1 {
        1
    } else {
        (recipe.frontend.num_additional + 1).min(nodes + 1)
    }
}

fn frontend(recipe: &Recipe, count: u32, ctx: &Ctx<'_>) -> Result<Block, Problem> {
    let mut b = Block::new(BlockKind::DynamoFrontend, "python3 -m dynamo.frontend");
    b.count = Some(count);
    let port = if count > 1 { "8180" } else { "8000" };
    b.args.push(Arg::new("--http-port", &[port]));
    for (key, value) in &recipe.frontend.args {
        match ctx.rule(Scope::FrontendArg, key, value.line)? {
            Rule::Keep => {}
            Rule::Lead | Rule::Drop(_) => continue,
            Rule::Placeholder(p) => {
                b.args.push(Arg::new(&format!("--{key}"), &[p]));
                continue;
            }
        }
        // srt-slurm's dynamo frontend: `true` is a bare flag, `false`/null drop it.
        match (value.as_bool(), value.is_null(), value.python_str()) {
            (Some(true), _, _) => b.args.push(Arg::new(&format!("--{key}"), &[])),
            (Some(false), _, _) | (_, true, _) => {}
            (_, _, Some(text)) => b.args.push(Arg::new(&format!("--{key}"), &[&text])),
            (_, _, None) => {
                return Err(Problem::Refused(format!(
                    "{}:{}: variant {}: frontend argument `{key}` is {}",
                    ctx.file,
                    value.line,
                    ctx.variant,
                    value.kind()
                )));
            }
        }
    }
    b.env = workers::env(&recipe.frontend.env, ctx)?;
    b.env.insert("DYN_REQUEST_PLANE".into(), "tcp".into());
    b.env.insert("ETCD_ENDPOINTS".into(), ETCD_ENDPOINTS.into());
    if recipe.nats.is_some() {
        b.env.insert("NATS_SERVER".into(), NATS_SERVER.into());
    }
    Ok(b)
}

/// This tool's own nginx.conf for `count` frontends (srt-slurm's template,
/// patched by SemiAnalysis, is not available offline; the commands do not depend on it).
fn nginx_conf(count: u32, recipe: &Recipe) -> String {
    let mut s = String::from(
        "# Load balancer in front of the Dynamo frontends (port 8180 each); clients use port 8000.\n\
         worker_processes auto;\n\nevents {\n    worker_connections 65535;\n}\n\nhttp {\n    \
         access_log off;\n    # Agentic requests can exceed nginx's 1 MiB default body size.\n    \
         client_max_body_size 45m;\n    keepalive_timeout 600s;\n",
    );
    let affinity = recipe.frontend.session_affinity;
    if affinity {
        let var = format!(
            "$http_{}",
            recipe
                .frontend
                .affinity_header
                .to_ascii_lowercase()
                .replace('-', "_")
        );
        s.push_str(&format!(
            "\n    # One session stays on one frontend; requests without a session id spread out.\n    \
             map {var} $frontend_hash_key {{\n        default {var};\n        \"\" $request_id;\n    }}\n"
        ));
    }
    s.push_str("\n    upstream dynamo_frontends {\n");
    if affinity {
        s.push_str("        hash $frontend_hash_key consistent;\n");
    }
    for i in 0..count {
        s.push_str(&format!("        server $FRONTEND_{i}_IP:8180;\n"));
    }
    s.push_str(
        "        keepalive 512;\n    }\n\n    server {\n        listen 8000;\n        location / {\n            \
         proxy_pass http://dynamo_frontends;\n            proxy_http_version 1.1;\n            \
         proxy_set_header Connection \"\";\n            proxy_buffering off;\n            \
         proxy_read_timeout 24h;\n            proxy_send_timeout 24h;\n        }\n    }\n}\n",
    );
    s
}

/// The SGLang router derived from a Dynamo submission: the same workers on
/// `sglang.launch_server`, without Dynamo's flags and env, then one router.
fn sglang_from_dynamo(blocks: &[Block], pd: bool) -> Result<RouterSetup, Problem> {
    let mut out = Vec::new();
    let mut prefill = 0;
    let mut decode = 0;
    for w in blocks.iter().filter(|b| b.kind == BlockKind::Worker) {
        let mut b = w.clone();
        b.cmd = "python3 -m sglang.launch_server".into();
        b.args
            .retain(|a| a.flag != "--request-plane" && a.flag != "--kv-events-config");
        for k in ["DYN_REQUEST_PLANE", "ETCD_ENDPOINTS", "NATS_SERVER"] {
            b.env.remove(k);
        }
        if pd {
            // srt-slurm's SGLang frontend skips warmup on PD workers; decode keeps the tokenizer.
            if !b.args.iter().any(|a| a.flag == "--skip-server-warmup") {
                b.args.push(Arg::new("--skip-server-warmup", &[]));
            }
            if b.role == Some(Role::Decode) {
                b.args.retain(|a| a.flag != "--skip-tokenizer-init");
            }
            sort_worker_args(&mut b.args);
        }
        match b.role {
            Some(Role::Prefill) => prefill += b.workers.unwrap_or(1),
            Some(Role::Decode) => decode += b.workers.unwrap_or(1),
            _ => {}
        }
        out.push(b);
    }
    let mut router = Block::new(
        BlockKind::SglangRouter,
        "python3 -m sglang_router.launch_router",
    );
    if pd {
        for n in (0..decode).rev() {
            router.args.push(Arg::new(
                "--decode",
                &[&format!("http://$DECODE_{n}_HEAD_IP:30000")],
            ));
        }
        for n in (0..prefill).rev() {
            let url = format!("http://$PREFILL_{n}_HEAD_IP:30000");
            router
                .args
                .push(Arg::new("--prefill", &[&url, workers::BOOTSTRAP_PORT]));
        }
        router.args.push(Arg::new("--pd-disaggregation", &[]));
    }
    router.args.push(Arg::new("--host", &["0.0.0.0"]));
    router.args.push(Arg::new("--port", &["8000"]));
    router.args.push(Arg::new("--policy", &["cache_aware"]));
    if !pd {
        let [w] = out.as_slice() else {
            return Err(agg_router_refused());
        };
        if w.workers != Some(1) || workers::dp_attention(w) {
            return Err(agg_router_refused());
        }
        let url = if w.nodes_per_worker.unwrap_or(1) > 1 {
            "http://$AGG_0_HEAD_IP:30000"
        } else {
            "http://127.0.0.1:30000"
        };
        router.args.push(Arg::new("--worker-urls", &[url]));
    }
    out.push(router);
    Ok(RouterSetup {
        install: Vec::new(),
        files: Vec::new(),
        blocks: out,
    })
}

fn agg_router_refused() -> Problem {
    Problem::Refused(
        "deriving the SGLang router for several aggregated workers or DP attention has no \
         verified rule yet"
            .into(),
    )
}

/// Dynamo derived from an SGLang submission: etcd, one frontend with the KV
/// router, the worker on `dynamo.sglang`. No NATS.
fn dynamo_from_sglang(worker: &Block) -> RouterSetup {
    let mut fe = Block::new(BlockKind::DynamoFrontend, "python3 -m dynamo.frontend");
    fe.count = Some(1);
    fe.args = vec![
        Arg::new("--http-port", &["8000"]),
        Arg::new("--router-mode", &["kv"]),
    ];
    fe.env.insert("DYN_REQUEST_PLANE".into(), "tcp".into());
    fe.env
        .insert("ETCD_ENDPOINTS".into(), ETCD_ENDPOINTS.into());
    let mut w = worker.clone();
    w.cmd = "python3 -m dynamo.sglang".into();
    w.args.push(Arg::new("--request-plane", &["tcp"]));
    sort_worker_args(&mut w.args);
    w.env.insert("DYN_REQUEST_PLANE".into(), "tcp".into());
    w.env.insert("ETCD_ENDPOINTS".into(), ETCD_ENDPOINTS.into());
    RouterSetup {
        install: Vec::new(),
        files: Vec::new(),
        blocks: vec![etcd(), fe, w],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_keys_are_sha256_prefixes() {
        // The key the real GLM-5.2 data file uses for this nats.conf.
        let mut files = Vec::new();
        nats(Some(64), &mut files);
        assert_eq!(files[0].0, "nats.conf#7d9e9ee1");
    }
}
