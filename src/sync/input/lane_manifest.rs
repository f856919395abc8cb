//! The lane manifest (`agentx-lanes.toml`): which InferenceX lanes become
//! which page's cells, pinned to commits, with the facts that live online
//! (runs, PRs, review state, dashboard dates, image state, cluster env).
//! Parsing and the checks that need nothing but the file; every error names
//! `file:line`; one `[[lane]]` entry is [`lane_entry`]'s. Uses `data`
//! (review states) and `sync::rules`.

mod lane_entry;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

use crate::data::{Env, ImageStatus};
use crate::sync::rules::{Rules, RulesFile};
use lane_entry::RawLane;
pub(in crate::sync) use lane_entry::{Curves, Lane, status_id};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawManifest {
    source: RawSource,
    #[serde(default)]
    defaults: RawDefaults,
    #[serde(default)]
    cluster: BTreeMap<String, Cluster>,
    #[serde(default)]
    image: BTreeMap<String, RawImage>,
    #[serde(default)]
    lane: Vec<Spanned<RawLane>>,
    #[serde(default)]
    skip: Vec<Spanned<RawSkip>>,
    #[serde(default)]
    rules: Option<RulesFile>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawSource {
    repo: String,
    main: Spanned<String>,
    generated_on: Spanned<toml::Value>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawDefaults {
    thinking: Option<String>,
    kv_mooncake: Option<Spanned<String>>,
}

/// Env a cluster exports into every worker, and where that was seen.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(in crate::sync) struct Cluster {
    #[serde(default)]
    pub env: Env,
    /// For the reviewer of the manifest: where the env was seen. Read so
    /// that the key is known, never used.
    #[serde(default)]
    #[allow(dead_code)]
    pub evidence: Option<String>,
    /// For bash lanes whose `configs/runners.yaml` lacks the fleet: its
    /// `available-cpu-dram-mib` and `gpus-per-node`.
    #[serde(default)]
    pub available_cpu_dram_mib: Option<u64>,
    #[serde(default)]
    pub gpus_per_node: Option<u32>,
    /// Steps the cluster runs in every worker container before launch.
    #[serde(default)]
    pub setup: Vec<ClusterSetup>,
}

/// A setup step of a cluster's lanes, shown to the reader before launch.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(in crate::sync) struct ClusterSetup {
    pub command: String,
    pub reason: String,
    /// Only for lanes submitted behind this front door (`dynamo` or `sglang`).
    #[serde(default)]
    pub front_door: Option<crate::data::Router>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawImage {
    #[serde(default)]
    status: ImageStatus,
    #[serde(default)]
    registry: Option<String>,
    #[serde(default)]
    external_linker: Option<bool>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawSkip {
    config_key: String,
    reason: String,
}

/// Where the page-level Mooncake donor block comes from (docs/sync.md, "KV tiers").
#[derive(Debug, Clone, PartialEq, Eq)]
pub(in crate::sync) enum MooncakeFrom {
    /// The lane of this run that measured Mooncake, else the `--previous`
    /// page that carries the block (`"auto"`, the default; `"previous"` too).
    Auto,
    /// This lane: synced in the run, or the donor of a `--previous` block.
    Lane(String),
    /// No Mooncake tier on generated cells.
    None,
}

#[derive(Debug, Clone)]
pub(in crate::sync) struct SourceInfo {
    /// `https://github.com/<owner>/<name>`
    pub repo_url: String,
    pub main: String,
    pub generated_on: String,
}

#[derive(Debug, Clone)]
pub(in crate::sync) struct Image {
    pub status: ImageStatus,
    pub registry: Option<PathBuf>,
    /// Whether the image's SGLang has `--enable-unified-cache-external-linker`,
    /// as the manifest states it (a fact about the image, checked online).
    pub external_linker: Option<bool>,
}

#[derive(Debug, Clone)]
pub(in crate::sync) struct Skip {
    pub config_key: String,
    pub reason: String,
}

#[derive(Debug, Clone)]
pub(in crate::sync) struct LaneManifest {
    pub path: PathBuf,
    pub source: SourceInfo,
    pub kv_mooncake: MooncakeFrom,
    /// Runner fleet (`cluster:<name>`) → env exported into every worker.
    pub clusters: BTreeMap<String, Cluster>,
    pub images: BTreeMap<String, Image>,
    pub lanes: Vec<Lane>,
    pub skips: Vec<Skip>,
    pub rules: Rules,
}

impl LaneManifest {
    /// Pages in first-mention order.
    pub(in crate::sync) fn pages(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for l in &self.lanes {
            if !out.contains(&l.page) {
                out.push(l.page.clone());
            }
        }
        out
    }
}

/// Reads and checks a manifest file.
pub(in crate::sync) fn load(path: &Path) -> Result<LaneManifest, Vec<String>> {
    let text = super::capped::read_to_string(path)
        .map_err(|e| vec![format!("cannot read {}: {e}", path.display())])?;
    parse(&text, path)
}

/// Parses manifest text; `path` names it in messages and anchors relative paths.
pub(in crate::sync) fn parse(text: &str, path: &Path) -> Result<LaneManifest, Vec<String>> {
    let name = path.display().to_string();
    let raw: RawManifest = toml::from_str(text).map_err(|e| {
        let line = e
            .span()
            .map(|s| format!(":{}", line_at(text, s.start)))
            .unwrap_or_default();
        vec![format!("{name}{line}: {}", e.message().trim())]
    })?;
    let mut errors = Vec::new();
    let at = |offset: usize| format!("{name}:{}", line_at(text, offset));
    let base_dir = path.parent().unwrap_or(Path::new("")).to_path_buf();
    let source = source_info(&raw.source, &at, &mut errors);
    let thinking = raw
        .defaults
        .thinking
        .clone()
        .unwrap_or_else(|| "thinking_on".into());
    let kv_mooncake = match raw.defaults.kv_mooncake.as_ref() {
        None => MooncakeFrom::Auto,
        Some(s) => match s.get_ref().as_str() {
            "auto" | "previous" => MooncakeFrom::Auto,
            "none" => MooncakeFrom::None,
            key if !key.is_empty() && !key.contains(char::is_whitespace) => {
                MooncakeFrom::Lane(key.to_string())
            }
            other => {
                errors.push(format!(
                    "{}: defaults.kv-mooncake = \"{other}\": write \"auto\", \"none\" or the \
                     donor lane's config key",
                    at(s.span().start)
                ));
                MooncakeFrom::None
            }
        },
    };
    let lanes: Vec<Lane> = raw
        .lane
        .iter()
        .filter_map(|l| lane_entry::parse(l, &thinking, &base_dir, &at, &mut errors))
        .collect();
    let skips = skips(&raw.skip, &lanes, &at, &mut errors);
    check_duplicates(&lanes, &mut errors);
    let mut rules = Rules::builtin().map_err(|e| vec![e])?;
    if let Some(extra) = raw.rules
        && let Err(e) = rules.add(extra, &format!("{name} [rules]"))
    {
        errors.push(e);
    }
    let Some(source) = source.filter(|_| errors.is_empty()) else {
        return Err(errors);
    };
    Ok(LaneManifest {
        path: path.to_path_buf(),
        source,
        kv_mooncake,
        clusters: raw.cluster,
        images: raw
            .image
            .into_iter()
            .map(|(k, i)| {
                let registry = i.registry.map(|r| base_dir.join(r));
                (
                    k,
                    Image {
                        status: i.status,
                        registry,
                        external_linker: i.external_linker,
                    },
                )
            })
            .collect(),
        lanes,
        skips,
        rules,
    })
}

pub(in crate::sync) fn line_at(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

fn source_info(
    raw: &RawSource,
    at: &dyn Fn(usize) -> String,
    errors: &mut Vec<String>,
) -> Option<SourceInfo> {
    let repo = raw.repo.trim_end_matches('/');
    let repo_url = if let Some(rest) = repo.strip_prefix("https://github.com/") {
        format!("https://github.com/{rest}")
    } else if repo.split('/').count() == 2 && !repo.contains(':') {
        format!("https://github.com/{repo}")
    } else {
        errors.push(format!(
            "{}: source.repo = \"{}\": write `owner/name` of the GitHub repository",
            at(raw.main.span().start),
            raw.repo
        ));
        return None;
    };
    let main = raw.main.get_ref();
    if !is_full_sha(main) {
        errors.push(format!(
            "{}: source.main = \"{main}\": write the full 40-digit commit id",
            at(raw.main.span().start)
        ));
    }
    let generated_on = date_text(raw.generated_on.get_ref()).unwrap_or_else(|| {
        errors.push(format!(
            "{}: source.generated-on: write a date, e.g. 2026-10-08",
            at(raw.generated_on.span().start)
        ));
        String::new()
    });
    Some(SourceInfo {
        repo_url,
        main: main.clone(),
        generated_on,
    })
}

/// A TOML date (`2026-10-08`) or the same as a string.
fn date_text(v: &toml::Value) -> Option<String> {
    let s = match v {
        toml::Value::Datetime(d) if d.time.is_none() && d.offset.is_none() => d.to_string(),
        toml::Value::String(s) => s.clone(),
        _ => return None,
    };
    let b = s.as_bytes();
    let ok = b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter()
            .enumerate()
            .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit());
    ok.then_some(s)
}

fn is_full_sha(s: &str) -> bool {
    s.len() == 40 && s.chars().all(|c| c.is_ascii_hexdigit())
}

fn skips(
    raw: &[Spanned<RawSkip>],
    lanes: &[Lane],
    at: &dyn Fn(usize) -> String,
    errors: &mut Vec<String>,
) -> Vec<Skip> {
    let mut out = Vec::new();
    for s in raw {
        let here = at(s.span().start);
        let r = s.get_ref();
        if lanes.iter().any(|l| l.config_key == r.config_key) {
            errors.push(format!(
                "{here}: `{}` is both a lane and skipped",
                r.config_key
            ));
        }
        if r.reason.trim().is_empty() {
            errors.push(format!("{here}: skip `{}` needs a reason", r.config_key));
        }
        out.push(Skip {
            config_key: r.config_key.clone(),
            reason: r.reason.clone(),
        });
    }
    out
}

fn check_duplicates(lanes: &[Lane], errors: &mut Vec<String>) {
    let mut seen: BTreeSet<&str> = BTreeSet::new();
    for l in lanes {
        if !seen.insert(&l.config_key) {
            errors.push(format!("{}: lane `{}` is listed twice", l.at, l.config_key));
        }
    }
}
