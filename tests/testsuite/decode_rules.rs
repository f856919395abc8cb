//! The decoding rules, one table per rule, over the hand-written fixture
//! `tests/fixtures/data/mini.json` (every expectation below was worked out by
//! hand from the rules in `research/sglang-cookbook.md` §2.1).

use crate::support;

use std::path::Path;

use mdbook_agentx::{BlockKind, CommandSet, DecodedPage, KvTier, Role, Router, decode_str};
use serde_json::{Value, json};

fn mini_text() -> String {
    support::read(&support::fixture("data/mini.json"))
}

fn mini() -> DecodedPage {
    decode_str(&mini_text(), Path::new("mini.json"))
        .unwrap()
        .page
}

fn set<'p>(
    page: &'p DecodedPage,
    cell: &str,
    conc: u32,
    tier: KvTier,
    router: Router,
) -> &'p CommandSet {
    page.command_sets()
        .find(|s| {
            s.cell_id == cell && s.concs.contains(&conc) && s.tier == tier && s.router == router
        })
        .unwrap_or_else(|| panic!("no set {cell} c{conc} {tier} {router}"))
}

#[test]
fn point_patches() {
    let page = mini();
    let c0 = "mini-fp8-h200-sglang-agentic-mtp#0";
    // Point 1 (c4) patches point 0's worker: value replaced, flag removed, switch added, env changed.
    let s = set(&page, c0, 4, KvTier::None, Router::Sglang);
    let w = &s.processes[0].command;
    assert!(w.contains("  --max-running-requests 8 \\\n"), "{w}");
    assert!(!w.contains("--cuda-graph-max-bs"), "{w}");
    assert!(w.contains("  --enable-mixed-chunk \\\n"), "{w}");
    assert!(
        w.starts_with("NCCL_CUMEM_ENABLE=1 \\\nNEW_VAR='it'\\''s' \\\npython3"),
        "{w}"
    );
    // On dynamo the list's third entry patches the worker; the first two stay.
    let d = set(&page, c0, 4, KvTier::None, Router::Dynamo);
    assert!(d.processes[2].command.contains("--max-running-requests 8"));
    assert!(d.processes[2].command.contains("--cuda-graph-max-bs 4"));
    // Point 2 (c8/c16) replaces the sglang blocks wholesale and leaves dynamo as point 0.
    let r = set(&page, c0, 16, KvTier::None, Router::Sglang);
    assert_eq!(
        r.processes[0].command,
        "NCCL_CUMEM_ENABLE=1 \\\nSGLANG_TIMEOUT_KEEP_ALIVE=900 \\\npython3 -m sglang.launch_server \\\n  --model-path example/Mini-FP8 \\\n  --port 30000 \\\n  --tp 4"
    );
    let p0 = set(&page, c0, 1, KvTier::None, Router::Dynamo);
    let p2 = set(&page, c0, 8, KvTier::None, Router::Dynamo);
    assert_eq!(p0.processes, p2.processes);
}

#[test]
fn ref_from_drop_overrides_envref() {
    let page = mini();
    // `from` with drop + override: gpu_pinning gone, one worker, router flags removed.
    let s = set(
        &page,
        "mini-fp8-gb300-dynamo-agentic-disagg#0",
        64,
        KvTier::Mooncake,
        Router::Sglang,
    );
    let decode = s
        .processes
        .iter()
        .find(|p| p.role == Some(Role::Decode))
        .unwrap();
    assert_eq!(decode.title, "Decode");
    assert!(!decode.placement.contains("CUDA_VISIBLE_DEVICES"));
    assert!(!decode.command.contains("--request-plane"));
    assert!(decode.command.contains("--skip-server-warmup"));
    assert!(!decode.command.contains("ETCD_ENDPOINTS"));
    // `ref` into another cell, then a diff; envRef resolved from envs[0].
    let r = set(
        &page,
        "mini-fp8-h200-sglang-agentic-mtp#1",
        2,
        KvTier::Hicache,
        Router::Sglang,
    );
    let w = &r.processes[0].command;
    assert!(
        w.starts_with("NCCL_CUMEM_ENABLE=1 \\\nSGLANG_TIMEOUT_KEEP_ALIVE=900 \\\n"),
        "{w}"
    );
    assert!(
        w.contains("  --tp 2 \\\n") && w.contains("  --hicache-size 64 \\\n"),
        "{w}"
    );
    assert_eq!(
        r.status.label(),
        "◐ In progress in SemiAnalysis InferenceX AgentX (PR #4101)"
    );
}

/// Tier transitions: (cell, conc, router, target tier, must contain, must not contain, process titles).
#[test]
fn kv_tier_transitions() {
    let page = mini();
    let agg = "mini-fp8-h200-sglang-agentic-mtp#0";
    let hc = "mini-fp8-h200-sglang-agentic-mtp#1";
    let pd = "mini-fp8-gb300-dynamo-agentic-disagg#0";
    type Case<'a> = (
        &'a str,
        u32,
        Router,
        KvTier,
        &'a [&'a str],
        &'a [&'a str],
        &'a [&'a str],
    );
    let cases: &[Case<'_>] = &[
        // none → HiCache: donor flags on the aggregated worker.
        (
            agg,
            1,
            Router::Sglang,
            KvTier::Hicache,
            &[
                "--enable-hierarchical-cache \\",
                "--hicache-ratio 2 \\",
                "--hicache-write-policy write_through \\",
            ],
            &["mooncake"],
            &["Worker"],
        ),
        // none → Mooncake: args + env on the worker, master before the first worker.
        (
            agg,
            1,
            Router::Dynamo,
            KvTier::Mooncake,
            &[
                "--enable-unified-cache-external-linker",
                "MOONCAKE_MASTER=\"$MOONCAKE_MASTER_IP:8700\"",
                "--unified-cache-external-linker-backend mooncake",
            ],
            &["--hicache-ratio"],
            &["etcd", "Frontend", "Mooncake master", "Worker"],
        ),
        // HiCache → none: every KV flag stripped.
        (
            hc,
            2,
            Router::Sglang,
            KvTier::None,
            &["--tp 2"],
            &["--enable-hierarchical-cache", "--hicache-size"],
            &["Worker"],
        ),
        // Mooncake → none: master and store dropped, store env dropped, transfer env kept.
        (
            pd,
            64,
            Router::Dynamo,
            KvTier::None,
            &["MOONCAKE_PROTOCOL=efa", "MOONCAKE_DEVICE=\"$IB_DEVICES\""],
            &[
                "--enable-unified-cache-external-linker",
                "--hicache-storage-backend-extra-config",
                "MOONCAKE_MASTER=",
                "MOONCAKE_GLOBAL_SEGMENT_SIZE",
                "mooncake_master",
            ],
            &[
                "etcd",
                "NATS",
                "Frontend ×2",
                "nginx (optional)",
                "Prefill",
                "Decode ×2",
            ],
        ),
        // Mooncake (measured) → Mooncake (derived on the other router): the donor master, no stores.
        // none → Mooncake on a disaggregated cell: cache flags on prefill only.
        (
            pd,
            64,
            Router::Sglang,
            KvTier::None,
            &["--skip-server-warmup"],
            &["--enable-unified-cache-external-linker", "mooncake_master"],
            &["Prefill", "Decode", "Router"],
        ),
    ];
    for (cell, conc, router, tier, has, lacks, titles) in cases {
        let s = set(&page, cell, *conc, *tier, *router);
        let all: String = s
            .processes
            .iter()
            .map(|p| p.command.as_str())
            .collect::<Vec<_>>()
            .join("\n");
        for h in *has {
            assert!(
                all.contains(h),
                "{cell} {router} {tier}: missing {h:?}\n{all}"
            );
        }
        for l in *lacks {
            assert!(
                !all.contains(l),
                "{cell} {router} {tier}: unexpected {l:?}\n{all}"
            );
        }
        let got: Vec<&str> = s.processes.iter().map(|p| p.title.as_str()).collect();
        assert_eq!(got, *titles, "{cell} {router} {tier}");
        assert_eq!(s.status.id(), "derived");
    }
    // The other router at the measured Mooncake tier keeps what the generator
    // derived for it (its own master block, the submitted store-client env).
    let s = set(&page, pd, 64, KvTier::Mooncake, Router::Sglang);
    let titles: Vec<&str> = s.processes.iter().map(|p| p.title.as_str()).collect();
    assert_eq!(titles, ["Mooncake master", "Prefill", "Decode", "Router"]);
    assert!(
        s.processes[1]
            .command
            .contains("MOONCAKE_GLOBAL_SEGMENT_SIZE=32gb")
    );
    // The measured tier on the submitted router is left exactly as submitted.
    let m = set(&page, pd, 64, KvTier::Mooncake, Router::Dynamo);
    assert_eq!(m.status.id(), "verified-pr");
    let titles: Vec<&str> = m.processes.iter().map(|p| p.title.as_str()).collect();
    assert_eq!(
        titles,
        [
            "etcd",
            "NATS",
            "Mooncake master",
            "Mooncake store",
            "Frontend ×2",
            "nginx (optional)",
            "Prefill",
            "Decode ×2"
        ]
    );
}

#[test]
fn statuses_notes_and_provenance() {
    let page = mini();
    let c0 = "mini-fp8-h200-sglang-agentic-mtp#0";
    let v = set(&page, c0, 1, KvTier::None, Router::Sglang);
    assert_eq!(
        v.status.label(),
        "✓ Verified in SemiAnalysis InferenceX AgentX"
    );
    let ids: Vec<&str> = v.notes.iter().map(|n| n.id()).collect();
    assert_eq!(ids, ["synthetic-acceptance", "setup"]);
    assert!(v.notes[0].text().contains("acceptance length of 3.10"));
    assert_eq!(
        v.provenance.run_url.as_deref(),
        Some("https://github.com/SemiAnalysisAI/InferenceX/actions/runs/40000000001/attempts/1")
    );
    assert_eq!(
        v.provenance.job_url.as_deref(),
        Some(
            "https://github.com/SemiAnalysisAI/InferenceX/actions/runs/40000000001/job/50000000001"
        )
    );
    assert_eq!(
        v.provenance.recipe_url.as_deref(),
        Some(
            "https://github.com/SemiAnalysisAI/InferenceX/blob/bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb/benchmarks/single_node/agentic/mini_h200.sh"
        )
    );
    let d = set(&page, c0, 1, KvTier::Hicache, Router::Dynamo);
    let ids: Vec<&str> = d.notes.iter().map(|n| n.id()).collect();
    assert_eq!(
        ids,
        [
            "derived-from",
            "router-swap",
            "kv-hicache",
            "synthetic-acceptance",
            "install",
            "setup"
        ]
    );
    assert_eq!(
        d.status.label(),
        "Derived — not run in SemiAnalysis InferenceX AgentX"
    );
    assert_eq!(
        d.notes[4].text(),
        "Dynamo: Dynamo built from source at https://github.com/ai-dynamo/dynamo/commit/0000000"
    );
    let pd = set(
        &page,
        "mini-fp8-gb300-dynamo-agentic-disagg#0",
        128,
        KvTier::Mooncake,
        Router::Dynamo,
    );
    assert_eq!(
        pd.status.label(),
        "✓ Verified in SemiAnalysis InferenceX AgentX (PR #4102, pending merge)"
    );
    let ids: Vec<&str> = pd.notes.iter().map(|n| n.id()).collect();
    assert_eq!(
        ids,
        [
            "chat-template",
            "efa",
            "mooncake-segment",
            "ib-devices",
            "install"
        ]
    );
    assert_eq!(
        pd.provenance.comment_url.as_deref(),
        Some("https://github.com/SemiAnalysisAI/InferenceX/pull/4102#issuecomment-777")
    );
    assert_eq!(pd.image.status, mdbook_agentx::ImageStatus::Pruned);
    let hc = set(
        &page,
        "mini-fp8-h200-sglang-agentic-mtp#1",
        2,
        KvTier::Hicache,
        Router::Sglang,
    );
    let ids: Vec<&str> = hc.notes.iter().map(|n| n.id()).collect();
    assert_eq!(
        ids,
        [
            "synthetic-acceptance",
            "rename-dp-attention",
            "hicache-size"
        ]
    );
}

#[test]
fn placeholders_and_placement() {
    let page = mini();
    let s = set(
        &page,
        "mini-fp8-gb300-dynamo-agentic-disagg#0",
        64,
        KvTier::Mooncake,
        Router::Dynamo,
    );
    let names: Vec<&str> = s.placeholders.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "NODE_RANK",
            "ETCD_IP",
            "MOONCAKE_MASTER_IP",
            "PREFILL_0_HEAD_IP",
            "FRONTEND_0_IP",
            "FRONTEND_1_IP",
            "IB_DEVICES"
        ]
    );
    let decode = s
        .processes
        .iter()
        .find(|p| p.role == Some(Role::Decode))
        .unwrap();
    assert!(
        decode
            .placement
            .contains("`CUDA_VISIBLE_DEVICES` = worker 0: 0,1 · worker 1: 2,3")
    );
    let nats = s
        .processes
        .iter()
        .find(|p| p.kind == BlockKind::Nats)
        .unwrap();
    assert_eq!(nats.files.len(), 1);
    assert!(s.loose_files.is_empty());
}

#[test]
fn snapshots_of_full_command_sets() {
    let page = mini();
    let cases = [
        (
            "mini-fp8-h200-sglang-agentic-mtp#0",
            4,
            KvTier::Hicache,
            Router::Sglang,
        ),
        (
            "mini-fp8-h200-sglang-agentic-mtp#0",
            8,
            KvTier::Mooncake,
            Router::Dynamo,
        ),
        (
            "mini-fp8-gb300-dynamo-agentic-disagg#0",
            128,
            KvTier::Mooncake,
            Router::Dynamo,
        ),
        (
            "mini-fp8-gb300-dynamo-agentic-disagg#0",
            64,
            KvTier::None,
            Router::Sglang,
        ),
    ];
    for (cell, conc, tier, router) in cases {
        let s = set(&page, cell, conc, tier, router);
        insta::assert_snapshot!(s.anchor.clone(), s.copy_all_text());
    }
}

/// Bad input: each mutation of the fixture must fail with a message naming the
/// JSON path and what was expected.
#[test]
fn bad_input_is_reported_with_its_path() {
    let base: Value = serde_json::from_str(&mini_text()).unwrap();
    type Mutation = fn(&mut Value);
    let cases: Vec<(&str, Mutation, &[&str])> = vec![
        (
            "ref to a missing cell",
            |v| v["cells"][2]["routers"]["sglang"]["blocks"][0]["ref"][0] = json!(9),
            &[
                "cells[2].routers.sglang.blocks[0]",
                "names cells[9], but the file has 3 cells",
            ],
        ),
        (
            "ref to a missing router",
            |v| {
                v["cells"][0]["routers"]
                    .as_object_mut()
                    .unwrap()
                    .remove("dynamo");
                v["cells"][0]["points"][1]["patch"]
                    .as_object_mut()
                    .unwrap()
                    .remove("dynamo");
                v["cells"][0]["points"][2]["patch"]
                    .as_object_mut()
                    .unwrap()
                    .remove("dynamo");
            },
            &[
                "cells[2].routers.dynamo.blocks[0]",
                "has no router `dynamo`",
            ],
        ),
        (
            "ref to a missing block",
            |v| v["cells"][2]["routers"]["dynamo"]["blocks"][1]["ref"][2] = json!(7),
            &[
                "cells[2].routers.dynamo.blocks[1]",
                "names block 7",
                "has 3 blocks",
            ],
        ),
        (
            "from past the end",
            |v| v["cells"][1]["routers"]["sglang"]["blocks"][0]["from"] = json!(12),
            &[
                "cells[1].routers.sglang.blocks[0]",
                "from: 12",
                "has 8 blocks",
            ],
        ),
        (
            "cycle of refs",
            |v| v["cells"][0]["routers"]["sglang"]["blocks"][0] = json!({"ref": [2, "sglang", 0]}),
            &[
                "cycle of refs",
                "cells[0].routers.sglang → cells[2].routers.sglang → cells[0].routers.sglang",
            ],
        ),
        (
            "unknown tier",
            |v| v["cells"][0]["points"][1]["kv"] = json!("disk"),
            &[
                "cells[0].points[1].kv",
                "unknown variant `disk`",
                "expected one of `none`, `hicache`, `mooncake`",
            ],
        ),
        (
            "unknown router",
            |v| v["cells"][0]["submitted"] = json!("vllm"),
            &["cells[0].submitted", "unknown variant `vllm`"],
        ),
        (
            "unknown router in a patch",
            |v| v["cells"][0]["points"][1]["patch"]["trtllm"] = json!(null),
            &["cells[0].points[1].patch", "unknown variant `trtllm`"],
        ),
        (
            "patch longer than the block list",
            |v| v["cells"][0]["points"][1]["patch"]["sglang"] = json!([null, null]),
            &[
                "cells[0].points[1].patch.sglang",
                "2 entries but point 0 has 1 blocks",
            ],
        ),
        (
            "measured tier not available",
            |v| v["cells"][2]["points"][0]["kv"] = json!("mooncake"),
            &[
                "cells[2].points[0].kv",
                "measured tier `mooncake` is not in kv.available (none, hicache)",
            ],
        ),
        (
            "envRef out of range",
            |v| v["cells"][0]["routers"]["sglang"]["blocks"][0]["envRef"] = json!(4),
            &[
                "cells[0].routers.sglang.blocks[0].envRef",
                "envRef 4 points past the end of `envs` (1 entries)",
            ],
        ),
        (
            "unknown block key",
            |v| v["cells"][0]["routers"]["sglang"]["blocks"][0]["cwd"] = json!("/x"),
            &["cells[0].routers.sglang.blocks[0]", "unknown field `cwd`"],
        ),
        (
            "bad override",
            |v| v["cells"][1]["routers"]["sglang"]["blocks"][2]["workers"] = json!("two"),
            &[
                "cells[1].routers.sglang.blocks[2]",
                "workers",
                "expected u32",
            ],
        ),
        (
            "missing file",
            |v| v["cells"][1]["routers"]["dynamo"]["files"][0] = json!("nats.conf#ffffffff"),
            &[
                "cells[1].routers.dynamo",
                "`nats.conf#ffffffff` is not in the top-level `files` map",
            ],
        ),
        (
            "worker without role",
            |v| {
                v["cells"][0]["routers"]["sglang"]["blocks"][0]
                    .as_object_mut()
                    .unwrap()
                    .remove("role");
            },
            &["worker block has no `role`"],
        ),
        (
            "string where a number belongs",
            |v| v["cells"][0]["gpus"] = json!("4"),
            &["cells[0].gpus", "expected u32"],
        ),
        (
            "no status anywhere",
            |v| {
                v["cells"][2].as_object_mut().unwrap().remove("prov");
            },
            &["cells[2].points[0]: no status", "prov.status"],
        ),
        (
            "hicache offered without settings",
            |v| {
                v["cells"][0]["kv"]
                    .as_object_mut()
                    .unwrap()
                    .remove("hicache");
            },
            &["cells[0].kv", "no kv.hicache settings"],
        ),
    ];
    for (what, mutate, needles) in cases {
        let mut v = base.clone();
        mutate(&mut v);
        let text = serde_json::to_string_pretty(&v).unwrap();
        let err = decode_str(&text, Path::new("mini.json")).expect_err(what);
        let msg = format!("{err:#}");
        for n in needles {
            assert!(msg.contains(n), "{what}: {msg:?} lacks {n:?}");
        }
    }
}

#[test]
fn malformed_json_has_line_and_column() {
    let text = mini_text().replacen("\"hw\": \"h200\",", "\"hw\": \"h200\" ", 1);
    let err = decode_str(&text, Path::new("content/agentx/mini.json"))
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with(
            "content/agentx/mini.json: malformed JSON: expected `,` or `}` at line 34 column 18"
        ),
        "{err}"
    );
}
