//! What the offline selector (agentx.js) needs, emitted at build time from
//! the decoded command sets: the rows' choices for every deployment of a
//! section, each command set's keys and anchor, and on a deployment chapter
//! the titles and placements its command window shows. The browser decodes
//! nothing.
//!
//! The markup is an empty `<div class="agentx-selector">` (nothing shows
//! without JavaScript) and one
//! `<script type="application/json" class="agentx-selector-data">`.
//!
//! May use: `decode` (the model), `data` (routers, tiers), `render::html`.

use serde_json::{Value, json};

use super::html;
use crate::data::{KvTier, Router};
use crate::decode::{CommandSet, DecodedPage, Deployment, concs_label};

/// The page a selector is on.
pub(super) enum SelectorPage<'a> {
    /// The model page's section (`section` is its heading's anchor): `dir`
    /// is the deployment chapters' directory relative to it.
    Model { dir: &'a str, section: &'a str },
    /// A deployment chapter (its siblings are the other deployments).
    Deployment(&'a Deployment),
}

/// The selector's markup and data for a section of `deployments`.
pub(super) fn selector_html(
    page: &DecodedPage,
    deployments: &[&Deployment],
    on: &SelectorPage<'_>,
) -> String {
    let data = selector_data(page, deployments, on);
    format!(
        "<div class=\"agentx-selector\" hidden></div>\n<script type=\"application/json\" \
         class=\"agentx-selector-data\">{}</script>\n\n",
        html::script_json(&data)
    )
}

/// The JSON the selector reads (see agentx.js for how).
pub(super) fn selector_data(
    page: &DecodedPage,
    deployments: &[&Deployment],
    on: &SelectorPage<'_>,
) -> Value {
    let mut hardware: Vec<(&str, &str)> = Vec::new();
    for id in &page.hardware {
        if let Some(d) = deployments.iter().find(|d| &d.hw == id) {
            hardware.push((&d.hw, &d.hw_label));
        }
    }
    let deps: Vec<Value> = deployments
        .iter()
        .map(|d| {
            let hw = hardware.iter().position(|(id, _)| *id == d.hw);
            let href = match on {
                SelectorPage::Model { dir, .. } => format!("{dir}/{}.md", d.anchor),
                SelectorPage::Deployment(_) => format!("{}.md", d.anchor),
            };
            deployment_data(d, hw.unwrap_or(0), &href)
        })
        .collect();
    let mut v = json!({
        "model": page.model,
        "hw": hardware.iter().map(|(_, l)| *l).collect::<Vec<_>>(),
        "tiers": KvTier::ALL.iter().map(|t| json!([t.id(), t.label()])).collect::<Vec<_>>(),
        "routers": Router::ALL.iter().map(|r| json!([r.id(), r.label()])).collect::<Vec<_>>(),
        "deps": deps,
    });
    if let SelectorPage::Model { section, .. } = on {
        v["section"] = json!(section);
    }
    if let SelectorPage::Deployment(d) = on {
        v["here"] = json!(d.anchor);
        v["win"] = d
            .command_sets
            .iter()
            .map(|s| (s.anchor.clone(), window_data(s)))
            .collect::<serde_json::Map<String, Value>>()
            .into();
    }
    v
}

/// One deployment: its chips' texts and every command set's keys.
fn deployment_data(d: &Deployment, hw: usize, href: &str) -> Value {
    let unavailable: serde_json::Map<String, Value> = d
        .unavailable
        .iter()
        .map(|u| (u.tier.id().to_string(), json!(u.reason)))
        .collect();
    let points: Vec<Value> = (0..d.concs.len())
        .map(|pi| {
            let measured = d
                .command_sets
                .iter()
                .find(|s| s.point == pi)
                .map(|s| s.measured.id());
            json!([concs_label(&d.concs[pi]), measured])
        })
        .collect();
    let sets: Vec<Value> = d
        .command_sets
        .iter()
        .map(|s| {
            json!([
                s.point,
                s.tier.id(),
                s.router.id(),
                s.anchor,
                s.status.id(),
                s.status.label()
            ])
        })
        .collect();
    json!({
        "anchor": d.anchor,
        "href": href,
        "hw": hw,
        "ckpt": d.ckpt_label,
        "label": d.label,
        "sub": deployment_subline(d),
        "submitted": d.submitted.id(),
        "available": d.available.iter().map(|t| t.id()).collect::<Vec<_>>(),
        "unavailable": unavailable,
        "points": points,
        "sets": sets,
    })
}

/// The Deployment chip's sub-line: `MTP 3-1-4 · 8 GPUs · c1, c4, c16`.
fn deployment_subline(d: &Deployment) -> String {
    let concs: Vec<String> = d.concs.iter().flatten().map(|c| c.to_string()).collect();
    let mut parts = Vec::new();
    if let Some(detail) = &d.detail {
        parts.push(detail.clone());
    }
    parts.push(format!("{} GPUs", d.gpus));
    parts.push(format!("c{}", concs.join(", c")));
    parts.join(" · ")
}

/// What the command window of one set shows beyond the page's markup: the
/// tab title, comment title and placement of each process, how many config
/// files follow each, and whether an Env Vars block comes first.
fn window_data(s: &CommandSet) -> Value {
    let processes: Vec<Value> = s
        .processes
        .iter()
        .map(|p| {
            json!([
                &*p.title,
                &*p.long_title,
                &*p.placement,
                p.files.iter().map(|f| &f.name).collect::<Vec<_>>()
            ])
        })
        .collect();
    json!({
        "env": !s.placeholders.is_empty(),
        "procs": processes,
        "loose": s.loose_files.iter().map(|f| &f.name).collect::<Vec<_>>(),
    })
}
