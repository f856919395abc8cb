//! A recipe's Mooncake store as the real pages render it (docs/sync.md,
//! "Mooncake"): `mooncake_master` on fixed ports, the standalone stores as one
//! block (one instance per port on each node of their role), and the store
//! client env every worker gets. Addresses become placeholders. Uses `data`
//! and `sync::*`.

use crate::data::{Arg, Block, BlockKind, Env};
use crate::sync::generate::workers::{self, Ctx, ETCD_ENDPOINTS, NATS_SERVER, Problem};
use crate::sync::input::spec::{Mooncake, Recipe};

pub(in crate::sync) const MASTER_PORT: &str = "8700";
pub(in crate::sync) const METADATA_PORT: &str = "8701";

/// The master's arguments before the recipe's own: ports, the HTTP metadata
/// server the clients use, and the lease and thread settings srt-slurm
/// starts it with (as the real pages show them).
const MASTER_ARGS: [(&str, &str); 5] = [
    ("--port", MASTER_PORT),
    ("--enable_http_metadata_server", "true"),
    ("--http_metadata_server_port", METADATA_PORT),
    ("--default_kv_lease_ttl", "10000"),
    ("--rpc_thread_num", "16"),
];

/// What every process that talks to the store is told: where the master and
/// its metadata server are, and its own address.
pub(in crate::sync) fn client_env() -> Env {
    let mut env = Env::new();
    env.insert(
        "MOONCAKE_MASTER".into(),
        format!("$MOONCAKE_MASTER_IP:{MASTER_PORT}"),
    );
    env.insert(
        "MOONCAKE_TE_META_DATA_SERVER".into(),
        format!("http://$MOONCAKE_MASTER_IP:{METADATA_PORT}/metadata"),
    );
    env.insert("MOONCAKE_LOCAL_HOSTNAME".into(), "$NODE_IP".into());
    env
}

/// Under a Dynamo front door the services also reach etcd (and NATS).
pub(in crate::sync) fn dynamo_service_env(nats: bool) -> Env {
    let mut env = Env::new();
    env.insert("ETCD_ENDPOINTS".into(), ETCD_ENDPOINTS.into());
    if nats {
        env.insert("NATS_SERVER".into(), NATS_SERVER.into());
    }
    env
}

/// The master block, then the stores' block when the recipe runs stores.
pub(in crate::sync) fn blocks(
    m: &Mooncake,
    recipe: &Recipe,
    service_env: &Env,
    ctx: &Ctx<'_>,
) -> Result<Vec<Block>, Problem> {
    let mut master = Block::new(BlockKind::MooncakeMaster, "mooncake_master");
    master.count_nodes = Some(1);
    master.ports = Some(vec![MASTER_PORT.to_string()]);
    master.args = MASTER_ARGS.iter().map(|(f, v)| Arg::new(f, &[v])).collect();
    for a in &m.master_args {
        master.args.push(split_arg(a, ctx)?);
    }
    master.env = service_env.clone();
    let mut out = vec![master];
    if let Some(store) = stores(m, recipe, service_env, ctx)? {
        out.push(store);
    }
    Ok(out)
}

/// `--name=value` → `[--name, value]`; `--flag` stays bare.
fn split_arg(a: &str, ctx: &Ctx<'_>) -> Result<Arg, Problem> {
    if !a.starts_with("--") {
        return Err(Problem::Refused(format!(
            "{}: variant {}: mooncake-master argument `{a}` is not a `--flag`",
            ctx.file, ctx.variant
        )));
    }
    Ok(match a.split_once('=') {
        Some((f, v)) => Arg::new(f, &[v]),
        None => Arg::new(a, &[]),
    })
}

/// All standalone stores as one block: they must differ only in their port.
fn stores(
    m: &Mooncake,
    recipe: &Recipe,
    service_env: &Env,
    ctx: &Ctx<'_>,
) -> Result<Option<Block>, Problem> {
    let Some(first) = m.stores.first() else {
        return Ok(None);
    };
    if let Some(other) = m
        .stores
        .iter()
        .find(|s| s.role != first.role || s.env != first.env || s.preamble != first.preamble)
    {
        return Err(Problem::Refused(format!(
            "{}:{}: variant {}: this mooncake-store differs from the one at line {} in more than \
             its port; the page shows the stores as one block",
            ctx.file, other.line, ctx.variant, first.line
        )));
    }
    let nodes = match recipe.role(first.role) {
        Some(r) => r.nodes,
        None => {
            return Err(Problem::Refused(format!(
                "{}:{}: variant {}: mooncake-store runs on {} nodes, and the recipe has no such role",
                ctx.file,
                first.line,
                ctx.variant,
                first.role.id()
            )));
        }
    };
    let mut b = Block::new(
        BlockKind::MooncakeStore,
        "python -m mooncake.mooncake_store_service",
    );
    b.count_nodes = Some(nodes);
    b.ports = Some(m.stores.iter().map(|s| s.port.clone()).collect());
    b.preamble = first.preamble.clone();
    b.args = vec![Arg::new(&first.args[0], &[&first.args[1]])];
    b.env = workers::env(&first.env, ctx)?;
    b.env.extend(client_env());
    b.env.extend(service_env.clone());
    Ok(Some(b))
}
