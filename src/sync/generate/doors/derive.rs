//! The router a lane was not submitted with, derived from the one it was:
//! SGLang from Dynamo (the same workers on `sglang.launch_server`, Dynamo's
//! flags and env removed, one `sglang_router`), Dynamo from SGLang (etcd, one
//! KV-routing frontend, the worker on `dynamo.sglang`; no NATS). Uses `data`,
//! `decode` (the lead order) and `sync::*`.

use super::{RouterSetup, etcd, worker_url};
use crate::data::{Arg, Block, BlockKind, Role};
use crate::decode::sort_worker_args;
use crate::sync::generate::workers::{BOOTSTRAP_PORT, ETCD_ENDPOINTS, Problem};

/// The env Dynamo adds to the processes it connects.
const DYNAMO_ENV: [&str; 3] = ["DYN_REQUEST_PLANE", "ETCD_ENDPOINTS", "NATS_SERVER"];

/// The SGLang router derived from a Dynamo submission: the same workers on
/// `sglang.launch_server`, without Dynamo's flags and env, then one router.
pub(super) fn sglang_from_dynamo(blocks: &[Block], pd: bool) -> Result<RouterSetup, Problem> {
    // Mooncake services stay, before the workers, without Dynamo's env.
    let mut out: Vec<Block> = blocks
        .iter()
        .filter(|b| matches!(b.kind, BlockKind::MooncakeMaster | BlockKind::MooncakeStore))
        .map(|b| {
            let mut b = b.clone();
            for k in DYNAMO_ENV {
                b.env.remove(k);
            }
            b
        })
        .collect();
    let workers: Vec<Block> = blocks
        .iter()
        .filter(|b| b.kind == BlockKind::Worker)
        .map(|w| sglang_worker(w, pd))
        .collect();
    let router = router(&workers, pd)?;
    out.extend(workers);
    out.push(router);
    Ok(RouterSetup {
        install: Vec::new(),
        files: Vec::new(),
        blocks: out,
    })
}

/// A Dynamo worker on `sglang.launch_server`: Dynamo's flags and env gone;
/// PD workers skip warmup (srt-slurm's SGLang frontend does) and decode keeps
/// its tokenizer.
fn sglang_worker(w: &Block, pd: bool) -> Block {
    let mut b = w.clone();
    b.cmd = "python3 -m sglang.launch_server".into();
    b.args
        .retain(|a| a.flag != "--request-plane" && a.flag != "--kv-events-config");
    for k in DYNAMO_ENV {
        b.env.remove(k);
    }
    if pd {
        if !b.args.iter().any(|a| a.flag == "--skip-server-warmup") {
            b.args.push(Arg::new("--skip-server-warmup", &[]));
        }
        if b.role == Some(Role::Decode) {
            b.args.retain(|a| a.flag != "--skip-tokenizer-init");
        }
        sort_worker_args(&mut b.args);
    }
    b
}

/// The router in front of the derived workers: PD lists decode then prefill
/// heads, each descending; one aggregated worker, DP attention or not, is
/// reached at its URL (the real pages derive a DEP8 Dynamo lane this way).
fn router(workers: &[Block], pd: bool) -> Result<Block, Problem> {
    let count = |role: Role| -> u32 {
        workers
            .iter()
            .filter(|b| b.role == Some(role))
            .map(|b| b.workers.unwrap_or(1))
            .sum()
    };
    let mut router = Block::new(
        BlockKind::SglangRouter,
        "python3 -m sglang_router.launch_router",
    );
    if pd {
        for n in (0..count(Role::Decode)).rev() {
            let url = format!("http://$DECODE_{n}_HEAD_IP:30000");
            router.args.push(Arg::new("--decode", &[&url]));
        }
        for n in (0..count(Role::Prefill)).rev() {
            let url = format!("http://$PREFILL_{n}_HEAD_IP:30000");
            router
                .args
                .push(Arg::new("--prefill", &[&url, BOOTSTRAP_PORT]));
        }
        router.args.push(Arg::new("--pd-disaggregation", &[]));
    }
    router.args.push(Arg::new("--host", &["0.0.0.0"]));
    router.args.push(Arg::new("--port", &["8000"]));
    router.args.push(Arg::new("--policy", &["cache_aware"]));
    if !pd {
        let ([w], 1) = (
            workers,
            workers.first().and_then(|w| w.workers).unwrap_or(0),
        ) else {
            return Err(agg_router_refused());
        };
        router
            .args
            .push(Arg::new("--worker-urls", &[worker_url(w)]));
    }
    Ok(router)
}

fn agg_router_refused() -> Problem {
    Problem::Refused(
        "deriving the SGLang router for several aggregated workers has no verified rule yet".into(),
    )
}

/// Dynamo derived from an SGLang submission: etcd, one frontend with the KV
/// router, the worker on `dynamo.sglang`. No NATS.
pub(super) fn dynamo_from_sglang(worker: &Block) -> RouterSetup {
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
