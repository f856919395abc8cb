//! Processes of a command set: titles, placement and command text of each
//! block, and the config files they read.

use anyhow::{Result, anyhow};

use super::decoder::SharedTexts;
use super::model::{ConfigFile, Process};
use crate::data::{AgentxData, Block, BlockKind, Role, Router};
use crate::shell;
use crate::util::escape::text;

/// The command text of one block, as a command set shows it (`sync` checks
/// its blocks against this before it writes them).
pub(crate) fn command_text(block: &Block) -> String {
    shell::format_block(block)
}

/// Builds titled, placed processes; config files go to the first command naming them.
pub(super) fn processes_for(
    data: &AgentxData,
    blocks: &[Block],
    router: Router,
    file_keys: &[String],
    texts: &mut SharedTexts,
) -> Result<(Vec<Process>, Vec<ConfigFile>)> {
    let mut processes: Vec<Process> = blocks
        .iter()
        .map(|b| {
            Ok(Process {
                kind: b.kind,
                role: b.role,
                title: texts.share(short_title(b)?),
                long_title: texts.share(long_title(b)?),
                placement: texts.share(placement(b, blocks, router)),
                command: texts.share(command_text(b)),
                nodes: worker_nodes(b),
                files: Vec::new(),
            })
        })
        .collect::<Result<_>>()?;
    let mut loose = Vec::new();
    for (i, key) in file_keys.iter().enumerate() {
        let f = data
            .files
            .get(key)
            .ok_or_else(|| anyhow!("files[{i}]: `{key}` is not in the top-level `files` map"))?;
        let file = ConfigFile {
            name: f.name.clone(),
            content: unix_line_breaks(&f.content),
        };
        match processes.iter_mut().find(|p| p.command.contains(&f.name)) {
            Some(p) => p.files.push(file),
            None => loose.push(file),
        }
    }
    Ok((processes, loose))
}

/// The nodes a worker block's workers occupy, as [`worker_placement`] says
/// it: each worker spans `nodes_per_worker` nodes; or workers pinned to GPU
/// groups share nodes, as many to a node as there are distinct groups (the
/// data lists one per slot of a node, `[["0,1"], ["2,3"]]`, or one per
/// worker, repeating them); or one worker per node. Other blocks: 0.
fn worker_nodes(b: &Block) -> u32 {
    if b.kind != BlockKind::Worker {
        return 0;
    }
    let workers = b.workers.unwrap_or(1);
    let per_worker = b.nodes_per_worker.unwrap_or(1);
    match &b.gpu_pinning {
        Some(groups) if per_worker <= 1 && !groups.is_empty() => {
            let slots = groups
                .iter()
                .collect::<std::collections::HashSet<_>>()
                .len();
            workers.div_ceil(slots as u32)
        }
        _ => workers.saturating_mul(per_worker.max(1)),
    }
}

/// `text` with CRLF and lone CR line breaks as `\n`: a page shows each as a
/// line break, so Copy all (read from the page) copies `\n`, and `decode`
/// must print the same.
fn unix_line_breaks(text: &str) -> String {
    if text.contains('\r') {
        text.replace("\r\n", "\n").replace('\r', "\n")
    } else {
        text.to_string()
    }
}

fn role_of(b: &Block) -> Result<Role> {
    b.role
        .ok_or_else(|| anyhow!("a worker block has no `role`; expected agg, prefill or decode"))
}

fn times(n: Option<u32>) -> String {
    match n {
        Some(n) if n > 1 => format!(" ×{n}"),
        _ => String::new(),
    }
}

fn short_title(b: &Block) -> Result<String> {
    Ok(match b.kind {
        BlockKind::Worker => {
            let base = match role_of(b)? {
                Role::Agg => "Worker",
                Role::Prefill => "Prefill",
                Role::Decode => "Decode",
            };
            format!("{base}{}", times(b.workers))
        }
        BlockKind::Etcd => "etcd".into(),
        BlockKind::Nats => "NATS".into(),
        BlockKind::Nginx => "nginx (optional)".into(),
        BlockKind::DynamoFrontend => format!("Frontend{}", times(b.count)),
        BlockKind::SglangRouter => "Router".into(),
        BlockKind::MooncakeMaster => "Mooncake master".into(),
        BlockKind::MooncakeStore => "Mooncake store".into(),
    })
}

fn long_title(b: &Block) -> Result<String> {
    Ok(match b.kind {
        BlockKind::Worker => match role_of(b)? {
            Role::Agg => "Aggregated worker".into(),
            Role::Prefill => "Prefill worker".into(),
            Role::Decode => "Decode worker".into(),
        },
        BlockKind::Etcd => "etcd — Dynamo control plane".into(),
        BlockKind::Nats => "NATS — Dynamo KV-event plane".into(),
        BlockKind::Nginx => "nginx — optional frontend load balancer".into(),
        BlockKind::DynamoFrontend => "Dynamo frontend (OpenAI API)".into(),
        BlockKind::SglangRouter => "SGLang router (OpenAI API)".into(),
        BlockKind::MooncakeMaster => "Mooncake master — KV store metadata".into(),
        BlockKind::MooncakeStore => "Mooncake store — optional standalone KV store".into(),
    })
}

/// Where and when to start a block's process, as Markdown (data in it
/// escaped).
fn placement(b: &Block, blocks: &[Block], router: Router) -> String {
    match b.kind {
        BlockKind::Worker => worker_placement(b, blocks, router),
        BlockKind::Etcd => "Start once, before everything else, on `$ETCD_IP`.".into(),
        BlockKind::Nats => {
            if b.cmd.contains("nats.conf") {
                "Start once, before the workers, on `$NATS_IP`, with `nats.conf` (below).".into()
            } else {
                "Start once, before the workers, on `$NATS_IP`.".into()
            }
        }
        BlockKind::MooncakeMaster => {
            "Start once on `$MOONCAKE_MASTER_IP` before the workers.".into()
        }
        BlockKind::MooncakeStore => {
            let nodes = b.count_nodes.unwrap_or(1);
            let ports = b
                .ports
                .as_ref()
                .filter(|p| !p.is_empty())
                .map(|p| text(&p.join(", ")))
                .unwrap_or_else(|| "8800".into());
            format!(
                "Start on each of the {nodes} decode node(s), one instance per port ({ports}; change `--port`)."
            )
        }
        BlockKind::DynamoFrontend => {
            let n = b.count.unwrap_or(1);
            let first = if n > 1 {
                format!(
                    "SA ran {n} frontends on separate nodes behind nginx (port 8180 each, nginx on \
                     8000). One frontend on port 8000 also works."
                )
            } else {
                "Start once; clients connect to port 8000.".into()
            };
            format!("{first} It finds the workers through etcd, so it can start before them.")
        }
        BlockKind::Nginx => {
            "Optional scale-out: hashes each session onto one frontend and listens \
             on port 8000 (`nginx.conf` below)."
                .into()
        }
        BlockKind::SglangRouter => {
            "Start once after the workers; clients connect to port 8000.".into()
        }
    }
}

/// Where workers run: how many, across how many nodes, GPU pinning, and
/// how they find their front door.
fn worker_placement(b: &Block, blocks: &[Block], router: Router) -> String {
    let n = b.workers.unwrap_or(1);
    let k = b.nodes_per_worker.unwrap_or(1);
    let role = b.role.map(Role::id).unwrap_or("agg");
    let role_word = match role {
        "agg" => "aggregated",
        other => other,
    };
    let noun = if n == 1 { "worker" } else { "workers" };
    let mut s = if k > 1 {
        format!(
            "Start {n} {role_word} {noun}, each spanning {k} nodes. Run on every node of a \
             worker with `NODE_RANK=0..{}`; the `--dist-init-addr` host is that worker's \
             first node.",
            k - 1
        )
    } else if b.gpu_pinning.is_some() {
        format!("Start {n} {role_word} {noun}.")
    } else {
        format!("Start {n} {role_word} {noun}, one per node.")
    };
    if let Some(pins) = &b.gpu_pinning {
        let per: Vec<String> = pins
            .iter()
            .enumerate()
            .map(|(i, g)| format!("worker {i}: {}", text(&g.join(","))))
            .collect();
        s.push_str(&format!(
            " Workers share nodes: pin GPUs per worker with `CUDA_VISIBLE_DEVICES` = {}.",
            per.join(" · ")
        ));
    }
    let workers = blocks
        .iter()
        .filter(|b| b.kind == BlockKind::Worker)
        .count();
    let has_router = blocks.iter().any(|b| b.kind == BlockKind::SglangRouter);
    match router {
        Router::Sglang if workers == 1 && n == 1 && !has_router => {
            s.push_str(" Serves the OpenAI API on port 30000.");
        }
        Router::Dynamo => {
            s.push_str(" Workers register with Dynamo through etcd; start them after etcd/NATS.")
        }
        Router::Sglang => {}
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worker_nodes_follow_the_placement() {
        // `groups` GPU groups listed, `slots` of them distinct.
        let pinned = |workers, per_worker, groups: usize, slots: usize| {
            let mut b = Block::new(BlockKind::Worker, "python3 -m sglang.launch_server");
            b.role = Some(Role::Agg);
            b.workers = workers;
            b.nodes_per_worker = per_worker;
            b.gpu_pinning =
                (groups > 0).then(|| (0..groups).map(|i| vec![(i % slots).to_string()]).collect());
            b
        };
        let worker =
            |workers, per_worker, groups: usize| pinned(workers, per_worker, groups, groups.max(1));
        // (block, nodes): counted by hand from the placement sentence.
        let cases = [
            (worker(None, None, 0), 1),       // one worker, one node
            (worker(Some(3), None, 0), 3),    // "one per node"
            (worker(Some(2), Some(4), 0), 8), // "each spanning 4 nodes"
            (worker(Some(2), None, 2), 1),    // two pinned workers share a node
            (worker(Some(3), None, 2), 2),    // the third needs a second node
            (worker(Some(2), Some(2), 2), 4), // spanning wins over pinning
            // A group per worker, two distinct: two workers to a node (the
            // real GLM-5.2 B200 disagg cell's decode block).
            (pinned(Some(4), Some(1), 4, 2), 2),
            (worker(Some(u32::MAX), Some(2), 0), u32::MAX), // no overflow
            (Block::new(BlockKind::Etcd, "etcd"), 0),
        ];
        for (b, nodes) in cases {
            assert_eq!(worker_nodes(&b), nodes, "{b:?}");
        }
    }
}
