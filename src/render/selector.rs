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
use crate::decode::{CommandSet, ConfigFile, DecodedPage, Deployment, concs_label};

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
            let files: Vec<Value> = p.files.iter().map(file_data).collect();
            json!([&*p.title, &*p.long_title, &*p.placement, files])
        })
        .collect();
    json!({
        "env": !s.placeholders.is_empty(),
        "procs": processes,
        "loose": s.loose_files.iter().map(file_data).collect::<Vec<_>>(),
    })
}

/// A config file in Copy all: `[name, "cat > name <<'EOF'", "EOF"]`.
fn file_data(f: &ConfigFile) -> Value {
    let (head, delim) = f.heredoc();
    json!([f.name, head, delim])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::fixture;

    /// The data of the fixture's GB300 deployment chapter, pretty-printed
    /// (reviewed by hand against `decode --json` of the same cell: chips'
    /// texts, each set's keys, anchor and status, the window's titles and
    /// placements, nats.conf/nginx.conf as here-documents).
    #[test]
    fn selector_data_snapshot() {
        let page = crate::decode::decode_file(&fixture("data/mini.json"))
            .unwrap()
            .page;
        let gb300: Vec<&Deployment> = page
            .deployments
            .iter()
            .filter(|d| d.hw == "gb300")
            .collect();
        let data = selector_data(&page, &gb300, &SelectorPage::Deployment(gb300[0]));
        insta::assert_snapshot!(
            "selector_data_gb300",
            serde_json::to_string_pretty(&data).unwrap()
        );
        let html = selector_html(&page, &gb300, &SelectorPage::Deployment(gb300[0]));
        assert!(html.starts_with("<div class=\"agentx-selector\" hidden></div>\n<script"));
        assert_eq!(html.matches('<').count(), 4, "no `<` inside the JSON");
    }
}
