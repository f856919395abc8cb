//! One lane → its points: the master entry at the lane's commit, each
//! search-space row's recipe variant per concurrency, and for each point the
//! blocks of both routers, the measured KV tier, the golden AL and the facts a
//! cell shows. Uses `data`, `decode` (KV flags) and `sync::*`.

use std::rc::Rc;

use super::doors::{self, Routers};
use super::golden;
use super::lane_manifest::{Curves, Lane, LaneManifest};
use super::master::{self, MASTER_PATH, MasterEntry, RowKind};
use super::reader::{Found, Reader};
use super::recipe::{self, Variant};
use super::spec::{self, Recipe};
use super::workers::{Ctx, Problem, arg_value, dp_attention};
use super::yaml;
use crate::data::{Arg, Block, BlockKind, Env, KvTier, Role};
use crate::decode::is_kv_flag;
use crate::util::escape;

/// One measured point of a lane.
#[derive(Debug, Clone)]
pub(super) struct LanePoint {
    /// Index of the master search-space row.
    pub item: usize,
    pub conc: u32,
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
}

/// What became of a lane.
#[derive(Debug, Clone)]
pub(super) enum Outcome {
    Rendered(Vec<LanePoint>),
    /// A lane whose cells are kept from the previous data file.
    CarriedOver,
}

#[derive(Debug, Clone)]
pub(super) struct LaneResult {
    pub lane: Lane,
    pub entry: MasterEntry,
    pub outcome: Outcome,
    /// Rows left out by `rows = [...]`.
    pub excluded_rows: Vec<usize>,
    pub notes: Vec<String>,
}

/// Renders one lane. Errors name the manifest line of the lane.
pub(super) fn translate(
    lane: &Lane,
    m: &LaneManifest,
    reader: &mut Reader<'_>,
) -> Result<LaneResult, String> {
    let fail = |e: String| format!("{}: lane `{}`: {e}", lane.at, lane.config_key);
    let mut notes = Vec::new();
    check_commit(lane, reader, &mut notes).map_err(fail)?;
    let entry = master_entry(lane, reader).map_err(fail)?;
    let (rows, excluded_rows) = pick_rows(lane, &entry).map_err(fail)?;
    if !lane.carry_over && rows.iter().any(|r| matches!(r.kind, RowKind::Bash(_))) {
        let points = super::bash::lane_points(lane, m, &entry, &rows, reader, &mut notes);
        return Ok(LaneResult {
            lane: lane.clone(),
            entry,
            outcome: Outcome::Rendered(points.map_err(fail)?),
            excluded_rows,
            notes,
        });
    }
    if lane.carry_over {
        return Ok(LaneResult {
            lane: lane.clone(),
            entry,
            outcome: Outcome::CarriedOver,
            excluded_rows,
            notes,
        });
    }
    let recipe_commit = lane.recipe_commit.as_deref().unwrap_or(&lane.commit);
    let cluster_env = cluster_env(m, &entry);
    let mut points = Vec::new();
    for row in rows {
        for (conc, variant, found) in variants_of(row, recipe_commit, reader).map_err(fail)? {
            let p = point(
                lane,
                m,
                &entry,
                &cluster_env,
                row,
                conc,
                &variant,
                &found,
                reader,
            )
            .map_err(|e| fail(format!("search-space[{}] c{conc}: {e}", row.item)))?;
            points.push(p);
        }
    }
    notes.extend(settings_notes(&entry));
    notes.extend(image_notes(&entry, &points));
    notes.extend(guessed_notes(lane, &points));
    Ok(LaneResult {
        lane: lane.clone(),
        entry,
        outcome: Outcome::Rendered(points),
        excluded_rows,
        notes,
    })
}

/// The lane's commit must resolve wherever something is read at it. A lane
/// that reads everything elsewhere (master entry, recipes and curves named in
/// the manifest) only records it, and the report says so.
fn check_commit(
    lane: &Lane,
    reader: &mut Reader<'_>,
    notes: &mut Vec<String>,
) -> Result<(), String> {
    let reads_at_commit = (lane.master_commit.is_none() && lane.master_entry.is_none())
        || lane.recipe_commit.is_none()
        || lane.curves.is_none();
    match reader.resolve(&lane.commit) {
        Ok(_) => Ok(()),
        Err(e) if reads_at_commit => Err(e),
        Err(_) => {
            notes.push(format!(
                "commit {} is not in the source; nothing is read there (the master entry, \
                 recipes and curves come from what the manifest names), so it is only recorded \
                 as prov.sha",
                escape::code(&lane.commit)
            ));
            Ok(())
        }
    }
}

/// The rules this lane relied on that are fitted to few cases, so a reviewer
/// knows where to look (research/generator.md tags them [G]).
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

fn master_entry(lane: &Lane, reader: &mut Reader<'_>) -> Result<MasterEntry, String> {
    if let Some((text, at)) = &lane.master_entry {
        let doc = yaml::parse(text).map_err(|e| format!("{at}: master-entry: {e}"))?;
        let wrapped = yaml::Node::new(yaml::Value::Map(vec![(lane.config_key.clone(), doc)]), 1);
        return master::entry(&wrapped, &lane.config_key, &format!("{at} (master-entry)"))?
            .ok_or_else(|| "master-entry is empty".to_string());
    }
    let commit = lane.master_commit.as_deref().unwrap_or(&lane.commit);
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

pub(super) fn cluster_env(m: &LaneManifest, entry: &MasterEntry) -> Env {
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

/// (conc, variant, recipe file) for every concurrency of a row.
fn variants_of(
    row: &master::Row,
    commit: &str,
    reader: &mut Reader<'_>,
) -> Result<Vec<(u32, Variant, Found)>, String> {
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
        (RowKind::SingleNode { tp, ep, .. }, _) => {
            let all = recipe::variants(&found.doc).map_err(|e| format!("{at}: {e}"))?;
            for &conc in &row.concs {
                let v = recipe::bind_single_node(&all, conc, *tp, *ep)
                    .map_err(|e| format!("{at}: {e}"))?;
                out.push((conc, v, found.clone()));
            }
        }
        (_, Some(sel)) => {
            let v = recipe::select(&found.doc, &sel).map_err(|e| format!("{at}: {e}"))?;
            out.extend(row.concs.iter().map(|&c| (c, v.clone(), found.clone())));
        }
        (_, None) => {
            if recipe::is_override_form(&found.doc) {
                return Err(format!("{at} has variants, but CONFIG_FILE names none"));
            }
            let v = Variant {
                name: None,
                node: (*found.doc).clone(),
            };
            out.extend(row.concs.iter().map(|&c| (c, v.clone(), found.clone())));
        }
    }
    Ok(out)
}

#[allow(clippy::too_many_arguments)]
pub(super) fn point(
    lane: &Lane,
    m: &LaneManifest,
    entry: &MasterEntry,
    cluster_env: &Env,
    row: &master::Row,
    conc: u32,
    variant: &Variant,
    found: &Found,
    reader: &mut Reader<'_>,
) -> Result<LanePoint, String> {
    let where_ = |e: String| format!("{} variant {}: {e}", found.at, variant.label());
    let recipe: Recipe = spec::parse(&variant.node).map_err(where_)?;
    let ctx = Ctx {
        rules: &m.rules,
        model: &entry.model,
        cluster_env,
        file: &found.at,
        variant: variant.label(),
    };
    let routers = doors::build(&recipe, lane.frontends, &ctx).map_err(|p| match p {
        Problem::Unclassified { .. } => p.to_string(),
        Problem::Refused(why) => where_(why),
    })?;
    let blocks = &routers.by_router[&routers.submitted].blocks;
    let (kv, hicache_args) = measured_tier(blocks).map_err(where_)?;
    let spec = golden::spec(&recipe).map_err(where_)?;
    // InferenceX injects the golden AL only when the row speculates.
    let synthetic = row.spec_decoding.as_deref() != Some("none");
    let golden_al = match &spec {
        Some(s) if synthetic => Some(golden_al(lane, entry, s, reader)?),
        _ => None,
    };
    let image = match &recipe.image {
        Some(i) => i.clone(),
        None => entry.image.clone(),
    };
    let single_node = matches!(row.kind, RowKind::SingleNode { .. });
    Ok(LanePoint {
        item: row.item,
        conc,
        override_name: variant.name.clone(),
        label: label(blocks),
        gpus: recipe.nodes() * recipe.gpus_per_node,
        worker_gpus: recipe.roles.first().map_or(0, |r| r.gpus),
        hw: recipe.gpu_type.to_ascii_lowercase(),
        image,
        kv,
        hicache_args,
        golden_al,
        detail: spec.map_or_else(|| "no spec".to_string(), |s| s.detail),
        recipe_path: found.path.clone(),
        single_node_binding: single_node && variant.name.is_some(),
        routers,
    })
}

/// The tier the cache-owning worker (agg, else prefill) ran with.
fn measured_tier(blocks: &[Block]) -> Result<(KvTier, Vec<Arg>), String> {
    let owner = blocks
        .iter()
        .find(|b| b.kind == BlockKind::Worker && b.role.is_some_and(Role::owns_cache))
        .ok_or("no cache-owning worker")?;
    let has = |f: &str| owner.args.iter().any(|a| a.flag == f);
    if has("--enable-unified-cache-external-linker") {
        return Err(
            "measured with a Mooncake store: its store blocks come from srt-slurm's \
                    mooncake_kv_store, which the generator does not render yet"
                .into(),
        );
    }
    if !has("--enable-hierarchical-cache") {
        return Ok((KvTier::None, Vec::new()));
    }
    let mut flags: Vec<Arg> = owner
        .args
        .iter()
        .filter(|a| is_kv_flag(&a.flag))
        .cloned()
        .collect();
    flags.sort_by(|a, b| a.flag.cmp(&b.flag));
    Ok((KvTier::Hicache, flags))
}

/// `Agg TP4·EP4`, `Disagg 1P2D · prefill DEP4 · decode TP4`, `… (2 nodes)`.
pub(super) fn label(blocks: &[Block]) -> String {
    let workers: Vec<&Block> = blocks
        .iter()
        .filter(|b| b.kind == BlockKind::Worker)
        .collect();
    let par = |b: &Block| {
        let size = |names: &[&str]| {
            names
                .iter()
                .find_map(|n| arg_value(b, n))
                .unwrap_or("1")
                .to_string()
        };
        let tp = size(&["--tensor-parallel-size", "--tp-size", "--tp"]);
        let ep = size(&["--expert-parallel-size", "--ep-size", "--ep"]);
        let mut s = if dp_attention(b) {
            format!("DEP{tp}")
        } else if ep != "1" {
            format!("TP{tp}\u{b7}EP{ep}")
        } else {
            format!("TP{tp}")
        };
        let nodes = b.nodes_per_worker.unwrap_or(1);
        if nodes > 1 {
            s.push_str(&format!(" ({nodes} nodes)"));
        }
        s
    };
    let find = |r: Role| workers.iter().find(|b| b.role == Some(r)).copied();
    match (find(Role::Agg), find(Role::Prefill), find(Role::Decode)) {
        (Some(a), _, _) => format!("Agg {}", par(a)),
        (None, Some(p), Some(d)) => format!(
            "Disagg {}P{}D \u{b7} prefill {} \u{b7} decode {}",
            p.workers.unwrap_or(1),
            d.workers.unwrap_or(1),
            par(p),
            par(d)
        ),
        _ => "Workers".to_string(),
    }
}

fn golden_al(
    lane: &Lane,
    entry: &MasterEntry,
    spec: &golden::Spec,
    reader: &mut Reader<'_>,
) -> Result<String, String> {
    let name = golden::curve_name(&entry.model_prefix, spec)?;
    let file = format!("{name}.yaml");
    let (doc, origin) = match &lane.curves {
        Some(Curves::Dir(dir)) => {
            let p = dir.join(&file);
            let origin = p.display().to_string();
            let text = std::fs::read_to_string(&p)
                .map_err(|e| format!("golden-AL curve {origin}: {e}"))?;
            let doc = yaml::parse(&text).map_err(|e| format!("{origin}: {e}"))?;
            (Rc::new(doc), origin)
        }
        Some(Curves::Commit(c)) => curve_at(reader, c, &file)?,
        None => curve_at(reader, &lane.commit, &file)?,
    };
    golden::lookup(&doc, &lane.thinking, spec.k, &origin)
}

/// `golden_al_distribution/<file>` (or InferenceX's `infx/` package copy) at a commit.
fn curve_at(
    reader: &mut Reader<'_>,
    commit: &str,
    file: &str,
) -> Result<(Rc<yaml::Node>, String), String> {
    reader.resolve(commit)?;
    let places = [
        format!("golden_al_distribution/{file}"),
        format!("infx/golden_al_distribution/{file}"),
    ];
    for p in &places {
        if let Some(found) = reader.yaml(commit, p)? {
            return Ok((found.doc, found.at));
        }
    }
    Err(format!(
        "no golden-AL curve {file} at commit {commit} (looked in golden_al_distribution/ and \
         infx/golden_al_distribution/); name the commit or folder that has it with `curves`"
    ))
}
