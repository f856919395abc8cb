//! The lane manifest (`agentx-lanes.toml`): which InferenceX lanes become
//! which page's cells, pinned to commits, with the facts that live online
//! (runs, PRs, review state, dashboard dates, image state, cluster env).
//! Parsing and the checks that need nothing but the file; every error names
//! `file:line`. Uses `data` (review states) and `sync::rules`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

use super::rules::{Rules, RulesFile};
use crate::data::{Env, ImageStatus, RunStatus};

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
pub(super) struct Cluster {
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
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawImage {
    #[serde(default)]
    status: ImageStatus,
    #[serde(default)]
    registry: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawLane {
    page: String,
    config_key: String,
    commit: Spanned<String>,
    status: RunStatus,
    #[serde(default)]
    pr: Option<u64>,
    #[serde(default)]
    run: Option<u64>,
    #[serde(default)]
    attempt: Option<u32>,
    #[serde(default)]
    comment: Option<u64>,
    #[serde(default)]
    date: Option<toml::Value>,
    #[serde(default)]
    rows: Option<Vec<usize>>,
    #[serde(default)]
    hicache_donor: Option<String>,
    #[serde(default)]
    jobs: BTreeMap<String, u64>,
    #[serde(default)]
    carry_over: bool,
    #[serde(default)]
    master_commit: Option<Spanned<String>>,
    #[serde(default)]
    master_entry: Option<Spanned<String>>,
    #[serde(default)]
    recipe_commit: Option<Spanned<String>>,
    #[serde(default)]
    includes_commit: Option<Spanned<String>>,
    #[serde(default)]
    image_patches: BTreeMap<String, String>,
    #[serde(default)]
    curves: Option<RawCurves>,
    #[serde(default)]
    frontends: Option<u32>,
    #[serde(default)]
    thinking: Option<String>,
    #[serde(default)]
    note: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawCurves {
    #[serde(default)]
    commit: Option<String>,
    #[serde(default)]
    dir: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawSkip {
    config_key: String,
    reason: String,
}

/// Where the page-level Mooncake donor block comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum MooncakeFrom {
    /// Carried over from the `--previous` data file of the same page.
    Previous,
    /// No Mooncake tier on generated cells.
    None,
}

/// Where a lane's golden-AL curves are read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Curves {
    /// `golden_al_distribution/` at this commit of the source.
    Commit(String),
    /// A folder on disk (relative paths are relative to the manifest).
    Dir(PathBuf),
}

#[derive(Debug, Clone)]
pub(super) struct SourceInfo {
    /// `https://github.com/<owner>/<name>`
    pub repo_url: String,
    pub main: String,
    pub generated_on: String,
}

#[derive(Debug, Clone)]
pub(super) struct Image {
    pub status: ImageStatus,
    pub registry: Option<PathBuf>,
}

/// One validated lane.
#[derive(Debug, Clone)]
pub(super) struct Lane {
    /// `file:line` of the lane, for messages.
    pub at: String,
    pub page: String,
    pub config_key: String,
    /// 40 hex digits: what the data records as `prov.sha`.
    pub commit: String,
    pub status: RunStatus,
    pub pr: Option<String>,
    /// `<id>` or `<id>/attempts/<n>`.
    pub run: Option<String>,
    pub comment: Option<String>,
    pub date: Option<String>,
    pub rows: Option<Vec<usize>>,
    pub hicache_donor: Option<String>,
    /// conc → GitHub job id.
    pub jobs: BTreeMap<u32, u64>,
    pub carry_over: bool,
    /// Read the master config here instead of at `commit`.
    pub master_commit: Option<String>,
    /// A master-config entry written into the manifest (YAML), and `file:line` of it.
    pub master_entry: Option<(String, String)>,
    /// Read recipes (or a bash lane's script) here instead of at `commit`.
    pub recipe_commit: Option<String>,
    /// Bash lanes: read what the script pulls in (`benchmark_lib.sh`,
    /// `configs/runners.yaml`) here instead of at the script's commit.
    pub includes_commit: Option<String>,
    /// Bash lanes: image patches a reviewer vouched for, `<script path>:<line>`
    /// of the `sed -i` → why it does not change how the server serves.
    pub image_patches: BTreeMap<String, String>,
    pub curves: Option<Curves>,
    pub frontends: Option<u32>,
    pub thinking: String,
    pub note: Option<String>,
}

#[derive(Debug, Clone)]
pub(super) struct Skip {
    pub config_key: String,
    pub reason: String,
}

#[derive(Debug, Clone)]
pub(super) struct LaneManifest {
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
    pub(super) fn pages(&self) -> Vec<String> {
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
pub(super) fn load(path: &Path) -> Result<LaneManifest, Vec<String>> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| vec![format!("cannot read {}: {e}", path.display())])?;
    parse(&text, path)
}

/// Parses manifest text; `path` names it in messages and anchors relative paths.
pub(super) fn parse(text: &str, path: &Path) -> Result<LaneManifest, Vec<String>> {
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
        None => MooncakeFrom::Previous,
        Some(s) => match s.get_ref().as_str() {
            "previous" => MooncakeFrom::Previous,
            "none" => MooncakeFrom::None,
            other => {
                errors.push(format!(
                    "{}: defaults.kv-mooncake = \"{other}\": write \"previous\" or \"none\"",
                    at(s.span().start)
                ));
                MooncakeFrom::None
            }
        },
    };
    let lanes: Vec<Lane> = raw
        .lane
        .iter()
        .filter_map(|l| lane(l, &thinking, &base_dir, &at, &mut errors))
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
                    },
                )
            })
            .collect(),
        lanes,
        skips,
        rules,
    })
}

pub(super) fn line_at(text: &str, offset: usize) -> usize {
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

fn is_commit_prefix(s: &str) -> bool {
    (7..=40).contains(&s.len()) && s.chars().all(|c| c.is_ascii_hexdigit())
}

fn lane(
    spanned: &Spanned<RawLane>,
    default_thinking: &str,
    base_dir: &Path,
    at: &dyn Fn(usize) -> String,
    errors: &mut Vec<String>,
) -> Option<Lane> {
    let raw = spanned.get_ref();
    let here = at(spanned.span().start);
    let before = errors.len();
    let mut err = |msg: String| errors.push(format!("{here}: lane `{}`: {msg}", raw.config_key));
    if raw.page.trim().is_empty() {
        err("`page` is empty".into());
    }
    if !is_full_sha(raw.commit.get_ref()) {
        err(format!(
            "commit = \"{}\": write the full 40-digit commit id (it is recorded as prov.sha)",
            raw.commit.get_ref()
        ));
    }
    check_commit_keys(raw, &mut err);
    check_image_patches(raw, &mut err);
    if raw.master_commit.is_some() && raw.master_entry.is_some() {
        err("give `master-commit` or `master-entry`, not both".into());
    }
    check_status(raw, &mut err);
    let date = raw.date.as_ref().and_then(|d| {
        let t = date_text(d);
        if t.is_none() {
            err("`date`: write a date, e.g. 2026-10-08".into());
        }
        t
    });
    let jobs = jobs(&raw.jobs, &mut err);
    let curves = curves(raw.curves.as_ref(), base_dir, &mut err);
    if errors.len() > before {
        return None;
    }
    Some(Lane {
        at: here,
        page: raw.page.clone(),
        config_key: raw.config_key.clone(),
        commit: raw.commit.get_ref().to_ascii_lowercase(),
        status: raw.status,
        pr: raw.pr.map(|p| p.to_string()),
        run: raw.run.map(|r| match raw.attempt {
            Some(a) => format!("{r}/attempts/{a}"),
            None => r.to_string(),
        }),
        comment: raw.comment.map(|c| c.to_string()),
        date,
        rows: raw.rows.clone(),
        hicache_donor: raw.hicache_donor.clone(),
        jobs,
        carry_over: raw.carry_over,
        master_commit: raw.master_commit.as_ref().map(|c| c.get_ref().clone()),
        master_entry: raw
            .master_entry
            .as_ref()
            .map(|e| (e.get_ref().clone(), at(e.span().start))),
        recipe_commit: raw.recipe_commit.as_ref().map(|c| c.get_ref().clone()),
        includes_commit: raw.includes_commit.as_ref().map(|c| c.get_ref().clone()),
        image_patches: raw.image_patches.clone(),
        curves,
        frontends: raw.frontends,
        thinking: raw
            .thinking
            .clone()
            .unwrap_or_else(|| default_thinking.to_string()),
        note: raw.note.clone(),
    })
}

/// `image-patches`: `<script path>:<line>` keys, each with a reason.
fn check_image_patches(raw: &RawLane, err: &mut dyn FnMut(String)) {
    for (at, why) in &raw.image_patches {
        let line = at.rsplit_once(':').map(|(_, l)| l);
        if !line.is_some_and(|l| !l.is_empty() && l.bytes().all(|b| b.is_ascii_digit())) {
            err(format!(
                "image-patches: `{at}` is not `<script path>:<line>` (copy it from the refusal)"
            ));
        }
        if why.trim().is_empty() {
            err(format!(
                "image-patches: `{at}` needs the reason the patch does not change serving"
            ));
        }
    }
}

/// `master-commit`, `recipe-commit`, `includes-commit`: 7+ hex digits.
fn check_commit_keys(raw: &RawLane, err: &mut dyn FnMut(String)) {
    for (key, c) in [
        ("master-commit", &raw.master_commit),
        ("recipe-commit", &raw.recipe_commit),
        ("includes-commit", &raw.includes_commit),
    ] {
        if let Some(c) = c.as_ref().filter(|c| !is_commit_prefix(c.get_ref())) {
            err(format!(
                "{key} = \"{}\": write a commit id of at least 7 hex digits",
                c.get_ref()
            ));
        }
    }
}

/// `verified` ⇒ run and date; `verified-pr` ⇒ run, comment and PR;
/// `in-progress` ⇒ no run (a PR when there is one).
fn check_status(raw: &RawLane, err: &mut dyn FnMut(String)) {
    let need = |ok: bool, what: &str, err: &mut dyn FnMut(String)| {
        if !ok {
            err(format!("status {} needs `{what}`", status_id(raw.status)));
        }
    };
    match raw.status {
        RunStatus::Verified => {
            need(raw.run.is_some(), "run", err);
            need(raw.date.is_some(), "date", err);
        }
        RunStatus::VerifiedPr => {
            need(raw.run.is_some(), "run", err);
            need(raw.comment.is_some(), "comment", err);
            need(raw.pr.is_some(), "pr", err);
        }
        RunStatus::InProgress => {
            // A pull request is optional: work can be in progress on a commit
            // no pull request holds yet.
            if raw.run.is_some() || raw.date.is_some() || raw.comment.is_some() {
                err("status in-progress has no `run`, `date` or `comment` yet".into());
            }
        }
    }
    if raw.attempt.is_some() && raw.run.is_none() {
        err("`attempt` without `run`".into());
    }
}

pub(super) fn status_id(s: RunStatus) -> &'static str {
    match s {
        RunStatus::Verified => "verified",
        RunStatus::VerifiedPr => "verified-pr",
        RunStatus::InProgress => "in-progress",
    }
}

fn jobs(raw: &BTreeMap<String, u64>, err: &mut dyn FnMut(String)) -> BTreeMap<u32, u64> {
    let mut out = BTreeMap::new();
    for (k, v) in raw {
        match k.parse::<u32>() {
            Ok(c) => {
                out.insert(c, *v);
            }
            Err(_) => err(format!("jobs: key `{k}` is not a concurrency")),
        }
    }
    out
}

fn curves(raw: Option<&RawCurves>, base: &Path, err: &mut dyn FnMut(String)) -> Option<Curves> {
    let raw = raw?;
    match (&raw.commit, &raw.dir) {
        (Some(c), None) if is_commit_prefix(c) => Some(Curves::Commit(c.to_ascii_lowercase())),
        (None, Some(d)) => Some(Curves::Dir(base.join(d))),
        _ => {
            err("curves: give either { commit = \"<7+ hex>\" } or { dir = \"<folder>\" }".into());
            None
        }
    }
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
