//! The submitted Dynamo front door: etcd, NATS, nginx and the frontends it
//! balances, the Mooncake services, then the workers (docs/sync.md, "Front
//! doors"). Uses `data` and `sync::*`.

use super::{RouterSetup, etcd, file_key, frontend_arg, mooncake, nginx};
use crate::data::{Arg, Block, BlockKind};
use crate::sync::generate::workers::{self, Ctx, ETCD_ENDPOINTS, NATS_SERVER, Problem};
use crate::sync::input::spec::{DynamoInstall, Recipe};
use crate::sync::rules::Scope;

pub(super) fn nats(
    max_payload_mb: Option<u64>,
    files: &mut Vec<(String, String, String)>,
) -> Block {
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

fn install(recipe: &Recipe) -> Result<Vec<String>, Problem> {
    Ok(match &recipe.dynamo {
        Some(DynamoInstall::Bundled) => Vec::new(),
        Some(DynamoInstall::Wheel(v)) => vec![format!(
            "pip install --pre --extra-index-url https://pypi.nvidia.com \"ai-dynamo-runtime=={v}\" \"ai-dynamo=={v}\""
        )],
        Some(DynamoInstall::Source(h)) => vec![format!(
            "# Dynamo built from source at https://github.com/ai-dynamo/dynamo/commit/{h}"
        )],
        None => {
            return Err(Problem::Refused(
                "the recipe runs a Dynamo front door but has no `dynamo` section: which Dynamo \
                 ran is unknown"
                    .into(),
            ));
        }
    })
}

/// The submitted Dynamo front door, in the real pages' launch order.
pub(super) fn door(
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
    let install = install(recipe)?;
    let mut files = Vec::new();
    let mut blocks = vec![etcd()];
    if let Some(payload) = recipe.nats {
        blocks.push(nats(payload, &mut files));
    }
    let count = frontend_count(recipe, frontends);
    if count > 1 {
        // The real pages start nginx before the frontends it balances.
        let spec = nginx::NginxSpec {
            frontends: count,
            affinity_header: recipe
                .frontend
                .session_affinity
                .then(|| recipe.frontend.affinity_header.clone()),
            keepalive_timeout: recipe.frontend.nginx_keepalive_timeout.clone(),
        };
        let content = ctx.known_files.text_for("nginx.conf", nginx::conf(&spec));
        files.push((
            file_key("nginx.conf", &content),
            "nginx.conf".into(),
            content,
        ));
        blocks.push(Block::new(
            BlockKind::Nginx,
            "nginx -c nginx.conf -g daemon off;",
        ));
    }
    blocks.push(frontend(recipe, count, ctx)?);
    if let Some(m) = &recipe.mooncake {
        let service_env = mooncake::dynamo_service_env(recipe.nats.is_some());
        blocks.extend(mooncake::blocks(m, recipe, &service_env, ctx)?);
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
/// bound is fitted to the lanes the real data shows (3 frontends for 2 worker
/// nodes, 6 for 5) and can be overridden per lane with `frontends`.
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
        if let Some(arg) = frontend_arg(Scope::FrontendArg, key, value, ctx)? {
            b.args.push(arg);
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
