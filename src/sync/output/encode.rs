//! A cell in the newer schema (`cell.prov`): point 0's blocks in full, later
//! points as per-block diffs against point 0 (the decoder's `apply_diff` checks
//! each diff; a diff it would not reproduce becomes a whole replacement block).
//! Uses `data`, `decode` and `sync::*`.

use indexmap::IndexMap;
use serde_json::{Map, Value, json};

use crate::data::{Block, Diff, Router};
use crate::decode::apply_diff;
use crate::sync::generate::cells::CellDraft;
use crate::sync::generate::doors::RouterSetup;
use crate::sync::generate::kv::KvFacts;
use crate::sync::generate::lane::concs_text;

/// The cell object of the data file.
pub(in crate::sync) fn cell(c: &CellDraft, kv: &KvFacts) -> Result<Value, String> {
    let p0 = &c.points[0];
    let mut routers = Map::new();
    let order = [c.submitted, other(c.submitted)];
    for r in order {
        let setup = &p0.routers.by_router[&r];
        routers.insert(r.id().to_string(), router(setup)?);
    }
    for p in &c.points[1..] {
        for r in order {
            if p.routers.by_router[&r].files != p0.routers.by_router[&r].files {
                return Err(format!(
                    "cell `{}`: point {} needs other config files than point {} ({} router); \
                     the data format keeps one set per cell",
                    c.id,
                    concs_text(&p.concs),
                    concs_text(&p0.concs),
                    r
                ));
            }
        }
    }
    let points: Vec<Value> = c
        .points
        .iter()
        .map(|p| point(c, p, &order))
        .collect::<Result<_, String>>()?;
    let mut disclosures: Vec<&str> = c.disclosures.iter().map(String::as_str).collect();
    if c.speculates {
        disclosures.push("synthetic-acceptance");
    }
    disclosures.sort_unstable();
    disclosures.dedup();
    Ok(json!({
        "id": c.id,
        "hw": c.hw,
        "ckpt": c.ckpt,
        "label": c.label,
        "detail": c.detail,
        "gpus": c.gpus,
        "configKey": c.lane.config_key,
        "image": c.image,
        "imageStatus": c.image_status,
        "imageCommit": c.image_commit,
        "submitted": c.submitted.id(),
        "setup": c.setup.iter().map(|(command, reason)| json!({
            "kind": "setup",
            "command": command,
            "reason": reason,
        })).collect::<Vec<_>>(),
        "disclosures": disclosures,
        "kv": kv_json(kv),
        "prov": prov(c),
        "points": points,
        "routers": routers,
    }))
}

fn other(r: Router) -> Router {
    match r {
        Router::Dynamo => Router::Sglang,
        Router::Sglang => Router::Dynamo,
    }
}

fn router(s: &RouterSetup) -> Result<Value, String> {
    let blocks = serde_json::to_value(&s.blocks).map_err(|e| e.to_string())?;
    let files: Vec<&str> = s.files.iter().map(|(k, _, _)| k.as_str()).collect();
    Ok(json!({ "install": s.install, "files": files, "blocks": blocks }))
}

fn kv_json(kv: &KvFacts) -> Value {
    let mut out = json!({
        "available": kv.available,
        "unavailable": kv.unavailable.iter().map(|(t, r)| (t.id().to_string(), json!(r))).collect::<Map<_, _>>(),
    });
    if let Some(d) = &kv.hicache {
        out["hicache"] = json!({
            "args": d.args,
            "donor": d.donor,
            "donorHardware": d.donor_hardware,
        });
    }
    out
}

fn prov(c: &CellDraft) -> Value {
    let l = &c.lane;
    let mut p = Map::new();
    p.insert("sha".into(), json!(l.commit));
    p.insert("recipe".into(), json!(c.recipe_path));
    for (k, v) in [("run", &l.run), ("pr", &l.pr), ("comment", &l.comment)] {
        if let Some(v) = v {
            p.insert(k.into(), json!(v));
        }
    }
    p.insert(
        "status".into(),
        json!(crate::sync::input::lane_manifest::status_id(l.status)),
    );
    if let Some(d) = &l.date {
        p.insert("date".into(), json!(d));
    }
    Value::Object(p)
}

fn point(
    c: &CellDraft,
    p: &crate::sync::generate::lane::LanePoint,
    order: &[Router; 2],
) -> Result<Value, String> {
    let mut out = Map::new();
    out.insert("concs".into(), json!(p.concs));
    out.insert("item".into(), json!(p.item));
    if let Some(o) = &p.override_name {
        out.insert("override".into(), json!(o));
    }
    if p.recipe_path != c.recipe_path {
        out.insert("recipe".into(), json!(p.recipe_path));
    }
    if let Some(al) = &p.golden_al {
        out.insert("goldenAL".into(), json!(al));
    }
    out.insert("kv".into(), json!(p.kv.id()));
    if let (Some(run), Some(job)) = (&c.lane.run, c.lane.jobs.get(&p.first_conc())) {
        let run_id = run.split('/').next().unwrap_or(run);
        out.insert("job".into(), json!(format!("{run_id}/job/{job}")));
    }
    let base = &c.points[0];
    if !std::ptr::eq(base, p) {
        let mut patch = Map::new();
        for r in order {
            let from = &base.routers.by_router[r].blocks;
            let to = &p.routers.by_router[r].blocks;
            patch.insert(r.id().to_string(), router_patch(from, to)?);
        }
        if patch.values().any(|v| !v.is_null()) {
            out.insert("patch".into(), Value::Object(patch));
        }
    }
    Ok(Value::Object(out))
}

/// `null` when nothing changed, per-block diffs when the block list has the
/// same shape, else `{replace: [...]}`.
fn router_patch(from: &[Block], to: &[Block]) -> Result<Value, String> {
    if from == to {
        return Ok(Value::Null);
    }
    if from.len() != to.len() {
        let blocks = serde_json::to_value(to).map_err(|e| e.to_string())?;
        return Ok(json!({ "replace": blocks }));
    }
    let diffs: Vec<Value> = from
        .iter()
        .zip(to)
        .map(|(a, b)| block_diff(a, b))
        .collect::<Result<_, String>>()?;
    Ok(Value::Array(diffs))
}

/// `{args: {flag: [vals] | null}, env: {k: v | null}}`, or `{block: …}` when
/// anything else changed or the diff would not reproduce `b`.
fn block_diff(a: &Block, b: &Block) -> Result<Value, String> {
    if a == b {
        return Ok(Value::Null);
    }
    let whole = || -> Result<Value, String> {
        let block = serde_json::to_value(b).map_err(|e| e.to_string())?;
        Ok(json!({ "block": block }))
    };
    let mut a_rest = a.clone();
    let mut b_rest = b.clone();
    (a_rest.args, a_rest.env, b_rest.args, b_rest.env) = Default::default();
    if a_rest != b_rest || has_repeats(a) || has_repeats(b) {
        return whole();
    }
    let mut diff = Diff::default();
    for arg in &b.args {
        let same = a.args.iter().any(|x| x == arg);
        if !same {
            diff.args.insert(arg.flag.clone(), Some(arg.values.clone()));
        }
    }
    for arg in &a.args {
        if !b.args.iter().any(|x| x.flag == arg.flag) {
            diff.args.insert(arg.flag.clone(), None);
        }
    }
    for (k, v) in &b.env {
        if a.env.get(k) != Some(v) {
            diff.env.insert(k.clone(), Some(v.clone()));
        }
    }
    for k in a.env.keys() {
        if !b.env.contains_key(k) {
            diff.env.insert(k.clone(), None);
        }
    }
    let mut check = a.clone();
    apply_diff(&mut check, &diff);
    if check != *b {
        return whole();
    }
    let mut out = Map::new();
    if !diff.args.is_empty() {
        out.insert("args".into(), map_json(&diff.args));
    }
    if !diff.env.is_empty() {
        out.insert("env".into(), map_json(&diff.env));
    }
    Ok(Value::Object(out))
}

fn map_json<T: serde::Serialize>(m: &IndexMap<String, Option<T>>) -> Value {
    Value::Object(m.iter().map(|(k, v)| (k.clone(), json!(v))).collect())
}

fn has_repeats(b: &Block) -> bool {
    b.args
        .iter()
        .enumerate()
        .any(|(i, a)| b.args[..i].iter().any(|x| x.flag == a.flag))
}
