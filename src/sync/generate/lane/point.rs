//! One point of a lane: a recipe variant typed, its blocks for both routers,
//! the measured KV tier, the golden AL and the facts its cell shows.
//! Uses `data`, `decode` (KV flags) and `sync::*`.

use std::rc::Rc;

use super::LanePoint;
use crate::data::{Arg, Block, BlockKind, Env, KvTier, Role};
use crate::decode::is_kv_flag;
use crate::sync::generate::doors::{self, nginx::KnownFiles};
use crate::sync::generate::golden;
use crate::sync::generate::workers::{Ctx, Problem, Unclassified, arg_value, dp_attention};
use crate::sync::input::lane_manifest::{Curves, Lane, LaneManifest};
use crate::sync::input::master::{self, MasterEntry, RowKind};
use crate::sync::input::reader::{Found, Reader};
use crate::sync::input::recipe::{Variant, v1};
use crate::sync::input::spec::{self, Recipe};
use crate::sync::input::yaml;

/// Everything one point is built from.
pub(in crate::sync) struct PointInput<'a> {
    pub lane: &'a Lane,
    pub m: &'a LaneManifest,
    pub known_files: &'a KnownFiles,
    pub entry: &'a MasterEntry,
    pub cluster_env: &'a Env,
    pub row: &'a master::Row,
    pub concs: &'a [u32],
    pub variant: &'a Variant,
    pub found: &'a Found,
}

/// Why a point was not built.
pub(in crate::sync) enum PointError {
    Refused(String),
    /// Every name of the point the rules table does not classify.
    Unclassified(Vec<Unclassified>),
}

impl From<String> for PointError {
    fn from(why: String) -> PointError {
        PointError::Refused(why)
    }
}

impl From<&str> for PointError {
    fn from(why: &str) -> PointError {
        PointError::Refused(why.to_string())
    }
}

pub(in crate::sync) fn point(
    input: &PointInput<'_>,
    reader: &mut Reader<'_>,
) -> Result<LanePoint, PointError> {
    let PointInput {
        lane,
        m,
        known_files,
        entry,
        cluster_env,
        row,
        concs,
        variant,
        found,
    } = *input;
    let where_ = |e: String| format!("{} variant {}: {e}", found.at, variant.label());
    let recipe: Recipe = if v1::is_v1(&variant.node) {
        spec::parse(&v1::to_roles(&variant.node).map_err(where_)?)
    } else {
        spec::parse(&variant.node)
    }
    .map_err(where_)?;
    let ctx = Ctx::new(
        &m.rules,
        &entry.model,
        cluster_env,
        &found.at,
        variant.label(),
        known_files,
    );
    let built = doors::build(&recipe, lane.frontends, &ctx);
    let names = ctx.unclassified.take();
    if !names.is_empty() {
        return Err(PointError::Unclassified(names));
    }
    let routers = built.map_err(|Problem::Refused(why)| where_(why))?;
    let disclosures = ctx.disclosures.take();
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
        concs: concs.to_vec(),
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
        disclosures,
        routers,
    })
}

/// The tier the cache-owning worker (agg, else prefill) ran with, and its
/// sorted HiCache flags when that tier is HiCache.
fn measured_tier(blocks: &[Block]) -> Result<(KvTier, Vec<Arg>), String> {
    let owner = blocks
        .iter()
        .find(|b| b.kind == BlockKind::Worker && b.role.is_some_and(Role::owns_cache))
        .ok_or("no cache-owning worker")?;
    let has = |f: &str| owner.args.iter().any(|a| a.flag == f);
    if has("--enable-unified-cache-external-linker") {
        if !blocks.iter().any(|b| b.kind == BlockKind::MooncakeMaster) {
            return Err(
                "the workers reach a Mooncake store through the external linker, but the recipe \
                 runs no mooncake-master service"
                    .into(),
            );
        }
        return Ok((KvTier::Mooncake, Vec::new()));
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
pub(in crate::sync) fn label(blocks: &[Block]) -> String {
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
            let text = crate::sync::input::capped::read_to_string(&p)
                .map_err(|e| format!("golden-AL curve {origin}: {e}"))?;
            let doc = yaml::parse(&text).map_err(|e| format!("{origin}: {e}"))?;
            (Rc::new(doc), origin)
        }
        Some(Curves::Commit(c)) => curve_at(reader, c, &file)?,
        None => curve_at(reader, lane.commit.as_deref().unwrap_or_default(), &file)?,
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
