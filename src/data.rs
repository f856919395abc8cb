//! The AgentX data format: serde types for the whole schema, and loading from
//! JSON or from the JS module form (`export const agentx = {...};`).
//!
//! Both schema generations are accepted: the older one carries provenance on
//! every point (`runUrl`, `prUrl`, `status`, …), the newer one on the cell
//! (`cell.prov`). Fields that change a command (blocks, diffs, patches) reject
//! unknown keys, because ignoring one would print a wrong command. Descriptive
//! fields elsewhere tolerate unknown keys so a newer generator still loads;
//! every ignored key is reported in [`Loaded::ignored`] so nothing is dropped
//! silently.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use indexmap::IndexMap;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::{Map, Value};

/// Environment variables of one process; always key-sorted, as the renderer prints them.
pub(crate) type Env = BTreeMap<String, String>;

/// One whole AgentX data file (one model page).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct AgentxData {
    /// Page name, e.g. `DeepSeek-V4.1`; directives select pages by it.
    pub model: String,
    #[serde(default)]
    // Known to the schema, so not reported as an ignored key; no output uses it.
    #[allow(dead_code)]
    pub generated_on: Option<String>,
    #[serde(default)]
    pub source: Option<Source>,
    /// Hardware in chip order.
    #[serde(default)]
    pub hardware: Vec<Hardware>,
    #[serde(default)]
    pub checkpoints: Vec<Checkpoint>,
    /// Shared env dicts, used by blocks through `envRef`.
    #[serde(default)]
    pub envs: Vec<Env>,
    /// The global Mooncake donor: what the derived Mooncake tier adds.
    #[serde(default)]
    pub kv_mooncake: Option<KvMooncake>,
    /// Config files (`nginx.conf`, `nats.conf`, …) keyed `<name>#<8hex>`.
    #[serde(default)]
    pub files: BTreeMap<String, FileEntry>,
    pub cells: Vec<Cell>,
}

#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Source {
    pub repo: String,
    #[serde(default)]
    // Known to the schema, so not reported as an ignored key; no output uses it.
    #[allow(dead_code)]
    pub main: Option<String>,
    #[serde(default)]
    pub prs: BTreeMap<String, PrInfo>,
}

#[derive(Debug, Clone, Deserialize)]
pub(crate) struct PrInfo {
    #[serde(default)]
    pub run: Option<String>,
    #[serde(default)]
    // Known to the schema, so not reported as an ignored key; no output uses it.
    #[allow(dead_code)]
    pub sha: Option<String>,
    #[serde(default)]
    // Known to the schema, so not reported as an ignored key; no output uses it.
    #[allow(dead_code)]
    pub status: Option<RunStatus>,
}

#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Hardware {
    pub id: String,
    pub label: String,
}

#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Checkpoint {
    pub id: String,
    /// Only in the older schema.
    #[serde(default)]
    pub precision: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub(crate) struct FileEntry {
    pub name: String,
    pub content: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct KvMooncake {
    /// configKey of the verified launch the Mooncake settings come from.
    pub donor: String,
    #[serde(rename = "donorHardware")]
    pub donor_hardware: String,
    /// `mooncake_master` block per router, inserted before the first worker.
    pub master: BTreeMap<Router, Block>,
    /// Added to cache-owning workers (agg, prefill).
    pub args: Vec<Arg>,
    /// Added to cache-owning workers' env.
    pub env: Env,
    /// Added to decode workers' env.
    #[serde(default)]
    pub decode_env: Env,
}

/// The two front doors a deployment can run behind. Ordered as the data's
/// key sort orders them (`dynamo` before `sglang`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Router {
    /// Dynamo frontend with `dynamo.sglang` workers.
    Dynamo,
    /// SGLang: `sglang.launch_server`, behind `sglang_router` when needed.
    Sglang,
}

impl Router {
    /// Every router, in data order.
    pub const ALL: [Router; 2] = [Router::Dynamo, Router::Sglang];

    /// The id the data and anchors use (`dynamo`, `sglang`).
    pub const fn id(self) -> &'static str {
        match self {
            Router::Dynamo => "dynamo",
            Router::Sglang => "sglang",
        }
    }

    /// The chip text a reader sees.
    pub fn label(self) -> &'static str {
        match self {
            Router::Dynamo => "Dynamo + SGLang",
            Router::Sglang => "SGLang",
        }
    }

    /// The entry point the workers run behind this router.
    pub fn worker_entry_point(self) -> &'static str {
        match self {
            Router::Dynamo => "dynamo.sglang",
            Router::Sglang => "sglang.launch_server",
        }
    }
}

impl fmt::Display for Router {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// KV-offload tier.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum KvTier {
    /// GPU KV cache only.
    None,
    /// HiCache: KV offload to host DRAM.
    Hicache,
    /// A Mooncake store through SGLang's external linker.
    Mooncake,
}

impl KvTier {
    /// Every tier, in the order a reader sees them.
    pub const ALL: [KvTier; 3] = [KvTier::None, KvTier::Hicache, KvTier::Mooncake];

    /// The id the data and anchors use (`none`, `hicache`, `mooncake`).
    pub const fn id(self) -> &'static str {
        match self {
            KvTier::None => "none",
            KvTier::Hicache => "hicache",
            KvTier::Mooncake => "mooncake",
        }
    }

    /// The text a reader sees.
    pub fn label(self) -> &'static str {
        match self {
            KvTier::None => "No KV offload",
            KvTier::Hicache => "HiCache (host DRAM)",
            KvTier::Mooncake => "Mooncake store (external linker)",
        }
    }
}

impl fmt::Display for KvTier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// Routers and tiers are read as plain strings (not serde enums) so that, as
/// map keys, the error path still names them (`routers.sglang`, not `routers.?`).
macro_rules! deserialize_by_id {
    ($ty:ty) => {
        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<$ty, D::Error> {
                const IDS: &[&str] = &{
                    let mut ids = [""; <$ty>::ALL.len()];
                    let mut i = 0;
                    while i < ids.len() {
                        ids[i] = <$ty>::ALL[i].id();
                        i += 1;
                    }
                    ids
                };
                let s = String::deserialize(d)?;
                <$ty>::ALL
                    .into_iter()
                    .find(|v| v.id() == s)
                    .ok_or_else(|| de::Error::unknown_variant(&s, IDS))
            }
        }
    };
}
deserialize_by_id!(Router);
deserialize_by_id!(KvTier);

/// Review state of a submission, as the data records it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum RunStatus {
    Verified,
    VerifiedPr,
    InProgress,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
/// Whether the image tag can still be pulled.
pub enum ImageStatus {
    #[default]
    /// The tag can be pulled.
    Ok,
    /// The tag was removed from Docker Hub; `imageCommit` names the SGLang commit.
    Pruned,
    /// The tag was removed; pull by the `@sha256:` digest.
    DigestOnly,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Cell {
    /// `<configKey>#<n>[@c<k>]`
    pub id: String,
    pub hw: String,
    pub ckpt: String,
    pub label: String,
    #[serde(default)]
    pub detail: Option<String>,
    pub gpus: u32,
    pub config_key: String,
    pub image: String,
    #[serde(default)]
    pub image_status: ImageStatus,
    #[serde(default)]
    pub image_commit: Option<String>,
    pub submitted: Router,
    #[serde(default)]
    pub setup: Vec<SetupStep>,
    #[serde(default)]
    pub disclosures: Vec<String>,
    pub kv: CellKv,
    /// Newer schema only.
    #[serde(default)]
    pub prov: Option<CellProv>,
    pub points: Vec<Point>,
    pub routers: BTreeMap<Router, RouterData>,
}

#[derive(Debug, Clone, Deserialize)]
pub(crate) struct SetupStep {
    #[serde(default)]
    pub command: Option<String>,
    #[serde(default)]
    pub script: Option<String>,
    #[serde(default)]
    pub reason: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub(crate) struct CellKv {
    pub available: Vec<KvTier>,
    #[serde(default)]
    pub unavailable: BTreeMap<KvTier, String>,
    #[serde(default)]
    pub hicache: Option<HicacheDonor>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct HicacheDonor {
    pub args: Vec<Arg>,
    pub donor: String,
    #[serde(rename = "donorHardware")]
    pub donor_hardware: String,
}

/// Cell-level provenance (newer schema).
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct CellProv {
    #[serde(default)]
    pub sha: Option<String>,
    #[serde(default)]
    pub recipe: Option<String>,
    #[serde(default)]
    pub run: Option<String>,
    #[serde(default)]
    pub pr: Option<String>,
    /// Issue-comment id that signs off a `verified-pr` cell.
    #[serde(default)]
    pub comment: Option<String>,
    pub status: RunStatus,
    #[serde(default)]
    pub date: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Point {
    pub concs: Vec<u32>,
    #[serde(default)]
    // Known to the schema, so not reported as an ignored key; no output uses it.
    #[allow(dead_code)]
    pub item: Option<u32>,
    /// Name of the recipe override this point used, e.g. `override_tp2_c4`.
    #[serde(default, rename = "override")]
    pub override_name: Option<String>,
    #[serde(default, rename = "goldenAL")]
    pub golden_al: Option<String>,
    /// The tier this point was measured with.
    pub kv: KvTier,
    /// Newer schema: `<run>/job/<id>`.
    #[serde(default)]
    pub job: Option<String>,
    #[serde(default)]
    pub recipe: Option<String>,
    /// Changes to point 0's blocks, per router.
    #[serde(default)]
    pub patch: Option<IndexMap<Router, Option<Patch>>>,
    // Older schema: provenance per point.
    #[serde(default)]
    pub status: Option<RunStatus>,
    #[serde(default)]
    pub recipe_url: Option<String>,
    #[serde(default)]
    pub run_url: Option<String>,
    #[serde(default)]
    pub pr_url: Option<String>,
    #[serde(default)]
    pub pr: Option<String>,
    #[serde(default)]
    pub sha: Option<String>,
    #[serde(default)]
    pub use_comment: Option<String>,
    #[serde(default)]
    pub job_url: Option<String>,
    #[serde(default)]
    pub date: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RouterData {
    #[serde(default)]
    pub install: Vec<String>,
    /// Keys into the top-level `files` map.
    #[serde(default)]
    pub files: Vec<String>,
    pub blocks: Vec<EncodedBlock>,
}

/// What a process is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum BlockKind {
    /// An SGLang or Dynamo worker.
    Worker,
    /// etcd (Dynamo's control plane).
    Etcd,
    /// NATS (Dynamo's KV-event plane).
    Nats,
    /// nginx in front of several Dynamo frontends.
    Nginx,
    /// `dynamo.frontend` (OpenAI API).
    DynamoFrontend,
    /// `sglang_router` (OpenAI API).
    SglangRouter,
    /// `mooncake_master` (KV store metadata).
    MooncakeMaster,
    /// A standalone Mooncake store.
    MooncakeStore,
}

impl BlockKind {
    /// The kebab-case id the data uses.
    pub fn id(self) -> &'static str {
        match self {
            BlockKind::Worker => "worker",
            BlockKind::Etcd => "etcd",
            BlockKind::Nats => "nats",
            BlockKind::Nginx => "nginx",
            BlockKind::DynamoFrontend => "dynamo-frontend",
            BlockKind::SglangRouter => "sglang-router",
            BlockKind::MooncakeMaster => "mooncake-master",
            BlockKind::MooncakeStore => "mooncake-store",
        }
    }
}

/// Role of a worker process.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Aggregated: prefill and decode in one worker.
    Agg,
    /// Prefill worker of a disaggregated deployment.
    Prefill,
    /// Decode worker of a disaggregated deployment.
    Decode,
}

impl Role {
    /// The lower-case id the data uses.
    pub fn id(self) -> &'static str {
        match self {
            Role::Agg => "agg",
            Role::Prefill => "prefill",
            Role::Decode => "decode",
        }
    }

    /// Roles that own a prefix cache and so take KV-offload settings.
    pub fn owns_cache(self) -> bool {
        matches!(self, Role::Agg | Role::Prefill)
    }
}

/// One command-line argument: a flag and zero or more values
/// (`["--port", "30000"]`, `["--trust-remote-code"]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Arg {
    /// The option (`--tp-size`).
    pub flag: String,
    /// Its values, none for a switch.
    pub values: Vec<String>,
}

impl Arg {
    /// An argument from a flag and its values.
    pub fn new(flag: &str, values: &[&str]) -> Arg {
        Arg {
            flag: flag.to_string(),
            values: values.iter().map(|v| v.to_string()).collect(),
        }
    }
}

impl<'de> Deserialize<'de> for Arg {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Arg, D::Error> {
        struct ArgVisitor;
        impl<'de> Visitor<'de> for ArgVisitor {
            type Value = Arg;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an argument array [flag, value…] of strings")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Arg, A::Error> {
                let flag: String = seq
                    .next_element()?
                    .ok_or_else(|| de::Error::invalid_length(0, &self))?;
                if flag.is_empty() {
                    return Err(de::Error::custom("empty flag name in argument array"));
                }
                let mut values = Vec::new();
                while let Some(v) = seq.next_element::<String>()? {
                    values.push(v);
                }
                Ok(Arg { flag, values })
            }
        }
        d.deserialize_seq(ArgVisitor)
    }
}

impl Serialize for Arg {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = s.serialize_seq(Some(1 + self.values.len()))?;
        seq.serialize_element(&self.flag)?;
        for v in &self.values {
            seq.serialize_element(v)?;
        }
        seq.end()
    }
}

/// A fully materialized process block.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Block {
    pub kind: BlockKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<Role>,
    /// Worker processes of this role.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workers: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes_per_worker: Option<u32>,
    /// GPUs per worker when workers share nodes: `[["0,1"], ["2,3"]]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu_pinning: Option<Vec<Vec<String>>>,
    /// Number of instances (frontends).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count_nodes: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ports: Option<Vec<String>>,
    /// Shell lines run before the command (`ulimit -n 1048576`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub preamble: Vec<String>,
    pub cmd: String,
    #[serde(default, skip_serializing_if = "Env::is_empty")]
    pub env: Env,
    /// Index into the file's `envs`; replaces `env` when the block is materialized.
    #[serde(default, rename = "envRef", skip_serializing_if = "Option::is_none")]
    pub env_ref: Option<usize>,
    #[serde(default)]
    pub args: Vec<Arg>,
}

impl Block {
    /// A block of `kind` running `cmd`, with nothing else set (for tests
    /// that build blocks by hand).
    #[cfg(test)]
    pub(crate) fn new(kind: BlockKind, cmd: &str) -> Block {
        Block {
            kind,
            role: None,
            workers: None,
            nodes_per_worker: None,
            gpu_pinning: None,
            count: None,
            count_nodes: None,
            ports: None,
            preamble: Vec::new(),
            cmd: cmd.to_string(),
            env: Env::new(),
            env_ref: None,
            args: Vec::new(),
        }
    }
}

/// A block as stored: in full, or encoded against another block.
#[derive(Debug, Clone)]
pub(crate) enum EncodedBlock {
    Full(Box<Block>),
    /// `{ref: [cellIdx, router, blockIdx], …}`: another cell's materialized block.
    Ref {
        cell: usize,
        router: Router,
        block: usize,
        edit: BlockEdit,
    },
    /// `{from: blockIdx, …}`: a block of this cell's submitted router.
    From {
        block: usize,
        edit: BlockEdit,
    },
}

/// How an encoded block changes its base: delete keys, set keys, then diff.
#[derive(Debug, Clone, Default)]
pub(crate) struct BlockEdit {
    pub drop: Vec<String>,
    /// Top-level keys that replace the base's (`cmd`, `workers`, `gpu_pinning`, …).
    pub overrides: Map<String, Value>,
    pub diff: Option<Diff>,
}

impl<'de> Deserialize<'de> for EncodedBlock {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<EncodedBlock, D::Error> {
        let mut map = Map::deserialize(d)?;
        if let Some(r) = map.remove("ref") {
            let (cell, router, block) =
                from_value_at::<(usize, Router, usize)>(r, "ref").map_err(|e| {
                    de::Error::custom(format!("{e} (expected [cellIndex, router, blockIndex])"))
                })?;
            let edit = block_edit(map).map_err(de::Error::custom)?;
            Ok(EncodedBlock::Ref {
                cell,
                router,
                block,
                edit,
            })
        } else if let Some(f) = map.remove("from") {
            let block = from_value_at::<usize>(f, "from").map_err(de::Error::custom)?;
            let edit = block_edit(map).map_err(de::Error::custom)?;
            Ok(EncodedBlock::From { block, edit })
        } else {
            from_value_at::<Block>(Value::Object(map), "")
                .map(|b| EncodedBlock::Full(Box::new(b)))
                .map_err(de::Error::custom)
        }
    }
}

/// What remains of an encoded block after `ref`/`from`: drop, diff, overrides.
fn block_edit(mut map: Map<String, Value>) -> Result<BlockEdit, String> {
    let drop = match map.remove("drop") {
        Some(v) => from_value_at::<Vec<String>>(v, "drop")?,
        None => Vec::new(),
    };
    let diff = match map.remove("diff") {
        Some(v) => Some(from_value_at::<Diff>(v, "diff")?),
        None => None,
    };
    Ok(BlockEdit {
        drop,
        overrides: map,
        diff,
    })
}

/// Deserializes a nested value and names the path inside it on failure.
fn from_value_at<T: de::DeserializeOwned>(v: Value, key: &str) -> Result<T, String> {
    serde_path_to_error::deserialize::<_, T>(v).map_err(|e| {
        let inner = e.path().to_string();
        let path = match (key.is_empty(), inner == ".") {
            (true, true) => String::new(),
            (true, false) => inner,
            (false, true) => key.to_string(),
            (false, false) => format!("{key}.{inner}"),
        };
        if path.is_empty() {
            e.into_inner().to_string()
        } else {
            format!("{path}: {}", e.into_inner())
        }
    })
}

/// Changes to one block. `null` values delete.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Diff {
    /// Replaces the whole block.
    #[serde(default)]
    pub block: Option<Box<Block>>,
    /// `flag → null` removes, `flag → [vals]` sets (`[]` = bare switch); new flags append.
    #[serde(default)]
    pub args: IndexMap<String, Option<Vec<String>>>,
    #[serde(default)]
    pub env: IndexMap<String, Option<String>>,
}

/// A point's change to one router's blocks.
#[derive(Debug, Clone)]
pub(crate) enum Patch {
    /// `{replace: [blocks]}`: a whole new block list.
    Replace(Vec<EncodedBlock>),
    /// One diff (or `null`) per block of point 0.
    PerBlock(Vec<Option<Diff>>),
}

impl<'de> Deserialize<'de> for Patch {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Patch, D::Error> {
        struct PatchVisitor;
        impl<'de> Visitor<'de> for PatchVisitor {
            type Value = Patch;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("null, {\"replace\": [blocks]} or a list of per-block diffs")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Patch, A::Error> {
                let mut diffs = Vec::new();
                while let Some(d) = seq.next_element::<Option<Diff>>()? {
                    diffs.push(d);
                }
                Ok(Patch::PerBlock(diffs))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Patch, A::Error> {
                let mut replace = None;
                while let Some(key) = map.next_key::<String>()? {
                    if key == "replace" {
                        replace = Some(map.next_value::<Vec<EncodedBlock>>()?);
                    } else {
                        return Err(de::Error::unknown_field(&key, &["replace"]));
                    }
                }
                replace
                    .map(Patch::Replace)
                    .ok_or_else(|| de::Error::missing_field("replace"))
            }
        }
        d.deserialize_any(PatchVisitor)
    }
}

/// A data file after loading.
#[derive(Debug, Clone)]
pub(crate) struct Loaded {
    pub data: AgentxData,
    /// JSON paths of keys this tool does not know and ignored on purpose.
    pub ignored: Vec<String>,
}

/// Reads and parses one data file; errors name the file and the JSON path.
pub(crate) fn load_file(path: &Path) -> Result<Loaded> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    parse_str(&text, path)
}

/// Parses data text. `path` is used for messages only.
pub(crate) fn parse_str(text: &str, path: &Path) -> Result<Loaded> {
    let json = json_text(text).with_context(|| format!("{}", path.display()))?;
    let mut ignored = Vec::new();
    let mut de = serde_json::Deserializer::from_str(&json);
    let mut on_ignored = |p: serde_ignored::Path<'_>| ignored.push(p.to_string());
    let tracked = serde_ignored::Deserializer::new(&mut de, &mut on_ignored);
    let data: AgentxData = serde_path_to_error::deserialize(tracked).map_err(|e| {
        let path_str = e.path().to_string();
        let inner = e.into_inner();
        let what = describe_json_error(&inner);
        if path_str == "." || inner.is_syntax() || inner.is_eof() {
            anyhow::anyhow!("{}: {what}", path.display())
        } else {
            anyhow::anyhow!("{}: {path_str}: {what}", path.display())
        }
    })?;
    de.end()
        .map_err(|e| anyhow::anyhow!("{}: {}", path.display(), describe_json_error(&e)))?;
    Ok(Loaded { data, ignored })
}

/// The page name (`model`) of data text, without decoding the rest: what an
/// index of many data files needs. `path` is used for messages only.
pub(crate) fn page_name(text: &str, path: &Path) -> Result<String> {
    #[derive(Deserialize)]
    struct Head {
        model: String,
    }
    let json = json_text(text).with_context(|| format!("{}", path.display()))?;
    serde_json::from_str::<Head>(&json)
        .map(|h| h.model)
        .map_err(|e| anyhow::anyhow!("{}: {}", path.display(), describe_json_error(&e)))
}

fn describe_json_error(e: &serde_json::Error) -> String {
    let msg = e.to_string();
    if e.is_syntax() || e.is_eof() {
        format!("malformed JSON: {msg}")
    } else {
        msg
    }
}

/// Extracts the JSON object from either form. The JS wrapper is blanked out
/// rather than cut, so line:column in parse errors still point into the file.
pub(crate) fn json_text(text: &str) -> Result<String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let body_start = skip_comments_and_space(text);
    let rest = &text[body_start..];
    if rest.starts_with('{') || rest.is_empty() {
        return Ok(text.to_string());
    }
    const PREFIX: &str = "export const agentx";
    if !rest.starts_with(PREFIX) {
        bail!(
            "not an AgentX data file: expected a JSON object or `export const agentx = {{...}};` \
             at line {}",
            line_of(text, body_start)
        );
    }
    let after = &rest[PREFIX.len()..];
    let eq = after.trim_start();
    if !eq.starts_with('=') {
        bail!(
            "expected `=` after `export const agentx` at line {}",
            line_of(text, body_start)
        );
    }
    let obj_start = body_start + PREFIX.len() + (after.len() - eq.len()) + 1;
    let trimmed_end = text.trim_end();
    let obj_end = trimmed_end
        .strip_suffix(';')
        .map(|s| s.len())
        .unwrap_or(trimmed_end.len());
    if obj_end < obj_start {
        bail!("`export const agentx =` is not followed by an object");
    }
    let mut out = String::with_capacity(text.len());
    blank_into(&mut out, &text[..obj_start]);
    out.push_str(&text[obj_start..obj_end]);
    blank_into(&mut out, &text[obj_end..]);
    Ok(out)
}

/// Byte offset of the first character that is neither whitespace nor inside a `//` comment.
fn skip_comments_and_space(text: &str) -> usize {
    let mut i = 0;
    let bytes = text.as_bytes();
    while i < bytes.len() {
        if bytes[i].is_ascii_whitespace() {
            i += 1;
        } else if text[i..].starts_with("//") {
            i += text[i..].find('\n').unwrap_or(text.len() - i);
        } else {
            break;
        }
    }
    i
}

/// Replaces every character except newlines with spaces (one byte each).
fn blank_into(out: &mut String, s: &str) {
    for ch in s.chars() {
        out.push(if ch == '\n' { '\n' } else { ' ' });
    }
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset].matches('\n').count() + 1
}

/// Every data file (`.json`, `.jsx`, `.js`) directly in or below `dir`, sorted.
pub(crate) fn data_files_in(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries =
            std::fs::read_dir(&d).with_context(|| format!("cannot list {}", d.display()))?;
        for entry in entries {
            let entry = entry.with_context(|| format!("cannot list {}", d.display()))?;
            let p = entry.path();
            if p.is_dir() {
                stack.push(p);
            } else if is_data_file(&p) {
                out.push(p);
            }
        }
    }
    out.sort();
    Ok(out)
}

pub(crate) fn is_data_file(p: &Path) -> bool {
    matches!(
        p.extension().and_then(|e| e.to_str()),
        Some("json" | "jsx" | "js")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn js_module_keeps_line_numbers() {
        let text = "// header\n// more\nexport const agentx = {\n \"model\": 5\n};\n";
        let json = json_text(text).unwrap();
        assert!(json.trim_start().starts_with('{'), "{json}");
        assert_eq!(json.len(), text.len());
        assert_eq!(json.lines().count(), text.lines().count());
        let err = parse_str(text, Path::new("x.jsx")).unwrap_err().to_string();
        assert!(err.contains("model"), "{err}");
        assert!(err.contains("line 4"), "{err}");
    }

    #[test]
    fn malformed_json_names_line_and_column() {
        let err = parse_str("{\n \"model\": \"x\",\n}", Path::new("bad.json"))
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("bad.json: malformed JSON"), "{err}");
        assert!(err.contains("line 3 column 1"), "{err}");
    }

    #[test]
    fn not_agentx_is_rejected() {
        let err = format!(
            "{:#}",
            parse_str("const x = 1;", Path::new("a.js")).unwrap_err()
        );
        assert!(err.starts_with("a.js: not an AgentX data file"), "{err}");
    }

    #[test]
    fn arg_requires_a_flag() {
        let e = serde_json::from_str::<Arg>("[]").unwrap_err().to_string();
        assert!(e.contains("invalid length 0"), "{e}");
        let a: Arg = serde_json::from_str(r#"["--tp", "4"]"#).unwrap();
        assert_eq!(a, Arg::new("--tp", &["4"]));
    }

    #[test]
    fn encoded_block_forms() {
        let b: EncodedBlock =
            serde_json::from_str(r#"{"ref": [2, "sglang", 0], "workers": 1, "drop": ["gpu_pinning"], "diff": {"args": {"--tp": ["4"]}}}"#)
                .unwrap();
        match b {
            EncodedBlock::Ref {
                cell,
                router,
                block,
                edit,
            } => {
                assert_eq!((cell, router, block), (2, Router::Sglang, 0));
                assert_eq!(edit.drop, vec!["gpu_pinning"]);
                assert_eq!(edit.overrides.get("workers"), Some(&Value::from(1)));
                assert!(edit.diff.is_some());
            }
            other => panic!("{other:?}"),
        }
        let e = serde_json::from_str::<EncodedBlock>(r#"{"ref": [2, "vllm", 0]}"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("unknown variant `vllm`"), "{e}");
        let e =
            serde_json::from_str::<EncodedBlock>(r#"{"kind": "worker", "cmd": "x", "argz": []}"#)
                .unwrap_err()
                .to_string();
        assert!(e.contains("unknown field `argz`"), "{e}");
    }
}
