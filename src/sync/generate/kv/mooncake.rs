//! The page-level Mooncake donor block (`kvMooncake`): the settings every
//! cell's derived Mooncake tier takes (docs/sync.md, "KV tiers"). It comes
//! from the lane of this run that measured Mooncake; when no lane of the run
//! did, from the `--previous` page that carries one (the same page first).
//! Uses `data`, `decode` (KV flags) and `sync::*`.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::data::{Block, BlockKind, Env, KvTier, Role, Router};
use crate::decode::is_kv_flag;
use crate::sync::generate::lane::{LaneResult, Outcome};
use crate::sync::input::lane_manifest::MooncakeFrom;
use crate::sync::output::previous::PreviousPage;

/// Where the run's donor block comes from, for the report.
#[derive(Debug, Clone, PartialEq)]
pub(in crate::sync) enum Source {
    /// Built from this lane of the run.
    Lane(String),
    /// Carried from this `--previous` file.
    Previous(String),
}

/// The donor block and where it came from.
#[derive(Debug, Clone, PartialEq)]
pub(in crate::sync) struct Donor {
    pub block: Value,
    pub source: Source,
}

/// Names of the store-client env a worker carries for the Mooncake tier
/// (the rest of its env is the worker's own).
fn client_env(env: &Env, names: &[String]) -> BTreeMap<String, String> {
    env.iter()
        .filter(|(k, _)| names.contains(k))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// The donor block of the first point of a lane that measured Mooncake.
fn from_lane(r: &LaneResult, names: &[String]) -> Option<Result<Value, String>> {
    let Outcome::Rendered(points) = &r.outcome else {
        return None;
    };
    let p = points.iter().find(|p| p.kv == KvTier::Mooncake)?;
    let blocks = |router: Router| &p.routers.by_router[&router].blocks;
    // The block as the pages write it: with its env even when empty.
    let master = |router: Router| {
        let b = blocks(router)
            .iter()
            .find(|b| b.kind == BlockKind::MooncakeMaster)?;
        let mut v = serde_json::to_value(b).ok()?;
        v.as_object_mut()?.entry("env").or_insert_with(|| json!({}));
        Some(v)
    };
    let worker = |role: Role| -> Option<&Block> {
        blocks(p.routers.submitted)
            .iter()
            .find(|b| b.kind == BlockKind::Worker && b.role == Some(role))
    };
    let owner = worker(Role::Agg).or_else(|| worker(Role::Prefill))?;
    let (Some(dynamo), Some(sglang)) = (master(Router::Dynamo), master(Router::Sglang)) else {
        return Some(Err(format!(
            "lane `{}` measured Mooncake without a mooncake-master block",
            r.lane.config_key
        )));
    };
    let mut args: Vec<_> = owner
        .args
        .iter()
        .filter(|a| is_kv_flag(&a.flag))
        .cloned()
        .collect();
    args.sort_by(|a, b| a.flag.cmp(&b.flag));
    let decode_env = worker(Role::Decode).map_or_else(BTreeMap::new, |d| client_env(&d.env, names));
    Some(Ok(json!({
        "donor": r.lane.config_key,
        "donorHardware": p.hw,
        "master": { "dynamo": dynamo, "sglang": sglang },
        "args": args,
        "env": client_env(&owner.env, names),
        "decode_env": decode_env,
    })))
}

/// The run's donor block, or `None` when the manifest turns the tier off or
/// nothing carries one (cells that would offer the tier then fail, see
/// `kv::facts`).
pub(in crate::sync) fn donor(
    from: &MooncakeFrom,
    results: &[LaneResult],
    page: &str,
    previous: &BTreeMap<String, PreviousPage>,
    names: &[String],
) -> Result<Option<Donor>, String> {
    let wanted = match from {
        MooncakeFrom::None => return Ok(None),
        MooncakeFrom::Auto => None,
        MooncakeFrom::Lane(key) => Some(key.as_str()),
    };
    let lanes = results
        .iter()
        .filter(|r| wanted.is_none_or(|k| r.lane.config_key == k));
    let mut built = Vec::new();
    for r in lanes {
        if let Some(b) = from_lane(r, names) {
            built.push((r.lane.config_key.clone(), b?));
        }
    }
    match built.as_slice() {
        [(key, block)] => {
            return Ok(Some(Donor {
                block: block.clone(),
                source: Source::Lane(key.clone()),
            }));
        }
        [] => {}
        many => {
            let keys: Vec<&str> = many.iter().map(|(k, _)| k.as_str()).collect();
            return Err(format!(
                "lanes {} all measured Mooncake; name the donor with [defaults] kv-mooncake = \"<config key>\"",
                keys.join(", ")
            ));
        }
    }
    Ok(from_previous(page, previous, wanted))
}

/// The same page's block first, then any page's (they are all the same block).
fn from_previous(
    page: &str,
    previous: &BTreeMap<String, PreviousPage>,
    wanted: Option<&str>,
) -> Option<Donor> {
    let pages = previous
        .get(page)
        .into_iter()
        .chain(previous.iter().filter(|(k, _)| *k != page).map(|(_, p)| p));
    for p in pages {
        let Some(block) = p.kv_mooncake() else {
            continue;
        };
        if wanted.is_some_and(|k| block.get("donor").and_then(Value::as_str) != Some(k)) {
            continue;
        }
        return Some(Donor {
            block,
            source: Source::Previous(p.path.display().to_string()),
        });
    }
    None
}
