//! One lane → its points: the master entry at the lane's commit, each
//! search-space row's recipe variant per concurrency, and for each point the
//! blocks of both routers, the measured KV tier, the golden AL and the facts a
//! cell shows. Uses `data`, `decode` (KV flags) and `sync::*`.

mod point;

use super::doors::Routers;
use super::doors::nginx::KnownFiles;
use super::workers::Unclassified;
use crate::data::{Arg, BlockKind, Env, KvTier, Role};
use crate::sync::input::lane_manifest::{Lane, LaneManifest};
use crate::sync::input::master::{self, MASTER_PATH, MasterEntry, RowKind};
use crate::sync::input::reader::{Found, Reader};
use crate::sync::input::recipe::{self, Variant};
use crate::sync::input::yaml;
use crate::util::escape;
pub(in crate::sync) use point::{PointError, PointInput, point};

/// One measured point of a lane.
#[derive(Debug, Clone)]
pub(in crate::sync) struct LanePoint {
    /// Index of the master search-space row.
    pub item: usize,
    /// The concurrencies one launch served: one for a single-node point (a
    /// variant per concurrency), the row's whole list for a multi-node row.
    pub concs: Vec<u32>,
    pub override_name: Option<String>,
    pub routers: Routers,
    pub label: String,
    pub gpus: u32,
    /// GPUs of one worker of the first role: orders cells of equal concurrency.
    pub worker_gpus: u32,
    pub hw: String,
    pub image: String,
    pub kv: KvTier,
    /// Sorted KV-tier flags of the cache-owning worker when `kv` is HiCache.
    pub hicache_args: Vec<Arg>,
    pub golden_al: Option<String>,
    pub detail: String,
    pub recipe_path: String,
    /// Bound to its variant by concurrency and parallelism (a guessed rule).
    pub single_node_binding: bool,
    /// What the rules dropped and the page discloses (`chat-template`).
    pub disclosures: std::collections::BTreeSet<String>,
}

impl LanePoint {
    /// The first concurrency: what cells are ordered by and job ids are keyed by.
    pub(in crate::sync) fn first_conc(&self) -> u32 {
        self.concs.first().copied().unwrap_or(0)
    }
}

/// What became of a lane.
#[derive(Debug, Clone)]
pub(in crate::sync) enum Outcome {
    Rendered(Vec<LanePoint>),
    /// A lane whose cells are kept from the previous data file.
    CarriedOver,
}

#[derive(Debug, Clone)]
pub(in crate::sync) struct LaneResult {
    pub lane: Lane,
    /// The master entry a rendered lane was read from (a carried lane reads none).
    pub entry: Option<MasterEntry>,
    pub outcome: Outcome,
    /// Rows left out by `rows = [...]`.
    pub excluded_rows: Vec<usize>,
    pub notes: Vec<String>,
}

/// Why a lane was not rendered: a refusal (the first), and every name the
/// rules table does not classify, with the point that used it.
#[derive(Debug, Clone, Default)]
pub(in crate::sync) struct LaneFailure {
    pub refused: Option<String>,
    pub unclassified: Vec<(String, Unclassified)>,
}

impl From<String> for LaneFailure {
    fn from(why: String) -> LaneFailure {
        LaneFailure {
            refused: Some(why),
            unclassified: Vec::new(),
        }
    }
}

/// Renders one lane. Errors name the manifest line of the lane.
pub(in crate::sync) fn translate(
    lane: &Lane,
    m: &LaneManifest,
    known_files: &KnownFiles,
    reader: &mut Reader<'_>,
) -> Result<LaneResult, LaneFailure> {
    let fail = |e: String| format!("{}: lane `{}`: {e}", lane.at, lane.config_key);
    let mut notes = Vec::new();
    if lane.carry_over {
        // Its cells come from --previous as they are: nothing is read.
        return Ok(LaneResult {
            lane: lane.clone(),
            entry: None,
            outcome: Outcome::CarriedOver,
            excluded_rows: Vec::new(),
            notes,
        });
    }
    let commit = lane
        .commit
        .as_deref()
        .ok_or_else(|| fail("no `commit`".into()))?;
    check_commit(lane, commit, reader, &mut notes).map_err(fail)?;
    let entry = master_entry(lane, commit, reader).map_err(fail)?;
    let (rows, excluded_rows) = pick_rows(lane, &entry).map_err(fail)?;
    let points = if rows.iter().any(|r| matches!(r.kind, RowKind::Bash(_))) {
        // A bash-script lane: its script is interpreted (docs/sync-bash-lanes.md).
        crate::sync::bash::lane_points(lane, m, known_files, &entry, &rows, reader, &mut notes)
    } else {
        let input = RecipeLane {
            lane,
            m,
            known_files,
            entry: &entry,
            commit,
        };
        recipe_points(&input, &rows, reader)
    }
    .map_err(|f| LaneFailure {
        refused: f.refused.map(fail),
        unclassified: f.unclassified,
    })?;
    notes.extend(settings_notes(&entry));
    notes.extend(image_notes(&entry, &points));
    notes.extend(guessed_notes(lane, &points));
    Ok(LaneResult {
        lane: lane.clone(),
        entry: Some(entry),
        outcome: Outcome::Rendered(points),
        excluded_rows,
        notes,
    })
}

/// What a recipe lane's points are built from besides its rows.
struct RecipeLane<'a> {
    lane: &'a Lane,
    m: &'a LaneManifest,
    known_files: &'a KnownFiles,
    entry: &'a MasterEntry,
    /// The lane's commit.
    commit: &'a str,
}

/// The points of a recipe lane, row by row. A refusal stops at the first;
/// unclassified names are collected over every point (the run reports them
/// at once).
fn recipe_points(
    l: &RecipeLane<'_>,
    rows: &[&master::Row],
    reader: &mut Reader<'_>,
) -> Result<Vec<LanePoint>, LaneFailure> {
    let recipe_commit = l.lane.recipe_commit.as_deref().unwrap_or(l.commit);
    let cluster_env = cluster_env(l.m, l.entry);
    let mut points = Vec::new();
    let mut failure = LaneFailure::default();
    for row in rows {
        for (concs, variant, found) in variants_of(row, recipe_commit, reader)? {
            let input = PointInput {
                lane: l.lane,
                m: l.m,
                known_files: l.known_files,
                entry: l.entry,
                cluster_env: &cluster_env,
                row,
                concs: &concs,
                variant: &variant,
                found: &found,
            };
            let name = format!("search-space[{}] {}", row.item, concs_text(&concs));
            match point::point(&input, reader) {
                Ok(p) => points.push(p),
                Err(PointError::Unclassified(names)) => failure
                    .unclassified
                    .extend(names.into_iter().map(|n| (name.clone(), n))),
                Err(PointError::Refused(why)) => {
                    failure.refused = Some(format!("{name}: {why}"));
                    return Err(failure);
                }
            }
        }
    }
    if failure.unclassified.is_empty() {
        Ok(points)
    } else {
        Err(failure)
    }
}

/// The lane's commit must resolve wherever something is read at it. A lane
/// that reads everything elsewhere (master entry, recipes and curves named in
/// the manifest) only records it, and the report says so.
fn check_commit(
    lane: &Lane,
    commit: &str,
    reader: &mut Reader<'_>,
    notes: &mut Vec<String>,
) -> Result<(), String> {
    let reads_at_commit = (lane.master_commit.is_none() && lane.master_entry.is_none())
        || lane.recipe_commit.is_none()
        || lane.curves.is_none();
    match reader.resolve(commit) {
        Ok(_) => Ok(()),
        Err(e) if reads_at_commit => Err(e),
        Err(_) => {
            notes.push(format!(
                "commit {} is not in the source; nothing is read there (the master entry, \
                 recipes and curves come from what the manifest names), so it is only recorded \
                 as prov.sha",
                escape::code(commit)
            ));
            Ok(())
        }
    }
}

/// The rules this lane relied on that are fitted to few cases, so a reviewer
/// knows where to look (docs/sync.md says which).
fn guessed_notes(lane: &Lane, points: &[LanePoint]) -> Vec<String> {
    let blocks = || {
        points
            .iter()
            .flat_map(|p| p.routers.by_router[&p.routers.submitted].blocks.iter())
    };
    let mut out = Vec::new();
    if points.iter().any(|p| p.single_node_binding) {
        out.push(
            "guessed: single-node points take the recipe variant whose benchmark.env.CONC and \
             tensor/expert-parallel sizes match the row (InferenceX's binder is not available)"
                .to_string(),
        );
    }
    let frontends = blocks()
        .filter(|b| b.kind == BlockKind::DynamoFrontend)
        .filter_map(|b| b.count)
        .max()
        .unwrap_or(1);
    if frontends > 1 && lane.frontends.is_none() {
        out.push(format!(
            "guessed: {frontends} Dynamo frontends behind nginx, by srt-slurm's count rule bounded \
             by the worker nodes + 1 (fitted to two lanes); `frontends = N` on the lane overrides it"
        ));
    }
    if blocks().any(|b| b.gpu_pinning.is_some()) {
        out.push(
            "guessed: workers sharing a node are pinned to consecutive GPU ids (fitted to three cases)"
                .to_string(),
        );
    }
    let pd_multi = blocks()
        .any(|b| b.nodes_per_worker.unwrap_or(1) > 1 && b.role.is_some_and(|r| r != Role::Agg));
    if pd_multi {
        out.push(
            "guessed: multi-node PD workers use `$PREFILL_HEAD_IP` / `$DECODE_HEAD_IP` for \
             --dist-init-addr (from the widget's placeholder list)"
                .to_string(),
        );
    }
    out
}

/// A recipe that names its own container differs from the master's image:
/// the data records the recipe's (what srtctl ran), the report says so.
fn image_notes(entry: &MasterEntry, points: &[LanePoint]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for p in points {
        if p.image != entry.image {
            let n = format!(
                "{} names image {}, the master entry {}: the cells record the recipe's",
                escape::text(&p.recipe_path),
                escape::code(&p.image),
                escape::code(&entry.image)
            );
            if !out.contains(&n) {
                out.push(n);
            }
        }
    }
    out
}

fn master_entry(lane: &Lane, commit: &str, reader: &mut Reader<'_>) -> Result<MasterEntry, String> {
    if let Some((text, at)) = &lane.master_entry {
        let doc = yaml::parse(text).map_err(|e| format!("{at}: master-entry: {e}"))?;
        let wrapped = yaml::Node::new(yaml::Value::Map(vec![(lane.config_key.clone(), doc)]), 1);
        return master::entry(&wrapped, &lane.config_key, &format!("{at} (master-entry)"))?
            .ok_or_else(|| "master-entry is empty".to_string());
    }
    let commit = lane.master_commit.as_deref().unwrap_or(commit);
    let found = reader
        .yaml(commit, MASTER_PATH)?
        .ok_or_else(|| format!("{MASTER_PATH} is not at commit {commit}"))?;
    master::entry(&found.doc, &lane.config_key, &found.at)?.ok_or_else(|| {
        format!(
            "config key `{}` is not in {} (a typo, or the lane was renamed at that commit)",
            lane.config_key, found.at
        )
    })
}

fn pick_rows<'e>(
    lane: &Lane,
    entry: &'e MasterEntry,
) -> Result<(Vec<&'e master::Row>, Vec<usize>), String> {
    let Some(wanted) = &lane.rows else {
        return Ok((entry.rows.iter().collect(), Vec::new()));
    };
    if let Some(bad) = wanted.iter().find(|i| **i >= entry.rows.len()) {
        return Err(format!(
            "rows: {} has no search-space row {bad} (it has {})",
            entry.at,
            entry.rows.len()
        ));
    }
    let rows = entry
        .rows
        .iter()
        .filter(|r| wanted.contains(&r.item))
        .collect();
    let excluded = (0..entry.rows.len())
        .filter(|i| !wanted.contains(i))
        .collect();
    Ok((rows, excluded))
}

pub(in crate::sync) fn cluster_env(m: &LaneManifest, entry: &MasterEntry) -> Env {
    entry
        .runner
        .strip_prefix("cluster:")
        .and_then(|c| m.clusters.get(c))
        .map(|c| c.env.clone())
        .unwrap_or_default()
}

/// Master-row settings the generator reads but does not use.
fn settings_notes(entry: &MasterEntry) -> Vec<String> {
    let mut out = Vec::new();
    for r in &entry.rows {
        if let RowKind::MultiNode { settings, .. } = &r.kind {
            for s in settings {
                out.push(format!(
                    "search-space[{}] sets {}: ignored, the golden AL comes from InferenceX's curve",
                    r.item,
                    escape::code(s)
                ));
            }
        }
    }
    out
}

/// `c1` or `c120+c480`, for messages.
pub(in crate::sync) fn concs_text(concs: &[u32]) -> String {
    let parts: Vec<String> = concs.iter().map(|c| format!("c{c}")).collect();
    parts.join("+")
}

/// (concurrencies, variant, recipe file) for every point of a row: a
/// single-node row binds one variant per concurrency; a multi-node row is one
/// launch that served its whole concurrency list.
fn variants_of(
    row: &master::Row,
    commit: &str,
    reader: &mut Reader<'_>,
) -> Result<Vec<(Vec<u32>, Variant, Found)>, String> {
    let (path, selector) = match &row.kind {
        RowKind::SingleNode { recipe, .. } => (recipe.clone(), None),
        RowKind::MultiNode {
            recipe, selector, ..
        } => (recipe.clone(), selector.clone()),
        RowKind::Bash(_) => return Err("a bash-script row has no recipe".into()),
    };
    let found = reader
        .yaml(commit, &path)?
        .ok_or_else(|| format!("recipe {path} is not at commit {commit}"))?;
    let at = found.at.clone();
    let mut out = Vec::new();
    match (&row.kind, selector) {
        (
            RowKind::SingleNode {
                tp, ep, dp_attn, ..
            },
            _,
        ) => {
            let all = recipe::variants(&found.doc).map_err(|e| format!("{at}: {e}"))?;
            for &conc in &row.concs {
                let kv = row.kv_offloading.as_deref();
                let v = recipe::bind_single_node(&all, conc, (*tp, *ep, *dp_attn), kv)
                    .map_err(|e| format!("{at}: {e}"))?;
                out.push((vec![conc], v, found.clone()));
            }
        }
        (_, Some(sel)) => {
            let v = recipe::select(&found.doc, &sel).map_err(|e| format!("{at}: {e}"))?;
            out.push((row.concs.clone(), v, found.clone()));
        }
        (_, None) => {
            if recipe::is_override_form(&found.doc) {
                return Err(format!("{at} has variants, but CONFIG_FILE names none"));
            }
            let v = Variant {
                name: None,
                node: (*found.doc).clone(),
            };
            out.push((row.concs.clone(), v, found.clone()));
        }
    }
    Ok(out)
}
