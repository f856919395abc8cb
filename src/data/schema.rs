//! The serde types of an AgentX data file, as the data writes them. Fields
//! that change a command (blocks, diffs, patches) live in [`super::block`].

use std::collections::BTreeMap;

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use super::block::{Arg, Block, EncodedBlock, Patch};
use super::ids::{KvTier, Router};
use super::validate::{env_list, env_names};

/// Environment variables of one process; always key-sorted, as the renderer prints them.
pub(crate) type Env = BTreeMap<String, String>;

/// One whole AgentX data file (one model page).
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(test, derive(Serialize))]
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
    #[serde(default, deserialize_with = "env_list")]
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
#[cfg_attr(test, derive(Serialize))]
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
#[cfg_attr(test, derive(Serialize))]
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
#[cfg_attr(test, derive(Serialize))]
pub(crate) struct Hardware {
    pub id: String,
    pub label: String,
}

#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(test, derive(Serialize))]
pub(crate) struct Checkpoint {
    pub id: String,
    /// Only in the older schema.
    #[serde(default)]
    pub precision: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(test, derive(Serialize))]
pub(crate) struct FileEntry {
    pub name: String,
    pub content: String,
}

#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(test, derive(Serialize))]
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
    #[serde(deserialize_with = "env_names")]
    pub env: Env,
    /// Added to decode workers' env.
    #[serde(default, deserialize_with = "env_names")]
    pub decode_env: Env,
}

/// Review state of a submission, as the data records it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum RunStatus {
    Verified,
    VerifiedPr,
    InProgress,
}

/// Whether the image tag can still be pulled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ImageStatus {
    /// The tag can be pulled.
    #[default]
    Ok,
    /// The tag was removed from Docker Hub; `imageCommit` names the SGLang commit.
    Pruned,
    /// The tag was removed; pull by the `@sha256:` digest.
    DigestOnly,
}

#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(test, derive(Serialize))]
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
#[cfg_attr(test, derive(Serialize))]
pub(crate) struct SetupStep {
    #[serde(default)]
    pub command: Option<String>,
    #[serde(default)]
    pub script: Option<String>,
    #[serde(default)]
    pub reason: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(test, derive(Serialize))]
pub(crate) struct CellKv {
    pub available: Vec<KvTier>,
    #[serde(default)]
    pub unavailable: BTreeMap<KvTier, String>,
    #[serde(default)]
    pub hicache: Option<HicacheDonor>,
}

#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(test, derive(Serialize))]
#[serde(deny_unknown_fields)]
pub(crate) struct HicacheDonor {
    pub args: Vec<Arg>,
    pub donor: String,
    #[serde(rename = "donorHardware")]
    pub donor_hardware: String,
}

/// Cell-level provenance (newer schema).
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(test, derive(Serialize))]
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
#[cfg_attr(test, derive(Serialize))]
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
#[cfg_attr(test, derive(Serialize))]
#[serde(deny_unknown_fields)]
pub(crate) struct RouterData {
    #[serde(default)]
    pub install: Vec<String>,
    /// Keys into the top-level `files` map.
    #[serde(default)]
    pub files: Vec<String>,
    pub blocks: Vec<EncodedBlock>,
}
