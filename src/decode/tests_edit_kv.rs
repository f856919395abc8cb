//! Unit tests of block edits and the KV-tier transform over hand-made blocks
//! and the fixture `tests/fixtures/data/mini.json` (expectations worked out by
//! hand from the rules in `docs/agentx-format.md` §3.2 and §3.4).

use serde_json::{Value, json};

use super::*;
use crate::data::{Arg, Block, BlockKind, Diff, KvTier, Role, Router, parse_str};
use crate::decode::kv::kv_transform;

fn worker_block(b: &[(&str, &[&str])]) -> Block {
    let mut block = Block::new(BlockKind::Worker, "python3 -m sglang.launch_server");
    block.role = Some(Role::Agg);
    block.workers = Some(1);
    block.env = [("A", "1"), ("B", "2")]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    block.args = b.iter().map(|(f, v)| Arg::new(f, v)).collect();
    block
}

fn flags(b: &Block) -> Vec<String> {
    b.args
        .iter()
        .map(|a| {
            std::iter::once(a.flag.clone())
                .chain(a.values.iter().cloned())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

/// (diff JSON, expected args, expected env keys=values) on [`diff_base`].
fn diff_cases() -> Vec<(Value, Vec<&'static str>, Vec<&'static str>)> {
    vec![
        (
            json!({}),
            vec![
                "--model-path m",
                "--port 30000",
                "--mem-fraction-static 0.8",
                "--tp 4",
            ],
            vec!["A=1", "B=2"],
        ),
        (
            json!({"args": {"--tp": null}}),
            vec![
                "--model-path m",
                "--port 30000",
                "--mem-fraction-static 0.8",
            ],
            vec!["A=1", "B=2"],
        ),
        (
            json!({"args": {"--tp": ["8"]}}),
            vec![
                "--model-path m",
                "--port 30000",
                "--mem-fraction-static 0.8",
                "--tp 8",
            ],
            vec!["A=1", "B=2"],
        ),
        // Appended, then re-sorted: lead flags first, the rest alphabetically.
        (
            json!({"args": {"--enable-dp-attention": [], "--host": ["0.0.0.0"], "--zeta": ["1", "2"]}}),
            vec![
                "--model-path m",
                "--host 0.0.0.0",
                "--port 30000",
                "--enable-dp-attention",
                "--mem-fraction-static 0.8",
                "--tp 4",
                "--zeta 1 2",
            ],
            vec!["A=1", "B=2"],
        ),
        (
            json!({"args": {"--missing": null}}),
            vec![
                "--model-path m",
                "--port 30000",
                "--mem-fraction-static 0.8",
                "--tp 4",
            ],
            vec!["A=1", "B=2"],
        ),
        (
            json!({"env": {"A": null, "AFIRST": "x", "C": "$NODE_IP"}}),
            vec![
                "--model-path m",
                "--port 30000",
                "--mem-fraction-static 0.8",
                "--tp 4",
            ],
            vec!["AFIRST=x", "B=2", "C=$NODE_IP"],
        ),
        (
            json!({"block": {"kind": "etcd", "cmd": "etcd", "args": [["--z"], ["--a"]]}}),
            vec!["--z", "--a"],
            vec![],
        ),
    ]
}

/// The worker block every diff case starts from.
fn diff_base() -> Block {
    worker_block(&[
        ("--model-path", &["m"]),
        ("--port", &["30000"]),
        ("--mem-fraction-static", &["0.8"]),
        ("--tp", &["4"]),
    ])
}

#[test]
fn diff_forms() {
    let base = diff_base();
    for (diff, want_args, want_env) in diff_cases() {
        let d: Diff = serde_json::from_value(diff.clone()).unwrap();
        let mut b = base.clone();
        apply_diff(&mut b, &d);
        assert_eq!(flags(&b), want_args, "diff {diff}");
        let env: Vec<String> = b.env.iter().map(|(k, v)| format!("{k}={v}")).collect();
        assert_eq!(env, want_env, "diff {diff}");
    }
}

#[test]
fn diff_rejects_unknown_operations() {
    let e = serde_json::from_value::<Diff>(json!({"argz": {}}))
        .unwrap_err()
        .to_string();
    assert!(e.contains("unknown field `argz`"), "{e}");
}

/// A disaggregated none → Mooncake on hand-made blocks: the master before the
/// first worker, args and env on prefill, `decode_env` only on decode.
#[test]
fn kv_transform_on_a_disaggregated_cell() {
    let text = crate::test_support::read(&crate::test_support::fixture("data/mini.json"));
    let loaded = parse_str(&text, std::path::Path::new("mini.json")).unwrap();
    let data = &loaded.data;
    let cell = &data.cells[1];
    let mut blocks = vec![
        worker_block(&[("--tp", &["2"])]),
        worker_block(&[("--tp", &["2"])]),
    ];
    blocks[0].role = Some(Role::Prefill);
    blocks[1].role = Some(Role::Decode);
    let out = kv_transform(
        data,
        cell,
        &blocks,
        KvTier::None,
        KvTier::Mooncake,
        Router::Sglang,
    )
    .unwrap();
    let kinds: Vec<BlockKind> = out.iter().map(|b| b.kind).collect();
    assert_eq!(
        kinds,
        [
            BlockKind::MooncakeMaster,
            BlockKind::Worker,
            BlockKind::Worker
        ]
    );
    assert_eq!(
        flags(&out[1]),
        [
            "--enable-unified-cache-external-linker",
            "--hicache-storage-backend-extra-config {\"enable_group_semantics\":true}",
            "--tp 2",
            "--unified-cache-external-linker-backend mooncake"
        ]
    );
    assert!(out[1].env.contains_key("MOONCAKE_GLOBAL_SEGMENT_SIZE"));
    assert_eq!(flags(&out[2]), ["--tp 2"]);
    let env2: Vec<&str> = out[2].env.keys().map(String::as_str).collect();
    assert_eq!(env2, ["A", "B", "MOONCAKE_MASTER"]);
}
