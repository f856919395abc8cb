//! One page's data file: cells in page order (rendered and carried over),
//! hardware, checkpoints, the shared `source` block, carried-over donor
//! blocks and files; then the round trip through `data` + `decode` that must
//! reproduce every point before anything is written.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::{Map, Value, json};

use super::previous::{self, PreviousPage};
use super::{encode, json};
use crate::data::{self, AgentxData, RunStatus};
use crate::decode::{self, DecodedPage};
use crate::sync::generate::cells::{self, CellDraft, HARDWARE_ORDER};
use crate::sync::generate::kv;
use crate::sync::generate::lane::concs_text;
use crate::sync::input::lane_manifest::LaneManifest;

/// A finished page, checked.
pub(in crate::sync) struct PageOut {
    pub page: String,
    pub file_name: String,
    pub text: String,
    pub data: AgentxData,
    pub decoded: DecodedPage,
    /// Ids of cells kept from the previous file.
    pub carried: Vec<String>,
}

/// A cell of the page before numbering: rendered, or carried (previous index).
enum Slot {
    Rendered(Box<(CellDraft, kv::KvFacts)>),
    Carried(usize),
}

/// What a page is built with besides its cells.
pub(in crate::sync) struct PageContext<'a> {
    pub prev: Option<&'a PreviousPage>,
    /// The Mooncake donor block, when the page has one.
    pub kv_mooncake: Option<Value>,
    /// The form of a page `--previous` does not hold.
    pub format: crate::sync::DataFormat,
}

pub(in crate::sync) fn build(
    page: &str,
    mut drafts: Vec<CellDraft>,
    carried_lanes: &[String],
    ctx: PageContext<'_>,
    m: &LaneManifest,
    notes: &mut Vec<String>,
) -> Result<PageOut, String> {
    let PageContext {
        prev,
        kv_mooncake,
        format,
    } = ctx;
    cells::finish_page(&mut drafts);
    let facts = kv::facts(&drafts, kv_mooncake.is_some(), m, prev, notes)?;
    let slots = order(
        drafts.into_iter().zip(facts).collect(),
        carried_lanes,
        prev,
        page,
    )?;
    let parts = collect(&slots, prev)?;
    let mut doc = Map::new();
    doc.insert("model".into(), json!(page));
    doc.insert("generatedOn".into(), json!(m.source.generated_on));
    doc.insert("source".into(), source(m, prev));
    doc.insert("hardware".into(), hardware_json(&parts.hardware, prev));
    doc.insert(
        "checkpoints".into(),
        Value::Array(parts.ckpts.iter().map(|c| json!({ "id": c })).collect()),
    );
    let envs = match prev {
        Some(p) if !parts.carried.is_empty() => p.envs(),
        _ => json!([]),
    };
    doc.insert("envs".into(), envs);
    if let Some(k) = kv_mooncake {
        doc.insert("kvMooncake".into(), k);
    }
    doc.insert(
        "files".into(),
        Value::Object(parts.files.into_iter().collect()),
    );
    doc.insert("cells".into(), Value::Array(parts.cells));
    let doc = Value::Object(doc);
    let json_text = json::to_text(&doc);
    // A page keeps the form and name it has; a new one takes the format asked for.
    let format = prev.map_or(format, PreviousPage::format);
    let text = match format {
        crate::sync::DataFormat::Json => json_text,
        crate::sync::DataFormat::Jsx => json::module_text(&doc, &json_text),
    };
    let file_name = prev.map_or_else(|| default_name(page, format), PreviousPage::file_name);
    finish(page, file_name, text, &slots, parts.carried, prev)
}

/// What the cells of a page bring to the file.
#[derive(Default)]
struct Parts {
    cells: Vec<Value>,
    files: BTreeMap<String, Value>,
    hardware: Vec<String>,
    ckpts: BTreeSet<String>,
    carried: Vec<String>,
}

/// Encodes rendered cells and copies carried ones (their `ref`s renumbered),
/// with the config files each uses.
fn collect(slots: &[Slot], prev: Option<&PreviousPage>) -> Result<Parts, String> {
    let mut parts = Parts::default();
    let new_index = |old: usize| {
        slots
            .iter()
            .position(|s| matches!(s, Slot::Carried(i) if *i == old))
    };
    for slot in slots {
        match slot {
            Slot::Rendered(rendered) => {
                let (c, kv) = &**rendered;
                for r in c.points[0].routers.by_router.values() {
                    for (key, name, content) in &r.files {
                        let f = json!({ "name": name, "content": content });
                        parts.files.insert(key.clone(), f);
                    }
                }
                push_new(&mut parts.hardware, &c.hw);
                parts.ckpts.insert(c.ckpt.clone());
                parts.cells.push(encode::cell(c, kv)?);
            }
            Slot::Carried(i) => {
                let p = prev.ok_or("carried cell without a previous file")?;
                let cell = p.carried_cell(*i, &new_index)?;
                for key in previous::cell_file_keys(&cell) {
                    let f = p
                        .file(&key)
                        .ok_or_else(|| format!("previous file lacks `{key}`"))?;
                    parts.files.insert(key, f);
                }
                let c = &p.loaded.data.cells[*i];
                push_new(&mut parts.hardware, &c.hw);
                parts.ckpts.insert(c.ckpt.clone());
                parts.carried.push(c.id.clone());
                parts.cells.push(cell);
            }
        }
    }
    Ok(parts)
}

fn push_new(v: &mut Vec<String>, s: &str) {
    if !v.iter().any(|x| x == s) {
        v.push(s.to_string());
    }
}

/// Rendered and carried cells in page order (`cells::order_key`; a carried
/// cell counts its whole allocation as its worker's GPUs).
fn order(
    drafts: Vec<(CellDraft, kv::KvFacts)>,
    carried_lanes: &[String],
    prev: Option<&PreviousPage>,
    page: &str,
) -> Result<Vec<Slot>, String> {
    let mut keyed: Vec<(cells::OrderKey, Slot)> = Vec::new();
    for (c, kv) in drafts {
        keyed.push((c.order_key(), Slot::Rendered(Box::new((c, kv)))));
    }
    for lane in carried_lanes {
        let p = prev.ok_or_else(|| {
            format!(
                "lane `{lane}` is carried over, but --previous has no data file for page `{page}`"
            )
        })?;
        let indices = p.lane_cells(lane);
        if indices.is_empty() {
            return Err(format!(
                "lane `{lane}` is carried over, but {} has no cell of it",
                p.path.display()
            ));
        }
        for i in indices {
            let c = &p.loaded.data.cells[i];
            let conc = c
                .points
                .first()
                .and_then(|pt| pt.concs.first())
                .copied()
                .unwrap_or(0);
            let key = cells::order_key(&c.hw, &c.ckpt, conc, c.gpus, &c.config_key, &c.id);
            keyed.push((key, Slot::Carried(i)));
        }
    }
    keyed.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(keyed.into_iter().map(|(_, s)| s).collect())
}

/// `{repo, main, prs}`: every lane of the sync still awaiting merge, in
/// manifest order (a carried lane without a commit keeps the previous page's entry).
fn source(m: &LaneManifest, prev: Option<&PreviousPage>) -> Value {
    let mut prs = Map::new();
    for l in &m.lanes {
        let (Some(pr), RunStatus::VerifiedPr | RunStatus::InProgress) = (&l.pr, l.status) else {
            continue;
        };
        if l.commit.is_none() {
            if let Some(entry) = prev.and_then(|p| p.raw.get("source")?.get("prs")?.get(pr)) {
                prs.entry(pr.clone()).or_insert_with(|| entry.clone());
            }
            continue;
        }
        let run = l.run.as_ref().map(|r| {
            let id = r.split('/').next().unwrap_or(r);
            format!("{}/actions/runs/{id}", m.source.repo_url)
        });
        prs.entry(pr.clone()).or_insert_with(|| {
            json!({ "run": run, "sha": l.commit, "status": crate::sync::input::lane_manifest::status_id(l.status) })
        });
    }
    json!({ "repo": m.source.repo_url, "main": m.source.main, "prs": prs })
}

fn hardware_json(ids: &[String], prev: Option<&PreviousPage>) -> Value {
    let mut ids = ids.to_vec();
    ids.sort_by_key(|h| {
        HARDWARE_ORDER
            .iter()
            .position(|x| x == h)
            .unwrap_or(HARDWARE_ORDER.len())
    });
    Value::Array(
        ids.iter()
            .map(|id| {
                let label = prev
                    .and_then(|p| p.loaded.data.hardware.iter().find(|h| h.id == *id))
                    .map_or_else(|| id.to_ascii_uppercase(), |h| h.label.clone());
                json!({ "id": id, "label": label })
            })
            .collect(),
    )
}

/// `DeepSeek-V4.1` → `agentx-deepseek-v4.1.json` (`.jsx` as a module).
fn default_name(page: &str, format: crate::sync::DataFormat) -> String {
    let mut slug = String::new();
    for ch in page.chars() {
        let c = ch.to_ascii_lowercase();
        if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
            slug.push(c);
        } else if !slug.ends_with('-') {
            slug.push('-');
        }
    }
    let ext = match format {
        crate::sync::DataFormat::Json => "json",
        crate::sync::DataFormat::Jsx => "jsx",
    };
    format!("agentx-{}.{ext}", slug.trim_matches('-'))
}

/// Parses and decodes the text; every rendered point must decode to exactly
/// its blocks on both routers, every carried cell to what it decoded to before.
fn finish(
    page: &str,
    file_name: String,
    text: String,
    slots: &[Slot],
    carried: Vec<String>,
    prev: Option<&PreviousPage>,
) -> Result<PageOut, String> {
    let loaded = data::parse_str(&text, Path::new(&file_name))
        .map_err(|e| format!("page `{page}`: the generated file does not load: {e:#}"))?;
    let decoded = decode::decode_page(&loaded.data)
        .map_err(|e| format!("page `{page}`: the generated file does not decode: {e:#}"))?;
    for (ci, slot) in slots.iter().enumerate() {
        let d = &decoded.deployments[ci];
        match slot {
            Slot::Rendered(rendered) => check_rendered(&rendered.0, d)?,
            Slot::Carried(i) => {
                let p = prev.ok_or("carried cell without a previous file")?;
                let before = &p.decoded.deployments[*i];
                let texts = |x: &decode::Deployment| -> Vec<String> {
                    x.command_sets.iter().map(|s| s.copy_all_text()).collect()
                };
                if texts(before) != texts(d) {
                    return Err(format!(
                        "page `{page}`: carried cell `{}` does not decode as it did in {}",
                        d.cell_id,
                        p.path.display()
                    ));
                }
            }
        }
    }
    Ok(PageOut {
        page: page.to_string(),
        file_name,
        text,
        data: loaded.data,
        decoded,
        carried,
    })
}

fn check_rendered(c: &CellDraft, d: &decode::Deployment) -> Result<(), String> {
    for (pi, p) in c.points.iter().enumerate() {
        for (router, setup) in &p.routers.by_router {
            let set = d
                .command_sets
                .iter()
                .find(|s| s.point == pi && s.router == *router && s.tier == p.kv)
                .ok_or_else(|| {
                    format!(
                        "cell `{}` {}: no {router} command set",
                        c.id,
                        concs_text(&p.concs)
                    )
                })?;
            let got: Vec<&str> = set.processes.iter().map(|x| &*x.command).collect();
            let want: Vec<String> = setup.blocks.iter().map(decode::command_text).collect();
            if got != want {
                return Err(format!(
                    "round trip: cell `{}` {} ({router}, {}) does not decode to its blocks; \
                     nothing was written",
                    c.id,
                    concs_text(&p.concs),
                    p.kv
                ));
            }
        }
    }
    Ok(())
}
