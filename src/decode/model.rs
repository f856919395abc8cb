//! The decoded model: everything `render`, `stats`, `check` and `manifest`
//! read about a page, its deployments and their command sets. Nothing
//! downstream reads the raw data.

use std::collections::HashSet;
use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, Result};

use super::decode_page;
use super::notes::Note;
use super::placeholders::env_exports;
use super::status::Status;
use crate::data::{AgentxData, Arg, BlockKind, ImageStatus, KvTier, Role, Router};

/// One process to start.
#[derive(Debug, Clone, PartialEq)]
pub struct Process {
    /// What the process is.
    pub kind: BlockKind,
    /// Its role, for workers.
    pub role: Option<Role>,
    /// Tab title, e.g. `Decode ×2`.
    pub title: Arc<str>,
    /// Comment title, e.g. `Decode worker`.
    pub long_title: Arc<str>,
    /// Where and when to start it, as one line of Markdown (data in it is
    /// escaped).
    pub placement: Arc<str>,
    /// The formatted command text. This and the texts above are shared by
    /// every set of the page with the same text (a command repeats across
    /// tiers, routers and points).
    pub command: Arc<str>,
    /// Nodes its workers occupy, as its placement says: workers × nodes
    /// per worker, or workers pinned to GPUs of shared nodes; 0 for
    /// processes other than workers (they run beside them).
    pub nodes: u32,
    /// Config files this command names (`nats.conf`, `nginx.conf`).
    pub files: Vec<ConfigFile>,
}

/// A config file a command reads (`nats.conf`, `nginx.conf`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigFile {
    /// File name, as the command names it.
    pub name: String,
    /// Its text, with `\n` line breaks (a data file's CR and CRLF are
    /// written as `\n`, as a page shows them and Copy all copies them).
    pub content: String,
}

impl ConfigFile {
    /// `cat > name <<'EOF'` and the delimiter that ends it: `EOF`, else
    /// `EOF_`, `EOF__` …, the first that occurs nowhere in the file's text.
    /// A line equal to the delimiter ends a here-document, and what a line
    /// is depends on who reads it (a page shows CR, U+2028 and NEL as line
    /// breaks; a shell only reads `\n`); a delimiter absent from the text
    /// ends it at no reading. Quoted, so the shell expands nothing in it
    /// (nginx's own `$variables` stay).
    pub fn heredoc(&self) -> (String, String) {
        let mut delim = String::from("EOF");
        while self.content.contains(delim.as_str()) {
            delim.push('_');
        }
        (
            format!("cat > {} <<'{delim}'", crate::shell::quote(&self.name)),
            delim,
        )
    }

    /// The file in Copy all: a comment, then the here-document writing it.
    pub fn copy_text(&self) -> String {
        let (head, delim) = self.heredoc();
        format!(
            "# {} (written next to the commands)\n{head}\n{}\n{delim}",
            self.name,
            self.content.trim_end()
        )
    }
}

/// A value the reader fills in (`$NODE_IP`), listed under Env Vars.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placeholder {
    /// Without the `$`.
    pub name: String,
    /// What to fill in.
    pub description: String,
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

/// The container image of a deployment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageInfo {
    /// Image reference (`lmsysorg/sglang:…`).
    pub image: String,
    /// Whether the tag can still be pulled.
    pub status: ImageStatus,
    /// The SGLang commit a pruned tag was built from.
    pub commit: Option<String>,
}

/// One combination a reader can copy.
#[derive(Debug, Clone, PartialEq)]
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
    /// Where the point's run is recorded (shared by the sets of a point).
    pub provenance: Arc<Provenance>,
    /// The image the commands run in (shared by the sets of a cell).
    pub image: Arc<ImageInfo>,
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
            "titles": self.processes.iter().map(|p| &*p.title).collect::<Vec<_>>(),
            "blocks": self.processes.iter().map(|p| &*p.command).collect::<Vec<_>>(),
            "placeholders": self.placeholders.iter().map(|p| serde_json::json!({"name": p.name, "description": p.description})).collect::<Vec<_>>(),
            "notes": self.notes.iter().map(|n| serde_json::json!({"id": n.id(), "text": n.text()})).collect::<Vec<_>>(),
            "image": {"name": self.image.image, "status": self.image.status, "commit": self.image.commit},
        })
    }

    /// Nodes the set's workers occupy (the sum of its processes' `nodes`).
    pub fn worker_nodes(&self) -> u32 {
        self.processes
            .iter()
            .fold(0, |n, p| n.saturating_add(p.nodes))
    }

    /// `c1 / c4` as on the concurrency chip.
    pub fn concs_label(&self) -> String {
        concs_label(&self.concs)
    }

    /// The text a reader copies for the whole set: env exports first, then each
    /// process under `# title` and `# placement` comments, each config file
    /// written by a quoted here-document (so the whole text is valid bash
    /// and the file gets exactly the shown bytes).
    pub fn copy_all_text(&self) -> String {
        // One buffer of about the final size, parts separated by a blank
        // line: per-part `format!`s and a join copied each command twice more.
        let size: usize = self.processes.iter().map(|p| p.command.len() + 200).sum();
        let mut out = String::with_capacity(size + 256);
        let mut first = true;
        let mut next_part = |out: &mut String| {
            if !std::mem::take(&mut first) {
                out.push_str("\n\n");
            }
        };
        if !self.placeholders.is_empty() {
            next_part(&mut out);
            out.push_str("# Set per node before running the commands below\n");
            out.push_str(env_exports(&self.placeholders).trim_end());
        }
        for p in &self.processes {
            next_part(&mut out);
            for piece in ["# ", &p.long_title, "\n# ", &p.placement, "\n", &p.command] {
                out.push_str(piece);
            }
            for f in &p.files {
                out.push_str("\n\n");
                out.push_str(&f.copy_text());
            }
        }
        for f in &self.loose_files {
            next_part(&mut out);
            out.push_str(&f.copy_text());
        }
        out.push('\n');
        out
    }
}

pub(crate) fn concs_label(concs: &[u32]) -> String {
    let parts: Vec<String> = concs.iter().map(|c| format!("c{c}")).collect();
    parts.join(" / ")
}

/// One cell with everything a lane table shows, and all its command sets.
#[derive(Debug, Clone, PartialEq)]
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
    /// Nodes its workers run on (see the decoding rules).
    pub nodes: u32,
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
    let page = decode_page(&data).with_context(|| path.display().to_string())?;
    Ok(DecodedFile { page, ignored })
}
