//! A maximal data file built from the schema types: every struct written as
//! a full literal (no `..Default`), so a field added to the schema does not
//! compile here until the sample gives it a value; every `Option` is `Some`
//! somewhere and every list and map has an entry. Both schema generations
//! appear (cell 0 with `prov`, cell 1 with per-point provenance), and every
//! form of encoded block and patch.
//!
//! It is serialized to `tests/fixtures/schema/maximal.json`, which the
//! injection test fills string by string with hostile text: that file's
//! string values are the list of the schema's string fields, generated from
//! the types rather than written by hand. The test below keeps the file in
//! step with this sample (`AGENTX_UPDATE_FIXTURES=1` rewrites it).

use std::collections::BTreeMap;

use indexmap::IndexMap;
use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};
use serde_json::{Map, Value, json};

use super::block::{Arg, Block, BlockEdit, Diff, EncodedBlock, Patch};
use super::ids::{BlockKind, KvTier, Role, Router};
use super::schema::{
    AgentxData, Cell, CellKv, CellProv, Checkpoint, Env, FileEntry, Hardware, HicacheDonor,
    ImageStatus, KvMooncake, Point, PrInfo, RouterData, RunStatus, SetupStep, Source,
};

fn env(pairs: &[(&str, &str)]) -> Env {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// A block with every field set.
fn block(kind: BlockKind, role: Option<Role>, cmd: &str, args: Vec<Arg>) -> Block {
    Block {
        kind,
        role,
        workers: Some(2),
        nodes_per_worker: Some(1),
        gpu_pinning: Some(vec![strings(&["0,1"]), strings(&["2,3"])]),
        count: Some(1),
        count_nodes: Some(1),
        ports: Some(strings(&["8800", "8801"])),
        preamble: strings(&["ulimit -n 1048576"]),
        cmd: cmd.into(),
        env: env(&[("ETCD_ENDPOINTS", "http://$ETCD_IP:2379")]),
        env_ref: None,
        args,
    }
}

fn worker(role: Role, cmd: &str) -> Block {
    let args = vec![
        Arg::new("--model-path", &["example/Max-FP8"]),
        Arg::new("--host", &["0.0.0.0"]),
        Arg::new("--port", &["30000"]),
        Arg::new("--tp", &["4"]),
        Arg::new("--trust-remote-code", &[]),
    ];
    block(BlockKind::Worker, Some(role), cmd, args)
}

fn diff() -> Diff {
    Diff {
        block: None,
        args: IndexMap::from([
            ("--max-running-requests".to_string(), Some(strings(&["8"]))),
            ("--trust-remote-code".to_string(), None),
        ]),
        env: IndexMap::from([("NEW_VAR".to_string(), Some("value".to_string()))]),
    }
}

fn edit() -> BlockEdit {
    let mut overrides = Map::new();
    overrides.insert("cmd".into(), json!("python3 -m sglang.launch_server"));
    overrides.insert("workers".into(), json!(1));
    BlockEdit {
        drop: strings(&["gpu_pinning"]),
        overrides,
        diff: Some(Diff {
            block: Some(Box::new(worker(
                Role::Agg,
                "python3 -m sglang.launch_server",
            ))),
            ..diff()
        }),
    }
}

fn point(kv: KvTier, concs: Vec<u32>, patch: Option<IndexMap<Router, Option<Patch>>>) -> Point {
    Point {
        concs,
        item: Some(0),
        override_name: Some("override_tp4_c4".into()),
        golden_al: Some("3.10".into()),
        kv,
        job: Some("40000000001/job/50000000001".into()),
        recipe: Some("benchmarks/single_node/agentic/max_h200.sh".into()),
        patch,
        status: Some(RunStatus::Verified),
        recipe_url: Some("https://github.com/SemiAnalysisAI/InferenceX/blob/b/r.sh".into()),
        run_url: Some("https://github.com/SemiAnalysisAI/InferenceX/actions/runs/4".into()),
        pr_url: Some("https://github.com/SemiAnalysisAI/InferenceX/pull/4100".into()),
        pr: Some("4100".into()),
        sha: Some("bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb".into()),
        use_comment: Some(
            "https://github.com/SemiAnalysisAI/InferenceX/pull/4100#issuecomment-1".into(),
        ),
        job_url: Some("https://github.com/SemiAnalysisAI/InferenceX/actions/runs/4/job/5".into()),
        date: Some("2026-11-02".into()),
    }
}

/// The Dynamo router of cell 0: control plane, config file, frontend and a
/// worker encoded against the submitted router.
fn dynamo_router() -> RouterData {
    RouterData {
        install: strings(&["# Dynamo from source", "pip install ai-dynamo==1.6.1"]),
        files: strings(&["nats.conf#00000001"]),
        blocks: vec![
            EncodedBlock::Full(Box::new(block(BlockKind::Etcd, None, "etcd", vec![]))),
            EncodedBlock::Full(Box::new(Block {
                env: Env::new(),
                env_ref: Some(0),
                ..block(BlockKind::Nats, None, "nats-server -c nats.conf", vec![])
            })),
            EncodedBlock::Full(Box::new(block(
                BlockKind::DynamoFrontend,
                None,
                "python3 -m dynamo.frontend",
                vec![Arg::new("--http-port", &["8000"])],
            ))),
            EncodedBlock::From {
                block: 0,
                edit: BlockEdit {
                    overrides: Map::from_iter([(
                        "cmd".to_string(),
                        json!("python3 -m dynamo.sglang"),
                    )]),
                    ..edit()
                },
            },
        ],
    }
}

fn cell0() -> Cell {
    let per_block = Patch::PerBlock(vec![Some(diff())]);
    let replace = Patch::Replace(vec![EncodedBlock::Ref {
        cell: 0,
        router: Router::Dynamo,
        block: 0,
        edit: BlockEdit::default(),
    }]);
    let patch = IndexMap::from([
        (Router::Sglang, Some(per_block)),
        (Router::Dynamo, Some(replace)),
    ]);
    Cell {
        id: "max-fp8-h200-sglang-agentic#0".into(),
        hw: "h200".into(),
        ckpt: "example/Max-FP8".into(),
        label: "Agg TP4".into(),
        detail: Some("MTP 3-1-4".into()),
        gpus: 4,
        config_key: "max-fp8-h200-sglang-agentic".into(),
        image: "lmsysorg/sglang:nightly-dev-20261021-8e4f0a6c".into(),
        image_status: ImageStatus::Pruned,
        image_commit: Some("8e4f0a6c".into()),
        submitted: Router::Sglang,
        setup: vec![
            SetupStep {
                command: Some("nvidia-smi -pm 1".into()),
                script: Some("setup.sh".into()),
                reason: Some("persistence mode".into()),
            },
            SetupStep {
                command: None,
                script: Some("tune.sh".into()),
                reason: None,
            },
        ],
        disclosures: strings(&["synthetic-acceptance", "chat-template", "custom-disclosure"]),
        kv: CellKv {
            available: vec![KvTier::None, KvTier::Hicache, KvTier::Mooncake],
            unavailable: BTreeMap::from([(KvTier::Hicache, "never shown: available".into())]),
            hicache: Some(HicacheDonor {
                args: vec![
                    Arg::new("--enable-hierarchical-cache", &[]),
                    Arg::new("--hicache-size", &["64"]),
                ],
                donor: "max-fp8-h200-sglang-agentic".into(),
                donor_hardware: "h200".into(),
            }),
        },
        prov: Some(CellProv {
            sha: Some("bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb".into()),
            recipe: Some("benchmarks/single_node/agentic/max_h200.sh".into()),
            run: Some("40000000001/attempts/1".into()),
            pr: Some("4100".into()),
            comment: Some("6173724377".into()),
            status: RunStatus::VerifiedPr,
            date: Some("2026-11-02".into()),
        }),
        points: vec![
            point(KvTier::None, vec![1, 4], None),
            point(KvTier::Hicache, vec![8], Some(patch)),
        ],
        routers: BTreeMap::from([
            (
                Router::Sglang,
                RouterData {
                    install: strings(&["pip install sglang-router==0.3.2"]),
                    files: vec![],
                    blocks: vec![EncodedBlock::Full(Box::new(worker(
                        Role::Agg,
                        "python3 -m sglang.launch_server",
                    )))],
                },
            ),
            (Router::Dynamo, dynamo_router()),
        ]),
    }
}

/// The older schema: provenance per point, a tier offered and two not.
fn cell1() -> Cell {
    Cell {
        id: "max-fp8-gb300-sglang-agentic#1".into(),
        hw: "gb300".into(),
        ckpt: "example/Max-FP8".into(),
        label: "Agg TP8".into(),
        detail: None,
        gpus: 8,
        config_key: "max-fp8-gb300-sglang-agentic".into(),
        image: "lmsysorg/sglang:v0.5.21-cu130".into(),
        image_status: ImageStatus::DigestOnly,
        image_commit: None,
        submitted: Router::Sglang,
        setup: vec![],
        disclosures: vec![],
        kv: CellKv {
            available: vec![KvTier::None],
            unavailable: BTreeMap::from([
                (KvTier::Hicache, "the image has no HiCache".into()),
                (KvTier::Mooncake, "the image has no external linker".into()),
            ]),
            hicache: None,
        },
        prov: None,
        points: vec![point(KvTier::None, vec![16], None)],
        routers: BTreeMap::from([(
            Router::Sglang,
            RouterData {
                install: vec![],
                files: vec![],
                blocks: vec![EncodedBlock::Ref {
                    cell: 0,
                    router: Router::Sglang,
                    block: 0,
                    edit: edit(),
                }],
            },
        )]),
    }
}

/// The maximal sample.
pub(crate) fn maximal() -> AgentxData {
    let master = |router| {
        let b = block(
            BlockKind::MooncakeMaster,
            None,
            "mooncake_master",
            vec![Arg::new("--port", &["8700"])],
        );
        (router, b)
    };
    AgentxData {
        model: "Maximal".into(),
        generated_on: Some("2026-12-01".into()),
        source: Some(Source {
            repo: "https://github.com/SemiAnalysisAI/InferenceX".into(),
            main: Some("0123456789abcdef0123456789abcdef01234567".into()),
            prs: BTreeMap::from([(
                "4100".to_string(),
                PrInfo {
                    run: Some("https://github.com/SemiAnalysisAI/InferenceX/actions/runs/3".into()),
                    sha: Some("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa".into()),
                    status: Some(RunStatus::InProgress),
                },
            )]),
        }),
        hardware: vec![
            Hardware {
                id: "h200".into(),
                label: "H200".into(),
            },
            Hardware {
                id: "gb300".into(),
                label: "GB300".into(),
            },
        ],
        checkpoints: vec![Checkpoint {
            id: "example/Max-FP8".into(),
            precision: Some("fp8".into()),
        }],
        envs: vec![env(&[("NCCL_CUMEM_ENABLE", "1")])],
        kv_mooncake: Some(KvMooncake {
            donor: "max-fp8-gb300-dynamo-agentic-disagg".into(),
            donor_hardware: "gb300".into(),
            master: BTreeMap::from([master(Router::Dynamo), master(Router::Sglang)]),
            args: vec![Arg::new(
                "--unified-cache-external-linker-backend",
                &["mooncake"],
            )],
            env: env(&[("MOONCAKE_PROTOCOL", "rdma")]),
            decode_env: env(&[("MOONCAKE_MASTER", "$MOONCAKE_MASTER_IP:8700")]),
        }),
        files: BTreeMap::from([(
            "nats.conf#00000001".to_string(),
            FileEntry {
                name: "nats.conf".into(),
                content: "max_payload: 1048576\n".into(),
            },
        )]),
        cells: vec![cell0(), cell1()],
    }
}

impl Serialize for EncodedBlock {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (head, edit) = match self {
            EncodedBlock::Full(b) => return b.serialize(s),
            EncodedBlock::Ref {
                cell,
                router,
                block,
                edit,
            } => (("ref", json!([cell, router, block])), edit),
            EncodedBlock::From { block, edit } => (("from", json!(block)), edit),
        };
        let mut map = s.serialize_map(None)?;
        map.serialize_entry(head.0, &head.1)?;
        if !edit.drop.is_empty() {
            map.serialize_entry("drop", &edit.drop)?;
        }
        for (k, v) in &edit.overrides {
            map.serialize_entry(k, v)?;
        }
        if let Some(d) = &edit.diff {
            map.serialize_entry("diff", d)?;
        }
        map.end()
    }
}

impl Serialize for Patch {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Patch::Replace(blocks) => {
                let mut map = s.serialize_map(Some(1))?;
                map.serialize_entry("replace", blocks)?;
                map.end()
            }
            Patch::PerBlock(diffs) => diffs.serialize(s),
        }
    }
}

/// The sample as the fixture file holds it.
pub(crate) fn maximal_json() -> String {
    let value: Value = serde_json::to_value(maximal()).expect("the sample serializes");
    let mut text = serde_json::to_string_pretty(&value).expect("JSON");
    text.push('\n');
    text
}

#[test]
fn maximal_fixture_is_the_schema_sample() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/schema/maximal.json");
    let text = maximal_json();
    if std::env::var_os("AGENTX_UPDATE_FIXTURES").is_some() {
        std::fs::write(&path, &text).unwrap();
    }
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        on_disk == text,
        "{} is not the serialized maximal sample; run the tests with AGENTX_UPDATE_FIXTURES=1",
        path.display()
    );
}

/// The struct fields serde reads (`FIELDS`, after renames) of a schema
/// type, recorded by a deserializer that stops at the struct.
fn fields_of<T: serde::de::DeserializeOwned>() -> &'static [&'static str] {
    use serde::de::{self, Visitor};
    struct Recorder<'r>(&'r mut &'static [&'static str]);
    impl<'de> de::Deserializer<'de> for Recorder<'_> {
        type Error = de::value::Error;
        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
            Err(de::Error::custom("not a struct"))
        }
        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Self::Error> {
            *self.0 = fields;
            Err(de::Error::custom("recorded"))
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
            byte_buf option unit unit_struct newtype_struct seq tuple tuple_struct map
            enum identifier ignored_any
        }
    }
    let mut fields: &'static [&'static str] = &[];
    let _ = T::deserialize(Recorder(&mut fields));
    assert!(
        !fields.is_empty(),
        "{} is not a struct",
        std::any::type_name::<T>()
    );
    fields
}

/// Every JSON object in `v`.
fn objects<'v>(v: &'v Value, out: &mut Vec<&'v Map<String, Value>>) {
    match v {
        Value::Object(o) => {
            out.push(o);
            o.values().for_each(|x| objects(x, out));
        }
        Value::Array(a) => a.iter().for_each(|x| objects(x, out)),
        _ => {}
    }
}

/// The sample covers the schema: for every struct type, every field serde
/// reads is set (not `null`) in some object of the sample that is a value
/// of that type (its keys are among the type's fields and it deserializes
/// as the type). So every string field of the schema is a string leaf of
/// the fixture, and the injection test reaches it.
#[test]
fn maximal_sample_sets_every_field_of_every_schema_type() {
    fn check<T: serde::de::DeserializeOwned>(all: &[&Map<String, Value>]) {
        let fields = fields_of::<T>();
        let mut set = std::collections::BTreeSet::new();
        for o in all {
            let fits = o.keys().all(|k| fields.contains(&k.as_str()))
                && serde_json::from_value::<T>(Value::Object((*o).clone())).is_ok();
            if fits {
                set.extend(
                    o.iter()
                        .filter(|(_, v)| !v.is_null())
                        .map(|(k, _)| k.as_str()),
                );
            }
        }
        let missing: Vec<&&str> = fields.iter().filter(|f| !set.contains(**f)).collect();
        let name = std::any::type_name::<T>();
        assert!(
            missing.is_empty(),
            "{name}: the sample never sets {missing:?}"
        );
    }
    let value = serde_json::to_value(maximal()).unwrap();
    let mut all = Vec::new();
    objects(&value, &mut all);
    check::<AgentxData>(&all);
    check::<Source>(&all);
    check::<PrInfo>(&all);
    check::<Hardware>(&all);
    check::<Checkpoint>(&all);
    check::<FileEntry>(&all);
    check::<KvMooncake>(&all);
    check::<Cell>(&all);
    check::<SetupStep>(&all);
    check::<CellKv>(&all);
    check::<HicacheDonor>(&all);
    check::<CellProv>(&all);
    check::<Point>(&all);
    check::<RouterData>(&all);
    check::<Block>(&all);
    check::<Diff>(&all);
}
