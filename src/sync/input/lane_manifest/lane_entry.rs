//! One `[[lane]]` of the lane manifest: its raw form, the validated
//! [`Lane`], and the checks that need nothing but the entry (commits, review
//! state, jobs, curves, image patches). Every error names the lane's `file:line`. Uses
//! `data` (review states).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

use super::{date_text, is_full_sha};
use crate::data::RunStatus;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct RawLane {
    page: String,
    config_key: String,
    #[serde(default)]
    commit: Option<Spanned<String>>,
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

/// Where a lane's golden-AL curves are read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(in crate::sync) enum Curves {
    /// `golden_al_distribution/` at this commit of the source.
    Commit(String),
    /// A folder on disk (relative paths are relative to the manifest).
    Dir(PathBuf),
}

/// One validated lane.
#[derive(Debug, Clone)]
pub(in crate::sync) struct Lane {
    /// `file:line` of the lane, for messages.
    pub at: String,
    pub page: String,
    pub config_key: String,
    /// 40 hex digits: what the data records as `prov.sha`. Always set for a
    /// rendered lane; a carry-over lane may leave it out.
    pub commit: Option<String>,
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

pub(super) fn parse(
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
    check_commits(raw, &mut err);
    check_image_patches(raw, &mut err);
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
        commit: raw
            .commit
            .as_ref()
            .map(|c| c.get_ref().to_ascii_lowercase()),
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

/// The lane's commit (required unless it is carried over) and the commits it
/// reads elsewhere (`master-commit`, `recipe-commit`, `includes-commit`: 7+
/// hex digits).
fn check_commits(raw: &RawLane, err: &mut dyn FnMut(String)) {
    match &raw.commit {
        Some(c) if !is_full_sha(c.get_ref()) => err(format!(
            "commit = \"{}\": write the full 40-digit commit id (it is recorded as prov.sha)",
            c.get_ref()
        )),
        None if !raw.carry_over => err(
            "`commit` is missing: write the full 40-digit commit id the lane is rendered at \
             (only a carry-over lane, which reads nothing, may leave it out)"
                .into(),
        ),
        _ => {}
    }
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
    if raw.master_commit.is_some() && raw.master_entry.is_some() {
        err("give `master-commit` or `master-entry`, not both".into());
    }
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

pub(in crate::sync) fn status_id(s: RunStatus) -> &'static str {
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

fn is_commit_prefix(s: &str) -> bool {
    (7..=40).contains(&s.len()) && s.chars().all(|c| c.is_ascii_hexdigit())
}
