//! Decoding: every (cell, point, router, available KV tier) of a data file
//! becomes a [`CommandSet`]: ordered processes with their command text,
//! placeholders, status, notes, provenance and image status.
//!
//! The rules follow the cookbook renderer (`_agentx.jsx`) and its generator
//! (`kv.py`), as written down in `research/sglang-cookbook.md` §2.1.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::Path;

use anyhow::{Result, anyhow, bail};
use serde_json::Value;

use crate::data::{
    AgentxData, Arg, Block, BlockEdit, BlockKind, Cell, Diff, EncodedBlock, Env, ImageStatus,
    KvTier, Patch, Point, Role, Router, RunStatus,
};
use crate::shell;
use crate::util::text::slug;

/// Worker flags that always lead, in this order; the rest follow alphabetically.
pub(crate) const LEAD_FLAGS: [&str; 11] = [
    "--model-path",
    "--served-model-name",
    "--host",
    "--port",
    "--disaggregation-mode",
    "--disaggregation-bootstrap-port",
    "--dist-init-addr",
    "--nnodes",
    "--node-rank",
    "--request-plane",
    "--kv-events-config",
];

/// Env only a Mooncake *store* needs; dropped when leaving a measured Mooncake tier.
const MOONCAKE_STORE_ENV: [&str; 4] = [
    "MOONCAKE_MASTER",
    "MOONCAKE_TE_META_DATA_SERVER",
    "MOONCAKE_GLOBAL_SEGMENT_SIZE",
    "MOONCAKE_STANDALONE_STORAGE",
];

/// Whether a worker flag belongs to a KV-offload tier (and is swapped by the tier transform).
pub(crate) fn is_kv_flag(flag: &str) -> bool {
    flag == "--enable-hierarchical-cache"
        || flag.starts_with("--hicache-")
        || flag == "--enable-unified-cache-external-linker"
        || flag == "--unified-cache-external-linker-backend"
}

/// Status shown for one command set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    /// Measured and merged.
    Verified,
    /// Measured in a pull request that is not merged yet.
    VerifiedPr {
        /// The pull request's number.
        pr: String,
    },
    /// Submitted, under review.
    InProgress {
        /// The pull request's number.
        pr: String,
    },
    /// Router or tier differs from what was measured.
    Derived,
}

impl Status {
    /// Short machine id (`verified`, `verified-pr`, `in-progress`, `derived`).
    pub fn id(&self) -> &'static str {
        match self {
            Status::Verified => "verified",
            Status::VerifiedPr { .. } => "verified-pr",
            Status::InProgress { .. } => "in-progress",
            Status::Derived => "derived",
        }
    }

    /// The exact label a reader sees.
    pub fn label(&self) -> String {
        match self {
            Status::Verified => "✓ Verified in SemiAnalysis InferenceX AgentX".into(),
            Status::VerifiedPr { pr } => {
                format!("✓ Verified in SemiAnalysis InferenceX AgentX (PR #{pr}, pending merge)")
            }
            Status::InProgress { pr } => {
                format!("◐ In progress in SemiAnalysis InferenceX AgentX (PR #{pr})")
            }
            Status::Derived => "Derived — not run in SemiAnalysis InferenceX AgentX".into(),
        }
    }

    fn measured(status: RunStatus, pr: Option<&str>) -> Status {
        let pr = pr.unwrap_or("?").to_string();
        match status {
            RunStatus::Verified => Status::Verified,
            RunStatus::VerifiedPr => Status::VerifiedPr { pr },
            RunStatus::InProgress => Status::InProgress { pr },
        }
    }
}

/// One process to start.
#[derive(Debug, Clone, PartialEq)]
pub struct Process {
    /// What the process is.
    pub kind: BlockKind,
    /// Its role, for workers.
    pub role: Option<Role>,
    /// Tab title, e.g. `Decode ×2`.
    pub title: String,
    /// Comment title, e.g. `Decode worker`.
    pub long_title: String,
    /// Where and when to start it.
    pub placement: String,
    /// The formatted command text.
    pub command: String,
    /// Config files this command names (`nats.conf`, `nginx.conf`).
    pub files: Vec<ConfigFile>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
/// A config file a command reads (`nats.conf`, `nginx.conf`).
pub struct ConfigFile {
    /// File name, as the command names it.
    pub name: String,
    /// Its text.
    pub content: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
/// A value the reader fills in (`$NODE_IP`), listed under Env Vars.
pub struct Placeholder {
    /// Without the `$`.
    pub name: String,
    /// What to fill in.
    pub description: String,
}

/// A note shown with a command set; [`Note::text`] is its Markdown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Note {
    /// The set was derived from the measured launch of its point.
    DerivedFrom {
        /// The submitted router.
        router: Router,
        /// The measured tier.
        tier: KvTier,
        /// Whether that launch is verified (else only submitted).
        verified: bool,
    },
    /// The router differs from the submitted one.
    RouterSwap {
        /// The router of this set.
        to: Router,
    },
    /// The KV tier was removed.
    KvRemoved,
    /// HiCache settings were added from a donor launch.
    KvHicache {
        /// configKey of the donor.
        donor: String,
        /// Its hardware label.
        donor_hardware: String,
        /// Roles of the workers that got them (`agg`, `prefill`).
        roles: String,
    },
    /// Mooncake settings were added from the donor launch.
    KvMooncake {
        /// configKey of the donor.
        donor: String,
        /// Its hardware label.
        donor_hardware: String,
    },
    /// The run used a synthetic speculative-decoding acceptance length.
    SyntheticAcceptance {
        /// Its golden acceptance length, when known.
        golden_al: Option<String>,
    },
    /// The run used a chat template these commands leave out.
    ChatTemplate,
    /// A disclosure this tool has no text for.
    UnknownDisclosure(String),
    /// `--enable-dp-attention` is deprecated in newer SGLang.
    RenameDpAttention,
    /// `--hicache-size` is sized to SemiAnalysis's hosts.
    HicacheSize,
    /// `MOONCAKE_PROTOCOL=efa` is for AWS EFA.
    Efa,
    /// `MOONCAKE_GLOBAL_SEGMENT_SIZE` is sized to SemiAnalysis's hosts.
    MooncakeSegment,
    /// How to write `$IB_DEVICES`.
    IbDevices,
    /// An install step the submission used for the router.
    Install {
        /// The router.
        router: Router,
        /// The step (a `#` line is a comment).
        line: String,
    },
    /// Dynamo comes bundled in the image.
    InstallBundled,
    /// A setup step before launch, on every worker node.
    Setup {
        /// The command or script.
        what: String,
        /// Why, when the data says.
        reason: Option<String>,
    },
}

impl Note {
    /// Short machine id.
    pub fn id(&self) -> &'static str {
        match self {
            Note::DerivedFrom { .. } => "derived-from",
            Note::RouterSwap { .. } => "router-swap",
            Note::KvRemoved => "kv-none",
            Note::KvHicache { .. } => "kv-hicache",
            Note::KvMooncake { .. } => "kv-mooncake",
            Note::SyntheticAcceptance { .. } => "synthetic-acceptance",
            Note::ChatTemplate => "chat-template",
            Note::UnknownDisclosure(_) => "disclosure",
            Note::RenameDpAttention => "rename-dp-attention",
            Note::HicacheSize => "hicache-size",
            Note::Efa => "efa",
            Note::MooncakeSegment => "mooncake-segment",
            Note::IbDevices => "ib-devices",
            Note::Install { .. } => "install",
            Note::InstallBundled => "install",
            Note::Setup { .. } => "setup",
        }
    }

    /// The note as Markdown.
    pub fn text(&self) -> String {
        match self {
            Note::DerivedFrom {
                router,
                tier,
                verified,
            } => format!(
                "Derived from the {} launch ({} router, {}); SemiAnalysis did not run this combination.",
                if *verified { "verified" } else { "submitted" },
                router.label(),
                tier.label()
            ),
            Note::RouterSwap { to } => format!(
                "Router: re-rendered with srt-slurm's {} frontend. Engine flags are unchanged; \
                 only the launcher, routing and router-specific flags differ.",
                to.label()
            ),
            Note::KvRemoved => "KV offload removed; only the GPU KV cache is used.".into(),
            Note::KvHicache {
                donor,
                donor_hardware,
                roles,
            } => format!(
                "HiCache settings from the verified `{donor}` launch ({donor_hardware}), applied \
                 to the workers that hold the prefix cache ({roles})."
            ),
            Note::KvMooncake {
                donor,
                donor_hardware,
            } => format!(
                "Mooncake external-linker flags, store-client environment and `mooncake_master` \
                 from the verified `{donor}` launch ({donor_hardware}). Its optional standalone \
                 Mooncake stores are not included."
            ),
            Note::SyntheticAcceptance { golden_al } => format!(
                "SemiAnalysis measured this point with a synthetic speculative-decoding acceptance \
                 length{} (InferenceX golden AL via `SGLANG_SIMULATE_ACC_LEN`), which is not part \
                 of these commands. Real speed depends on your workload's acceptance.",
                golden_al
                    .as_deref()
                    .map(|al| format!(" of {al}"))
                    .unwrap_or_default()
            ),
            Note::ChatTemplate => {
                "The SemiAnalysis run used the `deepseek_v4_thinking.jinja` chat \
                 template, which drops tool definitions; these commands keep SGLang's built-in \
                 DeepSeek-V4 encoding, which supports tool calling."
                    .into()
            }
            Note::UnknownDisclosure(d) => {
                format!("Disclosure `{d}`: see the submission for details.")
            }
            Note::RenameDpAttention => "Newer SGLang deprecates `--enable-dp-attention` and \
                 `--dp-size` in favour of `--attn-dp-size` (sglang PR #41818); these commands keep \
                 the flags this image expects."
                .into(),
            Note::HicacheSize => "`--hicache-size` is host DRAM per rank in GB, sized to \
                 SemiAnalysis's nodes; size it to your hosts."
                .into(),
            Note::Efa => "`MOONCAKE_PROTOCOL=efa` is for AWS EFA; use `rdma` on InfiniBand.".into(),
            Note::MooncakeSegment => "`MOONCAKE_GLOBAL_SEGMENT_SIZE` is the host memory each node \
                 contributes to the Mooncake store; size it to your hosts."
                .into(),
            Note::IbDevices => "`$IB_DEVICES` is comma-separated, e.g. `mlx5_0,mlx5_1`.".into(),
            Note::Install { router, line } => match line.strip_prefix('#') {
                Some(rest) => format!("{}: {}", router_product(*router), rest.trim()),
                None => format!("{} install used by SA: `{line}`", router_product(*router)),
            },
            Note::InstallBundled => "Dynamo: the `ai-dynamo` release bundled in the image.".into(),
            Note::Setup { what, reason } => match reason {
                Some(r) => format!("Before launch, on every worker node: `{what}` — {r}"),
                None => format!("Before launch, on every worker node: `{what}`"),
            },
        }
    }
}

fn router_product(r: Router) -> &'static str {
    match r {
        Router::Dynamo => "Dynamo",
        Router::Sglang => "SGLang router",
    }
}

/// Where a submission is recorded.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Provenance {
    /// The lane's config key in InferenceX.
    pub config_key: String,
    /// The recipe override the point used.
    pub override_name: Option<String>,
    /// The run that measured it.
    pub run_url: Option<String>,
    /// The pull request's number.
    pub pr: Option<String>,
    /// The pull request.
    pub pr_url: Option<String>,
    /// The comment that signed off a `verified-pr` run.
    pub comment_url: Option<String>,
    /// The job log of the point.
    pub job_url: Option<String>,
    /// The recipe at the measured commit.
    pub recipe_url: Option<String>,
    /// The InferenceX commit.
    pub sha: Option<String>,
    /// The date on the dashboard.
    pub date: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
/// The container image of a deployment.
pub struct ImageInfo {
    /// Image reference (`lmsysorg/sglang:…`).
    pub image: String,
    /// Whether the tag can still be pulled.
    pub status: ImageStatus,
    /// The SGLang commit a pruned tag was built from.
    pub commit: Option<String>,
}

/// One combination a reader can copy.
#[derive(Debug, Clone)]
pub struct CommandSet {
    /// Cell id (`<configKey>#<n>`).
    pub cell_id: String,
    /// Index of the point in the cell.
    pub point: usize,
    /// Concurrencies the point served.
    pub concs: Vec<u32>,
    /// The router of this set.
    pub router: Router,
    /// The KV tier of this set.
    pub tier: KvTier,
    /// The tier the point was measured with.
    pub measured: KvTier,
    /// Measured (as submitted) or derived.
    pub status: Status,
    /// Stable, unique (per page) anchor id.
    pub anchor: String,
    /// Processes in launch order.
    pub processes: Vec<Process>,
    /// Config files no command names.
    pub loose_files: Vec<ConfigFile>,
    /// Values the reader fills in, in reading order.
    pub placeholders: Vec<Placeholder>,
    /// Notes shown with the set.
    pub notes: Vec<Note>,
    /// Where the point's run is recorded.
    pub provenance: Provenance,
    /// The image the commands run in.
    pub image: ImageInfo,
}

impl CommandSet {
    /// The JSON shape of the set that `decode --json` prints; `page` is the
    /// data file's `model`.
    pub fn json(&self, page: &str) -> serde_json::Value {
        serde_json::json!({
            "page": page,
            "cell": self.cell_id,
            "point": self.point,
            "concs": self.concs,
            "kv": self.tier.id(),
            "router": self.router.id(),
            "status": self.status.id(),
            "label": self.status.label(),
            "anchor": self.anchor,
            "titles": self.processes.iter().map(|p| p.title.as_str()).collect::<Vec<_>>(),
            "blocks": self.processes.iter().map(|p| p.command.as_str()).collect::<Vec<_>>(),
            "placeholders": self.placeholders.iter().map(|p| serde_json::json!({"name": p.name, "description": p.description})).collect::<Vec<_>>(),
            "notes": self.notes.iter().map(|n| serde_json::json!({"id": n.id(), "text": n.text()})).collect::<Vec<_>>(),
            "image": {"name": self.image.image, "status": self.image.status, "commit": self.image.commit},
        })
    }

    /// `c1 / c4` as on the concurrency chip.
    pub fn concs_label(&self) -> String {
        concs_label(&self.concs)
    }

    /// The text a reader copies for the whole set: env exports first, then each
    /// process under `# title` and `# placement` comments.
    pub fn copy_all_text(&self) -> String {
        let mut parts = Vec::new();
        if !self.placeholders.is_empty() {
            let mut s = String::from("# Set per node before running the commands below\n");
            s.push_str(env_exports(&self.placeholders).trim_end());
            parts.push(s);
        }
        for p in &self.processes {
            let mut s = format!("# {}\n# {}\n{}", p.long_title, p.placement, p.command);
            for f in &p.files {
                s.push_str(&format!(
                    "\n\n# {} (save next to the command)\n{}",
                    f.name,
                    f.content.trim_end()
                ));
            }
            parts.push(s);
        }
        for f in &self.loose_files {
            parts.push(format!("# {}\n{}", f.name, f.content.trim_end()));
        }
        let mut out = parts.join("\n\n");
        out.push('\n');
        out
    }
}

pub(crate) fn concs_label(concs: &[u32]) -> String {
    let parts: Vec<String> = concs.iter().map(|c| format!("c{c}")).collect();
    parts.join(" / ")
}

/// `export NAME=<description>` lines.
pub(crate) fn env_exports(placeholders: &[Placeholder]) -> String {
    placeholders
        .iter()
        .map(|p| format!("export {}=<{}>\n", p.name, p.description))
        .collect()
}

/// One cell with everything a lane table shows, and all its command sets.
#[derive(Debug, Clone)]
pub struct Deployment {
    /// Cell id (`<configKey>#<n>`).
    pub cell_id: String,
    /// The lane's config key in InferenceX.
    pub config_key: String,
    /// Hardware id (`gb300`).
    pub hw: String,
    /// Hardware as the data labels it (`GB300`).
    pub hw_label: String,
    /// Checkpoint id.
    pub ckpt: String,
    /// Checkpoint with its precision when the data gives one.
    pub ckpt_label: String,
    /// `Agg TP4·EP4`, `Disagg 2P1D · prefill … · decode …`
    pub label: String,
    /// `MTP 3-1-4`, `DSpark 5`, `DFlash 8`, or none.
    pub detail: Option<String>,
    /// GPUs the deployment uses.
    pub gpus: u32,
    /// Concurrencies of each point, in point order.
    pub concs: Vec<Vec<u32>>,
    /// The router it was submitted behind.
    pub submitted: Router,
    /// Distinct tiers the points were measured with, in tier order.
    pub measured: Vec<KvTier>,
    /// Tiers offered, in tier order.
    pub available: Vec<KvTier>,
    /// Tiers not offered, with the reason.
    pub unavailable: Vec<UnavailableTier>,
    /// Where a derived HiCache tier's settings come from (`kv.hicache`).
    pub hicache: Option<KvDonor>,
    /// The routers the deployment can run behind, in router order.
    pub routers: Vec<Router>,
    /// Status of the submitted, measured launch of point 0.
    pub status: Status,
    /// Where point 0's run is recorded.
    pub provenance: Provenance,
    /// The image the commands run in.
    pub image: ImageInfo,
    /// Anchor of the deployment chapter (`slug(cell id)`).
    pub anchor: String,
    /// Every command set, in point, router, tier order.
    pub command_sets: Vec<CommandSet>,
}

/// A KV tier a deployment does not offer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnavailableTier {
    /// The tier.
    pub tier: KvTier,
    /// Why (the data's reason, or a default).
    pub reason: String,
}

/// Where a derived KV tier's settings come from: a verified launch, and the
/// flags the tier adds to the workers that own the prefix cache.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KvDonor {
    /// configKey of the verified launch the settings come from.
    pub donor: String,
    /// Its hardware, as the data labels it (`GB300`).
    pub donor_hardware: String,
    /// Flags the tier adds to cache-owning workers.
    pub args: Vec<Arg>,
}

impl Deployment {
    /// Each point's concurrencies as on its chip (`c1 / c4`), in point order.
    pub fn point_labels(&self) -> Vec<String> {
        self.concs.iter().map(|c| concs_label(c)).collect()
    }
}

/// A decoded data file.
#[derive(Debug, Clone)]
pub struct DecodedPage {
    /// The page name (the data file's `model`).
    pub model: String,
    /// Every deployment (cell), in data order.
    pub deployments: Vec<Deployment>,
    /// Hardware ids the deployments use, in the data's hardware order.
    pub hardware: Vec<String>,
    /// Where a derived Mooncake tier's settings come from (`kvMooncake`).
    pub mooncake: Option<KvDonor>,
}

impl DecodedPage {
    /// Every command set of the page, in deployment order.
    pub fn command_sets(&self) -> impl Iterator<Item = &CommandSet> {
        self.deployments.iter().flat_map(|d| d.command_sets.iter())
    }

    /// How many command sets the page has.
    pub fn command_set_count(&self) -> usize {
        self.deployments.iter().map(|d| d.command_sets.len()).sum()
    }

    /// How many points (concurrency groups) the page has.
    pub fn point_count(&self) -> usize {
        self.deployments.iter().map(|d| d.concs.len()).sum()
    }

    /// Distinct configKeys.
    pub fn lane_count(&self) -> usize {
        self.deployments
            .iter()
            .map(|d| d.config_key.as_str())
            .collect::<HashSet<_>>()
            .len()
    }
}

/// Hardware ids used by the deployments, in the data's hardware order
/// (ids the data does not list follow, in the order cells use them).
fn hardware_used(data: &AgentxData, deployments: &[Deployment]) -> Vec<String> {
    let used: HashSet<&str> = deployments.iter().map(|d| d.hw.as_str()).collect();
    let mut out: Vec<String> = data
        .hardware
        .iter()
        .filter(|h| used.contains(h.id.as_str()))
        .map(|h| h.id.clone())
        .collect();
    for d in deployments {
        if !out.contains(&d.hw) {
            out.push(d.hw.clone());
        }
    }
    out
}

/// Decodes every command set of a data file.
pub(crate) fn decode_page(data: &AgentxData) -> Result<DecodedPage> {
    let mut decoder = Decoder::new(data);
    let mut deployments = Vec::with_capacity(data.cells.len());
    let mut anchors = HashSet::new();
    for ci in 0..data.cells.len() {
        let mut d = decoder.deployment(ci)?;
        if !anchors.insert(d.anchor.clone()) {
            bail!(
                "cells[{ci}]: cell id `{}` gives the anchor `{}`, which another cell already uses; \
                 cell ids must differ in more than punctuation",
                d.cell_id,
                d.anchor
            );
        }
        for set in &mut d.command_sets {
            let mut anchor = set.anchor.clone();
            if anchors.contains(&anchor) {
                // Two points with the same concurrencies: the point index keeps them apart.
                anchor = format!("{anchor}-p{}", set.point);
            }
            if !anchors.insert(anchor.clone()) {
                bail!(
                    "cells[{ci}].points[{}]: anchor `{anchor}` is not unique",
                    set.point
                );
            }
            set.anchor = anchor;
        }
        deployments.push(d);
    }
    Ok(DecodedPage {
        model: data.model.clone(),
        hardware: hardware_used(data, &deployments),
        mooncake: data.kv_mooncake.as_ref().map(|k| KvDonor {
            donor: k.donor.clone(),
            donor_hardware: hardware_label(data, &k.donor_hardware),
            args: k.args.clone(),
        }),
        deployments,
    })
}

/// A data file read and decoded.
#[derive(Debug, Clone)]
pub struct DecodedFile {
    /// Every command set of the file.
    pub page: DecodedPage,
    /// JSON paths of unknown descriptive keys that were ignored.
    pub ignored: Vec<String>,
}

/// Reads and decodes one data file; errors name the file and the JSON path.
pub fn decode_file(path: &Path) -> Result<DecodedFile> {
    let loaded = crate::data::load_file(path)?;
    decoded(loaded.data, loaded.ignored, path)
}

/// Decodes data text; `path` names it in messages.
pub fn decode_str(text: &str, path: &Path) -> Result<DecodedFile> {
    let loaded = crate::data::parse_str(text, path)?;
    decoded(loaded.data, loaded.ignored, path)
}

fn decoded(data: AgentxData, ignored: Vec<String>, path: &Path) -> Result<DecodedFile> {
    let page = decode_page(&data).map_err(|e| anyhow!("{}: {e:#}", path.display()))?;
    Ok(DecodedFile { page, ignored })
}

/// Anchor of one command set: cell id, concurrencies, tier, router.
pub(crate) fn command_set_anchor(
    cell_id: &str,
    concs: &[u32],
    tier: KvTier,
    router: Router,
) -> String {
    let c: Vec<String> = concs.iter().map(|c| c.to_string()).collect();
    format!(
        "{}-c{}-{}-{}",
        slug(cell_id),
        c.join("-"),
        tier.id(),
        router.id()
    )
}

struct Decoder<'a> {
    data: &'a AgentxData,
    /// Materialized point-0 blocks per (cell, router).
    cache: HashMap<(usize, Router), Vec<Block>>,
}

impl<'a> Decoder<'a> {
    fn new(data: &'a AgentxData) -> Self {
        Decoder {
            data,
            cache: HashMap::new(),
        }
    }

    fn cell(&self, ci: usize) -> Result<&'a Cell> {
        self.data.cells.get(ci).ok_or_else(|| {
            anyhow!(
                "there is no cells[{ci}]: the file has {} cells",
                self.data.cells.len()
            )
        })
    }

    /// Point 0's blocks for a router, with `ref`/`from`/`envRef` resolved.
    fn materialize(
        &mut self,
        ci: usize,
        router: Router,
        stack: &mut Vec<(usize, Router)>,
    ) -> Result<Vec<Block>> {
        if let Some(b) = self.cache.get(&(ci, router)) {
            return Ok(b.clone());
        }
        if stack.contains(&(ci, router)) {
            let chain: Vec<String> = stack
                .iter()
                .chain(std::iter::once(&(ci, router)))
                .map(|(c, r)| format!("cells[{c}].routers.{r}"))
                .collect();
            bail!("cycle of refs: {}", chain.join(" → "));
        }
        let cell = self.cell(ci)?;
        let rd = cell.routers.get(&router).ok_or_else(|| {
            anyhow!(
                "cells[{ci}] (`{}`) has no router `{router}`; it has: {}",
                cell.id,
                router_list(cell)
            )
        })?;
        stack.push((ci, router));
        let mut out = Vec::with_capacity(rd.blocks.len());
        for (bi, eb) in rd.blocks.iter().enumerate() {
            let path = format!("cells[{ci}].routers.{router}.blocks[{bi}]");
            let b = self
                .resolve(ci, eb, stack)
                .map_err(|e| anyhow!("{path}: {e:#}"))?;
            out.push(b);
        }
        stack.pop();
        for (bi, b) in out.iter_mut().enumerate() {
            self.resolve_env_ref(b)
                .map_err(|e| anyhow!("cells[{ci}].routers.{router}.blocks[{bi}].envRef: {e}"))?;
        }
        self.cache.insert((ci, router), out.clone());
        Ok(out)
    }

    fn resolve_env_ref(&self, b: &mut Block) -> Result<()> {
        if let Some(i) = b.env_ref.take() {
            b.env = self.data.envs.get(i).cloned().ok_or_else(|| {
                anyhow!(
                    "envRef {i} points past the end of `envs` ({} entries)",
                    self.data.envs.len()
                )
            })?;
        }
        Ok(())
    }

    /// Resolves an encoded block in the context of cell `ci`.
    fn resolve(
        &mut self,
        ci: usize,
        eb: &EncodedBlock,
        stack: &mut Vec<(usize, Router)>,
    ) -> Result<Block> {
        match eb {
            EncodedBlock::Full(b) => Ok((**b).clone()),
            EncodedBlock::Ref {
                cell,
                router,
                block,
                edit,
            } => {
                if *cell >= self.data.cells.len() {
                    bail!(
                        "ref: [{cell}, \"{router}\", {block}] names cells[{cell}], but the file has {} cells",
                        self.data.cells.len()
                    );
                }
                let base = self
                    .materialize(*cell, *router, stack)
                    .map_err(|e| anyhow!("ref: {e:#}"))?;
                let b = base.get(*block).ok_or_else(|| {
                    anyhow!(
                        "ref: [{cell}, \"{router}\", {block}] names block {block}, but cells[{cell}].routers.{router} has {} blocks",
                        base.len()
                    )
                })?;
                apply_edit(b, edit)
            }
            EncodedBlock::From { block, edit } => {
                let submitted = self.cell(ci)?.submitted;
                let base = self
                    .materialize(ci, submitted, stack)
                    .map_err(|e| anyhow!("from: {e:#}"))?;
                let b = base.get(*block).ok_or_else(|| {
                    anyhow!(
                        "from: {block} names block {block} of the submitted router `{submitted}`, which has {} blocks",
                        base.len()
                    )
                })?;
                apply_edit(b, edit)
            }
        }
    }

    /// Point `pi`'s blocks for a router: point 0's with the point's patch applied.
    fn point_blocks(&mut self, ci: usize, pi: usize, router: Router) -> Result<Vec<Block>> {
        let base = self.materialize(ci, router, &mut Vec::new())?;
        let cell = self.cell(ci)?;
        let point = &cell.points[pi];
        let Some(patches) = &point.patch else {
            return Ok(base);
        };
        for r in patches.keys() {
            if !cell.routers.contains_key(r) {
                bail!(
                    "cells[{ci}].points[{pi}].patch.{r}: the cell has no router `{r}` (it has: {})",
                    router_list(cell)
                );
            }
        }
        let path = format!("cells[{ci}].points[{pi}].patch.{router}");
        match patches.get(&router) {
            None | Some(None) => Ok(base),
            Some(Some(Patch::Replace(list))) => {
                let mut out = Vec::with_capacity(list.len());
                for (bi, eb) in list.iter().enumerate() {
                    let mut b = self
                        .resolve(ci, eb, &mut Vec::new())
                        .map_err(|e| anyhow!("{path}.replace[{bi}]: {e:#}"))?;
                    self.resolve_env_ref(&mut b)
                        .map_err(|e| anyhow!("{path}.replace[{bi}].envRef: {e}"))?;
                    out.push(b);
                }
                Ok(out)
            }
            Some(Some(Patch::PerBlock(diffs))) => {
                if diffs.len() > base.len() {
                    bail!(
                        "{path}: the patch list has {} entries but point 0 has {} blocks for \
                         router `{router}`; expected at most one diff (or null) per block",
                        diffs.len(),
                        base.len()
                    );
                }
                let mut out = base;
                for (bi, d) in diffs.iter().enumerate() {
                    if let Some(d) = d {
                        apply_diff(&mut out[bi], d);
                        self.resolve_env_ref(&mut out[bi])
                            .map_err(|e| anyhow!("{path}[{bi}].block.envRef: {e}"))?;
                    }
                }
                Ok(out)
            }
        }
    }

    fn deployment(&mut self, ci: usize) -> Result<Deployment> {
        let data = self.data;
        let cell = self.cell(ci)?;
        validate_cell(data, ci)?;
        let point0 = &cell.points[0];
        let status = Status::measured(point_status(cell, point0, ci, 0)?, point_pr(cell, point0));
        let base = self.point_blocks(ci, 0, cell.submitted)?;
        let detail = detail_label(cell, &base);
        let mut measured: Vec<KvTier> = cell.points.iter().map(|p| p.kv).collect();
        measured.sort();
        measured.dedup();
        let available: Vec<KvTier> = KvTier::ALL
            .into_iter()
            .filter(|t| cell.kv.available.contains(t))
            .collect();
        let mut command_sets = Vec::new();
        for (pi, point) in cell.points.iter().enumerate() {
            let run_status = point_status(cell, point, ci, pi)?;
            let provenance = provenance(data, cell, point);
            for (&router, router_data) in &cell.routers {
                let blocks = self.point_blocks(ci, pi, router)?;
                for &tier in &available {
                    let blocks = kv_transform(data, cell, &blocks, point.kv, tier, router)
                        .map_err(|e| {
                            anyhow!("cells[{ci}].points[{pi}] ({router}, {tier}): {e:#}")
                        })?;
                    let status = if router == cell.submitted && tier == point.kv {
                        Status::measured(run_status, point_pr(cell, point))
                    } else {
                        Status::Derived
                    };
                    let (processes, loose_files) =
                        processes_for(data, &blocks, router, &router_data.files)
                            .map_err(|e| anyhow!("cells[{ci}].routers.{router}: {e:#}"))?;
                    let placeholders = placeholders_in(&processes, &loose_files);
                    let notes = notes_for(
                        data,
                        cell,
                        point,
                        router,
                        tier,
                        &status,
                        run_status,
                        &blocks,
                        &placeholders,
                    );
                    command_sets.push(CommandSet {
                        cell_id: cell.id.clone(),
                        point: pi,
                        concs: point.concs.clone(),
                        router,
                        tier,
                        measured: point.kv,
                        status,
                        anchor: command_set_anchor(&cell.id, &point.concs, tier, router),
                        processes,
                        loose_files,
                        placeholders,
                        notes,
                        provenance: provenance.clone(),
                        image: image_info(cell),
                    });
                }
            }
        }
        Ok(Deployment {
            cell_id: cell.id.clone(),
            config_key: cell.config_key.clone(),
            hw: cell.hw.clone(),
            hw_label: hardware_label(data, &cell.hw),
            ckpt: cell.ckpt.clone(),
            ckpt_label: checkpoint_label(data, &cell.ckpt),
            label: cell.label.clone(),
            detail,
            gpus: cell.gpus,
            concs: cell.points.iter().map(|p| p.concs.clone()).collect(),
            submitted: cell.submitted,
            measured,
            available,
            unavailable: KvTier::ALL
                .into_iter()
                .filter(|t| !cell.kv.available.contains(t))
                .map(|t| {
                    let reason = cell
                        .kv
                        .unavailable
                        .get(&t)
                        .cloned()
                        .unwrap_or_else(|| "not offered for this configuration".into());
                    UnavailableTier { tier: t, reason }
                })
                .collect(),
            hicache: cell.kv.hicache.as_ref().map(|h| KvDonor {
                donor: h.donor.clone(),
                donor_hardware: hardware_label(data, &h.donor_hardware),
                args: h.args.clone(),
            }),
            routers: cell.routers.keys().copied().collect(),
            status,
            provenance: provenance(data, cell, point0),
            image: image_info(cell),
            anchor: slug(&cell.id),
            command_sets,
        })
    }
}

fn router_list(cell: &Cell) -> String {
    let v: Vec<&str> = cell.routers.keys().map(|r| r.id()).collect();
    if v.is_empty() {
        "none".into()
    } else {
        v.join(", ")
    }
}

/// Checks a cell's own consistency before decoding it.
fn validate_cell(data: &AgentxData, ci: usize) -> Result<()> {
    let cell = &data.cells[ci];
    let at = |rest: &str| format!("cells[{ci}]{rest}");
    if cell.points.is_empty() {
        bail!("{}: no points; expected at least one", at(".points"));
    }
    if !cell.routers.contains_key(&cell.submitted) {
        bail!(
            "{}: submitted router `{}` is not among the cell's routers ({})",
            at(".submitted"),
            cell.submitted,
            router_list(cell)
        );
    }
    if cell.kv.available.is_empty() {
        bail!(
            "{}: no available tier; expected at least the measured one",
            at(".kv.available")
        );
    }
    for (pi, p) in cell.points.iter().enumerate() {
        if !cell.kv.available.contains(&p.kv) {
            bail!(
                "{}: measured tier `{}` is not in kv.available ({})",
                at(&format!(".points[{pi}].kv")),
                p.kv,
                tier_list(&cell.kv.available)
            );
        }
        if p.concs.is_empty() {
            bail!(
                "{}: empty; expected one or more concurrencies",
                at(&format!(".points[{pi}].concs"))
            );
        }
    }
    if cell.kv.available.contains(&KvTier::Hicache) && cell.kv.hicache.is_none() {
        let measured_hicache = cell.points.iter().all(|p| p.kv == KvTier::Hicache);
        if !measured_hicache {
            bail!(
                "{}: `hicache` is available but the cell gives no kv.hicache settings to derive it from",
                at(".kv")
            );
        }
    }
    if cell.kv.available.contains(&KvTier::Mooncake) {
        let measured_mooncake = cell.points.iter().all(|p| p.kv == KvTier::Mooncake);
        if !measured_mooncake {
            let Some(km) = &data.kv_mooncake else {
                bail!(
                    "{}: `mooncake` is available but the file has no top-level kvMooncake to derive it from",
                    at(".kv.available")
                );
            };
            for r in cell.routers.keys() {
                if !km.master.contains_key(r) {
                    bail!(
                        "kvMooncake.master: no `{r}` block, needed by {} for the derived Mooncake tier",
                        at("")
                    );
                }
            }
        }
    }
    Ok(())
}

fn tier_list(t: &[KvTier]) -> String {
    t.iter().map(|t| t.id()).collect::<Vec<_>>().join(", ")
}

fn point_status(cell: &Cell, point: &Point, ci: usize, pi: usize) -> Result<RunStatus> {
    point
        .status
        .or(cell.prov.as_ref().map(|p| p.status))
        .ok_or_else(|| {
            anyhow!(
                "cells[{ci}].points[{pi}]: no status: expected cells[{ci}].prov.status (newer \
                 schema) or a per-point `status` (older schema)"
            )
        })
}

fn point_pr<'c>(cell: &'c Cell, point: &'c Point) -> Option<&'c str> {
    point
        .pr
        .as_deref()
        .or_else(|| cell.prov.as_ref().and_then(|p| p.pr.as_deref()))
}

/// Copies a base block, deletes `drop` keys, sets overrides, then applies the diff.
fn apply_edit(base: &Block, edit: &BlockEdit) -> Result<Block> {
    let mut b = if edit.drop.is_empty() && edit.overrides.is_empty() {
        base.clone()
    } else {
        let Value::Object(mut map) = serde_json::to_value(base)? else {
            unreachable!("a block serializes to an object");
        };
        for k in &edit.drop {
            map.remove(k);
        }
        for (k, v) in &edit.overrides {
            map.insert(k.clone(), v.clone());
        }
        serde_path_to_error::deserialize::<_, Block>(Value::Object(map))
            .map_err(|e| anyhow!("after drop/overrides: {}: {}", e.path(), e.inner()))?
    };
    if let Some(d) = &edit.diff {
        apply_diff(&mut b, d);
    }
    Ok(b)
}

/// Applies one diff: `block` replaces, `args`/`env` set or (with null) delete.
pub(crate) fn apply_diff(block: &mut Block, diff: &Diff) {
    if let Some(b) = &diff.block {
        *block = (**b).clone();
    }
    for (flag, values) in &diff.args {
        match values {
            None => block.args.retain(|a| &a.flag != flag),
            Some(vals) => match block.args.iter_mut().find(|a| &a.flag == flag) {
                Some(a) => a.values = vals.clone(),
                None => block.args.push(Arg {
                    flag: flag.clone(),
                    values: vals.clone(),
                }),
            },
        }
    }
    if block.kind == BlockKind::Worker {
        sort_worker_args(&mut block.args);
    }
    for (k, v) in &diff.env {
        match v {
            None => {
                block.env.remove(k);
            }
            Some(v) => {
                block.env.insert(k.clone(), v.clone());
            }
        }
    }
}

/// Lead flags in their fixed order, then the rest alphabetically (stable).
pub(crate) fn sort_worker_args(args: &mut [Arg]) {
    args.sort_by(|a, b| worker_arg_key(&a.flag).cmp(&worker_arg_key(&b.flag)));
}

fn worker_arg_key(flag: &str) -> (usize, &str) {
    match LEAD_FLAGS.iter().position(|f| *f == flag) {
        Some(i) => (i, ""),
        None => (LEAD_FLAGS.len(), flag),
    }
}

/// Swaps the KV tier of one point's blocks from `measured` to `target`.
pub(crate) fn kv_transform(
    data: &AgentxData,
    cell: &Cell,
    blocks: &[Block],
    measured: KvTier,
    target: KvTier,
    router: Router,
) -> Result<Vec<Block>> {
    if measured == target {
        return Ok(blocks.to_vec());
    }
    let mut out: Vec<Block> = blocks
        .iter()
        .filter(|b| {
            measured != KvTier::Mooncake
                || !matches!(b.kind, BlockKind::MooncakeMaster | BlockKind::MooncakeStore)
        })
        .cloned()
        .collect();
    for b in out.iter_mut().filter(|b| b.kind == BlockKind::Worker) {
        b.args.retain(|a| !is_kv_flag(&a.flag));
        if measured == KvTier::Mooncake {
            for k in MOONCAKE_STORE_ENV {
                b.env.remove(k);
            }
        }
    }
    match target {
        KvTier::None => {}
        KvTier::Hicache => {
            let hc = cell
                .kv
                .hicache
                .as_ref()
                .ok_or_else(|| anyhow!("no kv.hicache settings to derive HiCache from"))?;
            for b in out.iter_mut().filter(|b| owns_cache(b)) {
                b.args.extend(hc.args.iter().cloned());
                sort_worker_args(&mut b.args);
            }
        }
        KvTier::Mooncake => {
            let km = data
                .kv_mooncake
                .as_ref()
                .ok_or_else(|| anyhow!("no top-level kvMooncake to derive Mooncake from"))?;
            for b in out.iter_mut().filter(|b| b.kind == BlockKind::Worker) {
                if owns_cache(b) {
                    b.args.extend(km.args.iter().cloned());
                    sort_worker_args(&mut b.args);
                    extend_env(&mut b.env, &km.env);
                } else {
                    extend_env(&mut b.env, &km.decode_env);
                }
            }
            let master = km
                .master
                .get(&router)
                .ok_or_else(|| anyhow!("kvMooncake.master has no `{router}` block"))?;
            let at = out
                .iter()
                .position(|b| b.kind == BlockKind::Worker)
                .unwrap_or(out.len());
            out.insert(at, master.clone());
        }
    }
    Ok(out)
}

fn owns_cache(b: &Block) -> bool {
    b.kind == BlockKind::Worker && b.role.unwrap_or(Role::Agg).owns_cache()
}

fn extend_env(env: &mut Env, add: &Env) {
    for (k, v) in add {
        env.insert(k.clone(), v.clone());
    }
}

/// Chip detail: the data's, else `DFlash N` read from the worker flags.
pub(crate) fn detail_label(cell: &Cell, blocks: &[Block]) -> Option<String> {
    if let Some(d) = cell.detail.as_deref().filter(|d| !d.trim().is_empty()) {
        return Some(d.to_string());
    }
    let worker = blocks.iter().find(|b| b.kind == BlockKind::Worker)?;
    let value = |flag: &str| {
        worker
            .args
            .iter()
            .find(|a| a.flag == flag)
            .and_then(|a| a.values.first())
            .map(String::as_str)
    };
    if value("--speculative-algorithm")?.eq_ignore_ascii_case("DFLASH") {
        let n = value("--speculative-num-draft-tokens")?;
        return Some(format!("DFlash {n}"));
    }
    None
}

/// The data's label for a hardware id (`gb300` → `GB300`).
pub(crate) fn hardware_label(data: &AgentxData, hw: &str) -> String {
    data.hardware
        .iter()
        .find(|h| h.id == hw)
        .map(|h| h.label.clone())
        .unwrap_or_else(|| hw.to_uppercase())
}

fn checkpoint_label(data: &AgentxData, ckpt: &str) -> String {
    match data
        .checkpoints
        .iter()
        .find(|c| c.id == ckpt)
        .and_then(|c| c.precision.as_deref())
    {
        Some(p) => format!("{ckpt} ({})", p.to_uppercase()),
        None => ckpt.to_string(),
    }
}

fn image_info(cell: &Cell) -> ImageInfo {
    ImageInfo {
        image: cell.image.clone(),
        status: cell.image_status,
        commit: cell.image_commit.clone(),
    }
}

/// Links for one point, from whichever schema the file uses.
pub(crate) fn provenance(data: &AgentxData, cell: &Cell, point: &Point) -> Provenance {
    let repo = data
        .source
        .as_ref()
        .map(|s| s.repo.trim_end_matches('/').to_string());
    let mut p = Provenance {
        config_key: cell.config_key.clone(),
        override_name: point.override_name.clone(),
        ..Provenance::default()
    };
    if let Some(prov) = &cell.prov {
        p.pr = prov.pr.clone();
        p.sha = prov.sha.clone();
        p.date = prov.date.clone();
        if let Some(repo) = &repo {
            let pr_run = prov.pr.as_ref().and_then(|pr| {
                data.source
                    .as_ref()
                    .and_then(|s| s.prs.get(pr))
                    .and_then(|i| i.run.clone())
            });
            p.run_url = prov
                .run
                .as_ref()
                .map(|r| format!("{repo}/actions/runs/{r}"))
                .or(pr_run);
            p.pr_url = prov.pr.as_ref().map(|pr| format!("{repo}/pull/{pr}"));
            p.comment_url = match (&prov.pr, &prov.comment) {
                (Some(pr), Some(c)) => Some(format!("{repo}/pull/{pr}#issuecomment-{c}")),
                _ => None,
            };
            p.job_url = point
                .job
                .as_ref()
                .map(|j| format!("{repo}/actions/runs/{j}"));
            let recipe = point.recipe.as_ref().or(prov.recipe.as_ref());
            p.recipe_url = match (recipe, &prov.sha) {
                (Some(r), Some(sha)) => Some(format!("{repo}/blob/{sha}/{r}")),
                _ => None,
            };
        }
    } else {
        p.pr = point.pr.clone();
        p.sha = point.sha.clone();
        p.date = point.date.clone();
        p.run_url = point.run_url.clone();
        p.pr_url = point.pr_url.clone();
        p.comment_url = point.use_comment.clone();
        p.job_url = point.job_url.clone();
        p.recipe_url = point.recipe_url.clone();
    }
    p
}

/// Builds titled, placed processes; config files go to the first command naming them.
fn processes_for(
    data: &AgentxData,
    blocks: &[Block],
    router: Router,
    file_keys: &[String],
) -> Result<(Vec<Process>, Vec<ConfigFile>)> {
    let mut processes: Vec<Process> = blocks
        .iter()
        .map(|b| {
            Ok(Process {
                kind: b.kind,
                role: b.role,
                title: short_title(b)?,
                long_title: long_title(b)?,
                placement: placement(b, blocks, router),
                command: shell::format_block(b),
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
            content: f.content.clone(),
        };
        match processes.iter_mut().find(|p| p.command.contains(&f.name)) {
            Some(p) => p.files.push(file),
            None => loose.push(file),
        }
    }
    Ok((processes, loose))
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

fn placement(b: &Block, blocks: &[Block], router: Router) -> String {
    match b.kind {
        BlockKind::Worker => {
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
                    .map(|(i, g)| format!("worker {i}: {}", g.join(",")))
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
                Router::Dynamo => s.push_str(
                    " Workers register with Dynamo through etcd; start them after etcd/NATS.",
                ),
                Router::Sglang => {}
            }
            s
        }
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
                .map(|p| p.join(", "))
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

/// Every `$NAME` the commands and files use, in a fixed reading order, with descriptions.
fn placeholders_in(processes: &[Process], loose: &[ConfigFile]) -> Vec<Placeholder> {
    let mut names = BTreeSet::new();
    let texts = processes
        .iter()
        .flat_map(|p| {
            std::iter::once(p.command.as_str()).chain(p.files.iter().map(|f| f.content.as_str()))
        })
        .chain(loose.iter().map(|f| f.content.as_str()));
    for t in texts {
        collect_placeholders(t, &mut names);
    }
    let mut v: Vec<(PlaceholderKey, String)> = names
        .into_iter()
        .map(|n| (placeholder_key(&n), n))
        .collect();
    v.sort();
    v.into_iter()
        .map(|(_, name)| Placeholder {
            description: placeholder_description(&name),
            name,
        })
        .collect()
}

/// Names matching `\$[A-Z][A-Z0-9_]*`.
pub(crate) fn collect_placeholders(text: &str, out: &mut BTreeSet<String>) {
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'$' && i + 1 < b.len() && b[i + 1].is_ascii_uppercase() {
            let start = i + 1;
            let mut j = start;
            while j < b.len()
                && (b[j].is_ascii_uppercase() || b[j].is_ascii_digit() || b[j] == b'_')
            {
                j += 1;
            }
            out.insert(text[start..j].to_string());
            i = j;
        } else {
            i += 1;
        }
    }
}

type PlaceholderKey = (u8, u8, u32);

fn placeholder_key(name: &str) -> PlaceholderKey {
    const FIXED: [&str; 8] = [
        "NODE_RANK",
        "NODE_IP",
        "ETCD_IP",
        "NATS_IP",
        "MOONCAKE_MASTER_IP",
        "AGG_HEAD_IP",
        "PREFILL_HEAD_IP",
        "DECODE_HEAD_IP",
    ];
    if let Some(i) = FIXED.iter().position(|f| *f == name) {
        return (0, i as u8, 0);
    }
    for (gi, prefix) in ["AGG_", "PREFILL_", "DECODE_"].iter().enumerate() {
        if let Some(n) = numbered(name, prefix, "_HEAD_IP") {
            return (1, gi as u8, n);
        }
    }
    if let Some(n) = numbered(name, "FRONTEND_", "_IP") {
        return (2, 0, n);
    }
    match name {
        "IB_DEVICES" => (3, 0, 0),
        "EFA_DEVICES" => (3, 1, 0),
        _ => (4, 0, 0),
    }
}

fn numbered(name: &str, prefix: &str, suffix: &str) -> Option<u32> {
    name.strip_prefix(prefix)?
        .strip_suffix(suffix)?
        .parse()
        .ok()
}

fn placeholder_description(name: &str) -> String {
    let fixed = match name {
        "NODE_RANK" => Some("this node's rank within its worker, 0 on the worker's first node"),
        "NODE_IP" => Some("this node's IP address"),
        "ETCD_IP" => Some("IP of the node running etcd"),
        "NATS_IP" => Some("IP of the node running the NATS server"),
        "MOONCAKE_MASTER_IP" => Some("IP of the node running mooncake_master"),
        "AGG_HEAD_IP" => Some("first node of this aggregated worker"),
        "PREFILL_HEAD_IP" => Some("first node of this prefill worker"),
        "DECODE_HEAD_IP" => Some("first node of this decode worker"),
        "IB_DEVICES" => Some("RDMA NICs to use, comma-separated, e.g. mlx5_0,mlx5_1"),
        "EFA_DEVICES" => Some("EFA devices to use, comma-separated"),
        _ => None,
    };
    if let Some(d) = fixed {
        return d.to_string();
    }
    for (prefix, word) in [
        ("AGG_", "aggregated"),
        ("PREFILL_", "prefill"),
        ("DECODE_", "decode"),
    ] {
        if let Some(n) = numbered(name, prefix, "_HEAD_IP") {
            return format!("first node of {word} worker {n}");
        }
    }
    if let Some(n) = numbered(name, "FRONTEND_", "_IP") {
        return format!("IP of Dynamo frontend {n}, used in nginx.conf");
    }
    "value for your cluster".to_string()
}

#[allow(clippy::too_many_arguments)]
fn notes_for(
    data: &AgentxData,
    cell: &Cell,
    point: &Point,
    router: Router,
    tier: KvTier,
    status: &Status,
    run_status: RunStatus,
    blocks: &[Block],
    placeholders: &[Placeholder],
) -> Vec<Note> {
    let mut notes = Vec::new();
    if *status == Status::Derived {
        notes.push(Note::DerivedFrom {
            router: cell.submitted,
            tier: point.kv,
            verified: run_status != RunStatus::InProgress,
        });
        if router != cell.submitted {
            notes.push(Note::RouterSwap { to: router });
        }
        if tier != point.kv {
            notes.push(match tier {
                KvTier::None => Note::KvRemoved,
                KvTier::Hicache => {
                    let hc = cell.kv.hicache.as_ref();
                    let mut roles: Vec<&str> = blocks
                        .iter()
                        .filter(|b| owns_cache(b))
                        .filter_map(|b| b.role.map(Role::id))
                        .collect();
                    roles.dedup();
                    Note::KvHicache {
                        donor: hc.map(|h| h.donor.clone()).unwrap_or_default(),
                        donor_hardware: hc
                            .map(|h| hardware_label(data, &h.donor_hardware))
                            .unwrap_or_default(),
                        roles: if roles.is_empty() {
                            "agg".into()
                        } else {
                            roles.join(", ")
                        },
                    }
                }
                KvTier::Mooncake => {
                    let km = data.kv_mooncake.as_ref();
                    Note::KvMooncake {
                        donor: km.map(|k| k.donor.clone()).unwrap_or_default(),
                        donor_hardware: km
                            .map(|k| hardware_label(data, &k.donor_hardware))
                            .unwrap_or_default(),
                    }
                }
            });
        }
    }
    for d in &cell.disclosures {
        notes.push(match d.as_str() {
            "synthetic-acceptance" => Note::SyntheticAcceptance {
                golden_al: point.golden_al.clone(),
            },
            "chat-template" => Note::ChatTemplate,
            other => Note::UnknownDisclosure(other.to_string()),
        });
    }
    let any_arg = |flag: &str| blocks.iter().any(|b| b.args.iter().any(|a| a.flag == flag));
    let any_env = |k: &str, v: Option<&str>| {
        blocks
            .iter()
            .any(|b| b.env.get(k).is_some_and(|x| v.is_none_or(|v| x == v)))
    };
    if any_arg("--enable-dp-attention") {
        notes.push(Note::RenameDpAttention);
    }
    if any_arg("--hicache-size") {
        notes.push(Note::HicacheSize);
    }
    if any_env("MOONCAKE_PROTOCOL", Some("efa")) {
        notes.push(Note::Efa);
    }
    if any_env("MOONCAKE_GLOBAL_SEGMENT_SIZE", None) {
        notes.push(Note::MooncakeSegment);
    }
    if placeholders.iter().any(|p| p.name == "IB_DEVICES") {
        notes.push(Note::IbDevices);
    }
    let install = cell
        .routers
        .get(&router)
        .map(|r| r.install.as_slice())
        .unwrap_or_default();
    if install.is_empty() && router == Router::Dynamo {
        notes.push(Note::InstallBundled);
    }
    for line in install {
        notes.push(Note::Install {
            router,
            line: line.clone(),
        });
    }
    for s in &cell.setup {
        if let Some(what) = s.command.as_ref().or(s.script.as_ref()) {
            notes.push(Note::Setup {
                what: what.clone(),
                reason: s.reason.clone(),
            });
        }
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchors() {
        assert_eq!(
            command_set_anchor("m#0", &[1, 4], KvTier::Hicache, Router::Dynamo),
            "m-0-c1-4-hicache-dynamo"
        );
    }

    #[test]
    fn placeholder_scan() {
        let mut s = BTreeSet::new();
        collect_placeholders(
            "a $ETCD_IP:2379 $x ${NODE_IP} $DECODE_10_HEAD_IP,$IB_DEVICES $",
            &mut s,
        );
        let v: Vec<_> = s.into_iter().collect();
        assert_eq!(v, vec!["DECODE_10_HEAD_IP", "ETCD_IP", "IB_DEVICES"]);
    }

    #[test]
    fn placeholder_order() {
        let mut names = vec![
            "IB_DEVICES",
            "DECODE_10_HEAD_IP",
            "DECODE_2_HEAD_IP",
            "ETCD_IP",
            "PREFILL_0_HEAD_IP",
            "NODE_RANK",
            "FRONTEND_0_IP",
        ];
        names.sort_by_key(|n| (placeholder_key(n), n.to_string()));
        assert_eq!(
            names,
            vec![
                "NODE_RANK",
                "ETCD_IP",
                "PREFILL_0_HEAD_IP",
                "DECODE_2_HEAD_IP",
                "DECODE_10_HEAD_IP",
                "FRONTEND_0_IP",
                "IB_DEVICES"
            ]
        );
    }

    #[test]
    fn kv_flags() {
        for f in [
            "--enable-hierarchical-cache",
            "--hicache-ratio",
            "--hicache-storage-backend-extra-config",
            "--enable-unified-cache-external-linker",
            "--unified-cache-external-linker-backend",
        ] {
            assert!(is_kv_flag(f), "{f}");
        }
        for f in [
            "--hicache",
            "--enable-cache-report",
            "--disable-radix-cache",
        ] {
            assert!(!is_kv_flag(f), "{f}");
        }
    }
}

#[cfg(test)]
#[path = "decode_tests.rs"]
mod edit_tests;
